"""PMC ID converter and Europe PMC, replayed offline from recorded answers.

Every client runs on ``ReplayTransport`` (which refuses unrecorded requests) or on an
``httpx2.MockTransport`` that counts calls, so nothing here touches the network. Two layers of
recordings: INVENTED ones in ``tests/sources/invented/idconv-*`` and ``epmc-*`` (made-up ids
and DOIs under 10.5555/, in the services' real JSON and JATS formats), which a fresh clone
replays; and the real recordings in the corpus, whose tests skip with a reason when
``../shared/corpus`` is not beside the repository.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TypeVar
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest

from citeproof.documents.safe_xml import local_name, parse_xml_safely
from citeproof.errors import NetworkError, UpstreamUnavailableError
from citeproof.net.recordings import Recording, load_litcheck, load_tekmeria
from citeproof.net.replay import ReplayTransport
from citeproof.sources import europepmc, idconv
from citeproof.sources.idconv import IdRecord
from replay_clients import (
    CONTACT,
    CORPUS,
    LITCHECK,
    FakeTime,
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


# --- INVENTED recordings (tests/sources/invented/idconv-* and epmc-*) ----------------------------
#
# One made-up story across both services: PMC9991001-PMC9991003 are in PMC; the DOI
# 10.5555/citeproof.invented.9990777 is not (the converter says "Identifier not found in PMC"),
# and Europe PMC knows it as a retracted MEDLINE record, as the corpus has it for Wakefield 1998.

INVENTED = Path(__file__).resolve().parent / "invented"
IN_PMC_DOI = "10.5555/citeproof.invented.9991001"
OUTSIDE_DOI = "10.5555/citeproof.invented.9990777"


def invented(prefix: str) -> ReplayTransport:
    """Every invented recording named ``<prefix>-*``, each verified against its sha256."""
    paths = sorted(INVENTED.glob(f"{prefix}-*.meta.json"))
    return ReplayTransport([load_litcheck(path) for path in paths])


def on_plain(prefix: str) -> tuple[httpx2.AsyncClient, ReplayTransport]:
    transport = invented(prefix)
    return httpx2.AsyncClient(transport=transport), transport


def on_stack(
    prefix: str, *, contact: str = ""
) -> tuple[httpx2.AsyncClient, ReplayTransport, FakeTime]:
    """The real client stack (contact parameters, rate limit, retries) with a fake clock."""
    transport, fake = invented(prefix), FakeTime()
    return fake_client(transport, contact=contact, fake=fake), transport, fake


@pytest.mark.parametrize("prefix", ["idconv", "epmc"])
def test_invented_recordings_are_labelled(prefix: str) -> None:
    """A fixture that loses its INVENTED label would pass for a real answer."""
    metas = sorted(INVENTED.glob(f"{prefix}-*.meta.json"))
    assert len(metas) >= 10
    for path in metas:
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["provenance"].startswith("INVENTED for citeproof's tests"), path.name
        assert "email" not in record["url"] and "tool=" not in record["url"]
    assert len(invented(prefix).recordings) == len(metas)  # no two answer the same request


# --- PMC ID converter on invented recordings ---------------------------------------------------


def test_invented_two_dois_are_one_request_and_the_one_outside_pmc_is_an_error_record() -> None:
    client, transport = on_plain("idconv")
    records = run(_with(client, lambda c: idconv.convert(c, [IN_PMC_DOI, OUTSIDE_DOI], "doi")))
    assert transport.used == {"idconv-doi-two": 1}
    assert not transport.refused
    assert list(records) == [IN_PMC_DOI, OUTSIDE_DOI]
    assert records[IN_PMC_DOI] == IdRecord(
        IN_PMC_DOI, pmcid="PMC9991001", pmid="99910001", doi=IN_PMC_DOI
    )
    assert records[IN_PMC_DOI].in_pmc
    outside = records[OUTSIDE_DOI]
    assert outside.error == "Identifier not found in PMC"
    assert outside.doi == OUTSIDE_DOI  # the error record echoes the id in its own field
    assert outside.pmcid is None and outside.pmid is None and not outside.in_pmc


@pytest.mark.parametrize(
    ("requested", "idtype", "pmcid", "pmid", "doi"),
    [
        ("99910001", "pmid", "PMC9991001", "99910001", IN_PMC_DOI),
        ("PMC9991001", "pmcid", "PMC9991001", "99910001", IN_PMC_DOI),
        ("PMC9991002", "pmcid", "PMC9991002", "99910002", "10.5555/citeproof.invented.9991002"),
        ("PMC9991003", "pmcid", "PMC9991003", "99910003", "10.5555/citeproof.invented.9991003"),
        (IN_PMC_DOI, "doi", "PMC9991001", "99910001", IN_PMC_DOI),
    ],
)
def test_invented_single_ids_of_each_type(
    requested: str, idtype: idconv.IdType, pmcid: str, pmid: str, doi: str
) -> None:
    client, transport = on_plain("idconv")
    records = run(_with(client, lambda c: idconv.convert(c, [requested], idtype)))
    assert records == {requested: IdRecord(requested, pmcid=pmcid, pmid=pmid, doi=doi)}
    assert sum(transport.used.values()) == 1


def test_invented_duplicates_and_blanks_are_not_asked_twice() -> None:
    client, transport = on_plain("idconv")
    ids = [OUTSIDE_DOI, "  ", "", f" {OUTSIDE_DOI} ", OUTSIDE_DOI]
    records = run(_with(client, lambda c: idconv.convert(c, ids, "doi")))
    assert list(records) == [OUTSIDE_DOI]
    assert records[OUTSIDE_DOI].error == "Identifier not found in PMC"
    assert transport.used == {"idconv-doi-10.5555-citeproof.invented.9990777": 1}


def test_invented_batch_size_one_asks_each_id_alone() -> None:
    """Smaller batches send one request per id and give the same records as one batch."""
    client, transport = on_plain("idconv")
    ids = [IN_PMC_DOI, OUTSIDE_DOI]
    one_by_one = run(_with(client, lambda c: idconv.convert(c, ids, "doi", batch_size=1)))
    assert transport.used == {
        "idconv-doi-10.5555-citeproof.invented.9991001": 1,
        "idconv-doi-10.5555-citeproof.invented.9990777": 1,
    }
    client, _ = on_plain("idconv")
    together = run(_with(client, lambda c: idconv.convert(c, ids, "doi")))
    assert one_by_one == together


def test_invented_lower_case_pmcid_matches_the_canonical_echo() -> None:
    """Asked ``pmc9991002``, echoed ``PMC9991002``: still the caller's key, not "no record"."""
    client, transport = on_plain("idconv")
    records = run(_with(client, lambda c: idconv.convert(c, ["pmc9991002"], "pmcid")))
    assert records == {
        "pmc9991002": IdRecord(
            "pmc9991002",
            pmcid="PMC9991002",
            pmid="99910002",
            doi="10.5555/citeproof.invented.9991002",
        )
    }
    assert transport.used == {"idconv-pmcid-pmc9991002-lower-case": 1}


