"""The real retraction cases of the corpus, replayed through ``ReplayTransport``.

* PLOS ONE 10.1371/journal.pone.0340378 (PMC12829825): PMC metadata ``is_retracted: true``
  and a Crossref retraction notice (10.1371/journal.pone.0351255).
* The Lancet, Wakefield et al. 1998 (10.1016/s0140-6736(97)11096-0, PMID 9500320): not in PMC
  (the ID converter says so), Europe PMC "retracted publication", PubMed "Retracted
  Publication" with two RetractionIn links and an ExpressionOfConcernIn link, and the 2010
  retraction notice in Crossref.
* Hviid et al. 2019 (10.7326/M18-2101, PMID 30831578): no notice anywhere recorded.

Recorded requests that citeproof sends differently are replayed under citeproof's request:
PubMed bodies fetched for several PMIDs at once (efetch answers every record it was asked
for; the retraction check picks its own), litcheck's Crossref filter without ``rows`` (the
default page of 20, as its ``items-per-page`` says), tekmeria's DOI in its cited case.
The corpus has no ``works/{doi}`` recording for these works and no PubMed/Europe PMC one
for the PLOS article: those requests are refused by the replay, so those sources are
*failed* — which the assertions check too: a refusal is never turned into "not retracted".
"""

from __future__ import annotations

import asyncio
import hashlib
from datetime import date
from pathlib import Path

import httpx2
import pytest

from citeproof.net.recordings import Recording, load_folder, load_tekmeria
from citeproof.net.replay import ReplayTransport
from citeproof.retraction.status import RetractionReport, SourceReport, retraction_status

TODAY = date(2026, 11, 30)
WAKEFIELD = "10.1016/s0140-6736(97)11096-0"
PLOS = "10.1371/journal.pone.0340378"
EFETCH = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi?db=pubmed&id={}&retmode=xml"
UPDATES = "https://api.crossref.org/v1/works?filter=updates:{}&rows=20"


def built(name: str, url: str, body: bytes, content_type: str) -> Recording:
    return Recording(
        method="GET",
        url=url,
        status=200,
        headers={"content-type": content_type},
        body=body,
        body_sha256=hashlib.sha256(body).hexdigest(),
        date=None,
        name=name,
    )


@pytest.fixture(scope="module")
def transport(corpus: Path) -> ReplayTransport:
    litcheck = [
        r
        for r in load_folder(corpus / "litcheck-fixtures", skip_incomplete=True)
        if not r.name.startswith("crossref-updates-10.1371")
    ]
    plos = corpus / "litcheck-fixtures" / "crossref-updates-10.1371-journal.pone.0340378.body"
    efetch = corpus / "eutils" / "tekmeria-eutils-efetch-pubmed-{}.xml"
    hviid = corpus / "crossref" / "tekmeria-crossref-updates-10.7326-M18-2101.json"
    json_type, xml_type = "application/json", "text/xml"
    return ReplayTransport(
        [
            *litcheck,
            load_tekmeria(corpus / "tekmeria-fixtures" / "a4544e60e3f3b51dfcf9590e.json"),
            built("plos-updates", UPDATES.format(PLOS), plos.read_bytes(), json_type),
            built(
                "efetch-9500320",
                EFETCH.format("9500320"),
                Path(str(efetch).format("30831578_9500320")).read_bytes(),
                xml_type,
            ),
            built(
                "efetch-30831578",
                EFETCH.format("30831578"),
                Path(str(efetch).format("30831578")).read_bytes(),
                xml_type,
            ),
            built(
                "hviid-updates", UPDATES.format("10.7326/m18-2101"), hviid.read_bytes(), json_type
            ),
        ]
    )


def report_for(transport: ReplayTransport, ident: str, **options: object) -> RetractionReport:
    async def main() -> RetractionReport:
        async with httpx2.AsyncClient(transport=transport) as client:
            return await retraction_status(ident, client, rw_db=None, today=TODAY, **options)  # type: ignore[arg-type]

    return asyncio.run(main())


def by_source(report: RetractionReport) -> dict[str, SourceReport]:
    return {s.source: s for s in report.sources}


def test_plos_one_retraction(transport: ReplayTransport) -> None:
    report = report_for(transport, "PMC12829825")
    assert report.status == "RETRACTED"
    assert report.resolved.model_dump() == {"doi": PLOS, "pmid": "41575947", "pmcid": "PMC12829825"}
    s = by_source(report)
    assert (s["pmc"].state, s["pmc"].retracted) == ("answered", True)
    assert s["pmc"].reason == "metadata of PMC12829825.1: is_retracted is true"
    # The notice was found by the filter; works/{doi} was not recorded, so Crossref failed.
    assert s["crossref"].state == "failed" and s["crossref"].retracted is True
    assert "was not recorded" in (s["crossref"].reason or "")
    assert {(n.kind, n.doi, n.source) for n in s["crossref"].notices} == {
        ("retraction", "10.1371/journal.pone.0351255", "publisher"),
        ("retraction", "10.1371/journal.pone.0351255", "retraction-watch"),
    }
    assert s["pubmed"].state == "failed" and s["europepmc"].state == "failed"
    assert s["retractionwatch"].state == "not_asked" and s["retractionwatch"].applicable
    assert report.reason == "retracted according to pmc, crossref."


def test_wakefield_lancet_retraction(transport: ReplayTransport) -> None:
    report = report_for(transport, f"https://doi.org/{WAKEFIELD.upper()}")
    assert report.status == "RETRACTED"
    assert report.resolved.model_dump() == {"doi": WAKEFIELD, "pmid": "9500320", "pmcid": None}
    s = by_source(report)
    assert (s["pmc"].state, s["pmc"].applicable) == ("not_asked", False)
    pubmed = s["pubmed"]
    assert (pubmed.state, pubmed.retracted, pubmed.concern) == ("answered", True, True)
    assert [(n.kind, n.pmid) for n in pubmed.notices] == [
        ("retraction", "15016483"),
        ("retraction", "20137807"),
        ("expression_of_concern", "21971344"),
    ]
    assert pubmed.notices[1].doi == "10.1016/s0140-6736(10)60175-4"
    assert (s["europepmc"].state, s["europepmc"].retracted) == ("answered", True)
    crossref = s["crossref"]
    assert crossref.retracted is True
    assert [(n.kind, n.doi, n.date) for n in crossref.notices] == [
        ("retraction", "10.1016/s0140-6736(10)60175-4", "2010-02-06")
    ]
    assert [n.kind for n in crossref.corrections] == ["correction"]
    assert report.reason == "retracted according to crossref, pubmed, europepmc."


def test_hviid_with_no_notice_is_unverifiable_because_sources_were_missing(
    transport: ReplayTransport,
) -> None:
    report = report_for(
        transport, "10.7326/M18-2101", known={"doi": "10.7326/m18-2101", "pmid": "30831578"}
    )
    assert report.status == "UNVERIFIABLE"
    s = by_source(report)
    assert (s["pubmed"].state, s["pubmed"].retracted, s["pubmed"].concern) == (
        "answered",
        False,
        False,
    )
    assert (s["pmc"].state, s["pmc"].applicable) == ("not_asked", False)
    assert s["crossref"].state == "failed" and s["crossref"].retracted is None
    assert s["europepmc"].state == "failed"
    assert report.reason is not None
    for name in ("crossref failed", "europepmc failed", "retractionwatch was not asked"):
        assert name in report.reason
    assert not any(key.host == "pmc.ncbi.nlm.nih.gov" for key in transport.refused)
