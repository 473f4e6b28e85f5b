"""Checking quotes by the thousand."""

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
