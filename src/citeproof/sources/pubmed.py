"""PubMed through E-utilities ``efetch``: the abstract, the last link of the text chain.

For most of the literature a PubMed record (title and abstract) is the only text citeproof
may read, so this source is asked when no full text was served.  It only fetches and
validates; ``citeproof.documents.pubmed`` turns the bytes into a Document.

Decisions:

* ``GET efetch.fcgi?db=pubmed&id=<pmid>&retmode=xml``.  The client adds ``tool``, ``email``
  and ``api_key`` on the wire (``citeproof.net.client``), so they never reach the URL that is
  stored in the result.
* An empty ``PubmedArticleSet`` is PubMed saying it has no such record: ``missing``.
  A set whose records are all *other* PMIDs, an answer that is not a ``PubmedArticleSet``
  (an empty 200 body, or only the XML declaration: NCBI's known failure is a 200 whose body
  breaks off), or an HTTP status other than 200 means the answer could not be read as asked:
  ``unavailable`` (nothing may be concluded from it).
* A record without an abstract is still ``fetched`` (its title is real text, and the
  service decides that a quote cannot be checked against a title alone); the outcome's
  ``reason`` then says "PubMed has no abstract for PMID …", so the service can report
  NOT_CHECKABLE "no abstract" without parsing the bytes again.
* ``efetch_records`` fetches many PMIDs for the retraction check, at most 200 per request
  (NCBI's advice for GET; the URL stays short), and raises ``NetworkError`` rather than
  returning an outcome: a retraction source that failed is reported as failed, not as
  "no notice".
"""

from __future__ import annotations

from collections.abc import Sequence

import httpx2

from citeproof.documents.pubmed import PubmedRecord, parse_pubmed, pubmed_records
from citeproof.documents.safe_xml import parse_xml_safely
from citeproof.errors import BadInputError, CiteproofError, UpstreamUnavailableError
from citeproof.identifiers import KINDS
from citeproof.net.client import redact_url
from citeproof.sources.base import Fetched, SourceOutcome, get_or_outcome, missing, unavailable

__all__ = ["EFETCH_URL", "MAX_BATCH", "efetch_records", "fetch_pubmed"]

EFETCH_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi"
#: Most PMIDs one efetch GET asks for.
MAX_BATCH = 200

_SERVICE = "NCBI E-utilities"
_HOST = "eutils.ncbi.nlm.nih.gov"


def _checked_pmid(pmid: str) -> str:
    """The PMID's digits; anything else is refused before it can reach a URL."""
    value = pmid.strip()
    if not KINDS["pmid"].is_canonical(value):
        raise BadInputError(f"{pmid!r} is not a PMID (a positive number such as 27355798).")
    return value


def _records(data: bytes) -> list[PubmedRecord]:
    """The records of an efetch answer; an answer without a root element is not one."""
    if parse_xml_safely(data) is None:
        raise UpstreamUnavailableError(
            f"{_SERVICE} answered 200 with no XML document (an empty or cut-off answer).",
            service=_SERVICE,
            host=_HOST,
        )
    return pubmed_records(data)


def _params(pmids: Sequence[str]) -> dict[str, str]:
    return {"db": "pubmed", "id": ",".join(pmids), "retmode": "xml"}


async def fetch_pubmed(client: httpx2.AsyncClient, pmid: str) -> SourceOutcome:
    """Fetch one PubMed record as efetch XML; see the module docstring for each outcome."""
    value = _checked_pmid(pmid)
    response = await get_or_outcome(
        client, EFETCH_URL, params=_params([value]), service="PubMed", what=f"PMID {value}"
    )
    if isinstance(response, SourceOutcome):
        return response
    data = response.content
    try:
        records = _records(data)
    except CiteproofError as err:
        return unavailable(f"PubMed's answer for PMID {value} could not be read: {err}")
    if not records:
        return missing(f"PubMed has no record PMID {value}.")
    record = next((r for r in records if r.pmid == value), None)
    if record is None or records[0] is not record:
        # parse_pubmed reads the first record: it must be the one asked for.
        return unavailable(
            f"PubMed answered PMID {value} with a different record; nothing was concluded."
        )
    has_abstract = any(b.region == "abstract" for b in parse_pubmed(data).blocks)
    return SourceOutcome(
        "fetched",
        None if has_abstract else f"PubMed has no abstract for PMID {value}.",
        Fetched(
            data=data,
            media_type="application/xml",
            url=redact_url(response.request.url),
            served_by="pubmed",
            coverage="abstract",
            identifier=f"pmid:{value}",
            title=record.title,
        ),
    )


async def efetch_records(client: httpx2.AsyncClient, pmids: Sequence[str]) -> list[PubmedRecord]:
    """Every record PubMed holds for ``pmids`` (duplicates asked once), in answer order.

    PMIDs PubMed does not know are simply absent from the list.  Raises ``NetworkError``
    when any batch could not be fetched or read, so a partial answer is never taken for a
    complete one.
    """
    wanted = list(dict.fromkeys(_checked_pmid(p) for p in pmids))
    out: list[PubmedRecord] = []
    for start in range(0, len(wanted), MAX_BATCH):
        batch = wanted[start : start + MAX_BATCH]
        try:
            response = await client.get(EFETCH_URL, params=_params(batch))
        except httpx2.TransportError as err:
            raise UpstreamUnavailableError(
                f"{_SERVICE} could not be reached ({type(err).__name__}).",
                service=_SERVICE,
                host=_HOST,
            ) from err
        if response.status_code != 200:
            raise UpstreamUnavailableError(
                f"{_SERVICE} answered HTTP {response.status_code} to efetch of "
                f"{len(batch)} PMIDs; nothing was concluded.",
                service=_SERVICE,
                host=_HOST,
            )
        try:
            out.extend(_records(response.content))
        except UpstreamUnavailableError:
            raise
        except CiteproofError as err:
            raise UpstreamUnavailableError(
                f"{_SERVICE}'s efetch answer could not be read: {err}",
                service=_SERVICE,
                host=_HOST,
            ) from err
    return out
