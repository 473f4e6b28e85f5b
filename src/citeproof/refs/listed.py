"""Reference strings and plain reference lists, read without asking any database.

Why heuristics at all: most references arrive as printed strings (a PDF's list, an AI
answer's sources, a list pasted into a file).  The search can use a string whole, as
Crossref matches unstructured references, so the title and authors picked out here only
sharpen the comparison.  A wrong pick would make a real reference look wrong, so a style is
read only when the whole string has that style's shape; otherwise title and authors stay
unset and the string speaks for itself.

Styles :func:`parse_reference_string` reads, tried in this order:

* a quoted title (IEEE, also MLA and Chicago): ``J. Smith and A. Doe, “Title,” Venue, ...``;
  the quote must end in ``,`` ``.`` ``?`` or ``!`` (American punctuation), so a quoted
  word inside a title is not taken for the title.  Authors and venue only when the names are written
  initials first (IEEE), where the name list and the venue's end (a comma) are unambiguous.
* APA and Harvard: ``Smith, J., & Doe, A. (2019). Title. Venue, 1(2), 3.``, ``Smith, J.
  and Doe, A. (2019) Title.``, ``Smith, J. and Doe, A., 2019. Title.``; an organisation
  before ``(2019).`` gives the title but no authors.  The venue only when a volume follows
  it (``Venue, 1(2)``).
* author-year with full names (ACL, natbib): ``Ann Smith and Bo Doe. 2019. Title. In Venue.``
* Vancouver/AMA/NLM: ``Smith J, Doe AB, et al. Title. Venue. 2019;1(2):3.``, also with
  a colon after the names (BMC: ``Smith J, Doe AB: Title. Venue 2019, 1:3.``).

A title ends at the first full stop, question or exclamation mark followed by a space (not
after ``vs.``, ``e.g.`` and similar), and must have two words or more.  Identifiers come
from :func:`citeproof.identifiers.find_identifiers`: the first DOI, PMID and PMCID are the
entry's, every other identifier is kept in ``extra_ids``.  The year is the style's own
(``(2019)``, the year after the venue), else the first year after the title, else the first
year outside the identifiers.

Lists: :func:`read_list` reads a file of references; :func:`read_answer_references` the
reference list of a Markdown or plain-text answer.  The audit reads answers with the same
pieces (:data:`REFERENCE_HEADING`, :data:`ENTRY_MARKER`, :func:`entry_spans`,
:func:`locate_reference_list`), from the Markdown blocks of its own scanner; here a light
scanner gives the blocks (fenced code, ATX and underlined headings, list items, quotes,
tables, paragraphs), which is all that finding the list needs.

* A reference list starts at the *last* line that is only a reference heading:
  ``References``, ``Sources``, ``Bibliography``, ``Citations``, ``Works cited``, ``Literature
  cited``, ``Reference list`` or ``Further reading`` (any case, as a ``#`` heading, in bold,
  or plain, with an optional colon).  It runs to the next heading or the end of the text.
* Without such a heading, a trailing run of numbered entries (``1. ...``, ``1) ...``,
  ``[1] ...``, ``[1]: ...``, ``[^1]: ...``, ``(1) ...``) is the reference list when the text
  before it has a numbered citation ``[n]`` and either the entries are written ``[n]`` or at
  least half of them carry an identifier.
* Entries (:func:`entry_spans`): an entry starts at a numbered marker or a bullet and runs to
  the next marker or blank line; other lines continue it.  Reading a list (not the audit's
  answer), every numbered line starts an entry whatever its number: ``3.``, ``7.``,
  ``12.`` are three entries, never one.  Only a number of :data:`ENTRY_NUMBERS` (1,000) or
  more that does not :func:`follows` the one before is no entry number but a year that a
  wrapped line starts with (``2017. Title``), and its line continues the entry.
* Never silently: :func:`read_plain_list` and :func:`read_answer_list` return a
  :class:`ReferenceList`, whose ``problems`` say in sentences which numbers no entry has
  (from 1 to the highest; a list may start again at 1), which open more than one entry,
  and which come after a higher one.  An entry that is only its number is not read, so its
  number shows as skipped.
* A list without any marker or bullet (:func:`read_list`, and a reference section written
  that way) has one entry per line, except that a line continues the entry above when it is
  indented further than the entry's first line (a hanging indent) or :func:`continues` it
  (it starts in lower case, with a digit or with ``In``; the line above ends in ``,``
  ``;`` ``:`` ``&``, a hyphen, ``and`` or an initial; or the line end breaks a DOI).  A
  blank line always ends an entry; a first line that is only a reference heading is not an
  entry.
* A DOI that a line end broke (``10.1016/j`` then ``.cell.2019.01.001``) is joined again
  before the entry is read (:func:`citeproof.identifiers.mend_line_breaks`); where the
  break leaves a doubt, the other reading is the entry's ``doi_alternatives``, as is the
  DOI read on across the space a PDF's extraction left of a line end (``10.2217/fca
  .14.82``: :func:`citeproof.identifiers.spaced_readings`).  What is
  written as an identifier but is none (``doi:10.``, ``PMID: 0``) is the entry's
  ``malformed_ids``, never looked up.

Each entry's ``where`` is ``line N`` (1-based) of its first line.  Pure: no I/O.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from citeproof.documents.markup import typeset_free
from citeproof.identifiers import (
    Identifier,
    UnknownIdentifierError,
    find_identifiers,
    find_malformed_identifiers,
    mend_line_breaks,
    parse_identifier,
    spaced_readings,
)
from citeproof.refs.names import CAPITALS, NAME_LETTERS
from citeproof.refs.numbers import cited_year
from citeproof.refs.stated import StatedReference

__all__ = [
    "BULLET",
    "CITED_NUMBER",
    "ENTRY_MARKER",
    "ENTRY_NUMBERS",
    "MAX_FIELD",
    "REFERENCE_HEADING",
    "BlockStart",
    "EntrySpan",
    "ListSpan",
    "ReferenceList",
    "continues",
    "entry_spans",
    "follows",
    "from_fields",
    "gaps",
    "line_start",
    "locate_reference_list",
    "numbering",
    "parse_reference_string",
    "read_answer_list",
    "read_answer_references",
    "read_list",
    "read_plain_list",
]

REFERENCE_HEADING = re.compile(
    r"[ \t]{0,3}(?:#{1,6}[ \t]*)?(?:\*\*|__)?[ \t]*"
    r"(?:references?|sources?|bibliography|citations?|works[ \t]+cited|literature[ \t]+cited"
    r"|reference[ \t]+list|further[ \t]+reading)"
    r"[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*:?[ \t]*#*[ \t]*",
    re.IGNORECASE,
)
"""A line that is only a reference heading (use with ``fullmatch``)."""
ENTRY_MARKER = re.compile(
    r"[ \t]*(?:[-*+•][ \t]+)?(?:\[\^?(?P<b>\d{1,6})\][ \t]*:?|(?P<d>\d{1,6})[.)](?=\s|$)"
    r"|\((?P<p>\d{1,6})\)(?=\s|$))"
)
"""The number that opens a list entry: ``[3]``, ``[^3]:``, ``3.``, ``3)``, ``(3)``."""
BULLET = re.compile(r"[ \t]*[-*+•][ \t]+")
CITED_NUMBER = re.compile(r"\[\^?\d{1,6}(?:[ \t]*[-–—,;][ \t]*\d{1,6})*\]")
"""A numbered citation in running text: ``[3]``, ``[1, 4-6]``, ``[^2]``."""

_BREAK = re.compile(r"\r\n?|\n")
_FENCE = re.compile(r"[ \t]{0,3}(?:`{3,}|~{3,})")
_ATX = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]+|$)")
_UNDERLINE = re.compile(r"[ \t]{0,3}(?:=+|-+)[ \t]*$")
_RULE = re.compile(r"[ \t]{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]+(?=\S)")
_QUOTE_LINE = re.compile(r"[ \t]{0,3}>")
_CONTINUES_AFTER = (",", ";", ":", "&", "-", "\u2010", "\u2013")
_ENDS_UNFINISHED = re.compile(r"(?:^|[\s,])(?:and|[A-Z]\.)$")
_MAX_PARSE = 2000
"""Characters of a string the style patterns look at; a reference is far shorter."""
MAX_FIELD: Final = 10_000
"""Characters kept of anything a reference states (its text, title, venue, each author):
no real one comes near, and a file must not make every later step (scoring, the search
queries, each output line) carry megabytes."""


# --- the pieces the audit shares ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntrySpan:
    """One entry of a list, as offsets into the text it was found in."""

    start: int
    """The entry's first character (its marker, when it has one)."""
    end: int
    body: int
    """Where the entry's own text starts, after its marker or bullet."""
    number: int | None
    bracketed: bool
    """Numbered ``[n]`` (a citation-style label), not ``n.``."""
    identifiers: tuple[Identifier, ...]


