"""The reference list of a manuscript given as text (Markdown, plain text, typed in Word).

Why not the audit's rule alone: the audit reads an AI answer as Markdown, where a heading is
a block of its own.  A paper's text is often not Markdown: the text of a PDF or of a JATS
article joins a page's lines with single line breaks, so the line ``References`` stands
inside a "paragraph" (the lines above it have no blank line after them), and the Markdown
reading never sees a heading there.  And a JATS article's text prints each entry's label
bare (``1 McShea DW. …``), which no list-marker rule takes for a number.  Both made a real
paper piped into ``citeproof audit -`` report every citation as having no entry.

So, here:

* the list starts after a line that is only a reference heading
  (:data:`citeproof.refs.listed.REFERENCE_HEADING`: ``References``, ``Bibliography``,
  ``Literature cited`` ..., also as ``## References`` or in bold), wherever that line stands,
  and that entries follow (two of the next eight lines name a year: a table's
  ``Reference`` column is no heading; of several, the one followed by the most lines that
  name a year, so a review letter's short list after the paper's is not taken), and runs to
  the next Markdown heading (``#``), to a
  short line without a year that reads as a heading (``Decision letter``), or to the end of
  the text; in an unnumbered list, the entries after the last one that names a year are no
  entries (an article's text goes on with its notes and review letters); without such a
  line,
  the audit's own rule finds a heading-less numbered list at the end
  (:func:`citeproof.refs.listed.locate_reference_list`), and failing that the last run of
  five paragraphs or more that each read as a reference (authors or a title, and a year) is
  the list (an article's text whose list has no title prints no heading), and failing that
  the last reference heading line, whatever follows it;
* its entries are read by :func:`citeproof.refs.listed.read_list` (numbered, bulleted, or one
  per line with continuation lines); when none has a number but most (two in three) start
  with a bare number that counts up from 1 (``1 McShea``, ``2 Szathmary``), that number is
  the label.  In a numbered list, a paragraph without a number is no entry (a running head,
  "Competing interests" after the list); it is reported, not read.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from citeproof.manuscript.structure import ReferenceEntry
from citeproof.refs.listed import (
    REFERENCE_HEADING,
    BlockStart,
    follows,
    line_start,
    locate_reference_list,
    parse_reference_string,
    read_list,
    split_lines,
)
from citeproof.refs.stated import StatedReference

__all__ = ["ListPlace", "entries_in", "find_list", "trimmed"]

_ATX = re.compile(r"[ \t]{0,3}#{1,6}(?:[ \t]|$)")
_BARE_NUMBER = re.compile(r"(\d{1,4})[ \t]+(?=\S)")
_LINE = re.compile(r"line (\d+)")


@dataclass(frozen=True, slots=True)
class ListPlace:
    """Where a reference list stands in a text."""

    heading: tuple[int, int] | None
    """The heading line's content span; None for a heading-less list."""
    start: int
    """Where the entries start (after the heading line)."""
    end: int


def find_list(
    text: str, blocks: Sequence[BlockStart] = (), start: int = 0, end: int | None = None
) -> ListPlace | None:
    """The reference list of ``text[start:end]`` (module rules); ``blocks`` (the text's
    Markdown blocks) are needed only for a heading-less list."""
    stop = len(text) if end is None else end
    lines = split_lines(text, start, stop)
    candidates = [
        n
        for n, (ls, le) in enumerate(lines)
        if le > ls
        and REFERENCE_HEADING.fullmatch(text, ls, le) is not None
        and any(text[a:b].strip() for a, b in lines[n + 1 :])
    ]
    dated: list[tuple[int, int]] = []  # (entries' year lines, candidate)
    for k, n in enumerate(candidates):
        following = [span for span in lines[n + 1 :] if text[span[0] : span[1]].strip()][:8]
        if _dated_lines(text, following) >= _MIN_DATED:
            upto = candidates[k + 1] if k + 1 < len(candidates) else len(lines)
            dated.append((_dated_lines(text, lines[n + 1 : upto]), n))
    if dated:
        # the longest list entries follow (a table's "Reference" column, or a review
        # letter's own short list after the paper's, is not the paper's list)
        _, n = max(dated)
        return _under_heading(text, lines, n, stop)
    if blocks:
        found = locate_reference_list(text, list(blocks))
        if found is not None and found.heading is None:
            years = sum(1 for e in found.entries if _DATED.search(text, e.start, e.end))
            if years * 2 >= len(found.entries):  # a numbered table or list of steps is no list
                return ListPlace(None, found.start, found.end)
        run = _run_of_references(text, blocks, stop)
        if run is not None:
            return run
    if candidates:
        return _under_heading(text, lines, candidates[-1], stop)
    return None


def _under_heading(text: str, lines: Sequence[tuple[int, int]], at: int, stop: int) -> ListPlace:
    list_end = stop
    for ls, le in lines[at + 1 :]:
        if _ATX.match(text, ls, le) is not None:
            list_end = ls
            break
    return ListPlace(trimmed(text, *lines[at]), lines[at][1], list_end)


def _reference_score(text: str) -> int:
    """2 for a paragraph that reads as a reference (authors or a title, and a year), 1 for
    one that at least names a year (an organisation's report), 0 otherwise."""
    if len(text) > _MAX_ENTRY or not _DATED.search(text):
        return 0
    ref = parse_reference_string(text, numbered=False)
    return 2 if ref.year is not None and (ref.authors or ref.title is not None) else 1


