"""``citeproof check``: does this quote occur in this source?

Module level imports click only: ``citeproof --help`` imports this module to list the
command's one-line help, and must stay fast.  A check of a local file must stay fast too
(``bench/bench_startup.py``): its JSON is printed from the pipeline's plain result
(``Checked.json``) or rendered from it, so pydantic is imported only when a step after
the match needed the model (an identifier's retraction status, find-source).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, json_output, log_options, replay_option
from citeproof.errors import ExitCode, check_exit_code

if TYPE_CHECKING:
    from citeproof.models import CheckResult
    from citeproof.models.plain import CheckResult as PlainResult

PROFILES = ("t1", "t1+dehyphen")  # == service.PROFILES (a test keeps them equal)


def _split_args(args: tuple[str, ...], quote_file: str | None) -> tuple[str | None, str]:
    """QUOTE is optional when --quote-file gives it, so the positionals are sorted out here."""
    if quote_file is not None:
        if len(args) == 2:
            raise click.UsageError("give the quote as an argument or with --quote-file, not both.")
        if len(args) != 1:
            raise click.UsageError("with --quote-file, give exactly one SOURCE.")
        return None, args[0]
    if len(args) > 2:
        raise click.UsageError(
            f"expected QUOTE and SOURCE, got {len(args)} arguments; put a quote of several "
            "words in quotes (a quote that starts with '-' goes after '--')."
        )
    if len(args) != 2:
        missing = "QUOTE and SOURCE" if not args else "SOURCE"
        raise click.UsageError(f"missing {missing}.")
    return args[0], args[1]


#: The retraction statuses ``--fail-on-retracted`` fails on (as ``retraction_exit_code``).
FAILING_STATUSES = frozenset({"RETRACTED", "CONCERN"})

EPILOG = epilog(
    'citeproof check "fell asleep faster than those in the control group" paper.pdf',
    'citeproof check --fail-on-retracted "the quoted words" 10.1371/journal.pone.0340378',
    "citeproof check --quote-file quote.txt PMC3166277 --json > result.json",
    exit_codes="Exit codes: 0 EXACT; 1 NEAR, NOT_FOUND, TOO_SHORT or NOT_CHECKABLE (and, with "
    "--fail-on-retracted, a RETRACTED or CONCERN work); 2 usage or bad input; 3 UNAVAILABLE. "
    "A quote that starts with '-' goes after '--'.",
)


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Check that a quote occurs in a source document.",
    epilog=EPILOG,
)
@click.argument("args", nargs=-1, metavar="QUOTE SOURCE")
@click.option(
    "--quote-file",
    metavar="FILE",
    help="Read the quote from FILE ('-' for stdin) instead of the QUOTE argument.",
)
@json_output("the result")
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default="t1",
    show_default=True,
    help="Normalisation profile; t1+dehyphen also joins words split across lines.",
)
@click.option(
    "--near-threshold",
    type=click.FloatRange(0, 1, min_open=True),
    default=None,
    metavar="FLOAT",
    help="Lowest similarity reported as NEAR.  [default: 0.90]",
)
@click.option(
    "--max-gap",
    type=click.IntRange(min=0),
    default=None,
    metavar="INT",
    help="Most characters an ellipsis may skip between two fragments.  [default: 3000]",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Never fetch: an identifier is checked against its pinned copy in the cache only.",
)
@click.option(
    "--refresh",
    is_flag=True,
    help="Fetch an identifier again even when it is pinned, and pin the new bytes.",
)
@replay_option
@click.option(
    "--expect-sha256",
    metavar="HEX",
    help="Check only against bytes with this sha256; a mismatch is NOT_CHECKABLE (exit 1).",
)
@click.option(
    "--find-source",
    is_flag=True,
    help="On NOT_FOUND or NEAR, look for the words in every cached document, then with Europe "
    "PMC and LitSense; report only documents the matcher verifies.",
)
@click.option(
    "--no-retraction",
    is_flag=True,
    help="Do not ask for the cited work's retraction status (asked for DOI, PMID and PMCID "
    "sources by default).",
)
@click.option(
    "--fail-on-retracted",
    is_flag=True,
    help="Exit 1 when the cited work is RETRACTED or under an expression of CONCERN, "
    "whatever the verdict (so `check ... && publish` stops).",
)
@log_options("this check")
def check(
    args: tuple[str, ...],
    quote_file: str | None,
    as_json: bool,
    profile: str,
    near_threshold: float | None,
    max_gap: int | None,
    offline: bool,
    refresh: bool,
    replay: str | None,
    expect_sha256: str | None,
    find_source: bool,
    no_retraction: bool,
    fail_on_retracted: bool,
    no_log: bool,
    log_path: str | None,
) -> None:
    """Check that QUOTE occurs in SOURCE and say where, or what differs.

    SOURCE is a JATS XML, HTML, PDF or text file, '-' for stdin, or an identifier: a DOI,
    PMID, PMCID, NCT number, openFDA set id, Europe PMC preprint (PPR) id or URL, fetched
    once and pinned in the cache so later checks read the same bytes. QUOTE is left out
    when --quote-file gives it. The result is printed as JSON (schema citeproof.check/1)
    with --json or when stdout is not a terminal, and as a readable report otherwise.
    """
    from citeproof.cli import _common
    from citeproof.service.inputs import validate_quote
    from citeproof.service.pipeline import CheckOptions, Pipeline

    quote, source = _split_args(args, quote_file)
    if fail_on_retracted and no_retraction:
        raise click.UsageError(
            "--fail-on-retracted needs the retraction status that --no-retraction turns "
            "off; drop one of them."
        )
    _common.refuse_double_stdin(quote_file, source)
    tuning: dict[str, Any] = {"profile": profile}
    if near_threshold is not None:
        tuning["near_threshold"] = near_threshold
    if max_gap is not None:
        tuning["max_gap"] = max_gap
    options = CheckOptions(
        **tuning,
        expect_sha256=expect_sha256,
        offline=offline,
        refresh=refresh,
        replay=replay,
        find_source=find_source,
        retraction=not no_retraction,
        log=not no_log,
        log_path=log_path,
    )
    if quote is None:
        assert quote_file is not None  # _split_args leaves QUOTE out only for --quote-file
        quote = _common.read_quote_file(quote_file)
    if source == "-":
        validate_quote(quote)  # before asking a person at a terminal for stdin (run does too)
    checked = Pipeline(options).run(
        quote, source, stdin=_common.stdin_bytes() if source == "-" else None
    )
    if _common.want_json(as_json):
        _common.write_json(checked.json())
    else:
        from citeproof.cli.render import render_check

        result, document = checked.outcome, checked.document  # plain when it can be
        closest = None
        asked = result.verdict == "NOT_FOUND" and result.near is None and document is not None
        if asked and document is not None:
            # What the source says instead, for a person: the closest passage below the
            # NEAR threshold (JSON keeps the contract: no `near` for a NOT_FOUND).
            from citeproof.service.reading import closest_wording

            closest = closest_wording(quote, document, options.match)
        render_check(result, checked.text, closest=closest, closest_asked=asked)
    if checked.log_error is not None:  # the result is still shown; then the log's problem
        raise checked.log_error
    click.get_current_context().exit(_exit_code(checked.outcome, fail_on_retracted))


def _exit_code(result: CheckResult | PlainResult, fail_on_retracted: bool) -> int:
    """The verdict's exit code; 1 instead with --fail-on-retracted and a retracted work."""
    retraction = result.retraction
    if fail_on_retracted and retraction is not None and retraction.status in FAILING_STATUSES:
        return ExitCode.NEGATIVE
    return check_exit_code(result.verdict)
