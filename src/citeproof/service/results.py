"""From the matcher's plain result to the public ``citeproof.check/1`` result.

The matcher speaks in offsets, spans and verdict strings and knows nothing of pydantic, of
where a document came from, or of what its blocks mean; users, the CLI's JSON, the MCP
server and the HTML report all need the same answer in the public model, with every
offset placed in its block, section, region and page.  Keeping that translation in one
module, away from the I/O in ``service``, means each rule about a result (which regions
raise a flag, when a ``reason`` is filled in, what a hand-built Document reports as its
source) is written once; the final verdict itself is :func:`decide_verdict`'s, the one
function every check's result goes through.  What the source was is described by
:func:`citeproof.loading.describe.describe_source`, which every other result shares.

The results are built as ``models.plain`` dataclasses, which print the same JSON as the
pydantic model: a one-shot ``citeproof check`` prints them without importing pydantic, and
the pipeline turns them into ``models.CheckResult`` for every caller that wants the model
(``Model.from_plain``).
"""

from __future__ import annotations

from typing import Final, Literal

from citeproof.documents.model import Document, Origin
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
    Verdict,
    WordBoundaries,
)
from citeproof.service.texts import no_text_reason

__all__ = [
    "Unchecked",
    "decide_verdict",
    "failure_result",
    "not_checkable_result",
    "result_from_match",
]

_REGION_FLAGS: Final = {
    "references": "match_in_references",
    "front-matter": "match_in_front_matter",
}
_ABSTRACT_ONLY: Final = "Only the abstract was checked; the full text was not."
_COVERAGE_WORDS: Final = {
    "abstract": "the abstract",
    "page": "the landing page",
    "full_text": "the full text",
}


# --- the verdict ---------------------------------------------------------------------------


UncheckedKind = Literal["no_text", "unavailable", "not_checkable"]

#: The verdict when the matcher was not asked, on the best text there is.
_UNCHECKED_VERDICTS: Final[dict[UncheckedKind, Verdict]] = {
    "no_text": "NOT_CHECKABLE",
    "unavailable": "UNAVAILABLE",
    "not_checkable": "NOT_CHECKABLE",
}


class Unchecked:
    """Why the matcher was not asked, in place of its answer.

    ``no_text``: the text read is empty (a scanned PDF, an empty file); ``unavailable``: no
    text could be had because a source failed; ``not_checkable``: there is nothing to check
    for another reason (an identifier with nothing to read, bytes that are not the expected
    ones).  ``reason`` says it in words.  A hand-written class rather than a dataclass, for
    the start-up reason ``models.plain`` gives.
    """

    __slots__ = ("kind", "reason")

    def __init__(self, kind: UncheckedKind, reason: str) -> None:
        self.kind = kind
        self.reason = reason


def decide_verdict(
    answer: QuoteMatch | Unchecked, origin: Origin | None, options: MatchOptions
) -> tuple[Verdict, str | None]:
    """A check's final verdict and its reason: the one place they are decided.

    The matcher (:func:`citeproof.match.quote.find_quote`) says what the words are in the
    text it was given (EXACT, NEAR, NOT_FOUND, TOO_SHORT) and stays pure; whether that
    answer stands depends on what the text was, which only the service knows.  This reads
    the matcher's verdict and reason (or why it was not asked), and of where the text came
    from only ``degraded`` (a better source failed, so the text is a fallback) and
    ``coverage`` (an abstract); ``origin`` None means no text was read at all.  The rows
    (docs/verdicts.md):

    ==============================  ====================  ====================
    answer                          best text there is    fallback (degraded)
    ==============================  ====================  ====================
    EXACT, NEAR, TOO_SHORT          the same              the same
    NOT_FOUND                       NOT_FOUND             UNAVAILABLE
    no text (``no_text``)           NOT_CHECKABLE         UNAVAILABLE
    a source failed (nothing read)  UNAVAILABLE           --
    nothing to check                NOT_CHECKABLE         NOT_CHECKABLE
    ==============================  ====================  ====================

    A fallback can confirm a quote, never deny it: a NOT_FOUND or an empty text there says
    nothing of the better text that could not be read.
    """
    degraded = origin.degraded if origin is not None else ()
    coverage = origin.coverage if origin is not None else "none"
    if isinstance(answer, Unchecked):
        if answer.kind == "no_text" and degraded:
            return "UNAVAILABLE", _fallback_reason("there is no text in", coverage, degraded)
        return _UNCHECKED_VERDICTS[answer.kind], answer.reason
    if answer.verdict == "NOT_FOUND" and degraded:
        return "UNAVAILABLE", _fallback_reason("the quote is not in", coverage, degraded)
    return answer.verdict, _reason(answer, coverage, options)


def _reason(found: QuoteMatch, coverage: str, options: MatchOptions) -> str | None:
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
    if found.verdict == "NOT_FOUND" and coverage == "abstract":
        reason = f"{reason} {_ABSTRACT_ONLY}"
    return reason


def _fallback_reason(what: str, coverage: str, degraded: tuple[str, ...]) -> str:
    """Why a fallback's silence concludes nothing: the better source failed (named)."""
    read = _COVERAGE_WORDS.get(coverage, "the text")
    return (
        f"{what} {read} that could be read, but a better source failed "
        f"({'; '.join(degraded)}); nothing is concluded: check again later."
    )


# --- the result ----------------------------------------------------------------------------


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


def result_from_match(
    quote: str, document: Document, found: QuoteMatch | None, options: MatchOptions
) -> CheckResult:
    """The public result of checking ``quote`` against ``document``.

    ``found`` is the matcher's answer, None when the document has no text and the matcher
    was not asked.  The verdict and its reason are :func:`decide_verdict`'s; what the
    matcher found is shown only when its verdict stands.
    """
    answer = found if found is not None else Unchecked("no_text", no_text_reason(document))
    verdict, reason = decide_verdict(answer, origin_of(document), options)
    if found is None or verdict != found.verdict:
        return _unmatched_result(quote, document, options, verdict, reason)
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
    return CheckResult(
        verdict=verdict,
        reason=reason,
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


def _unmatched_result(
    quote: str, document: Document, options: MatchOptions, verdict: Verdict, reason: str | None
) -> CheckResult:
    """A verdict about ``document`` that shows nothing the matcher found."""
    return CheckResult(
        verdict=verdict,
        reason=reason,
        quote=quote,
        normalisation=options.profile,
        source=describe_source(document),
    )


def not_checkable_result(
    quote: str, document: Document, reason: str, options: MatchOptions
) -> CheckResult:
    """NOT_CHECKABLE, for ``reason``: the caller found nothing to check in ``document``."""
    verdict, said = decide_verdict(Unchecked("not_checkable", reason), origin_of(document), options)
    return _unmatched_result(quote, document, options, verdict, said)


def failure_result(quote: str, failure: FetchFailure, options: MatchOptions) -> CheckResult:
    """The result for an identifier that gave no text (see ``citeproof.loading.pins``).

    No bytes were read, so ``source.kind`` and ``source.coverage`` are ``"none"`` and there
    is no sha256; ``source.resolved`` has whatever identifiers the chain learnt.
    """
    verdict, reason = decide_verdict(Unchecked(failure.kind, failure.reason), None, options)
    ids = failure.ids
    return CheckResult(
        verdict=verdict,
        reason=reason,
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
