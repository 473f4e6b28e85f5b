"""``citeproof mcp``: run the MCP server over stdio, or over streamable HTTP with ``--http``.

Over stdio nothing but the protocol may reach stdout, so diagnostics go to stderr (and the
SDK points fd 1 at stderr while it serves, so a stray print cannot corrupt the stream).
Module level imports click and the list of tool names only, so ``citeproof --help`` stays
fast; the SDK (about a second to import) is loaded when the command runs.  Unsafe HTTP
settings are refused before the SDK is imported, so the refusal is immediate.

Over HTTP a bearer token is required by default: without ``--token`` a random one is made
and printed once on stderr, with the URL, unless ``--no-token`` is given (loopback only).
"""

from __future__ import annotations

import click

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
        exit_codes="Exit codes: 0 the server stopped; 2 bad settings (e.g. a public --host "
        "without a token).",
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
    help="Port for --http.",
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
@replay_option
@log_options("checks and searches")
def mcp(
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    no_token: bool,
    offline: bool,
    no_files: bool,
    replay: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    from citeproof.errors import CiteproofError

    try:
        _serve(use_http, host, port, token, no_token, offline, no_files, replay, no_log,
               log_path)  # fmt: skip
    except CiteproofError as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        click.echo(f"citeproof: error: {message}", err=True)
        click.get_current_context().exit(exc.exit_code)


def _serve(
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    no_token: bool,
    offline: bool,
    no_files: bool,
    replay: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    made = False
    if use_http:
        from citeproof.mcp.http import check_http_settings

        # before the slow imports: refuse at once
        made = token is None and not no_token
        token = check_http_settings(host, token, no_token=no_token)
    elif no_token:
        from citeproof.errors import BadInputError

        raise BadInputError("--no-token applies to --http only.")
    from citeproof.mcp.server import build_server
    from citeproof.mcp.tools import ToolSettings

    settings = ToolSettings(
        offline=offline,
        replay=replay,
        log=not no_log,
        log_path=log_path,
        allow_files=not no_files,
    )
    server = build_server(settings)
    if use_http:
        from citeproof.mcp.http import serve_http

        click.echo(f"citeproof: serving MCP on http://{_netloc(host, port)}/mcp", err=True)
        if made:
            click.echo(
                f'citeproof: every request needs the header "Authorization: Bearer {token}" '
                "(a new token, made for this run; give --token to choose one)",
                err=True,
            )
        serve_http(server, host=host, port=port, token=token)
    else:
        server.run("stdio")


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
