"""The client factory: retries, Retry-After, body caps, deadlines and contact parameters.

No network: every test gives the client an ``httpx2.MockTransport``; sleeps are recorded and
return at once, so backoff and Retry-After are asserted without waiting.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import zlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx2
import pytest

from citeproof.errors import (
    BodyTooLargeError,
    CiteproofError,
    DeadlineExceededError,
    RetryAfterTooLongError,
    UpstreamUnavailableError,
)
from citeproof.net.client import make_client, redact_url, user_agent
from citeproof.net.ratelimit import RateLimiter
from citeproof.net.retry import deadline, parse_retry_after
from citeproof.redact import SECRET_PARAMS
from replay_clients import FakeTime

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
PMC_S3 = "https://pmc-oa-opendata.s3.amazonaws.com/PMC1.1/PMC1.1.txt"
EUTILS = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed&term=x"
Handler = Callable[[httpx2.Request], httpx2.Response]


# The injected clock and sleep: sleeping advances the clock instantly.
Recorder = FakeTime


def _client(handler: Handler, rec: Recorder, **kwargs: object) -> httpx2.AsyncClient:
    options: dict[str, object] = {
        "transport": httpx2.MockTransport(handler),
        "contact": "",
        "api_key": "",
        "clock": rec,
        "sleep": rec.sleep,
        "now": lambda: NOW,
        "rng": random.Random(7),
        "limiter": RateLimiter(clock=rec, sleep=rec.sleep),
    }
    options.update(kwargs)
    return make_client(**options)  # type: ignore[arg-type]


def _get(handler: Handler, url: str = PMC_S3, **kwargs: object) -> tuple[httpx2.Response, Recorder]:
    rec = Recorder()

    async def main() -> httpx2.Response:
        async with _client(handler, rec, **kwargs) as client:
            return await client.get(url)

    return asyncio.run(main()), rec


def _sequence(*responses: httpx2.Response | Exception) -> tuple[Handler, list[httpx2.Request]]:
    seen: list[httpx2.Request] = []
    queue = list(responses)

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        item = queue.pop(0)
        if isinstance(item, Exception):
            raise item
        return item

    return handler, seen


# --- retries -----------------------------------------------------------------------------------


def test_429_with_retry_after_seconds_waits_exactly_that_long() -> None:
    handler, seen = _sequence(
        httpx2.Response(429, headers={"Retry-After": "7"}), httpx2.Response(200, text="ok")
    )
    response, rec = _get(handler)
    assert response.status_code == 200 and response.text == "ok"
    assert len(seen) == 2 and rec.sleeps == [7.0]


def test_429_with_retry_after_http_date() -> None:
    when = format_datetime(NOW + timedelta(seconds=12), usegmt=True)
    handler, _ = _sequence(
        httpx2.Response(429, headers={"Retry-After": when}), httpx2.Response(200, text="ok")
    )
    response, rec = _get(handler)
    assert response.status_code == 200
    assert rec.sleeps == [pytest.approx(12.0)]


def test_503_then_200_backs_off_with_jitter_within_the_base() -> None:
    handler, seen = _sequence(httpx2.Response(503), httpx2.Response(200, text="ok"))
    response, rec = _get(handler)
    assert response.text == "ok" and len(seen) == 2
    assert len(rec.sleeps) == 1 and 0.0 <= rec.sleeps[0] <= 0.5


def test_timeout_then_200_is_retried() -> None:
    handler, seen = _sequence(httpx2.ReadTimeout("slow"), httpx2.Response(200, text="ok"))
    response, _ = _get(handler)
    assert response.text == "ok" and len(seen) == 2


def test_503_three_times_is_unavailable_with_a_precise_reason() -> None:
    handler, seen = _sequence(*(httpx2.Response(503) for _ in range(3)))
    with pytest.raises(UpstreamUnavailableError) as info:
        _get(handler)
    assert len(seen) == 3
    err = info.value
    assert str(err).startswith(
        "PMC Cloud Service (pmc-oa-opendata.s3.amazonaws.com) answered 503 three times"
    )
    assert err.exit_code == 3 and isinstance(err, CiteproofError)
    assert err.service == "PMC Cloud Service"


def test_mixed_failures_are_listed() -> None:
    handler, _ = _sequence(
        httpx2.ConnectError("refused"), httpx2.Response(502), httpx2.Response(504)
    )
    with pytest.raises(
        UpstreamUnavailableError, match=r"failed three times \(ConnectError, 502 and 504\)"
    ):
        _get(handler)


def test_backoff_grows_exponentially_with_full_jitter() -> None:
    rec = Recorder()
    handler, _ = _sequence(*(httpx2.Response(500) for _ in range(5)))

    async def main() -> None:
        async with _client(handler, rec, attempts=5, rng=random.Random(1)) as client:
            await client.get(PMC_S3)

    with pytest.raises(UpstreamUnavailableError, match="answered 500 five times"):
        asyncio.run(main())
    assert len(rec.sleeps) == 4
    for attempt, slept in enumerate(rec.sleeps, start=1):
        assert 0.0 <= slept <= 0.5 * 2 ** (attempt - 1)


def test_retry_after_over_the_limit_stops_without_sleeping() -> None:
    handler, seen = _sequence(httpx2.Response(503, headers={"Retry-After": "120"}))
    with pytest.raises(RetryAfterTooLongError) as info:
        _get(handler)
    assert "Retry-After of 120 s exceeds the 60 s limit" in str(info.value)
    assert info.value.wait == 120 and info.value.limit == 60
    assert len(seen) == 1


def test_retry_after_limit_is_configurable_and_no_sleep_happens() -> None:
    rec = Recorder()
    handler, _ = _sequence(httpx2.Response(429, headers={"Retry-After": "30"}))

    async def main() -> None:
        async with _client(handler, rec, max_wait=10.0) as client:
            await client.get(PMC_S3)

    with pytest.raises(RetryAfterTooLongError, match="exceeds the 10 s limit"):
        asyncio.run(main())
    assert 30.0 not in rec.sleeps and rec.sleeps == []


def test_non_retryable_errors_are_returned_not_retried() -> None:
    handler, seen = _sequence(httpx2.Response(404, text="no"))
    response, rec = _get(handler)
    assert response.status_code == 404 and len(seen) == 1 and rec.sleeps == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", 0.0),
        ("15", 15.0),
        (format_datetime(NOW - timedelta(seconds=5), usegmt=True), 0.0),
        ("Fri, 02 Jan 2026 03:05:05 GMT", 60.0),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_retry_after(value: str | None, expected: float | None) -> None:
    assert parse_retry_after(value, now=NOW) == expected


# --- deadline ------------------------------------------------------------------------------------


def test_deadline_stops_retries_that_would_overrun_the_check() -> None:
    rec = Recorder()
    handler, seen = _sequence(
        httpx2.Response(503, headers={"Retry-After": "20"}), httpx2.Response(200)
    )

    async def main() -> None:
        async with _client(handler, rec) as client:
            with deadline(10.0, clock=rec):
                await client.get(PMC_S3)

    with pytest.raises(DeadlineExceededError, match="within the 10 s allowed for this check"):
        asyncio.run(main())
    assert len(seen) == 1 and rec.sleeps == []


def test_deadline_bounds_a_hanging_request() -> None:
    async def hang(request: httpx2.Request) -> httpx2.Response:
        await asyncio.sleep(30)
        return httpx2.Response(200)

    async def main() -> None:
        async with make_client(
            transport=httpx2.MockTransport(hang), contact="", api_key="", limiter=RateLimiter()
        ) as client:
            with deadline(0.05):
                await client.get(PMC_S3)

    with pytest.raises(DeadlineExceededError):
        asyncio.run(main())


# --- body cap ------------------------------------------------------------------------------------


class ChunkStream(httpx2.AsyncByteStream):
    """A real streaming body (not pre-read), as the network would deliver it."""

    def __init__(self, data: bytes, size: int = 1024) -> None:
        self.data = data
        self.size = size
        self.yielded = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(0, len(self.data), self.size):
            self.yielded += self.size
            yield self.data[i : i + self.size]


class BrokenStream(httpx2.AsyncByteStream):
    """A body whose connection drops half-way."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b"half of it"
        raise httpx2.ReadError("connection reset")


