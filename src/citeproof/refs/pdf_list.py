"""The reference list of a parsed Document (a PDF, also an HTML page or a JATS article).

Why from the Document and not from the file: the parsers already decide where the
references are (``region == "references"``: after a PDF's last References heading, an
HTML ``ol.references``, a JATS ``<ref-list>``), so this reader only cuts that region into
entries.  PDF layout gives no entry boundaries of its own: a block may hold one entry or a
whole column of them, and an entry may run on to the next page.  So:

* In the blocks of the references region (headings left out), an entry starts at a
  numbered marker (``[3]``, ``3.``, ``3)``, ``(3)``) or a bullet at the start of a line, and
  runs to the next one (:func:`citeproof.refs.listed.entry_spans`).
* A number starts an entry when it follows the one before
  (:func:`citeproof.refs.listed.follows`), and also when it skips ahead (``3``, ``7``,
  ``12``: three entries, and a gap to report) or repeats the last (reported too), as long
  as it is below 1,000 and either opens a block (the layout saw a new paragraph there) or
  comes after an entry that has ended (a final full stop).  A number that fits none of
  that is a year or a page at the start of a wrapped line (``2017. Title``): its line
  continues the entry; one below the last entry's number is reported, as it may be an
  entry the numbering does not explain.
* A block that does not start with a marker is the rest of the entry before it (across a
  page or column break) when it :func:`~citeproof.refs.listed.continues` it or that entry
  has no final full stop yet.  Amid a numbered list every such block is taken as the
  rest; after the last numbered entry, one that is not is left out, as are bullets
  anywhere in a numbered list: those are the publisher's boxes ("Submit your next
  manuscript ...") that layout put in the references' region.  What is left out is
  reported.  In a list without numbers, a block that is not the rest of another is an
  entry (a hanging indent made it a block).
* Each entry is read by :func:`citeproof.refs.listed.parse_reference_string`, its number
  as the label; ``where`` is ``page N`` of its first line, or ``entry N`` for a Document
  without pages.  Soft hyphens, which PDF text may keep inside a word, are removed.  An
  entry's pieces meet at line ends, so a DOI that a line, column or page break cut is
  read whole (:func:`citeproof.identifiers.mend_line_breaks`).

Never silently: :func:`read_document_reference_list` says how many entries were read, which
numbers the list skips or repeats, and what was left out or taken into another entry, each
as a sentence a reader can act on (``ReferenceList.problems``).  Entries lost before this
reader sees them (a PDF line taken for a running head) show as gaps in the numbering.

Pure: no I/O.
"""

from __future__ import annotations

import itertools

from citeproof.documents.model import Document
from citeproof.refs.listed import (
    ENTRY_NUMBERS,
    EntrySpan,
    ReferenceList,
    continues,
    entry_spans,
    follows,
    gaps,
    parse_reference_string,
)
from citeproof.refs.stated import StatedReference

__all__ = ["ReferenceList", "read_document_reference_list", "read_document_references"]

_SOFT_HYPHEN = "\u00ad"
_QUOTED = 60
"""Characters of a left-out block quoted in a problem."""


def read_document_references(document: Document) -> list[StatedReference]:
    """Every entry of the Document's references region, in reading order (module rules)."""
    return read_document_reference_list(document).references


_Span = tuple[int | None, int, EntrySpan]
"""An entry span, the page of its block and its place in the block."""
_Piece = tuple[int | None, int | None, list[str]]
"""An entry's number, the page it starts on and its texts, one a block."""


def read_document_reference_list(document: Document) -> ReferenceList:
    """The entries of the Document's references region and how they were read."""
    text = document.text
    found = _spans(document)
    markers, absorbed = _markers(text, found)
    pieces, left_out = _pieces(text, found, markers)
    numbers = [number for number, _, _ in pieces if number is not None]
    return ReferenceList(
        references=_read(pieces),
        numbered=bool(numbers),
        first=numbers[0] if numbers else None,
        last=numbers[-1] if numbers else None,
        gaps=gaps(numbers),
        repeated=tuple(sorted({b for a, b in itertools.pairwise(numbers) if a == b})),
        absorbed=tuple(absorbed),
        left_out=tuple(_quote(piece) for piece in left_out),
    )


