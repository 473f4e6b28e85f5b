"""``citeproof refs --index`` on worker processes: the same results as one process, in the
input's order, and the same evidence-log lines (docs/index.md, "Both cores").

The index is the one built from the INVENTED dumps (``conftest.built``); the references are
its works as an author prints them, with and without a DOI, and works it does not hold.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import citeproof.batch.bibliographies as bib
from citeproof.evidence.log import open_log
from citeproof.models.references import ReferenceResult

if TYPE_CHECKING:
    from conftest import CliRun

# INVENTED: the works of tests/index/dumps, as printed in a reference list, and works no dump
# holds.
HELD = (
    "Müller K, Okafor C. Compost temperature and earthworm density in invented allotments. "
    "J Invent Soil Ecol. 2019;12:101-109.",
    "Müller A, Okafor C. Compost temperature and earthworm density in INVENTED allotments. "
    "J Invent Soil Ecol. 2019;12:101-9. doi:10.5555/invented.idx.1",
    "Lindqvist A. Rainwater harvesting for invented urban gardens. Invented Urban "
    "Horticulture. 2020;7:55-61. doi:10.5555/invented.idx.2",
    "Lindqvist R. Rainwater harvesting for invented urban gardens. Invented Urban "
    "Horticulture. 2020;7:55-61.",
)
ABSENT = (
    "Quill P. Moonlight pruning of invented apple trees. Inv Orchard J. 2022;3:1-9.",
    "Quill P. An entry. doi:10.5555/invented.idx.999",
)
REFERENCES = [(HELD + ABSENT)[n % 6] for n in range(23)]


def _jobs() -> list[bib.Job]:
    from citeproof.service.references import stated_reference

    return [
        bib.Job(f"r{n}", "refs.jsonl", n, stated_reference(text, n))
        for n, text in enumerate(REFERENCES, 1)
    ]


def _run(built: Path, log: Path, workers: int) -> tuple[list[tuple[str, ReferenceResult]], Any]:
    options = bib.RefsOptions(offline=True, log=str(log), index=str(built), workers=workers)
    seen: list[tuple[str, ReferenceResult]] = []
    report = bib.run_refs(_jobs(), options, on_result=lambda i, r: seen.append((i, r)))
    return seen, report


def test_two_workers_give_one_process_results_in_order_and_its_log(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bib, "WORKER_CHUNK", 4)  # 6 chunks: they finish in any order
    workers: list[int] = []
    real = bib._on_processes

    def spy(*args: Any) -> None:
        workers.append(args[-1])
        real(*args)

    monkeypatch.setattr(bib, "_on_processes", spy)
    one, one_report = _run(built, tmp_path / "one.log", 1)
    two, two_report = _run(built, tmp_path / "two.log", 2)
    assert workers == [2]  # the second run went to two worker processes, the first did not
    assert [i for i, _ in two] == [f"r{n}" for n in range(1, len(REFERENCES) + 1)]
    assert [r.model_dump(mode="json") for _, r in two] == [
        r.model_dump(mode="json") for _, r in one
    ]
    assert two_report.model_dump(mode="json") == one_report.model_dump(mode="json")
    verdicts = {r.verdict for _, r in one}
    assert {"verified", "not_found", "unavailable"} <= verdicts  # the index answered
    assert any(r.retracted for _, r in one)  # the retraction status came from the index too

    def lines(path: Path) -> list[tuple[str, str]]:
        return [(e.kind, json.dumps(e.payload, sort_keys=True)) for e in open_log(path).entries()]

    assert lines(tmp_path / "two.log") == lines(tmp_path / "one.log")
    assert len(lines(tmp_path / "one.log")) == len(REFERENCES)


def test_the_command_writes_the_same_output_on_two_workers(
    run_cli: CliRun, built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``-o`` from two worker processes is byte for byte the one process's."""
    monkeypatch.setattr(bib, "WORKER_CHUNK", 5)
    listed = tmp_path / "refs.jsonl"
    listed.write_text(
        "".join(
            json.dumps({"id": f"r{n}", "reference": t}) + "\n" for n, t in enumerate(REFERENCES)
        ),
        encoding="utf-8",
    )
    outputs = []
    for workers in ("1", "2"):
        out = tmp_path / f"out-{workers}.jsonl"
        run = run_cli(
            "refs",
            listed,
            "--index",
            built,
            "--offline",
            "--no-log",
            "--quiet",
            "-o",
            out,
            "--workers",
            workers,
        )
        assert run.exit_code == 1, run.output  # a retracted work and works not found
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"\n") == len(REFERENCES)


def test_the_workers_are_chosen_from_the_work_with_an_index_only() -> None:
    """Without an index --workers is the references in flight (one process); with one, the
    number of processes, else chosen from the work and the idle cores."""
    few, many = 10, 10_000
    without = bib.RefsOptions(workers=4)
    assert bib._local_workers(many, without, lambda: 2.0) == 1
    given = bib.RefsOptions(index="idx", workers=3)
    assert bib._local_workers(few, given, lambda: 0.0) == 3
    chosen = bib.RefsOptions(index="idx")
    assert bib._local_workers(few, chosen, lambda: 2.0) == 1  # too little work for two
    cores = min(2, __import__("os").cpu_count() or 1)
    assert bib._local_workers(many, chosen, lambda: 2.0) == cores
    assert bib._local_workers(many, chosen, lambda: 0.4) == 1  # the other core is busy


@pytest.mark.slow
def test_ctrl_c_on_two_workers_is_one_line_and_resume_goes_on(
    run_cli: CliRun, built: Path, tmp_path: Path
) -> None:
    """Ctrl-C reaches the command and its workers (a terminal signals the whole group): one
    line saying how far it got, exit 130, no worker's traceback; --resume then writes what
    the whole run writes."""
    import os
    import signal
    import subprocess
    import sys
    import time

    listed = tmp_path / "refs.jsonl"
    count = 4_000
    listed.write_text(
        "".join(
            json.dumps({"id": f"r{n}", "reference": REFERENCES[n % len(REFERENCES)]}) + "\n"
            for n in range(count)
        ),
        encoding="utf-8",
    )
    out = tmp_path / "out.jsonl"
    common = ["--index", str(built), "--offline", "--no-log", "--quiet", "--workers", "2"]
    process = subprocess.Popen(
        [sys.executable, "-m", "citeproof", "refs", str(listed), "-o", str(out), *common],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.stat().st_size == 0):
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    text = stderr.decode()
    written = out.read_bytes().count(b"\n")
    assert process.returncode == 130, text
    assert 0 < written < count, "the run should have been cut short"
    assert text.splitlines() == [
        f"citeproof: interrupted: {written} of {count} references written to {out}; run the "
        "same command with --resume to go on from there."
    ]
    resumed = run_cli("refs", listed, "-o", out, "--resume", *common)
    assert resumed.exit_code == 1, resumed.output
    whole = tmp_path / "whole.jsonl"
    assert run_cli("refs", listed, "-o", whole, *common).exit_code == 1
    assert out.read_bytes() == whole.read_bytes()
