"""Safe by default over HTTP: Host and Origin checked for every loopback spelling, a token
made at start unless ``--no-token``, a blank token refused, the Bearer scheme in any case.

The app is exercised in process (``httpx2.ASGITransport``, with the SDK's session manager
running), so every spelling of a host can be tried without binding it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import anyio
import httpx2
import pytest
from mcp_helpers import EXAMPLE, INITIALIZE

from citeproof.cli.mcp import mcp as mcp_command
from citeproof.mcp import http
from citeproof.mcp.http import http_app
from citeproof.mcp.server import build_server

if TYPE_CHECKING:
    from conftest import CliRun

TOKEN = "test-token-0123456789abcdef"
ACCEPT = "application/json, text/event-stream"
READ_FILE = {
    "jsonrpc": "2.0",
    "id": 2,
    "method": "tools/call",
    "params": {"name": "read_source", "arguments": {"source": str(EXAMPLE), "limit": 200}},
}

Exchange = Callable[[httpx2.AsyncClient], Awaitable[Any]]


def _exchange(app_kwargs: dict[str, Any], exchange: Exchange) -> Any:
    """Run ``exchange`` against ``http_app(server, **app_kwargs)`` in process."""
    server = build_server(log=False)

    async def go() -> Any:
        app = http_app(server, **app_kwargs)
        async with server.session_manager.run():
            transport = httpx2.ASGITransport(app=app)  # type: ignore[arg-type]
            async with httpx2.AsyncClient(transport=transport, base_url="http://test") as client:
                return await exchange(client)

    return anyio.run(go)


async def _post(
    client: httpx2.AsyncClient, body: dict[str, Any], **headers: str
) -> httpx2.Response:
    return await client.post("/mcp", json=body, headers={"Accept": ACCEPT, **headers})


# ------------------------------------------------------------------------------ Host, Origin


@pytest.mark.parametrize(
    ("host", "header"),
    [
        ("127.0.0.2", "127.0.0.2:8000"),
        ("LOCALHOST", "localhost:8000"),
        ("0:0:0:0:0:0:0:1", "[::1]:8000"),
        ("127.1.2.3", "127.1.2.3:8000"),
    ],
)
def test_every_loopback_spelling_checks_host_and_origin(host: str, header: str) -> None:
    """These started without a token and with the SDK's checks off (it matched only the
    exact strings 127.0.0.1, localhost and ::1): a page on attacker.example could make a
    browser read the user's files through read_source."""

    async def exchange(client: httpx2.AsyncClient) -> list[Any]:
        rebound = await _post(client, INITIALIZE, Host="attacker.example")
        rebound_with_port = await _post(client, INITIALIZE, Host="attacker.example:8000")
        ok = await _post(client, INITIALIZE, Host=header)
        session = ok.headers.get("mcp-session-id", "")
        stolen = await _post(
            client,
            READ_FILE,
            Host="attacker.example",
            **{
                "mcp-session-id": session,
                "mcp-protocol-version": "2025-06-18",
            },
        )
        foreign = await _post(client, INITIALIZE, Host=header, Origin="http://attacker.example")
        shouted = await _post(client, INITIALIZE, Host=header.upper())
        return [rebound, rebound_with_port, ok, stolen, foreign, shouted]

    # the port defaults to 8000, the one the Host headers name
    rebound, rebound_with_port, ok, stolen, foreign, shouted = _exchange({"host": host}, exchange)
    assert rebound.status_code == rebound_with_port.status_code == 421
    assert ok.status_code == 200 and ok.headers.get("mcp-session-id")
    assert stolen.status_code == 421 and "walking" not in stolen.text
    assert foreign.status_code == 403
    assert shouted.status_code == 200  # host names compare case-insensitively


def test_allowed_hosts_are_the_address_served_with_its_port() -> None:
    from citeproof.mcp.http import allowed_hosts

    assert allowed_hosts("127.0.0.2", 8000) == ["127.0.0.2:8000"]
    assert allowed_hosts("127.0.0.1", 9000) == ["127.0.0.1:9000", "localhost:9000"]
    assert allowed_hosts("LOCALHOST", 8000) == [
        "localhost:8000",
        "127.0.0.1:8000",
        "[::1]:8000",
    ]
    assert {"[::1]:8000", "localhost:8000"} <= set(allowed_hosts("[::1]", 8000))
    assert allowed_hosts("192.0.2.10", 0) == ["192.0.2.10:*"]  # port chosen at bind time
    assert "192.0.2.10" in allowed_hosts("192.0.2.10", 80)


