"""OPENALEX_API_KEY: sent to OpenAlex alone, on the wire alone, and named when OpenAlex refuses.

Every answer is invented here, in the shape OpenAlex gives since February 2026: a refused key
is 401, over-rate 403, a spent daily budget 429 with ``Retry-After`` of hours and a JSON
``{"error", "message"}``. No test reaches the network; the key is a made-up string that must
turn up nowhere but the wire.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest

from citeproof.errors import UpstreamUnavailableError
from citeproof.net import digests
from citeproof.net.client import api_keys, make_client
from citeproof.net.ratelimit import RateLimiter
from citeproof.net.recordings import Recording, load_folder
from citeproof.net.replay import ReplayTransport
from citeproof.net.session import Mode, open_session
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.lookup import Looked, search_for
from citeproof.sources import openalex
from replay_clients import FakeTime

KEY = "invented-openalex-key-7f3a"
NCBI_KEY = "invented-ncbi-key-19c2"
WHEN = datetime(2026, 4, 20, 9, 30, tzinfo=UTC)
Handler = Callable[[httpx2.Request], httpx2.Response]

_PAGE = {"meta": {"count": 0, "page": 1, "per_page": 5}, "results": []}
_SPENT = {
    "error": "Rate limit exceeded",
    "message": "Insufficient budget: this request costs $0.001 and $0.0000 remains today. "
    "Resets at midnight UTC.",
}
_SPENT_HEADERS = {
    "content-type": "application/json",
    "retry-after": "26000",
    "x-ratelimit-remaining-usd": "0.0000",
    "x-ratelimit-cost-required-usd": "0.001",
}


def _client(
    handler: Handler, *, key: str | None = "", fake: FakeTime | None = None
) -> httpx2.AsyncClient:
    fake = fake or FakeTime()
    return make_client(
        transport=httpx2.MockTransport(handler),
        contact="",
        api_key=NCBI_KEY,
        openalex_key=key,
        clock=fake,
        sleep=fake.sleep,
        limiter=RateLimiter(clock=fake, sleep=fake.sleep),
        now=lambda: WHEN,
    )


def _search(handler: Handler, *, key: str | None = "") -> list[object]:
    async def go() -> list[object]:
        async with _client(handler, key=key) as client:
            return list(await openalex.search_records(client, "invented mulch trial"))

    return asyncio.run(go())


def _json(status: int, body: object, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.Response(
        status, headers=headers or {"content-type": "application/json"}, json=body
    )


# --- on the wire, and only there ----------------------------------------------------------------


def test_the_key_goes_to_openalex_as_its_api_key_parameter_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENALEX_API_KEY", f"  {KEY}\n")
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return _json(200, _PAGE)

    assert _search(handler, key=None) == []
    assert seen[0].url.params["api_key"] == KEY
    assert seen[0].url.params.get_list("api_key") == [KEY]


def test_no_key_sends_no_parameter_and_openalex_is_still_asked() -> None:
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return _json(200, _PAGE)

    assert _search(handler, key="") == []
    assert "api_key" not in seen[0].url.params


def test_the_openalex_key_goes_to_no_other_service_and_ncbis_not_to_openalex() -> None:
    seen: dict[str, httpx2.URL] = {}

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen[request.url.host] = request.url
        return _json(200, _PAGE)

    async def go() -> None:
        async with _client(handler, key=KEY) as client:
            for url in (
                "https://api.openalex.org/works?search=x",
                "https://api.crossref.org/v1/works?query.bibliographic=x",
                "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?term=x",
                "https://api.datacite.org/dois?query=x",
            ):
                await client.get(url)

    asyncio.run(go())
    assert seen["api.openalex.org"].params["api_key"] == KEY
    assert seen["eutils.ncbi.nlm.nih.gov"].params["api_key"] == NCBI_KEY
    for host in ("api.crossref.org", "api.datacite.org"):
        assert "api_key" not in seen[host].params
    assert KEY not in str(seen["eutils.ncbi.nlm.nih.gov"])


def test_the_caller_and_the_evidence_digests_never_see_the_key() -> None:
    """The source, the pin cache and the evidence log all read ``response.request``: the
    caller's request, without what the wire added."""

    async def go() -> tuple[httpx2.Response, list[str]]:
        async with _client(lambda r: _json(200, _PAGE), key=KEY) as client:
            digests.install(client)
            with digests.collecting() as found:
                response = await client.get("https://api.openalex.org/works?search=x")
            return response, [d.url for d in found]

    response, urls = asyncio.run(go())
    assert KEY not in str(response.request.url) and "api_key" not in str(response.request.url)
    assert urls == ["https://api.openalex.org/works?search=x"]


