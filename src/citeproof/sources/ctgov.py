"""ClinicalTrials.gov API v2: a trial's registry record, quoted like a paper.

The source only fetches and validates; ``citeproof.documents.ctgov`` makes the Document.

Decisions:

* ``GET https://clinicaltrials.gov/api/v2/studies/<NCT>``: the whole record, not a
  ``fields=`` subset, because any prose field (outcomes, eligibility, results) may be what a
  citation quotes.  The registry answers 404 for an NCT number it does not hold: ``missing``.
  Any other status, or a 200 whose JSON is not the asked study, is ``unavailable``.
* ``coverage`` is ``full_text``: the registry record *is* the cited work, complete, not an
  abstract of something longer.  Publications about the trial are other works.
* ``version`` is the record's last-update post date (``statusModule.
  lastUpdatePostDateStruct.date``): the registry keeps a history and this date names the one
  that was read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx2

from citeproof.documents.ctgov import study_of
from citeproof.errors import CiteproofError
from citeproof.net.client import redact_url
from citeproof.sources.base import (
    Fetched,
    SourceOutcome,
    checked_identifier,
    get_or_outcome,
    json_answer,
    unavailable,
    upstream_failure,
)

__all__ = [
    "SEARCH_FIELDS",
    "STUDIES_URL",
    "StudiesPage",
    "StudySummary",
    "fetch_study",
    "search_studies",
    "studies_params",
]

STUDIES_URL = "https://clinicaltrials.gov/api/v2/studies/"


def _text(obj: object, *path: str) -> str | None:
    for name in path:
        obj = obj.get(name) if isinstance(obj, dict) else None
    return obj if isinstance(obj, str) and obj.strip() else None


async def fetch_study(client: httpx2.AsyncClient, nct: str) -> SourceOutcome:
    """Fetch one study's v2 JSON; see the module docstring for each outcome."""
    value = checked_identifier("nct", nct, "an NCT number (NCT and 8 digits, e.g. NCT04363697)")
    response = await get_or_outcome(
        client,
        STUDIES_URL + value,
        service="ClinicalTrials.gov",
        what=value,
        missing_reason=f"ClinicalTrials.gov has no study {value}.",
    )
    if isinstance(response, SourceOutcome):
        return response
    data = response.content
    try:
        study: dict[str, Any] = study_of(json.loads(data))
    except (ValueError, UnicodeDecodeError, RecursionError, CiteproofError) as err:
        return unavailable(f"ClinicalTrials.gov's answer for {value} could not be read: {err}")
    ident = study["protocolSection"].get("identificationModule")
    found = _text(ident, "nctId")
    if found is None or found.upper() != value:
        return unavailable(
            f"ClinicalTrials.gov answered {value} with study {found or '(none)'}; nothing was "
            "concluded."
        )
    status = study["protocolSection"].get("statusModule")
    return SourceOutcome(
        "fetched",
        fetched=Fetched(
            data=data,
            media_type="application/json",
            url=redact_url(response.request.url),
            served_by="ctgov",
            coverage="full_text",
            identifier=f"nct:{value}",
            version=_text(status, "lastUpdatePostDateStruct", "date"),
            title=_text(ident, "briefTitle"),
        ),
    )


# ---------------------------------------------------------------------------------------------
# Searching the registry (``citeproof search clinicaltrials``)

SEARCH_URL = "https://clinicaltrials.gov/api/v2/studies"
#: The fields a search asks for: enough to list and cite a study, a fraction of the record.
#: The same list tekmeria recorded, so its recorded search replays as is.
SEARCH_FIELDS = (
    "NCTId,BriefTitle,OfficialTitle,OverallStatus,Phase,EnrollmentCount,Condition,"
    "InterventionName,HasResults,ReferencePMID,ReferenceType,LastUpdatePostDate,"
    "StudyFirstPostDate"
)
_MAX_PAGE = 1000
_search_failure = upstream_failure("ClinicalTrials.gov", "clinicaltrials.gov")
_ISO_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", re.ASCII)


