"""The one factory every source's ``httpx2.AsyncClient`` comes from.

Stack (outermost first)::

    AsyncClient(trust_env=False, timeouts, Accept-Encoding: gzip, deflate)
      -> ContactTransport    adds the contact address and the API keys on the wire only
        -> RetryingTransport rate limit, concurrency, retries, body cap, per-check deadline
          -> inner            the network, or a replaying transport in tests

Why the contact address and API keys are added in a transport: ``httpx`` sets
``response.request`` to the *caller's* request, so the URL and headers a source sees (and may
store in the cache, the evidence log or a fixture) never contain them. Only the wire does.
Whoever records traffic below this layer must scrub with
:func:`citeproof.redact.strip_secret_params` and the values :func:`api_keys` returns.

The keys: ``NCBI_API_KEY`` (NCBI's ``api_key``: 10 requests a second instead of 3) and
``OPENALEX_API_KEY`` (OpenAlex's ``api_key``, the parameter its documentation gives: since
February 2026 a search draws on a daily budget, a free key's much larger than the keyless
one). Each goes only to its own service. OpenAlex answers without a key too, so none is
required; a source tells the two cases apart in its reasons by the response extension
:data:`KEY_SENT`.

``trust_env=False``: proxies, ``.netrc`` credentials and CA bundles from the environment must
not silently change what a reproducible check talks to.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime

import httpx2

from citeproof._version import distribution_version
from citeproof.net.ratelimit import Clock, RateLimiter, Sleep, service_for, shared_limiter
from citeproof.net.retry import DEFAULT_MAX_BODY, RetryingTransport
from citeproof.redact import strip_secret_params

DEFAULT_TIMEOUT = httpx2.Timeout(connect=10.0, read=30.0, write=30.0, pool=10.0)
TOOL_NAME = "citeproof"

# Service name -> which contact parameters it asks for (see APIS.md).
_NCBI_CONTACT = ("email", "tool")
_CONTACT_PARAMS: dict[str, tuple[str, ...]] = {
    "NCBI E-utilities": _NCBI_CONTACT,
    "PMC ID converter": _NCBI_CONTACT,
    "Crossref": ("mailto",),
    "OpenAlex": ("mailto",),
    "Europe PMC": ("email",),
}
# Only the services the key is for; LitSense and web pages on NCBI hosts never see it.
_API_KEY_SERVICES = frozenset({"NCBI E-utilities", "PMC ID converter"})
NCBI_KEY_ENV = "NCBI_API_KEY"
OPENALEX_KEY_ENV = "OPENALEX_API_KEY"
#: A response extension on OpenAlex's answers: True when the request carried an API key.
KEY_SENT = "citeproof_api_key_sent"


def api_keys(env: Mapping[str, str] | None = None) -> list[str]:
    """The API keys set in the environment, for whoever must scrub them (recordings)."""
    env = os.environ if env is None else env
    return [v for v in (env.get(n, "").strip() for n in (NCBI_KEY_ENV, OPENALEX_KEY_ENV)) if v]


def _utcnow() -> datetime:
    return datetime.now(UTC)


def user_agent(contact: str | None) -> str:
    """``citeproof/<version> (+mailto:<contact>)``: services ask to be able to reach us."""
    base = f"citeproof/{distribution_version()}"
    return f"{base} (+mailto:{contact})" if contact else base


def redact_url(url: httpx2.URL | str) -> str:
    """The URL without the contact/API-key parameters, safe to store or log."""
    return strip_secret_params(str(url))


class ContactTransport(httpx2.AsyncBaseTransport):
    """Adds ``email``/``tool``/``mailto``/``api_key`` per service and the full User-Agent.

    Parameters the caller already set are left alone, so a source can override them.
    """

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        *,
        contact: str | None,
        api_key: str | None,
        openalex_key: str | None = None,
    ) -> None:
        self.inner = inner
        self.contact = contact or None
        self.api_key = api_key or None
        self.openalex_key = openalex_key or None
        self._user_agent = user_agent(self.contact)

    def _params(self, url: httpx2.URL) -> list[tuple[str, str]]:
        name = service_for(url).name
        wanted: list[tuple[str, str]] = []
        for param in _CONTACT_PARAMS.get(name, ()):
            if param == "tool":
                wanted.append(("tool", TOOL_NAME))
            elif self.contact:
                wanted.append((param, self.contact))
        if self.api_key and name in _API_KEY_SERVICES:
            wanted.append(("api_key", self.api_key))
        if self.openalex_key and name == "OpenAlex":
            wanted.append(("api_key", self.openalex_key))
        return [(k, v) for k, v in wanted if k not in url.params]

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        extra = self._params(request.url)
        url = request.url
        if extra:
            url = url.copy_with(params=[*url.params.multi_items(), *extra])
        headers = httpx2.Headers(request.headers)
        headers["User-Agent"] = self._user_agent
        wire = httpx2.Request(
            request.method,
            url,
            headers=headers,
            stream=request.stream,
            extensions=request.extensions,
        )
        response = await self.inner.handle_async_request(wire)
        if service_for(url).name == "OpenAlex":
            response.extensions[KEY_SENT] = bool(url.params.get("api_key"))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def make_client(
    *,
    transport: httpx2.AsyncBaseTransport | None = None,
    contact: str | None = None,
    api_key: str | None = None,
    openalex_key: str | None = None,
    timeout: httpx2.Timeout = DEFAULT_TIMEOUT,
    max_body: int = DEFAULT_MAX_BODY,
    max_wait: float = 60.0,
    attempts: int = 3,
    base_backoff: float = 0.5,
    clock: Clock | None = None,
    sleep: Sleep | None = None,
    now: Callable[[], datetime] | None = None,
    rng: random.Random | None = None,
    limiter: RateLimiter | None = None,
) -> httpx2.AsyncClient:
    """Build the client every source uses.

    ``contact``, ``api_key`` and ``openalex_key`` default to ``CITEPROOF_CONTACT``,
    ``NCBI_API_KEY`` and ``OPENALEX_API_KEY``; pass ``""`` to send none. ``limiter`` defaults to
    the process-wide one so that every client and every concurrent task share one budget per
    service. ``clock``/``sleep``/``now``/``rng`` are for tests.
    """
    if contact is None:
        contact = os.environ.get("CITEPROOF_CONTACT", "").strip() or None
    if api_key is None:
        api_key = os.environ.get(NCBI_KEY_ENV, "").strip() or None
    if openalex_key is None:
        openalex_key = os.environ.get(OPENALEX_KEY_ENV, "").strip() or None
    inner = transport if transport is not None else httpx2.AsyncHTTPTransport()
    retrying = RetryingTransport(
        inner,
        limiter if limiter is not None else shared_limiter(),
        attempts=attempts,
        base=base_backoff,
        max_wait=max_wait,
        max_body=max_body,
        api_key=bool(api_key),
        rng=rng,
        clock=clock or time.monotonic,
        sleep=sleep or asyncio.sleep,
        now=now or _utcnow,
    )
    return httpx2.AsyncClient(
        transport=ContactTransport(
            retrying,
            contact=contact or None,
            api_key=api_key or None,
            openalex_key=openalex_key or None,
        ),
        timeout=timeout,
        trust_env=False,
        follow_redirects=False,
        headers={"User-Agent": user_agent(None), "Accept-Encoding": "gzip, deflate"},
    )
