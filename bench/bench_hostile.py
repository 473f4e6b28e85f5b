"""Hostile input against the matcher: what it costs, next to what ordinary input costs.

Why a script and not a test: the targets are ratios of times, and times only mean
something next to numbers taken on the same machine in the same minute (and with the load
average printed beside them).  The rules behind the targets are in docs/matching.md
("Profile t1": the cluster cap; "The budget": the closest-passage search).

What it measures:

1. **Combining marks.**  A file of one letter followed by ``--marks`` combining marks
   (default 1,000,000: 2 MB of UTF-8; one mark repeated, and the marks U+0300-U+036F in
   turn, whose several combining classes NFKC would have to sort) against a plain file of
   the same size in UTF-8 bytes (the start of the shared 10m text), with the same quote
   (from elsewhere in the shared text, one word changed, so that both checks go as far as
   the closest-passage search).  Timed: the matcher, ``prepare`` + ``find_quote``
   (preparation included), and, for information, the whole ``citeproof.check_text``
   (loading, parsing, the result).  Target: the matcher's best time on the marks file is
   at most 3 times the plain file's.
2. **The closest-passage budget.**  A ``--quote-chars`` (default 100,000) character quote
   against the shared 10m text, without brackets or ellipses so that the whole quote goes
   to the closest-passage search: one stitched from pieces of the text (every seed hits
   somewhere), and one passage of the text with one word in 200 changed.  Timed: one
   ``str.find`` pass over the text (the median over the quote's seeds, as the search
   looks them up), the search alone (``closest_passage`` with the check's budget) and the
   whole ``find_quote``, each in passes.  Target: the search stays within the budget the
   docs state (``NEAR_PASSES`` passes over the text, the quote and ``NEAR_FLOOR_CHARS``).

``--extras`` adds information lines (no targets): preparing 2 MB of Greek and of Chinese
text, and an exact search for a Chinese quote.

The shared kit is read in place from ``../shared`` next to the repository (``--shared``),
never copied.  Exit status: 0 when every target is met, 1 when one is not, 2 when the kit is
missing.  The script also runs against an older matcher (without a budget: then the
search is timed without one), so that before and after can be put side by side:
``PYTHONPATH=/path/to/old/src python bench/bench_hostile.py``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SHARED = REPO_ROOT.parent / "shared"
MARKS_RATIO_TARGET = 3.0


def timed(fn: Callable[[], Any], repeats: int) -> tuple[list[float], Any]:
    """Seconds for each of ``repeats`` calls, and the last call's value."""
    seconds = []
    value: Any = None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        value = fn()
        seconds.append(time.perf_counter() - t0)
    return seconds, value


def fmt(seconds: list[float]) -> str:
    return f"best {min(seconds) * 1e3:9.1f} ms  median {statistics.median(seconds) * 1e3:9.1f} ms"


def load_avg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def at_word(text: str, p: int) -> int:
    """The start of the word at or after ``p``."""
    q = text.find(" ", p)
    return len(text) if q < 0 else q + 1


def without_brackets(s: str) -> str:
    """``s`` without brackets and ellipses, which would make a quote's fragments."""
    for c in "[](){}…":
        s = s.replace(c, " ")
    while "..." in s:
        s = s.replace("...", " ")
    return " ".join(s.split())


MARK_KINDS = {
    "acute": "one mark, U+0301, repeated",
    "mixed": "the marks U+0300-U+036F in turn (several combining classes, as Zalgo text has)",
}


