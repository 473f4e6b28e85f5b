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
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import quote

import httpx2

from citeproof.errors import BadInputError
from citeproof.identifiers import parse_identifier
from citeproof.net.ssrf import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, Resolver, default_resolver
from citeproof.redact import strip_secret_params
from citeproof.sources.base import SourceOutcome, missing
from citeproof.sources.web import outcome_from_page, safe_get

__all__ = ["DOI_RESOLVER", "doi_url", "fetch_doi_landing"]

DOI_RESOLVER = "https://doi.org/"
_DOI_HOSTS = frozenset({"doi.org", "dx.doi.org", "www.doi.org"})
# Path-safe characters kept readable; quote() always keeps letters, digits and "_.-~".
_SAFE = "/()@;:!$&'*+,="


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
