"""``citeproof retraction`` and ``citeproof retractions`` end to end, in-process.

The commands run inside a ``LazyGroup`` exactly as ``citeproof`` registers them, so the
one-line error handling is the real one; ``CITEPROOF_HOME`` points at tmp_path. The replay
folder is built in tmp_path from real corpus recordings (written under the requests citeproof
sends); the Retraction Watch CSV is the invented example in ``examples/``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import Result

from citeproof.cli import LazyGroup
from citeproof.net.recordings import load_litcheck, load_tekmeria, write_recording

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
INVENTED = REPO / "examples" / "retraction-watch-invented.csv"
CORPUS = REPO.parent / "shared" / "corpus"
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"
WAKEFIELD = "10.1016/s0140-6736(97)11096-0"

cli = LazyGroup(
    name="citeproof",
    lazy_subcommands={
        "retraction": "citeproof.cli.retraction:retraction",
        "retractions": "citeproof.cli.retraction:retractions",
    },
)


def invoke(run_cli: CliRun, home: Path, *args: str) -> Result:
    env = {"CITEPROOF_HOME": str(home), "CITEPROOF_REPLAY": "", "CITEPROOF_RECORD": ""}
    return run_cli(*args, env=env)


@pytest.fixture
def replay_dir(tmp_path: Path) -> Path:
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    folder = tmp_path / "replay"
    when = datetime(2026, 10, 3, tzinfo=UTC)
    litcheck = CORPUS / "litcheck-fixtures"
    sources = [
        load_litcheck(litcheck / "idconv-doi-10.1016-s0140-6736-97-11096-0.meta.json"),
        load_litcheck(litcheck / "epmc-search-doi-10.1016-s0140-6736-97-11096-0.meta.json"),
        load_tekmeria(CORPUS / "tekmeria-fixtures" / "a4544e60e3f3b51dfcf9590e.json"),
    ]
    for n, recording in enumerate(sources):
        write_recording(
            folder,
            f"r{n}",
            url=recording.url,
            status=recording.status,
            headers=recording.headers,
            body=recording.body,
            date=when,
        )
    efetch = CORPUS / "eutils" / "tekmeria-eutils-efetch-pubmed-30831578_9500320.xml"
    write_recording(
        folder,
        "efetch",
        url="https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi?db=pubmed&id=9500320"
        "&retmode=xml",
        status=200,
        headers={"content-type": "text/xml"},
        body=efetch.read_bytes(),
        date=when,
    )
    return folder


def test_wakefield_replayed_is_retracted(run_cli: CliRun, home: Path, replay_dir: Path) -> None:
    result = invoke(run_cli, home, "retraction", WAKEFIELD, "--replay", str(replay_dir), "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["schema"] == "citeproof.retraction/1"
    assert report["status"] == "RETRACTED"
    states = {s["source"]: s["state"] for s in report["sources"]}
    assert states == {
        "pmc": "not_asked",
        "crossref": "failed",
        "pubmed": "answered",
        "europepmc": "answered",
        "retractionwatch": "not_asked",
    }


def test_replay_from_the_environment_and_readable_output(
    run_cli: CliRun, home: Path, replay_dir: Path
) -> None:
    env = {"CITEPROOF_HOME": str(home), "CITEPROOF_REPLAY": str(replay_dir), "CITEPROOF_RECORD": ""}
    result = run_cli("retraction", f"doi:{WAKEFIELD}", env=env)
    assert result.exit_code == 1, result.output
    # CliRunner's stdout is not a terminal, so without --json the report is JSON as well.
    assert json.loads(result.stdout)["status"] == "RETRACTED"


def test_offline_without_a_snapshot_is_unverifiable(run_cli: CliRun, home: Path) -> None:
    result = invoke(run_cli, home, "retraction", "PMID 9500320", "--offline", "--json")
    assert result.exit_code == 3, result.output
    report = json.loads(result.stdout)
    assert report["status"] == "UNVERIFIABLE"
    assert {s["state"] for s in report["sources"]} == {"not_asked"}
    assert "offline" in report["reason"] and "snapshot" in report["reason"]


def test_import_then_offline_lookup(run_cli: CliRun, home: Path) -> None:
    result = invoke(
        run_cli, home, "retractions", "import", str(INVENTED), "--as-of", "2025-03-01", "--json"
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rows"] == 5
    info = invoke(run_cli, home, "retractions", "info", "--json")
    assert info.exit_code == 0
    assert json.loads(info.stdout)["as_of"] == "2025-03-01"

    retracted = invoke(run_cli, home, "retraction", "10.5555/Invented.Retracted.1", "--offline")
    assert retracted.exit_code == 1, retracted.output
    report = json.loads(retracted.stdout)
    assert report["status"] == "RETRACTED"
    (rw,) = [s for s in report["sources"] if s["source"] == "retractionwatch"]
    assert rw["snapshot_date"] == "2025-03-01"

    concern = invoke(run_cli, home, "retraction", "10.5555/invented.concern.1", "--offline")
    assert concern.exit_code == 1
    assert json.loads(concern.stdout)["status"] == "CONCERN"

    unknown = invoke(run_cli, home, "retraction", "10.5555/never.heard.of", "--offline")
    assert unknown.exit_code == 3
    assert json.loads(unknown.stdout)["status"] == "UNVERIFIABLE"


def test_readable_rendering(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citeproof.cli import retraction as module
    from citeproof.retraction.status import retraction_report
    from citeproof.sources.retractionwatch import import_csv

    db = home / "rw.sqlite3"
    import_csv(INVENTED, db)
    report = retraction_report("10.5555/invented.retracted.1", offline=True, rw_db=db)
    module._render(report)
    text = capsys.readouterr().out
    assert text.startswith("doi:10.5555/invented.retracted.1: RETRACTED\n")
    assert "retractionwatch  answered   retracted (snapshot " in text
    assert "- retraction 2024-03-01 10.5555/invented.notice.1 (retraction-watch)" in text


def test_info_without_a_snapshot_exits_1(run_cli: CliRun, home: Path) -> None:
    result = invoke(run_cli, home, "retractions", "info", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["as_of"] is None


@pytest.mark.parametrize(
    "content", ["Record ID,Title\n1,x\n", "just some words\n", "\x00\x01\x02binary"]
)
def test_bad_csv_is_a_one_line_error(
    run_cli: CliRun, home: Path, tmp_path: Path, content: str
) -> None:
    good = invoke(run_cli, home, "retractions", "import", str(INVENTED), "--as-of", "2025-03-01")
    assert good.exit_code == 0
    bad = tmp_path / "bad.csv"
    bad.write_text(content, encoding="utf-8")
    result = invoke(run_cli, home, "retractions", "import", str(bad))
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeproof: error: ")
    assert "Traceback" not in result.stderr
    info = invoke(run_cli, home, "retractions", "info", "--json")
    assert json.loads(info.stdout)["as_of"] == "2025-03-01"  # the old snapshot is intact


@pytest.mark.parametrize("ident", ["12345", "NCT01234567", "pmid:abc"])
def test_bad_identifier_exits_2(run_cli: CliRun, home: Path, ident: str) -> None:
    result = invoke(run_cli, home, "retraction", ident, "--offline")
    assert result.exit_code == 2
    assert result.stderr.startswith("citeproof: error: ")
    assert len(result.stderr.strip().splitlines()) == 1


def test_bad_as_of_is_a_usage_error(run_cli: CliRun, home: Path) -> None:
    result = invoke(run_cli, home, "retractions", "import", str(INVENTED), "--as-of", "yesterday")
    assert result.exit_code == 2
