"""What a tool's output shows: the parts of a result an agent acts on, as *shapes*.

A shape names the keys of an object to keep: ``True`` keeps a value whole, a mapping keeps
those keys of an object (or of each object of a list), recursively.  Two marks say how a kept
value is cut further, and only ever cut, never reworded: :data:`SHORT` (a reason shortened
to :data:`MAX_REASON` characters) and :class:`Kept` (a list's items that matter: the words
of a diff that differ, the sentences of an audit with something to say).

Each tool declares its shape (:func:`citeproof.mcp.toolspec.tool`): for the tools that take
``detail`` it is the summary they answer with by default (:mod:`citeproof.mcp.summaries` cuts
the result to it), for the others the part of their answer the output schema describes; the
output schema of every tool is derived from it (:mod:`citeproof.mcp.schemas`).  The pieces
several tools share are here.  Pure data, imported with the declarations (and so by
``citeproof --help``, which names the tools): the marks are plain classes, as a dataclass
costs a third of a millisecond to define.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, TypeAlias

__all__ = [
    "ALL",
    "AUDIT",
    "CHECK",
    "MAX_REASON",
    "REFERENCE",
    "SEARCH",
    "SHORT",
    "Kept",
    "Shape",
    "Short",
    "outline",
]

#: Longest ``reason`` a summary repeats; the full object has every word.
MAX_REASON: Final = 300


class Short:
    """A text kept, cut to :data:`MAX_REASON` characters."""

    __slots__ = ()


class Kept:
    """A list's items cut to ``shape``, and only those ``keep`` holds for (once cut)."""

    __slots__ = ("keep", "shape")

    def __init__(self, shape: Shape, keep: Callable[[Mapping[str, Any]], bool]) -> None:
        self.shape = shape
        self.keep = keep


#: Which keys of an object to keep, and how (see the module docstring).
Shape: TypeAlias = Mapping[str, "Shape | Literal[True] | Short | Kept"]

ALL: Final[Literal[True]] = True
SHORT: Final = Short()


def outline(shape: Shape | Literal[True] | Short | Kept) -> Shape | Literal[True]:
    """The keys ``shape`` keeps, without how they are cut (what a schema describes)."""
    if isinstance(shape, Short):
        return True
    if isinstance(shape, Kept):
        return shape.shape
    return shape


def _changed(op: Mapping[str, Any]) -> bool:
    return op.get("op") != "equal"


def _said(sentence: Mapping[str, Any]) -> bool:
    # headings, separators, code: nothing to act on
    return sentence.get("status") != "not_a_claim" or bool(sentence.get("citations"))


LOCATION: Final[Shape] = {"section": ALL, "region": ALL, "page": ALL}
MATCH: Final[Shape] = {"start": ALL, "end": ALL, "text": ALL, "location": LOCATION}
NEAR: Final[Shape] = {
    "similarity": ALL,
    "text": ALL,
    "diff": Kept({"op": ALL, "quote": ALL, "source": ALL}, _changed),  # the words that differ
    "flags": ALL,
    "location": LOCATION,
}
FRAGMENT: Final[Shape] = {"quote": ALL, "verdict": ALL, "similarity": ALL, "flags": ALL}
SOURCE: Final[Shape] = {
    "identifier": ALL,
    "version": ALL,
    "coverage": ALL,
    "title": ALL,
    "degraded": ALL,
}
NOTICE: Final[Shape] = {"kind": ALL, "doi": ALL, "date": ALL}
RETRACTION: Final[Shape] = {
    "status": ALL,
    "as_of": ALL,
    "reason": SHORT,
    "sources": {"source": ALL, "notices": NOTICE},
}
#: A check (``citeproof.check/1``) as ``check_quote`` and ``check_quotes`` summarise it.
CHECK: Final[Shape] = {
    "schema": ALL,
    "verdict": ALL,
    "reason": SHORT,
    "matches": MATCH,
    "near": NEAR,
    "fragments": FRAGMENT,
    "flags": ALL,
    "source": SOURCE,
    "retraction": RETRACTION,
    "found_elsewhere": {"identifier": ALL, "verdict": ALL, "text": ALL},
    "log_seq": ALL,
}
WORK: Final[Shape] = {
    "source": ALL,
    "identifier": ALL,
    "title": ALL,
    "year": ALL,
    "venue": ALL,
    "retraction": ALL,
}
#: One verified reference, in ``verify_references`` and in an audit's reference list.
REFERENCE: Final[Shape] = {
    "index": ALL,
    "verdict": ALL,
    "reason": SHORT,
    "stated": {"text": ALL},
    "identifiers": {"identifier": ALL, "exists": ALL},
    "work": WORK,
    "differs": ALL,
    "suggested": WORK,
    "candidates": WORK,
    "retracted": ALL,
    "log_seq": ALL,
}
CITATION: Final[Shape] = {
    "index": ALL,
    "raw": ALL,
    "resolved_to": ALL,
    "quote": ALL,
    "verdict": ALL,
    "flags": ALL,
    "reason": SHORT,
    "check": {"verdict": ALL, "near": NEAR},
}
#: An audit report (``citeproof.audit/1``): the sentences with something to say.
AUDIT: Final[Shape] = {
    "schema": ALL,
    "verdict": ALL,
    "sentences": Kept({"index": ALL, "text": ALL, "status": ALL, "citations": CITATION}, _said),
    "metrics": {
        "claims": ALL,
        "cited_claims": ALL,
        "citations": ALL,
        "by_verdict": ALL,
        "quotes": ALL,
        "quotes_ok": ALL,
        "fabricated": ALL,
        "retracted_cited": ALL,
    },
    "fail_on": ALL,
    "references": REFERENCE,
}
#: A search record (``citeproof.search/1``), of a search or of the works citing a work.
SEARCH: Final[Shape] = {
    "schema": ALL,
    "engine": ALL,
    "query": ALL,
    "status": ALL,
    "reason": ALL,
    "hit_count": ALL,
    "next_cursor": ALL,
    "log_seq": ALL,
    "items": {"id": ALL, "title": ALL, "year": ALL, "text": ALL},
}
