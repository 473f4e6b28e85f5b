"""The issued-passage store: every handle citeproof hands out, with the passage as issued.

Why keep them: a check code proves a handle was issued, but an audit also has to say what
the passage said *then* (a source can change under a pinned identifier after ``--refresh``),
so the text as issued, its sha256 and the sha256 of the document it was cut from are kept
here, keyed by the full canonical handle (code included).

Decisions:

* **SQLite in the data directory** (``handles.sqlite3``): issued handles are records a user
  relies on, like the evidence log, not a cache that may be thrown away.
* **Keyed by the canonical handle with its code.**  The same path can be issued again with
  different words (the source changed and was fetched again); each wording has its own code
  and its own row, and :meth:`PassageStore.lookup_base` lists them all.
* **The first issue wins.**  Issuing the same handle again (same path, same words, hence the
  same code) keeps the first row: "as issued" means when it was first handed out.
* **WAL, a busy timeout and ``BEGIN IMMEDIATE``**, so several processes (a CLI run beside
  the MCP server) and threads (one connection behind a lock) can issue at once.
* **No clock inside**: ``issued_at`` is passed in by the caller.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from citeproof.errors import PassageStoreError
from citeproof.store.paths import default_dirs
from citeproof.store.sqlite import BUSY_TIMEOUT_MS, SQLiteStore

__all__ = [
    "HANDLES_DB_NAME",
    "IssuedPassage",
    "PassageStore",
    "PassageStoreError",
    "default_store_path",
]

HANDLES_DB_NAME = "handles.sqlite3"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE issued (
    handle          TEXT PRIMARY KEY,
    base            TEXT NOT NULL,
    source_key      TEXT NOT NULL,
    path            TEXT NOT NULL,
    text            TEXT NOT NULL,
    text_sha256     TEXT NOT NULL,
    document_sha256 TEXT,
    start           INTEGER NOT NULL,
    end_            INTEGER NOT NULL,
    issued_at       TEXT NOT NULL
);
CREATE INDEX issued_base ON issued(base);
"""
_COLUMNS = (
    "handle, base, source_key, path, text, text_sha256, document_sha256, start, end_, issued_at"
)


@dataclass(frozen=True, slots=True)
class IssuedPassage:
    """One issued handle and the passage exactly as it was issued."""

    handle: str
    """The canonical handle with its code."""
    base: str
    """The canonical handle without its code."""
    source_key: str
    path: str
    text: str
    text_sha256: str
    document_sha256: str | None
    start: int
    end: int
    issued_at: str


def default_store_path() -> Path:
    """``handles.sqlite3`` in the data directory (``CITEPROOF_HOME`` honoured)."""
    return default_dirs().data / HANDLES_DB_NAME


class PassageStore(SQLiteStore):
    """Issued passages by canonical handle; safe across threads and processes.

    Open it on a file path (created, with its directory, if missing) and use it as a context
    manager, or call :meth:`close`.
    """

    SCHEMA = _SCHEMA
    SCHEMA_VERSION = SCHEMA_VERSION

    def _open_error(self, exc: Exception) -> Exception:
        return PassageStoreError(
            f"cannot open the issued-passage store at {self.path} ({exc}); check that "
            "the data directory is writable."
        )

    def _corrupt_error(self, exc: Exception) -> Exception:
        return PassageStoreError(
            f"the issued-passage store at {self.path} is not a usable SQLite database "
            f"({exc}); restore it from a backup (handles issued from it cannot be "
            "compared with their text as issued without it)."
        )

    def _busy_error(self, exc: Exception) -> Exception:
        return PassageStoreError(
            f"the issued-passage store at {self.path} stayed locked by another process "
            f"for over {BUSY_TIMEOUT_MS // 1000} s ({exc}); try again when that process "
            "has finished."
        )

    def _newer_error(self, version: int) -> Exception:
        return PassageStoreError(
            f"the issued-passage store at {self.path} was written by a newer "
            f"citeproof (schema {version}, this version reads {SCHEMA_VERSION}); "
            "upgrade citeproof."
        )

    def record(self, passages: Iterable[IssuedPassage]) -> int:
        """Store issued passages in one transaction; returns how many were new.

        A handle already stored keeps its first row (see the module docstring).
        """
        rows = [
            (
                p.handle,
                p.base,
                p.source_key,
                p.path,
                p.text,
                p.text_sha256,
                p.document_sha256,
                p.start,
                p.end,
                p.issued_at,
            )
            for p in passages
        ]
        if not rows:
            return 0
        with self._write() as conn:
            before = conn.total_changes
            conn.executemany(
                f"INSERT OR IGNORE INTO issued ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)", rows
            )
            return conn.total_changes - before

    def lookup(self, handle: str) -> IssuedPassage | None:
        """The passage issued under the canonical handle ``handle`` (code included)."""
        with self._lock:
            row = self._conn.execute(
                f"SELECT {_COLUMNS} FROM issued WHERE handle = ?", (handle,)
            ).fetchone()
        return _row(row) if row is not None else None

    def lookup_base(self, base: str) -> list[IssuedPassage]:
        """Every passage issued under the canonical handle ``base`` (without code), oldest
        first."""
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {_COLUMNS} FROM issued WHERE base = ? ORDER BY issued_at, handle",
                (base,),
            ).fetchall()
        return [_row(r) for r in rows]

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM issued").fetchone()[0])


def _row(row: tuple[object, ...]) -> IssuedPassage:
    handle, base, source_key, path, text, text_sha, doc_sha, start, end, issued_at = row
    return IssuedPassage(
        handle=str(handle),
        base=str(base),
        source_key=str(source_key),
        path=str(path),
        text=str(text),
        text_sha256=str(text_sha),
        document_sha256=None if doc_sha is None else str(doc_sha),
        start=int(str(start)),
        end=int(str(end)),
        issued_at=str(issued_at),
    )
