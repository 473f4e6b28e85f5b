"""A check records its evidence line and reports the cited work's retraction status.

No network: identifiers are pinned straight into a fresh cache (invented example texts under
invented keys) or served by the PMC replay folder; the Retraction Watch snapshot is the
invented example CSV shipped in ``examples/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import citeproof
from citeproof.evidence.log import EvidenceLog
from citeproof.store.cache import Cache
from citeproof.store.paths import default_dirs
from pmc_replay import QUOTE, pmc_replay

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = REPO / "examples" / "retraction-watch-invented.csv"
RETRACTED_DOI = "10.5555/invented.retracted.1"  # listed as retracted in the invented CSV
TEXT = "An invented example text: mulch kept the beds moist through the dry summer months."
WORDS = "mulch kept the beds moist through the dry summer months"


def pin_text(key: str, text: str) -> None:
    with Cache(default_dirs().cache_db) as cache:
        cache.pin(
            key,
            text.encode(),
            retrieved_at="2026-01-02T03:04:05Z",
            served_by="web",
            media_type="text/plain",
            meta={"coverage": "page"},
        )


def test_a_check_is_logged_and_the_log_verifies(run_cli: CliRun, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    code, first = run_cli.json("check", "--json", WORDS, notes)
    assert code == 0 and first["log_seq"] == 1
    _, second = run_cli.json("check", "--json", "mulch kept the beds dry", notes)
    assert second["log_seq"] == 2
    log = EvidenceLog(default_dirs().log)
    entry = log.get(2)
    assert entry.kind == "check"
    assert entry.payload["quote"] == "mulch kept the beds dry"
    assert entry.payload["verdict"] == second["verdict"]
    assert entry.payload["source"]["sha256"] == second["source"]["sha256"]
    assert entry.payload["options"] == {"profile": "t1", "near_threshold": 0.9, "max_gap": 3000}
    assert log.verify().ok
    assert run_cli("log", "verify").exit_code == 0


def test_no_log_and_an_explicit_log_file(run_cli: CliRun, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    _, data = run_cli.json("check", "--json", "--no-log", WORDS, notes)
    assert data["log_seq"] is None
    assert not default_dirs().log.exists()
    chosen = tmp_path / "project.jsonl"
    _, data = run_cli.json("check", "--json", "--log", chosen, WORDS, notes)
    assert data["log_seq"] == 1
    assert EvidenceLog(chosen).get(1).payload["quote"] == WORDS
    assert not default_dirs().log.exists()


def test_a_damaged_log_still_shows_the_result_then_says_what_to_do(
    run_cli: CliRun, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    assert run_cli.json("check", "--json", WORDS, notes)[0] == 0
    with default_dirs().log.open("ab") as fh:
        fh.write(b'{"torn": ')  # a write cut short
    result = run_cli("check", "--json", WORDS, notes)
    assert json.loads(result.stdout)["verdict"] == "EXACT"
    assert result.exit_code == 2
    assert "citeproof log repair" in result.stderr


def test_the_library_logs_only_when_asked(tmp_path: Path) -> None:
    assert citeproof.check_text(WORDS, TEXT).log_seq is None
    result = citeproof.check(WORDS, citeproof.load(text=TEXT), log=True)
    assert result.log_seq == 1
    assert citeproof.check(WORDS, citeproof.load(text=TEXT), log=tmp_path / "x.jsonl").log_seq == 1


def test_retraction_status_of_a_cited_identifier(run_cli: CliRun) -> None:
    pin_text(f"doi:{RETRACTED_DOI}", TEXT)
    assert run_cli("retractions", "import", SNAPSHOT, "--as-of", "2025-03-01").exit_code == 0
    code, data = run_cli.json("check", "--json", "--offline", WORDS, RETRACTED_DOI)
    assert code == 0  # the verdict is about the quote; the retraction is reported beside it
    report = data["retraction"]
    assert report["status"] == "RETRACTED"
    by = {s["source"]: s for s in report["sources"]}
    assert by["retractionwatch"]["retracted"] is True
    assert by["crossref"]["state"] == "not_asked"  # offline
    assert EvidenceLog(default_dirs().log).get(data["log_seq"]).payload["retraction"] == {
        "status": "RETRACTED",
        "as_of": None,
        "by": ["retractionwatch"],
    }
    _, quiet = run_cli.json("check", "--json", "--offline", "--no-retraction", WORDS, RETRACTED_DOI)
    assert quiet["retraction"] is None


def test_no_retraction_status_for_files_and_unverifiable_when_sources_fail(
    run_cli: CliRun,
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    assert run_cli.json("check", "--json", WORDS, notes)[1]["retraction"] is None
    # The PMC replay folder holds no Crossref, PubMed or Europe PMC answers: those sources
    # fail, and the status is UNVERIFIABLE with the reason, never NOT_RETRACTED.
    replay = pmc_replay(tmp_path / "replay")
    _, data = run_cli.json("check", "--json", QUOTE, "PMC3166277", "--replay", replay)
    assert data["verdict"] == "EXACT"
    report = data["retraction"]
    assert report["status"] == "UNVERIFIABLE"
    assert "crossref" in report["reason"]


@pytest.fixture(autouse=True)
def _no_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEPROOF_REPLAY", raising=False)