def test_connection_dropped_mid_body_is_retried() -> None:
    handler, seen = _sequence(
        httpx2.Response(200, stream=BrokenStream()), httpx2.Response(200, text="whole")
    )
    response, _ = _get(handler)
    assert response.text == "whole" and len(seen) == 2


def test_gzip_bomb_is_stopped_at_the_cap() -> None:
    bomb = gzip.compress(b"\0" * 5_000_000)
    assert len(bomb) < 10_000
    stream = ChunkStream(bomb)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"Content-Encoding": "gzip"}, stream=stream)

    with pytest.raises(BodyTooLargeError, match="over the 100,000 byte limit") as info:
        _get(handler, max_body=100_000)
    assert info.value.exit_code == 3
    assert stream.yielded < len(bomb)  # stopped early, not after inflating everything


def test_gzip_and_deflate_under_the_cap_are_decoded() -> None:
    text = b"the quoted words " * 100
    for encoding, body in [
        ("gzip", gzip.compress(text)),
        ("deflate", zlib.compress(text)),
        ("deflate", zlib.compress(text)[2:-4]),  # raw deflate, as some servers send it
    ]:

        def handler(
            request: httpx2.Request, body: bytes = body, enc: str = encoding
        ) -> httpx2.Response:
            return httpx2.Response(
                200, headers={"Content-Encoding": enc}, stream=ChunkStream(body, 7)
            )

        response, _ = _get(handler, max_body=len(text))
        assert response.content == text
        assert "content-encoding" not in response.headers


