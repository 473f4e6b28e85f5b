"""The ``citeproof.recheck/1`` report: recorded checks run again, and what changed since."""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from citeproof.models.base import Model, Published

__all__ = ["RECHECK_SCHEMA", "RecheckItem", "RecheckReport", "Snapshot"]

RECHECK_SCHEMA: Final = "citeproof.recheck/1"


class Snapshot(Model):
    """What a check found: then (from the log line) or now (from the re-run)."""

    verdict: str
    sha256: str | None = None
    start: int | None = Field(default=None, description="First match, else the NEAR passage.")
    end: int | None = None
    retraction: str | None = Field(default=None, description="Retraction status, if asked.")


class RecheckItem(Model):
    seq: int = Field(description="The log line that recorded the original check.")
    quote: str
    source: str
    state: Literal["rechecked", "not_rechecked"]
    reason: str | None = None
    then: Snapshot
    now: Snapshot | None = None
    bytes_changed: bool | None = None
    verdict_changed: bool = False
    moved: bool = Field(default=False, description="Same verdict, another place in the text.")
    newly_retracted: bool = Field(
        default=False, description="RETRACTED or CONCERN now, and not then."
    )
    log_seq: int | None = Field(default=None, description="The log line of the re-run.")

    @property
    def changed(self) -> bool:
        return self.verdict_changed or self.moved or self.newly_retracted


class RecheckReport(Published):
    schema_: Literal["citeproof.recheck/1"] = Field(default=RECHECK_SCHEMA, alias="schema")
    since: str | None = None
    rechecked: int
    changed: int
    not_rechecked: int
    items: list[RecheckItem]
