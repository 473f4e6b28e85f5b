"""The load benchmark: ``citeproof.load(text=...)`` + first check against NFKC, side by side.

Why one script measures everything in one run: the targets are ratios (load + first check
against NFKC over the same text, a TOO_SHORT check against one ``str.find`` pass over the same
text), and absolute times only mean something next to numbers taken on the same machine in
the same minute.  The load average is printed with them.

What it measures, on the 10 MB shared bench text (``../shared/bench/texts/10m.txt``):

* one ``str.find`` pass: ``text.find(x)`` for an absent ``x`` (the unit of the TOO_SHORT
  target);
* ``unicodedata.normalize("NFKC", text)``;
* ``citeproof.load(text=text)`` followed by its first check (which prepares the text), and
  the paragraph-block builder on its own, new and old (the old per-line loop is kept below
  as the comparison); target: load + first check <= 1.25x NFKC;
* a TOO_SHORT check against the loaded 10 MB Document, and the has-text decision inside it,
  in ``str.find`` passes, next to the old ``text.strip()``; target: <= 0.02 passes;
* the binary sniff over the 8 KiB head ``detect_format`` reads, ``bytes.translate`` against
  the old per-byte Python loop (same count required).

Every time is the best of several runs (the minimum is the least noisy estimate of cost).
Exit status: 0 when the targets pass, 1 when one fails, 0 with a message when the shared kit
is missing (a fresh clone has no ``../shared``), unless ``--require-shared`` (then 2).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SHARED = REPO_ROOT.parent / "shared"
sys.path.insert(0, str(REPO_ROOT / "src"))

import citeproof  # noqa: E402
from citeproof.documents.detect import control_bytes  # noqa: E402
from citeproof.documents.plain import paragraph_blocks  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load_oracle import old_control_bytes, old_paragraph_blocks  # noqa: E402

LOAD_TARGET = 1.25
"""load(text=...) + first check, as a multiple of NFKC over the same text."""
TOO_SHORT_TARGET = 0.02
"""A TOO_SHORT check's has-text decision, in str.find passes over the same text."""
QUOTE = "In the beginning God created the heaven and the earth."
SHORT = "too short"

# --- timing ----------------------------------------------------------------------------------


def best(fn: Callable[[], object], runs: int) -> float:
    """The fastest of ``runs`` calls, in seconds (gc collected before each, not during)."""
    times = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def per_call(fn: Callable[[], object], calls: int, runs: int = 5) -> float:
    """The best, over ``runs`` batches, of the mean time of one call in a batch of ``calls``."""

    def batch() -> None:
        for _ in range(calls):
            fn()

    return best(batch, runs) / calls


def load_and_check(text: str) -> str:
    doc = citeproof.load(text=text)
    return citeproof.check(QUOTE, doc).verdict