@dataclass(frozen=True, slots=True)
class BlockStart:
    """Where a Markdown block begins: all that finding a reference list needs of it."""

    kind: str
    """``heading``, ``paragraph`` or ``list_item``; any other kind is passed over."""
    start: int
    """The first character of the block's content on its first line."""
    end: int
    """The end of the block's first line."""


@dataclass(frozen=True, slots=True)
class ListSpan:
    """A reference list found in a text."""

    start: int
    end: int
    heading: tuple[int, int] | None
    """The heading's content span, or None for a heading-less trailing list."""
    entries: tuple[EntrySpan, ...]


def split_lines(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """(start, end) of each line in ``text[start:end]``, line breaks (``\\r\\n``, ``\\r``,
    ``\\n``) excluded.  The audit's sentence reader splits lines with this too."""
    stop = len(text) if end is None else end
    lines: list[tuple[int, int]] = []
    pos = start
    for m in _BREAK.finditer(text, start, stop):
        lines.append((pos, m.start()))
        pos = m.end()
    lines.append((pos, stop))
    return lines


def line_start(text: str, pos: int) -> int:
    """The offset where the line holding ``pos`` begins."""
    return max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1


def entry_spans(text: str, start: int = 0, end: int | None = None) -> tuple[EntrySpan, ...]:
    """The entries of the list in ``text[start:end]``, split by markers (module rules)."""
    stop = len(text) if end is None else end
    spans: list[tuple[int, int, int, int | None, bool]] = []
    open_entry = False
    for ls, le in split_lines(text, start, stop):
        line = text[ls:le]
        if not line.strip():
            open_entry = False
            continue
        content_start = ls + len(line) - len(line.lstrip())
        content_end = ls + len(line.rstrip())
        marker = ENTRY_MARKER.match(text, ls, le)
        bullet = BULLET.match(text, ls, le) if marker is None else None
        if marker is not None:
            digits = marker.group("b") or marker.group("d") or marker.group("p")
            body = _skip_blanks(text, marker.end(), content_end)
            bracketed = marker.group("b") is not None
            spans.append((content_start, content_end, body, int(digits), bracketed))
        elif bullet is not None or not open_entry:
            body = bullet.end() if bullet is not None else content_start
            spans.append((content_start, content_end, body, None, False))
        else:
            s, _, body, number, bracketed = spans[-1]
            spans[-1] = (s, content_end, body, number, bracketed)
        open_entry = True
    return tuple(
        EntrySpan(s, e, body, number, bracketed, tuple(find_identifiers(text[s:e])))
        for s, e, body, number, bracketed in spans
    )


def _skip_blanks(text: str, pos: int, end: int) -> int:
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


def locate_reference_list(text: str, blocks: Sequence[BlockStart]) -> ListSpan | None:
    """The reference list of an answer whose Markdown blocks are ``blocks``, or None."""
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if block.kind not in ("heading", "paragraph"):
            continue
        first_start = line_start(text, block.start)
        if REFERENCE_HEADING.fullmatch(text, first_start, block.end) is None:
            continue
        end = len(text)
        for later in blocks[i + 1 :]:
            if later.kind == "heading":
                end = line_start(text, later.start)
                break
        entries = entry_spans(text, block.end, end)
        return ListSpan(first_start, end, (block.start, block.end), entries)
    return _trailing_list(text, blocks)


def _trailing_list(text: str, blocks: Sequence[BlockStart]) -> ListSpan | None:
    """A heading-less numbered list at the very end that reads as a reference list."""
    first = len(blocks)
    while first > 0:
        block = blocks[first - 1]
        if block.kind not in ("list_item", "paragraph"):
            break
        if ENTRY_MARKER.match(text, line_start(text, block.start)) is None:
            break
        first -= 1
    if first == len(blocks):
        return None
    start = line_start(text, blocks[first].start)
    if CITED_NUMBER.search(text, 0, start) is None:
        return None
    entries = entry_spans(text, start, len(text))
    numbered = [e for e in entries if e.number is not None]
    if not numbered:
        return None
    with_ids = sum(1 for e in numbered if e.identifiers)
    if not all(e.bracketed for e in numbered) and 2 * with_ids < len(numbered):
        return None
    return ListSpan(start, len(text), None, entries)


# --- lists ----------------------------------------------------------------------------------

_LISTED = 3
"""Left-out blocks quoted in a problem; the rest are counted."""


@dataclass(frozen=True, slots=True)
class ReferenceList:
    """The entries read from a reference list, and how they were read: what a reader should
    check, since nothing is dropped or merged silently."""

    references: list[StatedReference]
    numbered: bool
    """Whether the list's entries carry numbers (``[3]``, ``3.``)."""
    first: int | None = None
    last: int | None = None
    """The first and last entry numbers read, in reading order (None: not numbered)."""
    gaps: tuple[tuple[int, int], ...] = ()
    """Numbers no entry was read for, as ``(first, last)`` ranges: from 1 to the first
    number read, and wherever the numbering skips."""
    repeated: tuple[int, ...] = ()
    """Numbers that open more than one entry."""
    absorbed: tuple[tuple[int, int], ...] = ()
    """``(n, into)``: a line opening with number ``n``, lower than the entry ``into`` it
    was taken into, read as part of that entry."""
    left_out: tuple[str, ...] = ()
    """The start of each block of the region that was not read as (part of) an entry."""
    out_of_order: tuple[tuple[int, int], ...] = ()
    """``(n, after)``: an entry numbered ``n`` right after the entry numbered ``after``,
    higher, and no entry numbered ``n`` before it: read as an entry of its own."""
    check: str = "the PDF's reference list"
    """What a reader compares the entries with."""

    @property
    def count(self) -> int:
        """How many entries were read."""
        return len(self.references)

    @property
    def problems(self) -> tuple[str, ...]:
        """One sentence for each thing a reader should check against the list."""
        out: list[str] = []
        if self.gaps:
            missing = sum(b - a + 1 for a, b in self.gaps)
            spans = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in self.gaps)
            out.append(
                f"The numbering skips {spans}: no entry was read for {missing} "
                f"number{'s' if missing != 1 else ''}; check {self.check}."
            )
        if self.repeated:
            numbers = ", ".join(str(n) for n in self.repeated)
            out.append(f"More than one entry is numbered {numbers}; each is read apart.")
        for n, after in self.out_of_order:
            out.append(
                f"Entry {n} comes after entry {after} (the numbers go back); it is read as an "
                "entry of its own."
            )
        for n, into in self.absorbed:
            out.append(
                f"A line starting with the number {n} was read as part of entry {into} "
                "(the numbers had gone past it); check whether it is an entry of its own."
            )
        if self.left_out:
            quoted = ", ".join(f"'{text}'" for text in self.left_out[:_LISTED])
            more = len(self.left_out) - _LISTED
            out.append(
                f"Text in the reference list was not read as entries (a publisher's box, "
                f"a note?): {quoted}" + (f" and {more} more." if more > 0 else ".")
            )
        return tuple(out)


