"""What a format reader hands on: the text it built, and what it found in it, not yet linked.

Why a draft between the readers and the model: linking citations to entries, finding
quotations and the citation each carries, and reporting what is left unlinked are the same
for every format, so each reader only says what its format tells (text, blocks, the
citations it knows from structure, the entries) and :mod:`citeproof.manuscript.finish`
does the rest once.

A reader appends text through :meth:`Draft.add_block` (blocks joined by a blank line), or
starts from a text it did not build (:meth:`Draft.from_text`: a Markdown file, a parsed
Document) and adds blocks over it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from citeproof.manuscript.structure import (
    BlockKind,
    CitationKind,
    ManuscriptFormat,
    Problem,
    ReferenceEntry,
    Region,
    TextBlock,
)

__all__ = ["BLOCK_SEPARATOR", "Draft", "NoteCall", "RawCitation", "RawTarget"]

BLOCK_SEPARATOR = "\n\n"
#: Problems kept per manuscript: a hostile file must not make the report grow without end.
MAX_PROBLEMS = 1_000


@dataclass(frozen=True, slots=True)
class RawTarget:
    """One work a citation names, as written, with what linking needs to find its entry."""

    target: str
    """As the citation says it: ``"4"``, ``"smith2019"``, ``"Smith et al. 2019a"``."""
    number: int | None = None
    key: str | None = None
    """A key, an anchor, a ref id or a reference manager's item id."""
    names: tuple[str, ...] = ()
    """Author-year: the surnames written (one, or two for ``Smith and Lee``), folded."""
    etal: bool = False
    year: str | None = None
    """Author-year: the year as written, suffix included (``"2019a"``, ``"n.d."``)."""
    locator: str | None = None
    csl: Mapping[str, Any] | None = None
    entry_id: str | None = None
    """Set when the reader already knows the entry (a JATS ``rid``, a field's own item)."""
    reason: str | None = None
    """Set when the reader already knows why it cannot be linked."""


@dataclass(slots=True)
class RawCitation:
    """A citation a reader found, before linking."""

    start: int
    end: int
    kind: CitationKind
    targets: list[RawTarget]
    raw: str | None = None
    region: Region = "body"
    where: str | None = None
    note: str | None = None
    """The note (footnote or endnote id) this citation stands in, if any."""
    tentative: bool = False
    """Found by a scan that is not sure it is a citation: kept only when it links."""


@dataclass(frozen=True, slots=True)
class NoteCall:
    """A note mark in the text (a footnote or endnote reference) and the note it calls."""

    start: int
    end: int
    note: str
    region: Region = "body"


@dataclass(slots=True)
class Draft:
    """The text a reader built and what it found (module docstring)."""

    format: ManuscriptFormat
    parts: list[str] = field(default_factory=list)
    size: int = 0
    blocks: list[TextBlock] = field(default_factory=list)
    citations: list[RawCitation] = field(default_factory=list)
    entries: list[ReferenceEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Each note's text span, by note id."""
    note_calls: list[NoteCall] = field(default_factory=list)
    title: str | None = None
    members: tuple[str, ...] = ()
    entries_numbered: bool | None = None
    """Whether the list is numbered (None: decide from the entries' labels)."""
    fixed_text: str | None = None

    @classmethod
    def from_text(cls, fmt: ManuscriptFormat, text: str) -> Draft:
        """A draft over a text that is already whole (blocks are added as spans of it)."""
        draft = cls(fmt)
        draft.fixed_text = text
        draft.size = len(text)
        return draft

    @property
    def text(self) -> str:
        if self.fixed_text is not None:
            return self.fixed_text
        joined = "".join(self.parts)
        self.parts = [joined]
        return joined

    def add_block(
        self, text: str, kind: BlockKind, region: Region = "body", level: int = 0
    ) -> tuple[int, int]:
        """Append ``text`` as a block of its own; returns its span."""
        if self.fixed_text is not None:
            raise RuntimeError("a draft over a fixed text takes spans, not text")
        if self.size:
            self.parts.append(BLOCK_SEPARATOR)
            self.size += len(BLOCK_SEPARATOR)
        start = self.size
        self.parts.append(text)
        self.size += len(text)
        self.blocks.append(TextBlock(start, self.size, kind, region, level))
        return start, self.size

    def span_block(
        self, start: int, end: int, kind: BlockKind, region: Region = "body", level: int = 0
    ) -> None:
        """Record ``text[start:end]`` as a block."""
        self.blocks.append(TextBlock(start, end, kind, region, level))

    def problem(
        self,
        code: str,
        message: str,
        where: str | None = None,
        start: int | None = None,
        end: int | None = None,
    ) -> None:
        """Report what could not be read; past :data:`MAX_PROBLEMS` one last line says so."""
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(Problem(code, message, where, start, end))
        elif len(self.problems) == MAX_PROBLEMS:
            self.problems.append(
                Problem(
                    "too_many_problems",
                    f"More than {MAX_PROBLEMS:,} problems; the rest are not listed.",
                )
            )
