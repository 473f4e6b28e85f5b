"""PubMed search through E-utilities: esearch parameters and answers, and esummary batches
sent by POST (so a large limit never builds a long URL).  Offline: MockTransport and, where
the corpus has the recording, ReplayTransport over it.

The corpus test skips without ``../shared/corpus``; the same search is also replayed from
INVENTED recordings in ``tests/sources/invented/eutils-search-*`` (litcheck pairs labelled
``INVENTED ... not a real answer``, PMIDs 9990xxxx, in E-utilities' real JSON format): two
esearch pages, an esummary POST recorded with its form and one recorded as a GET (as
litcheck did), a PMID esummary cannot summarise, no hits, a backend ERROR, 429/502 answers,
an esummary without ``result`` and a body cut short."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.errors import NetworkError, UpstreamUnavailableError
from citeproof.net.record import RecordingTransport
from citeproof.net.recordings import load_folder, load_litcheck, request_key
from citeproof.net.replay import ReplayTransport, UnrecordedRequestError
from citeproof.sources import eutils_search
from citeproof.sources.eutils_search import EsearchPage, esearch, esearch_params, esummary
from replay_clients import LITCHECK, FakeTime, built_recording, fake_client, needs_corpus
from replay_clients import run_with_contact as run


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


# --- form POSTs in recordings: the body is part of the replay key ---------------------------

WHEN = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def _summary_answer(request: httpx2.Request) -> httpx2.Response:
    """esummary as NCBI answers it: one result per PMID of the POSTed batch."""
    batch = parse_qs(request.content.decode())["id"][0].split(",")
    result = {pmid: {"uid": pmid, "title": f"Title of {pmid}"} for pmid in batch}
    return httpx2.Response(200, content=json.dumps({"result": result}).encode())


def test_two_esummary_batches_are_recorded_apart_and_replayed(tmp_path: Path) -> None:
    ids = ["11", "22", "33", "44"]
    recorder = RecordingTransport(
        tmp_path,
        inner=lambda host: httpx2.MockTransport(_summary_answer),
        now=lambda: WHEN,
        contact="me@example.org",
    )
    live = run(recorder, lambda c: esummary(c, ids, batch_size=2))
    assert len(set(recorder.written)) == 2  # one file per batch, not one overwriting the other
    metas = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("*.meta.json"))]
    assert sorted(m["form"] for m in metas) == [
        "db=pubmed&id=11%2C22&retmode=json",
        "db=pubmed&id=33%2C44&retmode=json",
    ]
    assert all(m["method"] == "POST" and "me%40example.org" not in m["url"] for m in metas)

    replay = ReplayTransport.from_folder(tmp_path)
    replayed = run(replay, lambda c: esummary(c, ids, batch_size=2))
    assert replay.refused == []
    assert sorted(replay.used.values()) == [1, 1]
    assert replayed == live
    assert [replayed[p].title for p in ids] == [f"Title of {p}" for p in ids]


def test_a_form_post_is_not_served_another_batch(tmp_path: Path) -> None:
    recorder = RecordingTransport(
        tmp_path, inner=lambda host: httpx2.MockTransport(_summary_answer), now=lambda: WHEN
    )
    run(recorder, lambda c: esummary(c, ["11", "22"]))
    replay = ReplayTransport.from_folder(tmp_path)
    with pytest.raises(UnrecordedRequestError, match="id=33,44"):
        run(replay, lambda c: esummary(c, ["33", "44"]))
    assert len(replay.refused) == 1


def test_a_recording_without_form_still_replays(tmp_path: Path) -> None:
    """A litcheck record written before ``form`` existed: a GET with the ids in its URL.

    It answers our POST of the same parameters (E-utilities treat the two alike), and a
    plain GET as before."""
    body = json.dumps({"result": {"11": {"uid": "11", "title": "Old"}}}).encode()
    meta = {
        "url": f"{eutils_search.ESUMMARY_URL}?db=pubmed&id=11&retmode=json",
        "status": 200,
        "headers": {"content-type": "application/json"},
        "date": "2025-01-01T00:00:00Z",
        "body_sha256": hashlib.sha256(body).hexdigest(),
    }
    (tmp_path / "old.meta.json").write_text(json.dumps(meta))
    (tmp_path / "old.body").write_bytes(body)
    (recording,) = load_folder(tmp_path)
    assert recording.form is None and recording.method == "GET"

    replay = ReplayTransport.from_folder(tmp_path)
    found = run(replay, lambda c: esummary(c, ["11"]))
    assert found["11"].title == "Old" and replay.refused == []

    async def get(client: httpx2.AsyncClient) -> bytes:
        response = await client.get(meta["url"])
        return response.content

    assert run(replay, get) == body
    assert replay.used["old"] == 2


def test_a_recorded_post_is_preferred_to_the_get_of_its_parameters() -> None:
    url = eutils_search.ESUMMARY_URL
    form = "db=pubmed&id=11&retmode=json"
    as_get = built_recording("get", f"{url}?{form}", b"from the GET", content_type="text/plain")
    post_body = b"from the POST"
    as_post = replace(
        as_get,
        method="POST",
        url=url,
        form=form,
        name="post",
        body=post_body,
        body_sha256=hashlib.sha256(post_body).hexdigest(),
    )
    replay = ReplayTransport([as_get, as_post])
    assert replay.lookup("POST", url, form=form).name == "post"
    assert replay.lookup("GET", f"{url}?{form}").name == "get"
    # Without a recorded POST the GET answers; a GET never falls back to a POST.
    only_post = ReplayTransport([as_post])
    with pytest.raises(UnrecordedRequestError):
        only_post.lookup("GET", f"{url}?{form}")


_PARAM = st.tuples(
    st.text("abcdefghij_", min_size=1, max_size=6), st.text("0123456789,xyz ", max_size=8)
)


@given(st.lists(_PARAM, max_size=6), st.lists(_PARAM, max_size=6), st.randoms())
def test_form_parameters_key_like_query_parameters(
    query: list[tuple[str, str]], form: list[tuple[str, str]], rnd: random.Random
) -> None:
    """A form's parameters are keyed as extra query parameters: their order, and whether a
    parameter is in the URL or the form, do not matter; contact/API-key ones never count."""
    url = "https://eutils.ncbi.nlm.nih.gov/x"
    shuffled = form[:]
    rnd.shuffle(shuffled)
    secret = [("email", "me@example.org"), ("api_key", "K")]
    key = request_key("POST", f"{url}?{urlencode(query)}", form=urlencode(form))
    assert key == request_key(
        "POST", f"{url}?{urlencode(query + secret)}", form=urlencode(shuffled + secret)
    )
    assert key == request_key("POST", f"{url}?{urlencode(query + form)}")
    assert list(key.query) == sorted(query + form)


# --- invented recordings (tests/sources/invented/eutils-search-*): no corpus needed -------------

INVENTED = Path(__file__).resolve().parent / "invented"
TERM = "invented raised bed mulch"


def invented() -> ReplayTransport:
    """The invented E-utilities search recordings only (others share the folder)."""
    metas = sorted(INVENTED.glob("eutils-search-*.meta.json"))
    assert metas, f"no invented E-utilities recordings in {INVENTED}"
    return ReplayTransport([load_litcheck(meta) for meta in metas])


def test_invented_recordings_are_labelled() -> None:
    """A fixture that lost its label could be mistaken for a real answer."""
    metas = sorted(INVENTED.glob("eutils-search-*.meta.json"))
    assert len(metas) >= 10
    for meta_path in metas:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        assert meta["provenance"].startswith("INVENTED for citeproof's tests"), meta_path
        assert meta["provenance"].endswith("not a real answer"), meta_path
        assert meta["url"].startswith("https://eutils.ncbi.nlm.nih.gov/entrez/eutils/e")
        assert all(key == key.lower() for key in meta["headers"]), meta_path
        assert "email" not in meta["url"] and "api_key" not in meta["url"]
        recording = load_litcheck(meta_path)  # verifies body_sha256
        if recording.method == "POST":
            assert recording.form is not None and "db=pubmed" in recording.form


def test_invented_search_two_pages_with_summaries() -> None:
    """esearch pages by ``retstart``; esummary is POSTed per page (one page recorded as the
    POST, one as the GET of the same parameters); a PMID it cannot summarise is absent."""
    transport = invented()

    async def search(client: httpx2.AsyncClient) -> Any:
        pages, summaries = [], {}
        for retstart in (0, 3):
            params = esearch_params(
                TERM, retmax=3, retstart=retstart, mindate="2019", maxdate="2024"
            )
            page = await esearch(client, params)
            pages.append(page)
            summaries.update(await esummary(client, page.ids))
        return pages, summaries

    pages, summaries = run(transport, search)
    assert transport.refused == []
    assert sorted(transport.used) == [
        "eutils-search-esearch-mulch-p1",
        "eutils-search-esearch-mulch-p2",
        "eutils-search-esummary-mulch-p1",
        "eutils-search-esummary-mulch-p2-as-get",
    ]
    assert [(p.count, p.retstart, p.ids) for p in pages] == [
        (5, 0, ["99900013", "99900011", "99900012"]),
        (5, 3, ["99900015", "99900014"]),
    ]
    assert list(summaries) == ["99900013", "99900011", "99900012", "99900014"]
    retracted = summaries["99900013"]
    assert retracted.title == "Mulch depth and soil moisture in invented raised beds."
    assert retracted.doi == "10.5555/invented.cr.retracted"  # lower-cased
    assert retracted.pmcid == "PMC9990013"
    assert retracted.pubdate == "2019 Mar 4" and retracted.year == 2019
    assert retracted.pub_types == ("Journal Article", "Retracted Publication")
    assert (summaries["99900011"].year, summaries["99900011"].pmcid) == (2021, None)
    assert summaries["99900011"].doi == "10.5555/invented.eu.11"
    notice = summaries["99900012"]
    assert (notice.year, notice.doi, notice.pub_types) == (
        2024,
        None,
        ("Retraction of Publication",),
    )
    assert (summaries["99900014"].pmcid, summaries["99900014"].year) == ("PMC9990014", 2020)


def test_invented_search_without_hits_is_an_empty_page() -> None:
    """PubMed's "phrase not found" is an answer (count 0), not a failure."""
    page = run(invented(), lambda c: esearch(c, esearch_params("zzqqinventedxx", retmax=20)))
    assert (page.count, page.ids, page.retstart) == (0, [], 0)


