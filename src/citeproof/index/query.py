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
ranks a whole reference string against title, authors, venue and numbers (a search by
fields asks the same text with the fields' words).  Before asking, the words of the
question are cut to the most selective ones: a word in more than :data:`COMMON_FRACTION` of
the records (``journal``, ``study``, a single initial) scores almost nothing in BM25 and
costs the most to score, so at most :data:`MAX_TERMS` of the rarest words are asked (the most
common words are kept only when nothing rarer is left).  tantivy finds the top hits with
block-max WAND, whose cost grows with each word asked, so the search asks in two steps: the
:data:`FIRST_TERMS` rarest words, and all of them only when the best record found does not
hold those first words (all but one).  Hits are mapped to their merged works; each work
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
from citeproof.index.records import (
    FIELDS,
    ID_KINDS,
    SOURCES,
    TUPLE_FIELDS,
    Parsed,
    decode_blob,
    decode_ids,
    normalise_id,
    search_text,
)
from citeproof.models.references import WorkRecord

__all__ = [
    "COMMON_FRACTION",
    "FIRST_TERMS",
    "MAX_TERMS",
    "IndexNotice",
    "LocalIndex",
    "open_index",
]

#: A word in more than this share of the records is too common to search by alone.
COMMON_FRACTION = 0.02
#: The most words a search asks.
MAX_TERMS = 10
#: The words asked first: when the best record holds them, the rest are not asked.
FIRST_TERMS = 6
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
        self._analyzer = engine.analyzers(self._tantivy)["bib"]
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
        found = []
        for rid, blob in self._work_blobs(key):
            ids, fields = decode_blob(blob)
            found.append((rid, ids, WorkRecord(**fields)))
        found.sort(key=lambda row: (_SOURCE_ORDER.get(row[2].source, 99), row[0]))
        return [(ids, record) for _rid, ids, record in found]

    def _work_ids(self, key: str) -> set[str]:
        """Every identifier of the live records of the work(s) ``key`` names: what a notice
        about the work may be filed under, read without making the records (a matched
        reference's retraction status asks this of each of its identifiers)."""
        ids: set[str] = set()
        for _rid, blob in self._work_blobs(key):
            ids.update(decode_ids(blob))
        return ids

    def _work_blobs(self, key: str) -> list[tuple[int, bytes]]:
        """(rid, stored record) of each live record of the work(s) ``key`` names."""
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
                return self._work_blobs(alias[0])
            return []
        rows: list[tuple[int, bytes]] = []
        for work in works:
            rows.extend(
                db.execute(
                    "SELECT rid, data FROM records WHERE work = ? AND live = 1", (work,)
                ).fetchall()
            )
        return rows

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
        targets = {key} | self._work_ids(key)
        marks = ",".join("?" * len(targets))
        rows = db.execute(
            "SELECT n.target, n.kind, n.notice, n.date, n.source, n.label, n.reason, "
            "n.record_id, f.newest FROM notices n JOIN files f ON f.file_no = n.file_no "
            f"WHERE n.target IN ({marks}) "
            # A correlated EXISTS, not ``rid IN (SELECT ...)``: SQLite would build that list
            # from a scan of every record (seconds at millions of records) for each question.
            "AND (n.rid IS NULL OR EXISTS "
            "(SELECT 1 FROM records r WHERE r.rid = n.rid AND r.live = 1)) "
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
        parts = (text, title, *authors, venue, year, volume, first_page)
        asked = " ".join(str(p) for p in parts if p not in (None, ""))
        if not asked.strip():
            raise BadInputError("a search of the local index needs a reference or its fields.")
        return self._ask(self._search, asked, limit)

    def _terms(self, text: str) -> list[str]:
        """The words of ``text`` worth asking, rarest first (see the module docstring)."""
        words = [
            w for w in dict.fromkeys(self._analyzer.analyze(text)) if len(w) > 1 or w.isdigit()
        ]
        if not words:
            return []
        counted = sorted((self._searcher.doc_freq("bib", w), w) for w in words)
        present = [(df, w) for df, w in counted if df > 0]
        selective = [w for df, w in present if df <= COMMON_FRACTION * self._docs]
        if not selective:
            selective = [w for _df, w in present[:2]]
        return selective[:MAX_TERMS]

    def _search(self, asked: str, limit: int) -> list[tuple[WorkRecord, float]]:
        terms = self._terms(asked)
        if not terms:
            return []
        found = self._ranked(terms[:FIRST_TERMS], limit)
        if len(terms) > FIRST_TERMS and not self._confident(found, terms[:FIRST_TERMS]):
            found = self._ranked(terms, limit)
        return [(record, score) for record, score, _bib in found]

    def _confident(self, found: list[tuple[WorkRecord, float, str]], terms: list[str]) -> bool:
        """Whether the best record holds all the words asked, or all but one: then the words
        left out (commoner ones) would not change who is first."""
        if not found:
            return False
        held = set(self._analyzer.analyze(found[0][2]))
        return sum(t in held for t in terms) >= len(terms) - 1

    def _ranked(self, terms: list[str], limit: int) -> list[tuple[WorkRecord, float, str]]:
        """BM25 over ``bib`` for ``terms``: the best record of each of the first ``limit``
        works, with its score and its searched text."""
        tantivy = self._tantivy
        query = tantivy.Query.boolean_query(
            [
                (
                    tantivy.Occur.Should,
                    tantivy.Query.term_query(self._schema, "bib", t, index_option="freq"),
                )
                for t in terms
            ]
        )
        hits = self._searcher.search(query, 3 * limit + 6, count=False).hits
        out: list[tuple[WorkRecord, float, str]] = []
        works: set[int] = set()
        # Hits are read a few at a time, best first: most are distinct works, so the first
        # ``limit + 2`` usually give ``limit`` of them, and reading a hit (its rid, its row,
        # its record) costs as much again as tantivy's search for all of them.
        step = limit + 2
        for start in range(0, len(hits), step):
            if len(out) == limit:
                break
            out += self._read_hits(hits[start : start + step], works, limit - len(out), not out)
        return out

    def _read_hits(
        self, hits: list[Any], works: set[int], wanted: int, first: bool
    ) -> list[tuple[WorkRecord, float, str]]:
        """At most ``wanted`` records of ``hits`` (in their order) whose works are not in
        ``works`` yet, each with its score, and the searched text of the best of all
        (``first``: these are the first hits read; the text :meth:`_confident` reads),
        empty for the others.  ``works`` is updated."""
        # The stored rid: reading a fast field costs a column open per call, a stored
        # document a few microseconds.
        scored = [
            (float(score), int(self._searcher.doc(address)["rid"][0])) for score, address in hits
        ]
        if not scored:
            return []
        marks = ",".join("?" * len(scored))
        rows = {
            rid: (work, blob)
            for rid, work, blob in self._db().execute(
                f"SELECT rid, work, data FROM records WHERE live = 1 AND rid IN ({marks})",
                [rid for _score, rid in scored],
            )
        }
        found: list[tuple[WorkRecord, float, str]] = []
        for score, rid in scored:
            row = rows.get(rid)
            if row is None or row[0] in works:
                continue
            works.add(row[0])
            ids, fields = decode_blob(row[1])
            text = _searched_text(ids, fields) if first and not found else ""
            found.append((WorkRecord(**fields), score, text))
            if len(found) == wanted:
                break
        return found


def _searched_text(ids: tuple[str, ...], fields: dict[str, Any]) -> str:
    values = tuple(fields.get(f, () if f in TUPLE_FIELDS else None) for f in FIELDS)
    return search_text(Parsed("", 0, ids, values))


def _category(kind: str) -> str:
    if kind in _RETRACTED:
        return "retracted"
    if kind in _CONCERN:
        return "concern"
    return "correction"
