"""The sources ``citeproof refs`` reads works from, each answer parsed into a ``WorkRecord``:
Crossref (``works/{doi}`` and ``works?query.bibliographic=``), DataCite (``dois/{doi}`` and
``dois?query=``), doi.org's registration-agency look-up, OpenAlex (``works?search=`` and the
DOI/PMID look-up) and PubMed esummary.  Offline throughout.

Real answers first, from ``../shared/corpus`` (skipped, with the reason, without it):
habanero's ``works/{doi}`` records, its 404, and its ``works?query=`` list (replayed under
the ``query.bibliographic`` request citeproof sends: the answer format is the same), the
PLOS retraction notice litcheck recorded, litcheck's OpenAlex works list and its esummary.
The corpus has no DataCite, doi.org ``doiRA`` or bibliographic-query answers, so those (and
the faults) are INVENTED recordings in ``tests/sources/invented/refs-*`` (litcheck pairs
labelled ``INVENTED ... not a real answer``, DOIs under 10.5555/, in each service's real
format), or ``httpx2.MockTransport`` answers written in the test.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

import httpx2
import pytest

from citeproof.errors import NetworkError, UpstreamUnavailableError
from citeproof.models.references import WorkRecord
from citeproof.net.ratelimit import service_for
from citeproof.net.recordings import Recording, load_litcheck
from citeproof.net.replay import ReplayTransport
from citeproof.sources import crossref, datacite, doi, eutils_search, openalex
from citeproof.sources.eutils_search import PubmedSummary
from replay_clients import CORPUS, LITCHECK, built_recording, needs_corpus
from replay_clients import run_with_contact as run

T = TypeVar("T")
INVENTED = Path(__file__).resolve().parent / "invented"
WORK = "https://api.crossref.org/v1/works/{doi}"
PROVIDERS = {
    "crossref": crossref.API_URL,
    "datacite": datacite.API_URL,
    "doiorg": doi.RA_URL,
    "openalex": openalex.BASE_URL,
}


def invented(*names: str) -> ReplayTransport:
    """The named invented recordings (``refs-*`` when no name is given)."""
    metas = (
        [INVENTED / f"{name}.meta.json" for name in names]
        if names
        else sorted(INVENTED.glob("refs-*.meta.json"))
    )
    assert metas, f"no invented refs recordings in {INVENTED}"
    return ReplayTransport([load_litcheck(meta) for meta in metas])


def bare(
    transport: httpx2.AsyncBaseTransport, call: Callable[[httpx2.AsyncClient], Awaitable[T]]
) -> T:
    """``call`` on a plain client: no retries, so the source's own status checks answer."""

    async def go() -> T:
        async with httpx2.AsyncClient(transport=transport) as client:
            return await call(client)

    return asyncio.run(go())


def answering(
    status: int, body: bytes | str, seen: list[httpx2.Request] | None = None
) -> httpx2.MockTransport:
    data = body.encode() if isinstance(body, str) else body

    def handler(request: httpx2.Request) -> httpx2.Response:
        if seen is not None:
            seen.append(request)
        return httpx2.Response(status, content=data)

    return httpx2.MockTransport(handler)


def replayed(recordings: Iterable[Recording]) -> ReplayTransport:
    return ReplayTransport(list(recordings))


# --- the invented recordings themselves -------------------------------------------------------


def test_invented_refs_recordings_are_labelled_and_in_their_services_format() -> None:
    """A fixture that lost its label (or its 10.5555 DOIs) could be mistaken for a real one."""
    metas = sorted(INVENTED.glob("refs-*.meta.json"))
    assert len(metas) >= 17
    for meta_path in metas:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        assert meta["provenance"].startswith("INVENTED for citeproof's tests"), meta_path
        assert meta["provenance"].endswith("not a real answer"), meta_path
        service = meta_path.name.split("-")[1]
        assert meta["url"].startswith(PROVIDERS[service]), meta_path
        assert all(key == key.lower() for key in meta["headers"]), meta_path
        assert "mailto" not in meta["url"] and "email" not in meta["url"], meta_path
        recording = load_litcheck(meta_path)  # verifies body_sha256
        text = recording.body.decode()
        if "json" in recording.headers["content-type"]:
            json.loads(text)
        prefixes = set(re.findall(r"\b10\.[0-9]{4,9}/", text + meta["url"].replace("%2F", "/")))
        assert prefixes <= {"10.5555/"}, meta_path
        works = re.findall(r"openalex\.org/(W[0-9]+)", text)
        assert all(w.startswith("W9990") for w in works), meta_path


# --- Crossref: real recordings ------------------------------------------------------------------


def _habanero(doi_: str) -> Recording:
    name = doi_.replace("/", "-")
    body = (CORPUS / "crossref" / f"habanero-crossref-works-{name}.json").read_bytes()
    return built_recording(name, WORK.format(doi=doi_), body, content_type="application/json")


