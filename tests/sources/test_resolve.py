"""The best-available-text chain (``citeproof.loading.chain``), offline.

Every API answer comes from an ``httpx2.MockTransport`` routed by host and path (so a test can
assert which services were *not* asked), on a ``make_client`` client with a fake clock, fake
sleep and a private RateLimiter, so retries cost no time.  Bodies are real corpus recordings
where the corpus has them (the ID converter and PMC Cloud Service answers for PMC13599058 and
for the Wakefield DOI, a PubMed efetch, a ClinicalTrials.gov study, a Europe PMC JATS file, a
real web page standing in for a landing page); every other answer is built here and is small
on purpose.  The SSRF-guarded fetchers (DOI landing page, URL) get an injected resolver and an
inner MockTransport through ``web_options``, as in ``test_doi_web.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from citeproof.identifiers import parse_identifier
from citeproof.loading.chain import Resolution, Step, resolve
from replay_clients import CORPUS, LITCHECK, MISSING, fake_client, tekmeria_replay

S3 = "pmc-oa-opendata.s3.amazonaws.com"
IDCONV = "pmc.ncbi.nlm.nih.gov"
EBI = "www.ebi.ac.uk"
EUTILS = "eutils.ncbi.nlm.nih.gov"
ADDRESSES = {"doi.org": ["104.18.34.10"], "publisher.example.org": ["93.184.215.14"]}
EMPTY_SET = b'<?xml version="1.0" ?>\n<PubmedArticleSet></PubmedArticleSet>\n'
NO_HITS = {"hitCount": 0, "resultList": {"result": []}}

Route = httpx2.Response | Callable[[httpx2.Request], httpx2.Response]


def corpus_bytes(relative: str) -> bytes:
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(MISSING)
    return path.read_bytes()


class Net:
    """A MockTransport answering ``(host, path)`` from routes; records every request."""

    def __init__(self, routes: dict[tuple[str, str], Route], *, by_host_header: bool = False):
        self.routes = routes
        self.asked: list[tuple[str, str]] = []
        self.by_host_header = by_host_header
        self.transport = httpx2.MockTransport(self.handle)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        host = request.headers["host"] if self.by_host_header else request.url.host
        path = request.url.path
        self.asked.append((host, path))
        route = self.routes.get((host, path))
        if route is None:
            raise AssertionError(f"unexpected request {host} {request.url}")
        return route(request) if callable(route) else route

    def hosts(self) -> set[str]:
        return {host for host, _ in self.asked}


async def _resolver(host: str, port: int) -> list[str]:
    try:
        return ADDRESSES[host]
    except KeyError:
        raise OSError(f"no such host {host!r} (test resolver)") from None


def run(
    text: str,
    transport: httpx2.AsyncBaseTransport,
    web: Net | None = None,
) -> Resolution:
    options: dict[str, Any] | None = None
    if web is not None:
        options = {"resolver": _resolver, "transport": web.transport}

    async def go() -> Resolution:
        async with fake_client(transport) as client:
            return await resolve(parse_identifier(text), client, web_options=options)

    return asyncio.run(go())


def kinds(resolution: Resolution) -> list[tuple[str, str]]:
    return [(s.source, s.outcome_kind) for s in resolution.steps]


def idconv_answer(record: dict[str, Any]) -> httpx2.Response:
    return httpx2.Response(200, json={"status": "ok", "records": [record]})


def listing(prefix: str, keys: list[str]) -> bytes:
    contents = "".join(f"<Contents><Key>{k}</Key><Size>1</Size></Contents>" for k in keys)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        f"<Name>pmc-oa-opendata</Name><Prefix>{prefix}</Prefix><KeyCount>{len(keys)}</KeyCount>"
        f"<MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>{contents}</ListBucketResult>"
    ).encode()


# --- PMC serves the text: the first step wins ----------------------------------------------


def _open_access_pmc(jats: bytes) -> dict[tuple[str, str], Route]:
    """Our own bucket answers (not recorded) wrapping the real JATS file of PMC3166277."""
    md5 = hashlib.md5(jats).hexdigest()
    meta = {
        "pmcid": "PMC3166277",
        "version": 1,
        "pmid": 21909999,
        "doi": "10.1000/example.3166277",
        "title": "An open article",
        "is_pmc_openaccess": True,
        "is_manuscript": False,
        "is_retracted": False,
        "license_code": "CC BY",
        "xml_url": f"s3://pmc-oa-opendata/PMC3166277.1/PMC3166277.1.xml?md5={md5}",
    }
    return {
        (S3, "/"): httpx2.Response(
            200, content=listing("PMC3166277.", ["PMC3166277.1/PMC3166277.1.xml"])
        ),
        (S3, "/PMC3166277.1/PMC3166277.1.json"): httpx2.Response(200, json=meta),
        (S3, "/PMC3166277.1/PMC3166277.1.xml"): httpx2.Response(200, content=jats),
    }


def test_pmc_copy_wins_and_later_sources_are_not_asked() -> None:
    jats = corpus_bytes("pmc-jats/PMC3166277.nxml")
    routes = _open_access_pmc(jats)
    routes[(IDCONV, "/tools/idconv/api/v1/articles/")] = idconv_answer(
        {
            "pmcid": "PMC3166277",
            "pmid": 21909999,
            "doi": "10.1000/example.3166277",
            "requested-id": "PMC3166277",
        }
    )
    net = Net(routes)
    result = run("PMC3166277", net.transport)
    assert result.verdict_hint == "ok"
    assert result.fetched is not None and result.fetched.data == jats
    assert (result.served_by, result.fetched.coverage) == ("pmc", "full_text")
    assert kinds(result) == [("idconv", "found"), ("pmc", "fetched")]
    assert result.ids == {
        "pmcid": "PMC3166277",
        "pmid": "21909999",
        "doi": "10.1000/example.3166277",
    }
    assert net.hosts() == {IDCONV, S3}  # no Europe PMC, PubMed or doi.org request
    assert result.reason is None


def test_failed_idconv_is_a_step_and_the_chain_goes_on() -> None:
    routes = _open_access_pmc(corpus_bytes("pmc-jats/PMC3166277.nxml"))
    routes[(IDCONV, "/tools/idconv/api/v1/articles/")] = httpx2.Response(503)
    net = Net(routes)
    result = run("PMC3166277", net.transport)
    assert result.verdict_hint == "ok"
    assert kinds(result) == [("idconv", "unavailable"), ("pmc", "fetched")]
    assert result.steps[0].reason
    # the PMC metadata taught the PMID and DOI the converter could not give
    assert result.ids["pmid"] == "21909999" and result.ids["doi"] == "10.1000/example.3166277"


# --- not open access -> Europe PMC 404 -> the DOI landing page ------------------------------


def _recorded(name: str) -> httpx2.Response:
    return httpx2.Response(200, content=(LITCHECK / f"{name}.body").read_bytes())


def test_not_open_access_falls_through_to_the_landing_page() -> None:
    if not LITCHECK.is_dir():
        pytest.skip(MISSING)
    page = corpus_bytes("html/wikipedia-Duck.html")
    net = Net(
        {
            (IDCONV, "/tools/idconv/api/v1/articles/"): _recorded("idconv-pmcid-pmc13599058"),
            (S3, "/"): _recorded("pmc-list-pmc13599058"),
            (S3, "/PMC13599058.1/PMC13599058.1.json"): _recorded("pmc-meta-pmc13599058.1"),
            (EBI, "/europepmc/webservices/rest/PMC13599058/fullTextXML"): httpx2.Response(404),
        }
    )
    web = Net(
        {
            ("doi.org", "/10.1016/j.amepre.2015.05.001"): httpx2.Response(
                302, headers={"location": "https://publisher.example.org/article/1"}
            ),
            ("publisher.example.org", "/article/1"): httpx2.Response(
                200, content=page, headers={"content-type": "text/html; charset=utf-8"}
            ),
        },
        by_host_header=True,
    )
    result = run("PMC13599058", net.transport, web)
    assert result.verdict_hint == "ok"
    assert result.fetched is not None
    assert (result.served_by, result.fetched.coverage) == ("doi", "page")
    assert result.fetched.data == page
    assert kinds(result) == [
        ("idconv", "found"),
        ("pmc", "not_open_access"),
        ("europepmc", "missing"),
        ("doi", "fetched"),
    ]
    assert result.steps[1].reason == (
        "PMC13599058.1 is in PMC but not open access (licence TDM): its text may not be read here."
    )
    assert result.steps[2].reason == "Europe PMC has no open full text for PMC13599058"
    assert result.ids == {
        "pmcid": "PMC13599058",
        "pmid": "26190806",
        "doi": "10.1016/j.amepre.2015.05.001",
    }
    assert EUTILS not in net.hosts()  # PubMed not asked once the landing page answered


# --- nothing anywhere: not checkable -------------------------------------------------------


def test_everything_missing_is_not_checkable_with_reasons() -> None:
    """The Wakefield DOI: not in PMC (real converter answer), no Europe PMC record, doi.org 404."""
    if not LITCHECK.is_dir():
        pytest.skip(MISSING)
    doi = "10.1016/s0140-6736(97)11096-0"
    net = Net(
        {
            (IDCONV, "/tools/idconv/api/v1/articles/"): _recorded(
                "idconv-doi-10.1016-s0140-6736-97-11096-0"
            ),
            (EBI, "/europepmc/webservices/rest/search"): httpx2.Response(200, json=NO_HITS),
        }
    )
    web = Net({("doi.org", f"/{doi}"): httpx2.Response(404, text="not found")}, by_host_header=True)
    result = run(f"doi:{doi}", net.transport, web)
    assert result.verdict_hint == "not_checkable"
    assert result.fetched is None
    assert kinds(result) == [
        ("idconv", "missing"),
        ("europepmc-search", "missing"),
        ("pmc", "not_asked"),
        ("europepmc", "not_asked"),
        ("doi", "missing"),
        ("pubmed", "not_asked"),
    ]
    assert all(step.reason for step in result.steps)
    assert result.steps[0].reason == "PMC ID converter: Identifier not found in PMC"
    assert result.reason is not None and "no PMID is known" in result.reason
    assert result.ids == {"doi": doi}


# --- a failed read is never "not checkable" ------------------------------------------------


def test_pmc_503_three_times_is_unavailable_even_when_the_rest_is_missing() -> None:
    s3_calls: list[int] = []

    def busy(request: httpx2.Request) -> httpx2.Response:
        s3_calls.append(1)
        return httpx2.Response(503)

    net = Net(
        {
            (IDCONV, "/tools/idconv/api/v1/articles/"): idconv_answer(
                {
                    "pmcid": "PMC1234567",
                    "pmid": 1234567,
                    "doi": "10.1000/gone",
                    "requested-id": "PMC1234567",
                }
            ),
            (S3, "/"): busy,
            (EBI, "/europepmc/webservices/rest/PMC1234567/fullTextXML"): httpx2.Response(404),
            (EUTILS, "/entrez/eutils/efetch.fcgi"): httpx2.Response(200, content=EMPTY_SET),
        }
    )
    web = Net({("doi.org", "/10.1000/gone"): httpx2.Response(404)}, by_host_header=True)
    result = run("PMC1234567", net.transport, web)
    assert len(s3_calls) == 3
    assert result.verdict_hint == "unavailable"
    assert kinds(result) == [
        ("idconv", "found"),
        ("pmc", "unavailable"),
        ("europepmc", "missing"),
        ("doi", "missing"),
        ("pubmed", "missing"),
    ]
    assert result.fetched is None
    assert result.reason is not None and result.reason.startswith("pmc: ")


# --- a PMID with only an abstract ----------------------------------------------------------


def test_pmid_without_full_text_is_served_by_pubmed_as_an_abstract() -> None:
    efetch = corpus_bytes("eutils/tekmeria-eutils-efetch-pubmed-30831578.xml")
    net = Net(
        {
            (IDCONV, "/tools/idconv/api/v1/articles/"): idconv_answer(
                {
                    "pmid": 30831578,
                    "status": "error",
                    "errmsg": "Identifier not found in PMC",
                    "requested-id": "30831578",
                }
            ),
            (EUTILS, "/entrez/eutils/efetch.fcgi"): httpx2.Response(200, content=efetch),
        }
    )
    result = run("PMID 30831578", net.transport)
    assert result.verdict_hint == "ok"
    assert result.fetched is not None
    assert (result.served_by, result.fetched.coverage) == ("pubmed", "abstract")
    assert kinds(result) == [
        ("idconv", "missing"),
        ("pmc", "not_asked"),
        ("europepmc", "not_asked"),
        ("doi", "not_asked"),
        ("pubmed", "fetched"),
    ]
    assert result.ids == {"pmid": "30831578"}


# --- the other identifier kinds ------------------------------------------------------------


def test_nct_goes_to_clinicaltrials_gov() -> None:
    study = corpus_bytes("ctgov-v2/tekmeria-ctgov-v2-NCT04363697.json")
    net = Net(
        {("clinicaltrials.gov", "/api/v2/studies/NCT04363697"): httpx2.Response(200, content=study)}
    )
    result = run("NCT04363697", net.transport)
    assert result.verdict_hint == "ok"
    assert result.served_by == "ctgov"
    assert result.steps == (Step("ctgov", "fetched", None),)
    assert net.hosts() == {"clinicaltrials.gov"}


def test_missing_nct_is_not_checkable() -> None:
    net = Net({("clinicaltrials.gov", "/api/v2/studies/NCT00000000"): httpx2.Response(404)})
    result = run("NCT00000000", net.transport)
    assert result.verdict_hint == "not_checkable"
    assert kinds(result) == [("ctgov", "missing")]


def test_setid_goes_to_openfda() -> None:
    transport = tekmeria_replay()
    result = run("7c4deb97-9966-4c8e-9ba6-bb260b71e130", transport)
    assert result.verdict_hint == "ok"
    assert result.served_by == "openfda"
    assert kinds(result) == [("openfda", "fetched")]
    assert not transport.refused


def test_ppr_goes_to_europe_pmc_full_text() -> None:
    jats = corpus_bytes("europepmc/europepmc-fulltextxml-PMC12585062.xml")
    net = Net(
        {
            (EBI, "/europepmc/webservices/rest/PPR1021553/fullTextXML"): httpx2.Response(
                200, content=jats
            )
        }
    )
    result = run("PPR1021553", net.transport)
    assert result.verdict_hint == "ok"
    assert result.fetched is not None
    assert (result.served_by, result.fetched.identifier) == ("europepmc", "ppr:PPR1021553")
    assert kinds(result) == [("europepmc", "fetched")]


def test_unavailable_ppr_is_unavailable() -> None:
    net = Net({(EBI, "/europepmc/webservices/rest/PPR1/fullTextXML"): httpx2.Response(500)})
    result = run("PPR1", net.transport)
    assert result.verdict_hint == "unavailable"
    assert kinds(result) == [("europepmc", "unavailable")]


def test_url_goes_through_the_guarded_web_fetcher() -> None:
    api = Net({})
    web = Net(
        {
            ("publisher.example.org", "/a"): httpx2.Response(
                200,
                text="<html><body><p>Hello</p></body></html>",
                headers={"content-type": "text/html"},
            )
        },
        by_host_header=True,
    )
    result = run("https://publisher.example.org/a", api.transport, web)
    assert result.verdict_hint == "ok"
    assert result.served_by == "web"
    assert api.asked == []


def test_resolution_is_reported_as_json_friendly_steps() -> None:
    """Steps are plain frozen data: a result can list them without knowing the sources."""
    step = Step("pmc", "not_open_access", "licence TDM")
    assert json.loads(json.dumps(step.__dict__)) == {
        "source": "pmc",
        "outcome_kind": "not_open_access",
        "reason": "licence TDM",
    }
