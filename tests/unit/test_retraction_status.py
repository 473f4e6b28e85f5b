"""The retraction status rules, on synthetic per-source answers, and the orchestration on a
mock transport (fault cases and "every source answered": no recording in the corpus has all
five sources for one work). No network."""

from __future__ import annotations

import asyncio
import json
from datetime import date
from pathlib import Path

import httpx2
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.errors import BadInputError
from citeproof.retraction.status import (
    SOURCES,
    RetractionReport,
    SourceReport,
    decide,
    retraction_status,
)
from citeproof.sources import retractionwatch

TODAY = date(2026, 11, 30)
REPO = Path(__file__).resolve().parents[2]
INVENTED = REPO / "examples" / "retraction-watch-invented.csv"


def answered(
    name: str, *, retracted: bool | None = False, concern: bool | None = False, **extra: object
) -> SourceReport:
    return SourceReport(
        source=name,
        state="answered",
        retracted=retracted,  # type: ignore[arg-type]
        concern=concern,
        **extra,
    )  # type: ignore[arg-type]


def test_all_answered_is_not_retracted_as_of_today() -> None:
    status, as_of, reason = decide([answered(n) for n in SOURCES], TODAY)
    assert (status, as_of) == ("NOT_RETRACTED_AS_OF", TODAY)
    assert reason


def test_not_applicable_sources_do_not_count() -> None:
    reports = [answered(n) for n in SOURCES[1:]] + [
        SourceReport(source="pmc", state="not_asked", applicable=False, reason="no PMCID")
    ]
    assert decide(reports, TODAY)[0] == "NOT_RETRACTED_AS_OF"


@pytest.mark.parametrize("why", ["offline: no request was made", "no snapshot was imported"])
def test_applicable_not_asked_is_unverifiable(why: str) -> None:
    reports = [answered(n) for n in SOURCES[:-1]] + [
        SourceReport(source="retractionwatch", state="not_asked", reason=why)
    ]
    status, as_of, reason = decide(reports, TODAY)
    assert (status, as_of) == ("UNVERIFIABLE", None)
    assert reason is not None and "retractionwatch was not asked" in reason and why in reason


def test_unverifiable_names_the_failed_source() -> None:
    reports = [answered(n) for n in SOURCES if n != "crossref"] + [
        SourceReport(source="crossref", state="failed", reason="Crossref answered HTTP 503")
    ]
    status, _, reason = decide(reports, TODAY)
    assert status == "UNVERIFIABLE"
    assert reason is not None and "crossref failed (Crossref answered HTTP 503)" in reason


def test_retraction_beats_concern_and_failures() -> None:
    reports = [
        SourceReport(source="pmc", state="failed", reason="down"),
        answered("pubmed", concern=True),
        SourceReport(source="crossref", state="failed", retracted=True, reason="half"),
    ]
    status, as_of, reason = decide(reports, TODAY)
    assert (status, as_of) == ("RETRACTED", None)
    assert reason == "retracted according to crossref."
    assert decide(reports[:2], TODAY)[0] == "CONCERN"


def test_no_sources_is_unverifiable() -> None:
    assert decide([], TODAY)[0] == "UNVERIFIABLE"


_states = st.sampled_from(["answered", "failed", "not_asked"])
_flag = st.sampled_from([None, False, True])


@st.composite
def reports(draw: st.DrawFn) -> list[SourceReport]:
    out = []
    for name in draw(st.lists(st.sampled_from(SOURCES), unique=True)):
        state = draw(_states)
        out.append(
            SourceReport(
                source=name,
                state=state,
                applicable=draw(st.booleans()),
                retracted=draw(_flag) if state != "not_asked" else None,
                concern=draw(_flag) if state != "not_asked" else None,
            )
        )
    return out


@given(reports(), st.sampled_from(SOURCES), st.booleans())
def test_a_failed_source_never_yields_not_retracted(
    base: list[SourceReport], name: str, retracted_flag: bool
) -> None:
    failed = SourceReport(
        source=name, state="failed", reason="x", retracted=True if retracted_flag else None
    )
    status = decide([*base, failed], TODAY)[0]
    assert status != "NOT_RETRACTED_AS_OF"


@given(reports(), st.sampled_from(SOURCES), st.sampled_from(["answered", "failed"]))
def test_any_retracted_answer_is_retracted(base: list[SourceReport], name: str, state: str) -> None:
    found = SourceReport(source=name, state=state, retracted=True)  # type: ignore[arg-type]
    assert decide([*base, found], TODAY)[0] == "RETRACTED"


