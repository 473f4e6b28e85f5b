"""OpenAlex: works search parameters, the ``cites:`` page recorded in the corpus (replayed
as is), paging cursors and the DOI/PMID/PMCID lookup; offline throughout."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest

from citeproof.errors import NetworkError
from citeproof.net.replay import ReplayTransport
from citeproof.sources import openalex
from replay_clients import run_with_contact as run


def answer(payload: Any, status: int = 200) -> httpx2.MockTransport:
    return httpx2.MockTransport(
        lambda request: httpx2.Response(status, content=json.dumps(payload).encode())
    )


def test_work_id_forms() -> None:
    assert openalex.work_id("W123") == "W123"
    assert openalex.work_id("w123") == "W123"
    assert openalex.work_id("https://openalex.org/W2474002222") == "W2474002222"
    assert openalex.work_id("10.1/x") is None
    assert openalex.work_id("A123") is None


def test_works_params() -> None:
    assert openalex.works_params(cites="w9", per_page=25) == {
        "filter": "cites:W9",
        "per_page": "25",
    }
    p = openalex.works_params(
        search="aspirin", per_page=5, cursor="*", from_date="2020-01-01", to_date="2020-12-31"
    )
    assert p["filter"] == "from_publication_date:2020-01-01,to_publication_date:2020-12-31"
    assert p["cursor"] == "*" and p["search"] == "aspirin"
    assert openalex.works_params(search="a", cursor="3")["page"] == "3"
    for bad in (
        {"per_page": 0},
        {"per_page": 201},
        {"cites": "10.1/x"},
        {"from_date": "2020"},
        {"search": " "},
    ):
        with pytest.raises(ValueError):
            openalex.works_params(**bad)


def test_recorded_cites_page_replays_through_works(litcheck: ReplayTransport) -> None:
    transport = litcheck
    page = run(
        transport,
        lambda c: openalex.works(c, openalex.works_params(cites="W2474002222", per_page=25)),
    )
    assert transport.refused == []
    assert page.count == 5 and len(page.results) == 5
    first = page.results[0]
    assert first.id == "W3005729285"
    assert first.doi == "10.5772/intechopen.91064"
    assert first.title == "Atherosclerosis: A Journey around the Terminology"
    assert first.year == 2020
    assert page.next_cursor is None  # 5 results, one page


def test_page_mode_offers_the_next_page_number() -> None:
    payload = {
        "meta": {"count": 60, "page": 1, "per_page": 25},
        "results": [{"id": f"https://openalex.org/W{n}"} for n in range(25)],
    }
    page = run(answer(payload), lambda c: openalex.works(c, openalex.works_params(search="a")))
    assert page.next_cursor == "2"


def test_cursor_mode_passes_the_services_cursor_on() -> None:
    payload = {
        "meta": {"count": 60, "next_cursor": "abc"},
        "results": [{"id": "https://openalex.org/W1"}],
    }
    page = run(
        answer(payload), lambda c: openalex.works(c, openalex.works_params(search="a", cursor="*"))
    )
    assert page.next_cursor == "abc"


def test_external_ids_are_read() -> None:
    work = {
        "id": "https://openalex.org/W7",
        "display_name": "Shown",
        "publication_year": 1998,
        "is_retracted": True,
        "ids": {
            "doi": "https://doi.org/10.1016/S0140-6736(97)11096-0",
            "pmid": "https://pubmed.ncbi.nlm.nih.gov/9500320",
            "pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC123",
        },
    }
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.url.path)
        return httpx2.Response(200, content=json.dumps(work).encode())

    found = run(
        httpx2.MockTransport(handler),
        lambda c: openalex.resolve_work(c, "doi", "10.1016/s0140-6736(97)11096-0"),
    )
    assert seen == ["/works/doi:10.1016/s0140-6736(97)11096-0"]
    assert found is not None
    assert (found.id, found.doi, found.pmid, found.pmcid) == (
        "W7",
        "10.1016/s0140-6736(97)11096-0",
        "9500320",
        "PMC123",
    )
    assert found.is_retracted and found.title == "Shown" and found.year == 1998


def test_lookup_404_is_none_and_other_failures_raise() -> None:
    assert run(answer({}, 404), lambda c: openalex.resolve_work(c, "pmid", "1")) is None
    with pytest.raises(NetworkError, match="403"):
        run(answer({}, 403), lambda c: openalex.resolve_work(c, "pmid", "1"))
    with pytest.raises(ValueError):
        asyncio.run(openalex.resolve_work(httpx2.AsyncClient(), "doi", "a,b"))


def test_works_without_count_raise() -> None:
    with pytest.raises(NetworkError, match=r"meta\.count"):
        run(answer({"results": []}), lambda c: openalex.works(c, {"per_page": "1"}))
