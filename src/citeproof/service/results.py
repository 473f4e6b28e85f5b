"""From the matcher's plain result to the public ``citeproof.check/1`` result.

The matcher speaks in offsets, spans and verdict strings and knows nothing of pydantic, of
where a document came from, or of what its blocks mean; users, the CLI's JSON, the MCP
server and the HTML report all need the same answer in the public model, with every
offset placed in its block, section, region and page.  Keeping that translation in one
module, away from the I/O in ``service``, means each rule about a result (which regions
raise a flag, when a ``reason`` is filled in, what a hand-built Document reports as its
source) is written once.  What the source was is described by
:func:`citeproof.loading.describe.describe_source`, which every other result shares.

The results are built as ``models.plain`` dataclasses, which print the same JSON as the
pydantic model: a one-shot ``citeproof check`` prints them without importing pydantic, and
the pipeline turns them into ``models.CheckResult`` for every caller that wants the model
(``Model.from_plain``).
"""

from __future__ import annotations

from typing import Final, Literal

from citeproof.documents.model import Document
from citeproof.loading.describe import describe_source, origin_of
from citeproof.loading.failure import FetchFailure
from citeproof.match.types import MIN_QUOTE_CHARS, MatchOptions, NearMatch, QuoteMatch
from citeproof.models.plain import (
    CheckResult,
    DiffOp,
    Fragment,
    Location,
    Match,
    Near,
    Resolved,
    SourceInfo,
    WordBoundaries,
)

__all__ = [
    "failure_result",
    "fallback_unavailable",
    "not_checkable_result",
    "result_from_match",
    "unavailable_result",
]

_REGION_FLAGS: Final = {
    "references": "match_in_references",
    "front-matter": "match_in_front_matter",
}
_ABSTRACT_ONLY: Final = "Only the abstract was checked; the full text was not."


def _location(document: Document, offset: int) -> Location:

    index = document.block_at(offset)
    if index is None:
        return Location(block=None, section=[], region=None, page=None)
    block = document.blocks[index]
    return Location(block=index, section=list(block.section), region=block.region, page=block.page)


def _near(document: Document, near: NearMatch | None) -> Near | None:
    if near is None:
        return None

    span = near.span
    return Near(
        similarity=near.similarity,
        start=span.start,
        end=span.end,
        text=document.text[span.start : span.end],
        diff=[DiffOp(op=d.op, quote=d.quote, source=d.source) for d in near.diff],
        flags=list(near.flags),
        location=_location(document, span.start),
    )


def _fragments(found: QuoteMatch) -> list[Fragment] | None:
    if found.fragments is None:
        return None

    return [
        Fragment(
            quote=f.quote,
            verdict=f.verdict,
            start=f.span.start if f.span else None,
            end=f.span.end if f.span else None,
            similarity=f.similarity,
            gap_before=f.gap_before,
            flags=list(f.flags),
        )
        for f in found.fragments
    ]


def _reason(found: QuoteMatch, document: Document, options: MatchOptions) -> str | None:
    """The contract (docs/verdicts.md): ``reason`` is always set for TOO_SHORT, and a
    NOT_FOUND against an abstract says that the full text was not checked."""
    reason = found.reason
    if reason is None and found.verdict == "TOO_SHORT":
        reason = (
            f"the quote is under {MIN_QUOTE_CHARS} characters after normalisation, too "
            "short to check reliably; quote more of the passage."
        )
    if reason is None and found.verdict == "NOT_FOUND":
        reason = f"no passage has similarity of at least {options.near_threshold:.2f}."
    if found.verdict == "NOT_FOUND" and origin_of(document).coverage == "abstract":
        reason = f"{reason} {_ABSTRACT_ONLY}"
    return reason


def result_from_match(
    quote: str, document: Document, found: QuoteMatch, options: MatchOptions
) -> CheckResult:

    text = document.text
    matches = [
        Match(
            start=s.start,
            end=s.end,
            normalized_start=s.norm_start,
            normalized_end=s.norm_end,
            text=text[s.start : s.end],
            location=_location(document, s.start),
        )
        for s in found.spans
    ]
    near = _near(document, found.near)
    flags = list(found.flags)
    # A passage in the references or front matter is not the paper's own statement.
    where = matches[0].location if matches else (near.location if near else None)
    if where is not None and where.region in _REGION_FLAGS:
        flags.append(_REGION_FLAGS[where.region])
    boundaries = None
    if matches:
        boundaries = WordBoundaries(
            starts_mid_word=found.starts_mid_word, ends_mid_word=found.ends_mid_word
        )
    if found.verdict == "NOT_FOUND" and origin_of(document).degraded:
        return fallback_unavailable(quote, document, options, "the quote is not in")
    return CheckResult(
        verdict=found.verdict,
        reason=_reason(found, document, options),
        quote=quote,
        normalisation=found.profile,
        matches=matches,
        count=found.count,
        ambiguous=found.count > 1,
        casefold_match=found.casefold_match,
        word_boundaries=boundaries,
        near=near,
        fragments=_fragments(found),
        flags=list(dict.fromkeys(flags)),
        source=describe_source(document),
    )


_COVERAGE_WORDS: Final = {
    "abstract": "the abstract",
    "page": "the landing page",
    "full_text": "the full text",
}


def fallback_unavailable(
    quote: str, document: Document, options: MatchOptions, what: str
) -> CheckResult:
    """UNAVAILABLE for a fallback that does not hold the quote (or has no text).

    The rule (docs/verdicts.md): NOT_FOUND is only said against the best text the chain could
    have read.  When a better source *failed* (``origin.degraded``), the absence of the quote
    from a lower one proves nothing about the cited work.
    """
    origin = origin_of(document)
    read = _COVERAGE_WORDS.get(origin.coverage, "the text")
    failed = "; ".join(origin.degraded)
    return CheckResult(
        verdict="UNAVAILABLE",
        reason=(
            f"{what} {read} that could be read, but a better source failed ({failed}); "
            "nothing is concluded: check again later."
        ),
        quote=quote,
        normalisation=options.profile,
        source=describe_source(document),
    )


def not_checkable_result(
    quote: str, document: Document, reason: str, options: MatchOptions
) -> CheckResult:

    return CheckResult(
        verdict="NOT_CHECKABLE",
        reason=reason,
        quote=quote,
        normalisation=options.profile,
        source=describe_source(document),
    )


def unavailable_result(quote: str, failure: FetchFailure, options: MatchOptions) -> CheckResult:
    """UNAVAILABLE: a source could not be read, so nothing was concluded."""
    return failure_result(quote, failure, options, verdict="UNAVAILABLE")


def failure_result(
    quote: str,
    failure: FetchFailure,
    options: MatchOptions,
    *,
    verdict: Literal["UNAVAILABLE", "NOT_CHECKABLE"] | None = None,
) -> CheckResult:
    """The result for an identifier that gave no text (see ``citeproof.loading.pins``).

    No bytes were read, so ``source.kind`` and ``source.coverage`` are ``"none"`` and there
    is no sha256; ``source.resolved`` has whatever identifiers the chain learnt.
    """

    if verdict is None:
        verdict = "UNAVAILABLE" if failure.kind == "unavailable" else "NOT_CHECKABLE"
    ids = failure.ids
    return CheckResult(
        verdict=verdict,
        reason=failure.reason,
        quote=quote,
        normalisation=options.profile,
        source=SourceInfo(
            input=failure.input,
            kind="none",
            identifier=failure.identifier,
            resolved=Resolved(doi=ids.get("doi"), pmid=ids.get("pmid"), pmcid=ids.get("pmcid")),
            coverage="none",
        ),
    )