def marks_text(kind: str, marks: int) -> str:
    if kind == "acute":
        return "a" + "\u0301" * marks
    cycle = "".join(chr(c) for c in range(0x300, 0x370) if c != 0x34F)  # U+034F is invisible
    return "a" + (cycle * (marks // len(cycle) + 1))[:marks]


def marks_case(text10m: str, kind: str, marks: int, repeats: int, skip_check_text: bool) -> bool:
    import citeproof
    from citeproof.match.prepare import prepare
    from citeproof.match.quote import find_quote

    hostile = marks_text(kind, marks)
    size = len(hostile.encode("utf-8"))
    plain = text10m.encode("utf-8")[:size].decode("utf-8", "ignore")
    a = at_word(text10m, len(text10m) // 2)
    words = text10m[a : at_word(text10m, a + 120)].split()
    words[len(words) // 2] = "zqxjv"
    quote = " ".join(words)
    print(f"\n1. one letter and {marks:,} combining marks: {MARK_KINDS[kind]}")
    print(f"   marks file: {len(hostile):,} characters, {size:,} bytes of UTF-8")
    print(f"   plain file: {len(plain):,} characters, {len(plain.encode()):,} bytes of UTF-8")
    print(f"   quote ({len(quote)} characters): {quote[:70]}...")
    results: dict[str, list[float]] = {}
    for name, text in (("plain", plain), ("marks", hostile)):
        prep_s, _ = timed(lambda text=text: prepare(text), repeats)
        both_s, found = timed(lambda text=text: find_quote(prepare(text), quote), repeats)
        results[name] = both_s
        print(f"   {name}: prepare {fmt(prep_s)}")
        print(f"   {name}: prepare + find_quote {fmt(both_s)}  -> {found.verdict}")
        if not skip_check_text:
            check_s, result = timed(lambda text=text: citeproof.check_text(quote, text), repeats)
            print(f"   {name}: citeproof.check_text {fmt(check_s)}  -> {result.verdict}")
    ratio = min(results["marks"]) / min(results["plain"])
    ok = ratio <= MARKS_RATIO_TARGET
    print(
        f"   matcher (prepare + find_quote), marks / plain, best of {repeats}: {ratio:.2f}x  "
        f"(target <= {MARKS_RATIO_TARGET:.0f}x: {'PASS' if ok else 'FAIL'})"
    )
    return ok


def stitched_quote(text: str, chars: int, rng: random.Random) -> str:
    pieces: list[str] = []
    size = 0
    while size < chars:
        a = at_word(text, rng.randrange(len(text) - 400))
        piece = without_brackets(text[a : at_word(text, a + rng.randint(30, 200))])
        if piece:
            pieces.append(piece)
            size += len(piece) + 1
    return " ".join(pieces)[:chars].rsplit(" ", 1)[0]


def changed_passage(text: str, chars: int) -> str:
    a = at_word(text, len(text) // 3)
    words = without_brackets(text[a : a + chars + chars // 10]).split(" ")
    for k in range(5, len(words), 200):
        words[k] = "zqxjv"
    return " ".join(words)[:chars].rsplit(" ", 1)[0]


def budget_case(text: str, chars: int, repeats: int) -> bool:
    from citeproof.match import near
    from citeproof.match.forms import prepare_quote
    from citeproof.match.prepare import prepare
    from citeproof.match.quote import find_quote

    has_budget = hasattr(near, "Budget")
    prep_s, prep = timed(lambda: prepare(text), 1)
    n = len(prep.norm.text)
    print(f"\n2. the closest-passage search: {chars:,}-character quotes against 10m")
    print(f"   text: {len(text):,} characters ({n:,} in t1); prepare {prep_s[0]:.2f} s")
    if has_budget:
        print(
            f"   budget: {near.NEAR_PASSES} passes over the text, the quote and "
            f"{near.NEAR_FLOOR_CHARS:,} characters"
        )
    else:
        print("   (this matcher has no budget: the search is timed without one)")
    all_ok = True
    rng = random.Random(20240601)
    for label, quote in (
        ("stitched from pieces of the text", stitched_quote(text, chars, rng)),
        ("a passage with one word in 200 changed", changed_passage(text, chars)),
    ):
        q = prepare_quote(quote)
        needle = q.layer
        seeds = near._seeds(needle.lower())
        passes: list[float] = []
        for _, seed in seeds:
            t0 = time.perf_counter()
            hits = prep.lower.find_all(seed, limit=near.MAX_HITS + 1)
            elapsed = time.perf_counter() - t0
            if len(hits) <= near.MAX_HITS:  # the whole text was scanned
                passes.append(elapsed)
        if not passes:
            t0 = time.perf_counter()
            prep.lower.find_all(seeds[0][1] + "\x00")
            passes.append(time.perf_counter() - t0)
        one_pass = statistics.median(passes)
        print(f"\n   {label} ({len(quote):,} characters, {len(seeds)} seeds)")
        print(
            f"   one str.find pass over the text: {one_pass * 1e3:.2f} ms (median of {len(passes)})"
        )

        def search(needle: str = needle, m: int = len(q.norm)) -> tuple[str, Any]:
            if not has_budget:
                return "finished", near.closest_passage(prep.hay, needle, 0.9, prep.lower)
            budget = near.Budget.for_search(n, m)
            try:
                found = near.closest_passage(prep.hay, needle, 0.9, prep.lower, budget)
            except near.BudgetSpentError:
                return f"stopped at its budget ({budget.spent / n:.0f} passes priced)", None
            return f"finished ({budget.spent / n:.0f} passes priced)", found

        search_s, (how, found) = timed(search, repeats)
        sim = f", similarity {found.similarity:.4f}" if found is not None else ""
        passes_used = max(search_s) / one_pass
        print(f"   the search alone: {fmt(search_s)}  = {passes_used:6.0f} passes  {how}{sim}")
        whole_s, result = timed(lambda quote=quote: find_quote(prep, quote), repeats)
        print(
            f"   find_quote:       {fmt(whole_s)}  = {max(whole_s) / one_pass:6.0f} passes  "
            f"-> {result.verdict}: {result.reason}"
        )
        if has_budget:
            limit = near.NEAR_PASSES * (n + len(q.norm) + near.NEAR_FLOOR_CHARS) / n
            ok = max(search_s) / one_pass <= limit
            all_ok = all_ok and ok
            print(
                f"   the search's slowest run is {max(search_s) / one_pass:.0f} passes; the docs "
                f"state at most {limit:.0f}: {'PASS' if ok else 'FAIL'}"
            )
    return all_ok


def extras(text10m: str) -> None:
    from citeproof.match.exact import Haystack
    from citeproof.match.prepare import prepare

    rng = random.Random(5)
    greek_letters = "αβγδεζηθικλμνξοπρστυφχψω"
    greek = " ".join(
        "".join(rng.choice(greek_letters) for _ in range(rng.randint(2, 9))) for _ in range(330_000)
    )
    chinese = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(660_000))
    plain = text10m[:2_000_000]
    print("\n3. information: non-Latin text (no target)")
    for name, text in (("plain", plain), ("greek", greek), ("chinese", chinese)):
        seconds, _ = timed(lambda text=text: prepare(text), 1)
        print(
            f"   prepare {name}: {len(text):,} characters, {len(text.encode()):,} bytes: "
            f"{seconds[0] * 1e3:.0f} ms"
        )
    hay = Haystack(chinese + "é")
    needle = "".join(chr(0x4E00 + rng.randrange(3000)) for _ in range(20))
    seconds, _ = timed(lambda: hay.find_all(needle), 3)
    print(f"   exact search of a 20-character Chinese quote in it: {fmt(seconds)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    parser.add_argument("--marks", type=int, default=1_000_000)
    parser.add_argument(
        "--mark-kinds", default="acute,mixed", help=f"comma-separated: {', '.join(MARK_KINDS)}"
    )
    parser.add_argument("--quote-chars", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-check-text", action="store_true")
    parser.add_argument("--skip-marks", action="store_true")
    parser.add_argument("--skip-budget", action="store_true")
    parser.add_argument("--extras", action="store_true")
    args = parser.parse_args(argv)
    path = args.shared / "bench" / "texts" / "10m.txt"
    if not path.is_file():
        print(f"the shared bench kit is missing: no {path}", file=sys.stderr)
        return 2
    import citeproof.match

    print(f"citeproof matcher from {Path(citeproof.match.__file__).parent}")
    print(f"python {sys.version.split()[0]}; load average at the start {load_avg()}")
    text = path.read_text(encoding="utf-8")
    ok = True
    if not args.skip_marks:
        for kind in args.mark_kinds.split(","):
            ok = marks_case(text, kind, args.marks, args.repeats, args.skip_check_text) and ok
    if not args.skip_budget:
        ok = budget_case(text, args.quote_chars, args.repeats) and ok
    if args.extras:
        extras(text)
    print(
        f"\nload average at the end {load_avg()}; {'all targets met' if ok else 'a target FAILED'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
