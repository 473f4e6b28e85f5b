"""The matcher benchmark: citeproof's quote matcher and three baselines, side by side.

Why one script measures everything in one run: the issue's speed targets are ratios against
the baselines (QuotecheckStyle, RapidfuzzPartial), and absolute times only mean something
next to numbers taken on the same machine in the same minute.  So every matcher prepares
the same texts and checks the same quotes here, one after the other.

What it measures (bench/README.md has the full story and the targets):

* preparing a text (citeproof ``prepare``: t1 normalisation + offset map + marker layer),
  in MB/s (UTF-8 bytes / 10^6), best and median of a few runs;
* one check against a prepared text: each quote is run ``repeats`` times, the per-quote
  median is kept, and the median / p95 / max over quotes are reported, overall and per
  category; the first run of each quote is reported too (a cache could hide cold costs);
* verdict accuracy per category and overall, and for citeproof also with the span and
  risk-flag checks ("strict");
* ``citeproof --help`` and ``citeproof check --json`` on a 50-page PDF, as subprocesses.

The shared kit (texts, quote sets, baselines) is read in place from ``../shared`` next to
the repository, or ``--shared DIR``; nothing from it is copied into the repository.

Exit status: 0 when every judged target passes; 1 when one fails (with ``--quick`` only
the correctness gate is judged: citeproof must get 100% strict accuracy; timings are
printed, never judged, because CI machines vary); 0 with a message when the shared kit is
missing and ``--quick`` was given (a fresh clone has no ``../shared``), unless
``--require-shared``; 2 when it is missing in full mode.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SHARED = REPO_ROOT.parent / "shared"
SIZES_FULL = ("10k", "100k", "1m", "10m")
SIZES_QUICK = ("10k", "100k")
CATEGORIES = (
    "exact",
    "typographic",
    "one_word",
    "number",
    "negation",
    "ellipsis",
    "midword",
    "absent",
    "short",
)
RISK_FLAG = {"number": "numbers_differ", "negation": "negation_differs"}
QUOTE_BUDGET_S = 0.2
"""Stop repeating a quote once its runs took this long in total: a check that slow is not
dominated by timer noise, and the budget keeps the full run under ten minutes."""
CLI_HELP_RUNS = 5
CLI_CHECK_RUNS = 5

CITEPROOF = "citeproof"
INDEXED = "citeproof_indexed"
"""citeproof with its word indexes built as part of preparing (``Prepared.build_indexes``):
a text checked often, as in a batch or by the MCP server, once its scans have cost what
building them does; ``citeproof`` is the same matcher as a first few checks meet it."""
BASELINE_NAMES = ("quotecheck_style", "rapidfuzz_partial", "naive")
SHORT_NAMES = {
    CITEPROOF: "cp",
    INDEXED: "cpi",
    "quotecheck_style": "qc",
    "rapidfuzz_partial": "rf",
    "naive": "naive",
}


# ------------------------------------------------------------------------------ data
@dataclass(frozen=True, slots=True)
class Quote:
    """One line of a shared quote set."""

    id: str
    category: str
    text: str
    expected: str
    span: tuple[int, int] | None
    too_short: bool
    """True when citeproof must answer TOO_SHORT (t1 form under 20 characters)."""


def load_quotes(path: Path, too_short: Callable[[str], bool] | None) -> list[Quote]:
    """The quote set at ``path``; ``too_short`` is citeproof's rule (None: no citeproof)."""
    quotes = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            span = row.get("expected_span")
            short = too_short is not None and too_short(row["quote"])
            quotes.append(
                Quote(
                    row["id"],
                    row["category"],
                    row["quote"],
                    row["expected_verdict"],
                    tuple(span) if span else None,
                    short,
                )
            )
    return quotes


def first_per_category(quotes: Sequence[Quote], limit: int | None) -> list[Quote]:
    """The first ``limit`` quotes of each category in file order (None: all of them).

    File order is the sets' own seeded order, so a subset is the same on every run.
    """
    if not limit:
        return list(quotes)
    seen: dict[str, int] = {}
    out = []
    for q in quotes:
        seen[q.category] = seen.get(q.category, 0) + 1
        if seen[q.category] <= limit:
            out.append(q)
    return out


# -------------------------------------------------------------------------- matchers
@dataclass(frozen=True, slots=True)
class Outcome:
    """What a check answered, reduced to what scoring looks at."""

    verdict: str
    spans: tuple[tuple[int, int], ...] = ()
    """Occurrences in ORIGINAL-text offsets (citeproof only; baselines' are not comparable)."""
    fragment_spans: tuple[tuple[int, int], ...] = ()
    flags: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Matcher:
    """A matcher as the harness drives it.

    ``check`` is the only call that is timed; ``outcome`` turns its answer into an Outcome
    afterwards, so adapter overhead never counts against a matcher.
    """

    name: str
    prepare: Callable[[str], Any]
    check: Callable[[Any, str], Any]
    outcome: Callable[[Any], Outcome]
    is_citeproof: bool = False


