"""Per-service request spacing and concurrency, shared by every concurrent task in the process.

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

**Limits a service announces.** Crossref states each client's budget on every response
(``x-rate-limit-limit`` requests per ``x-rate-limit-interval``, and ``x-concurrency-limit``
requests in flight), and since December 2025 it meters single records and lists (queries,
filters) as two pools with their own limits. So Crossref's requests are keyed by that pool
(:meth:`Service.pool`), the fixed rates below are only the pace until the first answer, and
:meth:`RateLimiter.observe` adopts what each answer announces for its pool: a slower pace at
once (slots already promised at the old pace are re-claimed at the new one, so queued requests
do not keep the old spacing), a faster one for the slots claimed after it, and never a value
that cannot be meant (0, negative, unparseable, or outside :data:`ANNOUNCED_RATE` and
:data:`MAX_ANNOUNCED_CONCURRENCY`), which leaves the pace in force. Requests in flight are capped
by :meth:`RateLimiter.concurrent`, with waiters handed a free place in turn, on whichever event
loop they wait.

The process-wide limiter is :func:`shared_limiter`; tests pass their own ``RateLimiter`` with a
fake clock and sleep.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx2

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

#: The announced rates believed, in requests a second: one a minute up to 100 a second. Crossref
#: has announced 1 to 50; a figure outside this range is a fault, not a budget.
ANNOUNCED_RATE = (1.0 / 60.0, 100.0)
#: The most requests in flight an announcement is believed for.
MAX_ANNOUNCED_CONCURRENCY = 100
#: The longest window an ``x-rate-limit-interval`` is believed for, in seconds.
_MAX_WINDOW = 3600.0
_SECONDS = re.compile(r"([0-9]{1,7}(?:\.[0-9]{1,6})?)\s*s?", re.ASCII | re.IGNORECASE)
_COUNT = re.compile(r"[0-9]{1,9}", re.ASCII)
#: The last path segment of a Crossref request for a list (``/works``, ``/members/1/works``).
_LIST_SEGMENTS = frozenset({"works", "members", "funders", "journals", "prefixes", "types"})


@dataclass(frozen=True)
class Service:
    """One public service: where it lives, what to call it in messages, how fast to go."""

    name: str
    host: str
    path_prefix: str = ""
    per_second: float = 0.0  # 0 means no limit of our own
    per_second_with_key: float | None = None  # NCBI: a higher limit with NCBI_API_KEY
    list_per_second: float | None = None
    """The pace of list requests when the service meters them apart (Crossref)."""
    concurrency: int | None = None
    """Requests in flight at most (None: no cap of our own)."""
    announces: bool = False
    """The service states its limits on every response (Crossref's ``x-rate-limit-*``)."""
    daily_budget: bool = False
    """Requests draw on a daily budget; a 429 that says it is spent is final (OpenAlex)."""

    @property
    def key(self) -> str:
        """The rate-limit key: the host, plus the path prefix when the host is shared."""
        return self.host + self.path_prefix

    def lists(self, url: httpx2.URL | str) -> bool:
        """Whether ``url`` asks for a list this service meters apart (Crossref's queries and
        filters: a path ending in a collection such as ``works``); else a single record."""
        if self.list_per_second is None:
            return False
        path = (httpx2.URL(url) if isinstance(url, str) else url).path.rstrip("/")
        return path.rpartition("/")[2].lower() in _LIST_SEGMENTS

    def pool(self, url: httpx2.URL | str) -> str:
        """The key of the budget ``url`` draws on: :attr:`key`, plus ``#lists`` for a list."""
        return self.key + "#lists" if self.lists(url) else self.key

    def interval(self, *, api_key: bool = False, listing: bool = False) -> float:
        """Minimum seconds between the starts of two requests to this service (its fixed
        rate: what a service that announces its limits is asked at until it has)."""
        if listing and self.list_per_second is not None:
            rate = self.list_per_second
        elif api_key and self.per_second_with_key:
            rate = self.per_second_with_key
        else:
            rate = self.per_second
        return 1.0 / rate if rate > 0 else 0.0


# Most specific first: a host + path prefix entry must precede the bare host entry.
SERVICES: tuple[Service, ...] = (
    Service("LitSense", "www.ncbi.nlm.nih.gov", "/research/litsense2-api", 1.0),
    Service("PMC ID converter", "pmc.ncbi.nlm.nih.gov", "/tools/idconv", 3.0, 10.0),
    Service("NCBI E-utilities", "eutils.ncbi.nlm.nih.gov", "", 3.0, 10.0),
    Service("PMC", "pmc.ncbi.nlm.nih.gov", "", 3.0, 10.0),
    Service("NCBI", "www.ncbi.nlm.nih.gov", "", 3.0, 10.0),
    Service("Europe PMC", "www.ebi.ac.uk", "", 5.0),
    # The polite pool's limits from December 2025 (10 single records and 3 lists a second, 3
    # in flight); every answer then states the client's own (``announces``).
    Service("Crossref", "api.crossref.org", "", 10.0, None, 3.0, 3, announces=True),
    Service("OpenAlex", "api.openalex.org", "", 10.0, daily_budget=True),
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


@dataclass(frozen=True, slots=True)
class Announced:
    """What one answer states of its pool's limits; ``None`` where it states nothing usable."""

    interval: float | None
    """Seconds between the starts of two requests (the window over the count)."""
    concurrency: int | None


def announced_limits(headers: Mapping[str, str] | httpx2.Headers) -> Announced:
    """Read ``x-rate-limit-limit`` / ``x-rate-limit-interval`` (``50`` and ``1s``: fifty a
    second) and ``x-concurrency-limit``; a value that cannot be meant is left out (module
    docstring), so an answer never makes citeproof faster than a sane reading of it."""
    interval: float | None = None
    count = _COUNT.fullmatch((headers.get("x-rate-limit-limit") or "").strip())
    window = _SECONDS.fullmatch((headers.get("x-rate-limit-interval") or "").strip())
    if count and window:
        limit, seconds = int(count.group()), float(window.group(1))
        if limit > 0 and 0 < seconds <= _MAX_WINDOW:
            low, high = ANNOUNCED_RATE
            if low <= limit / seconds <= high:
                interval = seconds / limit
    concurrency: int | None = None
    found = _COUNT.fullmatch((headers.get("x-concurrency-limit") or "").strip())
    if found and 0 < int(found.group()) <= MAX_ANNOUNCED_CONCURRENCY:
        concurrency = int(found.group())
    return Announced(interval, concurrency)


class _Waiter:
    """A task waiting for a place in flight, on its own event loop."""

    __slots__ = ("future", "granted", "loop")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.future: asyncio.Future[None] = loop.create_future()
        self.granted = False


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _Gate:
    """Requests in flight for one pool; every method runs under the limiter's lock."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.active = 0
        self.waiters: deque[_Waiter] = deque()

    def enter(self) -> bool:
        if self.limit is None or self.active < self.limit:
            self.active += 1
            return True
        return False

    def leave(self) -> None:
        self.active -= 1
        self.grant()

    def grant(self) -> None:
        """Hand free places to the longest waiting (a place handed over is taken at once, so a
        newcomer cannot overtake a waiter that is still waking)."""
        while self.waiters and (self.limit is None or self.active < self.limit):
            waiter = self.waiters.popleft()
            if waiter.future.done():  # cancelled while waiting
                continue
            try:
                waiter.loop.call_soon_threadsafe(_wake, waiter.future)
            except RuntimeError:  # its event loop is closed: nobody is waiting any more
                continue
            waiter.granted = True
            self.active += 1


class RateLimiter:
    """Spaces requests per key; ``await limiter.acquire(url)`` returns when it may start, and
    ``async with limiter.concurrent(url)`` holds one of the service's places in flight."""

    def __init__(self, *, clock: Clock = time.monotonic, sleep: Sleep = asyncio.sleep) -> None:
        self._clock = clock
        self._sleep = sleep
        self._next_free: dict[str, float] = {}
        self._last_start: dict[str, float] = {}
        self._announced: dict[str, float] = {}
        self._generation: dict[str, int] = {}
        self._gates: dict[str, _Gate] = {}
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

    def pace(self, url: httpx2.URL | str, *, api_key: bool = False) -> tuple[str, float]:
        """The key ``url`` is spaced under and the interval in force: the one its service last
        announced for that pool, else the service's fixed one."""
        key, interval, _ = self._pace(url, api_key)
        return key, interval

    def _pace(self, url: httpx2.URL | str, api_key: bool) -> tuple[str, float, int]:
        service = service_for(url)
        key = service.pool(url)
        fixed = service.interval(api_key=api_key, listing=key != service.key)
        with self._lock:
            return key, self._announced.get(key, fixed), self._generation.get(key, 0)

    async def acquire(self, url: httpx2.URL | str, *, api_key: bool = False) -> None:
        """Wait until a request to ``url`` may start, under its service's limit.

        A slot promised before a slower pace was announced is claimed again at the new pace
        (module docstring): the request then starts no sooner than the new pace allows.
        """
        while True:
            key, interval, generation = self._pace(url, api_key)
            wait = self.reserve(key, interval)
            if wait > 0:
                await self._sleep(wait)
            with self._lock:
                if self._generation.get(key, 0) == generation:
                    now = self._clock()
                    self._last_start[key] = max(self._last_start.get(key, now), now)
                    return

    def _gate(self, url: httpx2.URL | str) -> _Gate:
        """The gate of ``url``'s pool (made on first use); call under the lock."""
        service = service_for(url)
        key = service.pool(url)
        gate = self._gates.get(key)
        if gate is None:
            gate = self._gates[key] = _Gate(service.concurrency)
        return gate

    @asynccontextmanager
    async def concurrent(self, url: httpx2.URL | str) -> AsyncIterator[None]:
        """Hold one of the places in flight of ``url``'s pool for the block (no cap for a
        service without one)."""
        with self._lock:
            gate = self._gate(url)
            waiter = None if gate.enter() else _Waiter(asyncio.get_running_loop())
            if waiter is not None:
                gate.waiters.append(waiter)
        if waiter is not None:
            try:
                await waiter.future
            except BaseException:
                with self._lock:
                    if waiter.granted:
                        gate.leave()
                    elif waiter in gate.waiters:
                        gate.waiters.remove(waiter)
                raise
        try:
            yield
        finally:
            with self._lock:
                gate.leave()

    def observe(self, url: httpx2.URL | str, headers: Mapping[str, str] | httpx2.Headers) -> None:
        """Adopt the limits an answer from ``url`` announces for its pool (module docstring);
        nothing for a service that announces none."""
        service = service_for(url)
        if not service.announces:
            return
        found = announced_limits(headers)
        key = service.pool(url)
        fixed = service.interval(listing=key != service.key)
        with self._lock:
            if found.interval is not None:
                current = self._announced.get(key, fixed)
                self._announced[key] = found.interval
                if found.interval > current:
                    # Slower: slots promised at the old pace are void; the next one is a new
                    # interval after the last request that started.
                    self._generation[key] = self._generation.get(key, 0) + 1
                    last = self._last_start.get(key)
                    if last is not None:
                        self._next_free[key] = last + found.interval
            if found.concurrency is not None:
                gate = self._gate(url)
                gate.limit = found.concurrency
                gate.grant()

    def limits(self, url: httpx2.URL | str) -> Announced:
        """The pace (interval) and the cap in flight now in force for ``url``'s pool."""
        _, interval, _ = self._pace(url, False)
        with self._lock:
            gate = self._gate(url)
            return Announced(interval, gate.limit)


_SHARED: RateLimiter | None = None


_SHARED_LOCK = threading.Lock()


def shared_limiter() -> RateLimiter:
    """The process-wide limiter every client uses unless given one (tests inject their own)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = RateLimiter()
        return _SHARED
