"""``citeproof search`` and ``citeproof citing``: recorded literature searches.

Module level imports click only, so ``citeproof --help`` stays fast; the search machinery
(pydantic, httpx2, rich) is imported when a command runs.  Exit codes: 0 when the engine
answered (with hits or none), 3 when it could not be read (the record says why), 2 for bad
input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, json_output, log_options, replay_option
from citeproof.errors import ExitCode

if TYPE_CHECKING:
    from citeproof.models.search import SearchRecord

ENGINES = ("europepmc", "pubmed", "litsense", "openalex", "clinicaltrials", "openfda")
EXIT_CODES = (
    "Exit codes: 0 the engine answered (hits or none); 2 bad input; 3 the engine could not be read."
)

_json = json_output("the record")
_offline = click.option(
    "--offline", is_flag=True, help="Refuse to search (exit 3): a search always needs the network."
)
_cursor = click.option(
    "--cursor", metavar="C", help="Continue a search: the next_cursor a previous one printed."
)


_limit = click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=25,
    show_default=True,
    help="Most items to return (each engine has its own maximum).",
)


def _finish(record: SearchRecord, as_json: bool, log_path: str | None) -> None:
    """Record the search (``log_path`` None: not at all; "": the default log), then print."""
    from citeproof.cli import _common
    from citeproof.errors import CiteproofError

    log_error = None
    if log_path is not None:
        from citeproof.service.logbook import open_log, record_search

        try:
            record = record_search(record, open_log(log_path or None))
        except CiteproofError as err:  # the record is still shown; then the log's problem
            log_error = err
    _common.show(record, as_json, _render)
    if log_error is not None:
        raise log_error
    click.get_current_context().exit(
        ExitCode.UNAVAILABLE if record.status == "failed" else ExitCode.OK
    )


def _render(record: SearchRecord) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    hits = "?" if record.hit_count is None else str(record.hit_count)
    console.print(
        f"[bold]{record.engine}[/bold] {record.query!r}: {record.status}, "
        f"{len(record.items)} shown of {hits}",
        highlight=False,
    )
    if record.reason:
        console.print(record.reason, highlight=False)
    if record.items:
        table = Table(show_lines=False)
        table.add_column("#", justify="right")
        table.add_column("id", no_wrap=True)
        table.add_column("year")
        table.add_column("title / sentence")
        for number, item in enumerate(record.items, 1):
            title = item.title or (item.text or "").strip()
            table.add_row(str(number), item.id, str(item.year or ""), title)
        console.print(table)
    if record.next_cursor:
        console.print(f"next: --cursor {record.next_cursor}", highlight=False)


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Search a literature database and record what it answered.",
    epilog=epilog(
        'citeproof search europepmc "melatonin sleep onset" --since 2020 --limit 10',
        'citeproof search litsense "walking improved sleep quality in older adults" --json',
        exit_codes=EXIT_CODES,
    ),
)
@click.argument("engine", metavar="ENGINE", type=click.Choice(ENGINES, case_sensitive=False))
@click.argument("query")
@_limit
@_cursor
@click.option(
    "--since", metavar="DATE", help="Published on or after DATE (YYYY, YYYY-MM, YYYY-MM-DD)."
)
@click.option("--until", metavar="DATE", help="Published on or before DATE (inclusive).")
@_json
@_offline
@replay_option
@log_options("this search")
def search(
    engine: str,
    query: str,
    limit: int,
    cursor: str | None,
    since: str | None,
    until: str | None,
    as_json: bool,
    offline: bool,
    replay: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    """Search ENGINE for QUERY and print the record of the search.

    ENGINE is europepmc, pubmed, litsense (sentences), openalex, clinicaltrials or openfda
    (a drug name, or openFDA search syntax such as openfda.brand_name:"x"). The record
    (schema citeproof.search/1) names the endpoint, the parameters sent, the sha256 of every
    response read, the hit count and the items; a search that failed says why.
    """
    from pathlib import Path

    from citeproof.service.lookups import search_sync

    record = search_sync(
        engine,
        query,
        limit=limit,
        cursor=cursor,
        since=since,
        until=until,
        replay_dir=Path(replay) if replay else None,
        offline=offline,
    )
    _finish(record, as_json, None if no_log else log_path or "")


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="List the works that cite a work (OpenAlex).",
    epilog=epilog(
        "citeproof citing 10.1371/journal.pone.0340378 --limit 50",
        "citeproof citing PMC3166277 --json > citing.json",
        exit_codes=EXIT_CODES,
    ),
)
@click.argument("ident", metavar="IDENT")
@_limit
@_cursor
@_json
@_offline
@replay_option
@log_options("this search")
def citing(
    ident: str,
    limit: int,
    cursor: str | None,
    as_json: bool,
    offline: bool,
    replay: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    """List the works OpenAlex records as citing IDENT (a DOI, PMID, PMCID or W id)."""
    from pathlib import Path

    from citeproof.service.lookups import citing_sync

    record = citing_sync(
        ident,
        limit=limit,
        cursor=cursor,
        replay_dir=Path(replay) if replay else None,
        offline=offline,
    )
    _finish(record, as_json, None if no_log else log_path or "")
