"""Every model an MCP tool answers with: the library's, named here, and the few of its own.

A tool's method is annotated with the model it returns (:mod:`citeproof.mcp.toolspec`), and
that annotation is read in this module's namespace: so the library's result models are
imported here (a tool answering with another one adds it here), and here are defined the
results that exist only at the tool boundary (a batch of checks with per-item errors, an
annotation receipt, passages with a status, a batch of handles, a checkpoint).  The check
contract itself is ``citeproof.models.CheckResult``; the reading models live in
``citeproof.models.source`` so the CLI can render them too.  Imported on a tool's first call,
never when the server starts (the output schemas are cached, :mod:`citeproof.mcp.schemas`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citeproof.models import CheckResult, RetractionReport
from citeproof.models.audit import AuditReport
from citeproof.models.base import Model
from citeproof.models.evidence import VerifyReport
from citeproof.models.handle import HandleStatus
from citeproof.models.passages import PassageList
from citeproof.models.references import ReferencesReport
from citeproof.models.search import SearchRecord
from citeproof.models.source import Availability, ResolvedSource, SourceText

__all__ = [
    "AuditReport",
    "CheckQuotesItem",
    "CheckQuotesResult",
    "CheckResult",
    "CheckpointRecord",
    "HandlesResult",
    "PassagesResult",
    "ReferencesReport",
    "ResolvedSource",
    "RetractionReport",
    "SearchRecord",
    "SourceText",
    "SupportRecord",
    "VerifyReport",
]


class CheckQuotesItem(Model):
    """The outcome of one item: its check result, or the error that stopped it."""

    index: int = Field(description="Position of the item in the request, from 0.")
    result: CheckResult | None = Field(
        default=None, description="The check (schema citeproof.check/1) when it ran."
    )
    error: str | None = Field(
        default=None, description="Why the item could not be checked (bad input); what to change."
    )


class CheckQuotesResult(Model):
    """Every item's outcome, in request order, and the verdicts counted."""

    items: list[CheckQuotesItem]
    by_verdict: dict[str, int] = Field(
        default_factory=dict, description="How many items got each verdict."
    )
    errors: int = Field(default=0, description="How many items were bad input and not checked.")


class SupportRecord(Model):
    """The annotation line written to the evidence log: someone's verdict on support."""

    seq: int = Field(description="The annotation's own line in the evidence log.")
    hash: str = Field(description="The annotation line's hash.")
    target_seq: int = Field(description="The check (or search) line it judges.")
    target_kind: str
    support: Literal["supports", "contradicts", "absent"]
    by: str = Field(description="Who judged: a person or a named judge (model, version).")
    note: str | None = None
    time: str


class PassagesResult(PassageList):
    """``find_passages``' answer: the ``citeproof.passages/1`` list, and whether there was text.

    A source that could not be read is a status, as for ``read_source``, never a tool error:
    ``UNAVAILABLE`` (nothing concluded, try later) or ``NOT_CHECKABLE`` (it has no text), with
    the reason and no passages.
    """

    status: Availability = "ok"
    reason: str | None = None


class HandlesResult(Model):
    """What each handle of a ``resolve_handles`` call names now, in request order."""

    handles: list[HandleStatus]
    by_status: dict[str, int] = Field(
        default_factory=dict, description="How many handles got each status."
    )


class CheckpointRecord(Model):
    """A signed checkpoint of the evidence log, and what it commits to."""

    checkpoint: str = Field(
        description="The signed checkpoint text: keep it, and give it to verify_log later."
    )
    origin: str = Field(description="The log's name in the checkpoint (its first line).")
    size: int = Field(description="How many entries the log held when it was signed.")
    root: str = Field(description="The Merkle root of those entries, base64.")
    key: str = Field(description="The public key that verifies it (NAME+HASH+KEY).")
