"""PubMed, ClinicalTrials.gov and openFDA sources against recorded answers.

Offline: the clients run on ``ReplayTransport`` (which refuses anything unrecorded) or on an
``httpx2.MockTransport``, with an injected clock and sleep so retries and rate limits cost no
time.  Two layers of recordings:

* INVENTED recordings in ``tests/sources/invented/`` (``pubmed-*``, ``ctgov-*``,
  ``openfda-*``): litcheck pairs written for these tests in the services' real formats (same
  fields, nesting, types and XML element names as the real answers; invented PMIDs 9992xxxx,
  NCT9992xxxx and set ids 9992a00x-...), each labelled "INVENTED ... not a real answer" in its
  ``provenance``.  They need nothing outside the repository, so a fresh clone tests every
  behaviour below; error answers too small to be worth a file (a 503, a garbled body) are
  built in the test and are invented as well.
* Real recorded answers from ``../shared/corpus/tekmeria-fixtures``, as a second layer; those
  tests skip when the corpus is absent.  Where one needs an answer the corpus lacks (an unknown
  PMID, the ``studies/<NCT>`` form of a recorded study, a 404 for a set-id search) the
  Recording is built here from real bodies and says so.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from citeproof.documents.ctgov import parse_ctgov
from citeproof.documents.openfda import parse_openfda
from citeproof.documents.pubmed import CommentCorrection, parse_pubmed
from citeproof.errors import BadInputError, NetworkError, UpstreamUnavailableError
from citeproof.net.recordings import META_SUFFIX, Recording, load_litcheck
from citeproof.net.replay import ReplayTransport
from citeproof.sources import ctgov, openfda
from citeproof.sources.base import SourceOutcome
from citeproof.sources.ctgov import STUDIES_URL, fetch_study
from citeproof.sources.openfda import fetch_label
from citeproof.sources.pubmed import EFETCH_URL, efetch_records, fetch_pubmed
from replay_clients import CONTACT, CORPUS, MISSING, TEKMERIA, built_recording, run_with_contact
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


@pytest.mark.parametrize("body", [b"", b'<?xml version="1.0" ?>\n', b"   \n"])
def test_pubmed_empty_200_is_unavailable_not_missing(body: bytes) -> None:
    """NCBI's known failure is a 200 whose body breaks off: once read as "no such record"."""
    url = f"{EFETCH_URL}?db=pubmed&id=1&retmode=xml"
    transport = _replay([_recording(url, body, media="text/xml", name="empty200")])
    outcome = _run(transport, lambda c: fetch_pubmed(c, "1"))
    assert outcome.kind == "unavailable", outcome
    assert outcome.reason is not None and "no XML document" in outcome.reason

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=body, headers={"content-type": "text/xml"})

    with pytest.raises(UpstreamUnavailableError, match="no XML document"):
        _run(httpx2.MockTransport(handler), lambda c: efetch_records(c, ["1"]))


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


# =============================================================================================
# Invented recordings (tests/sources/invented): the same behaviours, no corpus needed.

INVENTED = Path(__file__).resolve().parent / "invented"
_PREFIXES = ("pubmed-", "ctgov-", "openfda-")
LABEL_1 = "9992a001-5e6f-4a7b-8c9d-0e1f2a3b4c5d"  # Exampliprin, version 4
LABEL_2 = "9992a002-5e6f-4a7b-8c9d-0e1f2a3b4c5d"  # openFDA: "No matches found!"
LABEL_3 = "9992a003-5e6f-4a7b-8c9d-0e1f2a3b4c5d"  # answered with LABEL_1's label
LABEL_4 = "9992a004-5e6f-4a7b-8c9d-0e1f2a3b4c5d"  # a label without openfda annotations
LABEL_6 = "9992a006-5e6f-4a7b-8c9d-0e1f2a3b4c5d"  # 429 OVER_RATE_LIMIT


def invented(*names: str) -> ReplayTransport:
    """A replay of exactly the named invented recordings (nothing else is answered)."""
    return ReplayTransport([load_litcheck(INVENTED / f"{name}{META_SUFFIX}") for name in names])


def invented_body(name: str) -> bytes:
    return (INVENTED / f"{name}.body").read_bytes()


def _efetch_url(ids: str) -> str:
    return f"{EFETCH_URL}?db=pubmed&id={ids}&retmode=xml"


