"""Europe PMC REST: search (the fallback for DOIs the PMC ID converter does not know) and
open-access full-text JATS for PMC articles and preprints (``PPR`` ids).

Why Europe PMC: it indexes PubMed (``MED``), PMC and preprints (``PPR``), so a DOI outside PMC
(the Wakefield 1998 Lancet paper) still resolves to a PMID and its publication types, including
"Retracted Publication"; and it serves full text for preprints, which PMC does not.

Failure handling follows ``citeproof.sources.base``:

* :func:`full_text_xml` returns a :class:`SourceOutcome`: 404 (or an empty 200) is ``missing``,
  a :class:`NetworkError` or any other status is ``unavailable`` — never ``missing``, since
  nothing may be concluded from a source that could not be read.
* :func:`search` and :func:`find_by_doi` return data, so they *raise* ``NetworkError`` when
  the service could not be read or answered something that is not a search result; ``None``
  from :func:`find_by_doi` means Europe PMC answered and had no record with that DOI.

The client adds the ``email`` parameter on the wire (``citeproof.net.client``); URLs built or
stored here never carry it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx2

from citeproof.errors import NetworkError
from citeproof.net.client import redact_url
from citeproof.sources.base import Fetched, SourceOutcome, field_text, missing, unavailable

__all__ = [
    "BASE_URL",
    "EpmcRecord",
    "ResultType",
    "SearchPage",
    "date_query",
    "find_by_doi",
    "full_text_xml",
    "phrase_search",
    "search",
]

BASE_URL = "https://www.ebi.ac.uk/europepmc/webservices/rest/"
SERVICE = "Europe PMC"
ResultType = Literal["lite", "core", "idlist"]

_FULL_TEXT_ID = re.compile(r"(PMC|PPR)\d+", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class EpmcRecord:
    """One search result, reduced to what resolution and retraction checks use.

    ``id``/``source`` are Europe PMC's own key (``"9500320"``/``"MED"``, ``"PPR1297067"``/
    ``"PPR"``). ``pub_types`` keeps the service's spelling; lite results give them in one
    ``;``-separated lower-case string, core results as a list ("Retracted Publication") — use
    :attr:`is_retracted` rather than comparing strings.
    """

    id: str
    source: str
    pmid: str | None = None
    pmcid: str | None = None
    doi: str | None = None
    title: str | None = None
    pub_year: str | None = None
    pub_types: tuple[str, ...] = ()
    is_open_access: bool = False
    in_epmc: bool = False

    @property
    def is_retracted(self) -> bool:
        """Europe PMC marks the retracted paper itself "Retracted Publication"."""
        return any(t.casefold() == "retracted publication" for t in self.pub_types)


@dataclass(frozen=True, slots=True)
class SearchPage:
    """One page of results; ``next_cursor`` is ``None`` on the last page."""

    hit_count: int
    results: list[EpmcRecord] = field(default_factory=list)
    next_cursor: str | None = None


def _flag(value: Any) -> bool:
    return isinstance(value, str) and value.strip().upper() == "Y"


def _pub_types(raw: dict[str, Any]) -> tuple[str, ...]:
    """``pubTypeList.pubType`` (core: a list, or one string) or ``pubType`` (lite: "a; b")."""
    listed = raw.get("pubTypeList")
    if isinstance(listed, dict):
        inner = listed.get("pubType")
        if isinstance(inner, str):
            inner = [inner]
        if isinstance(inner, list):
            return tuple(t.strip() for t in inner if isinstance(t, str) and t.strip())
    flat = raw.get("pubType")
    if isinstance(flat, str):
        return tuple(t.strip() for t in flat.split(";") if t.strip())
    return ()


def _record(raw: dict[str, Any]) -> EpmcRecord | None:
    id_ = field_text(raw.get("id"))
    source = field_text(raw.get("source"))
    if id_ is None or source is None:
        return None
    doi = field_text(raw.get("doi"))
    return EpmcRecord(
        id=id_,
        source=source,
        pmid=field_text(raw.get("pmid")),
        pmcid=field_text(raw.get("pmcid")),
        doi=doi.lower() if doi else None,
        title=field_text(raw.get("title")),
        pub_year=field_text(raw.get("pubYear")),
        pub_types=_pub_types(raw),
        is_open_access=_flag(raw.get("isOpenAccess")),
        in_epmc=_flag(raw.get("inEPMC")),
    )


def _unreadable(host: str, what: str) -> NetworkError:
    return NetworkError(f"{SERVICE} ({host}) {what}.", service=SERVICE, host=host)


async def search(
    client: httpx2.AsyncClient,
    query: str,
    *,
    page_size: int = 25,
    cursor: str | None = "*",
    result_type: ResultType = "core",
) -> SearchPage:
    """One page of ``search?query=...&format=json``.

    ``cursor`` is the ``cursorMark`` to send (``"*"`` for the first page, then the previous
    page's ``next_cursor``); ``None`` sends none, which the service treats as the first page.
    Raises ``NetworkError`` when the answer could not be read.
    """
    if not 1 <= page_size <= 1000:
        raise ValueError(f"page_size must be between 1 and 1000, not {page_size}")
    params: dict[str, str | int] = {
        "query": query,
        "resultType": result_type,
        "format": "json",
        "pageSize": page_size,
    }
    if cursor is not None:
        params["cursorMark"] = cursor
    response = await client.get(BASE_URL + "search", params=params)
    host = response.request.url.host
    if response.status_code != 200:
        raise _unreadable(host, f"answered {response.status_code} to a search")
    try:
        payload = json.loads(response.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _unreadable(host, f"answered a search with a body that is not JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise _unreadable(host, "answered a search with JSON that is not an object")
    hit_count = payload.get("hitCount")
    if not isinstance(hit_count, int) or isinstance(hit_count, bool):
        raise _unreadable(host, "answered a search without a hitCount")
    result_list = payload.get("resultList")
    raw_results = result_list.get("result") if isinstance(result_list, dict) else None
    results = [
        record
        for raw in (raw_results if isinstance(raw_results, list) else [])
        if isinstance(raw, dict) and (record := _record(raw)) is not None
    ]
    next_cursor = field_text(payload.get("nextCursorMark"))
    # The service repeats the cursor it was given once the results are exhausted.
    if next_cursor is not None and (next_cursor == cursor or not results):
        next_cursor = None
    return SearchPage(hit_count=hit_count, results=results, next_cursor=next_cursor)


async def find_by_doi(client: httpx2.AsyncClient, doi: str) -> EpmcRecord | None:
    """The Europe PMC record whose DOI is ``doi``, or ``None`` if Europe PMC has none.

    Asks ``DOI:"..."`` for one ``lite`` result: lite carries every field :class:`EpmcRecord`
    keeps (publication types included), at a fraction of core's size. The hit's DOI is
    compared with the one asked for, so a fuzzy match is never taken for the work.
    Raises ``NetworkError`` when the search could not be read.
    """
    wanted = doi.strip().lower()
    if not wanted:
        raise ValueError("an empty DOI cannot be looked up")
    escaped = wanted.replace("\\", "\\\\").replace('"', '\\"')
    page = await search(client, f'DOI:"{escaped}"', page_size=1, cursor=None, result_type="lite")
    for record in page.results:
        if record.doi == wanted:
            return record
    return None


async def full_text_xml(client: httpx2.AsyncClient, id_: str) -> SourceOutcome:
    """Open-access JATS full text of ``PMC123`` or ``PPR123`` from ``{id}/fullTextXML``.

    404 (or an empty body) is ``missing`` — Europe PMC has no open full text for it, which says
    nothing about whether the work exists; network failures and other statuses are
    ``unavailable``.
    """
    if not _FULL_TEXT_ID.fullmatch(id_.strip()):
        raise ValueError(
            f"Europe PMC full text needs a PMC or PPR id (PMC123, PPR123), not {id_!r}"
        )
    key = id_.strip().upper()
    try:
        response = await client.get(f"{BASE_URL}{key}/fullTextXML")
    except NetworkError as err:
        return unavailable(str(err))
    if response.status_code == 404 or (response.status_code == 200 and not response.content):
        return missing(f"Europe PMC has no open full text for {key}")
    if response.status_code != 200:
        return unavailable(
            f"{SERVICE} ({response.request.url.host}) answered {response.status_code} "
            f"for the full text of {key}"
        )
    kind = "pmcid" if key.startswith("PMC") else "ppr"
    return SourceOutcome(
        "fetched",
        fetched=Fetched(
            data=response.content,
            media_type="application/xml",
            url=redact_url(response.request.url),
            served_by="europepmc",
            coverage="full_text",
            identifier=f"{kind}:{key}",
        ),
    )


_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


def date_query(query: str, since: str | None, until: str | None) -> str:
    """``query`` limited to a first-publication date range (``YYYY-MM-DD`` bounds).

    Europe PMC's ``FIRST_PDATE:[a TO b]`` field, as tekmeria's recorded searches use it; a
    missing bound is 1800-01-01 or 3000-12-31.  Without dates the query is returned as is.
    """
    if since is None and until is None:
        return query
    for value in (since, until):
        if value is not None and not _ISO_DATE.fullmatch(value):
            raise ValueError(f"{value!r} is not a YYYY-MM-DD date")
    low, high = since or "1800-01-01", until or "3000-12-31"
    return f"({query}) AND FIRST_PDATE:[{low} TO {high}]"


async def phrase_search(
    client: httpx2.AsyncClient, words: str, limit: int = 25
) -> list[EpmcRecord]:
    """Open-access articles whose text contains ``words`` as an exact phrase.

    A double-quoted phrase is searched in the full text of open-access articles as well as
    in titles and abstracts; ``OPEN_ACCESS:y`` keeps the articles whose full text can be
    fetched and verified, and only records with a PMCID are returned.  Double quotes and
    backslashes inside ``words`` cannot be sent inside a phrase and become spaces.  Raises
    ``NetworkError`` when the search could not be read.
    """
    if not 1 <= limit <= 1000:
        raise ValueError(f"limit must be between 1 and 1000, not {limit}")
    phrase = " ".join(words.replace('"', " ").replace("\\", " ").split())
    if not phrase:
        raise ValueError("an empty phrase cannot be searched")
    page = await search(
        client,
        f'"{phrase}" AND OPEN_ACCESS:y',
        page_size=limit,
        cursor=None,
        result_type="lite",
    )
    return [record for record in page.results if record.pmcid]