@dataclass(frozen=True, slots=True)
class StudySummary:
    nct: str
    title: str | None = None
    status: str | None = None
    first_posted: str | None = None
    last_updated: str | None = None
    pmids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StudiesPage:
    """``total`` is ``totalCount`` (asked for with ``countTotal=true``), when given."""

    total: int | None
    studies: list[StudySummary] = field(default_factory=list)
    next_page_token: str | None = None


def studies_params(
    *,
    term: str | None = None,
    cond: str | None = None,
    intr: str | None = None,
    advanced: str | None = None,
    since: str | None = None,
    until: str | None = None,
    page_size: int = 50,
    page_token: str | None = None,
    fields: str = SEARCH_FIELDS,
) -> dict[str, str]:
    """The ``studies`` query, exactly as sent.

    ``since``/``until`` (``YYYY-MM-DD``) limit the study's first-posted date through
    ``filter.advanced=AREA[StudyFirstPostDate]RANGE[a,b]`` (``MIN``/``MAX`` when open),
    joined with ``advanced`` by AND.
    """
    if not 1 <= page_size <= _MAX_PAGE:
        raise ValueError(f"page_size must be between 1 and {_MAX_PAGE}, not {page_size}")
    params: dict[str, str] = {}
    for name, value in (("query.term", term), ("query.cond", cond), ("query.intr", intr)):
        if value is not None:
            if not value.strip():
                raise ValueError(f"{name} must not be empty")
            params[name] = value
    if not params:
        raise ValueError("a study search needs a term, a condition or an intervention")
    filters = [advanced] if advanced else []
    if since is not None or until is not None:
        for value in (since, until):
            if value is not None and not _ISO_DATE.fullmatch(value):
                raise ValueError(f"{value!r} is not a YYYY-MM-DD date")
        filters.append(f"AREA[StudyFirstPostDate]RANGE[{since or 'MIN'},{until or 'MAX'}]")
    if filters:
        params["filter.advanced"] = " AND ".join(filters)
    params["fields"] = fields
    params["pageSize"] = str(page_size)
    params["countTotal"] = "true"
    params["format"] = "json"
    if page_token is not None:
        params["pageToken"] = page_token
    return params


def _summary(raw: dict[str, Any]) -> StudySummary | None:
    protocol = raw.get("protocolSection")
    ident = protocol.get("identificationModule") if isinstance(protocol, dict) else None
    nct = _text(ident, "nctId")
    if nct is None or not isinstance(protocol, dict):
        return None
    status = protocol.get("statusModule")
    refs = protocol.get("referencesModule")
    ref_list = refs.get("references") if isinstance(refs, dict) else None
    pmids = tuple(
        str(r["pmid"])
        for r in (ref_list if isinstance(ref_list, list) else [])
        if isinstance(r, dict) and isinstance(r.get("pmid"), str | int)
    )
    return StudySummary(
        nct=nct.upper(),
        title=_text(ident, "briefTitle") or _text(ident, "officialTitle"),
        status=_text(status, "overallStatus"),
        first_posted=_text(status, "studyFirstPostDateStruct", "date"),
        last_updated=_text(status, "lastUpdatePostDateStruct", "date"),
        pmids=pmids,
    )


async def search_studies(client: httpx2.AsyncClient, params: dict[str, str]) -> StudiesPage:
    """One page of ``studies`` for ``params`` (see :func:`studies_params`).

    Raises :class:`~citeproof.errors.NetworkError` when the answer could not be read.
    """
    response = await client.get(SEARCH_URL, params=params)
    payload = json_answer(response, "a study search", _search_failure)
    if not isinstance(payload, dict) or not isinstance(payload.get("studies", []), list):
        raise _search_failure("answered a study search without a studies list")
    studies = [
        summary
        for raw in payload.get("studies", [])
        if isinstance(raw, dict) and (summary := _summary(raw)) is not None
    ]
    total = payload.get("totalCount")
    token = payload.get("nextPageToken")
    return StudiesPage(
        total=total if isinstance(total, int) and not isinstance(total, bool) else None,
        studies=studies,
        next_page_token=token if isinstance(token, str) and token else None,
    )