@needs_corpus
def test_real_crossref_record_carries_what_a_title_less_citation_prints() -> None:
    """Chemistry and physics styles print venue, year, volume and pages, no title: the
    record must carry them (and the venue's other names) to be compared at all."""
    message = json.loads(
        (CORPUS / "crossref" / "habanero-crossref-works-10.1002-jor.1100150407.json").read_bytes()
    )["message"]
    found = crossref.record_from_message(message)
    assert (found.volume, found.issue, found.pages, found.first_page) == (
        "15",
        "4",
        "519-527",
        "519",
    )
    assert found.venue == "Journal of Orthopaedic Research"
    assert found.venue_names == ("Journal Orthopaedic Research",)
    assert found.issn == ("0736-0266", "1554-527X")
    assert found.types == ("journal-article",)


def test_crossref_versions_subtitles_and_original_titles() -> None:
    """INVENTED message: a preprint naming its journal article, with a subtitle and an
    original-language title (a reference may print any of them)."""
    found = crossref.record_from_message(
        {
            "DOI": "10.5555/INVENTED.PREPRINT.1",
            "type": "posted-content",
            "subtype": "preprint",
            "title": ["Compost and worms"],
            "subtitle": ["an invented cohort"],
            "original-title": ["Kompost und Würmer"],
            "relation": {
                "is-preprint-of": [
                    {"id-type": "doi", "id": "https://doi.org/10.5555/Invented.Journal.1"},
                    {"id-type": "uri", "id": "https://example.org/x"},
                ],
                "cites": [{"id-type": "doi", "id": "10.5555/other"}],
            },
        }
    )
    assert found.types == ("posted-content", "preprint")
    assert found.other_titles == ("Compost and worms: an invented cohort", "Kompost und Würmer")
    assert found.related == ("is-preprint-of:doi:10.5555/invented.journal.1",)


@needs_corpus
def test_real_crossref_record_with_typeset_title_and_fifteen_authors() -> None:
    """The J Clin Pathol record's title was deposited with ``<i>`` tags and line breaks."""
    found = run(
        replayed([_habanero("10.1136/jclinpath-2020-206745")]),
        lambda c: crossref.work_record(c, "10.1136/JCLINPATH-2020-206745"),
    )
    assert found is not None
    assert found.title == (
        "Construction of a reference material panel for detecting KRAS / NRAS / EGFR / BRAF /"
        " MET mutations in plasma ctDNA"
    )
    assert found.authors[:3] == ("Xu, Jun", "Qu, Shoufang", "Sun, Nan")
    assert len(found.authors) == 15
    assert (found.year, found.venue, found.kind) == (
        2020,
        "Journal of Clinical Pathology",
        "journal-article",
    )
    assert (found.source, found.doi, found.is_notice) == (
        "crossref",
        "10.1136/jclinpath-2020-206745",
        False,
    )
    assert found.key == "doi:10.1136/jclinpath-2020-206745"


@needs_corpus
def test_real_crossref_record_without_an_issued_year_falls_back_to_created() -> None:
    """IEEE's proceedings record has ``issued: [[null]]`` and no publication dates."""
    found = run(
        replayed([_habanero("10.1109/icdcsw.2003.1203662")]),
        lambda c: crossref.work_record(c, "10.1109/icdcsw.2003.1203662"),
    )
    assert found is not None
    assert found.year == 2004
    assert found.kind == "proceedings-article"
    assert found.authors == ("Arya, V.", "Turletti, T.")
    assert found.venue == (
        "23rd International Conference on Distributed Computing Systems Workshops, 2003."
        " Proceedings."
    )


@needs_corpus
def test_real_crossref_author_without_a_given_name_is_the_family_name() -> None:
    found = run(
        replayed([_habanero("10.3892/ijo_00000353")]),
        lambda c: crossref.work_record(c, "10.3892/ijo_00000353"),
    )
    assert found is not None
    assert found.authors == ("Stravopodis",)
    assert found.year == 2009 and found.venue == "International Journal of Oncology"


@needs_corpus
def test_real_crossref_404_is_none() -> None:
    name = "10.1371/notarealdoi"
    body = (
        CORPUS / "crossref" / "habanero-crossref-works-10.1371-notarealdoi.404.txt"
    ).read_bytes()
    recording = built_recording(
        "404", WORK.format(doi=name), body, status=404, content_type="text/plain"
    )
    assert run(replayed([recording]), lambda c: crossref.work_record(c, name)) is None


