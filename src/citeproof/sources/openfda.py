"""openFDA drug labels: a label's sections, read by its SPL set id.

The source only fetches and validates; ``citeproof.documents.openfda`` makes the Document.

Decisions:

* ``GET https://api.fda.gov/drug/label.json?search=set_id:"<uuid>"&limit=1&skip=0&sort=
  effective_time:desc``: one label, the newest should openFDA ever hold more than one
  version of a set id.  ``skip=0`` and the sort are the query tekmeria recorded, so the
  recorded answer in the shared corpus replays as is.
* openFDA answers 404 ("No matches found!") when the search matches nothing: ``missing``.
  Any other status, or a 200 without a label of the asked set id, is ``unavailable``.
* ``coverage`` is ``full_text`` (the label is the whole cited document); ``version`` is the
  label's own ``version``; the title is the brand (else generic) name, as the parser gives.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx2

from citeproof.documents.openfda import label_of, parse_openfda
from citeproof.errors import CiteproofError
from citeproof.net.client import redact_url
from citeproof.sources.base import (
    Fetched,
    SourceOutcome,
    checked_identifier,
    get_or_outcome,
    json_object,
    unavailable,
    upstream_failure,
)

__all__ = [
    "LABEL_URL",
    "LabelSummary",
    "LabelsPage",
    "drug_query",
    "fetch_label",
    "labels_params",
    "search_labels",
]

LABEL_URL = "https://api.fda.gov/drug/label.json"


async def fetch_label(client: httpx2.AsyncClient, set_id: str) -> SourceOutcome:
    """Fetch the drug label with this set id; see the module docstring for each outcome."""
    value = checked_identifier(
        "setid", set_id, "an SPL set id (a UUID such as 7c4deb97-9966-4c8e-9ba6-bb260b71e130)"
    )
    params = {
        "search": f'set_id:"{value}"',
        "limit": "1",
        "skip": "0",
        "sort": "effective_time:desc",
    }
    response = await get_or_outcome(
        client,
        LABEL_URL,
        params=params,
        service="openFDA",
        what=f"set id {value}",
        missing_reason=f"openFDA has no drug label with set id {value}.",
    )
    if isinstance(response, SourceOutcome):
        return response
    data = response.content
    try:
        label = label_of(json.loads(data))
        title = parse_openfda(data).meta.title
    except (ValueError, UnicodeDecodeError, RecursionError, CiteproofError) as err:
        return unavailable(f"openFDA's answer for set id {value} could not be read: {err}")
    found = label.get("set_id")
    if not isinstance(found, str) or found.lower() != value:
        return unavailable(
            f"openFDA answered set id {value} with label {found!r}; nothing was concluded."
        )
    version = label.get("version")
    return SourceOutcome(
        "fetched",
        fetched=Fetched(
            data=data,
            media_type="application/json",
            url=redact_url(response.request.url),
            served_by="openfda",
            coverage="full_text",
            identifier=f"setid:{value}",
            version=version if isinstance(version, str) else None,
            title=title,
        ),
    )


# ---------------------------------------------------------------------------------------------
# Searching labels (``citeproof search openfda``)

#: openFDA serves at most 1,000 results a request and skips at most 25,000.
MAX_LIMIT = 1000
MAX_SKIP = 25_000
_YMD = re.compile(r"[0-9]{8}", re.ASCII)
_search_failure = upstream_failure("openFDA", "api.fda.gov")


@dataclass(frozen=True, slots=True)
class LabelSummary:
    set_id: str
    title: str | None = None
    version: str | None = None
    effective_time: str | None = None


@dataclass(frozen=True, slots=True)
class LabelsPage:
    """``total`` is ``meta.results.total``; 0 for openFDA's "No matches found!" 404."""

    total: int
    labels: list[LabelSummary] = field(default_factory=list)


def drug_query(name: str) -> str:
    """The search for a drug by name: brand, generic or substance name, or (for labels
    without ``openfda`` annotations) the product data elements — tekmeria's recorded form."""
    value = " ".join(name.replace('"', " ").split())
    if not value:
        raise ValueError("an empty drug name cannot be searched")
    return (
        f'openfda.brand_name:"{value}" OR openfda.generic_name:"{value}" OR '
        f'openfda.substance_name:"{value}" OR '
        f'(_missing_:openfda AND spl_product_data_elements:"{value}")'
    )


def labels_params(
    search: str,
    *,
    limit: int = 10,
    skip: int = 0,
    since: str | None = None,
    until: str | None = None,
) -> dict[str, str]:
    """The label query, exactly as sent; ``since``/``until`` are ``YYYYMMDD`` bounds on the
    label's ``effective_time``; results newest first."""
    if not search.strip():
        raise ValueError("an empty openFDA search cannot be sent")
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit must be between 1 and {MAX_LIMIT}, not {limit}")
    if not 0 <= skip <= MAX_SKIP:
        raise ValueError(f"skip must be between 0 and {MAX_SKIP}, not {skip}")
    query = search
    if since is not None or until is not None:
        for value in (since, until):
            if value is not None and not _YMD.fullmatch(value):
                raise ValueError(f"{value!r} is not a YYYYMMDD date")
        query = f"({search}) AND effective_time:[{since or '18000101'} TO {until or '30001231'}]"
    return {
        "search": query,
        "limit": str(limit),
        "skip": str(skip),
        "sort": "effective_time:desc",
    }


def _label_summary(raw: dict[str, Any]) -> LabelSummary | None:
    set_id = raw.get("set_id")
    if not isinstance(set_id, str) or not set_id.strip():
        return None
    names = raw.get("openfda") if isinstance(raw.get("openfda"), dict) else {}
    assert isinstance(names, dict)
    title = None
    for key in ("brand_name", "generic_name"):
        values = names.get(key)
        if isinstance(values, list) and values and isinstance(values[0], str):
            title = values[0]
            break
    version = raw.get("version")
    effective = raw.get("effective_time")
    return LabelSummary(
        set_id=set_id.strip().lower(),
        title=title,
        version=version if isinstance(version, str) else None,
        effective_time=effective if isinstance(effective, str) else None,
    )


def _nothing_matched(response: httpx2.Response) -> bool:
    """openFDA's 404 for a search that matched nothing (``error.code`` ``NOT_FOUND``), as
    opposed to any other 404, which is a failure."""
    try:
        payload = json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        return False
    error = payload.get("error") if isinstance(payload, dict) else None
    return isinstance(error, dict) and error.get("code") == "NOT_FOUND"


async def search_labels(client: httpx2.AsyncClient, params: dict[str, str]) -> LabelsPage:
    """One page of labels for ``params`` (see :func:`labels_params`).

    openFDA answers 404 with ``error.code`` ``NOT_FOUND`` when nothing matches: an empty page.
    Any other failure raises :class:`~citeproof.errors.NetworkError`.
    """
    response = await client.get(LABEL_URL, params=params)
    if response.status_code == 404 and _nothing_matched(response):
        return LabelsPage(total=0)
    payload = json_object(response, "a label search", _search_failure)
    meta = payload.get("meta")
    results_meta = meta.get("results") if isinstance(meta, dict) else None
    total = results_meta.get("total") if isinstance(results_meta, dict) else None
    if not isinstance(total, int) or isinstance(total, bool):
        raise _search_failure("answered a label search without meta.results.total")
    raw_results = payload.get("results")
    labels = [
        label
        for raw in (raw_results if isinstance(raw_results, list) else [])
        if isinstance(raw, dict) and (label := _label_summary(raw)) is not None
    ]
    return LabelsPage(total=total, labels=labels)
