"""``citeproof refs``: is each reference of a bibliography, a manuscript or an answer real?

The verification is :mod:`citeproof.service.references` (one file) and
:mod:`citeproof.batch.bibliographies` (many files, a JSONL of references, ``--output``,
``--resume``, Dask); this command checks its options, shows the progress and renders.
Module level imports click only, and the options and files are checked before anything
else is imported, so a mistyped name is answered at once.

Before the work starts one line says how many references were read; when no service can be
reached the run stops asking and one line says so, with what to do (exit 3).  What reading
found wrong with a list (numbers it skips or uses twice, text not read as entries) is the
report's ``reading``: printed under the table, and on stderr when the results go to a file
(``-o``: its lines are results only) or to stdout as JSON.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import click

from citeproof.cli.options import CONTEXT_SETTINGS, executor_options, log_options, replay_option

if TYPE_CHECKING:
    from collections.abc import Callable

    from citeproof.batch.bibliographies import Job, RefsOptions, RefsOutcome
    from citeproof.batch.output import ResultSink
    from citeproof.models.references import ReferenceResult, ReferencesReport

FORMATS = ("bibtex", "ris", "csl", "jats", "pdf", "answer", "list")
EPILOG = (
    "Exit codes: 0 every reference verified; 1 a problem found (mismatch, not_found, "
    "unresolvable, partial, a retracted work); 2 bad input; 3 a database was unavailable "
    "and nothing failed.\n\n"
    "\b\nExamples:\n"
    "  citeproof refs paper.bib\n"
    "  citeproof refs manuscript.pdf --json > refs.json\n"
    "  citeproof refs a.bib b.ris refs.jsonl -o results.jsonl --resume"
)

#: Input bytes from which a line says that reading has begun.
_SAY_READING = 10_000_000
#: Input bytes from which, with a local index, the workers' process is started before the
#: input is read: about 150 references, the fewest for which a second worker is chosen.
_EARLY_WORKERS_BYTES = 15_000

_STYLE = {
    "verified": "green",
    "ambiguous": "yellow",
    "partial": "yellow",
    "unavailable": "blue",
    "unchecked": "blue",
    "not_found": "red",
    "mismatch": "red",
    "unresolvable": "red",
}


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Verify every reference of a bibliography against the scholarly record.",
    epilog=EPILOG,
)
@click.argument(
    "files", metavar="FILE...", nargs=-1, required=True, type=click.Path(allow_dash=False)
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="Read every FILE as this format (default: from the name and the content).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Write one JSON line per reference to FILE instead of printing the report.",
)
@click.option("--resume", is_flag=True, help="Skip the references already in --output.")
@click.option(
    "--html",
    "html_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Also write the results as one self-contained HTML page to FILE, the entries to check "
    "by hand first (an earlier page there is replaced; another file only with --overwrite).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace what --output or --html holds (a file "
    "with results in it is refused without --resume or --overwrite).",
)
@click.option(
    "--index",
    "index_dir",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="A local index (citeproof index build) asked before the web services, and instead "
    "of them with --offline (env CITEPROOF_INDEX).",
)
@click.option("--quiet", is_flag=True, help="No progress bar on stderr.")
@click.option("--offline", is_flag=True, help="Answer from pinned records only; ask no service.")
@click.option(
    "--no-retraction", is_flag=True, help="Do not ask the retraction sources about the works."
)
@executor_options(
    "This process",
    workers="References in flight (local, default 8; with --index, worker processes, chosen "
    "from the work and the idle cores) or Dask worker processes.",
)
@replay_option
@log_options("each verification")
def refs(
    files: tuple[str, ...],
    fmt: str | None,
    as_json: bool,
    output: str | None,
    resume: bool,
    html_path: str | None,
    overwrite: bool,
    index_dir: str | None,
    quiet: bool,
    offline: bool,
    no_retraction: bool,
    executor: str,
    workers: int | None,
    scheduler: str | None,
    replay: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    """Verify every reference in each FILE: is it a real work, and the one it claims to be?

    FILE is a BibTeX (.bib), RIS (.ris), CSL-JSON (.json) file, a JATS article (.xml), a
    PDF (its references section), a Markdown or text answer (its reference list), a plain
    list (numbered or one per line), or a JSONL file of references (one string or CSL-JSON
    object per line). Each reference is looked up by its DOI/PMID/PMCID and searched in
    Crossref, PubMed, OpenAlex and DataCite; the verdict is one of verified, ambiguous,
    partial, not_found, unavailable, mismatch, unresolvable. A verified reference names a
    real work that matches the entry; it does not mean the work supports the claim.
    """
    from citeproof.batch.driver import refuse_request

    refuse_request(
        resume=resume, to_file=output is not None, executor=executor, scheduler=scheduler
    )
    for path in files:
        _check_file(path)
    if html_path is not None:  # before any work: a run must not be made only to be refused
        _check_page_path(html_path, files, output, resume, log_path, overwrite)
    from citeproof.cli.index import local_index

    index = local_index(index_dir)
    idle = _start_workers_early(index, executor, workers, files)

    from citeproof.batch.bibliographies import RefsOptions

    jobs, formats, reading = _read(files, fmt, quiet)
    options = RefsOptions(
        offline=offline,
        replay=replay,
        retraction=not no_retraction,
        log=False if no_log else (log_path or True),
        executor=executor,  # type: ignore[arg-type]
        workers=workers,
        scheduler=scheduler,
        index=index,
    )
    fmt_shown = formats.get(files[0]) if len(files) == 1 else None
    # JSON to stdout is written as results arrive, so it holds no more memory than -o does.
    stream = (
        _JsonStream(files[0] if len(files) == 1 else None, fmt_shown, offline)
        if output is None and (as_json or not sys.stdout.isatty())
        else None
    )
    run = _Run(files, output, stream, quiet)
    run.open(resume, overwrite)
    if not quiet:
        click.echo(_count_line(len(jobs), files, len(run.done), output), err=True)
    if output is not None or (stream is not None and not quiet):
        # Nowhere else to read them: -o holds one result a line, JSON on stdout is for a program.
        for line in reading:
            click.echo(f"citeproof: {line}", err=True)
    keep = (output is None and stream is None) or html_path is not None
    report = run.verify(jobs, options, reading, keep=keep, idle=idle)
    if len(files) == 1:
        report = report.model_copy(update={"format": fmt_shown})
    run.show(report, html_path)
    # A resumed run answers for the whole output, as the uninterrupted run would.
    from citeproof.errors import references_exit_code

    counts = run.before + Counter(report.counts.model_dump())
    click.get_current_context().exit(references_exit_code(counts))


def _start_workers_early(
    index: str | None, executor: str, workers: int | None, files: tuple[str, ...]
) -> Callable[[], float] | None:
    """With a local index the references are verified on worker processes when the work is
    enough (:mod:`citeproof.batch.bibliographies`): start the process they are forked from
    now, so that it imports their modules while the files are read, ignoring Ctrl-C from
    the start; and start measuring the cores other processes leave idle.  A list too short
    to want a second worker (by its files' size) starts nothing."""
    if index is None or executor != "local" or workers == 1:
        return None
    import os

    from citeproof.batch.executors import REFS_MODULES, IdleCores, start_early

    size = sum(Path(path).stat().st_size for path in files)
    if workers is not None or size >= _EARLY_WORKERS_BYTES:
        start_early("local", workers or 2, preload=REFS_MODULES)
    return IdleCores(os.cpu_count() or 1)


def _read(
    files: tuple[str, ...], fmt: str | None, quiet: bool
) -> tuple[list[Job], dict[str, str], list[str]]:
    """Every file's references, their formats, and what reading found wrong with a list."""
    from citeproof.batch.bibliographies import read_jobs

    size = sum(Path(path).stat().st_size for path in files)
    if not quiet and size >= _SAY_READING:
        # Parsing runs at roughly 6 MB a second: a long list is not left to look stuck.
        where = files[0] if len(files) == 1 else f"{len(files)} files"
        click.echo(f"citeproof: reading {where} ({size / 1e6:,.0f} MB)...", err=True)
    reading: list[str] = []
    jobs, formats = read_jobs(list(files), fmt, reading=reading)  # type: ignore[arg-type]
    return jobs, formats, reading


class _Run:
    """One run's outputs: the ``-o`` file (a result sink, which refuses to lose a file), the
    JSON streamed to stdout, the progress and the verdicts counted as results arrive."""

    def __init__(
        self, files: tuple[str, ...], output: str | None, stream: _JsonStream | None, quiet: bool
    ) -> None:
        self.files = files
        self.output = output
        self.stream = stream
        self.quiet = quiet
        self.sink: ResultSink | None = None
        self.done: set[str] = set()
        self.before: Counter[str] = Counter()
        self.tally: Counter[str] = Counter()
        self.outcome: RefsOutcome | None = None

    def open(self, resume: bool, overwrite: bool) -> None:
        """The ``-o`` file, checked; with ``--resume``, what it holds already."""
        if self.output is None:
            return
        from citeproof.batch.bibliographies import earlier_counts
        from citeproof.batch.output import ResultSink

        # The sink refuses an output that is one of the files, or holds results (its rules).
        self.sink = ResultSink(self.output, resume, overwrite=overwrite, inputs=self.files)
        self.done = self.sink.done
        if resume:
            self.before = earlier_counts(self.output)

    def verify(
        self,
        jobs: list[Job],
        options: RefsOptions,
        reading: list[str],
        *,
        keep: bool,
        idle: Callable[[], float] | None = None,
    ) -> ReferencesReport:
        """Every reference not done yet, each result written as it arrives; at Ctrl-C, one
        line saying how far it got, and exit 130."""
        from citeproof.batch.bibliographies import RefsOutcome, run_refs
        from citeproof.cli.batch import interrupted, progress

        self.outcome = RefsOutcome()
        try:
            with progress(self.quiet, len(jobs), len(self.done), "references") as advance:

                def arrived(ident: str, result: ReferenceResult) -> None:
                    if self.sink is not None:
                        line = {"id": ident, **result.model_dump(mode="json")}
                        self.sink.write(json.dumps(line, ensure_ascii=False))
                    not_asked(ident, result)
                    self.tally[result.verdict] += 1
                    advance(self.tally)

                def not_asked(ident: str, result: ReferenceResult) -> None:
                    if self.stream is not None:
                        self.stream.add(result)

                return run_refs(
                    jobs,
                    options,
                    skip=self.done,
                    on_result=arrived,
                    outcome=self.outcome,
                    keep=keep,
                    on_not_asked=not_asked,
                    reading=reading,
                    idle=idle,
                )
        except KeyboardInterrupt:
            interrupted(self._stopped(len(jobs)))
        finally:
            if self.sink is not None:
                self.sink.close()

    def _stopped(self, total: int) -> str:
        """As ``citeproof batch``: how far it got and how to go on, never "Aborted!".  With
        ``-o``, the lines the file holds, as the batch counts them: Ctrl-C lands between a
        result's write and its tally as often as not."""
        written = len(self.done) + sum(self.tally.values())
        if self.output is not None:
            if self.output != "-":
                from citeproof.batch.output import whole_lines

                written = whole_lines(self.output)
            return (
                f"interrupted: {written} of {total} references written to {self.output}; run "
                "the same command with --resume to go on from there."
            )
        what = "the JSON printed is cut short" if self.stream else "nothing was written"
        return (
            f"interrupted after {written} of {total} references; {what} (give -o FILE to keep "
            "results as they finish)."
        )

    def show(self, report: ReferencesReport, html_path: str | None) -> None:
        """The report where it was asked for: the rest of the streamed JSON, the table, or a
        line naming the ``-o`` file; the unreachable services' line; the ``--html`` page."""
        outcome = self.outcome
        assert outcome is not None  # verify() ran
        if outcome.not_asked:
            click.echo(_unreachable_line(outcome, report.counts.total, self.output), err=True)
        if self.stream is not None:
            self.stream.close(report)
        elif self.output is None:
            _render(report)
        elif not self.quiet and not outcome.not_asked:
            shown = ", ".join(f"{n} {v}" for v, n in sorted(self.tally.items()))
            total = sum(self.tally.values())
            click.echo(f"citeproof: {total} references ({shown}) -> {self.output}", err=True)
        if html_path is not None:
            from citeproof.report.page import write_references_html

            page = write_references_html(report, html_path)
            click.echo(f"citeproof: references page written to {page}.", err=True)


def _check_page_path(
    path: str,
    files: tuple[str, ...],
    output: str | None,
    resume: bool,
    log_path: str | None,
    overwrite: bool,
) -> None:
    """Refuse a --html path the page must not be written to, before anything is read: one of
    the FILEs, the -o file or the evidence log (by any name), a folder, a folder that is not
    there, or a file citeproof did not write (an earlier references page is the run's own and
    is replaced; an audit page is not).  With --resume the page would show this run's
    references only, the earlier ones being in --output alone, so the two do not go together.
    """
    import os

    from citeproof.audit.run import audit_log_path
    from citeproof.cli._common import refuse_to_replace
    from citeproof.errors import BadInputError
    from citeproof.report.page import is_references_page

    if resume:
        raise BadInputError(
            "--html shows the references one run checks; with --resume the earlier ones are "
            "only in --output. Leave out --resume (or --html)."
        )
    if output is not None and os.path.abspath(output) == os.path.abspath(path):
        raise BadInputError(f"--html and --output both name {path}; give each its own file.")
    inputs = [*files, os.fspath(audit_log_path(log_path)), *([output] if output else [])]
    refuse_to_replace(
        path, inputs=inputs, overwrite=overwrite, ours=is_references_page, what="the --html page"
    )
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise BadInputError(
            f"the folder of the --html page, {folder}, does not exist; create it or give "
            "another path."
        )


class _JsonStream:
    """The report's JSON, written as the results arrive: byte for byte what ``write_json``
    writes for the whole report (``tests/integration/test_refs_offline_network.py``), without
    holding a list of 100,000 results to print them at the end.

    The report's fields before ``references`` are known before the work starts and those
    after it (``counts``, ``offline``) at its end, so the whole report is dumped around a
    marker in place of the references, and the results are put where the marker was.
    """

    _MARK = "\x00citeproof: the references\x00"

    def __init__(self, source: str | None, fmt: str | None, offline: bool) -> None:
        from citeproof.models.references import ReferencesReport

        self.started = False
        self.head = self._around(ReferencesReport(source=source, format=fmt, offline=offline))[0]

    def _around(self, report: ReferencesReport) -> tuple[str, str]:
        whole = report.model_dump(mode="json")
        whole["references"] = [self._MARK]
        text = json.dumps(whole, ensure_ascii=False, indent=2)
        at = text.index(json.dumps(self._MARK))
        return text[: text.rindex("\n", 0, at) + 1], text[text.index("\n", at) :]

    def _write(self, text: str) -> None:
        from citeproof.cli import _common

        _common.stdout_bytes().write(text.encode("utf-8", "surrogatepass"))

    def add(self, result: ReferenceResult) -> None:
        import textwrap

        self._write(",\n" if self.started else self.head)
        self.started = True
        item = json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2)
        self._write(textwrap.indent(item, "    "))

    def close(self, report: ReferencesReport) -> None:
        """The rest of ``report`` (its references already written, or none at all)."""
        from citeproof.cli import _common

        if not self.started:
            _common.write_json(report.model_dump(mode="json"))
            return
        self._write(self._around(report)[1] + "\n")
        _common.stdout_bytes().flush()


