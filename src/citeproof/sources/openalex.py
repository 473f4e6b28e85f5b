"""OpenAlex works: keyword search, the works that cite a work (``cites:``), and finding a
work's OpenAlex id from its DOI, PMID or PMCID.

Why OpenAlex for ``citeproof citing``: its ``cites:W…`` filter lists the works whose
reference lists contain a work, across publishers, with DOIs and PMIDs to check them by.

Paging: the first page is asked without a ``cursor`` parameter (so the answer is OpenAlex's
page 1, as the recorded answers in the corpus were asked).  Later pages are asked with the
cursor the previous page returned: OpenAlex's own ``meta.next_cursor`` when it gave one
(cursor paging, started by passing ``*``), else the next page number as digits, which is
sent as ``page=N`` (OpenAlex serves the first 10,000 results that way).

Records of what a work is (``citeproof refs``): :func:`record_from_work` reads a work as a
:class:`~citeproof.models.references.WorkRecord`: authors as OpenAlex prints them
(``authorships[].author.display_name``, given name first; ``raw_author_name`` when the
author is not disambiguated), the venue from ``primary_location.source.display_name`` (or
the retired ``host_venue`` of older answers), ``type`` as the kind, and a ``retraction`` or
``erratum`` typed work is a notice.  :func:`search_records` asks ``works?search=`` with
``select=`` of those root-level fields only (OpenAlex refuses a nested or unknown one, so
``host_venue`` is never selected); :func:`lookup_record` is :func:`resolve_work` as a record.
Titles lose the HTML OpenAlex keeps from publishers (``<i>``, ``<sub>``).

Failures are raised as :class:`~citeproof.errors.NetworkError`; ``None`` from
:func:`resolve_work` means OpenAlex answered 404 (it has no work with that id).  The client
adds ``mailto`` and, when ``OPENALEX_API_KEY`` is set, ``api_key`` on the wire
(``citeproof.net.client``), so no URL this module sees or stores holds the key.

Keys and budgets: since 13 February 2026 OpenAlex meters every list and search against a daily
budget (a search costs $0.001: a free key's $1 a day buys about a thousand, the keyless
allowance a hundred or fewer); single works cost nothing.  It answers an invalid key with 401,
over-rate requests with 403, and a spent budget with 429 and a JSON ``{"error": ...,
"message": ...}`` (the client does not retry a spent budget).  Each is a failed answer whose
one-line reason names ``OPENALEX_API_KEY`` (:func:`_refusal`): never "no such work", and never
the key itself (the reasons are citeproof's words, not the body's).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import httpx2

from citeproof.documents.markup import plain_text
from citeproof.errors import UpstreamUnavailableError
from citeproof.models.references import WorkRecord
from citeproof.net.client import KEY_SENT, OPENALEX_KEY_ENV
from citeproof.sources.base import json_object, upstream_failure

__all__ = [
    "BASE_URL",
    "MAX_PER_PAGE",
    "RECORD_SELECT",
    "OpenAlexWork",
    "WorksPage",
    "lookup_record",
    "record_from_work",
    "resolve_work",
    "search_records",
    "work_id",
    "works",
    "works_params",
]

BASE_URL = "https://api.openalex.org/"
MAX_PER_PAGE = 200
_SERVICE = "OpenAlex"
_HOST = "api.openalex.org"
_W_ID = re.compile(r"(?:https?://openalex\.org/)?(W[0-9]{1,12})", re.ASCII | re.IGNORECASE)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)
#: The root-level fields :func:`record_from_work` reads: the ``select=`` of a record search.
RECORD_SELECT = (
    "id,doi,title,display_name,publication_year,ids,type,type_crossref,authorships,"
    "primary_location,locations,biblio"
)
#: OpenAlex work types that are notices about another work, not the work.
_NOTICE_TYPES = frozenset({"retraction", "erratum"})

ExternalKind = Literal["doi", "pmid", "pmcid"]


@dataclass(frozen=True, slots=True)
class OpenAlexWork:
    """One work: its W id and the external ids OpenAlex lists (DOI lower-case, no URL)."""

    id: str
    title: str | None = None
    year: int | None = None
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    is_retracted: bool = False


@dataclass(frozen=True, slots=True)
class WorksPage:
    count: int
    results: list[OpenAlexWork] = field(default_factory=list)
    next_cursor: str | None = None


def work_id(value: str) -> str | None:
    """``W123`` from ``W123``, ``w123`` or ``https://openalex.org/W123``; else ``None``."""
    match = _W_ID.fullmatch(value.strip())
    return match.group(1).upper() if match else None


