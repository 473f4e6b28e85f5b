"""Crossref's announced limits: the pace and the requests in flight follow what answers say.

Crossref states each client's budget on every response (``x-rate-limit-limit`` per
``x-rate-limit-interval``, ``x-concurrency-limit``), one budget for single records and one for
lists. Every answer here is invented and carries those headers; time is virtual (a clock that
only moves when every task waits), so the spacing is proven exactly and nothing waits for real.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import httpx2
import pytest

from citeproof.net.client import make_client
from citeproof.net.ratelimit import RateLimiter, announced_limits, service_for

T = TypeVar("T")
SINGLE = "https://api.crossref.org/v1/works/10.5555/invented.pace.{n}"
LIST = "https://api.crossref.org/v1/works?query.bibliographic=invented+{n}&rows=5"


class VirtualTime:
    """A clock that jumps to the earliest sleeper once every task is parked."""

    def __init__(self) -> None:
        self.now = 0.0
        self._parked: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._parked, (self.now + max(0.0, seconds), next(self._order), future))
        await future

    async def drive(self, work: Awaitable[T]) -> T:
        task = asyncio.ensure_future(work)
        while not task.done():
            for _ in range(60):
                await asyncio.sleep(0)
            if self._parked and not task.done():
                when, _, future = heapq.heappop(self._parked)
                self.now = max(self.now, when)
                if not future.done():
                    future.set_result(None)
        return task.result()


Answer = Callable[[httpx2.Request, int], dict[str, str]]
Handler = Callable[[httpx2.Request], httpx2.Response | Awaitable[httpx2.Response]]


def _client(handler: Handler, clock: VirtualTime) -> httpx2.AsyncClient:
    """The real client stack on ``handler``, with a private limiter on virtual time."""
    return make_client(
        transport=httpx2.MockTransport(handler),  # type: ignore[arg-type]
        contact="",
        api_key="",
        limiter=RateLimiter(clock=clock, sleep=clock.sleep),
        clock=clock,
        sleep=clock.sleep,
    )


def _crossref(
    urls: list[str], headers_for: Answer, *, took: float = 0.0
) -> list[tuple[str, float, float]]:
    """Ask every URL at once through ``make_client``; each answer's headers come from
    ``headers_for(request, n)`` (n counts answers from 1). Returns (url, start, end) in the
    order the requests started."""
    clock = VirtualTime()
    seen: list[tuple[str, float, float]] = []
    answered = itertools.count(1)

    async def handler(request: httpx2.Request) -> httpx2.Response:
        start = clock.now
        if took:
            await clock.sleep(took)
        seen.append((str(request.url), start, clock.now))
        headers = {"content-type": "application/json", **headers_for(request, next(answered))}
        return httpx2.Response(200, headers=headers, json={"status": "ok"})

    async def main() -> None:
        async with _client(handler, clock) as client:
            await clock.drive(asyncio.gather(*(client.get(u) for u in urls)))

    asyncio.run(main())
    return sorted(seen, key=lambda s: s[1])


def _announcing(limit: str, interval: str = "1s", concurrency: str = "3") -> dict[str, str]:
    return {
        "x-rate-limit-limit": limit,
        "x-rate-limit-interval": interval,
        "x-concurrency-limit": concurrency,
        "x-api-pool": "polite-single",
    }


def _starts(seen: list[tuple[str, float, float]]) -> list[float]:
    return [round(start, 9) for _, start, _ in seen]


def _gaps(starts: list[float]) -> list[float]:
    return [round(b - a, 9) for a, b in itertools.pairwise(starts)]


# --- reading the headers -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limit", "interval", "seconds"),
    [("50", "1s", 0.02), ("3000", "60s", 0.02), ("3", "1s", 1 / 3), ("1", "1", 1.0)],
)
def test_an_announced_rate_is_read_as_the_seconds_between_starts(
    limit: str, interval: str, seconds: float
) -> None:
    found = announced_limits({"x-rate-limit-limit": limit, "x-rate-limit-interval": interval})
    assert found.interval == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("limit", "interval"),
    [
        ("0", "1s"),
        ("-5", "1s"),
        ("fifty", "1s"),
        ("", "1s"),
        ("10", "0s"),
        ("10", "-1s"),
        ("10", "soon"),
        ("10", ""),
        ("1000000", "1s"),  # a million a second: not a budget anyone means
        ("1", "86400s"),  # one a day: past the longest window believed
        ("1", "600s"),  # one every ten minutes: slower than any pace believed
        ("5.5", "1s"),
    ],
)
def test_an_absurd_rate_is_ignored(limit: str, interval: str) -> None:
    found = announced_limits({"x-rate-limit-limit": limit, "x-rate-limit-interval": interval})
    assert found.interval is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [("3", 3), (" 1 ", 1), ("0", None), ("-2", None), ("many", None), ("100000", None)],
)
def test_the_announced_concurrency_is_read_within_reason(value: str, expected: int | None) -> None:
    assert announced_limits({"x-concurrency-limit": value}).concurrency == expected


def test_lists_and_single_records_are_two_pools() -> None:
    crossref = service_for(SINGLE)
    assert crossref.pool(SINGLE.format(n=1)) == "api.crossref.org"
    lists = ("https://api.crossref.org/works", "https://api.crossref.org/journals/1234-5678/works")
    for url in (LIST.format(n=1), *lists):
        assert crossref.pool(url) == "api.crossref.org#lists"
    assert crossref.interval() == pytest.approx(0.1)
    assert crossref.interval(listing=True) == pytest.approx(1 / 3)
    assert service_for("https://api.openalex.org/works").pool("https://api.openalex.org/works") == (
        "api.openalex.org"
    )


# --- the pace follows the answers ----------------------------------------------------------------


def test_a_lower_announced_rate_slows_the_next_request_at_once() -> None:
    """The fourth answer says two a second: the fifth request starts half a second after the
    fourth, not a tenth."""
    urls = [SINGLE.format(n=n) for n in range(7)]
    seen = _crossref(urls, lambda r, n: _announcing("10" if n < 4 else "2"))
    # One at a time would be simpler, but they are asked at once: the first three are in
    # flight (Crossref's 3) and slots are promised ahead, which the slower pace must void.
    gaps = _gaps(_starts(seen))
    assert gaps[:3] == [0.1, 0.1, 0.1]
    assert all(g >= 0.5 - 1e-9 for g in gaps[3:]), gaps
    assert max(_starts(seen)) == pytest.approx(0.3 + 3 * 0.5)


def test_slots_promised_at_the_old_pace_are_claimed_again_at_the_new_one() -> None:
    """Ten asked at once: the first answer announces one a second (and room for all ten in
    flight), so the nine queued behind it start a second apart, whatever was promised."""
    urls = [SINGLE.format(n=n) for n in range(10)]
    seen = _crossref(urls, lambda r, n: _announcing("1", concurrency="10"))
    assert _gaps(_starts(seen)) == [1.0] * 9


def test_a_higher_announced_rate_is_adopted_and_never_exceeded() -> None:
    urls = [SINGLE.format(n=n) for n in range(8)]
    seen = _crossref(urls, lambda r, n: _announcing("50", concurrency="10"))
    gaps = _gaps(_starts(seen))
    assert gaps[0] == 0.1  # the fixed pace until the first answer
    assert all(g >= 0.02 - 1e-9 for g in gaps)
    assert max(_starts(seen)) < 0.1 * 7  # faster than the fixed pace would allow


@pytest.mark.parametrize(
    ("limit", "interval"), [("0", "1s"), ("-1", "1s"), ("oops", "1s"), ("9999999", "1s")]
)
def test_an_absurd_announcement_keeps_the_fixed_pace(limit: str, interval: str) -> None:
    urls = [SINGLE.format(n=n) for n in range(5)]
    seen = _crossref(urls, lambda r, n: _announcing(limit, interval, concurrency="0"))
    assert _gaps(_starts(seen)) == [0.1] * 4


def test_a_list_answer_paces_lists_and_leaves_single_records_alone() -> None:
    urls = [LIST.format(n=n) for n in range(3)] + [SINGLE.format(n=n) for n in range(3)]

    def headers(request: httpx2.Request, n: int) -> dict[str, str]:
        if request.url.path.endswith("/works"):
            return {**_announcing("1", concurrency="3"), "x-api-pool": "polite-array"}
        return _announcing("10")

    seen = _crossref(urls, headers)
    lists = [start for url, start, _ in seen if "query" in url]
    singles = [start for url, start, _ in seen if "query" not in url]
    assert _gaps(lists) == [1.0, 1.0]  # a third of a second until the first list answer
    assert _gaps(singles) == [0.1, 0.1]


def test_an_error_answer_announcing_a_lower_rate_paces_the_retry() -> None:
    """A 429 is the likeliest answer to carry a smaller budget: the retry waits for it."""
    clock = VirtualTime()
    starts: list[float] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        starts.append(clock.now)
        if len(starts) == 1:
            return httpx2.Response(429, headers={"retry-after": "0", **_announcing("1")})
        return httpx2.Response(200, json={"status": "ok"})

    async def main() -> int:
        async with _client(handler, clock) as client:
            response = await clock.drive(client.get(SINGLE.format(n=1)))
            return response.status_code

    assert asyncio.run(main()) == 200
    assert starts == [0.0, 1.0]


def test_only_a_service_that_announces_is_paced_by_headers() -> None:
    """OpenAlex's ``x-ratelimit-limit: 1000`` is a daily credit count, NCBI's a per-second
    figure of its own: neither is read as Crossref's headers are."""
    limiter = RateLimiter(clock=lambda: 0.0)
    for url in ("https://api.openalex.org/works?search=x", "https://eutils.ncbi.nlm.nih.gov/x"):
        before = limiter.limits(url)
        limiter.observe(url, {**_announcing("1", concurrency="1"), "x-ratelimit-limit": "1000"})
        assert limiter.limits(url) == before


