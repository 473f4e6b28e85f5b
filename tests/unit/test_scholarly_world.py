"""The emulated scholarly world (``tests/scholarly_world.py``) answers in the formats
citeproof's own source parsers read.  Every record here is INVENTED (DOIs under the test
prefix 10.5555, PMIDs 9994xxxx)."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from citeproof.net.client import make_client
from citeproof.net.ratelimit import RateLimiter
from citeproof.sources import crossref, datacite, doi, eutils_search, idconv, openalex
from scholarly_world import Person, Work, World, WorldGap

# INVENTED records.
SOIL = Work(
    doi="10.5555/INVENTED.SW.1",
    title="Compost temperature and earthworm density in invented allotments",
    authors=(Person("Halloway", "Wren"), Person("Okonkwo-Reyes", "Tamsin")),
    year=2021,
    month=3,
    venue="Invented Journal of Soil Ecology",
    venue_short="Inv J Soil Ecol",
    volume="4",
    issue="2",
    first_page="101",
    last_page="109",
    pmid="99940001",
    pmcid="PMC99940001",
)
BEES = Work(
    doi="10.5555/invented.sw.2",
    title="Pollinator visits to invented rooftop meadows",
    authors=(Person("Adeyemi", "Folake"),),
    year=2022,
    venue="Invented Urban Ecology",
    volume="9",
    first_page="33",
    last_page="41",
    pub_types=("Journal Article", "Retracted Publication"),
    pmid="99940002",
)
READINGS = Work(
    doi="10.5555/invented.sw.3",
    title="Hourly soil temperature readings from invented allotment plots",
    authors=(Person("Halloway", "Wren"),),
    year=2023,
    publisher="Invented Data Repository",
    kind="dataset",
    agency="DataCite",
    in_openalex=False,
)
NOTICE = Work(
    doi="10.5555/invented.sw.4",
    title="Retraction notice: pollinator visits to invented rooftop meadows",
    year=2024,
    venue="Invented Urban Ecology",
    updates=(("10.5555/invented.sw.2", "retraction"),),
)
WORLD = World([SOIL, BEES, READINGS, NOTICE])


class _NoWait(RateLimiter):
    def reserve(self, key: str, interval: float) -> float:
        return 0.0


def _ask(call: Callable[[httpx2.AsyncClient], Awaitable[Any]], world: World = WORLD) -> Any:
    async def run() -> Any:
        async with make_client(
            transport=world.transport(), limiter=_NoWait(), contact="", api_key=""
        ) as client:
            return await call(client)

    return asyncio.run(run())


def test_doi_org_names_the_agency_or_says_the_doi_does_not_exist() -> None:
    assert _ask(lambda c: doi.registration_agency(c, "10.5555/invented.sw.1")) == "Crossref"
    assert _ask(lambda c: doi.registration_agency(c, "10.5555/invented.sw.3")) == "DataCite"
    assert _ask(lambda c: doi.registration_agency(c, "10.5555/invented.sw.99")) is None


def test_crossref_record_search_and_404() -> None:
    record = _ask(lambda c: crossref.work_record(c, "10.5555/invented.sw.1"))
    assert record.title == SOIL.title and record.year == 2021
    assert record.authors == ("Halloway, Wren", "Okonkwo-Reyes, Tamsin")
    assert record.venue == SOIL.venue and record.doi == "10.5555/invented.sw.1"
    assert _ask(lambda c: crossref.work_record(c, "10.5555/invented.sw.99")) is None
    assert _ask(lambda c: crossref.work_record(c, "10.5555/invented.sw.3")) is None  # DataCite's
    found = _ask(
        lambda c: crossref.bibliographic(
            c, "Halloway W. Compost temperature and earthworm density. 2021;4(2):101-9"
        )
    )
    assert found[0][0].doi == "10.5555/invented.sw.1" and found[0][1] > 0
    assert [s for _, s in found] == sorted((s for _, s in found), reverse=True)
    assert _ask(lambda c: crossref.bibliographic(c, "zzzz qqqq")) == []


def test_crossref_headers_and_the_notice_filter() -> None:
    response = WORLD.handler(
        httpx2.Request("GET", "https://api.crossref.org/v1/works/10.5555/invented.sw.1")
    )
    assert response.headers["x-rate-limit-limit"] == "10"
    assert response.headers["x-rate-limit-interval"] == "1s"
    notices = _ask(lambda c: crossref.notices_about(c, "10.5555/invented.sw.2"))
    assert [(n.notice_doi, n.kind) for n in notices] == [("10.5555/invented.sw.4", "retraction")]
    gone = WORLD.handler(httpx2.Request("GET", "https://api.crossref.org/v1/works/10.5555/x"))
    assert gone.status_code == 404 and gone.content == b"Resource not found."


def test_datacite_record_search_and_404() -> None:
    record = _ask(lambda c: datacite.record(c, "10.5555/invented.sw.3"))
    assert record.title == READINGS.title and record.year == 2023
    assert record.venue == "Invented Data Repository" and record.kind == "Dataset"
    assert _ask(lambda c: datacite.record(c, "10.5555/invented.sw.1")) is None
    found = _ask(lambda c: datacite.search(c, "hourly soil temperature readings"))
    assert [r.doi for r in found] == ["10.5555/invented.sw.3"]
    assert _ask(lambda c: datacite.search(c, "hourly soil temperature zebra")) == []


def test_pubmed_esearch_honours_every_term_and_esummary_reads() -> None:
    def search(term: str) -> Callable[[httpx2.AsyncClient], Awaitable[Any]]:
        return lambda c: eutils_search.esearch(c, eutils_search.esearch_params(term, retmax=5))

    assert _ask(search("compost[tiab] AND earthworm[tiab] AND halloway[au]")).ids == ["99940001"]
    assert _ask(search("compost[tiab] AND adeyemi[au]")).ids == []
    assert _ask(search("meadows[ti] AND 2022[dp]")).ids == ["99940002"]
    assert _ask(search("halloway w[au]")).ids == ["99940001"]
    summaries = _ask(lambda c: eutils_search.esummary(c, ["99940001", "99940002", "99949999"]))
    assert set(summaries) == {"99940001", "99940002"}
    soil = summaries["99940001"].to_record()
    assert soil.title == SOIL.title + "." and soil.authors == ("Halloway W", "Okonkwo-Reyes T")
    assert soil.doi == "10.5555/invented.sw.1" and soil.pmcid == "PMC99940001"
    assert summaries["99940002"].to_record().year == 2022


def test_pubmed_efetch_lists_the_publication_types() -> None:
    from citeproof.sources.pubmed import efetch_records

    records = _ask(lambda c: efetch_records(c, ["99940002"]))
    assert len(records) == 1
    text = str(records[0])
    assert "Retracted Publication" in text


def test_ecitmatch_finds_a_citation_by_its_fields() -> None:
    bdata = "invented journal of soil ecology|2021|4|101|halloway w|key1|\nx|1999|1|1|nobody|key2|"
    answer = WORLD.handler(
        httpx2.Request(
            "GET",
            "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/ecitmatch.cgi",
            params={"db": "pubmed", "retmode": "xml", "bdata": bdata},
        )
    )
    lines = answer.text.splitlines()
    assert lines[0].endswith("|key1|99940001") and lines[1].endswith("|key2|NOT_FOUND")


def test_pmc_id_converter() -> None:
    found = _ask(lambda c: idconv.convert(c, ["PMC99940001", "PMC1"], "pmcid"))
    assert found["PMC99940001"].pmid == "99940001" and found["PMC1"].error


def test_openalex_search_is_an_and_of_the_words_and_select_is_honoured() -> None:
    found = _ask(lambda c: openalex.search_records(c, "Pollinator visit rooftop meadows"))
    # The notice's title holds every word too; the shorter title ranks first (BM25).
    assert [r.doi for r in found] == ["10.5555/invented.sw.2", "10.5555/invented.sw.4"]
    assert found[1].is_notice
    assert found[0].venue == "Invented Urban Ecology" and found[0].authors == ("Folake Adeyemi",)
    assert _ask(lambda c: openalex.search_records(c, "pollinator visits zebra")) == []
    assert _ask(lambda c: openalex.search_records(c, "hourly soil temperature readings")) == []
    work = _ask(lambda c: openalex.lookup_record(c, "doi", "10.5555/invented.sw.1"))
    assert work.pmid == "99940001" and work.pmcid == "PMC99940001"
    assert _ask(lambda c: openalex.lookup_record(c, "doi", "10.5555/invented.sw.99")) is None


def test_a_request_the_world_cannot_answer_raises() -> None:
    with pytest.raises(WorldGap):
        WORLD.handler(httpx2.Request("GET", "https://api.crossref.org/v1/members"))
    with pytest.raises(WorldGap):
        WORLD.handler(httpx2.Request("GET", "https://api.openalex.org/works?sample=5"))


def test_a_search_over_thousands_of_works_is_fast() -> None:
    people = [Person(f"Family{n % 997}", f"Given{n % 89}") for n in range(1000)]
    works = [
        Work(
            doi=f"10.5555/invented.many.{n}",
            title=f"Invented study {n % 313} of topic {n % 71} in setting {n % 29} number {n}",
            authors=(people[n % 1000], people[(n * 7) % 1000]),
            year=1990 + n % 35,
            venue=f"Invented Journal {n % 150}",
            volume=str(n % 60),
            first_page=str(n % 900),
        )
        for n in range(4_000)
    ]
    world = World(works)
    query = (
        "Family5 G, Family35 G. Invented study 5 of topic 5 in setting 5 number 5. "
        "Invented Journal 5. 1995;5:5"
    )
    world.crossref_search(query, 5)
    t0 = time.perf_counter()
    for _ in range(50):
        best, _ = world.crossref_search(query, 5)
        world.openalex_search("invented study topic setting number 5")
    per_search = (time.perf_counter() - t0) / 100
    assert best[0][0].doi == "10.5555/invented.many.5"
    # The index is built once; a search costs well under a millisecond (0.005 s: CI noise).
    assert per_search < 0.005


# --------------------------------------------------------------------------------------------
# The real-data bench's read-back (bench/bench_refs_real.py): how a world's record is read
# from a work's renderings.  Every rendering below is INVENTED, in the evaluation dataset's
# real formats (its CSL styles and its degraded style); each rule failed on the first
# read-back, which ``--world as-read`` keeps.

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bench_refs_real as real  # noqa: E402


def _both(styles: dict[str, str]) -> tuple[Work, Work]:
    rendered = real.Rendered("10.5555/invented.rb", "a2", styles)
    return real.read_back(rendered)[0], real.read_back_as_read(rendered)[0]


def test_a_title_is_found_whatever_apostrophes_each_style_prints() -> None:
    # MLA and APA print the apostrophe curly, the degraded style (Crossref's raw title)
    # straight: the title is found in the degraded style, which gives venue and numbers.
    faithful, old = _both(
        {
            "apa": "Halloway, W., & Reyes, T. (1985). Gardeners’ estimates of invented "
            "compost heat. Invented Journal of Soil Ecology, 70(1), 66–71.",
            "modern-language-association": "Halloway, Wren, and Tamsin Reyes. “Gardeners’ "
            "Estimates of Invented Compost Heat.” Invented Journal of Soil Ecology 70.1 "
            "(1985): 66–71.",
            "degraded_all_authors": "Halloway, Wren, Reyes, Tamsin. Gardeners' estimates of "
            "invented compost heat. Invented Journal of Soil Ecology. 1985. 70. 1. 66-71",
        }
    )
    assert faithful.title == "Gardeners' estimates of invented compost heat"
    assert (faithful.venue, faithful.volume, faithful.issue) == (
        "Invented Journal of Soil Ecology",
        "70",
        "1",
    )
    assert (faithful.first_page, faithful.last_page) == ("66", "71")
    assert faithful.authors[0] == Person("Halloway", "Wren")
    assert not old.venue and not old.volume


def test_venue_and_numbers_come_from_the_title_less_styles_too() -> None:
    # A work rendered only in MLA, ACS and AIP: each prints the venue and numbers.
    faithful, old = _both(
        {
            "modern-language-association": "“Invented Allotment Notes.” Invented Garden "
            "Standard 8.26 (1994): 14–14.",
            "american-chemical-society": "(1) Invented Garden Standard 1994, 8, 14–14.",
            "american-institute-of-physics": "1Invented Garden Standard 8, 14 (1994).",
        }
    )
    assert faithful.venue == "Invented Garden Standard"
    assert (faithful.volume, faithful.issue, faithful.first_page) == ("8", "26", "14")
    assert faithful.year == 1994
    assert not old.venue


def test_the_degraded_fields_are_found_from_the_year_not_counted_from_the_end() -> None:
    # An issue printed "Part 1, No. 2A" holds the separator ". " of the degraded style.
    faithful, old = _both(
        {
            "apa": "Okafor, S. (2000). Invented laser layers. Invented Journal of Applied "
            "Optics, 39(Part 1, No. 2A), 390–392.",
            "modern-language-association": "Okafor, Sade. “Invented Laser Layers.” Invented "
            "Journal of Applied Optics 39.Part 1, No. 2A (2000): 390–392.",
            "degraded_all_authors": "Okafor, Sade. Invented laser layers. Invented Journal of "
            "Applied Optics. 2000. 39. Part 1, No. 2A. 390-392",
        }
    )
    assert (faithful.year, faithful.volume, faithful.issue) == (2000, "39", "Part 1, No. 2A")
    assert faithful.venue == "Invented Journal of Applied Optics"
    assert old.year == 39


def test_a_record_without_a_title_keeps_its_venue_and_numbers() -> None:
    # Some Crossref records have no title: the degraded style prints it empty.
    faithful, old = _both(
        {
            "apa": "Varga, I., & Osei, R. (2002). Invented Journal of Applied Chemistry, "
            "75(1), 149–151.",
            "modern-language-association": "Varga, Ilse, and Ruth Osei. Invented Journal of "
            "Applied Chemistry 75.1 (2002): 149–151.",
            "degraded_all_authors": "Varga, Ilse, Osei, Ruth. . Invented Journal of Applied "
            "Chemistry. 2002. 75. 1. 149-151",
        }
    )
    assert faithful.title == ""
    assert (faithful.venue, faithful.volume, faithful.first_page) == (
        "Invented Journal of Applied Chemistry",
        "75",
        "149",
    )
    assert [p.family for p in faithful.authors] == ["Varga", "Osei"]
    assert not old.venue and old.kind == "book"


def test_the_type_is_unknown_not_book_and_citeproof_reads_no_type() -> None:
    # A book-like work with no venue: the renderings never print Crossref's type.
    faithful, old = _both(
        {
            "apa": "Dunleavy, I. (2005). Towards an invented science of soil.",
            "modern-language-association": "Dunleavy, Ines. “Towards an Invented Science of "
            "Soil.” (2005): n. pag.",
            "degraded_all_authors": "Dunleavy, Ines. Towards an invented science of soil. . "
            "2005. . .",
        }
    )
    assert old.kind == "book"
    assert faithful.kind == ""
    assert (faithful.title, faithful.year, faithful.venue) == (
        "Towards an invented science of soil",
        2005,
        "",
    )
    world = World([faithful])
    record = crossref.record_from_message(world.crossref_message(faithful))
    assert record.kind is None
    assert not record.types


def test_no_date_is_no_year_even_when_the_venue_names_one() -> None:
    # APA prints "(n.d.)": a year-shaped number in the venue's name is no year.
    faithful, old = _both(
        {
            "apa": "Pennisi, S. (n.d.). Invented amplifier notes. 2005 Invented Symposium on "
            "Circuits.",
            "elsevier-without-titles": "[1] S. Pennisi, 2005 Invented Symposium on Circuits.",
            "modern-language-association": "Pennisi, S. “Invented Amplifier Notes.” 2005 "
            "Invented Symposium on Circuits n. pag.",
        }
    )
    assert faithful.year is None
    assert faithful.venue == "2005 Invented Symposium on Circuits"
    assert old.year == 2005


def test_a_chapter_keeps_its_book_and_its_series() -> None:
    # The degraded style prints Crossref's first container title (the book), the CSL
    # styles the series: the real record holds both, and the Crossref answer lists both.
    faithful, old = _both(
        {
            "apa": "Osei, R. (2010). Invented purchase notes. Invented Notes in Computing, 57–66.",
            "modern-language-association": "Osei, Ruth. “Invented Purchase Notes.” Invented "
            "Notes in Computing (2010): 57–66.",
            "degraded_all_authors": "Osei, Ruth. Invented purchase notes. Invented Theory and "
            "Practice III. 2010. . . 57-66",
        }
    )
    assert faithful.venue == "Invented Theory and Practice III"
    assert faithful.other_venues == ("Invented Notes in Computing",)
    assert (faithful.first_page, faithful.last_page) == ("57", "66")
    message = World([faithful]).crossref_message(faithful)
    assert message["container-title"] == [
        "Invented Theory and Practice III",
        "Invented Notes in Computing",
    ]
    assert not old.other_venues
