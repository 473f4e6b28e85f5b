"""One declaration per tool: what ``@tool`` records, and what is derived from it.

A tool is a method of :class:`citeproof.mcp.tools.CiteproofTools` declared with
:func:`tool`, in the shape of the SDK's own examples (``examples/mcpserver/``): its
parameters, annotated with their descriptions and limits, are its arguments; its return
annotation is the model it answers with; the decorator gives the rest (title, description,
hints, and the shape of its output, :mod:`citeproof.mcp.shapes`).  Everything else is
derived from that one declaration: the list the server registers (:data:`TOOLS`, in
declaration order), the arguments model that checks a call (:meth:`ToolSpec.arguments`), the
output model (:meth:`ToolSpec.output`), the cached schemas (:mod:`citeproof.mcp.schemas`) and
the summary (:mod:`citeproof.mcp.summaries`).

Why the decorator does not register the method with the SDK directly: the SDK would derive
the schemas from the models when the server starts (a fifth of a second, and over 100 KB of
``tools/list``).  So nothing here is evaluated when the server starts: the annotations stay
text until a tool is first called or the schemas are written again, and are then read in
the namespace of :mod:`citeproof.mcp.arguments` (the argument types) and
:mod:`citeproof.mcp.outputs` (the result models).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from citeproof.mcp.shapes import Shape

if TYPE_CHECKING:
    from pydantic import BaseModel

    from citeproof.mcp.arguments import Arguments

__all__ = ["ToolSpec", "declared", "tool"]

F = TypeVar("F", bound=Callable[..., Any])


class ToolSpec:
    """A tool as declared: everything the server, the schemas and the summaries need.

    (A plain class, not a dataclass: ``citeproof --help`` imports the declarations to name
    the tools, and a dataclass costs that a third of a millisecond to define.)
    """

    __slots__ = (
        "description",
        "detail",
        "handler",
        "name",
        "open_world",
        "read_only",
        "shape",
        "title",
    )

    def __init__(
        self,
        name: str,
        title: str,
        description: str,
        handler: Callable[..., Any],
        *,
        read_only: bool,
        open_world: bool,
        shape: Shape | Literal[True],
        detail: bool,
    ) -> None:
        self.name = name
        self.title = title
        self.description = description
        #: The method: ``handler(tools, **arguments)`` returns the tool's model.
        self.handler = handler
        #: Writes nothing but the content-addressed cache (``readOnlyHint``).
        self.read_only = read_only
        #: May reach the network (``openWorldHint``).
        self.open_world = open_world
        #: What the output schema describes; with ``detail``, what the summary keeps.
        self.shape = shape
        #: Takes ``detail`` (``summary``, the default, or ``full``).
        self.detail = detail

    def __repr__(self) -> str:
        return f"ToolSpec({self.name!r})"

    def arguments(self) -> type[Arguments]:
        """The model a call's arguments are checked against (built on first use)."""
        return _arguments(self)

    def output(self) -> type[BaseModel]:
        """The model the tool answers with (its whole published object)."""
        model: type[BaseModel] = _hints(self)["return"]
        return model


#: Where :func:`tool` leaves a method's declaration, for :func:`declared` to find.
_SPEC: Final = "__citeproof_tool__"


def tool(
    *,
    title: str,
    description: str,
    read_only: bool = False,
    open_world: bool = True,
    shape: Shape | Literal[True] = True,
    detail: bool = False,
) -> Callable[[F], F]:
    """Declare the decorated method a tool named after it (see the module docstring)."""

    def declare(handler: F) -> F:
        spec = ToolSpec(
            handler.__name__,
            title,
            description,
            handler,
            read_only=read_only,
            open_world=open_world,
            shape=shape,
            detail=detail,
        )
        setattr(handler, _SPEC, spec)
        return handler

    return declare


def declared(cls: type) -> dict[str, ToolSpec]:
    """Every tool declared on ``cls``, in the order its methods are defined."""
    found = (getattr(member, _SPEC, None) for member in vars(cls).values())
    return {spec.name: spec for spec in found if isinstance(spec, ToolSpec)}


@cache
def _hints(spec: ToolSpec) -> dict[str, Any]:
    """The handler's annotations, evaluated (``Annotated`` kept for the field metadata)."""
    from typing import get_type_hints

    from citeproof.mcp import arguments, outputs

    names = {**spec.handler.__globals__, **vars(arguments), **vars(outputs)}
    return get_type_hints(spec.handler, globalns=names, include_extras=True)


#: The parameter every method has and no tool takes.
_SELF: Final = "self"


@cache
def _arguments(spec: ToolSpec) -> type[Arguments]:
    import inspect

    from citeproof.mcp.arguments import model_for

    hints = _hints(spec)
    fields = {
        name: (hints[name], ... if p.default is inspect.Parameter.empty else p.default)
        for name, p in inspect.signature(spec.handler).parameters.items()
        if name != _SELF
    }
    return model_for(spec.name, fields, detail=spec.detail)
