"""Crossref notices, replayed from the real recordings in the corpus, plus fault cases.

The recordings of ``works?filter=updates:{doi}`` come from two recorders: tekmeria asked with
``rows=20`` (replayed as recorded) and litcheck without ``rows`` (Crossref's default page, 20,
as the body's ``items-per-page`` says); the latter and habanero's unversioned ``works/{doi}``
bodies are replayed under the exact request citeproof sends. Fault cases use
``httpx2.MockTransport``. Nothing here touches the network.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TypeVar

import httpx2
import pytest

from citeproof.errors import NetworkError
from citeproof.net.recordings import Recording
from citeproof.net.replay import ReplayTransport
from citeproof.sources import crossref

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)

WAKEFIELD = "10.1016/s0140-6736(97)11096-0"
PLOS = "10.1371/journal.pone.0340378"
PLOS_NOTICE = "10.1371/journal.pone.0351255"
UPDATES = "https://api.crossref.org/v1/works?filter=updates:{doi}&rows=20"
WORK = "https://api.crossref.org/v1/works/{doi}"

T = TypeVar("T")


def built(name: str, url: str, body: bytes, status: int = 200) -> Recording:
    return Recording(
        method="GET",
        url=url,
        status=status,
        headers={"content-type": "application/json"},
        body=body,
        body_sha256=hashlib.sha256(body).hexdigest(),
        date=None,
        name=name,
    )


def run(
    recordings: Iterable[Recording] | ReplayTransport,
    call: Callable[[httpx2.AsyncClient], Awaitable[T]],
) -> T:
    transport = (
        recordings if isinstance(recordings, ReplayTransport) else ReplayTransport(recordings)
    )

    async def main() -> T:
        async with httpx2.AsyncClient(transport=transport) as client:
            return await call(client)

    return asyncio.run(main())


def mock(handler: Callable[[httpx2.Request], httpx2.Response]) -> httpx2.MockTransport:
    return httpx2.MockTransport(handler)


async def _with_mock(
    handler: Callable[[httpx2.Request], httpx2.Response],
    call: Callable[[httpx2.AsyncClient], Awaitable[T]],
) -> T:
    async with httpx2.AsyncClient(transport=mock(handler)) as client:
        return await call(client)


# --- real recordings ---------------------------------------------------------------------


@needs_corpus
def test_wakefield_notices_from_the_tekmeria_recording_as_recorded() -> None:
    transport = ReplayTransport.from_folder(CORPUS / "tekmeria-fixtures")
    found = run(transport, lambda c: crossref.notices_about(c, WAKEFIELD))
    by_kind = {u.kind: u for u in found}
    assert set(by_kind) == {"retraction", "correction"}
    retraction = by_kind["retraction"]
    assert retraction.notice_doi == "10.1016/s0140-6736(10)60175-4"
    assert retraction.date == "2010-02-06"
    assert retraction.source == "retraction-watch"
    assert retraction.record_id == "4036"
    assert retraction.category == "retracted"
    assert by_kind["correction"].category == "correction"
    assert transport.refused == []


@needs_corpus
def test_plos_one_retraction_from_the_litcheck_recording() -> None:
    body = CORPUS / "litcheck-fixtures" / f"crossref-updates-{PLOS.replace('/', '-')}.body"
    recording = built("plos", UPDATES.format(doi=PLOS), body.read_bytes())
    found = run([recording], lambda c: crossref.notices_about(c, PLOS))
    assert [(u.kind, u.notice_doi, u.source) for u in found] == [
        ("retraction", PLOS_NOTICE, "retraction-watch"),
        ("retraction", PLOS_NOTICE, "publisher"),
    ]
    assert {u.date for u in found} == {"2026-06-23"}


@needs_corpus
@pytest.mark.parametrize(
    ("doi", "name"),
    [
        ("10.7326/m18-2101", "10.7326-M18-2101"),
        ("10.5409/wjcp.v14.i3.101974", "10.5409-wjcp.v14.i3.101974"),
        ("10.21203/rs.3.rs-10665898/v1", "10.21203-rs.3.rs-10665898-v1"),
        ("10.1371/journal.pmed.1004764", "10.1371-journal.pmed.1004764"),
    ],
)
def test_works_without_notices(doi: str, name: str) -> None:
    """tekmeria asked with the DOI as cited (``M18``); citeproof asks the canonical,
    lower-cased DOI, which Crossref treats as the same."""
    body = (CORPUS / "crossref" / f"tekmeria-crossref-updates-{name}.json").read_bytes()
    recording = built(name, UPDATES.format(doi=doi), body)
    assert run([recording], lambda c: crossref.notices_about(c, doi.upper())) == []


def _habanero(doi: str) -> Recording:
    name = doi.replace("/", "-")
    body = (CORPUS / "crossref" / f"habanero-crossref-works-{name}.json").read_bytes()
    return built(name, WORK.format(doi=doi), body)


@needs_corpus
def test_work_with_updated_by_correction() -> None:
    doi = "10.1371/journal.pone.0033693"
    work = run([_habanero(doi)], lambda c: crossref.work(c, doi))
    assert work is not None
    assert not work.is_notice
    (update,) = work.updated_by
    assert update.kind == "correction"
    assert update.notice_doi == "10.1371/annotation/c76da2c1-ccb8-4797-94c1-359d3ceceeda"
    assert update.target_doi == doi
    assert update.source == "publisher"
    assert update.date == "2012-05-08"


@needs_corpus
@pytest.mark.parametrize(
    "doi", ["10.1002/jor.1100150407", "10.1016/j.neurobiolaging.2010.03.024", "10.1038/srep16696"]
)
def test_works_without_update_links(doi: str) -> None:
    work = run([_habanero(doi)], lambda c: crossref.work(c, doi))
    assert work is not None and work.doi == doi
    assert work.updated_by == () and work.update_to == ()
    assert work.title


@needs_corpus
def test_unknown_doi_is_none_not_a_failure() -> None:
    doi = "10.1371/notarealdoi"
    body = CORPUS / "crossref" / "habanero-crossref-works-10.1371-notarealdoi.404.txt"
    recording = built("404", WORK.format(doi=doi), body.read_bytes(), status=404)
    assert run([recording], lambda c: crossref.work(c, doi)) is None


@needs_corpus
def test_a_notice_is_recognised_as_one() -> None:
    """The PLOS retraction notice's own record (as the work list serves it) is a notice."""
    body = CORPUS / "litcheck-fixtures" / f"crossref-updates-{PLOS.replace('/', '-')}.body"
    item = json.loads(body.read_bytes())["message"]["items"][0]
    work = crossref.parse_work(json.dumps({"message": item}).encode(), PLOS_NOTICE)
    assert work.is_notice
    assert {u.target_doi for u in work.update_to} == {PLOS}
    assert work.updated_by == ()


