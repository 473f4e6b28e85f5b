"""Whole manuscripts: a Word file, a LaTeX source, a PDF, publisher XML, HTML or Markdown,
read into one model of body text, in-text citations, reference entries and quotations.

What ``citeproof manuscript`` reads before it checks (docs/manuscripts.md).  The entry point is
:func:`read_manuscript` (``reader``); the model is in ``structure``.  Names resolve on first
use, so importing the package does not import the format readers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeproof.manuscript.reader import read_manuscript
    from citeproof.manuscript.structure import (
        CitedItem,
        InTextCitation,
        Manuscript,
        Problem,
        Quotation,
        ReferenceEntry,
        Section,
        TextBlock,
    )

__all__ = [
    "CitedItem",
    "InTextCitation",
    "Manuscript",
    "Problem",
    "Quotation",
    "ReferenceEntry",
    "Section",
    "TextBlock",
    "read_manuscript",
]


def __getattr__(name: str) -> Any:
    if name == "read_manuscript":
        from citeproof.manuscript import reader

        return reader.read_manuscript
    if name in __all__:
        from citeproof.manuscript import structure

        return getattr(structure, name)
    raise AttributeError(f"module 'citeproof.manuscript' has no attribute {name!r}")
