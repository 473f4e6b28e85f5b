"""One reference entry's card, as the audit page and the references page both show it.

One builder for both pages (:func:`reference_view`; ``full=True`` adds what only the
references page shows), so an entry can never read one way on one page and another way on
the other.  It reads the entry through :class:`~citeproof.models.references.ReferenceResult`
(:mod:`citeproof.report.lenient`), so every field it shows is one the model declares.

A work's identifier is the pages' only kind of link, and it is made here from a DOI or PMID
of the expected shape (:func:`_link`), never copied from the report.  The two patterns are
the link's safety rule, not identifier grammar: they decide only whether a link may be made.
:func:`citeproof.identifiers.record_url` (which the report may read) is not used yet because
it would change the pages' links: it writes a DOI canonical (lower case) where the page keeps
it as the report gives it, percent-encoded, and it links PMCIDs and other kinds too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import quote

from citeproof.models.references import (
    Comparison,
    IdentifierCheck,
    ReferenceResult,
    ServiceAnswer,
    WorkFound,
)
from citeproof.report.lenient import read
from citeproof.report.values import (
    WORK_RETRACTION,
    integer,
    score,
    shown,
    status_sentence,
    text,
    worst,
)

__all__ = [
    "REFERENCE_VERDICT_STYLES",
    "AskedView",
    "ComparisonView",
    "ReferenceView",
    "WorkView",
    "reference_view",
]

#: Reference verdict -> (label, glyph, CSS class), in the order the verdicts are decided.
#: ``unavailable`` and ``unchecked`` are neutral: the record could not be read, or the entry
#: could not be checked, which says nothing of the entry.
REFERENCE_VERDICT_STYLES: Final[dict[str, tuple[str, str, str]]] = {
    "unresolvable": ("Unresolvable", "\u2717", "v-bad"),
    "mismatch": ("Wrong work", "\u2717", "v-bad"),
    "unavailable": ("Unavailable", "?", "v-gone"),
    "unchecked": ("Unchecked", "\u2013", "v-gone"),
    "not_found": ("Not found", "\u2717", "v-bad"),
    "partial": ("Partial match", "\u2248", "v-near"),
    "ambiguous": ("Ambiguous", "\u2248", "v-near"),
    "verified": ("Verified", "\u2713", "v-ok"),
}

#: Field comparison -> (label, glyph, CSS class).
_AGREEMENT: Final[dict[str, tuple[str, str, str]]] = {
    "agrees": ("agrees", "\u2713", "cmp-agrees"),
    "differs": ("differs", "\u2717", "cmp-differs"),
    "not_stated": ("not stated", "\u2013", "cmp-none"),
    "not_recorded": ("not recorded", "\u2013", "cmp-none"),
}

#: A field the entry states no value of, compared all the same: the record's value was looked
#: for in the entry's whole text.  "agrees" beside a missing value would say the entry
#: states it; the result says where it was found instead.
_IN_TEXT: Final[dict[str, str]] = {
    "agrees": "found in the entry's text",
    "differs": "not found in the entry's text",
}

#: Only identifiers of these shapes become links, and only to these two resolvers.
_DOI: Final = re.compile(r"10\.\d{4,9}/[!-~]+")
_PMID: Final = re.compile(r"[1-9]\d{0,9}")
_FIRST_AUTHORS: Final = 3


@dataclass(slots=True)
class WorkView:
    """A work as a database records it, ready to show."""

    identifier: str
    href: str
    title: str
    authors: str
    year: str
    venue: str
    kind: str
    source: str
    score: str
    retraction: str
    retraction_css: str
    retraction_reason: str


@dataclass(slots=True)
class ComparisonView:
    field: str
    stated: str
    #: The entry states no value of its own for the field, and the record's was looked for
    #: in the entry's whole text (a title the reader could not separate): the Stated cell
    #: says so instead of a bare dash beside a score.
    in_text: bool
    record: str
    score: str
    agreement: str
    glyph: str
    css: str
    threshold: str


@dataclass(slots=True)
class AskedView:
    service: str
    purpose: str
    query: str
    status: str
    reason: str
    #: (method, HTTP status, URL, sha256) of each answer read.
    responses: list[tuple[str, str, str, str]]


@dataclass(slots=True)
class ReferenceView:
    index: int
    anchor: str
    label: str
    verdict: str
    verdict_label: str
    glyph: str
    css: str
    #: The card's accent: the verdict's, or a failure's when the work is retracted.
    card_css: str
    #: Not verified, or the work is retracted or under concern ("problems only" keeps it).
    problem: bool
    reason: str
    text: str
    where: str
    source: str
    identifiers: list[tuple[str, str, str]]
    comparisons: list[ComparisonView]
    work: WorkView | None
    suggested: WorkView | None
    candidates: list[WorkView]
    retracted: str
    retracted_css: str
    #: The notice's sentence: "The work this entry names has been retracted, according to ..."
    retracted_reason: str
    asked: list[AskedView]
    log_seq: str
    #: What only the references page shows (``reference_view(..., full=True)``); the audit
    #: page's cards leave them empty, so its References section reads as it always has.
    #: The fields whose agreement identified the work ("title, authors, year").
    decided_by: list[str] = field(default_factory=list)
    #: What else a reader should know: another version of the work, what was checked.
    notes: list[str] = field(default_factory=list)
    #: For unchecked: the kind of work the databases may not hold (book, thesis ...).
    work_kind: str = ""
    #: For a flag: the records that came closest, with their scores, minus the works the
    #: card shows already (a partial's closest record is its work).
    closest: list[WorkView] = field(default_factory=list)


def reference_view(position: int, value: object, *, full: bool = False) -> ReferenceView:
    """One reference entry's card; ``position`` is its place in the list (0-based).

    ``value`` is the entry as JSON data (or a :class:`ReferenceResult`).  ``full`` adds what
    the references page shows and the audit page does not (how the work was identified,
    notes, the kind of an unchecked work, the closest records).
    """
    ref = read(ReferenceResult, value)
    verdict = text(ref.verdict)
    label, glyph, css = REFERENCE_VERDICT_STYLES.get(
        verdict, (verdict or "unknown", "\u2022", "v-unk")
    )
    index = integer(ref.index)
    work = _work(ref.work)
    retracted, retracted_css, retracted_reason = _retraction_notice(ref)
    if retracted and work:  # said once, in the card's retraction notice
        work.retraction_reason = ""
    log_seq = integer(ref.log_seq)
    view = ReferenceView(
        index=position + 1 if index is None else index,
        anchor=f"ref-{position}",
        label=shown(ref.stated.label),
        verdict=shown(verdict),
        verdict_label=shown(label),
        glyph=glyph,
        css=css,
        card_css=worst(css, retracted_css) if retracted else css,
        problem=verdict != "verified" or bool(retracted),
        reason=shown(ref.reason),
        text=shown(ref.stated.text),
        where=shown(ref.stated.where),
        source=shown(ref.source),
        identifiers=[_identifier_check(i) for i in ref.identifiers],
        comparisons=[_comparison(c) for c in ref.comparisons],
        work=work,
        suggested=_work(ref.suggested),
        candidates=_works(ref.candidates),
        retracted=retracted,
        retracted_css=retracted_css,
        retracted_reason=retracted_reason,
        asked=[_asked(a) for a in ref.asked],
        log_seq="" if log_seq is None else str(log_seq),
    )
    if full:
        _add_what_the_references_page_shows(view, ref)
    return view


def _retraction_notice(ref: ReferenceResult) -> tuple[str, str, str]:
    """(label, CSS class, sentence) of the card's retraction notice, or three ``""``: the
    entry's work is retracted or under concern (by the entry's flag or the work's status)."""
    status = text(ref.work.retraction) if ref.work else ""
    if not (ref.retracted is True or status in ("RETRACTED", "CONCERN")):
        return "", "", ""
    if status == "CONCERN":
        label, css = "Expression of concern", "v-near"
    else:
        status, label, css = "RETRACTED", "Retracted", "v-bad"
    reason = text(ref.work.retraction_reason) if ref.work else ""
    return label, css, shown(status_sentence(status, reason, "The work this entry names"))


