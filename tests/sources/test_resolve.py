"""The best-available-text chain (``citeproof.loading.chain``), offline.

Two kinds of test, both with a ``make_client`` client on a fake clock, fake sleep and a private
RateLimiter, so retries cost no time:

* On INVENTED recordings (``tests/sources/invented/chain-*``, plus the ``pubmed-*``,
  ``ctgov-*`` and ``openfda-*`` ones of ``test_pubmed_ctgov_openfda.py``): litcheck pairs
  written for these tests in each service's real format (ID converter JSON, PMC Cloud Service
  listings and metadata, JATS, Europe PMC search JSON, efetch XML, doi.org redirects and a
  publisher page), every one labelled "INVENTED ... not a real answer".  They are replayed by
  ``ReplayTransport``, which refuses any request it was not given: a source asked out of turn
  fails the test.  The small error answers a test needs (a 503, a 429, an empty set) are built
  in the test and are invented too.  These tests need nothing outside the repository.
* On real corpus recordings where the corpus has them (the ID converter and PMC Cloud Service
  answers for PMC13599058 and for the Wakefield DOI, a PubMed efetch, a ClinicalTrials.gov
  study, a Europe PMC JATS file, a real web page standing in for a landing page), with every
  other answer built here, small on purpose; each API answer comes from an
  ``httpx2.MockTransport`` routed by host and path (so a test can assert which services were
  *not* asked).  These skip when ``../shared/corpus`` is absent.

The SSRF-guarded fetchers (DOI landing page, URL) get an injected resolver and an inner
transport (a MockTransport or a ReplayTransport keyed on the Host header) through
``web_options``, as in ``test_doi_web.py``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from citeproof.documents import parse
from citeproof.identifiers import parse_identifier
from citeproof.loading.chain import Resolution, Step, resolve
from citeproof.net.recordings import META_SUFFIX, Recording, load_litcheck
from citeproof.net.replay import ReplayTransport
from replay_clients import (
    CORPUS,
    LITCHECK,
    MISSING,
    built_recording,
    fake_client,
    tekmeria_replay,
)

S3 = "pmc-oa-opendata.s3.amazonaws.com"
IDCONV = "pmc.ncbi.nlm.nih.gov"
EBI = "www.ebi.ac.uk"
EUTILS = "eutils.ncbi.nlm.nih.gov"
ADDRESSES = {
    "doi.org": ["104.18.34.10"],
    "publisher.example.org": ["93.184.215.14"],
    "journals.example.org": ["93.184.215.15"],
}
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


# =============================================================================================
# Invented recordings (tests/sources/invented): the whole chain, no corpus needed.

INVENTED = Path(__file__).resolve().parent / "invented"
IDCONV_URL = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/"
EFETCH_URL = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi"
EPMC_URL = "https://www.ebi.ac.uk/europepmc/webservices/rest/"
BUCKET_URL = "https://pmc-oa-opendata.s3.amazonaws.com"
LANDING_12 = "https://journals.example.org/article/invented-chain-12"
EMPTY_EFETCH = (
    b'<?xml version="1.0" ?>\n<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, '
    b'1st January 2025//EN" "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">\n'
    b"<PubmedArticleSet></PubmedArticleSet>\n"
)

#: The open-access paper PMC99920011, as the PMC Cloud Service serves it.
PMC_11 = (
    "chain-idconv-pmcid-pmc99920011",
    "chain-pmc-list-pmc99920011",
    "chain-pmc-meta-pmc99920011.1",
)
#: PMC99920012: in PMC under a TDM licence only (an author manuscript), not open access.
PMC_12 = (
    "chain-idconv-pmcid-pmc99920012",
    "chain-pmc-list-pmc99920012",
    "chain-pmc-meta-pmc99920012.1",
)


def invented(*names: str, extra: Iterable[Recording] = ()) -> ReplayTransport:
    """A replay of exactly the named invented recordings and ``extra``; refuses the rest."""
    loaded = [load_litcheck(INVENTED / f"{name}{META_SUFFIX}") for name in names]
    return ReplayTransport([*loaded, *extra])


def body_of(name: str) -> bytes:
    return (INVENTED / f"{name}.body").read_bytes()


def answer(url: str, status: int, body: bytes = b"", *, media: str = "text/plain") -> Recording:
    """A small invented answer built in the test (an outage, a 404, an empty set)."""
    return built_recording(f"built-{status}", url, body, status=status, content_type=media)


def replayed(text: str, api: ReplayTransport, web: ReplayTransport | None = None) -> Resolution:
    """Resolve ``text`` with the API sources on ``api`` and the guarded web fetchers on
    ``web`` (an empty replay when not given: any web request fails the test)."""
    web = web if web is not None else ReplayTransport([])
    options = {"resolver": _resolver, "transport": web}

    async def go() -> Resolution:
        async with fake_client(api) as client:
            return await resolve(parse_identifier(text), client, web_options=options)

    result = asyncio.run(go())
    assert api.refused == [] and web.refused == []  # nothing was asked out of turn
    return result


def reasons(resolution: Resolution) -> dict[str, str | None]:
    return {s.source: s.reason for s in resolution.steps}


def test_invented_chain_recordings_are_labelled_and_hash_true() -> None:
    """Every chain- recording says it is invented and its body matches its sha256."""
    metas = sorted(INVENTED.glob(f"chain-*{META_SUFFIX}"))
    assert len(metas) >= 30
    for meta in metas:
        record = json.loads(meta.read_text(encoding="utf-8"))
        assert record["provenance"].startswith("INVENTED for citeproof's tests"), meta.name
        assert record["provenance"].endswith("not a real answer"), meta.name
        load_litcheck(meta)


# --- the first link that serves wins ---------------------------------------------------------


def test_invented_open_access_pmc_copy_wins() -> None:
    api = invented(*PMC_11, "chain-pmc-xml-pmc99920011.1")
    result = replayed("PMC99920011", api)
    assert result.verdict_hint == "ok" and result.reason is None
    assert kinds(result) == [("idconv", "found"), ("pmc", "fetched")]
    fetched = result.fetched
    assert fetched is not None
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == (
        "pmc",
        "full_text",
        "application/xml",
    )
    assert fetched.data == body_of("chain-pmc-xml-pmc99920011.1")
    assert (fetched.md5_ok, fetched.version, fetched.licence) == (True, "PMC99920011.1", "CC BY")
    assert fetched.identifier == "pmcid:PMC99920011"
    assert "made 40% fewer charting errors" in parse(fetched.data).text
    assert result.ids == {
        "pmcid": "PMC99920011",
        "pmid": "99920011",
        "doi": "10.5555/invented.chain.11",
    }
    assert api.unused() == []  # and (replayed) nothing else: no Europe PMC, doi.org or PubMed


def test_invented_doi_with_a_pmcid_skips_the_europe_pmc_lookup() -> None:
    """Asking Europe PMC's search once a PMCID is known is refused by the replay."""
    doi = "10.5555/invented.chain.11"
    converted = answer(
        f"{IDCONV_URL}?ids={doi.replace('/', '%2F')}&idtype=doi&format=json",
        200,
        json.dumps(
            {
                "status": "ok",
                "records": [
                    {"pmcid": "PMC99920011", "pmid": 99920011, "doi": doi, "requested-id": doi}
                ],
            }
        ).encode(),
        media="application/json",
    )
    api = invented(*PMC_11[1:], "chain-pmc-xml-pmc99920011.1", extra=[converted])
    result = replayed("https://doi.org/10.5555/INVENTED.CHAIN.11", api)
    assert kinds(result) == [("idconv", "found"), ("pmc", "fetched")]
    assert result.ids == {"doi": doi, "pmcid": "PMC99920011", "pmid": "99920011"}


