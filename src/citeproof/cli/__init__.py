"""The ``citeproof`` command line: a click group whose subcommands are imported on demand.

Why lazy: ``citeproof --help`` and ``citeproof --version`` should answer at once, and the
heavy dependencies (pydantic, lxml, rapidfuzz, pypdfium2, rich) are only needed by the
command that actually runs.  This module therefore imports click and the (dependency-free)
error tree, nothing else; each command module imports the rest inside its function body.
The pattern is click's documented LazyGroup.

Expected failures (``CiteproofError``) are caught here, once, for every command: the message
goes to stderr as ``citeproof: error: <message>`` and the process exits with the error's
code (2), never with a traceback.  citeproof's own warnings (``CiteproofWarning``: a key
file other users can read) go to stderr the same way, as one ``citeproof: warning: <message>``
line each.

``--strict-keys`` sets ``CITEPROOF_STRICT_KEYS=1`` for the command (and whatever it starts:
batch workers, the MCP server): the store reads that variable where it loads a key, and the
command line may not import the store (``docs/architecture.md``).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import warnings
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

import click

from citeproof.cli.options import CONTEXT_SETTINGS
from citeproof.errors import CiteproofError, CiteproofWarning

__all__ = ["LazyGroup", "cli", "main", "own_warnings", "report_error"]

STRICT_KEYS_ENV = "CITEPROOF_STRICT_KEYS"  # citeproof.store.keys.STRICT_KEYS_ENV

COMMANDS: dict[str, str] = {
    "audit": "citeproof.cli.audit:audit",
    "batch": "citeproof.cli.batch:batch",
    "check": "citeproof.cli.check:check",
    "demo": "citeproof.cli.demo:demo",
    "text": "citeproof.cli.text:text",
    "cache": "citeproof.cli.cache:cache",
    "log": "citeproof.cli.log:log",
    "mcp": "citeproof.cli.mcp:mcp",
    "passages": "citeproof.cli.passages:passages",
    "recheck": "citeproof.cli.recheck:recheck",
    "refs": "citeproof.cli.refs:refs",
    "record": "citeproof.cli.record:record",
    "retraction": "citeproof.cli.retraction:retraction",
    "retractions": "citeproof.cli.retraction:retractions",
    "schema": "citeproof.cli.schema:schema",
    "search": "citeproof.cli.search:search",
    "citing": "citeproof.cli.search:citing",
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when that subcommand is needed."""

    def __init__(
        self, *args: Any, lazy_subcommands: dict[str, str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = dict(lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_subcommands:
            return self._load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def _load(self, cmd_name: str) -> click.Command:
        module_name, attribute = self.lazy_subcommands[cmd_name].split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{module_name}:{attribute} is not a click command")
        return command

    def invoke(self, ctx: click.Context) -> Any:
        with own_warnings():
            try:
                return super().invoke(ctx)
            except CiteproofError as exc:
                report_error(ctx, exc)


@contextlib.contextmanager
def own_warnings() -> Iterator[None]:
    """While the block runs, print each :class:`CiteproofWarning` as one
    ``citeproof: warning: <message>`` line on stderr; other warnings are shown as before."""
    with warnings.catch_warnings():
        previous = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            if issubclass(category, CiteproofWarning):
                text = " ".join(str(message).split())
                click.echo(f"citeproof: warning: {text}", err=True)
            else:
                previous(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


def report_error(ctx: click.Context, exc: CiteproofError) -> None:
    """Print an expected failure as one line on stderr and exit with its code."""
    # One line, whatever the message holds: scripts read stderr line by line.
    message = " ".join(str(exc).split()) or type(exc).__name__
    click.echo(f"citeproof: error: {message}", err=True)
    ctx.exit(exc.exit_code)


@click.group(
    cls=LazyGroup,
    lazy_subcommands=COMMANDS,
    context_settings=CONTEXT_SETTINGS,
    epilog="Exit codes: 0 success (check: EXACT), 1 a negative result, 2 usage or bad input, "
    "3 a source was unavailable.",
)
@click.version_option(
    package_name="citeproof", prog_name="citeproof", message="%(prog)s %(version)s"
)
@click.option(
    "--strict-keys",
    is_flag=True,
    help="Refuse a key file other users can read or change, instead of warning (as "
    f"{STRICT_KEYS_ENV}=1 does).",
)
def cli(strict_keys: bool) -> None:
    """Check that a quoted passage really appears in the cited source.

    citeproof finds the quote in the text of a local document (JATS XML, HTML, PDF or plain
    text), says where it is, or shows the closest passage and what differs. It never judges
    whether a passage supports a claim.
    """
    if strict_keys:
        os.environ[STRICT_KEYS_ENV] = "1"


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script and ``python -m citeproof`` entry point."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="citeproof")
