"""The door to the state citeproof keeps on disk: the source cache, the Retraction Watch
snapshot, and the settings that record or replay a session's responses.

``citeproof cache``, ``citeproof retractions`` and ``citeproof record`` manage these; the check
pipeline reads them.  Where each lives comes from :mod:`citeproof.store.paths`
(``CITEPROOF_HOME`` overrides the platform's directories).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from citeproof.errors import CacheCorruptError, CacheError, CacheMissError
from citeproof.loading.pins import open_cache, open_cache_for
from citeproof.net.session import RECORD_ENV, REPLAY_ENV
from citeproof.sources.retractionwatch import (
    SnapshotInfo,
    default_db_path,
    import_csv,
    snapshot_info,
)
from citeproof.store.archive import is_export
from citeproof.store.cache import Cache
from citeproof.store.cache_records import Pin
from citeproof.store.paths import default_dirs

__all__ = [
    "RECORD_ENV",
    "REPLAY_ENV",
    "Cache",
    "CacheCorruptError",
    "CacheError",
    "CacheMissError",
    "Pin",
    "SnapshotInfo",
    "cache_path",
    "cache_session",
    "import_csv",
    "is_export",
    "open_cache",
    "open_cache_for",
    "snapshot_info",
    "snapshot_path",
]


def cache_path() -> Path:
    """Where the source cache is (or will be created)."""
    return default_dirs().cache_db


def snapshot_path() -> Path:
    """Where the imported Retraction Watch snapshot is (or will be written)."""
    return default_db_path()


@contextlib.contextmanager
def cache_session() -> Iterator[Cache]:
    """The default cache, open for a command that manages it (created on first use).

    SQLite reports a damaged file only when a query touches the damage, long after opening;
    turning every ``sqlite3.DatabaseError`` met in the block into the cache's own error
    (corrupt, or locked by another process) gives the user one line instead of a traceback.
    """
    with open_cache() as cache:
        try:
            yield cache
        except sqlite3.DatabaseError as exc:
            raise cache.error_for(exc) from exc
