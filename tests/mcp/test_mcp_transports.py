"""The server as clients meet it: concurrent calls, stdio and streamable HTTP subprocesses,
and the refusal to serve a public address without a token."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_helpers import EXAMPLE, REPO, run, server_env

from citeproof import service
from citeproof.cli.mcp import mcp as mcp_command
from citeproof.errors import BadInputError
from citeproof.evidence.log import EvidenceLog, default_log_path
from citeproof.mcp.http import check_http_settings, is_loopback
from citeproof.mcp.server import TOOL_NAMES

if TYPE_CHECKING:
    from conftest import CliRun

TOKEN = "test-token-0123456789abcdef"
EXACT = "Mean sleep onset latency fell by 14 minutes (95% CI 9 to 19) in the walking group"


def _sentences(n: int) -> list[str]:
    """n distinct passages of the example article, each long enough to check."""
    text = service.load(EXAMPLE).text
    parts = [p.strip() for p in text.replace("\n", " ").split(". ") if len(p.strip()) > 40]
    assert len(parts) >= n
    return parts[:n]


# ------------------------------------------------------------------------------ concurrency


def test_twenty_concurrent_calls_are_correct_and_independent(server: MCPServer) -> None:
    found = _sentences(10)
    missing = [
        f"an invented sentence number {i} that the article never contains" for i in range(10)
    ]
    requests: list[tuple[str, str]] = [(q, "EXACT") for q in found] + [
        (q, "NOT_FOUND") for q in missing
    ]
    results: dict[int, Any] = {}

    async def go() -> None:
        async with Client(server) as client:

            async def one(i: int, quote: str) -> None:
                results[i] = await client.call_tool(
                    "check_quote",
                    {"quote": quote, "source": str(EXAMPLE), "claim": f"c{i}", "detail": "full"},
                )

            async with anyio.create_task_group() as tg:
                for i, (quote, _) in enumerate(requests):
                    tg.start_soon(one, i, quote)

    run(go)
    seqs = []
    for i, (quote, verdict) in enumerate(requests):
        data = results[i].structured_content
        assert data is not None and data["quote"] == quote and data["verdict"] == verdict, i
        seqs.append(data["log_seq"])
    assert sorted(seqs) == list(range(1, 21))
    log = EvidenceLog(default_log_path())
    claims = {entry.seq: entry.payload["claim"] for entry in log.entries()}
    assert {claims[seq] for seq in seqs} == {f"c{i}" for i in range(20)}
    for i, seq in enumerate(seqs):
        assert claims[seq] == f"c{i}"  # each call's line carries its own claim
    assert log.verify().ok


# ------------------------------------------------------------------------------ stdio


def test_stdio_round_trip(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "citeproof.mcp"],
        env=server_env(tmp_path),
        cwd=str(REPO),
    )

    async def go() -> tuple[list[str], dict[str, Any] | None, str | None]:
        async with Client(params, mode="legacy") as client:  # the initialize handshake
            name = client.server_info.name if client.server_info else None
            tools = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool(
                "check_quote",
                {"quote": EXACT, "source": "examples/example-article.nxml", "detail": "full"},
            )
            return tools, result.structured_content, name

    tools, data, name = run(go)
    assert name == "citeproof" and set(tools) == set(TOOL_NAMES)
    assert data is not None and data["verdict"] == "EXACT" and data["log_seq"] == 1
    assert data["source"]["input"] == "examples/example-article.nxml"
    (entry,) = EvidenceLog(default_log_path(server_env(tmp_path))).entries()
    assert entry.kind == "check" and entry.payload["verdict"] == "EXACT"


# ------------------------------------------------------------------------------ HTTP


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the HTTP tests (starting one takes a second or two)."""
    tmp_path = tmp_path_factory.mktemp("http-home")
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "citeproof.mcp", "--http", "--port", str(port), "--no-log"],
        env=server_env(tmp_path) | {"CITEPROOF_MCP_TOKEN": TOKEN},
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    pytest.fail(f"the HTTP server did not start: {err}")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()


def test_streamable_http_round_trip_with_token(http_server: str) -> None:
    async def go() -> tuple[list[str], dict[str, Any] | None]:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            create_mcp_http_client(headers=headers) as http,
            Client(streamable_http_client(http_server, http_client=http)) as client,
        ):
            tools = [tool.name for tool in (await client.list_tools()).tools]
            result = await client.call_tool(
                "check_quote", {"quote": EXACT, "source": "examples/example-article.nxml"}
            )
            return tools, result.structured_content

    tools, data = run(go)
    assert set(tools) == set(TOOL_NAMES)
    assert data is not None and data["verdict"] == "EXACT" and "log_seq" not in data


@pytest.mark.parametrize("authorization", [None, "Bearer wrong-token-0123456789", TOKEN])
def test_http_without_the_token_is_refused(http_server: str, authorization: str | None) -> None:
    headers = {"Accept": "application/json, text/event-stream"}
    if authorization is not None:
        headers["Authorization"] = authorization
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx2.post(http_server, json=body, headers=headers, timeout=10)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert "tools" not in response.text


# ------------------------------------------------------------------------------ refusals


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.org"])
def test_refuses_a_public_address_without_a_token(run_cli: CliRun, host: str) -> None:
    result = run_cli("--http", "--host", host, env={"CITEPROOF_MCP_TOKEN": ""}, command=mcp_command)
    assert result.exit_code == 2
    assert f"refusing to serve on {host} without a bearer token" in result.output
    assert "Traceback" not in result.output


def test_refuses_a_short_token(run_cli: CliRun) -> None:
    result = run_cli("--http", "--host", "0.0.0.0", "--token", "abc", command=mcp_command)
    assert result.exit_code == 2 and "shorter than 16 characters" in result.output


def test_loopback_and_token_rules() -> None:
    for host in (
        "127.0.0.1",
        "127.1.2.3",
        "::1",
        "[::1]",
        "localhost",
        "LOCALHOST",
        "0:0:0:0:0:0:0:1",
        "127.0.0.2",
    ):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "10.0.0.1", "example.org", ""):
        assert not is_loopback(host), host
    made = check_http_settings("127.0.0.1", None)  # a token by default, loopback too
    assert made is not None and len(made) >= 32 and made != check_http_settings("::1", None)
    assert check_http_settings("127.0.0.1", None, no_token=True) is None
    assert check_http_settings("0.0.0.0", TOKEN) == TOKEN
    for blank in ("", "  ", "\t\n"):
        with pytest.raises(BadInputError, match="empty or only spaces"):
            check_http_settings("127.0.0.1", blank)
    with pytest.raises(BadInputError, match="spaces or characters"):
        check_http_settings("127.0.0.1", "a token with spaces in it")
    with pytest.raises(BadInputError, match="without a bearer token"):
        check_http_settings("0.0.0.0", None, no_token=True)
    with pytest.raises(BadInputError, match="not both"):
        check_http_settings("127.0.0.1", TOKEN, no_token=True)
