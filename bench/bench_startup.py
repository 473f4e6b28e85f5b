"""Start-up: what a one-shot command costs as a whole process, against ``python -c pass``.

A check of one quote in one local file is mostly start-up: importing citeproof and what the
command needs.  This script times whole processes (the installed ``python -m citeproof``),
interleaving the contenders so that a change of load affects all of them alike, and prints
the median of each and its ratio to ``python -c pass`` (the floor), with the load average
before and after.  The CPU time of each process (user + system) is printed beside its wall
time: on a busy machine the wall ratio grows (a longer process is more often waiting for a
core), the CPU ratio much less, so the two together tell load from a slower command.

    python bench/bench_startup.py              # 15 rounds, judged
    python bench/bench_startup.py --rounds 31 --json-out bench/results/startup.json
    python bench/bench_startup.py --quick      # 3 rounds; printed, never judged

The targets: ``citeproof check Q FILE --no-log`` (issue 16) and the default check, the log
on (issue 25), each at most 11x ``python -c pass``, all measured in the same run; a full run
exits 1 when one is missed.  The processes run from
compiled bytecode, as an installed package does: ``PYTHONDONTWRITEBYTECODE`` (set in some
sandboxes) would make every run compile citeproof again, so it is dropped and the bytecode
goes to a temporary directory (``PYTHONPYCACHEPREFIX``), and one untimed round compiles it.
``python -X importtime -m citeproof check ...`` shows where the time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ARTICLE = str(REPO / "examples" / "example-article.nxml")
QUOTE = "fell asleep faster than those in the control group"

FLOOR = "python -c pass"
NO_LOG = "citeproof check Q FILE --no-log"
LOG_ON = "citeproof check Q FILE (log on)"
#: The rows judged against the floor.
JUDGED = (NO_LOG, LOG_ON)
TARGET_RATIO = 11.0

COMMANDS: dict[str, list[str]] = {
    FLOOR: [sys.executable, "-c", "pass"],
    "citeproof --help": [sys.executable, "-m", "citeproof", "--help"],
    "citeproof text FILE": [sys.executable, "-m", "citeproof", "text", ARTICLE],
    NO_LOG: [
        sys.executable,
        "-m",
        "citeproof",
        "check",
        "--json",
        "--no-log",
        QUOTE,
        ARTICLE,
    ],
    LOG_ON: [
        sys.executable,
        "-m",
        "citeproof",
        "check",
        "--json",
        QUOTE,
        ARTICLE,
    ],
}


def environment(tmp: Path) -> dict[str, str]:
    """A private CITEPROOF_HOME and bytecode cache, and no other CITEPROOF_ setting."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("CITEPROOF_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(CITEPROOF_HOME=str(tmp / "home"), PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    return env


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``argv``; a failed run stops the benchmark."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise subprocess.CalledProcessError(process.returncode, argv)
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--quick", action="store_true", help="3 rounds, printed, not judged")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    rounds = 3 if args.quick else args.rounds
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    cpu: dict[str, list[float]] = {name: [] for name in COMMANDS}
    before = load_average()
    with tempfile.TemporaryDirectory() as tmp:
        env = environment(Path(tmp))
        for argv in COMMANDS.values():  # compile the bytecode, warm the file cache; untimed
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
        for _ in range(rounds):
            for name, argv in COMMANDS.items():
                wall, used = timed(argv, env)
                times[name].append(wall)
                cpu[name].append(used)
    after = load_average()
    floor = statistics.median(times[FLOOR])
    cpu_floor = statistics.median(cpu[FLOOR])
    print(f"load average {before} before, {after} after; {rounds} rounds")
    print(f"{'command':<36} {'median s':>9} {'x floor':>8} {'CPU s':>8} {'x floor':>8}")
    rows = {}
    for name, values in times.items():
        median, used = statistics.median(values), statistics.median(cpu[name])
        rows[name] = {
            "median_s": median,
            "ratio_to_floor": median / floor,
            "cpu_s": used,
            "cpu_ratio_to_floor": used / cpu_floor,
        }
        wall_part = f"{median:>9.3f} {median / floor:>8.1f}"
        print(f"{name:<36} {wall_part} {used:>8.3f} {used / cpu_floor:>8.1f}")
    targets = {}
    for name in JUDGED:
        ratio = rows[name]["ratio_to_floor"]
        targets[name] = {"ratio": TARGET_RATIO, "measured": ratio, "met": ratio <= TARGET_RATIO}
        passed = "PASS" if ratio <= TARGET_RATIO else "FAIL"
        verdict = f"{passed} ({ratio:.2f}x{'; quick: not judged' * args.quick})"
        print(f"{name.removeprefix('citeproof ')} <= {TARGET_RATIO:g}x {FLOOR}: {verdict}")
    met = all(target["met"] for target in targets.values())
    if args.json_out is not None:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        report = {
            "load_before": before,
            "load_after": after,
            "rounds": rounds,
            "rows": rows,
            "targets": targets,
        }
        args.json_out.write_text(json.dumps(report, indent=2))
    return 0 if met or args.quick else 1


if __name__ == "__main__":
    sys.exit(main())
