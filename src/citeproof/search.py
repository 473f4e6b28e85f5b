"""Recorded literature searches: one query to one engine, and exactly what it read.

A search is evidence like a check: "nothing in PubMed matched" is only worth something if
one can say which query, with which parameters, answered what, when.  So every search,
failed and empty ones included, ends as a :class:`SearchRecord` holding the engine, the
endpoint, the query and the parameters as sent (never the contact address or API key: those
are added below the client, see ``citeproof.net.client``), the status, the sha256 of every
HTTP response the search read, the engine's hit count and one id per item.
:meth:`SearchRecord.log_payload` is what the evidence log stores.

How the response hashes are captured: a ``response`` event hook on the injected client,
active only inside a :data:`contextvars.ContextVar` set by :func:`run_search`.  Why a hook and
not a wrapping transport: the client is injected fully built (retries, rate limit, contact
parameters), and rebuilding it around a new transport would either drop those layers or
duplicate them; a hook sees each final response after retries, exactly the bytes the source
parsed, without any source knowing.  Why a context variable: every asyncio task copies the
context, so concurrent searches on one shared client each collect their own responses, and
requests made outside a search (a check on the same client) are not collected.  The hook is
added once per client and does nothing outside a search.

Failures: a network failure never raises out of :func:`run_search`; it becomes a record with
status ``failed`` and the reason.  Bad input (an unknown engine, a limit out of range, a
date that is not a date, a cursor an engine cannot use) raises a :class:`SearchInputError`
(exit 2) before any request is made.

Offline: a search cannot be answered from the cache, so :func:`search_sync` with
``offline=True`` raises :class:`SearchOfflineError` (exit 3) without making a record: no
search was made, so there is nothing to record.
"""

from __future__ import annotations

import asyncio
import calendar
import contextvars
import hashlib
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import parse_qsl

import httpx2
from pydantic import BaseModel, ConfigDict, Field

from citeproof.errors import BadInputError, CiteproofError
from citeproof.net.client import redact_url
from citeproof.net.errors import NetworkError

__all__ = [
    "ENGINES",
    "SEARCH_SCHEMA",
    "Engine",
    "ResponseDigest",
    "SearchCursorError",
    "SearchDateError",
    "SearchInputError",
    "SearchItem",
    "SearchLimitError",
    "SearchOfflineError",
    "SearchRecord",
    "UnknownEngineError",
    "citing",
    "citing_sync",
    "max_limit",
    "run_search",
    "search_sync",
]

SEARCH_SCHEMA = "citeproof.search/1"
Engine = Literal["europepmc", "pubmed", "litsense", "openalex", "clinicaltrials", "openfda"]
ENGINES: tuple[str, ...] = get_args(Engine)
MAX_QUERY_CHARS = 2000
DEFAULT_LIMIT = 25

#: Most items one search may ask each engine for (the engine's own page limit).
_MAX_LIMIT: dict[str, int] = {
    "europepmc": 1000,
    "pubmed": 10_000,
    "litsense": 100,
    "openalex": 200,
    "clinicaltrials": 1000,
    "openfda": 1000,
}

# --------------------------------------------------------------------------------------------
# Errors


class SearchInputError(BadInputError):
    """A search was asked with something it cannot use; nothing was sent."""


class UnknownEngineError(SearchInputError):
    pass


class SearchLimitError(SearchInputError):
    pass


class SearchDateError(SearchInputError):
    pass


class SearchCursorError(SearchInputError):
    pass


class SearchOfflineError(CiteproofError):
    """``--offline`` forbids the network, and a search has no cached answer."""

    exit_code = 3


# --------------------------------------------------------------------------------------------
# The record


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ResponseDigest(_Model):
    """One HTTP response the search read: the URL without contact parameters, and its hash."""

    method: str = "GET"
    url: str
    status: int
    sha256: str


class SearchItem(_Model):
    """One hit.  ``id`` is a citeproof identifier key (``pmid:…``, ``pmcid:…``, ``doi:…``,
    ``nct:…``, ``setid:…``, ``ppr:…``) or ``openalex:W…``."""

    id: str
    title: str | None = None
    year: int | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    source: str | None = None
    version: str | None = None
    section: str | None = None
    text: str | None = None
    score: float | None = None


