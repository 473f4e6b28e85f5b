"""citeproof.search.queries: record building, the log payload, failed and empty records, input
validation and fault injection, all on ``httpx2.MockTransport`` (no network, no corpus)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Coroutine
from datetime import UTC, date, datetime
from typing import Any, TypeVar

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.errors import BadInputError
from citeproof.models.search import SearchRecord
from citeproof.search import queries as search
from citeproof.search.queries import (
    SearchCursorError,
    SearchDateError,
    SearchInputError,
    SearchLimitError,
    SearchOfflineError,
    UnknownEngineError,
    citing,
    run_search,
)
from replay_clients import run

T = TypeVar("T")
FIXED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
Handler = Callable[[httpx2.Request], httpx2.Response]


def run_with(handler: Handler, call: Callable[[httpx2.AsyncClient], Coroutine[Any, Any, T]]) -> T:
    """The shared fake-time client on ``handler``, with a contact address and an API key that
    go on the wire and must never reach a record."""
    return run(
        httpx2.MockTransport(handler), call, contact="someone@example.org", api_key="SECRETKEY"
    )


def json_response(payload: Any, status: int = 200) -> Callable[[httpx2.Request], httpx2.Response]:
    body = json.dumps(payload).encode()

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, content=body, headers={"content-type": "application/json"})

    return handler


EPMC_PAGE = {
    "hitCount": 2,
    "nextCursorMark": "NEXT",
    "resultList": {
        "result": [
            {
                "id": "123",
                "source": "MED",
                "pmid": "123",
                "title": "One",
                "pubYear": "2020",
                "doi": "10.1/ABC",
            },
            {"id": "PPR9", "source": "PPR", "title": "Two", "pubYear": "2021"},
        ]
    },
}


def test_record_of_a_search_names_every_response_and_item() -> None:
    body = json.dumps(EPMC_PAGE).encode()
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, content=body)

    record = run_with(
        handler, lambda c: run_search("europepmc", "aspirin", c, limit=2, now=lambda: FIXED)
    )
    assert record.status == "ok" and record.reason is None
    assert record.hit_count == 2 and record.next_cursor == "NEXT"
    assert [i.id for i in record.items] == ["pmid:123", "ppr:PPR9"]
    assert record.items[0].doi == "10.1/abc" and record.items[0].year == 2020
    assert record.params == {
        "query": "aspirin",
        "resultType": "lite",
        "format": "json",
        "pageSize": "2",
    }
    (response,) = record.responses
    assert response.sha256 == hashlib.sha256(body).hexdigest()
    assert response.status == 200
    # the contact address went on the wire, but never into the record
    assert "someone%40example.org" in str(seen[0].url) or "someone@example.org" in str(seen[0].url)
    dumped = record.model_dump_json()
    assert "someone" not in dumped and "SECRETKEY" not in dumped
    assert record.retrieved_at == FIXED.isoformat()
    assert json.loads(dumped)["schema"] == "citeproof.search/1"


def test_log_payload_is_exactly_the_evidence() -> None:
    record = run_with(
        json_response(EPMC_PAGE), lambda c: run_search("europepmc", "aspirin", c, limit=2)
    )
    payload = record.log_payload()
    assert set(payload) == {
        "schema",
        "engine",
        "endpoint",
        "query",
        "params",
        "status",
        "reason",
        "responses",
        "hit_count",
        "ids",
    }
    assert payload["engine"] == "europepmc"
    assert payload["endpoint"].endswith("/rest/search")
    assert payload["ids"] == ["pmid:123", "ppr:PPR9"]
    assert payload["responses"] == [r.sha256 for r in record.responses]
    assert payload["hit_count"] == 2
    json.dumps(payload)  # serialisable as is


def test_empty_result_is_a_record_that_says_so() -> None:
    record = run_with(
        json_response({"hitCount": 0, "resultList": {"result": []}}),
        lambda c: run_search("europepmc", "zzzz", c),
    )
    assert record.status == "empty"
    assert record.items == [] and record.hit_count == 0
    assert record.reason and "nothing" in record.reason
    assert record.log_payload()["ids"] == []
    assert len(record.log_payload()["responses"]) == 1


def test_503s_make_a_failed_record_with_the_reason() -> None:
    calls: list[int] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(1)
        return httpx2.Response(503, content=b"busy")

    record = run_with(handler, lambda c: run_search("pubmed", "aspirin", c))
    assert record.status == "failed"
    assert record.reason and "503" in record.reason
    assert len(calls) == 3  # the client's retries, then the failure is recorded
    assert record.items == [] and record.hit_count is None
    assert record.log_payload()["status"] == "failed"


def test_connection_errors_make_a_failed_record() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    record = run_with(handler, lambda c: run_search("openalex", "aspirin", c))
    assert record.status == "failed" and record.reason
    assert record.responses == []


def test_failure_in_the_second_step_keeps_the_first_response() -> None:
    esearch = {"esearchresult": {"count": "1", "retstart": "0", "idlist": ["42"]}}

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("esearch.fcgi"):
            return httpx2.Response(200, content=json.dumps(esearch).encode())
        return httpx2.Response(500, content=b"oops")

    record = run_with(handler, lambda c: run_search("pubmed", "aspirin", c))
    assert record.status == "failed"
    assert [r.url.split("?")[0].rsplit("/", 1)[1] for r in record.responses] == ["esearch.fcgi"]


def test_a_non_json_answer_is_a_failure_not_a_crash() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=b"<html>maintenance</html>")

    for engine in ("europepmc", "pubmed", "litsense", "openalex", "clinicaltrials", "openfda"):
        record = run_with(handler, lambda c, e=engine: run_search(e, "aspirin", c))  # type: ignore[misc]
        assert record.status == "failed", engine
        assert len(record.responses) == 1, engine


def test_responses_outside_a_search_are_not_collected() -> None:
    async def call(client: httpx2.AsyncClient) -> tuple[SearchRecord, SearchRecord]:
        first = await run_search("europepmc", "a", client)
        await client.get("https://www.ebi.ac.uk/europepmc/webservices/rest/other")
        second = await run_search("europepmc", "b", client)
        return first, second

    first, second = run_with(json_response(EPMC_PAGE), call)
    assert len(first.responses) == 1 and len(second.responses) == 1


def test_concurrent_searches_on_one_client_keep_their_own_responses() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        query = request.url.params["query"]
        page = {"hitCount": 1, "resultList": {"result": [{"id": query, "source": "MED"}]}}
        return httpx2.Response(200, content=json.dumps(page).encode())

    async def call(client: httpx2.AsyncClient) -> list[SearchRecord]:
        return list(
            await asyncio.gather(*(run_search("europepmc", str(n), client) for n in range(1, 6)))
        )

    records = run_with(handler, call)
    for n, record in enumerate(records, 1):
        assert [i.id for i in record.items] == [f"pmid:{n}"]
        assert len(record.responses) == 1
        assert f"query={n}" in record.responses[0].url


def test_pubmed_record_pairs_esearch_and_esummary() -> None:
    esearch = {"esearchresult": {"count": "3", "retstart": "0", "idlist": ["11", "12"]}}
    summary = {
        "result": {
            "uids": ["11", "12"],
            "11": {
                "title": "Eleven",
                "pubdate": "1999 Jan",
                "articleids": [{"idtype": "doi", "value": "10.9/X"}],
            },
        }
    }

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("esearch.fcgi"):
            return httpx2.Response(200, content=json.dumps(esearch).encode())
        assert request.method == "POST"
        return httpx2.Response(200, content=json.dumps(summary).encode())

    record = run_with(handler, lambda c: run_search("pubmed", "q", c, limit=2))
    assert [i.id for i in record.items] == ["pmid:11", "pmid:12"]
    assert record.items[0].title == "Eleven" and record.items[0].year == 1999
    assert record.items[1].title is None  # esummary had nothing for 12: kept, not dropped
    assert record.next_cursor == "2"
    assert [r.method for r in record.responses] == ["GET", "POST"]


def test_citing_resolves_a_doi_first() -> None:
    work = {"id": "https://openalex.org/W77", "title": "Cited", "ids": {}}
    page = {"meta": {"count": 1, "page": 1}, "results": [{"id": "https://openalex.org/W5"}]}

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.startswith("/works/doi:"):
            return httpx2.Response(200, content=json.dumps(work).encode())
        assert request.url.params["filter"] == "cites:W77"
        return httpx2.Response(200, content=json.dumps(page).encode())

    record = run_with(handler, lambda c: citing("10.1234/abc", c))
    assert record.status == "ok"
    assert record.params["filter"] == "cites:W77"
    assert [i.id for i in record.items] == ["openalex:W5"]
    assert len(record.responses) == 2


def test_citing_an_unknown_work_fails_with_a_reason() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(404, content=b'{"error": "not found"}')

    record = run_with(handler, lambda c: citing("PMID 999", c))
    assert record.status == "failed"
    assert record.reason and "pmid:999" in record.reason
    assert record.endpoint.endswith("works/pmid:999")
    assert len(record.responses) == 1


def test_citing_refuses_identifiers_openalex_cannot_take() -> None:
    with pytest.raises(SearchInputError, match="citing needs"):
        asyncio.run(citing("NCT04363697", httpx2.AsyncClient()))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"engine": "google"}, UnknownEngineError),
        ({"limit": 0}, SearchLimitError),
        ({"limit": 1001}, SearchLimitError),
        ({"engine": "litsense", "limit": 101}, SearchLimitError),
        ({"engine": "openalex", "limit": 201}, SearchLimitError),
        ({"since": "2020-13"}, SearchDateError),
        ({"since": "2021-02-30"}, SearchDateError),
        ({"since": "last year"}, SearchDateError),
        ({"since": "2022", "until": "2021"}, SearchDateError),
        ({"engine": "litsense", "since": "2020"}, SearchDateError),
        ({"engine": "litsense", "cursor": "2"}, SearchCursorError),
        ({"engine": "pubmed", "cursor": "abc"}, SearchCursorError),
        ({"engine": "openfda", "cursor": "99999"}, SearchCursorError),
        ({"query": "   "}, SearchInputError),
        ({"query": "x" * 2001}, SearchInputError),
    ],
)
def test_bad_input_is_refused_before_any_request(kwargs: dict[str, Any], error: type) -> None:
    args: dict[str, Any] = {"engine": "europepmc", "query": "aspirin", "limit": 10}
    args.update(kwargs)

    def handler(request: httpx2.Request) -> httpx2.Response:
        raise AssertionError("no request may be made for bad input")

    with pytest.raises(error) as info:
        run_with(
            handler,
            lambda c: run_search(args.pop("engine"), args.pop("query"), c, **args),
        )
    assert isinstance(info.value, BadInputError) and info.value.exit_code == 2
    assert str(info.value).endswith(".")


def test_offline_refuses_with_exit_3() -> None:
    with pytest.raises(SearchOfflineError) as info:
        search.search_sync("pubmed", "aspirin", offline=True)
    assert info.value.exit_code == 3 and "--offline" in str(info.value)


@given(st.dates(min_value=date(1000, 1, 1), max_value=date(2999, 12, 31)))
def test_dates_cover_exactly_their_period(day: date) -> None:
    full = search.parse_date(day.isoformat(), "--since")
    assert full.first == full.last == day
    month = search.parse_date(day.isoformat()[:7], "--since")
    assert month.first <= day <= month.last and month.first.day == 1
    assert month.first.month == month.last.month
    year = search.parse_date(str(day.year).zfill(4), "--since")
    assert year.first == date(day.year, 1, 1) and year.last == date(day.year, 12, 31)
    assert full.eutils == day.strftime("%Y/%m/%d")


@given(st.text(max_size=12))
def test_parse_date_never_crashes(text: str) -> None:
    try:
        bound = search.parse_date(text, "--until")
    except SearchDateError:
        return
    assert bound.first <= bound.last


def test_since_only_fills_the_other_bound_per_engine() -> None:
    seen: list[httpx2.URL] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.url)
        return httpx2.Response(404, content=b'{"error": {"code": "NOT_FOUND"}}')

    record = run_with(handler, lambda c: run_search("openfda", "warfarin", c, since="2020-05"))
    assert record.status == "empty"
    assert "effective_time:[20200501 TO 30001231]" in seen[0].params["search"]
