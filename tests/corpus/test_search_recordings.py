"""Searches on the real recorded answers in the shared corpus.

Replayed through ``run_search``/``citing`` with ``ReplayTransport`` where our request is the
recorded one (litcheck-mcp's Europe PMC, E-utilities esearch, LitSense and OpenAlex
recordings; tekmeria's openFDA pages).  The recorded esummary was a GET and ours is a form
POST with the same parameters: the replay transport answers a form POST nobody recorded as a
POST from the GET of the same parameters (as ``citeproof search --replay`` does).
Recordings made with parameters we do not send (tekmeria's Europe PMC
``resultType=core&cursorMark=*`` searches and E-utilities ``sort=relevance`` searches,
pyEuropePMC's search bodies) are parsed directly: their bodies are served by a
MockTransport to our requests, and the test says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest

from citeproof.models.search import SearchRecord
from citeproof.net.recordings import load_litcheck, load_tekmeria
from citeproof.net.replay import ReplayTransport
from citeproof.search.queries import citing, run_search
from replay_clients import litcheck_replay, run


@pytest.fixture
def litcheck(corpus: Path) -> ReplayTransport:
    return litcheck_replay()


def _meta_sha(corpus: Path, name: str) -> str:
    meta = json.loads((corpus / "litcheck-fixtures" / f"{name}.meta.json").read_text())
    return str(meta["body_sha256"])


def test_europepmc_search_replays(corpus: Path, litcheck: ReplayTransport) -> None:
    record = run(
        litcheck, lambda c: run_search("europepmc", "arteriosclerosis large-artery elasticity", c)
    )
    assert litcheck.refused == []
    assert record.status == "ok" and record.hit_count == 1565 and len(record.items) == 25
    assert record.next_cursor == "AoIIQEGnlSg1NTQxMjU4Ng=="
    assert [r.sha256 for r in record.responses] == [
        _meta_sha(corpus, "epmc-search-arteriosclerosis-large-artery-elasticity")
    ]
    assert all(
        item.id.split(":")[0]
        in {"pmid", "pmcid", "ppr", "agr", "cba", "ctx", "eth", "hir", "pat", "med"}
        for item in record.items
    )


def test_pubmed_search_replays_esearch_and_esummary(
    corpus: Path, litcheck: ReplayTransport
) -> None:
    record = run(
        litcheck,
        lambda c: run_search(
            "pubmed", "ELSA-Brasil coronary artery calcium", c, limit=5, since="2015", until="2017"
        ),
    )
    assert litcheck.refused == []
    assert record.status == "ok" and record.hit_count == 10
    assert [i.id for i in record.items] == [
        "pmid:28647689",
        "pmid:28302272",
        "pmid:27901176",
        "pmid:27488360",
        "pmid:27236256",
    ]
    assert all(item.title for item in record.items)
    assert [r.sha256 for r in record.responses] == [
        _meta_sha(corpus, "eutils-esearch-elsa-brasil-calcium"),
        _meta_sha(corpus, "eutils-esummary-elsa-brasil-calcium"),
    ]
    assert [r.method for r in record.responses] == ["GET", "POST"]
    assert record.next_cursor == "5"


def test_litsense_search_replays(corpus: Path, litcheck: ReplayTransport) -> None:
    record = run(
        litcheck,
        lambda c: run_search(
            "litsense",
            "arteriosclerosis functional depletion of large-artery elasticity",
            c,
            limit=10,
        ),
    )
    assert litcheck.refused == []
    assert record.status == "ok" and len(record.items) == 10 and record.hit_count is None
    assert record.items[0].id == "pmcid:PMC3910517" and record.items[0].section == "DISCUSS"
    assert record.responses[0].sha256 == _meta_sha(
        corpus, "litsense-sentences-large-artery-elasticity"
    )


def test_citing_replays_openalex_cites(corpus: Path, litcheck: ReplayTransport) -> None:
    record = run(litcheck, lambda c: citing("https://openalex.org/W2474002222", c))
    assert litcheck.refused == []
    assert record.status == "ok" and record.hit_count == 5
    assert record.params == {"filter": "cites:W2474002222", "per_page": "25"}
    assert record.log_payload()["ids"][0] == "openalex:W3005729285"
    assert record.responses[0].sha256 == _meta_sha(corpus, "openalex-cites-w2474002222")


def test_openfda_drug_search_replays_tekmeria(corpus: Path) -> None:
    names = ["1378bad02d89db51b2cb4ce2", "cfe69e6b6c1752c1a20b492a", "34589af539d8218634455307"]
    transport = ReplayTransport(
        [load_tekmeria(corpus / "tekmeria-fixtures" / f"{n}.json") for n in names]
    )

    async def calls(client: httpx2.AsyncClient) -> list[SearchRecord]:
        first = await run_search("openfda", "warfarin", client, limit=3)
        second = await run_search("openfda", "warfarin", client, limit=3, cursor=first.next_cursor)
        none = await run_search("openfda", "zzzqqq not a drug", client, limit=10)
        return [first, second, none]

    first, second, none = run(transport, calls)
    assert transport.refused == []
    assert first.hit_count == 288 and first.next_cursor == "3" and second.next_cursor == "6"
    assert not {i.id for i in first.items} & {i.id for i in second.items}
    assert none.status == "empty" and none.hit_count == 0 and len(none.responses) == 1
    assert none.responses[0].status == 404


def _serve(body: bytes) -> httpx2.MockTransport:
    return httpx2.MockTransport(lambda request: httpx2.Response(200, content=body))


@pytest.mark.parametrize(
    "name",
    [
        "22817cca1b368964b876b4ff",
        "6d6e7c78e75446598ec21737",
        "8f474296131c87f30244147a",
        "90f9d62ee857cc4c25d9cc47",
        "aef517032f9d59f0043c6b58",
        "c04bf146d4a15b143b73b862",
    ],
)
def test_tekmeria_europepmc_bodies_parse(corpus: Path, name: str) -> None:
    """Recorded with resultType=core&cursorMark=*: bodies served directly to our search."""
    recording = load_tekmeria(corpus / "tekmeria-fixtures" / f"{name}.json")
    payload = json.loads(recording.body)
    record = run(_serve(recording.body), lambda c: run_search("europepmc", "q", c, limit=25))
    assert record.hit_count == payload["hitCount"]
    assert len(record.items) == len(payload["resultList"]["result"])
    assert record.status == ("ok" if record.items else "empty")
    assert record.responses[0].sha256 == recording.body_sha256


@pytest.mark.parametrize(
    "name",
    [
        "336580ec7e03381cd2a0b8b5",
        "55f570efc79c7a535cfad57b",
        "72120ed69cf75f3d0bdec508",
        "7cc9069f58a05fca00873331",
        "c992c70e7a0ebd0760ac8ef9",
        "eddc432b3b4d825f58ebfc1f",
    ],
)
def test_tekmeria_esearch_bodies_parse(corpus: Path, name: str) -> None:
    """Recorded with sort=relevance: served directly; esummary answers an empty result."""
    recording = load_tekmeria(corpus / "tekmeria-fixtures" / f"{name}.json")
    expected = json.loads(recording.body)["esearchresult"]

    def handler(request: httpx2.Request) -> httpx2.Response:
        if request.url.path.endswith("esearch.fcgi"):
            return httpx2.Response(200, content=recording.body)
        return httpx2.Response(200, content=b'{"result": {}}')

    record = run(httpx2.MockTransport(handler), lambda c: run_search("pubmed", "q", c))
    assert record.hit_count == int(expected["count"])
    assert [i.id for i in record.items] == [f"pmid:{p}" for p in expected["idlist"]]


@pytest.mark.parametrize(
    ("name", "hits", "items"),
    [
        ("pyeuropepmc-search_cancer.json", 5059039, 25),
        ("pyeuropepmc-search_cancer_core.json", None, None),
        ("pyeuropepmc-search_no_results.json", 0, 0),
    ],
)
def test_pyeuropepmc_bodies_parse(
    corpus: Path, name: str, hits: int | None, items: int | None
) -> None:
    """pyEuropePMC's saved search bodies (no URL recorded): served directly."""
    body = (corpus / "europepmc" / name).read_bytes()
    payload = json.loads(body)
    record = run(_serve(body), lambda c: run_search("europepmc", "cancer", c))
    assert record.hit_count == (payload["hitCount"] if hits is None else hits)
    count = len(payload["resultList"]["result"]) if items is None else items
    assert len(record.items) == count
    assert record.status == ("empty" if count == 0 else "ok")


def test_litcheck_recordings_are_the_ones_described(corpus: Path) -> None:
    for name in (
        "epmc-search-arteriosclerosis-large-artery-elasticity",
        "eutils-esearch-elsa-brasil-calcium",
        "eutils-esummary-elsa-brasil-calcium",
        "litsense-sentences-large-artery-elasticity",
        "openalex-cites-w2474002222",
    ):
        load_litcheck(corpus / "litcheck-fixtures" / f"{name}.meta.json").verify()
