"""The search additions to ClinicalTrials.gov, openFDA and Europe PMC, on tekmeria's
recorded searches (replayed as is where our request is the recorded one) and mock answers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest

from citeproof.errors import NetworkError
from citeproof.sources import ctgov, europepmc, openfda
from replay_clients import needs_corpus, run, tekmeria_replay


@needs_corpus
def test_ctgov_recorded_search_replays() -> None:
    transport = tekmeria_replay("4e076caa5ebe58bb7d6c16e2")
    params = ctgov.studies_params(
        cond="heart failure", intr="dapagliflozin", advanced="AREA[HasResults]true", page_size=50
    )
    page = run(transport, lambda c: ctgov.search_studies(c, params))
    assert transport.refused == []
    assert page.total == 14 and len(page.studies) == 14
    assert page.next_page_token is None
    first = page.studies[0]
    assert first.nct == "NCT04363697"
    assert first.title and first.title.startswith("Dapagliflozin and Effect")
    assert first.status == "COMPLETED" and first.first_posted == "2020-04-27"
    assert "21900289" in first.pmids


def test_ctgov_params() -> None:
    p = ctgov.studies_params(term="aspirin", since="2020-01-01", page_token="tok")
    assert p["query.term"] == "aspirin" and p["pageToken"] == "tok"
    assert p["filter.advanced"] == "AREA[StudyFirstPostDate]RANGE[2020-01-01,MAX]"
    assert p["countTotal"] == "true"
    both = ctgov.studies_params(term="a", advanced="AREA[HasResults]true", until="2021-12-31")
    assert both["filter.advanced"] == (
        "AREA[HasResults]true AND AREA[StudyFirstPostDate]RANGE[MIN,2021-12-31]"
    )
    for bad in ({}, {"term": " "}, {"term": "a", "page_size": 0}, {"term": "a", "since": "2020"}):
        with pytest.raises(ValueError):
            ctgov.studies_params(**bad)


def test_ctgov_failures_raise() -> None:
    for status, body in ((500, b"{}"), (200, b"nope"), (200, b'{"studies": 3}')):
        transport = httpx2.MockTransport(lambda r, s=status, b=body: httpx2.Response(s, content=b))
        with pytest.raises(NetworkError):
            run(transport, lambda c: ctgov.search_studies(c, ctgov.studies_params(term="a")))


@needs_corpus
def test_openfda_recorded_pages_replay() -> None:
    transport = tekmeria_replay("1378bad02d89db51b2cb4ce2", "cfe69e6b6c1752c1a20b492a")
    query = openfda.drug_query("warfarin")

    async def both(client: httpx2.AsyncClient) -> Any:
        first = await openfda.search_labels(client, openfda.labels_params(query, limit=3))
        second = await openfda.search_labels(client, openfda.labels_params(query, limit=3, skip=3))
        return first, second

    first, second = run(transport, both)
    assert transport.refused == []
    assert first.total == 288 and len(first.labels) == 3 and len(second.labels) == 3
    assert first.labels[0].title == "Warfarin Sodium"
    ids = {label.set_id for label in first.labels} | {label.set_id for label in second.labels}
    assert len(ids) == 6  # the second page is other labels


@needs_corpus
def test_openfda_no_match_404_is_an_empty_page() -> None:
    transport = tekmeria_replay("34589af539d8218634455307")
    params = openfda.labels_params(openfda.drug_query("zzzqqq not a drug"), limit=10)
    page = run(transport, lambda c: openfda.search_labels(c, params))
    assert transport.refused == [] and page.total == 0 and page.labels == []


def test_openfda_other_404_and_errors_raise() -> None:
    params = openfda.labels_params("x:y")
    for status, body in (
        (404, b'{"error": {"code": "OTHER"}}'),
        (404, b"gone"),
        (500, b"{}"),
        (200, b'{"meta": {}}'),
    ):
        transport = httpx2.MockTransport(lambda r, s=status, b=body: httpx2.Response(s, content=b))
        with pytest.raises(NetworkError):
            run(transport, lambda c: openfda.search_labels(c, params))


def test_openfda_params() -> None:
    p = openfda.labels_params("a:b", limit=5, skip=10, since="20200101")
    assert p == {
        "search": "(a:b) AND effective_time:[20200101 TO 30001231]",
        "limit": "5",
        "skip": "10",
        "sort": "effective_time:desc",
    }
    assert '"war farin"' in openfda.drug_query(' war  "farin ')
    for bad in (
        {"limit": 0},
        {"limit": 1001},
        {"skip": -1},
        {"skip": 25_001},
        {"since": "2020-01-01"},
    ):
        with pytest.raises(ValueError):
            openfda.labels_params("a:b", **bad)
    with pytest.raises(ValueError):
        openfda.drug_query(' " ')


def test_europepmc_date_query() -> None:
    assert europepmc.date_query("q", None, None) == "q"
    assert europepmc.date_query("a OR b", "2020-01-01", "2025-12-31") == (
        "(a OR b) AND FIRST_PDATE:[2020-01-01 TO 2025-12-31]"
    )
    assert europepmc.date_query("q", None, "2000-01-31").endswith("[1800-01-01 TO 2000-01-31]")
    with pytest.raises(ValueError):
        europepmc.date_query("q", "2020", None)


def test_europepmc_phrase_search_keeps_open_full_texts() -> None:
    seen: list[httpx2.URL] = []
    payload = {
        "hitCount": 2,
        "resultList": {
            "result": [
                {"id": "1", "source": "MED", "pmid": "1"},
                {"id": "PMC2", "source": "PMC", "pmcid": "PMC2", "isOpenAccess": "Y"},
            ]
        },
    }

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.url)
        return httpx2.Response(200, content=json.dumps(payload).encode())

    found = run(
        httpx2.MockTransport(handler),
        lambda c: europepmc.phrase_search(c, 'the "exact"\n words', limit=7),
    )
    assert [r.pmcid for r in found] == ["PMC2"]
    assert seen[0].params["query"] == '"the exact words" AND OPEN_ACCESS:y'
    assert seen[0].params["pageSize"] == "7"
    with pytest.raises(ValueError):
        asyncio.run(europepmc.phrase_search(httpx2.AsyncClient(), ' " ', 5))