class SearchRecord(_Model):
    """A search and what it read (schema ``citeproof.search/1``)."""

    schema_: Literal["citeproof.search/1"] = Field(default="citeproof.search/1", alias="schema")
    engine: str
    endpoint: str
    query: str
    params: dict[str, str] = Field(default_factory=dict)
    status: Literal["ok", "empty", "failed"]
    reason: str | None = None
    responses: list[ResponseDigest] = Field(default_factory=list)
    hit_count: int | None = None
    items: list[SearchItem] = Field(default_factory=list)
    next_cursor: str | None = None
    retrieved_at: str

    model_config = ConfigDict(
        frozen=True, extra="forbid", populate_by_name=True, serialize_by_alias=True
    )

    def log_payload(self) -> dict[str, Any]:
        """What the evidence log records for this search, and nothing more.

        Engine, endpoint, query, parameters as sent, status (and why, when it failed or was
        empty), the sha256 of each response read, the hit count and one id per item.
        """
        return {
            "schema": SEARCH_SCHEMA,
            "engine": self.engine,
            "endpoint": self.endpoint,
            "query": self.query,
            "params": dict(self.params),
            "status": self.status,
            "reason": self.reason,
            "responses": [r.sha256 for r in self.responses],
            "hit_count": self.hit_count,
            "ids": [item.id for item in self.items],
        }


# --------------------------------------------------------------------------------------------
# Response capture

_COLLECTING: contextvars.ContextVar[list[ResponseDigest] | None] = contextvars.ContextVar(
    "citeproof_search_responses", default=None
)


async def _collect_response(response: httpx2.Response) -> None:
    collected = _COLLECTING.get()
    if collected is None:
        return
    await response.aread()
    collected.append(
        ResponseDigest(
            method=response.request.method,
            url=redact_url(response.request.url),
            status=response.status_code,
            sha256=hashlib.sha256(response.content).hexdigest(),
        )
    )


def _install_hook(client: httpx2.AsyncClient) -> None:
    hooks = client.event_hooks
    response_hooks = list(hooks.get("response", []))
    if _collect_response not in response_hooks:
        client.event_hooks = {**hooks, "response": [*response_hooks, _collect_response]}


# --------------------------------------------------------------------------------------------
# Input validation (pure)

_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?", re.ASCII)


@dataclass(frozen=True, slots=True)
class DateBound:
    """A ``--since``/``--until`` value: as given, and the first and last day it covers."""

    text: str
    first: date
    last: date

    @property
    def eutils(self) -> str:
        """``2015``, ``2015/06`` or ``2015/06/30``: E-utilities keep the given precision."""
        return self.text.replace("-", "/")


def parse_date(value: str, option: str) -> DateBound:
    """``YYYY``, ``YYYY-MM`` or ``YYYY-MM-DD`` as a :class:`DateBound`."""
    text = value.strip()
    match = _DATE.fullmatch(text)
    problem = None
    if match is None:
        problem = "is not a date"
    else:
        year = int(match.group(1))
        month = int(match.group(2)) if match.group(2) else None
        day = int(match.group(3)) if match.group(3) else None
        try:
            if month is None:
                return DateBound(text, date(year, 1, 1), date(year, 12, 31))
            if day is None:
                last = calendar.monthrange(year, month)[1]
                return DateBound(text, date(year, month, 1), date(year, month, last))
            day_value = date(year, month, day)
            return DateBound(text, day_value, day_value)
        except (ValueError, calendar.IllegalMonthError):
            problem = "is not a real date"
    raise SearchDateError(
        f"{option} {value!r} {problem}; give YYYY, YYYY-MM or YYYY-MM-DD (e.g. 2015-06-30)."
    )


def _window(since: str | None, until: str | None) -> tuple[DateBound | None, DateBound | None]:
    low = parse_date(since, "--since") if since is not None else None
    high = parse_date(until, "--until") if until is not None else None
    if low is not None and high is not None and low.first > high.last:
        raise SearchDateError(
            f"--since {since} is after --until {until}; swap them or widen the range."
        )
    return low, high


def max_limit(engine: str) -> int:
    return _MAX_LIMIT[_engine(engine)]


def _engine(engine: str) -> str:
    name = engine.strip().lower()
    if name not in _MAX_LIMIT:
        raise UnknownEngineError(
            f"{engine!r} is not a search engine citeproof knows; use one of {', '.join(ENGINES)}."
        )
    return name


def _check_limit(engine: str, limit: int) -> None:
    top = _MAX_LIMIT[engine]
    if not 1 <= limit <= top:
        raise SearchLimitError(f"--limit {limit} is out of range for {engine}; give 1 to {top}.")


def _check_query(query: str) -> str:
    if not query.strip():
        raise SearchInputError("the search query is empty; give the words to search for.")
    if len(query) > MAX_QUERY_CHARS:
        raise SearchInputError(
            f"the search query has {len(query)} characters, more than {MAX_QUERY_CHARS}; "
            "shorten it."
        )
    return query


