"""PMC ID converter and Europe PMC, replayed offline from the real recordings in the corpus.

Every client runs on ``ReplayTransport`` (which refuses unrecorded requests) or on an
``httpx2.MockTransport`` that counts calls, so nothing here touches the network. Corpus tests
skip with a reason when ``../shared/corpus`` is not beside the repository.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from citeproof.errors import NetworkError
from citeproof.net.recordings import Recording, load_tekmeria
from citeproof.net.replay import ReplayTransport
from citeproof.sources import europepmc, idconv
from citeproof.sources.idconv import IdRecord
from replay_clients import (
    CORPUS,
    LITCHECK,
    built_recording,
    fake_client,
    litcheck_replay,
    needs_corpus,
)

WAKEFIELD = "10.1016/s0140-6736(97)11096-0"
SAO_PAULO = "10.1590/1516-3180.2016.1344090516"

T = TypeVar("T")


def run(coro: Awaitable[T]) -> T:
    async def main() -> T:
        return await coro

    return asyncio.run(main())


def replay(recordings: Iterable[Recording]) -> tuple[httpx2.AsyncClient, ReplayTransport]:
    transport = ReplayTransport(recordings)
    return httpx2.AsyncClient(transport=transport), transport


async def _with(
    client: httpx2.AsyncClient, call: Callable[[httpx2.AsyncClient], Awaitable[T]]
) -> T:
    async with client:
        return await call(client)


def failing_client() -> httpx2.AsyncClient:
    """The real client stack over a transport that can never connect."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("connection refused", request=request)

    return fake_client(httpx2.MockTransport(handler))


# --- PMC ID converter ------------------------------------------------------------------------


@needs_corpus
def test_two_dois_are_one_request_and_the_one_outside_pmc_is_an_error_record() -> None:
    transport = litcheck_replay()
    client = httpx2.AsyncClient(transport=transport)
    records = run(_with(client, lambda c: idconv.convert(c, [SAO_PAULO, WAKEFIELD], "doi")))
    assert transport.used == {"idconv-doi-two": 1}
    assert not transport.refused
    assert records[SAO_PAULO] == IdRecord(
        SAO_PAULO, pmcid="PMC10496602", pmid="27355798", doi=SAO_PAULO
    )
    assert records[SAO_PAULO].in_pmc
    wakefield = records[WAKEFIELD]
    assert wakefield.error == "Identifier not found in PMC"
    assert wakefield.pmcid is None and not wakefield.in_pmc


@needs_corpus
@pytest.mark.parametrize(
    ("requested", "idtype", "pmcid", "pmid", "doi"),
    [
        ("27355798", "pmid", "PMC10496602", "27355798", SAO_PAULO),
        ("PMC12829825", "pmcid", "PMC12829825", "41575947", "10.1371/journal.pone.0340378"),
        ("PMC13599058", "pmcid", "PMC13599058", "26190806", "10.1016/j.amepre.2015.05.001"),
    ],
)
def test_single_ids_of_each_type(
    requested: str, idtype: idconv.IdType, pmcid: str, pmid: str, doi: str
) -> None:
    transport = litcheck_replay()
    client = httpx2.AsyncClient(transport=transport)
    records = run(_with(client, lambda c: idconv.convert(c, [requested], idtype)))
    assert records == {requested: IdRecord(requested, pmcid=pmcid, pmid=pmid, doi=doi)}
    assert sum(transport.used.values()) == 1


@needs_corpus
def test_duplicates_and_blanks_are_not_asked_twice() -> None:
    transport = litcheck_replay()
    client = httpx2.AsyncClient(transport=transport)
    ids = [WAKEFIELD, "  ", f" {WAKEFIELD} "]
    records = run(_with(client, lambda c: idconv.convert(c, ids, "doi")))
    assert list(records) == [WAKEFIELD]
    assert transport.used == {"idconv-doi-10.1016-s0140-6736-97-11096-0": 1}


def _counting_idconv() -> tuple[httpx2.AsyncClient, list[list[str]]]:
    """A MockTransport answering every id as an error record, logging each batch it got."""
    batches: list[list[str]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        query = parse_qs(urlsplit(str(request.url)).query)
        assert query["idtype"] == ["pmid"] and query["format"] == ["json"]
        assert "tool" not in query and "email" not in query
        ids = query["ids"][0].split(",")
        batches.append(ids)
        records = [
            {"requested-id": i, "pmid": int(i), "status": "error", "errmsg": "not in PMC"}
            for i in ids
        ]
        return httpx2.Response(200, json={"status": "ok", "records": records})

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler)), batches


