"""``citeproof manuscript FILE|DIR`` and ``citeproof manuscript verify REPORT``.

Why a command of its own, not ``citeproof audit``: an audit reads an AI answer (text) into
claims and citations of identifiers and handles; a manuscript is a Word file, a PDF, a LaTeX
folder, JATS or HTML, read into a reference list, citations linked to its entries, and
quotations, and its report (``citeproof.manuscript/1``) has no claims or handles.  Its
inputs and options differ too (``--sources DIR``: the editor's copies of the cited works).
``citeproof audit`` refuses a manuscript in one line that names this command.

The group sends every invocation whose first word is not ``verify`` to the hidden ``run``
command, as ``citeproof audit`` does; a manuscript named ``verify`` is given as
``./verify``.  The run is :func:`citeproof.service.manuscripts.check_manuscript`; this
module checks the options, says what it read, and renders.

Module level imports click only: ``citeproof --help`` imports this module.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

from citeproof.cli.audit import AuditGroup, DefaultCommand, key_option, verify_signed
from citeproof.cli.options import log_options, replay_option

if TYPE_CHECKING:
    from rich.console import Console

    from citeproof.manuscript.structure import Manuscript
    from citeproof.models.manuscript import ManuscriptReference, ManuscriptReport

__all__ = ["manuscript", "render_manuscript"]

EXIT_CODES = (
    "Exit codes: 0 pass or warn; 1 fail (by default: a quotation not in the work it cites or "
    "changed in meaning, a reference that is unresolvable, a mismatch, not found or partial, "
    "a retracted work cited without saying so); 2 usage or bad input; 3 incomplete (a "
    "reference could not be verified, or a quotation could not be checked, and nothing "
    "failed); 130 interrupted. `citeproof manuscript verify REPORT [--key PUB]` checks a "
    "report's signature. A manuscript named 'verify' is given as ./verify."
)


@click.group(
    cls=AuditGroup,
    short_help="Check a whole manuscript: references, retractions, quotations.",
    context_settings={"help_option_names": []},
)
def manuscript() -> None:
    """Check a manuscript (`citeproof manuscript FILE`) or verify a report (`verify`)."""


@manuscript.command(
    "run",
    cls=DefaultCommand,
    hidden=True,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog=EXIT_CODES + "\n\n"
    "\b\nExamples:\n"
    "  citeproof manuscript paper.docx\n"
    "  citeproof manuscript paper.pdf --sources cited-pdfs/ --json > report.json\n"
    "  citeproof manuscript latex-folder/ --fail-on misquote,mismatch\n"
    "  citeproof manuscript paper.docx --html report.html    # the web page, problems first",
)
@click.argument("source", metavar="FILE|DIR")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the report as JSON (the default when stdout is not a terminal).",
)
@click.option(
    "--sources",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="A folder of your copies of the cited works (PDF, XML, HTML, text): each is matched "
    "to its entry (a DOI, PMID or PMCID it names, else its title and first author) and "
    "its quotations are checked against it.",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Never fetch: verify references and read cited works from the cache only.",
)
@replay_option
@click.option(
    "--no-retraction", is_flag=True, help="Do not ask for the cited works' retraction status."
)
@click.option(
    "--html",
    "html_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Also write the report as one self-contained web page to FILE, problems first (an "
    "earlier page there is replaced; another file only with --overwrite).",
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace an existing file at --html FILE "
    "(never the manuscript, a file of its folder or of --sources, or the "
    "log).",
)
@click.option(
    "--fail-on",
    metavar="LIST",
    help="Comma list of findings that fail the manuscript: misquote, near_quote, "
    "unattributed, unchecked, unresolvable, mismatch, not_found, partial, ambiguous, "
    "unavailable, retracted, concern, unlinked, uncited. "
    "[default: misquote,unresolvable,mismatch,not_found,partial,retracted]",
)
@log_options("this check")
def run(
    source: str,
    as_json: bool,
    sources: str | None,
    offline: bool,
    replay: str | None,
    no_retraction: bool,
    html_path: str | None,
    overwrite: bool,
    fail_on: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    """Check the manuscript FILE|DIR: a Word (.docx), PDF, LaTeX (.tex, a folder or a .tar.gz
    or .zip of its sources), JATS XML, HTML or Markdown file, or '-' for stdin.

    Every reference is verified against the scholarly record (as `citeproof refs`), every
    cited work's retraction status is asked, and every quotation is checked against the
    work it cites: its best legally readable text, or your own copy from --sources. The
    report lists problems first: quotations not found or altered (with what differs),
    references that are not real or not the work they say, citations with no entry,
    entries never cited, retracted works cited. It is signed with the log key (schema
    citeproof.manuscript/1). citeproof never judges whether a work supports what the
    manuscript says.
    """
    from citeproof.cli import _common
    from citeproof.errors import CiteproofError, audit_exit_code
    from citeproof.service.manuscripts import check_manuscript, log_manuscript, parse_fail_on

    failing = parse_fail_on(fail_on)
    if html_path is not None:  # before any work: a run must not be made only to be refused
        _check_page_path(html_path, source, sources, log_path, overwrite)
    elif overwrite:
        from citeproof.errors import BadInputError

        raise BadInputError("--overwrite replaces the file --html FILE names; give --html too.")
    shown = "standard input" if source == "-" else source

    def said(m: Manuscript) -> None:
        click.echo(
            f"citeproof: {shown}: {m.format}, {len(m.references)} references, "
            f"{len(m.citations)} citations, {len(m.quotations)} quotations; checking...",
            err=True,
        )

    report = check_manuscript(
        source,
        sources=sources,
        offline=offline,
        replay=replay,
        retraction=not no_retraction,
        fail_on=failing,
        stdin=_common.stdin_bytes("the manuscript") if source == "-" else None,
        on_read=said,
    )
    log_error: CiteproofError | None = None
    seq: int | None = None
    if not no_log:
        try:
            seq = log_manuscript(report, log_path)
        except CiteproofError as err:  # the report is still shown; then the log's problem
            log_error = err
    if _common.want_json(as_json):
        _common.write_json(report.model_dump(mode="json"))
    else:
        render_manuscript(report)
    if seq is not None:
        click.echo(f"citeproof: check recorded as log entry {seq}.", err=True)
    if html_path is not None:
        from citeproof.report.page import write_manuscript_html

        page = write_manuscript_html(report, html_path)
        click.echo(f"citeproof: manuscript page written to {page}.", err=True)
    if log_error is not None:
        raise log_error
    click.get_current_context().exit(audit_exit_code(report.verdict))


def _inside(path: str, folder: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is in ``folder`` or below it, links and ``..`` resolved."""
    where, root = os.path.realpath(path), os.path.realpath(folder)
    return os.path.commonpath([where, root]) == root