@given(reports())
def test_not_retracted_only_when_everything_applicable_answered(base: list[SourceReport]) -> None:
    status, as_of, _ = decide(base, TODAY)
    if status == "NOT_RETRACTED_AS_OF":
        assert as_of == TODAY
        assert all(
            r.state == "answered" or (r.state == "not_asked" and not r.applicable) for r in base
        )
        assert not any(r.retracted or r.concern for r in base)
    else:
        assert as_of is None


# --- orchestration on a mock transport --------------------------------------------------------

DOI = "10.5555/fine.1"
PMID = "12345678"
EFETCH = f"""<?xml version="1.0"?><PubmedArticleSet><PubmedArticle><MedlineCitation>
<PMID Version="1">{PMID}</PMID><Article><ArticleTitle>A fine paper.</ArticleTitle>
<PublicationTypeList><PublicationType>Journal Article</PublicationType></PublicationTypeList>
</Article><CommentsCorrectionsList><CommentsCorrections RefType="ErratumIn">
<RefSource>J Fine. 2020;1:2. doi: 10.5555/erratum.1.</RefSource><PMID Version="1">23456789</PMID>
</CommentsCorrections></CommentsCorrectionsList></MedlineCitation></PubmedArticle>
</PubmedArticleSet>"""


def fine_handler(calls: list[str], *, fail: str | None = None):  # type: ignore[no-untyped-def]
    def handler(request: httpx2.Request) -> httpx2.Response:
        host, path = request.url.host, request.url.path
        calls.append(f"{host}{path}")
        if fail is not None and fail in host + path:
            return httpx2.Response(503, text="busy")
        if "idconv" in path:
            return httpx2.Response(
                200,
                json={
                    "records": [
                        {
                            "requested-id": DOI,
                            "doi": DOI,
                            "status": "error",
                            "errmsg": "Identifier not found in PMC",
                        }
                    ]
                },
            )
        if host == "www.ebi.ac.uk":
            return httpx2.Response(
                200,
                json={
                    "hitCount": 1,
                    "resultList": {
                        "result": [
                            {
                                "id": PMID,
                                "source": "MED",
                                "pmid": PMID,
                                "doi": DOI,
                                "pubType": "journal article",
                            }
                        ]
                    },
                },
            )
        if host == "api.crossref.org" and path.endswith("/works"):
            return httpx2.Response(200, json={"message": {"total-results": 0, "items": []}})
        if host == "api.crossref.org":
            return httpx2.Response(200, json={"message": {"DOI": DOI, "type": "journal-article"}})
        if "efetch" in path:
            return httpx2.Response(200, text=EFETCH)
        raise AssertionError(f"unexpected request {request.url}")

    return handler


def status_of(identifier: str, handler: object, **options: object) -> RetractionReport:
    async def main() -> RetractionReport:
        async with httpx2.AsyncClient(transport=httpx2.MockTransport(handler)) as client:  # type: ignore[arg-type]
            return await retraction_status(identifier, client, today=TODAY, **options)  # type: ignore[arg-type]

    return asyncio.run(main())


@pytest.fixture
def rw_db(tmp_path: Path) -> Path:
    path = tmp_path / "rw.sqlite3"
    retractionwatch.import_csv(INVENTED, path, as_of=date(2025, 3, 1))
    return path


def test_every_source_answered_gives_not_retracted_as_of(rw_db: Path) -> None:
    calls: list[str] = []
    report = status_of(DOI, fine_handler(calls), rw_db=rw_db)
    assert report.status == "NOT_RETRACTED_AS_OF" and report.as_of == TODAY
    assert report.resolved.model_dump() == {"doi": DOI, "pmid": PMID, "pmcid": None}
    states = {s.source: (s.state, s.applicable) for s in report.sources}
    assert states == {
        "pmc": ("not_asked", False),
        "crossref": ("answered", True),
        "pubmed": ("answered", True),
        "europepmc": ("answered", True),
        "retractionwatch": ("answered", True),
    }
    pubmed = next(s for s in report.sources if s.source == "pubmed")
    assert [(c.kind, c.pmid, c.doi) for c in pubmed.corrections] == [
        ("erratum", "23456789", "10.5555/erratum.1")
    ]
    rw = next(s for s in report.sources if s.source == "retractionwatch")
    assert rw.snapshot_date == date(2025, 3, 1)
    assert calls.count("www.ebi.ac.uk/europepmc/webservices/rest/search") == 1  # asked once
    dumped = report.model_dump(mode="json")
    assert dumped["schema"] == "citeproof.retraction/1"
    assert dumped["as_of"] == "2026-11-30"


