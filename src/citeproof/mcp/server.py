"""The citeproof MCP server: every capability as a tool with an output schema.

Built with the official SDK's ``MCPServer``: each tool is a typed function whose return
annotation is a pydantic model, so the SDK publishes the model's JSON schema as the tool's
output schema and sends the result as structured content (and as JSON text for clients
that read only text).  Tool bodies are in :mod:`citeproof.mcp.tools`, the prose agents
read in :mod:`citeproof.mcp.descriptions`; this module only assembles them, so the list
of what the server offers can be read in one place.

Annotations tell a client what a tool touches: every tool but ``verify_log`` may reach the
network (``openWorldHint``); the checking and search tools append to the evidence log, so
none is ``readOnlyHint`` except ``verify_log``, ``read_source``, ``resolve_identifier`` and
``retraction_status`` (which write nothing but the content-addressed cache).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from citeproof._version import distribution_version
from citeproof.mcp import descriptions
from citeproof.mcp.tools import CiteproofTools, ToolSettings

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["PROMPT_NAME", "RESOURCE_TEMPLATE", "SERVER_NAME", "TOOL_NAMES", "build_server"]

SERVER_NAME = "citeproof"
RESOURCE_TEMPLATE = "citeproof://source/{+identifier}"
PROMPT_NAME = "cite_with_verified_quotes"

#: name -> (description, readOnlyHint, openWorldHint, title)
_TOOLS: dict[str, tuple[str, bool, bool, str]] = {
    "check_quote": (descriptions.CHECK_QUOTE, False, True, "Check a quotation"),
    "check_quotes": (descriptions.CHECK_QUOTES, False, True, "Check many quotations"),
    "read_source": (descriptions.READ_SOURCE, True, True, "Read a source's text"),
    "resolve_identifier": (descriptions.RESOLVE_IDENTIFIER, True, True, "Resolve an identifier"),
    "retraction_status": (descriptions.RETRACTION_STATUS, True, True, "Retraction status"),
    "search_literature": (descriptions.SEARCH_LITERATURE, False, True, "Search the literature"),
    "citing_papers": (descriptions.CITING_PAPERS, False, True, "Works citing a work"),
    "verify_log": (descriptions.VERIFY_LOG, True, False, "Verify the evidence log"),
    "record_support": (descriptions.RECORD_SUPPORT, False, False, "Record a support verdict"),
    "find_passages": (descriptions.FIND_PASSAGES, False, True, "Passages with citation handles"),
    "audit_answer": (descriptions.AUDIT_ANSWER, False, True, "Audit a whole answer"),
    "verify_references": (
        descriptions.VERIFY_REFERENCES,
        False,
        True,
        "Verify a bibliography",
    ),
}
TOOL_NAMES: tuple[str, ...] = tuple(_TOOLS)


def build_server(settings: ToolSettings | None = None, **kwargs: Any) -> MCPServer:
    """The server, with its tools bound to ``settings`` (default: :class:`ToolSettings`).

    ``kwargs`` go to ``ToolSettings`` when ``settings`` is not given, e.g.
    ``build_server(log=False)``.
    """
    from mcp.server.mcpserver import MCPServer, ResourceSecurity
    from mcp.types import ToolAnnotations

    if settings is None:
        settings = ToolSettings(**kwargs)
    elif kwargs:
        raise TypeError("give settings or keyword arguments, not both")
    tools = CiteproofTools(settings)

    @contextlib.asynccontextmanager
    async def closing_tools(_: MCPServer) -> AsyncIterator[dict[str, Any]]:
        try:
            yield {}
        finally:
            tools.close()

    server: MCPServer = MCPServer(
        SERVER_NAME,
        title="citeproof",
        instructions=descriptions.INSTRUCTIONS,
        version=distribution_version(),
        log_level="WARNING",
        lifespan=closing_tools,
    )
    for name, (description, read_only, open_world, title) in _TOOLS.items():
        server.add_tool(
            getattr(tools, name),
            name=name,
            title=title,
            description=description,
            annotations=ToolAnnotations(
                title=title,
                read_only_hint=read_only,
                destructive_hint=False,
                idempotent_hint=read_only,
                open_world_hint=open_world,
            ),
            structured_output=True,
        )

    # An identifier is parsed, never used as a path, so the path-safety checks (which would
    # refuse a DOI holding "..") do not apply to it.
    @server.resource(
        RESOURCE_TEMPLATE,
        name="source_text",
        title="Extracted text of a cached source",
        description=descriptions.SOURCE_RESOURCE,
        mime_type="text/plain",
        security=ResourceSecurity(exempt_params={"identifier"}),
    )
    def source_text(identifier: str) -> str:
        return tools.source_text(identifier)

    @server.prompt(
        name=PROMPT_NAME,
        title="Cite with verified quotes",
        description=descriptions.PROMPT_DESCRIPTION,
    )
    def cite_with_verified_quotes() -> str:
        return descriptions.PROMPT_TEXT

    return server