def _check_page_path(
    path: str, source: str, sources: str | None, log_path: str | None, overwrite: bool
) -> None:
    """Refuse a --html path the page must not be written to, before the manuscript is read.

    The rule every command that writes a file follows (``refuse_to_replace``): never over
    the manuscript or the evidence log (by any name), never over a folder or into one that
    is not there, over an existing file only with --overwrite unless it is an earlier
    manuscript page.  A manuscript can be a folder too, so its inputs are folders' files:
    a file of the LaTeX folder the run reads (a ``.tex`` file's own folder included) is
    never replaced, even with --overwrite, and nothing is written into --sources, whose
    every file is read as a copy of a cited work (the page would be one on the next run).
    """
    from citeproof.audit.run import audit_log_path
    from citeproof.cli._common import refuse_to_replace
    from citeproof.errors import BadInputError
    from citeproof.report.page import is_manuscript_page

    if sources is not None and _inside(path, sources):
        raise BadInputError(
            f"the --html page {path} is inside the --sources folder {sources}, whose files are "
            "read as copies of the cited works; write it elsewhere."
        )
    folder = _folder_read(source)
    if (
        folder is not None
        and _inside(path, folder)
        and os.path.isfile(path)
        and os.path.getsize(path) > 0
        and not is_manuscript_page(path)
    ):
        raise BadInputError(
            f"the --html page {path} is a file of the manuscript's folder {folder}: writing "
            "there could erase a source; give another file name."
        )
    log = os.fspath(audit_log_path(log_path))  # kept off even with --no-log: it is a record
    refuse_to_replace(
        path,
        inputs=(source, log),
        overwrite=overwrite,
        ours=is_manuscript_page,
        what="the --html page",
    )
    parent = os.path.dirname(path) or "."
    if not os.path.isdir(parent):
        raise BadInputError(
            f"the folder of the --html page, {parent}, does not exist; create it or give "
            "another path."
        )


