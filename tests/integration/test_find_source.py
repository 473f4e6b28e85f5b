"""``check --find-source``: a misquote traced to the document that verifiably holds its words.

The documents are invented example texts pinned straight into a fresh cache (their keys are
made-up PMCIDs), or the corpus JATS of PMC3166277 served by a replay folder; search engines
are either replaced by test providers or answered by recorded responses.  No test touches
the network.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2
import pytest

from citeproof import service
from citeproof.net.client import make_client
from citeproof.net.recordings import load_litcheck
from citeproof.net.replay import ReplayTransport
from citeproof.net.session import Mode, Session
from citeproof.search.candidates import europepmc_candidates, litsense_candidates, search_words
from citeproof.search.finder import Candidates, find_elsewhere
from citeproof.store.cache import Cache
from citeproof.store.paths import default_dirs
from pmc_replay import CORPUS, MISSING, QUOTE, pmc_replay

if TYPE_CHECKING:
    from conftest import CliRun

WHEN = "2026-01-02T03:04:05Z"
REAL = (
    "In the cohort, daily walking reduced the risk of stroke by a third over ten years of "
    "follow-up, while cycling showed no measurable effect on the same outcome."
)
CITED = "The cited paper is about something else entirely: soil microbes in alpine meadows."
MISQUOTE = "daily walking reduced the risk of stroke by a third over ten years of follow-up"
CLOSE = "daily walking reduced the risk of stroke by a half over ten years of follow-up"


pytestmark = pytest.mark.usefixtures("home")


def pin_text(key: str, text: str) -> None:
    with Cache(default_dirs().cache_db) as cache:
        cache.pin(
            key,
            text.encode(),
            retrieved_at=WHEN,
            served_by="pmc",
            media_type="text/plain",
            meta={"coverage": "full_text"},
        )


def test_a_misquote_is_traced_to_a_cached_document(run_cli: CliRun, tmp_path: Path) -> None:
    pin_text("pmcid:PMC9000001", REAL)
    pin_text("pmcid:PMC9000002", "An unrelated example text about rainfall and maize yields.")
    cited = tmp_path / "cited.txt"
    cited.write_text(CITED)
    code, data = run_cli.json("check", "--json", "--find-source", "--offline", MISQUOTE, cited)
    assert (code, data["verdict"]) == (1, "NOT_FOUND")
    (hit,) = data["found_elsewhere"]
    assert hit["identifier"] == "pmcid:PMC9000001"
    assert (hit["verdict"], hit["via"]) == ("EXACT", "cache")
    assert REAL[hit["start"] : hit["end"]] == MISQUOTE
    places = {p["where"]: p for p in data["searched_elsewhere"]}
    assert places["cache"] == {
        "where": "cache",
        "state": "answered",
        "reason": None,
        "candidates": 2,
        "verified": 1,
    }
    # Offline, the search engines are not asked, and the result says so.
    assert places["europepmc"]["state"] == places["litsense"]["state"] == "not_asked"


def test_without_the_flag_or_on_exact_nothing_is_searched(run_cli: CliRun, tmp_path: Path) -> None:
    pin_text("pmcid:PMC9000001", REAL)
    cited = tmp_path / "cited.txt"
    cited.write_text(CITED)
    _, plain = run_cli.json("check", "--json", "--offline", MISQUOTE, cited)
    assert plain["found_elsewhere"] is None and plain["searched_elsewhere"] is None
    cited.write_text(REAL)
    code, exact = run_cli.json("check", "--json", "--offline", "--find-source", MISQUOTE, cited)
    assert code == 0
    assert exact["found_elsewhere"] is None and exact["searched_elsewhere"] is None


def test_offline_without_a_cache_looks_but_creates_none(run_cli: CliRun, tmp_path: Path) -> None:
    cited = tmp_path / "cited.txt"
    cited.write_text(CITED)
    code, result = run_cli.json("check", "--json", "--offline", "--find-source", MISQUOTE, cited)
    assert code == 1 and result["verdict"] == "NOT_FOUND"
    assert result["found_elsewhere"] == []
    cache_place, *engines = result["searched_elsewhere"]
    assert cache_place["where"] == "cache" and cache_place["state"] == "answered"
    assert cache_place["candidates"] == 0 and cache_place["reason"] == "nothing is cached yet"
    assert [p["state"] for p in engines] == ["not_asked", "not_asked"]
    assert not default_dirs().cache_db.exists()


def test_a_near_elsewhere_is_reported_only_when_closer_than_the_cited_one(
    run_cli: CliRun,
    tmp_path: Path,
) -> None:
    cited = tmp_path / "cited.txt"
    cited.write_text(REAL)  # the cited paper says "a third"; the quote says "a half"
    pin_text("pmcid:PMC9000003", REAL.replace("walking", "running"))  # farther than the cited
    _, data = run_cli.json("check", "--json", "--find-source", "--offline", CLOSE, cited)
    assert data["verdict"] == "NEAR"
    assert data["found_elsewhere"] == []
    pin_text("pmcid:PMC9000004", REAL.replace("a third", "a half"))  # the words, verbatim
    _, data = run_cli.json("check", "--json", "--find-source", "--offline", CLOSE, cited)
    assert [h["identifier"] for h in data["found_elsewhere"]] == ["pmcid:PMC9000004"]


def test_the_cited_source_itself_is_never_found_elsewhere(run_cli: CliRun) -> None:
    pin_text("pmcid:PMC9000001", CITED)
    pin_text("pmcid:PMC9000005", CITED)  # the same bytes under another key
    _, data = run_cli.json("check", "--json", "--find-source", "--offline", MISQUOTE, "PMC9000001")
    assert data["verdict"] == "NOT_FOUND"
    assert data["found_elsewhere"] == []
    # The same bytes under another key are the cited source too: nothing else was read.
    assert data["searched_elsewhere"][0]["candidates"] == 0


def _run_finder(tmp_path: Path, providers: list[tuple[str, Any]], replay: Path | None) -> Any:
    cited = tmp_path / "cited.txt"
    cited.write_text(CITED)
    options = service.match_options()
    result = service.check(QUOTE, cited)
    with Cache(default_dirs().cache_db) as cache:
        return find_elsewhere(
            QUOTE,
            result,
            options,
            mode=Mode(replay=replay),
            offline=False,
            cache=cache,
            check=service.check_document,
            providers=providers,
        )


def test_remote_candidates_are_fetched_pinned_and_verified(run_cli: CliRun, tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")

    async def suggests(quote: str, session: Session) -> Candidates:
        # PMC9999999 is not recorded: it must be reported as unreadable, not as absent.
        return Candidates("answered", ("PMC3166277", "PMC3166277", "PMC9999999", "not-an-id"))

    async def broken(quote: str, session: Session) -> Candidates:
        return Candidates("failed", reason="LitSense sentence search failed: HTTP 503")

    result = _run_finder(tmp_path, [("europepmc", suggests), ("litsense", broken)], replay)
    (hit,) = result.found_elsewhere
    assert (hit.identifier, hit.verdict, hit.via) == ("pmcid:PMC3166277", "EXACT", "europepmc")
    assert hit.location.region == "abstract"
    europepmc, litsense = result.searched_elsewhere[1:]
    assert (europepmc.candidates, europepmc.verified) == (2, 1)
    assert "pmcid:PMC9999999" in europepmc.reason
    assert litsense.state == "failed"
    assert litsense.reason == "LitSense sentence search failed: HTTP 503"
    # The candidate was pinned: a later offline check reads it without any request.
    _, again = run_cli.json("check", "--json", "--offline", QUOTE, "PMC3166277")
    assert again["verdict"] == "EXACT"


def test_search_words_drop_editorial_marks() -> None:
    assert search_words("the risk fell ... by a third [sic] in all groups") == "the risk fell"
    assert search_words("a b c") == "a b c"
    assert len(search_words(" ".join(["word"] * 80)).split()) == 30


def _session(transport: httpx2.AsyncBaseTransport) -> Any:
    async def go(engine: Any, quote: str) -> Candidates:
        async with make_client(transport=transport, attempts=1) as client:
            answer: Candidates = await engine(quote, Session(client=client))
            return answer

    return go


def test_litsense_candidates_from_the_recorded_answer() -> None:
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    meta = CORPUS / "litcheck-fixtures" / "litsense-sentences-large-artery-elasticity.meta.json"
    transport = ReplayTransport([load_litcheck(meta)])
    quote = "arteriosclerosis functional depletion of large-artery elasticity"
    answer = asyncio.run(_session(transport)(litsense_candidates, quote))
    assert answer.state == "answered"
    assert answer.identifiers[0] == "PMC3910517"
    assert all(i.startswith(("PMC", "pmid:")) for i in answer.identifiers)


def test_europepmc_candidates_send_an_open_access_phrase_query() -> None:
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    body = (CORPUS / "europepmc" / "pyeuropepmc-search_cancer.json").read_bytes()
    seen: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, content=body, headers={"content-type": "application/json"})

    found = asyncio.run(
        _session(httpx2.MockTransport(answer))(europepmc_candidates, 'the "risk" fell ... by')
    )
    assert found.state == "answered"
    assert found.identifiers and all(i.startswith("PMC") for i in found.identifiers)
    assert seen[0].url.params["query"] == '"the risk fell" AND OPEN_ACCESS:y'


def test_a_failed_search_is_failed_not_empty() -> None:
    def unavailable(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(503)

    for engine in (europepmc_candidates, litsense_candidates):
        found = asyncio.run(_session(httpx2.MockTransport(unavailable))(engine, "some words here"))
        assert found.state == "failed"
        assert "503" in (found.reason or "")


def test_a_search_the_replay_did_not_record_is_failed_and_named() -> None:
    """Under ``--replay``, a search with no recording is a place that could not be searched
    (its reason names the request), like a candidate that could not be read; it never turns
    the whole check (or an audit of many citations) into an error."""
    empty = ReplayTransport([])
    engines = ((europepmc_candidates, "Europe PMC"), (litsense_candidates, "LitSense"))
    for engine, name in engines:
        found = asyncio.run(_session(empty)(engine, "some words here"))
        assert found.state == "failed"
        assert found.identifiers == ()
        assert name in (found.reason or "") and "was not recorded" in (found.reason or "")