def read_list(text: str) -> list[StatedReference]:
    """Every reference of a plain list (numbered, bulleted, or one per line)."""
    return read_plain_list(text).references


def read_plain_list(text: str) -> ReferenceList:
    """Every reference of a plain list, and what reading it found wrong with its numbers."""
    start = 0
    for ls, le in split_lines(text, 0, len(text)):
        if text[ls:le].strip():
            if REFERENCE_HEADING.fullmatch(text, ls, le) is not None:
                start = le
            break
    return _listed(text, _split(text, start, len(text)))


def read_answer_references(text: str) -> list[StatedReference] | None:
    """The reference list of a Markdown or plain-text answer; None when it has none."""
    found = read_answer_list(text)
    return found.references if found is not None else None


def read_answer_list(text: str) -> ReferenceList | None:
    """The reference list of an answer and what reading it found wrong; None when it has
    none."""
    found = locate_reference_list(text, _answer_blocks(text))
    if found is None:
        return None
    if found.heading is None:
        return _listed(text, _in_sequence(found.entries))
    return _listed(text, _split(text, found.heading[1], found.end))


_Span = tuple[int, int, int, int | None]
"""(start, end, body, number) of one entry."""


def _split(text: str, start: int, end: int) -> list[_Span]:
    lines = list(split_lines(text, start, end))
    if any(ENTRY_MARKER.match(text, s, e) or BULLET.match(text, s, e) for s, e in lines):
        return _in_sequence(entry_spans(text, start, end))
    spans: list[_Span] = []
    indent = 0
    previous = ""
    for ls, le in lines:
        line = text[ls:le]
        if not line.strip():
            previous = ""
            continue
        content = line.strip()
        here = len(line) - len(line.lstrip())
        content_start = ls + here
        content_end = ls + len(line.rstrip())
        if previous and (here > indent or continues(previous, content)):
            s, _, body, number = spans[-1]
            spans[-1] = (s, content_end, body, number)
        else:
            spans.append((content_start, content_end, content_start, None))
            indent = here
        previous = content
    return spans


def follows(number: int, previous: int | None) -> bool:
    """Whether an entry numbered ``number`` can come after one numbered ``previous``
    (None: it is the first).  A list's numbers go up one at a time; a gap of up to three
    allows for markers lost in extraction, and ``1`` may start a list again."""
    if number == 1:
        return True
    if previous is None:
        return number <= 10
    return previous < number <= previous + 3


ENTRY_NUMBERS: Final = 1000
"""Numbers from here on at a line start are years (``2017. Title``), not entry numbers,
unless they :func:`follows` the entry before."""


