"""Options several commands share, defined once so they read and behave the same everywhere.

Imports click only: command modules import this at module level, and ``citeproof --help``
imports every command module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

#: Every command's help options and width, also when a command is run on its own (a test, an
#: embedding program): click caches a command's help option the first time it is asked for,
#: so the same command must never be asked with two settings.
CONTEXT_SETTINGS: dict[str, Any] = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def epilog(*examples: str, exit_codes: str | None = None) -> str:
    """A help page's epilog in the house style (``refs``'s): the exit codes, when the command
    has its own, then ``Examples:`` with one command a line, kept as written (click's ``\\b``
    stops it rewrapping them)."""
    parts = [exit_codes] if exit_codes else []
    parts.append("\b\nExamples:\n" + "\n".join(f"  {example}" for example in examples))
    return "\n\n".join(parts)


def json_output(what: str | None = None) -> Callable[[F], F]:
    """``--json`` for a command whose JSON is ``what`` (``"the report"``; none: ``Print JSON``):
    every command prints JSON off a terminal, and its help says so in the same words."""
    said = f"{what} as JSON" if what else "JSON"
    return click.option(
        "--json",
        "as_json",
        is_flag=True,
        help=f"Print {said} (the default when stdout is not a terminal).",
    )


json_option = json_output()

replay_option = click.option(
    "--replay",
    metavar="DIR",
    envvar="CITEPROOF_REPLAY",
    type=click.Path(exists=True, file_okay=False),
    help="Answer every request from the recorded responses in DIR (env CITEPROOF_REPLAY).",
)


def source_options(command: F) -> F:
    """``--offline``, ``--refresh`` and ``--replay`` for a command that reads one source as
    ``citeproof check`` reads it (``text``, ``passages``): the same flags, the same words."""
    command = replay_option(command)
    command = click.option(
        "--refresh", is_flag=True, help="Fetch an identifier again even when it is pinned."
    )(command)
    return click.option(
        "--offline", is_flag=True, help="Never fetch: read an identifier's pinned copy only."
    )(command)


def executor_options(here: str, workers: str) -> Callable[[F], F]:
    """``--executor``, ``--workers`` and ``--scheduler`` for a command whose work runs here or
    on a Dask cluster (``batch``, ``refs``): ``here`` says what runs locally, ``workers``
    what ``--workers`` counts."""

    def decorate(command: F) -> F:
        command = click.option(
            "--scheduler", metavar="ADDR", help="A running Dask scheduler, tcp://HOST:PORT."
        )(command)
        command = click.option("--workers", type=click.IntRange(min=1), help=workers)(command)
        return click.option(
            "--executor",
            type=click.Choice(["local", "dask"]),
            default="local",
            show_default=True,
            help=f"{here}, or a Dask cluster.",
        )(command)

    return decorate


def log_options(what: str) -> Callable[[F], F]:
    """``--no-log`` and ``--log FILE`` for a command that records ``what`` in the log."""

    def decorate(command: F) -> F:
        command = click.option(
            "--log",
            "log_path",
            metavar="FILE",
            type=click.Path(dir_okay=False),
            help="The evidence log to use (default: CITEPROOF_LOG, else the data directory's).",
        )(command)
        return click.option(
            "--no-log", is_flag=True, help=f"Do not record {what} in the evidence log."
        )(command)

    return decorate
