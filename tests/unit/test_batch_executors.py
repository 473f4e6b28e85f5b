"""Where a batch's work runs: a routed runner's worker ``n`` is one process throughout; local
workers for the match step start from a server that imported it once, ignoring Ctrl-C."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys

import pytest

from citeproof.batch import executors
from citeproof.batch.executors import MATCH_MODULES, Runner


def where() -> tuple[int, int, bool, bool]:
    """(pid, parent pid, Ctrl-C ignored, the match step imported) of the worker running it."""
    return (
        os.getpid(),
        os.getppid(),
        signal.getsignal(signal.SIGINT) == signal.SIG_IGN,
        "citeproof.batch.checks" in sys.modules,
    )


def test_a_routed_runner_sends_worker_n_s_calls_to_one_process() -> None:
    """Shared by all, a pool hands a call to whichever worker is free, so a source's checks
    could not be sent to the worker that parsed it."""
    runner = Runner("local", 2, preload=MATCH_MODULES, routed=True)
    try:
        seen = [[runner.submit(where, worker=n).result()[0] for _ in range(4)] for n in (0, 1)]
    finally:
        runner.close()
    assert len(set(seen[0])) == len(set(seen[1])) == 1
    assert seen[0][0] != seen[1][0] != os.getpid()


@pytest.mark.skipif(
    "forkserver" not in multiprocessing.get_all_start_methods(), reason="no fork server here"
)
def test_match_workers_start_from_a_server_that_imported_the_match_step() -> None:
    """Spawned, every worker imported everything again (about 0.3 s of CPU each)."""
    executors.start_early("local", 2)
    runner = Runner("local", 2, preload=MATCH_MODULES, routed=True)
    try:
        _, parent, ignores, imported = runner.submit(where, worker=0).result()
    finally:
        runner.close()
    assert parent != os.getpid()  # forked by the server, not spawned by this process
    assert ignores and imported


def test_workers_for_work_that_reads_files_are_spawned_and_ignore_ctrl_c() -> None:
    """An audit reads the cache under CITEPROOF_HOME: a fork server started earlier would
    hand its workers an older environment."""
    runner = Runner("local", 2)
    try:
        _, parent, ignores, _ = runner.submit(where).result()
    finally:
        runner.close()
    assert parent == os.getpid() and ignores


def test_nothing_is_started_early_for_one_worker_or_dask(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(executors, "_context", lambda preload: started.append("x"))
    executors.start_early("local", 1)
    executors.start_early("dask", 4)
    assert started == []
    one = Runner("local", 1, preload=MATCH_MODULES, routed=True)
    assert not one.elsewhere and one.submit(os.getpid, worker=0).result() == os.getpid()
