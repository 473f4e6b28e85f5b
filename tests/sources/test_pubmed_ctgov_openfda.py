"""PubMed, ClinicalTrials.gov and openFDA sources against real recorded answers.

Offline: the clients run on ``ReplayTransport`` (which refuses anything unrecorded) or on an
``httpx2.MockTransport``, with an injected clock and sleep so retries and rate limits cost no
time.  Recorded answers come from ``../shared/corpus/tekmeria-fixtures``; where a test needs
an answer the corpus lacks (an unknown PMID, the ``studies/<NCT>`` form of a recorded study,
a 404 for a set-id search) the Recording is built here from real bodies and says so.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine, Iterable
from typing import Any

import httpx2
import pytest

from citeproof.documents.ctgov import parse_ctgov
from citeproof.documents.openfda import parse_openfda
from citeproof.documents.pubmed import parse_pubmed
from citeproof.errors import BadInputError, NetworkError
from citeproof.net.recordings import Recording
from citeproof.net.replay import ReplayTransport
from citeproof.sources.ctgov import STUDIES_URL, fetch_study
from citeproof.sources.openfda import fetch_label
from citeproof.sources.pubmed import EFETCH_URL, efetch_records, fetch_pubmed
from replay_clients import CORPUS, MISSING, TEKMERIA, built_recording
from replay_clients import run as _run

SET_ID = "7c4deb97-9966-4c8e-9ba6-bb260b71e130"
NCT = "NCT04363697"
EMPTY_SET = (
    b'<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
    b'1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n'
    b"<PubmedArticleSet></PubmedArticleSet>\n"
)


def _recording(url: str, body: bytes, *, status: int = 200, media: str, name: str) -> Recording:
    return built_recording(name, url, body, status=status, content_type=media)


def _tekmeria_body(stem: str) -> bytes:
    record = json.loads((TEKMERIA / f"{stem}.json").read_text(encoding="utf-8"))
    body: str = record["body"]
    return body.encode("utf-8")


def _replay(extra: Iterable[Recording]) -> ReplayTransport:
    return ReplayTransport(extra)


# --- PubMed --------------------------------------------------------------------------------


def test_pubmed_record_with_abstract(tekmeria: ReplayTransport) -> None:
    outcome = _run(tekmeria, lambda c: fetch_pubmed(c, "30831578"))
    assert outcome.kind == "fetched" and outcome.ok and outcome.reason is None
    fetched = outcome.fetched
    assert fetched is not None
    assert fetched.served_by == "pubmed"
    assert fetched.coverage == "abstract"
    assert fetched.media_type == "application/xml"
    assert fetched.identifier == "pmid:30831578"
    assert fetched.title == (
        "Measles, Mumps, Rubella Vaccination and Autism: A Nationwide Cohort Study."
    )
    assert fetched.url.startswith(EFETCH_URL) and "id=30831578" in fetched.url
    doc = parse_pubmed(fetched.data)
    assert doc.meta.pmid == "30831578"
    assert (
        "The hypothesized link between the measles, mumps, rubella (MMR) vaccine and autism "
        "continues to cause concern and challenge vaccine uptake." in doc.text
    )
    assert not tekmeria.refused


def test_pubmed_record_without_abstract_is_fetched_with_a_reason(
    tekmeria: ReplayTransport,
) -> None:
    outcome = _run(tekmeria, lambda c: fetch_pubmed(c, "42520244"))
    assert outcome.ok
    assert outcome.reason == "PubMed has no abstract for PMID 42520244."
    assert outcome.fetched is not None
    assert outcome.fetched.title is not None
    assert outcome.fetched.title.startswith("Association Between First MMR Vaccination")


def test_pubmed_unknown_pmid_is_missing() -> None:
    url = f"{EFETCH_URL}?db=pubmed&id=99999999&retmode=xml"
    transport = _replay([_recording(url, EMPTY_SET, media="text/xml", name="empty")])
    outcome = _run(transport, lambda c: fetch_pubmed(c, "99999999"))
    assert outcome.kind == "missing"
    assert outcome.reason == "PubMed has no record PMID 99999999."
    assert outcome.fetched is None


def test_pubmed_answer_with_another_record_is_unavailable() -> None:
    if not TEKMERIA.is_dir():
        pytest.skip(MISSING)
    body = _tekmeria_body("c223f519147822fd610c7b47")  # the record of PMID 30831578
    url = f"{EFETCH_URL}?db=pubmed&id=123&retmode=xml"
    transport = _replay([_recording(url, body, media="text/xml", name="other")])
    outcome = _run(transport, lambda c: fetch_pubmed(c, "123"))
    assert outcome.kind == "unavailable"


def test_pubmed_garbled_answer_is_unavailable() -> None:
    url = f"{EFETCH_URL}?db=pubmed&id=1&retmode=xml"
    transport = _replay([_recording(url, b"<html>oops</html>", media="text/html", name="bad")])
    outcome = _run(transport, lambda c: fetch_pubmed(c, "1"))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "could not be read" in outcome.reason


def test_pubmed_refuses_a_non_pmid() -> None:
    with pytest.raises(BadInputError):
        _run(_replay([]), lambda c: fetch_pubmed(c, "1&db=pmc"))


def test_efetch_records_from_a_recorded_batch(tekmeria: ReplayTransport) -> None:
    records = _run(tekmeria, lambda c: efetch_records(c, ["30831578", "9500320"]))
    assert [r.pmid for r in records] == ["30831578", "9500320"]
    assert all(r.title for r in records)


def test_efetch_records_batches_250_pmids_in_two_requests() -> None:
    seen: list[list[str]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request.url.params["id"].split(","))
        return httpx2.Response(200, content=EMPTY_SET, headers={"content-type": "text/xml"})

    pmids = [str(n) for n in range(1, 251)]
    records = _run(httpx2.MockTransport(handler), lambda c: efetch_records(c, pmids))
    assert records == []
    assert [len(ids) for ids in seen] == [200, 50]
    assert [p for ids in seen for p in ids] == pmids


def test_efetch_records_with_no_pmids_asks_nothing() -> None:
    assert _run(_replay([]), lambda c: efetch_records(c, [])) == []


def test_efetch_records_raises_when_unreachable() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    with pytest.raises(NetworkError):
        _run(httpx2.MockTransport(handler), lambda c: efetch_records(c, ["1"]))


# --- a network failure is UNAVAILABLE, whichever source --------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda c: fetch_pubmed(c, "30831578"),
        lambda c: fetch_study(c, NCT),
        lambda c: fetch_label(c, SET_ID),
    ],
    ids=["pubmed", "ctgov", "openfda"],
)
def test_network_error_is_unavailable(
    call: Callable[[httpx2.AsyncClient], Coroutine[Any, Any, Any]],
) -> None:
    attempts: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        attempts.append(str(request.url))
        raise httpx2.ConnectError("connection refused", request=request)

    outcome = _run(httpx2.MockTransport(handler), call)
    assert outcome.kind == "unavailable"
    assert outcome.fetched is None
    assert outcome.reason and "ConnectError" in outcome.reason
    assert len(attempts) == 3  # retried before giving up


# --- ClinicalTrials.gov ------------------------------------------------------------------------


def _study_recording() -> Recording:
    """The recorded study, served in the ``studies/<NCT>`` form (one study object).

    The corpus holds NCT04363697 only as a ``studies?filter.ids=`` page; its one study is the
    same JSON object ``studies/<NCT>`` returns (with fewer fields), re-serialised here.
    """
    page = json.loads(_tekmeria_body("105009cadd3ae0bb23cd7cf6"))
    body = json.dumps(page["studies"][0]).encode("utf-8")
    return _recording(STUDIES_URL + NCT, body, media="application/json", name="study")


def test_ctgov_study_is_fetched() -> None:
    if not TEKMERIA.is_dir():
        pytest.skip(MISSING)
    outcome = _run(_replay([_study_recording()]), lambda c: fetch_study(c, "nct04363697"))
    assert outcome.ok
    fetched = outcome.fetched
    assert fetched is not None
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == (
        "ctgov",
        "full_text",
        "application/json",
    )
    assert fetched.identifier == "nct:NCT04363697"
    assert fetched.version == "2026-06-16"
    assert fetched.url == STUDIES_URL + NCT
    assert fetched.title is not None and fetched.title.startswith("Dapagliflozin and Effect")
    doc = parse_ctgov(fetched.data)
    assert doc.meta.title == fetched.title
    assert "placebo-controlled trial in patients who have been stabilized" in doc.text


def test_ctgov_404_is_missing() -> None:
    body = b'{"message":"Study not found"}'
    rec = _recording(
        STUDIES_URL + "NCT00000000", body, status=404, media="application/json", name="nf"
    )
    outcome = _run(_replay([rec]), lambda c: fetch_study(c, "NCT00000000"))
    assert outcome.kind == "missing"
    assert outcome.reason == "ClinicalTrials.gov has no study NCT00000000."


def test_ctgov_other_study_is_unavailable() -> None:
    if not TEKMERIA.is_dir():
        pytest.skip(MISSING)
    other = _study_recording()
    rec = _recording(STUDIES_URL + "NCT11111111", other.body, media="application/json", name="x")
    outcome = _run(_replay([rec]), lambda c: fetch_study(c, "NCT11111111"))
    assert outcome.kind == "unavailable"


# --- openFDA -------------------------------------------------------------------------------------


def test_openfda_label_is_fetched(tekmeria: ReplayTransport) -> None:
    outcome = _run(tekmeria, lambda c: fetch_label(c, SET_ID.upper()))
    assert outcome.ok
    fetched = outcome.fetched
    assert fetched is not None
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == (
        "openfda",
        "full_text",
        "application/json",
    )
    assert fetched.identifier == f"setid:{SET_ID}"
    assert fetched.version == "6"
    assert fetched.title == "Warfarin Sodium"
    doc = parse_openfda(fetched.data)
    assert "Warfarin sodium can cause major or fatal bleeding" in doc.text
    assert not tekmeria.refused


def test_openfda_404_is_missing() -> None:
    """openFDA's real 404 body ("No matches found!"), served for a set-id search."""
    path = CORPUS / "openfda" / "tekmeria-openfda-label-search-zzzqqq-not-a-drug-skip0.404.json"
    if not path.is_file():
        pytest.skip(MISSING)
    unknown = "00000000-0000-0000-0000-000000000000"
    url = (
        "https://api.fda.gov/drug/label.json?search=set_id%3A%22" + unknown + "%22"
        "&limit=1&skip=0&sort=effective_time%3Adesc"
    )
    rec = _recording(url, path.read_bytes(), status=404, media="application/json", name="nf")
    outcome = _run(_replay([rec]), lambda c: fetch_label(c, unknown))
    assert outcome.kind == "missing"
    assert outcome.reason == f"openFDA has no drug label with set id {unknown}."


def test_openfda_refuses_a_non_uuid() -> None:
    with pytest.raises(BadInputError):
        _run(_replay([]), lambda c: fetch_label(c, 'x" OR set_id:"y'))
