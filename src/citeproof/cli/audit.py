"""``citeproof audit ANSWER`` and ``citeproof audit verify REPORT``.

Why a group with a default command: ``audit ANSWER`` is what people type, and ``audit verify``
belongs beside it.  :class:`AuditGroup` sends every invocation whose first word is not a
subcommand (``verify``) to the hidden ``run`` command, so both read naturally.  The price:
an answer file literally named ``verify`` must be given as ``./verify``.
``citeproof audit --help`` shows the audit's own options.

Module level imports click only: ``citeproof --help`` imports this module.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from citeproof.cli.options import json_output, log_options, replay_option
from citeproof.errors import audit_exit_code

if TYPE_CHECKING:
    from citeproof.models.audit import AuditReport

__all__ = ["AuditGroup", "DefaultCommand", "audit", "key_option", "verify_signed"]

_DEFAULT = "run"


#: ``verify``'s ``--key``, shared by ``citeproof audit verify`` and ``manuscript verify``.
key_option = click.option(
    "--key",
    "public_key",
    metavar="PUB",
    help="The signer's public key (NAME+HASH+KEY, as `citeproof log key` prints it) or a "
    "file holding it. [default: this machine's own log key]",
)


class AuditGroup(click.Group):
    """A group whose first argument, when not a subcommand, is the default command's."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] not in self.commands or args[0] == _DEFAULT:
            args = [_DEFAULT, *args]
        return super().parse_args(ctx, args)


@click.group(
    cls=AuditGroup,
    short_help="Audit a whole AI answer, citation by citation.",
    context_settings={"help_option_names": []},
)
def audit() -> None:
    """Audit an answer (`citeproof audit ANSWER`) or verify a report (`audit verify`)."""


class DefaultCommand(click.Command):
    """A group's default command, whose usage line reads as the group's
    (``citeproof audit [OPTIONS] ANSWER``)."""

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        path = ctx.parent.command_path if ctx.parent is not None else ctx.command_path
        formatter.write_usage(path, " ".join(self.collect_usage_pieces(ctx)))