# --- requests in flight --------------------------------------------------------------------------


def test_requests_in_flight_are_capped_at_the_announced_concurrency() -> None:
    """Slow answers (5 s each) that announce one in flight: the three started before the first
    answer finish, and every later request runs alone."""
    urls = [SINGLE.format(n=n) for n in range(6)]
    seen = _crossref(urls, lambda r, n: _announcing("50", concurrency="1"), took=5.0)
    starts = _starts(seen)
    assert starts[:3] == [0.0, 0.1, 0.2]  # Crossref's 3 until an answer says otherwise
    later = [(s, e) for _, s, e in seen if s >= 5.0]
    assert len(later) == 3
    for (_, end), (start, _) in itertools.pairwise(later):
        assert start >= end - 1e-9  # one at a time


def test_before_any_answer_crossref_has_three_in_flight() -> None:
    urls = [SINGLE.format(n=n) for n in range(5)]
    seen = _crossref(urls, lambda r, n: {}, took=5.0)
    assert _starts(seen) == [0.0, 0.1, 0.2, 5.0, 5.1]


def test_a_cancelled_waiter_gives_back_the_place_it_was_handed() -> None:
    limiter = RateLimiter()
    url = SINGLE.format(n=1)
    limiter.observe(url, {"x-concurrency-limit": "1"})

    async def hold() -> None:
        async with limiter.concurrent(url):
            await asyncio.sleep(10)

    async def main() -> None:
        async with limiter.concurrent(url):
            waiting = asyncio.create_task(hold())
            await asyncio.sleep(0)
        waiting.cancel()  # handed the place on release, cancelled before it woke
        await asyncio.gather(waiting, return_exceptions=True)
        async with asyncio.timeout(1):
            async with limiter.concurrent(url):
                pass
        queued = asyncio.create_task(hold())
        await asyncio.sleep(0)
        queued.cancel()  # cancelled while still waiting behind nobody
        await asyncio.gather(queued, return_exceptions=True)

    asyncio.run(main())
    assert limiter.limits(url).concurrency == 1


def test_the_cap_holds_across_threads_with_their_own_event_loops() -> None:
    """The MCP server and batch verify in worker threads, each with its own loop: one cap."""
    limiter = RateLimiter()
    url = SINGLE.format(n=1)
    limiter.observe(url, {"x-concurrency-limit": "2"})
    lock = threading.Lock()
    inside = [0]
    most = [0]

    async def one() -> None:
        async with limiter.concurrent(url):
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            await asyncio.sleep(0.002)
            with lock:
                inside[0] -= 1

    def worker() -> None:
        async def many() -> None:
            await asyncio.gather(*(one() for _ in range(8)))

        asyncio.run(many())

    threads = [threading.Thread(target=worker) for _ in range(3)]
    t0 = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    assert most[0] == 2 and inside[0] == 0
    assert time.monotonic() - t0 < 30
