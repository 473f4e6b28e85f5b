"""The ``citeproof.retraction/1`` report: a work's retraction status, source by source."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from citeproof.models.base import Model, Published, Resolved

__all__ = [
    "RETRACTION_SCHEMA",
    "Notice",
    "RetractionReport",
    "RetractionSource",
    "RetractionStatus",
    "SourceReport",
    "SourceState",
]

RetractionStatus = Literal["RETRACTED", "CONCERN", "NOT_RETRACTED_AS_OF", "UNVERIFIABLE"]


RetractionSource = Literal["pmc", "crossref", "pubmed", "europepmc", "retractionwatch", "index"]


SourceState = Literal["answered", "failed", "not_asked"]


RETRACTION_SCHEMA = "citeproof.retraction/1"


class Notice(Model):
    """A notice about the work: a retraction, concern, correction ... and where it is."""

    kind: str = Field(
        description="retraction, withdrawal, removal, partial_retraction, "
        "expression_of_concern, correction, erratum, reinstatement ..."
    )
    doi: str | None = Field(default=None, description="DOI of the notice, when known.")
    pmid: str | None = Field(default=None, description="PMID of the notice, when known.")
    date: str | None = Field(default=None, description="YYYY[-MM[-DD]], when given.")
    source: str = Field(description="Who says so: publisher, retraction-watch, pubmed ...")
    url: str | None = None


class SourceReport(Model):
    """What one source said, or why it said nothing."""

    source: RetractionSource
    state: SourceState
    reason: str | None = None
    retracted: bool | None = Field(default=None, description="null when the source cannot tell")
    concern: bool | None = None
    is_notice: bool = Field(
        default=False,
        description="the work is itself a notice "
        "(a retraction, concern or correction of another work)",
    )
    applicable: bool = Field(
        default=True,
        description="false when the source does not apply "
        "to this work; only then may a not_asked source be ignored",
    )
    notices: list[Notice] = Field(
        default_factory=list, description="retractions and expressions of concern"
    )
    corrections: list[Notice] = Field(default_factory=list)
    snapshot_date: date | None = Field(
        default=None,
        description="retractionwatch and index: the date of the snapshot or dump it read",
    )


class RetractionReport(Published):
    """The retraction status of one work (schema ``citeproof.retraction/1``)."""

    schema_: Literal["citeproof.retraction/1"] = Field(
        default="citeproof.retraction/1", alias="schema"
    )
    identifier: str
    resolved: Resolved
    status: RetractionStatus
    as_of: date | None = Field(default=None, description="set for NOT_RETRACTED_AS_OF")
    reason: str | None = None
    sources: list[SourceReport]
