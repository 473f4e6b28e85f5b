"""The issued-passage store: record, look up, first issue wins, concurrency, bad files."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest

from citeproof.handles.grammar import passage_sha256
from citeproof.store.issued import (
    HANDLES_DB_NAME,
    IssuedPassage,
    PassageStore,
    PassageStoreError,
    default_store_path,
)


def issued(
    n: int, code: str = "7G2KQ1XM", text: str = "words", when: str = "2026-01-01"
) -> IssuedPassage:
    base = f"pmcid:PMC1/body.results.p{n}"
    return IssuedPassage(
        handle=f"{base}~{code}",
        base=base,
        source_key="pmcid:PMC1",
        path=f"body.results.p{n}",
        text=text,
        text_sha256=passage_sha256(text),
        document_sha256="a" * 64,
        start=10 * n,
        end=10 * n + len(text),
        issued_at=when,
    )


def test_record_and_lookup(tmp_path: Path) -> None:
    with PassageStore(tmp_path / "h.sqlite3") as store:
        assert store.journal_mode == "wal"
        assert store.record([issued(1), issued(2)]) == 2
        assert store.lookup("pmcid:PMC1/body.results.p1~7G2KQ1XM") == issued(1)
        assert store.lookup("pmcid:PMC1/body.results.p1~7G2KQ1XN") is None
        assert store.lookup("pmcid:PMC1/body.results.p3~7G2KQ1XM") is None
        assert store.record([]) == 0
        assert store.count() == 2


def test_first_issue_wins_and_rewordings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    with PassageStore(path) as store:
        store.record([issued(1, when="2026-01-01")])
        assert store.record([issued(1, when="2026-02-02")]) == 0
        assert store.lookup(issued(1).handle) == issued(1, when="2026-01-01")
        reworded = issued(1, code="ZZZZZZZZ", text="other words", when="2026-03-03")
        assert store.record([reworded]) == 1
        assert [p.text for p in store.lookup_base(issued(1).base)] == ["words", "other words"]
    with PassageStore(path) as again:  # it persists
        assert again.count() == 2


def test_default_path_is_in_the_data_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path))
    assert default_store_path() == tmp_path / "data" / HANDLES_DB_NAME


def test_threads_record_at_once(tmp_path: Path) -> None:
    barrier = threading.Barrier(8)
    with PassageStore(tmp_path / "h.sqlite3") as store:

        def work(k: int) -> None:
            barrier.wait()
            for n in range(20):
                store.record([issued(k * 100 + n)])
                assert store.lookup(issued(k * 100 + n).handle) is not None

        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert store.count() == 160


def _process_worker(path: str, k: int) -> None:
    with PassageStore(path) as store:
        for n in range(25):
            store.record([issued(k * 1000 + n)])


def test_processes_record_at_once(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_process_worker, args=(str(path), k)) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    with PassageStore(path) as store:
        assert store.count() == 100


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    PassageStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(PassageStoreError, match="newer citeproof"):
        PassageStore(path)


def test_a_damaged_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(PassageStoreError, match="not a usable SQLite database"):
        PassageStore(path)


def test_an_unwritable_place_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(PassageStoreError, match="cannot open"):
        PassageStore(blocker / "sub" / "h.sqlite3")