def _label_url(set_id: str) -> str:
    return str(
        httpx2.URL(
            openfda.LABEL_URL,
            params={
                "search": f'set_id:"{set_id}"',
                "limit": "1",
                "skip": "0",
                "sort": "effective_time:desc",
            },
        )
    )


class _Answering(httpx2.MockTransport):
    """Gives every request the same invented answer; ``calls`` lists the URLs asked."""

    def __init__(self, status: int, body: bytes = b"", **headers: str) -> None:
        self.calls: list[str] = []

        def handler(request: httpx2.Request) -> httpx2.Response:
            self.calls.append(str(request.url))
            return httpx2.Response(status, content=body, headers=headers)

        super().__init__(handler)


def _plain_client_run(
    handler: Callable[[httpx2.Request], httpx2.Response],
    call: Callable[[httpx2.AsyncClient], Coroutine[Any, Any, Any]],
) -> Any:
    """``call`` on a bare ``httpx2.AsyncClient`` (no make_client: no retries, raw errors)."""

    async def go() -> Any:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:
            return await call(client)

    return asyncio.run(go())


def _refuse(request: httpx2.Request) -> httpx2.Response:
    raise httpx2.ConnectError("connection refused", request=request)


def test_invented_recordings_are_labelled_and_hash_true() -> None:
    """An unlabelled or edited invented recording could be mistaken for a real answer."""
    metas = sorted(p for p in INVENTED.glob(f"*{META_SUFFIX}") if p.name.startswith(_PREFIXES))
    assert len(metas) >= 20
    for meta in metas:
        record = json.loads(meta.read_text(encoding="utf-8"))
        assert record["provenance"].startswith("INVENTED for citeproof's tests"), meta.name
        assert record["provenance"].endswith("not a real answer"), meta.name
        assert all(key == key.lower() for key in record["headers"]), meta.name
        load_litcheck(meta)  # verifies the body's sha256


# --- PubMed, invented ----------------------------------------------------------------------


def test_invented_pubmed_structured_abstract_is_fetched() -> None:
    transport = invented("pubmed-efetch-99920001")
    outcome = run_with_contact(transport, lambda c: fetch_pubmed(c, " 99920001 "))
    assert (outcome.kind, outcome.ok, outcome.reason) == ("fetched", True, None)
    fetched = outcome.fetched
    assert fetched is not None
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == (
        "pubmed",
        "abstract",
        "application/xml",
    )
    assert fetched.identifier == "pmid:99920001"
    assert fetched.title == (
        "Invented example: morning light and reaction time in night-shift workers."
    )
    assert fetched.data == invented_body("pubmed-efetch-99920001")
    # the contact address goes on the wire (the replay ignores it) but never into the result
    assert fetched.url == _efetch_url("99920001")
    assert CONTACT not in fetched.url and "email" not in fetched.url
    assert transport.used["pubmed-efetch-99920001"] == 1 and not transport.refused
    doc = parse_pubmed(fetched.data)
    assert (doc.meta.pmid, doc.meta.doi, doc.meta.pmcid) == (
        "99920001",
        "10.5555/invented.pubmed.1",  # the record's own DOI, not its reference's
        "PMC99920001",
    )
    assert "Reaction time fell by 31\xa0ms with the bright lamp" in doc.text
    assert "RESULTS" not in doc.text  # labels live in the section path only
    sections = [b.section for b in doc.blocks if b.region == "abstract"]
    assert ("Abstract", "RESULTS") in sections and ("Other abstract",) in sections


def test_invented_pubmed_record_without_abstract_is_fetched_with_a_reason() -> None:
    outcome = _run(
        invented("pubmed-efetch-99920002-no-abstract"), lambda c: fetch_pubmed(c, "99920002")
    )
    assert outcome.ok
    assert outcome.reason == "PubMed has no abstract for PMID 99920002."
    assert outcome.fetched is not None
    assert outcome.fetched.title == "Invented letter: a reply about lamps and night shifts."


def test_invented_pubmed_empty_set_is_missing() -> None:
    outcome = _run(invented("pubmed-efetch-99920003-empty"), lambda c: fetch_pubmed(c, "99920003"))
    assert outcome.kind == "missing"
    assert outcome.reason == "PubMed has no record PMID 99920003."
    assert outcome.fetched is None


def test_invented_pubmed_answer_with_another_record_is_unavailable() -> None:
    """PubMed answering with another PMID's record must not be read as the asked paper."""
    outcome = _run(
        invented("pubmed-efetch-99920004-another-record"), lambda c: fetch_pubmed(c, "99920004")
    )
    assert outcome.kind == "unavailable"
    assert outcome.reason == (
        "PubMed answered PMID 99920004 with a different record; nothing was concluded."
    )


