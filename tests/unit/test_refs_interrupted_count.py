"""What ``citeproof refs -o FILE`` says when Ctrl-C stops it: the lines the file holds, as
``citeproof batch`` says, not a count kept beside the writes.  Ctrl-C can land between a
result's write and its tally; the message then said one reference fewer than the file held
(seen once in CI, in ``tests/index/test_index_refs_workers.py``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from citeproof.cli.refs import _Run


def test_an_interrupted_run_counts_the_lines_the_file_holds(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "r0"}\n{"id": "r1"}\n{"id": "r2"}\n', encoding="utf-8")
    run = _Run(("refs.jsonl",), str(out), None, quiet=True)
    run.tally = Counter({"verified": 2})  # the third line written, its tally not yet
    said = run._stopped(4000)
    assert said.startswith("interrupted: 3 of 4000 references written to "), said
    assert "--resume" in said
