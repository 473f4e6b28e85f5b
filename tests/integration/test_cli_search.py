"""``citeproof search`` and ``citeproof citing`` end to end through CliRunner, answered from a
replay folder built in tmp_path from the corpus recordings (links, not copies in the repo).

The commands are mounted on a LazyGroup here, the way ``citeproof.cli`` mounts them, so the
test does not depend on the command table."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
import pytest

from citeproof.cli import LazyGroup

if TYPE_CHECKING:
    from conftest import CliRun

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"

LITCHECK = [
    "epmc-search-arteriosclerosis-large-artery-elasticity",
    "eutils-esearch-elsa-brasil-calcium",
    "eutils-esummary-elsa-brasil-calcium",
    "litsense-sentences-large-artery-elasticity",
    "openalex-cites-w2474002222",
]
TEKMERIA = ["1378bad02d89db51b2cb4ce2", "34589af539d8218634455307"]


@click.group(
    cls=LazyGroup,
    lazy_subcommands={
        "search": "citeproof.cli.search:search",
        "citing": "citeproof.cli.search:citing",
    },
)
def cli() -> None:
    pass


@pytest.fixture
def replay(tmp_path: Path) -> Path:
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    folder = tmp_path / "replay"
    folder.mkdir()
    for name in LITCHECK:
        for suffix in (".body", ".meta.json"):
            source = CORPUS / "litcheck-fixtures" / f"{name}{suffix}"
            (folder / source.name).symlink_to(source)
    for name in TEKMERIA:
        (folder / f"{name}.json").symlink_to(CORPUS / "tekmeria-fixtures" / f"{name}.json")
    return folder


def test_search_pubmed_json(run_cli: CliRun, replay: Path) -> None:
    result = run_cli(
        "search",
        "pubmed",
        "ELSA-Brasil coronary artery calcium",
        "--limit",
        "5",
        "--since",
        "2015",
        "--until",
        "2017",
        "--json",
        "--replay",
        str(replay),
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["schema"] == "citeproof.search/1"
    assert record["status"] == "ok" and record["hit_count"] == 10
    assert len(record["items"]) == 5 and len(record["responses"]) == 2
    assert record["params"]["mindate"] == "2015"


def test_search_europepmc_table(
    run_cli: CliRun, replay: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citeproof.cli import _common

    monkeypatch.setattr(_common, "want_json", lambda flag: flag)
    result = run_cli(
        "search", "europepmc", "arteriosclerosis large-artery elasticity", "--replay", str(replay)
    )
    assert result.exit_code == 0, result.output
    assert "1565" in result.stdout and "next: --cursor" in result.stdout
    assert "pmid:" in result.stdout


def test_search_empty_openfda_exits_0(run_cli: CliRun, replay: Path) -> None:
    result = run_cli(
        "search", "openfda", "zzzqqq not a drug", "--limit", "10", "--replay", str(replay)
    )
    assert result.exit_code == 0
    assert json.loads(result.stdout)["status"] == "empty"  # stdout is not a terminal: JSON


def test_citing_json(run_cli: CliRun, replay: Path) -> None:
    result = run_cli("citing", "W2474002222", "--json", "--replay", str(replay))
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["engine"] == "openalex" and record["hit_count"] == 5


def test_replay_via_environment(
    run_cli: CliRun, replay: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_REPLAY", str(replay))
    result = run_cli(
        "search",
        "litsense",
        "arteriosclerosis functional depletion of large-artery elasticity",
        "--limit",
        "3",
    )
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["items"]) == 3


def test_bad_engine_exits_2(run_cli: CliRun) -> None:
    result = run_cli("search", "google", "aspirin")
    assert result.exit_code == 2
    assert "google" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ("search", "litsense", "x", "--since", "2020"),
        ("search", "pubmed", "x", "--since", "2020-13-01"),
        ("search", "openalex", "x", "--limit", "500"),
        ("search", "pubmed", "x", "--cursor", "later"),
        ("citing", "NCT04363697"),
    ],
)
def test_bad_input_exits_2_with_one_line(run_cli: CliRun, args: tuple[str, ...]) -> None:
    result = run_cli(*args)
    assert result.exit_code == 2
    assert result.stderr.startswith("citeproof: error: ")
    assert result.stderr.count("\n") == 1


def test_offline_exits_3(run_cli: CliRun) -> None:
    result = run_cli("search", "pubmed", "aspirin", "--offline")
    assert result.exit_code == 3 and "--offline" in result.stderr


def gone_folder(tmp_path: Path) -> Path:
    """A recording of OpenAlex answering 404 to a search for aspirin."""
    folder = tmp_path / "recordings"
    folder.mkdir()
    url = "https://api.openalex.org/works?search=aspirin&per_page=25"
    body = b"gone"

    (folder / "oa.body").write_bytes(body)
    (folder / "oa.meta.json").write_text(
        json.dumps(
            {
                "url": url,
                "status": 404,
                "headers": {},
                "body_sha256": hashlib.sha256(body).hexdigest(),
            }
        )
    )
    return folder


def test_failed_search_exits_3(run_cli: CliRun, tmp_path: Path) -> None:
    folder = gone_folder(tmp_path)
    result = run_cli("search", "openalex", "aspirin", "--json", "--replay", str(folder))
    assert result.exit_code == 3
    record = json.loads(result.stdout)
    assert record["status"] == "failed" and "404" in record["reason"]


def test_every_search_is_recorded_in_the_log_failed_ones_too(
    run_cli: CliRun, replay: Path, tmp_path: Path
) -> None:
    from citeproof.evidence.log import EvidenceLog
    from citeproof.store.paths import default_dirs

    done = run_cli("citing", "W2474002222", "--json", "--replay", str(replay))
    record = json.loads(done.stdout)
    assert record["log_seq"] == 1
    log = EvidenceLog(default_dirs().log)
    entry = log.get(1)
    assert entry.kind == "search"
    assert entry.payload["engine"] == "openalex" and entry.payload["status"] == "ok"
    assert entry.payload["ids"] == [item["id"] for item in record["items"]]
    assert entry.payload["responses"] == [r["sha256"] for r in record["responses"]]

    failed = run_cli(
        "search", "openalex", "aspirin", "--json", "--replay", str(gone_folder(tmp_path))
    )
    assert failed.exit_code == 3
    assert json.loads(failed.stdout)["log_seq"] == 2
    assert log.get(2).payload["status"] == "failed"
    assert log.get(2).payload["reason"]

    quiet = run_cli("citing", "W2474002222", "--json", "--replay", str(replay), "--no-log")
    assert json.loads(quiet.stdout)["log_seq"] is None
    other = tmp_path / "searches.jsonl"
    run_cli("citing", "W2474002222", "--json", "--replay", str(replay), "--log", str(other))
    assert EvidenceLog(other).get(1).kind == "search"
    assert log.verify().ok and log.size == 2
