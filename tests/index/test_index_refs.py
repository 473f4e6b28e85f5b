"""``citeproof refs`` answered by a local index: the same validation and verdicts as the web
path, the web asked only for what the index does not hold, and never with ``--offline``.

The index is the one built from the INVENTED dumps (``conftest.built``); the client refuses
every request, so a test fails if anything reaches the network it should not.
"""

from __future__ import annotations

import asyncio
from datetime import date
from pathlib import Path
from typing import Any

import httpx2
import pytest

from citeproof.models.references import ReferenceResult
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.lookup import Sources
from citeproof.refs.verification import Retraction, verify_all


class _NoNetwork(httpx2.AsyncBaseTransport):
    def __init__(self) -> None:
        self.asked: list[str] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.asked.append(str(request.url))
        raise httpx2.ConnectError("no network in this test", request=request)


def _verify(
    built: Path, texts: list[str], *, network: bool, retraction: Retraction | None = None
) -> tuple[list[ReferenceResult], list[str]]:
    from citeproof.index.query import open_index

    transport = _NoNetwork()
    stated = [parse_reference_string(t) for t in texts]

    async def run() -> list[ReferenceResult]:
        async with httpx2.AsyncClient(transport=transport) as client:
            sources = Sources(index=open_index(built), network=network)
            return await verify_all(client, stated, retraction=retraction, sources=sources)

    return asyncio.run(run()), transport.asked


WORK_1 = (
    "Müller K, Okafor C. Compost temperature and earthworm density in invented allotments. "
    "J Invent Soil Ecol. 2019;12:101-109."
)


def test_a_doi_the_index_holds_is_verified_without_a_request(built: Path) -> None:
    (r,), asked = _verify(built, [WORK_1 + " doi:10.5555/invented.idx.1"], network=True)
    assert asked == []
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.identifier == "doi:10.5555/invented.idx.1"
    assert [a.service for a in r.asked] == ["index"]
    digest = r.asked[0].responses[0]
    assert digest.method == "INDEX" and digest.url.startswith("citeproof-index:")


def test_a_search_the_index_answers_verifies_without_a_request(built: Path) -> None:
    (r,), asked = _verify(built, [WORK_1], network=True)
    assert asked == []
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.identifier == "doi:10.5555/invented.idx.1"


def test_what_the_index_does_not_hold_goes_to_the_web(built: Path) -> None:
    text = "Quill P. Moonlight pruning of invented apple trees. Inv Orchard J. 2022;3:1-9."
    (r,), asked = _verify(built, [text], network=True)
    assert asked  # the index held nothing: the services were asked (and failed here)
    assert r.verdict == "unavailable"  # a failed service is never "not found"


def test_offline_the_index_alone_answers_and_names_what_it_holds(built: Path) -> None:
    text = "Quill P. Moonlight pruning of invented apple trees. Inv Orchard J. 2022;3:1-9."
    (r,), asked = _verify(built, [text], network=False)
    assert asked == []
    assert r.verdict == "not_found", r.reason
    assert "The local index holds" in r.reason and "is not in it" in r.reason
    # the works found, then their other databases' records (none validated): the index alone
    assert {a.service for a in r.asked} == {"index"}
    assert "No record in index matches" in r.reason


