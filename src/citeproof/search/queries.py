"""Recorded literature searches: one query to one engine, and exactly what it read.

A search is evidence like a check: "nothing in PubMed matched" is only worth something if
one can say which query, with which parameters, answered what, when.  So every search,
failed and empty ones included, ends as a :class:`SearchRecord` holding the engine, the
endpoint, the query and the parameters as sent (never the contact address or API key: those
are added below the client, see ``citeproof.net.client``), the status, the sha256 of every
HTTP response the search read, the engine's hit count and one id per item.
:meth:`SearchRecord.log_payload` is what the evidence log stores.

The response hashes are captured by a hook on the injected client while a search runs (see
``citeproof.search.engines``, which also holds each engine's request plan); this module holds
what every search shares: the record, input checks and the entry points.

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
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Literal, get_args

import httpx2

from citeproof.errors import (
    SearchCursorError,
    SearchDateError,
    SearchInputError,
    SearchLimitError,
    SearchOfflineError,
    UnknownEngineError,
)
from citeproof.models.search import SEARCH_SCHEMA, ResponseDigest, SearchItem, SearchRecord

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


# --------------------------------------------------------------------------------------------
# The record


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
    from citeproof.search.engines import PLANS, execute

    try:
        plan = PLANS[name](query, limit, cursor, low, high)
    except ValueError as err:  # a source refused a parameter the checks above let through
        raise SearchInputError(f"{name} cannot search this: {err}.") from err
    return await execute(plan, query, client, now)


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
    from citeproof.search.engines import citing_plan, execute

    _check_limit("openalex", limit)
    plan = citing_plan(identifier, limit, cursor)
    return await execute(plan, identifier.strip(), client, now)


# --------------------------------------------------------------------------------------------
# Synchronous entry points for the CLI


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
    """:func:`run_search` on a client built like ``citeproof.loading.pins`` builds one.

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
    """:func:`citing` on a client built like ``citeproof.loading.pins`` builds one."""
    _check_limit("openalex", limit)

    async def call(client: httpx2.AsyncClient) -> SearchRecord:
        return await citing(identifier, client, limit=limit, cursor=cursor)

    return _run_sync(call, replay_dir, offline)