def test_invented_failed_id_converter_is_a_step_and_pmc_metadata_teaches_the_ids() -> None:
    """A converter outage is recorded, the chain goes on, and the PMC metadata fills the ids."""
    busy = answer(f"{IDCONV_URL}?ids=PMC99920011&idtype=pmcid&format=json", 503)
    api = invented(*PMC_11[1:], "chain-pmc-xml-pmc99920011.1", extra=[busy])
    result = replayed("PMC99920011", api)
    assert result.verdict_hint == "ok"
    assert kinds(result) == [("idconv", "unavailable"), ("pmc", "fetched")]
    assert "answered 503 three times" in (result.steps[0].reason or "")
    assert api.used["built-503"] == 3
    assert result.ids == {
        "pmcid": "PMC99920011",
        "pmid": "99920011",
        "doi": "10.5555/invented.chain.11",
    }
    assert result.reason is None  # a served text's remark only, not the failed lookup


def _tampered_xml() -> Recording:
    """The PMC XML file with one word changed: its md5 no longer matches the metadata."""
    data = body_of("chain-pmc-xml-pmc99920011.1").replace(b"40% fewer", b"50% fewer")
    return answer(
        f"{BUCKET_URL}/PMC99920011.1/PMC99920011.1.xml", 200, data, media="binary/octet-stream"
    )


