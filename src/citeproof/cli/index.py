"""``citeproof index build|update|info``: a local index of the public metadata dumps.

Module level imports click only: ``citeproof --help`` imports this module to list the
commands' one-line help, and must stay fast.  The index itself comes through
``citeproof.service.indexing`` (the interfaces reach nothing below the service).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, json_option

if TYPE_CHECKING:
    from citeproof.service.indexing import BuildReport, Manifest, Progress

_EXIT_CODES = (
    "Exit codes: 0 done; 2 bad input (a file that is no dump citeproof reads, a folder "
    "holding something else, the index extra not installed); 3 the index cannot be read; "
    "130 interrupted (run the same command again to resume)."
)


@click.group(
    context_settings=CONTEXT_SETTINGS,
    short_help="Build and inspect a local index of the metadata dumps.",
    epilog=epilog(
        "citeproof index build ~/citeproof-index pubmed/baseline/ crossref-2025/",
        "citeproof index update ~/citeproof-index pubmed/updatefiles/pubmed26n1335.xml.gz",
        "citeproof index info ~/citeproof-index",
    ),
)
def index() -> None:
    """A local bibliographic index of the public metadata dumps (Crossref, OpenAlex, PubMed,
    DBLP, arXiv, DataCite, Retraction Watch), for verifying references offline.

    Needs the index extra: pip install "citeproof[index]". See docs/index.md.
    """


F = TypeVar("F", bound=Callable[..., Any])


def _run_options(command: F) -> F:
    """DIR, FILES..., ``--workers`` and ``--json``: what build and update both take."""
    command = json_option(command)
    command = click.option(
        "--workers",
        type=click.IntRange(1, 64),
        default=None,
        metavar="N",
        help="Parsing processes.  [default: 2, or none for inputs under 16 MB]",
    )(command)
    command = click.argument(
        "files", metavar="FILES...", nargs=-1, required=True, type=click.Path(path_type=Path)
    )(command)
    return click.argument(
        "directory", metavar="DIR", type=click.Path(file_okay=False, path_type=Path)
    )(command)


def _progress(progress: Progress) -> None:
    if sys.stderr is not None and sys.stderr.isatty():
        click.echo(
            f"citeproof: index: {progress.files_done} of {progress.files} files, "
            f"{progress.records:,} records, {progress.rate:,.0f} a second",
            err=True,
        )


def _render(report: BuildReport) -> None:
    manifest = report.manifest
    done = "resumed and finished" if report.resumed else "read"
    click.echo(
        f"{report.mode.capitalize()} of {report.directory}: {done} {report.files} files, "
        f"{report.records:,} records in {report.seconds:,.1f} s."
    )
    for line in report.passed_over:
        click.echo(f"  passed over: {line}")
    _render_manifest(manifest)


def _render_manifest(manifest: Manifest) -> None:
    counts = manifest.counts
    click.echo(f"Holds {manifest.coverage_phrase()}.")
    click.echo(
        f"  {counts.get('records', 0):,} records of {counts.get('works', 0):,} works, "
        f"{counts.get('notices', 0):,} notices; {counts.get('replaced_or_deleted', 0):,} "
        "records replaced or deleted."
    )
    size = int(manifest.data.get("size_bytes", 0))
    text = int(counts.get("text_bytes", 0))
    ratio = f" ({size / text:.2f} of the dumps' {text / 1e6:,.1f} MB of text)" if text else ""
    click.echo(f"  {size / 1e6:,.1f} MB on disk{ratio}; built {manifest.built}.")
    for name, source in manifest.sources.items():
        newest = f", newest record {source['newest']}" if source.get("newest") else ""
        click.echo(
            f"  {name}: {source['files']} files, {source['records']:,} records, "
            f"{source['notices']:,} notices{newest}"
        )
    click.echo(f"  manifest sha256 {manifest.hash}")


def _run(
    mode: str, directory: Path, files: tuple[Path, ...], workers: int | None, as_json: bool
) -> None:
    from citeproof.cli import _common, report_interrupted
    from citeproof.service import indexing

    run = indexing.build_index if mode == "build" else indexing.update_index
    try:
        report = run(directory, list(files), workers=workers, on_progress=_progress)
    except KeyboardInterrupt:
        report_interrupted(
            click.get_current_context(),
            f"the {mode} stopped at its last checkpoint; run the same command again to resume",
        )
        return
    if _common.want_json(as_json):
        _common.write_json(indexing.report_json(report))
    else:
        _render(report)


@index.command(
    "build",
    short_help="Build an index from dumps as they are downloaded.",
    epilog=epilog(
        "citeproof index build idx pubmed26n0001.xml.gz pubmed26n0002.xml.gz",
        "citeproof index build idx crossref-public-data-2025/ openalex/data/works/",
        "citeproof index build idx dblp.xml.gz arxiv-metadata-oai-snapshot.json",
        exit_codes=_EXIT_CODES,
    ),
)
@_run_options
def build(directory: Path, files: tuple[Path, ...], workers: int | None, as_json: bool) -> None:
    """Build an index in DIR (new or empty) from FILES: dumps, or folders of them.

    Each dump is recognised from its content, gzipped or not: the Crossref public data
    file, the OpenAlex works snapshot (and its merged_ids), PubMed/MEDLINE baseline and
    update files, the DBLP XML (with dblp.dtd beside it, or its built-in entities), the
    arXiv metadata snapshot, the DataCite public data file and the Retraction Watch CSV.
    Give files in publication order (a shell glob sorts them so): a later record with the
    same key replaces an earlier one. A stopped build resumes where it stopped when the
    same command is run again.
    """
    _run("build", directory, files, workers, as_json)


@index.command(
    "update",
    short_help="Apply newer dumps to an index.",
    epilog=epilog(
        "citeproof index update idx pubmed26n1335.xml.gz pubmed26n1336.xml.gz",
        "citeproof index update idx openalex/data/works/updated_date=2026-03-01/",
        exit_codes=_EXIT_CODES,
    ),
)
@_run_options
def update(directory: Path, files: tuple[Path, ...], workers: int | None, as_json: bool) -> None:
    """Apply FILES, newer than what DIR's index holds: a newer version of a record replaces
    the older, a deleted citation goes, a newer Retraction Watch file replaces the older.

    Files the index has already read (the same path, size and time) are passed over. Readers
    of the index see the old state until the update is finished. A stopped update resumes
    when the same command is run again.
    """
    _run("update", directory, files, workers, as_json)


@index.command(
    "info",
    short_help="Say what an index holds.",
    epilog=epilog(
        "citeproof index info idx",
        "citeproof index info idx --json",
        exit_codes="Exit codes: 0 done; 2 bad input; 3 no finished index in DIR.",
    ),
)
@click.argument(
    "directory", metavar="DIR", type=click.Path(file_okay=False, exists=True, path_type=Path)
)
@json_option
def info(directory: Path, as_json: bool) -> None:
    """Say what the index in DIR holds: its sources, every file read (with its sha256 and
    the date of its newest record), record counts, dates, size on disk, and the manifest
    hash that names the index in evidence."""
    from citeproof.cli import _common
    from citeproof.service import indexing

    manifest = indexing.index_info(directory)
    if _common.want_json(as_json):
        _common.write_json({**manifest.data, "hash": manifest.hash})
    else:
        _render_manifest(manifest)


def local_index(given: str | None) -> str | None:
    """The local index a command asks first (``--index``, else ``CITEPROOF_INDEX``), checked
    now: a folder that does not exist, is no finished index, or needs the extra that is not
    installed is one line before any work, not an error at the first reference."""
    from citeproof.errors import BadInputError
    from citeproof.service.references import index_path, open_local_index

    index = index_path(given)
    if index is None:
        return None
    if not Path(index).is_dir():
        raise BadInputError(
            f"there is no local index at {index} (no such folder); give the folder "
            "'citeproof index build' made, with --index or CITEPROOF_INDEX."
        )
    open_local_index(index)
    return index