@needs_corpus
def test_real_crossref_works_list_read_as_a_bibliographic_answer() -> None:
    """habanero's ``works?query=ecology&rows=2`` answer, served to our bibliographic request:
    a query answer lists items the same way, each with its ``score``."""
    body = (CORPUS / "crossref" / "habanero-crossref-works-query-ecology-rows2.json").read_bytes()
    params = {"query.bibliographic": "ecology", "rows": "2", "select": crossref.SELECT}
    url = crossref.API_URL + "works?" + urlencode(params)
    transport = replayed([built_recording("ecology", url, body, content_type="application/json")])
    found = run(transport, lambda c: crossref.bibliographic(c, "  ecology ", rows=2))
    assert transport.refused == []
    assert [(r.doi, r.title, score) for r, score in found] == [
        ("10.1093/obo/9780199830060-0238", "Communicating Ecology", 11.044969),
        ("10.1093/obo/9780199830060-0023", "Chemical Ecology", 10.913344),
    ]
    first, second = (r for r, _ in found)
    assert first.authors == () and second.authors == ("Kessler, André",)
    assert (first.year, first.venue, first.kind) == (2022, "Ecology", "reference-entry")
    assert second.year == 2012


@needs_corpus
def test_real_retraction_notice_is_a_notice() -> None:
    """The PLOS ONE retraction notice (litcheck's ``works?filter=updates:`` item) names the
    retracted work in ``update-to``: citing it is citing a notice."""
    body = LITCHECK / "crossref-updates-10.1371-journal.pone.0340378.body"
    item = json.loads(body.read_bytes())["message"]["items"][0]
    found = crossref.record_from_message(item)
    assert found.is_notice
    assert found.doi == "10.1371/journal.pone.0351255"
    assert found.title is not None and found.title.lower().startswith("retraction")


# --- Crossref: invented and faults ----------------------------------------------------------------

REFERENCE = (
    "Halloway W, Okonkwo-Reyes T. Seed spacing in an invented allotment. "
    "Invented Journal of Horticulture. 2022;12(3):e0102."
)


def test_invented_bibliographic_search_reads_every_candidate() -> None:
    transport = invented("refs-crossref-biblio-seed-spacing")
    found = run(transport, lambda c: crossref.bibliographic(c, REFERENCE))
    assert transport.refused == []
    assert transport.used == {"refs-crossref-biblio-seed-spacing": 1}
    assert [(r.doi, s) for r, s in found] == [
        ("10.5555/invented.cr.clean", 142.71826),
        ("10.5555/invented.refs.1", 98.05113),
        ("10.5555/invented.refs.2", 41.30077),  # deposited upper case
    ]
    clean, notice, proceedings = (r for r, _ in found)
    assert clean == WorkRecord(
        source="crossref",
        doi="10.5555/invented.cr.clean",
        title="Seed spacing in an invented allotment",
        authors=("Halloway, Wren", "Okonkwo-Reyes, Tamsin"),
        year=2022,
        venue="Invented Journal of Horticulture",
        kind="journal-article",
        types=("journal-article",),
    )
    assert notice.is_notice and notice.authors == () and notice.year == 2023
    assert proceedings.title == "Brassica seed spacing trials in invented allotments"
    assert proceedings.authors == ("Invented Allotment Consortium", "Vries")
    assert proceedings.year == 2021  # issued [[null]]: the created date
    assert not proceedings.is_notice


def test_invented_bibliographic_search_without_matches_is_empty() -> None:
    query = "zzqx invented nowhere qqzz wibble"
    assert (
        run(
            invented("refs-crossref-biblio-nothing"),
            lambda c: crossref.bibliographic(c, query, rows=3),
        )
        == []
    )


def test_bibliographic_request_selects_the_fields_it_reads() -> None:
    seen: list[httpx2.Request] = []
    body = {"status": "ok", "message": {"items": [], "total-results": 0}}
    bare(answering(200, json.dumps(body), seen), lambda c: crossref.bibliographic(c, "a  b\nc"))
    params = seen[0].url.params
    assert params["query.bibliographic"] == "a b c"
    assert params["rows"] == "5"
    # Every field record_from_message reads (a title-less citation is identified by the
    # volume and pages, so a search that left them out could verify nothing), and only
    # fields Crossref's select= accepts ("subtype" is not one: it would be a 400).
    assert params["select"].split(",") == [
        "DOI",
        "title",
        "subtitle",
        "original-title",
        "short-title",
        "author",
        "issued",
        "published-print",
        "published-online",
        "created",
        "container-title",
        "short-container-title",
        "ISSN",
        "volume",
        "issue",
        "page",
        "article-number",
        "type",
        "update-to",
        "relation",
        "score",
    ]
    assert "mailto" not in params  # the client adds it on the wire, not the source