_fail = upstream_failure(_SERVICE, _HOST)
_Read = TypeVar("_Read")
_GET_KEY = "a free key comes from openalex.org/settings/api"


def _refusal(status: int, what: str, key_sent: bool) -> UpstreamUnavailableError:
    """The failure for OpenAlex refusing ``what`` for its key or its budget (module
    docstring), worded for whether a key was sent."""
    if status == 401:
        why = (
            f"refused the API key in {OPENALEX_KEY_ENV} (HTTP 401) for {what}: set it to a "
            f"valid key ({_GET_KEY}) or unset it"
            if key_sent
            else f"answered HTTP 401 to {what}: it wants an API key; set {OPENALEX_KEY_ENV} "
            f"({_GET_KEY})"
        )
    elif status == 429:
        why = (
            f"answered HTTP 429 to {what}: the daily budget of the key in {OPENALEX_KEY_ENV} "
            "is spent (it renews at midnight UTC)"
            if key_sent
            else f"answered HTTP 429 to {what}: the daily budget without an API key is spent; "
            f"set {OPENALEX_KEY_ENV} ({_GET_KEY}, with a larger budget)"
        )
    else:
        why = (
            f"refused {what} (HTTP {status}: over its rate, or the key in {OPENALEX_KEY_ENV} "
            "is not allowed)"
            if key_sent
            else f"refused {what} (HTTP {status}: over its rate, or it wants an API key); set "
            f"{OPENALEX_KEY_ENV} ({_GET_KEY})"
        )
    return _fail(why)


def _payload(response: httpx2.Response, what: str) -> dict[str, Any]:
    """The JSON object of a 200 answer; a refusal for its key or budget (401, 403, 429, or
    an ``error`` object in place of an answer) raises :func:`_refusal`'s failure."""
    key_sent = response.extensions.get(KEY_SENT) is True
    if response.status_code in (401, 403, 429):
        raise _refusal(response.status_code, what, key_sent)
    payload = json_object(response, what, _fail)
    error = payload.get("error")
    if isinstance(error, str) and "results" not in payload and "id" not in payload:
        said = f"{error} {payload.get('message', '')}".lower()
        if "budget" in said or "rate limit" in said:
            raise _refusal(429, what, key_sent)
        raise _fail(f"answered {what} with an error instead of works")
    return payload


def _strip_prefix(value: Any, *prefixes: str) -> str | None:
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    for prefix in prefixes:
        if text.lower().startswith(prefix):
            return text[len(prefix) :] or None
    return text


