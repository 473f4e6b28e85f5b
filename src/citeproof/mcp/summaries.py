"""``detail: "summary"``: the part of a result an agent acts on, and the shape it has.

A full check result is mostly what an agent never reads: the retraction report lists every
source asked with every failure reason (4-5 KB of a 6.5 KB answer), the source record its
licence, URL and fingerprints, each match its normalised offsets.  The result-heavy tools
(``check_quote``, ``check_quotes``, ``audit_answer``, ``verify_references``) therefore answer
with a summary by default and with the whole published object on ``detail: "full"``.

A summary is the full object *cut down*, never reworded: the same keys with the same
meaning, only fewer of them (a :data:`Shape` says which), null values left out, and lists
filtered where only some items matter (the retraction sources that report a retraction, the
diff's differing words, the sentences an audit has something to say about).  So one output
schema, derived from the published models with the same shapes
(:mod:`citeproof.mcp.schemas`), describes the summary and validates the full object too.
Pure functions over JSON data; no model is imported here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, TypeAlias

__all__ = ["DESCRIBED", "SHAPES", "Shape", "project", "summarise"]

#: Which keys of an object to keep: ``True`` keeps the value whole, a mapping keeps those
#: keys of an object (or of each object of a list), recursively.
Shape: TypeAlias = Mapping[str, "Shape | Literal[True]"]

_ALL: Final[Literal[True]] = True
#: Longest ``reason`` a summary repeats; the full object has every word.
MAX_REASON: Final = 300

LOCATION: Final[Shape] = {"section": _ALL, "region": _ALL, "page": _ALL}
MATCH: Final[Shape] = {"start": _ALL, "end": _ALL, "text": _ALL, "location": LOCATION}
NEAR: Final[Shape] = {
    "similarity": _ALL, "text": _ALL, "diff": {"op": _ALL, "quote": _ALL, "source": _ALL},
    "flags": _ALL, "location": LOCATION,
}  # fmt: skip
FRAGMENT: Final[Shape] = {"quote": _ALL, "verdict": _ALL, "similarity": _ALL, "flags": _ALL}
SOURCE: Final[Shape] = {
    "identifier": _ALL, "version": _ALL, "coverage": _ALL, "title": _ALL, "degraded": _ALL,
}  # fmt: skip
NOTICE: Final[Shape] = {"kind": _ALL, "doi": _ALL, "date": _ALL}
RETRACTION: Final[Shape] = {
    "status": _ALL, "as_of": _ALL, "reason": _ALL, "sources": {"source": _ALL, "notices": NOTICE},
}  # fmt: skip
CHECK: Final[Shape] = {
    "schema": _ALL, "verdict": _ALL, "reason": _ALL, "matches": MATCH, "near": NEAR,
    "fragments": FRAGMENT, "flags": _ALL, "source": SOURCE, "retraction": RETRACTION,
    "found_elsewhere": {"identifier": _ALL, "verdict": _ALL, "text": _ALL},
    "log_seq": _ALL,
}  # fmt: skip
CHECK_QUOTES: Final[Shape] = {
    "items": {"index": _ALL, "result": CHECK, "error": _ALL},
    "by_verdict": _ALL,
    "errors": _ALL,
}
WORK: Final[Shape] = {
    "source": _ALL, "identifier": _ALL, "title": _ALL, "year": _ALL, "venue": _ALL,
    "retraction": _ALL,
}  # fmt: skip
REFERENCE: Final[Shape] = {
    "index": _ALL, "verdict": _ALL, "reason": _ALL, "stated": {"text": _ALL},
    "identifiers": {"identifier": _ALL, "exists": _ALL}, "work": WORK, "differs": _ALL,
    "suggested": WORK, "candidates": WORK, "retracted": _ALL, "log_seq": _ALL,
}  # fmt: skip
REFERENCES: Final[Shape] = {"schema": _ALL, "references": REFERENCE, "counts": _ALL}
CITATION: Final[Shape] = {
    "index": _ALL, "raw": _ALL, "resolved_to": _ALL, "quote": _ALL, "verdict": _ALL,
    "flags": _ALL, "reason": _ALL, "check": {"verdict": _ALL, "near": NEAR},
}  # fmt: skip
AUDIT: Final[Shape] = {
    "schema": _ALL, "verdict": _ALL,
    "sentences": {"index": _ALL, "text": _ALL, "status": _ALL, "citations": CITATION},
    "metrics": {
        "claims": _ALL, "cited_claims": _ALL, "citations": _ALL, "by_verdict": _ALL,
        "quotes": _ALL, "quotes_ok": _ALL, "fabricated": _ALL, "retracted_cited": _ALL,
    },
    "fail_on": _ALL, "references": REFERENCE,
}  # fmt: skip

#: tool -> the shape of its summary (the tools that take ``detail``).
SHAPES: Final[dict[str, Shape]] = {
    "check_quote": CHECK,
    "check_quotes": CHECK_QUOTES,
    "audit_answer": AUDIT,
    "verify_references": REFERENCES,
}

#: tool -> what its output schema describes, for the tools that always answer in full: the
#: fields an agent acts on (the object has more; ``citeproof schema`` describes them all).
DESCRIBED: Final[dict[str, Shape]] = {
    "read_source": {
        "status": _ALL, "reason": _ALL, "source": SOURCE, "start": _ALL, "end": _ALL,
        "total_chars": _ALL, "next_start": _ALL, "text": _ALL,
        "blocks": {"start": _ALL, "end": _ALL, "kind": _ALL, "section": _ALL, "region": _ALL,
                   "page": _ALL},
    },
    "resolve_identifier": {
        "status": _ALL, "reason": _ALL, "key": _ALL, "kind": _ALL, "resolved": _ALL,
        "served_by": _ALL, "coverage": _ALL, "version": _ALL, "sha256": _ALL, "title": _ALL,
    },
    "retraction_status": {
        "schema": _ALL, "identifier": _ALL, "status": _ALL, "as_of": _ALL, "reason": _ALL,
        "sources": {"source": _ALL, "state": _ALL, "reason": _ALL, "notices": NOTICE},
    },
    "search_literature": {
        "schema": _ALL, "engine": _ALL, "query": _ALL, "status": _ALL, "reason": _ALL,
        "hit_count": _ALL, "next_cursor": _ALL, "log_seq": _ALL,
        "items": {"id": _ALL, "title": _ALL, "year": _ALL, "text": _ALL},
    },
    "verify_log": {
        "ok": _ALL, "entries": _ALL, "head": _ALL, "checkpoint_size": _ALL,
        "problems": {"code": _ALL, "message": _ALL, "seq": _ALL},
    },
    "find_passages": {
        "status": _ALL, "reason": _ALL, "total": _ALL,
        "source": {"identifier": _ALL, "coverage": _ALL, "version": _ALL},
        "passages": {"handle": _ALL, "kind": _ALL, "text": _ALL, "section": _ALL,
                     "region": _ALL, "page": _ALL, "start": _ALL, "end": _ALL, "score": _ALL},
    },
    "resolve_handles": {
        "handles": {"handle": _ALL, "status": _ALL, "reason": _ALL, "source": _ALL,
                    "current_text": _ALL, "version_changed": _ALL, "text_changed": _ALL},
        "by_status": _ALL,
    },
}  # fmt: skip
DESCRIBED["citing_papers"] = DESCRIBED["search_literature"]


def project(value: Any, shape: Shape | Literal[True]) -> Any:
    """``value`` with only the keys ``shape`` names (null values left out)."""
    if shape is True:
        return value
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


def _trim_check(check: dict[str, Any]) -> dict[str, Any]:
    """Only the differing words of the diff; long reasons shortened."""
    near = check.get("near")
    if isinstance(near, dict) and isinstance(near.get("diff"), list):
        near["diff"] = [op for op in near["diff"] if op.get("op") != "equal"]
    retraction = check.get("retraction")
    if isinstance(retraction, dict) and "reason" in retraction:
        retraction["reason"] = _short(retraction["reason"])
    if "reason" in check:
        check["reason"] = _short(check["reason"])
    return check


def _check_quote(data: dict[str, Any]) -> dict[str, Any]:
    return _trim_check(data)


def _check_quotes(data: dict[str, Any]) -> dict[str, Any]:
    for item in data.get("items", []):
        if isinstance(item.get("result"), dict):
            _trim_check(item["result"])
    return data


def _audit(data: dict[str, Any]) -> dict[str, Any]:
    _references(data)
    kept = []
    for sentence in data.get("sentences", []):
        if sentence.get("status") == "not_a_claim" and not sentence.get("citations"):
            continue  # headings, separators, code: nothing to act on
        for citation in sentence.get("citations", []):
            if isinstance(citation.get("check"), dict):
                _trim_check(citation["check"])
            if "reason" in citation:
                citation["reason"] = _short(citation["reason"])
        kept.append(sentence)
    data["sentences"] = kept
    return data


def _references(data: dict[str, Any]) -> dict[str, Any]:
    for reference in data.get("references", []):
        if "reason" in reference:
            reference["reason"] = _short(reference["reason"])
    return data


_TRIM: Final[dict[str, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "check_quote": _check_quote,
    "check_quotes": _check_quotes,
    "audit_answer": _audit,
    "verify_references": _references,
}


def summarise(tool: str, data: dict[str, Any]) -> dict[str, Any]:
    """The summary of ``tool``'s full result ``data`` (JSON data, as published; changed in
    place on the way, so pass data nothing else holds)."""
    _reporting_sources_only(data)
    projected: dict[str, Any] = project(data, SHAPES[tool])
    return _TRIM[tool](projected)
