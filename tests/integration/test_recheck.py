"""``citeproof recheck``: the logged checks re-run against fresh bytes, and what changed.

The "upstream change" is played by a second replay folder serving a reworded JATS for
PMC3166277; a retraction that appears later, by importing the invented Retraction Watch
example CSV between the check and the recheck.  No network.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

from citeproof.evidence.log import EvidenceLog
from citeproof.evidence.recheck import since_time
from citeproof.store.cache import Cache
from citeproof.store.paths import default_dirs
from pmc_replay import QUOTE, jats, pmc_replay

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = REPO / "examples" / "retraction-watch-invented.csv"
TEXT = "An invented example text: mulch kept the beds moist through the dry summer months."
WORDS = "mulch kept the beds moist through the dry summer months"


def test_a_reworded_source_is_reported_and_the_rerun_logged(
    run_cli: CliRun, tmp_path: Path
) -> None:
    replay = pmc_replay(tmp_path / "replay")
    assert run_cli("check", "--json", QUOTE, "PMC3166277", "--replay", replay).exit_code == 0
    code, same = run_cli.json("recheck", "--json", "--replay", replay)
    assert code == 0
    (item,) = same["items"]
    assert (item["state"], item["bytes_changed"], item["verdict_changed"]) == (
        "rechecked",
        False,
        False,
    )
    changed = jats().replace(b"timing of host lysis", b"timing of cell lysis", 1)
    newer = pmc_replay(tmp_path / "newer", changed)
    code, report = run_cli.json("recheck", "--json", "--replay", newer)
    assert code == 1
    (item,) = report["items"]  # the re-run logged above is the same check: re-run once
    assert item["seq"] == 2
    assert item["bytes_changed"] is True
    assert (item["then"]["verdict"], item["now"]["verdict"]) == ("EXACT", "NEAR")
    assert item["verdict_changed"] is True
    assert item["now"]["sha256"] == hashlib.sha256(changed).hexdigest()
    assert report["changed"] == 1
    rerun = EvidenceLog(default_dirs().log).get(item["log_seq"])
    assert rerun.payload["recheck_of"] == 2
    assert rerun.payload["verdict"] == "NEAR"


def test_a_retraction_that_appeared_since_is_reported(run_cli: CliRun) -> None:
    doi = "10.5555/invented.retracted.1"
    with Cache(default_dirs().cache_db) as cache:
        cache.pin(
            f"doi:{doi}",
            TEXT.encode(),
            retrieved_at="2026-01-02T03:04:05Z",
            served_by="web",
            media_type="text/plain",
            meta={"coverage": "page"},
        )
    before = run_cli("check", "--json", "--offline", WORDS, doi)
    assert json.loads(before.stdout)["retraction"]["status"] == "UNVERIFIABLE"
    assert run_cli("retractions", "import", SNAPSHOT, "--as-of", "2025-03-01").exit_code == 0
    code, report = run_cli.json("recheck", "--json", "--offline")
    assert code == 1
    (item,) = report["items"]
    assert item["newly_retracted"] is True
    assert (item["then"]["retraction"], item["now"]["retraction"]) == ("UNVERIFIABLE", "RETRACTED")
    assert item["bytes_changed"] is False and item["verdict_changed"] is False


def test_text_on_stdin_cannot_be_rechecked_and_since_filters(
    run_cli: CliRun, tmp_path: Path
) -> None:
    assert run_cli("check", "--json", WORDS, "-", input=TEXT).exit_code == 0
    code, report = run_cli.json("recheck", "--json")
    assert code == 3
    (item,) = report["items"]
    assert item["state"] == "not_rechecked"
    assert "cannot be read again" in item["reason"]
    code, later = run_cli.json("recheck", "--json", "--since", "2999-01-01")
    assert (code, later["items"]) == (0, [])
    assert run_cli("recheck", "--since", "last tuesday").exit_code == 2


def test_a_moved_quote_and_a_deleted_file(run_cli: CliRun, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    gone = tmp_path / "gone.txt"
    gone.write_text(TEXT)
    for source in (notes, gone):
        assert run_cli("check", "--json", WORDS, source).exit_code == 0
    notes.write_text("A new first sentence. " + TEXT)
    gone.unlink()
    code, report = run_cli.json("recheck", "--json", "--no-log")
    assert code == 1
    moved, deleted = report["items"]
    assert moved["moved"] is True and moved["bytes_changed"] is True
    assert moved["now"]["start"] == moved["then"]["start"] + len("A new first sentence. ")
    assert moved["log_seq"] is None
    assert deleted["state"] == "not_rechecked" and "no longer exists" in deleted["reason"]
    assert EvidenceLog(default_dirs().log).size == 2  # --no-log: nothing appended


def test_no_log_yet_is_bad_input(run_cli: CliRun) -> None:
    result = run_cli("recheck")
    assert result.exit_code == 2
    assert "no evidence log" in result.stderr


def test_since_is_compared_in_utc() -> None:
    assert since_time("2026-01-02") == "2026-01-02T00:00:00.000000Z"
    assert since_time("2026-01-02T01:00:00+02:00") == "2026-01-01T23:00:00.000000Z"
