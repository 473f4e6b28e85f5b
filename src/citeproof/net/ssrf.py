"""SSRF-safe fetching of URLs that come from a user or a model.

A URL typed by a user, pasted into an AI answer or returned as a DOI landing page can point
anywhere: at ``127.0.0.1``, at a cloud metadata service (``169.254.169.254``), at a router on
the private network. citeproof only ever reads *public* web pages, so every such URL goes
through this module, which enforces:

* ``http``/``https`` only; credentials in URLs refused (they would be sent to whoever answers,
  and they are a classic way to disguise a host: ``http://public.example@10.0.0.1/``);
* legacy numeric host spellings (``0x7f000001``, ``2130706433``, ``127.1``) refused outright,
  because resolvers disagree on what they mean;
* the host resolved and **every** address checked public (:func:`address_problem`); if any
  answer is internal the whole fetch is refused rather than "picking the good one", since a host
  that answers with an internal address at all is misconfigured or attempting DNS rebinding;
* the connection made to the checked address (:class:`SafeTransport` rewrites the URL host to
  the IP, keeps the ``Host`` header and sets the TLS ``sni_hostname`` extension, so certificate
  verification is still done against the hostname) — a second DNS answer cannot swap in an
  internal address between the check and the connect;
* the same checks on every redirect hop, at most 5 hops (:func:`fetch` follows them itself);
* no proxies from the environment (clients are built with ``trust_env=False``);
* a total deadline (15 s) and a body cap (5 MB) by default.

The checks made before any network activity (the URL, each address) are the pure module
:mod:`citeproof.net.addresses`; this module re-exports them, and adds resolution, the
transport and the fetch.

Tests reach a local server only through ``allow_loopback_ports``, an explicit exemption that is
empty by default and only ever exempts loopback addresses on the listed ports.

Refusals raise :class:`UnsafeURLError` (bad input, exit 2); failures to read a public URL raise
:class:`FetchError` and its subclasses, which are :mod:`citeproof.errors` network errors
(exit 3, reported as UNAVAILABLE).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import httpx2

from citeproof.errors import (
    FetchError,
    FetchTimeoutError,
    ResponseTooLargeError,
    TooManyRedirectsError,
)
from citeproof.net.addresses import (
    IPAddress,
    ParsedURL,
    UnsafeURLError,
    address_problem,
    check_url,
    display_url,
    is_public_address,
)

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_REDIRECTS",
    "DEFAULT_TIMEOUT",
    "FetchError",
    "FetchTimeoutError",
    "FetchedPage",
    "IPAddress",
    "ParsedURL",
    "Resolver",
    "ResponseTooLargeError",
    "SafeTransport",
    "TooManyRedirectsError",
    "UnsafeURLError",
    "address_problem",
    "check_url",
    "default_resolver",
    "display_url",
    "fetch",
    "is_public_address",
    "make_safe_client",
    "resolve_checked",
]

DEFAULT_TIMEOUT = 15.0
DEFAULT_MAX_BYTES = 5_000_000
DEFAULT_MAX_REDIRECTS = 5

#: Extension key under which :class:`SafeTransport` records the address it connected to,
#: so the evidence log can say which machine served the bytes.
CONNECTED_ADDRESS_EXTENSION = "citeproof.connected_address"

#: ``await resolver(host, port)`` -> every address the host resolves to, as strings.
Resolver = Callable[[str, int], Awaitable[list[str]]]


# --------------------------------------------------------------------------- errors


# --------------------------------------------------------------------------- resolution


async def default_resolver(host: str, port: int) -> list[str]:
    """Resolve with the system resolver (``getaddrinfo``), keeping the answer order."""
    infos = await asyncio.get_running_loop().getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
    )
    seen: dict[str, None] = {}
    for _family, _type, _proto, _canon, sockaddr in infos:
        seen.setdefault(str(sockaddr[0]), None)
    return list(seen)


def _exempt(addr: IPAddress, port: int, allow_loopback_ports: Iterable[int]) -> bool:
    """The test exemption: loopback only, and only on the ports explicitly listed."""
    return addr.is_loopback and port in set(allow_loopback_ports)


async def resolve_checked(
    parsed: ParsedURL,
    resolver: Resolver = default_resolver,
    *,
    allow_loopback_ports: Iterable[int] = frozenset(),
) -> IPAddress:
    """Resolve ``parsed.host`` and return the address to connect to.

    Every answer must be public (or exempt); if any is not, the URL is refused — choosing the
    public answer from a mixed set would let a rebinding attacker win on the next lookup.
    """
    shown = display_url(parsed.url)
    if parsed.literal_ip is not None:
        answers: list[IPAddress] = [parsed.literal_ip]
    else:
        try:
            raw = await resolver(parsed.host, parsed.port)
        except (OSError, UnicodeError) as exc:
            raise FetchError(
                f"Could not fetch {shown}: the host {parsed.host!r} could not be resolved "
                f"({exc}). Check the address or try again later."
            ) from exc
        try:
            answers = [ipaddress.ip_address(a) for a in raw]
        except ValueError as exc:
            raise FetchError(
                f"Could not fetch {shown}: the resolver returned an invalid address ({exc})."
            ) from exc
        if not answers:
            raise FetchError(f"Could not fetch {shown}: {parsed.host!r} has no addresses.")
    for addr in answers:
        problem = address_problem(addr)
        if problem and not _exempt(addr, parsed.port, allow_loopback_ports):
            via = "is" if parsed.literal_ip is not None else f"resolves to {addr}, which is"
            raise UnsafeURLError(
                f"Refused to fetch {shown}: host {parsed.host!r} {via} a {problem} address; "
                "citeproof only fetches pages on public internet addresses."
            )
    return answers[0]


# --------------------------------------------------------------------------- transport


class SafeTransport(httpx2.AsyncBaseTransport):
    """Check every request's host and connect to the checked address, not to a fresh lookup.

    The request sent to the inner transport has the IP as its URL host, the original ``Host``
    header, and (for https) ``sni_hostname`` set to the hostname, so httpcore's TLS handshake
    sends the right SNI and verifies the certificate against the hostname.

    Without an explicit ``inner``, one pooled ``AsyncHTTPTransport`` is kept per hostname, so a
    connection verified for one hostname is never reused for another that shares its IP.
    """

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport | None = None,
        *,
        resolver: Resolver = default_resolver,
        allow_loopback_ports: Iterable[int] = frozenset(),
    ) -> None:
        self._inner = inner
        self._per_host: dict[str, httpx2.AsyncHTTPTransport] = {}
        self._resolver = resolver
        self._allow = frozenset(allow_loopback_ports)

    def _transport_for(self, host: str) -> httpx2.AsyncBaseTransport:
        if self._inner is not None:
            return self._inner
        if host not in self._per_host:
            self._per_host[host] = httpx2.AsyncHTTPTransport(retries=0)
        return self._per_host[host]

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        parsed = check_url(request.url)
        addr = await resolve_checked(parsed, self._resolver, allow_loopback_ports=self._allow)
        headers = request.headers.copy()
        if "host" not in headers:
            headers["Host"] = request.url.netloc.decode("ascii")
        extensions = dict(request.extensions)
        if parsed.scheme == "https":
            extensions["sni_hostname"] = parsed.host.rstrip(".")
        pinned = httpx2.Request(
            request.method,
            request.url.copy_with(host=str(addr)),
            headers=headers,
            stream=request.stream,
            extensions=extensions,
        )
        response = await self._transport_for(parsed.host).handle_async_request(pinned)
        response.extensions[CONNECTED_ADDRESS_EXTENSION] = str(addr)
        return response

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()
        for transport in self._per_host.values():
            await transport.aclose()
        self._per_host.clear()


def make_safe_client(
    inner: httpx2.AsyncBaseTransport | None = None,
    *,
    resolver: Resolver = default_resolver,
    allow_loopback_ports: Iterable[int] = frozenset(),
    timeout: float = DEFAULT_TIMEOUT,
    headers: Mapping[str, str] | None = None,
) -> httpx2.AsyncClient:
    """A client for untrusted URLs: :class:`SafeTransport`, no env proxies, no auto-redirects.

    ``trust_env=False`` matters: with it on, proxy variables would mount proxy transports that
    bypass ``SafeTransport`` entirely.
    """
    return httpx2.AsyncClient(
        transport=SafeTransport(
            inner, resolver=resolver, allow_loopback_ports=allow_loopback_ports
        ),
        trust_env=False,
        follow_redirects=False,
        timeout=timeout,
        headers=dict(headers or {}),
    )


def _require_safe(client: httpx2.AsyncClient) -> None:
    """Refuse a client that could bypass the guard (reads private httpx attributes on purpose:
    a wrong client here would silently reopen SSRF)."""
    transport = getattr(client, "_transport", None)
    if (
        client.trust_env
        or getattr(client, "_mounts", None)
        or not isinstance(transport, SafeTransport)
    ):
        raise ValueError(
            "fetch() needs a client from make_safe_client(): SafeTransport, trust_env=False, "
            "no mounts."
        )


# --------------------------------------------------------------------------- fetch


@dataclass(frozen=True)
class FetchedPage:
    """What a safe fetch returned, after redirects."""

    url_final: str
    status: int
    headers: httpx2.Headers
    body: bytes
    #: media type without parameters, lower case (``"text/html"``), or None if absent.
    content_type: str | None
    #: every URL requested, in order, the first being the one asked for.
    chain: tuple[str, ...] = field(default=())
    #: the address the final response came from.
    address: str | None = None


@asynccontextmanager
async def _client_for(
    client: httpx2.AsyncClient | None,
    inner: httpx2.AsyncBaseTransport | None,
    resolver: Resolver,
    allow_loopback_ports: Iterable[int],
    timeout: float,
) -> AsyncIterator[httpx2.AsyncClient]:
    if client is not None:
        if inner is not None:
            raise ValueError("fetch() takes a client or a transport, not both.")
        _require_safe(client)
        yield client
        return
    async with make_safe_client(
        inner, resolver=resolver, allow_loopback_ports=allow_loopback_ports, timeout=timeout
    ) as own:
        yield own


async def _read_capped(response: httpx2.Response, max_bytes: int, shown: str) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise ResponseTooLargeError(
            f"Could not fetch {shown}: the server announced {int(declared):,} bytes, over the "
            f"{max_bytes:,}-byte cap.",
            limit=max_bytes,
        )
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.aiter_bytes():  # decoded, so a compression bomb is capped too
        total += len(chunk)
        if total > max_bytes:
            raise ResponseTooLargeError(
                f"Could not fetch {shown}: the body is larger than the {max_bytes:,}-byte cap.",
                limit=max_bytes,
            )
        chunks.append(chunk)
    return b"".join(chunks)


async def fetch(
    url: str,
    *,
    client: httpx2.AsyncClient | None = None,
    transport: httpx2.AsyncBaseTransport | None = None,
    resolver: Resolver = default_resolver,
    allow_loopback_ports: Iterable[int] = frozenset(),
    headers: Mapping[str, str] | None = None,
    max_redirects: int = DEFAULT_MAX_REDIRECTS,
    timeout: float = DEFAULT_TIMEOUT,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> FetchedPage:
    """GET an untrusted URL safely, following at most ``max_redirects`` redirects.

    Every hop is checked by :func:`check_url` here (for a clear message naming the hop) and
    again by :class:`SafeTransport` with DNS. ``timeout`` bounds the whole fetch, DNS and
    redirects included. Non-2xx final answers are returned, not raised: the caller decides.
    ``client`` (from :func:`make_safe_client`) or ``transport`` (the inner transport, e.g. a
    recording mock in tests) may be injected, not both; with ``client`` its own resolver and
    exemptions apply. By default a fresh safe client is made for this one fetch.
    """
    check_url(url)
    shown = display_url(url)
    chain: list[str] = []
    try:
        async with (
            asyncio.timeout(timeout),
            _client_for(client, transport, resolver, allow_loopback_ports, timeout) as http,
        ):
            current = httpx2.URL(url)
            previous: httpx2.URL | None = None
            for hop in range(max_redirects + 1):
                try:
                    check_url(current)
                    chain.append(str(current))
                    request = http.build_request("GET", current, headers=dict(headers or {}))
                    response = await http.send(request, stream=True)
                except UnsafeURLError as exc:
                    if previous is None:
                        raise
                    raise UnsafeURLError(
                        f"{exc} It was reached by a redirect from {display_url(previous)}."
                    ) from exc
                try:
                    location = response.headers.get("location")
                    if response.is_redirect and location:
                        if hop == max_redirects:
                            raise TooManyRedirectsError(
                                f"Could not fetch {shown}: more than {max_redirects} "
                                "redirects; the page may be in a redirect loop."
                            )
                        previous = current
                        try:
                            current = current.join(location)
                        except httpx2.InvalidURL as exc:
                            raise UnsafeURLError(
                                f"Refused to follow a redirect from {display_url(current)}: "
                                f"the target {location[:200]!r} is not a valid URL."
                            ) from exc
                        continue
                    body = await _read_capped(response, max_bytes, shown)
                finally:
                    await response.aclose()
                ctype = response.headers.get("content-type")
                return FetchedPage(
                    url_final=str(current),
                    status=response.status_code,
                    headers=response.headers,
                    body=body,
                    content_type=ctype.split(";")[0].strip().lower() if ctype else None,
                    chain=tuple(chain),
                    address=response.extensions.get(CONNECTED_ADDRESS_EXTENSION),
                )
    except TimeoutError as exc:
        raise FetchTimeoutError(
            f"Could not fetch {shown}: no complete answer within {timeout:g} seconds."
        ) from exc
    except httpx2.TimeoutException as exc:
        raise FetchTimeoutError(f"Could not fetch {shown}: timed out ({exc}).") from exc
    except httpx2.HTTPError as exc:
        raise FetchError(f"Could not fetch {shown}: {type(exc).__name__}: {exc}.") from exc
    raise AssertionError("unreachable: the redirect loop always returns or raises")
