"""PMC Cloud Service source: listing, metadata, md5-verified fetch, and every outcome.

Offline by construction: every client runs on ``ReplayTransport`` (which refuses any request
it was not given) or on an ``httpx2.MockTransport``. Two layers of recordings:

* INVENTED recordings in ``tests/sources/invented/pmc-*`` (listings, metadata JSON, JATS and
  plain text in the bucket's real formats, about made-up articles PMC9991001-PMC9991013), so a
  fresh clone tests every outcome without the shared corpus;
* the real recordings from ``../shared/corpus/litcheck-fixtures``; tests that need them skip
  with a clear reason when the corpus is not beside the repository.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

import httpx2
import pytest

from citeproof.documents.safe_xml import local_name, parse_xml_safely
from citeproof.errors import BadInputError, NetworkError, PmcAnswerError
from citeproof.net.client import make_client
from citeproof.net.ratelimit import RateLimiter
from citeproof.net.recordings import Recording, load_folder, load_litcheck
from citeproof.net.replay import ReplayTransport
from citeproof.sources.pmc import (
    BUCKET_URL,
    PmcResult,
    fetch_pmc,
    list_versions,
    metadata,
    parse_metadata,
    parse_pmcid,
)
from replay_clients import FakeTime, fake_client

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    return CORPUS


@pytest.fixture(scope="module")
def litcheck(corpus: Path) -> list[Recording]:
    """The real litcheck recordings (the one without a body is skipped)."""
    return load_folder(corpus / "litcheck-fixtures", skip_incomplete=True)


def _rec(url: str, body: bytes, *, name: str, status: int = 200, ctype: str = "") -> Recording:
    headers = {"content-type": ctype} if ctype else {}
    return Recording(
        method="GET",
        url=url,
        status=status,
        headers=headers,
        body=body,
        body_sha256=hashlib.sha256(body).hexdigest(),
        date=None,
        name=name,
    )


def _listing(prefix: str, keys: list[str], *, token: str | None = None) -> bytes:
    """An S3 ListObjectsV2 page shaped like the recorded ones (namespace included)."""
    contents = "".join(f"<Contents><Key>{k}</Key><Size>1</Size></Contents>" for k in keys)
    more = (
        f"<IsTruncated>true</IsTruncated><NextContinuationToken>{token}</NextContinuationToken>"
        if token
        else "<IsTruncated>false</IsTruncated>"
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        f"<Name>pmc-oa-opendata</Name><Prefix>{prefix}</Prefix><KeyCount>{len(keys)}</KeyCount>"
        f"<MaxKeys>1000</MaxKeys>{more}{contents}</ListBucketResult>"
    ).encode()


def _list_url(prefix: str, token: str | None = None) -> str:
    params = {"list-type": "2", "prefix": prefix}
    if token is not None:
        params["continuation-token"] = token
    return f"{BUCKET_URL}/?{urlencode(params)}"


def _client(transport: ReplayTransport) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=transport)


async def _fetch(transport: ReplayTransport, pmcid: str, **kw: Any) -> PmcResult:
    async with _client(transport) as client:
        return await fetch_pmc(client, pmcid, **kw)


# --- real recordings -------------------------------------------------------------------------


def test_retracted_article_metadata_from_recordings(litcheck: list[Recording]) -> None:
    transport = ReplayTransport(litcheck)

    async def go() -> tuple[list[int], Any]:
        async with _client(transport) as client:
            versions = await list_versions(client, "PMC12829825")
            return versions, await metadata(client, "PMC12829825", versions[-1])

    versions, meta = run(go())
    assert versions == [1]
    assert meta is not None
    assert meta.is_retracted is True
    assert meta.is_open_access is True
    assert meta.pmid == "41575947"
    assert meta.doi == "10.1371/journal.pone.0340378"
    assert meta.license_code == "CC BY"
    assert meta.title is not None and meta.title.startswith("RETRACTED:")
    assert meta.xml_url == f"{BUCKET_URL}/PMC12829825.1/PMC12829825.1.xml"
    assert meta.xml_md5 == "9027ac95f2d5caacaff479c979a470c4"
    assert meta.pdf_url is None and meta.pdf_md5 is None
    assert transport.refused == []


def test_not_open_access_from_recordings(litcheck: list[Recording]) -> None:
    transport = ReplayTransport(litcheck)
    result = run(_fetch(transport, "PMC13599058"))
    assert result.outcome.kind == "not_open_access"
    assert result.outcome.reason == (
        "PMC13599058.1 is in PMC but not open access (licence TDM): its text may not be read here."
    )
    assert result.metadata is not None
    assert result.metadata.is_manuscript is True
    assert result.metadata.is_retracted is False
    # The text was never requested: only the listing and the metadata.
    assert transport.used["pmc-list-pmc13599058"] == 1
    assert transport.used["pmc-meta-pmc13599058.1"] == 1
    assert transport.refused == []


def test_empty_listing_is_missing(litcheck: list[Recording]) -> None:
    result = run(_fetch(ReplayTransport(litcheck), "PMC13632646"))
    assert result.outcome.kind == "missing"
    assert result.outcome.reason == "PMC13632646 is not in the PMC open-access bucket"
    assert result.metadata is None


def test_pinned_absent_version_is_missing(litcheck: list[Recording]) -> None:
    """A pinned version skips the listing; the recorded 404 for PMC10496602.2 means missing."""
    transport = ReplayTransport(litcheck)
    result = run(_fetch(transport, "PMC10496602.2"))
    assert result.outcome.kind == "missing"
    assert result.outcome.reason == (
        "PMC10496602.2 is not in the PMC open-access bucket (no such version)"
    )
    assert transport.used["pmc-list-pmc10496602"] == 0


def test_real_text_that_is_not_byte_exact_is_md5_mismatch(
    corpus: Path, litcheck: list[Recording]
) -> None:
    """The recorded text of PMC10496602.1 lost two invisible characters in the corpus.

    Its body is served from ``pmc-txt/PMC10496602.1.txt`` at the recorded URL; its md5 cannot
    equal the one in the real metadata, so this stays a real md5-mismatch case.
    """
    meta = json.loads((corpus / "litcheck-fixtures/pmc-text-pmc10496602.1.meta.json").read_text())
    body = (corpus / "pmc-txt/PMC10496602.1.txt").read_bytes()
    text = _rec(meta["url"], body, name="pmc-text-pmc10496602.1", ctype="binary/octet-stream")
    transport = ReplayTransport([*litcheck, text])
    result = run(_fetch(transport, "PMC10496602", prefer="text"))
    actual = hashlib.md5(body).hexdigest()
    assert actual != "694a1ae63378c363cdde50a205ae76c2"
    assert result.outcome.kind == "md5_mismatch"
    assert result.outcome.fetched is None
    reason = result.outcome.reason or ""
    assert "PMC10496602.1.txt" in reason
    assert actual in reason and "694a1ae63378c363cdde50a205ae76c2" in reason
    assert result.metadata is not None and result.metadata.license_code == "CC BY"
    assert transport.refused == []


# --- a successful fetch, built from a corpus JATS file ---------------------------------------

PMC = "PMC3166277"


def _own_article(corpus: Path, *, xml_md5: str | None = None) -> tuple[bytes, list[Recording]]:
    """Recordings written here, NOT recorded from the bucket: a listing of versions 1 and 2 and
    a metadata JSON for version 2 that wrap the corpus JATS file ``pmc-jats/PMC3166277.nxml``,
    with ``xml_url``'s md5 computed from that file. Only the JATS bytes are real.
    """
    jats = (corpus / "pmc-jats" / f"{PMC}.nxml").read_bytes()
    md5 = xml_md5 or hashlib.md5(jats).hexdigest()
    meta = {
        "pmcid": PMC,
        "version": 2,
        "pmid": 21901121,
        "doi": "10.1000/example.3166277",
        "mid": None,
        "title": "A corpus JATS article wrapped in hand-written metadata",
        "is_pmc_openaccess": True,
        "is_manuscript": False,
        "is_historical_ocr": False,
        "is_retracted": False,
        "license_code": "CC BY",
        "xml_url": f"s3://pmc-oa-opendata/{PMC}.2/{PMC}.2.xml?md5={md5}",
    }
    keys = [f"{PMC}.1/{PMC}.1.json", f"{PMC}.2/{PMC}.2.json", f"{PMC}.2/{PMC}.2.xml"]
    return jats, [
        _rec(_list_url(f"{PMC}."), _listing(f"{PMC}.", keys), name="own-list"),
        _rec(f"{BUCKET_URL}/{PMC}.2/{PMC}.2.json", json.dumps(meta).encode(), name="own-meta"),
        _rec(f"{BUCKET_URL}/{PMC}.2/{PMC}.2.xml", jats, name="own-xml"),
    ]


def test_pinned_fetch_of_own_wrapped_jats(corpus: Path) -> None:
    """Metadata written by this test around a real corpus JATS file (see ``_own_article``)."""
    jats, recordings = _own_article(corpus)
    transport = ReplayTransport(recordings)
    result = run(_fetch(transport, f"{PMC}.2"))
    assert result.outcome.kind == "fetched", result.outcome.reason
    fetched = result.outcome.fetched
    assert fetched is not None
    assert fetched.data == jats
    assert fetched.media_type == "application/xml"
    assert fetched.served_by == "pmc"
    assert fetched.coverage == "full_text"
    assert fetched.version == f"{PMC}.2"
    assert fetched.identifier == f"pmcid:{PMC}"
    assert fetched.md5_ok is True
    assert fetched.licence == "CC BY"
    assert fetched.url == f"{BUCKET_URL}/{PMC}.2/{PMC}.2.xml"
    assert transport.used["own-list"] == 0  # a pinned version needs no listing
    assert transport.refused == []


def test_latest_version_is_taken_from_listing(corpus: Path) -> None:
    """Same hand-written wrapping of a corpus JATS file; the listing has versions 1 and 2."""
    _, recordings = _own_article(corpus)
    transport = ReplayTransport(recordings)
    result = run(_fetch(transport, PMC.lower()))
    assert result.outcome.ok
    assert result.outcome.fetched is not None
    assert result.outcome.fetched.version == f"{PMC}.2"
    assert transport.used["own-list"] == 1


def test_version_argument_pins_too(corpus: Path) -> None:
    _, recordings = _own_article(corpus)
    result = run(_fetch(ReplayTransport(recordings), PMC, version=2))
    assert result.outcome.ok


def test_xml_md5_mismatch_names_both_hashes(corpus: Path) -> None:
    wrong = "0" * 32
    jats, recordings = _own_article(corpus, xml_md5=wrong)
    result = run(_fetch(ReplayTransport(recordings), f"{PMC}.2"))
    assert result.outcome.kind == "md5_mismatch"
    reason = result.outcome.reason or ""
    assert wrong in reason and hashlib.md5(jats).hexdigest() in reason


# --- listings without the corpus -------------------------------------------------------------


def test_truncated_listing_is_followed_over_two_pages() -> None:
    prefix = "PMC42."
    token = "1/abc+def=="  # S3 tokens carry '/', '+' and '='; they must round-trip encoded
    page1 = _listing(prefix, ["PMC42.1/PMC42.1.json", "PMC42.2/PMC42.2.json"], token=token)
    page2 = _listing(prefix, ["PMC42.3/PMC42.3.json", "PMC42.3/PMC42.3.xml"])
    transport = ReplayTransport(
        [
            _rec(_list_url(prefix), page1, name="page1"),
            _rec(_list_url(prefix, token), page2, name="page2"),
        ]
    )

    async def go() -> list[int]:
        async with _client(transport) as client:
            return await list_versions(client, "PMC42")

    assert run(go()) == [1, 2, 3]
    assert transport.used == {"page1": 1, "page2": 1}


def test_listing_ignores_keys_of_longer_pmcids() -> None:
    """``prefix=PMC42.`` cannot match PMC420, but the parser checks the key anyway."""
    body = _listing("PMC42.", ["PMC42.1/PMC42.1.json", "PMC420.7/PMC420.7.json"])
    transport = ReplayTransport([_rec(_list_url("PMC42."), body, name="list")])

    async def go() -> list[int]:
        async with _client(transport) as client:
            return await list_versions(client, "PMC42")

    assert run(go()) == [1]


def test_truncated_listing_without_token_is_unavailable() -> None:
    body = _listing("PMC42.", ["PMC42.1/PMC42.1.json"]).replace(
        b"<IsTruncated>false</IsTruncated>", b"<IsTruncated>true</IsTruncated>"
    )
    transport = ReplayTransport([_rec(_list_url("PMC42."), body, name="list")])
    result = run(_fetch(transport, "PMC42"))
    assert result.outcome.kind == "unavailable"
    assert "continuation token" in (result.outcome.reason or "")


def test_listing_with_entity_declaration_is_refused() -> None:
    body = (
        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        b"<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>"
    )
    transport = ReplayTransport([_rec(_list_url("PMC42."), body, name="list")])
    result = run(_fetch(transport, "PMC42"))
    assert result.outcome.kind == "unavailable"


def test_metadata_pointing_outside_the_bucket_is_unavailable() -> None:
    meta = {
        "pmcid": "PMC42",
        "version": 1,
        "is_pmc_openaccess": True,
        "xml_url": "s3://another-bucket/PMC42.1/PMC42.1.xml?md5=" + "0" * 32,
    }
    transport = ReplayTransport(
        [_rec(f"{BUCKET_URL}/PMC42.1/PMC42.1.json", json.dumps(meta).encode(), name="meta")]
    )
    result = run(_fetch(transport, "PMC42.1"))
    assert result.outcome.kind == "unavailable"
    assert "outside the pmc-oa-opendata bucket" in (result.outcome.reason or "")


def test_503_everywhere_is_unavailable() -> None:
    calls: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        calls.append(str(request.url))
        return httpx2.Response(503, content=b"Slow Down")

    async def no_sleep(_: float) -> None:
        return None

    async def go() -> PmcResult:
        client = make_client(
            transport=httpx2.MockTransport(handler),
            contact="",
            api_key="",
            sleep=no_sleep,
            limiter=RateLimiter(sleep=no_sleep),
        )
        async with client:
            return await fetch_pmc(client, "PMC42")

    result = run(go())
    assert result.outcome.kind == "unavailable"
    assert "503" in (result.outcome.reason or "")
    assert result.metadata is None
    assert len(calls) == 3  # the retrying transport's three attempts, then it gave up


# --- input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("PMC123", ("PMC123", None)), ("pmc123.2", ("PMC123", 2)), (" 123 ", ("PMC123", None))],
)
def test_parse_pmcid(text: str, expected: tuple[str, int | None]) -> None:
    assert parse_pmcid(text) == expected


@pytest.mark.parametrize("text", ["", "PMC", "PMC12a", "PMC0", "PMC12.0", "10.1/x"])
def test_parse_pmcid_refuses(text: str) -> None:
    with pytest.raises(BadInputError):
        parse_pmcid(text)


def test_conflicting_versions_are_refused() -> None:
    with pytest.raises(BadInputError):
        run(_fetch(ReplayTransport([]), "PMC42.1", version=2))


# --- INVENTED recordings (tests/sources/invented/pmc-*): every outcome without the corpus --------
#
# Made-up articles in the bucket's real formats (ListObjectsV2 XML, metadata JSON, JATS, plain
# text); what each one stands for is in the test that uses it. The transport serves all of
# them, so a request the code should not make is refused (and raises) instead of being answered.

INVENTED = Path(__file__).resolve().parent / "invented"


def _invented() -> ReplayTransport:
    """Every invented PMC Cloud Service recording, each verified against its sha256."""
    return ReplayTransport([load_litcheck(p) for p in sorted(INVENTED.glob("pmc-*.meta.json"))])


def _body(name: str) -> bytes:
    return (INVENTED / f"{name}.body").read_bytes()


def _md5(data: bytes) -> str:
    return hashlib.md5(data).hexdigest()


async def _fetch_retrying(transport: ReplayTransport, pmcid: str, **kw: Any) -> PmcResult:
    """``fetch_pmc`` on the real client stack (retries, rate limit) with a fake clock."""
    async with fake_client(transport, fake=FakeTime()) as client:
        return await fetch_pmc(client, pmcid, **kw)


def test_invented_recordings_are_labelled_and_verified() -> None:
    """A fixture that loses its INVENTED label, or its sha256, would pass for a real answer."""
    metas = sorted(INVENTED.glob("pmc-*.meta.json"))
    assert len(metas) >= 25
    for path in metas:
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["provenance"].startswith("INVENTED for citeproof's tests"), path.name
        assert set(record["headers"]) == {k.lower() for k in record["headers"]}
        assert record["url"].startswith(f"{BUCKET_URL}/")
    assert len(_invented().recordings) == len(metas)  # no two answer the same request


def test_invented_retracted_article_metadata() -> None:
    """Mirrors the corpus test of PMC12829825 on the invented retracted PMC9991002."""
    transport = _invented()

    async def go() -> tuple[list[int], Any]:
        async with _client(transport) as client:
            versions = await list_versions(client, "PMC9991002")
            return versions, await metadata(client, "PMC9991002", versions[-1])

    versions, meta = run(go())
    assert versions == [1]
    assert meta is not None
    assert meta.versioned_id == "PMC9991002.1"
    assert meta.is_retracted is True
    assert meta.is_open_access is True
    assert meta.is_manuscript is False
    assert meta.pmid == "99910002"  # a JSON number in the metadata, a string here
    assert meta.doi == "10.5555/citeproof.invented.9991002"
    assert meta.license_code == "CC BY"
    assert meta.title == "RETRACTED: An invented trial of a fictional remedy"
    assert meta.xml_url == f"{BUCKET_URL}/PMC9991002.1/PMC9991002.1.xml"
    assert meta.xml_md5 == _md5(_body("pmc-xml-pmc9991002.1"))
    assert meta.text_url == f"{BUCKET_URL}/PMC9991002.1/PMC9991002.1.txt"
    assert meta.text_md5 is not None and len(meta.text_md5) == 32
    assert meta.pdf_url is None and meta.pdf_md5 is None
    assert transport.used == {"pmc-list-pmc9991002": 1, "pmc-meta-pmc9991002.1": 1}
    assert transport.refused == []


def test_invented_retracted_article_text_comes_with_its_metadata() -> None:
    """The retraction check reads ``is_retracted`` from the result even when text was fetched."""
    result = run(_fetch(_invented(), "PMC9991002"))
    assert result.outcome.kind == "fetched"
    assert result.metadata is not None and result.metadata.is_retracted is True
    assert result.outcome.fetched is not None
    assert result.outcome.fetched.title == "RETRACTED: An invented trial of a fictional remedy"


def test_invented_latest_version_is_fetched_and_verified() -> None:
    """Without a pin the highest listed version (2, not 1) is read, and its XML preferred."""
    transport = _invented()
    result = run(_fetch(transport, "pmc9991001"))
    assert result.outcome.kind == "fetched", result.outcome.reason
    fetched = result.outcome.fetched
    assert fetched is not None
    xml = _body("pmc-xml-pmc9991001.2")
    assert fetched.data == xml
    assert fetched.media_type == "application/xml"
    assert fetched.url == f"{BUCKET_URL}/PMC9991001.2/PMC9991001.2.xml"
    assert fetched.served_by == "pmc"
    assert fetched.coverage == "full_text"
    assert fetched.identifier == "pmcid:PMC9991001"
    assert fetched.version == "PMC9991001.2"
    assert fetched.md5_ok is True
    assert fetched.licence == "CC BY"
    assert fetched.title == (
        "Invented findings on the lysis timing of a fictional bacteriophage (corrected version)"
    )
    assert result.metadata is not None and result.metadata.xml_md5 == _md5(xml)
    assert result.metadata.pdf_url == f"{BUCKET_URL}/PMC9991001.2/PMC9991001.2.pdf"
    assert transport.used == {
        "pmc-list-pmc9991001": 1,
        "pmc-meta-pmc9991001.2": 1,
        "pmc-xml-pmc9991001.2": 1,
    }
    root = parse_xml_safely(fetched.data)  # the invented JATS is well-formed and safe
    assert root is not None and local_name(root) == "article"


@pytest.mark.parametrize(("pmcid", "version"), [("PMC9991001.1", None), ("PMC9991001", 1)])
def test_invented_pinned_version_skips_the_listing(pmcid: str, version: int | None) -> None:
    """A pin (in the id or as ``version``) reads that version, even an older one, unlisted."""
    transport = _invented()
    result = run(_fetch(transport, pmcid, version=version))
    assert result.outcome.fetched is not None
    assert result.outcome.fetched.version == "PMC9991001.1"
    assert result.outcome.fetched.data == _body("pmc-xml-pmc9991001.1")
    assert result.outcome.fetched.title == (
        "Invented findings on the lysis timing of a fictional bacteriophage"
    )
    assert transport.used["pmc-list-pmc9991001"] == 0
    assert transport.used["pmc-meta-pmc9991001.2"] == 0


def test_invented_prefer_text_reads_the_plain_text() -> None:
    transport = _invented()
    result = run(_fetch(transport, "PMC9991001.2", prefer="text"))
    fetched = result.outcome.fetched
    assert fetched is not None
    assert fetched.media_type == "text/plain"
    assert fetched.url == f"{BUCKET_URL}/PMC9991001.2/PMC9991001.2.txt"
    assert fetched.data == _body("pmc-text-pmc9991001.2")
    assert b"forty invented minutes" in fetched.data
    assert fetched.md5_ok is True
    assert transport.used["pmc-xml-pmc9991001.2"] == 0


def test_invented_not_open_access_reads_no_text() -> None:
    """Mirrors PMC13599058: a TDM author manuscript; only listing and metadata are requested."""
    transport = _invented()
    result = run(_fetch(transport, "PMC9991003"))
    assert result.outcome.kind == "not_open_access"
    assert result.outcome.reason == (
        "PMC9991003.1 is in PMC but not open access (licence TDM): its text may not be read here."
    )
    assert result.outcome.fetched is None
    assert result.metadata is not None
    assert result.metadata.is_manuscript is True
    assert result.metadata.is_open_access is False
    assert result.metadata.is_retracted is False
    assert transport.used == {"pmc-list-pmc9991003": 1, "pmc-meta-pmc9991003.1": 1}
    assert transport.refused == []


def test_invented_empty_listing_is_missing() -> None:
    transport = _invented()
    result = run(_fetch(transport, "PMC9991004"))
    assert result.outcome.kind == "missing"
    assert result.outcome.reason == "PMC9991004 is not in the PMC open-access bucket"
    assert result.metadata is None
    assert transport.used == {"pmc-list-pmc9991004": 1}


def test_invented_pinned_absent_version_is_missing() -> None:
    """The bucket's 404 NoSuchKey for PMC9991001.3's metadata means "no such version"."""
    transport = _invented()
    result = run(_fetch(transport, "PMC9991001.3"))
    assert result.outcome.kind == "missing"
    assert result.outcome.reason == (
        "PMC9991001.3 is not in the PMC open-access bucket (no such version)"
    )
    assert result.metadata is None
    assert transport.used == {"pmc-meta-pmc9991001.3-absent": 1}

    async def direct() -> Any:
        async with _client(transport) as client:
            return await metadata(client, "PMC9991001", 3)

    assert run(direct()) is None


def test_invented_text_that_lost_invisible_characters_is_md5_mismatch() -> None:
    """PMC9991005's served text lacks the soft hyphens its metadata's md5 was computed with.

    The mismatch must stop the fetch: falling back to the (unrequested) XML would hide it.
    """
    transport = _invented()
    result = run(_fetch(transport, "PMC9991005", prefer="text"))
    served = _body("pmc-text-pmc9991005.1")
    assert "\u00ad".encode() not in served
    assert result.metadata is not None
    expected = result.metadata.text_md5
    actual = _md5(served)
    assert expected is not None and actual != expected
    assert result.outcome.kind == "md5_mismatch"
    assert result.outcome.fetched is None
    assert not result.outcome.ok
    reason = result.outcome.reason or ""
    assert "PMC9991005.1.txt" in reason and actual in reason and expected in reason
    assert result.metadata.license_code == "CC BY-NC"
    assert transport.used == {
        "pmc-list-pmc9991005": 1,
        "pmc-meta-pmc9991005.1": 1,
        "pmc-text-pmc9991005.1": 1,
    }


def test_invented_xml_absent_from_bucket_falls_back_to_text() -> None:
    """A 404 for the preferred XML gives way to the listed plain text, verified by its md5."""
    transport = _invented()
    result = run(_fetch(transport, "PMC9991006.1"))
    fetched = result.outcome.fetched
    assert result.outcome.kind == "fetched" and fetched is not None
    assert fetched.media_type == "text/plain"
    assert fetched.data == _body("pmc-text-pmc9991006.1")
    assert fetched.licence == "CC0"
    assert transport.used == {
        "pmc-meta-pmc9991006.1": 1,
        "pmc-xml-pmc9991006.1-absent": 1,
        "pmc-text-pmc9991006.1": 1,
    }


def test_invented_no_listed_file_in_bucket_is_missing() -> None:
    """Both listed files answer 404: missing, naming them, not "not open access"."""
    transport = _invented()
    result = run(_fetch(transport, "PMC9991007.1"))
    assert result.outcome.kind == "missing"
    assert result.outcome.reason == (
        "PMC Cloud Service metadata of PMC9991007.1 lists PMC9991007.1.xml and PMC9991007.1.txt, "
        "but the bucket has no such file."
    )
    assert transport.used["pmc-xml-pmc9991007.1-absent"] == 1
    assert transport.used["pmc-text-pmc9991007.1-absent"] == 1


def test_invented_pdf_only_article_has_no_readable_text() -> None:
    transport = _invented()
    result = run(_fetch(transport, "PMC9991008.1"))
    assert result.outcome.kind == "not_open_access"
    assert result.outcome.reason == (
        "PMC9991008.1 has no XML or plain-text file in the PMC open-access bucket."
    )
    meta = result.metadata
    assert meta is not None and meta.is_open_access
    assert meta.pmid is None and meta.doi is None  # JSON nulls
    assert meta.pdf_url == f"{BUCKET_URL}/PMC9991008.1/PMC9991008.1.pdf"
    assert meta.xml_url is None and meta.text_url is None
    assert transport.used == {"pmc-meta-pmc9991008.1": 1}


def test_invented_file_without_md5_is_never_fetched() -> None:
    """No ``?md5=`` on xml_url: unverifiable bytes are refused before they are requested."""
    transport = _invented()
    result = run(_fetch(transport, "PMC9991009.1"))
    assert result.outcome.kind == "unavailable"
    assert result.outcome.reason == (
        "PMC Cloud Service metadata of PMC9991009.1 gives no md5 for PMC9991009.1.xml, so its "
        "bytes could not be verified; nothing was checked against them."
    )
    assert result.metadata is not None and result.metadata.xml_md5 is None
    assert transport.used == {"pmc-meta-pmc9991009.1": 1}
    assert transport.refused == []


def test_invented_file_access_denied_is_unavailable_not_missing() -> None:
    """A 403 AccessDenied for a listed file says nothing about the article: unavailable."""
    result = run(_fetch(_invented(), "PMC9991010.1"))
    assert result.outcome.kind == "unavailable"
    assert result.outcome.reason == (
        "PMC Cloud Service answered 403 for PMC9991010.1.xml; nothing was concluded."
    )
    assert result.metadata is not None and result.metadata.license_code == "CC BY"


def test_invented_metadata_slowdown_is_unavailable() -> None:
    """503 SlowDown for the metadata: unavailable on a bare client, and after three tries on
    the real stack; never missing, and no metadata is claimed."""
    transport = _invented()
    plain = run(_fetch(transport, "PMC9991011.1"))
    assert plain.outcome.kind == "unavailable"
    assert plain.outcome.reason == (
        "PMC Cloud Service answered 503 to the metadata of PMC9991011.1; nothing was concluded."
    )
    assert plain.metadata is None
    transport = _invented()
    retried = run(_fetch_retrying(transport, "PMC9991011.1"))
    assert retried.outcome.kind == "unavailable"
    assert "503 three times" in (retried.outcome.reason or "")
    assert retried.metadata is None
    assert transport.used == {"pmc-meta-pmc9991011.1-slowdown": 3}


def test_invented_listing_slowdown_is_unavailable() -> None:
    transport = _invented()
    plain = run(_fetch(transport, "PMC9991012"))
    assert plain.outcome.kind == "unavailable"
    assert plain.outcome.reason == (
        "PMC Cloud Service answered 503 to the version listing of PMC9991012; "
        "nothing was concluded."
    )
    transport = _invented()
    retried = run(_fetch_retrying(transport, "PMC9991012"))
    assert retried.outcome.kind == "unavailable"
    assert "503 three times" in (retried.outcome.reason or "")
    assert transport.used == {"pmc-list-pmc9991012-slowdown": 3}


def test_invented_listing_in_two_pages() -> None:
    """Page 2 is asked with page 1's token (which carries '/', '+' and '='), and both pages'
    versions are merged; a version split across pages (2) is counted once."""
    transport = _invented()

    async def go() -> list[int]:
        async with _client(transport) as client:
            return await list_versions(client, "PMC9991013")

    assert run(go()) == [1, 2, 3]
    assert transport.used == {"pmc-list-pmc9991013-page1": 1, "pmc-list-pmc9991013-page2": 1}


def test_invented_listings_through_the_real_client_stack() -> None:
    """The whole chain on ``make_client`` (contact/rate-limit/retry layers) answers alike."""
    transport = _invented()
    result = run(_fetch_retrying(transport, "PMC9991001"))
    assert result.outcome.fetched is not None
    assert result.outcome.fetched.version == "PMC9991001.2"
    missing_one = run(_fetch_retrying(transport, "PMC9991004"))
    assert missing_one.outcome.kind == "missing"
    assert transport.refused == []


# --- listing answers that cannot be read (built here, not recorded) ---------------------------


def _listing_client(pages: list[bytes]) -> tuple[httpx2.AsyncClient, list[str]]:
    """A bucket that answers the listing pages in turn (the last one forever)."""
    asked: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        asked.append(request.url.params.get("continuation-token", ""))
        body = pages[min(len(asked), len(pages)) - 1]
        return httpx2.Response(200, content=body, headers={"content-type": "application/xml"})

    return httpx2.AsyncClient(transport=httpx2.MockTransport(handler)), asked


def _versions(client: httpx2.AsyncClient, pmcid: str = "PMC9991013") -> list[int]:
    async def go() -> list[int]:
        async with client:
            return await list_versions(client, pmcid)

    return run(go())


def test_listing_that_repeats_its_token_is_refused() -> None:
    """A listing that hands back a token it already gave would otherwise loop forever."""
    page = _listing("PMC9991013.", ["PMC9991013.1/PMC9991013.1.json"], token="AAA")
    client, asked = _listing_client([page])
    with pytest.raises(PmcAnswerError, match="no new continuation token"):
        _versions(client)
    assert asked == ["", "AAA"]


def test_listing_that_never_ends_stops_after_the_page_limit() -> None:
    """Fresh tokens forever: stop at MAX_LISTING_PAGES requests, not after a million."""
    counter = iter(range(10_000))

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = _listing("PMC9991013.", [], token=f"T{next(counter)}")
        return httpx2.Response(200, content=body)

    client = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    with pytest.raises(PmcAnswerError, match="past 100 pages"):
        _versions(client)
    assert next(counter) == 100


@pytest.mark.parametrize(
    "body",
    [
        b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code></Error>',
        b"",
        b"<ListBucketResult><IsTruncated>false",
    ],
    ids=["s3-error-document", "empty", "truncated-xml"],
)
def test_listing_that_is_not_a_listing_is_unavailable(body: bytes) -> None:
    """A 200 whose body is not a ListBucketResult must not read as "no versions" (missing)."""
    client, _ = _listing_client([body])
    with pytest.raises(PmcAnswerError, match=r"ListBucketResult|valid XML"):
        _versions(client)
    client, _ = _listing_client([body])

    async def go() -> PmcResult:
        async with client:
            return await fetch_pmc(client, "PMC9991013")

    assert run(go()).outcome.kind == "unavailable"


# --- metadata JSON that cannot be read (parse_metadata on bodies written here) -----------------

_GOOD = {"pmcid": "PMC9991001", "version": 2, "is_pmc_openaccess": True}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>not json</html>", "not valid JSON"),
        (b"\xff\xfe\x00garbage", "not valid JSON"),
        (b"[]", "not a JSON object"),
        (json.dumps({**_GOOD, "pmcid": "PMC9991002"}).encode(), "is about 'PMC9991002'"),
        (json.dumps({**_GOOD, "pmcid": None}).encode(), "is about None"),
        (json.dumps({**_GOOD, "version": 1}).encode(), "says it is version 1"),
        (json.dumps({**_GOOD, "version": "2"}).encode(), "says it is version '2'"),
        (json.dumps({**_GOOD, "xml_url": 42}).encode(), "xml_url that is not a string"),
        (
            json.dumps({**_GOOD, "text_url": f"{BUCKET_URL}/PMC9991001.2/x.txt"}).encode(),
            "text_url outside the pmc-oa-opendata bucket",
        ),
        (
            json.dumps({**_GOOD, "pdf_url": "s3://pmc-oa-opendata/../etc/passwd"}).encode(),
            "pdf_url outside",
        ),
        (json.dumps({**_GOOD, "xml_url": "s3://pmc-oa-opendata/"}).encode(), "xml_url outside"),
    ],
    ids=[
        "html",
        "not-utf8",
        "array",
        "other-article",
        "no-pmcid",
        "other-version",
        "version-as-string",
        "url-not-string",
        "https-url",
        "dot-dot",
        "empty-key",
    ],
)
def test_malformed_metadata_is_refused(body: bytes, message: str) -> None:
    """Each would otherwise become metadata about the wrong article or a file off the bucket."""
    with pytest.raises(PmcAnswerError, match=message) as caught:
        parse_metadata(body, "PMC9991001", 2)
    assert isinstance(caught.value, NetworkError)  # so fetch_pmc reports it as unavailable


def test_metadata_fields_are_normalised_conservatively() -> None:
    """Only a JSON ``true`` opens the text; odd field types become None, md5s lower-case."""
    record = {
        "pmcid": "pmc9991001",
        "pmid": 99910001,
        "doi": "  ",
        "title": True,
        "license_code": ["CC BY"],
        "is_pmc_openaccess": "true",
        "is_manuscript": 1,
        "is_retracted": "yes",
        "xml_url": "s3://pmc-oa-opendata/PMC9991001.2/PMC9991001.2.xml?md5=" + "AB" * 16,
        "text_url": "s3://pmc-oa-opendata/PMC9991001.2/PMC9991001.2.txt?md5=not-a-digest",
        "pdf_url": "s3://pmc-oa-opendata/PMC9991001.2/PMC9991001.2.pdf"
        f"?md5={'a' * 32}&md5={'b' * 32}",
    }
    meta = parse_metadata(json.dumps(record).encode(), "PMC9991001", 2)  # no "version": accepted
    assert meta.pmcid == "PMC9991001" and meta.version == 2
    assert meta.pmid == "99910001"
    assert meta.doi is None and meta.title is None and meta.license_code is None
    assert meta.is_open_access is False
    # "yes" is not a JSON boolean: the bucket did not say, which is not "not retracted"
    assert meta.is_manuscript is False and meta.is_retracted is None
    assert meta.xml_md5 == "ab" * 16
    assert meta.text_url == f"{BUCKET_URL}/PMC9991001.2/PMC9991001.2.txt"
    assert meta.text_md5 is None  # malformed: the fetch will refuse the file
    assert meta.pdf_md5 is None  # ambiguous: two md5 values
    assert meta.file("xml") == (meta.xml_url, meta.xml_md5)
    assert meta.file("text") == (meta.text_url, None)


def test_metadata_that_is_malformed_in_the_bucket_is_unavailable() -> None:
    """End to end: unreadable metadata JSON ends as unavailable, with no metadata claimed."""
    url = f"{BUCKET_URL}/PMC9991001.2/PMC9991001.2.json"
    transport = ReplayTransport([_rec(url, b"{truncated", name="bad-meta")])
    result = run(_fetch(transport, "PMC9991001.2"))
    assert result.outcome.kind == "unavailable"
    assert "not valid JSON" in (result.outcome.reason or "")
    assert result.metadata is None


@pytest.mark.parametrize("version", [0, -1])
def test_versions_below_one_are_refused(version: int) -> None:
    with pytest.raises(BadInputError, match="versions start at 1"):
        run(_fetch(ReplayTransport([]), "PMC9991001", version=version))
