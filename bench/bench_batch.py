"""Benchmark ``citeproof batch``: 10,000 checks against 100 documents, local and on Dask.

The documents are 100 slices of about 10 kB of the shared kit's ``1m.txt`` (real article and
book text), written to a temporary folder; the quotes are sentences cut from them (mostly
verbatim, every fifth with one word changed), so the verdicts are a realistic mix of EXACT and
NEAR.  Each run is ``python -m citeproof batch`` in a fresh subprocess, timed from start to
exit (imports, worker start-up and all), with the child's peak RSS.

Targets (issue 7): 10,000 checks in at most 10 s with the local executor on a 2-core machine;
peak memory independent of the input's length (measured at 10,000 and 40,000 lines); the Dask
LocalCluster's overhead against the local executor, reported.

    python bench/bench_batch.py            # full run
    python bench/bench_batch.py --quick    # 2,000 checks; timings printed, never judged
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench" / "texts" / "1m.txt"
DOCS = 100
DOC_CHARS = 10_000


def make_docs(folder: Path) -> list[tuple[Path, list[str]]]:
    """100 documents of about 10 kB each, with their words."""
    text = SHARED.read_text(encoding="utf-8")
    docs = []
    for n in range(DOCS):
        start = n * (len(text) // DOCS)
        piece = text[start : start + DOC_CHARS]
        path = folder / f"doc{n:03d}.txt"
        path.write_text(piece, encoding="utf-8")
        docs.append((path, piece.split()))
    return docs


def make_input(path: Path, docs: list[tuple[Path, list[str]]], checks: int) -> Path:
    """``checks`` quotes cut from the documents in turn; every fifth has a word changed."""
    rng = random.Random(7)
    with path.open("w", encoding="utf-8") as out:
        for i in range(checks):
            doc, words = docs[i % len(docs)]
            at = rng.randrange(0, max(1, len(words) - 25))
            chosen = words[at : at + rng.randint(8, 20)]
            if i % 5 == 4 and len(chosen) > 3:
                chosen[len(chosen) // 2] = "zebra"
            out.write(json.dumps({"id": i, "quote": " ".join(chosen), "source": str(doc)}) + "\n")
    return path


def timed_batch(inp: Path, out: Path, *extra: str) -> tuple[float, float]:
    """(seconds, peak RSS of the child in MB) for one ``citeproof batch`` run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "citeproof", "batch", str(inp), "-o", str(out), "--quiet", *extra],
        check=True,
        env={**os.environ, "CITEPROOF_HOME": str(out.parent / "home")},
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    if not SHARED.is_file():
        print(f"skipped: {SHARED} not found (the shared benchmark kit)")
        return 0
    checks = 2000 if args.quick else 10_000
    rows: list[tuple[str, str, str]] = []
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        docs = make_docs(folder)
        inp = make_input(folder / "in.jsonl", docs, checks)
        workers = ["--workers", str(args.workers)]
        seconds, peak = timed_batch(inp, folder / "local.jsonl", *workers)
        verdicts: dict[str, int] = {}
        for line in (folder / "local.jsonl").read_text().splitlines():
            verdict = json.loads(line).get("verdict", "ERROR")
            verdicts[verdict] = verdicts.get(verdict, 0) + 1
        met = seconds <= 10
        ok &= met or args.quick
        rows.append(
            (
                f"{checks:,} checks, 100 docs, local, {args.workers} workers",
                f"{seconds:.2f} s",
                "<= 10 s " + ("ok" if met else "MISSED"),
            )
        )
        rows.append(("  verdicts", ", ".join(f"{k} {v}" for k, v in sorted(verdicts.items())), ""))
        rows.append(("  peak RSS of the batch process", f"{peak:.0f} MB", ""))
        if not args.quick:
            big = make_input(folder / "big.jsonl.in", docs, checks * 4)
            big_seconds, big_peak = timed_batch(big, folder / "big.jsonl", *workers)
            rows.append((f"{checks * 4:,} checks, same documents", f"{big_seconds:.2f} s", ""))
            rows.append(
                (
                    "  peak RSS of the batch process",
                    f"{big_peak:.0f} MB",
                    f"vs {peak:.0f} MB at {checks:,}",
                )
            )
        if not args.no_dask:
            dask_seconds, _ = timed_batch(
                inp, folder / "dask.jsonl", "--executor", "dask", *workers
            )
            same = (folder / "dask.jsonl").read_bytes() == (folder / "local.jsonl").read_bytes()
            rows.append(
                (
                    f"{checks:,} checks, Dask LocalCluster, {args.workers} workers",
                    f"{dask_seconds:.2f} s",
                    f"overhead {dask_seconds - seconds:+.2f} s; output identical: {same}",
                )
            )
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>12}  {note}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
