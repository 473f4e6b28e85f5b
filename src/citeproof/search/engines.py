"""Each search engine's request plan (the parameters it sends, how its page becomes items),
and running a plan into a record.

Why apart from :mod:`citeproof.search.queries`: that module owns the public side (the record, input
checks, the entry points); this one owns what differs between engines, so adding an engine
touches one plan here and one line in :data:`PLANS`.

A plan is built before any request, so every parameter an engine cannot use (a cursor it
does not page by, a date filter it lacks) is refused as bad input while nothing has been
sent; the plan's ``params`` are the parameters as sent, which the record keeps.  Most
engines read one page with one source call (:func:`_paged`); PubMed needs two steps
(esearch, then esummary for titles) and ``citing`` may first look the work up.

The response hashes are captured by :mod:`citeproof.net.digests` (a hook on the injected
client, active only while :func:`execute` runs a plan), which reference verification shares.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, Literal, TypeVar

import httpx2

from citeproof.errors import NetworkError, SearchCursorError, SearchDateError, SearchInputError
from citeproof.identifiers import parse_identifier
from citeproof.models.search import SearchItem, SearchRecord
from citeproof.net import digests
from citeproof.search.params import DateBound
from citeproof.sources import ctgov, europepmc, eutils_search, litsense, openalex, openfda

__all__ = ["PLANS", "Outcome", "Plan", "check_token", "citing_plan", "execute"]

P = TypeVar("P")
Client = httpx2.AsyncClient


@dataclass(frozen=True, slots=True)
class Outcome:
    items: list[SearchItem]
    hit_count: int | None
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class Plan:
    """One engine's request, ready to run.

    ``before`` runs first and returns why the search cannot go on, or ``None``; when it does
    not get through, the record names ``lookup_endpoint`` with no parameters instead, since
    the main request was never sent.
    """

    engine: str
    endpoint: str
    params: dict[str, str]
    run: Callable[[Client], Awaitable[Outcome]]
    before: Callable[[Client], Awaitable[str | None]] | None = None
    lookup_endpoint: str | None = None


def _paged(
    engine: str,
    endpoint: str,
    params: dict[str, str],
    fetch: Callable[[Client, dict[str, str]], Awaitable[P]],
    read: Callable[[P], Outcome],
) -> Plan:
    """The plan of an engine answered by one source call: ``read(await fetch(params))``."""

    async def run(client: Client) -> Outcome:
        return read(await fetch(client, params))

    return Plan(engine, endpoint, params, run)


def check_token(cursor: str | None) -> None:
    """An engine that pages by an opaque token cannot use an empty one."""
    if cursor is not None and not cursor.strip():
        raise SearchCursorError(
            "--cursor is empty; give the next_cursor a previous search printed."
        )


def _offset(cursor: str | None, engine: str, top: int) -> int:
    if cursor is None:
        return 0
    if not cursor.strip().isdigit() or int(cursor) > top:
        raise SearchCursorError(
            f"--cursor {cursor!r} is not a {engine} cursor: it is a result offset from 0 to "
            f"{top}, as the previous search printed it in next_cursor."
        )
    return int(cursor)


def _day(
    bound: DateBound | None,
    end: Literal["first", "last"],
    fmt: str | None = None,
) -> str | None:
    """The first or last day a ``--since``/``--until`` bound covers, as an engine writes it
    (ISO ``YYYY-MM-DD`` unless ``fmt`` is given)."""
    if bound is None:
        return None
    day = bound.first if end == "first" else bound.last
    return day.isoformat() if fmt is None else day.strftime(fmt)


def _year(text: str | None) -> int | None:
    match = re.match(r"([12][0-9]{3})", text or "")
    return int(match.group(1)) if match else None


Window = DateBound | None


def _epmc_plan(query: str, limit: int, cursor: str | None, low: Window, high: Window) -> Plan:
    q = europepmc.date_query(query, _day(low, "first"), _day(high, "last"))
    check_token(cursor)
    params: dict[str, str] = {
        "query": q,
        "resultType": "lite",
        "format": "json",
        "pageSize": str(limit),
    }
    if cursor is not None:
        params["cursorMark"] = cursor

    async def fetch(client: Client, _: dict[str, str]) -> europepmc.SearchPage:
        return await europepmc.search(client, q, page_size=limit, cursor=cursor, result_type="lite")

    def read(page: europepmc.SearchPage) -> Outcome:
        items = []
        for r in page.results:
            prefix = {"MED": "pmid", "PMC": "pmcid", "PPR": "ppr"}.get(r.source.upper())
            items.append(
                SearchItem(
                    id=f"{prefix}:{r.id}" if prefix else f"{r.source.lower()}:{r.id}",
                    title=r.title,
                    year=_year(r.pub_year),
                    doi=r.doi,
                    pmid=r.pmid,
                    pmcid=r.pmcid,
                    source=r.source,
                )
            )
        return Outcome(items, page.hit_count, page.next_cursor)

    return _paged("europepmc", europepmc.BASE_URL + "search", params, fetch, read)


def _pubmed_plan(query: str, limit: int, cursor: str | None, low: Window, high: Window) -> Plan:
    start = _offset(cursor, "pubmed", 9_999)
    params = eutils_search.esearch_params(
        query,
        retmax=limit,
        retstart=start,
        mindate=low.eutils if low else None,
        maxdate=high.eutils if high else None,
    )

    async def run(client: Client) -> Outcome:
        page = await eutils_search.esearch(client, params)
        summaries = await eutils_search.esummary(client, page.ids) if page.ids else {}
        items = []
        for pmid in page.ids:
            s = summaries.get(pmid)
            items.append(
                SearchItem(
                    id=f"pmid:{pmid}",
                    pmid=pmid,
                    title=s.title if s else None,
                    year=s.year if s else None,
                    doi=s.doi if s else None,
                    pmcid=s.pmcid if s else None,
                )
            )
        end = start + len(page.ids)
        more = page.ids and end < min(page.count, 10_000)
        return Outcome(items, page.count, str(end) if more else None)

    return Plan("pubmed", eutils_search.ESEARCH_URL, params, run)


def _litsense_plan(query: str, limit: int, cursor: str | None, low: Window, high: Window) -> Plan:
    if cursor is not None:
        raise SearchCursorError(
            "LitSense has no paging (it answers at most 100 sentences); drop --cursor."
        )
    if low is not None or high is not None:
        raise SearchDateError("LitSense cannot filter by date; drop --since and --until.")
    params = litsense.sentences_params(query)

    async def fetch(client: Client, _: dict[str, str]) -> list[litsense.Sentence]:
        return await litsense.sentences(client, query, limit=limit)

    def read(found: list[litsense.Sentence]) -> Outcome:
        items = [
            SearchItem(
                id=f"pmcid:{s.pmcid}" if s.pmcid else f"pmid:{s.pmid}",
                pmid=s.pmid,
                pmcid=s.pmcid,
                section=s.section,
                text=s.text,
                score=s.score,
            )
            for s in found
            if s.pmcid or s.pmid
        ]
        return Outcome(items, None, None)

    return _paged("litsense", litsense.SENTENCES_URL, params, fetch, read)


def _openalex_read(page: openalex.WorksPage) -> Outcome:
    items = [
        SearchItem(
            id=f"openalex:{w.id}", title=w.title, year=w.year, doi=w.doi, pmid=w.pmid, pmcid=w.pmcid
        )
        for w in page.results
    ]
    return Outcome(items, page.count, page.next_cursor)


_WORKS_URL = openalex.BASE_URL + "works"


def _ctgov_read(page: ctgov.StudiesPage) -> Outcome:
    items = [
        SearchItem(
            id=f"nct:{s.nct}", title=s.title, year=_year(s.first_posted), version=s.last_updated
        )
        for s in page.studies
    ]
    return Outcome(items, page.total, page.next_page_token)


#: A source's query builder: ``(query, limit, cursor, since, until) -> params`` (ISO dates).
ParamsFor = Callable[[str, int, str | None, str | None, str | None], dict[str, str]]
PlanFor = Callable[[str, int, str | None, Window, Window], Plan]


def _token_paged(
    engine: str,
    endpoint: str,
    params_for: ParamsFor,
    fetch: Callable[[Client, dict[str, str]], Awaitable[P]],
    read: Callable[[P], Outcome],
) -> PlanFor:
    """The plan builder of an engine that pages by an opaque token and filters by ISO dates:
    such engines differ only in their parameter names, which ``params_for`` maps."""

    def plan(query: str, limit: int, cursor: str | None, low: Window, high: Window) -> Plan:
        check_token(cursor)
        params = params_for(query, limit, cursor, _day(low, "first"), _day(high, "last"))
        return _paged(engine, endpoint, params, fetch, read)

    return plan


_openalex_plan = _token_paged(
    "openalex",
    _WORKS_URL,
    lambda query, limit, cursor, since, until: openalex.works_params(
        search=query, per_page=limit, cursor=cursor, from_date=since, to_date=until
    ),
    openalex.works,
    _openalex_read,
)
_ctgov_plan = _token_paged(
    "clinicaltrials",
    ctgov.SEARCH_URL,
    lambda query, limit, cursor, since, until: ctgov.studies_params(
        term=query, page_size=limit, page_token=cursor, since=since, until=until
    ),
    ctgov.search_studies,
    _ctgov_read,
)


def _openfda_plan(query: str, limit: int, cursor: str | None, low: Window, high: Window) -> Plan:
    skip = _offset(cursor, "openfda", openfda.MAX_SKIP)
    # A bare name is a drug; anything with a field (``a:b``) is openFDA search syntax.
    search = query if ":" in query else openfda.drug_query(query)
    params = openfda.labels_params(
        search,
        limit=limit,
        skip=skip,
        since=_day(low, "first", "%Y%m%d"),
        until=_day(high, "last", "%Y%m%d"),
    )

    def read(page: openfda.LabelsPage) -> Outcome:
        items = [
            SearchItem(
                id=f"setid:{label.set_id}",
                title=label.title,
                year=_year(label.effective_time),
                version=label.version,
            )
            for label in page.labels
        ]
        end = skip + len(page.labels)
        more = page.labels and end < page.total and end <= openfda.MAX_SKIP
        return Outcome(items, page.total, str(end) if more else None)

    return _paged("openfda", openfda.LABEL_URL, params, openfda.search_labels, read)


#: Each engine's plan builder: ``(query, limit, cursor, since, until) -> Plan``.
PLANS: dict[str, PlanFor] = {
    "europepmc": _epmc_plan,
    "pubmed": _pubmed_plan,
    "litsense": _litsense_plan,
    "openalex": _openalex_plan,
    "clinicaltrials": _ctgov_plan,
    "openfda": _openfda_plan,
}


def citing_plan(identifier: str, limit: int, cursor: str | None) -> Plan:
    """The OpenAlex ``cites:`` search for ``identifier`` (DOI, PMID, PMCID or ``W…``).

    A DOI/PMID/PMCID is first looked up as ``works/doi:…`` (``before``); the filter is
    filled in once that lookup answers, so the plan's ``params`` end as sent.
    """
    check_token(cursor)
    wid = openalex.work_id(identifier)
    params = openalex.works_params(cites=wid or "W0", per_page=limit, cursor=cursor)
    plan = _paged("openalex", _WORKS_URL, params, openalex.works, _openalex_read)
    if wid is not None:
        return plan
    parsed = parse_identifier(identifier)
    if parsed.kind not in ("doi", "pmid", "pmcid"):
        raise SearchInputError(
            f"{identifier!r} is a {parsed.kind}; citing needs a DOI, PMID, PMCID or "
            "OpenAlex work id (W123...)."
        )
    kind: Literal["doi", "pmid", "pmcid"] = parsed.kind
    value = parsed.value

    async def before(client: Client) -> str | None:
        work = await openalex.resolve_work(client, kind, value)
        if work is None:
            return f"OpenAlex has no work for {kind}:{value}; nothing cites it there."
        params["filter"] = f"cites:{work.id}"
        return None

    return replace(plan, before=before, lookup_endpoint=f"{_WORKS_URL}/{kind}:{value}")


# --------------------------------------------------------------------------------------------
# Running a plan


def _now_text(now: Callable[[], datetime] | None) -> str:
    return (now or (lambda: datetime.now(UTC)))().astimezone(UTC).isoformat()


async def execute(
    plan: Plan, query: str, client: httpx2.AsyncClient, now: Callable[[], datetime] | None
) -> SearchRecord:
    """Run ``plan`` and record it: every response read, the items, or why it failed."""
    digests.install(client)
    reason: str | None = None
    outcome: Outcome | None = None
    looked_up = plan.before is None
    with digests.collecting() as collected:
        try:
            if plan.before is not None:
                reason = await plan.before(client)
                looked_up = reason is None
            if reason is None:
                outcome = await plan.run(client)
        except NetworkError as err:
            reason = str(err)
        except httpx2.TransportError as err:  # a client not built by make_client
            reason = (
                f"{plan.engine} could not be reached ({type(err).__name__}); nothing was concluded."
            )
    endpoint, params = plan.endpoint, plan.params
    if not looked_up and plan.lookup_endpoint is not None:
        # The main request was never sent; record the lookup as the parameters.
        endpoint, params = plan.lookup_endpoint, {}
    base: dict[str, Any] = {
        "engine": plan.engine,
        "endpoint": endpoint,
        "query": query,
        "params": params,
        "responses": collected,
        "retrieved_at": _now_text(now),
    }
    if outcome is None:
        return SearchRecord(status="failed", reason=reason, **base)
    status: Literal["ok", "empty"] = "ok" if outcome.items else "empty"
    return SearchRecord(
        status=status,
        reason=None if outcome.items else f"{plan.engine} found nothing for this query.",
        hit_count=outcome.hit_count,
        items=outcome.items,
        next_cursor=outcome.next_cursor,
        **base,
    )
