"""Start-up: what a one-shot command costs as a whole process, against ``python -c pass``.

A check of one quote in one local file is mostly start-up: importing citeproof and what the
command needs.  This script times whole processes (the installed ``python -m citeproof``),
interleaving the contenders so that a change of load affects all of them alike, and prints
the median of each and its ratio to ``python -c pass`` (the floor), with the load average.

    python bench/bench_startup.py              # 15 rounds
    python bench/bench_startup.py --rounds 31 --json-out bench/results/startup.json

No target is judged here yet: the numbers are the baseline the start-up work measures against.
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

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "citeproof --help": [sys.executable, "-m", "citeproof", "--help"],
    "citeproof text FILE": [sys.executable, "-m", "citeproof", "text", ARTICLE],
    "citeproof check Q FILE --no-log": [
        sys.executable, "-m", "citeproof", "check", "--json", "--no-log", QUOTE, ARTICLE,
    ],
    "citeproof check Q FILE (log on)": [
        sys.executable, "-m", "citeproof", "check", "--json", QUOTE, ARTICLE,
    ],
}  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    with tempfile.TemporaryDirectory() as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
        env["CITEPROOF_HOME"] = home
        for _ in range(args.rounds):
            for name, argv in COMMANDS.items():
                started = time.perf_counter()
                subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
                times[name].append(time.perf_counter() - started)
    load = os.getloadavg()
    floor = statistics.median(times["python -c pass"])
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.rounds} rounds")
    print(f"{'command':<36} {'median s':>9} {'x floor':>8}")
    rows = {}
    for name, values in times.items():
        median = statistics.median(values)
        rows[name] = {"median_s": median, "ratio_to_floor": median / floor}
        print(f"{name:<36} {median:>9.3f} {median / floor:>8.1f}")
    if args.json_out is not None:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps({"load": load, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
