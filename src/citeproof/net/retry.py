"""A transport wrapper that makes every request polite, bounded and retried.

Why a transport and not a helper each source calls: every source just receives an
``httpx2.AsyncClient``, and wrapping the transport makes rate limits, retries, body caps and
deadlines impossible to forget. It also keeps the recorded/replaying transports of the tests
at the bottom of the stack, so recorded answers go through exactly the same logic.

For each attempt: wait for a rate-limit slot, send, and read the whole body while counting
decoded bytes. The body is read here (not lazily by the caller) so that a connection dropped
mid-body is retried like any other network error, and so that the cap is enforced on
decompressed bytes as they are produced: ``zlib``'s ``max_length`` bounds each step, so a small
gzip bomb never expands past the cap in memory. The returned response carries the decoded body
without ``Content-Encoding``. Only ``gzip``/``deflate`` are decoded here (the client asks for
only those); any other encoding is passed through with the raw cap.

Retried: 429, 500, 502, 503, 504 and ``httpx2.TransportError`` (timeouts included), with
full-jitter exponential backoff, or exactly the ``Retry-After`` the service asked for (seconds
or an HTTP date). A ``Retry-After`` over ``max_wait`` stops at once with
:class:`RetryAfterTooLongError` instead of sleeping silently. Not retried: a 429 from a service that
meters a daily budget (OpenAlex) when it says the budget is spent (:func:`budget_spent`):
asking again before midnight UTC only spends requests, so the answer goes back to the source,
which says which key to set. A 429 with a short ``Retry-After`` and budget left is OpenAlex's
"slow down", retried like any other.

Each attempt holds one of its service's places in flight and waits for its rate-limit slot
(:class:`~citeproof.net.ratelimit.RateLimiter`), and every answer's announced limits are handed
to the limiter (``observe``), error answers included: a 429 is the likeliest to carry a
smaller budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import zlib
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx2

from citeproof.errors import (
    BodyTooLargeError,
    DeadlineExceededError,
    RetryAfterTooLongError,
    UpstreamUnavailableError,
)
from citeproof.net.ratelimit import Clock, RateLimiter, Sleep, service_for

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
DEFAULT_MAX_BODY = 50_000_000
_COUNT_WORDS = {1: "once", 2: "twice", 3: "three times", 4: "four times", 5: "five times"}


def _times(n: int) -> str:
    return _COUNT_WORDS.get(n, f"{n} times")


# ---------------------------------------------------------------------------------------------
# Deadline per check


@dataclass(frozen=True)
class Deadline:
    """An absolute expiry on ``clock``; set for the duration of one check."""

    expires_at: float
    seconds: float
    clock: Clock

    def remaining(self) -> float:
        return self.expires_at - self.clock()


_DEADLINE: ContextVar[Deadline | None] = ContextVar("citeproof_net_deadline", default=None)


@contextlib.contextmanager
def deadline(seconds: float, *, clock: Clock = time.monotonic) -> Iterator[Deadline]:
    """Bound the total time of every request made inside the block (one check).

    A context variable rather than a client setting, because one client is shared by many
    concurrent checks and each has its own budget. Nested deadlines keep the earlier expiry.
    """
    new = Deadline(clock() + seconds, seconds, clock)
    outer = _DEADLINE.get()
    if outer is not None and outer.expires_at <= new.expires_at:
        new = outer
    token = _DEADLINE.set(new)
    try:
        yield new
    finally:
        _DEADLINE.reset(token)


# ---------------------------------------------------------------------------------------------
# Retry-After


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP date), or None.

    A date in the past means "now" (0 s); an unparseable value is ignored (None), since a
    malformed header should not turn a retryable answer into a failure.
    """
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = now or datetime.now(UTC)
    return max(0.0, (when - current).total_seconds())


# ---------------------------------------------------------------------------------------------
# A spent daily budget


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def budget_spent(
    response: httpx2.Response, *, max_wait: float, now: datetime | None = None
) -> bool:
    """Whether a 429 says the daily budget is spent rather than "slow down".

    OpenAlex (since February 2026) answers a spent budget with 429, a ``Retry-After`` of hours
    (until midnight UTC), ``x-ratelimit-remaining-usd`` below ``x-ratelimit-cost-required-usd``
    and a JSON body whose message says the budget is insufficient; any one of them is enough.
    ``x-ratelimit-remaining: 0`` counts only without a ``Retry-After``: a short one is the
    service saying "again in a moment".
    """
    if response.status_code != 429:
        return False
    headers = response.headers
    wait = parse_retry_after(headers.get("retry-after"), now=now)
    if wait is not None and wait > max_wait:
        return True
    if wait is None and (headers.get("x-ratelimit-remaining") or "").strip() == "0":
        return True
    left = _number(headers.get("x-ratelimit-remaining-usd"))
    needed = _number(headers.get("x-ratelimit-cost-required-usd"))
    if left is not None and needed is not None and left < needed:
        return True
    return b"budget" in response.content[:4096].lower()


