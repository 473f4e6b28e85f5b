"""Crossref notices, replayed from the real recordings in the corpus, plus fault cases.

The recordings of ``works?filter=updates:{doi}`` come from two recorders: tekmeria asked with
``rows=20`` (replayed as recorded) and litcheck without ``rows`` (Crossref's default page, 20,
as the body's ``items-per-page`` says); the latter and habanero's unversioned ``works/{doi}``
bodies are replayed under the exact request citeproof sends. Fault cases use
``httpx2.MockTransport``. Nothing here touches the network.

The corpus tests skip without ``../shared/corpus``; the same behaviours are also tested on
INVENTED recordings in ``tests/sources/invented/crossref-*`` (litcheck pairs labelled
``INVENTED ... not a real answer``: DOIs under 10.5555/, invented titles and people, in
Crossref's real answer format), which every clone has.  They cover a retraction notice from
Retraction Watch and the publisher, an expression of concern, a correction naming two works,
paging by ``offset``, a 404 for an unknown DOI, 429/503 answers and malformed bodies.
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

from citeproof.errors import NetworkError, UpstreamUnavailableError
from citeproof.net.recordings import Recording, load_litcheck
from citeproof.net.replay import ReplayTransport
from citeproof.sources import crossref
from replay_clients import FakeTime, fake_client
from replay_clients import run_with_contact as run_client

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


# --- invented recordings (tests/sources/invented/crossref-*): no corpus needed ------------------

INVENTED = Path(__file__).resolve().parent / "invented"
RETRACTED = "10.5555/invented.cr.retracted"
R_NOTICE = "10.5555/invented.cr.retraction-notice"
E_NOTICE = "10.5555/invented.cr.concern-notice"
C_NOTICE = "10.5555/invented.cr.correction-notice"


def invented() -> ReplayTransport:
    """The invented Crossref recordings only (other services' files share the folder)."""
    metas = sorted(INVENTED.glob("crossref-*.meta.json"))
    assert metas, f"no invented Crossref recordings in {INVENTED}"
    return ReplayTransport([load_litcheck(meta) for meta in metas])


def test_invented_recordings_are_labelled_and_in_crossrefs_format() -> None:
    """A fixture that lost its label (or its 10.5555 DOI) could be mistaken for a real answer."""
    metas = sorted(INVENTED.glob("crossref-*.meta.json"))
    assert len(metas) >= 14
    for meta_path in metas:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        assert meta["provenance"].startswith("INVENTED for citeproof's tests"), meta_path
        assert meta["provenance"].endswith("not a real answer"), meta_path
        assert meta["url"].startswith(crossref.API_URL), meta_path
        assert "10.5555" in meta["url"].replace("%2F", "/"), meta_path
        assert all(key == key.lower() for key in meta["headers"]), meta_path
        recording = load_litcheck(meta_path)  # verifies body_sha256
        if recording.headers.get("content-type") == "application/json" and (
            "truncated" not in meta_path.name  # cut short on purpose
        ):
            payload = json.loads(recording.body)
            assert set(payload) >= {"status", "message-type", "message"}, meta_path


def test_invented_retraction_concern_and_correction_notices() -> None:
    """Every notice in ``works?filter=updates:`` is read: the Retraction Watch and publisher
    copies of one retraction, an expression of concern, and a correction that names two works
    (only the entry about ours is kept)."""
    transport = invented()
    found = run_client(transport, lambda c: crossref.notices_about(c, RETRACTED))
    assert transport.refused == []
    assert transport.used == {"crossref-updates-10.5555-invented.cr.retracted": 1}
    assert [(u.kind, u.notice_doi, u.source, u.date) for u in found] == [
        ("retraction", R_NOTICE, "retraction-watch", "2024-03-12"),
        ("retraction", R_NOTICE, "publisher", "2024-03-12"),
        ("expression_of_concern", E_NOTICE, "publisher", "2023-11-02"),
        ("correction", C_NOTICE, "publisher", "2021-06-30"),
    ]
    assert [u.category for u in found] == ["retracted", "retracted", "concern", "correction"]
    assert {u.target_doi for u in found} == {RETRACTED}
    assert found[0].record_id == "99901" and found[1].record_id is None
    assert found[0].label == "Retraction" and found[2].label == "Expression of concern"


def test_invented_work_carries_its_notices_in_updated_by() -> None:
    """``works/{doi}``'s ``updated-by`` lists the notices on the work itself (here without
    the correction, which only the updates filter knows: why both are read)."""
    transport = invented()
    work = run_client(transport, lambda c: crossref.work(c, RETRACTED))
    assert transport.refused == []
    assert work is not None
    assert (work.doi, work.type) == (RETRACTED, "journal-article")
    assert work.title == "Mulch depth and soil moisture in invented raised beds"
    assert not work.is_notice and work.update_to == ()
    assert [(u.kind, u.category, u.notice_doi, u.source) for u in work.updated_by] == [
        ("retraction", "retracted", R_NOTICE, "retraction-watch"),
        ("retraction", "retracted", R_NOTICE, "publisher"),
        ("expression_of_concern", "concern", E_NOTICE, "publisher"),
    ]
    assert {u.target_doi for u in work.updated_by} == {RETRACTED}
    assert work.updated_by[0].record_id == "99901"
    assert work.updated_by[2].date == "2023-11-02"


def test_invented_retraction_notice_is_recognised_as_a_notice() -> None:
    """Citing the notice is not citing the retracted paper: its own record must say it is one."""
    work = run_client(invented(), lambda c: crossref.work(c, R_NOTICE))
    assert work is not None and work.is_notice
    assert work.title is not None and work.title.startswith("Retraction: ")
    assert work.updated_by == ()
    assert [(u.target_doi, u.notice_doi, u.kind, u.source) for u in work.update_to] == [
        (RETRACTED, R_NOTICE, "retraction", "retraction-watch"),
        (RETRACTED, R_NOTICE, "retraction", "publisher"),
    ]


def test_invented_expression_of_concern_alone() -> None:
    """An expression of concern is its own category, neither retracted nor a correction."""
    (update,) = run_client(
        invented(), lambda c: crossref.notices_about(c, "10.5555/invented.cr.concern")
    )
    assert (update.kind, update.category) == ("expression_of_concern", "concern")
    assert update.notice_doi == "10.5555/invented.cr.concern-only-notice"
    assert update.label == "Expression of Concern" and update.date == "2025-01-15"


def test_invented_clean_work_asked_in_upper_case() -> None:
    """A DOI as cited (upper case) is asked lower-cased; no notices is an empty list."""
    transport = invented()

    async def both(client: httpx2.AsyncClient) -> tuple[object, object]:
        notices = await crossref.notices_about(client, "10.5555/INVENTED.CR.Clean ")
        return notices, await crossref.work(client, "10.5555/Invented.CR.clean")

    notices, work = run_client(transport, both)
    assert transport.refused == []
    assert notices == []
    assert isinstance(work, crossref.CrossrefWork)
    assert work.doi == "10.5555/invented.cr.clean"
    assert work.updated_by == () and work.update_to == () and not work.is_notice
    assert work.title == "Seed spacing in an invented allotment"


def test_invented_unknown_doi_is_none_and_has_no_notices() -> None:
    """Crossref's 404 for ``works/{doi}`` is an answer (``None``), not a failure."""
    doi = "10.5555/invented.cr.nosuch"
    transport = invented()
    assert run_client(transport, lambda c: crossref.work(c, doi)) is None
    assert run_client(transport, lambda c: crossref.notices_about(c, doi)) == []
    assert transport.refused == []


def test_invented_notices_are_paged_by_offset() -> None:
    """23 notices on two pages: the second is asked with ``offset=20`` and both are read."""
    doi = "10.5555/invented.cr.many"
    transport = invented()
    found = run_client(transport, lambda c: crossref.notices_about(c, doi))
    assert transport.refused == []
    assert transport.used == {
        "crossref-updates-10.5555-invented.cr.many.p1": 1,
        "crossref-updates-10.5555-invented.cr.many.p2": 1,
    }
    assert [u.notice_doi for u in found] == [f"{doi}.n{n:02d}" for n in range(1, 24)]
    assert [u.kind for u in found].count("new_version") == 4
    assert all(u.category == "correction" and u.target_doi == doi for u in found)


def test_invented_429_is_unavailable_after_the_retries() -> None:
    """A rate-limited answer is retried as Crossref's Retry-After says, then raised: a list
    that could not be read must never look like "no notices"."""
    transport = invented()
    fake = FakeTime()

    async def go() -> list[crossref.CrossrefUpdate]:
        async with fake_client(transport, fake=fake) as client:
            return await crossref.notices_about(client, "10.5555/invented.cr.busy")

    with pytest.raises(UpstreamUnavailableError, match="429 three times"):
        asyncio.run(go())
    assert transport.used["crossref-updates-10.5555-invented.cr.busy.429"] == 3
    assert fake.sleeps == [2.0, 2.0]


def test_invented_503_is_a_network_error_with_or_without_the_retry_layer() -> None:
    """The production client gives up after retries; a bare client still gets NetworkError
    naming the status (crossref.py checks the status itself)."""
    doi = "10.5555/invented.cr.down"
    with pytest.raises(UpstreamUnavailableError, match="503 three times"):
        run_client(invented(), lambda c: crossref.work(c, doi))
    with pytest.raises(NetworkError, match="HTTP 503"):
        run(invented(), lambda c: crossref.work(c, doi))


def test_invented_truncated_body_is_a_network_error() -> None:
    with pytest.raises(NetworkError, match="not JSON"):
        run_client(invented(), lambda c: crossref.work(c, "10.5555/invented.cr.truncated"))


def test_invented_validation_failure_400_is_a_network_error() -> None:
    """A comma in a DOI splits Crossref's filter list: its 400 validation-failure answer
    (``message`` is a list) must fail the lookup, not read as "no notices"."""
    with pytest.raises(NetworkError, match="HTTP 400"):
        run_client(invented(), lambda c: crossref.notices_about(c, "10.5555/invented.cr.a,b"))


def test_endless_notice_lists_are_refused_after_max_pages() -> None:
    """A total-results that never ends would page forever; MAX_PAGES pages is a broken answer."""
    doi = "10.5555/invented.cr.endless"
    offsets: list[str | None] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        offsets.append(request.url.params.get("offset"))
        start = int(request.url.params.get("offset") or 0)
        return _page(10_000, [_notice(n, doi) for n in range(start, start + crossref.ROWS)])

    with pytest.raises(NetworkError, match=r"more than 200 notices"):
        asyncio.run(_with_mock(handler, lambda c: crossref.notices_about(c, doi)))
    assert offsets == [None, *(str(n * crossref.ROWS) for n in range(1, crossref.MAX_PAGES))]


def test_an_empty_doi_is_refused_before_sending() -> None:
    transport = invented()
    for call in (crossref.work, crossref.notices_about):
        with pytest.raises(ValueError, match="empty DOI"):
            run(transport, lambda c, call=call: call(c, "  "))
    assert transport.refused == []


def test_odd_update_entries_are_read_or_skipped() -> None:
    """Invented, malformed on purpose: Crossref's unknown dates (``[[null]]``), year-only
    dates, numeric record ids, entries without a type or a DOI, and non-objects."""
    own = "10.5555/invented.cr.odd"
    message = {
        "DOI": own.upper(),
        "type": "journal-article",
        "title": [],
        "updated-by": [
            {
                "DOI": "10.5555/n.1",
                "type": "Retraction",
                "record-id": 4711,
                "updated": {"date-parts": [[2024]]},
                "source": "retraction-watch",
            },
            {
                "DOI": "10.5555/n.2",
                "type": "partial-retraction",
                "updated": {"date-parts": [[None]]},
            },
            {"DOI": "10.5555/n.3", "type": "correction", "updated": {"date-parts": []}},
            {"DOI": "10.5555/n.4", "label": "no type"},
            "not an entry",
        ],
        "update-to": [
            {"type": "retraction"},  # names no work: dropped
            {"DOI": own, "type": "correction"},  # a notice about itself: dropped
        ],
    }
    work = crossref.parse_work(json.dumps({"message": message}).encode(), own)
    assert work.doi == own and work.title is None and not work.is_notice
    assert [(u.kind, u.date, u.record_id) for u in work.updated_by] == [
        ("retraction", "2024", "4711"),
        ("partial_retraction", None, None),
        ("correction", None, None),
    ]
    assert [u.category for u in work.updated_by] == ["retracted", "retracted", "correction"]

    items = [
        "not an item",
        {"DOI": "10.5555/n.5"},
        {"DOI": "10.5555/n.6", "update-to": [{"DOI": own, "type": "withdrawal"}]},
    ]
    found, total = crossref.parse_notices(
        json.dumps({"message": {"total-results": 3, "items": items}}).encode(), own
    )
    assert total == 3
    assert [(u.kind, u.notice_doi, u.category) for u in found] == [
        ("withdrawal", "10.5555/n.6", "retracted")
    ]
