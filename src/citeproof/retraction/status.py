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
from typing import Any, Final, Protocol

import httpx2

from citeproof.errors import BadInputError, CiteproofError
from citeproof.identifiers import Identifier, parse_identifier
from citeproof.models import (
    RETRACTION_SCHEMA,
    Notice,
    Resolved,
    RetractionReport,
    RetractionSource,
    RetractionStatus,
    SourceReport,
    SourceState,
)
from citeproof.net.session import mode_from, open_session
from citeproof.retraction.answers import (
    Ids,
    already,
    crossref_report,
    europepmc_lookup,
    europepmc_report,
    pmc_report,
    pubmed_report,
    resolve_ids,
    retractionwatch_report,
)
from citeproof.sources.retractionwatch import default_db_path

__all__ = [
    "RETRACTION_KINDS",
    "SCHEMA",
    "Notice",
    "Resolved",
    "RetractionReport",
    "SourceReport",
    "decide",
    "retraction_report",
    "retraction_status",
]

SCHEMA = RETRACTION_SCHEMA
Status = RetractionStatus
SourceName = RetractionSource
State = SourceState
SOURCES: tuple[SourceName, ...] = ("pmc", "crossref", "pubmed", "europepmc", "retractionwatch")
#: Identifier kinds whose retraction status can be asked (the others name no indexed work).
RETRACTION_KINDS: Final = frozenset({"doi", "pmid", "pmcid"})


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


class IndexNotices(Protocol):
    """A local index's notices about a work (``citeproof.index.query.LocalIndex``)."""

    def notices(self, key: str) -> Sequence[Any]: ...


#: Notice kinds of a local index (Crossref's update types, PubMed's comment types, Retraction
#: Watch's natures) that retract or raise a concern.
_INDEX_RETRACTED = frozenset({"retracted"})
_INDEX_CONCERN = frozenset({"concern"})


def index_report(index: IndexNotices, ids: Ids) -> SourceReport:
    """What a local index's dumps say of the work: its notices, as of the newest dump that
    stated them; a failure to read the index is ``failed``, never "not retracted"."""
    keys = [
        f"{k}:{v}" for k, v in (("doi", ids.doi), ("pmid", ids.pmid), ("pmcid", ids.pmcid)) if v
    ]
    if not keys:
        return SourceReport(
            source="index",
            state="not_asked",
            applicable=False,
            reason="no DOI, PMID or PMCID to look up",
        )
    found: list[Any] = []
    try:
        for key in keys:
            found.extend(index.notices(key))
    except CiteproofError as err:
        return SourceReport(source="index", state="failed", reason=str(err))
    notices: list[Notice] = []
    corrections: list[Notice] = []
    seen: set[tuple[Any, ...]] = set()
    as_of: date | None = None
    for n in found:
        same = (n.kind, n.notice, n.source)
        if same in seen:
            continue
        seen.add(same)
        kind, _, value = (n.notice or "").partition(":")
        notice = Notice(
            kind=n.kind,
            doi=value if kind == "doi" else None,
            pmid=value if kind == "pmid" else None,
            date=n.date,
            source=f"index ({n.source})",
        )
        (notices if n.category in _INDEX_RETRACTED | _INDEX_CONCERN else corrections).append(notice)
        if n.as_of:
            stamp = date.fromisoformat(str(n.as_of)[:10])
            as_of = stamp if as_of is None or stamp > as_of else as_of
    categories = {n.category for n in found}
    return SourceReport(
        source="index",
        state="answered",
        retracted=bool(categories & _INDEX_RETRACTED),
        concern=bool(categories & _INDEX_CONCERN),
        notices=notices,
        corrections=corrections,
        snapshot_date=as_of,
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
    index: IndexNotices | None = None,
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
    if client is None:
        return offline_retraction_status(work, rw_db=rw_db, today=today, known=known, index=index)
    ids = Ids(work, known)
    reports: dict[str, SourceReport] = {}
    asked, epmc = await resolve_ids(client, ids, skip_idconv=known is not None)
    found = await asyncio.gather(
        pmc_report(client, ids),
        crossref_report(client, ids),
        pubmed_report(client, ids),
        already(epmc) if asked else europepmc_lookup(client, ids),
    )
    for report in found[:3]:
        reports[report.source] = report
    reports["europepmc"] = europepmc_report(found[3], ids)
    return _decided(work, ids, reports, rw_db, today, index)


def offline_retraction_status(
    identifier: Identifier | str,
    *,
    rw_db: Path | None,
    today: date,
    known: Mapping[str, str] | None = None,
    index: IndexNotices | None = None,
) -> RetractionReport:
    """The offline report: no network source is asked, only the Retraction Watch snapshot
    (and a local index, when one is given).

    Synchronous, because nothing in it waits: a server answering many checks should not
    start an event loop per check only to consult a local SQLite file.
    """
    work = _kind(identifier)
    ids = Ids(work, known)
    reports = {
        name: SourceReport(source=name, state="not_asked", reason="offline: no request was made")
        for name in ("pmc", "crossref", "pubmed", "europepmc")
    }
    return _decided(work, ids, reports, rw_db, today, index)


def _decided(
    work: Identifier,
    ids: Ids,
    reports: dict[str, SourceReport],
    rw_db: Path | None,
    today: date,
    index: IndexNotices | None = None,
) -> RetractionReport:
    reports["retractionwatch"] = retractionwatch_report(rw_db, ids)
    ordered = [reports[name] for name in SOURCES]
    if index is not None:  # one more source, with the date of the dumps it read
        ordered.append(index_report(index, ids))
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
    index: IndexNotices | None = None,
) -> RetractionReport:
    """The synchronous entry point the CLI (and ``check``, and the audit) use.

    Opens the client as every command does (:mod:`citeproof.net.session`): ``replay_dir``
    (default ``CITEPROOF_REPLAY``) answers every request from recordings, and a request with
    no recording is reported as a failed source; ``citeproof record`` records. ``rw_db``
    defaults to the imported snapshot in the data directory; ``today`` to the UTC date.
    ``index``, an opened local index, is one more source (offline, the one besides the
    snapshot).
    """
    work = _kind(identifier)
    day = today if today is not None else datetime.now(UTC).date()
    db = rw_db if rw_db is not None else default_db_path()
    if offline:
        return offline_retraction_status(work, rw_db=db, today=day, known=known, index=index)
    mode = mode_from(replay_dir)

    async def run() -> RetractionReport:
        async with open_session(mode) as session:
            return await retraction_status(
                work, session.client, rw_db=db, today=day, known=known, index=index
            )

    return asyncio.run(run())
