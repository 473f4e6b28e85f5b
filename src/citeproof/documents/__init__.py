"""Bytes in, Document out: format detection and one pure parser per format."""

from __future__ import annotations

from citeproof.documents.model import (
    REGIONS,
    Block,
    DocFormat,
    Document,
    DocumentMeta,
    Origin,
    Region,
)

__all__ = [
    "REGIONS",
    "Block",
    "DocFormat",
    "Document",
    "DocumentMeta",
    "Origin",
    "Region",
    "decode_text",
    "parse",
]


def parse(data: bytes, *, name: str | None = None) -> Document:
    """Detect the format of ``data`` and parse it; ``name`` is only a hint."""
    # start-up: importing the package (for Document) must not import the XML parsers
    from citeproof.documents.detect import parse_bytes

    return parse_bytes(data, name=name)


def decode_text(data: bytes, *, what: str = "text") -> str:
    """``data`` as text by the rule every document follows: UTF-8 (a BOM allowed), or
    UTF-16/32 named by a BOM; anything else is an :class:`~citeproof.errors.EncodingError`
    saying where.  Quote files and answers are read the same way, so a file citeproof reads
    as a source is never refused as a quote."""
    from citeproof.documents._decode import decode_unicode_text

    return decode_unicode_text(data, what=what)
