"""PMC Cloud Service source: listing, metadata, md5-verified fetch, and every outcome.

Offline by construction: every client runs on ``ReplayTransport`` (which refuses any request
it was not given) or on an ``httpx2.MockTransport``. The real recordings come from
``../shared/corpus/litcheck-fixtures``; tests that need them skip with a clear reason when the
corpus is not beside the repository.
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

from citeproof.errors import BadInputError
from citeproof.net.client import make_client
from citeproof.net.ratelimit import RateLimiter
from citeproof.net.recordings import Recording, load_folder
from citeproof.net.replay import ReplayTransport
from citeproof.sources.pmc import (
    BUCKET_URL,
    PmcResult,
    fetch_pmc,
    list_versions,
    metadata,
    parse_pmcid,
)

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
