"""The Retraction Watch dataset, imported from its CSV into a local SQLite snapshot.

Why a local snapshot: Crossref distributes the whole Retraction Watch database as one CSV
(about 60 MB, updated every working day) rather than through a per-DOI API, and a retraction
check should not download 60 MB. ``citeproof retractions import FILE`` reads the CSV once into
``<data dir>/retractionwatch.sqlite3``; every later lookup is an indexed query, offline.

Decisions:

* **Streaming.** The CSV is read row by row (``csv.reader`` over the open file) and inserted
  in batches, so memory stays flat whatever the file's size.
* **Atomic.** The import writes a temporary database beside the target and ``os.replace``-s
  it into place only when every row was read: an interrupted or refused import leaves the
  previous snapshot exactly as it was.
* **Dated.** Every answer carries the snapshot's date (``as_of``): a paper retracted after it
  is not in it. The date is ``--as-of DATE`` when given, else the CSV file's modification
  date (UTC) — the day it was downloaded or pulled, which is the closest the file itself says
  about its age; pass ``--as-of`` with the dataset's own date when you know it.
* **Keys.** DOIs are canonicalised as :func:`citeproof.identifiers.parse_identifier` does
  (``doi:``/URL prefixes dropped, ASCII lower-cased), so lookups are case-insensitive; PMIDs
  are digits without leading zeros. The dataset writes ``unavailable`` for a missing DOI and
  ``0`` for a missing PMID; those become NULL.
* **Nature.** ``RetractionNature`` values map to the update types Crossref uses:
  Retraction -> ``retraction``, Expression of concern -> ``expression_of_concern``,
  Correction -> ``correction``, Reinstatement -> ``reinstatement``; anything else is kept
  lower-cased in snake case.
* **Encoding.** The published file is UTF-8 with occasional bad bytes (Crossref says so);
  they are replaced rather than refusing a whole snapshot over one author's name.

A file that is not a Retraction Watch CSV (missing columns, binary, no rows) raises
:class:`RetractionWatchFormatError` (exit 2) and nothing is replaced.
"""

from __future__ import annotations

import contextlib
import csv
import os
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from citeproof.errors import (
    BadInputError,
    RetractionWatchFormatError,
    SnapshotError,
)
from citeproof.identifiers import UnknownIdentifierError, parse_identifier
from citeproof.store.paths import default_dirs

__all__ = [
    "DB_NAME",
    "REQUIRED_COLUMNS",
    "RetractionWatchFormatError",
    "RwEntry",
    "SnapshotError",
    "SnapshotInfo",
    "default_db_path",
    "import_csv",
    "lookup",
    "nature_kind",
    "snapshot_info",
]

DB_NAME = "retractionwatch.sqlite3"
FORMAT_VERSION = "1"
BATCH = 2000

#: Columns the import reads; the dataset has more (Subject, Institution, Country, Author ...).
REQUIRED_COLUMNS: tuple[str, ...] = (
    "Record ID",
    "Title",
    "Journal",
    "Publisher",
    "URLS",
    "RetractionDate",
    "RetractionDOI",
    "RetractionPubMedID",
    "OriginalPaperDate",
    "OriginalPaperDOI",
    "OriginalPaperPubMedID",
    "RetractionNature",
    "Reason",
)

