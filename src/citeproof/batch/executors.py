"""Where a batch's work runs: worker processes on this machine, a Dask cluster, or inline.

One small interface (submit a function and its argument, take results as they finish, close)
so the batch of checks and the batch of audits share their pools, and neither command owns
one.  Worker processes are spawned, not forked: a fork would copy the parent's open cache
connections, locks and event loops into every worker.

Ctrl-C is the parent's to handle: worker processes ignore SIGINT (a terminal sends it to the
whole process group), so the parent says how far the batch got instead of every worker
printing a traceback; a batch given up midway stops its workers at once
(``close(abandon=True)``).  A ``--scheduler`` that does not answer within
:data:`SCHEDULER_TIMEOUT` seconds is a :class:`~citeproof.errors.BadInputError` naming it.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import as_completed as local_completed
from contextlib import contextmanager
from typing import Any, Final, Literal, TypeVar

from citeproof.errors import BadInputError

__all__ = ["SCHEDULER_TIMEOUT", "Executor", "Runner"]

Executor = Literal["local", "dask"]
T = TypeVar("T")

#: Seconds to wait for a running Dask scheduler to answer (distributed's own default is 30).
SCHEDULER_TIMEOUT: Final = 5


def _ignore_interrupts() -> None:
    """Run in each worker process as it starts: Ctrl-C is for the parent to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


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
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            )  # fmt: skip
        return Client(cluster)
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


class Runner:
    """Runs calls on local worker processes, on a Dask cluster, or inline (one worker)."""

    def __init__(self, executor: Executor, workers: int, scheduler: str | None = None) -> None:
        self.executor = executor
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None
        if executor == "dask":
            self._client = _dask_client(scheduler, workers)
        elif workers > 1:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                max_workers=workers, mp_context=context, initializer=_ignore_interrupts
            )

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T] | Any:
        """``fn(*args)`` on a worker; a future (a Dask future on a cluster)."""
        if self._client is not None:
            return self._client.submit(fn, *args, pure=False)
        if self._pool is not None:
            return self._pool.submit(fn, *args)
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
        if self._pool is not None:
            if abandon:
                # The pool has no public way to stop busy workers before Python 3.14.
                for process in list(getattr(self._pool, "_processes", {}).values()):
                    process.terminate()
            self._pool.shutdown(cancel_futures=True)
        if self._client is not None:
            cluster = self._client.cluster
            self._client.close()
            if cluster is not None:
                cluster.close()
