"""LitSense sentence search: recorded answers replayed as is, the limit, and answers that
cannot be read.

Two layers of recordings: INVENTED ones in ``tests/sources/invented/litsense-*`` (made-up
sentences and PMIDs/PMCIDs in LitSense 2.0's real JSON format), which a fresh clone replays;
and the real recording in the corpus, whose tests skip when ``../shared/corpus`` is absent.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx2
import pytest

from citeproof.errors import NetworkError, UpstreamUnavailableError
from citeproof.net.recordings import load_litcheck
from citeproof.net.replay import ReplayTransport
from citeproof.sources import litsense
from replay_clients import CONTACT, FakeTime, fake_client, run

QUERY = "arteriosclerosis functional depletion of large-artery elasticity"


def test_recorded_sentences_replay(litcheck: ReplayTransport) -> None:
    transport = litcheck
    found = run(transport, lambda c: litsense.sentences(c, QUERY))
    assert transport.refused == []
    assert len(found) == 100
    first = found[0]
    assert first.pmid == "24511534" and first.pmcid == "PMC3910517"
    assert first.section == "DISCUSS"
    assert first.score is not None and 0 < first.score <= 1
    assert "large artery elasticity" in first.text
    scores = [s.score for s in found if s.score is not None]
    assert len(scores) == 100


def test_limit_keeps_the_first_ranked(litcheck: ReplayTransport) -> None:
    transport = litcheck
    all_found = run(transport, lambda c: litsense.sentences(c, QUERY))
    three = run(transport, lambda c: litsense.sentences(c, QUERY, limit=3))
    assert three == all_found[:3]


def test_limit_range() -> None:
    for bad in (0, 101):
        with pytest.raises(ValueError):
            asyncio.run(litsense.sentences(httpx2.AsyncClient(), "q", limit=bad))
    with pytest.raises(ValueError):
        litsense.sentences_params("  ")


@pytest.mark.parametrize(("status", "body"), [(500, b"[]"), (200, b"{}"), (200, b"<html>")])
def test_unreadable_answers_raise(status: int, body: bytes) -> None:
    transport = httpx2.MockTransport(lambda r: httpx2.Response(status, content=body))
    with pytest.raises(NetworkError):
        run(transport, lambda c: litsense.sentences(c, "q"))


def test_entries_without_text_are_skipped() -> None:
    payload = [
        {"pmid": 1, "text": ""},
        {"pmid": 2, "text": "kept", "score": True},
        {"pmcid": "pmc5", "text": "x", "score": 0.5, "section": ""},
    ]
    transport = httpx2.MockTransport(
        lambda r: httpx2.Response(200, content=json.dumps(payload).encode())
    )
    found = run(transport, lambda c: litsense.sentences(c, "q"))
    assert [(s.pmid, s.pmcid, s.score, s.section) for s in found] == [
        ("2", None, None, None),
        (None, "PMC5", 0.5, None),
    ]


# --- INVENTED recordings (tests/sources/invented/litsense-*) -------------------------------------

INVENTED = Path(__file__).resolve().parent / "invented"
INVENTED_QUERY = "invented functional depletion of fictional artery elasticity"
FULL = "litsense-sentences-invented-artery-elasticity"


def invented() -> ReplayTransport:
    """Every invented LitSense recording, each verified against its sha256."""
    paths = sorted(INVENTED.glob("litsense-*.meta.json"))
    return ReplayTransport([load_litcheck(path) for path in paths])


def test_invented_recordings_are_labelled() -> None:
    """A fixture that loses its INVENTED label would pass for a real answer."""
    metas = sorted(INVENTED.glob("litsense-*.meta.json"))
    assert len(metas) >= 3
    for path in metas:
        record = json.loads(path.read_text(encoding="utf-8"))
        assert record["provenance"].startswith("INVENTED for citeproof's tests"), path.name
    assert len(invented().recordings) == len(metas)


def test_invented_sentences_replay() -> None:
    """Mirrors the corpus test: a full answer of 100 ranked sentences, read field by field."""
    transport = invented()
    found = run(transport, lambda c: litsense.sentences(c, INVENTED_QUERY))
    assert transport.used == {FULL: 1} and transport.refused == []
    raw = json.loads((INVENTED / f"{FULL}.body").read_bytes())
    assert len(found) == len(raw) == litsense.MAX_RESULTS
    first = found[0]
    assert first.pmid == "99950000" and first.pmcid == "PMC9995000"  # pmid: a JSON number
    assert first.section == "DISCUSS"
    assert first.text.startswith(" On the other hand")  # the leading space is kept
    assert "invented large artery elasticity" in first.text
    assert first.score == raw[0]["score"] and 0 < first.score <= 1
    scores = [s.score for s in found]
    assert None not in scores and scores == sorted(scores, reverse=True)  # served order kept
    abstracts = [s for s in found if s.section in ("abstract", "title")]
    assert abstracts and all(s.pmcid is None for s in abstracts)  # null pmcid: no full text
    assert [s.pmid for s in found] == [str(r["pmid"]) for r in raw]


def test_invented_limit_keeps_the_first_ranked() -> None:
    transport = invented()
    everything = run(transport, lambda c: litsense.sentences(c, INVENTED_QUERY))
    three = run(transport, lambda c: litsense.sentences(c, INVENTED_QUERY, limit=3))
    one = run(transport, lambda c: litsense.sentences(c, INVENTED_QUERY, limit=1))
    assert three == everything[:3] and one == everything[:1]
    assert transport.used == {FULL: 3}  # the limit is applied here, not sent


def test_invented_sentences_with_a_contact_on_the_stack() -> None:
    """LitSense gets no contact parameters, and the replayed answer matches either way."""
    seen: list[httpx2.URL] = []
    transport = invented()

    class Spy(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            seen.append(request.url)
            return await transport.handle_async_request(request)

    async def go() -> list[litsense.Sentence]:
        async with fake_client(Spy(), contact=CONTACT, api_key="k3y") as client:
            return await litsense.sentences(client, INVENTED_QUERY, limit=2)

    found = asyncio.run(go())
    assert len(found) == 2
    (url,) = seen
    assert set(url.params) == {"query", "rerank"}
    assert url.params["query"] == INVENTED_QUERY and url.params["rerank"] == "true"


def test_invented_no_match_is_an_empty_list() -> None:
    transport = invented()
    found = run(transport, lambda c: litsense.sentences(c, "zzqx invented nonsense zzqx"))
    assert found == []
    assert transport.used == {"litsense-sentences-no-match": 1}


def test_invented_503_raises_after_the_retries() -> None:
    """A 503 must raise (unavailable), never read as "no sentences"."""
    transport, fake = invented(), FakeTime()

    async def go(client: httpx2.AsyncClient) -> list[litsense.Sentence]:
        async with client:
            return await litsense.sentences(client, "invented outage")

    with pytest.raises(UpstreamUnavailableError, match="503 three times"):
        asyncio.run(go(fake_client(transport, fake=fake)))
    assert transport.used == {"litsense-sentences-unavailable": 3}
    with pytest.raises(NetworkError, match="LitSense answered HTTP 503 to a sentence search"):
        asyncio.run(go(httpx2.AsyncClient(transport=invented())))


def test_odd_identifier_types_become_none() -> None:
    """A float, list or blank id is not an identifier; a bool score is not a score."""
    payload = [
        {"pmid": 1.5, "pmcid": ["PMC1"], "text": " a", "score": 1},
        {"pmid": " ", "pmcid": False, "text": " b", "section": 3, "score": "0.5"},
        {"text": None},
        "not an object",
    ]
    transport = httpx2.MockTransport(
        lambda r: httpx2.Response(200, content=json.dumps(payload).encode())
    )
    found = run(transport, lambda c: litsense.sentences(c, "q"))
    assert [(s.pmid, s.pmcid, s.section, s.score) for s in found] == [
        (None, None, None, 1.0),
        (None, None, None, None),
    ]
