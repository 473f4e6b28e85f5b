"""The metrics block of an audit report, computed from its sentences.

Kept beside the verdict rules rather than in the report's models: a model is data, and the
definitions here (what counts as a claim, a valid citation, a checked quote) are rules.  Each
field's meaning is documented on :class:`citeproof.models.audit.Metrics`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from citeproof.audit.verdicts import rate
from citeproof.models.audit import VERDICTS, Metrics, SentenceReport
from citeproof.models.references import ReferenceResult

__all__ = ["compute_metrics"]

#: Citations that name no real work, passage or identifier, or another work than they say.
_INVALID: frozenset[str] = frozenset({"malformed", "forged", "unresolvable", "mismatch"})


#: The verdicts a quote check can give when the words were actually looked for.
_QUOTE_VERDICTS: frozenset[str] = frozenset({"misquote", "near_quote", "ok"})


def compute_metrics(
    sentences: Sequence[SentenceReport],
    claim_kinds: Iterable[str],
    references: Sequence[ReferenceResult] = (),
) -> Metrics:
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
        fabricated=by_verdict["forged"] + by_verdict["unresolvable"] + by_verdict["mismatch"],
        retracted_cited=len(retracted),
        references=len(references),
        references_verified=sum(1 for r in references if r.verdict == "verified"),
    )