_NATURES = {
    "retraction": "retraction",
    "expression of concern": "expression_of_concern",
    "correction": "correction",
    "reinstatement": "reinstatement",
}

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entries (
    record_id TEXT, title TEXT, journal TEXT, publisher TEXT, urls TEXT,
    nature TEXT NOT NULL, nature_raw TEXT, reason TEXT,
    retraction_date TEXT, retraction_doi TEXT, retraction_pmid TEXT,
    original_date TEXT, original_doi TEXT, original_pmid TEXT
);
"""
_INDEXES = """
CREATE INDEX entries_original_doi ON entries (original_doi);
CREATE INDEX entries_original_pmid ON entries (original_pmid);
CREATE INDEX entries_retraction_doi ON entries (retraction_doi);
CREATE INDEX entries_retraction_pmid ON entries (retraction_pmid);
"""


@dataclass(frozen=True, slots=True)
class SnapshotInfo:
    path: Path
    as_of: date
    rows: int
    imported_at: str
    source_name: str
    skipped: int = 0


@dataclass(frozen=True, slots=True)
class RwEntry:
    """One dataset row about a work: a notice of ``kind`` for the original paper."""

    record_id: str | None
    kind: str
    """``retraction``, ``expression_of_concern``, ``correction``, ``reinstatement`` ..."""
    nature: str | None
    """``RetractionNature`` as written in the dataset."""
    reason: str | None
    notice_doi: str | None
    notice_pmid: str | None
    notice_date: str | None
    original_doi: str | None
    original_pmid: str | None
    title: str | None
    journal: str | None
    urls: str | None


def default_db_path() -> Path:
    """``<data dir>/retractionwatch.sqlite3`` (``CITEPROOF_HOME`` moves it)."""
    return default_dirs().data / DB_NAME


def nature_kind(nature: str) -> str:
    """``"Expression of concern"`` -> ``expression_of_concern``; see the module docstring."""
    text = " ".join(nature.strip().lower().split())
    return _NATURES.get(text, text.replace(" ", "_") or "unknown")


def _doi(value: str) -> str | None:
    text = value.strip()
    if not text or text.lower() in {"unavailable", "na", "n/a", "none", "0"}:
        return None
    try:
        identifier = parse_identifier(text)
    except UnknownIdentifierError:
        return None
    return identifier.value if identifier.kind == "doi" else None


def _pmid(value: str) -> str | None:
    digits = value.strip()
    if digits.endswith(".0"):  # spreadsheets sometimes write numbers as floats
        digits = digits[:-2]
    if not digits.isdigit() or not digits.isascii():
        return None
    return digits.lstrip("0") or None


def _date(value: str) -> str | None:
    """``"3/1/2024 0:00"`` (the dataset's form) or ISO -> ``2024-03-01``; else as given."""
    text = value.strip()
    if not text:
        return None
    head = text.split()[0]
    for fmt in ("%m/%d/%Y", "%Y-%m-%d"):
        try:
            return datetime.strptime(head, fmt).date().isoformat()
        except ValueError:
            continue
    return text


def _text(value: str) -> str | None:
    text = value.strip()
    return text or None


def _rows(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every row after the header; the header is checked first."""
    try:
        handle = path.open("r", encoding="utf-8-sig", errors="replace", newline="")
    except OSError as exc:
        raise BadInputError(f"cannot read {path}: {exc.strerror or exc}; check the path.") from exc
    with handle:
        reader = csv.reader(handle)
        try:
            header = next(reader, None)
            if header is None:
                raise RetractionWatchFormatError(
                    f"{path} is empty; give the Retraction Watch CSV (retraction_watch.csv)."
                )
            names = [h.strip() for h in header]
            missing = [c for c in REQUIRED_COLUMNS if c not in names]
            if missing:
                raise RetractionWatchFormatError(
                    f"{path} is not a Retraction Watch CSV: it lacks the column(s) "
                    f"{', '.join(missing)}. Give the dataset's retraction_watch.csv as "
                    "published by Crossref."
                )
            index = [names.index(c) for c in REQUIRED_COLUMNS]
            width = max(index) + 1
            for fields in reader:
                if not fields or (len(fields) == 1 and not fields[0].strip()):
                    continue
                if len(fields) < width:
                    yield reader.line_num, []
                    continue
                yield reader.line_num, [fields[i] for i in index]
        except csv.Error as exc:
            raise RetractionWatchFormatError(
                f"{path} is not a readable CSV (line {reader.line_num}: {exc}); give the "
                "Retraction Watch CSV (retraction_watch.csv)."
            ) from exc


def _record(fields: list[str]) -> tuple[str | None, ...]:
    (
        record_id,
        title,
        journal,
        publisher,
        urls,
        r_date,
        r_doi,
        r_pmid,
        o_date,
        o_doi,
        o_pmid,
        nature,
        reason,
    ) = fields
    return (
        _text(record_id),
        _text(title),
        _text(journal),
        _text(publisher),
        _text(urls),
        nature_kind(nature),
        _text(nature),
        _text(reason),
        _date(r_date),
        _doi(r_doi),
        _pmid(r_pmid),
        _date(o_date),
        _doi(o_doi),
        _pmid(o_pmid),
    )


def _file_date(path: Path) -> date:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).date()


def import_csv(
    csv_path: Path,
    db_path: Path | None = None,
    *,
    as_of: date | None = None,
    now: datetime | None = None,
) -> SnapshotInfo:
    """Import the CSV at ``csv_path`` as the snapshot at ``db_path`` (default location).

    Replaces the previous snapshot only when the whole file was read; raises
    :class:`RetractionWatchFormatError` for a file that is not the dataset (nothing replaced).
    """
    target = db_path if db_path is not None else default_db_path()
    if not csv_path.is_file():
        raise BadInputError(f"{csv_path} does not exist or is not a file; check the path.")
    snapshot_date = as_of if as_of is not None else _file_date(csv_path)
    imported_at = (now or datetime.now(UTC)).astimezone(UTC).isoformat(timespec="seconds")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".retractionwatch-", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        rows, skipped = _write_snapshot(tmp, csv_path, snapshot_date, imported_at)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return SnapshotInfo(target, snapshot_date, rows, imported_at, csv_path.name, skipped)


def _write_snapshot(tmp: Path, csv_path: Path, as_of: date, imported_at: str) -> tuple[int, int]:
    connection = sqlite3.connect(tmp)
    try:
        connection.executescript(_SCHEMA)
        rows = skipped = 0
        batch: list[tuple[str | None, ...]] = []
        insert = "INSERT INTO entries VALUES (" + ", ".join("?" * 14) + ")"
        for _line, fields in _rows(csv_path):
            if not fields:
                skipped += 1
                continue
            batch.append(_record(fields))
            rows += 1
            if len(batch) >= BATCH:
                connection.executemany(insert, batch)
                batch.clear()
        if batch:
            connection.executemany(insert, batch)
        if rows == 0:
            raise RetractionWatchFormatError(
                f"{csv_path} has the Retraction Watch columns but no rows; a truncated "
                "download? The previous snapshot was kept."
            )
        connection.executescript(_INDEXES)
        meta = {
            "format": FORMAT_VERSION,
            "as_of": as_of.isoformat(),
            "imported_at": imported_at,
            "source_name": csv_path.name,
            "rows": str(rows),
            "skipped": str(skipped),
        }
        connection.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        connection.commit()
        return rows, skipped
    finally:
        connection.close()


def _connect(db_path: Path) -> sqlite3.Connection:
    uri = db_path.resolve().as_uri() + "?mode=ro"
    return sqlite3.connect(uri, uri=True)


@contextlib.contextmanager
def _reading(db_path: Path) -> Iterator[sqlite3.Connection]:
    """The snapshot open for reading, closed after; anything that cannot be read in it (a
    damaged file, a missing table or key) is a :class:`SnapshotError` saying what to do."""
    try:
        connection = _connect(db_path)
        try:
            yield connection
        finally:
            connection.close()
    except (sqlite3.Error, KeyError, ValueError) as exc:
        raise SnapshotError(
            f"The Retraction Watch snapshot {db_path} cannot be read ({exc}); import the CSV "
            "again (citeproof retractions import FILE)."
        ) from exc


def _info(connection: sqlite3.Connection, db_path: Path) -> SnapshotInfo:
    meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("format") != FORMAT_VERSION:
        raise SnapshotError(
            f"The Retraction Watch snapshot {db_path} has format {meta.get('format')!r}, not "
            f"{FORMAT_VERSION}; import the CSV again (citeproof retractions import FILE)."
        )
    return SnapshotInfo(
        db_path,
        date.fromisoformat(meta["as_of"]),
        int(meta["rows"]),
        meta["imported_at"],
        meta["source_name"],
        int(meta.get("skipped", "0")),
    )


def snapshot_info(db_path: Path | None = None) -> SnapshotInfo | None:
    """The snapshot's date and size, or ``None`` when none was imported."""
    path = db_path if db_path is not None else default_db_path()
    if not path.is_file():
        return None
    with _reading(path) as connection:
        return _info(connection, path)


_COLUMNS = (
    "record_id, nature, nature_raw, reason, retraction_doi, retraction_pmid, retraction_date, "
    "original_doi, original_pmid, title, journal, urls"
)


def lookup(
    db_path: Path, *, doi: str | None = None, pmid: str | None = None, as_notice: bool = False
) -> tuple[SnapshotInfo, list[RwEntry]]:
    """Rows whose original paper has ``doi`` or ``pmid`` (or, with ``as_notice``, rows whose
    *notice* has them), with the snapshot's info. Raises :class:`SnapshotError` if the
    snapshot cannot be read; call :func:`snapshot_info` first to learn whether there is one.
    """
    wanted_doi = _doi(doi) if doi else None
    wanted_pmid = _pmid(pmid) if pmid else None
    doi_col, pmid_col = (
        ("retraction_doi", "retraction_pmid") if as_notice else ("original_doi", "original_pmid")
    )
    with _reading(db_path) as connection:
        info = _info(connection, db_path)
        found = connection.execute(
            f"SELECT {_COLUMNS} FROM entries WHERE {doi_col} = ? OR {pmid_col} = ? "
            "ORDER BY retraction_date, record_id",
            (wanted_doi, wanted_pmid),
        ).fetchall()
    entries = [
        RwEntry(
            record_id=row[0],
            kind=row[1],
            nature=row[2],
            reason=row[3],
            notice_doi=row[4],
            notice_pmid=row[5],
            notice_date=row[6],
            original_doi=row[7],
            original_pmid=row[8],
            title=row[9],
            journal=row[10],
            urls=row[11],
        )
        for row in found
    ]
    return info, entries