def test_invented_backend_error_in_a_200_is_a_failure() -> None:
    """esearch reports some failures as ``ERROR`` inside a 200: it must not read as no hits."""
    with pytest.raises(NetworkError, match="refused the search: Search Backend failed"):
        run(invented(), lambda c: esearch(c, esearch_params("invented backend failure", retmax=20)))


def test_invented_429_is_unavailable_after_the_retries() -> None:
    transport = invented()
    fake = FakeTime()

    async def go() -> EsearchPage:
        async with fake_client(transport, fake=fake) as client:
            return await esearch(client, esearch_params("invented busy", retmax=20))

    with pytest.raises(UpstreamUnavailableError, match="429 three times"):
        asyncio.run(go())
    assert transport.used == {"eutils-search-esearch-busy.429": 3}
    assert fake.now > 0  # it waited (backoff and NCBI's rate limit), on the fake clock


def test_invented_esummary_502_fails_the_call() -> None:
    transport = invented()
    with pytest.raises(UpstreamUnavailableError, match="502 three times"):
        run(transport, lambda c: esummary(c, ["99900502"]))
    assert transport.refused == []


def test_invented_esummary_without_result_fails_the_call() -> None:
    """An answer without ``result`` would otherwise be a search with no titles at all."""
    with pytest.raises(NetworkError, match="esummary of 1 PMIDs without a result"):
        run(invented(), lambda c: esummary(c, ["99900404"]))


