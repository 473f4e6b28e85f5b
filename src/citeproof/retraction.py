"""Is the cited work retracted? Every source asked, each reported as answered, failed or not
asked, and a status that never claims more than the answers allow.

Why every source: none is complete. PMC marks retractions only for open-access articles;
PubMed only for indexed journals; Crossref only what publishers or Retraction Watch deposited;
the Retraction Watch dataset only up to its snapshot's date. A "not retracted" is therefore
only as good as the set of sources that actually answered, and the report says which.

Status rules (:func:`decide`, pure):

1. ``RETRACTED`` when any source found a retraction (retraction, withdrawal, removal, partial
   retraction) in an answer it gave. A source whose second request failed (Crossref asks two
   things) is ``failed``, but a retraction found in the request that did answer still counts:
   a finding is a finding.
2. else ``CONCERN`` when any source found an expression of concern;
3. else ``NOT_RETRACTED_AS_OF`` today, only when every source either answered or was not
   asked because it *does not apply* to this work (``applicable: false``: PMC for a work with
   no PMCID, PubMed with no PMID, Crossref with no DOI — after the identifiers were resolved);
4. else ``UNVERIFIABLE``, and ``reason`` names each source that failed or could not be asked
   and why. Not asked because ``--offline``, or because no Retraction Watch snapshot was
   imported, is *not* "does not apply": the source would have had something to say.

This module does the asking (concurrently, with ``asyncio.gather``) and the deciding; the
per-source parsing lives in ``citeproof.sources``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal

import httpx2
from pydantic import BaseModel, ConfigDict, Field

from citeproof.errors import BadInputError, CiteproofError
from citeproof.identifiers import Identifier, find_identifiers, parse_identifier
from citeproof.sources import crossref, europepmc, idconv, pmc, pubmed, retractionwatch

__all__ = [
    "SCHEMA",
    "Notice",
    "Resolved",
    "RetractionReport",
    "SourceReport",
    "decide",
    "retraction_report",
    "retraction_status",
]

SCHEMA = "citeproof.retraction/1"
Status = Literal["RETRACTED", "CONCERN", "NOT_RETRACTED_AS_OF", "UNVERIFIABLE"]
SourceName = Literal["pmc", "crossref", "pubmed", "europepmc", "retractionwatch"]
State = Literal["answered", "failed", "not_asked"]
SOURCES: tuple[SourceName, ...] = ("pmc", "crossref", "pubmed", "europepmc", "retractionwatch")


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Notice(_Model):
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


class SourceReport(_Model):
    """What one source said, or why it said nothing."""

    source: SourceName
    state: State
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
    snapshot_date: date | None = Field(default=None, description="retractionwatch only")


class Resolved(_Model):
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None


class RetractionReport(_Model):
    """The retraction status of one work (schema ``citeproof.retraction/1``)."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, serialize_by_alias=True
    )

    schema_: Literal["citeproof.retraction/1"] = Field(
        default="citeproof.retraction/1", alias="schema"
    )
    identifier: str
    resolved: Resolved
    status: Status
    as_of: date | None = Field(default=None, description="set for NOT_RETRACTED_AS_OF")
    reason: str | None = None
    sources: list[SourceReport]


def _names(reports: Sequence[SourceReport]) -> str:
    return ", ".join(r.source for r in reports)


def decide(sources: Sequence[SourceReport], today: date) -> tuple[Status, date | None, str | None]:
    """(status, as_of, reason) from the per-source reports; see the module docstring."""
    retracted = [s for s in sources if s.retracted is True]
    if retracted:
        return "RETRACTED", None, f"retracted according to {_names(retracted)}."
    concern = [s for s in sources if s.concern is True]
    if concern:
        return "CONCERN", None, f"an expression of concern according to {_names(concern)}."
    missing = [
        s for s in sources if s.state == "failed" or (s.state == "not_asked" and s.applicable)
    ]
    if missing or not sources:
        parts = [
            f"{s.source} {'failed' if s.state == 'failed' else 'was not asked'}"
            + (f" ({s.reason.rstrip('.')})" if s.reason else "")
            for s in missing
        ]
        answered = [s for s in sources if s.state == "answered"]
        said = (
            f"; answered without a retraction or concern: {_names(answered)}"
            if answered
            else "; no source answered"
        )
        return "UNVERIFIABLE", None, "not verified: " + "; ".join(parts or ["no source"]) + said
    notices = [s for s in sources if s.is_notice]
    reason = "no source that answered reports a retraction or an expression of concern."
    if notices:
        reason += f" The work is itself a notice according to {_names(notices)}."
    return "NOT_RETRACTED_AS_OF", today, reason


# --- identifiers ----------------------------------------------------------------------------


class _Ids:
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
        for name, value in (known or {}).items():
            if name in ("doi", "pmid", "pmcid") and value and getattr(self, name) is None:
                setattr(self, name, value.lower() if name == "doi" else value)

    def fill(self, doi: str | None, pmid: str | None, pmcid: str | None) -> None:
        self.doi = self.doi or (doi.lower() if doi else None)
        self.pmid = self.pmid or pmid
        self.pmcid = self.pmcid or (pmcid.upper() if pmcid else None)

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


def _failed(source: SourceName, err: Exception) -> SourceReport:
    return SourceReport(source=source, state="failed", reason=str(err) or type(err).__name__)


_FAILURES = (CiteproofError, httpx2.TransportError)
_Epmc = europepmc.EpmcRecord | None | Exception