@audit.command(
    _DEFAULT,
    cls=DefaultCommand,
    hidden=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Exit codes: 0 pass or warn; 1 fail; 2 usage or bad input (an empty answer, an "
    "--html FILE that is an input or a file citeproof did not write; with --batch, an output "
    "that would lose lines, or no line that could be audited); 3 incomplete (a source was "
    "unavailable); 130 interrupted (--batch: --resume goes on). "
    "`citeproof audit verify REPORT [--key PUB]` checks a report's signature. An answer file "
    "named 'verify' is given as ./verify.\n\n"
    "\b\nExamples:\n"
    "  citeproof audit answer.md\n"
    "  citeproof audit answer.md --json --html report.html > report.json\n"
    "  citeproof audit --batch answers.jsonl -o reports.jsonl --resume",
)
@click.argument("answer", metavar="ANSWER")
@json_output("the report")
@click.option(
    "--format",
    "input_format",
    type=click.Choice(["auto", "markdown", "json"]),
    default="auto",
    show_default=True,
    help='How to read ANSWER: Markdown/plain text, or JSON claims ({"claims": [...]}).',
)
@click.option(
    "--offline",
    is_flag=True,
    help="Never fetch: read cited works from the cache "
    "only (a work that is not pinned is unavailable).",
)
@replay_option
@click.option(
    "--no-retraction", is_flag=True, help="Do not ask for the cited works' retraction status."
)
@click.option(
    "--no-references",
    is_flag=True,
    help="Do not verify the reference list's entries against the scholarly record.",
)
@click.option(
    "--fail-on",
    metavar="LIST",
    help="Comma list of citation verdicts and flags that fail the audit (also 'uncited'). "
    "[default: forged,malformed,unresolvable,mismatch,misquote,retracted]",
)
@click.option(
    "--find-source",
    is_flag=True,
    help="For a quote not found (or NEAR), look for "
    "its words in other documents and flag found_elsewhere.",
)
@click.option(
    "--html",
    "html_path",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Also write the audit as one self-contained web page to FILE.",
)
@click.option("--open", "open_page", is_flag=True, help="Open the --html page in a browser.")
@click.option(
    "--batch",
    is_flag=True,
    help="ANSWER is a JSONL file of {id?, answer, format?}: "
    "audit every line, one report line each.",
)
@click.option(
    "-o",
    "--output",
    default="-",
    metavar="FILE",
    help="With --batch: where the report lines go ('-': stdout).",
)
@click.option("--resume", is_flag=True, help="With --batch: skip the ids already in --output.")
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace an existing file at --html FILE, or "
    "with --batch what --output holds (an earlier audit page is replaced without it; "
    "an input never is).",
)
@click.option(
    "--workers", type=click.IntRange(min=1), help="With --batch: worker processes (default: cores)."
)
@log_options("this audit")
def run(
    answer: str,
    as_json: bool,
    input_format: str,
    offline: bool,
    replay: str | None,
    no_retraction: bool,
    no_references: bool,
    fail_on: str | None,
    find_source: bool,
    html_path: str | None,
    open_page: bool,
    batch: bool,
    output: str,
    resume: bool,
    overwrite: bool,
    workers: int | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    """Audit ANSWER (a Markdown or text file, JSON claims, or '-' for stdin).

    Every citation (passage handles, [PMID 123], [PMC123], (doi:10...), URLs, numbered
    citations with a reference list) gets a verdict: malformed, forged, unresolvable,
    mismatch, unavailable, withdrawn, misquote, near_quote or ok; every quote is checked
    against the cited source, and every reference-list entry against the scholarly record.
    The report (schema citeproof.audit/1) is signed with the log key. A citation without a
    quote is ok when the work exists: citeproof never judges whether a source supports a
    claim.
    """
    from citeproof.audit.run import audit_answer, record_audit
    from citeproof.audit.verdicts import parse_fail_on
    from citeproof.cli import _common

    ctx = click.get_current_context()
    refuse_unused_options(ctx, batch=batch, html=html_path is not None)
    if batch:
        _run_batch(
            answer,
            output,
            resume,
            overwrite,
            workers,
            offline,
            replay,
            not no_retraction,
            fail_on,
            html_path,
        )
        return
    if open_page and html_path is None:
        from citeproof.errors import BadInputError

        raise BadInputError("--open opens the --html page; give --html FILE too.")
    failing = parse_fail_on(fail_on)
    if html_path is not None:  # before any work: an audit must not run only to be refused
        _check_page_path(html_path, answer, log_path, overwrite)
    text = read_answer(answer)
    report = audit_answer(
        text,
        input_format=input_format,  # type: ignore[arg-type]  # click.Choice checked it
        offline=offline,
        replay=replay,
        retraction=not no_retraction,
        fail_on=failing,
        find_source=find_source,
        references=not no_references,
    )
    seq, log_error = (None, None) if no_log else record_audit(report, log_path)
    _common.show(report, as_json, render_audit)
    if seq is not None:
        click.echo(f"citeproof: audit recorded as log entry {seq}.", err=True)
    if html_path is not None:
        from citeproof.report.page import write_audit_html

        shown = "standard input" if answer == "-" else os.path.basename(answer)
        page = write_audit_html(report.model_dump(mode="json"), text, html_path, source_name=shown)
        click.echo(f"citeproof: audit page written to {page}.", err=True)
        if open_page:
            import webbrowser

            webbrowser.open(page.resolve().as_uri())
    if log_error is not None:  # the report is still shown; then the log's problem
        raise log_error
    click.get_current_context().exit(audit_exit_code(report.verdict))


#: Options that only a batch uses, and options a batch does not use (with what to do
#: instead), so that neither kind of run silently ignores what the user typed.
_BATCH_ONLY: tuple[tuple[str, str], ...] = (
    ("output", "-o/--output"),
    ("resume", "--resume"),
    ("workers", "--workers"),
)
_NOT_IN_BATCH: tuple[tuple[str, str, str], ...] = (
    ("input_format", "--format", 'give each line its own "format"'),
    ("find_source", "--find-source", "leave it out"),
    ("no_references", "--no-references", "leave it out"),
    ("log_path", "--log", "a batch records nothing in the evidence log; leave it out"),
    ("open_page", "--open", "leave it out"),
)


def refuse_unused_options(ctx: click.Context, *, batch: bool, html: bool) -> None:
    """Refuse an option the run would ignore: ``-o out.jsonl`` without ``--batch`` used to
    audit one answer to the terminal and write nothing where the user looked for it."""
    from click.core import ParameterSource

    def given(name: str) -> bool:
        return ctx.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)

    if batch:
        for name, flag, instead in _NOT_IN_BATCH:
            if given(name):
                raise click.BadOptionUsage(
                    flag, f"{flag} is for one answer's audit, not --batch: {instead}."
                )
        return
    for name, flag in _BATCH_ONLY:
        if given(name):
            raise click.BadOptionUsage(
                flag,
                f"{flag} goes with --batch (ANSWER a JSONL file of answers); add --batch, "
                "or leave it out.",
            )
    if given("overwrite") and not html:
        raise click.BadOptionUsage(
            "--overwrite",
            "--overwrite replaces the file --html FILE names (or, with --batch, --output); "
            "give one of them, or leave it out.",
        )