def _add_what_the_references_page_shows(view: ReferenceView, ref: ReferenceResult) -> None:
    view.decided_by = [shown(f) for f in ref.decided_by]
    view.notes = [shown(n) for n in ref.notes]
    view.work_kind = shown(ref.work_kind)
    seen = {w.identifier for w in (view.work, view.suggested, *view.candidates) if w}
    view.closest = [w for w in _works(ref.closest) if not (w.identifier and w.identifier in seen)]


def _link(work: WorkFound) -> str:
    """https://doi.org/<doi> or https://pubmed.ncbi.nlm.nih.gov/<pmid>/, or ``""``.

    Built here, never taken from the report: only a DOI or PMID of the expected shape, the
    DOI percent-encoded, so the link can only ever point at one of those two resolvers.
    """
    ident = text(work.identifier)
    doi = text(work.doi) or (ident[4:] if ident.lower().startswith("doi:") else "")
    pmid = text(work.pmid) or (ident[5:] if ident.lower().startswith("pmid:") else "")
    if _DOI.fullmatch(doi.strip()):
        return "https://doi.org/" + quote(doi.strip(), safe="/")
    if _PMID.fullmatch(pmid.strip()):
        return f"https://pubmed.ncbi.nlm.nih.gov/{pmid.strip()}/"
    return ""


