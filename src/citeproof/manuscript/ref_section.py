"""The reference list of a manuscript given as text (Markdown, plain text, typed in Word).

Why not the audit's rule alone: the audit reads an AI answer as Markdown, where a heading is
a block of its own.  A paper's text is often not Markdown: the text of a PDF or of a JATS
article joins a page's lines with single line breaks, so the line ``References`` stands
inside a "paragraph" (the lines above it have no blank line after them), and the Markdown
reading never sees a heading there.  And a JATS article's text prints each entry's label
bare (``1 McShea DW. …``), which no list-marker rule takes for a number.  Both made a real
paper piped into ``citeproof audit -`` report every citation as having no entry.

So, here:

* the list starts after the *last line* that is only a reference heading
  (:data:`citeproof.refs.listed.REFERENCE_HEADING`: ``References``, ``Bibliography``,
  ``Literature cited`` ..., also as ``## References`` or in bold), wherever that line stands,
  and runs to the next Markdown heading (``#``) or the end of the text; without such a line,
  the audit's own rule finds a heading-less numbered list at the end
  (:func:`citeproof.refs.listed.locate_reference_list`);
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
    locate_reference_list,
    parse_reference_string,
    read_list,
    split_lines,
)
from citeproof.refs.stated import StatedReference

__all__ = ["ListPlace", "entries_in", "find_list"]

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
    heading: tuple[int, int] | None = None
    at = -1
    for n in range(len(lines) - 1, -1, -1):
        ls, le = lines[n]
        if (
            le > ls
            and REFERENCE_HEADING.fullmatch(text, ls, le) is not None
            and any(text[a:b].strip() for a, b in lines[n + 1 :])
        ):
            heading, at = (ls, le), n
            break
    if heading is not None:
        list_end = stop
        for ls, le in lines[at + 1 :]:
            if _ATX.match(text, ls, le) is not None:
                list_end = ls
                break
        return ListPlace(_trimmed(text, *heading), heading[1], list_end)
    if not blocks:
        return None
    found = locate_reference_list(text, list(blocks))
    if found is None or found.heading is not None:
        return None
    return ListPlace(None, found.start, found.end)


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
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
    stated = _bare_numbers(stated)
    numbered = _mostly(sum(1 for r in stated if r.label), len(stated))
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