def test_invented_pubmed_asked_record_second_in_the_set_is_unavailable() -> None:
    """The Document reads the first record, so the asked one must be first, not just present."""
    first = invented_body("pubmed-efetch-99920002-no-abstract")
    second = invented_body("pubmed-efetch-99920001")
    body = first.replace(
        b"</PubmedArticleSet>",
        second[second.index(b"<PubmedArticle>") : second.index(b"</PubmedArticleSet>")]
        + b"</PubmedArticleSet>",
    )
    rec = _recording(_efetch_url("99920001"), body, media="text/xml", name="two")
    outcome = _run(_replay([rec]), lambda c: fetch_pubmed(c, "99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "different record" in outcome.reason


def test_invented_pubmed_book_chapter_is_fetched() -> None:
    outcome = _run(invented("pubmed-efetch-99920006-book"), lambda c: fetch_pubmed(c, "99920006"))
    assert outcome.ok and outcome.reason is None
    assert outcome.fetched is not None
    assert outcome.fetched.title == "Invented chapter: keeping a sleep diary."
    assert "A sleep diary records, each morning" in parse_pubmed(outcome.fetched.data).text


def test_invented_pubmed_rate_limit_is_unavailable_after_retries() -> None:
    """NCBI's 429 (JSON body, no Retry-After) is retried, then reported as unavailable."""
    transport = invented("pubmed-efetch-99920008-429")
    outcome = _run(transport, lambda c: fetch_pubmed(c, "99920008"))
    assert outcome.kind == "unavailable" and outcome.fetched is None
    assert outcome.reason is not None and "429 three times" in outcome.reason
    assert transport.used["pubmed-efetch-99920008-429"] == 3


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_invented_pubmed_server_errors_are_unavailable(status: int) -> None:
    transport = _Answering(status, b"<html><body>Invented outage</body></html>")
    outcome = _run(transport, lambda c: fetch_pubmed(c, "99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and f"answered {status} three times" in outcome.reason
    assert len(transport.calls) == 3


def test_invented_pubmed_retry_after_too_long_is_unavailable_at_once() -> None:
    """A Retry-After beyond the wait limit stops at once: unavailable, not a silent sleep."""
    transport = _Answering(429, b"{}", **{"retry-after": "3600"})
    outcome = _run(transport, lambda c: fetch_pubmed(c, "99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "Retry-After" in outcome.reason
    assert len(transport.calls) == 1


def test_invented_pubmed_error_document_is_unavailable() -> None:
    """E-utilities' <eFetchResult><ERROR> (HTTP 200) is a failed read, not "no record"."""
    outcome = _run(
        invented("pubmed-efetch-99920009-error-document"), lambda c: fetch_pubmed(c, "99920009")
    )
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None
    assert outcome.reason.startswith("PubMed's answer for PMID 99920009 could not be read")
    assert "eFetchResult" in outcome.reason


def test_invented_pubmed_truncated_answer_is_unavailable() -> None:
    """NCBI sometimes cuts a 200 answer short mid-stream; that is a failed read."""
    whole = invented_body("pubmed-efetch-99920001")
    rec = _recording(_efetch_url("99920001"), whole[:700], media="text/xml", name="cut")
    outcome = _run(_replay([rec]), lambda c: fetch_pubmed(c, "99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "could not be read" in outcome.reason


@pytest.mark.parametrize("status", [400, 404])
def test_invented_pubmed_other_status_is_unavailable_not_missing(status: int) -> None:
    """PubMed has no "404 means no record" rule: any non-200 status concludes nothing."""
    transport = _Answering(status, b"Bad Request")
    outcome = _run(transport, lambda c: fetch_pubmed(c, "99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason == (
        f"PubMed answered HTTP {status} for PMID 99920001; nothing was concluded."
    )
    assert len(transport.calls) == 1


def test_invented_pubmed_bare_client_transport_error_is_unavailable() -> None:
    """A client not built by make_client raises httpx2's own errors; still unavailable."""
    outcome = _plain_client_run(_refuse, lambda c: fetch_pubmed(c, "99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason == "PubMed could not be reached (ConnectError)."


@pytest.mark.parametrize("bad", ["0", "0123", "abc", "", "12345678901", "1 2", "\uff11\uff12"])
def test_invented_pubmed_refuses_what_is_not_a_pmid(bad: str) -> None:
    transport = _replay([])
    with pytest.raises(BadInputError):
        _run(transport, lambda c: fetch_pubmed(c, bad))
    with pytest.raises(BadInputError):
        _run(transport, lambda c: efetch_records(c, ["99920001", bad]))
    assert transport.refused == []  # refused before any request


def test_invented_efetch_records_reads_a_batch() -> None:
    """One request (duplicates dropped); retraction links and types reach the retraction check."""
    name = "pubmed-efetch-batch-99920001-99920005-99920006-99920007"
    transport = invented(name)
    records = _run(
        transport,
        lambda c: efetch_records(c, ["99920001", "99920005", " 99920006", "99920007", "99920001"]),
    )
    assert transport.used[name] == 1 and not transport.refused
    assert [r.pmid for r in records] == ["99920001", "99920005", "99920006"]
    article, retracted, book = records
    assert (article.doi, article.pmcid) == ("10.5555/invented.pubmed.1", "PMC99920001")
    assert article.publication_types == ["Journal Article", "Randomized Controlled Trial"]
    assert "Retracted Publication" in retracted.publication_types
    assert retracted.comments_corrections == [
        CommentCorrection("RetractionIn", "99920015", "Invent Rev Ex. 2025 Feb;13(2):7"),
        CommentCorrection("ErratumIn", None, "Invent Rev Ex. 2021 Jun;9(6):2"),
    ]
    assert book.title == "Invented chapter: keeping a sleep diary."
    assert book.publication_types == ["Review"]


def test_invented_efetch_records_rate_limit_raises() -> None:
    """A retraction source that could not be read must raise, never answer "no notice"."""
    transport = invented("pubmed-efetch-99920008-429")
    with pytest.raises(UpstreamUnavailableError, match="429 three times"):
        _run(transport, lambda c: efetch_records(c, ["99920008"]))
    assert transport.used["pubmed-efetch-99920008-429"] == 3


def test_invented_efetch_records_error_document_raises() -> None:
    with pytest.raises(UpstreamUnavailableError, match="efetch answer could not be read") as caught:
        _run(
            invented("pubmed-efetch-99920009-error-document"),
            lambda c: efetch_records(c, ["99920009"]),
        )
    assert (caught.value.service, caught.value.host) == (
        "NCBI E-utilities",
        "eutils.ncbi.nlm.nih.gov",
    )


def test_invented_efetch_records_other_status_raises() -> None:
    transport = _Answering(400, b"Bad Request")
    with pytest.raises(UpstreamUnavailableError) as caught:
        _run(transport, lambda c: efetch_records(c, ["99920001"]))
    assert str(caught.value) == (
        "NCBI E-utilities answered HTTP 400 to efetch of 1 PMIDs; nothing was concluded."
    )


def test_invented_efetch_records_bare_client_transport_error_raises() -> None:
    with pytest.raises(UpstreamUnavailableError, match=r"could not be reached \(ConnectError\)"):
        _plain_client_run(_refuse, lambda c: efetch_records(c, ["99920001"]))


def test_invented_efetch_records_a_failed_later_batch_fails_the_whole_call() -> None:
    """Records of the first 200 PMIDs must not be returned as if they were the whole answer."""
    batch = invented_body("pubmed-efetch-batch-99920001-99920005-99920006-99920007")
    calls: list[int] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(len(request.url.params["id"].split(",")))
        if len(calls) == 1:
            return httpx2.Response(200, content=batch, headers={"content-type": "text/xml"})
        return httpx2.Response(503)

    pmids = [str(99920001 + n) for n in range(201)]
    with pytest.raises(UpstreamUnavailableError):
        _run(httpx2.MockTransport(handler), lambda c: efetch_records(c, pmids))
    assert calls == [200, 1, 1, 1]  # the second batch was retried, then the call failed


# --- ClinicalTrials.gov, invented ------------------------------------------------------------


def test_invented_ctgov_full_record_is_fetched() -> None:
    transport = invented("ctgov-study-NCT99920001")
    outcome = _run(transport, lambda c: fetch_study(c, " nct99920001 "))
    assert outcome.ok and outcome.reason is None
    fetched = outcome.fetched
    assert fetched is not None
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == (
        "ctgov",
        "full_text",
        "application/json",
    )
    assert fetched.identifier == "nct:NCT99920001"
    assert fetched.version == "2025-11-24"  # lastUpdatePostDateStruct.date
    assert fetched.url == STUDIES_URL + "NCT99920001"
    assert fetched.title == "Invented Example: Morning Lamp for Night-Shift Workers (LAMP-1)"
    assert fetched.data == invented_body("ctgov-study-NCT99920001")
    doc = parse_ctgov(fetched.data)
    assert doc.meta.title == fetched.title
    assert "The primary outcome was the change in mean reaction time" in doc.text
    assert "Inclusion Criteria:\n* Works at least three night shifts a week" in doc.text
    assert "Invented Circadian Dysrhythmia" not in doc.text  # derivedSection is not the sponsor's
    assert "COMPLETED" not in doc.text and "2023-02-01" not in doc.text
    assert transport.used["ctgov-study-NCT99920001"] == 1


def test_invented_ctgov_404_is_missing() -> None:
    outcome = _run(invented("ctgov-study-NCT99920002-404"), lambda c: fetch_study(c, "NCT99920002"))
    assert outcome.kind == "missing"
    assert outcome.reason == "ClinicalTrials.gov has no study NCT99920002."


def test_invented_ctgov_other_study_is_unavailable() -> None:
    outcome = _run(
        invented("ctgov-study-NCT99920003-another-study"), lambda c: fetch_study(c, "NCT99920003")
    )
    assert outcome.kind == "unavailable"
    assert outcome.reason == (
        "ClinicalTrials.gov answered NCT99920003 with study NCT99920001; nothing was concluded."
    )


def test_invented_ctgov_alias_redirect_is_unavailable_not_missing() -> None:
    """The registry redirects an old alias NCT number; it is not followed, and not "missing"."""
    transport = invented("ctgov-study-NCT99920004-alias-301")
    outcome = _run(transport, lambda c: fetch_study(c, "NCT99920004"))
    assert outcome.kind == "unavailable"
    assert outcome.reason == (
        "ClinicalTrials.gov answered HTTP 301 for NCT99920004; nothing was concluded."
    )
    assert transport.refused == []  # the Location was not asked for


def test_invented_ctgov_record_without_title_or_status_is_fetched() -> None:
    outcome = _run(
        invented("ctgov-study-NCT99920005-minimal"), lambda c: fetch_study(c, "NCT99920005")
    )
    assert outcome.ok
    assert outcome.fetched is not None
    assert (outcome.fetched.title, outcome.fetched.version) == (None, None)
    assert (
        "An invented registration with almost nothing in it."
        in parse_ctgov(outcome.fetched.data).text
    )


@pytest.mark.parametrize(
    "body",
    [
        b"NCT number NCT99920001 not found",  # text where JSON belongs
        b"\xff\xfe{}",
        b"[]",
        b'{"studies": []}',
        b'{"protocolSection": "x"}',
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=["text", "not-utf8", "list", "no-studies", "bad-protocol", "deep"],
)
def test_invented_ctgov_malformed_answer_is_unavailable(body: bytes) -> None:
    rec = _recording(STUDIES_URL + "NCT99920001", body, media="application/json", name="bad")
    outcome = _run(_replay([rec]), lambda c: fetch_study(c, "NCT99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None
    assert outcome.reason.startswith(
        "ClinicalTrials.gov's answer for NCT99920001 could not be read"
    )


def test_invented_ctgov_study_without_identification_is_unavailable() -> None:
    rec = _recording(
        STUDIES_URL + "NCT99920001",
        b'{"protocolSection": {"statusModule": {"overallStatus": "COMPLETED"}}}',
        media="application/json",
        name="noid",
    )
    outcome = _run(_replay([rec]), lambda c: fetch_study(c, "NCT99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "with study (none)" in outcome.reason


@pytest.mark.parametrize("status", [429, 500, 503])
def test_invented_ctgov_busy_is_unavailable(status: int) -> None:
    transport = _Answering(status, b"")
    outcome = _run(transport, lambda c: fetch_study(c, "NCT99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and f"answered {status} three times" in outcome.reason


def test_invented_ctgov_bad_request_is_unavailable() -> None:
    transport = _Answering(400, b"Parameter `nctId` has incorrect format")
    outcome = _run(transport, lambda c: fetch_study(c, "NCT99920001"))
    assert outcome.kind == "unavailable"
    assert outcome.reason == (
        "ClinicalTrials.gov answered HTTP 400 for NCT99920001; nothing was concluded."
    )


@pytest.mark.parametrize(
    "bad", ["NCT123", "NCT999200011", "99920001", "NCT9992000a", "NCT 99920001"]
)
def test_invented_ctgov_refuses_what_is_not_an_nct_number(bad: str) -> None:
    transport = _replay([])
    with pytest.raises(BadInputError):
        _run(transport, lambda c: fetch_study(c, bad))
    assert transport.refused == []


def test_invented_ctgov_search_pages_replay() -> None:
    """A query other than the recorded one is refused; titles fall back to officialTitle."""
    transport = invented("ctgov-search-invented-lamp-page1", "ctgov-search-invented-lamp-page2")

    async def both(client: httpx2.AsyncClient) -> Any:
        first = await ctgov.search_studies(
            client, ctgov.studies_params(term="invented lamp", page_size=2)
        )
        assert first.next_page_token is not None
        second = await ctgov.search_studies(
            client,
            ctgov.studies_params(
                term="invented lamp", page_size=2, page_token=first.next_page_token
            ),
        )
        return first, second

    first, second = _run(transport, both)
    assert transport.refused == [] and transport.unused() == []
    assert first.total == 3 and first.next_page_token == "INVENTEDpageTwoToken0001"
    assert first.studies[0] == ctgov.StudySummary(
        nct="NCT99920001",
        title="Invented Example: Morning Lamp for Night-Shift Workers (LAMP-1)",
        status="COMPLETED",
        first_posted="2023-01-16",
        last_updated="2025-11-24",
        pmids=("99920001", "99920002"),
    )
    assert first.studies[1].pmids == () and first.studies[1].status == "RECRUITING"
    assert second.total == 3 and second.next_page_token is None
    (only,) = second.studies
    assert only.title == "An Invented Observational Study of Lamps in Hospitals"
    assert only.pmids == ("99920005",)


def test_invented_ctgov_search_skips_what_is_not_a_study() -> None:
    """Odd entries are dropped, not fatal; a boolean totalCount or empty token is no value."""
    page = {
        "totalCount": True,
        "nextPageToken": "",
        "studies": [
            5,
            {"hasResults": False},
            {"protocolSection": "x"},
            {"protocolSection": {"identificationModule": {"nctId": "  "}}},
            {
                "protocolSection": {
                    "identificationModule": {"nctId": "nct99920009"},
                    "referencesModule": {
                        "references": [{"pmid": 99920001}, {"pmid": None}, "x", {"type": "RESULT"}]
                    },
                }
            },
        ],
    }
    transport = _Answering(200, json.dumps(page).encode())
    result = _run(
        transport, lambda c: ctgov.search_studies(c, ctgov.studies_params(term="invented"))
    )
    assert result.total is None and result.next_page_token is None
    assert result.studies == [ctgov.StudySummary(nct="NCT99920009", pmids=("99920001",))]


def test_invented_ctgov_search_without_studies_is_an_empty_page() -> None:
    transport = _Answering(200, b'{"totalCount": 0}')
    result = _run(
        transport, lambda c: ctgov.search_studies(c, ctgov.studies_params(term="invented"))
    )
    assert (result.total, result.studies, result.next_page_token) == (0, [], None)


# --- openFDA, invented -------------------------------------------------------------------------


def test_invented_openfda_label_is_fetched() -> None:
    transport = invented(f"openfda-label-{LABEL_1}")
    outcome = _run(transport, lambda c: fetch_label(c, f" {LABEL_1.upper()} "))
    assert outcome.ok and outcome.reason is None
    fetched = outcome.fetched
    assert fetched is not None
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == (
        "openfda",
        "full_text",
        "application/json",
    )
    assert fetched.identifier == f"setid:{LABEL_1}"
    assert (fetched.version, fetched.title) == ("4", "Exampliprin")
    assert fetched.url == _label_url(LABEL_1)
    doc = parse_openfda(fetched.data)
    assert "Exampliprin can cause invented drowsiness that lasts for days" in doc.text
    assert "<table" not in doc.text  # *_table HTML duplicates are left out
    assert "LACTOSE MONOHYDRATE" not in doc.text  # product data elements are not prose
    assert doc.blocks[0].section == ("Boxed warning",)
    assert {b.region for b in doc.blocks} == {"body", "references", "back-matter"}
    assert transport.used[f"openfda-label-{LABEL_1}"] == 1


def test_invented_openfda_404_is_missing() -> None:
    outcome = _run(invented(f"openfda-label-{LABEL_2}-404"), lambda c: fetch_label(c, LABEL_2))
    assert outcome.kind == "missing"
    assert outcome.reason == f"openFDA has no drug label with set id {LABEL_2}."


def test_invented_openfda_other_label_is_unavailable() -> None:
    outcome = _run(
        invented(f"openfda-label-{LABEL_3}-another-label"), lambda c: fetch_label(c, LABEL_3)
    )
    assert outcome.kind == "unavailable"
    assert outcome.reason == (
        f"openFDA answered set id {LABEL_3} with label '{LABEL_1}'; nothing was concluded."
    )


def test_invented_openfda_label_without_openfda_section_has_no_title() -> None:
    outcome = _run(
        invented(f"openfda-label-{LABEL_4}-no-openfda"), lambda c: fetch_label(c, LABEL_4)
    )
    assert outcome.ok
    assert outcome.fetched is not None
    assert (outcome.fetched.title, outcome.fetched.version) == (None, "1")
    assert "For external use only." in parse_openfda(outcome.fetched.data).text


def test_invented_openfda_rate_limit_is_unavailable() -> None:
    transport = invented(f"openfda-label-{LABEL_6}-429")
    outcome = _run(transport, lambda c: fetch_label(c, LABEL_6))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "429 three times" in outcome.reason
    assert transport.used[f"openfda-label-{LABEL_6}-429"] == 3


@pytest.mark.parametrize(
    "body",
    [
        b"<html>Invented gateway page</html>",
        b"[]",
        b'{"meta": {}}',
        b'{"meta": {}, "results": []}',
        b'{"results": ["x"]}',
        b"[" * 100_000 + b"]" * 100_000,
    ],
    ids=["html", "list", "no-results", "empty-results", "not-a-label", "deep"],
)
def test_invented_openfda_malformed_answer_is_unavailable(body: bytes) -> None:
    rec = _recording(_label_url(LABEL_1), body, media="application/json", name="bad")
    outcome = _run(_replay([rec]), lambda c: fetch_label(c, LABEL_1))
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None
    assert outcome.reason.startswith(f"openFDA's answer for set id {LABEL_1} could not be read")


@pytest.mark.parametrize(
    ("label", "shown"),
    [({"set_id": 5}, "5"), ({"version": "1"}, "None"), ({"set_id": LABEL_2}, repr(LABEL_2))],
)
def test_invented_openfda_label_without_the_asked_set_id_is_unavailable(
    label: dict[str, Any], shown: str
) -> None:
    body = json.dumps({"meta": {}, "results": [label]}).encode()
    rec = _recording(_label_url(LABEL_1), body, media="application/json", name="odd")
    outcome = _run(_replay([rec]), lambda c: fetch_label(c, LABEL_1))
    assert outcome.kind == "unavailable"
    assert outcome.reason == (
        f"openFDA answered set id {LABEL_1} with label {shown}; nothing was concluded."
    )


def test_invented_openfda_non_string_version_is_dropped() -> None:
    body = json.dumps({"results": [{"set_id": LABEL_1.upper(), "version": 4}]}).encode()
    rec = _recording(_label_url(LABEL_1), body, media="application/json", name="v")
    outcome = _run(_replay([rec]), lambda c: fetch_label(c, LABEL_1))
    assert outcome.ok and outcome.fetched is not None
    assert outcome.fetched.version is None


@pytest.mark.parametrize("bad", ["warfarin", 'x" OR set_id:"y', LABEL_1[:-1], LABEL_1 + "0"])
def test_invented_openfda_refuses_what_is_not_a_set_id(bad: str) -> None:
    transport = _replay([])
    with pytest.raises(BadInputError):
        _run(transport, lambda c: fetch_label(c, bad))
    assert transport.refused == []


def test_invented_openfda_search_pages_replay() -> None:
    transport = invented("openfda-search-inventolol-skip0", "openfda-search-inventolol-skip2")
    query = openfda.drug_query("inventolol")

    async def both(client: httpx2.AsyncClient) -> Any:
        first = await openfda.search_labels(client, openfda.labels_params(query, limit=2))
        second = await openfda.search_labels(client, openfda.labels_params(query, limit=2, skip=2))
        return first, second

    first, second = _run(transport, both)
    assert transport.refused == [] and transport.unused() == []
    assert first.total == 3 and second.total == 3
    assert first.labels == [
        openfda.LabelSummary(LABEL_1, "Exampliprin", "4", "20251201"),
        # no brand name: the generic name is the title
        openfda.LabelSummary(
            "9992a005-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "INVENTOLOL HYDROCHLORIDE", "2", "20250707"
        ),
    ]
    assert second.labels == [openfda.LabelSummary(LABEL_4, None, "1", "20240505")]


def test_invented_openfda_search_no_match_404_is_an_empty_page() -> None:
    transport = invented("openfda-search-zzzinvented-404")
    params = openfda.labels_params(openfda.drug_query("zzzinvented"), limit=10)
    page = _run(transport, lambda c: openfda.search_labels(c, params))
    assert page == openfda.LabelsPage(total=0, labels=[])
    assert transport.refused == []


@pytest.mark.parametrize(
    "body",
    [
        b'{"error": {"code": "BAD_REQUEST", "message": "Invented"}}',
        b"<html><body>Invented gateway: not found</body></html>",
        b'["NOT_FOUND"]',
    ],
    ids=["other-code", "html", "not-an-object"],
)
def test_invented_openfda_search_other_404_raises(body: bytes) -> None:
    """Only openFDA's own NOT_FOUND 404 means "nothing matched"; any other 404 is a failure."""
    with pytest.raises(UpstreamUnavailableError, match="answered HTTP 404 to a label search"):
        _run(_Answering(404, body), lambda c: openfda.search_labels(c, openfda.labels_params("x")))


def test_invented_openfda_search_rate_limit_raises() -> None:
    body = invented_body(f"openfda-label-{LABEL_6}-429")
    transport = _Answering(429, body, **{"content-type": "application/json"})
    with pytest.raises(UpstreamUnavailableError, match="429 three times"):
        _run(transport, lambda c: openfda.search_labels(c, openfda.labels_params("x:y")))


def test_invented_openfda_search_bad_request_raises_in_the_shared_wording() -> None:
    """Search sources word a failed read alike: '<service> <what>; nothing was concluded.'"""
    transport = _Answering(400, b'{"error": {"code": "BAD_REQUEST", "message": "Invented"}}')
    with pytest.raises(UpstreamUnavailableError) as caught:
        _run(transport, lambda c: openfda.search_labels(c, openfda.labels_params("x:y")))
    assert str(caught.value) == (
        "openFDA answered HTTP 400 to a label search; nothing was concluded."
    )
    assert (caught.value.service, caught.value.host) == ("openFDA", "api.fda.gov")


@pytest.mark.parametrize(
    ("body", "what"),
    [
        (b"\xff not json", "with a body that is not JSON"),
        (b"[1, 2]", "with JSON that is not an object"),
        (b'{"meta": {"results": {"total": true}}}', "without meta.results.total"),
    ],
)
def test_invented_openfda_search_unreadable_answer_raises(body: bytes, what: str) -> None:
    with pytest.raises(UpstreamUnavailableError, match=what):
        _run(_Answering(200, body), lambda c: openfda.search_labels(c, openfda.labels_params("x")))


def test_invented_openfda_search_skips_what_is_not_a_label() -> None:
    page = {
        "meta": {"results": {"skip": 0, "limit": 10, "total": 4}},
        "results": [
            3,
            {"set_id": " "},
            {"openfda": {"brand_name": ["Nothing"]}},
            {
                "set_id": f" {LABEL_1.upper()} ",
                "openfda": {"brand_name": [], "generic_name": [5]},
                "version": 4,
                "effective_time": 20251201,
            },
        ],
    }
    result = _run(
        _Answering(200, json.dumps(page).encode()),
        lambda c: openfda.search_labels(c, openfda.labels_params("x")),
    )
    assert result == openfda.LabelsPage(total=4, labels=[openfda.LabelSummary(LABEL_1)])


def test_invented_openfda_search_results_not_a_list_is_an_empty_page() -> None:
    page = {"meta": {"results": {"total": 0}}, "results": {"set_id": LABEL_1}}
    result = _run(
        _Answering(200, json.dumps(page).encode()),
        lambda c: openfda.search_labels(c, openfda.labels_params("x")),
    )
    assert result == openfda.LabelsPage(total=0)


def test_invented_openfda_empty_search_is_refused() -> None:
    with pytest.raises(ValueError, match="empty openFDA search"):
        openfda.labels_params("   ")


# --- shared outcome helpers (base.py) ----------------------------------------------------------


def test_outcome_is_ok_only_with_bytes() -> None:
    assert not SourceOutcome("fetched").ok
    assert not SourceOutcome("missing", "no").ok
