"""Benchmark of ``citeproof log verify`` against the floor of one parse and one hash a line.

Target (speed issue, evidence-log verify): verifying a log of 100,000 entries takes at most
2x the *floor*, one ``json.loads`` and one SHA-256 per line over the same file, and at most
64 MiB peak memory.

The log is built with the real appender (``append_many`` in chunks, fsync off: only the
bytes matter here) in a temporary data directory (``CITEPROOF_HOME``), so the process run
finds its key the way a user's does.  Measured in the same run, each the best of
``--repeat`` runs:

* the floor: read the file line by line, ``json.loads`` and ``hashlib.sha256`` each line;
* ``EvidenceLog.verify()`` as a function call (key loading and head check included);
* the same with a checkpoint of the whole log (``verify --checkpoint``);
* ``citeproof log --log FILE verify`` as a process (wall time, interpreter start-up and
  imports included) and its peak RSS (``ru_maxrss`` of the child);
* the function call's peak traced memory (``tracemalloc``, a separate untimed run).

``--quick`` uses 10,000 entries and never fails; a full run exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from citeproof.evidence.log import EvidenceLog
from citeproof.evidence.verify import verify_log

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_log import _payload  # the same entries as the append benchmark

RATIO_TARGET = 2.0
MEMORY_TARGET_MIB = 64.0
CHUNK = 5000


def floor(path: Path) -> int:
    """One ``json.loads`` and one SHA-256 per line: what any verifier must at least do."""
    n = 0
    with path.open("rb") as f:
        for line in f:
            json.loads(line)
            hashlib.sha256(line).digest()
            n += 1
    return n


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 entries; never fails")
    parser.add_argument("--size", type=int, help="entries in the log (default 100,000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each (best kept)")
    parser.add_argument("--dir", type=Path, help="where to build the log (default: a temp dir)")
    args = parser.parse_args(argv)
    size = args.size or (10_000 if args.quick else 100_000)

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        home = Path(tmp)
        env = {**os.environ, "CITEPROOF_HOME": str(home)}
        os.environ["CITEPROOF_HOME"] = str(home)
        path = home / "evidence.jsonl"
        log = EvidenceLog(path, durable=False)
        t = time.perf_counter()
        for start in range(0, size, CHUNK):
            log.append_many(
                [("check", _payload(i)) for i in range(start, min(size, start + CHUNK))]
            )
        build_s = time.perf_counter() - t
        checkpoint = log.checkpoint()
        file_mib = path.stat().st_size / 2**20
        verifier = EvidenceLog(path).key.verifier

        report = EvidenceLog(path).verify()
        if not report.ok or report.entries != size:
            print(f"the built log does not verify: {report.problems[:1]}", file=sys.stderr)
            return 1

        floor_s = _best(lambda: floor(path), args.repeat)
        call_s = _best(lambda: EvidenceLog(path).verify(), args.repeat)
        cp_s = _best(lambda: verify_log(path, verifier, checkpoint), args.repeat)

        cmd = [sys.executable, "-m", "citeproof", "log", "--log", str(path), "verify"]
        wall = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            done = subprocess.run(cmd, env=env, capture_output=True, check=False)
            wall.append(time.perf_counter() - t)
            if done.returncode != 0:
                print(done.stdout.decode(), done.stderr.decode(), file=sys.stderr)
                return 1
        process_s = min(wall)
        rss_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024

        tracemalloc.start()
        EvidenceLog(path).verify()
        traced_mib = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()

    ratio = call_s / floor_s
    rows: list[tuple[str, str, str]] = [
        (f"floor: json.loads + sha256 per line, {size:,} lines", f"{floor_s:.3f} s", ""),
        ("verify, function call", f"{call_s:.3f} s", ""),
        ("verify / floor", f"{ratio:.2f}x", f"<= {RATIO_TARGET:g}x"),
        ("verify --checkpoint (all entries), function call", f"{cp_s:.3f} s", ""),
        ("`citeproof log --log FILE verify`, process wall", f"{process_s:.3f} s", ""),
        ("process / floor", f"{process_s / floor_s:.2f}x", ""),
        ("process peak RSS", f"{rss_mib:.1f} MiB", f"<= {MEMORY_TARGET_MIB:g} MiB"),
        ("function call peak traced (tracemalloc)", f"{traced_mib:.2f} MiB", ""),
        ("log file size", f"{file_mib:.1f} MiB", ""),
        (f"build {size:,} with append_many, fsync off", f"{build_s:.1f} s", ""),
    ]
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}")
    print("| measure | value | target |")
    print("|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    failed = ratio > RATIO_TARGET or rss_mib > MEMORY_TARGET_MIB
    print("targets:", "missed" if failed else "met")
    return 1 if failed and not args.quick else 0


if __name__ == "__main__":
    sys.exit(main())
