"""``citeproof batch``: check a JSONL file of quotes, writing one JSON line per check.

The batch itself (chunks, workers, resume, the output lines, the evidence log) is
:mod:`citeproof.batch`; this command checks its options, shows the progress and the summary.
Module level imports click only.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from citeproof.cli.options import CONTEXT_SETTINGS, replay_option

if TYPE_CHECKING:
    from citeproof.batch.checks import Outcome


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Check a JSONL file of quotes; one JSON result line per check.",
    epilog="Exit codes: 0 every line has its record in the output; 2 bad usage or input file.",
)
@click.argument("input_path", metavar="INPUT", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "-o",
    "--output",
    default="-",
    metavar="FILE",
    show_default=True,
    help="Where the result lines go ('-': stdout).",
)
@click.option("--resume", is_flag=True, help="Skip the ids already in --output; append the rest.")
@click.option("--quiet", is_flag=True, help="No progress bar and no summary on stderr.")
@click.option("--log", "log", is_flag=True, help="Record every check in the evidence log.")
@click.option(
    "--executor",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Worker processes on this machine, or a Dask cluster.",
)
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (default: cores).")
@click.option("--scheduler", metavar="ADDR", help="A running Dask scheduler, tcp://HOST:PORT.")
@click.option("--unordered", is_flag=True, help="Write results as they finish, not in input order.")
@click.option("--offline", is_flag=True, help="Never fetch: identifiers must be pinned.")
@replay_option
@click.option(
    "--near-threshold",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.90,
    show_default=True,
    help="Lowest similarity reported as NEAR.",
)
@click.option(
    "--max-gap",
    type=click.IntRange(min=0),
    default=3000,
    show_default=True,
    help="Most characters an ellipsis may skip.",
)
@click.option(
    "--profile",
    type=click.Choice(["t1", "t1+dehyphen"]),
    default="t1",
    show_default=True,
    help="Normalisation profile.",
)
def batch(
    input_path: str,
    output: str,
    resume: bool,
    quiet: bool,
    log: bool,
    executor: str,
    workers: int | None,
    scheduler: str | None,
    unordered: bool,
    offline: bool,
    replay: str | None,
    near_threshold: float,
    max_gap: int,
    profile: str,
) -> None:
    """Check every line of INPUT ('-': stdin), a JSONL file of {id?, quote, source, claim?}.

    Each output line is the check result (schema citeproof.check/1) plus the input's id (the
    line number when it has none), or {id, line, error} for a line that is not a valid
    check. Checks are grouped by source, so each source is fetched and parsed once, and run
    on worker processes (or a Dask cluster with --executor dask).
    """
    from citeproof.batch.checks import run
    from citeproof.batch.jsonl import parse_stream
    from citeproof.batch.output import ResultSink, count_lines, done_ids, open_input
    from citeproof.cli._common import stdout_bytes
    from citeproof.errors import BadInputError
    from citeproof.service.pipeline import CheckOptions

    if resume and output == "-":
        raise BadInputError("--resume needs --output FILE: it reads what that file holds.")
    if scheduler is not None and executor != "dask":
        raise BadInputError("--scheduler is for --executor dask.")
    if input_path != "-" and not Path(input_path).is_file():
        raise BadInputError(f"there is no input file {input_path}; give a JSONL file or '-'.")
    options = CheckOptions(
        near_threshold=near_threshold, max_gap=max_gap, profile=profile, offline=offline,
        replay=replay, log=log,
    )  # fmt: skip
    done = done_ids(Path(output)) if resume else set()
    sink = ResultSink(output, resume, stdout=stdout_bytes() if output == "-" else None)
    stream = open_input(input_path)
    started = time.monotonic()
    counts: Counter[str] = Counter()
    unavailable: Counter[str] = Counter()
    try:
        outcomes = run(
            parse_stream(stream),
            options=options,
            executor=executor,  # type: ignore[arg-type]
            workers=workers,
            scheduler=scheduler,
            ordered=not unordered,
            skip=done,
        )
        with _progress(quiet, count_lines(input_path), len(done)) as advance:
            for outcome in outcomes:
                sink.write(outcome.text)
                _tally(outcome, counts, unavailable)
                advance(counts)
    finally:
        if input_path != "-":
            stream.close()
        sink.close()
    if not quiet:
        _summary(counts, unavailable, time.monotonic() - started, len(done))


def _tally(outcome: Outcome, counts: Counter[str], unavailable: Counter[str]) -> None:
    if outcome.verdict is None:
        counts["ERROR"] += 1
        return
    counts[outcome.verdict] += 1
    if outcome.verdict == "UNAVAILABLE":
        record = outcome.record
        source = record.get("source") or {}
        unavailable[f"{source.get('input')}: {record.get('reason')}"] += 1


class _NoProgress:
    def __enter__(self) -> Any:
        return lambda counts: None

    def __exit__(self, *exc: object) -> None:
        return None


def _progress(quiet: bool, total: int | None, skipped: int) -> Any:
    import sys

    if quiet or not sys.stderr.isatty():
        return _NoProgress()
    return progress_bar(total=total, skipped=skipped)


@contextmanager
def progress_bar(
    *, total: int | None, skipped: int, console: Any = None
) -> Iterator[Callable[[Counter[str]], None]]:
    """A rich bar: done/total, the rate, the time left and the verdicts so far."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("checks"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}/s"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[verdicts]}"),
    )
    options: dict[str, Any] = {"transient": console is None}
    if console is not None:
        options["console"] = console
    with Progress(*columns, **options) as progress:
        remaining = None if total is None else max(total - skipped, 0)
        task = progress.add_task("checks", total=remaining, rate="0", verdicts="")
        started = time.monotonic()

        def advance(counts: Counter[str]) -> None:
            done = sum(counts.values())
            rate = done / max(time.monotonic() - started, 1e-9)
            verdicts = " ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            progress.update(task, completed=done, rate=f"{rate:.0f}", verdicts=verdicts)

        yield advance


def _summary(counts: Counter[str], unavailable: Counter[str], seconds: float, skipped: int) -> None:
    total = sum(counts.values())
    parts = ", ".join(f"{verdict} {n}" for verdict, n in sorted(counts.items())) or "nothing"
    message = f"citeproof: {total} checked in {seconds:.1f} s: {parts}"
    if skipped:
        message += f" ({skipped} already done, skipped)"
    click.echo(message, err=True)
    for reason, n in unavailable.most_common(10):
        click.echo(f"  unavailable ({n}): {reason}", err=True)
