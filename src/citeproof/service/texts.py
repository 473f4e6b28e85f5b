"""A source's text, as ``citeproof text`` prints it and ``citeproof.load`` returns it.

The load step of the check pipeline on its own (the same files, pins and chain), kept in a
module that does not import the result models: printing a file's text, or loading it for
later checks, must not pay for pydantic.
"""

from __future__ import annotations

import os
from typing import IO, Any

from citeproof.documents.model import Document
from citeproof.errors import FetchFailedError
from citeproof.loading.files import document_from_text
from citeproof.loading.load import load_source

__all__ = ["document_blocks", "load", "no_text_reason"]


def load(
    source: str | os.PathLike[str] | Document | None = None,
    *,
    text: str | None = None,
    max_bytes: int | None = None,
    stdin: IO[bytes] | None = None,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
) -> Document:
    """Read a source into a Document; load once, then check any number of quotes against it.

    ``source`` is a path, ``"-"`` for standard input, an identifier, or a Document (returned
    unchanged); ``text`` is source text given directly (exactly one of the two).  Files and
    stdin are capped at ``max_bytes`` (default: ``CITEPROOF_MAX_FILE_BYTES``, else 100 MB) and
    parsed by the format their bytes show, whatever the file is called.  An identifier is
    fetched, or read from the cache; when no text can be had, ``FetchFailedError`` is raised
    (``check`` reports that as a result instead).
    """
    if (source is None) == (text is None):
        raise TypeError("load() takes a source or text=..., exactly one of them")
    if text is not None:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        return document_from_text(text)
    assert source is not None  # exactly one of source and text, checked above
    loaded = load_source(
        source,
        max_bytes=max_bytes,
        stdin=stdin,
        offline=offline,
        refresh=refresh,
        replay=replay,
    )
    if isinstance(loaded, Document):
        return loaded
    raise FetchFailedError(loaded)


def no_text_reason(document: Document) -> str:
    """Why a Document with no text cannot be checked (a scanned PDF is the common case)."""
    if document.format == "pdf":
        return (
            "the PDF has no text layer (it is probably a scan); run OCR on it and check "
            "the recognised text."
        )
    return "the document has no text."


def document_blocks(document: Document) -> list[dict[str, Any]]:
    """The blocks as plain dicts, in text order: what ``citeproof text --blocks`` prints."""
    return [
        {
            "start": b.start,
            "end": b.end,
            "kind": b.kind,
            "section": list(b.section),
            "region": b.region,
            "page": b.page,
        }
        for b in document.blocks
    ]
