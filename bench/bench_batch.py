"""Benchmark ``citeproof batch``: how it scales with workers, and what Dask costs against local.

The documents are 100 slices of about 10 kB of the shared kit's ``1m.txt`` (real article and
book text), written to a temporary folder; the quotes are sentences cut from them (mostly
verbatim, every fifth with one word changed), so the verdicts are a realistic mix of EXACT and
NEAR.  Each run is ``python -m citeproof batch`` in a fresh subprocess, timed from start to
exit (imports, worker start-up and all), with the child's peak RSS.

What is measured, each against its comparison in the same run, the two interleaved round by
round (so a change of load on this shared machine hits both alike), medians of ``--rounds``:

* 10,000 checks with 2 workers against the same with 1 worker (issue 16: at least 1.7x on a
  2-core machine), and a one-line batch with each, the start-up both pay (Python, the
  imports, the workers' start, the exit), which bounds what a second core can gain;
* the same without ``--workers``, the number chosen from the work and the idle cores
  (issue 25: no slower than the better of 1 and 2 workers, within a tenth), with what the
  rule makes of that work and of the cores idle at the end;
* 50,000 checks on a Dask cluster (a separate ``dask scheduler`` and two ``dask worker``
  processes, bound to 127.0.0.1, started as docs/batch.md says, before the clock, and new
  for each round, so no round finds documents parsed by an earlier one) against the local
  executor with 2 workers (issue 16: within 1.1x), a Dask ``LocalCluster`` started by the
  batch itself, and the local executor with 1 worker, reported;
* peak memory at 10,000 and 40,000 lines (issue 7: independent of the input's length), and
  10,000 checks within 10 s (issue 7).

Every output is compared byte for byte with the 1-worker (or local) one.

    python bench/bench_batch.py              # everything, 3 rounds
    python bench/bench_batch.py --quick      # 2,000 and 5,000 checks; printed, never judged
    python bench/bench_batch.py --no-dask    # the local rows only
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench" / "texts" / "1m.txt"
DOCS = 100
DOC_CHARS = 10_000
LOOPBACK = "127.0.0.1"


Docs = list[tuple[Path, list[str]]]


def make_docs(folder: Path) -> Docs:
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


def make_input(path: Path, docs: Docs, checks: int) -> Path:
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


def child_env(folder: Path) -> dict[str, str]:
    """The environment of every process the bench starts: a private home, and bytecode
    cached (in the bench's folder), as an installed package has it.  Without a cache (with
    ``PYTHONDONTWRITEBYTECODE`` set) every process compiles citeproof again, about 0.1 s
    each, which is no part of a batch's cost."""
    env = {**os.environ, "CITEPROOF_HOME": str(folder / "home")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(folder / "pycache"))
    return env


ENV: dict[str, str] = {}


def timed_batch(inp: Path, out: Path, *extra: str) -> tuple[float, float]:
    """(seconds, peak RSS in MB of the largest process it started) for one batch run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "citeproof",
            "batch",
            str(inp),
            "-o",
            str(out),
            "--quiet",
            "--overwrite",
            *extra,
        ],
        check=True,
        env=ENV,
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (5 min {five:.2f})"


@contextmanager
def dask_cluster(folder: Path, workers: int) -> Iterator[str]:
    """A scheduler and ``workers`` single-threaded workers, each its own process, on loopback.

    As the docs say to start them: ``--host 127.0.0.1`` and the HTTP port on loopback too, so
    nothing listens beyond this machine, and the workers importing citeproof as they start
    (``--preload``), as a cluster kept for batches does once.  Yields the scheduler's address
    once every worker has joined.
    """
    from distributed import Client

    dask = [sys.executable, "-m", "dask"]  # the `dask` command of this interpreter
    info = folder / "scheduler.json"
    info.unlink(missing_ok=True)
    logs = (folder / "dask.log").open("ab")
    # --no-dashboard alone still serves /health and /metrics on every address, at :8787.
    local = ["--host", LOOPBACK, "--no-dashboard", "--dashboard-address", f"{LOOPBACK}:0"]
    processes = [
        subprocess.Popen(
            [*dask, "scheduler", *local, "--port", "0", "--scheduler-file", str(info)],
            stdout=logs,
            stderr=logs,
            env=ENV,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not info.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        address = json.loads(info.read_text())["address"]
        worker = [*dask, "worker", address]
        for _ in range(workers):
            processes.append(
                subprocess.Popen(
                    [*worker, *local, "--nthreads", "1", "--preload", "citeproof.batch.checks"],
                    stdout=logs,
                    stderr=logs,
                    env=ENV,
                )
            )
        with Client(address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=60)
        time.sleep(0.5)  # the workers' start-up is not the batch's to pay
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        logs.close()


def interleaved(rounds: int, contenders: dict[str, Callable[[], float]]) -> dict[str, list[float]]:
    """Each contender once per round, in turn (the order alternating), for ``rounds`` rounds."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    for n in range(rounds):
        for name in names if n % 2 == 0 else reversed(names):
            times[name].append(contenders[name]())
    return times