def _spans(document: Document) -> list[_Span]:
    """The entry spans of the references region's blocks (headings left out)."""
    return [
        (block.page, i, entry)
        for block in document.blocks
        if block.region == "references" and block.kind != "heading"
        for i, entry in enumerate(entry_spans(document.text, block.start, block.end))
    ]


def _pieces(text: str, found: list[_Span], markers: list[bool]) -> tuple[list[_Piece], list[str]]:
    """The spans gathered into entries (module rules), and the texts left out."""
    last = max((k for k, marker in enumerate(markers) if marker), default=-1)
    pieces: list[_Piece] = []
    left_out: list[str] = []
    for k, ((page, i, entry), marker) in enumerate(zip(found, markers, strict=True)):
        piece = text[entry.start : entry.end]
        if marker:
            pieces.append((entry.number, page, [text[entry.body : entry.end]]))
        elif last >= 0 and entry.number is None and entry.body != entry.start:
            left_out.append(piece)  # a bullet amid numbered entries: a publisher's box
        elif pieces and _is_the_rest(entry, i, k < last, pieces[-1][2][-1], piece):
            pieces[-1][2].append(piece)
        elif last < 0 or k < last:
            pieces.append((None, page, [piece]))
        else:
            left_out.append(piece)  # after the last numbered entry, not the rest of it
    return pieces, left_out


def _is_the_rest(entry: EntrySpan, i: int, amid: bool, previous: str, piece: str) -> bool:
    """Whether a span that starts no entry goes on the entry before it: a number that starts
    none, or a block amid the numbered entries, or one that reads as the rest."""
    return entry.number is not None or (i == 0 and (amid or _goes_on(previous, piece)))


def _read(pieces: list[_Piece]) -> list[StatedReference]:
    """Each entry read as a reference, its number as the label."""
    out: list[StatedReference] = []
    for n, (number, page, texts) in enumerate(pieces, start=1):
        # Pieces from different blocks meet at a line end, so a DOI that a page or column
        # break cut is joined again as one cut by a line end is.
        entry_text = "\n".join(texts).replace(_SOFT_HYPHEN, "")
        if not entry_text.strip():
            continue
        where = f"page {page}" if page is not None else f"entry {n}"
        label = str(number) if number is not None else None
        out.append(parse_reference_string(entry_text, label=label, where=where, numbered=False))
    return out


def _markers(text: str, found: list[_Span]) -> tuple[list[bool], list[tuple[int, int]]]:
    """For each entry span, whether its number starts an entry (module rules); and the
    lower numbers taken into an entry, as ``(number, entry)``."""
    out: list[bool] = []
    absorbed: list[tuple[int, int]] = []
    previous: int | None = None
    ended = True  # the entry before has its final full stop
    for _, i, entry in found:
        number = entry.number
        if number is None:
            out.append(False)
            ended = _ended(text, entry)
            continue
        starts = follows(number, previous) or (
            number < ENTRY_NUMBERS
            and (previous is None or number >= previous)
            and (i == 0 or ended)
        )
        if not starts and previous is not None and number < previous:
            absorbed.append((number, previous))
        previous = number if starts else previous
        ended = _ended(text, entry)
        out.append(starts)
    return out, absorbed


def _ended(text: str, entry: EntrySpan) -> bool:
    return text[entry.start : entry.end].rstrip().endswith((".", "?", "!"))


def _quote(piece: str) -> str:
    flat = " ".join(piece.split())
    return flat if len(flat) <= _QUOTED else flat[: _QUOTED - 3].rstrip() + "..."


def _goes_on(previous: str, block: str) -> bool:
    """Whether a block without a marker is the rest of the entry before it."""
    return continues(previous, block) or not previous.rstrip().endswith((".", "?", "!"))
