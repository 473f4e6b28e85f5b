"""``citeproof check QUOTE IDENTIFIER``: fetched once through replayed answers, then pinned.

No test touches the network: every request is answered from a replay folder written here with
``write_recording`` (the PMC Cloud Service answers wrap the corpus JATS file of PMC3166277,
with its real md5, as in ``tests/sources/test_resolve.py``), or is forbidden by ``--offline``.
Each test has its own ``CITEPROOF_HOME``, so the cache starts empty.
"""

from __future__ import annotations

import hashlib
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from rich.console import Console

from citeproof.cli.render import render_check
from citeproof.models import CheckResult
from pmc_replay import JSON, QUOTE, jats, pmc_replay, record

if TYPE_CHECKING:
    from conftest import CliRun


pytestmark = pytest.mark.usefixtures("home")


def test_pmcid_is_fetched_pinned_and_then_checked_offline(run_cli: CliRun, tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    code, data = run_cli.json("check", "--json", QUOTE, "PMC3166277", "--replay", replay)
    assert (code, data["verdict"]) == (0, "EXACT"), data
    source = data["source"]
    assert source["served_by"] == "pmc"
    assert source["coverage"] == "full_text"
    assert source["md5_ok"] is True
    assert source["sha256"] == hashlib.sha256(jats()).hexdigest()
    assert source["identifier"] == "pmcid:PMC3166277"
    assert source["retrieved_at"]
    assert source["fingerprint_ok"] is None

    # The same check again, with no network and no replay: the pinned bytes answer.
    code, again = run_cli.json("check", "--json", QUOTE, "PMC3166277", "--offline")
    assert (code, again["verdict"]) == (0, "EXACT"), again
    assert again["source"]["sha256"] == source["sha256"]
    assert again["source"]["served_by"] == "pmc"
    assert again["source"]["coverage"] == "full_text"
    assert again["source"]["md5_ok"] is True
    assert again["source"]["retrieved_at"] == source["retrieved_at"]
    assert again["matches"] == data["matches"]

    # --expect-sha256 with the right hash passes and says so.
    code, pinned = run_cli.json(
        "check", "--json", QUOTE, "PMC3166277", "--offline", "--expect-sha256", source["sha256"]
    )
    assert (code, pinned["source"]["fingerprint_ok"]) == (0, True)


def test_expect_sha256_mismatch_exits_1_naming_both_hashes(run_cli: CliRun, tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    wrong = "0" * 64
    code, data = run_cli.json(
        "check", "--json", QUOTE, "PMC3166277", "--replay", replay, "--expect-sha256", wrong
    )
    actual = hashlib.sha256(jats()).hexdigest()
    assert code == 1
    assert data["verdict"] == "NOT_CHECKABLE"
    assert data["source"]["fingerprint_ok"] is False
    assert wrong in data["reason"] and actual in data["reason"]
    assert data["matches"] == []


def test_offline_and_not_pinned_is_unavailable(run_cli: CliRun) -> None:
    code, data = run_cli.json("check", "--json", QUOTE, "PMC3166277", "--offline")
    assert code == 3
    assert data["verdict"] == "UNAVAILABLE"
    assert "offline" in data["reason"]
    assert data["source"]["identifier"] == "pmcid:PMC3166277"
    assert data["source"]["coverage"] == "none"
    assert data["source"]["sha256"] is None


@pytest.mark.slow
def test_a_source_answering_503_is_unavailable(run_cli: CliRun, tmp_path: Path) -> None:
    replay = tmp_path / "replay"
    record(
        replay,
        "ctgov",
        "https://clinicaltrials.gov/api/v2/studies/NCT04363697",
        b'{"error": "busy"}',
        status=503,
        **JSON,
    )
    code, data = run_cli.json("check", "--json", QUOTE, "NCT04363697", "--replay", replay)
    assert code == 3, data
    assert data["verdict"] == "UNAVAILABLE"
    assert data["reason"].startswith("ctgov:")
    assert data["source"]["identifier"] == "nct:NCT04363697"


def test_replay_folder_from_the_environment(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay = pmc_replay(tmp_path / "replay")
    monkeypatch.setenv("CITEPROOF_REPLAY", str(replay))
    code, data = run_cli.json("check", "--json", QUOTE, "PMC3166277")
    assert (code, data["verdict"]) == (0, "EXACT"), data


@pytest.mark.parametrize("source", ["pmid:abc", "12345", "doi:10.1", "NCT123"])
def test_malformed_identifier_is_bad_input_with_the_accepted_forms(
    run_cli: CliRun, source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", QUOTE, source, "--offline")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Accepted sources" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bare_word_that_is_no_file_is_still_file_not_found(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "PMID" alone could be a file name; looks_like_identifier leaves it to the file reader.
    monkeypatch.chdir(tmp_path)
    result = run_cli("check", QUOTE, "PMID")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_a_labelled_identifier_is_never_shadowed_by_a_file_of_that_name(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder ``doi:10.1371`` holding ``journal.pone.0000001`` (which holds the quote) once
    answered EXACT from the file; ``doi:`` says it is the work."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "doi:10.1371").mkdir()
    (tmp_path / "doi:10.1371" / "journal.pone.0000001").write_text(QUOTE, encoding="utf-8")
    (tmp_path / "pmcid:PMC3166277").write_text(QUOTE, encoding="utf-8")
    for labelled in ("doi:10.1371/journal.pone.0000001", "pmcid:PMC3166277"):
        code, data = run_cli.json("check", "--json", QUOTE, labelled, "--offline")
        assert (code, data["verdict"]) == (3, "UNAVAILABLE"), data
        assert data["source"]["identifier"] == labelled


def test_a_bare_identifier_that_is_also_a_file_is_refused_naming_both_forms(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "PMC3166277").write_text(QUOTE, encoding="utf-8")
    result = run_cli("check", QUOTE, "PMC3166277", "--offline")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "./PMC3166277" in line and "pmcid:PMC3166277" in line
    assert "Traceback" not in result.stderr
    # Each way of writing it then means one thing.
    code, data = run_cli.json("check", "--json", QUOTE, "./PMC3166277")
    assert (code, data["verdict"]) == (0, "EXACT"), data
    code, data = run_cli.json("check", "--json", QUOTE, "pmcid:PMC3166277", "--offline")
    assert (code, data["verdict"]) == (3, "UNAVAILABLE"), data


def test_refresh_fetches_again_and_contradicts_offline(run_cli: CliRun, tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    code, first = run_cli.json("check", "--json", QUOTE, "PMC3166277", "--replay", replay)
    assert code == 0
    assert first["source"]["refresh"] is None  # a first fetch has nothing to compare with
    code, again = run_cli.json(
        "check", "--json", QUOTE, "PMC3166277", "--replay", replay, "--refresh"
    )
    assert (code, again["verdict"]) == (0, "EXACT")
    assert again["source"]["sha256"] == first["source"]["sha256"]
    assert again["source"]["refresh"] == {
        "previous_sha256": first["source"]["sha256"],
        "changed": False,
    }
    result = run_cli("check", QUOTE, "PMC3166277", "--offline", "--refresh")
    assert result.exit_code == 2
    assert "contradict" in result.stderr


def test_refresh_reports_changed_bytes_and_repins(run_cli: CliRun, tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    code, first = run_cli.json("check", "--json", QUOTE, "PMC3166277", "--replay", replay)
    assert code == 0
    # Upstream now serves a corrected version: the quoted sentence was reworded.
    changed = jats().replace(b"timing of host lysis", b"timing of cell lysis", 1)
    assert changed != jats()
    newer = pmc_replay(tmp_path / "newer", changed)
    code, again = run_cli.json(
        "check", "--json", QUOTE, "PMC3166277", "--replay", newer, "--refresh"
    )
    assert again["verdict"] == "NEAR" and code == 1
    assert again["source"]["sha256"] == hashlib.sha256(changed).hexdigest()
    assert again["source"]["refresh"] == {
        "previous_sha256": first["source"]["sha256"],
        "changed": True,
    }
    # The new bytes are now the pin: an offline check reads them, with no refresh to report.
    code, offline = run_cli.json("check", "--json", QUOTE, "PMC3166277", "--offline")
    assert offline["source"]["sha256"] == again["source"]["sha256"]
    assert offline["source"]["refresh"] is None
    shown = StringIO()
    render_check(CheckResult.model_validate(again), "", Console(file=shown, width=200))
    assert f"bytes changed since the earlier pin ({first['source']['sha256']})" in shown.getvalue()


def test_text_of_an_identifier_is_the_text_its_check_read(run_cli: CliRun, tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    printed = run_cli("text", "PMC3166277", "--replay", replay)
    assert printed.exit_code == 0
    code, data = run_cli.json("check", "--json", QUOTE, "PMC3166277", "--offline")
    assert code == 0
    start, end = data["matches"][0]["start"], data["matches"][0]["end"]
    assert printed.stdout[start:end] == data["matches"][0]["text"]
    missing = run_cli("text", "PMC1234567", "--offline")
    assert missing.exit_code == 3
    assert "not in the cache" in missing.stderr
