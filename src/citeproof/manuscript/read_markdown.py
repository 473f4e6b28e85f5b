"""Markdown and plain text manuscripts: the file is the text, markdown-it gives the blocks.

Why the file itself is the text: offsets then point into what the author wrote, as the
audit's do; markdown-it-py (CommonMark) only says where each block stands (its lines), so
no inline markup is re-implemented here.

* Blocks: ATX and setext headings (their level), paragraphs, list items, block quotes (each
  line's content after its ``>`` markers, kind ``quote``), code and HTML blocks (``other``,
  never scanned).  The first level-one heading is the title.
* Notes: ``[^id]`` in the text calls the note defined by a paragraph ``[^id]: text``
  (region ``footnotes``).
* Links to an anchor, ``[3](#ref3)`` or ``[Smith 2019](#smith2019)``: a numeric link text is a
  numeric citation, any other names the anchor as a key.
* Pandoc citations, ``[@smith2019; see @lee2020, p. 3]`` and ``@smith2019`` in running text,
  are key citations resolved through a ``.bib`` given with the manuscript (``members``).
* The reference list: :mod:`citeproof.manuscript.ref_section` (the last line that is only a
  reference heading, wherever it stands, else a trailing numbered list); every other
  citation the text holds is found by the shared scans.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from markdown_it import MarkdownIt

from citeproof.manuscript.bib_entries import bib_entries
from citeproof.manuscript.draft import Draft, NoteCall, RawCitation, RawTarget
from citeproof.manuscript.ref_section import entries_in, find_list, trimmed
from citeproof.manuscript.scan import numbers_of
from citeproof.manuscript.structure import BlockKind, CitationKind, Region
from citeproof.refs.listed import BlockStart, split_lines

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["read_markdown"]

_QUOTE_MARKER = re.compile(r"[ \t]{0,3}(?:>[ \t]?)+")
_ATX_MARKS = re.compile(r"[ \t]{0,3}#{1,6}[ \t]*")
_ATX_CLOSE = re.compile(r"[ \t]+#+[ \t]*$|[ \t]*$")
_NOTE_DEF = re.compile(r"\[\^([^\]\s]{1,40})\]:[ \t]*")
_NOTE_CALL = re.compile(r"\[\^([^\]\s]{1,40})\](?!:)")
_ANCHOR_LINK = re.compile(r"\[([^\[\]\n]{1,200})\]\(#([^)\s]{1,200})\)")
_PANDOC_GROUP = re.compile(r"\[([^\[\]\n]*@[^\[\]\n]*)\]")
_PANDOC_KEY = re.compile(r"(?<![\w@.])-?@([\w][\w:.#$%&\-+?<>~/]*[\w])")
_LOCATOR = re.compile(r",\s*(.+)$")
_MAX_NESTING = 40


def read_markdown(text: str, members: Mapping[str, bytes] | None = None) -> Draft:
    """The draft of a Markdown or plain-text manuscript (module rules)."""
    draft = Draft.from_text("markdown", text)
    lines = split_lines(text)
    md = MarkdownIt("commonmark", {"maxNesting": _MAX_NESTING})
    tokens = md.parse(text)
    depth = {"quote": 0, "list": 0}
    starts: list[BlockStart] = []
    for tok in tokens:
        if tok.type in _NESTING:
            which, step = _NESTING[tok.type]
            depth[which] += step
        elif tok.type == "heading_open" and tok.map:
            _heading(draft, text, lines[tok.map[0]], tok, starts)
        elif tok.type == "paragraph_open" and tok.map:
            first, last = tok.map
            if depth["quote"]:
                _quote_lines(draft, text, lines[first:last])
            else:
                _paragraph(draft, text, lines, (first, last), starts, listed=bool(depth["list"]))
        elif tok.type in ("fence", "code_block", "html_block") and tok.map:
            s, e = trimmed(text, lines[tok.map[0]][0], lines[tok.map[1] - 1][1])
            if s < e:
                draft.span_block(s, e, "other", "front")
    _reference_list(draft, text, starts)
    bib = bib_entries(members or {}, draft)
    _calls(draft, text, has_bib=bool(bib))
    draft.entries.extend(bib)
    return draft


#: Tokens that open or close a block quote or a list: (which depth, by how much).
_NESTING: Final = {
    "blockquote_open": ("quote", 1),
    "blockquote_close": ("quote", -1),
    "bullet_list_open": ("list", 1),
    "ordered_list_open": ("list", 1),
    "bullet_list_close": ("list", -1),
    "ordered_list_close": ("list", -1),
}


def _heading(
    draft: Draft, text: str, line: tuple[int, int], tok: Token, starts: list[BlockStart]
) -> None:
    """A heading's words, without its ``#`` marks; the first top-level one is the title."""
    ls, le = line
    marks = _ATX_MARKS.match(text, ls, le)
    s = marks.end() if marks and tok.markup.startswith("#") else ls
    close = _ATX_CLOSE.search(text, s, le)
    e = close.start() if close else le
    s, e = trimmed(text, s, e)
    if s < e:
        level = int(tok.tag[1:]) if tok.tag[1:].isdigit() else 1
        draft.span_block(s, e, "heading", level=level)
        starts.append(BlockStart("heading", s, e))
        if level == 1 and draft.title is None:
            draft.title = text[s:e]


