"""Number the items found in an answer, tie them together and apply the per-item limits.

Why a step of its own: both input forms (Markdown and JSON claims) find sentences, citations
and quotes in their own way, but the cross-references (which sentence holds a citation, which
quote supports which citation, which entry a number resolves to) and the limits must be the
same for both.  Quote-to-citation rules are in :mod:`citeproof.audit.parse`.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from citeproof.audit.answer import (
    CLAIM_KINDS,
    Citation,
    InputFormat,
    ItemError,
    ParsedAnswer,
    Quote,
    ReferenceEntry,
    Sentence,
)
from citeproof.audit.citations import RawCitation
from citeproof.audit.reference_list import ReferenceSection
from citeproof.models.audit import QuoteKind, SentenceKind

__all__ = ["MAX_ANSWER_BYTES", "MAX_QUOTE_CHARS", "MAX_SENTENCE_CHARS", "Draft", "assemble"]

#: Over this many UTF-8 bytes the whole answer is refused (BadInputError).
MAX_ANSWER_BYTES = 2 * 1024 * 1024
#: A quote longer than this gets a ``quote_too_long`` error of its own.
MAX_QUOTE_CHARS = 2_000
#: A claim longer than this gets a ``sentence_too_long`` error of its own.
MAX_SENTENCE_CHARS = 5_000


# --------------------------------------------------------------------------------------------
# Assembly


@dataclass(slots=True)
class Draft:
    """Sentences (start, end, kind), citations and quotes found so far, unnumbered."""

    sentences: list[tuple[int, int, SentenceKind]] = field(default_factory=list)
    citations: list[RawCitation] = field(default_factory=list)
    #: (start, end, text, kind, own citation index or None)
    quotes: list[tuple[int, int, str, QuoteKind, int | None]] = field(default_factory=list)


def assemble(
    text: str, fmt: InputFormat, draft: Draft, section: ReferenceSection | None
) -> ParsedAnswer:
    order = sorted(range(len(draft.sentences)), key=lambda i: draft.sentences[i][0])
    spans = [draft.sentences[i] for i in order]
    starts = [s for s, _, _ in spans]

    def sentence_of(pos: int) -> int:
        i = bisect.bisect_right(starts, pos) - 1
        return i if i >= 0 and pos < max(spans[i][1], spans[i][0] + 1) else -1

    references: list[ReferenceEntry] = []
    by_number: dict[int, int] = {}
    if section is not None:
        for entry in section.entries:
            idx = len(references)
            references.append(
                ReferenceEntry(
                    idx,
                    entry.start,
                    entry.end,
                    text[entry.start : entry.end],
                    entry.number,
                    entry.identifiers,
                    sentence_of(entry.start),
                    entry.error,
                )
            )
            if entry.number is not None:
                by_number.setdefault(entry.number, idx)

    raw_cits = sorted(enumerate(draft.citations), key=lambda p: (p[1].start, p[1].end, p[0]))
    position = {old: new for new, (old, _) in enumerate(raw_cits)}
    citations = [
        _citation(text, new, raw, sentence_of(raw.start), section, by_number, references)
        for new, (_, raw) in enumerate(raw_cits)
    ]

    quote_rows = sorted(draft.quotes, key=lambda q: (q[0], q[1]))
    quotes_in: dict[int, list[int]] = {}
    for qi, (qs, _, _, _, _) in enumerate(quote_rows):
        quotes_in.setdefault(sentence_of(qs), []).append(qi)
    cits_in: dict[int, list[int]] = {}
    for c in citations:
        cits_in.setdefault(c.sentence, []).append(c.index)
    links = _link_quotes(quote_rows, position, citations, cits_in, quotes_in, spans)

    quotes = []
    for qi, (qs, qe, qtext, qkind, _) in enumerate(quote_rows):
        error = None
        if len(qtext) > MAX_QUOTE_CHARS:
            error = ItemError(
                "quote_too_long",
                f"This quote is {len(qtext):,} characters; quotes are checked up to "
                f"{MAX_QUOTE_CHARS:,}. Quote the words that support the claim.",
            )
        quotes.append(
            Quote(qi, qs, qe, text[qs:qe], qtext, qkind, sentence_of(qs), links[qi], error)
        )
    for_citation: dict[int, list[int]] = {}
    for q in quotes:
        for ci in q.citations:
            for_citation.setdefault(ci, []).append(q.index)
    citations = [replace(c, quotes=tuple(for_citation.get(c.index, ()))) for c in citations]

    sentences = []
    for si, (s, e, kind) in enumerate(spans):
        error = None
        if kind in CLAIM_KINDS and e - s > MAX_SENTENCE_CHARS:
            error = ItemError(
                "sentence_too_long",
                f"This sentence is {e - s:,} characters; sentences are audited up to "
                f"{MAX_SENTENCE_CHARS:,}. Split it into separate claims.",
            )
        sentences.append(
            Sentence(
                si,
                s,
                e,
                text[s:e],
                kind,
                tuple(cits_in.get(si, ())),
                tuple(quotes_in.get(si, ())),
                error,
            )
        )
    section_span = (section.start, section.end) if section is not None else None
    return ParsedAnswer(
        text,
        fmt,
        tuple(sentences),
        tuple(citations),
        tuple(quotes),
        tuple(references),
        section_span,
    )


def _citation(
    text: str,
    index: int,
    raw: RawCitation,
    sentence: int,
    section: ReferenceSection | None,
    by_number: dict[int, int],
    references: Sequence[ReferenceEntry],
) -> Citation:
    error = raw.error
    reference: int | None = None
    if raw.kind == "numbered" and raw.number is not None and error is None:
        n = raw.number
        if section is None:
            error = ItemError(
                "no_reference_list",
                f"[{n}] is a numbered citation but the answer has no reference list; "
                "add one with a DOI, PMID, PMCID or URL per entry.",
            )
        elif n not in by_number:
            error = ItemError("no_reference_entry", f"The reference list has no entry {n}; add it.")
        else:
            reference = by_number[n]
            if not references[reference].identifiers:
                error = ItemError(
                    "reference_without_identifier",
                    f"Reference {n} names no DOI, PMID, PMCID or URL, so it cannot be checked.",
                )
    return Citation(
        index,
        raw.start,
        raw.end,
        text[raw.start : raw.end],
        raw.kind,
        raw.form,
        raw.target,
        raw.identifier,
        raw.number,
        reference,
        (),
        sentence,
        error,
    )


def _link_quotes(
    quote_rows: Sequence[tuple[int, int, str, QuoteKind, int | None]],
    position: dict[int, int],
    citations: Sequence[Citation],
    cits_in: dict[int, list[int]],
    quotes_in: dict[int, list[int]],
    spans: Sequence[tuple[int, int, SentenceKind]],
) -> list[tuple[int, ...]]:
    """For each quote, the citations it supports (rules in the module docstring)."""
    owned = {position[q[4]] for q in quote_rows if q[4] is not None}
    links: list[tuple[int, ...]] = [()] * len(quote_rows)
    for sentence, qis in quotes_in.items():
        free = [c for c in cits_in.get(sentence, []) if c not in owned]
        inline = [qi for qi in qis if quote_rows[qi][3] in ("inline", "claim")]
        for qi in qis:
            qs, qe, _, kind, own = quote_rows[qi]
            if own is not None:
                links[qi] = (position[own],)
            elif kind == "blockquote":
                chosen = free
                nxt = sentence + 1
                if not chosen and nxt < len(spans) and spans[nxt][2] not in ("heading", "code"):
                    chosen = [c for c in cits_in.get(nxt, []) if c not in owned]
                links[qi] = tuple(chosen)
        for k, qi in enumerate(inline):
            qs, qe = quote_rows[qi][0], quote_rows[qi][1]
            nxt_start = quote_rows[inline[k + 1]][0] if k + 1 < len(inline) else None
            last_end = quote_rows[inline[-1]][1]
            options = (
                [
                    c
                    for c in free
                    if citations[c].start >= qe
                    and (nxt_start is None or citations[c].start < nxt_start)
                ],
                [c for c in free if citations[c].start >= last_end],
                [c for c in free if citations[c].end <= qs],
                free,
            )
            links[qi] = tuple(next((o for o in options if o), []))
    return links