def test_invented_id_with_a_comma_is_not_sent() -> None:
    """A comma would split the id in two on the wire: it gets a local error record instead."""
    client, transport = on_plain("idconv")
    odd = "10.5555/citeproof.a,b"
    records = run(_with(client, lambda c: idconv.convert(c, [odd, IN_PMC_DOI], "doi")))
    assert records[odd] == IdRecord(
        odd, error="contains a comma, which the ID converter cannot be asked"
    )
    assert records[IN_PMC_DOI].in_pmc
    assert transport.used == {"idconv-doi-10.5555-citeproof.invented.9991001": 1}


def test_invented_idconv_through_the_stack_with_a_contact() -> None:
    """The client adds ``tool``/``email`` on the wire; the answer is matched all the same."""
    client, transport, _ = on_stack("idconv", contact=CONTACT)
    records = run(_with(client, lambda c: idconv.convert(c, ["99910001"], "pmid")))
    assert records["99910001"].pmcid == "PMC9991001"
    assert transport.used == {"idconv-pmid-99910001": 1} and not transport.refused


def test_contact_and_key_go_on_the_wire_to_the_converter_only() -> None:
    """The converter's URL is recognised as NCBI's: tool, email and api_key are added there."""
    seen: list[httpx2.URL] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.url)
        return httpx2.Response(200, json={"status": "ok", "records": []})

    client = fake_client(httpx2.MockTransport(handler), contact=CONTACT, api_key="k3y")
    records = run(_with(client, lambda c: idconv.convert(c, ["99910001"], "pmid")))
    (url,) = seen
    assert url.params["tool"] == "citeproof" and url.params["email"] == CONTACT
    assert url.params["api_key"] == "k3y"
    assert records["99910001"].error == "the ID converter's answer had no record for this id"