def _quote_lines(draft: Draft, text: str, lines: Sequence[tuple[int, int]]) -> None:
    """A paragraph inside a block quote: each line a quote block, its ``>`` marks left out."""
    for ls, le in lines:
        marker = _QUOTE_MARKER.match(text, ls, le)
        s, e = trimmed(text, marker.end() if marker else ls, le)
        if s < e:
            draft.span_block(s, e, "quote")


def _paragraph(
    draft: Draft,
    text: str,
    lines: Sequence[tuple[int, int]],
    span: tuple[int, int],
    starts: list[BlockStart],
    *,
    listed: bool,
) -> None:
    """A paragraph or list item over lines ``span`` (first, past the last); one that opens
    with ``[^name]:`` outside a list is that footnote's text."""
    first, last = span
    s, e = trimmed(text, lines[first][0], lines[last - 1][1])
    kind: BlockKind = "list_item" if listed else "paragraph"
    starts.append(BlockStart(kind, s, lines[first][1]))
    note = _NOTE_DEF.match(text, s, e)
    if note is not None and not listed:
        draft.span_block(note.end(), e, "footnote", "footnotes")
        draft.notes[note.group(1)] = (note.end(), e)
    elif s < e:
        draft.span_block(s, e, kind)


def _reference_list(draft: Draft, text: str, starts: list[BlockStart]) -> None:
    place = find_list(text, starts)
    if place is None:
        return
    cut = place.heading[0] if place.heading else place.start
    kept = []
    for block in draft.blocks:
        if block.end <= cut or block.start >= place.end:
            kept.append(block)
        elif block.start < cut:
            s, e = trimmed(text, block.start, cut)
            if s < e:
                kept.append(replace(block, start=s, end=e))
    draft.blocks = kept
    if place.heading:
        draft.span_block(*place.heading, "heading", "references", level=1)
    dropped: list[tuple[int, int, str, str]] = []
    entries = entries_in(text, place.start, place.end, dropped=dropped)
    for a, b, where, words in dropped:
        draft.problem(
            "not_an_entry",
            "A paragraph of the numbered reference list has no "
            f"number, so it was not read as an entry: {words[:100]}",
            where,
            a,
            b,
        )
    for entry in entries:
        if entry.start is not None and entry.end is not None:
            draft.span_block(entry.start, entry.end, "reference", "references")
    draft.entries.extend(entries)


def _prose(draft: Draft) -> list[tuple[int, int, Region]]:
    return [
        (b.start, b.end, b.region)
        for b in draft.blocks
        if b.kind in ("paragraph", "list_item", "quote", "footnote") and b.region != "references"
    ]


def _calls(draft: Draft, text: str, *, has_bib: bool) -> None:
    """Note calls, anchor links and Pandoc citations in the prose (module rules)."""
    for s, e, region in _prose(draft):
        note = next((n for n, (ns, ne) in draft.notes.items() if ns <= s < ne), None)
        for m in _NOTE_CALL.finditer(text, s, e):
            if m.group(1) in draft.notes:
                draft.note_calls.append(NoteCall(m.start(), m.end(), m.group(1), region))
        for m in _ANCHOR_LINK.finditer(text, s, e):
            kind, targets = _anchor_targets(m.group(1).strip(), m.group(2))
            draft.citations.append(
                RawCitation(m.start(), m.end(), kind, targets, region=region, note=note)
            )
        taken = [(c.start, c.end) for c in draft.citations]
        for m in _PANDOC_GROUP.finditer(text, s, e):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            targets = _pandoc_targets(m.group(1))
            if targets:
                draft.citations.append(
                    RawCitation(m.start(), m.end(), "key", targets, region=region, note=note)
                )
                taken.append((m.start(), m.end()))
        for m in _PANDOC_KEY.finditer(text, s, e):
            if any(a <= m.start() < b for a, b in taken):
                continue
            if not has_bib:  # without a bibliography, an @ in prose is an address or a handle
                continue
            draft.citations.append(
                RawCitation(
                    m.start(),
                    m.end(),
                    "key",
                    [RawTarget(m.group(1), key=m.group(1))],
                    region=region,
                    note=note,
                )
            )


def _anchor_targets(label: str, anchor: str) -> tuple[CitationKind, list[RawTarget]]:
    """What a link to an anchor (``[3](#ref3)``) cites: the numbers its words print, else
    the anchor as a key."""
    numbers = numbers_of(label) if re.fullmatch(r"[\d\s,;\-–—]+", label) else None
    if numbers:
        return "numeric", [RawTarget(str(k), number=k) for k in numbers]
    return "key", [RawTarget(label, key=anchor)]


def _pandoc_targets(inside: str) -> list[RawTarget]:
    """The keys of a Pandoc citation group (``[see @smith2019, p. 4; @lee2020]``), each with
    its locator."""
    targets = []
    for part in inside.split(";"):
        key = _PANDOC_KEY.search(part)
        if key is None:
            continue
        locator = _LOCATOR.search(part[key.end() :])
        targets.append(
            RawTarget(
                key.group(1),
                key=key.group(1),
                locator=locator.group(1).strip() if locator else None,
            )
        )
    return targets