def test_invented_md5_mismatch_falls_through_to_europe_pmc() -> None:
    api = invented(*PMC_11, "chain-epmc-fulltext-pmc99920011", extra=[_tampered_xml()])
    result = replayed("PMC99920011", api)
    assert result.verdict_hint == "ok"
    assert kinds(result) == [("idconv", "found"), ("pmc", "md5_mismatch"), ("europepmc", "fetched")]
    assert "these are not the published bytes" in (result.steps[1].reason or "")
    assert result.fetched is not None
    assert (result.served_by, result.fetched.identifier) == ("europepmc", "pmcid:PMC99920011")
    assert result.fetched.data == body_of("chain-epmc-fulltext-pmc99920011")


def test_invented_md5_mismatch_is_unavailable_when_nothing_else_serves() -> None:
    """Bytes that are not the published ones are a failed read: never "not checkable"."""
    api = invented(
        *PMC_11,
        extra=[
            _tampered_xml(),
            answer(f"{EPMC_URL}PMC99920011/fullTextXML", 404),
            answer(f"{EFETCH_URL}?db=pubmed&id=99920011&retmode=xml", 200, EMPTY_EFETCH),
        ],
    )
    web = ReplayTransport(
        [answer("https://doi.org/10.5555/invented.chain.11", 404, b"Not found", media="text/html")]
    )
    result = replayed("PMC99920011", api, web)
    assert kinds(result) == [
        ("idconv", "found"),
        ("pmc", "md5_mismatch"),
        ("europepmc", "missing"),
        ("doi", "missing"),
        ("pubmed", "missing"),
    ]
    assert result.verdict_hint == "unavailable"
    assert result.fetched is None
    assert result.reason is not None and result.reason.startswith(
        "pmc: PMC99920011.1.xml from PMC Cloud Service has md5"
    )


def test_invented_not_open_access_then_europe_pmc_404_then_the_landing_page() -> None:
    api = invented(*PMC_12, "chain-epmc-fulltext-pmc99920012-404")
    web = invented("chain-doi-10.5555-invented.chain.12-302", "chain-landing-invented-chain-12")
    result = replayed("PMC99920012", api, web)
    assert result.verdict_hint == "ok"
    assert kinds(result) == [
        ("idconv", "found"),
        ("pmc", "not_open_access"),
        ("europepmc", "missing"),
        ("doi", "fetched"),
    ]
    assert reasons(result) == {
        "idconv": None,
        "pmc": (
            "PMC99920012.1 is in PMC but not open access (licence TDM): its text may not be "
            "read here."
        ),
        "europepmc": "Europe PMC has no open full text for PMC99920012",
        "doi": None,
    }
    fetched = result.fetched
    assert fetched is not None
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == ("doi", "page", "text/html")
    assert (fetched.url, fetched.identifier) == (LANDING_12, "doi:10.5555/invented.chain.12")
    assert fetched.data == body_of("chain-landing-invented-chain-12")
    assert result.ids == {
        "pmcid": "PMC99920012",
        "pmid": "99920012",
        "doi": "10.5555/invented.chain.12",
    }
    assert api.unused() == [] and web.unused() == []  # PubMed was not asked (replayed refuses)


