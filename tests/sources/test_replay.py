"""Record and replay: recordings load and verify, requests match them, nothing else gets through.

Offline by construction: every client here runs on ``ReplayTransport``, which refuses any
request it was not given. Corpus tests skip with a clear reason when ``../shared/corpus`` is
not beside the repository.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest

from citeproof.errors import CiteproofError
from citeproof.net.recordings import (
    BodyHashMismatchError,
    Recording,
    RecordingError,
    load_folder,
    load_litcheck,
    load_tekmeria,
    request_key,
    write_recording,
)
from citeproof.net.replay import ReplayTransport, UnrecordedRequestError
from citeproof.redact import strip_secret_params

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"

#: The one litcheck record whose body is not in the corpus; its text lives in
#: pmc-txt/PMC10496602.1.txt, which the MANIFEST marks NOT BYTE-EXACT.
NO_BODY = "pmc-text-pmc10496602.1"

CONTACT = "someone@example.org"
API_KEY = "0123456789abcdef0123456789abcdef0123"

IDCONV = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/"


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    return CORPUS


def _recording(url: str, body: bytes = b'{"ok": true}', name: str = "r1") -> Recording:
    return Recording(
        method="GET",
        url=url,
        status=200,
        headers={"content-type": "application/json", "content-encoding": "gzip"},
        body=body,
        body_sha256=hashlib.sha256(body).hexdigest(),
        date="2026-10-03T23:32:29Z",
        name=name,
    )


def _get(transport: ReplayTransport, url: str, **params: str) -> httpx2.Response:
    async def run() -> httpx2.Response:
        async with httpx2.AsyncClient(transport=transport) as client:
            return await client.get(url, params=params or None)

    return asyncio.run(run())


# --- request keys -------------------------------------------------------------------------


def test_key_ignores_param_order_encoding_and_contact_params() -> None:
    recorded = request_key(
        "get", IDCONV + "?ids=10.1016/s0140-6736%2897%2911096-0&idtype=doi&format=json"
    )
    sent = request_key(
        "GET",
        "https://PMC.ncbi.nlm.nih.gov:443/tools/idconv/api/v1/articles/"
        "?format=json&tool=citeproof&email=a%40b.org&idtype=doi"
        "&ids=10.1016%2Fs0140-6736(97)11096-0&api_key=xyz",
    )
    assert recorded == sent
    assert recorded.query == (
        ("format", "json"),
        ("ids", "10.1016/s0140-6736(97)11096-0"),
        ("idtype", "doi"),
    )


def test_key_treats_plus_and_percent20_as_space_and_drops_contact_by_value() -> None:
    a = request_key("GET", "https://x.org/search?query=a+b&mailto=me%40x.org")
    b = request_key("GET", "https://x.org/search?query=a%20b&from=me@x.org", contact="ME@x.org")
    assert a == b


def test_key_keeps_what_identifies_the_resource() -> None:
    base = request_key("GET", "https://x.org/a?q=1")
    assert base != request_key("POST", "https://x.org/a?q=1")
    assert base != request_key("GET", "https://x.org/a?q=2")
    assert base != request_key("GET", "https://y.org/a?q=1")
    assert base != request_key("GET", "https://x.org/b?q=1")
    assert base != request_key("GET", "https://x.org:8443/a?q=1")


def test_strip_secret_params_keeps_the_rest_verbatim() -> None:
    url = (
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed"
        f"&term=a%20b&tool=citeproof&email=someone%40example.org&api_key={API_KEY}&retmax=5"
    )
    assert strip_secret_params(url) == (
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed&term=a%20b&retmax=5"
    )
    assert strip_secret_params("https://u:p@x.org/a?who=" + CONTACT, contact=CONTACT) == (
        "https://x.org/a"
    )


# --- the replay transport -----------------------------------------------------------------


def test_replay_serves_recorded_body_for_reordered_params_with_contact_params() -> None:
    body = b'{"records": []}'
    transport = ReplayTransport(
        [_recording(IDCONV + "?ids=10.1016/s0140-6736%2897%2911096-0&idtype=doi&format=json", body)]
    )
    response = _get(
        transport,
        IDCONV,
        format="json",
        email=CONTACT,
        tool="citeproof",
        api_key=API_KEY,
        idtype="doi",
        ids="10.1016/s0140-6736(97)11096-0",
    )
    assert response.status_code == 200
    assert response.content == body
    assert response.headers["content-type"] == "application/json"
    assert "content-encoding" not in response.headers  # the stored body is already decoded
    assert transport.used["r1"] == 1
    assert transport.unused() == []


def test_replay_works_for_sync_clients() -> None:
    transport = ReplayTransport([_recording("https://x.org/a?q=1", b"hello")])
    with httpx2.Client(transport=transport) as client:
        assert client.get("https://x.org/a", params={"q": "1"}).content == b"hello"


def test_unrecorded_request_is_refused_loudly_with_nearest_keys() -> None:
    transport = ReplayTransport([_recording("https://x.org/a?q=1")])
    with pytest.raises(UnrecordedRequestError) as info:
        _get(transport, "https://x.org/a", q="2", email=CONTACT)
    message = str(info.value)
    assert "GET x.org/a?q=2" in message
    assert "GET x.org/a?q=1" in message  # the nearest recorded request, to show what differs
    assert CONTACT not in message
    assert transport.refused == [info.value.key]
    # Not a transport error: sources must not be able to turn it into a quiet UNAVAILABLE.
    assert not isinstance(info.value, httpx2.TransportError)
    assert isinstance(info.value, CiteproofError)


def test_transport_refuses_a_body_whose_sha256_differs() -> None:
    bad = _recording("https://x.org/a", b"original")
    tampered = dataclasses.replace(bad, body=b"tampered")
    with pytest.raises(BodyHashMismatchError, match=bad.body_sha256):
        ReplayTransport([tampered])


def test_conflicting_recordings_of_one_request_are_refused() -> None:
    with pytest.raises(RecordingError, match="same request"):
        ReplayTransport(
            [
                _recording("https://x.org/a?q=1&r=2", b"one", "first"),
                _recording("https://x.org/a?r=2&q=1", b"two", "second"),
            ]
        )


# --- writing ------------------------------------------------------------------------------


def test_write_recording_round_trips_without_contact_or_key(tmp_path: Path) -> None:
    body = b'{"esearchresult": {"count": "3"}}'
    url = (
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed&term=x"
        f"&tool=citeproof&email={CONTACT.replace('@', '%40')}&api_key={API_KEY}"
    )
    written = write_recording(
        tmp_path,
        "eutils-esearch-x",
        url=url,
        status=200,
        headers=[
            ("Content-Type", "application/json"),
            ("Set-Cookie", "ncbi_sid=abc"),
            ("X-Echo", f"request from {CONTACT}"),
        ],
        body=body,
        date=datetime(2026, 10, 3, 23, 32, 29, tzinfo=UTC),
        contact=CONTACT,
        secrets=[API_KEY],
    )
    again = load_litcheck(tmp_path / "eutils-esearch-x.meta.json")
    assert again == written
    assert again.body == body
    assert again.headers == {"content-type": "application/json"}
    assert again.date == "2026-10-03T23:32:29Z"
    assert (
        again.url == "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi?db=pubmed&term=x"
    )
    for path in tmp_path.iterdir():
        data = path.read_bytes().lower()
        for secret in (CONTACT, CONTACT.replace("@", "%40"), API_KEY, "ncbi_sid"):
            assert secret.lower().encode() not in data, (path.name, secret)
    # The written pair replays for the request as the client will send it.
    response = _get(
        ReplayTransport.from_folder(tmp_path, contact=CONTACT, secrets=[API_KEY]),
        "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi",
        term="x",
        db="pubmed",
        api_key=API_KEY,
        email=CONTACT,
    )
    assert response.content == body


def test_write_recording_refuses_a_body_that_leaks_the_contact(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="contact address"):
        write_recording(
            tmp_path,
            "leaky",
            url="https://x.org/a",
            status=200,
            headers={},
            body=f"hello {CONTACT}".encode(),
            date=datetime(2026, 1, 1, tzinfo=UTC),
            contact=CONTACT,
        )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["../escape", "a/b", ".hidden", ""])
def test_write_recording_refuses_unsafe_names(tmp_path: Path, name: str) -> None:
    with pytest.raises(RecordingError, match="plain file name"):
        write_recording(
            tmp_path,
            name,
            url="https://x.org/a",
            status=200,
            headers={},
            body=b"",
            date=datetime(2026, 1, 1, tzinfo=UTC),
        )


# --- the real corpus ----------------------------------------------------------------------


def test_every_litcheck_recording_loads_and_verifies(corpus: Path) -> None:
    folder = corpus / "litcheck-fixtures"
    metas = sorted(folder.glob("*.meta.json"))
    assert metas
    loaded = load_folder(folder, skip_incomplete=True)
    names = {r.name for r in loaded}
    for meta in metas:
        name = meta.name.removesuffix(".meta.json")
        if name == NO_BODY:
            assert name not in names
            continue
        assert name in names
    for recording in loaded:
        recording.verify()
        assert recording.method == "GET"
        assert all(key == key.lower() for key in recording.headers)
    # Without skip_incomplete the missing body is an error that names the record.
    with pytest.raises(RecordingError, match=NO_BODY):
        load_folder(folder)


def test_the_not_byte_exact_pmc_text_fails_its_recorded_sha256(
    corpus: Path, tmp_path: Path
) -> None:
    shutil.copy(corpus / "litcheck-fixtures" / f"{NO_BODY}.meta.json", tmp_path)
    shutil.copy(corpus / "pmc-txt" / "PMC10496602.1.txt", tmp_path / f"{NO_BODY}.body")
    with pytest.raises(BodyHashMismatchError) as info:
        load_litcheck(tmp_path / f"{NO_BODY}.meta.json")
    message = str(info.value)
    recorded = json.loads((tmp_path / f"{NO_BODY}.meta.json").read_text())["body_sha256"]
    actual = hashlib.sha256((tmp_path / f"{NO_BODY}.body").read_bytes()).hexdigest()
    assert recorded in message and actual in message and f"{NO_BODY}.body" in message


def test_a_tampered_corpus_body_raises(corpus: Path, tmp_path: Path) -> None:
    name = "idconv-pmid-27355798"
    shutil.copy(corpus / "litcheck-fixtures" / f"{name}.meta.json", tmp_path)
    body = (corpus / "litcheck-fixtures" / f"{name}.body").read_bytes()
    (tmp_path / f"{name}.body").write_bytes(body + b" ")
    with pytest.raises(BodyHashMismatchError, match=name):
        ReplayTransport.from_folder(tmp_path)


def test_every_tekmeria_record_loads(corpus: Path) -> None:
    folder = corpus / "tekmeria-fixtures"
    records = [p for p in folder.glob("*.json") if "url" in json.loads(p.read_text())]
    loaded = load_folder(folder)
    assert len(loaded) == len(records) > 0  # scenario.json is not a record and is skipped
    for recording in loaded:
        assert recording == load_tekmeria(folder / f"{recording.name}.json")
        recording.verify()
        assert "content-type" in recording.headers


def test_corpus_recordings_replay_for_rebuilt_requests(corpus: Path) -> None:
    litcheck = ReplayTransport.from_folder(corpus / "litcheck-fixtures", skip_incomplete=True)
    expected = corpus / "litcheck-fixtures" / "idconv-doi-10.1016-s0140-6736-97-11096-0.body"
    response = _get(
        litcheck,
        IDCONV,
        idtype="doi",
        ids="10.1016/s0140-6736(97)11096-0",
        format="json",
        tool="citeproof",
        email=CONTACT,
    )
    assert response.content == expected.read_bytes()

    tekmeria = ReplayTransport.from_folder(corpus / "tekmeria-fixtures")
    response = _get(
        tekmeria,
        "https://api.crossref.org/v1/works",
        rows="20",
        filter="updates:10.1016/s0140-6736(97)11096-0",
        mailto=CONTACT,
    )
    assert response.status_code == 200
    assert response.json()["message"]["items"]
