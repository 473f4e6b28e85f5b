"""The identifier tables: one SQLite file beside the search index.

Why SQLite for identifiers and tantivy for text: a look-up by DOI or PMID is an exact key
in a B-tree (a few page reads, microseconds, any number of readers), while ranking titles
is what a search engine does.  Each table, and why it is shaped so:

``records(rid, rkey, version, stamp, live, work, data)``
    One row per record read.  ``rkey`` (``pubmed:123``) is the record's own key: a later
    record with the same key, or a higher PubMed version, replaces it (``live`` = 0).
    ``stamp`` orders records by file and position.  ``work`` is the smallest ``rid`` of the
    records that share an identifier with it, directly or through others: the merged work.
    ``data`` is the record (identifiers and WorkRecord fields), compact JSON deflated with
    a preset dictionary (:func:`citeproof.index.records.encode_blob`).  ``live`` is 2 for
    rows of a build or update not finished yet, so a reader never sees half an update.
``ids(value, rid)``
    ``doi:10.1/x`` -> the records that name it; a ``WITHOUT ROWID`` B-tree keyed by both,
    so it is its own index (filled from ``ids_stage`` in sorted order at the end of a
    build: appending sorted keys is much faster than inserting 30 million keys at random).
``notices(target, kind, notice, date, source, label, reason, record_id, rid, file_no)``
    Retraction, correction and concern notices about ``target``; ``rid`` is the record
    that carried it (gone with that record), ``file_no`` the dump it came from.
``deletions(rkey, stamp, alias)`` and ``aliases(value, target)``
    PubMed ``DeleteCitation`` and OpenAlex merges; a merged-away OpenAlex id still finds
    the work it was merged into.
``files``, ``progress``, ``meta``
    The manifest's source (what was read, its sha256, counts, dates) and the build's own
    state, which is what lets a killed build resume where it stopped.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from citeproof.errors import UnavailableError

__all__ = [
    "DB_NAME",
    "FORMAT",
    "connect_readonly",
    "connect_writer",
    "create_schema",
    "finish_indexes",
    "get_meta",
    "set_meta",
]

DB_NAME = "index.sqlite3"
#: Bumped when the tables or the stored record change shape; an index of another format
#: is refused, not misread.
FORMAT = "2"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    file_no INTEGER PRIMARY KEY, path TEXT NOT NULL, name TEXT NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, kind TEXT NOT NULL, layout TEXT NOT NULL, tar INTEGER NOT NULL,
    stripes INTEGER NOT NULL, run INTEGER NOT NULL, sha256 TEXT, newest TEXT,
    units INTEGER NOT NULL DEFAULT 0, records INTEGER NOT NULL DEFAULT 0,
    deletions INTEGER NOT NULL DEFAULT 0, notices INTEGER NOT NULL DEFAULT 0,
    skipped INTEGER NOT NULL DEFAULT 0, text_bytes INTEGER NOT NULL DEFAULT 0,
    reasons TEXT NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS progress (
    file_no INTEGER NOT NULL, stripe INTEGER NOT NULL, units INTEGER NOT NULL,
    done INTEGER NOT NULL, PRIMARY KEY (file_no, stripe)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS records (
    rid INTEGER PRIMARY KEY, rkey TEXT NOT NULL, version INTEGER NOT NULL,
    stamp INTEGER NOT NULL, live INTEGER NOT NULL, work INTEGER NOT NULL, data BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS ids_stage (value TEXT NOT NULL, rid INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS ids (
    value TEXT NOT NULL, rid INTEGER NOT NULL, PRIMARY KEY (value, rid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS notices (
    target TEXT NOT NULL, kind TEXT NOT NULL, notice TEXT, date TEXT, source TEXT NOT NULL,
    label TEXT, reason TEXT, record_id TEXT, rid INTEGER, file_no INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS deletions (
    rkey TEXT NOT NULL, stamp INTEGER NOT NULL, alias TEXT
);
CREATE TABLE IF NOT EXISTS aliases (value TEXT PRIMARY KEY, target TEXT NOT NULL)
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dead_pending (rid INTEGER PRIMARY KEY);
"""

#: Made once the bulk of the rows is in (a B-tree built from sorted input), or at once for
#: an update.
_INDEXES = """
CREATE INDEX IF NOT EXISTS records_rkey ON records (rkey);
CREATE INDEX IF NOT EXISTS records_work ON records (work);
CREATE INDEX IF NOT EXISTS notices_target ON notices (target);
CREATE INDEX IF NOT EXISTS notices_rid ON notices (rid) WHERE rid IS NOT NULL;
CREATE INDEX IF NOT EXISTS deletions_rkey ON deletions (rkey);
"""


def connect_writer(path: Path, *, wal: bool) -> sqlite3.Connection:
    """The one writing connection of a build or update, with a 256 MB cache.

    ``isolation_level=None``: the run opens and commits its transactions itself, one per
    checkpoint, so what a checkpoint commits is exactly what the progress table says.  A
    build writes in WAL mode (no reader yet, and appends are cheap); a finished index is in
    rollback-journal mode, which readers on read-only storage can open, and an update keeps
    it so while readers may be serving from it.
    """
    connection = sqlite3.connect(path, isolation_level=None, timeout=60)
    connection.execute(f"PRAGMA journal_mode={'WAL' if wal else 'DELETE'}")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA cache_size=-262144")
    connection.execute("PRAGMA temp_store=FILE")
    return connection


def create_schema(connection: sqlite3.Connection) -> None:
    connection.executescript(_SCHEMA)


def finish_indexes(connection: sqlite3.Connection) -> None:
    """The secondary indexes, inside the caller's transaction (``executescript`` would
    commit it first)."""
    for statement in _INDEXES.split(";"):
        if statement.strip():
            connection.execute(statement)


def connect_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection that any number of processes may hold at once."""
    if not path.is_file():
        raise UnavailableError(f"the local index has no {path.name} ({path}); build it again.")
    try:
        connection = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
        )
        connection.execute("PRAGMA query_only=1")
        # Pages are read into a small private cache, not mapped: a long-serving process
        # keeps its resident memory to what it uses, and the OS page cache serves the rest.
        connection.execute("PRAGMA cache_size=-16384")
        connection.execute("PRAGMA mmap_size=0")
    except sqlite3.Error as exc:
        raise UnavailableError(f"the local index {path} cannot be read ({exc}).") from exc
    return connection


def get_meta(connection: sqlite3.Connection, key: str) -> str | None:
    row = connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(connection: sqlite3.Connection, key: str, value: str) -> None:
    connection.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
