"""Benchmark ``citeproof refs``: accuracy on Crossref's 2,000 real reference strings, next to
Crossref's own search-based matching with validation (SBMV), and the local work per reference.

1. **Accuracy.**  Crossref published precision 98.1%, recall 94.6% and F1 96.3% for SBMV on
   2,000 unstructured reference strings sampled from its live system, each with a ground
   truth DOI set by hand (or none: 806 strings cite something without a Crossref DOI).  The
   strings, the true DOIs and SBMV's own links are in :data:`DATASET_PATH` of
   :data:`DATASET_REPO` at :data:`DATASET_COMMIT`; the figures come from that repository's
   ``analyses/3_unstructured_real_evaluation/existing_matches.ipynb`` (SBMV links kept when
   their validation score is at least 0.34).  The file is not copied into this repository:
   download it (:data:`DATASET_URL`) and pass ``--dataset FILE``.  Every string is read with
   ``parse_reference_string`` and verified with ``verify_stated(..., retraction=False)``;
   the predicted DOI is the verified work's DOI (any other verdict predicts nothing).  The
   measures are the evaluation's own (``evaluation/link_metrics.py``, see :func:`links`).
   That needs the services: ``--live`` asks them (``--record DIR`` keeps every answer),
   ``--replay DIR`` answers from such a folder.  Without either the part is skipped: it
   cannot be measured offline.  Live, PubMed's pace (3 requests a second without
   ``NCBI_API_KEY``) sets the time: roughly 15 to 25 minutes for all 2,000 strings (an
   estimate from the limits, not measured).
   Answers are pinned in a throw-away ``CITEPROOF_HOME``, never the user's cache.  The
   file's own SBMV links are scored the same way on the same strings, so a ``--limit``
   sample is compared like with like (with ``--dataset`` alone, that row is printed on its
   own: it reproduces the published figures, a check of these measures).

2. **Speed.**  Target: the local work per reference (parse, validate, record) at most 5 ms
   at the median on replayed responses.  Every service is answered in memory, instantly,
   with invented answers in the real formats (``bench/refs_fixtures.py``): a Crossref
   bibliographic search page of 5 items, ``works/{doi}`` records with their reference
   lists, doi.org's agency look-up, OpenAlex searches of 5 results, PubMed esearch and
   esummary, DataCite records.  The client is the one ``make_client`` builds (retries,
   contact parameters, body cap) with a limiter that never waits and the pinning hook
   writing to a throw-away cache, so the time includes hashing and pinning every answer.
   References of six kinds, in the order of ``refs_fixtures.MIX`` (a bibliography's mix,
   pessimistic in fabrications): a DOI that matches, a PMID that matches, a DOI of another
   work (so a search follows), no identifier (found by search), nothing found, a DataCite
   DOI; three citation styles.  Retraction is off.  Per reference: ``parse_reference_string``
   and each ``verify_reference`` call inside ``verify_all(concurrency=1)``, timed on their own
   (the judged number is their sum's median); ``verify_all``'s total / N at concurrency 1 and
   8 is shown as well.  A warm-up pass on other works runs first (imports, first-use setup).

3. **Requests per reference** (issue 22: what a reference costs the services).  In the same
   concurrency-1 pass, every request the transport is sent while one reference is verified
   (retries included) is counted for it: the median and mean for each kind and for the three
   groups of what an entry states (a DOI, a PMID, no identifier), and the mean by service.
   Targets: a median of at most 1 request with a DOI or a PMID, at most 2 without an
   identifier, each over its group's entries in the mix, fabrications included.  The counts
   do not depend on the machine, so they are judged with ``--quick`` too.

Exit status: 0; 1 when the speed median misses the target (not with ``--quick``, whose
timings are printed, never judged) or a requests-per-reference target is missed; 2 when
``--live``/``--replay`` has no usable dataset,
the verification stops (an unusable replay folder), or a module the run needs cannot be
imported.  Accuracy is printed, never judged.

    python bench/bench_refs.py                      # speed (~10 s); accuracy skipped
    python bench/bench_refs.py --quick              # speed, 50 references
    python bench/bench_refs.py --dataset unstructured_sbmv.json --live --limit 200
    python bench/bench_refs.py --dataset unstructured_sbmv.json --live --record rec/
    python bench/bench_refs.py --dataset unstructured_sbmv.json --replay rec/
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import math
import os
import platform
import random
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeproof.models.references import ReferenceResult
    from citeproof.refs.stated import StatedReference

REPO = Path(__file__).resolve().parents[1]
TARGET_MS = 5.0

DATASET_REPO = "CrossRef/reference-matching-evaluation"
DATASET_COMMIT = "bc6ce6c7c69493a7e73dcf4f816a9beee4dd610c"
DATASET_PATH = "analyses/3_unstructured_real_evaluation/data/unstructured_sbmv.json"
DATASET_URL = f"https://raw.githubusercontent.com/{DATASET_REPO}/{DATASET_COMMIT}/{DATASET_PATH}"
#: The git blob id of that file (``git hash-object``): a download is checked against it.
DATASET_BLOB = "dad1542c4c3ca33af7318bd32f40705c101c642a"
#: SBMV's published figures on the 2,000 strings (existing_matches.ipynb).
SBMV_PUBLISHED = (0.9809, 0.9456, 0.9629)
#: The validation-score threshold those figures were computed with.
SBMV_THRESHOLD = 0.34


def load_avg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def percentile(values: Sequence[float], p: float) -> float:
    """Linear-interpolation percentile (numpy's default), ``p`` in [0, 100]."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    k = (len(ordered) - 1) * p / 100
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


# =========================================================================== accuracy


@dataclass(frozen=True, slots=True)
class Item:
    """One string of the dataset: its true DOIs (None: it has none) and SBMV's link."""

    ref_string: str
    true: tuple[str, ...] | None
    sbmv: str | None


def doi_normalise(doi: str | None) -> str | None:
    """The evaluation's ``doi_normalize``: lower case, ``//`` as ``/``, nothing after ``;``."""
    if doi is None:
        return None
    return re.sub(";.*", "", re.sub("//", "/", doi.lower()))


def load_dataset(path: Path) -> list[Item]:
    """The items of an evaluation dataset file (``{"dataset": [...]}``, or the bare list).

    ``target_gt.DOI`` is a DOI, a list of DOIs (any of them is right) or null;
    ``target_test.DOI`` and ``score`` are SBMV's link and validation score, the link kept
    only at a score of at least :data:`SBMV_THRESHOLD`, as the published figures were.
    """
    data = json.loads(path.read_bytes())
    rows = data.get("dataset") if isinstance(data, dict) else data
    if not isinstance(rows, list):
        raise ValueError("no 'dataset' list")
    items = []
    for row in rows:
        gt = (row.get("target_gt") or {}).get("DOI")
        true = None if gt is None else tuple([gt] if isinstance(gt, str) else gt)
        test = (row.get("target_test") or {}).get("DOI")
        score = row.get("score")
        if score is not None and score < SBMV_THRESHOLD:
            test = None
        items.append(Item(str(row.get("ref_string") or ""), true, test))
    return items


@dataclass(frozen=True, slots=True)
class Links:
    correct: int
    predicted: int
    true: int
    wrong: int
    """Predicted, the string has a true DOI, and the prediction is not it."""
    extra: int
    """Predicted for a string whose true DOI is null."""
    missing: int
    """No prediction for a string that has a true DOI."""

    @property
    def precision(self) -> float:
        return self.correct / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.true if self.true else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def links(pairs: Sequence[tuple[tuple[str, ...] | None, str | None]]) -> Links:
    """``LinkMetricsResults`` of the evaluation, for (true DOIs, predicted DOI) pairs.

    correct = predicted and equal (normalised) to a true DOI; precision = correct / strings
    with a prediction (a prediction for a string whose true DOI is null counts against it);
    recall = correct / strings with a true DOI (a string whose true DOI is null counts in
    neither numerator nor denominator of recall); F1 their harmonic mean.  An empty
    denominator gives 1.0, as ``safe_div(..., 1.)`` does there.
    """
    correct = predicted = true = wrong = extra = missing = 0
    for truth, guess in pairs:
        guess = doi_normalise(guess)
        wanted = {doi_normalise(t) for t in truth} if truth is not None else None
        predicted += guess is not None
        true += wanted is not None
        if guess is not None and wanted is not None:
            if guess in wanted:
                correct += 1
            else:
                wrong += 1
        elif guess is not None:
            extra += 1
        elif wanted is not None:
            missing += 1
    return Links(correct, predicted, true, wrong, extra, missing)


def wald(successes: int, count: int) -> tuple[float, float]:
    """The 95% interval the evaluation gives (statsmodels ``proportion_confint``, normal)."""
    if not count:
        return (math.nan, math.nan)
    p = successes / count
    half = 1.959964 * math.sqrt(p * (1 - p) / count)
    return (max(0.0, p - half), min(1.0, p + half))


def _row(name: str, m: Links | tuple[float, float, float], n: int) -> str:
    if isinstance(m, Links):
        lo_p, hi_p = wald(m.correct, m.predicted)
        lo_r, hi_r = wald(m.correct, m.true)
        p, r, f = m.precision, m.recall, m.f1
        ci = f"  P {100 * lo_p:.1f}-{100 * hi_p:.1f}, R {100 * lo_r:.1f}-{100 * hi_r:.1f}"
    else:
        (p, r, f), ci = m, ""
    return f"  {name:<38} {100 * p:6.1f} {100 * r:6.1f} {100 * f:6.1f}  {n:>6,}{ci}"


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@contextmanager
def _environment(**values: str | None) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    try:
        for k, v in values.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def accuracy(args: argparse.Namespace) -> int:
    """Part 1; returns the exit status it asks for (0 or 2)."""
    print("== accuracy: Crossref's 2,000 real reference strings (SBMV comparison) ==")
    needed = bool(args.live or args.replay)
    if args.dataset is None or not args.dataset.is_file():
        where = f"{args.dataset} does not exist; " if args.dataset is not None else ""
        if needed:
            print(
                f"bench_refs: {where}--dataset FILE is needed: download\n  {DATASET_URL}",
                file=sys.stderr,
            )
            return 2
        if where:
            print(f"  {where}download\n  {DATASET_URL}")
        items: list[Item] = []
    else:
        raw = args.dataset.read_bytes()
        try:
            items = load_dataset(args.dataset)
        except (ValueError, AttributeError, TypeError) as exc:
            print(
                f"bench_refs: {args.dataset} is not an evaluation dataset ({exc}); download\n"
                f"  {DATASET_URL}",
                file=sys.stderr,
            )
            return 2
        pinned = _blob_id(raw) == DATASET_BLOB
        print(
            f"  dataset: {args.dataset} ({len(items)} strings, "
            + ("the pinned file)" if pinned else f"NOT the pinned file, blob {_blob_id(raw)})")
        )
        if args.limit and args.limit < len(items):
            chosen = sorted(random.Random(args.seed).sample(range(len(items)), args.limit))
            items = [items[i] for i in chosen]
            print(f"  a sample of {len(items)} strings (--limit {args.limit}, --seed {args.seed})")
    if items and not needed:
        # The file's own SBMV links, scored here: checks these measures against the
        # published ones (the same numbers on the whole pinned file).
        print(f"\n  {'':<38} {'P %':>6} {'R %':>6} {'F1 %':>6}  {'n':>6}  95% intervals")
        print(_row("SBMV, the file's links", links([(i.true, i.sbmv) for i in items]), len(items)))
        print(_row("SBMV published", SBMV_PUBLISHED, 2000))
    if not needed:
        print(
            "  citeproof's accuracy: skipped, it cannot be measured offline. It needs the\n"
            "  services' answers, --live (add --record DIR to keep them) or --replay DIR (a\n"
            f"  recorded run), and --dataset FILE, a local copy of\n  {DATASET_URL}"
        )
        return 0
    try:
        from citeproof.refs.listed import parse_reference_string
        from citeproof.service.references import verify_stated
    except ImportError as exc:
        print(f"bench_refs: cannot import the reference verification ({exc})", file=sys.stderr)
        return 2

    stated = [
        parse_reference_string(i.ref_string, where=f"entry {n}") for n, i in enumerate(items, 1)
    ]
    done = [0]

    def progress(result: ReferenceResult) -> None:
        done[0] += 1
        if done[0] % 100 == 0 or done[0] == len(stated):
            print(f"  ... {done[0]}/{len(stated)} verified", file=sys.stderr, flush=True)

    mode = f"replayed from {args.replay}" if args.replay else "live"
    if args.record:
        mode += f", recorded into {args.record}"
    print(f"  answers: {mode}; load average {load_avg()}")
    if args.live and not os.environ.get("CITEPROOF_CONTACT"):
        print("  (CITEPROOF_CONTACT is not set: Crossref and OpenAlex get no contact address)")
    from citeproof.errors import CiteproofError

    recording = {"CITEPROOF_RECORD": str(args.record.resolve())} if args.record else {}
    t0 = time.perf_counter()
    # A throw-away home: the run pins every answer, and must not fill the user's cache.
    with tempfile.TemporaryDirectory() as home, _environment(CITEPROOF_HOME=home, **recording):
        try:
            report = verify_stated(
                stated, replay=args.replay, retraction=False, concurrency=8, on_result=progress
            )
        except CiteproofError as exc:
            print(f"bench_refs: the verification stopped: {exc}", file=sys.stderr)
            return 2
    seconds = time.perf_counter() - t0
    results = sorted(report.references, key=lambda r: r.index)
    predicted = [
        r.work.doi if r.verdict == "verified" and r.work is not None else None for r in results
    ]
    ours = links([(i.true, p) for i, p in zip(items, predicted, strict=True)])
    theirs = links([(i.true, i.sbmv) for i in items])
    verdicts = Counter(r.verdict for r in results)
    no_doi = sum(1 for r in results if r.verdict == "verified" and r.work and not r.work.doi)
    print(f"  {len(results)} strings in {seconds:.0f} s; load average {load_avg()}")
    print("  verdicts: " + ", ".join(f"{v} {c}" for v, c in verdicts.most_common()))
    if no_doi:
        print(f"  ({no_doi} verified works have no DOI, so they predict nothing)")
    if verdicts["unavailable"]:
        why = "requests nobody recorded" if args.replay else "services that could not be read"
        print(f"  ({verdicts['unavailable']} unavailable: {why}; they predict nothing)")
    print(f"\n  {'':<38} {'P %':>6} {'R %':>6} {'F1 %':>6}  {'n':>6}  95% intervals")
    print(_row("citeproof (this run)", ours, len(items)))
    print(_row("SBMV, the file's links, same strings", theirs, len(items)))
    print(_row("SBMV published", SBMV_PUBLISHED, 2000))
    print(
        f"\n  citeproof: {ours.correct} correct of {ours.predicted} predicted links, "
        f"{ours.true} true links; {ours.wrong} to the wrong work, {ours.extra} for strings "
        f"without a true DOI, {ours.missing} missing"
    )
    print(
        f"  SBMV:      {theirs.correct} correct of {theirs.predicted}, {theirs.wrong} wrong, "
        f"{theirs.extra} extra, {theirs.missing} missing"
    )
    if args.json_out:
        rows = [
            {
                "ref_string": i.ref_string,
                "true": i.true,
                "sbmv": i.sbmv,
                "predicted": p,
                "verdict": r.verdict,
                "reason": r.reason,
            }
            for i, p, r in zip(items, predicted, results, strict=True)
        ]
        args.json_out.write_text(json.dumps(rows, indent=1, ensure_ascii=False), "utf-8")
        print(f"  every string's result: {args.json_out}")
    return 0


# =========================================================================== speed


@dataclass(frozen=True, slots=True)
class Pass:
    results: list[ReferenceResult]
    per_call: dict[int, float]
    """Seconds of each ``verify_reference`` call, by the reference's 1-based index."""
    total: float
    calls: int
    unexpected: list[str]
    pinning: float
    """Seconds in the pinning hook (hash every answer, pin it in the cache)."""
    serving: float
    """Seconds in the in-memory handler (looking the invented answer up)."""
    sent: dict[int, list[str]]
    """The host of every request sent while each reference was verified, by its 1-based
    index (exact at concurrency 1, where one reference is verified at a time)."""


async def _verify_pass(
    stated: Sequence[StatedReference],
    answers: Any,
    concurrency: int,
    cache_path: Path,
    limiter: Any = None,
    hosts: Counter[str] | None = None,
) -> Pass:
    import httpx2

    import citeproof.refs.verification as verify
    from citeproof.net.client import make_client
    from citeproof.net.ratelimit import RateLimiter
    from citeproof.refs.pinning import Pinner
    from citeproof.store.cache import Cache

    class NoWait(RateLimiter):
        def reserve(self, key: str, interval: float) -> float:
            return 0.0

    per_call: dict[int, float] = {}
    sent: dict[int, list[str]] = {}
    wire: list[str] = []
    original = verify.verify_reference

    async def timed(
        client: httpx2.AsyncClient, ref: StatedReference, index: int, **k: Any
    ) -> ReferenceResult:
        t0 = time.perf_counter()
        before = len(wire)
        try:
            return await original(client, ref, index, **k)
        finally:
            per_call[index] = time.perf_counter() - t0
            sent[index] = wire[before:]

    spent = {"pinning": 0.0, "serving": 0.0}

    def handle(request: httpx2.Request) -> httpx2.Response:
        wire.append(request.url.host)
        if hosts is not None:
            hosts[_pool(request.url)[0]] += 1
        t0 = time.perf_counter()
        try:
            return answers.handle(request)  # type: ignore[no-any-return]
        finally:
            spent["serving"] += time.perf_counter() - t0

    calls_before = answers.calls
    with Cache(cache_path) as cache:
        pinner = Pinner(cache)

        async def hook(response: httpx2.Response) -> None:
            t0 = time.perf_counter()
            try:
                await pinner.hook(response)
            finally:
                spent["pinning"] += time.perf_counter() - t0

        client = make_client(
            transport=httpx2.MockTransport(handle),
            limiter=limiter if limiter is not None else NoWait(),
            attempts=1,
            contact="",
        )
        async with client:
            hooks = client.event_hooks
            client.event_hooks = {**hooks, "response": [*hooks.get("response", []), hook]}
            verify.verify_reference = timed  # type: ignore[assignment]
            try:
                t0 = time.perf_counter()
                results = await verify.verify_all(
                    client, stated, retraction=None, concurrency=concurrency
                )
                total = time.perf_counter() - t0
            finally:
                verify.verify_reference = original
    return Pass(
        results,
        per_call,
        total,
        answers.calls - calls_before,
        list(answers.unexpected),
        spent["pinning"],
        spent["serving"],
        sent,
    )


def speed(args: argparse.Namespace) -> tuple[bool, bool]:
    """Parts 2 and 3: whether the speed target is met (or not judged), and whether the
    requests-per-reference targets are."""
    import refs_fixtures as fx

    try:
        from citeproof.refs.listed import parse_reference_string
    except ImportError as exc:
        print(f"bench_refs: cannot import citeproof.refs.listed ({exc})", file=sys.stderr)
        raise SystemExit(2) from None
    count = args.refs or (50 if args.quick else 400)
    rounds = 1 if args.quick else max(1, args.rounds)
    warm = 25
    print("\n== speed: local work per reference, every service answered in memory ==")
    print(f"  load average at the start {load_avg()}")
    works = fx.catalogue(max(200, count + warm))
    answers = fx.Answers(works)
    warmup = fx.references(works, warm, first=count)
    refs = fx.references(works, count)
    parse_ms: list[list[float]] = [[] for _ in refs]
    verify_ms: list[list[float]] = [[] for _ in refs]
    passes: list[Pass] = []
    with tempfile.TemporaryDirectory() as tmp:
        warm_stated = [parse_reference_string(r.text) for r in warmup]
        first = asyncio.run(_verify_pass(warm_stated[:1], answers, 1, Path(tmp) / "w0.sqlite3"))
        asyncio.run(_verify_pass(warm_stated[1:], answers, 1, Path(tmp) / "w1.sqlite3"))
        for r in range(rounds):
            stated = []
            for i, ref in enumerate(refs):
                t0 = time.perf_counter()
                stated.append(parse_reference_string(ref.text, where=f"entry {i + 1}"))
                parse_ms[i].append(1e3 * (time.perf_counter() - t0))
            one = asyncio.run(_verify_pass(stated, answers, 1, Path(tmp) / f"c1-{r}.sqlite3"))
            for i in range(count):
                verify_ms[i].append(1e3 * one.per_call[i + 1])
            passes.append(one)
        eight = asyncio.run(_verify_pass(stated, answers, 8, Path(tmp) / "c8.sqlite3"))

    one = passes[0]
    by_index = {r.index - 1: r for r in one.results}
    judged = [
        statistics.median(p + v for p, v in zip(ps, vs, strict=True))
        for ps, vs in zip(parse_ms, verify_ms, strict=True)
    ]
    median = statistics.median(judged)
    print(
        f"  {count} references, the six kinds in the order of refs_fixtures.MIX, {rounds} "
        "round(s) each (a reference's time is the median of its rounds); retraction off; pins "
        "written to a throw-away cache"
    )
    print(
        f"\n  {'kind':<22} {'verdicts (expected first)':<30} {'req/ref':>7} "
        f"{'med ms':>7} {'p95 ms':>7}"
    )
    off_path = 0
    for kind in fx.KINDS:
        idx = [i for i, r in enumerate(refs) if r.kind == kind]
        got: Counter[str] = Counter(by_index[i].verdict for i in idx)
        expected = refs[idx[0]].expected
        off_path += len(idx) - got[expected]
        shown = ", ".join(
            f"{v} {c}" for v, c in sorted(got.items(), key=lambda t: t[0] != expected)
        )
        requests = statistics.median(len(one.sent[i + 1]) for i in idx)
        ms = [judged[i] for i in idx]
        print(
            f"  {kind:<22} {shown:<30} {requests:7.1f} {statistics.median(ms):7.2f} "
            f"{percentile(ms, 95):7.2f}"
        )
    print(f"\n  ({one.calls} requests answered by the in-memory transport per round)")
    parse_med = [statistics.median(p) for p in parse_ms]
    verify_med = [statistics.median(v) for v in verify_ms]
    print(
        f"  parse_reference_string           median {statistics.median(parse_med):6.3f} ms, "
        f"p95 {percentile(parse_med, 95):6.3f} ms"
    )
    print(
        f"  verify_reference (concurrency 1) median {statistics.median(verify_med):6.3f} ms, "
        f"p95 {percentile(verify_med, 95):6.3f} ms"
    )
    print(
        f"  parse + verify_reference         median {median:6.3f} ms, "
        f"p95 {percentile(judged, 95):6.3f} ms, max {max(judged):.3f} ms"
    )
    pinning = statistics.mean(p.pinning for p in passes) / count
    serving = statistics.mean(p.serving for p in passes) / count
    print(
        f"    of which, per reference on average: the pinning hook (sha256, SQLite pin) "
        f"{1e3 * pinning:.3f} ms, the in-memory answers {1e3 * serving:.3f} ms"
    )
    total_one = statistics.median(p.total for p in passes)
    print(
        f"  verify_all total / N: concurrency 1 {1e3 * total_one / count:.3f} ms, "
        f"concurrency 8 {1e3 * eight.total / count:.3f} ms"
    )
    print(
        f"  first reference of the process (warm-up, a DOI that matches): "
        f"{1e3 * first.per_call[1]:.1f} ms"
    )
    if one.unexpected:
        print(
            f"  WARNING: {len(one.unexpected)} requests had no invented answer, e.g. "
            f"{one.unexpected[0]}"
        )
    if off_path:
        print(
            f"  NOTE: {off_path} references got another verdict than their kind expects, "
            "so they took another path than the one named"
        )
    met = median <= TARGET_MS
    judged_note = "not judged (--quick)" if args.quick else ("PASS" if met else "FAIL")
    print(
        f"\n  target: parse + verify per reference, median <= {TARGET_MS:g} ms: "
        f"{median:.3f} ms  {judged_note}"
    )
    print(f"  load average at the end {load_avg()}")
    return met or args.quick, requests_per_reference(refs, one)


#: Each host's service, as the requests-per-reference table names it.
_SERVICES = {
    "api.crossref.org": "Crossref",
    "doi.org": "doi.org",
    "api.datacite.org": "DataCite",
    "eutils.ncbi.nlm.nih.gov": "PubMed",
    "pmc.ncbi.nlm.nih.gov": "PMC ID converter",
    "api.openalex.org": "OpenAlex",
}
#: The most requests a median reference of each group may cost (issue 22).
REQUEST_TARGETS = {"with a DOI": 1.0, "with a PMID": 1.0, "without an identifier": 2.0}


def requests_per_reference(refs: Sequence[Any], one: Pass) -> bool:
    """Part 3: what each reference cost the services, by kind and by what the entry states;
    True when every group's median meets :data:`REQUEST_TARGETS`."""
    import refs_fixtures as fx

    sent = [[_SERVICES.get(h, h) for h in one.sent[i + 1]] for i in range(len(refs))]
    services = sorted({s for hosts in sent for s in hosts})
    print("\n== requests per reference: every request sent while it was verified ==")
    print(f"  load average {load_avg()}")
    width = max(len(s) for s in services) if services else 8
    head = "".join(f" {s:>{max(width, 8)}}" for s in services)
    print(f"\n  {'':<24} {'n':>4} {'median':>6} {'mean':>5} {'max':>4}   mean by service:{head}")

    def row(name: str, idx: list[int]) -> float:
        counts = [len(sent[i]) for i in idx]
        by = Counter(s for i in idx for s in sent[i])
        cells = "".join(f" {by[s] / len(idx):>{max(width, 8)}.2f}" for s in services)
        median = statistics.median(counts)
        print(
            f"  {name:<24} {len(idx):>4} {median:>6g} {statistics.mean(counts):>5.2f} "
            f"{max(counts):>4}   {'':<16}{cells}"
        )
        return median

    for kind in fx.KINDS:
        row(kind, [i for i, r in enumerate(refs) if r.kind == kind])
    print()
    met = True
    verdicts = []
    for group, target in REQUEST_TARGETS.items():
        median = row(group, [i for i, r in enumerate(refs) if fx.GROUPS[r.kind] == group])
        ok = median <= target
        met &= ok
        verdicts.append(f"{group} {median:g} <= {target:g} {'PASS' if ok else 'FAIL'}")
    row("all", list(range(len(refs))))
    print("\n  target, the median per group (fabrications included): " + "; ".join(verdicts))
    return met


def _pool(url: Any) -> tuple[str, float]:
    """The budget a request draws on and its fixed pace: Crossref's single records and lists
    are two since issue 22 (``Service.pool``), every other service one per host (as all were
    before, which this reads too)."""
    from citeproof.net.ratelimit import service_for

    service = service_for(url)
    pool = getattr(service, "pool", None)
    if pool is None:
        return service.key, service.interval()
    key = pool(url)
    return key, service.interval(listing=key != service.key)


def rates(args: argparse.Namespace) -> None:
    """Part 4: many references under the real per-service rate limits (answers in memory).

    The floor is the busiest service's requests over its rate; asking the services one after
    another would take the sum over services.  A wall time near the floor means requests to
    different services overlap while each service keeps its own pace.  Crossref's lists and
    single records are counted apart: each has its own pace.
    """
    import refs_fixtures as fx
    from citeproof.net.ratelimit import RateLimiter
    from citeproof.refs.listed import parse_reference_string

    count = args.rate_refs
    if count <= 0:
        return
    print(f"\n== rate limits: {count} references, each service at its own rate ==")
    print(f"  load average at the start {load_avg()}")
    works = fx.catalogue(max(200, count))
    stated = [parse_reference_string(r.text) for r in fx.references(works, count)]
    hosts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        done = asyncio.run(
            _verify_pass(
                stated, fx.Answers(works), 8, Path(tmp) / "r.sqlite3", RateLimiter(), hosts
            )
        )
    pace = {h: _pool(f"https://{h.replace('#lists', '/works')}")[1] for h in hosts}
    need = {h: n * pace[h] for h, n in hosts.items()}
    floor, serial = max(need.values()), sum(need.values())
    for host, n in sorted(hosts.items()):
        interval = pace[host]
        rate = f"{1 / interval:5.2f}/s" if interval else "no limit"
        print(f"  {host:<28} {n:5d} requests at {rate}: {need[host]:6.2f} s at least")
    print(
        f"  wall {done.total:.2f} s; floor (the busiest service) {floor:.2f} s; one service "
        f"after another {serial:.2f} s"
    )
    print(f"  load average at the end {load_avg()}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Benchmark citeproof refs: accuracy next to Crossref's SBMV figures on\n"
        "2,000 real reference strings, and the local work per reference.",
        epilog=f"--dataset FILE is a local copy of this file, at the pinned commit:\n"
        f"  {DATASET_URL}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--dataset",
        type=Path,
        metavar="FILE",
        help=f"the evaluation dataset ({Path(DATASET_PATH).name}, downloaded; see below)",
    )
    parser.add_argument("--live", action="store_true", help="ask the real services (accuracy)")
    parser.add_argument(
        "--record",
        type=Path,
        metavar="DIR",
        help="with --live: write every answer into DIR, for --replay",
    )
    parser.add_argument(
        "--replay", type=Path, metavar="DIR", help="answer the accuracy run from recorded responses"
    )
    parser.add_argument("--limit", type=int, default=0, metavar="N", help="a sample of N strings")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default 0)")
    parser.add_argument(
        "--json-out", type=Path, metavar="FILE", help="write every string's result here"
    )
    parser.add_argument(
        "--refs",
        type=int,
        default=0,
        metavar="N",
        help="references in the speed run (default 400; --quick 50)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        metavar="R",
        help="timed rounds of the speed run (default 3; --quick 1)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="a small speed run; timings printed, not judged"
    )
    parser.add_argument("--skip-speed", action="store_true", help="the accuracy part only")
    parser.add_argument(
        "--rate-refs",
        type=int,
        default=100,
        metavar="N",
        help="references verified under the real rate limits (default 100; 0 skips)",
    )
    args = parser.parse_args(argv)
    if args.live and args.replay:
        parser.error("--live and --replay exclude each other")
    if args.record and not args.live:
        parser.error("--record needs --live")
    sys.path.insert(0, str(REPO / "bench"))
    print(
        f"bench_refs: Python {platform.python_version()}, {platform.system()}, "
        f"{os.cpu_count()} cores, load average {load_avg()}"
    )
    status = accuracy(args)
    if not args.skip_speed:
        fast, cheap = speed(args)
        if not (fast and cheap):
            status = status or 1
    if not args.skip_speed:
        rates(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
