"""``citeproof.references/1``: whether each reference of a list names a real work, and which.

One :class:`ReferenceResult` per entry, in the list's order, with one verdict (the first of
:data:`REFERENCE_VERDICTS` that applies), what the entry states, the record it was compared
with, every field comparison with its score and threshold, the work the stated metadata does
describe when that differs (``suggested``), the retraction status of every matched work, and
every request made, with the sha256 of each answer (``asked``), so a reader can see what was
looked up and a later run can replay it from the pins.
"""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import Field

from citeproof.models.base import Model, Published
from citeproof.models.retraction import RetractionStatus
from citeproof.models.search import ResponseDigest

#: A page whose letters a hyphen joins to its digits: a supplement's "S-802".
_LETTER_JOINED_PAGE = re.compile(r"[A-Za-z]{1,3}-\d+")

__all__ = [
    "PROBLEM_VERDICTS",
    "REFERENCES_SCHEMA",
    "REFERENCE_VERDICTS",
    "Comparison",
    "IdentifierCheck",
    "ReferenceCounts",
    "ReferenceResult",
    "ReferencesReport",
    "ServiceAnswer",
    "StatedFields",
    "WorkFound",
    "WorkRecord",
]

REFERENCES_SCHEMA = "citeproof.references/1"

#: In the order they are decided: the first that applies is the verdict.
ReferenceVerdict = Literal[
    "unresolvable",
    "mismatch",
    "unavailable",
    "unchecked",
    "not_found",
    "partial",
    "ambiguous",
    "verified",
]
REFERENCE_VERDICTS: tuple[ReferenceVerdict, ...] = get_args(ReferenceVerdict)
#: The verdicts that flag a reference for a person to confirm: each carries its evidence.
PROBLEM_VERDICTS: tuple[ReferenceVerdict, ...] = (
    "unresolvable",
    "mismatch",
    "not_found",
    "partial",
)
FieldName = Literal["title", "authors", "year", "venue", "volume", "pages"]
Agreement = Literal["agrees", "differs", "not_stated", "not_recorded"]
Service = Literal["index", "doi.org", "crossref", "datacite", "pubmed", "openalex"]


class WorkRecord(Model):
    """One work as one database records it: what a stated reference is compared with.

    Each source parses its own answer into one (``citeproof.sources.crossref``,
    ``datacite``, ``eutils_search``, ``openalex``), so the comparison is one function for
    every database.  It lives here, below the sources, because they build it.
    """

    source: str = Field(
        description="crossref, datacite, pubmed or openalex; from a local index also arxiv, dblp"
    )
    doi: str | None = Field(default=None, description="lower case, bare (10.1000/x)")
    pmid: str | None = None
    pmcid: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = Field(
        default=(), description="printed names, family name first where the database splits them"
    )
    year: int | None = None
    venue: str | None = None
    kind: str | None = Field(default=None, description="the database's type of work")
    openalex: str | None = Field(default=None, description="the OpenAlex work id (W…)")
    arxiv: str | None = Field(default=None, description="the arXiv id, without its version")
    dblp: str | None = Field(default=None, description="the DBLP record key")
    is_notice: bool = Field(
        default=False, description="the record is a retraction/correction notice about another work"
    )
    volume: str | None = None
    issue: str | None = None
    pages: str | None = Field(default=None, description="as the database gives them: 844-852")
    other_titles: tuple[str, ...] = Field(
        default=(),
        description="the title with its subtitle, in its original language, or translated",
    )
    venue_names: tuple[str, ...] = Field(
        default=(), description="other names of the venue: abbreviations, short titles"
    )
    issn: tuple[str, ...] = ()
    types: tuple[str, ...] = Field(
        default=(), description="every type the database gives (PubMed lists several)"
    )
    related: tuple[str, ...] = Field(
        default=(),
        description="other versions, as relation:key (is-preprint-of:doi:10.1/x, "
        "has-preprint:doi:10.1/y)",
    )

    @property
    def first_page(self) -> str | None:
        """The first page (or article number) of ``pages``: what a citation prints.  A
        supplement's letters joined to the page by a hyphen belong to it: the first page of
        "S-802-S-803" is "S-802", not "S"."""
        if not self.pages:
            return None
        pages = self.pages.replace("\u2013", "-").strip()
        lettered = _LETTER_JOINED_PAGE.match(pages)
        if lettered:
            return lettered.group(0)
        first = pages.split("-", 1)[0].strip()
        return first or None

    @property
    def key(self) -> str:
        """The identifier key the record is reported under: DOI, else PMID, else OpenAlex."""
        if self.doi:
            return f"doi:{self.doi}"
        if self.pmid:
            return f"pmid:{self.pmid}"
        if self.pmcid:
            return f"pmcid:{self.pmcid}"
        if self.openalex:
            return f"openalex:{self.openalex}"
        if self.arxiv:
            return f"arxiv:{self.arxiv}"
        return f"dblp:{self.dblp}" if self.dblp else f"{self.source}:?"


