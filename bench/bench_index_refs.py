"""Throughput of ``citeproof refs --index DIR --offline`` (issue 23): references a second on
2 cores, CPU a reference, and the verdicts against the truth, on the benchmark's index.

    python bench/bench_index_refs.py DATA INDEX [--references 10000] [--json-out FILE]

``DATA`` is what ``make_index_records.py`` wrote (its ``summary.json`` names the seed and the
number of works), ``INDEX`` the index ``bench_index.py`` built from it (``WORK/index``).

**The references.**  Works are drawn at random from the works the dumps hold and printed as
an author prints them (Vancouver or APA, sometimes a word dropped, a typo, the year off by
one: the generator's own ``_query``), 30% of them with their DOI after the reference when
they have one; 10% are works the generator would make next (numbers past the last one
written), which no dump holds: a reference to a real-looking work the index does not know,
with its DOI printed for some.  The generator's records are the truth: a held work is right
when verified (or ambiguous, the cited work among the candidates), an absent one when not
verified.

**The runs**, each timed end to end (the interpreter's start, reading the list, opening the
index, every verification, the evidence log, the output), with the CPU of the process and
all its descendants from ``getrusage`` (this process adopts the worker processes' fork
server when its parent ends, so their CPU is counted too) and the load average before and
after:

* ``cli``: ``citeproof refs FILE.jsonl --index INDEX --offline -o OUT`` as a user runs it
  (the local executor, which chooses its worker processes from the work and the idle
  cores), writing its evidence-log lines;
* ``cli-1``, ``cli-2``: the same with ``--workers 1`` (one process) and ``--workers 2``;
* ``cli-dask``: the same with ``--executor dask --workers 2``;
* ``library``: :func:`citeproof.batch.bibliographies.run_refs` in this process, no log: the
  verification alone, without the interpreter's start (the workers chosen as ``cli``).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
DOI_SHARE = 0.3
ABSENT_SHARE = 0.1
RIGHT_WHEN_HELD = frozenset({"verified", "ambiguous"})


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def references(data: Path, count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` references with their truth: ``keys`` (the cited work's identifiers) and
    ``held`` (whether any dump holds it)."""
    sys.path.insert(0, str(BENCH))
    import make_index_records as made

    summary = json.loads((data / "summary.json").read_text(encoding="utf-8"))
    works = int(summary["works"])
    maker = made.Maker(made.Vocabulary(made.CORPUS), int(summary["seed"]))
    r = random.Random(seed)
    absent = int(count * ABSENT_SHARE)
    numbers = [(n, True) for n in r.sample(range(works), count - absent)]
    numbers += [(works + n, False) for n in r.sample(range(works), absent)]
    r.shuffle(numbers)
    out = []
    for i, (n, held) in enumerate(numbers):
        work = maker.work(n)
        query = made._query(work, random.Random(work["seed"]), 1_000_000_000 + 4 * n)
        text = query["text"]
        if work["doi"] and r.random() < DOI_SHARE:
            text += f" doi:{work['doi']}"
        keys = {query["expect"]} | ({f"pmid:{work['pmid']}"} if work["pmid"] else set())
        out.append({"id": f"r{i}", "reference": text, "keys": sorted(keys), "held": held})
    return out


def _adopt_orphans() -> None:
    """Become the "subreaper" of the runs' processes (Linux): a fork server whose parent
    ended is then this process's child, and its CPU (and its workers') is counted when it
    is reaped (:func:`_reap`), not lost with it."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _reap() -> None:
    """Wait for every child left (the adopted fork servers end when their parent has)."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _usage() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _keys(work: dict[str, Any] | None) -> set[str]:
    if not work:
        return set()
    keys = {str(work.get("identifier") or "")}
    if work.get("doi"):
        keys.add(f"doi:{work['doi'].lower()}")
    if work.get("pmid"):
        keys.add(f"pmid:{work['pmid']}")
    return keys


