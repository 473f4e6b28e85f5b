"""Benchmark: audit an answer of 100 sentences and 200 citations against cached sources
(issue target: at most 0.2 s).

Pins five corpus JATS articles in a throw-away cache (as fetches would have), issues their
passages' handles, then writes an answer of 100 claim sentences with two citations each:
passage handles with their quotes, plain ``[PMCID]`` citations with exact, near and wrong
quotes, numbered citations through a reference list, and citations without quotes.  It times
``citeproof.audit.run.audit_answer(..., offline=True)`` signed, unlogged:

* ``cold``: the first audit in the process, which parses and prepares every article;
* ``warm``: later audits of the same answer (the median), as the MCP server or a pipeline
  process auditing many answers would see;
* ``warm+retraction``: with retraction asked once per work from the local snapshot (offline).

    python bench/bench_audit.py [--shared DIR] [--runs N] [--quick]
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
ARTICLES = ("PMC3166277", "PMC1790863", "PMC2994229", "PMC3460867", "PMC3574550")
TARGET_S = 0.2


def _pin(shared: Path) -> None:
    from citeproof.store.cache import Cache
    from citeproof.store.paths import default_dirs

    dirs = default_dirs()
    dirs.cache_db.parent.mkdir(parents=True, exist_ok=True)
    with Cache(dirs.cache_db) as cache:
        for pmcid in ARTICLES:
            data = (shared / "corpus" / "pmc-jats" / f"{pmcid}.nxml").read_bytes()
            cache.pin(f"pmcid:{pmcid}", data, retrieved_at="2026-11-30T00:00:00Z",
                      served_by="pmc", media_type="application/xml",
                      meta={"coverage": "full_text", "md5_ok": True})  # fmt: skip


def _answer() -> str:
    from citeproof.issuing import passages_for

    listings = {p: passages_for(p, offline=True, limit=40).passages for p in ARTICLES}
    lines: list[str] = []
    refs = [f"{i + 1}. Article {p}. PMCID: {p}" for i, p in enumerate(ARTICLES)]
    for n in range(100):
        pmcid = ARTICLES[n % len(ARTICLES)]
        passages = [p for p in listings[pmcid] if len(p.text) > 80]
        p = passages[(n // len(ARTICLES)) % len(passages)]
        words = " ".join(w for w in p.text.split()[:12] if not set(w) & set("[]()"))
        kind = n % 5
        if kind == 0:  # handle with its quote, plus a plain citation
            lines.append(f'Claim {n}: "{words}" [{p.handle}] [{pmcid}].')
        elif kind == 1:  # plain citation with an exact quote, and a numbered one
            lines.append(f'Claim {n}: "{words}" [{pmcid}] [{ARTICLES.index(pmcid) + 1}].')
        elif kind == 2:  # a near quote and a handle without a quote
            near = words.replace("e", "a", 1)
            lines.append(f'Claim {n}: "{near}" [{pmcid}]; see also [{p.handle}].')
        elif kind == 3:  # a wrong quote and a numbered citation
            lines.append(
                f'Claim {n}: "nothing of the sort was ever observed in sample {n}" '
                f"[{pmcid}] [{ARTICLES.index(pmcid) + 1}]."
            )
        else:  # two citations without quotes
            lines.append(f"Claim {n} is supported [{pmcid}] [{p.handle}].")
    return "\n\n".join(lines) + "\n\n## References\n\n" + "\n".join(refs) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3 runs; timings not judged")
    args = parser.parse_args(argv)
    missing = [a for a in ARTICLES if not (args.shared / "corpus/pmc-jats" / f"{a}.nxml").exists()]
    if missing:
        print(f"bench_audit: corpus articles not found under {args.shared}; pass --shared DIR.",
              file=sys.stderr)  # fmt: skip
        return 0 if args.quick else 2
    runs = 3 if args.quick else max(2, args.runs)
    with tempfile.TemporaryDirectory() as home:
        os.environ["CITEPROOF_HOME"] = home
        _pin(args.shared)
        answer = _answer()
        from citeproof.audit.run import audit_answer
        from citeproof.fetching import _PARSED  # the process-wide parse memo

        _PARSED.clear()  # cold: nothing parsed yet, as in a fresh process
        t0 = time.perf_counter()
        report = audit_answer(answer, offline=True, retraction=False)
        cold = time.perf_counter() - t0
        warm = []
        for _ in range(runs):
            t0 = time.perf_counter()
            audit_answer(answer, offline=True, retraction=False)
            warm.append(time.perf_counter() - t0)
        phases: dict[str, list[float]] = {"parse": [], "checks": [], "sign": []}
        from citeproof.audit.parse import parse_answer
        from citeproof.audit.run import audit_parsed
        from citeproof.audit.signing import sign_report
        from citeproof.store.keys import LogKey

        key = LogKey.generate()
        for _ in range(runs):
            t0 = time.perf_counter()
            parsed = parse_answer(answer)
            t1 = time.perf_counter()
            unsigned = audit_parsed(parsed, answer_sha256="-", offline=True, retraction=False)
            t2 = time.perf_counter()
            sign_report(unsigned, key)
            t3 = time.perf_counter()
            phases["parse"].append(t1 - t0)
            phases["checks"].append(t2 - t1)
            phases["sign"].append(t3 - t2)
        with_retraction = []
        for _ in range(runs):
            t0 = time.perf_counter()
            audit_answer(answer, offline=True, retraction=True)
            with_retraction.append(time.perf_counter() - t0)
    m = report.metrics
    print(
        f"answer: {m.sentences} sentences, {m.claims} claims, {m.citations} citations, "
        f"{m.quotes} quotes; by verdict {dict((k, v) for k, v in m.by_verdict.items() if v)}"
    )
    median = statistics.median(warm)
    print(f"cold (parses {len(ARTICLES)} articles): {cold:.3f} s")
    print(f"warm median of {runs}: {median:.3f} s (target {TARGET_S} s)")
    print(f"warm+retraction (offline snapshot) median: {statistics.median(with_retraction):.3f} s")
    print(
        "warm phases (median): "
        + ", ".join(f"{name} {statistics.median(times):.3f} s" for name, times in phases.items())
    )
    if args.quick:
        return 0
    status = "PASS" if median <= TARGET_S else "FAIL"
    print(status)
    return 0 if status == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
