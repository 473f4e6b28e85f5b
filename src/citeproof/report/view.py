"""The audit page's content: a report (plain JSON data) turned into what the template shows.

Kept apart from :mod:`citeproof.report.page`, which only renders and writes, so this half is
pure and can be read on its own:

* The report is taken as plain JSON data (``report.model_dump(mode="json")``), so a page can be
  made from a report file written earlier, and is read through the published models
  (:mod:`citeproof.report.lenient`): every field the page shows is one ``models/`` declares,
  and mypy checks each name.  A report without spans, or with spans into another text, is
  placed by locating its text instead; as a last resort the sentences are listed on their own.
* Each citation's chip and card is :mod:`citeproof.report.citation_card`'s; each entry of the
  reference list (``references``, absent from older reports) is one card of
  :mod:`citeproof.report.reference_card`, shared with the references page.
* The answer's Markdown is laid out by :mod:`citeproof.report.markdown` as data (blocks, runs
  of sentences, inline pieces), with every citation shown as written; the page never renders
  Markdown to HTML.
* What an editor reads first: the banner's counts ("1 forged, 1 misquote, 1 retracted") and
  the metric cards (:mod:`citeproof.report.figures`), and the table of at most
  :data:`GLANCE_ROWS` citations, problems first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from citeproof.models.audit import AuditReport, CitationReport, SentenceReport, Signature
from citeproof.report.citation_card import CitationView, citation_view
from citeproof.report.figures import (
    MetricCard,
    about,
    banner_counts,
    cards,
    metric_rows,
    reference_metrics,
)
from citeproof.report.lenient import read
from citeproof.report.markdown import Block, layout
from citeproof.report.reference_card import (
    ComparisonView,
    ReferenceView,
    WorkView,
    reference_view,
)
from citeproof.report.values import Piece, offsets, shown, text

__all__ = [
    "GLANCE_ROWS",
    "CitationView",
    "ComparisonView",
    "MetricCard",
    "Piece",
    "ReferenceView",
    "SentenceView",
    "WorkView",
    "answer_text",
    "build_view",
    "reference_view",
    "shown",
]

#: The most citations the "at a glance" table lists (problems first).
GLANCE_ROWS: Final = 12

_VERDICT_WORDS: Final[dict[str, tuple[str, str]]] = {
    "pass": ("Pass", "Every claim is cited and every citation holds."),
    "warn": ("Warning", "Nothing failed, but some claims are uncited or quotes only near."),
    # The banner counts what failed ("1 forged, 1 misquote"); the words say where to look.
    "fail": ("Fail", "Each problem is marked in the answer below and listed after it."),
    "incomplete": ("Incomplete", "A source could not be read, so the audit could not finish."),
}

_EXCERPT: Final = 110

_SENTENCE_STATUS: Final[dict[str, tuple[str, str]]] = {
    "cited_ok": ("cited, holds", "s-ok"),
    "cited_problem": ("cited, problem", "s-problem"),
    "uncited": ("uncited claim", "s-uncited"),
    "not_a_claim": ("not a claim", "s-none"),
}


@dataclass(slots=True)
class SentenceView:
    index: int
    status: str
    label: str
    css: str
    problem: bool = False
    #: The sentence's citations: their chips and details follow the sentence.
    citations: list[CitationView] = field(default_factory=list)
    #: The sentence's own text, shown as written (when the answer cannot be laid out).
    text: str = ""


@dataclass(slots=True)
class _Sentences:
    """The answer's sentences as the page shows them, with their citations' cards and where
    each citation lies in the answer (for the Markdown layout)."""

    rows: list[SentenceView] = field(default_factory=list)
    citations: list[CitationView] = field(default_factory=list)
    cited: list[tuple[int, int]] = field(default_factory=list)


def build_view(
    report: Mapping[str, Any],
    answer: str,
    generated_at: str | None,
    *,
    source_name: str | None = None,
) -> dict[str, Any]:
    """Everything the template shows for ``report`` and ``answer``; escaping is the template's.

    ``source_name`` names the audited file in the banner (the report does not know it).
    """
    audit = read(AuditReport, report)
    spans = _place_sentences(audit.sentences, answer)
    seen = _sentences(audit.sentences, answer, spans)
    rows, all_cits = seen.rows, seen.citations
    markdown = text(audit.answer.format) != "json"
    blocks, rendered = _layout(answer, seen, spans, markdown)
    verdict = text(audit.verdict)
    words = _VERDICT_WORDS.get(verdict, (verdict or "Unknown", "The report names no verdict."))
    metrics = audit.metrics
    references = [reference_view(i, r) for i, r in enumerate(audit.references)]
    signature = audit.signature or read(Signature, None)
    uncited = sum(1 for r in rows if r.status == "uncited")
    claims = sum(1 for r in rows if r.status != "not_a_claim")
    glance = sorted(all_cits, key=lambda c: (c.severity, c.number))[:GLANCE_ROWS]
    return {
        "schema": shown(audit.schema_),
        "verdict": verdict if verdict in _VERDICT_WORDS else "unknown",
        "verdict_label": shown(words[0]),
        "verdict_words": shown(words[1]),
        "verdict_counts": shown(banner_counts(all_cits, uncited, metrics)),
        "source_name": shown(source_name) if source_name else "",
        "about": about(metrics, len(rows), claims, len(all_cits)),
        "cards": cards(metrics, all_cits, references),
        "metrics": metric_rows(metrics),
        "reference_metrics": reference_metrics(metrics, references),
        "references": references,
        "by_verdict": [(shown(k), shown(v)) for k, v in metrics.by_verdict.items()],
        "fail_on": [shown(x) for x in audit.fail_on],
        "key_id": shown(signature.key_id),
        "algorithm": shown(signature.algorithm),
        "generated_at": shown(_made_at(generated_at, audit)),
        "blocks": blocks,
        "markdown": rendered,
        "rows": rows,
        "placed": bool(spans),
        "citations": all_cits,
        "problems": sum(1 for c in all_cits if c.problem),
        "glance": glance,
        "glance_more": len(all_cits) - len(glance),
        "statuses": list(_SENTENCE_STATUS.values()),
        "report": report,
    }


def _made_at(generated_at: str | None, audit: AuditReport) -> str:
    """When the page says it was made: as told, else when the audit ran, else now."""
    return generated_at or text(audit.created_at) or datetime.now(UTC).isoformat(timespec="seconds")


def answer_text(report: Mapping[str, Any]) -> str:
    """The audited answer as the report carries it (``answer.text``), or ``""``."""
    return text(read(AuditReport, report).answer.text)


def _sentences(
    sentences: Sequence[SentenceReport], answer: str, spans: Sequence[tuple[int, int]]
) -> _Sentences:
    """Each sentence's row, its citations' cards numbered in answer order, and where each
    citation as written lies in the answer (when the sentences could be placed)."""
    seen = _Sentences()
    for i, sent in enumerate(sentences):
        said = answer[spans[i][0] : spans[i][1]] if spans else text(sent.text)
        row = _sentence_row(i, sent, said)
        cursor = spans[i][0] if spans else 0
        for cit in sent.citations:
            view = citation_view(len(seen.citations), cit)
            view.sentence = _excerpt(shown(said))
            row.citations.append(view)
            seen.citations.append(view)
            where = _cited_span(cit, spans[i][0], said, cursor) if spans else None
            if where is not None:
                seen.cited.append(where)
                cursor = where[1]
        seen.rows.append(row)
    return seen


def _sentence_row(position: int, sent: SentenceReport, said: str) -> SentenceView:
    """A sentence coloured by its status; an unknown status is said to be unknown."""
    status = text(sent.status)
    if status not in _SENTENCE_STATUS:
        status = "unknown"
    label, css = _SENTENCE_STATUS.get(status, ("status unknown", "s-none"))
    index = sent.index
    return SentenceView(
        index=index if isinstance(index, int) else position,
        status=shown(status),
        label=shown(label),
        css=css,
        problem=css in ("s-problem", "s-uncited"),
        text=shown(said),
    )


def _place_sentences(sentences: Sequence[SentenceReport], answer: str) -> list[tuple[int, int]]:
    """Each sentence's span in ``answer``; empty if any cannot be placed in reading order."""
    placed: list[tuple[int, int]] = []
    cursor = 0
    for sent in sentences:
        said = text(sent.text)
        span = offsets(sent.start, sent.end)
        if (
            span
            and span[0] >= cursor
            and span[1] <= len(answer)
            and (not said or answer[span[0] : span[1]] == said)
        ):
            placed.append(span)
        else:
            at = answer.find(said, cursor) if said else -1
            if at < 0:
                return []
            placed.append((at, at + len(said)))
        cursor = placed[-1][1]
    return placed


