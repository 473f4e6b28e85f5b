"""Each source's answer about a work's retraction status, as one ``SourceReport``.

Split from :mod:`citeproof.retraction.status`, which asks these concurrently and decides the status:
here are the identifier bookkeeping (which of DOI/PMID/PMCID the work has, and whether that is
known or merely unresolved) and one report builder per source, each turning a source's answer
(or its failure) into a report without ever raising for an unreachable service.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path

import httpx2

from citeproof.errors import CiteproofError
from citeproof.identifiers import Identifier, find_identifiers
from citeproof.models import Notice, RetractionSource, SourceReport
from citeproof.sources import crossref, europepmc, idconv, pmc, pubmed, retractionwatch

SourceName = RetractionSource


class Ids:
    """The work's DOI/PMID/PMCID as resolution finds them, and whether resolution answered."""

    def __init__(self, work: Identifier, known: Mapping[str, str] | None) -> None:
        self.doi: str | None = None
        self.pmid: str | None = None
        self.pmcid: str | None = None
        setattr(self, work.kind, work.value)
        #: True once a resolver answered (or ``known`` was given): an id still missing then
        #: does not exist, so a source that needs it does not apply.
        self.settled = known is not None
        #: True once it is known whether the work is in PMC (has a PMCID).
        self.in_pmc_known = self.settled
        #: Why resolution could not be completed (the ID converter or Europe PMC failed).
        self.failure: str | None = None
        #: The kinds a resolver (or the caller, with ``known``) confirmed belong to the work:
        #: a source that then has no record of such an id answered wrongly, not "absent".
        self.confirmed: set[str] = set()
        for name, value in (known or {}).items():
            if name in ("doi", "pmid", "pmcid") and value and getattr(self, name) is None:
                setattr(self, name, value.lower() if name == "doi" else value)
            if name in ("doi", "pmid", "pmcid") and value:
                self.confirmed.add(name)

    def fill(self, doi: str | None, pmid: str | None, pmcid: str | None) -> None:
        """Ids a resolver gave for the work: kept where none is known, and confirmed where
        they agree with the one known."""
        self.doi = self.doi or (doi.lower() if doi else None)
        self.pmid = self.pmid or pmid
        self.pmcid = self.pmcid or (pmcid.upper() if pmcid else None)
        given = {
            "doi": doi.lower() if doi else None,
            "pmid": pmid,
            "pmcid": pmcid.upper() if pmcid else None,
        }
        self.confirmed.update(k for k, v in given.items() if v and v == getattr(self, k))

    def absent(self, source: SourceName, what: str) -> SourceReport:
        """The report of a source that needs ``what``, which is not known."""
        if self.settled or (what == "PMCID" and self.in_pmc_known):
            return SourceReport(
                source=source,
                state="not_asked",
                applicable=False,
                reason=f"does not apply: the work has no {what}",
            )
        return SourceReport(
            source=source,
            state="failed",
            reason=f"the {what} could not be resolved: {self.failure or 'no resolver answered'}",
        )


def failed(source: SourceName, err: Exception) -> SourceReport:
    return SourceReport(source=source, state="failed", reason=str(err) or type(err).__name__)


FAILURES = (CiteproofError, httpx2.TransportError)
EpmcAnswer = europepmc.EpmcRecord | None | Exception


async def europepmc_lookup(client: httpx2.AsyncClient, ids: Ids) -> EpmcAnswer:
    """Europe PMC's record of the work (by DOI, else PMID, else PMCID), or the failure."""
    try:
        if ids.doi:
            return await europepmc.find_by_doi(client, ids.doi)
        query = f"EXT_ID:{ids.pmid} AND SRC:MED" if ids.pmid else f"PMCID:{ids.pmcid}"
        page = await europepmc.search(client, query, page_size=1, cursor=None, result_type="lite")
        for record in page.results:
            if (ids.pmid and record.pmid == ids.pmid) or (
                not ids.pmid and (record.pmcid or "").upper() == ids.pmcid
            ):
                return record
        return None
    except FAILURES as err:
        return err