def _offset(cursor: str | None, engine: str, top: int) -> int:
    if cursor is None:
        return 0
    if not cursor.strip().isdigit() or int(cursor) > top:
        raise SearchCursorError(
            f"--cursor {cursor!r} is not a {engine} cursor: it is a result offset from 0 to "
            f"{top}, as the previous search printed it in next_cursor."
        )
    return int(cursor)


# --------------------------------------------------------------------------------------------
# One engine's request, answer and items


@dataclass(frozen=True, slots=True)
class _Outcome:
    items: list[SearchItem]
    hit_count: int | None
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class _Plan:
    engine: str
    endpoint: str
    params: dict[str, str]
    run: Callable[[httpx2.AsyncClient], Awaitable[_Outcome]]


def _year(text: str | None) -> int | None:
    match = re.match(r"([12][0-9]{3})", text or "")
    return int(match.group(1)) if match else None


def _epmc_plan(query: str, limit: int, cursor: str | None, low: Any, high: Any) -> _Plan:
    from citeproof.sources import europepmc

    q = europepmc.date_query(
        query, low.first.isoformat() if low else None, high.last.isoformat() if high else None
    )
    if cursor is not None and not cursor.strip():
        raise SearchCursorError(
            "--cursor is empty; give the next_cursor a previous search printed."
        )
    params: dict[str, str] = {
        "query": q,
        "resultType": "lite",
        "format": "json",
        "pageSize": str(limit),
    }
    if cursor is not None:
        params["cursorMark"] = cursor

    async def run(client: httpx2.AsyncClient) -> _Outcome:
        page = await europepmc.search(client, q, page_size=limit, cursor=cursor, result_type="lite")
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
        return _Outcome(items, page.hit_count, page.next_cursor)

    return _Plan("europepmc", europepmc.BASE_URL + "search", params, run)


def _pubmed_plan(query: str, limit: int, cursor: str | None, low: Any, high: Any) -> _Plan:
    from citeproof.sources import eutils_search

    start = _offset(cursor, "pubmed", 9_999)
    params = eutils_search.esearch_params(
        query,
        retmax=limit,
        retstart=start,
        mindate=low.eutils if low else None,
        maxdate=high.eutils if high else None,
    )

    async def run(client: httpx2.AsyncClient) -> _Outcome:
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
        return _Outcome(items, page.count, str(end) if more else None)

    return _Plan("pubmed", eutils_search.ESEARCH_URL, params, run)


def _litsense_plan(query: str, limit: int, cursor: str | None, low: Any, high: Any) -> _Plan:
    from citeproof.sources import litsense

    if cursor is not None:
        raise SearchCursorError(
            "LitSense has no paging (it answers at most 100 sentences); drop --cursor."
        )
    if low is not None or high is not None:
        raise SearchDateError("LitSense cannot filter by date; drop --since and --until.")
    params = litsense.sentences_params(query)

    async def run(client: httpx2.AsyncClient) -> _Outcome:
        found = await litsense.sentences(client, query, limit=limit)
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
        return _Outcome(items, None, None)

    return _Plan("litsense", litsense.SENTENCES_URL, params, run)


def _openalex_items(results: list[Any]) -> list[SearchItem]:
    return [
        SearchItem(
            id=f"openalex:{w.id}", title=w.title, year=w.year, doi=w.doi, pmid=w.pmid, pmcid=w.pmcid
        )
        for w in results
    ]


def _openalex_plan(query: str, limit: int, cursor: str | None, low: Any, high: Any) -> _Plan:
    from citeproof.sources import openalex

    if cursor is not None and not cursor.strip():
        raise SearchCursorError(
            "--cursor is empty; give the next_cursor a previous search printed."
        )
    params = openalex.works_params(
        search=query,
        per_page=limit,
        cursor=cursor,
        from_date=low.first.isoformat() if low else None,
        to_date=high.last.isoformat() if high else None,
    )

    async def run(client: httpx2.AsyncClient) -> _Outcome:
        page = await openalex.works(client, params)
        return _Outcome(_openalex_items(page.results), page.count, page.next_cursor)

    return _Plan("openalex", openalex.BASE_URL + "works", params, run)


