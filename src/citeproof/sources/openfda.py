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

import httpx2

from citeproof.documents.openfda import label_of, parse_openfda
from citeproof.errors import BadInputError, CiteproofError
from citeproof.net.client import redact_url
from citeproof.sources.base import Fetched, SourceOutcome, get_or_outcome, unavailable

__all__ = ["LABEL_URL", "fetch_label"]

LABEL_URL = "https://api.fda.gov/drug/label.json"
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.ASCII)


def _checked_set_id(set_id: str) -> str:
    value = set_id.strip().lower()
    if not _UUID.fullmatch(value):
        raise BadInputError(
            f"{set_id!r} is not an SPL set id (a UUID such as "
            "7c4deb97-9966-4c8e-9ba6-bb260b71e130)."
        )
    return value


async def fetch_label(client: httpx2.AsyncClient, set_id: str) -> SourceOutcome:
    """Fetch the drug label with this set id; see the module docstring for each outcome."""
    value = _checked_set_id(set_id)
    params = {
        "search": f'set_id:"{value}"',
        "limit": "1",
        "skip": "0",
        "sort": "effective_time:desc",
    }
    response = await get_or_outcome(
        client, LABEL_URL, params=params, service="openFDA", what=f"set id {value}",
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