def test_invented_work_record_lookups() -> None:
    """The works/{doi} recordings the notice tests use, read as records: a work, Crossref's
    404, a 503 after the retries and a body cut short."""
    names = [
        "crossref-works-10.5555-invented.cr.clean",
        "crossref-works-10.5555-invented.cr.nosuch",
        "crossref-works-10.5555-invented.cr.down.503",
        "crossref-works-10.5555-invented.cr.truncated",
        "crossref-works-10.5555-invented.cr.retraction-notice",
    ]
    transport = invented(*names)
    found = run(transport, lambda c: crossref.work_record(c, "10.5555/Invented.CR.clean"))
    assert found is not None
    assert found.authors == ("Halloway, Wren", "Okonkwo-Reyes, Tamsin")
    assert (found.year, found.venue) == (2022, "Invented Journal of Horticulture")
    notice = run(
        transport, lambda c: crossref.work_record(c, "10.5555/invented.cr.retraction-notice")
    )
    assert notice is not None and notice.is_notice
    assert run(transport, lambda c: crossref.work_record(c, "10.5555/invented.cr.nosuch")) is None
    with pytest.raises(UpstreamUnavailableError, match="503 three times"):
        run(transport, lambda c: crossref.work_record(c, "10.5555/invented.cr.down"))
    with pytest.raises(NetworkError, match="not JSON"):
        run(transport, lambda c: crossref.work_record(c, "10.5555/invented.cr.truncated"))


@pytest.mark.parametrize(
    ("status", "body", "match"),
    [
        (500, "<html>oops</html>", "HTTP 500"),
        (200, "<html>not json</html>", "not JSON"),
        (200, '{"status": "ok"}', "without a 'message'"),
        (200, '{"status": "ok", "message": {"items": "nope"}}', "without items"),
    ],
)
def test_unreadable_bibliographic_answers_raise(status: int, body: str, match: str) -> None:
    with pytest.raises(NetworkError, match=match):
        bare(answering(status, body), lambda c: crossref.bibliographic(c, REFERENCE))


def test_a_work_record_answered_with_another_doi_is_refused() -> None:
    body = json.dumps({"message": {"DOI": "10.5555/else", "title": ["Else"]}})
    with pytest.raises(NetworkError, match=r"record of 10\.5555/else"):
        bare(answering(200, body), lambda c: crossref.work_record(c, "10.5555/mine"))


def test_crossref_transport_errors_are_network_errors() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    for call in (
        lambda c: crossref.work_record(c, "10.5555/x"),
        lambda c: crossref.bibliographic(c, "a b"),
    ):
        with pytest.raises(NetworkError, match="could not be reached"):
            bare(httpx2.MockTransport(refuse), call)


def test_crossref_bad_arguments_are_refused_before_sending() -> None:
    transport = invented()
    for call in (
        lambda c: crossref.work_record(c, " "),
        lambda c: crossref.bibliographic(c, " \n"),
        lambda c: crossref.bibliographic(c, "a b", rows=0),
        lambda c: crossref.bibliographic(c, "a b", rows=1001),
    ):
        with pytest.raises(ValueError):
            bare(transport, call)
    assert transport.refused == []


# --- DataCite -------------------------------------------------------------------------------------


def test_invented_datacite_dataset_record() -> None:
    """The main title is the one without a ``titleType`` even when a subtitle comes first;
    people are "Family, Given", an organisation its name; with an empty container the
    publisher is the venue."""
    transport = invented()
    found = run(transport, lambda c: datacite.record(c, "10.5555/INVENTED.refs.11 "))
    assert transport.refused == []
    assert found == WorkRecord(
        source="datacite",
        doi="10.5555/invented.refs.11",
        title="Soil moisture in an invented allotment",
        authors=("Halloway, Wren", "Invented Allotment Consortium", "Okonkwo-Reyes, Tamsin"),
        year=2023,
        venue="Invented Data Repository",
        kind="Dataset",
        other_titles=(
            "Soil moisture in an invented allotment: Hourly readings from twelve invented plots",
            "Bodenfeuchte in einem erfundenen Kleingarten",
        ),
        types=("Dataset", "Sensor readings", "dataset"),
    )


def test_invented_datacite_preprint_with_publisher_object_and_container() -> None:
    found = run(invented(), lambda c: datacite.record(c, "10.5555/invented.refs.12"))
    assert found is not None
    assert found.title == "Mulch and Brassica seedlings in invented raised beds"
    assert found.authors == ("de Vries, Anneke",)
    assert found.year == 2021  # publicationYear "2021", a string
    assert found.venue == "Invented Preprint Series"
    assert found.kind == "Preprint"


def test_invented_datacite_404_is_none_and_failures_raise() -> None:
    transport = invented()
    assert run(transport, lambda c: datacite.record(c, "10.5555/invented.refs.13")) is None
    with pytest.raises(UpstreamUnavailableError, match="503 three times"):
        run(transport, lambda c: datacite.record(c, "10.5555/invented.refs.14"))
    with pytest.raises(UpstreamUnavailableError, match=r"HTTP 503"):
        bare(transport, lambda c: datacite.record(c, "10.5555/invented.refs.14"))
    with pytest.raises(UpstreamUnavailableError, match=r"record of 10\.5555/invented\.refs\.12"):
        run(transport, lambda c: datacite.record(c, "10.5555/invented.refs.15"))
    assert transport.refused == []