def test_body_over_the_cap_without_compression() -> None:
    stream = ChunkStream(b"x" * 10_000, size=100)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, stream=stream)

    with pytest.raises(BodyTooLargeError):
        _get(handler, max_body=1_000)
    assert stream.yielded <= 1_100


def test_declared_content_length_over_the_cap_fails_before_reading() -> None:
    stream = ChunkStream(b"x" * 10)

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"Content-Length": "999999"}, stream=stream)

    with pytest.raises(BodyTooLargeError):
        _get(handler, max_body=1_000)
    assert stream.yielded == 0


def test_body_exactly_at_the_cap_is_fine() -> None:
    response, _ = _get(lambda r: httpx2.Response(200, content=b"y" * 1_000), max_body=1_000)
    assert len(response.content) == 1_000


# --- contact parameters, User-Agent, API key -----------------------------------------------------

CONTACT = "curator@example.org"
KEY = "ncbi-key-123"


def _wire(
    url: str, *, contact: str = CONTACT, api_key: str = KEY
) -> tuple[httpx2.Request, httpx2.Response]:
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json={})

    response, _ = _get(handler, url, contact=contact, api_key=api_key)
    return seen[0], response


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (EUTILS, {"email": CONTACT, "tool": "citeproof", "api_key": KEY}),
        (
            "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/?ids=PMC1&format=json",
            {"email": CONTACT, "tool": "citeproof", "api_key": KEY},
        ),
        ("https://api.crossref.org/works/10.1000/x", {"mailto": CONTACT}),
        ("https://api.openalex.org/works/doi:10.1000/x", {"mailto": CONTACT}),
        ("https://www.ebi.ac.uk/europepmc/webservices/rest/search?query=x", {"email": CONTACT}),
        ("https://www.ncbi.nlm.nih.gov/research/litsense2-api/api/sentences/?query=x", {}),
        (PMC_S3, {}),
        ("https://clinicaltrials.gov/api/v2/studies/NCT01", {}),
    ],
)
def test_contact_params_per_service(url: str, expected: dict[str, str]) -> None:
    wire, response = _wire(url)
    added = {k: v for k, v in wire.url.params.items() if k in SECRET_PARAMS}
    assert added == expected
    assert wire.headers["User-Agent"].endswith(f"(+mailto:{CONTACT})")
    assert wire.headers["User-Agent"].startswith("citeproof/")
    # the request a source sees (and might store) carries neither the contact nor the key
    assert CONTACT not in str(response.request.url) and KEY not in str(response.request.url)
    assert CONTACT not in response.request.headers.get("User-Agent", "")
    # original parameters survive
    for key, value in httpx2.URL(url).params.multi_items():
        assert wire.url.params.get(key) == value


def test_no_contact_no_key_sends_only_the_tool_name() -> None:
    wire, _ = _wire(EUTILS, contact="", api_key="")
    assert "email" not in wire.url.params and "api_key" not in wire.url.params
    assert wire.url.params["tool"] == "citeproof"
    assert wire.headers["User-Agent"] == user_agent(None)
    assert "mailto" not in wire.headers["User-Agent"]


def test_caller_parameters_are_not_overridden() -> None:
    wire, _ = _wire(EUTILS + "&tool=mytool")
    assert wire.url.params.get_list("tool") == ["mytool"]


def test_environment_supplies_contact_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEPROOF_CONTACT", "env@example.org")
    monkeypatch.setenv("NCBI_API_KEY", "env-key")
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200)

    _get(handler, EUTILS, contact=None, api_key=None)
    assert seen[0].url.params["email"] == "env@example.org"
    assert seen[0].url.params["api_key"] == "env-key"


def test_client_settings() -> None:
    client = make_client(contact="", api_key="")
    assert client.trust_env is False
    assert client.timeout.connect == 10.0 and client.timeout.read == 30.0
    assert client.headers["Accept-Encoding"] == "gzip, deflate"


def test_redact_url_removes_secrets() -> None:
    url = f"{EUTILS}&email={CONTACT}&api_key={KEY}&tool=citeproof"
    clean = redact_url(url)
    assert CONTACT not in clean and KEY not in clean and "tool=" not in clean
    assert "term=x" in clean
