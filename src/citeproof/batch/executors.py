"""Where a batch's work runs: worker processes on this machine, a Dask cluster, or inline.

One small interface (submit a function and its argument, take results as they finish, close)
so the batch of checks, the batch of audits and the reference lists share their pools, and no
command owns one.

**Routed or shared.**  A routed runner (``routed=True``, the batch of checks) gives each
worker its own queue, and ``submit(..., worker=n)`` puts a call on worker ``n``'s: the batch
sends every check of a source to the worker that already parsed it (its parse memo is per
process), and a chunk's calls spread over the workers as the batch decides, not as they
happen to be free.  On Dask, ``worker=n`` asks the scheduler for the ``n``-th worker (any
other may run it if that one is gone).  A shared runner (the audits, whose answers are
independent) has one queue that every worker takes from.

**How local workers start.**  Never by a plain fork: that would copy the parent's open cache
connections, locks and event loops into every worker.  Where the platform has it (Linux,
macOS), workers are forked from multiprocessing's *fork server*, a fresh process that imports
the workers' modules (``preload``) once, before any of this process's state exists; each
worker then starts in milliseconds instead of importing everything again (a few tenths of a
second of CPU each, which on a 2-core machine is time taken from the matching).
:func:`start_early` starts that server before the caller's own imports, so the two import side
by side.  The server keeps the environment and the working folder it started with, so only
work that reads neither runs there: the match step (sources are read in the parent, their
bytes sent with the work), or work whose workers first take this process's environment and
working folder (``setup=parents_place()``: the reference lists verified from a local index,
which read the pin cache and the index).  Elsewhere, and for other work that reads files or
the environment (an audit reads the cache), workers are spawned.

**How many local workers.**  As many as the user says (``--workers``); else as many as the
work and the machine can use (:func:`choose_workers`): a worker costs a tenth of a second
or more to start and sends its results back at about a tenth more CPU, which it wins back
only with work enough and a core nobody else is using (:class:`IdleCores`; on the shared
2-core machine a second worker made 10,000 checks 1.5x faster one minute and 10% slower the
next, as other work came and went, docs/batch.md).  The batch of checks estimates its work
before it starts any (:func:`citeproof.batch.checks.estimated_work`).

**Ctrl-C** is the parent's to handle: worker processes ignore SIGINT (a terminal sends it to
the whole process group), so the parent says how far the batch got instead of every worker
printing a traceback; a batch given up midway stops its workers at once
(``close(abandon=True)``).  A ``--scheduler`` that does not answer within
:data:`SCHEDULER_TIMEOUT` seconds is a :class:`~citeproof.errors.BadInputError` naming it.
"""

from __future__ import annotations

import importlib
import inspect
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import as_completed as local_completed
from contextlib import contextmanager
from multiprocessing.context import BaseContext
from typing import Any, Final, Literal, TypeVar

from citeproof.errors import BadInputError

__all__ = [
    "MATCH_MODULES",
    "REFS_MODULES",
    "SCHEDULER_TIMEOUT",
    "WORK_PER_WORKER",
    "Executor",
    "IdleCores",
    "Runner",
    "Setup",
    "as_started_here",
    "choose_workers",
    "parents_place",
    "start_early",
]

Executor = Literal["local", "dask"]
T = TypeVar("T")

#: Seconds to wait for a running Dask scheduler to answer (distributed's own default is 30).
SCHEDULER_TIMEOUT: Final = 5
#: What a worker of the batch of checks runs: imported once, by the fork server.
MATCH_MODULES: Final = ("citeproof.batch.checks",)
#: What a worker verifying references from a local index imports, once, in the fork server
#: (tantivy is passed over there when the index extra is not installed).
REFS_MODULES: Final = ("citeproof.batch.bibliographies", "citeproof.index.query", "tantivy")
#: Estimated CPU seconds of work each local worker must have to be started: a second worker
#: then needs 0.6 s, about twice the work from which two were measured faster than one on a
#: quiet machine (docs/batch.md), as the estimate is coarse.
WORK_PER_WORKER: Final = 0.3
#: The shortest time over which the cores others use are measured (:class:`IdleCores`).
IDLE_WINDOW: Final = 0.05


