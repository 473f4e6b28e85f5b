"""The Document every parser produces and every check reads.

A Document is plain data: the extracted text (the string every offset indexes), the blocks
that say where each part of it came from, and the spans of inline citation markers the
parser saw (JATS ``<xref>``).  The matcher's prepared state (normalised text, offset map)
is built on first use and kept, so a Document loaded once serves any number of checks.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal, get_args

from citeproof.match.prepare import prepare

if TYPE_CHECKING:
    from citeproof.match.prepare import Prepared

Region = Literal[
    "title",
    "abstract",
    "body",
    "caption",
    "table",
    "footnote",
    "references",
    "front-matter",
    "back-matter",
    "other",
]
REGIONS: tuple[Region, ...] = get_args(Region)
"""Every region, in the order of :data:`Region` (which is the one list)."""

DocFormat = Literal["pdf", "jats", "html", "text", "pubmed", "ctgov", "openfda"]


@dataclass(frozen=True, slots=True)
class Block:
    """A contiguous span of ``Document.text`` with one origin.

    ``kind`` names the element it came from (paragraph, heading, title, caption, cell,
    footnote, reference, page ...); ``section`` is the path of section titles above it.
    ``row`` is set on table cells by parsers that see the table's rows (JATS, HTML): cells
    of one row share the number, which is unique in the document, so a table row can be cited
    as one passage.
    """

    start: int
    end: int
    kind: str
    section: tuple[str, ...] = ()
    region: Region = "body"
    page: int | None = None
    row: int | None = None


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    """What the document says about itself (from JATS front matter, HTML head, PDF info)."""

    title: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    licence: str | None = None


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a Document's bytes came from; set by the service, never by a parser."""

    input: str
    coverage: Literal["full_text", "abstract", "page", "file", "text"]
    sha256: str | None = None
    identifier: str | None = None
    served_by: str | None = None
    version: str | None = None
    md5_ok: bool | None = None
    url: str | None = None
    retrieved_at: str | None = None
    refreshed_from: str | None = None
    """With ``--refresh``: the sha256 the source was pinned to before this fetch (equal to
    ``sha256`` when the bytes did not change); None when nothing was refreshed."""
    degraded: tuple[str, ...] = ()
    """Better sources that failed (``"pmc: the listing answered 503"``), so these bytes are a
    fallback: a check may find a quote in them but may not conclude it is absent."""


@dataclass(eq=False)
class Document:
    """Extracted text plus structure; reuse one Document for many checks."""

    text: str
    blocks: list[Block]
    format: DocFormat
    meta: DocumentMeta = field(default_factory=DocumentMeta)
    markers: tuple[tuple[int, int], ...] = ()
    """Spans of ``text`` that the parser knows are inline citation markers."""
    dehyphen: bool = False
    """Whether the ``t1+dehyphen`` fallback applies (text from PDF line layout)."""
    pages: int | None = None
    origin: Origin | None = None
    _prepared: Prepared | None = field(default=None, init=False, repr=False)
    _block_starts: list[int] | None = field(default=None, init=False, repr=False)
    _shared: Document | None = field(default=None, init=False, repr=False)
    """The Document this one was copied from by :meth:`with_origin`, which holds the
    prepared state they share."""
    _has_text: tuple[str, bool] | None = field(default=None, init=False, repr=False)
    """``has_text`` and the ``text`` it was decided for (``text`` may be reassigned)."""

    @property
    def has_text(self) -> bool:
        """Whether ``text`` holds anything but whitespace (``text.strip()`` is not empty).

        Decided once per text, without copying it: ``str.isspace`` stops at the first
        character that is not a space, so a check never pays for the size of the document.
        """
        cached = self._has_text
        if cached is None or cached[0] is not self.text:
            text = self.text
            cached = (text, bool(text) and not text.isspace())
            self._has_text = cached
        return cached[1]

    @property
    def prepared(self) -> Prepared:
        """The matcher's view of the text, built once (on first use, not at load)."""
        if self._prepared is None:
            if self._shared is not None:
                self._prepared = self._shared.prepared
            else:
                self._prepared = prepare(self.text, markers=self.markers, dehyphen=self.dehyphen)
        return self._prepared

    def with_origin(self, origin: Origin) -> Document:
        """A copy that says where its bytes came from and shares this Document's prepared
        matcher state (built once, by whichever copy is checked first), so the same bytes
        are parsed and prepared once per process; a copy only read for its text never
        prepares it."""
        copy = replace(self, origin=origin)
        root = self._shared if self._shared is not None else self
        copy._shared = root
        copy._prepared = root._prepared
        copy._has_text = self._has_text
        return copy

    def block_at(self, offset: int) -> int | None:
        """Index of the block holding ``offset`` (or the nearest one before it)."""
        if not self.blocks:
            return None
        if self._block_starts is None:
            self._block_starts = [b.start for b in self.blocks]
        i = bisect.bisect_right(self._block_starts, offset) - 1
        return max(i, 0)
