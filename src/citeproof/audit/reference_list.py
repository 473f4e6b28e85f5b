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

The heading, marker and entry rules live in :mod:`citeproof.refs.listed`, one copy shared
with ``citeproof refs``, which reads an answer's reference list the same way; this module
adds what the audit reports about each entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from citeproof.audit.answer import ItemError
from citeproof.audit.sentences import Block
from citeproof.identifiers import Identifier
from citeproof.refs.listed import BlockStart, EntrySpan, locate_reference_list

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
    if found is None:
        return None
    return ReferenceSection(found.start, found.end, found.heading, _entries(found.entries))


def _entries(spans: Sequence[EntrySpan]) -> tuple[RawEntry, ...]:
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