def _check_page_path(path: str, answer: str, log_path: str | None, overwrite: bool) -> None:
    """Refuse a --html path the page must not be written to, before the audit runs: the
    answer or the evidence log itself (``--log``, else the default one), a folder, a folder
    that is not there, or a file of the user's (an earlier audit page is the run's own, and is
    replaced)."""
    from citeproof.audit.run import audit_log_path
    from citeproof.cli._common import refuse_to_replace
    from citeproof.errors import BadInputError
    from citeproof.report.page import is_audit_page

    log = os.fspath(audit_log_path(log_path))  # kept off even with --no-log: it is a record
    refuse_to_replace(
        path, inputs=(answer, log), overwrite=overwrite, ours=is_audit_page, what="the --html page"
    )
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise BadInputError(
            f"the folder of the --html page, {folder}, does not exist; create it or give "
            "another path."
        )


def _run_batch(
    answer: str,
    output: str,
    resume: bool,
    overwrite: bool,
    workers: int | None,
    offline: bool,
    replay: str | None,
    retraction: bool,
    fail_on: str | None,
    html_path: str | None,
) -> None:
    """``--batch``: every line of the JSONL file ANSWER, one report line each, in order."""
    from citeproof.audit.verdicts import parse_fail_on
    from citeproof.batch.audits import audit_lines
    from citeproof.batch.driver import LineBatch, Work, refuse_request
    from citeproof.batch.jsonl import read_lines
    from citeproof.cli._common import stdout_bytes
    from citeproof.cli.batch import ended
    from citeproof.errors import BadInputError

    if html_path is not None:
        raise BadInputError("--html makes one page for one answer; it cannot go with --batch.")
    refuse_request(resume=resume, to_file=output != "-", input_path=answer)
    failing = parse_fail_on(fail_on)
    job = LineBatch(
        answer,
        output,
        Work("audit", "answer", "{id?, answer, format?}", "error"),
        resume=resume,
        overwrite=overwrite,
        stdout=stdout_bytes() if output == "-" else None,
    )
    reports = audit_lines(
        read_lines(job.input),
        workers=workers or os.cpu_count() or 1,
        offline=offline,
        replay=replay,
        retraction=retraction,
        fail_on=failing,
        skip=job.done,
    )
    ending = job.drive(reports)
    ended(job, ending)
    verdicts = ending.counts
    parts = ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())) or "nothing"
    click.echo(
        f"citeproof: {sum(verdicts.values())} answers audited in {ending.seconds:.1f} s: {parts}",
        err=True,
    )


def read_answer(path: str) -> str:
    """The answer in ``path`` ('-': stdin) as text, decoded as a source is (UTF-8, or
    UTF-16/32 named by a byte-order mark); never empty."""
    from citeproof import service
    from citeproof.audit.parse import MAX_ANSWER_BYTES
    from citeproof.cli import _common
    from citeproof.errors import BadInputError, SourceTooLargeError

    give = "give the path of a Markdown, text or JSON claims file (or '-' to read stdin)."
    cap = MAX_ANSWER_BYTES + 3
    where = "standard input" if path == "-" else path
    if path == "-":  # read here, so that a piped manuscript is recognised whatever its size
        data = _common.stdin_bytes("the answer").read(cap + 1)
        refuse_manuscript(path, data)
        if len(data) > cap:
            raise BadInputError(
                f"the answer is over {MAX_ANSWER_BYTES:,} bytes; audit it in parts."
            )
    else:
        refuse_manuscript(path, None)
        try:
            data = _common.read_input(path, "the answer", give, max_bytes=cap)
        except SourceTooLargeError:
            raise BadInputError(
                f"the answer is over {MAX_ANSWER_BYTES:,} bytes; audit it in parts."
            ) from None
    text = service.decode_text(data, what=f"answer in {where}")
    if not text.strip():  # an empty answer has nothing to pass: it is not an audit that passed
        raise BadInputError(f"the answer in {where} is empty; there is nothing to audit.")
    return text


def refuse_manuscript(path: str, data: bytes | None) -> None:
    """Refuse, in one line naming ``citeproof manuscript``, a manuscript given as an answer:
    a PDF used to be read as text and refused as "not valid UTF-8", and a paper's text was
    audited as an answer.  ``data`` is standard input's bytes; a file's head is read here."""
    from citeproof.errors import BadInputError
    from citeproof.service.manuscripts import folder_is_manuscript, manuscript_kind

    if path == "-":
        kind = manuscript_kind(data or b"")
    elif os.path.isdir(path):
        kind = "a LaTeX manuscript's folder" if folder_is_manuscript(path) else None
    else:
        try:
            with open(path, "rb") as handle:
                head = handle.read(1 << 20)
        except OSError:
            return  # reading the answer says what is wrong, as it always did
        kind = manuscript_kind(head, name=os.path.basename(path))
    if kind is None:
        return
    if path == "-":
        raise BadInputError(
            f"standard input holds {kind}, not an AI answer; check a manuscript with "
            "`citeproof manuscript -` (or give its file)."
        )
    raise BadInputError(
        f"{path} is {kind}, not an AI answer; check a manuscript with "
        f"`citeproof manuscript {path}`."
    )


