"""What a manuscript is made of, whatever format it came in: plain dataclasses.

Why one model for six formats: the checks that come after reading (is each reference real,
is each cited work retracted, is each quotation in the work it cites) must not know whether
the paper was a Word file or a LaTeX source.  So every reader fills the same shape, and
every offset (``start``/``end``, code points, end-exclusive) points into one string,
:attr:`Manuscript.text`: the text of the manuscript as a reader sees it (for Markdown and
plain text, the file itself; for the other formats, the text their reader extracts, blocks
joined by a blank line).

Why plain dataclasses and not the published pydantic models: this is the reading half's
working shape, built once per manuscript and read by the checks; what a report publishes is
decided where the report is built.

Nothing is dropped silently.  A citation that names no entry keeps its place with an item
whose ``entry_id`` is None and a reason; an entry no citation names is still an entry; and
each of those, like every part of the file that could not be read, is also a
:class:`Problem` saying where.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from citeproof.refs.stated import StatedReference

__all__ = [
    "BLOCK_KINDS",
    "BlockKind",
    "CitationKind",
    "CitedItem",
    "InTextCitation",
    "Manuscript",
    "ManuscriptFormat",
    "Problem",
    "Quotation",
    "ReferenceEntry",
    "Region",
    "Section",
    "TextBlock",
]

ManuscriptFormat = Literal["docx", "latex", "pdf", "jats", "html", "markdown"]
CitationKind = Literal["numeric", "superscript", "author_year", "key", "footnote", "field"]
"""How a citation is written: ``[3]`` / ``[3–5]`` (numeric), a raised ``³`` (superscript),
``(Smith et al., 2019)`` (author_year), ``\\cite{smith2019}`` (key), a note mark whose note
cites (footnote), a reference manager's field (field)."""
Region = Literal["front", "body", "footnotes", "references"]
BlockKind = Literal[
    "title",
    "heading",
    "paragraph",
    "quote",
    "list_item",
    "caption",
    "cell",
    "footnote",
    "reference",
    "other",
]
BLOCK_KINDS: tuple[BlockKind, ...] = get_args(BlockKind)


@dataclass(frozen=True, slots=True)
class TextBlock:
    """One paragraph-like span of :attr:`Manuscript.text`, with what it was in the file."""

    start: int
    end: int
    kind: BlockKind
    region: Region = "body"
    level: int = 0
    """A heading's level (1 = top); 0 for other blocks."""


@dataclass(frozen=True, slots=True)
class Section:
    """A titled part of the manuscript: its heading and everything up to the next heading."""

    title: str
    level: int
    start: int
    """The heading's first character."""
    end: int
    """Where the next heading starts, or the end of the text."""
    path: tuple[str, ...]
    """The titles of the sections it stands in, its own last."""
    region: Region = "body"


@dataclass(frozen=True, slots=True)
class ReferenceEntry:
    """One entry of the reference list (or one work a reference manager's field names when
    the manuscript prints no list of its own)."""

    id: str
    """Unique within the manuscript: ``ref1``, ``ref2`` ... in list order (for JATS, the
    ``<ref id>``; for LaTeX, the citation key)."""
    reference: StatedReference
    """What the entry says, read by the reference readers of :mod:`citeproof.refs`."""
    label: str | None = None
    """The printed number or label (``"3"``, ``"Smith et al. (2019)"``), when there is one."""
    key: str | None = None
    """The citation key (BibTeX, ``\\bibitem``), a reference manager's item id, or None."""
    origin: str = "list"
    """Where it was read: ``list`` (printed in the text), ``bib``, ``bbl``, ``field`` (a
    reference manager's item data), ``jats``."""
    start: int | None = None
    """Its span in :attr:`Manuscript.text` when it is printed there."""
    end: int | None = None
    where: str | None = None
    """Where it stands in the file: ``line 12 of refs.bib``, ``paragraph 80``, ``page 9``."""
    csl: Mapping[str, Any] | None = None
    """The CSL-JSON item a reference manager stored for it, when one did."""