def test_datacite_search_params_make_a_title_plain_words() -> None:
    """query_string operators and syntax would break the search or change its meaning."""
    params = datacite.search_params('Soil: "moisture" AND (plots) [2023] a/b c-d*?', rows=3)
    assert params == {
        "query": "soil moisture and plots 2023 a b c d",
        "page[size]": "3",
        "sort": "relevance",
        "disable-facets": "true",
        "fields[dois]": datacite.FIELDS,
    }
    for bad in (("  :/ ", 5), ("soil", 0), ("soil", 1001)):
        with pytest.raises(ValueError):
            datacite.search_params(*bad)


def test_invented_datacite_search() -> None:
    transport = invented()
    found = run(transport, lambda c: datacite.search(c, "Soil moisture in an invented allotment:"))
    assert transport.refused == []
    assert transport.used == {"refs-datacite-search-soil-moisture": 1}
    assert [(r.doi, r.title, r.kind) for r in found] == [
        ("10.5555/invented.refs.11", "Soil moisture in an invented allotment", "Dataset"),
        (
            "10.5555/invented.refs.12",
            "Mulch and Brassica seedlings in invented raised beds",
            "Preprint",
        ),
    ]
    assert found[0].authors[0] == "Halloway, Wren" and found[1].venue == "Invented Preprint Series"
    assert run(transport, lambda c: datacite.search(c, "zzqx invented nowhere")) == []


@pytest.mark.parametrize(
    ("status", "body", "match"),
    [
        (500, "<html>oops</html>", "HTTP 500"),
        (400, '{"errors": {"title": "Failed to parse query"}}', "HTTP 400"),
        (200, "<html>not json</html>", "not JSON"),
        (200, '{"errors": [{"status": "500"}]}', "without a data list"),
        (200, "[]", "not an object"),
    ],
)
def test_unreadable_datacite_answers_raise(status: int, body: str, match: str) -> None:
    with pytest.raises(UpstreamUnavailableError, match=match):
        bare(answering(status, body), lambda c: datacite.search(c, "soil moisture"))
    if status == 200 and body.startswith("{"):
        with pytest.raises(UpstreamUnavailableError, match="without a DOI record"):
            bare(answering(status, body), lambda c: datacite.record(c, "10.5555/x"))


def test_datacite_transport_errors_raise() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    with pytest.raises(UpstreamUnavailableError, match="could not be reached"):
        bare(httpx2.MockTransport(refuse), lambda c: datacite.record(c, "10.5555/x"))


def test_datacite_rate_stays_under_the_unidentified_tier() -> None:
    """DataCite allows 500 requests per 5 minutes per IP without identification."""
    service = service_for("https://api.datacite.org/dois/10.5555/x")
    assert service.name == "DataCite"
    assert 300 / service.interval() <= 500
    assert service.interval(api_key=True) == service.interval()


# --- doi.org: which agency registered a DOI ------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "agency"),
    [
        ("10.5555/invented.cr.clean", "Crossref"),
        ("10.5555/invented.refs.11", "DataCite"),
        (" 10.5555/invented.refs.31 ", "mEDRA"),
        ("10.5555/invented.refs.99", None),  # "DOI does not exist"
        ("10.5555invented", None),  # "Invalid DOI"
    ],
)
def test_invented_registration_agency(value: str, agency: str | None) -> None:
    transport = invented()
    assert run(transport, lambda c: doi.registration_agency(c, value)) == agency
    assert transport.refused == []


def test_unknown_registration_agency_is_not_knowing() -> None:
    with pytest.raises(UpstreamUnavailableError, match="Unknown"):
        run(invented(), lambda c: doi.registration_agency(c, "10.5555/invented.refs.98"))


