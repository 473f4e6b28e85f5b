"""What a loaded source is, in the words every result uses: the one ``SourceInfo`` builder.

A check result, a page of text, a passage list and an audit's citation all say which bytes
they read, from where and how much of the work; they all describe a Document through
:func:`source_info`, so the description cannot differ between them.
"""

from __future__ import annotations

from typing import Final

from citeproof.documents.model import Document, Origin
from citeproof.models.base import Resolved
from citeproof.models.check import Refresh, SourceInfo

__all__ = ["DOCUMENT_INPUT", "origin_of", "source_info"]

DOCUMENT_INPUT: Final = "<document>"
"""The ``source.input`` of a Document that was built by hand rather than loaded."""


def origin_of(document: Document) -> Origin:
    """A Document built by hand has no origin; describe it as text given directly."""
    return document.origin or Origin(input=DOCUMENT_INPUT, coverage="text")


def source_info(document: Document) -> SourceInfo:
    """Which bytes ``document`` holds, where they came from, and how much of the work."""
    origin, meta = origin_of(document), document.meta
    refresh = None
    if origin.refreshed_from is not None:
        refresh = Refresh(
            previous_sha256=origin.refreshed_from,
            changed=origin.refreshed_from != origin.sha256,
        )
    return SourceInfo(
        input=origin.input,
        kind=document.format,
        identifier=origin.identifier,
        resolved=Resolved(doi=meta.doi, pmid=meta.pmid, pmcid=meta.pmcid),
        served_by=origin.served_by,
        version=origin.version,
        coverage=origin.coverage,
        sha256=origin.sha256,
        md5_ok=origin.md5_ok,
        licence=meta.licence,
        url=origin.url,
        retrieved_at=origin.retrieved_at,
        title=meta.title,
        refresh=refresh,
        degraded="; ".join(origin.degraded) or None,
    )