def median(values: list[float]) -> float:
    return statistics.median(values)


def spread(values: list[float]) -> str:
    return "runs " + ", ".join(f"{v:.2f}" for v in values)


class Table:
    """The rows printed at the end: measure, value, target, PASS/FAIL (or a note)."""

    def __init__(self, quick: bool) -> None:
        self.rows: list[tuple[str, str, str, str]] = []
        self.ok = True
        self.quick = quick

    def judged(self, name: str, value: str, target: str, met: bool) -> None:
        self.ok &= met or self.quick
        self.rows.append((name, value, target, "PASS" if met else "FAIL"))

    def noted(self, name: str, value: str, note: str = "") -> None:
        self.rows.append((name, value, note, ""))

    def print(self) -> None:
        width = max(len(r[0]) for r in self.rows)
        for name, value, target, verdict in self.rows:
            print(f"{name:<{width}}  {value:>14}  {verdict:<4} {target}")


def verdicts(path: Path) -> str:
    counts: dict[str, int] = {}
    for line in path.read_text().splitlines():
        verdict = json.loads(line).get("verdict", "ERROR")
        counts[verdict] = counts.get(verdict, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))


def scaling(table: Table, folder: Path, docs: Docs, checks: int, rounds: int) -> None:
    """2 workers against 1 on the same input, interleaved; and the start-up both pay."""
    inp = make_input(folder / "in.jsonl", docs, checks)
    tiny = make_input(folder / "one-line.jsonl", docs, 1)
    out = {n: folder / f"{n}-worker.jsonl" for n in ("1", "2", "default")}
    timed_batch(inp, out["2"], "--workers", "2")  # fills the bytecode cache; not counted

    def timer(path: Path, to: Path, workers: str) -> Callable[[], float]:
        chosen = () if workers == "default" else ("--workers", workers)
        return lambda: timed_batch(path, to, *chosen)[0]

    contenders = {n: timer(inp, out[n], n) for n in out}
    contenders |= {f"{n}, one line": timer(tiny, folder / "tiny.jsonl", n) for n in out}
    times = interleaved(rounds, contenders)
    t1, t2, td = median(times["1"]), median(times["2"]), median(times["default"])
    s1, s2 = median(times["1, one line"]), median(times["2, one line"])
    sd = median(times["default, one line"])
    table.judged(
        f"{checks:,} checks, 100 docs: 2 workers vs 1 (speed-up)",
        f"{t1 / t2:.2f}x",
        ">= 1.7x",
        t1 / t2 >= 1.7,
    )
    table.noted("  1 worker, median", f"{t1:.2f} s", spread(times["1"]))
    table.noted("  2 workers, median", f"{t2:.2f} s", spread(times["2"]))
    table.noted(
        "  start-up (a one-line batch), 1 / 2 workers",
        f"{s1:.2f} / {s2:.2f} s",
        f"the checks alone: {(t1 - s1) / (t2 - s2):.2f}x",
    )
    best = min(t1, t2)
    table.judged(
        f"{checks:,} checks, workers chosen, vs the better of 1 and 2",
        f"{td / best:.2f}x",
        "<= 1.1x",
        td <= 1.1 * best,
    )
    table.noted("  chosen, median", f"{td:.2f} s", f"{spread(times['default'])}; {chosen(inp)}")
    table.noted("  chosen, a one-line batch", f"{sd:.2f} s")
    same = out["1"].read_bytes() == out["2"].read_bytes() == out["default"].read_bytes()
    table.judged("  output identical, 1, 2 and chosen workers", str(same), "True", same)
    table.judged(
        f"{checks:,} checks, local, 2 workers (issue 7)", f"{t2:.2f} s", "<= 10 s", t2 <= 10
    )
    table.noted("  verdicts", verdicts(out["2"]))