def _run_of_references(text: str, blocks: Sequence[BlockStart], stop: int) -> ListPlace | None:
    """The last run of :data:`_MIN_RUN` paragraphs or more that each name a year, four in
    five of them reading as a reference (authors or a title, and a year): the list of a
    text that prints no heading above it (an article's text whose ``<ref-list>`` has no
    title)."""
    paragraphs = [b for b in blocks if b.kind in ("paragraph", "list_item")]
    best: tuple[int, int] | None = None
    run_start, good = -1, 0
    for n, block in enumerate(paragraphs):
        end = paragraphs[n + 1].start if n + 1 < len(paragraphs) else stop
        score = _reference_score(text[block.start : end].strip())
        if score:
            if run_start < 0:
                run_start, good = n, 0
            good += score == 2
            length = n - run_start + 1
            if length >= _MIN_RUN and good * 5 >= length * 4:
                best = (run_start, n)
        else:
            run_start = -1
    if best is None:
        return None
    first, last = best
    end = paragraphs[last + 1].start if last + 1 < len(paragraphs) else stop
    return ListPlace(None, line_start(text, paragraphs[first].start), end)


_MIN_DATED = 2
_MIN_RUN = 5
_MAX_ENTRY = 2_000
_DATED = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)")


def _dated_lines(text: str, lines: Sequence[tuple[int, int]]) -> int:
    """How many of ``lines`` name a year, as reference entries do."""
    return sum(1 for a, b in lines if _DATED.search(text, a, b))


def trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` past the whitespace on both sides, so that a block or an entry is
    its words only; a span of whitespace only becomes ``(end, end)``."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def entries_in(
    text: str,
    start: int,
    end: int,
    *,
    where: str = "line {n}",
    id_prefix: str = "ref",
    dropped: list[tuple[int, int, str, str]] | None = None,
) -> list[ReferenceEntry]:
    """The entries of the list in ``text[start:end]``, each with its span (module rules).

    ``where`` is formatted with ``n``, the entry's first line in the whole text (1-based).
    In a numbered list, a paragraph without a number is no entry (a running head, a
    "Competing interests" note after the list): it goes to ``dropped`` as (start, end,
    where, text), for the caller to report.
    """
    if dropped is None:
        dropped = []
    piece = text[start:end]
    stated = read_list(piece)
    line_starts = [s for s, _ in split_lines(piece, 0, len(piece))]
    first_line = text.count("\n", 0, start)
    spans: list[tuple[int, int]] = []
    for ref in stated:
        m = _LINE.fullmatch(ref.where or "")
        n = int(m.group(1)) if m else 1
        spans.append((start + line_starts[min(n, len(line_starts)) - 1], end))
    for i in range(len(spans) - 1):
        spans[i] = (spans[i][0], _end_before(text, spans[i][0], spans[i + 1][0]))
    if spans:
        spans[-1] = (spans[-1][0], _end_before(text, spans[-1][0], end))
    cut = next((k for k, r in enumerate(stated) if k >= _MIN_DATED and _heading_like(r.text)), None)
    if cut is not None:  # the list ends where a heading starts what follows it
        s0 = spans[cut][0]
        line = first_line + text.count("\n", start, s0) + 1
        dropped.append((s0, end, where.format(n=line), stated[cut].text))
        stated, spans = stated[:cut], spans[:cut]
    stated = _bare_numbers(stated)
    numbered = _mostly(sum(1 for r in stated if r.label), len(stated))
    if not numbered:
        last = max((k for k, r in enumerate(stated) if r.year), default=len(stated) - 1)
        for ref, (s, e) in zip(stated[last + 1 :], spans[last + 1 :], strict=True):
            line = first_line + text.count("\n", start, s) + 1
            dropped.append((s, e, where.format(n=line), ref.text))
        stated, spans = stated[: last + 1], spans[: last + 1]
    out: list[ReferenceEntry] = []
    k = 0
    for ref, (s, e) in zip(stated, spans, strict=True):
        if numbered and not ref.label:
            line = first_line + text.count("\n", start, s) + 1
            dropped.append((s, e, where.format(n=line), ref.text))
            continue
        k += 1
        line = first_line + text.count("\n", start, s) + 1
        place = where.format(n=line)
        out.append(
            ReferenceEntry(
                id=f"{id_prefix}{k}",
                reference=replace(ref, where=place),
                label=ref.label,
                start=s,
                end=e,
                where=place,
            )
        )
    return out


def _heading_like(text: str) -> bool:
    """A short line without a year, a number or an identifier: a heading, not an entry."""
    words = text.split()
    return 0 < len(words) <= 6 and not re.search(r"\d", text) and "http" not in text


def _mostly(numbered: int, total: int) -> bool:
    """Whether a list is a numbered one: two entries in three numbered (notes such as
    "Competing interests" may follow the last entry)."""
    return numbered * 3 >= total * 2 and numbered >= 2


def _end_before(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _bare_numbers(stated: list[StatedReference]) -> list[StatedReference]:
    """Entries written ``1 Name …`` take that number as their label (module rules)."""
    if not stated or any(r.label for r in stated):
        return stated
    numbers: list[int | None] = []
    previous: int | None = None
    for ref in stated:
        m = _BARE_NUMBER.match(ref.text)
        number = int(m.group(1)) if m else None
        if number is not None and follows(number, previous):
            previous = number
            numbers.append(number)
        else:
            numbers.append(None)
    if not _mostly(sum(n is not None for n in numbers), len(stated)) or numbers[0] != 1:
        return stated
    out: list[StatedReference] = []
    for ref, number in zip(stated, numbers, strict=True):
        if number is None:
            out.append(ref)
            continue
        body = _BARE_NUMBER.sub("", ref.text, count=1)
        again = parse_reference_string(body, label=str(number), where=ref.where, numbered=False)
        out.append(again)
    return out
