"""A DOI's landing page: ``https://doi.org/<doi>``, following the publisher's redirect.

Why through the SSRF guard: doi.org itself is trusted, but the redirect target is whatever URL
the registrant deposited, so every hop after doi.org is as untrusted as a URL in an AI answer.
The page's visible text becomes a ``page`` document (a PDF, if that is what the publisher
serves, goes to the PDF reader as ``full_text``; see :mod:`citeproof.sources.web`).

Decisions:

* The DOI is the caller's; the URL is ours.  So a refusal anywhere on the way (even doi.org
  resolving to an internal address) is ``unavailable`` with the refusal reason, never
  :class:`~citeproof.net.ssrf.UnsafeURLError`.  A string that is not a DOI at all is bad input
  (:class:`~citeproof.identifiers.UnknownIdentifierError` / ``BadInputError``, exit 2).
* The DOI goes into the path percent-encoded except ``/`` and the characters DOIs commonly use
  that are safe in a path (``( ) ; : @ ! $ & ' * + , =``), so ``#``, ``?``, ``%``, spaces,
  ``< >`` and brackets cannot cut the path short or be read as a query or fragment.
* doi.org answering 404 is ``missing`` ("doi.org does not know DOI ..."): the handle is not
  registered.  A 404 from the publisher after the redirect is ``missing`` too, but says so.

Which agency registered a DOI (:func:`registration_agency`, for ``citeproof refs``): a DOI
Crossref answers 404 for may be a DataCite (arXiv, Zenodo, datasets), mEDRA or JaLC DOI, or
no DOI at all, and only the DOI system itself can tell which.  Its "Which RA?" service (DOI
Handbook, "Which RA? Service": ``https://doi.org/doiRA/<doi>``; ``/ra/`` is the short alias
some clients use) answers a JSON list, ``[{"DOI": ..., "RA": "DataCite"}]``, or an error
state in ``status``: "DOI does not exist" and "Invalid DOI" are answers (``None``);
"Unknown", or anything else, is not knowing, and raises.  Agency names are returned as the
DOI Foundation spells them (``Crossref``, ``DataCite``, ``mEDRA``, ``JaLC`` ...), whatever
case the answer used.  It is an API call on the injected client, not the SSRF-guarded page
fetch above: nothing is followed, and the URL is ours.  Commas are percent-encoded in this
path, since the service reads a comma as a list of DOIs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import quote

import httpx2

from citeproof.errors import BadInputError
from citeproof.identifiers import parse_identifier
from citeproof.net.ssrf import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, Resolver, default_resolver
from citeproof.redact import strip_secret_params
from citeproof.sources.base import SourceOutcome, get_or_fail, missing, upstream_failure
from citeproof.sources.web import outcome_from_page, safe_get

__all__ = ["DOI_RESOLVER", "RA_URL", "doi_url", "fetch_doi_landing", "registration_agency"]

DOI_RESOLVER = "https://doi.org/"
#: The DOI system's "Which RA?" service.
RA_URL = DOI_RESOLVER + "doiRA/"
_DOI_HOSTS = frozenset({"doi.org", "dx.doi.org", "www.doi.org"})
# Path-safe characters kept readable; quote() always keeps letters, digits and "_.-~".
_SAFE = "/()@;:!$&'*+,="
#: The "Which RA?" error states that answer the question: there is no such registered DOI.
_NO_SUCH_DOI = frozenset({"doi does not exist", "invalid doi"})
#: The agencies' names as the DOI Foundation spells them, so a caller compares one spelling
#: (matched without case, so ``CrossRef`` and ``Crossref`` agree).
_AGENCIES = {
    name.lower(): name
    for name in (
        "Airiti",
        "CNKI",
        "Crossref",
        "DataCite",
        "EIDR",
        "ISTIC",
        "JaLC",
        "KISTI",
        "mEDRA",
        "OP",
        "Public",
    )
}
_fail = upstream_failure("doi.org", "doi.org")


def doi_url(doi: str) -> str:
    """``https://doi.org/<doi>`` with the DOI percent-encoded for a URL path."""
    return DOI_RESOLVER + quote(doi, safe=_SAFE)


def _canonical(doi: str) -> str:
    """The canonical DOI of ``doi`` (bare, ``doi:`` or a doi.org URL), or BadInputError."""
    ident = parse_identifier(doi)
    if ident.kind != "doi":
        raise BadInputError(f"{doi!r} is not a DOI (it reads as a {ident.kind}).")
    return ident.value


async def fetch_doi_landing(
    doi: str,
    *,
    resolver: Resolver = default_resolver,
    transport: httpx2.AsyncBaseTransport | None = None,
    allow_loopback_ports: Iterable[int] = frozenset(),
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> SourceOutcome:
    """Resolve ``doi`` at doi.org and fetch the landing page it redirects to.

    Options are those of :func:`citeproof.sources.web.fetch_page`; ``timeout`` bounds the
    whole redirect chain. ``served_by`` is ``"doi"`` and ``identifier`` the DOI's key.
    """
    value = _canonical(doi)
    got = await safe_get(
        doi_url(value),
        user_given=False,
        resolver=resolver,
        transport=transport,
        allow_loopback_ports=allow_loopback_ports,
        timeout=timeout,
        max_bytes=max_bytes,
    )
    if isinstance(got, SourceOutcome):
        return got
    at_doi_org = httpx2.URL(got.url_final).host in _DOI_HOSTS
    if got.status in (404, 410) and at_doi_org:
        return missing(f"doi.org does not know DOI {value} (it answered {got.status}).")
    landing = strip_secret_params(got.url_final)
    where = "doi.org" if at_doi_org else f"The landing page of DOI {value} ({landing})"
    return outcome_from_page(got, served_by="doi", identifier=f"doi:{value}", where=where)


async def registration_agency(client: httpx2.AsyncClient, doi: str) -> str | None:
    """The name of the agency that registered ``doi`` (``"Crossref"``, ``"DataCite"``,
    ``"mEDRA"`` ...), or ``None`` when doi.org says the DOI does not exist or is invalid.

    Raises :class:`~citeproof.errors.UpstreamUnavailableError` for any other answer (another
    status, a body that is not the documented list, the "Unknown" state): nothing about the
    DOI may be concluded from a look-up that failed.
    """
    wanted = doi.strip()
    if not wanted:
        raise ValueError("an empty DOI cannot be looked up")
    what = f"the registration agency of {wanted}"
    url = RA_URL + quote(wanted, safe=_SAFE.replace(",", ""))
    response = await get_or_fail(client, url, what, _fail)
    status = response.status_code
    if status not in (200, 400, 404):
        raise _fail(f"answered HTTP {status} to {what}")
    # doi.org answers 200 even for a DOI that does not exist; a 400/404 is read only for the
    # documented "does not exist"/"Invalid DOI" answer, never taken as one by itself.
    try:
        payload = json.loads(response.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise _fail(f"answered {what} (HTTP {status}) with a body that is not JSON") from exc
    entry = payload[0] if isinstance(payload, list) and payload else None
    if not isinstance(entry, dict):
        raise _fail(f"answered {what} (HTTP {status}) without the list of one DOI")
    agency, state = entry.get("RA"), entry.get("status")
    if status == 200 and isinstance(agency, str) and agency.strip():
        return _AGENCIES.get(agency.strip().lower(), agency.strip())
    if isinstance(state, str) and state.strip().lower() in _NO_SUCH_DOI:
        return None
    said = f"status {state!r}" if isinstance(state, str) else f"HTTP {status} without an RA"
    raise _fail(f"could not say {what} ({said})")
