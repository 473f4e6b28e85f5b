"""``citeproof batch``: results per line, resume after SIGKILL, and the Dask executor.

The expected verdicts come from the shared benchmark kit (``../shared/bench``): its 10k quote
set was written with expected verdicts against the 10k text; the text is read in place.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import citeproof
from citeproof import batch
from citeproof.evidence.log import EvidenceLog
from citeproof.match.normalize import normalize
from citeproof.match.types import MIN_QUOTE_CHARS
from citeproof.store.paths import default_dirs

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO.parent / "shared" / "bench"
EXAMPLES = REPO / "examples"
NO_BENCH = "../shared/bench not found: this test needs the shared benchmark kit"
ARTICLE_QUOTE = "fell asleep faster than those in the control group"


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def bench_rows() -> tuple[Path, list[dict[str, Any]]]:
    text = BENCH / "texts" / "10k.txt"
    quotes = BENCH / "quotes" / "10k.jsonl"
    if not (text.is_file() and quotes.is_file()):
        pytest.skip(NO_BENCH)
    return text, [json.loads(line) for line in quotes.read_text().splitlines()]


def test_a_batch_gives_the_expected_verdicts_in_input_order(
    run_cli: CliRun, tmp_path: Path
) -> None:
    text, rows = bench_rows()
    items = [{"id": r["id"], "quote": r["quote"], "source": str(text)} for r in rows]
    inp = write_jsonl(tmp_path / "in.jsonl", items)
    out = tmp_path / "out.jsonl"
    result = run_cli("batch", inp, "-o", out, "--workers", "2", "--quiet")
    assert result.exit_code == 0, result.output
    records = read_jsonl(out)
    assert [r["id"] for r in records] == [r["id"] for r in rows]
    # The kit's verdicts, with citeproof's rule that a quote under 20 characters (t1) is
    # TOO_SHORT (as bench/bench_match.py scores them).
    expected = [
        "TOO_SHORT" if len(normalize(r["quote"])) < MIN_QUOTE_CHARS else r["expected_verdict"]
        for r in rows
    ]
    assert [r["verdict"] for r in records] == expected
    # Each record is exactly the single check's result, plus the id.
    for record, row in list(zip(records, rows, strict=True))[::37]:
        single = citeproof.check(row["quote"], str(text)).model_dump(mode="json")
        assert {k: v for k, v in record.items() if k != "id"} == single


def test_bad_lines_unknown_and_unavailable_sources_are_reported_per_line(
    run_cli: CliRun, tmp_path: Path
) -> None:
    article = str(EXAMPLES / "example-article.nxml")
    inp = tmp_path / "in.jsonl"
    inp.write_text(
        json.dumps({"id": "ok", "quote": ARTICLE_QUOTE, "source": article})
        + "\n"
        + '{"quote": NaN, "source": "x"}\n'
        + json.dumps({"id": "nofile", "quote": "some words here", "source": "no/such.txt"})
        + "\n"
        + json.dumps({"id": "pinless", "quote": "some words here", "source": "PMC1234567"})
        + "\n"
        + json.dumps({"id": "empty", "quote": "w " * 60_000, "source": article})
        + "\n"
        + json.dumps({"id": "last", "quote": ARTICLE_QUOTE, "source": article})
        + "\n"
    )
    out = tmp_path / "out.jsonl"
    result = run_cli("batch", inp, "-o", out, "--offline", "--workers", "1")
    assert result.exit_code == 0
    by_id = {r["id"]: r for r in read_jsonl(out)}
    assert list(by_id) == ["ok", 2, "nofile", "pinless", "empty", "last"]
    assert by_id["ok"]["verdict"] == by_id["last"]["verdict"] == "EXACT"
    assert by_id[2]["error"]["code"] == "not_json"
    assert by_id["nofile"]["error"]["code"] == "bad_source"
    assert by_id["pinless"]["verdict"] == "UNAVAILABLE"
    assert by_id["empty"]["error"]["code"] == "bad_quote"
    assert "6 checked" in result.stderr and "UNAVAILABLE 1" in result.stderr


@pytest.mark.slow
def test_resume_after_sigkill_gives_the_uninterrupted_output(
    run_cli: CliRun, tmp_path: Path
) -> None:
    text, rows = bench_rows()
    items = [
        {"id": f"{r['id']}-{n}", "quote": r["quote"], "source": str(text)}
        for n in range(6)
        for r in rows
    ]
    inp = write_jsonl(tmp_path / "in.jsonl", items)
    whole = tmp_path / "whole.jsonl"
    assert run_cli("batch", inp, "-o", whole, "--workers", "1", "--quiet").exit_code == 0

    out = tmp_path / "out.jsonl"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [
        sys.executable,
        "-m",
        "citeproof",
        "batch",
        str(inp),
        "-o",
        str(out),
        "--workers",
        "1",
        "--quiet",
    ]
    process = subprocess.Popen(command, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not out.exists() or out.stat().st_size < 20_000):
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
    partial = out.read_bytes()
    assert 0 < partial.count(b"\n") < len(items), "the batch should have been cut short"
    with out.open("ab") as fh:
        fh.write(b'{"id": "torn')  # as if killed in the middle of a line
    result = run_cli("batch", inp, "-o", out, "--resume", "--workers", "1", "--quiet")
    assert result.exit_code == 0, result.output
    assert out.read_bytes() == whole.read_bytes()


@pytest.mark.slow
def test_the_dask_executor_gives_the_same_output(run_cli: CliRun, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    text, rows = bench_rows()
    article = str(EXAMPLES / "example-article.nxml")
    items = [{"id": r["id"], "quote": r["quote"], "source": str(text)} for r in rows[:120]]
    items += [{"id": f"a{n}", "quote": ARTICLE_QUOTE, "source": article} for n in range(5)]
    inp = write_jsonl(tmp_path / "in.jsonl", items)
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    assert run_cli("batch", inp, "-o", local, "--workers", "2", "--quiet").exit_code == 0
    result = run_cli("batch", inp, "-o", dask, "--executor", "dask", "--workers", "2", "--quiet")
    assert result.exit_code == 0, result.output
    assert dask.read_bytes() == local.read_bytes()


def many_sources(folder: Path, sources: int, lines: int) -> list[dict[str, Any]]:
    """``lines`` checks over ``sources`` invented text files (each its own words), unevenly
    spread, every fourth with a word changed, and a few lines that are not checks."""
    import random

    rng = random.Random(sources * lines)
    vocabulary = [f"w{n}" for n in range(300)]
    docs = []
    for n in range(sources):
        words = [rng.choice(vocabulary) for _ in range(600)]
        path = folder / f"source{n:03d}.txt"
        path.write_text(" ".join(words), encoding="utf-8")
        docs.append((str(path), words))
    rows: list[dict[str, Any]] = []
    for i in range(lines):
        path, words = docs[min(int(rng.expovariate(0.08)), sources - 1)]
        at = rng.randrange(0, len(words) - 15)
        quote = words[at : at + rng.randint(6, 14)]
        if i % 4 == 3:
            quote[len(quote) // 2] = "zebra"
        rows.append({"id": f"q{i}", "quote": " ".join(quote), "source": path})
    rows[5] = {"id": "gone", "quote": "a quote of some words", "source": str(folder / "gone.txt")}
    rows[9] = {"id": "bad", "quote": "", "source": docs[0][0]}
    return rows


@pytest.mark.slow
def test_the_output_is_the_same_for_any_executor_worker_count_and_chunking(
    tmp_path: Path,
) -> None:
    """Sources routed to workers, chunks that overlap and split a source's lines, a Dask
    cluster: none of it shows in the output, which is one worker's, in one chunk."""
    rows = many_sources(tmp_path, 40, 600)
    expected = [o.text for o in batch.run(rows, workers=1)]
    assert len({json.loads(t).get("verdict") for t in expected}) >= 3
    for workers in (1, 2, 3):
        got = [o.text for o in batch.run(rows, workers=workers, chunk_lines=37)]
        assert got == expected, f"{workers} workers"
    if importlib.util.find_spec("distributed") is not None:
        got = [o.text for o in batch.run(rows, executor="dask", workers=2, chunk_lines=53)]
        assert got == expected, "Dask"


