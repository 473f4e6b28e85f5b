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
  reported on the later entry, and citations resolve to the first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeproof.audit.answer import ItemError
from citeproof.audit.sentences import Block, split_lines
from citeproof.identifiers import Identifier, find_identifiers

__all__ = ["RawEntry", "ReferenceSection", "find_reference_section"]

_HEADING_RE = re.compile(
    r"[ \t]{0,3}(?:#{1,6}[ \t]*)?(?:\*\*|__)?[ \t]*"
    r"(?:references?|sources?|bibliography|citations?|works[ \t]+cited|literature[ \t]+cited"
    r"|reference[ \t]+list|further[ \t]+reading)"
    r"[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*:?[ \t]*#*[ \t]*",
    re.IGNORECASE,
)
_ENTRY_RE = re.compile(
    r"[ \t]*(?:[-*+•][ \t]+)?(?:\[\^?(?P<b>\d{1,6})\][ \t]*:?|(?P<d>\d{1,6})[.)](?=\s|$)"
    r"|\((?P<p>\d{1,6})\)(?=\s|$))"
)
_BULLET_RE = re.compile(r"[ \t]*[-*+•][ \t]+")
_CITED_NUMBER_RE = re.compile(r"\[\^?\d{1,6}(?:[ \t]*[-–—,;][ \t]*\d{1,6})*\]")


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


def _line_start(text: str, pos: int) -> int:
    return max(text.rfind("\n", 0, pos), text.rfind("\r", 0, pos)) + 1


def find_reference_section(text: str, blocks: Sequence[Block]) -> ReferenceSection | None:
    """The answer's reference list (see the module rules), or None."""
    for i in range(len(blocks) - 1, -1, -1):
        block = blocks[i]
        if block.kind not in ("heading", "paragraph"):
            continue
        first_start = _line_start(text, block.lines[0][0])
        first_end = block.lines[0][1]
        if _HEADING_RE.fullmatch(text, first_start, first_end) is None:
            continue
        end = len(text)
        for later in blocks[i + 1 :]:
            if later.kind == "heading":
                end = _line_start(text, later.start)
                break
        heading = (block.lines[0][0], first_end)
        entries = _entries(text, first_end, end)
        return ReferenceSection(first_start, end, heading, entries)
    return _trailing_list(text, blocks)


def _trailing_list(text: str, blocks: Sequence[Block]) -> ReferenceSection | None:
    """A heading-less numbered list at the very end that reads as a reference list."""
    first = len(blocks)
    while first > 0:
        block = blocks[first - 1]
        if block.kind not in ("list_item", "paragraph"):
            break
        if _ENTRY_RE.match(text, _line_start(text, block.start)) is None:
            break
        first -= 1
    if first == len(blocks):
        return None
    start = _line_start(text, blocks[first].start)
    if _CITED_NUMBER_RE.search(text, 0, start) is None:
        return None
    entries = _entries(text, start, len(text))
    numbered = [e for e in entries if e.number is not None]
    if not numbered:
        return None
    with_ids = sum(1 for e in numbered if e.identifiers)
    if not all(e.bracketed for e in numbered) and 2 * with_ids < len(numbered):
        return None
    return ReferenceSection(start, len(text), None, entries)


def _entries(text: str, start: int, end: int) -> tuple[RawEntry, ...]:
    spans: list[tuple[int, int, int | None, bool]] = []
    open_entry = False
    for ls, le in split_lines(text, start, end):
        line = text[ls:le]
        if not line.strip():
            open_entry = False
            continue
        content_start = ls + len(line) - len(line.lstrip())
        content_end = ls + len(line.rstrip())
        marker = _ENTRY_RE.match(text, ls, le)
        if marker is not None:
            digits = marker.group("b") or marker.group("d") or marker.group("p")
            spans.append((content_start, content_end, int(digits), marker.group("b") is not None))
            open_entry = True
        elif _BULLET_RE.match(text, ls, le) is not None or not open_entry:
            spans.append((content_start, content_end, None, False))
            open_entry = True
        else:
            s, _, number, bracketed = spans[-1]
            spans[-1] = (s, content_end, number, bracketed)
    entries: list[RawEntry] = []
    seen: set[int] = set()
    for s, e, number, bracketed in spans:
        identifiers = tuple(find_identifiers(text[s:e]))
        error: ItemError | None = None
        if number is not None and number in seen:
            error = ItemError(
                "duplicate_reference_number",
                f"Reference {number} is listed twice; citations use the first entry.",
            )
        elif not identifiers:
            error = ItemError(
                "reference_without_identifier",
                "This reference names no DOI, PMID, PMCID or URL, so it cannot be checked; "
                "add one.",
            )
        if number is not None:
            seen.add(number)
        entries.append(RawEntry(s, e, number, identifiers, bracketed, error))
    return tuple(entries)
