"""The ``citeproof.handle/1`` status: what a citation handle resolves to now."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citeproof.models.base import Published

__all__ = ["HandleState", "HandleStatus"]

HandleState = Literal["ok", "malformed", "forged", "unavailable", "unresolvable", "withdrawn"]


class HandleStatus(Published):
    """What a handle resolves to now (schema ``citeproof.handle/1``)."""

    schema_: Literal["citeproof.handle/1"] = Field(default="citeproof.handle/1", alias="schema")
    handle: str = Field(description="The handle as given.")
    canonical: str | None = Field(default=None, description="Canonical form; null if malformed.")
    status: HandleState
    reason: str | None = None
    source: str | None = Field(default=None, description="The identifier the handle names.")
    path: str | None = None
    as_issued_text: str | None = None
    as_issued_sha256: str | None = None
    issued_at: str | None = None
    issued_document_sha256: str | None = None
    current_text: str | None = None
    current_document_sha256: str | None = None
    start: int | None = Field(default=None, description="Current start offset of the passage.")
    end: int | None = None
    version_changed: bool | None = Field(
        default=None,
        description="The document's bytes differ from those the passage was issued from "
        "(null when that is unknown).",
    )
    text_changed: bool | None = None