def _folder_read(source: str) -> str | None:
    """The folder whose files the run reads: a LaTeX folder, or a ``.tex`` file's own."""
    if source == "-":
        return None
    if os.path.isdir(source):
        return source
    if source.lower().endswith((".tex", ".ltx", ".latex")):
        return os.path.dirname(source) or "."
    return None


@manuscript.command(
    "verify",
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="Exit codes: 0 the signature is valid; 1 it is not (or the report is unsigned); "
    "2 usage or bad input.\n\n"
    "\b\nExamples:\n"
    "  citeproof manuscript paper.docx --json > report.json\n"
    "  citeproof manuscript verify report.json\n"
    "  citeproof manuscript verify report.json --key signer.pub    # signed elsewhere",
)
@click.argument("report_path", metavar="REPORT")
@key_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def verify(report_path: str, public_key: str | None, as_json: bool) -> None:
    """Check the signature of a manuscript REPORT (a file, or '-' for stdin).

    Anyone holding the signer's public key can check that no verdict, finding or count was
    changed after the manuscript was checked.
    """
    from citeproof.service.manuscripts import load_manuscript_report

    verify_signed(report_path, public_key, as_json, load_manuscript_report, "manuscript")


# ------------------------------------------------------------------------------ rendering

_VERDICT_STYLE = {
    "pass": "bold green",
    "warn": "bold yellow",
    "fail": "bold red",
    "incomplete": "bold magenta",
}
_FINDING_STYLE = {
    "ok": "green",
    "near_quote": "yellow",
    "unchecked": "magenta",
    "unattributed": "yellow",
    "misquote": "bold red",
}
_REFERENCE_STYLE = {
    "verified": "green",
    "ambiguous": "yellow",
    "partial": "yellow",
    "unavailable": "magenta",
    "unchecked": "blue",
}