def score(refs: list[dict[str, Any]], results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Verdicts of held and absent references, and how many are right."""
    verdicts: dict[str, collections.Counter[str]] = {
        "held": collections.Counter(),
        "absent": collections.Counter(),
    }
    right = collections.Counter()
    for ref in refs:
        result = results.get(ref["id"])
        verdict = result["verdict"] if result else "missing"
        side = "held" if ref["held"] else "absent"
        verdicts[side][verdict] += 1
        if ref["held"]:
            named = _keys(result.get("work") if result else None)
            for candidate in (result or {}).get("candidates", []):
                named |= _keys(candidate)
            right[side] += verdict in RIGHT_WHEN_HELD and bool(named & set(ref["keys"]))
        else:
            right[side] += verdict != "verified"
    held = sum(verdicts["held"].values())
    absent = sum(verdicts["absent"].values())
    return {
        "held": dict(verdicts["held"].most_common()),
        "absent": dict(verdicts["absent"].most_common()),
        "held_right": round(right["held"] / max(held, 1), 4),
        "absent_right": round(right["absent"] / max(absent, 1), 4),
    }


def run_cli(
    refs_file: Path, index: Path, home: Path, out: Path, extra: list[str]
) -> dict[str, Any]:
    """One ``citeproof refs`` subprocess, timed end to end."""
    env = {**os.environ, "CITEPROOF_HOME": str(home)}
    env.pop("CITEPROOF_INDEX", None)
    command = [
        sys.executable,
        "-m",
        "citeproof",
        "refs",
        str(refs_file),
        "--index",
        str(index),
        "--offline",
        "--quiet",
        "-o",
        str(out),
        "--overwrite",
        *extra,
    ]
    load_start = _load()
    cpu = _usage()
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    _reap()
    cpu = _usage() - cpu
    if done.returncode not in (0, 1):
        raise SystemExit(f"citeproof refs failed ({done.returncode}): {done.stderr[-2000:]}")
    results = {}
    for line in out.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        results[row["id"]] = row
    return {
        "command": " ".join(["citeproof", *command[3:]]),
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "load_start": load_start,
        "load_end": _load(),
        "results": results,
    }


def run_library(refs: list[dict[str, Any]], index: Path) -> dict[str, Any]:
    """The verification alone, in this process: ``run_refs`` of the read references."""
    from citeproof.batch.bibliographies import Job, RefsOptions, run_refs
    from citeproof.service.references import stated_reference

    jobs = [
        Job(ref["id"], "bench", i, stated_reference(ref["reference"], i))
        for i, ref in enumerate(refs, 1)
    ]
    options = RefsOptions(offline=True, log=False, index=str(index))
    load_start = _load()
    cpu = _usage()
    started = time.perf_counter()
    report = run_refs(jobs, options)
    seconds = time.perf_counter() - started
    from multiprocessing import forkserver

    forkserver._forkserver._stop()  # type: ignore[attr-defined]  # its workers' CPU counted
    cpu = _usage() - cpu
    results = {
        job.id: result.model_dump(mode="json")
        for job, result in zip(jobs, report.references, strict=True)
    }
    return {
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu, 2),
        "load_start": load_start,
        "load_end": _load(),
        "results": results,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("index", type=Path)
    parser.add_argument("--references", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2323)
    parser.add_argument(
        "--runs",
        default="cli,cli-1,cli-2,cli-dask,library",
        help="which runs, comma-separated",
    )
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    _adopt_orphans()
    started = time.perf_counter()
    refs = references(args.data, args.references, args.seed)
    print(f"{len(refs)} references made in {time.perf_counter() - started:.1f} s", flush=True)
    report: dict[str, Any] = {"references": len(refs), "cpus": os.cpu_count(), "runs": {}}
    with tempfile.TemporaryDirectory(prefix="bench-index-refs-") as scratch:
        work = Path(scratch)
        refs_file = work / "references.jsonl"
        with refs_file.open("w", encoding="utf-8") as handle:
            for ref in refs:
                handle.write(json.dumps({"id": ref["id"], "reference": ref["reference"]}) + "\n")
        runs = {
            "cli": lambda: run_cli(refs_file, args.index, work / "home", work / "a.jsonl", []),
            "cli-1": lambda: run_cli(
                refs_file, args.index, work / "home", work / "c.jsonl", ["--workers", "1"]
            ),
            "cli-2": lambda: run_cli(
                refs_file, args.index, work / "home", work / "d.jsonl", ["--workers", "2"]
            ),
            "cli-dask": lambda: run_cli(
                refs_file,
                args.index,
                work / "home",
                work / "b.jsonl",
                ["--executor", "dask", "--workers", "2"],
            ),
            "library": lambda: run_library(refs, args.index),
        }
        for name in args.runs.split(","):
            measured = runs[name]()
            results = measured.pop("results")
            measured["references_per_second"] = round(len(refs) / measured["seconds"], 1)
            measured["cpu_ms_per_reference"] = round(1000 * measured["cpu_seconds"] / len(refs), 2)
            measured["verdicts"] = score(refs, results)
            report["runs"][name] = measured
            print(name, json.dumps(measured), flush=True)
    if args.json_out:
        args.json_out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
