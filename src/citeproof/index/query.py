"""Asking a built index: identifier look-ups, bibliographic search, notices, the manifest.

This is what ``citeproof refs`` calls in place of the web services when it is given an
index.  Opening one is cheap (a JSON file, a read-only SQLite connection, tantivy's
memory-mapped segments) and safe in any number of processes at once; a :class:`LocalIndex`
pickles as its path, so a Dask or process-pool worker opens its own.

Every answer is well-formed or an error: an index that cannot be read (no manifest, damaged
tables, a stopped build) raises :class:`~citeproof.errors.UnavailableError`, which a caller
reports as ``unavailable``, never as "not found"; a question the index cannot ask (an
unknown identifier kind, an empty search) raises :class:`~citeproof.errors.BadInputError`.

How a search is ranked: BM25 over the records' text, as Crossref's ``query.bibliographic``
ranks a whole reference string against title, authors, venue and numbers.  Before asking,
the words of the question are cut to the most selective ones: a word in more than
:data:`COMMON_FRACTION` of the records (``journal``, ``study``, a single initial) scores
almost nothing in BM25 and costs the most to score, so at most :data:`MAX_TERMS` of the rarest
words are asked (the most common words are kept only when nothing rarer is left).  tantivy
then finds the top hits with block-max WAND.  Hits are mapped to their merged works; each work
appears once, as the record that scored best.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from citeproof.errors import BadInputError, UnavailableError
from citeproof.index import engine, tables
from citeproof.index.manifest import MANIFEST_NAME, Manifest, read_manifest
from citeproof.index.records import ID_KINDS, SOURCES, decode_blob, normalise_id
from citeproof.models.references import WorkRecord

__all__ = [
    "COMMON_FRACTION",
    "MAX_TERMS",
    "IndexNotice",
    "LocalIndex",
    "open_index",
]

#: A word in more than this share of the records is too common to search by alone.
COMMON_FRACTION = 0.02
#: The most words one field of a search asks.
MAX_TERMS = 10
_SOURCE_ORDER = {s: i for i, s in enumerate(SOURCES)}
T = TypeVar("T")
_RETRACTED = frozenset({"retraction", "withdrawal", "removal", "partial_retraction"})
_CONCERN = frozenset({"expression_of_concern"})


@dataclass(frozen=True, slots=True)
class IndexNotice:
    """A notice about a work, as the dump that carried it states it."""

    target: str
    """The identifier of the work the notice is about (``doi:10.1/x``)."""
    kind: str
    """``retraction``, ``expression_of_concern``, ``correction``, ``erratum`` …"""
    category: str
    """``retracted``, ``concern`` or ``correction``: what the notice means for the work."""
    notice: str | None
    """The notice's own identifier, when it has one."""
    date: str | None
    source: str
    """``crossref``, ``pubmed``, ``openalex`` or ``retractionwatch``."""
    as_of: str | None
    """The date of the dump it was read from (its newest record)."""
    label: str | None = None
    reason: str | None = None
    record_id: str | None = None


def open_index(path: str | Path) -> LocalIndex:
    """The finished index in ``path``, read-only.

    Raises ``UnavailableError`` when there is none or it cannot be read, and
    ``CiteproofError`` when the ``index`` extra is not installed.
    """
    return LocalIndex(Path(path))


