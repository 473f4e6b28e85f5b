"""The citeproof MCP server: every capability as a tool with an input and an output schema.

Built with the official SDK's ``MCPServer``; each tool is declared once, as a method of
:class:`~citeproof.mcp.tools.CiteproofTools` (:mod:`citeproof.mcp.toolspec`), and registered
here as the SDK's own ``Tool``, from that declaration and the cached schemas, rather than
derived by the SDK from the method's signature, because what the SDK would derive costs an
agent and the server too much:

* **Schemas** come from ``schemas.json`` (:mod:`citeproof.mcp.schemas`): strict input
  schemas with their limits and enums, and compact output schemas describing what each tool
  declares an agent acts on; ``tools/list`` is about a quarter of what the full model
  schemas made it, and ``citeproof schema`` still prints those.
* **Arguments** are checked inside the call, by the tool's own model (unknown arguments
  refused, one line saying what to change), not by the SDK's permissive one: the SDK is
  handed an argument model that takes the arguments as they came, in one dict
  (:func:`_as_given`), built on the SDK's base for argument models; nothing of the SDK is
  subclassed to change what it does.
* **Results** are the tool's model as JSON data (whole with ``detail: "full"``, else the
  summary, :mod:`citeproof.mcp.summaries`), sent as structured content and as the same
  object in compact JSON text for clients that read only text.
* **Start-up** imports no model and generates no schema: the first call of a tool pays for
  what it uses.

The descriptions of the server, the resource and the prompt are in
:mod:`citeproof.mcp.descriptions`; each tool's is in its declaration.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from citeproof._version import distribution_version
from citeproof.mcp import descriptions, schemas
from citeproof.mcp.descriptions import RESOURCE_TEMPLATE
from citeproof.mcp.tools import TOOL_NAMES, TOOLS, CiteproofTools, ToolSettings
from citeproof.mcp.toolspec import ToolSpec

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.tools import Tool
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
    from mcp.types import CallToolResult, ToolAnnotations

__all__ = ["PROMPT_NAME", "RESOURCE_TEMPLATE", "SERVER_NAME", "TOOL_NAMES", "build_server"]

SERVER_NAME = "citeproof"
PROMPT_NAME = "cite_with_verified_quotes"


def _result(data: dict[str, Any]) -> CallToolResult:
    from mcp.types import CallToolResult, TextContent

    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


@cache
def _as_given() -> type[ArgModelBase]:
    """The argument model the SDK is given for every tool: the arguments as they came, in
    one dict (``arguments``), so the tool checks them itself, on its worker thread, and says
    in one line what to change (the SDK's own check of a derived model would ignore unknown
    arguments and answer with pydantic's report)."""
    from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
    from pydantic import model_validator

    class AsGiven(ArgModelBase):
        arguments: dict[str, Any]

        @model_validator(mode="before")
        @classmethod
        def _whole(cls, given: Any) -> Any:
            return {"arguments": dict(given)}

    return AsGiven


def _annotations(spec: ToolSpec) -> ToolAnnotations:
    """The hints that differ from the protocol's defaults (not read-only, destructive, not
    idempotent, open world); a read-only tool's destructive and idempotent hints mean
    nothing, so they are left out."""
    from mcp.types import ToolAnnotations

    world = None if spec.open_world else False
    if spec.read_only:
        return ToolAnnotations(read_only_hint=True, open_world_hint=world)
    return ToolAnnotations(destructive_hint=False, open_world_hint=world)


def _tools(tools: CiteproofTools) -> list[Tool]:
    """The SDK's Tool objects, one per declaration: cached schemas, arguments handed to the
    tool as given (it checks them itself, see the module docstring), results converted."""
    from mcp.server.mcpserver.tools import Tool
    from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

    as_given = _as_given()
    cached = schemas.load()

    def function(name: str) -> Callable[..., CallToolResult]:
        def call(arguments: dict[str, Any]) -> CallToolResult:
            return _result(tools.call(name, arguments))

        call.__name__ = name
        return call

    return [
        Tool(
            fn=function(name),
            name=name,
            title=spec.title,
            description=spec.description,
            parameters=cached[name]["input"],
            fn_metadata=FuncMetadata(arg_model=as_given, output_schema=cached[name]["output"]),
            is_async=False,
            context_kwarg=None,
            annotations=_annotations(spec),
        )
        for name, spec in TOOLS.items()
    ]


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
