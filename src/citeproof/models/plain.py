"""The ``citeproof.check/1`` result as plain Python objects: what a one-shot check can print
without importing pydantic.

``citeproof check QUOTE FILE`` is mostly start-up, and importing pydantic and building the
result models cost about half of it (issue 16).  The match step therefore builds these
classes, which have :mod:`citeproof.models.check`'s fields, in the same order: they are
generated from its declarations (below the marker, by ``python -m citeproof.models.mirror``,
which says how), so each field is declared once.  :func:`to_json` gives exactly what
``CheckResult.model_dump(mode="json")`` gives (so ``check --json`` prints the same bytes either
way), and :meth:`citeproof.models.base.Model.from_plain` turns one into its pydantic model
when a caller needs the model (the library, the MCP server, the steps after the match).
``tests/unit/test_plain_results.py`` fails when the classes are not current, and compares the
two forms' fields, defaults and JSON.

Why classes with ``__slots__`` rather than dataclasses: defining a dataclass compiles its
generated methods, and on this interpreter that cost about 1 ms a class, 8 to 10 ms for these
ten, every time ``citeproof check`` starts (measured by patching
``dataclasses._process_class``); these cost next to nothing to define.  Equality and repr
come from :class:`Plain`, by the slots.  Treat the objects as values: they are built once,
by ``service.results``, and only filled in there.

Only the match step's part is mirrored: the retraction report and find-source's findings
exist only as models, so here they are always null.

Written by hand, above the marker: the vocabularies ``models.check`` imports from here (the
verdicts, the coverages, the schema's name), :class:`Plain` and :func:`to_json`.  Imports
nothing but the standard library: that is the point of the module.
"""

# The slots are in the model's field order, which is the JSON's key order: not sorted.
# ruff: noqa: RUF023

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

__all__ = [
    "CHECK_SCHEMA",
    "VERDICTS",
    "CheckResult",
    "Coverage",
    "DiffOp",
    "Fragment",
    "Location",
    "Match",
    "Near",
    "Plain",
    "Refresh",
    "Resolved",
    "SourceInfo",
    "Verdict",
    "WordBoundaries",
    "to_json",
]

Verdict = Literal["EXACT", "NEAR", "NOT_FOUND", "TOO_SHORT", "NOT_CHECKABLE", "UNAVAILABLE"]
VERDICTS: tuple[Verdict, ...] = (
    "EXACT",
    "NEAR",
    "NOT_FOUND",
    "TOO_SHORT",
    "NOT_CHECKABLE",
    "UNAVAILABLE",
)
Coverage = Literal["full_text", "abstract", "page", "file", "text", "none"]
"""``none``: no text was obtained (an UNAVAILABLE or NOT_CHECKABLE identifier)."""
CHECK_SCHEMA: Literal["citeproof.check/1"] = "citeproof.check/1"


class Plain:
    """The base of the classes below: fields are the slots, in the model's order."""

    __slots__: ClassVar[tuple[str, ...]] = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__
        )

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({shown})"


def to_json(value: Any) -> Any:
    """A plain result (or a list of them) as the JSON value its model's
    ``model_dump(mode="json")`` gives: the same keys, in the same order, the same values."""
    if isinstance(value, Plain):
        return {_ALIASES.get(name, name): to_json(getattr(value, name)) for name in value.__slots__}
    if isinstance(value, list):
        return [to_json(item) for item in value]
    return value


# Generated from models/check.py by `python -m citeproof.models.mirror`: do not edit below.

#: Python names that are serialised under another key (pydantic's aliases).
_ALIASES: dict[str, str] = {"schema_": "schema"}


class Resolved(Plain):
    """The identifiers a work goes by, as far as they are known."""

    __slots__ = (
        "doi",
        "pmid",
        "pmcid",
    )

    def __init__(
        self,
        *,
        doi: str | None = None,
        pmid: str | None = None,
        pmcid: str | None = None,
    ) -> None:
        self.doi = doi
        self.pmid = pmid
        self.pmcid = pmcid


class Location(Plain):
    """Where in the document a span lies."""

    __slots__ = (
        "block",
        "section",
        "region",
        "page",
    )

    def __init__(
        self,
        *,
        block: int | None,
        section: Sequence[str] = (),
        region: str | None,
        page: int | None = None,
    ) -> None:
        self.block = block
        self.section = list(section)
        self.region = region
        self.page = page


class Match(Plain):
    """One occurrence of the quote."""

    __slots__ = (
        "start",
        "end",
        "normalized_start",
        "normalized_end",
        "text",
        "location",
    )

    def __init__(
        self,
        *,
        start: int,
        end: int,
        normalized_start: int,
        normalized_end: int,
        text: str,
        location: Location,
    ) -> None:
        self.start = start
        self.end = end
        self.normalized_start = normalized_start
        self.normalized_end = normalized_end
        self.text = text
        self.location = location


class WordBoundaries(Plain):
    __slots__ = (
        "starts_mid_word",
        "ends_mid_word",
    )

    def __init__(
        self,
        *,
        starts_mid_word: bool,
        ends_mid_word: bool,
    ) -> None:
        self.starts_mid_word = starts_mid_word
        self.ends_mid_word = ends_mid_word


