"""Fixtures for the MCP server tests: a server per test, a pinned document, no network.

Every test runs with the suite's private ``CITEPROOF_HOME`` (tests/conftest.py), so the
evidence log and the cache start empty; ``CITEPROOF_REPLAY`` points at an empty folder, so a
request that slipped through would fail as "no recording" instead of reaching the network.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from mcp.server.mcpserver import MCPServer
from mcp_helpers import EXAMPLE, PINNED_KEY

from citeproof.mcp.server import build_server


@pytest.fixture(autouse=True)
def _empty_replay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "no-recordings"
    folder.mkdir()
    monkeypatch.setenv("CITEPROOF_REPLAY", str(folder))
    return folder


@pytest.fixture
def server() -> MCPServer:
    return build_server()


@pytest.fixture
def pinned() -> str:
    """Pin the example article in the cache under an invented PMCID; return its key."""
    from citeproof.loading.pins import open_cache

    with open_cache() as cache:
        cache.pin(
            PINNED_KEY,
            EXAMPLE.read_bytes(),
            retrieved_at=datetime(2025, 1, 2, tzinfo=UTC).isoformat(),
            served_by="pmc-oa",
            version="1",
            url="https://example.org/invented",
            media_type="application/xml",
            meta={"coverage": "full_text", "md5_ok": True},
        )
    return PINNED_KEY
