"""PubMed search through E-utilities: esearch parameters and answers, and esummary batches
sent by POST (so a large limit never builds a long URL).  Offline: MockTransport and, where
the corpus has the recording, ReplayTransport over it."""

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

from citeproof.errors import NetworkError
from citeproof.net.record import RecordingTransport
from citeproof.net.recordings import load_folder, load_litcheck, request_key
from citeproof.net.replay import ReplayTransport, UnrecordedRequestError
from citeproof.sources import eutils_search
from citeproof.sources.eutils_search import esearch, esearch_params, esummary
from replay_clients import LITCHECK, built_recording, needs_corpus
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
