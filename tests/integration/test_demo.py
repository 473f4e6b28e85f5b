"""``citeproof demo``: the whole loop offline, in its own folder, on invented papers."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from citeproof.cli import cli
from citeproof.store.paths import default_dirs


def test_the_demo_runs_every_step_offline_in_its_own_folder(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["demo", "--out", str(out), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    steps = {s["step"]: s["outcome"] for s in summary["steps"]}
    assert steps["check an exact quote in PMC9900001"] == "EXACT"
    assert steps["check a quote with a changed number in PMC9900001"] == "NEAR (numbers_differ)"
    assert steps["check an ellipsis quote in PMC9900001"] == "EXACT"
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