def test_offline_the_index_is_asked_the_whole_reference(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index's question read the reference string when it ran, after the offline path
    had emptied it for the web services: offline, the index was asked the parsed fields
    alone, and an entry without a parsed title was refused as an empty search."""
    from citeproof.index.query import LocalIndex
    from citeproof.refs.lookup import bibliographic_string

    texts: list[str | None] = []
    original = LocalIndex.search

    def spy(self: LocalIndex, text: str | None = None, **fields: Any) -> Any:
        texts.append(text)
        return original(self, text, **fields)

    monkeypatch.setattr(LocalIndex, "search", spy)
    (r,), asked = _verify(built, [WORK_1], network=False)
    assert asked == [] and r.verdict == "verified", r.reason
    assert texts == [bibliographic_string(parse_reference_string(WORK_1))]


def test_offline_an_identifier_the_index_lacks_is_never_unresolvable(built: Path) -> None:
    (r,), asked = _verify(built, ["Quill P. An entry. doi:10.5555/invented.idx.999"], network=False)
    assert asked == []
    assert r.verdict == "unavailable", r.reason
    assert r.identifiers[0].exists is None


@pytest.mark.parametrize("network", [True, False])
def test_the_same_verdict_as_the_web_path_for_another_works_doi(built: Path, network: bool) -> None:
    """A real DOI on the wrong work: mismatch, from the index's record, as from Crossref's."""
    text = (
        "Lindqvist A. Rainwater harvesting for invented urban gardens. Invented Urban "
        "Horticulture. 2020;7:55-61. doi:10.5555/invented.idx.1"
    )
    (r,), asked = _verify(built, [text], network=network)
    assert asked == []
    assert r.verdict == "mismatch", r.reason
    assert r.suggested is not None and r.suggested.identifier == "doi:10.5555/invented.idx.2"


def test_a_retraction_the_index_holds_is_reported_with_its_date(built: Path) -> None:
    """The retraction status of a matched work comes from the index too: one more source,
    with the date of the dumps it read (offline, the web's sources are not asked)."""
    text = (
        "Lindqvist A. Rainwater harvesting for invented urban gardens. Invented Urban "
        "Horticulture. 2020;7:55-61. doi:10.5555/invented.idx.2"
    )
    ask = Retraction(rw_db=None, today=date(2026, 12, 1))
    (r,), asked = _verify(built, [text], network=False, retraction=ask)
    assert asked == []
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.retraction == "RETRACTED"
    assert r.retracted and "retracted according to index" in (r.work.retraction_reason or "")


def test_building_leaves_the_csv_field_limit_as_it_was(built: Path) -> None:
    """The limit is process-wide: an index build that raised it for good made the Retraction
    Watch import accept a field it refuses (its own test failed after the index's ran)."""
    import csv

    assert csv.field_size_limit() == 131072  # the csv module's default


class _OneWorkTwoRecords:
    """An index holding one INVENTED work as two databases spell it: its search gives the
    work once, as OpenAlex's record, whose author list is not the one the entry cites (a
    consortium in place of its members); Crossref's record names them."""

    def __init__(self) -> None:
        from citeproof.models.references import WorkRecord

        common = {
            "doi": "10.5555/invented.two.1",
            "title": "Slug counts in invented cabbage rows after a wet spring",
            "year": 2021,
            "venue": "Journal of Invented Horticulture",
            "volume": "4",
            "pages": "10-19",
        }
        self.openalex = WorkRecord(
            source="openalex", openalex="W99", authors=("Invented Slug Consortium",), **common
        )
        self.crossref = WorkRecord(source="crossref", authors=("Brannigan, Orla",), **common)
        self.asked: list[str] = []

    def by_identifier(self, kind: str, value: str) -> list[Any]:
        self.asked.append(f"{kind}:{value}")
        return [self.crossref, self.openalex] if value == "10.5555/invented.two.1" else []

    def search(self, text: str | None = None, **fields: Any) -> list[tuple[Any, float]]:
        return [(self.openalex, 12.0)]

    @property
    def manifest(self) -> Any:
        return type("Manifest", (), {"hash": "0" * 64})()

    def coverage_phrase(self) -> str:
        return "OpenAlex 2026 + Crossref 2026"

    def notices(self, key: str) -> list[Any]:
        return []


def test_the_other_databases_records_of_a_work_found_are_compared_too() -> None:
    """The search gives each work once, as its best-scoring record; when that record does
    not validate, the work's other records are asked, as the web path asks OpenAlex's
    record after Crossref's.  (The entry matched OpenAlex's record on everything but the
    authors: partial, where Crossref's record verifies it.)"""
    index = _OneWorkTwoRecords()
    text = (
        "Brannigan O. Slug counts in invented cabbage rows after a wet spring. "
        "J Invent Hortic. 2021;4:10-19."
    )

    async def run() -> list[ReferenceResult]:
        async with httpx2.AsyncClient(transport=_NoNetwork()) as client:
            sources = Sources(index=index, network=False)
            return await verify_all(
                client, [parse_reference_string(text)], retraction=None, sources=sources
            )

    (r,) = asyncio.run(run())
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.source == "crossref"
    assert [a.service for a in r.asked] == ["index", "index"]
    assert index.asked == ["doi:10.5555/invented.two.1"]