def test_250_ids_split_into_two_requests() -> None:
    client, batches = _counting_idconv()
    ids = [str(10_000_000 + n) for n in range(250)]
    records = run(_with(client, lambda c: idconv.convert(c, ids, "pmid")))
    assert [len(b) for b in batches] == [200, 50]
    assert list(records) == ids
    assert all(r.error == "not in PMC" and r.pmid == r.requested for r in records.values())


def test_200_ids_are_one_request() -> None:
    client, batches = _counting_idconv()
    ids = [str(20_000_000 + n) for n in range(200)]
    run(_with(client, lambda c: idconv.convert(c, ids, "pmid")))
    assert len(batches) == 1


def test_an_id_missing_from_the_answer_gets_an_error_record() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"status": "ok", "records": []})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    records = run(_with(client, lambda c: idconv.convert(c, ["PMC1"], "pmcid")))
    assert records["PMC1"].error is not None and not records["PMC1"].in_pmc


def test_idconv_network_failure_raises() -> None:
    with pytest.raises(NetworkError):
        run(_with(failing_client(), lambda c: idconv.convert(c, ["PMC1"], "pmcid")))


def test_idconv_answer_that_is_not_json_raises() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=b"<html>maintenance</html>")

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    with pytest.raises(NetworkError, match="not JSON"):
        run(_with(client, lambda c: idconv.convert(c, ["PMC1"], "pmcid")))


def test_idconv_rejects_an_unknown_idtype() -> None:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: httpx2.Response(500)))
    with pytest.raises(ValueError, match="idtype"):
        run(_with(client, lambda c: idconv.convert(c, ["x"], "isbn")))  # type: ignore[arg-type]


# --- Europe PMC search -----------------------------------------------------------------------


@needs_corpus
def test_find_by_doi_replays_the_wakefield_record_as_retracted() -> None:
    transport = litcheck_replay()
    client = httpx2.AsyncClient(transport=transport)
    record = run(_with(client, lambda c: europepmc.find_by_doi(c, WAKEFIELD.upper())))
    assert transport.used == {"epmc-search-doi-10.1016-s0140-6736-97-11096-0": 1}
    assert record is not None
    assert (record.id, record.source, record.pmid, record.pmcid) == (
        "9500320",
        "MED",
        "9500320",
        None,
    )
    assert record.doi == WAKEFIELD and record.pub_year == "1998"
    assert record.title is not None and record.title.startswith("Ileal-lymphoid-nodular")
    assert "retracted publication" in record.pub_types and record.is_retracted
    assert not record.is_open_access and not record.in_epmc


@needs_corpus
def test_lite_search_page() -> None:
    transport = litcheck_replay()
    client = httpx2.AsyncClient(transport=transport)
    page = run(
        _with(
            client,
            lambda c: europepmc.search(
                c, "arteriosclerosis large-artery elasticity", cursor=None, result_type="lite"
            ),
        )
    )
    assert transport.used == {"epmc-search-arteriosclerosis-large-artery-elasticity": 1}
    body = json.loads(
        (LITCHECK / "epmc-search-arteriosclerosis-large-artery-elasticity.body").read_bytes()
    )
    assert page.hit_count == body["hitCount"]
    assert len(page.results) == len(body["resultList"]["result"])


@needs_corpus
def test_core_search_with_cursor_replays_tekmeria_record() -> None:
    recording = load_tekmeria(CORPUS / "tekmeria-fixtures" / "c04bf146d4a15b143b73b862.json")
    client, transport = replay([recording])
    page = run(_with(client, lambda c: europepmc.search(c, "(PMCID:PMC12585062)", page_size=2)))
    assert transport.used[recording.name] == 1
    assert page.hit_count == 1 and page.next_cursor is None
    (record,) = page.results
    assert (record.pmid, record.pmcid, record.doi) == (
        "41187138",
        "PMC12585062",
        "10.1371/journal.pmed.1004764",
    )
    assert record.pub_types == ("research-article", "Journal Article")
    assert record.is_open_access and record.in_epmc and not record.is_retracted