def _ids(raw: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(DOI lower-case, PMID, PMCID) from ``ids`` (or the root ``doi``), without their URLs."""
    ids = raw.get("ids") if isinstance(raw.get("ids"), dict) else {}
    assert isinstance(ids, dict)
    doi = _strip_prefix(ids.get("doi") or raw.get("doi"), "https://doi.org/", "doi:")
    pmid = _strip_prefix(ids.get("pmid"), "https://pubmed.ncbi.nlm.nih.gov/")
    pmcid = _strip_prefix(
        ids.get("pmcid"),
        "https://www.ncbi.nlm.nih.gov/pmc/articles/",
        "https://pmc.ncbi.nlm.nih.gov/articles/",
    )
    return (doi.lower() if doi else None, pmid.strip("/") if pmid else None, _pmcid(pmcid))


def _year(raw: dict[str, Any]) -> int | None:
    year = raw.get("publication_year")
    return year if isinstance(year, int) and not isinstance(year, bool) else None


def _work(raw: dict[str, Any]) -> OpenAlexWork | None:
    wid = work_id(raw["id"]) if isinstance(raw.get("id"), str) else None
    if wid is None:
        return None
    doi, pmid, pmcid = _ids(raw)
    title = raw.get("title") if isinstance(raw.get("title"), str) else raw.get("display_name")
    return OpenAlexWork(
        id=wid,
        title=title.strip() or None if isinstance(title, str) else None,
        year=_year(raw),
        doi=doi,
        pmid=pmid,
        pmcid=pmcid,
        is_retracted=raw.get("is_retracted") is True,
    )


def _author(raw: Any) -> str | None:
    if not isinstance(raw, dict):
        return None
    author = raw.get("author")
    name = author.get("display_name") if isinstance(author, dict) else None
    return plain_text(name) or plain_text(raw.get("raw_author_name"))


def _venue(raw: dict[str, Any]) -> str | None:
    location = raw.get("primary_location")
    source = location.get("source") if isinstance(location, dict) else None
    if isinstance(source, dict) and (name := plain_text(source.get("display_name"))):
        return name
    host = raw.get("host_venue")
    return plain_text(host.get("display_name")) if isinstance(host, dict) else None


def record_from_work(raw: dict[str, Any]) -> WorkRecord | None:
    """One OpenAlex work (a search result or a lookup) as a record; ``None`` without a W id."""
    wid = work_id(raw["id"]) if isinstance(raw.get("id"), str) else None
    if wid is None:
        return None
    doi, pmid, pmcid = _ids(raw)
    authorships = raw.get("authorships")
    kind = plain_text(raw.get("type"))
    return WorkRecord(
        source="openalex",
        doi=doi,
        pmid=pmid,
        pmcid=pmcid,
        title=plain_text(raw.get("title")) or plain_text(raw.get("display_name")),
        authors=tuple(
            a
            for entry in (authorships if isinstance(authorships, list) else [])
            if (a := _author(entry))
        ),
        year=_year(raw),
        venue=_venue(raw),
        kind=kind,
        openalex=wid,
        is_notice=kind in _NOTICE_TYPES,
        volume=plain_text(_biblio(raw, "volume")),
        issue=plain_text(_biblio(raw, "issue")),
        pages=_pages(raw),
        venue_names=_other_venues(raw),
        issn=_issn(raw),
        types=tuple(t for t in (kind, plain_text(raw.get("type_crossref"))) if t),
        related=_versions(raw, doi),
    )


def _biblio(raw: dict[str, Any], name: str) -> Any:
    biblio = raw.get("biblio")
    value = biblio.get(name) if isinstance(biblio, dict) else None
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _pages(raw: dict[str, Any]) -> str | None:
    first, last = plain_text(_biblio(raw, "first_page")), plain_text(_biblio(raw, "last_page"))
    if first and last and last != first:
        return f"{first}-{last}"
    return first


def _locations(raw: dict[str, Any]) -> list[dict[str, Any]]:
    found = [raw.get("primary_location"), *(raw.get("locations") or [])]
    return [loc for loc in found if isinstance(loc, dict)]


def _other_venues(raw: dict[str, Any]) -> tuple[str, ...]:
    """Where else the work stands (a preprint server beside the journal), and the journal's
    abbreviated title where OpenAlex gives one."""
    main = _venue(raw)
    names: list[str] = []
    for location in _locations(raw):
        source = location.get("source")
        if not isinstance(source, dict):
            continue
        for key in ("display_name", "abbreviated_title"):
            name = plain_text(source.get(key))
            if name and name != main:
                names.append(name)
    return tuple(dict.fromkeys(names))


def _issn(raw: dict[str, Any]) -> tuple[str, ...]:
    location = raw.get("primary_location")
    source = location.get("source") if isinstance(location, dict) else None
    if not isinstance(source, dict):
        return ()
    listed = source.get("issn")
    values: list[Any] = listed if isinstance(listed, list) else [source.get("issn_l")]
    return tuple(dict.fromkeys(v.strip() for v in values if isinstance(v, str) and v.strip()))


_DOI_URL = re.compile(r"^https?://(?:dx\.)?doi\.org/(10\..+)$", re.IGNORECASE)


def _versions(raw: dict[str, Any], doi: str | None) -> tuple[str, ...]:
    """Other DOIs the work is found under (OpenAlex folds a preprint and its journal
    article into one work, each a location of its own)."""
    out: list[str] = []
    for location in _locations(raw):
        url = location.get("landing_page_url")
        match = _DOI_URL.match(url.strip()) if isinstance(url, str) else None
        if match and match.group(1).lower() != doi:
            out.append(f"has-version:doi:{match.group(1).lower()}")
    return tuple(dict.fromkeys(out))


def _pmcid(value: str | None) -> str | None:
    """OpenAlex writes ``ids.pmcid`` as ``.../pmc/articles/5815332``, without the ``PMC`` its
    own docs' examples show elsewhere; a PMCID is ``PMC`` and digits."""
    if not value or not value.strip("/"):
        return None
    bare = value.strip("/").upper()
    return bare if bare.startswith("PMC") else f"PMC{bare}"


def works_params(
    *,
    search: str | None = None,
    cites: str | None = None,
    per_page: int = 25,
    cursor: str | None = None,
    from_date: str | None = None,
    to_date: str | None = None,
) -> dict[str, str]:
    """The ``works`` query, exactly as sent; dates are ``YYYY-MM-DD``."""
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ValueError(f"per_page must be between 1 and {MAX_PER_PAGE}, not {per_page}")
    filters: list[str] = []
    if cites is not None:
        wid = work_id(cites)
        if wid is None:
            raise ValueError(f"{cites!r} is not an OpenAlex work id (W123...)")
        filters.append(f"cites:{wid}")
    for name, value in (("from_publication_date", from_date), ("to_publication_date", to_date)):
        if value is not None:
            if not _DATE.fullmatch(value):
                raise ValueError(f"{value!r} is not a YYYY-MM-DD date")
            filters.append(f"{name}:{value}")
    params: dict[str, str] = {}
    if search is not None:
        if not search.strip():
            raise ValueError("an empty OpenAlex search cannot be sent")
        params["search"] = search
    if filters:
        params["filter"] = ",".join(filters)
    params["per_page"] = str(per_page)
    if cursor is not None:
        if cursor.isdigit():
            params["page"] = cursor
        else:
            params["cursor"] = cursor
    return params


async def works(client: httpx2.AsyncClient, params: dict[str, str]) -> WorksPage:
    """One page of ``works`` for ``params`` (see :func:`works_params`)."""
    response = await client.get(BASE_URL + "works", params=params)
    payload = _payload(response, "a works search")
    meta = payload.get("meta")
    count = meta.get("count") if isinstance(meta, dict) else None
    if not isinstance(count, int) or isinstance(count, bool):
        raise _fail("answered a works search without meta.count")
    assert isinstance(meta, dict)
    raw_results = payload.get("results")
    results = [
        work
        for raw in (raw_results if isinstance(raw_results, list) else [])
        if isinstance(raw, dict) and (work := _work(raw)) is not None
    ]
    next_cursor: str | None = None
    given = meta.get("next_cursor")
    if isinstance(given, str) and given and results:
        next_cursor = given
    elif "cursor" not in params and results:
        page = meta.get("page") if isinstance(meta.get("page"), int) else 1
        per_page = int(params.get("per_page", "25"))
        assert isinstance(page, int)
        if page * per_page < min(count, 10_000):
            next_cursor = str(page + 1)
    return WorksPage(count=count, results=results, next_cursor=next_cursor)


async def _lookup(
    client: httpx2.AsyncClient, kind: ExternalKind, value: str
) -> dict[str, Any] | None:
    """The work OpenAlex files under ``works/{kind}:{value}``, raw; ``None`` on its 404."""
    if kind not in ("doi", "pmid", "pmcid"):
        raise ValueError(f"kind must be doi, pmid or pmcid, not {kind!r}")
    text = value.strip()
    if not text or "," in text or "&" in text:
        raise ValueError(f"{value!r} cannot be looked up in OpenAlex")
    url = f"{BASE_URL}works/{kind}:{quote(text, safe='/().;:-_')}"
    response = await client.get(url)
    if response.status_code == 404:
        return None
    return _payload(response, f"a lookup of {kind}:{text}")


async def resolve_work(
    client: httpx2.AsyncClient, kind: ExternalKind, value: str
) -> OpenAlexWork | None:
    """The work OpenAlex files under ``works/{kind}:{value}``; ``None`` on its 404."""
    return await _looked_up(client, kind, value, _work)


async def lookup_record(
    client: httpx2.AsyncClient, kind: ExternalKind, value: str
) -> WorkRecord | None:
    """:func:`resolve_work` as a :class:`~citeproof.models.references.WorkRecord`."""
    return await _looked_up(client, kind, value, record_from_work)


async def _looked_up(
    client: httpx2.AsyncClient,
    kind: ExternalKind,
    value: str,
    read: Callable[[dict[str, Any]], _Read | None],
) -> _Read | None:
    """The work under ``works/{kind}:{value}`` as ``read`` makes it; ``None`` on OpenAlex's
    404, and a failure when the answer holds no work id."""
    raw = await _lookup(client, kind, value)
    if raw is None:
        return None
    found = read(raw)
    if found is None:
        raise _fail(f"answered the lookup of {kind}:{value.strip()} without a work id")
    return found


async def search_records(
    client: httpx2.AsyncClient, query: str, per_page: int = 5
) -> list[WorkRecord]:
    """The works OpenAlex ranks first for ``query`` (``works?search=``), as records; an empty
    list when nothing matched.  Raises ``UpstreamUnavailableError`` when the answer could not be
    read, so an unread search never looks like "no such work"."""
    params = {**works_params(search=query, per_page=per_page), "select": RECORD_SELECT}
    response = await client.get(BASE_URL + "works", params=params)
    payload = _payload(response, "a works search")
    results = payload.get("results")
    if not isinstance(results, list):
        raise _fail("answered a works search without results")
    return [r for raw in results if isinstance(raw, dict) and (r := record_from_work(raw))]
