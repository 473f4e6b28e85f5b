"""The ``citeproof.audit/1`` report: what an audit found, in the shape every interface prints.

Why pydantic models: the CLI's JSON, the MCP tool's structured output, the HTML view and the
conformance suite all read the same object, and ``citeproof schema audit`` prints its JSON
schema from these classes, so the contract (docs/audit.md) is written once.
The contract's fields keep their names; citeproof adds fields the HTML view needs (spans into
the answer, the handle's passage as issued, the source record, the retraction report, one
entry per quote when a citation carries several).  A field is never renamed without bumping
``schema``.

The report is signed over its canonical JSON without ``signature`` (:mod:`.signing`), so
the models are plain data: no computed fields that could serialise differently later.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

from pydantic import Field

from citeproof.models.base import Model, Published
from citeproof.models.check import CheckResult, SourceInfo
from citeproof.models.handle import HandleStatus
from citeproof.models.references import ReferenceResult
from citeproof.models.retraction import RetractionReport

__all__ = [
    "SCHEMA",
    "VERDICTS",
    "AnswerInfo",
    "AuditReport",
    "CitationForm",
    "CitationKind",
    "CitationReport",
    "CitationVerdict",
    "Metrics",
    "OverallVerdict",
    "QuoteKind",
    "QuoteReport",
    "SentenceKind",
    "SentenceReport",
    "SentenceStatus",
    "Signature",
]

SCHEMA = "citeproof.audit/1"

#: What a sentence is.  Only :data:`CLAIM_KINDS` need a citation; the rest are ``not_a_claim``.
#: ``claim``: prose (also a Markdown table body row); ``blockquote``: a ``>`` block, which is
#: itself a quotation of a source; ``heading``: ``#`` or setext heading, or the reference
#: list's heading; ``lead_in``: a bold lead-in (``**Background.**``) or a short label ending in
#: a colon; ``table_header``: the header row of a Markdown table; ``citation_only``: nothing but
#: citations and punctuation; ``separator``: a thematic break, a table rule, or text with no
#: letter or digit; ``code``: a fenced code block; ``reference_entry``: one entry of the
#: reference list.
SentenceKind = Literal[
    "claim",
    "blockquote",
    "heading",
    "lead_in",
    "table_header",
    "citation_only",
    "separator",
    "code",
    "reference_entry",
]


#: ``handle``: a citeproof passage handle; the identifier kinds of
#: :data:`citeproof.identifiers.IdentifierKind`; ``numbered``: ``[1]`` resolved through the
#: reference list; ``unknown``: a JSON-claims citation that is neither a handle nor an
#: identifier (the audit calls it malformed).
CitationKind = Literal[
    "handle", "pmid", "pmcid", "doi", "url", "nct", "setid", "ppr", "numbered", "unknown"
]


#: How the citation was written: inside ``[...]``, inside ``(...)``, as a Markdown link target,
#: bare in running text, or as an entry of a JSON claim.
CitationForm = Literal["bracket", "paren", "link", "bare", "json"]


#: ``inline``: words in quotation marks; ``handle``: the words inside ``[handle "..."]`` (or a
#: JSON citation's own quote); ``blockquote``: a ``>`` block; ``claim``: a JSON claim's quote.
QuoteKind = Literal["inline", "handle", "blockquote", "claim"]


#: In the order the contract decides them: earlier is worse.  ``mismatch`` (citeproof's
#: addition): the identifier exists but names another work than the reference entry (or the
#: citing sentence) states.
CitationVerdict = Literal[
    "malformed",
    "forged",
    "unresolvable",
    "mismatch",
    "unavailable",
    "withdrawn",
    "misquote",
    "near_quote",
    "ok",
]
VERDICTS: Final[tuple[CitationVerdict, ...]] = get_args(CitationVerdict)


OverallVerdict = Literal["pass", "warn", "fail", "incomplete"]


SentenceStatus = Literal["cited_ok", "cited_problem", "uncited", "not_a_claim"]


class QuoteReport(Model):
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


class CitationReport(Model):
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


class SentenceReport(Model):
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


class Metrics(Model):
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
        description="Citations that name something real, and the work they say (not "
        "malformed, forged, unresolvable or mismatch), among those that could be decided "
        "(unavailable left out)."
    )
    quote_accuracy: float | None = Field(description="quotes_ok / quotes.")
    claim_coverage: float | None = Field(description="cited_claims / claims.")
    fabricated: int = Field(
        description="Citations that are forged, unresolvable, or a mismatch (a real "
        "identifier on another work)."
    )
    retracted_cited: int = Field(description="Distinct retracted works cited.")
    references: int = Field(default=0, description="Entries of the answer's reference list.")
    references_verified: int = Field(
        default=0, description="Reference entries verified against the scholarly record."
    )


class Signature(Model):
    """Ed25519 over the canonical JSON of the report without ``signature``."""

    algorithm: Literal["ed25519"] = "ed25519"
    key_id: str = Field(description="NAME+HASH of the signing key (`citeproof log key`).")
    value: str = Field(description="The signature, base64.")


class AnswerInfo(Model):
    """The answer that was audited; every span in the report points into ``text``."""

    text: str = Field(
        description="The answer as given; for JSON claims, the rendering the spans use."
    )
    format: Literal["markdown", "json"]
    sha256: str = Field(description="sha256 of the answer's bytes as given (UTF-8).")


class AuditReport(Published):
    """A whole-answer audit (schema ``citeproof.audit/1``)."""

    schema_: Literal["citeproof.audit/1"] = Field(default="citeproof.audit/1", alias="schema")
    verdict: OverallVerdict
    sentences: list[SentenceReport]
    metrics: Metrics
    fail_on: list[str] = Field(description="The verdicts and flags that make the audit fail.")
    answer: AnswerInfo
    created_at: str = Field(description="When the audit ran (UTC, ISO 8601).")
    generator: str = Field(description="citeproof and its version.")
    references: list[ReferenceResult] = Field(
        default_factory=list,
        description="Each entry of the answer's reference list, verified against the "
        "scholarly record (schema citeproof.references/1's entries).",
    )
    signature: Signature | None = None

    def citations(self) -> list[CitationReport]:
        """Every citation, in answer order."""
        return [c for s in self.sentences for c in s.citations]
