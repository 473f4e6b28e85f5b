"""Find the reference list at the end of an answer and read its entries.

Why: numbered citations (``[3]``) mean nothing on their own; the audit resolves each number to
the identifier its entry carries, and must be able to say precisely what is wrong when it
cannot (no list, no entry with that number, an entry without any identifier).

Rules:

* A reference list starts at the *last* line that is only a reference heading: ``References``,
  ``Sources``, ``Bibliography``, ``Citations``, ``Works cited``, ``Literature cited``,
  ``Reference list`` or ``Further reading`` (any case, as a ``#`` heading, in bold, or plain,
  with an optional colon).  It runs to the next ``#`` heading or the end of the answer.
* Without such a heading, a trailing run of numbered entries (``1. ...``, ``1) ...``,
  ``[1] ...``, ``[1]: ...``, ``[^1]: ...``) is the reference list when the text before it has
  a numbered citation ``[n]`` and either the entries are written ``[n]`` or at least half of
  them carry an identifier.  Otherwise a trailing numbered list is ordinary content.
* Inside the list, an entry starts at a numbered marker or a bullet and runs to the next
  marker or blank line; other lines continue it.  Each entry's identifiers come from
  :func:`citeproof.identifiers.find_identifiers`.  Bullets without numbers are entries with no
  number (numbered citations never resolve to them by position).  A repeated number is
  reported on the later entry, and citations resolve to the first.  An entry without an
  identifier that names nothing to search for either (``Halloway2021``) says so.

The heading, marker and entry rules live in :mod:`citeproof.refs.listed`, one copy shared
with ``citeproof refs``, which reads an answer's reference list the same way; this module
adds what the audit reports about each entry.

A paper's text piped in (``citeproof text paper.pdf | citeproof audit -``) is not Markdown,
and those rules once found no list in it, so every ``[n]`` was "no entry n", fabricated.  So
when they find no list under a heading, the manuscript reader's finder
(:func:`citeproof.manuscript.ref_section.find_list`) is asked: a line that is only a
reference heading wherever it stands (inside a "paragraph" of a PDF page's lines), when
entries that name a year follow it, else a run of paragraphs that read as references.  And
when a list's entries carry no marker the rules read as a number but the text cites by
number and most entries start with a bare number counting up from 1 (``1 McShea DW. …``,
as a JATS article's text prints them), that number is the entry's
(:func:`citeproof.manuscript.ref_section.entries_in`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeproof.audit.answer import ItemError
from citeproof.audit.sentences import Block
from citeproof.identifiers import Identifier, find_identifiers
from citeproof.manuscript.ref_section import entries_in, find_list
from citeproof.refs.listed import (
    CITED_NUMBER,
    BlockStart,
    EntrySpan,
    entry_spans,
    line_start,
    locate_reference_list,
    parse_reference_string,
)

__all__ = ["RawEntry", "ReferenceSection", "find_reference_section"]


@dataclass(frozen=True, slots=True)
class RawEntry:
    start: int
    end: int
    number: int | None
    identifiers: tuple[Identifier, ...]
    bracketed: bool
    error: ItemError | None = None


@dataclass(frozen=True, slots=True)
class ReferenceSection:
    start: int
    end: int
    heading: tuple[int, int] | None
    entries: tuple[RawEntry, ...]

    @property
    def numbers(self) -> frozenset[int]:
        return frozenset(e.number for e in self.entries if e.number is not None)


def find_reference_section(text: str, blocks: Sequence[Block]) -> ReferenceSection | None:
    """The answer's reference list (see the module rules), or None."""
    starts = [BlockStart(b.kind, b.lines[0][0], b.lines[0][1]) for b in blocks]
    found = locate_reference_list(text, starts)
    place = find_list(text, starts)
    if place is not None and (
        place.heading is not None
        or found is None
        or (found.heading is not None and not _reads_as_references(text, found.entries))
    ):
        start = line_start(text, place.heading[0]) if place.heading else place.start
        listed = entry_spans(text, place.start, place.end)
        read = _numbered(text, listed, start, place.end, by_position=True)
        return ReferenceSection(start, place.end, place.heading, _entries(text, read))
    if found is None:
        return None
    read = _numbered(text, found.entries, found.start, found.end)
    return ReferenceSection(found.start, found.end, found.heading, _entries(text, read))


def _reads_as_references(text: str, spans: Sequence[EntrySpan]) -> bool:
    """Whether half the entries under a heading name an identifier or a year, as references
    do (a table's "Source" column, which the heading rule also takes, does not)."""
    cited = sum(1 for s in spans if s.identifiers or _YEAR.search(text, s.start, s.end))
    return cited * 2 >= len(spans)


_YEAR = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")


def _numbered(
    text: str, spans: Sequence[EntrySpan], start: int, end: int, *, by_position: bool = False
) -> Sequence[EntrySpan]:
    """``spans``, or, when none has a number while the text before the list cites by
    number, the entries as the manuscript reader reads them: bare numbers (``1 McShea``)
    taken for labels, and with ``by_position`` (a paper's list the manuscript reader's
    finder found, printed without numbers) numbered in order, as the reader links them."""
    if any(s.number is not None for s in spans) or CITED_NUMBER.search(text, 0, start) is None:
        return spans
    read = entries_in(text, start, end)
    labelled = any(e.label and e.label.isdigit() for e in read)
    if not read or not (labelled or by_position):
        return spans
    out = []
    for k, e in enumerate(read, start=1):
        first = e.start if e.start is not None else start
        last = e.end if e.end is not None else end
        number = k if not labelled else int(e.label) if e.label and e.label.isdigit() else None
        ids = tuple(find_identifiers(text[first:last]))
        out.append(EntrySpan(first, last, first, number, False, ids))
    return out


def _entries(text: str, spans: Sequence[EntrySpan]) -> tuple[RawEntry, ...]:
    entries: list[RawEntry] = []
    seen: set[int] = set()
    for span in spans:
        number = span.number
        error: ItemError | None = None
        if number is not None and number in seen:
            error = ItemError(
                "duplicate_reference_number",
                f"Reference {number} is listed twice; citations use the first entry.",
            )
        elif not span.identifiers and parse_reference_string(text[span.body : span.end]).is_empty:
            error = ItemError(
                "reference_without_identifier",
                "This reference names nothing that can be looked up: no DOI, PMID, PMCID or "
                "URL, and no title or other words to search for; add one.",
            )
        elif not span.identifiers:
            error = ItemError(
                "reference_without_identifier",
                "This reference names no DOI, PMID, PMCID or URL, so it cannot be checked; "
                "add one.",
            )
        if number is not None:
            seen.add(number)
        entries.append(
            RawEntry(span.start, span.end, number, span.identifiers, span.bracketed, error)
        )
    return tuple(entries)
