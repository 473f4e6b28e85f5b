"""The one base of every model citeproof publishes, and the JSON Schema style they share.

Every result citeproof hands out (a check, a retraction report, a search record, an audit
report, a passage list ...) is a frozen pydantic model with no unknown fields, so the library,
the CLI's JSON, the MCP server's structured output and the HTML view read one object, and
``model_json_schema()`` is the published schema.  :class:`Model` is that base, written once;
:class:`Published` adds what a model with a ``schema`` field needs (the field is ``schema_`` in
Python, since ``schema`` is a pydantic method name, and serialised by its alias).

The schema style:

pydantic writes an optional field ``x: str | None`` as ``{"anyOf": [{"type": "string"},
{"type": "null"}]}``.  JSON Schema says the same thing with ``{"type": ["string",
"null"]}``, which is shorter for an agent to read in ``tools/list`` and, more to the point,
cheaper to check: an MCP client validates every structured result against the tool's output
schema, and each ``anyOf`` costs it two sub-validations and, for the branch that fails, an
error object.  A check result has about forty such fields; written this way the official
client's validation of one takes about a third less time.

Only optional *scalars and arrays* are rewritten (``str | None``, ``int | None``,
``list[str] | None``, a ``Literal`` or enum ``| None``).  An optional model stays an
``anyOf`` with a ``$ref`` (a ``$ref`` cannot share ``type`` with ``null``).  The schemas
mean exactly what they meant before: the set of valid documents does not change.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict

__all__ = ["Model", "Published", "Resolved", "compact_nullable"]

# Keywords that make a branch more than "a value of this type": left as an anyOf.
_COMPOSITE = frozenset({"$ref", "anyOf", "oneOf", "allOf", "not", "const", "if"})
_NULL = {"type": "null"}


def compact_nullable(schema: dict[str, Any]) -> None:
    """Rewrite, in place, each optional scalar property of one model's schema.

    Used as every published model's ``json_schema_extra``: pydantic calls it with the
    model's own schema (its ``properties``), once per model, when a schema is generated.
    """
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            _collapse(prop)


def _collapse(prop: dict[str, Any]) -> None:
    branches = prop.get("anyOf")
    if not isinstance(branches, list) or len(branches) != 2 or _NULL not in branches:
        return
    other = branches[0] if branches[1] == _NULL else branches[1]
    if (
        not isinstance(other, dict)
        or not isinstance(other.get("type"), str)
        or other.keys() & _COMPOSITE
        or other.keys() & (prop.keys() - {"anyOf"})
    ):
        return
    del prop["anyOf"]
    prop.update(other)
    prop["type"] = [other["type"], "null"]
    if "enum" in other:
        prop["enum"] = [*other["enum"], None]


class Model(BaseModel):
    """Frozen, no unknown fields, optional scalars written compactly in the schema."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, json_schema_extra=compact_nullable
    )

    @classmethod
    def from_plain(cls, value: object) -> Self:
        """The model of a ``models.plain`` result (the same fields, read as attributes): one
        validation of the whole tree, in pydantic's core, so the model is checked exactly as
        a hand-built one would be.  Reading attributes is about twice as fast as validating
        the plain result's JSON, which matters to a batch of many checks."""
        return cls.model_validate(value, from_attributes=True)


class Published(Model):
    """A model with a ``schema`` field (``schema_`` in Python), serialised by its alias."""

    model_config = ConfigDict(serialize_by_alias=True)


class Resolved(Model):
    """The identifiers a work goes by, as far as they are known."""

    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