@audit.command(
    "verify",
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Exit codes: 0 the signature is valid; 1 it is not (or the report is unsigned); "
    "2 usage or bad input.\n\n"
    "\b\nExamples:\n"
    "  citeproof audit answer.md --json > report.json\n"
    "  citeproof audit verify report.json\n"
    "  citeproof audit verify report.json --key signer.pub    # a report signed elsewhere",
)
@click.argument("report_path", metavar="REPORT")
@key_option
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def verify(report_path: str, public_key: str | None, as_json: bool) -> None:
    """Check the signature of an audit REPORT (a file, or '-' for stdin).

    Anyone holding the signer's public key can check that no verdict, flag or count was
    changed after the audit ran.
    """
    from citeproof.audit.signing import load_report_json

    verify_signed(report_path, public_key, as_json, load_report_json, "audit")


def verify_signed(
    report_path: str,
    public_key: str | None,
    as_json: bool,
    load: Callable[[bytes], dict[str, Any]],
    what: str,
) -> None:
    """``verify``'s work for a signed report of kind ``what`` (``audit``, ``manuscript``),
    read by ``load``: check the signature, print the result, exit 0 when it is valid."""
    from citeproof.cli import _common
    from citeproof.service.signatures import verifier_for, verify_report

    give = f"give the file `citeproof {what} --json` wrote (or '-' to read stdin)."
    data = load(_common.read_input(report_path, "the report", give))
    result = verify_report(data, verifier_for(public_key))
    if as_json:
        _common.write_json(
            {
                "valid": result.valid,
                "reason": result.reason,
                "key_id": result.key_id,
                "verdict": result.verdict,
            }
        )
    else:
        state = "valid" if result.valid else "INVALID"
        click.echo(f"{state}: {result.reason}")
        if result.valid and result.verdict is not None:
            click.echo(f"signed by {result.key_id}; {what} verdict: {result.verdict}")
    click.get_current_context().exit(0 if result.valid else 1)


# ------------------------------------------------------------------------------ rendering

_VERDICT_STYLE = {
    "pass": "bold green",
    "warn": "bold yellow",
    "fail": "bold red",
    "incomplete": "bold magenta",
}
_STATUS_STYLE = {
    "cited_ok": "green",
    "cited_problem": "red",
    "uncited": "yellow",
    "not_a_claim": "dim",
}
_CITATION_STYLE = {
    "ok": "green",
    "near_quote": "yellow",
    "withdrawn": "yellow",
    "unavailable": "magenta",
}


def render_audit(report: AuditReport, console: Any = None) -> None:
    """The report for a person at a terminal: the verdict, the counts, then each sentence
    that is a claim or has citations, with every citation's verdict and reason."""
    from rich.console import Console
    from rich.text import Text

    out: Console = console or Console(highlight=False)
    m = report.metrics
    head = Text("audit: ")
    head.append(report.verdict.upper(), style=_VERDICT_STYLE[report.verdict])
    out.print(head)
    counts = ", ".join(f"{n} {v}" for v, n in m.by_verdict.items() if n)
    out.print(
        f"{m.citations} citations ({counts or 'none'}); {m.cited_claims}/{m.claims} claims "
        f"cited; {m.quotes_ok}/{m.quotes} quotes ok; {m.fabricated} fabricated; "
        f"{m.retracted_cited} retracted works cited"
    )
    for s in report.sentences:
        if s.status == "not_a_claim" and not s.citations:
            continue
        line = Text(f"\n[{s.index}] ")
        line.append(s.status, style=_STATUS_STYLE[s.status])
        line.append("  " + " ".join(s.text.split())[:200])
        out.print(line)
        if s.error:
            out.print(Text(f"    {s.error}", style="red"))
        for c in s.citations:
            row = Text("    ")
            row.append(c.verdict, style=_CITATION_STYLE.get(c.verdict, "bold red"))
            row.append(f"  {c.raw[:80]}")
            if c.flags:
                row.append(f"  [{', '.join(c.flags)}]", style="yellow")
            out.print(row)
            if c.reason:
                out.print(Text(f"      {c.reason}", style="dim"))
    signed = report.signature.key_id if report.signature is not None else "not signed"
    out.print(Text(f"\nsigned: {signed}", style="dim"))
