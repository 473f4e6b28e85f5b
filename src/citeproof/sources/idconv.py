"""The PMC ID converter: map DOIs, PMIDs and PMCIDs to each other, many per request.

Why batched: resolving a reference list of 200 identifiers must cost one request, not 200 —
the converter accepts up to :data:`BATCH_SIZE` comma-separated ids per GET and NCBI allows
3 requests a second without an API key.

Reading the answer: every requested id comes back as a record. A record with
``status: "error"`` (for example "Identifier not found in PMC") says only that the id is not
*in PMC*; the work may well exist (the Wakefield 1998 Lancet paper has a DOI and a PMID but no
PMCID). So an error record is kept as :attr:`IdRecord.error`, never turned into "no such work";
the caller falls back to Europe PMC (``citeproof.sources.europepmc.find_by_doi``).

Failures: a :class:`~citeproof.errors.NetworkError` (after the client's retries) is
*raised*, not folded into the result. A dict in which some ids lack an answer would be
indistinguishable from "not in PMC" for a careless caller; raising forces the caller to
report UNAVAILABLE. An answer that is not the converter's JSON (an unexpected status, a
malformed body) is raised as a ``NetworkError`` too, for the same reason: nothing was
concluded. If a later batch fails, the answers of earlier batches are lost with it; a retry
of the whole call is cheap.

The contact parameters (``tool``, ``email``, ``api_key``) are added by the client
(``citeproof.net.client``), never here, so URLs a source sees or stores never carry them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx2

from citeproof.errors import NetworkError
from citeproof.sources.base import field_text

__all__ = ["BATCH_SIZE", "IDCONV_URL", "IdRecord", "IdType", "convert"]

IDCONV_URL = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/"
#: The converter's documented maximum number of ids per request.
BATCH_SIZE = 200
SERVICE = "PMC ID converter"

IdType = Literal["doi", "pmid", "pmcid"]
_IDTYPES: frozenset[str] = frozenset({"doi", "pmid", "pmcid"})


@dataclass(frozen=True, slots=True)
class IdRecord:
    """What the converter said about one requested id.

    ``error`` is the converter's ``errmsg`` (or a local reason) when it had no PMC record for
    the id; it does **not** mean the work does not exist. ``pmid`` is kept as a string of
    digits, as everywhere else in citeproof.
    """

    requested: str
    pmcid: str | None = None
    pmid: str | None = None
    doi: str | None = None
    error: str | None = None
    absent: bool = False
    """The answer held no record for the id at all: the converter said nothing about it,
    which is no answer (an ``error`` record at least says it is not in PMC)."""

    @property
    def in_pmc(self) -> bool:
        """True when the converter knows a PMCID for the id (its full text may be in PMC)."""
        return self.error is None and self.pmcid is not None


def _record(requested: str, raw: dict[str, Any]) -> IdRecord:
    errmsg: str | None = None
    if raw.get("status") == "error":
        errmsg = field_text(raw.get("errmsg")) or "the ID converter has no PMC record for it"
    # An error record still echoes the requested id in its own field (``doi`` for a DOI);
    # keep whatever it gives.
    return IdRecord(
        requested,
        pmcid=field_text(raw.get("pmcid")),
        pmid=field_text(raw.get("pmid")),
        doi=field_text(raw.get("doi")),
        error=errmsg,
    )


def _batches(ids: Sequence[str], size: int) -> list[list[str]]:
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]


async def _ask(client: httpx2.AsyncClient, batch: list[str], idtype: IdType) -> dict[str, IdRecord]:
    """One GET for ``batch``; records keyed by the id exactly as requested."""
    params = {"ids": ",".join(batch), "idtype": idtype, "format": "json"}
    response = await client.get(IDCONV_URL, params=params)
    host = response.request.url.host
    if response.status_code != 200:
        raise NetworkError(
            f"{SERVICE} ({host}) answered {response.status_code}; no ids were converted.",
            service=SERVICE,
            host=host,
        )
    try:
        payload = json.loads(response.content)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise NetworkError(
            f"{SERVICE} ({host}) answered with a body that is not JSON: {exc}.",
            service=SERVICE,
            host=host,
        ) from exc
    records = payload.get("records") if isinstance(payload, dict) else None
    if not isinstance(records, list):
        raise NetworkError(
            f"{SERVICE} ({host}) answered without a 'records' list; no ids were converted.",
            service=SERVICE,
            host=host,
        )
    # The converter echoes each id as ``requested-id``; match case-insensitively so that a
    # canonicalised echo (pmc12 -> PMC12) still finds the caller's spelling.
    # Every spelling of one id (PMC1 and pmc1 in the same batch) takes the same answer.
    wanted: dict[str, list[str]] = {}
    for requested in batch:
        wanted.setdefault(requested.casefold(), []).append(requested)
    found: dict[str, IdRecord] = {}
    for raw in records:
        if not isinstance(raw, dict):
            continue
        echoed = field_text(raw.get("requested-id"))
        for requested in wanted.get(echoed.casefold(), []) if echoed else []:
            if requested not in found:
                found[requested] = _record(requested, raw)
    for requested in batch:
        if requested not in found:
            found[requested] = IdRecord(
                requested, error="the ID converter's answer had no record for this id", absent=True
            )
    return found


async def convert(
    client: httpx2.AsyncClient,
    ids: Sequence[str],
    idtype: IdType,
    *,
    batch_size: int = BATCH_SIZE,
) -> dict[str, IdRecord]:
    """Convert ``ids`` (all of one ``idtype``) with one request per batch of ``batch_size``.

    Returns a record for every distinct id, keyed by the id as given minus surrounding
    whitespace (blank ids are dropped, duplicates asked once). An id containing a comma cannot
    be sent in a comma-separated batch, so it gets a local error record without being asked
    about. Raises :class:`NetworkError` when a batch could not be read (see the module
    docstring).
    """
    if idtype not in _IDTYPES:
        raise ValueError(f"idtype must be one of doi, pmid, pmcid, not {idtype!r}")
    if not 1 <= batch_size <= BATCH_SIZE:
        raise ValueError(f"batch_size must be between 1 and {BATCH_SIZE}, not {batch_size}")
    result: dict[str, IdRecord] = {}
    to_ask: list[str] = []
    seen: set[str] = set()
    for raw_id in ids:
        requested = raw_id.strip()
        if not requested or requested in seen:
            continue
        seen.add(requested)
        if "," in requested:
            result[requested] = IdRecord(
                requested, error="contains a comma, which the ID converter cannot be asked"
            )
            continue
        to_ask.append(requested)
    for batch in _batches(to_ask, batch_size):
        result.update(await _ask(client, batch, idtype))
    return result