def test_registration_agency_request_encodes_commas_but_not_the_slash() -> None:
    """The service reads a comma as a list of DOIs; doi.org wants the slash as it is."""
    seen: list[httpx2.Request] = []
    body = '[{"DOI": "10.5555/a,b", "RA": "crossref"}]'
    found = bare(answering(200, body, seen), lambda c: doi.registration_agency(c, "10.5555/a,b"))
    assert found == "Crossref"  # the DOI Foundation's spelling, whatever the case answered
    assert seen[0].url.raw_path == b"/doiRA/10.5555/a%2Cb"
    assert seen[0].url.host == "doi.org"


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (404, '[{"DOI": "10.5555/x", "status": "DOI does not exist"}]', None),
        (400, '[{"DOI": "10.5555/x", "status": "Invalid DOI"}]', None),
        (200, '[{"DOI": "10.5555/x", "RA": "JALC"}]', "JaLC"),
        (200, '[{"DOI": "10.5555/x", "RA": "Some New Agency"}]', "Some New Agency"),
    ],
)
def test_registration_agency_answers(status: int, body: str, expected: str | None) -> None:
    assert (
        bare(answering(status, body), lambda c: doi.registration_agency(c, "10.5555/x")) == expected
    )


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (500, "<html>down</html>"),
        (503, '[{"DOI": "10.5555/x", "status": "DOI does not exist"}]'),
        (404, "<html>Not Found</html>"),
        (404, '[{"DOI": "10.5555/x", "RA": "Crossref"}]'),
        (200, "<html>not json</html>"),
        (200, "[]"),
        (200, '{"DOI": "10.5555/x", "RA": "Crossref"}'),
        (200, '[{"DOI": "10.5555/x"}]'),
        (200, '[{"DOI": "10.5555/x", "RA": ""}]'),
    ],
)
def test_registration_agency_failures_raise(status: int, body: str) -> None:
    with pytest.raises(UpstreamUnavailableError, match=r"^doi\.org "):
        bare(answering(status, body), lambda c: doi.registration_agency(c, "10.5555/x"))


def test_registration_agency_through_the_client_stack() -> None:
    """Retried 503s end in UpstreamUnavailableError, never in "the DOI does not exist"."""
    with pytest.raises(UpstreamUnavailableError, match="503 three times"):
        run(answering(503, "busy"), lambda c: doi.registration_agency(c, "10.5555/x"))

    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("refused", request=request)

    with pytest.raises(UpstreamUnavailableError, match="could not be reached"):
        bare(httpx2.MockTransport(refuse), lambda c: doi.registration_agency(c, "10.5555/x"))
    with pytest.raises(ValueError):
        bare(httpx2.MockTransport(refuse), lambda c: doi.registration_agency(c, "  "))


# --- OpenAlex -------------------------------------------------------------------------------------


@needs_corpus
def test_real_openalex_works_read_as_records() -> None:
    """litcheck's real ``works?filter=cites:`` page, served to a record search: the results
    have the fields a search answers (the request's ``select=`` only trims them)."""
    body = (LITCHECK / "openalex-cites-w2474002222.body").read_bytes()
    params = {"search": "arteriosclerosis", "per_page": "5", "select": openalex.RECORD_SELECT}
    url = openalex.BASE_URL + "works?" + urlencode(params)
    transport = replayed([built_recording("oa", url, body, content_type="application/json")])
    found = run(transport, lambda c: openalex.search_records(c, "arteriosclerosis"))
    assert transport.refused == []
    assert len(found) == 5
    first = found[0]
    assert (first.source, first.openalex, first.doi) == (
        "openalex",
        "W3005729285",
        "10.5772/intechopen.91064",
    )
    assert first.title == "Atherosclerosis: A Journey around the Terminology"
    assert first.authors == ("Oladimeji Adebayo", "Abiodun Moshood Adeoye")
    assert (first.year, first.venue, first.kind) == (2020, "IntechOpen eBooks", "book-chapter")
    elsa = next(r for r in found if r.openalex == "W2803327116")
    assert (elsa.pmid, elsa.venue, elsa.kind) == (
        "29791607",
        "Sao Paulo Medical Journal",
        "article",
    )
    assert not any(r.is_notice for r in found)


def test_invented_openalex_search_records() -> None:
    transport = invented()
    found = run(
        transport, lambda c: openalex.search_records(c, "Seed spacing in an invented allotment")
    )
    assert transport.refused == []
    assert transport.used == {"refs-openalex-search-seed-spacing": 1}
    article, erratum, report = found
    assert article == WorkRecord(
        source="openalex",
        doi="10.5555/invented.cr.clean",
        pmid="99900101",
        pmcid="PMC9990101",
        title="Seed spacing in an invented allotment",
        authors=("Wren Halloway", "Tamsin Okonkwo‐Reyes"),  # as OpenAlex prints them
        year=2022,
        venue="Invented Journal of Horticulture",
        kind="article",
        openalex="W9990101",
        issn=("9999-0001",),
        types=("article",),
    )
    assert erratum.is_notice and erratum.kind == "erratum"
    assert erratum.title == "Correction: Seed spacing in an invented allotment"
    assert erratum.venue is None and erratum.authors == ()
    assert report.title == "Seed spacing notes from an invented allotment society"
    assert report.authors == ("Invented Allotment Society",)  # raw_author_name
    assert (report.doi, report.venue, report.key) == (None, None, "openalex:W9990103")


def test_invented_openalex_search_without_results_raises() -> None:
    with pytest.raises(UpstreamUnavailableError, match="without results"):
        run(invented(), lambda c: openalex.search_records(c, "invented broken answer"))