@dataclass(frozen=True, slots=True)
class CitedItem:
    """One work a citation names, and the entry it was linked to."""

    target: str
    """What the citation says: a number (``"4"``, also one a range ``[3–5]`` implies), a key,
    ``"Smith 2019a"``, a reference manager's item id."""
    entry_id: str | None
    """The :class:`ReferenceEntry` it names; None when it names none (``reason`` says why)."""
    reason: str | None = None
    locator: str | None = None
    """``p. 3``, ``chap. 2``: where in the work, as written."""
    csl: Mapping[str, Any] | None = None
    """A reference manager's CSL-JSON item data for this work (Zotero, Mendeley; EndNote's
    record is given in the same CSL-JSON shape)."""


@dataclass(frozen=True, slots=True)
class InTextCitation:
    """A citation in the running text: one marker, one or more cited works."""

    index: int
    """Its position among :attr:`Manuscript.citations` (text order)."""
    marker: str
    """The marker as printed: ``text[start:end]``."""
    start: int
    end: int
    kind: CitationKind
    items: tuple[CitedItem, ...]
    raw: str | None = None
    """The marker in the file when it differs from what is printed: the LaTeX command, a
    field's instruction (its kind and the first characters of its data)."""
    region: Region = "body"
    where: str | None = None

    @property
    def entry_ids(self) -> tuple[str, ...]:
        """The entries it links to, in order, each once (a range ``[3–5]`` gives three)."""
        seen: dict[str, None] = {}
        for item in self.items:
            if item.entry_id is not None:
                seen.setdefault(item.entry_id, None)
        return tuple(seen)

    @property
    def linked(self) -> bool:
        """Whether every work it names was linked to an entry."""
        return bool(self.items) and all(i.entry_id is not None for i in self.items)

    @property
    def csl_items(self) -> tuple[Mapping[str, Any], ...]:
        """The reference manager's CSL-JSON items, for a field citation."""
        return tuple(i.csl for i in self.items if i.csl is not None)


@dataclass(frozen=True, slots=True)
class Quotation:
    """Words the manuscript quotes, and the citations that say where they are from."""

    text: str
    """The quoted words (for a block quote, its lines joined, citations at its end left out)."""
    start: int
    """The quoted words' span in :attr:`Manuscript.text`, quotation marks excluded."""
    end: int
    block: bool
    citations: tuple[int, ...]
    """Indices into :attr:`Manuscript.citations`: the citation right after the closing mark
    in the same sentence, or the one that ends a block quote's paragraph; empty when the
    quotation carries none."""
    region: Region = "body"


@dataclass(frozen=True, slots=True)
class Problem:
    """Something that could not be read or linked, and where."""

    code: str
    """``unlinked_citation``, ``uncited_entry``, ``unreadable_field``, ``missing_file``,
    ``include_depth``, ``too_large``, ``too_deep``, ``no_reference_list`` ..."""
    message: str
    where: str | None = None
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True, slots=True)
class Manuscript:
    """A whole manuscript read into one model (module docstring)."""

    format: ManuscriptFormat
    text: str
    title: str | None = None
    blocks: tuple[TextBlock, ...] = ()
    sections: tuple[Section, ...] = ()
    citations: tuple[InTextCitation, ...] = ()
    references: tuple[ReferenceEntry, ...] = ()
    quotations: tuple[Quotation, ...] = ()
    problems: tuple[Problem, ...] = ()
    name: str | None = None
    """The name the manuscript was given under (a file name), if any."""
    members: tuple[str, ...] = field(default_factory=tuple)
    """For a LaTeX folder or archive: the files read, main file first."""

    def entry(self, entry_id: str) -> ReferenceEntry | None:
        """The reference entry with this id, or None."""
        return next((e for e in self.references if e.id == entry_id), None)

    @property
    def body(self) -> str:
        """The text of the body region only (headings and paragraphs outside the front
        matter, notes and reference list), blocks joined by a blank line."""
        return "\n\n".join(self.text[b.start : b.end] for b in self.blocks if b.region == "body")
