"""``citeproof retraction IDENT`` and ``citeproof retractions import|info``.

Module level imports click only: ``citeproof --help`` imports this module to list the
commands' one-line help, and must stay fast.
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, json_output, replay_option
from citeproof.errors import retraction_exit_code

if TYPE_CHECKING:
    from citeproof.models import RetractionReport
    from citeproof.service.storage import SnapshotInfo


def _render(report: RetractionReport) -> None:
    """A plain readable report: the status, then one line per source (and its notices)."""
    shown: str = report.status
    if report.status == "NOT_RETRACTED_AS_OF" and report.as_of is not None:
        shown = f"NOT RETRACTED as of {report.as_of.isoformat()}"
    click.echo(f"{report.identifier}: {shown}")
    if report.reason:
        click.echo(f"  {report.reason}")
    ids = ", ".join(f"{k} {v}" for k, v in report.resolved.model_dump().items() if v)
    if ids:
        click.echo(f"  resolved: {ids}")
    for source in report.sources:
        said = ""
        if source.state == "answered":
            said = (
                "retracted"
                if source.retracted
                else "concern"
                if source.concern
                else "no retraction"
                if source.retracted is False
                else "no verdict"
            )
        line = f"  {source.source:<16} {source.state:<10} {said}"
        if source.snapshot_date is not None:
            line += f" (snapshot {source.snapshot_date.isoformat()})"
        click.echo(line.rstrip())
        if source.reason:
            click.echo(f"      {source.reason}")
        for notice in [*source.notices, *source.corrections]:
            where = notice.doi or (f"PMID {notice.pmid}" if notice.pmid else notice.url or "")
            when = f" {notice.date}" if notice.date else ""
            click.echo(f"      - {notice.kind}{when} {where} ({notice.source})".rstrip())


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Report whether a work is retracted, according to every source.",
    epilog=epilog(
        "citeproof retraction 10.1371/journal.pone.0340378",
        "citeproof retraction pmid:27355798 --offline --json",
        exit_codes="Exit codes: 0 NOT_RETRACTED_AS_OF (every consulted source answered and "
        "none reports a retraction or concern); 1 RETRACTED or CONCERN; 2 usage or bad "
        "identifier; 3 UNVERIFIABLE (a source failed or could not be asked, e.g. --offline or "
        "no Retraction Watch snapshot).",
    ),
)
@click.argument("ident", metavar="IDENT")
@json_output("the report")
@click.option(
    "--offline",
    is_flag=True,
    help="Ask no service; only the local Retraction Watch snapshot is consulted.",
)
@replay_option
def retraction(ident: str, as_json: bool, offline: bool, replay: str | None) -> None:
    """Report the retraction status of IDENT (a DOI, PMID or PMCID).

    Asks PMC (is_retracted), Crossref (notices about the DOI and the work's own update
    links), PubMed (publication type and retraction/concern links), Europe PMC (publication
    type) and the imported Retraction Watch snapshot, and reports each as answered, failed
    or not asked. The status is RETRACTED, CONCERN, NOT_RETRACTED_AS_OF <date> (only when
    every source that applies answered) or UNVERIFIABLE. JSON schema: citeproof.retraction/1.
    """
    from citeproof.cli import _common
    from citeproof.service.lookups import retraction_report

    report = retraction_report(
        ident, offline=offline, replay_dir=Path(replay) if replay is not None else None
    )
    _common.show(report, as_json, _render)
    click.get_current_context().exit(retraction_exit_code(report.status))


@click.group(
    context_settings=CONTEXT_SETTINGS,
    short_help="Manage the local Retraction Watch snapshot.",
    epilog=epilog(
        "citeproof retractions import retraction_watch.csv --as-of 2026-01-31",
        "citeproof retractions info",
    ),
)
def retractions() -> None:
    """Import the Retraction Watch dataset (CSV) and show the snapshot in use.

    The snapshot lives in the data directory (CITEPROOF_HOME moves it) and every answer
    from it carries its date.
    """


def _info_json(info: SnapshotInfo) -> dict[str, object]:
    return {
        "path": str(info.path),
        "as_of": info.as_of.isoformat(),
        "rows": info.rows,
        "skipped": info.skipped,
        "imported_at": info.imported_at,
        "source_name": info.source_name,
    }


@retractions.command(
    "import",
    short_help="Import a Retraction Watch CSV as the snapshot.",
    epilog=epilog(
        "citeproof retractions import retraction_watch.csv",
        "citeproof retractions import retraction_watch.csv --as-of 2026-01-31 --json",
    ),
)
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(formats=["%Y-%m-%d"]),
    default=None,
    metavar="DATE",
    help="The snapshot's date (YYYY-MM-DD).  [default: the file's modification date]",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def import_(file: Path, as_of: datetime | None, as_json: bool) -> None:
    """Import FILE (the Retraction Watch dataset, retraction_watch.csv) as the snapshot.

    The file is streamed into a new database that replaces the old one only when the whole
    file was read: a refused or interrupted import keeps the previous snapshot. Without
    --as-of the snapshot is dated by the file's modification date (when it was downloaded).
    """
    from citeproof.cli import _common
    from citeproof.service.storage import import_csv

    day: date | None = as_of.date() if as_of is not None else None
    info = import_csv(file, as_of=day)
    skipped = f" ({info.skipped} malformed rows skipped)" if info.skipped else ""
    line = (
        f"Imported {info.rows} rows from {file} as the Retraction Watch snapshot of "
        f"{info.as_of.isoformat()}{skipped}."
    )
    _common.emit(as_json, _info_json(info), [line])


@retractions.command(
    "info",
    short_help="Show the snapshot's date and size.",
    epilog=epilog("citeproof retractions info", "citeproof retractions info --json"),
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def info(as_json: bool) -> None:
    """Show the imported snapshot's date, row count and file; exit 1 when there is none."""
    from citeproof.cli import _common
    from citeproof.service.storage import snapshot_info, snapshot_path

    found = snapshot_info()
    if found is None:
        none = "No Retraction Watch snapshot is imported; run `citeproof retractions import FILE`."
        _common.emit(as_json, {"path": str(snapshot_path()), "as_of": None, "rows": 0}, [none])
        click.get_current_context().exit(1)
    assert found is not None
    line = (
        f"Retraction Watch snapshot of {found.as_of.isoformat()}: {found.rows} rows, "
        f"imported {found.imported_at} from {found.source_name} ({found.path})."
    )
    _common.emit(as_json, _info_json(found), [line])