def test_invented_not_open_access_then_europe_pmc_serves() -> None:
    api = invented(*PMC_12, "chain-epmc-fulltext-pmc99920012")
    result = replayed("PMC99920012", api)
    assert kinds(result) == [
        ("idconv", "found"),
        ("pmc", "not_open_access"),
        ("europepmc", "fetched"),
    ]
    assert result.fetched is not None
    assert (result.served_by, result.fetched.coverage) == ("europepmc", "full_text")
    assert "woke invented patients 3 times a night" in parse(result.fetched.data).text


def test_invented_doi_known_nowhere_is_not_checkable_with_every_reason() -> None:
    api = invented(
        "chain-idconv-doi-10.5555-invented.chain.13",
        "chain-epmc-search-doi-10.5555-invented.chain.13",
    )
    web = invented("chain-doi-10.5555-invented.chain.13-404")
    result = replayed("doi:10.5555/INVENTED.Chain.13", api, web)
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
    assert reasons(result) == {
        "idconv": "PMC ID converter: Identifier not found in PMC",
        "europepmc-search": "Europe PMC has no record of DOI 10.5555/invented.chain.13",
        "pmc": "no PMCID is known, so there is no PMC copy to read",
        "europepmc": "no PMCID is known for Europe PMC full text",
        "doi": "doi.org does not know DOI 10.5555/invented.chain.13 (it answered 404).",
        "pubmed": "no PMID is known, so there is no PubMed abstract",
    }
    assert result.reason == "; ".join(f"{s.source}: {s.reason}" for s in result.steps)
    assert result.ids == {"doi": "10.5555/invented.chain.13"}


def test_invented_full_fallback_order_ends_at_the_pubmed_abstract() -> None:
    """Each full-text link fails in turn, in order; ids Europe PMC taught reach PubMed."""
    api = invented(
        "chain-idconv-doi-10.5555-invented.chain.14",
        "chain-epmc-search-doi-10.5555-invented.chain.14",
        "chain-pmc-list-pmc99920014-empty",
        "chain-epmc-fulltext-pmc99920014-404",
        "chain-efetch-99920014",
    )
    web = invented("chain-doi-10.5555-invented.chain.14-404")
    result = replayed("10.5555/invented.chain.14", api, web)
    assert kinds(result) == [
        ("idconv", "missing"),
        ("europepmc-search", "found"),
        ("pmc", "missing"),
        ("europepmc", "missing"),
        ("doi", "missing"),
        ("pubmed", "fetched"),
    ]
    assert result.verdict_hint == "ok" and result.reason is None
    assert reasons(result)["pmc"] == "PMC99920014 is not in the PMC open-access bucket"
    assert result.fetched is not None
    assert (result.served_by, result.fetched.coverage) == ("pubmed", "abstract")
    assert result.ids == {
        "doi": "10.5555/invented.chain.14",
        "pmcid": "PMC99920014",
        "pmid": "99920014",
    }
    assert api.unused() == [] and web.unused() == []


