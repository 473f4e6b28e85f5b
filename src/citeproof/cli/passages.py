"""``citeproof passages``: the citable passages of a source, with handles, ranked by a query.

Module level imports click only (see ``citeproof.cli``); the work is done by
:func:`citeproof.service.lookups.passages_for`, so the CLI, the library and the MCP server
issue the same handles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, json_output, source_options

if TYPE_CHECKING:
    from citeproof.models.passages import PassageList

PREVIEW_CHARS = 160


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="List a source's passages with citation handles.",
    epilog=epilog(
        'citeproof passages PMC3166277 --query "sleep onset latency"',
        "citeproof passages paper.pdf -n 5 --json",
    ),
)
@click.argument("source")
@click.option("--query", "-q", metavar="Q", help="Rank passages by BM25 against these words.")
@click.option(
    "--limit",
    "-n",
    type=click.IntRange(1, 1000),
    default=20,
    show_default=True,
    help="Most passages to list.",
)
@json_output("the passages")
@source_options
def passages(
    source: str,
    query: str | None,
    limit: int,
    as_json: bool,
    offline: bool,
    refresh: bool,
    replay: str | None,
) -> None:
    """List the passages of SOURCE (paragraphs, captions, table rows, abstract sections).

    SOURCE is a file or an identifier (fetched and pinned as `citeproof check` does). With
    --query, passages sharing a word with the query are ranked by BM25, best first;
    without one they come in document order. Each passage of a PMID, PMCID, DOI, PPR, NCT
    or openFDA source gets a citation handle (scheme:id/path~code) that `citeproof audit`
    can verify; a local file's passages have none. JSON: schema citeproof.passages/1.
    """
    from citeproof.cli import _common
    from citeproof.service.lookups import passages_for

    if source == "-":
        raise click.UsageError("passages reads a file or an identifier, not standard input.")
    result = passages_for(
        source, query=query, limit=limit, offline=offline, refresh=refresh, replay=replay
    )
    _common.show(result, as_json, _render)


def _render(result: PassageList) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(highlight=False)
    source = result.source
    title = Text(source.identifier or source.input, style="bold")
    if source.title:
        title.append(f"  {source.title}", style="")
    console.print(title)
    shown = f"{len(result.passages)} of {result.total} passages"
    if result.query is not None:
        shown += " matching the query, best first"
    console.print(Text(shown, style="dim"))
    table = Table(show_lines=True)
    table.add_column("handle / path", overflow="fold")
    table.add_column("where", overflow="fold")
    table.add_column("text", overflow="fold", ratio=3)
    if result.query is not None:
        table.add_column("score", justify="right")
    for item in result.passages:
        where = " › ".join(item.section) or item.region
        if item.page is not None:
            where += f" · page {item.page}"
        flat = " ".join(item.text.split())
        if len(flat) > PREVIEW_CHARS:
            flat = flat[: PREVIEW_CHARS - 1] + "…"
        row = [Text(item.handle or item.path), Text(where), Text(flat)]
        if result.query is not None:
            row.append(Text(f"{item.score:.2f}" if item.score is not None else ""))
        table.add_row(*row)
    console.print(table)
    if result.passages and result.passages[0].handle is None:
        console.print(
            Text(
                "no handles: only PMID, PMCID, DOI, PPR, NCT and openFDA sources get them.",
                style="dim",
            )
        )