async def _europepmc_lookup(client: httpx2.AsyncClient, ids: _Ids) -> _Epmc:
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
    except _FAILURES as err:
        return err


async def _done(value: _Epmc) -> _Epmc:
    return value


async def _resolve(
    client: httpx2.AsyncClient, ids: _Ids, *, skip_idconv: bool
) -> tuple[bool, _Epmc]:
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
        except _FAILURES as err:
            failures.append(f"the PMC ID converter failed: {err}")
    if ids.doi and ids.pmid:
        return False, None
    found = await _europepmc_lookup(client, ids)
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


async def _pmc(client: httpx2.AsyncClient, ids: _Ids) -> SourceReport:
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
    except _FAILURES as err:
        return _failed("pmc", err)
    if meta is None:
        return SourceReport(
            source="pmc",
            state="failed",
            reason=f"the bucket lists {ids.pmcid}.{versions[-1]} but has no metadata for it",
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


async def _crossref(client: httpx2.AsyncClient, ids: _Ids) -> SourceReport:
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
        if isinstance(answer, _FAILURES):
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


async def _pubmed(client: httpx2.AsyncClient, ids: _Ids) -> SourceReport:
    if not ids.pmid:
        return ids.absent("pubmed", "PMID")
    try:
        records = await pubmed.efetch_records(client, [ids.pmid])
    except _FAILURES as err:
        return _failed("pubmed", err)
    record = next((r for r in records if r.pmid == ids.pmid), None)
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


def _europepmc(found: _Epmc, ids: _Ids) -> SourceReport:
    if isinstance(found, Exception):
        return _failed("europepmc", found)
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


def _retractionwatch(db: Path | None, ids: _Ids) -> SourceReport:
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


def _kind(identifier: Identifier | str) -> Identifier:
    parsed = parse_identifier(identifier) if isinstance(identifier, str) else identifier
    if parsed.kind not in ("doi", "pmid", "pmcid"):
        raise BadInputError(
            f"{parsed.raw or parsed.key} is not a DOI, PMID or PMCID; retraction status is "
            "known only for those (e.g. 10.1371/journal.pone.0340378, PMID 9500320, PMC12829825)."
        )
    return parsed


async def retraction_status(
    identifier: Identifier | str,
    client: httpx2.AsyncClient | None,
    *,
    rw_db: Path | None,
    today: date,
    known: Mapping[str, str] | None = None,
) -> RetractionReport:
    """Ask every source about ``identifier`` (a DOI, PMID or PMCID) and decide its status.

    ``client`` ``None`` means offline: no network source is asked (each is ``not_asked``,
    "offline"), only the local Retraction Watch snapshot ``rw_db``. ``known`` holds ids a
    check already resolved (``{"doi": ..., "pmid": ..., "pmcid": ...}``); it is then taken
    as the complete resolution (an id absent from it is taken not to exist) and the ID
    converter is not asked. Raises only :class:`BadInputError` for an identifier that is not
    a DOI, PMID or PMCID; every source failure is reported in the report.
    """
    work = _kind(identifier)
    ids = _Ids(work, known)
    reports: dict[str, SourceReport] = {}
    if client is None:
        for name in ("pmc", "crossref", "pubmed", "europepmc"):
            reports[name] = SourceReport(
                source=name, state="not_asked", reason="offline: no request was made"
            )
    else:
        asked, epmc = await _resolve(client, ids, skip_idconv=known is not None)
        found = await asyncio.gather(
            _pmc(client, ids),
            _crossref(client, ids),
            _pubmed(client, ids),
            _done(epmc) if asked else _europepmc_lookup(client, ids),
        )
        for report in found[:3]:
            reports[report.source] = report
        reports["europepmc"] = _europepmc(found[3], ids)
    reports["retractionwatch"] = _retractionwatch(rw_db, ids)
    ordered = [reports[name] for name in SOURCES]
    status, as_of, reason = decide(ordered, today)
    return RetractionReport(
        identifier=work.key,
        resolved=Resolved(doi=ids.doi, pmid=ids.pmid, pmcid=ids.pmcid),
        status=status,
        as_of=as_of,
        reason=reason,
        sources=ordered,
    )


def retraction_report(
    identifier: Identifier | str,
    *,
    offline: bool = False,
    replay_dir: Path | None = None,
    rw_db: Path | None = None,
    today: date | None = None,
    known: Mapping[str, str] | None = None,
) -> RetractionReport:
    """The synchronous entry point the CLI (and ``check``) use.

    Opens the client as every command does (:mod:`citeproof.net.session`): ``replay_dir``
    (default ``CITEPROOF_REPLAY``) answers every request from recordings, and a request with
    no recording is reported as a failed source; ``citeproof record`` records. ``rw_db``
    defaults to the imported snapshot in the data directory; ``today`` to the UTC date.
    """
    from citeproof.net.session import mode_from, open_session
    from citeproof.sources.retractionwatch import default_db_path

    work = _kind(identifier)
    day = today if today is not None else datetime.now(UTC).date()
    db = rw_db if rw_db is not None else default_db_path()
    if offline:
        return asyncio.run(retraction_status(work, None, rw_db=db, today=day, known=known))
    mode = mode_from(replay_dir)

    async def run() -> RetractionReport:
        async with open_session(mode) as session:
            return await retraction_status(work, session.client, rw_db=db, today=day, known=known)

    return asyncio.run(run())
