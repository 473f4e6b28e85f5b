"""A page of a source's text, and what an identifier resolves to: what a writer reads first.

The MCP tools ``read_source`` and ``resolve_identifier`` return these, and the CLI can render
them; offsets are those of every check result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citeproof.models.base import Model, Resolved
from citeproof.models.check import SourceInfo

__all__ = ["Availability", "ResolvedSource", "SourceText", "TextBlock"]

Availability = Literal["ok", "UNAVAILABLE", "NOT_CHECKABLE"]


class TextBlock(Model):
    """One block of the document that overlaps the page of text returned."""

    index: int = Field(description="Index of the block in the whole document.")
    start: int = Field(description="Start offset (code points) into the whole text.")
    end: int = Field(description="End offset, exclusive.")
    kind: str = Field(description="paragraph, heading, caption, table, list item ...")
    section: list[str] = Field(default_factory=list, description="Section titles, outermost first.")
    region: str | None = Field(
        description="title, abstract, body, caption, table, footnote, references, "
        "front-matter, back-matter or other."
    )
    page: int | None = Field(default=None, description="1-based PDF page, else null.")


class SourceText(Model):
    """A page of a source's extracted text: the exact characters a check reads."""

    status: Availability = Field(
        description="ok: text follows; UNAVAILABLE: the source could not be read (nothing "
        "concluded, try later); NOT_CHECKABLE: it has no text to read (reason says why)."
    )
    reason: str | None = Field(default=None, description="Why there is no text, if there is none.")
    source: SourceInfo | None = Field(
        default=None, description="Which bytes the text came from (null when none were read)."
    )
    start: int = Field(description="Offset of the first character returned.")
    end: int = Field(description="Offset after the last character returned (exclusive).")
    total_chars: int = Field(description="Length of the whole extracted text.")
    next_start: int | None = Field(
        description="Pass this as start to read the next page; null at the end of the text."
    )
    text: str = Field(description="text[start:end] of the whole extracted text, verbatim.")
    blocks: list[TextBlock] = Field(
        default_factory=list, description="The blocks that overlap [start, end), in text order."
    )


class ResolvedSource(Model):
    """What an identifier resolved to and which bytes are pinned for it, or why none are."""

    status: Literal["RESOLVED", "UNAVAILABLE", "NOT_CHECKABLE"] = Field(
        description="RESOLVED: text was found and pinned; UNAVAILABLE: a source could not be "
        "read (network, rate limit ...), nothing concluded; NOT_CHECKABLE: every source "
        "answered and none serves text (not open access, no abstract, not found)."
    )
    reason: str | None = None
    input: str = Field(description="The identifier as given.")
    key: str = Field(description="The canonical identifier key, e.g. pmcid:PMC123 or doi:10.x/y.")
    kind: str = Field(description="doi, pmid, pmcid, nct, setid, ppr or url.")
    resolved: Resolved = Field(default_factory=Resolved)
    served_by: str | None = Field(default=None, description="Which service served the text.")
    coverage: str | None = Field(
        default=None, description="full_text, abstract or page: how much of the work the text is."
    )
    format: str | None = Field(default=None, description="jats, html, pdf or text.")
    version: str | None = None
    sha256: str | None = Field(default=None, description="sha256 of the pinned bytes.")
    md5_ok: bool | None = None
    licence: str | None = None
    url: str | None = None
    title: str | None = None
    retrieved_at: str | None = None
    total_chars: int | None = Field(default=None, description="Length of the extracted text.")