def test_invented_failed_europe_pmc_lookup_makes_the_chain_unavailable() -> None:
    """A failed lookup may have hidden a PMCID: never "not checkable" after it."""
    busy = answer(
        f'{EPMC_URL}search?query=DOI:"10.5555/invented.chain.13"&resultType=lite&format=json'
        "&pageSize=1",
        500,
    )
    api = invented("chain-idconv-doi-10.5555-invented.chain.13", extra=[busy])
    web = invented("chain-doi-10.5555-invented.chain.13-404")
    result = replayed("doi:10.5555/invented.chain.13", api, web)
    assert kinds(result) == [
        ("idconv", "missing"),
        ("europepmc-search", "unavailable"),
        ("pmc", "not_asked"),
        ("europepmc", "not_asked"),
        ("doi", "missing"),
        ("pubmed", "not_asked"),
    ]
    assert result.verdict_hint == "unavailable"
    assert "answered 500 three times" in (reasons(result)["europepmc-search"] or "")


def test_invented_pmid_with_only_an_abstract_is_served_by_pubmed() -> None:
    api = invented("chain-idconv-pmid-99920015", "chain-efetch-99920015")
    result = replayed("PMID 99920015", api)
    assert result.verdict_hint == "ok" and result.reason is None
    assert kinds(result) == [
        ("idconv", "missing"),
        ("pmc", "not_asked"),
        ("europepmc", "not_asked"),
        ("doi", "not_asked"),
        ("pubmed", "fetched"),
    ]
    assert result.fetched is not None
    assert result.fetched.title == "Invented example: a lamp timer."
    assert result.ids == {"pmid": "99920015"}


def test_invented_pubmed_title_only_is_ok_and_says_so() -> None:
    """The serving source's remark becomes the reason, so "no abstract" reaches the user."""
    api = invented("chain-idconv-pmid-99920016", "chain-efetch-99920016")
    result = replayed("pmid:99920016", api)
    assert result.verdict_hint == "ok"
    assert result.served_by == "pubmed"
    assert result.reason == "PubMed has no abstract for PMID 99920016."


def test_invented_rate_limited_pubmed_is_unavailable() -> None:
    limited = answer(
        f"{EFETCH_URL}?db=pubmed&id=99920015&retmode=xml",
        429,
        b'{"error":"API rate limit exceeded","api-key":"192.0.2.10","count":"4","limit":"3"}',
        media="application/json",
    )
    api = invented("chain-idconv-pmid-99920015", extra=[limited])
    result = replayed("PMID 99920015", api)
    assert kinds(result)[-1] == ("pubmed", "unavailable")
    assert result.verdict_hint == "unavailable"
    assert result.reason is not None and "pubmed: " in result.reason and "429" in result.reason


def test_invented_pinned_version_is_not_asked_of_europe_pmc() -> None:
    """Europe PMC serves whatever version it holds, which is not the one the user pinned."""
    api = invented(
        "chain-idconv-pmcid-pmc99920017",
        "chain-pmc-meta-pmc99920017.2",
        "chain-efetch-99920017-empty",
    )
    web = invented("chain-doi-10.5555-invented.chain.17-404")
    result = replayed("PMC99920017.2", api, web)
    assert kinds(result) == [
        ("idconv", "found"),
        ("pmc", "not_open_access"),
        ("europepmc", "not_asked"),
        ("doi", "missing"),
        ("pubmed", "missing"),
    ]
    assert reasons(result)["europepmc"] == (
        "version 2 of PMC99920017 is pinned and Europe PMC cannot serve a pinned version"
    )
    assert "licence CC BY-NC-ND" in (reasons(result)["pmc"] or "")
    assert reasons(result)["pubmed"] == "PubMed has no record PMID 99920017."
    assert result.verdict_hint == "not_checkable"
    assert api.unused() == []  # the pinned version's metadata was read, no listing asked


