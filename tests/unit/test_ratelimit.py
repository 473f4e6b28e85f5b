"""Per-service spacing: concurrent tasks share one budget per host (or host + path prefix).

A fake clock with virtual time stands in for the event loop's clock, so the tests prove the
spacing exactly and run instantly.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable
from typing import TypeVar

import httpx2
import pytest

from citeproof.net.client import make_client
from citeproof.net.ratelimit import RateLimiter, service_for, shared_limiter

T = TypeVar("T")


class FakeClock:
    """Virtual time: ``sleep`` parks a task until :meth:`run` advances time to its wake-up."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []
        self._waiters: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (self.now + seconds, next(self._seq), future))
        await future

    async def run(self, awaitable: Awaitable[T]) -> T:
        """Run ``awaitable``; whenever every task is parked, wake the earliest sleeper."""
        task = asyncio.ensure_future(awaitable)
        while not task.done():
            for _ in range(50):  # let every runnable task reach its next sleep
                await asyncio.sleep(0)
            if self._waiters and not task.done():
                when, _, future = heapq.heappop(self._waiters)
                self.now = max(self.now, when)
                future.set_result(None)
        return task.result()


def _gaps(times: list[float]) -> list[float]:
    ordered = sorted(times)
    return [b - a for a, b in itertools.pairwise(ordered)]


def _concurrent_ncbi(api_key: str | None, n: int = 100) -> list[float]:
    clock = FakeClock()
    started: list[float] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        started.append(clock.now)
        return httpx2.Response(200, json={"ok": True})

    async def main() -> None:
        client = make_client(
            transport=httpx2.MockTransport(handler),
            contact="",
            api_key=api_key or "",
            limiter=RateLimiter(clock=clock, sleep=clock.sleep),
            clock=clock,
            sleep=clock.sleep,
        )
        async with client:
            url = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi"
            answers = await clock.run(
                asyncio.gather(*(client.get(url, params={"term": str(i)}) for i in range(n)))
            )
        assert all(a.status_code == 200 for a in answers)

    asyncio.run(main())
    assert len(started) == n
    return started


def test_100_concurrent_requests_to_ncbi_are_spaced_a_third_of_a_second() -> None:
    started = _concurrent_ncbi(api_key=None)
    assert min(_gaps(started)) >= 1 / 3 - 1e-9
    # and no slower than needed: the 100th starts 99 intervals after the first
    assert max(started) == pytest.approx(99 / 3)


def test_ncbi_api_key_raises_the_limit_to_ten_a_second() -> None:
    started = _concurrent_ncbi(api_key="secret-key")
    assert min(_gaps(started)) >= 0.1 - 1e-9
    assert max(started) == pytest.approx(9.9)


def test_reserve_spaces_one_key_and_leaves_others_alone() -> None:
    now = [0.0]
    limiter = RateLimiter(clock=lambda: now[0])
    assert [limiter.reserve("a", 0.5) for _ in range(3)] == [0.0, 0.5, 1.0]
    assert limiter.reserve("b", 0.5) == 0.0  # other services are not delayed
    now[0] = 10.0  # after a quiet spell there is no debt to pay
    assert limiter.reserve("a", 0.5) == 0.0
    assert limiter.reserve("c", 0.0) == 0.0 and limiter.reserve("c", 0.0) == 0.0


def test_litsense_is_keyed_by_path_prefix_and_limited_to_one_a_second() -> None:
    lit = service_for("https://www.ncbi.nlm.nih.gov/research/litsense2-api/api/sentences/?q=x")
    other = service_for("https://www.ncbi.nlm.nih.gov/research/litsense2-apix/")
    assert lit.name == "LitSense" and lit.interval(api_key=True) == 1.0
    assert other.name == "NCBI" and other.key != lit.key


@pytest.mark.parametrize(
    ("url", "interval", "with_key"),
    [
        ("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi", 1 / 3, 0.1),
        ("https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/", 1 / 3, 0.1),
        ("https://www.ebi.ac.uk/europepmc/webservices/rest/search", 0.2, 0.2),
        ("https://api.crossref.org/works/10.1/x", 0.1, 0.1),
        ("https://api.openalex.org/works/doi:10.1/x", 0.1, 0.1),
        ("https://clinicaltrials.gov/api/v2/studies/NCT0", 1.2, 1.2),
        ("https://api.fda.gov/drug/label.json", 0.25, 0.25),
        ("https://example.org/page", 0.0, 0.0),
    ],
)
def test_service_intervals(url: str, interval: float, with_key: float) -> None:
    service = service_for(url)
    assert service.interval() == pytest.approx(interval)
    assert service.interval(api_key=True) == pytest.approx(with_key)


def test_shared_limiter_is_one_per_process() -> None:
    assert shared_limiter() is shared_limiter()
