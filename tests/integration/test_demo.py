"""``citeproof demo``: the whole loop offline, in its own folder, on invented papers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lxml.html
import pytest

from citeproof.demo import run_demo
from citeproof.errors import BadInputError
from citeproof.store.paths import default_dirs

if TYPE_CHECKING:
    from conftest import CliRun


def test_the_demo_runs_every_step_offline_in_its_own_folder(
    run_cli: CliRun, tmp_path: Path
) -> None:
    out = tmp_path / "demo"
    result = run_cli("demo", "--out", out, "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    steps = {s["step"]: s["outcome"] for s in summary["steps"]}
    assert steps["exact quote in PMC9900001"] == "EXACT"
    assert steps["changed number in PMC9900001"] == "NEAR (numbers_differ)"
    assert steps["ellipsis quote in PMC9900001"] == "EXACT"
    assert steps["retraction status of PMC9900002"].startswith("RETRACTED")
    assert steps["passages with handles"].split("top ")[1].startswith("pmcid:PMC9900001/")
    audit = steps["audit of an AI answer (answer.md)"]
    assert audit.startswith("fail: ")
    assert "forged" in audit and "misquote (numbers_differ)" in audit and "(retracted)" in audit
    assert steps["evidence log verifies"].startswith("yes")
    assert steps["signed checkpoint"].endswith("verifies: True")
    assert summary["audit"] == "fail"
    page = Path(summary["page"])
    assert page.is_file() and "<html" in page.read_text()
    assert (out / "answer.md").is_file() and (out / "checkpoint.txt").is_file()
    # The test's own home was not touched: the demo used out/home.
    assert not default_dirs().log.exists()
    assert (out / "home" / "data" / "evidence.jsonl").is_file()


def _embedded_report(page: Path) -> dict[str, Any]:
    doc = lxml.html.document_fromstring(page.read_text(encoding="utf-8"))
    data: dict[str, Any] = json.loads(doc.get_element_by_id("report-data").text)
    return data


def test_every_request_of_the_demo_is_recorded(tmp_path: Path) -> None:
    """The demo's page shows what each service said, never "Request ... was not recorded":
    every retraction source of every cited work answered from the demo's recordings."""
    result = run_demo(tmp_path / "demo", say=lambda line: None)
    page = result.page.read_text(encoding="utf-8")
    assert "was not recorded" not in page
    report = _embedded_report(result.page)
    asked = 0
    for sentence in report["sentences"]:
        for cit in sentence["citations"]:
            status = cit.get("retraction") or (cit.get("check") or {}).get("retraction")
            if cit["verdict"] == "forged":
                continue  # a forged handle names no work to ask about
            assert status is not None, cit["raw"]
            assert status["status"] in ("RETRACTED", "NOT_RETRACTED_AS_OF"), status["reason"]
            for source in status["sources"]:
                asked += 1
                assert source["state"] == "answered", (cit["raw"], source)
    assert asked >= 5 * 4
    for ref in report["references"]:
        assert all(a["status"] == "ok" for a in ref["asked"]), ref["asked"]
    # The retracted paper is retracted by every source, as its invented records say.
    (coffee,) = [c for s in report["sentences"] for c in s["citations"] if c["raw"] == "[1]"]
    by = {s["source"]: s["retracted"] for s in coffee["retraction"]["sources"]}
    assert by == dict.fromkeys(("pmc", "crossref", "pubmed", "europepmc", "retractionwatch"), True)
    # The recordings say what they are.
    for meta in (tmp_path / "demo" / "recordings").glob("*.meta.json"):
        assert json.loads(meta.read_text())["provenance"].startswith("INVENTED"), meta.name


def test_the_demo_page_counts_its_problems_and_names_its_answer(tmp_path: Path) -> None:
    result = run_demo(tmp_path / "demo", say=lambda line: None)
    doc = lxml.html.document_fromstring(result.page.read_text(encoding="utf-8"))
    counts = doc.get_element_by_id("verdict-counts").text_content()
    assert counts.startswith("1 forged, 1 misquote, 1 retracted")
    assert doc.get_element_by_id("source-name").text_content() == "answer.md"
    (retracted,) = doc.cssselect("summary.chip .chip-badge")
    assert "Retracted" in retracted.text_content() and "v-bad" in retracted.get("class")


def test_the_demo_refuses_a_folder_that_holds_anything(run_cli: CliRun, tmp_path: Path) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "answer.md").write_text("my own answer", encoding="utf-8")
    with pytest.raises(BadInputError, match="is not empty"):
        run_demo(out, say=lambda line: None)
    assert (out / "answer.md").read_text(encoding="utf-8") == "my own answer"
    assert sorted(p.name for p in out.iterdir()) == ["answer.md"]  # nothing else written
    result = run_cli("demo", "--out", out)
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert "is not empty" in line and str(out) in line
    a_file = tmp_path / "file"
    a_file.write_text("x", encoding="utf-8")
    with pytest.raises(BadInputError, match="is a file"):
        run_demo(a_file, say=lambda line: None)


def test_the_demo_writes_into_an_empty_folder(tmp_path: Path) -> None:
    out = tmp_path / "empty"
    out.mkdir()
    result = run_demo(out, say=lambda line: None)
    assert result.audit_verdict == "fail" and (out / "answer.md").is_file()


def test_the_demo_steps_line_up_at_any_width(run_cli: CliRun, tmp_path: Path) -> None:
    """The step column was 44 wide for names of up to 49 characters, and long outcomes ran
    under the names; every outcome now starts in one column and wraps under itself."""
    from citeproof.demo import step_row

    result = run_cli("demo", "--out", tmp_path / "d", "--json")
    steps = json.loads(result.stdout)["steps"]
    column = 2 + max(len(s["step"]) for s in steps) + 1
    for columns in (80, 100, 140):
        for step in steps:
            first, *rest = step_row(step["step"], step["outcome"], columns).split("\n")
            assert first[:column] == f"  {step['step']}".ljust(column), first
            assert first[column] != " ", first
            assert all(line[:column] == " " * column and line[column] != " " for line in rest)
            assert all(len(line) <= columns for line in [first, *rest]), (first, rest)
            shown = " ".join(line[column:] for line in [first, *rest])
            assert shown.replace(" ", "") == step["outcome"].replace(" ", "")