def test_invented_idconv_429_raises_after_the_retries() -> None:
    """429 with Retry-After: the stack waits as asked, then raises; a bare client raises."""
    client, transport, fake = on_stack("idconv")
    with pytest.raises(UpstreamUnavailableError, match="429 three times"):
        run(_with(client, lambda c: idconv.convert(c, ["99919999"], "pmid")))
    assert transport.used == {"idconv-pmid-99919999-rate-limited": 3}
    assert fake.sleeps.count(2.0) == 2
    client, _ = on_plain("idconv")
    with pytest.raises(NetworkError, match="answered 429; no ids were converted"):
        run(_with(client, lambda c: idconv.convert(c, ["99919999"], "pmid")))


def test_invented_idconv_502_raises_not_an_empty_answer() -> None:
    """A gateway error must not become error records ("not in PMC") for the ids asked."""
    client, transport, _ = on_stack("idconv")
    with pytest.raises(UpstreamUnavailableError, match="502 three times"):
        run(_with(client, lambda c: idconv.convert(c, ["99919998"], "pmid")))
    assert transport.used == {"idconv-pmid-99919998-bad-gateway": 3}
    client, _ = on_plain("idconv")
    with pytest.raises(NetworkError, match="answered 502"):
        run(_with(client, lambda c: idconv.convert(c, ["99919998"], "pmid")))


def _idconv_answering(payload: object) -> httpx2.AsyncClient:
    body = json.dumps(payload).encode()
    return httpx2.AsyncClient(
        transport=httpx2.MockTransport(lambda r: httpx2.Response(200, content=body))
    )


@pytest.mark.parametrize(
    "payload",
    [
        {"status": "error", "message": "invented: the request was not understood"},
        [],
        {"status": "ok", "records": {"requested-id": "PMC1"}},
    ],
    ids=["no-records", "array", "records-not-a-list"],
)
def test_idconv_answer_without_a_records_list_raises(payload: object) -> None:
    with pytest.raises(NetworkError, match="without a 'records' list"):
        run(_with(_idconv_answering(payload), lambda c: idconv.convert(c, ["PMC1"], "pmcid")))


def test_idconv_odd_records_are_skipped_or_read_conservatively() -> None:
    """Non-object records are skipped; odd field types become None; the first echo wins."""
    payload = {
        "status": "ok",
        "records": [
            "PMC1",
            {"pmcid": "PMC2"},  # no requested-id: cannot be matched
            {"requested-id": "PMC1", "pmcid": "PMC1", "pmid": 1.5, "doi": {"x": 1}},
            {"requested-id": "PMC1", "pmcid": "PMC999"},
            {"requested-id": "PMC3", "status": "error"},
        ],
    }
    client = _idconv_answering(payload)
    records = run(_with(client, lambda c: idconv.convert(c, ["PMC1", "PMC3"], "pmcid")))
    assert records["PMC1"] == IdRecord("PMC1", pmcid="PMC1")
    assert records["PMC3"].error == "the ID converter has no PMC record for it"
    assert not records["PMC3"].in_pmc


@pytest.mark.parametrize("size", [0, 201])
def test_idconv_batch_size_range(size: int) -> None:
    client = httpx2.AsyncClient(transport=httpx2.MockTransport(lambda r: httpx2.Response(500)))
    with pytest.raises(ValueError, match="batch_size"):
        run(_with(client, lambda c: idconv.convert(c, ["1"], "pmid", batch_size=size)))


# --- Europe PMC search on invented recordings --------------------------------------------------


def test_invented_find_by_doi_gives_the_retracted_record_outside_pmc() -> None:
    """Mirrors the Wakefield corpus test: a DOI the converter lacks, found retracted here."""
    client, transport = on_plain("epmc")
    record = run(_with(client, lambda c: europepmc.find_by_doi(c, f"  {OUTSIDE_DOI.upper()} ")))
    assert transport.used == {"epmc-search-doi-10.5555-citeproof.invented.9990777": 1}
    assert record is not None
    assert (record.id, record.source, record.pmid, record.pmcid) == (
        "99907770",
        "MED",
        "99907770",
        None,
    )
    assert record.doi == OUTSIDE_DOI and record.pub_year == "1999"
    assert record.title == "An invented retracted study outside PMC."
    assert record.pub_types == (
        "retracted publication",
        "research support, non-u.s. gov't",
        "journal article",
    )
    assert record.is_retracted
    assert not record.is_open_access and not record.in_epmc