# ---------------------------------------------------------------------------------------------
# Capped, decoding body reader


class _CappedDecoder:
    """Decodes a chain of gzip/deflate encodings, raising as soon as output passes ``cap``."""

    def __init__(
        self, encodings: list[str], cap: int, fail: Callable[[], BodyTooLargeError]
    ) -> None:
        self._stages = [self._new(e) for e in reversed(encodings)]
        self._kinds = list(reversed(encodings))
        self._started = [False] * len(self._stages)
        self._cap = cap
        self._fail = fail
        self._total = 0
        self._parts: list[bytes] = []

    @staticmethod
    def _new(encoding: str) -> zlib._Decompress:
        if encoding in ("gzip", "x-gzip"):
            return zlib.decompressobj(zlib.MAX_WBITS | 16)
        return zlib.decompressobj(zlib.MAX_WBITS)

    def _run(self, index: int, data: bytes) -> list[bytes]:
        stage = self._stages[index]
        out: list[bytes] = []
        produced = 0
        while data:
            try:
                chunk = stage.decompress(data, self._cap + 1 - produced)
            except zlib.error as exc:
                # "deflate" is sometimes sent raw (without the zlib header), as httpx tolerates.
                if self._kinds[index] == "deflate" and not self._started[index]:
                    self._started[index] = True
                    stage = self._stages[index] = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise httpx2.DecodingError(f"{self._kinds[index]} body: {exc}") from exc
            self._started[index] = True
            produced += len(chunk)
            if produced > self._cap:
                raise self._fail()
            out.append(chunk)
            data = stage.unconsumed_tail
        return out

    def feed(self, data: bytes, *, final: bool = False) -> None:
        chunks = [data]
        for index in range(len(self._stages)):
            nxt: list[bytes] = []
            for chunk in chunks:
                nxt.extend(self._run(index, chunk))
            if final:
                nxt.append(self._stages[index].flush())
            chunks = nxt
        for chunk in chunks:
            self._total += len(chunk)
            if self._total > self._cap:
                raise self._fail()
            self._parts.append(chunk)

    def body(self) -> bytes:
        return b"".join(self._parts)


async def read_capped(
    response: httpx2.Response, cap: int, fail: Callable[[], BodyTooLargeError]
) -> tuple[bytes, bool]:
    """Read ``response``'s raw stream under ``cap``; returns (body, decoded?).

    Raises before reading when ``Content-Length`` already exceeds the cap.
    """
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise fail()
    encodings = [
        e.strip().lower()
        for e in response.headers.get("content-encoding", "").split(",")
        if e.strip() and e.strip().lower() != "identity"
    ]
    decodable = all(e in ("gzip", "x-gzip", "deflate") for e in encodings)
    decoder = _CappedDecoder(encodings if decodable else [], cap, fail)
    stream = response.stream
    if not isinstance(stream, httpx2.AsyncByteStream):
        raise TypeError("citeproof's transports need an async response stream")
    raw = 0
    # The stream itself rather than aiter_raw(): a response built with content= (replayed or
    # mocked) counts as already read, yet its stream still yields the raw bytes.
    async for chunk in stream:
        raw += len(chunk)
        if raw > cap:
            raise fail()
        decoder.feed(chunk)
    decoder.feed(b"", final=True)
    return decoder.body(), decodable and bool(encodings)


async def buffered(
    response: httpx2.Response,
    request: httpx2.Request,
    cap: int,
    fail: Callable[[], BodyTooLargeError],
) -> httpx2.Response:
    """``response`` read whole under ``cap`` and closed: decoded, with a true Content-Length."""
    try:
        body, decoded = await read_capped(response, cap, fail)
    finally:
        await response.aclose()
    headers = httpx2.Headers(response.headers)
    if decoded:
        del headers["content-encoding"]
    headers["content-length"] = str(len(body))
    return httpx2.Response(
        response.status_code,
        headers=headers,
        content=body,
        request=request,
        extensions=response.extensions,
    )


# ---------------------------------------------------------------------------------------------
# The transport


