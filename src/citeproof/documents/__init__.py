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

__all__ = ["REGIONS", "Block", "DocFormat", "Document", "DocumentMeta", "Origin", "Region", "parse"]


def parse(data: bytes, *, name: str | None = None) -> Document:
    """Detect the format of ``data`` and parse it; ``name`` is only a hint."""
    # start-up: importing the package (for Document) must not import the XML parsers
    from citeproof.documents.detect import parse_bytes

    return parse_bytes(data, name=name)