async def already(value: EpmcAnswer) -> EpmcAnswer:
    return value


async def resolve_ids(
    client: httpx2.AsyncClient, ids: Ids, *, skip_idconv: bool
) -> tuple[bool, EpmcAnswer]:
    """Fill in the missing ids: the PMC ID converter, then Europe PMC when the DOI or PMID is
    still missing. Returns (Europe PMC was asked, its answer): the answer is also that
    source's report, so it is not asked twice."""
    failures: list[str] = []
    if not skip_idconv and not (ids.doi and ids.pmid and ids.pmcid):
        kind: idconv.IdType = next(k for k in ("pmcid", "pmid", "doi") if getattr(ids, k))
        value: str = getattr(ids, kind)
        try:
            record = (await idconv.convert(client, [value], kind)).get(value)
            ids.in_pmc_known = True  # an error record says "not in PMC", and nothing more
            if record is not None and record.error is None:
                ids.fill(record.doi, record.pmid, record.pmcid)
                ids.settled = True
        except FAILURES as err:
            failures.append(f"the PMC ID converter failed: {err}")
    if ids.doi and ids.pmid:
        return False, None
    found = await europepmc_lookup(client, ids)
    if isinstance(found, Exception):
        failures.append(f"Europe PMC failed: {found}")
    elif found is not None:
        ids.fill(found.doi, found.pmid, found.pmcid)
    if not isinstance(found, Exception) and not failures:
        # Every resolver asked answered: an id still missing does not exist.
        ids.settled = ids.in_pmc_known = True
    ids.failure = "; ".join(failures) or None
    return True, found


# --- one report per source --------------------------------------------------------------------


async def pmc_report(client: httpx2.AsyncClient, ids: Ids) -> SourceReport:
    if not ids.pmcid:
        return ids.absent("pmc", "PMCID")
    try:
        versions = await pmc.list_versions(client, ids.pmcid)
        if not versions:
            return SourceReport(
                source="pmc",
                state="answered",
                reason=f"{ids.pmcid} is not in "
                "the PMC open-access bucket, whose metadata marks retractions",
            )
        meta = await pmc.metadata(client, ids.pmcid, versions[-1])
    except FAILURES as err:
        return failed("pmc", err)
    if meta is None:
        return SourceReport(
            source="pmc",
            state="failed",
            reason=f"the bucket lists {ids.pmcid}.{versions[-1]} but has no metadata for it",
        )
    if meta.is_retracted is None:
        return SourceReport(
            source="pmc",
            state="failed",
            reason=f"the metadata of {meta.versioned_id} has no is_retracted boolean, so it "
            "says nothing either way",
        )
    url = f"{pmc.BUCKET_URL}/{meta.versioned_id}/{meta.versioned_id}.json"
    notices = [Notice(kind="retraction", source="pmc", url=url)] if meta.is_retracted else []
    return SourceReport(
        source="pmc",
        state="answered",
        retracted=meta.is_retracted,
        reason=f"metadata of {meta.versioned_id}: is_retracted is {str(meta.is_retracted).lower()}",
        notices=notices,
    )


def _from_updates(updates: Sequence[crossref.CrossrefUpdate]) -> tuple[list[Notice], list[Notice]]:
    notices: list[Notice] = []
    corrections: list[Notice] = []
    seen: set[tuple[str, str | None, str | None]] = set()
    for u in updates:
        if (u.kind, u.notice_doi, u.source) in seen:
            continue
        seen.add((u.kind, u.notice_doi, u.source))
        notice = Notice(
            kind=u.kind,
            doi=u.notice_doi,
            date=u.date,
            source=u.source or "crossref",
            url=f"https://doi.org/{u.notice_doi}" if u.notice_doi else None,
        )
        (corrections if u.category == "correction" else notices).append(notice)
    return notices, corrections


