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


@pytest.mark.parametrize(
    ("work", "cores", "idle", "workers"),
    [
        (0.5, 2, 2.0, 1),  # under a second worker's 0.6 s: one process
        (1.0, 2, 2.0, 2),  # the 10,000 checks, on a quiet machine: 1.5x faster on two
        (1.0, 2, 1.2, 1),  # a core busy elsewhere: a second worker would only share it
        (1.0, 2, 0.3, 1),
        (50.0, 8, 8.0, 8),
        (1.0, 8, 8.0, 3),  # no more workers than the work can keep busy
        (50.0, 8, 2.6, 3),  # no more than the cores nobody else uses
        (0.0, 1, 1.0, 1),
    ],
)
def test_the_number_of_workers_is_chosen_from_the_work_and_the_idle_cores(
    work: float, cores: int, idle: float, workers: int
) -> None:
    assert executors.choose_workers(work, cores=cores, idle=lambda: idle) == workers


def test_the_idle_cores_are_measured_only_for_work_enough_for_two() -> None:
    def measured() -> float:
        raise AssertionError("measured for a batch one process runs anyway")

    assert executors.choose_workers(0.59, cores=16, idle=measured) == 1


def test_the_idle_cores_are_what_other_processes_leave(monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever this process spends meanwhile (reading the input ahead) is not counted as
    busy; without /proc/stat, the load average stands in."""
    idle = executors.IdleCores(2)
    sum(range(200_000))  # this process's own work
    assert 0.0 <= idle() <= 2.0
    monkeypatch.setattr(executors, "_busy", lambda: None)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 1.0, 1.0))
    assert executors.IdleCores(2)() == pytest.approx(0.5)


def test_nothing_is_started_early_before_the_number_is_chosen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--workers`` not given: the work is not read yet, so a fork server started now could
    be a start a small batch pays for nothing."""
    started: list[str] = []
    monkeypatch.setattr(executors, "_context", lambda preload: started.append("x"))
    executors.start_early("local", None)
    assert started == []
