"""``citeproof mcp``: run the MCP server over stdio, or over streamable HTTP with ``--http``.

Over stdio nothing but the protocol may reach stdout, so diagnostics go to stderr (and the
SDK points fd 1 at stderr while it serves, so a stray print cannot corrupt the stream).
Module level imports click and the list of tool names only, so ``citeproof --help`` stays
fast; the SDK (about a second to import) is loaded when the command runs.  Bad settings are
refused before the SDK is imported, so the refusal is immediate: an HTTP option without
``--http`` (it would be ignored), an empty host, a public host without a token, an
``--index`` (or ``CITEPROOF_INDEX``) that is no index or needs the extra not installed.  A port
that cannot be bound is refused before anything is printed (:mod:`citeproof.mcp.http`).

Over HTTP a bearer token is required by default: without ``--token`` a random one is made
and printed once on stderr, with the URL, unless ``--no-token`` is given (loopback only).

How it ends (:mod:`citeproof.mcp.serving`): 0 when stopped on purpose (the client closed
stdin, or SIGTERM), 130 for Ctrl-C as every command, 2 for bad settings or a message over
4 MiB on stdin.  A signal may leave calls running on worker threads, which the interpreter
would wait for at exit, so after one line the process ends without them.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click
from click.core import ParameterSource

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, log_options, replay_option
from citeproof.mcp.descriptions import RESOURCE_TEMPLATE, TOOL_NAMES

_HELP = f"""Serve citeproof's tools to MCP clients (Claude, Codex, VS Code ...).

Tools: {", ".join(TOOL_NAMES)}; the resource {RESOURCE_TEMPLATE}; the prompt
cite_with_verified_quotes. Checks, searches and audits are written to the evidence log unless
--no-log.

Over --http every request must carry "Authorization: Bearer TOKEN": without --token a random
token is made and printed on stderr at start (--no-token: none, loopback only).
"""


@click.command(
    context_settings=CONTEXT_SETTINGS,
    help=_HELP,
    short_help="Run the MCP server (stdio, or streamable HTTP with --http).",
    epilog=epilog(
        "citeproof mcp                        # stdio: what Claude Desktop, Codex, VS Code start",
        "citeproof mcp --http --port 8765     # prints the URL and a new token to use",
        "citeproof mcp --no-files --offline   # identifiers only, answered from the cache",
        exit_codes="Exit codes: 0 the server stopped on purpose (the client closed stdin, or "
        "SIGTERM); 2 bad settings (an HTTP option without --http, a public --host without a "
        "token, a port in use, an --index folder that does not exist) or a message over 4 MiB "
        "on stdin; 3 the --index folder holds no index that can be read; 130 Ctrl-C.",
    ),
)
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP at /mcp.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind with --http; any non-loopback address needs --token.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port for --http (0: any free port, printed at start).",
)
@click.option(
    "--token",
    envvar="CITEPROOF_MCP_TOKEN",
    metavar="TOKEN",
    help="Bearer token every HTTP request must carry (env CITEPROOF_MCP_TOKEN); default: a "
    "new random one, printed at start.",
)
@click.option(
    "--no-token",
    is_flag=True,
    help="Serve HTTP without a token (loopback only): any local process may then call it.",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Never fetch: identifiers are read from their pinned copies in the cache only.",
)
@click.option(
    "--no-files",
    is_flag=True,
    help="Refuse local file paths as sources: clients may name identifiers only.",
)
@click.option(
    "--index",
    "index_dir",
    metavar="DIR",
    type=click.Path(file_okay=False),
    help="A local index (citeproof index build) that verify_references and the audit's "
    "reference checks ask before the web services, and instead of them with --offline (env "
    "CITEPROOF_INDEX).",
)
@replay_option
@log_options("checks and searches")
def mcp(**given: Any) -> None:
    from citeproof.cli import INTERRUPTED, report_error, report_interrupted
    from citeproof.errors import CiteproofError

    options = _Options(**given)
    ctx = click.get_current_context()
    if not options.use_http:
        _refuse_http_options(ctx)
    try:
        stopped = _serve(options)
    except CiteproofError as exc:
        report_error(ctx, exc)
    except KeyboardInterrupt:
        with contextlib.suppress(click.exceptions.Exit):
            report_interrupted(ctx)
        _end_now(INTERRUPTED)
    if stopped:
        click.echo("citeproof: stopped (SIGTERM).", err=True)
        _end_now(0)


@dataclass(frozen=True, slots=True)
class _Options:
    """The command's options, as given (click passes them by their parameter names)."""

    use_http: bool
    host: str
    port: int
    token: str | None
    no_token: bool
    offline: bool
    no_files: bool
    index_dir: str | None
    replay: str | None
    no_log: bool
    log_path: str | None