async def crossref_report(client: httpx2.AsyncClient, ids: Ids) -> SourceReport:
    if not ids.doi:
        return ids.absent("crossref", "DOI")
    work_answer, listed = await asyncio.gather(
        crossref.work(client, ids.doi),
        crossref.notices_about(client, ids.doi),
        return_exceptions=True,
    )
    updates: list[crossref.CrossrefUpdate] = []
    errors: list[str] = []
    reasons: list[str] = []
    is_notice = False
    for answer in (work_answer, listed):
        if isinstance(answer, FAILURES):
            errors.append(str(answer) or type(answer).__name__)
        elif isinstance(answer, BaseException):
            raise answer
    if isinstance(listed, list):
        updates.extend(listed)
    if isinstance(work_answer, crossref.CrossrefWork):
        updates.extend(work_answer.updated_by)
        if work_answer.is_notice:
            is_notice = True
            first = work_answer.update_to[0]
            reasons.append(f"{ids.doi} is itself a {first.kind} notice for {first.target_doi}")
    elif work_answer is None:
        reasons.append(f"Crossref has no record of {ids.doi}")
    notices, corrections = _from_updates(updates)
    kinds = {crossref.category(n.kind) for n in notices}
    return SourceReport(
        source="crossref",
        state="failed" if errors else "answered",
        reason="; ".join(errors + reasons) or None,
        retracted=True if "retracted" in kinds else (None if errors else False),
        concern=True if "concern" in kinds else (None if errors else False),
        is_notice=is_notice,
        notices=notices,
        corrections=corrections,
    )


_PUBMED_LINKS = {
    "retractionin": ("retraction", "notices"),
    "partialretractionin": ("partial_retraction", "notices"),
    "expressionofconcernin": ("expression_of_concern", "notices"),
    "erratumin": ("erratum", "corrections"),
    "correctedandrepublishedin": ("corrected_and_republished", "corrections"),
}
_PUBMED_NOTICE_TYPES = ("retraction of publication", "expression of concern", "published erratum")
_PUBMED_NOTICE_LINKS = (
    "retractionof",
    "partialretractionof",
    "expressionofconcernfor",
    "erratumfor",
)


def _refsource_doi(source: str | None) -> str | None:
    found = [i.value for i in find_identifiers(source or "") if i.kind == "doi"]
    return found[0] if found else None


async def pubmed_report(client: httpx2.AsyncClient, ids: Ids) -> SourceReport:
    if not ids.pmid:
        return ids.absent("pubmed", "PMID")
    try:
        records = await pubmed.efetch_records(client, [ids.pmid])
    except FAILURES as err:
        return failed("pubmed", err)
    record = next((r for r in records if r.pmid == ids.pmid), None)
    if record is None and "pmid" in ids.confirmed:
        return SourceReport(
            source="pubmed",
            state="failed",
            reason=f"PubMed answered with no record for PMID {ids.pmid}, which the work is known "
            "by: an empty answer, not an absence",
        )
    if record is None:
        return SourceReport(
            source="pubmed", state="answered", reason=f"PubMed has no record PMID {ids.pmid}"
        )
    types = {t.casefold() for t in record.publication_types}
    lists: dict[str, list[Notice]] = {"notices": [], "corrections": []}
    for link in record.comments_corrections:
        known_link = _PUBMED_LINKS.get(link.ref_type.casefold())
        if known_link is not None:
            lists[known_link[1]].append(
                Notice(
                    kind=known_link[0],
                    pmid=link.pmid,
                    doi=_refsource_doi(link.source),
                    source="pubmed",
                    url=f"https://pubmed.ncbi.nlm.nih.gov/{link.pmid}/" if link.pmid else None,
                )
            )
    kinds = {n.kind for n in lists["notices"]}
    retracted = "retracted publication" in types or bool(
        kinds & {"retraction", "partial_retraction"}
    )
    is_notice = any(t in types for t in _PUBMED_NOTICE_TYPES) or any(
        c.ref_type.casefold() in _PUBMED_NOTICE_LINKS for c in record.comments_corrections
    )
    said = sorted(
        t
        for t in record.publication_types
        if t.casefold() in {"retracted publication", *_PUBMED_NOTICE_TYPES}
    )
    return SourceReport(
        source="pubmed",
        state="answered",
        retracted=retracted,
        concern="expression_of_concern" in kinds,
        is_notice=is_notice,
        reason=f"PMID {ids.pmid} publication type: {', '.join(said)}" if said else None,
        notices=lists["notices"],
        corrections=lists["corrections"],
    )


