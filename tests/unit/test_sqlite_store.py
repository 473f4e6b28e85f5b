"""The shared SQLite base: opening a file another process is opening at the same moment.

Switching a new file to WAL needs it to itself, and SQLite answers a clash there at once
with "database is locked", without the busy handler.  Both stores must wait that out, and a
lock that outlasts the timeout must read as "busy", never as a corrupt file to restore.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from citeproof.errors import CiteproofError
from citeproof.store import sqlite as sqlite_store
from citeproof.store.cache import Cache
from citeproof.store.issued import PassageStore
from citeproof.store.sqlite import SQLiteStore

STORES = [pytest.param(PassageStore, id="passages"), pytest.param(Cache, id="cache")]


class _ClashingConnection(sqlite3.Connection):
    """Refuses the WAL switch the first ``clashes`` times, as a clashing process would."""

    clashes = 0

    def execute(self, sql: str, *args: object) -> sqlite3.Cursor:  # type: ignore[override]
        if sql == "PRAGMA journal_mode = WAL" and type(self).clashes > 0:
            type(self).clashes -= 1
            exc = sqlite3.OperationalError("database is locked")
            exc.sqlite_errorcode = sqlite3.SQLITE_BUSY  # type: ignore[attr-defined]
            raise exc
        return super().execute(sql, *args)


@pytest.fixture
def clash(monkeypatch: pytest.MonkeyPatch) -> type[_ClashingConnection]:
    real_connect = sqlite3.connect

    def connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        return real_connect(*args, factory=_ClashingConnection, **kwargs)  # type: ignore[call-overload, no-any-return]

    monkeypatch.setattr(sqlite_store.sqlite3, "connect", connect)
    _ClashingConnection.clashes = 0
    return _ClashingConnection


@pytest.mark.parametrize("store_class", STORES)
def test_a_clash_switching_a_new_file_to_wal_is_waited_out(
    tmp_path: Path, clash: type[_ClashingConnection], store_class: type[SQLiteStore]
) -> None:
    clash.clashes = 3
    with store_class(tmp_path / "s.sqlite3") as store:
        assert store.journal_mode == "wal"
    assert clash.clashes == 0


@pytest.mark.parametrize("store_class", STORES)
def test_a_lock_past_the_timeout_is_busy_not_corrupt(
    tmp_path: Path,
    clash: type[_ClashingConnection],
    store_class: type[SQLiteStore],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT_MS", 50)
    clash.clashes = 10**6
    with pytest.raises(CiteproofError, match="stayed locked by another process") as info:
        store_class(tmp_path / "s.sqlite3")
    message = str(info.value)
    assert "backup" not in message and "move it aside" not in message
    assert "try again" in message


@pytest.mark.parametrize("store_class", STORES)
def test_a_file_already_in_wal_is_not_switched_again(
    tmp_path: Path, clash: type[_ClashingConnection], store_class: type[SQLiteStore]
) -> None:
    store_class(tmp_path / "s.sqlite3").close()
    clash.clashes = 10**6
    with store_class(tmp_path / "s.sqlite3") as store:
        assert store.journal_mode == "wal"


def test_only_busy_and_locked_codes_count_as_busy() -> None:
    def error(code: int | None, text: str = "x") -> sqlite3.OperationalError:
        exc = sqlite3.OperationalError(text)
        if code is not None:
            exc.sqlite_errorcode = code  # type: ignore[attr-defined]
        return exc

    assert sqlite_store.is_busy_error(error(sqlite3.SQLITE_BUSY))
    assert sqlite_store.is_busy_error(error(sqlite3.SQLITE_LOCKED))
    assert sqlite_store.is_busy_error(error(sqlite3.SQLITE_BUSY | (2 << 8)))  # SQLITE_BUSY_SNAPSHOT
    assert not sqlite_store.is_busy_error(error(sqlite3.SQLITE_IOERR, "database is locked"))
    assert sqlite_store.is_busy_error(error(None, "database is locked"))
    assert not sqlite_store.is_busy_error(error(None, "disk I/O error"))


@pytest.mark.parametrize("store_class", STORES)
def test_late_errors_are_told_apart(tmp_path: Path, store_class: type[SQLiteStore]) -> None:
    with store_class(tmp_path / "s.sqlite3") as store:
        locked = store.error_for(sqlite3.OperationalError("database is locked"))
        damaged = store.error_for(sqlite3.DatabaseError("database disk image is malformed"))
    assert isinstance(locked, CiteproofError) and isinstance(damaged, CiteproofError)
    assert "stayed locked" in str(locked) and "try again" in str(locked)
    assert "not a usable SQLite database" in str(damaged)
    assert "malformed" in str(damaged)
