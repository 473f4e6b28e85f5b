"""``citeproof record DIR COMMAND ...``: run a command live and keep every answer it read.

Why a wrapper rather than a flag on each command: recording is the mirror of ``--replay``,
which works for every command, so it must too; wrapping means a command added later is
recordable without knowing about it.  The wrapped command runs in this process with
``CITEPROOF_RECORD`` set, which the HTTP layer reads when it opens clients.

Live use only (maintainers making fixtures, users attaching the exact answers to a bug
report); the tests never record.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog

#: Commands that cannot be recorded: they make no request, or would recurse.
_REFUSED = frozenset({"record", "cache", "mcp"})


def _written_since(folder: Path, start: float) -> list[str]:
    if not folder.is_dir():
        return []
    return sorted(
        p.name.removesuffix(".meta.json")
        for p in folder.glob("*.meta.json")
        if p.stat().st_mtime >= start
    )


@click.command(
    context_settings={
        **CONTEXT_SETTINGS,
        "ignore_unknown_options": True,
        "allow_interspersed_args": False,
    },
    short_help="Run a command live and record every response it reads into DIR.",
    epilog=epilog(
        'citeproof record fixtures/ check "the quoted words" PMC3166277',
        'citeproof check "the quoted words" PMC3166277 --replay fixtures/',
    ),
)
@click.argument("folder", metavar="DIR", type=click.Path(file_okay=False, path_type=Path))
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="COMMAND...")
def record(folder: Path, command: tuple[str, ...]) -> None:
    """Run COMMAND against the live services and write each response into DIR.

    Every response is written as NAME.body and NAME.meta.json (URL without the contact
    address or API key, status, headers without cookies, date, body sha256), so
    `citeproof COMMAND --replay DIR` repeats the run with no network. Identifiers are
    fetched again even when pinned, since a cached copy would leave nothing to record.
    """
    from citeproof.errors import BadInputError
    from citeproof.service.storage import RECORD_ENV, REPLAY_ENV

    name = command[0]
    if name in _REFUSED:
        raise BadInputError(
            f"`citeproof {name}` makes no request that could be recorded; record a command "
            "that fetches, such as check, text, retraction or search."
        )
    if "--replay" in command or os.environ.get(REPLAY_ENV, "").strip():
        raise BadInputError(
            f"Recording and replaying at once is not possible: drop --replay (or {REPLAY_ENV})."
        )
    if "--offline" in command:
        raise BadInputError("--offline makes no request, so there is nothing to record.")
    from citeproof.cli import cli

    folder.mkdir(parents=True, exist_ok=True)
    start = time.time() - 1  # file systems with one-second mtimes
    previous = os.environ.get(RECORD_ENV)
    os.environ[RECORD_ENV] = str(folder.resolve())
    code = 0
    try:
        cli.main(args=list(command), prog_name="citeproof", standalone_mode=True)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    finally:
        if previous is None:
            os.environ.pop(RECORD_ENV, None)
        else:
            os.environ[RECORD_ENV] = previous
    written = _written_since(folder, start)
    click.echo(
        f"citeproof: recorded {len(written)} response(s) into {folder}"
        + (": " + ", ".join(written) if written else ""),
        err=True,
    )
    click.get_current_context().exit(code)
