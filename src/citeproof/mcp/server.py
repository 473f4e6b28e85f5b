"""The citeproof MCP server: every capability as a tool with an input and an output schema.

Built with the official SDK's ``MCPServer``, but the tools are registered as the SDK's own
``Tool`` objects, built here rather than derived from the functions' signatures, because
what the SDK would derive costs an agent and the server too much:

* **Schemas** come from ``schemas.json`` (:mod:`citeproof.mcp.schemas`): strict input
  schemas with their limits and enums, and compact output schemas describing the summary an
  agent gets by default; ``tools/list`` is about a quarter of what the full model schemas
  made it, and ``citeproof schema`` still prints those.
* **Arguments** are checked by :mod:`citeproof.mcp.arguments` inside the call (unknown
  arguments refused, one line saying what to change), not by the SDK's permissive model.
* **Results** are the tool's model as JSON data (whole with ``detail: "full"``, else the
  summary, :mod:`citeproof.mcp.summaries`), sent as structured content and as the same
  object in compact JSON text for clients that read only text.
* **Start-up** imports no model and generates no schema: the first call of a tool pays for
  what it uses.

Annotations tell a client what a tool touches: every tool but the log tools may reach the
network (``openWorldHint``); the checking and search tools append to the evidence log, so
none is ``readOnlyHint`` except ``verify_log``, ``read_source``, ``resolve_identifier``,
``retraction_status`` and ``resolve_handles`` (which write nothing but the content-addressed
cache).  The descriptions are in :mod:`citeproof.mcp.descriptions`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from citeproof._version import distribution_version
from citeproof.mcp import descriptions, schemas
from citeproof.mcp.descriptions import RESOURCE_TEMPLATE, TOOL_NAMES
from citeproof.mcp.tools import CiteproofTools, ToolSettings

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
    from mcp.types import CallToolResult, ToolAnnotations

__all__ = ["PROMPT_NAME", "RESOURCE_TEMPLATE", "SERVER_NAME", "TOOL_NAMES", "build_server"]

SERVER_NAME = "citeproof"
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
    "verify_references": (descriptions.VERIFY_REFERENCES, False, True, "Verify a bibliography"),
    "resolve_handles": (descriptions.RESOLVE_HANDLES, True, True, "Resolve citation handles"),
    "log_checkpoint": (descriptions.LOG_CHECKPOINT, False, False, "Sign a log checkpoint"),
}


def _result(data: dict[str, Any]) -> CallToolResult:
    from mcp.types import CallToolResult, TextContent

    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


@cache
def _raw_arguments() -> type[FuncMetadata]:
    """The SDK's per-tool metadata, with the arguments passed on unchecked as one dict
    (``arguments``): the tool checks them itself, on its worker thread, and says in one line
    what to change (the SDK's own check would ignore unknown arguments and answer with
    pydantic's report)."""
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    class RawArguments(FuncMetadata):
        def validate_arguments(self, arguments_to_validate: dict[str, Any]) -> dict[str, Any]:
            return {"arguments": dict(arguments_to_validate)}

    return RawArguments


def _annotations(read_only: bool, open_world: bool) -> ToolAnnotations:
    """The hints that differ from the protocol's defaults (not read-only, destructive, not
    idempotent, open world); a read-only tool's destructive and idempotent hints mean
    nothing, so they are left out."""
    from mcp.types import ToolAnnotations

    world = None if open_world else False
    if read_only:
        return ToolAnnotations(read_only_hint=True, open_world_hint=world)
    return ToolAnnotations(destructive_hint=False, open_world_hint=world)


def _tools(tools: CiteproofTools) -> list[Tool]:
    """The SDK's Tool objects: cached schemas, arguments handed to the tool unchecked (it
    checks them itself, see the module docstring), results already converted."""
    from mcp.server.mcpserver.tools import Tool
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase

    raw_arguments = _raw_arguments()
    cached = schemas.load()

    def function(name: str) -> Callable[..., CallToolResult]:
        def call(arguments: dict[str, Any]) -> CallToolResult:
            return _result(tools.call(name, arguments))

        call.__name__ = name
        return call

    built = []
    for name, (description, read_only, open_world, title) in _TOOLS.items():
        built.append(
            Tool(
                fn=function(name),
                name=name,
                title=title,
                description=description,
                parameters=cached[name]["input"],
                fn_metadata=raw_arguments(
                    arg_model=ArgModelBase, output_schema=cached[name]["output"]
                ),
                is_async=False,
                context_kwarg=None,
                annotations=_annotations(read_only, open_world),
            )
        )
    return built


def build_server(settings: ToolSettings | None = None, **kwargs: Any) -> MCPServer:
    """The server, with its tools bound to ``settings`` (default: :class:`ToolSettings`).

    ``kwargs`` go to ``ToolSettings`` when ``settings`` is not given, e.g.
    ``build_server(log=False)``.
    """
    from mcp.server.mcpserver import MCPServer, ResourceSecurity
    from mcp.server.mcpserver.prompts import Prompt

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
        tools=_tools(tools),
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

    # Built directly: it takes no arguments, so there is no argument model to derive.
    server.add_prompt(
        Prompt(
            name=PROMPT_NAME,
            title="Cite with verified quotes",
            description=descriptions.PROMPT_DESCRIPTION,
            arguments=[],
            fn=lambda: descriptions.PROMPT_TEXT,
            context_kwarg=None,
        )
    )
    return server