@pytest.mark.parametrize(
    ("status", "body", "match"),
    [(500, "oops", "HTTP 500"), (200, "<html/>", "not JSON"), (200, "[]", "not an object")],
)
def test_unreadable_openalex_searches_raise(status: int, body: str, match: str) -> None:
    with pytest.raises(UpstreamUnavailableError, match=match):
        bare(answering(status, body), lambda c: openalex.search_records(c, "seed spacing"))


def test_invented_openalex_lookup_as_a_record() -> None:
    """The DOI/PMID look-up recordings of the ``citing`` tests, read as records."""
    names = [
        "openalex-resolve-doi-10.5555-invented.oa.target",
        "openalex-resolve-doi-10.5555-invented.oa.nosuch.404",
        "openalex-resolve-pmid-99900001",
    ]
    transport = invented(*names)
    found = run(transport, lambda c: openalex.lookup_record(c, "doi", "10.5555/invented.oa.target"))
    assert found is not None
    assert (found.openalex, found.doi, found.pmid, found.pmcid) == (
        "W9990001",
        "10.5555/invented.oa.target",
        "99900001",
        "PMC9990001",
    )
    assert found.authors == ("Wren Halloway",)
    assert (found.year, found.venue) == (2018, "Invented Journal of Horticulture")
    by_pmid = run(transport, lambda c: openalex.lookup_record(c, "pmid", "99900001"))
    assert by_pmid is not None and by_pmid.openalex == "W9990001"
    nosuch = "10.5555/invented.oa.nosuch"
    assert run(transport, lambda c: openalex.lookup_record(c, "doi", nosuch)) is None
    work = run(transport, lambda c: openalex.resolve_work(c, "doi", "10.5555/invented.oa.target"))
    assert work is not None and work.id == "W9990001"  # the older reader is unchanged
    assert transport.refused == []


def test_openalex_record_from_an_older_answer_uses_host_venue() -> None:
    """Invented, in OpenAlex's pre-2024 shape: ``host_venue`` instead of a source."""
    raw: dict[str, Any] = {
        "id": "https://openalex.org/W9990200",
        "display_name": "An invented <sub>older</sub> work",
        "publication_year": 2015,
        "primary_location": {"source": None},
        "host_venue": {"display_name": "Invented Older Journal"},
        "authorships": [{"author": {"display_name": "Ada Invented"}}, "not an object"],
        "type": "retraction",
    }
    found = openalex.record_from_work(raw)
    assert found is not None
    assert (found.title, found.venue, found.authors) == (
        "An invented older work",
        "Invented Older Journal",
        ("Ada Invented",),
    )
    assert found.is_notice
    assert openalex.record_from_work({"display_name": "no id"}) is None


# --- PubMed esummary ------------------------------------------------------------------------------


def test_real_esummary_summaries_as_records(litcheck: ReplayTransport) -> None:
    """litcheck's esummary (recorded as the GET of our POST's parameters)."""
    pmids = ["28647689", "28302272", "27901176", "27488360", "27236256"]
    summaries = run(litcheck, lambda c: eutils_search.esummary(c, pmids))
    assert litcheck.refused == []
    first = summaries["28647689"].to_record()
    assert first.source == "pubmed" and first.key == "doi:10.1161/jaha.116.005088"
    assert (first.pmid, first.pmcid) == ("28647689", "PMC5669156")
    assert first.authors[:3] == ("Kianoush S", "Yakoob MY", "Al-Rifai M")
    assert len(first.authors) == 10
    assert (first.year, first.kind) == (2017, "Journal Article")
    assert first.venue == "Journal of the American Heart Association"
    assert first.title is not None and first.title.startswith("Associations of Cigarette Smoking")
    assert not first.is_notice
    assert summaries["27488360"].to_record().venue == "Diabetes & vascular disease research"
    # What a title-less citation prints: the NLM abbreviation, volume, issue, pages.
    assert first.venue_names == ("J Am Heart Assoc",)
    assert (first.volume, first.issue, first.pages) == ("6", "6", None)  # pages "", a DOI
    assert first.issn == ("2047-9980",)
    assert first.types == ("Journal Article", "Multicenter Study")


