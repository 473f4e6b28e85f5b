"""``citeproof demo``: the whole loop offline, on invented example papers (see citeproof.demo).

Module level imports click only (see ``citeproof.cli``).
"""

from __future__ import annotations

from pathlib import Path

import click

from citeproof.cli.options import CONTEXT_SETTINGS


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Run the whole loop offline on invented example papers.",
    epilog="\b\nExamples:\n"
    "  citeproof demo\n"
    "  citeproof demo --out citeproof-demo --open    # keep the files, see the audit page\n"
    "  citeproof demo --json > demo.json",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where to put the demo's files: a new or empty folder (default: a new temporary folder).",
)
@click.option("--open", "open_page", is_flag=True, help="Open the audit page in a browser.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def demo(out: Path | None, open_page: bool, as_json: bool) -> None:
    """Check quotes, a retraction, handles and a whole AI answer, with no network.

    Uses two invented example papers shipped with citeproof and recorded-format answers
    written from them; everything it writes (its own cache, evidence log and keys, the
    answer, the audit page, a checkpoint) goes under --out or a new temporary folder, never
    into your own citeproof directories.
    """
    from citeproof.cli import _common
    from citeproof.demo import json_summary, run_demo

    quiet = _common.want_json(as_json)
    result = run_demo(out, say=(lambda line: None) if quiet else click.echo)
    if quiet:
        _common.write_json(json_summary(result))
    if open_page:
        import webbrowser

        webbrowser.open(result.page.as_uri())
