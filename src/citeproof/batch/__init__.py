"""Checking quotes, and auditing answers, by the thousand: JSONL in, JSONL out, on many cores.

``jsonl`` reads a batch strictly, line by line (a bad line is that line's error record);
``checks`` runs the check pipeline over it (sources loaded here, matching on workers);
``audits`` does the same for answers; ``executors`` are where the work runs (worker processes
or a Dask cluster); ``output`` is where the result lines go and what ``--resume`` reads back.
``run`` (from ``checks``) is the library entry point.

May import ``audit``, the service and everything below it.
"""

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
