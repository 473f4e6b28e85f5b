"""``citeproof batch``: check a JSONL file of quotes, writing one JSON line per check.

The batch itself (chunks, workers, resume, the output lines, the evidence log) is
:mod:`citeproof.batch`; this command checks its options, shows the progress and the summary.
Module level imports click only.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import click

from citeproof.cli.options import CONTEXT_SETTINGS, executor_options, replay_option

if TYPE_CHECKING:
    from citeproof.batch.driver import Ending, LineBatch, Lines


EPILOG = (
    "Exit codes: 0 every line has its record in the output; 2 bad usage or input (an output "
    "that is the input or a folder, or holds results, without --resume or --overwrite; an "
    "input of which no line could be checked); 130 interrupted (--resume goes on).\n\n"
    "\b\nExamples:\n"
    "  citeproof batch quotes.jsonl -o results.jsonl\n"
    "  citeproof batch quotes.jsonl -o results.jsonl --resume    # after Ctrl-C or a crash\n"
    "  citeproof batch quotes.jsonl -o out.jsonl --executor dask --scheduler tcp://HOST:8786"
)


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Check a JSONL file of quotes; one JSON result line per check.",
    epilog=EPILOG,
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
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace what --output holds (a file with results "
    "in it is refused without --resume or --overwrite).",
)
@click.option("--quiet", is_flag=True, help="No progress bar and no summary on stderr.")
@click.option("--log", "log", is_flag=True, help="Record every check in the evidence log.")
@executor_options("Worker processes on this machine", workers="Worker processes (default: cores).")
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
    overwrite: bool,
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
    from citeproof.batch.driver import refuse_request
    from citeproof.batch.executors import start_early

    refuse_request(
        resume=resume,
        to_file=output != "-",
        executor=executor,
        scheduler=scheduler,
        input_path=input_path,
    )
    start_early(executor, workers)  # the workers' imports beside the ones below

    from citeproof.batch.checks import run
    from citeproof.batch.driver import LineBatch, Work
    from citeproof.batch.jsonl import parse_stream
    from citeproof.cli._common import stdout_bytes
    from citeproof.service.pipeline import CheckOptions

    options = CheckOptions(
        near_threshold=near_threshold,
        max_gap=max_gap,
        profile=profile,
        offline=offline,
        replay=replay,
        log=log,
    )
    job = LineBatch(
        input_path,
        output,
        Work("check", "check", "{id?, quote, source, claim?}", "ERROR"),
        resume=resume,
        overwrite=overwrite,
        stdout=stdout_bytes() if output == "-" else None,
    )
    unavailable: Counter[str] = Counter()
    with progress(quiet, job.total, len(job.done)) as advance:

        def checked() -> Lines:
            outcomes = run(
                parse_stream(job.input),
                options=options,
                executor=executor,  # type: ignore[arg-type]
                workers=workers,
                scheduler=scheduler,
                ordered=not unordered,
                skip=job.done,
                on_done=advance.finished,
            )
            with closing(outcomes):
                for outcome in outcomes:
                    yield outcome.text, outcome.verdict

        def written(text: str, verdict: str | None, counts: Counter[str]) -> None:
            if verdict == "UNAVAILABLE":
                unavailable[_unavailable_reason(text)] += 1
            advance(counts)

        ending = job.drive(checked(), written)
    ended(job, ending)
    if not quiet:
        _summary(ending.counts, unavailable, ending.seconds, ending.skipped)


def ended(job: LineBatch, ending: Ending) -> None:
    """Stop a JSONL batch command that did not end well: at Ctrl-C (exit 130), or when no
    line of its input could be done (one line naming the first error, exit 2)."""
    from citeproof.cli._common import nothing_done
    from citeproof.errors import BadInputError

    if ending.interrupted is not None:
        interrupted(ending.interrupted)
    if ending.nothing_done:
        w = job.work
        errors = ending.counts[w.error_key]
        first = ending.first_error
        raise BadInputError(nothing_done(job.input_path, w.verb, w.shape, w.item, errors, first))


def interrupted(message: str) -> NoReturn:
    """How a batch command ends at Ctrl-C: one line saying how far it got, exit 130."""
    click.echo(f"citeproof: {message}", err=True)
    click.get_current_context().exit(130)


def _unavailable_reason(text: str) -> str:
    """An UNAVAILABLE result line's source and reason, as the summary lists them."""
    import json

    record = json.loads(text)
    source = record.get("source") or {}
    return f"{source.get('input')}: {record.get('reason')}"


