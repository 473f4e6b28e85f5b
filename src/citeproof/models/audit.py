"""The ``citeproof.audit/1`` report: what an audit found, in the shape every interface prints.

Why pydantic models: the CLI's JSON, the MCP tool's structured output, the HTML view and the
conformance suite all read the same object, and ``citeproof schema audit`` prints its JSON
schema from these classes, so the contract (DESIGN.md, "The audit contract") is written once.
The contract's fields keep their names; citeproof adds fields the HTML view needs (spans into
the answer, the handle's passage as issued, the source record, the retraction report, one
entry per quote when a citation carries several).  A field is never renamed without bumping
``schema``.

The report is signed over its canonical JSON without ``signature`` (:mod:`.signing`), so
the models are plain data: no computed fields that could serialise differently later.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from citeproof.audit.answer import CitationForm, CitationKind, QuoteKind, SentenceKind
from citeproof.audit.verdicts import (
    VERDICTS,
    CitationVerdict,
    OverallVerdict,
    SentenceStatus,
    rate,
)
from citeproof.handles.registry import HandleStatus
from citeproof.models import CheckResult, RetractionReport, SourceInfo
from citeproof.models.base import compact_nullable

__all__ = [
    "SCHEMA",
    "AnswerInfo",
    "AuditReport",
    "CitationReport",
    "Metrics",
    "QuoteReport",
    "SentenceReport",
    "Signature",
    "compute_metrics",
]

SCHEMA = "citeproof.audit/1"


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, json_schema_extra=compact_nullable
    )


class QuoteReport(_Model):
    """One quotation attributed to the citation, and what its check found."""

    text: str = Field(description="The quoted words as the matcher read them.")
    kind: QuoteKind
    start: int = Field(description="Start offset of the quote in `answer.text`.")
    end: int
    verdict: CitationVerdict
    flags: list[str] = Field(default_factory=list)
    reason: str | None = None
    check: CheckResult | None = Field(
        default=None,
        description="The check object (schema citeproof.check/1), if one ran; null for the "
        "quote that decided the citation's verdict, whose check is the citation's `check`.",
    )


class CitationReport(_Model):
    """One citation as written, and its verdict (the first that applies)."""

    index: int = Field(description="Position among all citations of the answer.")
    raw: str = Field(description="The citation exactly as written (answer.text[start:end]).")
    kind: CitationKind = Field(
        description="handle, pmid, pmcid, doi, url, nct, setid, ppr, numbered, or unknown "
        "(a JSON citation that is neither a handle nor an identifier)."
    )
    form: CitationForm
    target: str = Field(
        description="The handle, the identifier key, the reference number, or the text."
    )
    start: int
    end: int
    sentence: int = Field(description="Index of the sentence holding the citation.")
    number: int | None = Field(default=None, description="For numbered citations.")
    reference: int | None = Field(
        default=None, description="Index of the reference entry a number resolved to."
    )
    resolved_to: str | None = Field(
        default=None,
        description="The identifier the citation was checked against: a plain citation's "
        "own, a numbered citation's reference entry's first, a handle's source.",
    )
    quote: str | None = Field(
        default=None, description="The quote that decided the verdict (the worst of `quotes`)."
    )
    verdict: CitationVerdict
    flags: list[str] = Field(default_factory=list)
    reason: str | None = None
    check: CheckResult | None = Field(
        default=None, description="The check object of `quote`; null when no quote was checked."
    )
    quotes: list[QuoteReport] = Field(
        default_factory=list, description="Every quote attributed to this citation."
    )
    handle: HandleStatus | None = Field(
        default=None,
        description="For handles: what the handle resolved to, with the passage as issued "
        "and as it is now.",
    )
    source: SourceInfo | None = Field(
        default=None, description="The source that was read (null when none was)."
    )
    retraction: RetractionReport | None = Field(
        default=None, description="The cited work's retraction status, when it was asked."
    )


class SentenceReport(_Model):
    """One sentence (or non-claim segment) of the answer, in reading order."""

    index: int
    text: str
    status: SentenceStatus
    kind: SentenceKind = Field(
        description="What the parser read: claim, blockquote, heading, lead_in, "
        "table_header, citation_only, separator, code, reference_entry."
    )
    start: int
    end: int
    citations: list[CitationReport] = Field(default_factory=list)
    error: str | None = Field(
        default=None, description="Why this sentence was not audited (e.g. over-long)."
    )


class Metrics(_Model):
    """Counts and rates over the whole answer; rates are null when undefined (0/0)."""

    sentences: int
    claims: int = Field(description="Sentences that assert something (prose, blockquotes).")
    cited_claims: int
    citations: int
    by_verdict: dict[str, int] = Field(description="Citations per verdict, every verdict listed.")
    quotes: int = Field(
        description="Quote checks that looked for the words (verdict misquote, near_quote or "
        "ok); a quote whose source could not be read is not counted."
    )
    quotes_ok: int
    citation_validity: float | None = Field(
        description="Citations that name something real (not malformed, forged or "
        "unresolvable), among those that could be decided (unavailable left out)."
    )
    quote_accuracy: float | None = Field(description="quotes_ok / quotes.")
    claim_coverage: float | None = Field(description="cited_claims / claims.")
    fabricated: int = Field(description="Citations that are forged or unresolvable.")
    retracted_cited: int = Field(description="Distinct retracted works cited.")


class Signature(_Model):
    """Ed25519 over the canonical JSON of the report without ``signature``."""

    algorithm: Literal["ed25519"] = "ed25519"
    key_id: str = Field(description="NAME+HASH of the signing key (`citeproof log key`).")
    value: str = Field(description="The signature, base64.")


class AnswerInfo(_Model):
    """The answer that was audited; every span in the report points into ``text``."""

    text: str = Field(
        description="The answer as given; for JSON claims, the rendering the spans use."
    )
    format: Literal["markdown", "json"]
    sha256: str = Field(description="sha256 of the answer's bytes as given (UTF-8).")


class AuditReport(_Model):
    """A whole-answer audit (schema ``citeproof.audit/1``)."""

    schema_: Literal["citeproof.audit/1"] = Field(default="citeproof.audit/1", alias="schema")
    verdict: OverallVerdict
    sentences: list[SentenceReport]
    metrics: Metrics
    fail_on: list[str] = Field(description="The verdicts and flags that make the audit fail.")
    answer: AnswerInfo
    created_at: str = Field(description="When the audit ran (UTC, ISO 8601).")
    generator: str = Field(description="citeproof and its version.")
    signature: Signature | None = None

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, serialize_by_alias=True
    )

    def citations(self) -> list[CitationReport]:
        """Every citation, in answer order."""
        return [c for s in self.sentences for c in s.citations]


_INVALID: frozenset[str] = frozenset({"malformed", "forged", "unresolvable"})
#: The verdicts a quote check can give when the words were actually looked for.
_QUOTE_VERDICTS: frozenset[str] = frozenset({"misquote", "near_quote", "ok"})


def compute_metrics(sentences: Sequence[SentenceReport], claim_kinds: Iterable[str]) -> Metrics:
    """The metrics block from the sentences (definitions in :class:`Metrics`)."""
    kinds = frozenset(claim_kinds)
    citations = [c for s in sentences for c in s.citations]
    claims = [s for s in sentences if s.kind in kinds]
    cited = [s for s in claims if s.citations]
    by_verdict: dict[str, int] = {v: 0 for v in VERDICTS}
    for c in citations:
        by_verdict[c.verdict] += 1
    checked = [q for c in citations for q in c.quotes if q.verdict in _QUOTE_VERDICTS]
    quotes_ok = sum(1 for q in checked if q.verdict == "ok")
    decided = [c for c in citations if c.verdict != "unavailable"]
    valid = sum(1 for c in decided if c.verdict not in _INVALID)
    retracted = {c.resolved_to or c.target for c in citations if "retracted" in c.flags}
    return Metrics(
        sentences=len(sentences),
        claims=len(claims),
        cited_claims=len(cited),
        citations=len(citations),
        by_verdict=by_verdict,
        quotes=len(checked),
        quotes_ok=quotes_ok,
        citation_validity=rate(valid, len(decided)),
        quote_accuracy=rate(quotes_ok, len(checked)),
        claim_coverage=rate(len(cited), len(claims)),
        fabricated=by_verdict["forged"] + by_verdict["unresolvable"],
        retracted_cited=len(retracted),
    )