def _in_sequence(spans: Sequence[EntrySpan]) -> list[_Span]:
    """Every numbered line starts an entry, whatever its number (a gap or a repeat is
    reported, never merged away); only a number of :data:`ENTRY_NUMBERS` or more that does
    not follow the one before is no entry number but a year that a wrapped line starts
    with (``2017. Title``), and its line goes on with the entry above."""
    out: list[_Span] = []
    previous: int | None = None
    for e in spans:
        if e.number is None or follows(e.number, previous) or e.number < ENTRY_NUMBERS:
            previous = e.number if e.number is not None else previous
            out.append((e.start, e.end, e.body, e.number))
        elif out:
            s, _, body, number = out[-1]
            out[-1] = (s, e.end, body, number)
        else:
            out.append((e.start, e.end, e.start, None))
    return out


def _listed(text: str, spans: Iterable[_Span]) -> ReferenceList:
    """The references of ``spans`` and what their numbers say about the list."""
    kept = [span for span in spans if text[span[2] : span[1]].strip()]
    numbers = [number for _, _, _, number in kept if number is not None]
    repeated, out_of_order = numbering(numbers)
    return ReferenceList(
        references=_references(text, kept),
        numbered=bool(numbers),
        first=numbers[0] if numbers else None,
        last=numbers[-1] if numbers else None,
        gaps=gaps(numbers),
        repeated=repeated,
        out_of_order=out_of_order,
        check="the list",
    )