def test_invented_find_by_doi_without_a_hit_is_none() -> None:
    client, transport = on_plain("epmc")
    doi = "10.5555/citeproof.invented.0000000"
    assert run(_with(client, lambda c: europepmc.find_by_doi(c, doi))) is None
    assert transport.used == {"epmc-search-doi-10.5555-citeproof.invented.0000000": 1}


def test_invented_lite_search_page() -> None:
    """Lite results: ``pubType`` is one "; "-separated string; flags are "Y"/"N"."""
    client, transport = on_plain("epmc")
    page = run(
        _with(
            client,
            lambda c: europepmc.search(
                c, "invented vascular elasticity", cursor=None, result_type="lite"
            ),
        )
    )
    assert transport.used == {"epmc-search-invented-vascular-elasticity": 1}
    assert page.hit_count == 3 and page.next_cursor is None
    first, review, preprint = page.results
    assert (first.id, first.pmid, first.pmcid, first.pub_types) == (
        "99920001",
        "99920001",
        None,
        ("journal article",),
    )
    assert review.pmcid == "PMC9992002" and review.is_open_access and review.in_epmc
    assert review.pub_types == ("review-article", "review", "journal article")
    assert (preprint.id, preprint.source, preprint.pmid) == ("PPR9992003", "PPR", None)
    assert preprint.pub_year == "2026" and not preprint.is_retracted


def test_invented_cursor_walk_reads_every_page_once() -> None:
    """Follows nextCursorMark until the service repeats it on an empty page: three requests."""
    client, transport = on_plain("epmc")

    async def walk(c: httpx2.AsyncClient) -> tuple[list[str], list[str | None], int]:
        ids: list[str] = []
        cursors: list[str | None] = []
        cursor: str | None = "*"
        hits = -1
        for _ in range(10):  # bounded: a cursor that never ends must fail, not hang
            if cursor is None:
                break
            page = await europepmc.search(c, "invented cursor walk", page_size=2, cursor=cursor)
            ids.extend(r.id for r in page.results)
            cursors.append(page.next_cursor)
            hits = page.hit_count
            cursor = page.next_cursor
        return ids, cursors, hits

    ids, cursors, hits = run(_with(client, walk))
    assert ids == ["99930001", "99930002", "99930003"] and hits == len(ids)
    assert cursors == ["AoIIP0INVENTED1", "AoIIP0INVENTED2", None]
    assert transport.used == {
        "epmc-search-cursor-walk-page1": 1,
        "epmc-search-cursor-walk-page2": 1,
        "epmc-search-cursor-walk-page3": 1,
    }


def test_invented_core_search_for_a_pmcid() -> None:
    """Core results: ``pubTypeList.pubType`` is a list in the service's own capitalisation."""
    client, transport = on_plain("epmc")
    page = run(_with(client, lambda c: europepmc.search(c, "(PMCID:PMC9991001)", page_size=2)))
    assert transport.used == {"epmc-search-core-pmcid-pmc9991001": 1}
    assert page.hit_count == 1 and page.next_cursor is None
    (record,) = page.results
    assert (record.id, record.source, record.pmid, record.pmcid, record.doi) == (
        "99910001",
        "MED",
        "99910001",
        "PMC9991001",
        IN_PMC_DOI,
    )
    assert record.pub_types == ("research-article", "Journal Article")
    assert record.is_open_access and record.in_epmc and not record.is_retracted


def test_invented_core_retracted_publication_is_retracted() -> None:
    client, _ = on_plain("epmc")
    page = run(_with(client, lambda c: europepmc.search(c, "(PMCID:PMC9991002)", page_size=2)))
    (record,) = page.results
    assert "Retracted Publication" in record.pub_types and record.is_retracted


def test_invented_preprint_core_search() -> None:
    client, transport = on_plain("epmc")
    query = "(EXT_ID:PPR9991001) AND SRC:PPR"
    page = run(_with(client, lambda c: europepmc.search(c, query, page_size=2)))
    assert transport.used == {"epmc-search-core-ppr9991001": 1}
    (record,) = page.results
    assert (record.id, record.source, record.pmid, record.pmcid, record.doi) == (
        "PPR9991001",
        "PPR",
        None,
        None,
        "10.5555/citeproof.invented.ppr9991001",
    )
    assert record.pub_types == ("Preprint",) and not record.is_open_access


