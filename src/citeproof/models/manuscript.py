"""The ``citeproof.manuscript/1`` report: what checking a whole manuscript found.

Why a schema of its own, not ``citeproof.audit/1``: an audit reads an AI answer into claims
and citations of identifiers and handles, and decides per citation; a manuscript is read
into a reference list, in-text citations linked to its entries, and quotations, and what an
editor needs is per reference (is it real), per quotation (is it in the cited work) and the
list's own faults (citations with no entry, entries never cited, retracted works).  The two
share their pieces where they mean the same: each reference's verdict is ``refs``'
:class:`~citeproof.models.references.ReferenceResult`, each quotation's check is the
``citeproof.check/1`` object, the overall verdict and the signature are the audit's.

The report is signed over its canonical JSON without ``signature``
(:mod:`citeproof.service.signatures`), so the models are plain data: no computed fields that
could serialise differently later.  A field is never renamed without bumping ``schema``.
Offsets (``start``/``end``) are code points, end-exclusive, into the manuscript's text as
the reader extracts it (``citeproof.manuscript``); each item also carries its section, so
the report reads without that text.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from citeproof.models.audit import OverallVerdict, Signature
from citeproof.models.base import Model, Published
from citeproof.models.check import CheckResult
from citeproof.models.references import ReferenceResult

__all__ = [
    "DEFAULT_FAIL_ON",
    "FAIL_ON_CHOICES",
    "FINDINGS",
    "MANUSCRIPT_SCHEMA",
    "QUOTATION_VERDICTS",
    "CheckedAgainst",
    "EditorCopy",
    "Finding",
    "ManuscriptCitation",
    "ManuscriptCounts",
    "ManuscriptInfo",
    "ManuscriptReference",
    "ManuscriptReport",
    "QuotationReport",
    "QuotationTarget",
    "QuotationVerdict",
    "ReadingProblem",
    "RetractedWork",
    "UnlinkedCitation",
]

MANUSCRIPT_SCHEMA = "citeproof.manuscript/1"

QuotationVerdict = Literal[
    "EXACT", "NEAR", "NOT_FOUND", "TOO_SHORT", "UNAVAILABLE", "NOT_CHECKABLE"
]
QUOTATION_VERDICTS: Final[tuple[QuotationVerdict, ...]] = (
    "EXACT",
    "NEAR",
    "NOT_FOUND",
    "TOO_SHORT",
    "UNAVAILABLE",
    "NOT_CHECKABLE",
)

#: What a quotation's check means for the manuscript (the audit's words where they apply):
#: ``ok`` the words are in the cited work; ``misquote`` they are not (NOT_FOUND), or the
#: closest wording differs in a way that changes meaning (NEAR with a risk flag, a match
#: mid-word, an ellipsis hiding a negation); ``near_quote`` the wording differs slightly
#: (NEAR without a risk flag, or a short quote not verbatim); ``unattributed`` the quotation
#: carries no citation, or its citation names no reference entry; ``unchecked`` no text of
#: the cited work could be read or found for it (``reason`` says why), or only an abstract
#: that does not hold it.
Finding = Literal["ok", "misquote", "near_quote", "unattributed", "unchecked"]
FINDINGS: Final[tuple[Finding, ...]] = (
    "misquote",
    "near_quote",
    "unattributed",
    "unchecked",
    "ok",
)

#: The names ``--fail-on`` takes: quotation findings, reference verdicts (``refs``'),
#: ``retracted`` / ``concern`` (a cited work, unless the manuscript says it is retracted),
#: ``unlinked`` (a citation names a work no entry holds), ``uncited`` (an entry no citation
#: names), ``unavailable`` (a reference that could not be verified, a quotation unchecked).
FAIL_ON_CHOICES: Final[frozenset[str]] = frozenset(
    {
        "misquote",
        "near_quote",
        "unattributed",
        "unchecked",
        "unresolvable",
        "mismatch",
        "not_found",
        "partial",
        "ambiguous",
        "unavailable",
        "retracted",
        "concern",
        "unlinked",
        "uncited",
    }
)
DEFAULT_FAIL_ON: Final[tuple[str, ...]] = (
    "misquote",
    "unresolvable",
    "mismatch",
    "not_found",
    "partial",
    "retracted",
)


class ManuscriptInfo(Model):
    """The manuscript that was checked."""

    name: str | None = Field(description="The file or folder name as given (null for stdin).")
    format: Literal["docx", "latex", "pdf", "jats", "html", "markdown"]
    sha256: str = Field(
        description="sha256 of the file's bytes (an archive's); for a folder, of the lines "
        "'<sha256>  <name>' of the source files read, sorted by name (as sha256sum prints "
        "them)."
    )
    title: str | None = None
    members: list[str] = Field(
        default_factory=list, description="For a LaTeX folder or archive: the files read."
    )
    characters: int = Field(description="Characters of the text the reader extracted.")


class ManuscriptReference(Model):
    """One entry of the reference list: what it states, its verdict, who cites it."""

    id: str = Field(description="The entry's id: ref1, ref2 ... in list order; a LaTeX key.")
    label: str | None = Field(default=None, description="The printed number or label.")
    key: str | None = Field(default=None, description="The citation key, if any.")
    origin: str = Field(description="list, bib, bbl, jats, field, note, nocite.")
    where: str | None = Field(default=None, description="Where it stands in the file.")
    text: str = Field(description="The entry as stated.")
    cited_by: list[int] = Field(
        default_factory=list, description="Indices of the citations that name it."
    )
    result: ReferenceResult | None = Field(
        default=None,
        description="Its verification (citeproof.references/1's entry); null when it was not "
        "verified (past the cap).",
    )
    work: str | None = Field(
        default=None,
        description="The identifier its quotations are checked against (see "
        "CheckedAgainst.basis), when there is one.",
    )
    source_file: str | None = Field(
        default=None, description="The editor's copy (--sources) matched to it."
    )


class ManuscriptCitation(Model):
    """One in-text citation and the entries it is linked to."""

    index: int
    marker: str = Field(description="As printed.")
    kind: str = Field(description="numeric, superscript, author_year, key, footnote, field.")
    start: int
    end: int
    section: list[str] = Field(default_factory=list, description="Section titles, outermost first.")
    region: str
    where: str | None = None
    entry_ids: list[str] = Field(default_factory=list)
    unlinked: list[str] = Field(
        default_factory=list, description="What it names that no entry holds (targets)."
    )


class UnlinkedCitation(Model):
    """A work a citation names that has no reference entry."""

    citation: int = Field(description="Index into `citations`.")
    marker: str
    target: str = Field(description="What it names: a number, a key, 'Smith 2019a' ...")
    reason: str | None = None
    section: list[str] = Field(default_factory=list)


class CheckedAgainst(Model):
    """Which text a quotation was checked against."""

    entry_id: str
    kind: Literal["work", "file"] = Field(
        description="work: the cited work's best legally readable text, fetched by its "
        "identifier; file: the editor's own copy from --sources."
    )
    identifier: str | None = Field(default=None, description="For work: doi:…, pmid:…, pmcid:….")
    basis: Literal["verified", "partial", "suggested", "stated"] | None = Field(
        default=None,
        description="For work, where the identifier came from: the work refs verified (or "
        "found with differing fields), the work the stated metadata describes when the "
        "entry's identifier names another (mismatch), or the entry's own identifier.",
    )
    file: str | None = Field(default=None, description="For file: its path inside --sources.")
    matched_by: Literal["doi", "pmid", "pmcid", "title_author"] | None = None


class QuotationTarget(Model):
    """One cited entry a quotation was checked against (when it cites several)."""

    entry_id: str
    verdict: QuotationVerdict
    finding: Finding
    reason: str | None = None
    against: CheckedAgainst | None = None


class QuotationReport(Model):
    """One quotation, the entries it cites, and its check."""

    index: int
    text: str = Field(description="The quoted words, quotation marks excluded.")
    start: int
    end: int
    block: bool = Field(description="A block quote.")
    section: list[str] = Field(default_factory=list)
    region: str
    citations: list[int] = Field(default_factory=list, description="Indices into `citations`.")
    entry_ids: list[str] = Field(default_factory=list)
    verdict: QuotationVerdict = Field(
        description="The check's verdict against the cited work that decided it (the best "
        "of them when several are cited); NOT_CHECKABLE when nothing could be checked."
    )
    finding: Finding
    flags: list[str] = Field(default_factory=list)
    reason: str | None = None
    against: CheckedAgainst | None = None
    check: CheckResult | None = Field(
        default=None, description="The check object (schema citeproof.check/1) that decided it."
    )
    targets: list[QuotationTarget] = Field(
        default_factory=list, description="Every cited entry checked, when there are several."
    )


class RetractedWork(Model):
    """A cited work that is retracted or under an expression of concern."""

    entry_id: str
    identifier: str
    status: Literal["RETRACTED", "CONCERN"]
    reason: str | None = None
    cited_by: list[int] = Field(default_factory=list)
    acknowledged: bool = Field(
        description="A sentence citing it says it is retracted (a word starting 'retract'): "
        "it does not fail the manuscript."
    )


class ReadingProblem(Model):
    """Something the reader could not read or link (docs/manuscripts.md, problems)."""

    code: str
    message: str
    where: str | None = None


class EditorCopy(Model):
    """One file of --sources, and the entry it was matched to."""

    file: str = Field(description="Its path inside the --sources folder.")
    sha256: str | None = None
    entry_ids: list[str] = Field(default_factory=list)
    matched_by: Literal["doi", "pmid", "pmcid", "title_author"] | None = None
    reason: str | None = Field(
        default=None, description="Why it was not matched, or could not be read."
    )


class ManuscriptCounts(Model):
    """How many of each; every verdict is listed."""

    references: int
    references_verified: int = Field(description="References that were verified (under the cap).")
    by_reference_verdict: dict[str, int]
    citations: int
    unlinked: int = Field(description="Works cited that no entry holds.")
    uncited: int = Field(description="Entries no citation names.")
    quotations: int
    quotations_checked: int = Field(description="Quotations the matcher ran on.")
    by_quotation_verdict: dict[str, int]
    by_finding: dict[str, int]
    retracted: int = Field(description="Distinct cited works retracted or under concern.")
    problems: int = Field(description="Problems the reader reported.")


class ManuscriptReport(Published):
    """A whole manuscript checked (schema ``citeproof.manuscript/1``)."""

    schema_: Literal["citeproof.manuscript/1"] = Field(
        default="citeproof.manuscript/1", alias="schema"
    )
    verdict: OverallVerdict
    manuscript: ManuscriptInfo
    counts: ManuscriptCounts
    quotations: list[QuotationReport] = Field(default_factory=list)
    references: list[ManuscriptReference] = Field(default_factory=list)
    unlinked: list[UnlinkedCitation] = Field(default_factory=list)
    uncited: list[str] = Field(
        default_factory=list, description="Ids of the entries no citation names."
    )
    retracted: list[RetractedWork] = Field(default_factory=list)
    citations: list[ManuscriptCitation] = Field(default_factory=list)
    problems: list[ReadingProblem] = Field(default_factory=list)
    sources: list[EditorCopy] = Field(
        default_factory=list, description="The --sources files and what each was matched to."
    )
    notes: list[str] = Field(
        default_factory=list, description="What was left unchecked and why (caps reached)."
    )
    offline: bool = False
    fail_on: list[str] = Field(description="What makes the manuscript fail.")
    created_at: str = Field(description="When the check ran (UTC, ISO 8601).")
    generator: str = Field(description="citeproof and its version.")
    signature: Signature | None = None