def test_api_keys_lists_both_keys_set_for_scrubbing() -> None:
    env = {"NCBI_API_KEY": NCBI_KEY, "OPENALEX_API_KEY": f" {KEY} ", "OTHER": "x"}
    assert api_keys(env) == [NCBI_KEY, KEY]
    assert api_keys({"OPENALEX_API_KEY": "  "}) == []


# --- recorded without it, replayed with or without it -------------------------------------------


def test_a_recording_holds_no_key_and_replays_with_or_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENALEX_API_KEY", KEY)
    monkeypatch.delenv("CITEPROOF_CONTACT", raising=False)
    wire: list[httpx2.Request] = []

    def live(request: httpx2.Request) -> httpx2.Response:
        wire.append(request)
        headers = {"content-type": "application/json", "x-echo": f"key={KEY}"}
        return _json(200, _PAGE, headers)

    monkeypatch.setattr(
        "citeproof.net.record.live_transport", lambda host: httpx2.MockTransport(live)
    )
    fake = FakeTime()

    async def record() -> None:
        options = {"limiter": RateLimiter(clock=fake, sleep=fake.sleep), "clock": fake}
        async with open_session(Mode(record=tmp_path), now=lambda: WHEN, **options) as session:
            await openalex.search_records(session.client, "invented mulch trial")

    asyncio.run(record())
    assert wire[0].url.params["api_key"] == KEY
    for path in tmp_path.iterdir():
        assert KEY not in path.read_text(encoding="utf-8")
    (recording,) = load_folder(tmp_path)
    assert "api_key" not in recording.url and "x-echo" not in recording.headers

    replay = ReplayTransport([recording])
    for key in (KEY, "", "another-invented-key"):

        async def again(key: str = key) -> list[object]:
            async with _client_on(replay, key) as client:
                return list(await openalex.search_records(client, "invented mulch trial"))

        assert asyncio.run(again()) == []
    assert replay.refused == []


def _client_on(transport: httpx2.AsyncBaseTransport, key: str) -> httpx2.AsyncClient:
    fake = FakeTime()
    return make_client(
        transport=transport,
        contact="",
        api_key="",
        openalex_key=key,
        clock=fake,
        sleep=fake.sleep,
        limiter=RateLimiter(clock=fake, sleep=fake.sleep),
    )


def test_a_recording_with_a_key_in_its_url_replays_for_a_client_without_one() -> None:
    body = json.dumps(_PAGE).encode()
    recording = Recording(
        method="GET",
        url="https://api.openalex.org/works?search=x&per_page=5&api_key=OLD",
        status=200,
        headers={"content-type": "application/json"},
        body=body,
        body_sha256=hashlib.sha256(body).hexdigest(),
        date=None,
        name="openalex-search-x",
    )
    replay = ReplayTransport([recording])

    async def go() -> int:
        async with _client_on(replay, "") as client:
            response = await client.get(
                "https://api.openalex.org/works", params={"search": "x", "per_page": "5"}
            )
            return response.status_code

    assert asyncio.run(go()) == 200 and replay.refused == []


# --- refusals: a failed answer that names the variable, never "not found" -------------------------


@pytest.mark.parametrize("key", [KEY, ""])
def test_a_spent_budget_is_not_retried_and_names_the_variable(key: str) -> None:
    calls: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(request)
        return _json(429, _SPENT, _SPENT_HEADERS)

    with pytest.raises(UpstreamUnavailableError) as info:
        _search(handler, key=key)
    reason = info.value.reason
    assert len(calls) == 1  # asking again before midnight UTC only spends requests
    assert "OPENALEX_API_KEY" in reason and "429" in reason and "\n" not in reason
    assert ("the key in OPENALEX_API_KEY" in reason) is bool(key)
    assert KEY not in reason and "Insufficient" not in reason


