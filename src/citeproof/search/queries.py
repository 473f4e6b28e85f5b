"""Recorded literature searches: one query to one engine, and exactly what it read.

A search is evidence like a check: "nothing in PubMed matched" is only worth something if
one can say which query, with which parameters, answered what, when.  So every search,
failed and empty ones included, ends as a :class:`SearchRecord` holding the engine, the
endpoint, the query and the parameters as sent (never the contact address or API key: those
are added below the client, see ``citeproof.net.client``), the status, the sha256 of every
HTTP response the search read, the engine's hit count and one id per item.
:meth:`SearchRecord.log_payload` is what the evidence log stores.

The response hashes are captured by a hook on the injected client while a search runs (see
``citeproof.search.engines``, which also holds each engine's request plan); the input checks are
in :mod:`citeproof.search.params`; this module holds the entry points.

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
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

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
from citeproof.net.session import mode_from, open_session
from citeproof.search.engines import PLANS, citing_plan, execute
from citeproof.search.params import (
    DEFAULT_LIMIT,
    ENGINES,
    DateBound,
    Engine,
    check_limit,
    check_query,
    date_window,
    engine_name,
    max_limit,
    parse_date,
)

__all__ = [
    "DEFAULT_LIMIT",
    "ENGINES",
    "SEARCH_SCHEMA",
    "DateBound",
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
    "parse_date",
    "run_search",
    "search_sync",
]


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
    name = engine_name(engine)
    check_query(query)
    check_limit(name, limit)
    low, high = date_window(since, until)
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
    check_limit("openalex", limit)
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
    name = engine_name(engine)
    check_query(query)
    check_limit(name, limit)
    date_window(since, until)

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
    check_limit("openalex", limit)

    async def call(client: httpx2.AsyncClient) -> SearchRecord:
        return await citing(identifier, client, limit=limit, cursor=cursor)

    return _run_sync(call, replay_dir, offline)