def _check_file(path: str) -> None:
    """One line for a name that is not a readable file, before anything is imported."""
    from citeproof.errors import BadInputError

    given = Path(path)
    if given.is_dir():
        raise BadInputError(
            f"{path} is a folder; give the reference files in it "
            f"(citeproof refs {path.rstrip('/')}/*.bib) or a file's path."
        )
    if not given.is_file():
        what = "is not a regular file" if given.exists() else "does not exist"
        raise BadInputError(f"{path} {what}; give a bibliography, a reference list or a PDF.")


def _count_line(total: int, files: tuple[str, ...], skipped: int, output: str | None) -> str:
    where = files[0] if len(files) == 1 else f"{len(files)} files"
    line = f"citeproof: {total:,} reference{'s' if total != 1 else ''} in {where}"
    if skipped:
        left = max(total - skipped, 0)
        return f"{line}, {skipped:,} already in {output}; checking the other {left:,}..."
    return f"{line}; checking..."


def _unreachable_line(outcome: RefsOutcome, total: int, output: str | None) -> str:
    not_asked = outcome.not_asked
    in_a_row = outcome.reach.limit if outcome.reach is not None else 0
    asked = total - not_asked
    line = (
        f"citeproof: no service could be reached: every request for {in_a_row} "
        f"references in a row failed to connect, so {not_asked:,} of {total:,} were not asked "
        "(unavailable). Check the connection, or use --offline (answers pinned by an earlier "
        "run) or --replay DIR."
    )
    if output is not None:
        line += (
            f" The {asked:,} asked are in {output}; run the same command with --resume to ask "
            "the rest."
        )
    return line


def _render(report: ReferencesReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    table = Table(show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("verdict", no_wrap=True)
    table.add_column("reference")
    table.add_column("what the record says")
    for r in report.references:
        style = _STYLE.get(r.verdict, "")
        verdict = f"[{style}]{r.verdict}[/{style}]"
        if r.retracted:
            verdict += "\n[bold red]retracted[/bold red]"
        entry = r.stated.title or r.stated.text
        # One line above says why; the table does not repeat it for each reference.
        reason = "Not asked." if r.verdict == "unavailable" and not r.asked else r.reason
        table.add_row(str(r.index), verdict, _short(entry, 160), _short(reason, 240))
    console.print(table)
    c = report.counts
    console.print(
        f"{c.total} references: {c.verified} verified, {c.ambiguous} ambiguous, "
        f"{c.partial} partial, {c.not_found} not found, {c.unchecked} unchecked, "
        f"{c.unavailable} unavailable, "
        f"{c.mismatch} mismatch, {c.unresolvable} unresolvable, {c.retracted} retracted.",
        highlight=False,
    )
    for line in report.reading:
        console.print(line, highlight=False, markup=False)


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