def test_invented_phrase_search_keeps_only_records_with_a_pmcid() -> None:
    """Quotes and spacing in the words are normalised to the one recorded phrase query."""
    client, transport = on_plain("epmc")
    words = ' functional  "depletion" of\ninvented elasticity '
    found = run(_with(client, lambda c: europepmc.phrase_search(c, words)))
    assert transport.used == {"epmc-search-phrase-functional-depletion-of-invented-elasticity": 1}
    assert [r.pmcid for r in found] == ["PMC9994001", "PMC9994003"]  # not the preprint
    assert all(r.is_open_access for r in found)


@pytest.mark.parametrize("limit", [0, 1001])
def test_phrase_search_limit_range(limit: int) -> None:
    with pytest.raises(ValueError, match="limit"):
        asyncio.run(europepmc.phrase_search(httpx2.AsyncClient(), "words", limit))


def test_invented_search_503_raises() -> None:
    """A 503 page must raise (unavailable), never read as a page with no results."""
    client, transport, _ = on_stack("epmc")
    with pytest.raises(UpstreamUnavailableError, match="503 three times"):
        run(_with(client, lambda c: europepmc.search(c, "invented outage")))
    assert transport.used == {"epmc-search-service-unavailable": 3}
    client, _ = on_plain("epmc")
    with pytest.raises(NetworkError, match=r"Europe PMC \(www.ebi.ac.uk\) answered 503"):
        run(_with(client, lambda c: europepmc.search(c, "invented outage")))


def _epmc_answering(body: bytes) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(
        transport=httpx2.MockTransport(lambda r: httpx2.Response(200, content=body))
    )


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<responseWrapper><hitCount>1</hitCount></responseWrapper>", "not JSON"),
        (b"\xff\xfe\xfa", "not JSON"),
        (b"[]", "not an object"),
        (b'{"version": "6.9", "resultList": {"result": []}}', "without a hitCount"),
        (b'{"hitCount": "1", "resultList": {"result": []}}', "without a hitCount"),
        (b'{"hitCount": true, "resultList": {"result": []}}', "without a hitCount"),
    ],
    ids=["xml", "not-utf8", "array", "no-hitcount", "string-hitcount", "bool-hitcount"],
)
def test_unreadable_search_answers_raise(body: bytes, message: str) -> None:
    with pytest.raises(NetworkError, match=message):
        run(_with(_epmc_answering(body), lambda c: europepmc.search(c, "x")))


def test_odd_search_results_are_skipped_or_read_conservatively() -> None:
    """Entries without id/source are skipped; odd field types become None or ()."""
    payload = {
        "hitCount": 5,
        "nextCursorMark": "AoE",
        "resultList": {
            "result": [
                "not an object",
                {"source": "MED"},
                {"id": "1", "source": None},
                {
                    "id": 7,
                    "source": "MED",
                    "pmid": 7.5,
                    "title": ["x"],
                    "isOpenAccess": True,
                    "pubTypeList": {"pubType": "Preprint"},
                },
                {
                    "id": "8",
                    "source": "MED",
                    "doi": " 10.5555/MiXeD ",
                    "pubTypeList": {"x": 1},
                    "pubType": "a; ; b",
                    "inEPMC": " y ",
                },
                {"id": "9", "source": "MED", "pubTypeList": {"pubType": [" A ", 3, ""]}},
            ]
        },
    }
    page = run(
        _with(_epmc_answering(json.dumps(payload).encode()), lambda c: europepmc.search(c, "x"))
    )
    assert [r.id for r in page.results] == ["7", "8", "9"]
    seven, eight, nine = page.results
    assert seven.pmid is None and seven.title is None and not seven.is_open_access
    assert seven.pub_types == ("Preprint",)  # one string where a list is usual
    assert eight.doi == "10.5555/mixed" and eight.pub_types == ("a", "b") and eight.in_epmc
    assert nine.pub_types == ("A",)
    assert page.next_cursor == "AoE"


def test_search_page_without_a_result_list_is_empty_and_last() -> None:
    body = b'{"hitCount": 0, "nextCursorMark": "AoE"}'
    page = run(_with(_epmc_answering(body), lambda c: europepmc.search(c, "x", cursor="*")))
    assert page.hit_count == 0 and page.results == [] and page.next_cursor is None


