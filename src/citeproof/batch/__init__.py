"""Checking quotes, and auditing answers, by the thousand: JSONL in, JSONL out, on many cores.

``jsonl`` reads a batch strictly, line by line (a bad line is that line's error record);
``checks`` runs the check pipeline over it (sources loaded here, matching on workers);
``audits`` does the same for answers; ``executors`` are where the work runs (worker processes
or a Dask cluster); ``output`` is where the result lines go and what ``--resume`` reads back.
``run`` (from ``checks``) is the library entry point.

The names below are imported on first use (PEP 562), so that importing ``executors`` or
``output`` alone, as the command line does before its heavy imports, costs only those.

May import ``audit``, the service and everything below it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeproof.batch.checks import (
        CHUNK_LINES,
        FETCH_THREADS,
        Executor,
        Options,
        Outcome,
        Task,
        run,
        run_task,
        run_tasks,
    )

__all__ = [
    "CHUNK_LINES",
    "FETCH_THREADS",
    "Executor",
    "Options",
    "Outcome",
    "Task",
    "run",
    "run_task",
    "run_tasks",
]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'citeproof.batch' has no attribute {name!r}")
    value = getattr(importlib.import_module("citeproof.batch.checks"), name)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
