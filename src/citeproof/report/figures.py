"""The figures an editor reads first on the audit page: the banner's counts, the sentence
under it, the metric cards, the metrics table.

Each takes the report's :class:`~citeproof.models.audit.Metrics` (as read by
:mod:`citeproof.report.lenient`, so a count may be missing or of the wrong kind) and the
cards already built, and prefers the report's own counts, falling back to counting the
cards: a report that kept only its metrics still says what it found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from citeproof.models.audit import Metrics
from citeproof.report.citation_card import CitationView
from citeproof.report.reference_card import REFERENCE_VERDICT_STYLES, ReferenceView
from citeproof.report.values import integer, number, percent, shown, text, worst

__all__ = ["MetricCard", "about", "banner_counts", "cards", "metric_rows", "reference_metrics"]

#: How a problem counts in the banner, in this order: (key, one, many).
_COUNT_WORDS: Final[tuple[tuple[str, str, str], ...]] = (
    ("forged", "forged", "forged"),
    ("malformed", "malformed", "malformed"),
    ("unresolvable", "unresolvable", "unresolvable"),
    ("mismatch", "wrong work", "wrong works"),
    ("misquote", "misquote", "misquotes"),
    ("retracted", "retracted", "retracted"),
    ("concern", "expression of concern", "expressions of concern"),
    ("near_quote", "near quote", "near quotes"),
    ("unavailable", "unavailable", "unavailable"),
    ("withdrawn", "withdrawn", "withdrawn"),
    ("uncited", "uncited claim", "uncited claims"),
)


@dataclass(slots=True)
class MetricCard:
    """One of the cards above the answer: a figure, what it is, and how it looks."""

    name: str
    value: str
    note: str
    css: str


def banner_counts(cits: Sequence[CitationView], uncited: int, metrics: Metrics) -> str:
    """The banner's "1 forged, 1 misquote, 1 retracted, 2 uncited claims"."""
    tally = _tally(cits, metrics)
    tally["uncited"] = uncited
    said = [
        f"{n} {one if n == 1 else many}"
        for key, one, many in _COUNT_WORDS
        if (n := tally.get(key, 0)) > 0
    ]
    if said:
        return ", ".join(said)
    total = len(cits) or (integer(metrics.citations) or 0)
    if not total:
        return "no citations"
    return f"{total} citation{'s' if total != 1 else ''}, every one holds"


def _tally(cits: Sequence[CitationView], metrics: Metrics) -> dict[str, int]:
    """Citations by verdict, and retracted works (as the metric counts them, when it does)."""
    tally: dict[str, int] = {}
    for c in cits:
        tally[c.verdict] = tally.get(c.verdict, 0) + 1
        if c.retraction_css == "v-bad":
            tally["retracted"] = tally.get("retracted", 0) + 1
        elif c.retraction_css == "v-near":
            tally["concern"] = tally.get("concern", 0) + 1
    if not cits:  # a report that keeps only its metrics
        for key, value in metrics.by_verdict.items():
            if integer(value):
                tally[text(key)] = integer(value) or 0
    retracted = integer(metrics.retracted_cited)
    if retracted is not None:  # works, as the metric counts them
        tally["retracted"] = retracted
    return tally


def about(metrics: Metrics, sentences: int, claims: int, cits: int) -> str:
    """ "11 sentences, 7 claims, 5 citations": what was audited (the metrics, else counted)."""
    stated_claims = integer(metrics.claims)
    figures = (
        (integer(metrics.sentences) or sentences, "sentence"),
        (claims if stated_claims is None else stated_claims, "claim"),
        (integer(metrics.citations) or cits, "citation"),
    )
    return ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in figures)


def metric_rows(metrics: Metrics) -> list[tuple[str, str]]:
    """The metrics table: every metric the report gives, rates as percentages."""
    rows: tuple[tuple[str, str, object, bool], ...] = (
        ("sentences", "Sentences", metrics.sentences, False),
        ("claims", "Claims", metrics.claims, False),
        ("cited_claims", "Cited claims", metrics.cited_claims, False),
        ("citations", "Citations", metrics.citations, False),
        ("quotes", "Quotes", metrics.quotes, False),
        ("quotes_ok", "Quotes that hold", metrics.quotes_ok, False),
        ("citation_validity", "Citation validity", metrics.citation_validity, True),
        ("quote_accuracy", "Quote accuracy", metrics.quote_accuracy, True),
        ("claim_coverage", "Claim coverage", metrics.claim_coverage, True),
        ("fabricated", "Fabricated", metrics.fabricated, False),
        ("retracted_cited", "Retracted works cited", metrics.retracted_cited, False),
    )
    given = metrics.model_fields_set
    return [
        (name, percent(value) if rate else shown(value))
        for key, name, value, rate in rows
        if key in given
    ]