def _short(text: str, limit: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def render_manuscript(report: ManuscriptReport, console: Any = None) -> None:
    """The report for a person at a terminal: the verdict, then the problems (each with
    what to look at), then every quotation and reference, then the counts."""
    from rich.console import Console
    from rich.text import Text

    out: Console = console or Console(highlight=False)
    info = report.manuscript
    head = Text("manuscript: ")
    head.append(report.verdict.upper(), style=_VERDICT_STYLE[report.verdict])
    head.append(f"  {info.name or 'standard input'} ({info.format})")
    out.print(head)
    refs = {r.id: r for r in report.references}
    _print_problems(out, report, refs)
    _print_quotations(out, report)
    _print_references(out, report, refs)
    _print_reading(out, report)
    _print_counts(out, report)


_Problem = tuple[str, str, str, str]
"""(the finding's name, its style, what it is, the detail to look at)."""
_Refs = Mapping[str, "ManuscriptReference"]


def _label(refs: _Refs, entry_id: str) -> str:
    """An entry as the manuscript prints it (``[3]``), else by its id."""
    r = refs.get(entry_id)
    label = r.label if r is not None and r.label else entry_id
    return f"[{label}]"


def _quotation_problems(report: ManuscriptReport, refs: _Refs) -> list[_Problem]:
    """Each quotation not found as written: where it is, what it cites, why."""
    problems: list[_Problem] = []
    for q in report.quotations:
        if q.finding != "ok":
            cited = " ".join(_label(refs, e) for e in q.entry_ids)
            where = f" in {' > '.join(q.section)}" if q.section else ""
            problems.append(
                (
                    q.finding,
                    _FINDING_STYLE[q.finding],
                    f"quotation {q.index + 1}{where} {cited}: {q.verdict} ({q.finding})",
                    f"“{_short(q.text, 80)}” — {q.reason or ''}",
                )
            )
    return problems


def _reference_problems(report: ManuscriptReport, refs: _Refs) -> list[_Problem]:
    """Each reference the databases did not confirm, and each cited work retracted or
    under concern (one the manuscript says is retracted fails nothing)."""
    problems: list[_Problem] = []
    for r in report.references:
        res = r.result
        if res is not None and res.verdict not in ("verified", "unchecked", "ambiguous"):
            problems.append(
                (
                    res.verdict,
                    _REFERENCE_STYLE.get(res.verdict, "bold red"),
                    f"reference {_label(refs, r.id)}: {res.verdict}",
                    f"{_short(r.text, 70)} — {_short(res.reason, 320)}",
                )
            )
    for w in report.retracted:
        said = " (the manuscript says so)" if w.acknowledged else ""
        name = "" if w.acknowledged else ("retracted" if w.status == "RETRACTED" else "concern")
        problems.append(
            (
                name,
                "yellow" if w.acknowledged else "bold red",
                f"cited work {_label(refs, w.entry_id)} {w.status.lower()}{said}",
                f"{w.identifier}: {w.reason or ''}",
            )
        )
    return problems


def _list_problems(report: ManuscriptReport, refs: _Refs) -> list[_Problem]:
    """The citations that name no entry, and the entries no citation names."""
    problems: list[_Problem] = [
        (
            "unlinked",
            "yellow",
            f"citation {u.marker} names no entry",
            f"{u.target}: {u.reason or 'no entry'}",
        )
        for u in report.unlinked
    ]
    for entry_id in report.uncited:
        text = refs[entry_id].text if entry_id in refs else ""
        problems.append(
            (
                "uncited",
                "yellow",
                f"entry {_label(refs, entry_id)} is never cited",
                _short(text, 90),
            )
        )
    return problems


def _print_problems(out: Console, report: ManuscriptReport, refs: _Refs) -> None:
    from rich.text import Text

    problems = (
        _quotation_problems(report, refs)
        + _reference_problems(report, refs)
        + _list_problems(report, refs)
    )
    failing = set(report.fail_on)
    problems.sort(key=lambda p: p[0] not in failing)  # what fails the manuscript first
    if problems:
        out.print(Text("\nProblems", style="bold"))
        for _, style, what, detail in problems:
            line = Text("  ")
            line.append(what, style=style)
            out.print(line)
            out.print(Text(f"      {detail}", style="dim"))


def _print_quotations(out: Console, report: ManuscriptReport) -> None:
    from rich.text import Text

    if report.quotations:
        out.print(Text("\nQuotations", style="bold"))
    for q in report.quotations:
        line = Text(f"  {q.index + 1}. ")
        line.append(q.verdict, style=_FINDING_STYLE[q.finding])
        against = q.against
        if against is not None:
            shown = against.file if against.kind == "file" else against.identifier
            line.append(f"  against {shown}", style="dim")
        line.append(f"  “{_short(q.text, 70)}”")
        out.print(line)


def _print_references(out: Console, report: ManuscriptReport, refs: _Refs) -> None:
    from rich.text import Text

    if report.references:
        out.print(Text("\nReferences", style="bold"))
    for r in report.references:
        verdict = r.result.verdict if r.result is not None else "not verified"
        line = Text(f"  {_label(refs, r.id)} ")
        line.append(verdict, style=_REFERENCE_STYLE.get(verdict, "bold red"))
        line.append(f"  {_short(r.text, 70)}  (cited {len(r.cited_by)}×)")
        out.print(line)


def _print_reading(out: Console, report: ManuscriptReport) -> None:
    """What the reader met (the first 20), and the limits the run reached."""
    from rich.text import Text

    if report.problems:
        out.print(Text("\nReading", style="bold"))
    for p in report.problems[:20]:
        out.print(Text(f"  {p.code}: {_short(p.message, 120)}", style="dim"))
    for note in report.notes:
        out.print(Text(f"\nnote: {note}", style="yellow"))


def _print_counts(out: Console, report: ManuscriptReport) -> None:
    from rich.text import Text

    c = report.counts
    verified = c.by_reference_verdict.get("verified", 0)
    out.print(
        f"\n{c.references} references ({verified} verified), {c.citations} citations "
        f"({c.unlinked} naming no entry), {c.uncited} entries never cited, {c.quotations} "
        f"quotations ({c.by_finding.get('ok', 0)} ok), {c.retracted} retracted works cited"
    )
    signed = report.signature.key_id if report.signature is not None else "not signed"
    out.print(Text(f"signed: {signed}", style="dim"))
