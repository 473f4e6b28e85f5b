"""A newcomer's walk: which citeproof modules one command passes through, in order.

Issue 25 asks that following a quote from ``citeproof check`` down to the matcher and back
visit fewer modules.  Reading the code by hand gives a different count every time, so this
script runs the commands in-process under :func:`sys.setprofile` and lists every citeproof
module entered, in order, with consecutive calls inside one module folded into one visit.

Three walks, all offline on the bundled examples (a temporary home, so nothing of yours is
read or written):

* ``check``: a quote against ``examples/example-article.nxml``, the log on (the default);
* ``refs``: ``examples/example-references.md``, answered from the tests' recordings;
* ``audit``: ``examples/example-answer.md``, answered from the same recordings.

For each: the modules entered (distinct), the visits (module changes along the way), and the
function returns counted inside citeproof.  ``--list`` prints the path of the check walk.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
#: Invented answers for the invented references of the examples (the tests' recordings).
RECORDINGS = ROOT / "tests" / "refs" / "recordings"


@dataclass
class Walk:
    """What one command's run passed through."""

    modules: list[str] = field(default_factory=list)
    returns: int = 0

    def visits(self) -> list[str]:
        """The modules in order, a run of calls inside one module counted once."""
        folded: list[str] = []
        for name in self.modules:
            if not folded or folded[-1] != name:
                folded.append(name)
        return folded


def _walk(run: Callable[[], Any]) -> Walk:
    walk = Walk()

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        name = frame.f_globals.get("__name__", "")
        if not isinstance(name, str) or not name.startswith("citeproof"):
            return
        if event == "call":
            walk.modules.append(name)
        elif event == "return":
            walk.returns += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return walk


def _command(args: list[str]) -> Callable[[], Any]:
    from click.testing import CliRunner

    from citeproof.cli import cli

    def run() -> None:
        result = CliRunner().invoke(cli, args, catch_exceptions=False)
        if result.exit_code not in (0, 1, 3):
            raise SystemExit(f"citeproof {' '.join(args)} exited {result.exit_code}")

    return run


def walks() -> dict[str, Walk]:
    """The three commands, each walked once after a warm-up run (imports are not the walk)."""
    commands = {
        "check": [
            "check",
            "raise the risk of falls and confusion in older people",
            str(EXAMPLES / "example-article.nxml"),
            "--no-retraction",
        ],
        "refs": [
            "refs",
            str(EXAMPLES / "example-references.md"),
            "--replay",
            str(RECORDINGS),
            "--no-retraction",
        ],
        "audit": [
            "audit",
            str(EXAMPLES / "example-answer.md"),
            "--replay",
            str(RECORDINGS),
            "--no-retraction",
        ],
    }
    found: dict[str, Walk] = {}
    for name, args in commands.items():
        run = _command(args)
        run()
        found[name] = _walk(run)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the check walk's path")
    parser.add_argument("--json", type=Path, help="write the counts as JSON here")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["CITEPROOF_HOME"] = home
        found = walks()
    rows = {
        name: {
            "modules": len(set(walk.modules)),
            "visits": len(walk.visits()),
            "returns": walk.returns,
        }
        for name, walk in found.items()
    }
    print(f"{'command':<8} {'modules':>8} {'visits':>8} {'returns':>9}")
    for name, row in rows.items():
        print(f"{name:<8} {row['modules']:>8} {row['visits']:>8} {row['returns']:>9}")
    if options.list:
        print()
        for name in found["check"].visits():
            print(name)
    if options.json:
        options.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