def test_search_argument_checks_and_doi_escaping() -> None:
    seen: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.url.params["query"])
        return httpx2.Response(200, json={"hitCount": 0, "resultList": {"result": []}})

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    assert run(_with(client, lambda c: europepmc.find_by_doi(c, '10.5555/A"B\\C'))) is None
    assert seen == ['DOI:"10.5555/a\\"b\\\\c"']
    for size in (0, 1001):
        with pytest.raises(ValueError, match="page_size"):
            asyncio.run(europepmc.search(httpx2.AsyncClient(), "x", page_size=size))
    with pytest.raises(ValueError, match="empty DOI"):
        asyncio.run(europepmc.find_by_doi(httpx2.AsyncClient(), "   "))


# --- Europe PMC full text on invented recordings -----------------------------------------------


def test_invented_full_text_of_a_pmc_article() -> None:
    """Through the stack with a contact: the stored URL never carries the ``email`` added."""
    client, transport, _ = on_stack("epmc", contact=CONTACT)
    outcome = run(_with(client, lambda c: europepmc.full_text_xml(c, " pmc9991001 ")))
    assert transport.used == {"epmc-fulltextxml-pmc9991001": 1}
    assert outcome.ok and outcome.fetched is not None
    fetched = outcome.fetched
    assert fetched.data == (INVENTED / "epmc-fulltextxml-pmc9991001.body").read_bytes()
    assert (fetched.media_type, fetched.served_by, fetched.coverage) == (
        "application/xml",
        "europepmc",
        "full_text",
    )
    assert fetched.url == f"{europepmc.BASE_URL}PMC9991001/fullTextXML"
    assert CONTACT not in fetched.url and "email" not in fetched.url
    assert fetched.identifier == "pmcid:PMC9991001"
    root = parse_xml_safely(fetched.data)
    assert root is not None and local_name(root) == "article"


def test_invented_full_text_of_a_preprint() -> None:
    client, transport = on_plain("epmc")
    outcome = run(_with(client, lambda c: europepmc.full_text_xml(c, "ppr9991001")))
    assert outcome.fetched is not None
    assert outcome.fetched.identifier == "ppr:PPR9991001"
    assert b'article-type="preprint"' in outcome.fetched.data
    assert transport.used == {"epmc-fulltextxml-ppr9991001": 1}


@pytest.mark.parametrize(
    ("id_", "name"),
    [
        ("PMC9991003", "epmc-fulltextxml-pmc9991003-absent"),
        ("PPR9990200", "epmc-fulltextxml-ppr9990200-empty"),
    ],
    ids=["404", "empty-200"],
)
def test_invented_full_text_absent_is_missing(id_: str, name: str) -> None:
    client, transport = on_plain("epmc")
    outcome = run(_with(client, lambda c: europepmc.full_text_xml(c, id_)))
    assert outcome.kind == "missing" and outcome.fetched is None
    assert outcome.reason == f"Europe PMC has no open full text for {id_}"
    assert transport.used == {name: 1}


def test_invented_full_text_503_is_unavailable_not_missing() -> None:
    client, transport, _ = on_stack("epmc")
    outcome = run(_with(client, lambda c: europepmc.full_text_xml(c, "PMC9990503")))
    assert outcome.kind == "unavailable" and "503 three times" in (outcome.reason or "")
    assert transport.used == {"epmc-fulltextxml-pmc9990503-unavailable": 3}
    client, _ = on_plain("epmc")
    outcome = run(_with(client, lambda c: europepmc.full_text_xml(c, "PMC9990503")))
    assert outcome.kind == "unavailable"
    assert outcome.reason == (
        "Europe PMC (www.ebi.ac.uk) answered 503 for the full text of PMC9990503"
    )


def test_two_spellings_of_one_id_both_take_its_answer() -> None:
    """The converter echoes one record for PMC1 and pmc1; keeping only the last spelling made
    the other read as "no record for this id", which a caller takes for "not in PMC"."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        record = {"pmcid": "PMC1", "pmid": "11", "doi": "10.5555/one", "requested-id": "PMC1"}
        return httpx2.Response(200, json={"status": "ok", "records": [record]})

    async def go() -> dict[str, IdRecord]:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
            return await idconv.convert(client, ["PMC1", "pmc1"], "pmcid")

    found = run(go())
    assert {k: (v.pmcid, v.error) for k, v in found.items()} == {
        "PMC1": ("PMC1", None),
        "pmc1": ("PMC1", None),
    }