def gaps(numbers: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Ranges of numbers no entry has, from 1 to the highest, as ``(first, last)``; a ``1``
    after other numbers starts the list again (a second list, an appendix's)."""
    out: list[tuple[int, int]] = []
    run: list[int] = []
    for number in [*numbers, 1]:  # the last 1 ends the last run
        if number == 1 and run:
            present = set(run)
            out.extend(_ranges([n for n in range(1, max(run) + 1) if n not in present]))
            run = []
        run.append(number)
    return tuple(out)


def _ranges(numbers: Sequence[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in numbers:
        if out and out[-1][1] == n - 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def numbering(numbers: Sequence[int]) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The numbers that open more than one entry, and ``(n, after)`` for each number lower
    than the one before it that no entry had yet (``5`` after ``9``); a ``1`` after other
    numbers starts the list again and is neither."""
    repeated: list[int] = []
    out_of_order: list[tuple[int, int]] = []
    seen: set[int] = set()
    previous: int | None = None
    for number in numbers:
        if previous is not None and number != previous and number == 1:
            seen = set()
        elif previous is not None and number in seen:
            if number not in repeated:
                repeated.append(number)
        elif previous is not None and number < previous:
            out_of_order.append((number, previous))
        seen.add(number)
        previous = number
    return tuple(sorted(repeated)), tuple(out_of_order)


def continues(previous: str, line: str) -> bool:
    """Whether ``line`` goes on with an entry whose text so far is ``previous``: the line
    starts in lower case, with a digit, or with ``In`` (a chapter's book, a paper's
    proceedings), or the entry so far ends in ``,`` ``;`` ``:`` ``&``, a hyphen, ``and``,
    or an initial (``Christopher D.``), which no reference ends with, or in a DOI that goes
    on in ``line`` (``10.1016/j`` then ``.cell.2019``)."""
    previous, line = previous.rstrip(), line.lstrip()
    if not previous or not line:
        return False
    if line[0].islower() or line[0].isdigit() or line.startswith(("In ", "In:")):
        return True
    if previous.endswith(_CONTINUES_AFTER) or _ENDS_UNFINISHED.search(previous) is not None:
        return True
    last = previous.rsplit(None, 1)[-1]
    return "\n" not in mend_line_breaks(f"{last}\n{line}")[0]  # a DOI the line end broke


def _references(text: str, spans: Iterable[_Span]) -> list[StatedReference]:
    starts = [s for s, _ in split_lines(text, 0, len(text))]
    out: list[StatedReference] = []
    for start, end, body, number in spans:
        entry = text[body:end]
        if not entry.strip():
            continue
        line = bisect.bisect_right(starts, start)
        label = str(number) if number is not None else None
        where = f"line {line}"
        marker = text[start:body].strip() or None
        out.append(
            parse_reference_string(entry, label=label, where=where, numbered=False, marker=marker)
        )
    return out


def _answer_blocks(text: str) -> list[BlockStart]:
    """The blocks of an answer, as much as :func:`locate_reference_list` needs of them."""
    blocks: list[BlockStart] = []
    open_kind: str | None = None  # the paragraph or list item that a line may continue
    open_lines = 0
    fence = False
    for ls, le in split_lines(text, 0, len(text)):
        line = text[ls:le]
        if _FENCE.match(line):
            fence = not fence
            if fence:
                blocks.append(BlockStart("code", ls, le))
            open_kind = None
            continue
        if fence:
            continue
        if not line.strip():
            open_kind = None
            continue
        start = ls + len(line) - len(line.lstrip())
        if open_kind == "paragraph" and open_lines == 1 and _UNDERLINE.match(line):
            last = blocks[-1]
            blocks[-1] = BlockStart("heading", last.start, last.end)
            open_kind = None
            continue
        kind: str | None = None
        if atx := _ATX.match(line):
            kind, start = "heading", ls + atx.end()
        elif _RULE.match(line):
            kind = "separator"
        elif _QUOTE_LINE.match(line):
            kind = "blockquote"
        elif line.lstrip().startswith("|") and line.count("|") >= 2:
            kind = "table"
        elif _LIST_ITEM.match(line):
            kind = "list_item"
        elif open_kind is None:
            kind = "paragraph"
        if kind is None:
            open_lines += 1
            continue
        blocks.append(BlockStart(kind, start, le))
        open_kind = kind if kind in ("paragraph", "list_item") else None
        open_lines = 1
    return blocks


# --- one reference string -------------------------------------------------------------------

#: A word of a name: a letter, then letters, apostrophes, hyphens and combining marks.
_W = rf"[^\W\d_][{NAME_LETTERS}]*"
_YEAR = r"(?:1[6-9]|20)\d{2}"
#: Initials, the last one's stop sometimes left out as Crossref holds it ("J.D").
_INITIALS = r"[A-Z]\.(?:[ -]?-?[A-Z]\.)*(?:-?[A-Z](?![\w.]))?"
_NAME_APA = rf"{_W}(?: {_W})*, (?:{_INITIALS}|[A-Z][\w'’\-]+(?: [A-Z]\.)?)"
_APA_AUTHORS = re.compile(
    rf"{_NAME_APA}(?:(?:, (?:& |and )?| (?:&|and) ){_NAME_APA})*"
    rf"(?:,? et al\.|,? (?:\.\.\.|…) {_NAME_APA})?"
)
_CAPITAL = CAPITALS
#: A Vancouver name: a surname of two letters or more (a lone letter before initials is a
#: list number OCR misread, "K C. Brasquet and P. Le Cloirec, Water Research 33, 3603"),
#: then up to three initials.
_NAME_V = rf"[^\W\d_][{NAME_LETTERS}]+(?: {_W})* [{_CAPITAL}](?:-?[{_CAPITAL}]){{0,2}}"
_V_LIST = rf"{_NAME_V}(?:(?:, |,? & ){_NAME_V})*(?:,? et al)?"
_VANCOUVER = re.compile(rf"(?P<authors>{_V_LIST})[.:] (?P<rest>.+)")
_VANCOUVER_AUTHORS = re.compile(_V_LIST)
_SPLIT_VANCOUVER = re.compile(r", |,? & ")
_NAME_FULL = rf"{_W}\.?(?: {_W}\.?){{1,4}}"
_FULL_AUTHORS = re.compile(rf"{_NAME_FULL}(?:, {_NAME_FULL})*(?:,? and {_NAME_FULL})?(?:,? et al)?")
_AUTHOR_YEAR = re.compile(rf"(?P<authors>.{{2,400}}?)\. (?P<year>{_YEAR})[a-z]?\. (?P<rest>.+)")
_NAME_I = rf"(?:[A-Z]\.(?:-[A-Z]\.)* ?)+{_W}(?: {_W})*"
_IEEE_AUTHORS = re.compile(rf"{_NAME_I}(?:(?:,? and |, ){_NAME_I})*(?:,? et al\.?)?")
#: A bracketed year right after a quotation: APA's, after the author list.
_YEAR_NEXT = re.compile(rf"\s*\(\s*{_YEAR}")
#: The end of a name in ACS's list, the names parted by semicolons: "; King, W. ".
_ACS_NAME_END = re.compile(r";\s*[^;,]{2,60},(?:\s*[A-Z]\.(?:-[A-Z]\.)?)+\s*$")
#: A quoted title, up to 1,000 characters: a book review's title is the reviewed book's
#: whole citation ("“Erwin Emmerling and Cornelia Ringer, Eds., Das Aschaffenburger
#: Tafelbild: … Munich.” 1999. Speculum 74"), 600 characters and more.
_QUOTED = re.compile(
    r"(?:^|(?<=[,.:] ))[“\"](?P<title>[^”\"]{3,1000}?[,.?!]|[^”\",.?!]{3,1000})[”\"]"
    r"(?=[\s,.]|$)"
)
_APA_YEAR = re.compile(
    rf"(?P<authors>.{{2,400}}?) ?\((?P<year>{_YEAR}|n\.d\.)[a-z]?(?:, [^)]{{1,30}})?\)[.,]? "
    r"(?P<rest>.+)"
)
_HARVARD_COMMA = re.compile(rf"(?P<authors>.{{2,400}}?),? (?P<year>{_YEAR})[a-z]?\. (?P<rest>.+)")
_VENUE_YEAR = re.compile(rf"(?P<venue>[^.;]{{2,150}}?)\.? (?:\[Internet\]\.? )?(?P<year>{_YEAR})")
_APA_VENUE = re.compile(r"(?P<venue>[^,.]{2,150}?), (?:vol\. )?\d")
_SENTENCE_END = re.compile(r"[.?!](?= |$)")
#: A word of four letters or more: after a venue's numbers, more than a page ("CO2",
#: "fmi", "i"): "edition".
_WORD4 = re.compile(r"[^\W\d_]{4}")
#: A word of three letters or more: what APA prints after its year (a title, a venue);
#: without one, only numbers follow it ("(1885) 135.", "(2004) .").
_WORD3 = re.compile(r"[^\W\d_]{3}")
#: Elsevier's numbered style closing a sentence: a volume, its date in brackets, a page
#: ("Levine, Invented Diacritics 38 (2009) 64."), which no Vancouver title runs into.  A
#: name written out ("Michael G. Levine") or a venue's letter ("Colloids and Surfaces B:")
#: reads as Vancouver's "Surname I." before it.
_NUMBERED_TAIL = re.compile(rf"^[^.]*\d+[A-Za-z]? \((?:{_YEAR}|n\.d\.)\)(?: [\w-]{{1,12}})?\.?$")
#: What a numbered style prints after its date when it prints no title: nothing, or a page
#: ("I.", "iii.", "App70.", "S103").
_LONE_PAGE = re.compile(r"\s*[\w-]{0,12}\s*\.?\s*")
#: AIP's volume and page closing what precedes the year: "73, S288", "73,S2B 8".
_AIP_NUMBERS = re.compile(r"\d\s*,\s*[A-Za-z]{0,3}\d[\w ]{0,8}$")
_ABBREVIATIONS = frozenset(
    "vs v e.g i.e cf al etc st dr mr mrs ms no vol fig approx ca sp spp et".split()
)
#: What separates the pieces of a "Surname, Given" list: commas, "&", "and" (kept).
_LIST_PIECES = re.compile(r"(\s*,\s*(?:&\s*|and\s+)?|\s+(?:&|and)\s+)")
_FAMILY = re.compile(rf"{_W}(?: {_W}){{0,3}}")
#: Given names written out, with the particles Portuguese, Spanish, Dutch and German names
#: carry inside or after them ("Renata Rodrigues de", "Pedro Henrique Nogueira de Lima").
_GIVEN = re.compile(
    r"[A-Z][\w'’\-‐‑]*\.?"
    r"(?: (?:[A-Z][\w'’\-‐‑]*\.?|d[aeiou]s?|del|della|der|den|van|von|la|le|y)){0,5}"
)
#: The longest author list read so.
MAX_PAIRED_CHARS = 2000
#: "Anon", "Anonymous": the author of a work without one, which names no one to compare.
_ANONYMOUS = re.compile(r"(?i)anon(?:ymous)?\.?")
#: An initial ("J." or "J.-P."): a name, not a title.
_INITIAL_LIKE = re.compile(r"(?:^|[\s,])[A-Z]\.(?:-?[A-Z]\.)*(?=[\s,]|$)")
_SPLIT_APA = re.compile(r",? (?:&|and) |(?<=\.), ")
_SPLIT_IEEE = re.compile(r",? and |, ")
_ET_AL = re.compile(r",? et al\.?$")


def _year_first(number: str | None) -> bool:
    """Whether a ``1990.`` that opens an entry is its year (Chicago's author-less entries),
    not its number: a list of over 1,500 entries is rarer than a year."""
    return number is not None and len(number) == 4 and 1500 <= int(number) <= 2099


def parse_reference_string(
    text: str,
    *,
    label: str | None = None,
    where: str | None = None,
    numbered: bool = True,
    marker: str | None = None,
) -> StatedReference:
    """What one printed reference states, as far as its style shows it (module rules).

    With ``numbered``, a leading list marker (``[3]``, ``3.``) is the entry's number (the
    label, unless one is given) and its ``marker``, not part of its text; a reader that has
    split a list already passes False and the marker it found, so an entry that starts with
    ``2017.`` keeps it.
    """
    mended, readings = mend_line_breaks(typeset_free(text[: 4 * MAX_FIELD]))
    flat = " ".join(mended.split())[:MAX_FIELD]
    opening = ENTRY_MARKER.match(flat) if numbered else None
    if opening is not None and _year_first(opening.group("d")):
        opening = None  # "1990. “New Books.” ...": a style that opens with the year
    if opening is not None:
        label = label or opening.group("b") or opening.group("d") or opening.group("p")
        marker = opening.group(0).strip()
        flat = flat[opening.end() :].strip()
    found = find_identifiers(flat)
    picked: dict[str, str] = {}
    extra: list[str] = []
    for ident in found:
        if ident.kind in ("doi", "pmid", "pmcid") and ident.kind not in picked:
            picked[ident.kind] = ident.value
        elif ident.key not in extra:
            extra.append(ident.key)
    bare = flat
    for ident in found:
        bare = bare.replace(ident.raw, " ")
    authors, title, venue, year, after = _style(flat[:_MAX_PARSE])
    if title is not None and not _words_beyond(title, found):
        title = None  # "Moore, G. 1994. DOI: 10.21236/ada358969.": the DOI is no title
    if year is None:
        # where the style puts the year (``refs.numbers``), never the first number that
        # looks like one: "Venue 4, 1775 (20N0)" prints a page there, not a year
        year = cited_year(after) if after is not None else None
        year = year if year is not None else cited_year(bare)
    doi = picked.get("doi")
    return StatedReference(
        text=flat,
        title=title,
        authors=authors,
        year=year,
        venue=venue,
        doi=doi,
        pmid=picked.get("pmid"),
        pmcid=picked.get("pmcid"),
        label=label,
        where=where,
        extra_ids=tuple(extra),
        doi_alternatives=(*readings.get(doi, ()), *spaced_readings(flat, doi)) if doi else (),
        malformed_ids=tuple(raw for raw, _ in find_malformed_identifiers(flat)),
        marker=marker or None,
    )


_LABELS = re.compile(r"\b(?:doi|pmid|pmcid|https?|url|available|at|online)\b", re.IGNORECASE)


def _words_beyond(title: str, found: Sequence[Identifier]) -> bool:
    """Whether a title holds a word besides the entry's identifiers and their labels."""
    for ident in found:
        title = title.replace(ident.raw, " ")
        title = re.sub(re.escape(ident.value), " ", title, flags=re.IGNORECASE)
    return re.search(r"[^\W\d_]{2,}", _LABELS.sub(" ", title)) is not None


_Style = tuple[tuple[str, ...], str | None, str | None, int | None, str | None]
"""authors, title, venue, year, and the text after the title (None when there is none)."""


def _style(flat: str) -> _Style:
    quoted = _QUOTED.search(flat)
    # one word in quotes is a title when the quotes close a sentence ("“Shellfish.”"),
    # never a nickname ("W. “Bill” King")
    least = 1 if quoted is not None and quoted.group("title")[-1] in ",.?!" else 2
    if quoted is not None and _nickname(flat, quoted):
        quoted = None
    if quoted is not None and (title := _clean_title(quoted.group("title"), least, 1000)):
        before = flat[: quoted.start()].rstrip(" ,.:")
        after = flat[quoted.end() :]
        names = _names(before, _IEEE_AUTHORS, _SPLIT_IEEE)
        venue = _ieee_venue(after) if names else None
        return names, title, venue, None, after
    for pattern in (_APA_YEAR, _HARVARD_COMMA, _AUTHOR_YEAR):
        m = pattern.fullmatch(flat)
        if m is None:
            continue
        # "Woolf, Stuart. : (2008)": a stray mark between the names and the year
        listed = m.group("authors").rstrip(" :;,")
        if pattern is _AUTHOR_YEAR:
            names = _names(listed, _FULL_AUTHORS, _SPLIT_IEEE)
        else:
            names = _names(listed, _APA_AUTHORS, _SPLIT_APA)
        if not names and pattern is _APA_YEAR:
            # Springer's author-year style: Vancouver names before the bracketed year
            # ("Lin TY, Burns NH (1981) Design of prestressed concrete structures. Wiley")
            names = _names(listed, _VANCOUVER_AUTHORS, _SPLIT_VANCOUVER)
        if not names and pattern is not _AUTHOR_YEAR:
            names = _paired_names(listed)
        if (
            not names
            and pattern is _APA_YEAR
            and (lead := _lead_title(m.group("authors"), m.group("rest")))
        ):
            # APA's work without an author: "Title of the work. (2016). Venue, 12(3), 4–9."
            place = _APA_VENUE.match(m.group("rest").lstrip())
            venue = place.group("venue") if place else None
            return (), lead, venue, _year_of(m.group("year")), m.group("rest")
        anonymous = _ANONYMOUS.fullmatch(m.group("authors").strip()) is not None
        if (
            not names
            and not anonymous
            and (pattern is not _APA_YEAR or not _organisation(m.group("authors")))
        ):
            continue
        # the sentence after an author list and its year is the title, one word too
        # ("Editorial."): where a style puts it, nothing else is
        title, after = _first_sentence(m.group("rest"), 1 if names else 2)
        if title is None:
            continue
        place = _APA_VENUE.match(after.lstrip())
        venue = place.group("venue") if place else None
        return names, title, venue, _year_of(m.group("year")), after
    m = _VANCOUVER.fullmatch(flat)
    if m is not None and not _NUMBERED_TAIL.search(m.group("rest")):
        title, after = _first_sentence(m.group("rest"))
        if title is None:
            title, after = _up_to_venue(m.group("rest"))
        if title is None:
            title, after = _up_to_venue(m.group("rest"), 1)
        if title is not None:
            names = _names(m.group("authors"), _VANCOUVER_AUTHORS, _SPLIT_VANCOUVER)
            place = _VENUE_YEAR.match(after.lstrip())
            if place is None:
                return names, title, None, None, after
            return names, title, place.group("venue").strip(), int(place.group("year")), after
    return (), None, None, None, None


def _nickname(flat: str, quoted: re.Match[str]) -> bool:
    """Whether one word in quotes closes an author list, a nickname, not a title: APA's,
    its year after it ("King, W. “Bill.” (2014). Effects of ..."), or ACS's, the names
    parted by semicolons ("Wasiuddin, N. M.; King, W. “Bill.” Journal of Testing 2014, 43,
    1."), a style that prints no title in quotes."""
    if len(quoted.group("title").split()) != 1:
        return False
    apa = bool(flat[: quoted.start()].strip()) and _YEAR_NEXT.match(flat, quoted.end())
    return bool(apa or _ACS_NAME_END.search(flat, 0, quoted.start()))


#: Vancouver's venue, the last sentence before "2015;769:37-43", before a book's year
#: and pages ("Invented Pathology. 2008:731-736."), or before the year alone, an article
#: online before its volume ("Invented Research. 2018.").
_VENUE_LAST = re.compile(
    rf"(?<=\. )(?P<venue>[^.;]{{2,150}}?)\.? (?P<year>{_YEAR})[a-z]?"
    r"(?:;[^.]{0,60}|:[A-Za-z]?\d+(?:[-‐‑‒–—][A-Za-z]?\d+)?)?\.?$"
)


def _up_to_venue(rest: str, least: int = 2) -> tuple[str | None, str]:
    """A Vancouver title whose first sentence is too short to be one ("Hinduism. II:
    Popular Hinduism. Invented Instruments. 2015;769:37-43."): all before the venue, the
    last sentence before the year and volume, when that is ``least`` words or more."""
    found = _VENUE_LAST.search(rest)
    if found is None:
        return None, ""
    return _clean_title(rest[: found.start("venue")], least), rest[found.start("venue") :]


def _paired_names(text: str) -> tuple[str, ...]:
    """ "Surname, Given" names in a list whose given names are written out or their
    initials without stops ("Nowinski, Wieslaw L., Chua, Beng Choon, & Nowinska, Natalia
    G.", "Kristal, A R", "PARENTE, A, GALLETTI, C, & TOGNOTTI, L"), which the APA pattern
    (initials with stops) does not read: the pieces between commas, taken two by two, each
    pair a surname and given names."""
    text = _ET_AL.sub("", text.strip().rstrip("."))
    if len(text) > MAX_PAIRED_CHARS:
        return ()
    parts = _LIST_PIECES.split(text)  # piece, separator, piece, separator, ... piece
    pieces, separators = parts[::2], parts[1::2]
    if len(pieces) % 2:
        return ()
    names = []
    for i in range(0, len(pieces), 2):
        family, given = pieces[i], pieces[i + 1]
        plain_comma = separators[i].strip() == ","  # "Smith, J", never "Smith and J"
        if not (plain_comma and _FAMILY.fullmatch(family) and _GIVEN.fullmatch(given)):
            return ()
        names.append(f"{family}, {given}")
    return tuple(names)


def _year_of(printed: str) -> int | None:
    return int(printed) if printed[0].isdigit() else None  # "n.d." has none


def _lead_title(lead: str, rest: str) -> str | None:
    """The title an APA entry without an author opens with, before its "(2016)": one that
    reads as a title (:func:`_title_first`), or a short or capitalised one, which reads as
    a group author, when nothing but a venue and its numbers follows the year ("Editorial
    Board. (1966). Invented Therapy, 4(1-2), i."; "Inhalt. (2013). Invented Köln, 60(1).")."""
    if (
        _LONE_PAGE.fullmatch(rest)
        and lead.rstrip()[-1:] not in (".", "?", "!")
        and ("," not in lead or not rest.strip(" .,;"))
    ):
        # at most a page after the date and no stop closing the lead: AIP's or Elsevier's
        # book or venue before its date ("Invented Encyclopedia of Dress (n.d.) .",
        # "[1]Invented Frontiers of Neurology (2007) I."), where APA closes its title with
        # a stop and prints the venue after the date.  A segment before a comma and the
        # venue, with a page after the date, stands where Elsevier's authors go and is
        # read as a title, so that a title printed there can differ ("[1] Cold stores of
        # invented ports, Invented Journal of Refrigeration 12 (1989) 237.")
        return None
    if _WORD3.search(rest) is None and (
        len(lead.split(",", 1)[0].split()) == 1 or _AIP_NUMBERS.search(lead.rstrip(" ."))
    ):
        # nothing but numbers after the year, where APA prints a title or a venue: the
        # numbered styles without titles, a one-word name (a pseudonym, a body) and a
        # venue ("Este, Notes and Queries s6-XI (1885) 135.", Elsevier's) or a venue, its
        # volume and page before the year ("Radiotherapy and Oncology 73, S288 (2004).",
        # AIP's)
        return None
    found = _title_first(lead)
    if found is not None:
        return found
    if _ANONYMOUS.fullmatch(lead.strip()) or not _organisation(lead):
        return None
    rest = rest.lstrip()
    place = _APA_VENUE.match(rest)
    if place is None or _WORD4.search(rest[place.end("venue") :]):
        return None
    return _clean_title(lead.strip().rstrip("."), 1)


def _title_first(text: str) -> str | None:
    """The title an APA entry without an author opens with, before its "(2016)": a
    sentence of four words or more, lower-case words in it, no initials, no list of names."""
    lead = text.strip().rstrip(".").strip()
    words = lead.split()
    if len(words) < 4 or _INITIAL_LIKE.search(lead) or lead.count(",") >= 2:
        return None
    if not any(w[:1].islower() for w in words[1:]):
        return None
    return _clean_title(lead)


def _names(text: str, pattern: re.Pattern[str], splitter: re.Pattern[str]) -> tuple[str, ...]:
    """The names of an author list written the way ``pattern`` describes; () otherwise."""
    text = text.strip()
    if not pattern.fullmatch(text):
        return ()
    text = _ET_AL.sub("", text)
    text = re.sub(r",? (?:\.\.\.|…) ", ", ", text)
    return tuple(n.strip() for n in splitter.split(text) if n.strip())


def _organisation(text: str) -> bool:
    """An author that is a body (``World Health Organization.``): a few words, no stops."""
    words = text.rstrip(". ").split()
    return 0 < len(words) <= 10 and "." not in text.rstrip(". ") and "," not in text


def _first_sentence(text: str, least: int = 2) -> tuple[str | None, str]:
    """The title at the start of ``text`` and what follows it (module rules), of ``least``
    words or more."""
    for m in _SENTENCE_END.finditer(text):
        word = text[: m.start()].rsplit(" ", 1)[-1].lower()
        if m.group() == "." and (word in _ABBREVIATIONS or len(word) == 1):
            continue
        end = m.end() if m.group() != "." else m.start()
        return _clean_title(text[:end], least), text[m.end() :]
    return _clean_title(text, least), ""


def _clean_title(title: str, least: int = 2, longest: int = 400) -> str | None:
    """A title of ``least`` words or more, quotes and end stops gone; a title of one word
    has four letters or more ("Editorial", not "Ibid").  ``longest``: a title the quotes
    delimit may be a review's, the reviewed book's whole citation (:data:`_QUOTED`)."""
    title = title.strip().strip("“”\"'‘’").rstrip(",. ").strip()
    words = title.split()
    if len(words) < least or len(title) > longest or "http" in title.lower():
        return None
    if len(words) == 1 and sum(c.isalpha() for c in title) < 4:
        return None
    return title


def _ieee_venue(after: str) -> str | None:
    venue = re.sub(r"^(?:in:? )", "", after.lstrip(" ,.:"), flags=re.IGNORECASE)
    venue = venue.split(",", 1)[0].strip().rstrip(".")
    return venue if 2 <= len(venue) <= 150 and not venue[0].isdigit() else None


# --- a reference from fields ----------------------------------------------------------------


def from_fields(
    *,
    title: str | None = None,
    authors: Iterable[str] = (),
    year: int | None = None,
    venue: str | None = None,
    doi: str | None = None,
    pmid: str | None = None,
    pmcid: str | None = None,
    label: str | None = None,
    where: str | None = None,
    kind: str | None = None,
    text: str | None = None,
    extra_ids: Iterable[str] = (),
    urls: Iterable[str] = (),
) -> StatedReference:
    """A reference from the fields a structured format states (BibTeX, RIS, CSL, JATS).

    Identifiers are canonicalised by :func:`citeproof.identifiers.parse_identifier`, so
    ``https://doi.org/10.1000/X`` and ``10.1000/x`` are one DOI; a value that is not the
    identifier its field names is kept in ``extra_ids`` as ``kind:value`` (reported, not
    looked up), never dropped, and in ``malformed_ids``.  A URL that names a DOI, PMID or
    PMCID (``doi.org``, PubMed, PMC) fills that field when the entry gives none; other URLs
    go to ``extra_ids``.  Without ``text``, a readable "Authors. Title. Venue. Year."
    is written, so every reference has a string to search by.
    """
    extra = [e for e in extra_ids if e]
    malformed: list[str] = []
    ids: dict[str, str | None] = {}
    for name, value in (("doi", doi), ("pmid", pmid), ("pmcid", pmcid)):
        ids[name], wrong = _identifier(name, value)
        if wrong and wrong not in extra:
            extra.append(wrong)
        if wrong:
            malformed.append(wrong)
    for url in urls:
        _url(_flat(url), ids, extra)
    names = tuple(n for n in (_flat(a) for a in authors) if n)
    title, venue = _flat(title) or None, _flat(venue) or None
    if text is None:
        parts = [", ".join(names), title or "", venue or "", str(year) if year else ""]
        text = " ".join(_sentence(p) for p in parts if _sentence(p))
    return StatedReference(
        text=_flat(text),
        title=title,
        authors=names,
        year=year,
        venue=venue,
        doi=ids["doi"],
        pmid=ids["pmid"],
        pmcid=ids["pmcid"],
        label=_flat(label) or None,
        where=where,
        kind=_flat(kind) or None,
        extra_ids=tuple(extra),
        malformed_ids=tuple(malformed),
    )


def _flat(value: str | None) -> str:
    """Typesetting gone (:func:`typeset_free`), whitespace made single spaces, cut at
    :data:`MAX_FIELD`."""
    return " ".join(typeset_free(value[: 4 * MAX_FIELD]).split())[:MAX_FIELD] if value else ""


def _sentence(part: str) -> str:
    part = part.strip().rstrip(" .")
    return part if not part or part[-1] in "?!" else part + "."


def _url(url: str, ids: dict[str, str | None], extra: list[str]) -> None:
    if not url:
        return
    try:
        ident = parse_identifier(url)
    except UnknownIdentifierError:
        key = f"url:{url}"
    else:
        if ident.kind in ids and (ids[ident.kind] in (None, ident.value)):
            ids[ident.kind] = ident.value
            return
        key = ident.key
    if key not in extra:
        extra.append(key)


def _identifier(kind: str, value: str | None) -> tuple[str | None, str | None]:
    """(canonical value, None), or (None, ``kind:value``) when the value is not one."""
    raw = _flat(value)
    if not raw:
        return None, None
    for candidate in (raw, f"{kind}:{raw}"):
        try:
            ident = parse_identifier(candidate)
        except UnknownIdentifierError:
            continue
        if ident.kind == kind:
            return ident.value, None
    return None, f"{kind}:{raw}"