def fmt_ms(s: float) -> str:
    return f"{s * 1e3:.3f} ms" if s < 0.01 else f"{s * 1e3:.1f} ms"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shared", type=Path, default=DEFAULT_SHARED, help="the shared bench kit")
    p.add_argument("--size", default="10m", help="which shared text (10k, 100k, 1m, 10m)")
    p.add_argument("--runs", type=int, default=5, help="runs per measurement (best is kept)")
    p.add_argument("--require-shared", action="store_true", help="exit 2 if the kit is missing")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    path = args.shared / "bench" / "texts" / f"{args.size}.txt"
    if not path.is_file():
        print(f"bench_load: skipped: {path} is missing (the shared bench kit is not here).")
        return 2 if args.require_shared else 0
    text = path.read_text(encoding="utf-8")
    runs = max(1, args.runs)
    load1, load5, load15 = os.getloadavg()
    size = len(text.encode("utf-8"))
    print(f"text: {path.name}, {len(text):,} characters, {size / 1e6:.2f} MB UTF-8")
    print(f"load average: {load1:.2f} {load5:.2f} {load15:.2f}  (python {sys.version.split()[0]})")

    # warm up: imports, regex compilation, pydantic models
    citeproof.check(QUOTE, citeproof.load(text=QUOTE + " and more words"))

    absent = "\x00citeproof-absent\x00"
    assert absent not in text
    find_pass = best(lambda: text.find(absent), runs * 4)
    nfkc = best(lambda: unicodedata.normalize("NFKC", text), runs)
    verdict = load_and_check(text)
    total = best(lambda: load_and_check(text), runs)
    blocks_new = best(lambda: paragraph_blocks(text), runs)
    blocks_old = best(lambda: old_paragraph_blocks(text), max(1, runs // 2))
    same_blocks = paragraph_blocks(text) == old_paragraph_blocks(text)

    doc = citeproof.load(text=text)
    citeproof.check(QUOTE, doc)  # prepared
    short_verdict = citeproof.check(SHORT, doc).verdict
    short_check = per_call(lambda: citeproof.check(SHORT, doc), 200)
    tiny = citeproof.load(text=QUOTE)
    citeproof.check(QUOTE, tiny)
    short_tiny = per_call(lambda: citeproof.check(SHORT, tiny), 200)
    has_text_new = per_call(lambda: doc.has_text, 2000)
    has_text_old = per_call(lambda: not text.strip(), 20)

    head = text.encode("utf-8")[:8192]
    binary = bytes(range(256)) * 32
    sniff_new = per_call(lambda: control_bytes(head), 2000)
    sniff_old = per_call(lambda: old_control_bytes(head), 50)
    same_sniff = all(control_bytes(b) == old_control_bytes(b) for b in (head, binary))

    ratio = total / nfkc
    passes = has_text_new / find_pass
    rows = [
        ("one str.find pass (absent needle)", fmt_ms(find_pass), ""),
        ('unicodedata.normalize("NFKC", text)', fmt_ms(nfkc), "1.00x NFKC"),
        (
            f"load(text=...) + first check ({verdict})",
            fmt_ms(total),
            f"{ratio:.2f}x NFKC (target <= {LOAD_TARGET}x)",
        ),
        ("  paragraph blocks, new (regex over blank lines)", fmt_ms(blocks_new), ""),
        ("  paragraph blocks, old (per-line loop)", fmt_ms(blocks_old), ""),
        (
            "has-text decision, new (Document.has_text)",
            fmt_ms(has_text_new),
            f"{passes:.5f} passes (target <= {TOO_SHORT_TARGET})",
        ),
        (
            "has-text decision, old (text.strip())",
            fmt_ms(has_text_old),
            f"{has_text_old / find_pass:.2f} passes",
        ),
        (
            f"whole TOO_SHORT check, 10 MB document ({short_verdict})",
            fmt_ms(short_check),
            f"{short_check / find_pass:.3f} passes",
        ),
        ("whole TOO_SHORT check, 55-character document", fmt_ms(short_tiny), "(fixed cost)"),
        ("binary sniff of 8 KiB, new (bytes.translate)", fmt_ms(sniff_new), ""),
        (
            "binary sniff of 8 KiB, old (Python loop)",
            fmt_ms(sniff_old),
            f"{sniff_old / sniff_new:.0f}x the new",
        ),
    ]
    w0 = max(len(r[0]) for r in rows)
    w1 = max(len(r[1]) for r in rows)
    print()
    print(f"| {'measure':<{w0}} | {'time':>{w1}} | vs |")
    print(f"|{'-' * (w0 + 2)}|{'-' * (w1 + 1)}:|---|")
    for name, t, note in rows:
        print(f"| {name:<{w0}} | {t:>{w1}} | {note} |")
    print()
    checks = {
        f"load + first check <= {LOAD_TARGET}x NFKC": ratio <= LOAD_TARGET,
        f"has-text decision <= {TOO_SHORT_TARGET} str.find passes": passes <= TOO_SHORT_TARGET,
        "blocks identical to the old builder": same_blocks,
        "sniff counts identical to the old loop": same_sniff,
        "TOO_SHORT verdict": short_verdict == "TOO_SHORT",
    }
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    print(f"(each time: the best of {runs} runs or batches)")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
