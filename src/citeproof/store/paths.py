"""Where citeproof keeps its files on disk.

Directories follow the platform's conventions (via platformdirs) so citeproof behaves like
any other well-mannered application, but ``CITEPROOF_HOME`` overrides all of them at once:
tests point it at a temporary directory, and a project can keep its cache, evidence log and
keys together (and check them in or archive them as one folder).

:func:`resolve_dirs` is a pure function of the environment mapping it is given, so it can
be tested without touching ``os.environ``; :func:`default_dirs` is the thin wrapper the
application uses.  Nothing here creates directories: the code that writes a file creates
its parent, so merely asking where things would go has no side effects.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

APP_NAME = "citeproof"
HOME_ENV = "CITEPROOF_HOME"
CACHE_DB_NAME = "cache.sqlite3"
LOG_ENV = "CITEPROOF_LOG"
LOG_FILE_NAME = "evidence.jsonl"
KEYS_DIR_NAME = "keys"


@dataclass(frozen=True, slots=True)
class StoreDirs:
    """The three directories citeproof writes to.

    ``data`` holds what must not be lost (keys, the evidence log), ``cache`` holds fetched
    sources that can in principle be fetched again, ``state`` holds run state such as
    checkpoints and locks.
    """

    data: Path
    cache: Path
    state: Path

    @property
    def cache_db(self) -> Path:
        """The SQLite file of the source cache (see :mod:`citeproof.store.cache`)."""
        return self.cache / CACHE_DB_NAME

    @property
    def log(self) -> Path:
        """The default evidence log (see :mod:`citeproof.evidence.log`); ``CITEPROOF_LOG`` wins."""
        return self.data / LOG_FILE_NAME

    @property
    def keys(self) -> Path:
        """Where the log signing key and the handle secret live (see :mod:`.keys`)."""
        return self.data / KEYS_DIR_NAME


def resolve_dirs(env: Mapping[str, str]) -> StoreDirs:
    """Return the directories for the environment ``env``.

    With ``CITEPROOF_HOME`` set (and not empty) everything lives under it, in ``data/``,
    ``cache/`` and ``state/``; the value is used as given (no ``~`` expansion, which would
    read the real environment and make this impure).  Otherwise the platform's per-user
    directories for the application ``citeproof`` are used.
    """
    home = env.get(HOME_ENV, "").strip()
    if home:
        root = Path(home)
        return StoreDirs(data=root / "data", cache=root / "cache", state=root / "state")
    # Imported here: with CITEPROOF_HOME set, a check's evidence line need not pay for it.
    import platformdirs

    return StoreDirs(
        data=platformdirs.user_data_path(APP_NAME, appauthor=False),
        cache=platformdirs.user_cache_path(APP_NAME, appauthor=False),
        state=platformdirs.user_state_path(APP_NAME, appauthor=False),
    )


def default_dirs() -> StoreDirs:
    """The directories for the current process environment."""
    return resolve_dirs(os.environ)


def resolve_log_path(env: Mapping[str, str]) -> Path:
    """The evidence log for the environment ``env``: ``CITEPROOF_LOG`` if set (and not
    empty), else ``evidence.jsonl`` in the data directory of :func:`resolve_dirs`."""
    explicit = env.get(LOG_ENV, "").strip()
    if explicit:
        return Path(explicit)
    return resolve_dirs(env).log
