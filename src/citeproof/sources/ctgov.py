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
from typing import Any

import httpx2

from citeproof.documents.ctgov import study_of
from citeproof.errors import BadInputError, CiteproofError
from citeproof.net.client import redact_url
from citeproof.sources.base import Fetched, SourceOutcome, get_or_outcome, unavailable

__all__ = ["STUDIES_URL", "fetch_study"]

STUDIES_URL = "https://clinicaltrials.gov/api/v2/studies/"
_NCT = re.compile(r"NCT[0-9]{8}", re.ASCII)


def _checked_nct(nct: str) -> str:
    value = nct.strip().upper()
    if not _NCT.fullmatch(value):
        raise BadInputError(f"{nct!r} is not an NCT number (NCT and 8 digits, e.g. NCT04363697).")
    return value


def _text(obj: object, *path: str) -> str | None:
    for name in path:
        obj = obj.get(name) if isinstance(obj, dict) else None
    return obj if isinstance(obj, str) and obj.strip() else None


async def fetch_study(client: httpx2.AsyncClient, nct: str) -> SourceOutcome:
    """Fetch one study's v2 JSON; see the module docstring for each outcome."""
    value = _checked_nct(nct)
    response = await get_or_outcome(
        client, STUDIES_URL + value, service="ClinicalTrials.gov", what=value,
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
