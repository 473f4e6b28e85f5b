"""``citeproof resolve IDENT``: what an identifier stands for, and who serves its text.

The same answer as the MCP tool ``resolve_identifier``, from the same door
(:func:`citeproof.service.reading.resolve_identifier`): the canonical key, the DOI, PMID and
PMCID, the service that served the text (full text, abstract or page), its version, sha256
and title; the bytes are fetched once and pinned, as ``citeproof check`` would read them.

Module level imports click only: ``citeproof --help`` imports this module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, json_option, replay_option
from citeproof.errors import resolve_exit_code

if TYPE_CHECKING:
    from citeproof.models.source import ResolvedSource

__all__ = ["resolve"]

EPILOG = epilog(
    "citeproof resolve 10.1371/journal.pone.0340378",
    "citeproof resolve PMID 27355798 --json",
    "citeproof resolve PMC12829825 --offline",
    exit_codes="Exit codes: 0 RESOLVED; 1 NOT_CHECKABLE (every source answered and none serves "
    "text); 2 a malformed identifier; 3 UNAVAILABLE (a source could not be read, or --offline "
    "and nothing is pinned).",
)


def _render(found: ResolvedSource) -> None:
    """The status, then one line per thing known: ids, who served what, the bytes."""
    click.echo(f"{found.key}: {found.status}")
    if found.reason:
        click.echo(f"  {found.reason}")
    ids = ", ".join(f"{k} {v}" for k, v in found.resolved.model_dump().items() if v)
    if ids:
        click.echo(f"  resolved:  {ids}")
    if found.served_by:
        served = [found.served_by]
        served += [found.coverage] if found.coverage else []
        served += [f"format {found.format}"] if found.format else []
        if found.version:
            served.append(f"version {found.version}")
        if found.total_chars is not None:
            served.append(f"{found.total_chars:,} characters")
        click.echo(f"  served by: {' · '.join(served)}")
    for label, value in (
        ("title", found.title),
        ("licence", found.licence),
        ("url", found.url),
        ("sha256", found.sha256),
        ("retrieved", found.retrieved_at),
    ):
        if value:
            click.echo(f"  {label + ':':<10} {value}")


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Resolve a DOI, PMID or PMCID to the others, and say who serves its text.",
    epilog=EPILOG,
)
@click.argument("ident", nargs=-1, required=True, metavar="IDENT")
@json_option
@click.option(
    "--offline", is_flag=True, help="Never fetch: answer from the identifier's pinned copy only."
)
@click.option("--refresh", is_flag=True, help="Fetch again even when it is pinned.")
@replay_option
def resolve(
    ident: tuple[str, ...], as_json: bool, offline: bool, refresh: bool, replay: str | None
) -> None:
    """Resolve IDENT and pin the best text available for it.

    IDENT is a DOI, PMID, PMCID, NCT number, openFDA set id, Europe PMC preprint (PPR) id
    or URL ('PMID 27355798' may be given as two words). Prints the canonical key, the DOI,
    PMID and PMCID the work is known by, which service served its text (full text,
    abstract or page), the version, sha256 and title; the bytes are pinned in the cache, so
    a later `citeproof check` of IDENT reads the same ones. A path is not an identifier
    here. JSON: the ResolvedSource of the MCP tool resolve_identifier.
    """
    from citeproof.cli import _common
    from citeproof.service.reading import resolve_identifier

    found = resolve_identifier(" ".join(ident), offline=offline, refresh=refresh, replay=replay)
    _common.show(found, as_json, _render)
    click.get_current_context().exit(resolve_exit_code(found.status))
