"""``citeproof mcp``: run the MCP server over stdio, or over streamable HTTP with ``--http``.

Over stdio nothing but the protocol may reach stdout, so diagnostics go to stderr (and the
SDK points fd 1 at stderr while it serves, so a stray print cannot corrupt the stream).
Module level imports click only, so ``citeproof --help`` stays fast; the SDK (about a second
to import) is loaded when the command runs.  Unsafe HTTP settings are refused before the SDK
is imported, so the refusal is immediate.
"""

from __future__ import annotations

import click

from citeproof.cli.options import CONTEXT_SETTINGS, log_options, replay_option


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Run the MCP server (stdio, or streamable HTTP with --http).",
    epilog="Exit codes: 0 the server stopped; 2 bad settings (e.g. a public --host without "
    "a token).",
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
    help="Bearer token every HTTP request must carry (env CITEPROOF_MCP_TOKEN).",
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
    offline: bool,
    no_files: bool,
    replay: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    """Serve citeproof's tools to MCP clients (Claude, Codex, VS Code ...).

    Tools: check_quote, check_quotes, read_source, resolve_identifier, retraction_status,
    search_literature, citing_papers, verify_log, record_support, find_passages,
    audit_answer, verify_references; the resource citeproof://source/{identifier}; the prompt
    cite_with_verified_quotes. Checks, searches and audits are written to the evidence log
    unless --no-log.
    """
    from citeproof.errors import CiteproofError

    try:
        _serve(use_http, host, port, token, offline, no_files, replay, no_log, log_path)
    except CiteproofError as exc:
        message = " ".join(str(exc).split()) or type(exc).__name__
        click.echo(f"citeproof: error: {message}", err=True)
        click.get_current_context().exit(exc.exit_code)


def _serve(
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    offline: bool,
    no_files: bool,
    replay: str | None,
    no_log: bool,
    log_path: str | None,
) -> None:
    if use_http:
        from citeproof.mcp.http import check_http_settings

        token = check_http_settings(host, token)  # before the slow imports: refuse at once
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
        serve_http(server, host=host, port=port, token=token)
    else:
        server.run("stdio")


def _netloc(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