@pytest.mark.parametrize("fail", ["api.crossref.org", "efetch", "www.ebi.ac.uk"])
def test_a_failing_service_makes_it_unverifiable(rw_db: Path, fail: str) -> None:
    report = status_of(DOI, fine_handler([], fail=fail), rw_db=rw_db)
    assert report.status == "UNVERIFIABLE"
    assert report.reason is not None and "503" in report.reason


def test_known_ids_skip_the_id_converter(rw_db: Path) -> None:
    calls: list[str] = []
    report = status_of(DOI, fine_handler(calls), rw_db=rw_db, known={"doi": DOI, "pmid": PMID})
    assert not any("idconv" in c for c in calls)
    assert report.status == "NOT_RETRACTED_AS_OF"


def test_without_a_snapshot_it_is_unverifiable(tmp_path: Path) -> None:
    report = status_of(DOI, fine_handler([]), rw_db=tmp_path / "none.sqlite3")
    assert report.status == "UNVERIFIABLE"
    assert report.reason is not None and "snapshot" in report.reason


def test_retraction_watch_alone_can_say_retracted_offline(rw_db: Path) -> None:
    async def main() -> RetractionReport:
        return await retraction_status(
            "10.5555/invented.retracted.1", None, rw_db=rw_db, today=TODAY
        )

    report = asyncio.run(main())
    assert report.status == "RETRACTED"
    offline = [s for s in report.sources if s.reason == "offline: no request was made"]
    assert [s.source for s in offline] == ["pmc", "crossref", "pubmed", "europepmc"]
    (rw,) = [s for s in report.sources if s.source == "retractionwatch"]
    assert rw.notices[0].doi == "10.5555/invented.notice.1"
    assert rw.notices[0].url == "https://example.org/notice/900001"


def test_a_reinstated_paper_is_not_retracted_by_retraction_watch(rw_db: Path) -> None:
    async def main() -> RetractionReport:
        return await retraction_status(
            "10.5555/invented.reinstated.1", None, rw_db=rw_db, today=TODAY
        )

    (rw,) = [s for s in asyncio.run(main()).sources if s.source == "retractionwatch"]
    assert rw.retracted is False
    assert rw.reason is not None and "reinstated" in rw.reason
    assert [n.kind for n in rw.notices] == ["retraction"]


def test_id_converter_failure_makes_dependent_sources_fail(rw_db: Path) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        if "idconv" in request.url.path or request.url.host == "www.ebi.ac.uk":
            return httpx2.Response(500, text="oops")
        if request.url.host == "api.crossref.org" and request.url.path.endswith("/works"):
            return httpx2.Response(200, json={"message": {"total-results": 0, "items": []}})
        return httpx2.Response(200, json={"message": {"DOI": DOI}})

    report = status_of(DOI, handler, rw_db=rw_db)
    states = {s.source: s.state for s in report.sources}
    assert states["pmc"] == "failed" and states["pubmed"] == "failed"
    assert states["crossref"] == "answered"
    assert report.status == "UNVERIFIABLE"


@pytest.mark.parametrize("ident", ["NCT01234567", "https://example.org/x"])
def test_only_works_with_a_doi_pmid_or_pmcid(ident: str) -> None:
    with pytest.raises(BadInputError):
        status_of(ident, fine_handler([]), rw_db=None)


def test_report_json_round_trips() -> None:
    report = status_of(DOI, fine_handler([]), rw_db=None)
    again = RetractionReport.model_validate(json.loads(report.model_dump_json()))
    assert again == report