class StatedFields(Model):
    """What the entry says, as read from its list."""

    text: str
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    label: str | None = Field(default=None, description="the entry's number or citation key")
    where: str | None = Field(default=None, description="where the entry stands in its file")


class WorkFound(Model):
    """A work as a database records it."""

    source: str = Field(description="the database whose record this is")
    identifier: str = Field(description="doi:…, pmid:… or openalex:W…")
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    title: str | None = None
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    type: str | None = None
    score: float | None = Field(
        default=None, description="how well the entry matches this record, 0 to 1"
    )
    retraction: RetractionStatus | None = Field(
        default=None, description="the work's retraction status, when it was asked"
    )
    retraction_reason: str | None = None


class Comparison(Model):
    """One field, stated against recorded: the score and whether it is within tolerance."""

    field: FieldName
    stated: str | None = None
    record: str | None = None
    score: float | None = Field(default=None, description="0 to 1; null when not compared")
    agreement: Agreement
    threshold: str = Field(description="the rule the score was held to")


class IdentifierCheck(Model):
    """What the registries answered about an identifier the entry names."""

    identifier: str
    exists: bool | None = Field(description="null when it could not be established")
    registered_with: str | None = Field(
        default=None, description="the DOI registration agency (Crossref, DataCite …)"
    )
    reason: str | None = None


class ServiceAnswer(Model):
    """One question put to one database, and what came back."""

    service: Service
    purpose: Literal["identifier", "search"]
    query: str
    status: Literal["ok", "empty", "missing", "incomplete", "failed", "offline"] = Field(
        description="ok: records; empty: none; missing: no such record; incomplete: an "
        "answer without what identity needs (hits without titles, ids left out); failed, "
        "offline: nothing was concluded"
    )
    reason: str | None = None
    responses: list[ResponseDigest] = Field(default_factory=list)


class ReferenceResult(Model):
    """One entry's verdict and the evidence for it."""

    index: int = Field(description="1-based position in the list")
    source: str | None = Field(
        default=None, description="the file the entry was read from, in a batch of files"
    )
    verdict: ReferenceVerdict
    reason: str
    stated: StatedFields
    identifiers: list[IdentifierCheck] = Field(default_factory=list)
    work: WorkFound | None = Field(
        default=None,
        description="the work the entry names (verified, partial) or whose "
        "identifier it gives (mismatch)",
    )
    comparisons: list[Comparison] = Field(default_factory=list)
    differs: list[FieldName] = Field(
        default_factory=list, description="fields outside tolerance, for mismatch and partial"
    )
    suggested: WorkFound | None = Field(
        default=None, description="the work the stated metadata describes, for a mismatch"
    )
    candidates: list[WorkFound] = Field(
        default_factory=list, description="the works that validate equally, for ambiguous"
    )
    closest: list[WorkFound] = Field(
        default_factory=list,
        description="for a flag: the records that came closest, with their scores, so a person "
        "can see what the databases hold",
    )
    decided_by: list[str] = Field(
        default_factory=list,
        description="the fields whose agreement identified the work (title, authors, year, "
        "venue, volume, pages)",
    )
    notes: list[str] = Field(
        default_factory=list,
        description="what else a reader should know: another version of the work, what was "
        "checked of a work the databases do not hold",
    )
    work_kind: str | None = Field(
        default=None,
        description="for unchecked: the kind of work recognised (book, thesis, standard, "
        "software, data set, web page, legal or government document)",
    )
    retracted: bool = Field(
        default=False, description="the matched work is retracted or under concern"
    )
    asked: list[ServiceAnswer] = Field(default_factory=list)
    log_seq: int | None = Field(
        default=None, description="the evidence-log line of this verification, or null"
    )

    def log_payload(self) -> dict[str, Any]:
        """What the evidence log records: the verdict, the entry, the work, the requests."""
        return self.model_dump(mode="json", exclude={"log_seq"}, exclude_none=True)


class ReferenceCounts(Model):
    """How many entries got each verdict."""

    total: int = 0
    verified: int = 0
    ambiguous: int = 0
    partial: int = 0
    not_found: int = 0
    unchecked: int = 0
    unavailable: int = 0
    mismatch: int = 0
    unresolvable: int = 0
    retracted: int = 0


class ReferencesReport(Published):
    """Every reference of one list (schema ``citeproof.references/1``)."""

    schema_: Literal["citeproof.references/1"] = Field(
        default="citeproof.references/1", alias="schema"
    )
    source: str | None = Field(default=None, description="the file the list was read from")
    format: str | None = Field(default=None, description="bibtex, ris, csl, jats, pdf …")
    references: list[ReferenceResult] = Field(default_factory=list)
    counts: ReferenceCounts = Field(default_factory=ReferenceCounts)
    offline: bool = False
    reading: list[str] = Field(
        default_factory=list,
        description="what reading the list found wrong with it: numbers skipped, a number "
        "used twice, text not read as entries; nothing is dropped or merged silently",
    )