@pytest.mark.parametrize(
    "headers",
    [
        {"content-type": "application/json", "retry-after": "30000"},
        {"content-type": "application/json", "x-ratelimit-remaining": "0"},
        {
            "content-type": "application/json",
            "x-ratelimit-remaining-usd": "0.0004",
            "x-ratelimit-cost-required-usd": "0.001",
        },
        {"content-type": "application/json"},  # only the body says it
    ],
)
def test_each_sign_of_a_spent_budget_is_enough(headers: dict[str, str]) -> None:
    calls: list[int] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(1)
        return _json(429, _SPENT, headers)

    with pytest.raises(UpstreamUnavailableError, match="OPENALEX_API_KEY"):
        _search(handler)
    assert len(calls) == 1


@pytest.mark.parametrize(
    ("status", "key", "words"),
    [
        (401, KEY, "refused the API key in OPENALEX_API_KEY"),
        (401, "", "set OPENALEX_API_KEY"),
        (403, KEY, "the key in OPENALEX_API_KEY"),
        (403, "", "set OPENALEX_API_KEY"),
    ],
)
def test_a_refused_key_is_a_failure_that_names_the_variable(
    status: int, key: str, words: str
) -> None:
    body = {"error": "Invalid API key", "message": f"The api_key {KEY} is not valid."}

    with pytest.raises(UpstreamUnavailableError) as info:
        _search(lambda r: _json(status, body), key=key)
    reason = info.value.reason
    assert words in reason and f"HTTP {status}" in reason
    assert KEY not in reason and "\n" not in reason


def test_a_lookup_refused_for_the_budget_is_a_failure_not_none() -> None:
    """``None`` from a lookup means "OpenAlex has no such work": a refusal must not be it."""

    async def go() -> object:
        async with _client(lambda r: _json(429, _SPENT, _SPENT_HEADERS)) as client:
            return await openalex.resolve_work(client, "doi", "10.5555/invented.oa.target")

    with pytest.raises(UpstreamUnavailableError, match="OPENALEX_API_KEY"):
        asyncio.run(go())


def test_an_error_object_in_a_200_is_the_budget_failure_not_an_empty_page() -> None:
    with pytest.raises(UpstreamUnavailableError, match="daily budget without an API key"):
        _search(lambda r: _json(200, _SPENT))


def test_a_burst_429_with_a_short_retry_after_is_still_retried() -> None:
    answers = [
        _json(
            429,
            {"error": "Rate limit exceeded", "message": "Slow down."},
            {"content-type": "application/json", "retry-after": "1", "x-ratelimit-remaining": "0"},
        ),
        _json(200, _PAGE),
    ]

    assert _search(lambda r: answers.pop(0)) == []
    assert answers == []


def test_the_search_for_a_reference_reports_openalex_as_failed_with_the_variable() -> None:
    """Crossref and PubMed find nothing, OpenAlex (asked last) has no budget: the reference
    has a failed answer naming OPENALEX_API_KEY, never an empty one (so never not_found)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        host = request.url.host
        if host == "api.openalex.org":
            return _json(429, _SPENT, _SPENT_HEADERS)
        if host == "api.crossref.org":
            return _json(
                200,
                {
                    "status": "ok",
                    "message-type": "work-list",
                    "message": {"items": [], "total-results": 0},
                },
            )
        if request.url.path.endswith("esearch.fcgi"):
            return _json(200, {"esearchresult": {"count": "0", "idlist": []}})
        return _json(404, {})

    stated = parse_reference_string(
        "Halloway W, Szabo R. Mulch depth and invented earthworm counts in raised beds. "
        "Invented J Hortic. 2019;7(2):e1042."
    )
    looked = Looked()

    async def go() -> None:
        async with _client(handler, key="") as client:
            await search_for(client, stated, looked)

    asyncio.run(go())
    last = looked.asked[-1]
    assert last.service == "openalex" and last.status == "failed"
    assert last.reason is not None and "OPENALEX_API_KEY" in last.reason
    assert looked.asked[0].service == "crossref"
    assert not looked.searches[-1].ok
