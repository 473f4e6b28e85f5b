"""The reference list of a parsed Document (a PDF, also an HTML page or a JATS article).

Why from the Document and not from the file: the parsers already decide where the
references are (``region == "references"``: after a PDF's last References heading, an
HTML ``ol.references``, a JATS ``<ref-list>``), so this reader only cuts that region into
entries.  PDF layout gives no entry boundaries of its own: a block may hold one entry or a
whole column of them, and an entry may run on to the next page.  So:

* In the blocks of the references region (headings left out), an entry starts at a
  numbered marker (``[3]``, ``3.``, ``3)``, ``(3)``) or a bullet at the start of a line, and
  runs to the next one (:func:`citeproof.refs.listed.entry_spans`).
* A number that does not follow the one before (:func:`citeproof.refs.listed.follows`)
  is a year or page at the start of a wrapped line (``2017. Title``), not a marker: its
  line continues the entry.
* A block that does not start with a marker is the rest of the entry before it (across a
  page or column break) when it :func:`~citeproof.refs.listed.continues` it or that entry
  has no final full stop yet.  Amid a numbered list every such block is taken as the
  rest; after the last numbered entry, one that is not is dropped, as are bullets
  anywhere in a numbered list: those are the publisher's boxes ("Submit your next
  manuscript ...") that layout put in the references' region.  In a list without
  numbers, a block that is not the rest of another is an entry (a hanging indent made it
  a block).
* Each entry is read by :func:`citeproof.refs.listed.parse_reference_string`, its number
  as the label; ``where`` is ``page N`` of its first line, or ``entry N`` for a Document
  without pages.  Soft hyphens, which the PDF parser leaves where a word was split at a
  line end, are removed.

Pure: no I/O.
"""

from __future__ import annotations

from citeproof.documents.model import Document
from citeproof.refs.listed import (
    EntrySpan,
    continues,
    entry_spans,
    follows,
    parse_reference_string,
)
from citeproof.refs.stated import StatedReference

__all__ = ["read_document_references"]

_SOFT_HYPHEN = "\u00ad"


def read_document_references(document: Document) -> list[StatedReference]:
    """Every entry of the Document's references region, in reading order (module rules)."""
    text = document.text
    found = [
        (block.page, i, entry)
        for block in document.blocks
        if block.region == "references" and block.kind != "heading"
        for i, entry in enumerate(entry_spans(text, block.start, block.end))
    ]
    markers = _markers([entry for _, _, entry in found])
    last = max((k for k, marker in enumerate(markers) if marker), default=-1)
    pieces: list[tuple[int | None, int | None, list[str]]] = []  # number, page, texts
    for k, ((page, i, entry), marker) in enumerate(zip(found, markers, strict=True)):
        piece = text[entry.start : entry.end]
        if marker:
            pieces.append((entry.number, page, [text[entry.body : entry.end]]))
        elif last >= 0 and entry.number is None and entry.body != entry.start:
            continue  # a bullet amid numbered entries: a publisher's box, not a reference
        elif pieces and (
            entry.number is not None
            or (i == 0 and k < last)
            or (i == 0 and _goes_on(pieces[-1][2][-1], piece))
        ):
            pieces[-1][2].append(piece)
        elif last < 0 or k < last:
            pieces.append((None, page, [piece]))
    out: list[StatedReference] = []
    for n, (number, page, texts) in enumerate(pieces, start=1):
        entry_text = " ".join(texts).replace(_SOFT_HYPHEN, "")
        if not entry_text.strip():
            continue
        where = f"page {page}" if page is not None else f"entry {n}"
        label = str(number) if number is not None else None
        out.append(parse_reference_string(entry_text, label=label, where=where, numbered=False))
    return out


def _markers(entries: list[EntrySpan]) -> list[bool]:
    """For each entry span, whether its number starts an entry (:func:`follows`)."""
    out: list[bool] = []
    previous: int | None = None
    for entry in entries:
        starts = entry.number is not None and follows(entry.number, previous)
        previous = entry.number if starts else previous
        out.append(starts)
    return out


def _goes_on(previous: str, block: str) -> bool:
    """Whether a block without a marker is the rest of the entry before it."""
    return continues(previous, block) or not previous.rstrip().endswith((".", "?", "!"))
