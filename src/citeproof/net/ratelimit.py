"""Per-service request spacing, shared by every concurrent task in the process.

Why a *spacing* limiter rather than a token bucket: the services we call publish their limits
as "N requests a second" and NCBI in particular penalises bursts, so the politest reading is
"consecutive requests to one service start at least 1/N s apart". Each ``acquire`` reserves the
next free slot synchronously (no ``await`` between reading and advancing the slot), so many
tasks on one event loop can never claim the same slot; a plain thread lock around that claim
covers the event loops of several threads too (the MCP server and batch run checks in worker
threads, each with its own loop). A cancelled waiter simply leaves its slot unused, which errs
on the polite side.

Limits are keyed by host, or by host + path prefix where one host serves several services with
different limits (LitSense lives under ``www.ncbi.nlm.nih.gov/research/litsense2-api``).

The process-wide limiter is :func:`shared_limiter`; tests pass their own ``RateLimiter`` with a
fake clock and sleep.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx2

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class Service:
    """One public service: where it lives, what to call it in messages, how fast to go."""

    name: str
    host: str
    path_prefix: str = ""
    per_second: float = 0.0  # 0 means no limit of our own
    per_second_with_key: float | None = None  # NCBI: a higher limit with NCBI_API_KEY

    @property
    def key(self) -> str:
        """The rate-limit key: the host, plus the path prefix when the host is shared."""
        return self.host + self.path_prefix

    def interval(self, *, api_key: bool = False) -> float:
        """Minimum seconds between the starts of two requests to this service."""
        rate = self.per_second_with_key if api_key and self.per_second_with_key else self.per_second
        return 1.0 / rate if rate > 0 else 0.0


# Most specific first: a host + path prefix entry must precede the bare host entry.
SERVICES: tuple[Service, ...] = (
    Service("LitSense", "www.ncbi.nlm.nih.gov", "/research/litsense2-api", 1.0),
    Service("PMC ID converter", "pmc.ncbi.nlm.nih.gov", "/tools/idconv", 3.0, 10.0),
    Service("NCBI E-utilities", "eutils.ncbi.nlm.nih.gov", "", 3.0, 10.0),
    Service("PMC", "pmc.ncbi.nlm.nih.gov", "", 3.0, 10.0),
    Service("NCBI", "www.ncbi.nlm.nih.gov", "", 3.0, 10.0),
    Service("Europe PMC", "www.ebi.ac.uk", "", 5.0),
    Service("Crossref", "api.crossref.org", "", 10.0),
    Service("OpenAlex", "api.openalex.org", "", 10.0),
    # DataCite's firewall allows 500 requests per 5 minutes per IP without identification,
    # 1000 with an email in the User-Agent or a mailto (support.datacite.org/docs/rate-limit);
    # 1.5/s (450 per 5 minutes) stays under the lower tier, contact address or not.
    Service("DataCite", "api.datacite.org", "", 1.5),
    Service("ClinicalTrials.gov", "clinicaltrials.gov", "", 50.0 / 60.0),
    Service("openFDA", "api.fda.gov", "", 240.0 / 60.0),
    Service("PMC Cloud Service", "pmc-oa-opendata.s3.amazonaws.com", ""),
    Service("doi.org", "doi.org", ""),
)


def service_for(url: httpx2.URL | str) -> Service:
    """The known service a URL belongs to, or an unlimited ad-hoc one named after the host.

    Path prefixes match on a segment boundary so ``/research/litsense2-api-other`` is not
    LitSense.
    """
    url = httpx2.URL(url) if isinstance(url, str) else url
    host = url.host.lower()
    path = url.path
    for service in SERVICES:
        if service.host != host:
            continue
        prefix = service.path_prefix
        if not prefix or path == prefix or path.startswith(prefix.rstrip("/") + "/"):
            return service
    return Service(host or "unknown host", host)


class RateLimiter:
    """Spaces requests per key; ``await limiter.acquire(url)`` returns when it may start."""

    def __init__(self, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self._clock = clock
        self._sleep = sleep
        self._next_free: dict[str, float] = {}
        self._lock = threading.Lock()

    def reserve(self, key: str, interval: float) -> float:
        """Claim the next slot for ``key``; returns how long to wait before using it.

        Synchronous on purpose: the claim is atomic with respect to other tasks.
        """
        if interval <= 0:
            return 0.0
        with self._lock:
            now = self._clock()
            slot = max(now, self._next_free.get(key, now))
            self._next_free[key] = slot + interval
        return slot - now

    async def acquire_key(self, key: str, interval: float) -> None:
        """Wait for a slot under an explicit key and interval."""
        wait = self.reserve(key, interval)
        if wait > 0:
            await self._sleep(wait)

    async def acquire(self, url: httpx2.URL | str, *, api_key: bool = False) -> None:
        """Wait until a request to ``url`` may start, under its service's limit."""
        service = service_for(url)
        await self.acquire_key(service.key, service.interval(api_key=api_key))


_SHARED: RateLimiter | None = None


_SHARED_LOCK = threading.Lock()


def shared_limiter() -> RateLimiter:
    """The process-wide limiter every client uses unless given one (tests inject their own)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = RateLimiter()
        return _SHARED