def _use_index(index_dir: str | None) -> None:
    """Point the tools at the local index: ``verify_references`` and the audit read
    ``CITEPROOF_INDEX`` on every call (as ``citeproof refs`` does without ``--index``), so
    the server sets it in its own environment once the index is known to open; a folder
    that is no index is refused now, in one line, not at a tool's first call."""
    from citeproof.cli.index import local_index
    from citeproof.service.references import INDEX_ENV

    index = local_index(index_dir)
    if index is not None:
        os.environ[INDEX_ENV] = index


#: The options that mean something only with ``--http``.
_HTTP_OPTIONS = ("host", "port", "token", "no_token")


def _refuse_http_options(ctx: click.Context) -> None:
    """An HTTP option typed without ``--http`` is a usage error: it would be ignored, and
    a user who gave ``--token`` believes the server is guarded by it.  (``CITEPROOF_MCP_TOKEN``
    in the environment is not an error: it is meant for the HTTP servers a user starts.)"""
    from citeproof.cli import UsageLineError

    given = [
        param.opts[0]
        for param in ctx.command.params
        if param.name in _HTTP_OPTIONS
        and ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE
    ]
    if given:
        applies = "applies" if len(given) == 1 else "apply"
        raise UsageLineError.of(
            click.BadOptionUsage(
                given[0].lstrip("-").replace("-", "_"),
                f"{', '.join(given)} {applies} to --http only (over stdio only the client that "
                "started the server can talk to it); add --http, or leave "
                f"{'it' if len(given) == 1 else 'them'} out.",
                ctx,
            )
        )


def _end_now(code: int) -> None:
    """End the process with ``code`` after a signal stopped the server: calls under way may
    still run on worker threads, which the interpreter would wait for at exit."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _serve(options: _Options) -> bool:
    """Serve until stopped; True when SIGTERM stopped the server."""
    made = False
    host, token = options.host, options.token
    if options.use_http:
        from citeproof.mcp.http import check_http_settings

        # before the slow imports: refuse at once
        made = token is None and not options.no_token
        token = check_http_settings(host, token, no_token=options.no_token)
    _use_index(options.index_dir)
    from citeproof.mcp.server import build_server
    from citeproof.mcp.tools import ToolSettings

    settings = ToolSettings(
        offline=options.offline,
        replay=options.replay,
        log=not options.no_log,
        log_path=options.log_path,
        allow_files=not options.no_files,
    )
    server = build_server(settings)
    if not options.use_http:
        from citeproof.mcp.stdio import serve_stdio

        return serve_stdio(server)
    from citeproof.mcp.http import netloc, serve_http

    def ready(bound: int) -> None:
        click.echo(f"citeproof: serving MCP on http://{netloc(host, bound)}/mcp", err=True)
        if made:
            click.echo(
                f'citeproof: every request needs the header "Authorization: Bearer {token}" '
                "(a new token, made for this run; give --token to choose one)",
                err=True,
            )

    return serve_http(server, host=host, port=options.port, token=token, ready=ready)


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m citeproof.mcp``: ``citeproof mcp`` run through the command group, so its
    usage errors, failures and Ctrl-C end as every command's do."""
    from citeproof.cli import main as run_cli

    run_cli(["mcp", *(sys.argv[1:] if argv is None else argv)])