# --- types ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "kind", "category"),
    [
        ("retraction", "retraction", "retracted"),
        ("Withdrawal", "withdrawal", "retracted"),
        ("removal", "removal", "retracted"),
        ("partial-retraction", "partial_retraction", "retracted"),
        ("Expression of Concern", "expression_of_concern", "concern"),
        ("correction", "correction", "correction"),
        ("erratum", "erratum", "correction"),
        ("corrigendum", "corrigendum", "correction"),
        ("new_version", "new_version", "correction"),
    ],
)
def test_update_types(raw: str, kind: str, category: str) -> None:
    assert crossref.normalise_type(raw) == kind
    assert crossref.category(raw) == category


# --- faults and paging ----------------------------------------------------------------------


def _page(total: int, items: list[dict[str, object]]) -> httpx2.Response:
    body = {"status": "ok", "message": {"total-results": total, "items": items}}
    return httpx2.Response(200, json=body)


def _notice(n: int, doi: str) -> dict[str, object]:
    return {"DOI": f"10.5555/notice.{n}", "update-to": [{"DOI": doi, "type": "correction"}]}


def test_paging_follows_total_results() -> None:
    doi = "10.5555/many"
    seen: list[str | None] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        offset = request.url.params.get("offset")
        seen.append(offset)
        assert request.url.params["filter"] == f"updates:{doi}"
        assert "mailto" not in request.url.params  # the client adds it on the wire, not us
        start = int(offset or 0)
        return _page(25, [_notice(n, doi) for n in range(start, min(start + 20, 25))])

    found = asyncio.run(_with_mock(handler, lambda c: crossref.notices_about(c, doi)))
    assert seen == [None, "20"]
    assert len(found) == 25


def test_notices_about_other_works_are_dropped() -> None:
    item = {"DOI": "10.5555/n", "update-to": [{"DOI": "10.5555/other", "type": "retraction"}]}
    found, total = crossref.parse_notices(
        json.dumps({"message": {"total-results": 1, "items": [item]}}).encode(), "10.5555/mine"
    )
    assert (found, total) == ([], 1)


@pytest.mark.parametrize(
    "response",
    [
        httpx2.Response(503, text="busy"),
        httpx2.Response(200, text="<html>not json</html>"),
        httpx2.Response(200, json={"status": "ok"}),
        httpx2.Response(200, json={"message": {"items": "nope"}}),
    ],
)
def test_unreadable_answers_raise_network_error(response: httpx2.Response) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return response

    with pytest.raises(NetworkError):
        asyncio.run(_with_mock(handler, lambda c: crossref.notices_about(c, "10.5555/x")))
    if "items" not in response.text:
        with pytest.raises(NetworkError):
            asyncio.run(_with_mock(handler, lambda c: crossref.work(c, "10.5555/x")))


def test_transport_errors_become_network_errors() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    with pytest.raises(NetworkError, match="could not be reached"):
        asyncio.run(_with_mock(handler, lambda c: crossref.work(c, "10.5555/x")))


def test_a_work_answered_with_another_doi_is_refused() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json={"message": {"DOI": "10.5555/else"}})

    with pytest.raises(NetworkError, match=r"record of 10\.5555/else"):
        asyncio.run(_with_mock(handler, lambda c: crossref.work(c, "10.5555/X")))
