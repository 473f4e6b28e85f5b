"""The source cache: fetched bytes kept by content hash, and pins from source keys to them.

Why it exists: a citation check is only reproducible if the same bytes are checked again.
A *pin* records which bytes (by sha256) a source key such as ``pmcid:PMC123`` resolved to,
which version, when, from which URL and via which service.  ``--offline`` answers from pins
alone; ``--refresh`` fetches again and :meth:`Cache.pin` says whether the bytes changed.
An export file carries pins and their bytes to another machine so a colleague gets the same
answer.

Decisions:

* **Blobs live inside SQLite**, not as files beside it.  Sources are journal articles
  (typically tens of kB to a few MB; the fetch layer caps body sizes), and SQLite reads
  and writes blobs of that size about as fast as the filesystem (see "35% Faster Than The
  Filesystem" on sqlite.org) while keeping pin and blob in one atomic transaction, one file
  to back up, and no orphan files after a crash.  This stays comfortable up to roughly
  100 MB per blob; past that, file-backed blobs would be the better design.
* **Every read verifies the hash.**  A blob whose bytes no longer hash to its key raises
  :class:`CacheCorruptError` instead of silently checking a quote against damaged text.
  Storing the same bytes again (a ``--refresh``) repairs a damaged row.
* **WAL mode and a busy timeout**, so a reader (e.g. ``citeproof cache ls``) never blocks a
  running check and two processes writing at once wait instead of failing.  Writes use
  ``BEGIN IMMEDIATE`` so a writer takes the lock up front rather than failing on upgrade.
* **One connection per Cache, guarded by a lock** (``check_same_thread=False``), so it can
  be shared by asyncio code that pushes blocking calls to worker threads.
* **No clock inside.**  ``retrieved_at`` is passed in by the service (ISO 8601 with a time
  zone) and stored normalised to UTC, so tests are deterministic and the evidence log and
  the cache agree on the time.
* **No secrets stored.**  URLs go through :func:`strip_secret_params` (contact address and
  API-key parameters, and any ``user:password@``) before they are written, including URL
  strings inside ``meta`` and URLs arriving in an imported file.
* **The export file is a zip** (see :mod:`citeproof.store.archive`).  Import is
  all-or-nothing: the whole file is verified before anything is written; a pin that would
  replace different bytes is reported as a conflict and kept unless the caller explicitly
  asks to replace it.
* **Schema versioned with ``PRAGMA user_version``.**  A file from a newer citeproof is
  refused rather than misread.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from citeproof.redact import strip_secret_params
from citeproof.store.archive import read_export, write_export
from citeproof.store.cache_records import (
    DEFAULT_MEDIA_TYPE,
    CacheCorruptError,
    CacheError,
    CacheMissError,
    ImportReport,
    Pin,
    PinConflict,
    PinResult,
    PruneResult,
    meta_to_json,
    normalize_timestamp,
    parse_utc,
    sha256_hex,
)
from citeproof.store.sqlite import BUSY_TIMEOUT_MS, SQLiteStore

__all__ = ["DEFAULT_MEDIA_TYPE", "SCHEMA_VERSION", "Cache"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE blobs (
    sha256     TEXT PRIMARY KEY,
    size       INTEGER NOT NULL,
    media_type TEXT NOT NULL,
    data       BLOB NOT NULL
);
CREATE TABLE pins (
    key          TEXT PRIMARY KEY,
    sha256       TEXT NOT NULL REFERENCES blobs(sha256),
    version      TEXT,
    retrieved_at TEXT NOT NULL,
    url          TEXT,
    served_by    TEXT,
    meta         TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX pins_sha256 ON pins(sha256);
"""


# --------------------------------------------------------------------------- the cache


