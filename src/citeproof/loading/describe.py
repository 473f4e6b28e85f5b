"""What a loaded source is, in the words every result uses: the one ``SourceInfo`` builder.

A check result, a page of text, a passage list and an audit's citation all say which bytes
they read, from where and how much of the work; they all describe a Document through
:func:`describe_source`, so the description cannot differ between them.

:func:`describe_source` builds the plain record (``models.plain``) that the match step of a
one-shot check uses without pydantic; :func:`source_info` is the same record as the model,
and imports the models when it is first called (``# start-up``), so that importing this
module, as the check pipeline does, costs no pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from citeproof.documents.model import Document, Origin
from citeproof.models import plain

if TYPE_CHECKING:
    from citeproof.models.check import SourceInfo

__all__ = ["DOCUMENT_INPUT", "describe_source", "origin_of", "source_info"]

DOCUMENT_INPUT: Final = "<document>"
"""The ``source.input`` of a Document that was built by hand rather than loaded."""


def origin_of(document: Document) -> Origin:
    """A Document built by hand has no origin; describe it as text given directly."""
    return document.origin or Origin(input=DOCUMENT_INPUT, coverage="text")


def source_info(document: Document) -> SourceInfo:
    """Which bytes ``document`` holds, where they came from, and how much of the work."""
    from citeproof.models.check import SourceInfo  # start-up

    return SourceInfo.from_plain(describe_source(document))


def describe_source(document: Document) -> plain.SourceInfo:
    """:func:`source_info` as plain data (``models.plain``), for a check without pydantic."""
    origin, meta = origin_of(document), document.meta
    refresh = None
    if origin.refreshed_from is not None:
        refresh = plain.Refresh(
            previous_sha256=origin.refreshed_from,
            changed=origin.refreshed_from != origin.sha256,
        )
    return plain.SourceInfo(
        input=origin.input,
        kind=document.format,
        identifier=origin.identifier,
        resolved=plain.Resolved(doi=meta.doi, pmid=meta.pmid, pmcid=meta.pmcid),
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