def _ctgov_plan(query: str, limit: int, cursor: str | None, low: Any, high: Any) -> _Plan:
    from citeproof.sources import ctgov

    if cursor is not None and not cursor.strip():
        raise SearchCursorError(
            "--cursor is empty; give the next_cursor a previous search printed."
        )
    params = ctgov.studies_params(
        term=query,
        page_size=limit,
        page_token=cursor,
        since=low.first.isoformat() if low else None,
        until=high.last.isoformat() if high else None,
    )

    async def run(client: httpx2.AsyncClient) -> _Outcome:
        page = await ctgov.search_studies(client, params)
        items = [
            SearchItem(
                id=f"nct:{s.nct}", title=s.title, year=_year(s.first_posted), version=s.last_updated
            )
            for s in page.studies
        ]
        return _Outcome(items, page.total, page.next_page_token)

    return _Plan("clinicaltrials", ctgov.SEARCH_URL, params, run)


def _openfda_plan(query: str, limit: int, cursor: str | None, low: Any, high: Any) -> _Plan:
    from citeproof.sources import openfda

    skip = _offset(cursor, "openfda", openfda.MAX_SKIP)
    # A bare name is a drug; anything with a field (``a:b``) is openFDA search syntax.
    search = query if ":" in query else openfda.drug_query(query)
    params = openfda.labels_params(
        search,
        limit=limit,
        skip=skip,
        since=low.first.strftime("%Y%m%d") if low else None,
        until=high.last.strftime("%Y%m%d") if high else None,
    )

    async def run(client: httpx2.AsyncClient) -> _Outcome:
        page = await openfda.search_labels(client, params)
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
        return _Outcome(items, page.total, str(end) if more else None)

    return _Plan("openfda", openfda.LABEL_URL, params, run)


_PLANS: dict[str, Callable[[str, int, str | None, Any, Any], _Plan]] = {
    "europepmc": _epmc_plan,
    "pubmed": _pubmed_plan,
    "litsense": _litsense_plan,
    "openalex": _openalex_plan,
    "clinicaltrials": _ctgov_plan,
    "openfda": _openfda_plan,
}


# --------------------------------------------------------------------------------------------
# Running a plan


def _now_text(now: Callable[[], datetime] | None) -> str:
    return (now or (lambda: datetime.now(UTC)))().astimezone(UTC).isoformat()


