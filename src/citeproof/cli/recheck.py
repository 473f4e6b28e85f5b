"""``citeproof recheck``: re-run the logged checks against fresh bytes; report what changed.

Module level imports click only (see ``citeproof.cli``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, log_options, replay_option

if TYPE_CHECKING:
    from citeproof.models.recheck import RecheckItem, RecheckReport


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Re-run the checks in the evidence log and report what changed.",
    epilog=epilog(
        "citeproof recheck",
        "citeproof recheck --since 2026-01-01 --json > recheck.json",
        exit_codes="Exit codes: 0 nothing changed; 1 a verdict changed, a quote moved, or a "
        "work was retracted since; 2 bad input; 3 some checks could not be re-run and nothing "
        "changed.",
    ),
)
@click.option(
    "--since",
    metavar="DATE",
    help="Only checks recorded at or after DATE (YYYY-MM-DD or an ISO 8601 time, UTC).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--offline", is_flag=True, help="Re-run against the pinned bytes; fetch nothing.")
@replay_option
@log_options("the re-runs")
def recheck(
    since: str | None,
    as_json: bool,
    offline: bool,
    replay: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    """Re-run every check recorded in the evidence log and say what changed.

    Each distinct check (quote, source, options) is re-run once, for its latest line: the
    source is fetched again (and the new bytes pinned), the quote checked with the options
    it was checked with, and the cited work's retraction status asked again. The report
    says, check by check, whether the bytes changed, whether the verdict changed or the
    quote moved, and whether a retraction or expression of concern appeared since. Each
    re-run is itself recorded (a check line with recheck_of) unless --no-log.
    """
    from citeproof.cli import _common
    from citeproof.service import logbook

    log = logbook.open_log(log_path)
    if not log.path.exists():
        from citeproof.errors import BadInputError

        raise BadInputError(
            f"there is no evidence log at {log.path}; run some checks first, or give --log."
        )
    cutoff = logbook.since_time(since) if since is not None else None
    items = list(
        logbook.recheck(log, since=cutoff, offline=offline, replay=replay, record=not no_log)
    )
    report = logbook.recheck_report(items, since)
    _common.show(report, as_json, _render)
    if report.changed:
        code = 1
    elif report.not_rechecked:
        code = 3
    else:
        code = 0
    click.get_current_context().exit(code)


def _render(report: RecheckReport) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    table = Table(box=None, show_edge=False)
    for column in ("seq", "source", "then", "now", "what changed"):
        table.add_column(column)
    for item in report.items:
        now = item.now.verdict if item.now is not None else "-"
        if item.now is not None and item.now.retraction:
            now += f" ({item.now.retraction})"
        then = item.then.verdict + (f" ({item.then.retraction})" if item.then.retraction else "")
        table.add_row(str(item.seq), item.source, then, now, _what(item))
    console.print(table)
    console.print(
        f"{report.rechecked} re-run, {report.changed} changed, "
        f"{report.not_rechecked} could not be re-run."
    )


def _what(item: RecheckItem) -> str:
    if item.state == "not_rechecked":
        return f"not re-run: {item.reason}"
    parts = []
    if item.verdict_changed:
        parts.append("verdict changed")
    if item.moved:
        parts.append("quote moved")
    if item.newly_retracted:
        parts.append("retracted or concern since")
    if item.bytes_changed:
        parts.append("bytes changed")
    return ", ".join(parts) or "unchanged"
