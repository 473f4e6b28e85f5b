"""``citeproof audit --batch``: many answers, one signed report line each, resumable."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
ANSWER = (REPO / "examples" / "example-answer.md").read_text(encoding="utf-8")
CACHE = REPO / "examples" / "example-cache.zip"


def answers(tmp_path: Path) -> Path:
    rows = [
        json.dumps({"id": "a", "answer": ANSWER}),
        json.dumps({"id": "b", "answer": "No citations here at all, just a claim."}),
        '{"id": "c", "answer": NaN}',
        json.dumps({"id": "d", "answer": ANSWER, "format": "yaml"}),
        json.dumps({"id": "e", "answer": json.dumps({"claims": [{"text": "A claim."}]})}),
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_every_answer_gets_its_report_line_in_order(run_cli: CliRun, tmp_path: Path) -> None:
    assert run_cli("cache", "import", CACHE).exit_code == 0
    out = tmp_path / "reports.jsonl"
    result = run_cli(
        "audit", "--batch", answers(tmp_path), "-o", out, "--offline", "--workers", "1"
    )
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in lines] == ["a", "b", 3, "d", "e"]  # line 3's id was unreadable
    single = run_cli("audit", ANSWER_FILE(tmp_path), "--offline", "--json", "--no-log")
    assert lines[0]["verdict"] == json.loads(single.stdout)["verdict"] == "fail"
    assert lines[0]["schema"] == "citeproof.audit/1" and lines[0]["signature"]
    assert lines[1]["verdict"] == "warn"  # an uncited claim
    assert lines[2]["error"]["code"] == "not_json"
    assert lines[3]["error"]["code"] == "bad_field"
    assert lines[4]["answer"]["format"] == "json"
    assert "5 answers audited" in result.stderr


def ANSWER_FILE(tmp_path: Path) -> Path:
    path = tmp_path / "answer.md"
    path.write_text(ANSWER)
    return path


@pytest.mark.slow
def test_resume_and_workers_give_the_same_lines(run_cli: CliRun, tmp_path: Path) -> None:
    assert run_cli("cache", "import", CACHE).exit_code == 0
    inp = answers(tmp_path)
    whole, parallel, resumed = (tmp_path / n for n in ("whole.jsonl", "par.jsonl", "res.jsonl"))
    for out, workers in ((whole, "1"), (parallel, "2")):
        done = run_cli("audit", "--batch", inp, "-o", out, "--offline", "--workers", workers)
        assert done.exit_code == 0

    def verdicts(path: Path) -> list[tuple[object, object]]:
        return [(r["id"], r.get("verdict")) for r in map(json.loads, path.read_text().splitlines())]

    assert verdicts(parallel) == verdicts(whole)
    first = whole.read_text().splitlines()[0]
    resumed.write_text(first + "\n" + '{"id": "b", "schem')  # killed mid-line
    result = run_cli(
        "audit", "--batch", inp, "-o", resumed, "--offline", "--resume", "--workers", "1"
    )
    assert result.exit_code == 0
    assert verdicts(resumed) == verdicts(whole)
    assert "4 answers audited" in result.stderr


def test_batch_bad_usage(run_cli: CliRun, tmp_path: Path) -> None:
    assert run_cli("audit", "--batch", tmp_path / "none.jsonl").exit_code == 2
    inp = answers(tmp_path)
    assert run_cli("audit", "--batch", inp, "--resume").exit_code == 2
    assert run_cli("audit", "--batch", inp, "--html", tmp_path / "x.html").exit_code == 2