def cards(
    metrics: Metrics, cits: Sequence[CitationView], refs: Sequence[ReferenceView]
) -> list[MetricCard]:
    """The cards above the answer: the figures an editor looks at first."""
    return [
        *_citations_card(metrics, cits),
        *_rate_cards(metrics),
        *_count_cards(metrics),
        *_references_card(metrics, refs),
    ]


def _citations_card(metrics: Metrics, cits: Sequence[CitationView]) -> list[MetricCard]:
    total = integer(metrics.citations)
    total = len(cits) if total is None else total
    problems = sum(1 for c in cits if c.problem)
    if not (total or cits):
        return []
    note = f"{problems} with a problem" if problems else "every one holds"
    return [MetricCard("Citations", str(total), note, "v-bad" if problems else "v-ok")]


def _rate_cards(metrics: Metrics) -> list[MetricCard]:
    """The rates the report gives, green only when whole."""
    rates: tuple[tuple[object, str, str], ...] = (
        (metrics.citation_validity, "Citation validity", "name a real work, the right one"),
        (metrics.quote_accuracy, "Quote accuracy", "quotes found as cited"),
        (metrics.claim_coverage, "Claim coverage", "claims with a citation"),
    )
    given = [(number(value), name, note) for value, name, note in rates]
    return [
        MetricCard(name, percent(rate), note, "v-ok" if rate >= 1 else "v-near")
        for rate, name, note in given
        if rate is not None
    ]


def _count_cards(metrics: Metrics) -> list[MetricCard]:
    """The counts that are failures whenever they are not zero."""
    counts: tuple[tuple[object, str, str], ...] = (
        (metrics.fabricated, "Fabricated", "forged, unresolvable or the wrong work"),
        (metrics.retracted_cited, "Retracted works cited", "cited without saying so"),
    )
    shown_counts = [(integer(value), name, note) for value, name, note in counts]
    return [
        MetricCard(name, str(count), note, "v-bad" if count else "v-ok")
        for count, name, note in shown_counts
        if count is not None
    ]


def _references_card(metrics: Metrics, refs: Sequence[ReferenceView]) -> list[MetricCard]:
    """ "References verified: N of M", red (amber) when a verified work is retracted (under
    concern): a verified entry names a real work; a retracted one is a problem all the same."""
    ref_total = integer(metrics.references) or len(refs)
    if not ref_total:
        return []
    verified = integer(metrics.references_verified)
    if verified is None:
        verified = sum(1 for r in refs if r.verdict == "verified")
    css = "v-ok" if verified == ref_total else "v-near"
    retracted = sum(1 for r in refs if r.retracted_css == "v-bad")
    concern = sum(1 for r in refs if r.retracted_css == "v-near")
    notes = [f"{retracted} retracted"] if retracted else []
    notes += [f"{concern} under an expression of concern"] if concern else []
    if notes:
        css = worst(css, "v-bad" if retracted else "v-near")
    value = f"{verified} of {ref_total}"
    return [MetricCard("References verified", value, ", ".join(notes), css)]


def reference_metrics(metrics: Metrics, refs: Sequence[ReferenceView]) -> list[tuple[str, str]]:
    """ "References verified: N of M" (the report's own counts, else the list's), by verdict."""
    total: object = metrics.references
    verified: object = metrics.references_verified
    if not (integer(total) or 0) > 0:
        total = len(refs)
        verified = sum(1 for r in refs if r.verdict == "verified")
    if not total:
        return []
    rows = [("References verified", f"{shown(verified)} of {total}")]
    counts = [
        f"{REFERENCE_VERDICT_STYLES[v][0]}: {n}"
        for v in REFERENCE_VERDICT_STYLES
        if (n := sum(1 for r in refs if r.verdict == v))
    ]
    retracted = sum(1 for r in refs if r.retracted)
    if retracted:
        counts.append(f"retracted or under concern: {retracted}")
    if counts:
        rows.append(("References by verdict", ", ".join(counts)))
    return rows