def test_a_public_address_with_a_token_checks_its_host_too() -> None:
    async def exchange(client: httpx2.AsyncClient) -> tuple[int, int]:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        wrong = await _post(client, INITIALIZE, Host="attacker.example", **auth)
        right = await _post(client, INITIALIZE, Host="192.0.2.10:8443", **auth)
        return wrong.status_code, right.status_code

    assert _exchange({"host": "192.0.2.10", "port": 8443, "token": TOKEN}, exchange) == (421, 200)


# ------------------------------------------------------------------------------ the token


@pytest.mark.parametrize(
    ("authorization", "status"),
    [
        (f"Bearer {TOKEN}", 200),
        (f"bearer {TOKEN}", 200),
        (f"BEARER {TOKEN}", 200),
        (f"Bearer  {TOKEN}", 200),
        (f"Basic {TOKEN}", 401),
        ("Bearer wrong-token-0123456789", 401),
        (TOKEN, 401),
    ],
)
def test_the_bearer_scheme_is_accepted_in_any_case(authorization: str, status: int) -> None:
    """RFC 7235: the auth scheme is case-insensitive; "bearer TOKEN" used to be 401."""

    async def exchange(client: httpx2.AsyncClient) -> int:
        response = await _post(
            client, INITIALIZE, Host="127.0.0.1:8000", Authorization=authorization
        )
        return response.status_code

    assert _exchange({"host": "127.0.0.1", "token": TOKEN}, exchange) == status


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What `citeproof mcp --http` would serve, without serving it."""
    calls: list[dict[str, Any]] = []

    def fake_serve(server: object, **kwargs: Any) -> bool:
        calls.append(kwargs)
        kwargs["ready"](kwargs["port"])  # bound: the command prints the URL and the token
        return False

    monkeypatch.setattr(http, "serve_http", fake_serve)
    monkeypatch.delenv("CITEPROOF_MCP_TOKEN", raising=False)
    return calls


def test_loopback_without_a_token_gets_a_new_one_printed_once(
    run_cli: CliRun,
    served: list[dict[str, Any]],
) -> None:
    """Any local process could call a token-less loopback server and read the user's files."""
    result = run_cli("--http", "--port", "8123", "--no-log", command=mcp_command)
    assert result.exit_code == 0, result.output
    (call,) = served
    token = call["token"]
    assert isinstance(token, str) and len(token) >= 32
    assert result.stderr.count(token) == 1
    assert "http://127.0.0.1:8123/mcp" in result.stderr
    assert f"Authorization: Bearer {token}" in result.stderr
    again = run_cli("--http", "--no-log", command=mcp_command)
    assert again.exit_code == 0 and served[1]["token"] != token  # a new one each start


def test_no_token_is_served_only_when_asked_and_only_on_loopback(
    run_cli: CliRun,
    served: list[dict[str, Any]],
) -> None:
    result = run_cli("--http", "--no-token", "--no-log", command=mcp_command)
    assert result.exit_code == 0, result.output
    assert served[0]["token"] is None and "Bearer" not in result.stderr
    public = run_cli("--http", "--host", "0.0.0.0", "--no-token", command=mcp_command)
    assert public.exit_code == 2 and "without a bearer token" in public.stderr
    stdio = run_cli("--no-token", command=mcp_command)
    assert stdio.exit_code == 2 and "--http only" in stdio.stderr
    assert len(served) == 1


@pytest.mark.parametrize("blank", ["   ", "\t"])
def test_a_whitespace_token_is_refused_in_one_line(
    run_cli: CliRun, served: list[dict[str, Any]], blank: str
) -> None:
    """A token of only spaces used to count as none: the server ran unauthenticated."""
    for result in (
        run_cli("--http", "--token", blank, command=mcp_command),
        run_cli("--http", env={"CITEPROOF_MCP_TOKEN": blank}, command=mcp_command),
    ):
        assert result.exit_code == 2
        (line,) = result.stderr.splitlines()
        assert line.startswith("citeproof: error: the bearer token is empty or only spaces")
    assert served == []
