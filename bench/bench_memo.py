"""Memory a long-lived process keeps for the documents it parsed: the parse memo's bound.

An MCP server or a notebook checks many sources in one process; the parse memo keeps the
recent Documents (text, normalised text, offset maps) so a repeated check does not parse
again.  Bounded by count, 32 documents, it kept whatever they weighed: some 260 MB for one
25 MB web page.  Bounded by characters of text (``citeproof.loading.memo.KEEP_CHARS``), what
it keeps is at most that many characters whatever the pages are.

This script checks one quote against each of PAGES invented HTML pages of MB megabytes (with
a few non-ASCII characters, as real pages have, which doubles the size of Python strings), in
one process, and prints the Python memory still held after each (tracemalloc), with the
memo's character count, and the process's peak RSS (lxml's tree is outside tracemalloc).

    python bench/bench_memo.py                  # 6 pages of 3 MB
    python bench/bench_memo.py --pages 4 --mb 25
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import resource
import tracemalloc

from citeproof.loading import memo
from citeproof.match.quote import find_quote
from citeproof.match.types import MatchOptions

PARAGRAPH = (
    "<p>"
    + "Page {n}: the participants were asked to walk for thirty minutes – “each morning”. " * 20
    + "</p>\n"
)


def page(n: int, size: int) -> bytes:
    one = PARAGRAPH.format(n=n)
    last = f"<p>This closing sentence is on page {n} alone.</p>"
    return ("<html><body>" + one * (size // len(one)) + last + "</body></html>").encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=6)
    parser.add_argument("--mb", type=float, default=3.0)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}; KEEP_CHARS {memo.KEEP_CHARS:,}")
    print(f"{'page':>4} {'text chars':>12} {'held MB':>8} {'memo chars':>12}")
    tracemalloc.start()
    options = MatchOptions()
    for n in range(args.pages):
        data = page(n, int(args.mb * 1_000_000))
        document = memo.parsed(hashlib.sha256(data).hexdigest(), data)
        found = find_quote(
            document.prepared, f"This closing sentence is on page {n} alone.", options
        )
        assert found.verdict == "EXACT", found.verdict
        chars = len(document.text)
        del document, data
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
        print(f"{n + 1:>4} {chars:>12,} {held / 1e6:>8.1f} {memo._chars:>12,}")
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3
    print(f"peak RSS {peak_rss:.0f} MB")


if __name__ == "__main__":
    main()
