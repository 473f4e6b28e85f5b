"""LitSense sentence search: the recorded answer in the corpus replayed as is, the limit,
and answers that cannot be read."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest

from citeproof.errors import NetworkError
from citeproof.net.replay import ReplayTransport
from citeproof.sources import litsense
from replay_clients import run

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
