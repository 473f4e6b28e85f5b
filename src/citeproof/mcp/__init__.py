"""citeproof as an MCP server: the tools agents call to check quotes before presenting them.

``build_server()`` returns the SDK's ``MCPServer`` with every tool, the source resource and
the ``cite_with_verified_quotes`` prompt; ``citeproof mcp`` runs it over stdio (or streamable
HTTP with ``--http``).  Nothing is imported here at package import time, so that
``citeproof --help`` never pays for the SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["build_server"]


def build_server(*args: Any, **kwargs: Any) -> MCPServer:
    """See :func:`citeproof.mcp.server.build_server`."""
    from citeproof.mcp.server import build_server as build

    return build(*args, **kwargs)
