"""Every record a reference check reads is pinned, and an offline run reads only pins.

Why at the HTTP layer: a verification reads many small answers from five services (a DOI's
agency, its Crossref or DataCite record, searches in three databases).  Pinning each answer
by its request, content-addressed in the same cache as texts, makes a second run answer
from the pins, byte for byte, and ``--offline`` refuse the network without each source
learning about the cache.  Two parts:

* :meth:`Pinner.hook`, a response hook on the client: it pins the answers that say
  something about the record (200, and 404/410 "no such record"); failures are never
  pinned, so an outage is asked again next time.  (The digest of every answer, for the
  reference's evidence-log line, is :mod:`citeproof.net.digests`' hook, as for a search.)
* :class:`PinnedTransport`, the innermost transport of an offline client: it serves a
  request's pin and raises :class:`~citeproof.errors.NotPinnedError` (a ``NetworkError``,
  so the lookup reports the service as failed and the verdict is ``unavailable``) for a
  request never pinned.

The pin key is ``ref:`` + method + the URL without contact or key parameters (and, for a
form POST, the sha256 of the form), so the contact address never reaches the cache.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime

import httpx2

from citeproof.errors import CacheMissError, NotPinnedError
from citeproof.net.client import redact_url
from citeproof.store.cache import Cache

__all__ = ["KEY_PREFIX", "PinnedTransport", "Pinner", "pin_key"]

KEY_PREFIX = "ref:"
#: Statuses that are an answer about the record, and so worth keeping.
_PINNED_STATUSES = frozenset({200, 404, 410})
_SERVED_FROM_PIN = "citeproof_pinned"


def pin_key(request: httpx2.Request) -> str:
    """The cache key of ``request``'s answer (see the module docstring)."""
    key = f"{KEY_PREFIX}{request.method} {redact_url(request.url)}"
    if request.method != "GET":
        try:
            body = request.content
        except httpx2.RequestNotRead:
            body = b""
        key += " " + hashlib.sha256(body).hexdigest()
    return key


class Pinner:
    """The response hook that pins (``cache`` None: pins nothing)."""

    def __init__(self, cache: Cache | None, now: Callable[[], datetime] | None = None) -> None:
        self.cache = cache
        self.now = now or (lambda: datetime.now(UTC))

    async def hook(self, response: httpx2.Response) -> None:
        await response.aread()
        request = response.request
        if (
            self.cache is None
            or response.extensions.get(_SERVED_FROM_PIN)
            or response.status_code not in _PINNED_STATUSES
        ):
            return
        self.cache.pin(
            pin_key(request),
            response.content,
            retrieved_at=self.now().isoformat(),
            url=redact_url(request.url),
            served_by="refs",
            media_type=response.headers.get("content-type", "application/json").split(";")[0],
            meta={"status": response.status_code},
        )


class PinnedTransport(httpx2.AsyncBaseTransport):
    """Answers from the pins only; a request never pinned raises ``NotPinnedError``
    (``cache`` None: there is no cache yet, so nothing was ever pinned)."""

    def __init__(self, cache: Cache | None) -> None:
        self.cache = cache

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        key = pin_key(request)
        host = request.url.host
        try:
            if self.cache is None:
                raise CacheMissError(key)
            pin, data = self.cache.read(key)
        except CacheMissError:
            raise NotPinnedError(
                f"--offline: the answer of {host} to this lookup was never pinned; run once "
                "without --offline to pin it.",
                service=host,
                host=host,
            ) from None
        status = pin.meta.get("status", 200)
        return httpx2.Response(
            status if isinstance(status, int) else 200,
            headers={"content-type": pin.media_type},
            content=data,
            request=request,
            extensions={_SERVED_FROM_PIN: True},
        )