class Cache(SQLiteStore):
    """A content-addressed store of fetched sources with pins from source keys to bytes.

    Open it on a file path (created, with its directory, if missing) and use it as a
    context manager, or call :meth:`close`.  All methods are safe to call from several
    threads; they serialise on one lock around one connection.
    """

    SCHEMA = _SCHEMA
    SCHEMA_VERSION = SCHEMA_VERSION
    PRAGMAS = ("PRAGMA foreign_keys = ON", "PRAGMA synchronous = NORMAL")

    def _open_error(self, exc: Exception) -> Exception:
        return CacheError(f"Cannot open the cache at {self.path}: {exc}.")

    def _corrupt_error(self, exc: Exception) -> Exception:
        return CacheCorruptError(
            f"The cache at {self.path} is not a usable SQLite database ({exc}); "
            "move it aside and citeproof will start a new one."
        )

    def _busy_error(self, exc: Exception) -> Exception:
        return CacheError(
            f"The cache at {self.path} stayed locked by another process for over "
            f"{BUSY_TIMEOUT_MS // 1000} s ({exc}); try again when that process has finished."
        )

    def _newer_error(self, version: int) -> Exception:
        return CacheError(
            f"The cache at {self.path} was written by a newer citeproof (schema "
            f"{version}, this version reads {SCHEMA_VERSION}); upgrade citeproof."
        )

    # -- blobs

    def _put_blob(self, conn: sqlite3.Connection, data: bytes, media_type: str) -> str:
        digest = sha256_hex(data)
        row = conn.execute("SELECT data FROM blobs WHERE sha256 = ?", (digest,)).fetchone()
        if row is None:
            conn.execute(
                "INSERT INTO blobs (sha256, size, media_type, data) VALUES (?, ?, ?, ?)",
                (digest, len(data), media_type, data),
            )
        elif sha256_hex(bytes(row[0])) != digest:
            # A damaged copy of these bytes: the fresh copy repairs it.
            conn.execute(
                "UPDATE blobs SET size = ?, data = ? WHERE sha256 = ?",
                (len(data), data, digest),
            )
        return digest

    def get_blob(self, sha256: str) -> bytes:
        """Return the bytes stored under ``sha256``, after checking they still hash to it."""
        with self._lock:
            row = self._conn.execute(
                "SELECT size, data FROM blobs WHERE sha256 = ?", (sha256,)
            ).fetchone()
        if row is None:
            raise CacheMissError(f"No blob {sha256} in the cache at {self.path}.")
        size, data = int(row[0]), row[1]
        if not isinstance(data, bytes):
            raise CacheCorruptError(
                f"Blob {sha256} in the cache at {self.path} is not binary data; "
                "fetch the source again with --refresh."
            )
        if len(data) != size or sha256_hex(data) != sha256:
            raise CacheCorruptError(
                f"Blob {sha256} in the cache at {self.path} is corrupted (its bytes no longer "
                "match their sha256); fetch the source again with --refresh."
            )
        return data

    def has_blob(self, sha256: str) -> bool:
        """True if a blob is stored under ``sha256`` (its bytes are not checked)."""
        with self._lock:
            row = self._conn.execute("SELECT 1 FROM blobs WHERE sha256 = ?", (sha256,)).fetchone()
        return row is not None

    def verify(self) -> list[str]:
        """Return the sha256 of every stored blob whose bytes no longer match it."""
        bad: list[str] = []
        with self._lock:
            rows = self._conn.execute("SELECT sha256, size, data FROM blobs").fetchall()
        for digest, size, data in rows:
            if not isinstance(data, bytes) or len(data) != size or sha256_hex(data) != digest:
                bad.append(str(digest))
        return sorted(bad)

    # -- pins

    def pin(
        self,
        key: str,
        data: bytes,
        *,
        retrieved_at: str,
        version: str | None = None,
        url: str | None = None,
        served_by: str | None = None,
        media_type: str = DEFAULT_MEDIA_TYPE,
        meta: Mapping[str, Any] | None = None,
    ) -> PinResult:
        """Store ``data`` and point ``key`` at it, replacing any earlier pin for ``key``.

        ``retrieved_at`` is passed in (the cache has no clock) and must carry a time zone.
        The URL (and URL strings in ``meta``) are stored without contact/API-key parameters.
        The returned :class:`PinResult` says whether the bytes differ from the previous pin;
        the previous blob stays until :meth:`prune` finds it unreferenced.
        """
        if not key:
            raise CacheError("A pin needs a non-empty source key.")
        when = normalize_timestamp(retrieved_at)
        clean_url = strip_secret_params(url) if url is not None else None
        meta_json = meta_to_json(meta)
        with self._write() as conn:
            previous = conn.execute("SELECT sha256 FROM pins WHERE key = ?", (key,)).fetchone()
            digest = self._put_blob(conn, bytes(data), media_type)
            conn.execute(
                "INSERT OR REPLACE INTO pins "
                "(key, sha256, version, retrieved_at, url, served_by, meta) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (key, digest, version, when, clean_url, served_by, meta_json),
            )
        previous_sha = None if previous is None else str(previous[0])
        return PinResult(
            sha256=digest,
            changed=previous_sha is not None and previous_sha != digest,
            previous_sha256=previous_sha,
        )

    _PIN_SELECT = (
        "SELECT p.key, p.sha256, b.size, b.media_type, p.version, p.retrieved_at, p.url, "
        "p.served_by, p.meta FROM pins p JOIN blobs b ON b.sha256 = p.sha256"
    )

    @staticmethod
    def _row_to_pin(row: tuple[Any, ...]) -> Pin:
        try:
            meta = json.loads(row[8]) if row[8] else {}
        except json.JSONDecodeError:
            meta = {}
        return Pin(
            key=row[0],
            sha256=row[1],
            size=int(row[2]),
            media_type=row[3],
            version=row[4],
            retrieved_at=row[5],
            url=row[6],
            served_by=row[7],
            meta=meta if isinstance(meta, dict) else {},
        )

    def lookup(self, key: str) -> Pin | None:
        """The pin for ``key``, or None if the source was never pinned."""
        with self._lock:
            row = self._conn.execute(self._PIN_SELECT + " WHERE p.key = ?", (key,)).fetchone()
        return None if row is None else self._row_to_pin(row)

    def read(self, key: str) -> tuple[Pin, bytes]:
        """The pin for ``key`` and its verified bytes; :class:`CacheMissError` if not pinned.

        This is what ``--offline`` uses: it never fetches, and says so when it cannot answer.
        """
        pin = self.lookup(key)
        if pin is None:
            raise CacheMissError(
                f"{key} is not in the cache at {self.path}, and --offline does not fetch; "
                "run once without --offline (or import a colleague's cache export)."
            )
        return pin, self.get_blob(pin.sha256)

    def list_pins(self, prefix: str | None = None) -> list[Pin]:
        """All pins, ordered by key; only keys starting with ``prefix`` if given."""
        with self._lock:
            if prefix:
                rows = self._conn.execute(
                    self._PIN_SELECT + " WHERE substr(p.key, 1, length(?)) = ? ORDER BY p.key",
                    (prefix, prefix),
                ).fetchall()
            else:
                rows = self._conn.execute(self._PIN_SELECT + " ORDER BY p.key").fetchall()
        return [self._row_to_pin(row) for row in rows]

    def remove(self, key: str) -> bool:
        """Drop the pin for ``key``; True if there was one.  Blobs go at the next prune."""
        with self._write() as conn:
            cursor = conn.execute("DELETE FROM pins WHERE key = ?", (key,))
            return cursor.rowcount > 0

    def prune(
        self,
        *,
        older_than: str | None = None,
        keys: Iterable[str] | None = None,
    ) -> PruneResult:
        """Drop pins retrieved before ``older_than`` and/or the given ``keys``, then every
        blob no pin refers to.

        With neither argument only unreferenced blobs go (e.g. bytes replaced by a refresh).
        Ages are compared as UTC instants in Python, not as strings, so differing precision
        in stored timestamps cannot mis-order them.
        """
        cutoff = parse_utc(normalize_timestamp(older_than)) if older_than is not None else None
        key_set = set(keys) if keys is not None else set()
        with self._write() as conn:
            doomed: list[str] = list(key_set)
            if cutoff is not None:
                for key, when in conn.execute("SELECT key, retrieved_at FROM pins"):
                    if parse_utc(when) < cutoff:
                        doomed.append(key)
            pins_removed = 0
            for key in set(doomed):
                pins_removed += conn.execute("DELETE FROM pins WHERE key = ?", (key,)).rowcount
            orphan_where = "WHERE sha256 NOT IN (SELECT sha256 FROM pins)"
            count, size = conn.execute(
                f"SELECT count(*), coalesce(sum(size), 0) FROM blobs {orphan_where}"
            ).fetchone()
            conn.execute(f"DELETE FROM blobs {orphan_where}")
        return PruneResult(
            pins_removed=pins_removed, blobs_removed=int(count), bytes_freed=int(size)
        )

    # -- export / import

    def export_to(self, path: str | os.PathLike[str], *, keys: Iterable[str] | None = None) -> int:
        """Write the pins (all, or just ``keys``) and their bytes to a zip file; return the
        number of pins written.

        Blobs are verified as they are read, so a corrupted cache cannot be exported.  The
        whole export reads one snapshot (a read transaction), so a concurrent prune or
        refresh cannot leave a pin without its bytes.  The file is written to a temporary
        name and renamed, so a failed export leaves nothing behind.
        """
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                pins = self._pins_for_export(keys)
                fd, tmp_name = tempfile.mkstemp(prefix=".citeproof-export-", dir=target.parent)
                try:
                    with os.fdopen(fd, "wb") as fh:
                        write_export(fh, pins, self.get_blob)
                    os.replace(tmp_name, target)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp_name)
                    raise
            finally:
                self._conn.execute("COMMIT")
        return len(pins)

    def _pins_for_export(self, keys: Iterable[str] | None) -> list[Pin]:
        if keys is None:
            return self.list_pins()
        pins: list[Pin] = []
        for key in dict.fromkeys(keys):
            found = self.lookup(key)
            if found is None:
                raise CacheMissError(f"Cannot export {key}: it is not in the cache.")
            pins.append(found)
        return pins

    def import_from(self, path: str | os.PathLike[str], *, replace: bool = False) -> ImportReport:
        """Read an export file, verify all of it, then add its pins and bytes.

        Refuses (with :class:`CacheImportError`, importing nothing) a file that is not a
        citeproof export, has a member that does not hash to its name, is missing a blob a
        pin needs, or carries unexpected members.  A key already pinned here to *different*
        bytes is a conflict: it is kept as it is, unless ``replace`` is true, and is listed
        in the report either way.
        """
        blobs, pins = read_export(Path(path))
        blobs_added = pins_added = pins_unchanged = 0
        conflicts: list[PinConflict] = []
        with self._write() as conn:
            for digest, (media_type, data) in blobs.items():
                known = conn.execute("SELECT 1 FROM blobs WHERE sha256 = ?", (digest,)).fetchone()
                self._put_blob(conn, data, media_type)  # also repairs a damaged local copy
                if known is None:
                    blobs_added += 1
            for p in pins:
                row = conn.execute("SELECT sha256 FROM pins WHERE key = ?", (p["key"],)).fetchone()
                if row is not None and row[0] == p["sha256"]:
                    pins_unchanged += 1
                    continue
                if row is not None:
                    conflicts.append(
                        PinConflict(
                            key=p["key"],
                            existing_sha256=str(row[0]),
                            incoming_sha256=p["sha256"],
                            replaced=replace,
                        )
                    )
                    if not replace:
                        continue
                else:
                    pins_added += 1
                conn.execute(
                    "INSERT OR REPLACE INTO pins "
                    "(key, sha256, version, retrieved_at, url, served_by, meta) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        p["key"],
                        p["sha256"],
                        p["version"],
                        p["retrieved_at"],
                        p["url"],
                        p["served_by"],
                        p["meta"],
                    ),
                )
        return ImportReport(
            blobs_added=blobs_added,
            pins_added=pins_added,
            pins_unchanged=pins_unchanged,
            conflicts=tuple(conflicts),
        )