@pytest.mark.slow
def test_the_command_writes_the_same_bytes_with_one_worker_two_and_dask(
    run_cli: CliRun, tmp_path: Path
) -> None:
    """2,300 lines: the chunk boundary at line 2,000 falls inside many sources' lines."""
    inp = write_jsonl(tmp_path / "in.jsonl", many_sources(tmp_path, 60, 2300))
    outputs = {}
    for name, extra in [
        ("one", ["--workers", "1"]),
        ("two", ["--workers", "2"]),
        ("dask", ["--executor", "dask", "--workers", "2"]),
    ]:
        if name == "dask" and importlib.util.find_spec("distributed") is None:
            continue
        out = tmp_path / f"{name}.jsonl"
        result = run_cli("batch", inp, "-o", out, "--quiet", *extra)
        assert result.exit_code == 0, result.output
        outputs[name] = out.read_bytes()
    assert outputs["two"] == outputs["one"]
    assert outputs.get("dask", outputs["one"]) == outputs["one"]
    assert outputs["one"].count(b"\n") == 2300


@pytest.mark.slow
def test_on_dask_each_source_is_parsed_by_one_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chunk's sources used to be dealt out anew, so every worker parsed most sources.
    Here timing is kept out of the routes: work stealing is off (a stolen task runs where it
    lands, which is right, but then which worker parsed what is a matter of timing) and the
    workers' measured speeds are not followed."""
    distributed = pytest.importorskip("distributed")
    import dask

    from citeproof.batch.checks import Router

    monkeypatch.setattr(Router, "observe", lambda self, worker, checks, seconds: None)
    many_sources(tmp_path, 16, 16)  # the files; the checks are made here
    sources = sorted(str(p) for p in tmp_path.glob("source*.txt"))
    words = {s: Path(s).read_text().split() for s in sources}
    rows = [
        {"id": i, "quote": " ".join(words[s][i % 50 : i % 50 + 10]), "source": s}
        for i in range(480)
        for s in [sources[i % len(sources)]]
    ]

    def parsed_here() -> list[str | None]:
        from citeproof.loading import memo

        return sorted(name for _, name in memo._MEMO)

    with (
        dask.config.set({"distributed.scheduler.work-stealing": False}),
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
    ):
        expected = [o.text for o in batch.run(rows, workers=1)]
        got = batch.run(
            rows, executor="dask", scheduler=cluster.scheduler_address, chunk_lines=2 * len(sources)
        )
        assert [o.text for o in got] == expected
        with distributed.Client(cluster) as client:
            held = list(client.run(parsed_here).values())
    assert len(held) == 2 and all(held)
    assert set(held[0]).isdisjoint(held[1])
    assert sorted(held[0] + held[1]) == sorted(Path(s).name for s in sources)