def chosen(inp: Path) -> str:
    """What ``choose_workers`` makes of this input's estimated work and the cores idle now
    (the batch decides the same way, from the lines it reads ahead)."""
    from citeproof.batch.checks import LOOKAHEAD, estimated_work
    from citeproof.batch.executors import IdleCores, choose_workers
    from citeproof.batch.jsonl import parse_stream

    cores = os.cpu_count() or 1
    idle = IdleCores(cores)
    with inp.open("rb") as lines:
        entries = list(itertools.islice(parse_stream(lines), LOOKAHEAD))
    work = estimated_work(entries)
    now = idle()
    workers = choose_workers(work, cores=cores, idle=lambda: now)
    return f"estimated {work:.2f} s of work, {now:.1f} cores idle: {workers} worker(s)"


def memory(table: Table, folder: Path, docs: Docs, checks: int) -> None:
    """The batch process's peak RSS at ``checks`` lines and at four times as many."""
    peaks = []
    for n in (checks, 4 * checks):
        inp = make_input(folder / f"mem-{n}.jsonl", docs, n)
        peaks.append(timed_batch(inp, folder / "mem.jsonl", "--workers", "2")[1])
    table.judged(
        f"peak RSS, {checks:,} and {4 * checks:,} checks (issue 7)",
        f"{peaks[0]:.0f} / {peaks[1]:.0f} MB",
        "4x the lines: < 1.5x the memory",
        peaks[1] < 1.5 * peaks[0],
    )


def dask_rows(table: Table, folder: Path, docs: Docs, checks: int, rounds: int) -> None:
    """A Dask cluster, and a LocalCluster, against the local executor; 1 worker too."""
    inp = make_input(folder / "dask-in.jsonl", docs, checks)
    out = {n: folder / f"{n}.jsonl" for n in ("local 1", "local 2", "cluster", "LocalCluster")}

    def cluster() -> float:
        with dask_cluster(folder, 2) as address:
            return timed_batch(inp, out["cluster"], "--executor", "dask", "--scheduler", address)[0]

    times = interleaved(
        rounds,
        {
            "local 2": lambda: timed_batch(inp, out["local 2"], "--workers", "2")[0],
            "cluster": cluster,
            "LocalCluster": lambda: timed_batch(
                inp, out["LocalCluster"], "--executor", "dask", "--workers", "2"
            )[0],
            "local 1": lambda: timed_batch(inp, out["local 1"], "--workers", "1")[0],
        },
    )
    local, on_cluster = median(times["local 2"]), median(times["cluster"])
    table.judged(
        f"{checks:,} checks: Dask cluster (scheduler + 2 workers) vs local, 2 workers",
        f"{on_cluster / local:.2f}x",
        "<= 1.1x",
        on_cluster / local <= 1.1,
    )
    table.noted("  local, 2 workers, median", f"{local:.2f} s", spread(times["local 2"]))
    table.noted("  Dask cluster, median", f"{on_cluster:.2f} s", spread(times["cluster"]))
    lc = median(times["LocalCluster"])
    table.noted(
        f"{checks:,} checks: Dask LocalCluster (started by the batch) vs local",
        f"{lc / local:.2f}x",
        spread(times["LocalCluster"]),
    )
    one = median(times["local 1"])
    table.noted(
        f"{checks:,} checks: local, 2 workers vs 1 (speed-up)",
        f"{one / local:.2f}x",
        f"1 worker {one:.2f} s, {spread(times['local 1'])}",
    )
    first = out["local 1"].read_bytes()
    same = all(path.read_bytes() == first for path in out.values())
    table.judged(
        "  output identical, local 1 and 2, cluster, LocalCluster", str(same), "True", same
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-dask", action="store_true")
    args = parser.parse_args()
    if not SHARED.is_file():
        print(f"skipped: {SHARED} not found (the shared benchmark kit)")
        return 0
    table = Table(args.quick)
    print(f"load average before: {load()}; {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        ENV.update(child_env(folder))
        docs = make_docs(folder)
        scaling(table, folder, docs, 2000 if args.quick else 10_000, args.rounds)
        if not args.quick:
            memory(table, folder, docs, 10_000)
        if not args.no_dask:
            dask_rows(table, folder, docs, 5000 if args.quick else 50_000, args.rounds)
    print(f"load average after: {load()}")
    table.print()
    return 0 if table.ok else 1


if __name__ == "__main__":
    sys.exit(main())
