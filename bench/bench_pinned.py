"""Benchmark: a repeat check of a pinned source, in-process and offline (issue target: at
most 20 ms at the median).

Pins a corpus JATS article in a throw-away cache (as a fetch would have), then times
``citeproof.check(quote, "PMC3166277", offline=True)``: the cache lookup, reading and
verifying the blob, and the match.  The first check parses and prepares the article; the
later ones reuse it, as a notebook, the MCP server or a batch would.

    python bench/bench_pinned.py [--shared DIR] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ARTICLE = "corpus/pmc-jats/PMC3166277.nxml"
TARGET_MS = 20.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args(argv)
    path = args.shared / ARTICLE
    if not path.exists():
        print(f"bench_pinned: {path} not found; pass --shared DIR.", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as home:
        os.environ["CITEPROOF_HOME"] = home
        import citeproof
        from citeproof.documents import parse
        from citeproof.store.cache import Cache
        from citeproof.store.paths import default_dirs

        data = path.read_bytes()
        dirs = default_dirs()
        dirs.cache_db.parent.mkdir(parents=True, exist_ok=True)
        with Cache(dirs.cache_db) as cache:
            cache.pin(
                "pmcid:PMC3166277",
                data,
                retrieved_at="2026-11-30T00:00:00Z",
                served_by="pmc",
                media_type="application/xml",
                meta={"coverage": "full_text", "md5_ok": True},
            )
        doc = parse(data)
        block = next(b for b in doc.blocks if b.region == "body" and b.end - b.start > 150)
        quote = doc.text[block.start : block.start + 120]
        times = []
        for _ in range(max(2, args.runs)):
            t0 = time.perf_counter()
            result = citeproof.check(quote, "PMC3166277", offline=True)
            times.append((time.perf_counter() - t0) * 1000)
    first, rest = times[0], times[1:]
    median = statistics.median(rest)
    status = "PASS" if median <= TARGET_MS else "FAIL"
    print(f"verdict {result.verdict}, served by {result.source.served_by}")
    print(f"first check (imports, parse, prepare): {first:.1f} ms")
    print(
        f"repeat checks: median {median:.2f} ms, p95 "
        f"{sorted(rest)[int(0.95 * (len(rest) - 1))]:.2f} ms over {len(rest)} "
        f"(target <= {TARGET_MS:.0f} ms: {status})"
    )
    return 0 if status == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