def _cited_span(
    cit: CitationReport, start: int, sentence: str, cursor: int
) -> tuple[int, int] | None:
    """Where the citation's text as written lies in ``sentence`` (which starts at ``start`` in
    the answer), as answer offsets; ``cursor`` is where the previous one ended."""
    raw = text(cit.raw)
    span = offsets(cit.start, cit.end)
    if not raw:
        return None
    inside = span is not None and start <= span[0] and span[1] <= start + len(sentence)
    if span and inside and sentence[span[0] - start : span[1] - start] == raw:
        return span
    if span and span[1] <= len(sentence) and sentence[span[0] : span[1]] == raw:
        return start + span[0], start + span[1]  # sentence-relative
    at = sentence.find(raw, cursor - start) if cursor >= start else -1
    at = at if at >= 0 else sentence.find(raw)
    return (start + at, start + at + len(raw)) if at >= 0 else None


def _layout(
    answer: str, seen: _Sentences, spans: Sequence[tuple[int, int]], markdown: bool
) -> tuple[list[Block], bool]:
    """The answer laid out in blocks with its sentences and citations in place, and whether
    its Markdown was rendered; nothing when the sentences could not be placed in it."""
    if not spans:
        return [], False
    return layout(
        answer,
        spans,
        seen.cited,
        [r.problem for r in seen.rows],
        markdown=markdown,
        needed=[i for i, r in enumerate(seen.rows) if r.citations],
    )


def _excerpt(said: str) -> str:
    one = " ".join(said.split())
    return one if len(one) <= _EXCERPT else one[: _EXCERPT - 1].rstrip() + "\u2026"