def load_baselines(shared: Path) -> ModuleType:
    """Import ``<shared>/bench/baselines.py`` in place (it is not a package)."""
    path = shared / "bench" / "baselines.py"
    spec = importlib.util.spec_from_file_location("citeproof_bench_baselines", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    # dataclasses looks its module up in sys.modules while the module is executing.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def baseline_matchers(baselines: ModuleType) -> dict[str, Matcher]:
    out = {}
    for cls in baselines.BASELINES:
        out[cls.NAME] = Matcher(cls.NAME, cls.prepare, cls.match, lambda r: Outcome(str(r.verdict)))
    return out


def citeproof_matcher() -> tuple[list[Matcher], Callable[[str], bool]] | None:
    """citeproof's matcher (as run and with its indexes built) and its TOO_SHORT rule, or
    None while the matcher is missing.

    The rule (DESIGN.md) is computed with citeproof's own t1 ``normalize`` and
    ``MIN_QUOTE_CHARS``, so the benchmark cannot drift from the matcher's definition.

    Only a missing module counts as missing; any other import error is a bug and raises.
    """
    try:
        from citeproof.match.normalize import normalize
        from citeproof.match.prepare import prepare
        from citeproof.match.quote import find_quote
        from citeproof.match.types import MIN_QUOTE_CHARS
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("citeproof"):
            return None
        raise

    def outcome(m: Any) -> Outcome:
        flags = set(m.flags)
        if m.near is not None:
            flags.update(m.near.flags)
        fragments = tuple((f.span.start, f.span.end) for f in m.fragments or () if f.span)
        return Outcome(
            str(m.verdict), tuple((s.start, s.end) for s in m.spans), fragments, frozenset(flags)
        )

    def too_short(quote: str) -> bool:
        return len(normalize(quote)) < MIN_QUOTE_CHARS

    def prepare_indexed(text: str) -> Any:
        prepared = prepare(text)
        prepared.build_indexes()
        return prepared

    return [
        Matcher(CITEPROOF, prepare, find_quote, outcome, is_citeproof=True),
        Matcher(INDEXED, prepare_indexed, find_quote, outcome, is_citeproof=True),
    ], too_short


def citeproofs(names: Iterable[str]) -> list[str]:
    return [n for n in names if n in (CITEPROOF, INDEXED)]


# --------------------------------------------------------------------------- scoring
def expected_verdict(q: Quote, m: Matcher) -> str:
    """The file's verdict, except that citeproof must say TOO_SHORT for short quotes.

    Baselines cannot say TOO_SHORT, so for them a short quote counts as right when they
    return the file's verdict.
    """
    return "TOO_SHORT" if m.is_citeproof and q.too_short else q.expected


def strict_problem(q: Quote, o: Outcome) -> str | None:
    """Why a citeproof answer with the right verdict is still wrong, or None.

    EXACT: the first span is ``expected_span``, or the quote occurs more than once and
    ``expected_span`` is among the spans.  An ellipsis quote may instead report fragment
    spans whose first start and last end are ``expected_span``.  NEAR for number/negation
    quotes must carry numbers_differ / negation_differs.
    """
    if o.verdict == "EXACT" and q.span is not None:
        if o.spans and (o.spans[0] == q.span or (len(o.spans) > 1 and q.span in o.spans)):
            return None
        frags = o.fragment_spans
        if frags and (frags[0][0], frags[-1][1]) == q.span:
            return None
        return f"span {list(o.spans[:3])} (fragments {list(frags)}), expected {list(q.span)}"
    flag = RISK_FLAG.get(q.category)
    if o.verdict == "NEAR" and flag and flag not in o.flags:
        return f"NEAR without {flag} (flags {sorted(o.flags)})"
    return None


# ---------------------------------------------------------------------------- timing
def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolation percentile (numpy's default), p in [0, 100]."""
    s = sorted(values)
    if not s:
        return float("nan")
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def distribution(ms: Sequence[float]) -> dict[str, float | int]:
    return {
        "n": len(ms),
        "median_ms": statistics.median(ms) if ms else float("nan"),
        "p95_ms": percentile(ms, 95),
        "max_ms": max(ms) if ms else float("nan"),
    }


@dataclass(slots=True)
class QuoteRun:
    quote: Quote
    outcome: Outcome
    expected: str
    times_ms: list[float]
    problem: str | None = None

    @property
    def ms(self) -> float:
        return statistics.median(self.times_ms)

    @property
    def verdict_ok(self) -> bool:
        return self.outcome.verdict == self.expected

    @property
    def strict_ok(self) -> bool:
        return self.verdict_ok and self.problem is None


def run_checks(m: Matcher, state: Any, quotes: Iterable[Quote], repeats: int) -> list[QuoteRun]:
    """Check every quote ``repeats`` times (fewer past QUOTE_BUDGET_S) and score it."""
    clock = time.perf_counter_ns
    runs = []
    for q in quotes:
        times: list[float] = []
        spent = 0
        for _ in range(repeats):
            t0 = clock()
            answer = m.check(state, q.text)
            elapsed = clock() - t0
            times.append(elapsed / 1e6)
            spent += elapsed
            if spent > QUOTE_BUDGET_S * 1e9:
                break
        o = m.outcome(answer)
        run = QuoteRun(q, o, expected_verdict(q, m), times)
        if m.is_citeproof and run.verdict_ok:
            run.problem = strict_problem(q, o)
        runs.append(run)
    return runs


def time_prepare(m: Matcher, text: str, runs: int) -> tuple[list[float], Any]:
    """Seconds for each of ``runs`` prepares, and the last prepared state."""
    seconds = []
    state: Any = None
    for _ in range(max(1, runs)):
        state = None
        gc.collect()
        t0 = time.perf_counter()
        state = m.prepare(text)
        seconds.append(time.perf_counter() - t0)
    return seconds, state


def cold_check_ms(m: Matcher, state: Any, quotes: Sequence[Quote]) -> float:
    """The first check on a freshly prepared state, with a quote that needs the NEAR search.

    Why: a prepared text may build parts lazily on first use (a lower-cased copy, a
    dehyphenated layer); ``prepare``'s MB/s does not include them and the repeated-check
    medians hide them, but a one-shot ``citeproof check`` pays them.
    """
    q = next((q for q in quotes if q.category == "one_word"), quotes[0])
    t0 = time.perf_counter_ns()
    m.check(state, q.text)
    return (time.perf_counter_ns() - t0) / 1e6


def floor_times_ms(text: str, runs: int = 9) -> list[float]:
    """The floor of a check: one ``str.find`` pass over the whole text (a needle that is not
    there), ``runs`` times.  Issue 16's check targets are multiples of its median, taken
    over runs just before and just after the matcher's checks, so that the floor is
    measured in the same minutes as what it is compared with."""
    times = []
    for _ in range(runs):
        t0 = time.perf_counter_ns()
        text.find("\x00never there\x00")
        times.append((time.perf_counter_ns() - t0) / 1e6)
    return times


def index_cost(text: str, state: Any) -> dict[str, Any]:
    """What citeproof's word index costs at this size: the time to build it over the
    prepared text's marker-free layer, its own size, its peak memory while being built,
    and the prepared text's memory to compare with (both traced by ``tracemalloc``, the
    time measured without it), and which of the prepared text's searchable layers the
    run itself got to index (``Haystack`` builds one once its scans have cost as much).
    The same for every layer's index at once (``Prepared.build_indexes``), which is what a
    text checked often ends up holding."""
    import tracemalloc

    from citeproof.match.prepare import prepare
    from citeproof.match.word_index import WordIndex

    layer = state.hay.text
    gc.collect()
    t0 = time.perf_counter()
    index = WordIndex(layer)
    build_ms = (time.perf_counter() - t0) * 1e3
    own, words = index.nbytes(), index.words
    del index
    gc.collect()
    tracemalloc.start()
    prepared = prepare(text)
    # the layers a check searches, built on first use whether or not they get an index
    _ = prepared.lower, prepared.norm_hay
    prepared_now, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    index = WordIndex(prepared.hay.text)
    _, index_peak = tracemalloc.get_traced_memory()
    del index
    tracemalloc.reset_peak()
    prepared.build_indexes()  # every searched layer: what a text checked often holds
    all_now, all_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del prepared
    return {
        "build_ms": build_ms,
        "words": words,
        "index_bytes": own,
        "index_peak_bytes": index_peak - prepared_now,
        "prepared_bytes": prepared_now,
        "all_indexes_bytes": all_now - prepared_now,
        "all_indexes_peak_bytes": all_peak - prepared_now,
        "indexed_by_run": {
            name: getattr(state, name).indexed for name in ("hay", "lower", "norm_hay")
        },
    }


# ------------------------------------------------------------------------ summaries
def accuracy(runs: Sequence[QuoteRun], strict: bool) -> dict[str, Any]:
    def share(rs: Sequence[QuoteRun]) -> dict[str, Any]:
        ok = sum(r.strict_ok if strict else r.verdict_ok for r in rs)
        return {"right": ok, "n": len(rs), "pct": 100.0 * ok / len(rs) if rs else float("nan")}

    by_cat = {c: share([r for r in runs if r.quote.category == c]) for c in CATEGORIES}
    return {"overall": share(runs), "by_category": {c: v for c, v in by_cat.items() if v["n"]}}


def summarise(
    m: Matcher,
    size: str,
    nbytes: int,
    prep_s: list[float],
    runs: list[QuoteRun],
    repeats: int,
    subset: int | None,
) -> dict[str, Any]:
    ms = [r.ms for r in runs]
    checked = [r.ms for r in runs if r.outcome.verdict != "TOO_SHORT"]
    by_cat = {}
    for c in CATEGORIES:
        cat = [r.ms for r in runs if r.quote.category == c]
        if cat:
            by_cat[c] = distribution(cat)
    out: dict[str, Any] = {
        "matcher": m.name,
        "size": size,
        "subset": f"first {subset} per category" if subset else "all",
        "repeats": repeats,
        "prepare": {
            "runs_s": prep_s,
            "best_mb_s": nbytes / 1e6 / min(prep_s),
            "median_mb_s": nbytes / 1e6 / statistics.median(prep_s),
        },
        "check": {
            **distribution(ms),
            "by_category": by_cat,
            "first_run": distribution([r.times_ms[0] for r in runs]),
            "without_too_short": distribution(checked),
        },
        "accuracy_verdict": accuracy(runs, strict=False),
        "quotes": [
            {
                "id": r.quote.id,
                "expected": r.expected,
                "verdict": r.outcome.verdict,
                "ok": r.verdict_ok,
                "ms": round(r.ms, 4),
            }
            for r in runs
        ],
    }
    if m.is_citeproof:
        out["accuracy_strict"] = accuracy(runs, strict=True)
        out["failures"] = [
            {
                "id": r.quote.id,
                "category": r.quote.category,
                "expected": r.expected,
                "verdict": r.outcome.verdict,
                "why": r.problem or "wrong verdict",
                "quote": r.quote.text[:120],
            }
            for r in runs
            if not r.strict_ok
        ]
    return out


# -------------------------------------------------------------------------------- CLI
def cli_commands() -> list[tuple[str, list[str]]]:
    """``python -m citeproof`` and the console script next to the interpreter, if any."""
    cmds = [("python -m citeproof", [sys.executable, "-m", "citeproof"])]
    script = Path(sys.executable).parent / "citeproof"
    if script.exists():
        cmds.append(("citeproof (console script)", [str(script)]))
    return cmds


def cli_env(tmp: Path) -> dict[str, str]:
    """The environment for timed commands: a private CITEPROOF_HOME, and a bytecode cache.

    An installed package runs from compiled bytecode; PYTHONDONTWRITEBYTECODE (set in some
    sandboxes) would make every run compile citeproof's modules again.  The cache goes to
    the temporary directory (PYTHONPYCACHEPREFIX), so a run leaves nothing in the repository.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(CITEPROOF_HOME=str(tmp / "home"), PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    return env


def time_subprocess(argv: list[str], runs: int, env: dict[str, str]) -> dict[str, Any]:
    """One untimed warm-up run (page cache, .pyc files), then ``runs`` timed runs."""
    warm = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    if warm.returncode not in (0, 1):
        lines = (warm.stderr or warm.stdout).strip().splitlines()
        return {
            "status": "n/a",
            "why": f"exit {warm.returncode}: " + (lines[-1] if lines else "no output"),
        }
    seconds = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True, env=env, check=False)
        seconds.append(time.perf_counter() - t0)
    return {
        "status": "ok",
        "runs_s": seconds,
        "best_s": min(seconds),
        "median_s": statistics.median(seconds),
        "stdout": warm.stdout,
        "returncode": warm.returncode,
    }


def measure_cli(shared: Path) -> dict[str, Any]:
    """``--help`` wall time for each entry point, and ``check --json`` on a 50-page PDF."""
    from make_pdf import build_pdf, pick_quote  # bench/ is sys.path[0] when run as a script

    result: dict[str, Any] = {"help": {}, "check_pdf": None}
    with tempfile.TemporaryDirectory(prefix="citeproof-bench-") as tmp:
        env = cli_env(Path(tmp))
        for label, cmd in cli_commands():
            r = time_subprocess([*cmd, "--help"], CLI_HELP_RUNS, env)
            r.pop("stdout", None)
            result["help"][label] = r
        built = build_pdf(Path(tmp) / "bench-50.pdf", shared)
        page, quote = pick_quote(built)
        label, cmd = cli_commands()[-1]
        r = time_subprocess([*cmd, "check", "--json", quote, str(built.path)], CLI_CHECK_RUNS, env)
        stdout = r.pop("stdout", "")
        if r["status"] == "ok":
            try:
                answer = json.loads(stdout)
                r["verdict"] = answer.get("verdict")
                r["count"] = answer.get("count")
            except json.JSONDecodeError:
                r.update(status="n/a", why="check --json did not print JSON")
        r.update(
            entry=label,
            pages=len(built.sources),
            quote=quote,
            quote_page=page + 1,
            pdf_bytes=built.path.stat().st_size,
        )
        result["check_pdf"] = r
    return result


# ---------------------------------------------------------------------------- targets
@dataclass(slots=True)
class Target:
    name: str
    value: float | None
    limit: float
    unit: str
    higher_is_better: bool = False
    judged: bool = True
    note: str = ""
    info: bool = False
    """Context printed next to the targets, never a target itself."""
    status: str = field(init=False, default="")

    def __post_init__(self) -> None:
        if self.value is None or self.value != self.value:  # missing or NaN
            self.status = "n/a"
        elif self.info:
            self.status = "info"
        elif not self.judged:
            self.status = "not judged"
        else:
            ok = self.value >= self.limit if self.higher_is_better else self.value <= self.limit
            self.status = "PASS" if ok else "FAIL"


def targets(
    results: dict[str, dict[str, dict[str, Any]]], cli: dict[str, Any] | None, quick: bool
) -> list[Target]:
    """The issue's targets, judged on medians (the conservative choice for timings)."""

    def get(size: str, name: str) -> dict[str, Any] | None:
        return results.get(size, {}).get(name)

    out: list[Target] = []
    timing = not quick
    for size in results:
        cp = get(size, CITEPROOF)
        pct = cp["accuracy_strict"]["overall"]["pct"] if cp else None
        out.append(
            Target(
                f"citeproof accuracy, verdict+span+flags, {size}",
                pct,
                100.0,
                "%",
                higher_is_better=True,
            )
        )
    for size, limit in (("1m", 30.0), ("10m", 30.0)):
        cp = get(size, CITEPROOF)
        if size in results:
            out.append(
                Target(
                    f"prepare speed (median), {size}",
                    cp["prepare"]["median_mb_s"] if cp else None,
                    limit,
                    "MB/s",
                    higher_is_better=True,
                    judged=timing,
                )
            )
    for size, limit in (("1m", 0.5), ("10m", 6.0)):
        cp = get(size, CITEPROOF)
        if size in results:
            out.append(
                Target(
                    f"check median, {size}",
                    cp["check"]["median_ms"] if cp else None,
                    limit,
                    "ms",
                    judged=timing,
                )
            )
    if "1m" in results:
        cp = get("1m", CITEPROOF)
        p95 = cp["check"]["by_category"]["one_word"]["p95_ms"] if cp else None
        out.append(Target("one_word (NEAR search) p95, 1m", p95, 5.0, "ms", judged=timing))
        for name in ("quotecheck_style", "rapidfuzz_partial"):
            base = get("1m", name)
            ratio = base["check"]["median_ms"] / cp["check"]["median_ms"] if cp and base else None
            out.append(
                Target(
                    f"speed-up vs {name} (median), 1m",
                    ratio,
                    10.0,
                    "x",
                    higher_is_better=True,
                    judged=timing,
                )
            )
            out.append(
                Target(
                    f"speed-up vs {name}, quotes not TOO_SHORT, 1m",
                    checked_speedup(cp, base),
                    10.0,
                    "x",
                    higher_is_better=True,
                    info=True,
                )
            )
    for name in citeproofs((CITEPROOF, INDEXED)):
        # judged with the indexes built (a text checked often); as run, for information:
        # the first checks of a text scan it, until the scans have cost an index
        info = name == CITEPROOF
        tag = "indexed" if name == INDEXED else "as run"
        if "1m" in results:
            out.append(
                Target(
                    f"issue 16: speed-up vs rapidfuzz_partial, searched quotes, 1m, {tag}",
                    checked_speedup(get("1m", name), get("1m", "rapidfuzz_partial")),
                    15.0,
                    "x",
                    higher_is_better=True,
                    judged=timing,
                    info=info,
                )
            )
        if "10m" in results:
            ratios = in_passes(get("10m", name))
            out.append(
                Target(
                    f"issue 16: check median, searched quotes, 10m, {tag}",
                    ratios["searched_median"],
                    0.3,
                    "passes",
                    judged=timing,
                    info=info,
                    note="one str.find pass over the text",
                )
            )
            out.append(
                Target(
                    f"issue 16: NOT_FOUND p95, 10m, {tag}",
                    ratios["not_found_p95"],
                    1.5,
                    "passes",
                    judged=timing,
                    info=info,
                )
            )
    if "10m" in results:
        index = (get("10m", CITEPROOF) or {}).get("index")
        for key, what in (("index_peak_bytes", "layer's"), ("all_indexes_peak_bytes", "all")):
            out.append(
                Target(
                    f"issue 16: peak memory of the word index ({what}) / prepared text, 10m",
                    index[key] / index["prepared_bytes"] if index else None,
                    3.0,
                    "x",
                    judged=timing,
                )
            )
    if cli is not None:
        for label, r in cli["help"].items():
            out.append(
                Target(
                    f"{label} --help (median)",
                    r.get("median_s"),
                    0.3,
                    "s",
                    judged=timing,
                    note=r.get("why", ""),
                )
            )
        r = cli["check_pdf"] or {}
        note = r.get("why", "")
        if r.get("verdict") not in (None, "EXACT"):
            note = f"verdict {r['verdict']}, expected EXACT"
        out.append(
            Target(
                f"check --json on a {r.get('pages', 50)}-page PDF (median)",
                r.get("median_s"),
                1.5,
                "s",
                judged=timing,
                note=note,
            )
        )
    return out


def in_passes(cp: dict[str, Any] | None) -> dict[str, float | None]:
    """citeproof's searched-quote median and NOT_FOUND p95 as multiples of the size's floor
    (one ``str.find`` pass over the text, ``floor_pass_ms``): issue 16's targets for a
    check whose cost does not grow with the text."""
    if not cp or not cp.get("floor_pass_ms"):
        return {"searched_median": None, "not_found_p95": None}
    floor = cp["floor_pass_ms"]
    searched = [q["ms"] for q in cp["quotes"] if q["verdict"] != "TOO_SHORT"]
    missing = [q["ms"] for q in cp["quotes"] if q["verdict"] == "NOT_FOUND"]
    return {
        "searched_median": statistics.median(searched) / floor if searched else None,
        "not_found_p95": percentile(missing, 95) / floor if missing else None,
    }


def checked_speedup(cp: dict[str, Any] | None, base: dict[str, Any] | None) -> float | None:
    """Median-check speed-up over the quotes citeproof really searched.

    A TOO_SHORT answer costs citeproof almost nothing while a baseline still searches, so
    the overall ratio flatters citeproof; this one compares the two on the same other quotes.
    """
    if not cp or not base:
        return None
    searched = {q["id"] for q in cp["quotes"] if q["verdict"] != "TOO_SHORT"}
    cp_ms = [q["ms"] for q in cp["quotes"] if q["id"] in searched]
    base_ms = [q["ms"] for q in base["quotes"] if q["id"] in searched]
    if not cp_ms or not base_ms:
        return None
    return float(statistics.median(base_ms) / statistics.median(cp_ms))


# --------------------------------------------------------------------------- printing
def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A plain-text table: first column left-aligned, the rest right-aligned."""
    cells = [[str(h) for h in headers], *[[fmt(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(r: list[str]) -> str:
        return "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )

    return "\n".join(
        [line(cells[0]), "  ".join("-" * w for w in widths), *(line(r) for r in cells[1:])]
    )


def fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        if v != v:
            return "-"
        return f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"
    return str(v)


def pct(acc: dict[str, Any] | None) -> str:
    return f"{acc['pct']:.1f}% ({acc['right']}/{acc['n']})" if acc else "-"


def print_size(size: str, res: dict[str, dict[str, Any]], chars: int) -> None:
    print(f"\n=== {size}: {chars:,} characters ===")
    rows = []
    for name, r in res.items():
        c = r["check"]
        strict = r.get("accuracy_strict", {}).get("overall")
        rows.append(
            [
                name,
                r["subset"],
                r["repeats"],
                r["prepare"]["best_mb_s"],
                r["prepare"]["median_mb_s"],
                c["median_ms"],
                c["p95_ms"],
                c["max_ms"],
                c["first_run"]["median_ms"],
                c["cold_near_ms"],
                pct(r["accuracy_verdict"]["overall"]),
                pct(strict),
            ]
        )
    print(
        table(
            [
                "matcher",
                "quotes",
                "rep",
                "prep MB/s best",
                "med",
                "check ms med",
                "p95",
                "max",
                "1st run med",
                "cold NEAR",
                "verdicts right",
                "strict right",
            ],
            rows,
        )
    )
    names = list(res)
    headers = ["category"]
    for n in names:
        short = SHORT_NAMES.get(n, n)
        headers += (
            [f"{short} med", f"{short} p95", f"{short} ok"]
            if n in (CITEPROOF, INDEXED)
            else [f"{short} med", f"{short} ok"]
        )
    cat_rows = []
    for c in CATEGORIES:
        row: list[Any] = [c]
        for n in names:
            d = res[n]["check"]["by_category"].get(c, {})
            key = "accuracy_strict" if n in (CITEPROOF, INDEXED) else "accuracy_verdict"
            a = res[n][key]["by_category"].get(c)
            right = f"{a['right']}/{a['n']}" if a else "-"
            row += (
                [d.get("median_ms"), d.get("p95_ms"), right]
                if n in (CITEPROOF, INDEXED)
                else [d.get("median_ms"), right]
            )
        cat_rows.append(row)
    print("\nper category (ms per check; ok = right answers, strict for citeproof):")
    print(table(headers, cat_rows))
    for name in citeproofs(res):
        cp = res[name]
        w = cp["check"]["without_too_short"]
        print(
            f"\n{name} on the {w['n']} quotes it did not answer TOO_SHORT: median "
            f"{fmt(w['median_ms'])} ms, p95 {fmt(w['p95_ms'])} ms"
        )
        if cp.get("floor_pass_ms"):
            ratios = in_passes(cp)
            print(
                f"floor (one str.find pass over the text): {fmt(cp['floor_pass_ms'])} ms; "
                f"searched median {fmt(ratios['searched_median'])} passes, NOT_FOUND p95 "
                f"{fmt(ratios['not_found_p95'])} passes"
            )
        if cp.get("index"):
            ix = cp["index"]
            built = ", ".join(k for k, v in ix["indexed_by_run"].items() if v) or "none"
            print(
                f"word index of the layer: built in {fmt(ix['build_ms'])} ms "
                f"({fmt(ix['build_ms'] / cp['floor_pass_ms'])} passes), {ix['words']:,} "
                f"words, {ix['index_bytes'] / 1e6:.1f} MB (peak "
                f"{ix['index_peak_bytes'] / 1e6:.1f} MB while built; prepared text "
                f"{ix['prepared_bytes'] / 1e6:.1f} MB); every layer's index: "
                f"{ix['all_indexes_bytes'] / 1e6:.1f} MB (peak "
                f"{ix['all_indexes_peak_bytes'] / 1e6:.1f} MB); indexed by the run: {built}"
            )
    cp = res.get(CITEPROOF)
    if cp and cp["failures"]:
        print(f"\nciteproof misses at {size} ({len(cp['failures'])}):")
        for f in cp["failures"][:25]:
            print(f"  {f['id']}: expected {f['expected']}, got {f['verdict']}: {f['why']}")
        if len(cp["failures"]) > 25:
            print(f"  ... {len(cp['failures']) - 25} more in the JSON output")


def print_cli(cli: dict[str, Any]) -> None:
    print("\n=== command line ===")
    rows = []
    for label, r in cli["help"].items():
        rows.append([f"{label} --help", r.get("best_s"), r.get("median_s"), r.get("why", "")])
    r = cli["check_pdf"] or {}
    note = r.get("why") or f"verdict {r.get('verdict')}, count {r.get('count')}"
    rows.append(
        [
            f"check --json, {r.get('pages')}-page PDF ({r.get('entry')})",
            r.get("best_s"),
            r.get("median_s"),
            note,
        ]
    )
    print(table(["command", "best s", "median s", "note"], rows))
    if r.get("quote"):
        print(f"  quote (page {r['quote_page']}): {r['quote']!r}")


def print_targets(ts: Sequence[Target], quick: bool) -> None:
    print("\n=== targets ===" + ("  (--quick: timings printed, not judged)" if quick else ""))
    print(
        table(
            ["target", "measured", "limit", "status", "note"],
            [
                [
                    t.name,
                    t.value,
                    f"{'>=' if t.higher_is_better else '<='} {t.limit:g} {t.unit}",
                    t.status,
                    t.note,
                ]
                for t in ts
            ],
        )
    )


# ---------------------------------------------------------------------------- driver
@dataclass(frozen=True, slots=True)
class Plan:
    """How much work each matcher does at each size (see bench/README.md)."""

    sizes: tuple[str, ...]
    repeats: int
    prepare_runs: int
    baseline_repeats: int
    baseline_subset: int | None
    subset_10m: dict[str, int | None]

    def citeproof_repeats(self, size: str) -> int:
        return max(1, min(self.repeats, 3)) if size == "10m" else self.repeats

    def prepare_runs_for(self, m: Matcher, size: str) -> int:
        if not m.is_citeproof:
            return 1
        return min(self.prepare_runs, 3) if size == "10m" else self.prepare_runs

    def subset(self, m: Matcher, size: str) -> int | None:
        if m.is_citeproof:
            return None
        if size == "10m" and m.name in self.subset_10m:
            return self.subset_10m[m.name]
        return self.baseline_subset


def machine() -> dict[str, Any]:
    model = ""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    try:
        commit = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
    except OSError:
        commit = ""
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "cpu": model,
        "cores": cores,
        "python": platform.python_version(),
        "load_avg": list(os.getloadavg()),
        "commit": commit,
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="CI smoke: 10k and 100k only, 1 repeat, baselines on 10 quotes per "
        "category, no CLI timings; fails only on citeproof accuracy",
    )
    p.add_argument(
        "--shared",
        type=Path,
        default=DEFAULT_SHARED,
        help=f"the shared data directory (default: {DEFAULT_SHARED})",
    )
    p.add_argument(
        "--require-shared",
        action="store_true",
        help="fail (exit 2) instead of skipping when the shared kit is missing",
    )
    p.add_argument("--json-out", type=Path, help="write every number to this JSON file")
    p.add_argument("--sizes", help="comma-separated sizes to run (default: by mode)")
    p.add_argument(
        "--matchers",
        help="comma-separated matchers (default: all): "
        + ",".join((CITEPROOF, INDEXED, *BASELINE_NAMES)),
    )
    p.add_argument("--repeats", type=int, help="runs per quote (default 5; 1 with --quick)")
    p.add_argument(
        "--rf-10m-per-category",
        type=int,
        default=20,
        help="rapidfuzz_partial at 10m: first N quotes per category (0 = all)",
    )
    p.add_argument(
        "--qc-10m-per-category",
        type=int,
        default=20,
        help="quotecheck_style at 10m: first N quotes per category (0 = all)",
    )
    p.add_argument("--skip-cli", action="store_true", help="do not time the command line")
    return p.parse_args(argv)


def calibrate(text: str) -> dict[str, float]:
    """MB/s of three primitives on ``text``, measured now: a yardstick for how fast the
    machine is at the moment (shared virtual machines vary by a factor of two), to read
    absolute targets such as prepare MB/s against.  The shared kit's README measured NFKC
    at about 56 MB/s, whitespace collapsing at 62 MB/s and str.find at 3.7 GB/s on this
    kind of machine."""
    nbytes = len(text.encode("utf-8"))
    out: dict[str, float] = {}
    for name, fn in (
        ("nfkc", lambda: unicodedata.normalize("NFKC", text)),
        ("collapse_whitespace", lambda: " ".join(text.split())),
        ("str_find", lambda: text.find("\x00never there\x00")),
    ):
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        out[name] = round(nbytes / statistics.median(times) / 1e6, 1)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()
    args = parse_args(argv)
    shared: Path = args.shared.resolve()
    if not (shared / "bench" / "baselines.py").exists():
        print(
            f"bench_match: the shared benchmark kit is not at {shared} "
            "(expected bench/baselines.py, bench/texts, bench/quotes there); "
            "pass --shared DIR.",
            file=sys.stderr,
        )
        if args.quick and not args.require_shared:
            print("bench_match: --quick: nothing to measure, skipping.", file=sys.stderr)
            return 0
        return 2

    quick = args.quick
    plan = Plan(
        sizes=tuple(args.sizes.split(","))
        if args.sizes
        else (SIZES_QUICK if quick else SIZES_FULL),
        repeats=args.repeats or (1 if quick else 5),
        prepare_runs=1 if quick else 5,
        baseline_repeats=1 if quick else min(args.repeats or 3, 3),
        baseline_subset=10 if quick else None,
        subset_10m={
            "rapidfuzz_partial": args.rf_10m_per_category or None,
            "quotecheck_style": args.qc_10m_per_category or None,
        },
    )
    matchers = baseline_matchers(load_baselines(shared))
    found = citeproof_matcher()
    too_short = None
    if found is None:
        print(
            "bench_match: citeproof's matcher (citeproof.match.quote) is not there yet; "
            "measuring the baselines only.",
            file=sys.stderr,
        )
    else:
        matchers = {**{m.name: m for m in found[0]}, **matchers}
        too_short = found[1]
    if args.matchers:
        wanted = args.matchers.split(",")
        matchers = {k: v for k, v in matchers.items() if k in wanted}

    meta = {
        **machine(),
        "mode": "quick" if quick else "full",
        "plan": asdict(plan),
        "shared": str(shared),
        "quote_budget_s": QUOTE_BUDGET_S,
    }
    print(f"citeproof matcher benchmark ({meta['mode']}), {meta['date']}")
    print(
        f"machine: {meta['cpu'] or meta['platform']}, {meta['cores']} cores, "
        f"Python {meta['python']}, load {meta['load_avg'][0]:.2f}, repo {meta['commit']}"
    )

    yardstick_size = "1m" if "1m" in plan.sizes else plan.sizes[-1]
    meta["primitives_mb_s"] = calibrate(
        (shared / "bench" / "texts" / f"{yardstick_size}.txt").read_text(encoding="utf-8")
    )
    prims = meta["primitives_mb_s"]
    print(
        f"machine speed now ({yardstick_size} text): NFKC {prims['nfkc']:.0f} MB/s, "
        f"whitespace collapse {prims['collapse_whitespace']:.0f} MB/s, str.find "
        f"{prims['str_find']:.0f} MB/s (reference machine: 56, 62, 3700)"
    )

    results: dict[str, dict[str, dict[str, Any]]] = {}
    texts: dict[str, int] = {}
    for size in plan.sizes:
        text = (shared / "bench" / "texts" / f"{size}.txt").read_text(encoding="utf-8")
        nbytes = len(text.encode("utf-8"))
        texts[size] = len(text)
        quotes = load_quotes(shared / "bench" / "quotes" / f"{size}.jsonl", too_short)
        results[size] = {}
        for name, m in matchers.items():
            subset = plan.subset(m, size)
            chosen = first_per_category(quotes, subset)
            repeats = plan.citeproof_repeats(size) if m.is_citeproof else plan.baseline_repeats
            t0 = time.perf_counter()
            floor_before = floor_times_ms(text)
            prep_s, state = time_prepare(m, text, plan.prepare_runs_for(m, size))
            cold_ms = cold_check_ms(m, state, chosen)
            runs = run_checks(m, state, chosen, repeats)
            index = index_cost(text, state) if name == CITEPROOF and not quick else None
            del state
            gc.collect()
            results[size][name] = summarise(m, size, nbytes, prep_s, runs, repeats, subset)
            results[size][name]["check"]["cold_near_ms"] = cold_ms
            results[size][name]["floor_pass_ms"] = statistics.median(
                floor_before + floor_times_ms(text)
            )
            if index is not None:
                results[size][name]["index"] = index
            print(
                f"  [{size}] {name}: {len(chosen)} quotes in {time.perf_counter() - t0:.1f} s",
                file=sys.stderr,
                flush=True,
            )
        print_size(size, results[size], len(text))

    cli = None
    if quick or args.skip_cli:
        print("\n(command-line timings skipped" + (" in --quick)" if quick else ")"))
    elif found is None:
        print("\n(command-line timings: n/a, citeproof's matcher is not there yet)")
    else:
        cli = measure_cli(shared)
        print_cli(cli)

    meta["load_avg_end"] = list(os.getloadavg())
    meta["wall_s"] = round(time.perf_counter() - started, 1)
    print(
        f"\n{meta['wall_s']:.0f} s in all; load average at the end "
        f"{meta['load_avg_end'][0]:.2f} (timings are only as quiet as the machine)"
    )
    ts = targets(results, cli, quick)
    print_targets(ts, quick)
    if args.json_out:
        payload = {
            "meta": meta,
            "text_chars": texts,
            "results": results,
            "cli": cli,
            "targets": [asdict(t) for t in ts],
        }
        args.json_out.write_text(
            json.dumps(payload, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print(f"\nwrote {args.json_out}")

    failed = [t for t in ts if t.status == "FAIL"]
    if quick and CITEPROOF not in matchers:
        print(
            "\nbench_match: --quick: the correctness gate needs citeproof's matcher.",
            file=sys.stderr,
        )
        return 1
    if failed:
        print(
            f"\n{len(failed)} target(s) failed: " + "; ".join(t.name for t in failed),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    # Let "python bench/bench_match.py" find make_pdf.py next to it whatever the cwd.
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
