"""``citeproof refs`` as a batch: in input order on every executor, and Dask workers sharing
each service's rate limit (docs/references.md).  Replays the invented world's recordings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from refs_world import RECORDINGS, REFERENCES

if TYPE_CHECKING:
    from conftest import CliRun

NAMES = ("verified", "mismatch", "found_by_search", "not_found", "partial", "ambiguous")


def _jsonl(path: Path) -> Path:
    lines = [{"id": name, "reference": REFERENCES[name]} for name in NAMES]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _refs(run_cli: CliRun, *args: str | Path) -> tuple[int, str]:
    result = run_cli("refs", *map(str, args))
    return result.exit_code, result.output


def test_results_are_written_in_input_order(run_cli: CliRun, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    code, _ = _refs(
        run_cli,
        _jsonl(tmp_path / "in.jsonl"),
        "-o",
        out,
        "--replay",
        RECORDINGS,
        "--no-retraction",
        "--quiet",
        "--no-log",
    )
    assert code == 1  # a mismatch, a not_found and a partial are problems
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert ids == list(NAMES)


@pytest.mark.slow
def test_the_dask_executor_gives_the_same_output(run_cli: CliRun, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    inp = _jsonl(tmp_path / "in.jsonl")
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    common = ("--replay", RECORDINGS, "--no-retraction", "--quiet", "--no-log")
    assert _refs(run_cli, inp, "-o", local, *common)[0] == 1
    code, output = _refs(run_cli, inp, "-o", dask, "--executor", "dask", "--workers", "2", *common)
    assert code == 1, output
    assert dask.read_bytes() == local.read_bytes()


def test_each_of_n_processes_keeps_one_nth_of_every_rate() -> None:
    """Two Dask workers each wait twice a service's interval, so together they keep the pace
    of one process."""
    from citeproof.service.references import _Share

    clock = [0.0]
    limiter = _Share(0.5)
    limiter._clock = lambda: clock[0]
    assert limiter.reserve("api.crossref.org", 0.1) == 0.0
    assert limiter.reserve("api.crossref.org", 0.1) == pytest.approx(0.2)
    assert limiter.reserve("api.openalex.org", 0.1) == 0.0  # another service is not held up


def test_the_published_schema_validates_what_refs_prints(run_cli: CliRun, tmp_path: Path) -> None:
    import jsonschema

    result = run_cli("schema", "references")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["$id"] == "citeproof.references/1"
    inp = _jsonl(tmp_path / "in.jsonl")
    printed = run_cli("refs", inp, "--replay", RECORDINGS, "--no-retraction", "--json", "--no-log")
    report = json.loads(printed.stdout)
    jsonschema.validate(report, schema)
    assert report["schema"] == "citeproof.references/1"
    assert [r["verdict"] for r in report["references"]] == [
        "verified",
        "mismatch",
        "verified",
        "not_found",
        "partial",
        "ambiguous",
    ]


def test_a_batch_longer_than_one_calls_cap_is_verified_in_slices(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """verify_stated takes at most MAX_REFERENCES at once; a longer JSONL is sliced, and
    every line is still written in order."""
    import citeproof.batch.bibliographies as bib

    monkeypatch.setattr(bib, "LOCAL_SLICE", 2)
    out = tmp_path / "out.jsonl"
    code, _ = _refs(
        run_cli,
        _jsonl(tmp_path / "in.jsonl"),
        "-o",
        out,
        "--replay",
        RECORDINGS,
        "--no-retraction",
        "--quiet",
        "--no-log",
    )
    assert code == 1
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == list(NAMES)
    assert [x["index"] for x in lines] == list(range(1, len(NAMES) + 1))


@pytest.mark.slow
def test_ctrl_c_says_how_far_refs_got_and_resume_goes_on(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Interrupted after two references, refs names what it wrote and --resume finishes the
    output exactly as an uninterrupted run writes it."""
    import citeproof.batch.bibliographies as bib

    real = bib.run_refs

    def interrupted(*args: object, on_result: object = None, **kw: object) -> object:
        seen = [0]

        def counting(ident: str, result: object) -> None:
            assert callable(on_result)
            on_result(ident, result)
            seen[0] += 1
            if seen[0] == 2:
                raise KeyboardInterrupt

        return real(*args, on_result=counting, **kw)  # type: ignore[arg-type]

    inp, out, whole = _jsonl(tmp_path / "in.jsonl"), tmp_path / "out.jsonl", tmp_path / "w.jsonl"
    common = ("--replay", RECORDINGS, "--no-retraction", "--quiet", "--no-log")
    assert _refs(run_cli, inp, "-o", whole, *common)[0] == 1
    monkeypatch.setattr(bib, "run_refs", interrupted)
    result = run_cli("refs", inp, "-o", out, *map(str, common))
    assert result.exit_code == 130
    assert "2 of 6 references written" in result.output and "--resume" in result.output
    assert "Aborted" not in result.output
    monkeypatch.setattr(bib, "run_refs", real)
    assert _refs(run_cli, inp, "-o", out, "--resume", *common)[0] == 1
    assert out.read_bytes() == whole.read_bytes()


def test_with_an_output_each_result_is_dropped_once_written(tmp_path: Path) -> None:
    """``-o`` holds the results, so the run keeps only the counts: memory stays flat in
    the number of references verified (bench/bench_refs_inputs.py measures it)."""
    from citeproof.batch.bibliographies import RefsOptions, read_jobs, run_refs

    jobs, _ = read_jobs([str(_jsonl(tmp_path / "in.jsonl"))])
    seen: list[str] = []
    report = run_refs(
        jobs,
        RefsOptions(replay=str(RECORDINGS), retraction=False),
        on_result=lambda ident, result: seen.append(result.verdict),
        keep=False,
    )
    assert report.references == []
    assert report.counts.total == len(seen) == len(NAMES)
    assert report.counts.verified == seen.count("verified") == 2