def test_unordered_has_the_same_records(run_cli: CliRun, tmp_path: Path) -> None:
    article = str(EXAMPLES / "example-article.nxml")
    notes = str(EXAMPLES / "example-notes.txt")
    items = [
        {"id": n, "quote": ARTICLE_QUOTE, "source": article if n % 2 else notes} for n in range(40)
    ]
    inp = write_jsonl(tmp_path / "in.jsonl", items)
    ordered, unordered = tmp_path / "o.jsonl", tmp_path / "u.jsonl"
    assert run_cli("batch", inp, "-o", ordered, "--quiet").exit_code == 0
    assert run_cli("batch", inp, "-o", unordered, "--unordered", "--quiet").exit_code == 0
    key = lambda r: r["id"]  # noqa: E731
    assert sorted(read_jsonl(unordered), key=key) == sorted(read_jsonl(ordered), key=key)


def test_log_records_every_check_in_batched_appends(run_cli: CliRun, tmp_path: Path) -> None:
    article = str(EXAMPLES / "example-article.nxml")
    items = [
        {"id": n, "quote": ARTICLE_QUOTE, "source": article, "claim": f"claim {n}"}
        for n in range(250)
    ]
    inp = write_jsonl(tmp_path / "in.jsonl", items)
    assert run_cli("batch", inp, "-o", tmp_path / "out.jsonl", "--log", "--quiet").exit_code == 0
    log = EvidenceLog(default_dirs().log)
    entries = list(log.entries())
    assert len(entries) == 250
    assert entries[-1].payload["claim"] == "claim 249"
    assert log.verify().ok


def test_stdin_and_stdout(run_cli: CliRun, tmp_path: Path) -> None:
    article = str(EXAMPLES / "example-article.nxml")
    line = json.dumps({"id": "x", "quote": ARTICLE_QUOTE, "source": article}) + "\n"
    result = run_cli("batch", "-", "--quiet", input=line.encode())
    assert result.exit_code == 0
    assert json.loads(result.stdout)["verdict"] == "EXACT"
    assert run_cli("batch", "-", "--resume", input=b"").exit_code == 2
    assert run_cli("batch", tmp_path / "nope.jsonl").exit_code == 2


def test_the_library_yields_outcomes() -> None:
    article = str(EXAMPLES / "example-article.nxml")
    outcomes = list(
        batch.run([{"id": "a", "quote": ARTICLE_QUOTE, "source": article}, {"quote": 3}], workers=1)
    )
    assert [o.record["id"] for o in outcomes] == ["a", 2]
    assert outcomes[0].verdict == "EXACT" and outcomes[1].verdict is None


@pytest.mark.slow
def test_an_existing_dask_scheduler_is_used(run_cli: CliRun, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    article = str(EXAMPLES / "example-article.nxml")
    items = [{"id": n, "quote": ARTICLE_QUOTE, "source": article} for n in range(20)]
    inp = write_jsonl(tmp_path / "in.jsonl", items)
    local, remote = tmp_path / "local.jsonl", tmp_path / "remote.jsonl"
    assert run_cli("batch", inp, "-o", local, "--workers", "1", "--quiet").exit_code == 0
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        result = run_cli(
            "batch",
            inp,
            "-o",
            remote,
            "--executor",
            "dask",
            "--scheduler",
            cluster.scheduler_address,
            "--quiet",
        )
        assert result.exit_code == 0, result.output
        assert cluster.scheduler_address.startswith("tcp://")
    assert remote.read_bytes() == local.read_bytes()
    assert run_cli("batch", inp, "--scheduler", "tcp://127.0.0.1:1").exit_code == 2  # needs dask


def test_the_progress_bar_counts_checks_and_verdicts() -> None:
    from collections import Counter
    from io import StringIO

    from rich.console import Console

    from citeproof.cli.batch import progress_bar

    out = StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    with progress_bar(total=4, skipped=1, console=console) as advance:
        advance(Counter({"EXACT": 2, "NEAR": 1}))
    shown = out.getvalue()
    assert "3/3" in shown and "EXACT 2" in shown and "NEAR 1" in shown