def choose_workers(work: float, *, cores: int, idle: Callable[[], float]) -> int:
    """How many local workers to run ``work`` estimated CPU seconds on, when the user did
    not say: one per :data:`WORK_PER_WORKER` of work, no more than the cores nobody else is
    using (``idle()``, asked only when the work wants more than one), and at least one."""
    wanted = min(cores, int(work // WORK_PER_WORKER))
    if wanted <= 1:
        return 1
    return max(1, min(wanted, math.floor(idle() + 0.5)))


class IdleCores:
    """The cores other processes left idle since this was made, for :func:`choose_workers`.

    Measured, not guessed from the load average: that lags a minute and counts this user's
    own batch of a moment ago, while a second worker pays only on a core nobody is using now
    (docs/batch.md).  The machine's busy time (``/proc/stat``) less this process's own, over
    the time since it was made (the input read ahead, at least :data:`IDLE_WINDOW`).  Where
    there is no ``/proc/stat``, the cores less the load average.  This process's own time
    includes its children's: the fork server importing the workers' modules meanwhile is
    this run's work, and counted as another's it took a core away (``citeproof refs
    --index`` chose one worker on a quiet machine).
    """

    def __init__(self, cores: int) -> None:
        self.cores = cores
        self._start = _busy(), _own_cpu(), time.monotonic()

    def __call__(self) -> float:
        busy, own, started = self._start
        if busy is None:
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
            return max(0.0, self.cores - load)
        time.sleep(max(0.0, started + IDLE_WINDOW - time.monotonic()))
        now = _busy()
        elapsed = time.monotonic() - started
        if now is None or elapsed <= 0:
            return float(self.cores)
        others = max(0.0, (now - busy) - (_own_cpu() - own))
        return max(0.0, self.cores - others / elapsed)


def _own_cpu() -> float:
    """CPU seconds of this process and of its children, living (``/proc``, where there is
    one) and ended."""
    ended = os.times()
    own = time.process_time() + ended.children_user + ended.children_system
    try:
        tick = os.sysconf("SC_CLK_TCK")
        children: set[str] = set()
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children", "rb") as listed:
                children.update(listed.read().decode().split())
        for pid in children:
            with open(f"/proc/{pid}/stat", "rb") as stat:
                # After the command's name: state is field 3, utime .. cstime fields 14-17.
                fields = stat.read().rsplit(b")", 1)[1].split()
            own += sum(int(x) for x in fields[11:15]) / tick
    except (OSError, ValueError, IndexError):
        pass  # no /proc, or a child gone meanwhile: its time is counted as another's
    return own


def _busy() -> float | None:
    """Seconds of CPU every core of the machine has spent busy since boot (``/proc/stat``:
    all but idle and I/O wait), or None where that cannot be read."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
        ticks = [int(x) for x in fields[1:9]]
        return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _ignore_interrupts() -> None:
    """Run in each worker process as it starts: Ctrl-C is for the parent to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


Setup = tuple[Callable[..., None], tuple[Any, ...]]
"""A function and its arguments, run in each local worker as it starts (after Ctrl-C is
ignored): module-level, so that it pickles."""


def _start_worker(setup: Setup | None) -> None:
    _ignore_interrupts()
    if setup is not None:
        function, args = setup
        function(*args)


def as_started_here(environment: dict[str, str], folder: str) -> None:
    """A :data:`Setup` for work that reads the environment or files: the worker takes the
    parent's environment and working folder, whatever the fork server started with (it may
    have been started by an earlier run in this process, with other variables)."""
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(folder)


def parents_place() -> Setup:
    """:func:`as_started_here` with this process's environment and working folder."""
    return as_started_here, (dict(os.environ), os.getcwd())


def _warm(modules: Sequence[str]) -> int:
    """A worker's first call: its imports done now, while the parent reads the input."""
    for name in modules:
        importlib.import_module(name)
    return os.getpid()


@contextmanager
def _interrupts_ignored() -> Iterator[None]:
    """SIGINT ignored while the block runs (processes started then inherit that); only the
    main thread may change a signal's handler, elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


def _context(preload: Sequence[str] | None) -> BaseContext:
    """The fork server with ``preload`` imported, where there is one; else spawn."""
    if preload is None or "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # Takes effect when the server starts (once per process); modules it did not preload are
    # imported by each worker, as with spawn.
    context.set_forkserver_preload(list(preload))
    return context


def start_early(executor: str, workers: int | None, preload: Sequence[str] = MATCH_MODULES) -> None:
    """Start the process local workers will be forked from, and let it import ``preload``
    while the caller goes on with its own imports (side by side, on two cores).  Nothing
    happens for Dask, for one worker (it runs inline), for a number not chosen yet (``None``:
    chosen from the work, which is not read yet) or where workers are spawned."""
    if executor != "local" or workers is None or workers <= 1:
        return
    context = _context(preload)
    if context.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    with _interrupts_ignored():  # the server, and every worker forked from it, ignore Ctrl-C
        forkserver.ensure_running()


def _dask_client(scheduler: str | None, workers: int) -> Any:
    """A client of the running scheduler at ``scheduler``, or of a new local cluster."""
    try:
        # Imported here: distributed is an optional extra, and heavy.
        from distributed import Client, LocalCluster
    except ImportError:
        raise BadInputError("--executor dask needs Dask: pip install 'citeproof[dask]'.") from None
    if scheduler is None:
        with _interrupts_ignored():  # the cluster's processes start ignoring Ctrl-C too
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
        client = Client(cluster)
        client.wait_for_workers(workers)  # so that work is routed over all of them
        return client
    try:
        return Client(scheduler, timeout=SCHEDULER_TIMEOUT)
    except ValueError as err:  # distributed cannot read the address
        raise BadInputError(
            f"--scheduler {scheduler} is not a scheduler address ({err}); give it as "
            "tcp://HOST:PORT."
        ) from None
    except OSError:  # nothing answered in time
        raise BadInputError(
            f"cannot reach the Dask scheduler at {scheduler}: no answer within "
            f"{SCHEDULER_TIMEOUT} s; start it, or check the address given to --scheduler."
        ) from None


def _dask_workers(client: Any) -> list[str]:
    """The cluster's workers as the batch starts, in a fixed order (so worker ``n`` is one
    machine throughout; a worker that joins later gets work only by Dask's own stealing)."""
    ask = client.scheduler_info
    # Some versions list only five workers unless asked for all.
    asked = ask(n_workers=-1) if "n_workers" in inspect.signature(ask).parameters else ask()
    return sorted(asked.get("workers", {}))


class Runner:
    """Runs calls on local worker processes, on a Dask cluster, or inline (one worker).

    ``preload``: the modules the calls need, imported by every worker as it starts (local
    workers are then forked from a server that imported them once: see the module's
    docstring for what such work may not read, unless ``setup`` is :func:`parents_place`).
    ``routed``: one queue per worker, chosen by ``submit(..., worker=n)``.  ``setup``: run
    in each local worker as it starts.
    """

    def __init__(
        self,
        executor: Executor,
        workers: int,
        scheduler: str | None = None,
        *,
        preload: Sequence[str] | None = None,
        routed: bool = False,
        setup: Setup | None = None,
    ) -> None:
        self.executor = executor
        self.workers = workers
        self._pools: list[ProcessPoolExecutor] = []
        self._sizes: list[int] = []
        self._starting: threading.Thread | None = None
        self._client: Any = None
        self._addresses: list[str] = []
        self._submitted = 0
        if executor == "dask":
            self._client = _dask_client(scheduler, workers)
            self._addresses = _dask_workers(self._client) if routed else []
            if self._addresses:
                self.workers = len(self._addresses)
            return
        if workers <= 1:
            return
        context = _context(preload)
        self._sizes = [workers] if not routed else [1] * workers
        for size in self._sizes:
            pool = ProcessPoolExecutor(
                size, mp_context=context, initializer=_start_worker, initargs=(setup,)
            )
            self._pools.append(pool)
        modules = tuple(preload or ())
        if context.get_start_method() == "forkserver":
            # Forking waits for the server to have imported ``preload``: meanwhile the caller
            # reads its first chunks.  The server ignores Ctrl-C, and so do its workers.
            self._starting = threading.Thread(target=self._start, args=(modules,), daemon=True)
            self._starting.start()
        else:
            with _interrupts_ignored():  # spawned workers start ignoring Ctrl-C
                self._start(modules)

    def _start(self, modules: tuple[str, ...]) -> None:
        """Start every worker now, not at the first task."""
        for pool, size in zip(self._pools, self._sizes, strict=True):
            for _ in range(size):
                pool.submit(_warm, modules)

    def _started(self) -> None:
        if self._starting is not None:
            self._starting.join()
            self._starting = None

    @property
    def elsewhere(self) -> bool:
        """Whether calls run in other processes (else inline, done when submitted)."""
        return bool(self._pools) or self._client is not None

    def submit(self, fn: Callable[..., T], *args: Any, worker: int | None = None) -> Any:
        """``fn(*args)`` on a worker (worker ``worker`` of a routed runner); a future (a Dask
        future on a cluster)."""
        if self._client is not None:
            # Earlier calls first: within a few milliseconds of each other Dask would run
            # them in any order, and a batch writes its results in the order it asked.
            self._submitted += 1
            if worker is None or not self._addresses:
                return self._client.submit(fn, *args, pure=False, priority=-self._submitted)
            address = self._addresses[worker % len(self._addresses)]
            return self._client.submit(
                fn,
                *args,
                pure=False,
                priority=-self._submitted,
                workers=[address],
                allow_other_workers=True,
            )
        if self._pools:
            self._started()
            pool = self._pools[(worker or 0) % len(self._pools)]
            return pool.submit(fn, *args)
        done: Future[T] = Future()
        done.set_result(fn(*args))
        return done

    def as_completed(self, futures: list[Any]) -> Iterator[Any]:
        if self._client is not None:
            from distributed import as_completed

            yield from as_completed(futures)
            return
        yield from local_completed(futures)

    def close(self, *, abandon: bool = False) -> None:
        """Stop the workers; ``abandon``: the results are not wanted (Ctrl-C), so local
        workers are stopped at once rather than left to finish what they hold."""
        self._started()
        if abandon:
            for pool in self._pools:
                # The pool has no public way to stop busy workers before Python 3.14.
                for process in list((getattr(pool, "_processes", None) or {}).values()):
                    process.terminate()
        for pool in self._pools:
            pool.shutdown(cancel_futures=True)
        if self._client is not None:
            cluster = self._client.cluster
            self._client.close()
            if cluster is not None:
                cluster.close()