def pmid_not_in_pmc(efetch: str, otherwise: httpx2.Response) -> object:
    """The ID converter says PMID is not in PMC, PubMed answers ``efetch``, the rest
    ``otherwise``."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        if "idconv" in request.url.path:
            record = {"requested-id": PMID, "status": "error", "errmsg": "not found in PMC"}
            return httpx2.Response(200, json={"records": [record]})
        if "efetch" in request.url.path:
            return httpx2.Response(200, text=efetch)
        return otherwise

    return handler


def test_not_in_pmc_does_not_mean_no_doi(rw_db: Path) -> None:
    """The ID converter says a PMID is not in PMC and Europe PMC fails: the DOI is unknown,
    not absent, so Crossref failed (not "does not apply"); PMC does not apply."""

    handler = pmid_not_in_pmc(EFETCH, httpx2.Response(502, text="bad gateway"))
    report = status_of(f"PMID {PMID}", handler, rw_db=rw_db)
    s = {r.source: r for r in report.sources}
    assert (s["pmc"].state, s["pmc"].applicable) == ("not_asked", False)
    assert s["crossref"].state == "failed"
    assert "DOI could not be resolved" in (s["crossref"].reason or "")
    assert "None" not in (s["crossref"].reason or "")
    assert s["pubmed"].state == "answered"
    assert report.status == "UNVERIFIABLE"


# --- a malformed or empty answer is a failed source, never "not retracted" (issue 13) ---------

PMCID = "PMC7654321"
MISSING = object()  # "leave is_retracted out of the metadata"
LISTING = f"""<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>pmc-oa-opendata</Name>
<Prefix>{PMCID}.</Prefix><IsTruncated>false</IsTruncated>
<Contents><Key>{PMCID}.1/{PMCID}.1.json</Key></Contents></ListBucketResult>"""


def in_pmc_handler(
    *,
    efetch: str = EFETCH,
    epmc_hits: int = 1,
    is_retracted: object = False,
) -> object:
    """Invented answers for a work in PMC (DOI, PMID and PMCID all known to the ID converter),
    with one of them spoilt by the test."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        host, path = request.url.host, request.url.path
        if "idconv" in path:
            record = {"requested-id": DOI, "doi": DOI, "pmid": PMID, "pmcid": PMCID}
            return httpx2.Response(200, json={"records": [record]})
        if host.endswith("s3.amazonaws.com") and path == "/":
            return httpx2.Response(200, text=LISTING)
        if host.endswith("s3.amazonaws.com"):
            meta: dict[str, object] = {"pmcid": PMCID, "version": 1, "doi": DOI}
            if is_retracted is not MISSING:
                meta["is_retracted"] = is_retracted
            return httpx2.Response(200, json=meta)
        if host == "www.ebi.ac.uk":
            hit = {"id": PMID, "source": "MED", "pmid": PMID, "pmcid": PMCID, "doi": DOI}
            results = [hit] if epmc_hits else []
            return httpx2.Response(
                200, json={"hitCount": epmc_hits, "resultList": {"result": results}}
            )
        if "efetch" in path:
            return httpx2.Response(200, text=efetch)
        return crossref(request)  # Crossref answers as for the work not in PMC

    crossref = fine_handler([])
    return handler


def test_a_work_in_pmc_with_every_answer_well_formed_is_not_retracted(rw_db: Path) -> None:
    report = status_of(DOI, in_pmc_handler(), rw_db=rw_db)
    assert report.status == "NOT_RETRACTED_AS_OF"
    assert {s.source: s.state for s in report.sources}["pmc"] == "answered"


@pytest.mark.parametrize(
    ("spoilt", "source", "why"),
    [
        ({"efetch": ""}, "pubmed", "empty"),
        (
            {"efetch": '<?xml version="1.0"?><PubmedArticleSet></PubmedArticleSet>'},
            "pubmed",
            f"no record for PMID {PMID}",
        ),
        ({"epmc_hits": 0}, "europepmc", f"in PMC as {PMCID}"),
        ({"is_retracted": MISSING}, "pmc", "no is_retracted boolean"),
        ({"is_retracted": "yes"}, "pmc", "no is_retracted boolean"),
        ({"is_retracted": 0}, "pmc", "no is_retracted boolean"),
        ({"is_retracted": None}, "pmc", "no is_retracted boolean"),
    ],
)
def test_an_empty_or_malformed_answer_is_a_failed_source(
    rw_db: Path, spoilt: dict[str, object], source: str, why: str
) -> None:
    """Each of these once counted as "not retracted": an empty 200, an empty PubmedArticleSet
    for a PMID the ID converter resolved, Europe PMC hitCount 0 for a work PMC lists, PMC
    metadata whose is_retracted is missing or not a JSON boolean."""
    report = status_of(DOI, in_pmc_handler(**spoilt), rw_db=rw_db)  # type: ignore[arg-type]
    s = {r.source: r for r in report.sources}
    assert s[source].state == "failed", s[source]
    assert why in (s[source].reason or "")
    assert report.status == "UNVERIFIABLE"
    assert report.as_of is None


def test_an_unresolved_pmid_with_no_pubmed_record_is_an_answer(rw_db: Path) -> None:
    """No resolver vouched for the PMID the user typed: PubMed having no such record is its
    answer (the PMID does not exist), not a failure."""
    empty = '<?xml version="1.0"?><PubmedArticleSet></PubmedArticleSet>'
    no_hits = httpx2.Response(200, json={"hitCount": 0, "resultList": {"result": []}})
    handler = pmid_not_in_pmc(empty, no_hits)  # Europe PMC has no record either
    report = status_of(f"PMID {PMID}", handler, rw_db=rw_db)
    s = {r.source: r for r in report.sources}
    assert s["pubmed"].state == "answered"
    assert "no record" in (s["pubmed"].reason or "")