class DiffOp(Plain):
    """One step of the word-level diff from the source's wording to the quote.

    ``equal``: both have these words; ``replace``: the quote has ``quote`` where the source
    has ``source``; ``insert``: words only in the quote; ``delete``: words only in the source.
    """

    __slots__ = (
        "op",
        "quote",
        "source",
    )

    def __init__(
        self,
        *,
        op: Literal["equal", "replace", "insert", "delete"],
        quote: str,
        source: str,
    ) -> None:
        self.op = op
        self.quote = quote
        self.source = source


class Near(Plain):
    """The closest passage when there is no exact occurrence."""

    __slots__ = (
        "similarity",
        "start",
        "end",
        "text",
        "diff",
        "flags",
        "location",
    )

    def __init__(
        self,
        *,
        similarity: float,
        start: int,
        end: int,
        text: str,
        diff: Sequence[DiffOp],
        flags: Sequence[str],
        location: Location | None = None,
    ) -> None:
        self.similarity = similarity
        self.start = start
        self.end = end
        self.text = text
        self.diff = list(diff)
        self.flags = list(flags)
        self.location = location


class Fragment(Plain):
    """One piece of an ellipsis or bracketed quote."""

    __slots__ = (
        "quote",
        "verdict",
        "start",
        "end",
        "similarity",
        "gap_before",
        "flags",
    )

    def __init__(
        self,
        *,
        quote: str,
        verdict: Verdict,
        start: int | None,
        end: int | None,
        similarity: float | None = None,
        gap_before: int | None = None,
        flags: Sequence[str] = (),
    ) -> None:
        self.quote = quote
        self.verdict = verdict
        self.start = start
        self.end = end
        self.similarity = similarity
        self.gap_before = gap_before
        self.flags = list(flags)


class Refresh(Plain):
    """What ``--refresh`` found: the sha256 pinned before, and whether the bytes changed."""

    __slots__ = (
        "previous_sha256",
        "changed",
    )

    def __init__(
        self,
        *,
        previous_sha256: str,
        changed: bool,
    ) -> None:
        self.previous_sha256 = previous_sha256
        self.changed = changed


class SourceInfo(Plain):
    """What was checked: which bytes, from where, and how much of the work."""

    __slots__ = (
        "input",
        "kind",
        "identifier",
        "resolved",
        "served_by",
        "version",
        "coverage",
        "sha256",
        "md5_ok",
        "licence",
        "url",
        "retrieved_at",
        "title",
        "fingerprint_ok",
        "refresh",
        "degraded",
    )

    def __init__(
        self,
        *,
        input: str,
        kind: str,
        identifier: str | None = None,
        resolved: Resolved | None = None,
        served_by: str | None = None,
        version: str | None = None,
        coverage: Coverage,
        sha256: str | None = None,
        md5_ok: bool | None = None,
        licence: str | None = None,
        url: str | None = None,
        retrieved_at: str | None = None,
        title: str | None = None,
        fingerprint_ok: bool | None = None,
        refresh: Refresh | None = None,
        degraded: str | None = None,
    ) -> None:
        self.input = input
        self.kind = kind
        self.identifier = identifier
        self.resolved = Resolved() if resolved is None else resolved
        self.served_by = served_by
        self.version = version
        self.coverage = coverage
        self.sha256 = sha256
        self.md5_ok = md5_ok
        self.licence = licence
        self.url = url
        self.retrieved_at = retrieved_at
        self.title = title
        self.fingerprint_ok = fingerprint_ok
        self.refresh = refresh
        self.degraded = degraded


class CheckResult(Plain):
    """The answer to one quote check (schema ``citeproof.check/1``)."""

    __slots__ = (
        "schema_",
        "verdict",
        "reason",
        "quote",
        "normalisation",
        "matches",
        "count",
        "ambiguous",
        "casefold_match",
        "word_boundaries",
        "near",
        "fragments",
        "flags",
        "source",
        "retraction",
        "found_elsewhere",
        "searched_elsewhere",
        "log_seq",
    )

    def __init__(
        self,
        *,
        verdict: Verdict,
        reason: str | None = None,
        quote: str,
        normalisation: str = "t1",
        matches: Sequence[Match] = (),
        count: int = 0,
        ambiguous: bool = False,
        casefold_match: bool = False,
        word_boundaries: WordBoundaries | None = None,
        near: Near | None = None,
        fragments: Sequence[Fragment] | None = None,
        flags: Sequence[str] = (),
        source: SourceInfo,
        log_seq: int | None = None,
    ) -> None:
        self.schema_: Literal["citeproof.check/1"] = "citeproof.check/1"
        self.verdict = verdict
        self.reason = reason
        self.quote = quote
        self.normalisation = normalisation
        self.matches = list(matches)
        self.count = count
        self.ambiguous = ambiguous
        self.casefold_match = casefold_match
        self.word_boundaries = word_boundaries
        self.near = near
        self.fragments = None if fragments is None else list(fragments)
        self.flags = list(flags)
        self.source = source
        self.retraction: None = None
        self.found_elsewhere: None = None
        self.searched_elsewhere: None = None
        self.log_seq = log_seq

    @property
    def ok(self) -> bool:
        return self.verdict == "EXACT"
