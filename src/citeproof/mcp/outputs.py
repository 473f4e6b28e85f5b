"""The shapes the MCP tools return, where the library has no model of its own.

Every tool returns a pydantic model so that the SDK publishes an output schema and sends
structured content a client can validate; these are the few results that exist only at
the tool boundary (a batch of checks with per-item errors, an annotation receipt).  The
check contract itself is ``citeproof.models.CheckResult``; the reading models live in
``citeproof.models.source`` so the CLI can render them too.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from citeproof.models import CheckResult
from citeproof.models.base import Model

__all__ = [
    "MAX_BATCH",
    "CheckQuotesItem",
    "CheckQuotesResult",
    "QuoteItem",
    "SupportRecord",
]

#: Most checks one ``check_quotes`` call runs.
MAX_BATCH: Final = 100


class QuoteItem(Model):
    """One quote to check in a ``check_quotes`` batch."""

    quote: str = Field(description="The exact words presented as a direct quotation.")
    source: str = Field(
        description="Where they are said to come from: DOI, PMID, PMCID, NCT number, openFDA "
        "set id, PPR id, URL, or a local file path."
    )
    claim: str | None = Field(
        default=None,
        description="The sentence the quote is offered for; kept in the evidence log so a "
        "reviewer can later record whether the passage supports it. Never judged here.",
    )


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
