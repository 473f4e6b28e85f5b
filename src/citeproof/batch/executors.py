"""Where a batch's work runs: worker processes on this machine, a Dask cluster, or inline.

One small interface (submit a function and its argument, take results as they finish, close)
so the batch of checks and the batch of audits share their pools, and neither command owns
one.  Worker processes are spawned, not forked: a fork would copy the parent's open cache
connections, locks and event loops into every worker.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import as_completed as local_completed
from typing import Any, Literal, TypeVar

__all__ = ["Executor", "Runner"]

Executor = Literal["local", "dask"]
T = TypeVar("T")


class Runner:
    """Runs calls on local worker processes, on a Dask cluster, or inline (one worker)."""

    def __init__(self, executor: Executor, workers: int, scheduler: str | None = None) -> None:
        self.executor = executor
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None
        if executor == "dask":
            # Imported here: distributed is an optional extra, and heavy.
            from distributed import Client, LocalCluster

            if scheduler is not None:
                self._client = Client(scheduler)
            else:
                cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True,
                    dashboard_address=None,
                )  # fmt: skip
                self._client = Client(cluster)
        elif workers > 1:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)

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

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
        if self._client is not None:
            cluster = self._client.cluster
            self._client.close()
            if cluster is not None:
                cluster.close()
