"""The tools' input and output schemas: derived from their declarations, served from a file.

Why derived and cached: the SDK would generate every output schema from the published
models when the server starts, which means importing all of them and running pydantic's
schema generation for the audit report and its siblings (about a fifth of a second, every
start), and publish them whole (over 100 KB of ``tools/list``, most of it field
descriptions an agent never reads).  Instead :func:`derive` builds, for each tool,

* the **input schema** from its arguments model (derived from its method's parameters,
  :mod:`citeproof.mcp.toolspec`), without the ``title`` keywords pydantic adds to every
  property;
* a **compact output schema** from the model the tool returns, cut to the shape it declares
  (:mod:`citeproof.mcp.shapes`; for the tools that take ``detail``, the summary's): property
  names, types, enums and nullability only, no descriptions, titles, defaults or
  ``required``, and no ``additionalProperties: false`` (so the full object, a superset of
  the summary, is valid too); a sub-schema used more than once (a location, a work) is
  written once under ``$defs``.

:func:`load` reads the result from ``schemas.json`` beside this module, which is what the
server publishes; ``python -m citeproof.mcp.schemas`` writes it again after a model or an
argument changes, and ``tests/mcp/test_mcp_schemas.py`` fails while it is stale.  The full
schemas are still published by ``citeproof schema``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any, Final, Literal

from citeproof.mcp.shapes import outline

__all__ = ["SCHEMA_FILE", "derive", "load", "output_models", "write"]

SCHEMA_FILE: Final = Path(__file__).with_name("schemas.json")
#: A repeated sub-schema at least this long (compact JSON) is shared through ``$defs``.
_SHARE_AT: Final = 48
_KEEP: Final = ("type", "enum", "const")
#: An object of this many properties or more, all of one schema, is written as a map.
_MAP_AT: Final = 6
#: The fields whose enum an output schema keeps (the verdicts and states an agent branches
#: on); other enums are written as their type only.
_ENUMS: Final = frozenset({"verdict", "status", "coverage", "support", "state", "head"})


@cache
def load() -> dict[str, dict[str, Any]]:
    """tool name -> ``{"input": schema, "output": schema}``, as cached in ``schemas.json``."""
    data: dict[str, dict[str, Any]] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return data


def output_models() -> dict[str, type[Any]]:
    """tool name -> the model its structured result is (the full object)."""
    from citeproof.mcp.tools import TOOLS

    return {name: spec.output() for name, spec in TOOLS.items()}


# ------------------------------------------------------------------------------ inputs


def _untitled(node: Any, *, in_properties: bool = False) -> Any:
    """``node`` without pydantic's ``title`` keywords and ``default: null``."""
    if isinstance(node, list):
        return [_untitled(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if not in_properties and (
            (key == "title" and isinstance(value, str)) or (key == "default" and value is None)
        ):
            continue
        out[key] = _untitled(value, in_properties=key in ("properties", "$defs"))
    return out


def input_schema(tool: str) -> dict[str, Any]:
    from citeproof.mcp.tools import TOOLS

    schema: dict[str, Any] = _untitled(TOOLS[tool].arguments().model_json_schema())
    schema.setdefault("properties", {})
    return schema


# ------------------------------------------------------------------------------ outputs


class _Compactor:
    """One tool's output schema, cut to a shape; repeated parts collected for ``$defs``."""

    def __init__(self, defs: dict[str, Any]) -> None:
        self.defs = defs
        self.names: dict[str, str] = {}  # canonical JSON -> the model it came from

    def node(
        self, node: dict[str, Any], shape: Any, name: str | None = None, field: str = ""
    ) -> dict[str, Any]:
        """``node`` cut to ``shape``; ``name`` is the model it is defined as (``$defs``),
        ``field`` the property it describes (whose enum may be kept)."""
        shape = outline(shape)  # what is kept, not how it is cut
        if "$ref" in node:
            ref = node["$ref"].rsplit("/", 1)[-1]
            return self.node(self.defs[ref], shape, ref, field)
        branches = node.get("anyOf")
        if isinstance(branches, list):
            return _union([self.node(b, shape, field=field) for b in branches])
        out = self._typed(node, shape, field)
        if name is not None and out.get("type") == "object":
            self.names.setdefault(_canonical(out), name)
        return out

    def _typed(self, node: dict[str, Any], shape: Any, field: str) -> dict[str, Any]:
        """An object, an array or a scalar, by its ``type``."""
        kind = node.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if "object" in kinds or "properties" in node:
            out = self._object(node, shape)
            if kind != "object" and kind is not None:
                out["type"] = kind
            return out
        if "array" in kinds:
            out = {"type": kind}
            items = node.get("items")
            if isinstance(items, dict) and items:
                out["items"] = self.node(items, shape, field=field)
            return out
        return _scalar(node, field)

    def _object(self, node: dict[str, Any], shape: Any) -> dict[str, Any]:
        properties: dict[str, Any] = node.get("properties", {})
        out: dict[str, Any] = {"type": "object"}
        if properties:
            if shape is True:
                chosen = {key: True for key in properties}
            else:
                unknown = sorted(set(shape) - set(properties))
                if unknown:
                    raise KeyError(f"the summary shape names {unknown}, not in the model")
                chosen = dict(shape)
            described = {
                key: self.node(properties[key], sub, field=key) for key, sub in chosen.items()
            }
            kinds = {_canonical(value) for value in described.values()}
            if shape is True and len(described) >= _MAP_AT and len(kinds) == 1:
                # counts and the like: every value alike, the names say what they count
                out["additionalProperties"] = next(iter(described.values()))
                return out
            out["properties"] = described
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):
            out["additionalProperties"] = self.node(extra, True)
        return out


def _union(kept: list[dict[str, Any]]) -> dict[str, Any]:
    """An ``anyOf`` written as briefly as it can be: a nullable scalar as a list of two
    types, a union of bare types as their list, anything else as it is."""
    if len(kept) == 2 and {"type": "null"} in kept:
        other = kept[0] if kept[1] == {"type": "null"} else kept[1]
        if isinstance(other.get("type"), str) and other["type"] not in ("object", "array"):
            return {**other, "type": [other["type"], "null"]}
    types = [b.get("type") for b in kept]
    if all(isinstance(t, str) for t in types) and all(len(b) == 1 for b in kept):
        return {"type": list(dict.fromkeys(t for t in types if isinstance(t, str)))}
    return {"anyOf": kept}


def _scalar(node: dict[str, Any], field: str) -> dict[str, Any]:
    """A scalar's type, its constant, or its enum where an agent branches on it."""
    out: dict[str, Any] = {key: node[key] for key in _KEEP if key in node}
    if "const" in out:
        out.pop("type", None)
    elif "enum" in out and field not in _ENUMS:
        del out["enum"]
    return out


def _canonical(node: Any) -> str:
    return json.dumps(node, sort_keys=True, separators=(",", ":"))


def _share(schema: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """Write every sub-schema met twice or more (and not tiny) once, under ``$defs``."""
    counts: dict[str, int] = {}

    def count(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                count(item)
        elif isinstance(node, dict):
            key = _canonical(node)
            counts[key] = counts.get(key, 0) + 1
            for value in node.values():
                count(value)

    for value in schema.values():
        count(value)
    shared = {k for k, n in counts.items() if n > 1 and len(k) >= _SHARE_AT}
    if not shared:
        return schema
    defs: dict[str, Any] = {}
    taken: dict[str, str] = {}

    def replace(node: Any, hint: str) -> Any:
        if isinstance(node, list):
            return [replace(item, hint) for item in node]
        if not isinstance(node, dict):
            return node
        key = _canonical(node)
        if key in shared:
            if key not in taken:
                base = names.get(key) or hint[:1].upper() + hint[1:]
                name, n = base, 2
                while name in defs:
                    name, n = f"{base}{n}", n + 1
                taken[key] = name
                defs[name] = None  # reserved while its own parts are shared
                defs[name] = _inner(node, hint)
            return {"$ref": f"#/$defs/{taken[key]}"}
        return _inner(node, hint)

    def _inner(node: dict[str, Any], hint: str) -> dict[str, Any]:
        out = {}
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):
                out[k] = {name: replace(sub, name) for name, sub in v.items()}
            else:
                out[k] = replace(v, hint)
        return out

    out: dict[str, Any] = _inner(schema, "Part")
    out["$defs"] = defs
    return out


def output_schema(model: type[Any], shape: Any) -> dict[str, Any]:
    """``model``'s JSON schema cut to ``shape`` (``True``: every property)."""
    full = model.model_json_schema(by_alias=True, mode="serialization")
    compactor = _Compactor(full.get("$defs", {}))
    out = compactor.node({k: v for k, v in full.items() if k != "$defs"}, shape)
    return _share(out, compactor.names)


def derive() -> dict[str, dict[str, Any]]:
    """Every tool's schemas, from its declaration (what ``schemas.json`` must hold)."""
    from citeproof.mcp.tools import TOOLS

    return {
        name: {"input": input_schema(name), "output": output_schema(spec.output(), spec.shape)}
        for name, spec in TOOLS.items()
    }


def dumps(schemas: dict[str, dict[str, Any]]) -> str:
    """The file's text: one tool per line pair, so a change reads as a small diff."""
    return json.dumps(schemas, indent=1, ensure_ascii=False) + "\n"


def write(path: Path = SCHEMA_FILE) -> Literal[True]:
    path.write_text(dumps(derive()), encoding="utf-8")
    return True


if __name__ == "__main__":  # pragma: no cover - maintenance: python -m citeproof.mcp.schemas
    write()
    print(f"wrote {SCHEMA_FILE}")
