"""PDF manuscripts (the text layer), through the PDF Document every check reads.

* Text, blocks, regions: :func:`citeproof.documents.pdf.parse_pdf` (pdfium's text layer and
  its layout reasoning: running heads and page numbers apart, the references region after
  the last References heading).  A PDF without a text layer is refused (a scan needs OCR).
* Entries: :func:`citeproof.refs.pdf_list.read_document_references` over the references
  region; each entry's span is looked up in that region by its first words.
* Citations: the superscript numbers the parser marks (``trials.⁴``, set smaller and raised
  on the page) are ``superscript`` citations; bracketed numbers and author-year citations
  are found by the shared scans.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citeproof.documents.pdf import parse_pdf
from citeproof.errors import DocumentError
from citeproof.manuscript.doc_blocks import draft_from_document
from citeproof.manuscript.draft import Draft, RawCitation, RawTarget
from citeproof.manuscript.scan import numbers_of
from citeproof.manuscript.structure import ReferenceEntry, TextBlock
from citeproof.refs.pdf_list import read_document_references
from citeproof.refs.stated import StatedReference

__all__ = ["locate_entries", "read_pdf"]

_MARK = re.compile(r"\d{1,4}(?:\s*[,;\-–—]\s*\d{1,4})*")


def read_pdf(data: bytes) -> Draft:
    """The draft of a PDF manuscript (module rules)."""
    document = parse_pdf(data)
    if not document.has_text:
        raise DocumentError(
            "The PDF has no text layer (it may be a scan), so the manuscript cannot be read; "
            "run OCR on it or give the Word or LaTeX source."
        )
    draft = draft_from_document(document, "pdf")
    stated = read_document_references(document)
    draft.entries.extend(locate_entries(document.text, draft.blocks, stated))
    prose = [
        b
        for b in draft.blocks
        if b.region in ("body", "footnotes") and b.kind not in ("heading", "title", "other")
    ]
    for s, e in document.markers:
        block = next((b for b in prose if b.start <= s and e <= b.end), None)
        piece = document.text[s:e]
        if block is None or not _MARK.fullmatch(piece) or s == block.start:
            continue
        numbers = numbers_of(piece) or []
        if numbers:
            draft.citations.append(
                RawCitation(
                    s,
                    e,
                    "superscript",
                    [RawTarget(str(n), number=n) for n in numbers],
                    region=block.region,
                )
            )
    return draft


def locate_entries(
    text: str, blocks: Sequence[TextBlock], stated: Sequence[StatedReference]
) -> list[ReferenceEntry]:
    """Entries for a list read from a Document, each placed in the references region by
    its first words when they are found there (in order)."""
    region = [b for b in blocks if b.region == "references"]
    start = min((b.start for b in region), default=len(text))
    end = max((b.end for b in region), default=len(text))
    spans: list[tuple[int | None, int | None]] = []
    cursor = start
    for ref in stated:
        words = ref.text.split()[:6]
        found = None
        if words:
            found = re.compile(r"\s+".join(re.escape(w) for w in words)).search(text, cursor, end)
        if found is None:
            spans.append((None, None))
            continue
        spans.append((found.start(), None))
        cursor = found.end()
    placed = [s for s, _ in spans if s is not None]
    out: list[ReferenceEntry] = []
    for n, (ref, (s, _)) in enumerate(zip(stated, spans, strict=True), start=1):
        e = None
        if s is not None:
            nxt = next((p for p in placed if p > s), end)
            e = nxt
            while e > s and text[e - 1].isspace():
                e -= 1
            s = _line_start(text, s, start)
        out.append(ReferenceEntry(f"ref{n}", ref, ref.label, start=s, end=e, where=ref.where))
    return out


def _line_start(text: str, pos: int, floor: int) -> int:
    """Back to where the entry's line starts (its number stands before its first words)."""
    line = max(text.rfind("\n", floor, pos) + 1, floor)
    return line if re.fullmatch(r"\s*(?:\[\d+\]|\d+[.)]?)?\s*", text[line:pos]) else pos
