"""``check ... && publish`` must stop on a retracted work, and a misquote says what the source
says instead.

The verdict is about the quote, so a quote found in a retracted paper is still EXACT (exit 0);
``--fail-on-retracted`` is how a script asks for exit 1 then.  On a terminal, a NEAR shows the
closest passage's own words, and a NOT_FOUND the closest passage below the NEAR threshold (or
says that nothing comes close), so the reader sees what to quote instead.  No network: the
cited work is pinned straight into the cache and the Retraction Watch snapshot is the invented
one in ``examples/``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import Result

from citeproof.store.cache import Cache
from citeproof.store.paths import default_dirs

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = REPO / "examples" / "retraction-watch-invented.csv"
RETRACTED_DOI = "10.5555/invented.retracted.1"  # listed as retracted in the invented CSV
TEXT = (
    "An invented example text: mulch kept the beds moist through the dry summer months, and "
    "the tomatoes planted in May gave twice the harvest of those planted in June."
)
WORDS = "mulch kept the beds moist through the dry summer months"


@pytest.fixture(autouse=True)
def _no_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEPROOF_REPLAY", raising=False)


@pytest.fixture
def retracted(run_cli: CliRun) -> str:
    """The invented retracted DOI, pinned, with the snapshot that lists it imported."""
    with Cache(default_dirs().cache_db) as cache:
        cache.pin(
            f"doi:{RETRACTED_DOI}",
            TEXT.encode(),
            retrieved_at="2026-01-02T03:04:05Z",
            served_by="web",
            media_type="text/plain",
            meta={"coverage": "page"},
        )
    assert run_cli("retractions", "import", SNAPSHOT, "--as-of", "2025-03-01").exit_code == 0
    return RETRACTED_DOI


def test_fail_on_retracted_exits_1_on_an_exact_quote_of_a_retracted_work(
    run_cli: CliRun, retracted: str
) -> None:
    plain = run_cli("check", "--json", "--offline", WORDS, retracted)
    assert plain.exit_code == 0  # the verdict alone: EXACT
    result = run_cli("check", "--json", "--offline", "--fail-on-retracted", WORDS, retracted)
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "EXACT" and data["retraction"]["status"] == "RETRACTED"


def test_fail_on_retracted_changes_nothing_for_a_work_that_is_not(
    run_cli: CliRun, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    assert run_cli("check", "--json", "--fail-on-retracted", WORDS, notes).exit_code == 0


def test_fail_on_retracted_needs_the_retraction_status(run_cli: CliRun, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    result = run_cli("check", "--fail-on-retracted", "--no-retraction", WORDS, notes)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("citeproof: error: --fail-on-retracted needs")


# ---------------------------------------------------------------------------- terminal report


def report(run_cli: CliRun, monkeypatch: pytest.MonkeyPatch, *args: str | Path) -> Result:
    """Run `check` as if stdout were a terminal (rich writes plain text to CliRunner)."""
    import citeproof.cli._common as common

    monkeypatch.setattr(common, "want_json", lambda flag: flag)
    monkeypatch.setenv("COLUMNS", "200")
    return run_cli("check", "--no-log", *args)


def test_a_near_says_what_the_source_says(
    run_cli: CliRun, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    result = report(
        run_cli, monkeypatch, "the tomatoes planted in May gave three times the harvest", notes
    )
    assert result.exit_code == 1
    assert "source says" in result.stdout
    assert "“the tomatoes planted in May gave twice the harvest" in result.stdout


def test_a_not_found_shows_the_closest_passage_below_the_threshold(
    run_cli: CliRun, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    quote = "the tomatoes planted in April gave a far smaller harvest than the June ones"
    as_json = run_cli("check", "--no-log", "--json", quote, notes)
    assert json.loads(as_json.stdout)["verdict"] == "NOT_FOUND"
    assert json.loads(as_json.stdout)["near"] is None  # the contract is unchanged
    result = report(run_cli, monkeypatch, quote, notes)
    assert result.exit_code == 1
    assert "closest passage (below the NEAR threshold)" in result.stdout
    assert "source says" in result.stdout and "tomatoes planted in May" in result.stdout
    assert "the quote is not in the source" in result.stdout


def test_a_not_found_with_nothing_close_says_so(
    run_cli: CliRun, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(TEXT)
    result = report(
        run_cli, monkeypatch, "quantum chromodynamics predicts asymptotic freedom", notes
    )
    assert result.exit_code == 1
    assert "no passage of the source comes close" in result.stdout
    assert "source says" not in result.stdout


def test_the_report_shows_a_retraction(
    run_cli: CliRun, monkeypatch: pytest.MonkeyPatch, retracted: str
) -> None:
    result = report(run_cli, monkeypatch, "--offline", WORDS, retracted)
    assert result.exit_code == 0
    assert "RETRACTED" in result.stdout
    assert "warning: the cited work is retracted" in result.stdout