def _authors(names: Sequence[object]) -> str:
    shown_names = [text(n) for n in names[:_FIRST_AUTHORS]]
    more = len(names) - _FIRST_AUTHORS
    return shown("; ".join(shown_names) + (f" et al. ({more} more)" if more > 0 else ""))


def _works(works: Sequence[WorkFound]) -> list[WorkView]:
    return [view for view in map(_work, works) if view is not None]


def _work(work: WorkFound | None) -> WorkView | None:
    """The work's card, or None for no work (an entry of a list that names nothing)."""
    if work is None or not work.model_fields_set:
        return None
    status = text(work.retraction)
    label, css = WORK_RETRACTION.get(status, ("", ""))
    ident = text(work.identifier)
    if not ident:
        named = (("doi", work.doi), ("pmid", work.pmid), ("pmcid", work.pmcid))
        ident = next((f"{kind}:{value}" for kind, value in named if value), "")
    year = integer(work.year)
    return WorkView(
        identifier=shown(ident),
        href=_link(work),
        title=shown(work.title),
        authors=_authors(work.authors),
        year="" if year is None else str(year),
        venue=shown(work.venue),
        kind=shown(work.type),
        source=shown(work.source),
        score=score(work.score),
        retraction=label,
        retraction_css=css,
        retraction_reason=(
            shown(status_sentence(status, text(work.retraction_reason), "This work"))
            if label and work.retraction_reason
            else ""
        ),
    )


def _comparison(cmp: Comparison) -> ComparisonView:
    agreement = text(cmp.agreement)
    label, glyph, css = _AGREEMENT.get(agreement, (agreement or "unknown", "\u2022", "cmp-none"))
    in_text = not text(cmp.stated) and agreement in _IN_TEXT
    if in_text:
        label = _IN_TEXT[agreement]
    return ComparisonView(
        field=shown(cmp.field),
        stated=shown(cmp.stated),
        in_text=in_text,
        record=shown(cmp.record),
        score=score(cmp.score),
        agreement=shown(label),
        glyph=glyph,
        css=css,
        threshold=shown(cmp.threshold),
    )


def _identifier_check(check: IdentifierCheck) -> tuple[str, str, str]:
    """(identifier, what the registries said, CSS class)."""
    reason = text(check.reason)
    if check.exists is True:
        agency = text(check.registered_with)
        said, css = (f"exists, registered with {agency}" if agency else "exists"), "v-ok"
    elif check.exists is False:
        said, css = "does not exist", "v-bad"
    else:
        said, css = "could not be established", "v-gone"
    if reason:
        said += f": {reason}"
    return shown(check.identifier), shown(said), css


def _asked(answer: ServiceAnswer) -> AskedView:
    responses = []
    for r in answer.responses:
        status = integer(r.status)
        responses.append(
            (
                shown(r.method or "GET"),
                "" if status is None else str(status),
                shown(r.url),
                shown(r.sha256),
            )
        )
    return AskedView(
        service=shown(answer.service),
        purpose=shown(answer.purpose),
        query=shown(answer.query),
        status=shown(answer.status),
        reason=shown(answer.reason),
        responses=responses,
    )
