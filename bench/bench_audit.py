"""Benchmark: audit an answer of 100 sentences and 200 citations against cached sources
(issue target: at most 0.2 s).

Pins five corpus JATS articles in a throw-away cache (as fetches would have), issues their
passages' handles, then writes an answer of 100 claim sentences with two citations each:
passage handles with their quotes, plain ``[PMCID]`` citations with exact, near and wrong
quotes, numbered citations through a reference list, and citations without quotes.  It times
``citeproof.audit.run.audit_answer(..., offline=True)`` signed, unlogged:

* ``cold``: the first audit in a fresh child process (its imports done, nothing parsed yet),
  which parses and prepares every article;
* ``warm, a new answer each time``: audits of answers none of whose sentences was seen
  before (the same sources and passages, the claims numbered differently), as a process
  auditing many different answers would see; **the target is judged on this number**;
* ``warm, the same answer again``: later audits of the first answer (the median), as a
  process re-auditing an answer would see.  Sentence splits of text already seen are
  remembered (``citeproof.audit.sentences``), so this is the cost of the checks and the
  report more than of reading the answer: it flatters, and is shown for comparison only;
* ``warm+retraction``: with retraction asked once per work from the local snapshot (offline);
* ``HTML view``: rendering the first answer's report as the audit page (``--html``), the
  template already compiled, as a process writing many pages would see (not a target of its
  own; it used to be a timed test, and timings belong here);
* the whole conformance suite (``pytest tests/conformance`` in a fresh process, wall time;
  issue target: at most 30 s), skipped with ``--quick``.

The machine's load changes these numbers by a factor of two: run it a few times.

    python bench/bench_audit.py [--shared DIR] [--runs N] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citeproof.models.passages import PassageItem

REPO = Path(__file__).resolve().parents[1]
ARTICLES = ("PMC3166277", "PMC1790863", "PMC2994229", "PMC3460867", "PMC3574550")
TARGET_S = 0.2
SUITE_TARGET_S = 30.0


def _pin(shared: Path) -> None:
    from citeproof.store.cache import Cache
    from citeproof.store.paths import default_dirs

    dirs = default_dirs()
    dirs.cache_db.parent.mkdir(parents=True, exist_ok=True)
    with Cache(dirs.cache_db) as cache:
        for pmcid in ARTICLES:
            data = (shared / "corpus" / "pmc-jats" / f"{pmcid}.nxml").read_bytes()
            cache.pin(
                f"pmcid:{pmcid}",
                data,
                retrieved_at="2026-11-30T00:00:00Z",
                served_by="pmc",
                media_type="application/xml",
                meta={"coverage": "full_text", "md5_ok": True},
            )


def _listings() -> dict[str, list[PassageItem]]:
    from citeproof.handles.registry import passages_for

    return {p: passages_for(p, offline=True, limit=40).passages for p in ARTICLES}


def _answer(listings: dict[str, list[PassageItem]], variant: int = 0) -> str:
    """The answer; another ``variant`` numbers its claims (and wrong quotes) differently,
    so none of its sentences has been seen before."""
    lines: list[str] = []
    refs = [f"{i + 1}. Article {p}. PMCID: {p}" for i, p in enumerate(ARTICLES)]
    for n in range(1000 * variant, 1000 * variant + 100):
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


_COLD_CHILD = """
import sys, time
from pathlib import Path
from citeproof.audit.run import audit_answer
answer = Path(sys.argv[1]).read_text(encoding="utf-8")
t0 = time.perf_counter()
audit_answer(answer, offline=True, retraction=False)
print(time.perf_counter() - t0)
"""


def _cold(answer: str, home: str) -> float:
    """The first audit in a fresh process (the articles pinned, nothing parsed yet).

    A child process, because a process that listed the passages has parsed the articles
    into its parse memo (``citeproof.loading.memo``), which keeps them for its lifetime.
    """
    path = Path(home) / "answer.md"
    path.write_text(answer, encoding="utf-8")
    env = {**os.environ, "CITEPROOF_HOME": home}
    out = subprocess.run(
        [sys.executable, "-c", _COLD_CHILD, str(path)],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return float(out.split()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3 runs; timings not judged")
    args = parser.parse_args(argv)
    missing = [a for a in ARTICLES if not (args.shared / "corpus/pmc-jats" / f"{a}.nxml").exists()]
    if missing:
        print(
            f"bench_audit: corpus articles not found under {args.shared}; pass --shared DIR.",
            file=sys.stderr,
        )
        return 0 if args.quick else 2
    runs = 3 if args.quick else max(2, args.runs)
    with tempfile.TemporaryDirectory() as home:
        os.environ["CITEPROOF_HOME"] = home
        _pin(args.shared)
        listings = _listings()
        answer = _answer(listings)
        fresh = [_answer(listings, variant) for variant in range(1, runs + 1)]
        from citeproof.audit.run import audit_answer

        cold = _cold(answer, home)
        report = audit_answer(answer, offline=True, retraction=False)
        warm = []
        for _ in range(runs):
            t0 = time.perf_counter()
            audit_answer(answer, offline=True, retraction=False)
            warm.append(time.perf_counter() - t0)
        new_answer = []
        for text in fresh:
            t0 = time.perf_counter()
            audit_answer(text, offline=True, retraction=False)
            new_answer.append(time.perf_counter() - t0)
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
        from citeproof.report.page import render_audit_html

        report_json = report.model_dump(mode="json")
        render_audit_html(report_json, answer)  # compiles the template
        render = []
        for _ in range(runs):
            t0 = time.perf_counter()
            render_audit_html(report_json, answer)
            render.append(time.perf_counter() - t0)
    m = report.metrics
    print(
        f"answer: {m.sentences} sentences, {m.claims} claims, {m.citations} citations, "
        f"{m.quotes} quotes; by verdict {dict((k, v) for k, v in m.by_verdict.items() if v)}"
    )
    median = statistics.median(new_answer)
    print(f"cold (parses {len(ARTICLES)} articles): {cold:.3f} s")
    print(f"warm, a new answer each time, median of {runs}: {median:.3f} s (target {TARGET_S} s)")
    print(f"warm, the same answer again, median: {statistics.median(warm):.3f} s")
    print(f"warm+retraction (offline snapshot) median: {statistics.median(with_retraction):.3f} s")
    print(f"HTML view of that report, median: {statistics.median(render):.3f} s")
    print(
        "warm phases (median): "
        + ", ".join(f"{name} {statistics.median(times):.3f} s" for name, times in phases.items())
    )
    if args.quick:
        return 0
    status = "PASS" if median <= TARGET_S else "FAIL"
    print(f"audit of a new answer: {status}")
    suite = _conformance_seconds()
    suite_status = "PASS" if suite <= SUITE_TARGET_S else "FAIL"
    print(
        f"conformance suite (pytest tests/conformance, wall): {suite:.1f} s "
        f"(target {SUITE_TARGET_S:g} s) {suite_status}"
    )
    return 0 if status == suite_status == "PASS" else 1


def _conformance_seconds() -> float:
    """Wall time of the whole conformance suite, as a developer runs it (a fresh pytest)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(REPO / "tests" / "conformance"),
        ],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
