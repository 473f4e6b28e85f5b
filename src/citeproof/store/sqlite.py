"""What every SQLite file citeproof keeps has in common: one connection, WAL, a versioned schema.

The source cache and the issued-passage store make the same decisions (see
:mod:`citeproof.store.cache` for why): one connection per object guarded by a lock so
threads can share it; WAL mode and a busy timeout so a reader never blocks a writer and two
writers wait rather than fail; write transactions taken up front (``BEGIN IMMEDIATE``); and
the schema versioned with ``PRAGMA user_version`` so a file from a newer citeproof is refused
rather than misread.  A subclass gives its schema and the errors it raises.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self

__all__ = ["BUSY_TIMEOUT_MS", "SQLiteStore", "is_busy_error"]

BUSY_TIMEOUT_MS = 10_000


class SQLiteStore:
    """Base of the cache and the passage store; see the module docstring."""

    SCHEMA: ClassVar[str] = ""
    SCHEMA_VERSION: ClassVar[int] = 1
    PRAGMAS: ClassVar[tuple[str, ...]] = ("PRAGMA synchronous = NORMAL",)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,  # explicit transactions only
                check_same_thread=False,
            )
        except (OSError, sqlite3.Error) as exc:
            raise self._open_error(exc) from exc
        try:
            self._setup()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise self.error_for(exc) from exc
        except BaseException:
            self._conn.close()
            raise

    def error_for(self, exc: sqlite3.DatabaseError) -> Exception:
        """The error to show for a failed query: "locked by another process" or "not usable".

        SQLite reports a damaged file only when a query touches the damage, so callers that
        hold a store for a while translate late errors through this too.
        """
        if isinstance(exc, sqlite3.OperationalError) and is_busy_error(exc):
            return self._busy_error(exc)
        return self._corrupt_error(exc)

    # -- what a subclass says

    def _open_error(self, exc: Exception) -> Exception:
        return OSError(f"cannot open {self.path}: {exc}")

    def _corrupt_error(self, exc: Exception) -> Exception:
        return exc

    def _busy_error(self, exc: Exception) -> Exception:
        return TimeoutError(f"{self.path} stayed locked by another process: {exc}")

    def _newer_error(self, version: int) -> Exception:
        return RuntimeError(f"{self.path} has schema {version}; upgrade citeproof")

    # -- lifecycle

    def _setup(self) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self.journal_mode: str = self._enter_wal()
        for pragma in self.PRAGMAS:
            conn.execute(pragma)
        # Reading the version first spares each open of an existing file a write transaction.
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version > self.SCHEMA_VERSION:
            raise self._newer_error(version)
        if version == self.SCHEMA_VERSION:
            return
        with self._write():
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version == 0:
                for statement in self.SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {self.SCHEMA_VERSION}")
            elif version > self.SCHEMA_VERSION:
                raise self._newer_error(version)

    def _enter_wal(self) -> str:
        """Switch the file to WAL, waiting out other processes that are doing the same.

        Changing the journal mode needs the file to itself, and SQLite answers a clash there
        with "database is locked" at once, without calling the busy handler; so processes
        that open a new file together would fail (and the file would look corrupt).  A file
        already in WAL is left as it is, which takes no lock at all.
        """
        conn = self._conn
        mode = str(conn.execute("PRAGMA journal_mode").fetchone()[0])
        if mode.lower() == "wal":
            return mode
        deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
        pause = 0.002
        while True:
            try:
                return str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            except sqlite3.OperationalError as exc:
                if not is_busy_error(exc) or time.monotonic() >= deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)

    def close(self) -> None:
        """Close the connection; the WAL is checkpointed by SQLite on last close."""
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken up front so concurrent writers wait, not fail."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")


def is_busy_error(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused because another connection holds the file, not because it is bad."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(exc).lower()
    return "locked" in text or "busy" in text