def europepmc_report(found: EpmcAnswer, ids: Ids) -> SourceReport:
    if isinstance(found, Exception):
        return failed("europepmc", found)
    if found is None and "pmcid" in ids.confirmed:
        return SourceReport(
            source="europepmc",
            state="failed",
            reason=f"Europe PMC found no record of the work, though it is in PMC as "
            f"{ids.pmcid} (Europe PMC holds every PMC article): an empty answer, not an "
            "absence",
        )
    if found is None:
        return SourceReport(
            source="europepmc", state="answered", reason="Europe PMC has no record of the work"
        )
    types = {t.casefold() for t in found.pub_types}
    is_notice = "retraction of publication" in types or "expression of concern" in types
    url = f"https://europepmc.org/article/{found.source}/{found.id}"
    return SourceReport(
        source="europepmc",
        state="answered",
        retracted=found.is_retracted,
        is_notice=is_notice,
        reason=f"{found.source} {found.id} publication types: {'; '.join(found.pub_types)}",
        notices=[Notice(kind="retraction", source="europepmc", url=url)]
        if found.is_retracted
        else [],
    )


def retractionwatch_report(db: Path | None, ids: Ids) -> SourceReport:
    info = None
    try:
        info = retractionwatch.snapshot_info(db) if db is not None else None
        if info is None:
            return SourceReport(
                source="retractionwatch",
                state="not_asked",
                reason="no "
                "Retraction Watch snapshot was imported (citeproof "
                "retractions import FILE)",
            )
        if not (ids.doi or ids.pmid):
            return ids.absent("retractionwatch", "DOI or PMID")
        _, rows = retractionwatch.lookup(info.path, doi=ids.doi, pmid=ids.pmid)
        _, as_notice = retractionwatch.lookup(info.path, doi=ids.doi, pmid=ids.pmid, as_notice=True)
    except CiteproofError as err:
        return SourceReport(
            source="retractionwatch",
            state="failed",
            reason=str(err),
            snapshot_date=info.as_of if info else None,
        )
    notices: list[Notice] = []
    corrections: list[Notice] = []
    for row in rows:
        url = (row.urls or "").split(";")[0].strip() or None
        notice = Notice(
            kind=row.kind,
            doi=row.notice_doi,
            pmid=row.notice_pmid,
            date=row.notice_date,
            source="retraction-watch",
            url=url,
        )
        cat = "correction" if row.kind == "reinstatement" else crossref.category(row.kind)
        (corrections if cat == "correction" else notices).append(notice)
    # A reinstatement dated after the last retraction undoes it (sorted by date).
    last = [r.kind for r in rows if r.kind in ("retraction", "reinstatement")]
    retracted = bool(last) and last[-1] == "retraction"
    reasons = [r.reason for r in rows if r.reason and r.kind == "retraction"]
    return SourceReport(
        source="retractionwatch",
        state="answered",
        retracted=retracted,
        concern=any(n.kind == "expression_of_concern" for n in notices),
        is_notice=bool(as_notice),
        snapshot_date=info.as_of,
        reason=f"snapshot of {info.as_of.isoformat()}"
        + (f"; reason given: {reasons[-1]}" if reasons else "")
        + ("; reinstated after its retraction" if last and not retracted else ""),
        notices=notices,
        corrections=corrections,
    )