def test_invented_unusable_identifiers_learnt_on_the_way_are_not_asked() -> None:
    """A learnt id that is no DOI/PMID is a "not asked" step, not an exception."""
    odd = answer(
        f"{IDCONV_URL}?ids=PMC99920018&idtype=pmcid&format=json",
        200,
        json.dumps(
            {
                "status": "ok",
                "records": [
                    {
                        "pmcid": "PMC99920018",
                        "pmid": 0,
                        "doi": "10.5555",
                        "requested-id": "PMC99920018",
                    }
                ],
            }
        ).encode(),
        media="application/json",
    )
    api = invented(
        extra=[
            odd,
            answer(
                f"{BUCKET_URL}/?list-type=2&prefix=PMC99920018.", 200, listing("PMC99920018.", [])
            ),
            answer(f"{EPMC_URL}PMC99920018/fullTextXML", 404),
        ]
    )
    result = replayed("PMC99920018", api)
    assert kinds(result) == [
        ("idconv", "found"),
        ("pmc", "missing"),
        ("europepmc", "missing"),
        ("doi", "not_asked"),
        ("pubmed", "not_asked"),
    ]
    assert (reasons(result)["doi"] or "").startswith("'10.5555' cannot be resolved at doi.org: ")
    assert (reasons(result)["pubmed"] or "").startswith("'0' cannot be asked of PubMed: ")
    assert result.verdict_hint == "not_checkable"


# --- the other identifier kinds, invented ------------------------------------------------------


def test_invented_nct_is_served_by_clinicaltrials_gov() -> None:
    api = invented("ctgov-study-NCT99920001")
    result = replayed("NCT99920001", api)
    assert result.verdict_hint == "ok" and result.reason is None
    assert result.steps == (Step("ctgov", "fetched", None),)
    assert result.fetched is not None
    assert (result.served_by, result.fetched.version) == ("ctgov", "2025-11-24")
    assert result.ids == {}


def test_invented_unknown_nct_is_not_checkable() -> None:
    result = replayed("NCT99920002", invented("ctgov-study-NCT99920002-404"))
    assert result.verdict_hint == "not_checkable"
    assert result.reason == "ctgov: ClinicalTrials.gov has no study NCT99920002."


def test_invented_unreachable_registry_is_unavailable() -> None:
    api = ReplayTransport([answer("https://clinicaltrials.gov/api/v2/studies/NCT99920001", 503)])
    result = replayed("NCT99920001", api)
    assert kinds(result) == [("ctgov", "unavailable")]
    assert result.verdict_hint == "unavailable"


@pytest.mark.parametrize(
    ("recording", "set_id", "hint", "kind"),
    [
        ("openfda-label-9992a001-5e6f-4a7b-8c9d-0e1f2a3b4c5d", "9992a001", "ok", "fetched"),
        (
            "openfda-label-9992a002-5e6f-4a7b-8c9d-0e1f2a3b4c5d-404",
            "9992a002",
            "not_checkable",
            "missing",
        ),
        (
            "openfda-label-9992a006-5e6f-4a7b-8c9d-0e1f2a3b4c5d-429",
            "9992a006",
            "unavailable",
            "unavailable",
        ),
    ],
    ids=["served", "missing", "rate-limited"],
)
def test_invented_set_id_goes_to_openfda(recording: str, set_id: str, hint: str, kind: str) -> None:
    result = replayed(f"{set_id}-5e6f-4a7b-8c9d-0e1f2a3b4c5d", invented(recording))
    assert kinds(result) == [("openfda", kind)]
    assert result.verdict_hint == hint


def test_invented_ppr_is_served_by_europe_pmc() -> None:
    result = replayed("PPR99920019", invented("chain-epmc-fulltext-ppr99920019"))
    assert result.verdict_hint == "ok"
    assert result.fetched is not None
    assert (result.served_by, result.fetched.identifier) == ("europepmc", "ppr:PPR99920019")
    assert "dimmed after midnight" in parse(result.fetched.data).text


def test_invented_missing_ppr_is_not_checkable() -> None:
    api = ReplayTransport([answer(f"{EPMC_URL}PPR99920020/fullTextXML", 404)])
    result = replayed("PPR99920020", api)
    assert kinds(result) == [("europepmc", "missing")]
    assert result.verdict_hint == "not_checkable"