@needs_corpus
def test_preprint_search_from_a_recording_built_from_the_manifest_url() -> None:
    # Built here: corpus/europepmc/tekmeria-europepmc-search-6d6e7c78e754.json is the body;
    # its URL is the one MANIFEST.tsv gives for it.
    url = (
        "https://www.ebi.ac.uk/europepmc/webservices/rest/search?query=%28EXT_ID%3APPR1297067"
        "%29+AND+SRC%3APPR&resultType=core&format=json&pageSize=2&cursorMark=%2A"
    )
    body = (CORPUS / "europepmc" / "tekmeria-europepmc-search-6d6e7c78e754.json").read_bytes()
    client, transport = replay([built_recording("ppr", url, body, content_type="application/json")])
    page = run(
        _with(client, lambda c: europepmc.search(c, "(EXT_ID:PPR1297067) AND SRC:PPR", page_size=2))
    )
    assert transport.used["ppr"] == 1
    (record,) = page.results
    assert (record.id, record.source, record.doi) == (
        "PPR1297067",
        "PPR",
        "10.21203/rs.3.rs-10665898/v1",
    )


def test_next_cursor_is_kept_until_it_repeats() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        cursor = request.url.params["cursorMark"]
        result = [{"id": "1", "source": "MED"}]
        return httpx2.Response(
            200,
            json={
                "hitCount": 2,
                "nextCursorMark": "AoE" if cursor == "*" else cursor,
                "resultList": {"result": result},
            },
        )

    async def pages(client: httpx2.AsyncClient) -> list[str | None]:
        first = await europepmc.search(client, "x")
        assert first.next_cursor is not None
        second = await europepmc.search(client, "x", cursor=first.next_cursor)
        return [first.next_cursor, second.next_cursor]

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    assert run(_with(client, pages)) == ["AoE", None]


def test_find_by_doi_ignores_a_hit_with_another_doi() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        assert request.url.params["query"] == 'DOI:"10.1/a"'
        result = [{"id": "2", "source": "MED", "doi": "10.1/b"}]
        return httpx2.Response(200, json={"hitCount": 1, "resultList": {"result": result}})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    assert run(_with(client, lambda c: europepmc.find_by_doi(c, "10.1/A"))) is None


def test_search_network_failure_raises() -> None:
    with pytest.raises(NetworkError):
        run(_with(failing_client(), lambda c: europepmc.find_by_doi(c, WAKEFIELD)))


# --- Europe PMC full text --------------------------------------------------------------------

FULL_TEXT_URL = "https://www.ebi.ac.uk/europepmc/webservices/rest/PMC12585062/fullTextXML"


@needs_corpus
def test_full_text_xml_from_a_recording_built_from_the_corpus_xml() -> None:
    # Built here: the body is corpus/europepmc/europepmc-fulltextxml-PMC12585062.xml, served
    # at the URL its MANIFEST.tsv row names (tekmeria fixture b403356f...).
    body = (CORPUS / "europepmc" / "europepmc-fulltextxml-PMC12585062.xml").read_bytes()
    client, transport = replay(
        [built_recording("ft", FULL_TEXT_URL, body, content_type="application/xml")]
    )
    outcome = run(_with(client, lambda c: europepmc.full_text_xml(c, "pmc12585062")))
    assert transport.used["ft"] == 1
    assert outcome.ok and outcome.fetched is not None
    fetched = outcome.fetched
    assert fetched.data == body
    assert (fetched.media_type, fetched.served_by, fetched.coverage) == (
        "application/xml",
        "europepmc",
        "full_text",
    )
    assert fetched.url == FULL_TEXT_URL and "email" not in fetched.url
    assert fetched.identifier == "pmcid:PMC12585062"


def test_full_text_404_is_missing() -> None:
    url = "https://www.ebi.ac.uk/europepmc/webservices/rest/PPR123/fullTextXML"
    client, _ = replay([built_recording("nf", url, b"", status=404, content_type="text/plain")])
    outcome = run(_with(client, lambda c: europepmc.full_text_xml(c, "PPR123")))
    assert outcome.kind == "missing"
    assert outcome.reason == "Europe PMC has no open full text for PPR123"


def test_full_text_network_failure_is_unavailable() -> None:
    outcome = run(_with(failing_client(), lambda c: europepmc.full_text_xml(c, "PMC12585062")))
    assert outcome.kind == "unavailable" and outcome.reason
    assert not outcome.ok


def test_full_text_other_status_is_unavailable_not_missing() -> None:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: httpx2.Response(403)))
    outcome = run(_with(client, lambda c: europepmc.full_text_xml(c, "PMC1")))
    assert outcome.kind == "unavailable"


def test_full_text_refuses_other_ids() -> None:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: httpx2.Response(500)))
    with pytest.raises(ValueError, match="PMC or PPR"):
        run(_with(client, lambda c: europepmc.full_text_xml(c, "27355798")))