class LocalIndex:
    """A built index, opened read-only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tantivy = engine.require_tantivy()
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._connection: sqlite3.Connection | None = None
        self._open()

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (open_index, (str(self.path),))

    # -- opening -----------------------------------------------------------------------------

    def _manifest_stamp(self) -> tuple[int, int, int]:
        try:
            stat = (self.path / MANIFEST_NAME).stat()
        except OSError:
            return (0, 0, 0)
        return (stat.st_ino, stat.st_mtime_ns, stat.st_size)

    def _open(self) -> None:
        manifest = read_manifest(self.path)
        connection = tables.connect_readonly(self.path / tables.DB_NAME)
        try:
            if tables.get_meta(connection, "format") != tables.FORMAT:
                raise UnavailableError(
                    f"the local index {self.path} has another format; build it again with "
                    "this version of citeproof."
                )
            index = engine.open_engine(self.path / "search")
            searcher = index.searcher()
        except (sqlite3.Error, ValueError, OSError) as exc:
            connection.close()
            raise UnavailableError(f"the local index {self.path} cannot be read ({exc}).") from exc
        if self._connection is not None:
            self._connection.close()
        self._manifest = manifest
        self._connection = connection
        self._index = index
        self._searcher = searcher
        self._schema = index.schema
        self._analyzers = engine.analyzers(self._tantivy)
        self._docs = max(int(searcher.num_docs), 1)
        self._stamp = self._manifest_stamp()

    def _fresh(self) -> None:
        """Follow an update: a new manifest means new tables and segments to read."""
        if self._manifest_stamp() != self._stamp:
            self._open()

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    def __enter__(self) -> LocalIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def manifest(self) -> Manifest:
        """What the index holds, and the hash that names it in evidence."""
        with self._lock:
            self._fresh()
            return self._manifest

    def coverage_phrase(self) -> str:
        """ "PubMed baseline 2026 + Crossref 2025": what a ``not_found`` was looked for in."""
        return self.manifest.coverage_phrase()

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            raise UnavailableError(f"the local index {self.path} was closed.")
        return self._connection

    # -- identifiers -------------------------------------------------------------------------

    def by_identifier(self, kind: str, value: str) -> list[WorkRecord]:
        """The records of the one work ``kind:value`` names (``doi``, ``pmid``, ``pmcid``,
        ``arxiv``, ``openalex``, ``dblp``), each with ``source`` the dump it came from; an
        empty list when the index holds no such identifier (or the value is not one)."""
        if kind not in ID_KINDS:
            raise BadInputError(
                f"the local index has no identifier kind {kind!r}; use one of "
                f"{', '.join(ID_KINDS)}."
            )
        canonical = normalise_id(kind, value) if isinstance(value, str) else None
        if canonical is None:
            return []
        return self._ask(self._work_records, f"{kind}:{canonical}")

    def _work_records(self, key: str) -> list[WorkRecord]:
        return [record for _ids, record in self._work_rows(key)]

    def _work_rows(self, key: str) -> list[tuple[tuple[str, ...], WorkRecord]]:
        """(identifiers, record) of each live record of the work(s) ``key`` names, in
        source order."""
        db = self._db()
        works = [
            w
            for (w,) in db.execute(
                "SELECT DISTINCT r.work FROM ids i JOIN records r ON r.rid = i.rid "
                "WHERE i.value = ? AND r.live = 1",
                (key,),
            )
        ]
        if not works:
            alias = db.execute("SELECT target FROM aliases WHERE value = ?", (key,)).fetchone()
            if alias is not None and alias[0] != key:
                return self._work_rows(alias[0])
            return []
        rows = []
        for work in works:
            rows.extend(
                db.execute(
                    "SELECT rid, data FROM records WHERE work = ? AND live = 1", (work,)
                ).fetchall()
            )
        found = []
        for rid, blob in rows:
            ids, fields = decode_blob(blob)
            found.append((rid, ids, WorkRecord(**fields)))
        found.sort(key=lambda row: (_SOURCE_ORDER.get(row[2].source, 99), row[0]))
        return [(ids, record) for _rid, ids, record in found]

    def _ask(self, question: Callable[..., T], *args: Any) -> T:
        """One question, under the lock, on the newest manifest's tables; a table or
        segment that cannot be read is ``UnavailableError``, never an empty answer."""
        with self._lock:
            self._fresh()
            try:
                return question(*args)
            except (sqlite3.Error, ValueError) as exc:
                raise UnavailableError(
                    f"the local index {self.path} cannot be read ({exc})."
                ) from exc

    # -- notices -----------------------------------------------------------------------------

    def notices(self, key: str) -> list[IndexNotice]:
        """Every retraction, correction or concern notice about the work ``key`` names
        (``doi:10.1/x``, ``pmid:123`` …), from every source, oldest first; the same notice
        stated twice by one source is listed once."""
        kind, _, value = key.partition(":")
        if kind not in ID_KINDS or not value:
            raise BadInputError(f"{key!r} is not an identifier key (doi:…, pmid:…, …).")
        canonical = normalise_id(kind, value)
        if canonical is None:
            return []
        return self._ask(self._notices, f"{kind}:{canonical}")

    def _notices(self, key: str) -> list[IndexNotice]:
        db = self._db()
        targets = {key}
        for ids, _record in self._work_rows(key):
            targets.update(ids)
        marks = ",".join("?" * len(targets))
        rows = db.execute(
            "SELECT n.target, n.kind, n.notice, n.date, n.source, n.label, n.reason, "
            "n.record_id, f.newest FROM notices n JOIN files f ON f.file_no = n.file_no "
            f"WHERE n.target IN ({marks}) "
            "AND (n.rid IS NULL OR n.rid IN (SELECT rid FROM records WHERE live = 1)) "
            "ORDER BY n.date, n.source",
            sorted(targets),
        ).fetchall()
        seen: set[tuple[Any, ...]] = set()
        out = []
        for target, kind, notice, date, source, label, reason, record_id, as_of in rows:
            same = (kind, notice, source, record_id)
            if same in seen:
                continue
            seen.add(same)
            out.append(
                IndexNotice(
                    target=target,
                    kind=kind,
                    category=_category(kind),
                    notice=notice,
                    date=date,
                    source=source,
                    as_of=as_of,
                    label=label,
                    reason=reason,
                    record_id=record_id,
                )
            )
        return out

    # -- search ------------------------------------------------------------------------------

    def search(
        self,
        text: str | None = None,
        *,
        title: str | None = None,
        authors: Sequence[str] = (),
        year: int | None = None,
        venue: str | None = None,
        volume: str | None = None,
        first_page: str | None = None,
        limit: int = 5,
    ) -> list[tuple[WorkRecord, float]]:
        """The works that best match a reference, best first, each as its best-scoring
        record with its BM25 score: a whole reference string as ``text``, or its fields, or
        both.  An empty list when nothing matches."""
        if not 1 <= limit <= 100:
            raise BadInputError(f"limit must be between 1 and 100, not {limit}.")
        numbers = " ".join(str(n) for n in (year, volume, first_page) if n not in (None, ""))
        asked = {
            "bib": " ".join(t for t in (text, venue, numbers) if t),
            "title": title or "",
            "authors": " ".join(a for a in authors if a),
        }
        if not any(v.strip() for v in asked.values()):
            raise BadInputError("a search of the local index needs a reference or its fields.")
        return self._ask(self._search, asked, year, limit)

    def _terms(self, field: str, text: str) -> list[str]:
        analyzer = self._analyzers["names" if field == "authors" else "bib"]
        words = [w for w in dict.fromkeys(analyzer.analyze(text)) if len(w) > 1 or w.isdigit()]
        if not words:
            return []
        counted = sorted((self._searcher.doc_freq(field, w), w) for w in words)
        present = [(df, w) for df, w in counted if df > 0]
        selective = [w for df, w in present if df <= COMMON_FRACTION * self._docs]
        if not selective:
            selective = [w for _df, w in present[:2]]
        return selective[:MAX_TERMS]

    def _search(
        self, asked: dict[str, str], year: int | None, limit: int
    ) -> list[tuple[WorkRecord, float]]:
        tantivy = self._tantivy
        clauses = []
        boosts = {"bib": 1.0, "title": 2.0, "authors": 1.5}
        for field, text in asked.items():
            for word in self._terms(field, text) if text.strip() else []:
                query = tantivy.Query.term_query(self._schema, field, word, index_option="freq")
                if boosts[field] != 1.0:
                    query = tantivy.Query.boost_query(query, boosts[field])
                clauses.append((tantivy.Occur.Should, query))
        if year is not None:
            for near in (year - 1, year + 1):
                query = tantivy.Query.term_query(
                    self._schema, "bib", str(near), index_option="freq"
                )
                clauses.append((tantivy.Occur.Should, tantivy.Query.boost_query(query, 0.3)))
        if not clauses:
            return []
        query = tantivy.Query.boolean_query(clauses)
        hits = self._searcher.search(query, min(4 * limit + 10, 400), count=False).hits
        if not hits:
            return []
        rids = self._searcher.fast_field_values("rid", [address for _score, address in hits])
        db = self._db()
        scored: list[tuple[float, int]] = [
            (float(score), int(rid))
            for (score, _address), rid in zip(hits, rids, strict=True)
            if rid is not None
        ]
        marks = ",".join("?" * len(scored))
        rows = {
            rid: (work, blob)
            for rid, work, blob in db.execute(
                f"SELECT rid, work, data FROM records WHERE live = 1 AND rid IN ({marks})",
                [rid for _score, rid in scored],
            )
        }
        out: list[tuple[WorkRecord, float]] = []
        works: set[int] = set()
        for score, rid in scored:
            found = rows.get(rid)
            if found is None or found[0] in works:
                continue
            works.add(found[0])
            out.append((_record(found[1]), score))
            if len(out) == limit:
                break
        return out


def _record(blob: bytes) -> WorkRecord:
    _ids, fields = decode_blob(blob)
    return WorkRecord(**fields)


def _category(kind: str) -> str:
    if kind in _RETRACTED:
        return "retracted"
    if kind in _CONCERN:
        return "concern"
    return "correction"