def test_esummary_pages_article_numbers_and_translated_titles() -> None:
    """INVENTED esummary results: pages, an article number in ``elocationid`` where pages
    are empty, and a translated title in PubMed's brackets beside its vernacular title."""
    body = {
        "result": {
            "uids": ["99900701", "99900702"],
            "99900701": {
                "uid": "99900701",
                "title": "Invented mulch trials.",
                "pubdate": "2004",
                "source": "Inv Care Med",
                "fulljournalname": "Invented Care Medicine",
                "volume": "30",
                "issue": "5",
                "pages": "844-52",
                "issn": "0342-4642",
                "essn": "1432-1238",
            },
            "99900702": {
                "uid": "99900702",
                "title": "[Compost and worms].",
                "pubdate": "2019",
                "vernaculartitle": "Kompost und Würmer.",
                "pages": "",
                "elocationid": "pii: e0102. doi: 10.5555/invented.x",
            },
        }
    }
    summaries = bare(
        answering(200, json.dumps(body)),
        lambda c: eutils_search.esummary(c, ["99900701", "99900702"]),
    )
    mulch = summaries["99900701"].to_record()
    assert (mulch.pages, mulch.first_page, mulch.venue_names) == (
        "844-52",
        "844",
        ("Inv Care Med",),
    )
    assert mulch.issn == ("0342-4642", "1432-1238")
    compost = summaries["99900702"].to_record()
    assert compost.pages == "e0102"
    assert compost.other_titles == ("Kompost und Würmer.", "Compost and worms")


def test_invented_esummary_records_and_notices() -> None:
    """A "Retracted Publication" is the retracted work; its "Retraction of Publication" is
    the notice."""
    transport = invented("eutils-search-esummary-mulch-p1")
    pmids = ["99900013", "99900011", "99900012"]
    summaries = run(transport, lambda c: eutils_search.esummary(c, pmids))
    assert transport.refused == []
    retracted = summaries["99900013"].to_record()
    assert retracted.authors == ("Halloway W", "Okonkwo-Reyes T")
    assert retracted.venue == "Invented Journal of Horticulture"
    assert (retracted.year, retracted.doi) == (2019, "10.5555/invented.cr.retracted")
    assert not retracted.is_notice
    notice = summaries["99900012"].to_record()
    assert notice.is_notice and notice.kind == "Retraction of Publication"
    assert summaries["99900011"].authors == ("Halloway W", "Okonkwo-Reyes T")


def test_esummary_venue_falls_back_and_titles_lose_markup() -> None:
    """Invented esummary results: no ``fulljournalname`` (the abbreviation stands), a book
    (only ``booktitle``), a collective author, and a title with HTML."""
    body = {
        "result": {
            "uids": ["99900501", "99900502"],
            "99900501": {
                "uid": "99900501",
                "title": "<i>Brassica</i> spacing in\n invented beds.",
                "pubdate": "2020 Jan",
                "source": "Inv J Hortic",
                "authors": [
                    {"name": "Halloway W", "authtype": "Author"},
                    {"name": "Invented Allotment Consortium", "authtype": "CollectiveName"},
                    {"name": "", "authtype": "Author"},
                ],
                "pubtype": ["Journal Article"],
            },
            "99900502": {
                "uid": "99900502",
                "title": "Invented gardening",
                "pubdate": "2018",
                "source": "",
                "booktitle": "The Invented Garden Book",
                "authors": "not a list",
            },
        }
    }
    summaries = bare(
        answering(200, json.dumps(body)),
        lambda c: eutils_search.esummary(c, ["99900501", "99900502"]),
    )
    first = summaries["99900501"].to_record()
    assert first.title == "Brassica spacing in invented beds."
    assert first.venue == "Inv J Hortic"
    assert first.authors == ("Halloway W", "Invented Allotment Consortium")
    book = summaries["99900502"].to_record()
    assert (book.venue, book.authors, book.kind) == ("The Invented Garden Book", (), None)


def test_pubmed_summary_defaults_keep_older_callers_working() -> None:
    summary = PubmedSummary(pmid="99900601", pub_types=("Published Erratum",))
    record = summary.to_record()
    assert (summary.authors, summary.venue) == ((), None)
    assert record.is_notice and record.key == "pmid:99900601" and record.title is None


def test_openalex_biblio_and_the_versions_it_folds_together() -> None:
    """INVENTED work: OpenAlex folds a preprint and its journal article into one work, each
    a location with its own landing page; the record names the other DOI and venue."""
    found = openalex.record_from_work(
        {
            "id": "https://openalex.org/W9990201",
            "doi": "https://doi.org/10.5555/invented.journal.1",
            "title": "Compost and worms",
            "type": "article",
            "biblio": {"volume": "12", "issue": "3", "first_page": "101", "last_page": "109"},
            "primary_location": {
                "landing_page_url": "https://doi.org/10.5555/invented.journal.1",
                "source": {"display_name": "Invented Soil Journal", "issn": ["9999-0002"]},
            },
            "locations": [
                {
                    "landing_page_url": "https://doi.org/10.5555/Invented.Preprint.1",
                    "source": {"display_name": "Invented Preprint Server"},
                }
            ],
        }
    )
    assert found is not None
    assert (found.volume, found.issue, found.pages, found.first_page) == (
        "12",
        "3",
        "101-109",
        "101",
    )
    assert found.venue_names == ("Invented Preprint Server",)
    assert found.issn == ("9999-0002",)
    assert found.related == ("has-version:doi:10.5555/invented.preprint.1",)