class RetryingTransport(httpx2.AsyncBaseTransport):
    """Rate limit, retry, cap and deadline around ``inner``; see the module docstring."""

    def __init__(
        self,
        inner: httpx2.AsyncBaseTransport,
        limiter: RateLimiter,
        *,
        attempts: int = 3,
        base: float = 0.5,
        max_backoff: float = 30.0,
        max_wait: float = 60.0,
        max_body: int = DEFAULT_MAX_BODY,
        api_key: bool = False,
        sleep: Sleep = asyncio.sleep,
        clock: Clock = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        rng: random.Random | None = None,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.inner = inner
        self.limiter = limiter
        self.attempts = attempts
        self.base = base
        self.max_backoff = max_backoff
        self.max_wait = max_wait
        self.max_body = max_body
        self.api_key = api_key
        self._sleep = sleep
        self._clock = clock
        self._now = now
        self._rng = rng or random.Random()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        service = service_for(request.url)
        host = request.url.host
        label = service.name if service.name == host else f"{service.name} ({host})"
        outcomes: list[str] = []
        connected = False
        for attempt in range(1, self.attempts + 1):
            self._check_deadline(label, service.name, host)
            retry_after: float | None = None
            try:
                async with self.limiter.concurrent(request.url):
                    await self.limiter.acquire(request.url, api_key=self.api_key)
                    response = await self._attempt(request, label, service.name, host)
                    self.limiter.observe(request.url, response.headers)
            except httpx2.TransportError as exc:
                outcomes.append(f"{type(exc).__name__}")
                connected |= not isinstance(exc, (httpx2.ConnectError, httpx2.ConnectTimeout))
            else:
                connected = True
                if response.status_code not in RETRY_STATUSES:
                    return response
                if service.daily_budget and budget_spent(
                    response, max_wait=self.max_wait, now=self._now()
                ):
                    return response
                outcomes.append(str(response.status_code))
                retry_after = parse_retry_after(
                    response.headers.get("retry-after"), now=self._now()
                )
                if retry_after is not None and retry_after > self.max_wait:
                    raise RetryAfterTooLongError(
                        f"{label} answered {response.status_code}; its Retry-After of "
                        f"{retry_after:.0f} s exceeds the {self.max_wait:.0f} s limit, so "
                        "citeproof stopped rather than wait. Nothing was concluded; try again "
                        "later or raise the limit.",
                        service=service.name,
                        host=host,
                        wait=retry_after,
                        limit=self.max_wait,
                    )
            if attempt == self.attempts:
                break
            wait = retry_after if retry_after is not None else self._backoff(attempt)
            self._check_deadline(label, service.name, host, upcoming=wait)
            await self._sleep(wait)
        raise UpstreamUnavailableError(
            self._describe(label, outcomes),
            service=service.name,
            host=host,
            unreachable=not connected,
        )

    async def _attempt(
        self, request: httpx2.Request, label: str, name: str, host: str
    ) -> httpx2.Response:
        """Send once and read the body under the cap; bounded by the check's deadline."""
        current = _DEADLINE.get()
        timeout = None if current is None else max(0.0, current.remaining())
        try:
            async with asyncio.timeout(timeout):
                return await self._send_and_read(request, label, name, host)
        except TimeoutError as exc:
            if current is None:
                raise
            raise self._deadline_error(label, name, host, current) from exc

    async def _send_and_read(
        self, request: httpx2.Request, label: str, name: str, host: str
    ) -> httpx2.Response:
        response = await self.inner.handle_async_request(request)

        def fail() -> BodyTooLargeError:
            return BodyTooLargeError(
                f"{label} sent a body over the {self.max_body:,} byte limit; reading stopped "
                "there and nothing was concluded. Raise the limit if this source is expected "
                "to be that large.",
                service=name,
                host=host,
                limit=self.max_body,
            )

        # Error pages are read too (capped): it frees the connection for the retry.
        return await buffered(response, request, self.max_body, fail)

    def _backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(cap, base * 2**(attempt-1))] (AWS's recommendation)."""
        return self._rng.uniform(0.0, min(self.max_backoff, self.base * 2 ** (attempt - 1)))

    def _check_deadline(self, label: str, name: str, host: str, upcoming: float = 0.0) -> None:
        current = _DEADLINE.get()
        if current is not None and current.remaining() - upcoming <= 0:
            raise self._deadline_error(label, name, host, current)

    @staticmethod
    def _deadline_error(
        label: str, name: str, host: str, current: Deadline
    ) -> DeadlineExceededError:
        return DeadlineExceededError(
            f"{label} did not answer within the {current.seconds:g} s allowed for this check; "
            "nothing was concluded. Try again later or allow more time.",
            service=name,
            host=host,
        )

    def _describe(self, label: str, outcomes: list[str]) -> str:
        if len(set(outcomes)) == 1:
            what = outcomes[0]
            verb = f"answered {what}" if what.isdigit() else f"failed with {what}"
            return (
                f"{label} {verb} {_times(len(outcomes))}; nothing was concluded. Try again later."
            )
        listed = ", ".join(outcomes[:-1]) + f" and {outcomes[-1]}"
        return (
            f"{label} failed {_times(len(outcomes))} ({listed}); nothing was concluded. "
            "Try again later."
        )

    async def aclose(self) -> None:
        await self.inner.aclose()
