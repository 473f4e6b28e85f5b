"""A parsed :class:`~citeproof.documents.model.Document` as the start of a manuscript draft.

Why reuse the Document: the PDF, JATS and HTML parsers already decide the text, its blocks
and their regions (where the references are, what is a running head), and a quotation is
later checked with the same parsers' text of the cited work; reading a manuscript a second
way would give two texts of one file.

Blocks keep their spans; their kind and region are mapped onto the manuscript's:

* regions: ``title``, ``front-matter`` and ``other`` (running heads, page furniture) are
  ``front``; ``footnote`` is ``footnotes``; ``references`` stays; the rest (``abstract``,
  ``body``, ``caption``, ``table``, ``back-matter``) is ``body``;
* kinds: ``heading`` (its level is its depth in the section path), ``title``, ``quote``,
  ``caption``, ``cell``, ``footnote``, ``reference``, ``list-item``; a ``paragraph`` stays
  one; any other kind (authors, affiliations, keywords, page) is ``other``.
"""

from __future__ import annotations

from typing import Final

from citeproof.documents.model import Document
from citeproof.manuscript.draft import Draft
from citeproof.manuscript.structure import BlockKind, ManuscriptFormat, Region

__all__ = ["draft_from_document"]

_REGIONS: Final[dict[str, Region]] = {
    "title": "front",
    "front-matter": "front",
    "other": "front",
    "footnote": "footnotes",
    "references": "references",
}
_KINDS: Final[dict[str, BlockKind]] = {
    "heading": "heading",
    "title": "title",
    "quote": "quote",
    "caption": "caption",
    "cell": "cell",
    "footnote": "footnote",
    "reference": "reference",
    "list-item": "list_item",
    "paragraph": "paragraph",
}


def draft_from_document(document: Document, fmt: ManuscriptFormat) -> Draft:
    """A draft over the Document's text with its blocks (module rules)."""
    draft = Draft.from_text(fmt, document.text)
    draft.title = document.meta.title
    for block in document.blocks:
        region = _REGIONS.get(block.region, "body")
        kind = _KINDS.get(block.kind, "other")
        if kind == "title":
            region = "front"
        level = max(len(block.section), 1) if kind == "heading" else 0
        draft.span_block(block.start, block.end, kind, region, level)
    return draft
