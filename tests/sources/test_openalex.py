"""OpenAlex: works search parameters, the ``cites:`` page recorded in the corpus (replayed
as is), paging cursors and the DOI/PMID/PMCID lookup; offline throughout.

The corpus test skips without ``../shared/corpus``; the same paths are tested on INVENTED
recordings in ``tests/sources/invented/openalex-*`` (litcheck pairs labelled ``INVENTED ...
not a real answer``, works W9990xxx with DOIs under 10.5555/, in OpenAlex's real answer
format): ``cites:`` pages in page mode, a search walked by cursor to its empty last page, the
DOI/PMID lookups and their 404, and 429/503/truncated answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx2
import pytest

from citeproof.errors import NetworkError, UpstreamUnavailableError
from citeproof.net.recordings import load_litcheck
from citeproof.net.replay import ReplayTransport
from citeproof.sources import openalex
from replay_clients import FakeTime, fake_client
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


# --- invented recordings (tests/sources/invented/openalex-*): no corpus needed ------------------

INVENTED = Path(__file__).resolve().parent / "invented"
TARGET = "W9990001"


def invented() -> ReplayTransport:
    """The invented OpenAlex recordings only (other services' files share the folder)."""
    metas = sorted(INVENTED.glob("openalex-*.meta.json"))
    assert metas, f"no invented OpenAlex recordings in {INVENTED}"
    return ReplayTransport([load_litcheck(meta) for meta in metas])


def test_invented_recordings_are_labelled() -> None:
    """A fixture that lost its label could be mistaken for a real answer."""
    metas = sorted(INVENTED.glob("openalex-*.meta.json"))
    assert len(metas) >= 13
    for meta_path in metas:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        assert meta["provenance"].startswith("INVENTED for citeproof's tests"), meta_path
        assert meta["provenance"].endswith("not a real answer"), meta_path
        assert meta["url"].startswith(openalex.BASE_URL), meta_path
        assert all(key == key.lower() for key in meta["headers"]), meta_path
        recording = load_litcheck(meta_path)  # verifies body_sha256
        if recording.status == 200 and "truncated" not in meta_path.name:
            payload = json.loads(recording.body)
            ids = [payload["id"]] if "id" in payload else [w["id"] for w in payload["results"]]
            assert all(i.startswith("https://openalex.org/W9990") for i in ids), meta_path


def test_invented_cites_page_replays_through_works() -> None:
    """One page of citing works: ids, DOIs (lower-cased, without the doi.org prefix), PMIDs,
    a retracted citing work and one without any DOI; 3 of 3 means no next page."""
    transport = invented()
    page = run(transport, lambda c: openalex.works(c, openalex.works_params(cites=TARGET)))
    assert transport.refused == []
    assert transport.used == {"openalex-cites-w9990001": 1}
    assert page.count == 3 and page.next_cursor is None
    assert [(w.id, w.doi, w.pmid, w.year, w.is_retracted) for w in page.results] == [
        ("W9990011", "10.5555/invented.oa.c11", "99900011", 2021, False),
        ("W9990012", "10.5555/invented.oa.c12", None, 2022, True),
        ("W9990013", None, None, 2023, False),
    ]
    assert page.results[0].title == "Mulch, moisture and invented lettuce"
    assert all(w.pmcid is None for w in page.results)


def test_invented_page_mode_walks_to_the_last_page() -> None:
    """Page 1 of 2 offers ``"2"`` (sent as ``page=2``); the last page offers nothing."""
    transport = invented()

    async def walk(client: httpx2.AsyncClient) -> list[openalex.WorksPage]:
        pages: list[openalex.WorksPage] = []
        cursor: str | None = None
        while True:
            params = openalex.works_params(cites=TARGET, per_page=2, cursor=cursor)
            pages.append(await openalex.works(client, params))
            cursor = pages[-1].next_cursor
            if cursor is None or len(pages) > 5:
                return pages

    pages = run(transport, walk)
    assert transport.refused == []
    assert [p.next_cursor for p in pages] == ["2", None]
    assert [w.id for p in pages for w in p.results] == ["W9990011", "W9990012", "W9990013"]
    assert sorted(transport.used.values()) == [1, 1]


def test_invented_cursor_mode_walks_to_the_empty_last_page() -> None:
    """OpenAlex's ``next_cursor`` is passed on until a page comes back empty; the dates go
    into the filter as ``from_publication_date``/``to_publication_date``."""
    transport = invented()

    async def walk(client: httpx2.AsyncClient) -> list[openalex.WorksPage]:
        pages: list[openalex.WorksPage] = []
        cursor: str | None = "*"
        while cursor is not None and len(pages) < 5:
            params = openalex.works_params(
                search="invented mulch",
                per_page=2,
                cursor=cursor,
                from_date="2020-01-01",
                to_date="2024-12-31",
            )
            pages.append(await openalex.works(client, params))
            cursor = pages[-1].next_cursor
        return pages

    pages = run(transport, walk)
    assert transport.refused == []
    assert len(pages) == 3 and all(p.count == 3 for p in pages)
    assert [len(p.results) for p in pages] == [2, 1, 0]
    assert pages[0].next_cursor is not None and pages[0].next_cursor.startswith("SW52ZW50ZWRD")
    assert pages[1].next_cursor not in (None, pages[0].next_cursor)
    assert pages[2].next_cursor is None
    assert {w.id for p in pages for w in p.results} == {"W9990011", "W9990012", "W9990013"}


@pytest.mark.parametrize(
    ("kind", "value"), [("doi", "10.5555/invented.oa.target"), ("pmid", "99900001")]
)
def test_invented_lookup_by_external_id(kind: Any, value: str) -> None:
    transport = invented()
    work = run(transport, lambda c: openalex.resolve_work(c, kind, value))
    assert transport.refused == []
    assert work is not None
    assert (work.id, work.doi, work.pmid, work.year) == (
        TARGET,
        "10.5555/invented.oa.target",
        "99900001",
        2018,
    )
    assert work.title == "Irrigation schedules for an invented raised-bed garden"
    assert not work.is_retracted


def test_invented_pmcid_in_openalexs_real_form_becomes_a_pmcid() -> None:
    """OpenAlex writes ``ids.pmcid`` as ``.../pmc/articles/<digits>`` (no ``PMC``); a PMCID
    without its prefix is not one, and would be searched and shown wrongly."""
    work = run(invented(), lambda c: openalex.resolve_work(c, "pmid", "99900001"))
    assert work is not None and work.pmcid == "PMC9990001"


def test_invented_lookup_404_is_none() -> None:
    transport = invented()
    found = run(transport, lambda c: openalex.resolve_work(c, "doi", "10.5555/invented.oa.nosuch"))
    assert found is None and transport.refused == []


def test_invented_lookup_answered_without_a_work_raises() -> None:
    """A 200 that is a list answer rather than one work must not become a work (or None)."""
    with pytest.raises(NetworkError, match="without a work id"):
        run(invented(), lambda c: openalex.resolve_work(c, "pmid", "99900999"))


def test_invented_429_is_unavailable_after_the_retries() -> None:
    transport = invented()
    fake = FakeTime()
    params = openalex.works_params(search="invented busy")

    async def go() -> openalex.WorksPage:
        async with fake_client(transport, fake=fake) as client:
            return await openalex.works(client, params)

    with pytest.raises(UpstreamUnavailableError, match="429 three times"):
        asyncio.run(go())
    assert transport.used == {"openalex-search-busy.429": 3}
    assert fake.sleeps == [1.0, 1.0]


def test_invented_503_and_truncated_answers_raise() -> None:
    """A 503 (after retries) and a body cut short are failures, never an empty page."""
    transport = invented()
    with pytest.raises(UpstreamUnavailableError, match="503"):
        run(transport, lambda c: openalex.works(c, openalex.works_params(cites="W9990503")))
    with pytest.raises(NetworkError, match="not JSON"):
        run(
            transport,
            lambda c: openalex.works(c, openalex.works_params(search="invented truncated")),
        )
    assert transport.refused == []


def test_results_without_a_work_id_are_skipped_and_bare_dois_kept() -> None:
    """Invented, malformed on purpose: entries with no W id (or not objects) are dropped; a
    DOI given without the ``https://doi.org/`` prefix is kept as it is."""
    payload = {
        "meta": {"count": 4, "page": 1, "per_page": 25},
        "results": [
            {"id": "https://openalex.org/A9990001", "display_name": "an author, not a work"},
            {"display_name": "no id"},
            "not an object",
            {
                "id": "https://openalex.org/W9990021",
                "doi": "10.5555/Invented.OA.Bare",
                "title": " ",
            },
        ],
    }
    page = run(answer(payload), lambda c: openalex.works(c, openalex.works_params(search="a")))
    (work,) = page.results
    assert (work.id, work.doi, work.title) == ("W9990021", "10.5555/invented.oa.bare", None)
    assert page.next_cursor is None


def test_lookup_kind_must_be_a_known_one() -> None:
    for kind, value in (("isbn", "1"), ("pmid", "1&2"), ("doi", " ")):
        with pytest.raises(ValueError):
            asyncio.run(openalex.resolve_work(httpx2.AsyncClient(), kind, value))  # type: ignore[arg-type]


def test_an_empty_page_ends_cursor_paging_even_with_a_cursor() -> None:
    """Invented: an empty page that still carries a ``next_cursor`` must end the walk, or a
    caller following cursors would loop on empty pages."""
    payload = {"meta": {"count": 3, "page": None, "next_cursor": "SW52ZW50ZWQ="}, "results": []}
    page = run(
        answer(payload), lambda c: openalex.works(c, openalex.works_params(search="a", cursor="x"))
    )
    assert (page.count, page.results, page.next_cursor) == (3, [], None)