def test_invented_truncated_esearch_is_a_failure() -> None:
    with pytest.raises(NetworkError, match="not JSON"):
        run(invented(), lambda c: esearch(c, esearch_params("invented truncated", retmax=20)))


def test_esummary_batch_size_is_bounded() -> None:
    for size in (0, 501):
        with pytest.raises(ValueError, match="batch_size"):
            asyncio.run(esummary(httpx2.AsyncClient(), ["1"], batch_size=size))


def test_odd_ids_and_article_ids_are_skipped() -> None:
    """Invented, malformed on purpose: idlist entries that are not PMIDs, and articleids
    that are not objects or have no value, are dropped rather than passed on."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("esearch.fcgi"):
            ids = ["99900011", 99900012, "PMC9990013", "0123", None, "99900014"]
            body = {"esearchresult": {"count": "6", "retstart": "0", "idlist": ids}}
        else:
            body = {
                "result": {
                    "uids": ["99900011"],
                    "99900011": {
                        "uid": "99900011",
                        "title": "  ",
                        "pubdate": "",
                        "pubtype": "Journal Article",
                        "articleids": [
                            "doi",
                            {"idtype": "doi", "value": ""},
                            {"idtype": "pmc", "value": "9990011"},
                            {"idtype": "pmc", "value": "pmc9990012"},
                            {"idtype": "doi", "value": "10.5555/Invented.EU.Odd"},
                        ],
                    },
                }
            }
        return httpx2.Response(200, content=json.dumps(body).encode())

    async def call(client: httpx2.AsyncClient) -> Any:
        page = await esearch(client, esearch_params("q", retmax=6))
        return page, await esummary(client, ["99900011"])

    page, summaries = run(httpx2.MockTransport(handler), call)
    assert page.ids == ["99900011", "99900012", "99900014"]
    odd = summaries["99900011"]
    assert (odd.title, odd.pubdate, odd.year, odd.pub_types) == (None, None, None, ())
    assert (odd.doi, odd.pmcid) == ("10.5555/invented.eu.odd", "PMC9990012")
