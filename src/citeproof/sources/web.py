"""A web page or PDF at a URL that came from a user or a model, fetched through the SSRF guard.

Why a source of its own: a URL pasted into an AI answer may point anywhere, so it is only ever
read with :func:`citeproof.net.ssrf.fetch` (public addresses only, every redirect hop checked,
deadline and byte cap), and its answer is turned into the same :class:`SourceOutcome` every
other source gives, so the best-available-text chain can report why nothing was read.

Decisions:

* **What the bytes are** is decided by content first, as :mod:`citeproof.documents.detect`
  does: a body with ``%PDF-`` in its first KiB is a PDF whatever its ``Content-Type`` (servers
  often say ``application/octet-stream``), and it goes to the PDF reader.  Otherwise
  ``text/html``/``application/xhtml+xml`` is a web page and ``text/plain`` is text; a body
  without a ``Content-Type`` is sniffed.  Anything else (images, archives, JSON, a "PDF" that
  is not one) is ``unavailable``: there is no text here that citeproof can read.
* **Coverage**: an HTML or text page is ``"page"`` (a landing page shows at most the abstract
  and the metadata, so a quote missing from it says little); a PDF is ``"full_text"``
  (:data:`~citeproof.sources.base.Coverage` has no ``"file"``, and a PDF is a whole document).
* **Status**: 404 and 410 are ``missing`` (the server answered that nothing is there); every
  other non-2xx answer, including a redirect without ``Location``, is ``unavailable`` naming the
  status, because nothing may be concluded from it.
* **Refusals**: an unsafe URL the *user* gave raises :class:`UnsafeURLError` (bad input, exit
  2).  An unsafe redirect target was chosen by the server, not the user, so it is
  ``unavailable`` with the refusal as the reason; nothing is fetched from it either way.  To
  tell the two apart the first hop is checked (and resolved) here before :func:`fetch` runs.
* Network failures (:class:`NetworkError`: DNS, connection, too many redirects, body over the
  cap, deadline) are ``unavailable`` with ``str(error)``.
* The stored URL is the final one, without contact/API-key parameters or credentials.  No
  contact address is sent to arbitrary hosts: the User-Agent names citeproof only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

import httpx2

from citeproof.documents.detect import detect_format
from citeproof.errors import CiteproofError, NetworkError
from citeproof.net.client import user_agent
from citeproof.net.ssrf import (
    DEFAULT_MAX_BYTES,
    DEFAULT_TIMEOUT,
    FetchedPage,
    FetchTimeoutError,
    Resolver,
    UnsafeURLError,
    check_url,
    default_resolver,
    display_url,
    fetch,
    resolve_checked,
)
from citeproof.redact import strip_secret_params
from citeproof.sources.base import Coverage, Fetched, SourceOutcome, missing, unavailable

__all__ = ["ACCEPT", "fetch_page", "outcome_from_page", "safe_get"]

#: What we ask for: pages and PDFs, anything else only if nothing better exists.
ACCEPT = "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.9,text/plain;q=0.5,*/*;q=0.1"

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_GONE = frozenset({404, 410})


def _media_type(body: bytes, content_type: str | None) -> tuple[str, Coverage] | str:
    """``(media_type, coverage)`` for bytes citeproof can read, else why it cannot."""
    if b"%PDF-" in body[:1024]:
        return "application/pdf", "full_text"
    if content_type in _HTML_TYPES:
        return "text/html", "page"
    if content_type == "text/plain":
        return "text/plain", "page"
    if content_type is None:
        try:
            detected = detect_format(body)
        except CiteproofError as exc:  # binary content: say what it is
            what = str(exc).rstrip(".")
            return f"it served no Content-Type, and {what[:1].lower()}{what[1:]}"
        if detected == "html":
            return "text/html", "page"
        if detected == "text":
            return "text/plain", "page"
        return f"it served no Content-Type and the body is {detected}, not a web page"
    if content_type == "application/pdf":
        return "it was served as application/pdf but the body is not a PDF"
    return f"it served {content_type}, which is neither a web page nor a PDF"


def outcome_from_page(
    page: FetchedPage, *, served_by: str, identifier: str | None = None, where: str | None = None
) -> SourceOutcome:
    """Turn a safe fetch's final answer into a :class:`SourceOutcome`.

    ``where`` names the page in reasons (default: the final URL without secrets); sources that
    know better (the DOI resolver) pass their own wording.
    """
    url = strip_secret_params(page.url_final)
    shown = where or url
    if page.status in _GONE:
        return missing(f"{shown} answered {page.status}: the page is not there.")
    if not 200 <= page.status < 300:
        return unavailable(f"{shown} answered HTTP {page.status}; nothing could be read from it.")
    if not page.body.strip():
        return unavailable(f"{shown} answered with an empty body.")
    kind = _media_type(page.body, page.content_type)
    if isinstance(kind, str):
        return unavailable(f"{shown} could not be read: {kind}.")
    media_type, coverage = kind
    return SourceOutcome(
        "fetched",
        fetched=Fetched(
            data=page.body,
            media_type=media_type,
            url=url,
            served_by=served_by,
            coverage=coverage,
            identifier=identifier,
        ),
    )


async def _check_first_hop(
    url: str, resolver: Resolver, allow_loopback_ports: Iterable[int], timeout: float
) -> None:
    """Raise :class:`UnsafeURLError` if the URL itself (not a redirect) may not be fetched.

    Costs one more DNS lookup than :func:`fetch` alone, which re-checks every hop anyway; in
    exchange a refusal after this point is known to come from a server-chosen redirect.
    """
    parsed = check_url(url)
    try:
        async with asyncio.timeout(timeout):
            await resolve_checked(parsed, resolver, allow_loopback_ports=allow_loopback_ports)
    except TimeoutError as exc:
        raise FetchTimeoutError(
            f"Could not fetch {display_url(url)}: the host did not resolve within {timeout:g} "
            "seconds."
        ) from exc


async def safe_get(
    url: str,
    *,
    user_given: bool,
    resolver: Resolver,
    transport: httpx2.AsyncBaseTransport | None,
    allow_loopback_ports: Iterable[int],
    timeout: float,
    max_bytes: int,
) -> FetchedPage | SourceOutcome:
    """The fetched page, or the ``unavailable`` outcome explaining why there is none.

    With ``user_given`` an unsafe ``url`` raises :class:`UnsafeURLError`; without it (a URL
    citeproof built itself, such as ``https://doi.org/...``) every refusal is ``unavailable``.
    """
    allowed = frozenset(allow_loopback_ports)
    if user_given:
        try:  # an UnsafeURLError here is the user's URL: it propagates (bad input)
            await _check_first_hop(url, resolver, allowed, timeout)
        except NetworkError as exc:
            return unavailable(str(exc))
    try:
        return await fetch(
            url,
            transport=transport,
            resolver=resolver,
            allow_loopback_ports=allowed,
            headers={"User-Agent": user_agent(None), "Accept": ACCEPT},
            timeout=timeout,
            max_bytes=max_bytes,
        )
    except UnsafeURLError as exc:
        # The first hop passed (or is ours), so a server chose this target: not bad input.
        return unavailable(str(exc))
    except NetworkError as exc:
        return unavailable(str(exc))


async def fetch_page(
    url: str,
    *,
    resolver: Resolver = default_resolver,
    transport: httpx2.AsyncBaseTransport | None = None,
    allow_loopback_ports: Iterable[int] = frozenset(),
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> SourceOutcome:
    """Fetch a user- or model-given URL safely; an HTML page or a PDF becomes ``fetched``.

    ``transport`` is the *inner* transport under :class:`~citeproof.net.ssrf.SafeTransport`
    (a mock in tests); ``resolver`` and ``allow_loopback_ports`` are the guard's. Raises
    :class:`UnsafeURLError` only for the URL as given; see the module docstring for the rest.
    """
    got = await safe_get(
        url,
        user_given=True,
        resolver=resolver,
        transport=transport,
        allow_loopback_ports=allow_loopback_ports,
        timeout=timeout,
        max_bytes=max_bytes,
    )
    if isinstance(got, SourceOutcome):
        return got
    # No identifier: the caller holds the parsed Identifier (a URL's key is not simply the URL).
    return outcome_from_page(got, served_by="web")
