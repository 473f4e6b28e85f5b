"""PubMed search through E-utilities: esearch parameters and answers, and esummary batches
sent by POST (so a large limit never builds a long URL).  Offline: MockTransport and, where
the corpus has the recording, ReplayTransport over it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

import httpx2
import pytest

from citeproof.net.client import make_client
from citeproof.net.errors import NetworkError
from citeproof.net.ratelimit import RateLimiter
from citeproof.net.recordings import load_litcheck
from citeproof.sources import eutils_search
from citeproof.sources.eutils_search import esearch, esearch_params, esummary

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
LITCHECK = CORPUS / "litcheck-fixtures"
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(),
    reason="../shared/corpus not found: corpus tests need the shared corpus beside the repository",
)
T = TypeVar("T")


class FakeTime:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def run(
    transport: httpx2.AsyncBaseTransport,
    call: Callable[[httpx2.AsyncClient], Coroutine[Any, Any, T]],
) -> T:
    fake = FakeTime()

    async def go() -> T:
        async with make_client(
            transport=transport,
            contact="me@example.org",
            api_key="",
            clock=fake,
            sleep=fake.sleep,
            limiter=RateLimiter(clock=fake, sleep=fake.sleep),
        ) as client:
            return await call(client)

    return asyncio.run(go())


def test_600_ids_make_three_posts_and_no_long_url() -> None:
    ids = [str(10_000_000 + n) for n in range(600)]
    requests: list[tuple[str, str, dict[str, list[str]]]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        form = parse_qs(request.content.decode())
        requests.append((request.method, str(request.url), form))
        batch = form["id"][0].split(",")
        result = {pmid: {"uid": pmid, "title": f"T{pmid}"} for pmid in batch}
        return httpx2.Response(200, content=json.dumps({"result": result}).encode())

    found = run(httpx2.MockTransport(handler), lambda c: esummary(c, ids))
    assert [method for method, _, _ in requests] == ["POST"] * 3
    assert all(len(url) < 300 for _, url, _ in requests)
    sent = [pmid for _, _, form in requests for pmid in form["id"][0].split(",")]
    assert sent == ids
    assert all(form["db"] == ["pubmed"] and form["retmode"] == ["json"] for *_, form in requests)
    assert all("id=" not in url for _, url, _ in requests)  # ids never in the URL
    assert len(found) == 600 and found["10000599"].title == "T10000599"


def test_esummary_failure_fails_the_whole_call() -> None:
    ids = [str(n) for n in range(1, 402)]
    count = 0

    def handler(request: httpx2.Request) -> httpx2.Response:
        nonlocal count
        count += 1
        if count > 1:
            return httpx2.Response(500)
        return httpx2.Response(200, content=b'{"result": {}}')

    with pytest.raises(NetworkError, match="500"):
        run(httpx2.MockTransport(handler), lambda c: esummary(c, ids))


def test_esummary_refuses_non_pmids_before_sending() -> None:
    with pytest.raises(ValueError, match="not a PMID"):
        asyncio.run(esummary(httpx2.AsyncClient(), ["123", "12;drop"]))


def test_esearch_params() -> None:
    assert esearch_params("q", retmax=5) == {
        "db": "pubmed",
        "term": "q",
        "retmax": "5",
        "retmode": "json",
    }
    both = esearch_params("q", retmax=5, retstart=10, mindate="2015", maxdate="2017/06/30")
    assert both["retstart"] == "10" and both["datetype"] == "pdat"
    assert (both["mindate"], both["maxdate"]) == ("2015", "2017/06/30")
    assert esearch_params("q", retmax=1, mindate="2015")["maxdate"] == "3000"
    assert esearch_params("q", retmax=1, maxdate="2015")["mindate"] == "1800"
    for bad in (
        {"retmax": 0},
        {"retmax": 10_001},
        {"retmax": 1, "retstart": -1},
        {"retmax": 1, "mindate": "2015-01"},
    ):
        with pytest.raises(ValueError):
            esearch_params("q", **bad)
    with pytest.raises(ValueError):
        esearch_params("  ", retmax=1)


@pytest.mark.parametrize(
    "payload",
    [
        {"esearchresult": {"ERROR": "Invalid query"}},
        {"esearchresult": {"count": "x", "idlist": []}},
        {"esearchresult": {"count": "1"}},
        {"nothing": 1},
        [1, 2],
    ],
)
def test_esearch_answers_that_cannot_be_read_raise(payload: Any) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=json.dumps(payload).encode())

    with pytest.raises(NetworkError):
        run(httpx2.MockTransport(handler), lambda c: esearch(c, esearch_params("q", retmax=1)))


@needs_corpus
def test_recorded_esearch_and_esummary() -> None:
    """The recorded esearch replays as is; the recorded esummary was a GET, so its body is
    served to our POST by a MockTransport that checks the form holds the recorded ids."""
    search_rec = load_litcheck(LITCHECK / "eutils-esearch-elsa-brasil-calcium.meta.json")
    summary_rec = load_litcheck(LITCHECK / "eutils-esummary-elsa-brasil-calcium.meta.json")
    recorded_ids = parse_qs(summary_rec.url.split("?", 1)[1])["id"][0]

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("esearch.fcgi"):
            recorded = {k: v[0] for k, v in parse_qs(search_rec.url.split("?", 1)[1]).items()}
            wire = {"email": "me@example.org", "tool": "citeproof"}
            assert dict(request.url.params) == {**recorded, **wire}
            return httpx2.Response(200, content=search_rec.body)
        assert parse_qs(request.content.decode())["id"] == [recorded_ids]
        return httpx2.Response(200, content=summary_rec.body)

    async def call(client: httpx2.AsyncClient) -> Any:
        page = await esearch(
            client,
            esearch_params(
                "ELSA-Brasil coronary artery calcium", retmax=5, mindate="2015", maxdate="2017"
            ),
        )
        return page, await esummary(client, page.ids)

    page, summaries = run(httpx2.MockTransport(handler), call)
    assert page.count == 10 and len(page.ids) == 5
    assert summaries["28647689"].pmcid == "PMC5669156"
    assert summaries["28647689"].doi == "10.1161/jaha.116.005088"
    assert summaries["28647689"].year == 2017
    assert all(summaries[p].title for p in page.ids)


def test_constants() -> None:
    assert eutils_search.SUMMARY_BATCH <= 500
    assert eutils_search.ESUMMARY_URL.endswith("esummary.fcgi")
