"""Benchmark of the evidence log: append cost at a small and a large size, and verify.

Targets (issue "Evidence log", Performance):

* an append (with fsync) takes at most 2 ms at the median, the same at 10 and at 100,000
  entries;
* ``verify`` of 100,000 entries takes at most 3 s and at most 100 MB peak memory.

The large log is built quickly with ``append_many`` in chunks, then single appends are
timed on it.  ``verify`` runs in a fresh subprocess so its peak RSS (``ru_maxrss`` of the
child) is its own, imports included.  ``--quick`` uses 10,000 entries and fewer appends and
never fails on timings (CI machines vary); a full run exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from citeproof.evidence.log import EvidenceLog
from citeproof.store.keys import LogKey

APPEND_TARGET_MS = 2.0
VERIFY_TARGET_S = 3.0
VERIFY_TARGET_MB = 100.0
CHUNK = 2000

_VERIFY = """
import json, sys, time
from cryptography.hazmat.primitives import serialization
from citeproof.store.keys import LogKey
from citeproof.evidence.log import EvidenceLog
key = LogKey.from_private(serialization.load_pem_private_key(open(sys.argv[2], "rb").read(), None))
t = time.perf_counter()
report = EvidenceLog(sys.argv[1], key=key).verify()
print(json.dumps({"ok": report.ok, "entries": report.entries, "s": time.perf_counter() - t}))
"""


def _payload(i: int) -> dict[str, object]:
    """A payload shaped like a check entry (about 400 bytes a line)."""
    return {
        "command": "check",
        "source": {"key": f"pmcid:PMC{1000000 + i}", "sha256": f"{i:064x}"},
        "quote": f"the drug reduced mortality by {i % 97} percent in the treated group",
        "verdict": "EXACT",
        "location": {"section": "Results", "paragraph": i % 40, "char": [i % 5000, i % 5000 + 60]},
    }


def _time_appends(log: EvidenceLog, count: int) -> list[float]:
    times = []
    for i in range(count):
        t = time.perf_counter()
        log.append("check", _payload(i))
        times.append((time.perf_counter() - t) * 1000)
    return times


def _pctl(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 entries; timings not judged")
    parser.add_argument("--size", type=int, help="entries in the large log (default 100,000)")
    parser.add_argument("--appends", type=int, help="timed single appends per size")
    parser.add_argument("--dir", type=Path, help="where to build the logs (default: a temp dir)")
    args = parser.parse_args(argv)
    size = args.size or (10_000 if args.quick else 100_000)
    appends = args.appends or (50 if args.quick else 300)

    from cryptography.hazmat.primitives import serialization

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        folder = Path(tmp)
        key = LogKey.generate()
        pem = folder / "key.pem"
        pem.write_bytes(
            key.private.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        small = EvidenceLog(folder / "small.jsonl", key=key)
        small.append_many([("check", _payload(i)) for i in range(10)])
        small_times = _time_appends(small, appends)

        big = EvidenceLog(folder / "big.jsonl", key=key)
        t = time.perf_counter()
        for start in range(0, size, CHUNK):
            big.append_many(
                [("check", _payload(i)) for i in range(start, min(size, start + CHUNK))]
            )
        build_s = time.perf_counter() - t
        big_times = _time_appends(big, appends)
        total = size + appends
        file_mb = big.path.stat().st_size / 1e6

        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        t = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _VERIFY, str(big.path), str(pem)],
            capture_output=True,
            check=True,
        )
        wall_s = time.perf_counter() - t
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        result = json.loads(done.stdout)
        peak_mb = max(peak_kb, before) / 1024

    rows = [
        ("append median, 10 entries (ms)", statistics.median(small_times), APPEND_TARGET_MS),
        ("append p95, 10 entries (ms)", _pctl(small_times, 0.95), None),
        (f"append median, {size:,} entries (ms)", statistics.median(big_times), APPEND_TARGET_MS),
        (f"append p95, {size:,} entries (ms)", _pctl(big_times, 0.95), None),
        (f"verify {total:,} entries, in-process (s)", result["s"], VERIFY_TARGET_S),
        ("verify subprocess wall, with imports (s)", wall_s, None),
        ("verify subprocess peak RSS (MB)", peak_mb, VERIFY_TARGET_MB),
        (f"build {size:,} with append_many (s)", build_s, None),
        ("log file size (MB)", file_mb, None),
    ]
    failed = not result["ok"] or result["entries"] != total
    print(f"{'measure':<44} {'value':>10} {'target':>8}  ")
    for name, value, target in rows:
        verdict = ""
        if target is not None:
            good = value <= target
            verdict = "ok" if good else ("FAIL" if not args.quick else "over")
            failed = failed or (not good and not args.quick and size >= 100_000)
        shown = "" if target is None else f"{target:g}"
        print(f"{name:<44} {value:>10.3f} {shown:>8}  {verdict}")
    print(f"verify result: ok={result['ok']} entries={result['entries']} (expected {total})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
