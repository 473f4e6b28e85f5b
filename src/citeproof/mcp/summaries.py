"""``detail: "summary"``: a result cut to the shape its tool declares.

A full check result is mostly what an agent never reads: the retraction report lists every
source asked with every failure reason (4-5 KB of a 6.5 KB answer), the source record its
licence, URL and fingerprints, each match its normalised offsets.  The result-heavy tools
(``check_quote``, ``check_quotes``, ``audit_answer``, ``verify_references``) therefore answer
with a summary by default and with the whole published object on ``detail: "full"``.

A summary is the full object *cut down*, never reworded: the same keys with the same
meaning, only fewer of them (the tool's :data:`~citeproof.mcp.shapes.Shape` says which),
null values left out, long reasons shortened and lists filtered where only some items matter
(the retraction sources that report a retraction, the diff's differing words, the sentences
an audit has something to say about).  So one output schema, derived from the published
models with the same shapes (:mod:`citeproof.mcp.schemas`), describes the summary and
validates the full object too.  Pure functions over JSON data; no model is imported here.
"""

from __future__ import annotations

from typing import Any, Literal

from citeproof.mcp.shapes import MAX_REASON, Kept, Shape, Short

__all__ = ["project", "summarise"]


def project(value: Any, shape: Shape | Literal[True] | Short | Kept) -> Any:
    """``value`` with only the keys ``shape`` names (null values left out), cut as it says."""
    if shape is True:
        return value
    if isinstance(shape, Short):
        return _short(value)
    if isinstance(shape, Kept):
        kept = project(value, shape.shape)
        return [item for item in kept if shape.keep(item)] if isinstance(kept, list) else kept
    if isinstance(value, list):
        return [project(item, shape) for item in value]
    if isinstance(value, dict):
        return {
            key: project(value[key], sub)
            for key, sub in shape.items()
            if value.get(key) is not None
        }
    return value


def _short(text: Any) -> Any:
    if isinstance(text, str) and len(text) > MAX_REASON:
        return text[: MAX_REASON - 1].rstrip() + "…"
    return text


def _reporting_sources_only(node: Any) -> None:
    """In every retraction report within ``node`` (the full data, before it is cut), keep
    only the sources that report a retraction or a concern; none: no ``sources`` key."""
    if isinstance(node, list):
        for item in node:
            _reporting_sources_only(item)
        return
    if not isinstance(node, dict):
        return
    if node.get("schema") == "citeproof.retraction/1" and isinstance(node.get("sources"), list):
        reporting = [s for s in node["sources"] if s.get("retracted") or s.get("concern")]
        if reporting:
            node["sources"] = reporting
        else:
            del node["sources"]
    for value in node.values():
        if isinstance(value, dict | list):
            _reporting_sources_only(value)


def summarise(shape: Shape | Literal[True], data: dict[str, Any]) -> dict[str, Any]:
    """The summary of a tool's full result ``data`` (JSON data, as published; changed in
    place on the way, so pass data nothing else holds), cut to the tool's ``shape``."""
    _reporting_sources_only(data)
    summary: dict[str, Any] = project(data, shape)
    return summary
