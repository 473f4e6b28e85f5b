"""Helpers for the MCP server tests: a client call, its schema check, the paths used.

Kept out of conftest.py (which holds the fixtures) so test modules can import them; the
directory has no ``__init__.py`` on purpose, since a package named ``mcp`` would shadow the SDK.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import jsonschema
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "example-article.nxml"
NOTES = REPO / "examples" / "example-notes.txt"
CORPUS = REPO.parent / "shared" / "corpus"
PINNED_KEY = "pmcid:PMC9990001"  # an invented PMCID, pinned by the `pinned` fixture
#: A client's first message.
INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}

T = TypeVar("T")


def server_env(home: Path) -> dict[str, str]:
    """The environment of a server subprocess: a private home, recordings from an empty
    folder (so a request that slipped through fails instead of reaching the network)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    replay = home / "no-recordings"
    replay.mkdir(exist_ok=True)
    env.update({"CITEPROOF_HOME": str(home), "CITEPROOF_REPLAY": str(replay)})
    return env


def run(fn: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(fn)


def call(server: MCPServer, name: str, arguments: dict[str, Any]) -> CallToolResult:
    """One tool call through the SDK's in-process client."""

    async def go() -> CallToolResult:
        async with Client(server) as client:
            return await client.call_tool(name, arguments)

    return run(go)


def output_schema(server: MCPServer, name: str) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        async with Client(server) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        schema = tools[name].output_schema
        assert schema is not None, f"{name} has no output schema"
        return schema

    return run(go)


def structured(server: MCPServer, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Call a tool that must succeed; check its structured content against its schema."""
    result = call(server, name, arguments)
    assert not result.is_error, result.content
    data = result.structured_content
    assert isinstance(data, dict)
    jsonschema.validate(data, output_schema(server, name))
    return data


def full(server: MCPServer, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """:func:`structured` with ``detail: "full"``: the whole published object."""
    return structured(server, name, {**arguments, "detail": "full"})


def error_text(server: MCPServer, name: str, arguments: dict[str, Any]) -> str:
    """Call a tool that must fail with a tool error (not a protocol error); its message."""
    result = call(server, name, arguments)
    assert result.is_error, result.structured_content
    assert result.structured_content is None
    (block,) = result.content
    text = getattr(block, "text", "")
    assert text.startswith(f"Error executing tool {name}: ")
    return text
