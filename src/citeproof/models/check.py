"""The ``citeproof.check/1`` result: the answer to one quote check, as every interface prints it.

Field names follow the JSON contract (docs/principles.md, "The JSON contracts").  Fields may
be added; none is renamed or removed without bumping ``schema``.  These classes are also the
declaration of ``models.plain``, the same result without pydantic for a one-shot check: after
a change here, ``python -m citeproof.models.mirror`` writes it again (a test fails until then).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citeproof.models.base import Model, Published, Resolved
from citeproof.models.plain import CHECK_SCHEMA as CHECK_SCHEMA
from citeproof.models.plain import VERDICTS as VERDICTS
from citeproof.models.plain import Coverage as Coverage
from citeproof.models.plain import Verdict as Verdict
from citeproof.models.retraction import RetractionReport

# The verdicts, the coverages and the schema's name are defined once, in ``models.plain``
# (which a one-shot check uses without pydantic), and are re-exported here.


class Location(Model):
    """Where in the document a span lies."""

    block: int | None = Field(description="Index of the block (see `citeproof text --blocks`).")
    section: list[str] = Field(default_factory=list, description="Section titles, outermost first.")
    region: str | None = Field(
        description="title, abstract, body, caption, table, footnote, "
        "references, front-matter, back-matter or other."
    )
    page: int | None = Field(default=None, description="1-based PDF page, else null.")


class Match(Model):
    """One occurrence of the quote."""

    start: int = Field(description="Start offset (code points) into the extracted text.")
    end: int = Field(description="End offset, exclusive.")
    normalized_start: int
    normalized_end: int
    text: str = Field(description="The source's own text at [start, end).")
    location: Location


class WordBoundaries(Model):
    starts_mid_word: bool
    ends_mid_word: bool


class DiffOp(Model):
    """One step of the word-level diff from the source's wording to the quote.

    ``equal``: both have these words; ``replace``: the quote has ``quote`` where the source
    has ``source``; ``insert``: words only in the quote; ``delete``: words only in the source.
    """

    op: Literal["equal", "replace", "insert", "delete"]
    quote: str
    source: str


class Near(Model):
    """The closest passage when there is no exact occurrence."""

    similarity: float = Field(
        description="1 - Indel distance / (len(quote) + len(passage)), "
        "over t1-normalised text with citation markers removed."
    )
    start: int
    end: int
    text: str = Field(description="The source's own wording at [start, end).")
    diff: list[DiffOp]
    flags: list[str] = Field(
        description="Risk flags: numbers_differ, negation_differs, case_only, punctuation_only."
    )
    location: Location | None = None


class Fragment(Model):
    """One piece of an ellipsis or bracketed quote."""

    quote: str
    verdict: Verdict
    start: int | None
    end: int | None
    similarity: float | None = None
    gap_before: int | None = Field(
        default=None,
        description="Characters of source text skipped between the previous fragment and this one.",
    )
    flags: list[str] = Field(default_factory=list)


class Refresh(Model):
    """What ``--refresh`` found: the sha256 pinned before, and whether the bytes changed."""

    previous_sha256: str
    changed: bool


class SourceInfo(Model):
    """What was checked: which bytes, from where, and how much of the work."""

    input: str
    kind: str = Field(description="pdf, jats, html or text.")
    identifier: str | None = None
    resolved: Resolved = Field(default_factory=Resolved)
    served_by: str | None = None
    version: str | None = None
    coverage: Coverage
    sha256: str | None = None
    md5_ok: bool | None = None
    licence: str | None = None
    url: str | None = None
    retrieved_at: str | None = None
    title: str | None = None
    fingerprint_ok: bool | None = Field(
        default=None,
        description="Whether sha256 equals the one --expect-sha256 asked for; null if none.",
    )
    refresh: Refresh | None = Field(
        default=None,
        description="Set when --refresh fetched a pinned source again: whether its bytes "
        "changed since the earlier pin.",
    )
    degraded: str | None = Field(
        default=None,
        description="Set when a better source failed (not absent: failed) before this one "
        "served text, so the text is a fallback: which source failed and why. A check of a "
        "fallback may find a quote, but never concludes NOT_FOUND (it is UNAVAILABLE).",
    )


class FoundElsewhere(Model):
    """A document where the quote's words really are, verified with the same matcher."""

    identifier: str = Field(description="The document's cache key, e.g. pmcid:PMC123.")
    title: str | None = None
    verdict: Literal["EXACT", "NEAR"]
    similarity: float | None = Field(default=None, description="For NEAR: as in `near`.")
    start: int
    end: int
    text: str = Field(description="That document's own wording at [start, end).")
    location: Location | None = None
    via: Literal["cache", "europepmc", "litsense"] = Field(
        description="How the candidate was found: the local cache, Europe PMC full-text "
        "phrase search, or LitSense sentence search."
    )
    sha256: str | None = Field(default=None, description="The bytes that were checked.")
    coverage: Coverage | None = None


class SearchedPlace(Model):
    """One place ``--find-source`` looked, and what came of it."""

    where: Literal["cache", "europepmc", "litsense"]
    state: Literal["answered", "failed", "not_asked"]
    reason: str | None = None
    candidates: int = Field(default=0, description="Documents it suggested (or held).")
    verified: int = Field(default=0, description="Candidates the matcher confirmed.")


class CheckResult(Published):
    """The answer to one quote check (schema ``citeproof.check/1``)."""

    schema_: Literal["citeproof.check/1"] = Field(default="citeproof.check/1", alias="schema")
    verdict: Verdict
    reason: str | None = None
    quote: str
    normalisation: str = "t1"
    matches: list[Match] = Field(default_factory=list)
    count: int = 0
    ambiguous: bool = False
    casefold_match: bool = False
    word_boundaries: WordBoundaries | None = None
    near: Near | None = None
    fragments: list[Fragment] | None = None
    flags: list[str] = Field(
        default_factory=list,
        description="Flags on the result as a whole: "
        "partial_word, ellipsis_hides_negation, match_in_references, "
        "match_in_front_matter, near_search_stopped (a NOT_FOUND whose search for the "
        "closest passage ran out of its work budget: no passage is reported).",
    )
    source: SourceInfo
    retraction: RetractionReport | None = Field(
        default=None,
        description="The cited work's retraction status from every source, when the source "
        "is a DOI, PMID or PMCID; null when not asked (a file, text, --no-retraction).",
    )
    found_elsewhere: list[FoundElsewhere] | None = Field(
        default=None,
        description="With --find-source on a NOT_FOUND or NEAR: documents that verifiably "
        "hold the words, best first. Null when not asked.",
    )
    searched_elsewhere: list[SearchedPlace] | None = Field(
        default=None, description="With --find-source: where it looked and what each answered."
    )
    log_seq: int | None = None

    @property
    def ok(self) -> bool:
        return self.verdict == "EXACT"