class Advance:
    """What the progress bar is told: ``finished(n)`` as ``n`` more lines are done (before a
    chunk's ordered results come out), ``advance(counts)`` as each result is written (the
    verdicts so far).  The bar counts whichever is further on.  Without a bar, nothing."""

    def __init__(self, progress: Any = None, task: Any = None) -> None:
        self._progress = progress
        self._task = task
        self._finished = 0
        self._written = 0

    def finished(self, count: int) -> None:
        self._finished += count
        if self._progress is not None:
            self._progress.update(self._task, completed=max(self._finished, self._written))

    def __call__(self, counts: Counter[str]) -> None:
        self._written = sum(counts.values())
        if self._progress is not None:
            verdicts = " ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            self._progress.update(
                self._task, completed=max(self._finished, self._written), verdicts=verdicts
            )


class _NoProgress:
    def __enter__(self) -> Advance:
        return Advance()

    def __exit__(self, *exc: object) -> None:
        return None


def progress(quiet: bool, total: int | None, skipped: int, label: str = "checks") -> Any:
    """The bar on a terminal (``citeproof batch``, ``citeproof refs``), else nothing."""
    import sys

    if quiet or not sys.stderr.isatty():
        return _NoProgress()
    return progress_bar(total=total, skipped=skipped, label=label)


@contextmanager
def progress_bar(
    *, total: int | None, skipped: int, console: Any = None, label: str = "checks"
) -> Iterator[Advance]:
    """A rich bar: done/total, the rate, the time left and the verdicts so far.

    The rate and the time left are measured since the bar started (lines done / seconds),
    not taken from rich's estimate, which keeps the last 1,000 updates only: results that
    arrive 2,000 at a time made it a few milliseconds' worth, and the time left a second.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn
    from rich.text import Text

    def rate(task: Any) -> float | None:
        elapsed = task.elapsed
        return task.completed / elapsed if elapsed and task.completed else None

    class Rate(ProgressColumn):
        def render(self, task: Any) -> Text:
            per_second = rate(task)
            return Text(f"{per_second or 0:.0f}/s", style="progress.data.speed")

    class TimeLeft(ProgressColumn):
        max_refresh = 0.5

        def render(self, task: Any) -> Text:
            per_second = rate(task)
            if task.total is None:
                return Text("")
            if task.finished:
                left = 0
            elif per_second is None:
                return Text("-:--:--", style="progress.remaining")
            else:
                left = math.ceil(task.remaining / per_second)
            minutes, seconds = divmod(left, 60)
            hours, minutes = divmod(minutes, 60)
            return Text(f"{hours:d}:{minutes:02d}:{seconds:02d}", style="progress.remaining")

    columns = (
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TimeLeft(),
        TextColumn("{task.fields[verdicts]}"),
    )
    options: dict[str, Any] = {"transient": console is None}
    if console is not None:
        options["console"] = console
    with Progress(*columns, **options) as bar:
        remaining = None if total is None else max(total - skipped, 0)
        task = bar.add_task(label, total=remaining, verdicts="")
        yield Advance(bar, task)


def _summary(counts: Counter[str], unavailable: Counter[str], seconds: float, skipped: int) -> None:
    total = sum(counts.values())
    parts = ", ".join(f"{verdict} {n}" for verdict, n in sorted(counts.items())) or "nothing"
    message = f"citeproof: {total} checked in {seconds:.1f} s: {parts}"
    if skipped:
        message += f" ({skipped} already done, skipped)"
    click.echo(message, err=True)
    for reason, n in unavailable.most_common(10):
        click.echo(f"  unavailable ({n}): {reason}", err=True)