async def _execute(
    plan: _Plan,
    query: str,
    client: httpx2.AsyncClient,
    now: Callable[[], datetime] | None,
    before: Callable[[httpx2.AsyncClient], Awaitable[str | None]] | None = None,
) -> SearchRecord:
    _install_hook(client)
    collected: list[ResponseDigest] = []
    token = _COLLECTING.set(collected)
    reason: str | None = None
    outcome: _Outcome | None = None
    try:
        if before is not None:
            reason = await before(client)
        if reason is None:
            outcome = await plan.run(client)
    except NetworkError as err:
        reason = str(err)
    except httpx2.TransportError as err:  # a client not built by make_client
        reason = (
            f"{plan.engine} could not be reached ({type(err).__name__}); nothing was concluded."
        )
    finally:
        _COLLECTING.reset(token)
    base: dict[str, Any] = {
        "engine": plan.engine,
        "endpoint": plan.endpoint,
        "query": query,
        "params": plan.params,
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


async def run_search(
    engine: str,
    query: str,
    client: httpx2.AsyncClient,
    *,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    since: str | None = None,
    until: str | None = None,
    now: Callable[[], datetime] | None = None,
) -> SearchRecord:
    """Search ``engine`` for ``query`` and record it; never raises for a network failure.

    ``cursor`` is a previous record's ``next_cursor``.  ``since``/``until`` are ``YYYY``,
    ``YYYY-MM`` or ``YYYY-MM-DD`` (inclusive).  Raises :class:`SearchInputError` for input
    the engine cannot use, before any request.
    """
    name = _engine(engine)
    _check_query(query)
    _check_limit(name, limit)
    low, high = _window(since, until)
    try:
        plan = _PLANS[name](query, limit, cursor, low, high)
    except ValueError as err:  # a source refused a parameter the checks above let through
        raise SearchInputError(f"{name} cannot search this: {err}.") from err
    return await _execute(plan, query, client, now)


async def citing(
    identifier: str,
    client: httpx2.AsyncClient,
    *,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    now: Callable[[], datetime] | None = None,
) -> SearchRecord:
    """The works OpenAlex lists as citing ``identifier`` (DOI, PMID, PMCID or ``W…``).

    A DOI/PMID/PMCID is first looked up as ``works/doi:…`` (``pmid:``, ``pmcid:``); that
    lookup's response is part of the record.  A work OpenAlex does not know gives a
    ``failed`` record saying so.
    """
    from citeproof.sources import openalex

    _check_limit("openalex", limit)
    if cursor is not None and not cursor.strip():
        raise SearchCursorError(
            "--cursor is empty; give the next_cursor a previous search printed."
        )
    wid = openalex.work_id(identifier)
    lookup: tuple[Literal["doi", "pmid", "pmcid"], str] | None = None
    if wid is None:
        from citeproof.identifiers import parse_identifier

        parsed = parse_identifier(identifier)
        if parsed.kind not in ("doi", "pmid", "pmcid"):
            raise SearchInputError(
                f"{identifier!r} is a {parsed.kind}; citing needs a DOI, PMID, PMCID or "
                "OpenAlex work id (W123...)."
            )
        kind: Literal["doi", "pmid", "pmcid"] = parsed.kind
        lookup = (kind, parsed.value)
    target = wid or "W0"  # replaced once the lookup answers
    params = openalex.works_params(cites=target, per_page=limit, cursor=cursor)
    resolved: dict[str, str] = {}

    async def before(client: httpx2.AsyncClient) -> str | None:
        if lookup is None:
            return None
        work = await openalex.resolve_work(client, *lookup)
        if work is None:
            return f"OpenAlex has no work for {lookup[0]}:{lookup[1]}; nothing cites it there."
        resolved["id"] = work.id
        params["filter"] = f"cites:{work.id}"
        return None

    async def run(client: httpx2.AsyncClient) -> _Outcome:
        page = await openalex.works(client, params)
        return _Outcome(_openalex_items(page.results), page.count, page.next_cursor)

    plan = _Plan("openalex", openalex.BASE_URL + "works", params, run)
    record = await _execute(plan, identifier.strip(), client, now, before)
    if lookup is not None and "id" not in resolved:
        # The cites: filter was never sent; record the lookup as the parameters.
        return record.model_copy(
            update={"endpoint": f"{openalex.BASE_URL}works/{lookup[0]}:{lookup[1]}", "params": {}}
        )
    return record


# --------------------------------------------------------------------------------------------
# Synchronous entry points for the CLI


class _FormAsQuery(httpx2.AsyncBaseTransport):
    """Replays a POSTed form from the recording of the same parameters sent by GET.

    E-utilities treat the two alike, the recordings in the corpus are GETs, and a replay key
    holds only the URL; so a form POST is looked up as the GET it is equivalent to.
    """

    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        form = request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"
        )
        if request.method == "POST" and form:
            body = await request.aread()
            extra = parse_qsl(body.decode("utf-8"), keep_blank_values=True)
            url = request.url.copy_with(params=[*request.url.params.multi_items(), *extra])
            request = httpx2.Request("GET", url, headers=request.headers)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _run_sync(
    call: Callable[[httpx2.AsyncClient], Awaitable[SearchRecord]],
    replay_dir: Path | None,
    offline: bool,
) -> SearchRecord:
    if offline:
        raise SearchOfflineError(
            "a search needs the network and --offline forbids it; run it without --offline "
            "(or with --replay DIR to answer it from recorded responses)."
        )
    from citeproof.net.session import mode_from, open_session

    mode = mode_from(replay_dir)

    async def go() -> SearchRecord:
        if mode.replay is not None:
            # The session's replay transport keys on URLs only; esummary's form POST must be
            # looked up as the equivalent GET (see _FormAsQuery).
            from citeproof.net.client import make_client
            from citeproof.net.replay import ReplayTransport

            replay = ReplayTransport.from_folder(mode.replay, skip_incomplete=True)
            async with make_client(transport=_FormAsQuery(replay)) as client:
                return await call(client)
        async with open_session(mode) as session:
            return await call(session.client)

    return asyncio.run(go())


def search_sync(
    engine: str,
    query: str,
    *,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    since: str | None = None,
    until: str | None = None,
    replay_dir: Path | None = None,
    offline: bool = False,
) -> SearchRecord:
    """:func:`run_search` on a client built like ``citeproof.fetching`` builds one.

    ``replay_dir`` (default: ``CITEPROOF_REPLAY``) answers every request from recordings.
    Input is validated before the client is built, so bad input never opens a connection.
    """
    name = _engine(engine)
    _check_query(query)
    _check_limit(name, limit)
    _window(since, until)

    async def call(client: httpx2.AsyncClient) -> SearchRecord:
        return await run_search(
            name, query, client, limit=limit, cursor=cursor, since=since, until=until
        )

    return _run_sync(call, replay_dir, offline)


def citing_sync(
    identifier: str,
    *,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    replay_dir: Path | None = None,
    offline: bool = False,
) -> SearchRecord:
    """:func:`citing` on a client built like ``citeproof.fetching`` builds one."""
    _check_limit("openalex", limit)

    async def call(client: httpx2.AsyncClient) -> SearchRecord:
        return await citing(identifier, client, limit=limit, cursor=cursor)

    return _run_sync(call, replay_dir, offline)
