"""Checking quotes by the thousand: JSONL in, JSONL out, one source read once, on many cores.

A batch is the check pipeline (:mod:`citeproof.service.pipeline`) cut where the work is: the
sources are loaded and pinned in this process, the match step runs on workers, and the steps
after it run here: :meth:`~citeproof.service.pipeline.Pipeline.after_match` (retraction,
find-source) per result, then the evidence log, for a whole group in one append.  One
:class:`~citeproof.service.pipeline.CheckOptions` chooses them, as for any check.

How a batch runs, and why:

* **Chunks.**  The input is read in chunks of lines (``CHUNK_LINES``), never whole, so memory
  does not grow with the input.  Chunks overlap: the next is read and handed to the workers
  before the one before it is written (:data:`AHEAD` in flight beside the one being
  written), so the workers are not idle while this process reads and writes, and a worker
  that finished its share of a chunk goes on with the next instead of waiting for the
  slowest.  Fewer are read ahead when their sources' bytes would pass
  :data:`IN_FLIGHT_BYTES`, so large sources do not multiply this process's memory.
* **Grouped by source.**  Within a chunk, the checks of one source become one *task*: the
  source is fetched (identifiers, concurrently, within the per-host rate limits; the bytes
  are pinned in the cache as for any check) or read (files) once in this process, and its
  bytes travel with the task.  Shipping bytes rather than paths makes a task self-contained,
  so a Dask worker on another machine, with no access to this cache or these files, runs it
  the same way.
* **Each source on the worker that has it.**  Parsing a source is the expensive part of its
  first check, and each worker keeps what it parsed (:mod:`citeproof.loading.memo`), so a
  :class:`Router` gives every source a home worker, kept from chunk to chunk, and sends each
  worker its share of a chunk in :data:`BUNDLES` bundles: the tasks of its sources.  The
  bytes of a source go with its tasks until its worker has returned one that brought them;
  after that the task names them by hash, and a worker that no longer holds them (its memo
  let them go) says so and is sent them again.  A source with more checks than a worker's
  share of the chunk is split over several workers, so one source does not leave the other
  workers idle.
* **CPU on workers.**  Parsing and matching run in worker processes (``executor="local"``)
  or on a Dask cluster (``executor="dask"``), the same bundles either way: few, large tasks
  per chunk, so a scheduler's cost per task does not count.  A worker turns each result
  into its JSON line, and its evidence payload, from the plain result
  (:mod:`citeproof.models.plain`), the same bytes as the model's without building it; so
  neither this process nor a worker imports pydantic, unless the steps after the match
  (retraction, find-source) are asked, which make the model in this process.
* **The log.**  With ``options.log``, each worker makes the evidence payloads where the
  results are, and a chunk's lines are appended in one locked append, in input order, before
  its results are handed out (with ``ordered=False``, each bundle's as it finishes), so every
  result line names its evidence line (``log_seq``) and the log's order does not depend on
  which worker was faster.
* **Workers from the work.**  Unless the caller says how many, the number of local workers is
  chosen from the work (:func:`~citeproof.batch.executors.choose_workers`), estimated before
  any check runs from the lines read ahead (:data:`LOOKAHEAD` at most) and their distinct
  sources (:func:`estimated_work`), and from the cores nobody else is using meanwhile: a
  small batch, or one on a busy machine, runs in this process, where workers would cost more
  to start than they win.
* **Order.**  Results are yielded in input order (``ordered=True``) or as bundles finish.
  In input order a chunk's results come out only once the whole chunk is done, so a caller
  that shows progress is told how many lines are finished as each worker returns them
  (``on_done``), not only when they are yielded.  Which worker ran a check never shows in
  its result: the output is the same, byte for byte, for any executor and worker count.

A line that is not a valid check, a quote that is empty or too long, and a source that
cannot be read all give that line its own record; nothing stops the batch.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

from citeproof.batch.executors import (
    MATCH_MODULES,
    WORK_PER_WORKER,
    Executor,
    IdleCores,
    Runner,
    choose_workers,
)
from citeproof.batch.jsonl import BatchItem, LineError, parse_items
from citeproof.documents import parse
from citeproof.documents.model import Document, Origin
from citeproof.errors import CiteproofError
from citeproof.loading.failure import FetchFailure
from citeproof.loading.load import SourceBytes
from citeproof.loading.memo import parsed, peek, recall
from citeproof.models import plain
from citeproof.service.pipeline import CheckOptions, Pipeline

if TYPE_CHECKING:
    from citeproof.evidence.log import EvidenceLog
    from citeproof.models import CheckResult

__all__ = [
    "AHEAD",
    "CHUNK_LINES",
    "FETCH_THREADS",
    "LOOKAHEAD",
    "Executor",
    "Options",
    "Outcome",
    "Router",
    "Task",
    "estimated_work",
    "run",
    "run_task",
    "run_tasks",
]

CHUNK_LINES: Final = 2000
#: Chunks handed to the workers beyond the one being written: enough that no worker waits
#: for this process or for another worker's share, few enough to bound memory.
AHEAD: Final = 2
#: Source bytes the chunks in flight may hold before fewer are read ahead (large sources).
IN_FLIGHT_BYTES: Final = 256 * 1024 * 1024
#: How far a worker's measured speed must move before its share of a chunk follows.
SPEED_STEP: Final = 0.1
#: Bundles each worker is sent per chunk: its first results (and the progress they show) come
#: back before its whole share is done, at one more round trip a chunk.
BUNDLES: Final = 2
#: Identifier sources fetched at once (each host's rate limit still spaces the requests).
FETCH_THREADS: Final = 8
#: Sources whose home worker (and which workers hold their document) are remembered: more
#: than any worker's memo holds, and a bound on this process's memory whatever the input.
REMEMBERED: Final = 65_536

#: What the work of a batch is estimated from (measured, docs/batch.md): CPU seconds of one
#: check on a worker (the matcher is indexed, so it hardly grows with the document: 40-250
#: microseconds in documents of 4,000 to 43,000 characters, 77 for the bench's checks with
#: their results made), and of parsing a source, by its size (PDFs 0.05-0.19 ms a kB, text
#: and HTML less); an identifier's source is counted as :data:`FETCHED_KB` before it is read.
CHECK_SECONDS: Final = 80e-6
PARSE_SECONDS_PER_KB: Final = 0.2e-3
FETCHED_KB: Final = 100
#: Lines read ahead, at most, to estimate the work before the number of workers is chosen;
#: a batch longer than that has work enough for every core.
LOOKAHEAD: Final = 20_000

#: The options of every check of a batch (the name the batch API has always used).
Options = CheckOptions


@dataclass(frozen=True, slots=True)
class Task:
    """Every check of one source in one chunk (or a share of them), with the source's bytes,
    or without them (``data`` None) when this task's worker was sent them before."""

    data: bytes | None
    name: str | None
    origin: Origin
    options: CheckOptions
    items: tuple[tuple[int, str | int, str, str | None], ...]
    """(line, id, quote, claim) per check."""
    with_payload: bool = False


@dataclass(slots=True)
class Outcome:
    """One output line, with what the evidence log needs (``payload``, when asked).

    ``text`` is the record as its JSON line (without the newline): workers serialise it, so
    what crosses the process boundary is one string, and the writer writes it as it is.
    ``matched`` is the match step's result while the steps after the match are still to run
    in the batch's own process (retraction, find-source: asked only from the library); it is
    gone by the time the outcome is handed out.
    """

    line: int
    text: str
    payload: dict[str, Any] | None = None
    verdict: str | None = None
    matched: plain.CheckResult | None = None

    @property
    def record(self) -> dict[str, Any]:
        """The record as a dict (parsed on demand)."""
        value: dict[str, Any] = json.loads(self.text)
        return value

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its fields: a slotted dataclass's own way takes six times as long to
        # read back, and this process reads every outcome the workers return.
        return (Outcome, (self.line, self.text, self.payload, self.verdict, self.matched))


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _error(line: int, item_id: str | int, code: str, message: str) -> Outcome:
    return Outcome(line, _dumps(LineError(line, code, message, item_id).record()))


def _line(
    pipeline: Pipeline,
    line: int,
    item_id: str | int,
    result: CheckResult | plain.CheckResult,
    claim: str | None,
    with_payload: bool,
) -> Outcome:
    """A finished result as its output line, and its evidence payload when asked.  A plain
    result (``models.plain``) is written without building the model: its JSON, and its
    payload, are the model's, byte for byte."""
    if isinstance(result, plain.CheckResult):
        fields: dict[str, Any] = plain.to_json(result)
    else:
        fields = result.model_dump(mode="json")
    payload = pipeline.log_payload(result, claim=claim) if with_payload else None
    return Outcome(line, _dumps({"id": item_id, **fields}), payload, result.verdict)


def _matched(
    pipeline: Pipeline,
    line: int,
    item_id: str | int,
    quote: str,
    claim: str | None,
    loaded: Document | FetchFailure,
    with_payload: bool,
) -> Outcome:
    """The match step for one quote: its output line, unless the steps after the match are
    still to run, in the batch's process (:func:`_after_match`), which then writes it."""
    result = pipeline.match_plain(quote, loaded)
    if pipeline.asks_after_match:
        return Outcome(line, "", None, result.verdict, result)
    return _line(pipeline, line, item_id, result, claim, with_payload)


# ---------------------------------------------------------------------------------- workers


class _SourceNotHeldError(Exception):
    """The task named its source by hash, and this worker no longer holds it."""


def _document(task: Task) -> Document:
    """The task's source, parsed once per worker process (see :mod:`citeproof.loading.memo`)."""
    sha256 = task.origin.sha256
    if task.data is None:
        held = recall(sha256, task.name) if sha256 is not None else None
        if held is None:
            raise _SourceNotHeldError
        return held.with_origin(task.origin)
    if sha256 is None:
        return parse(task.data, name=task.name).with_origin(task.origin)
    return parsed(sha256, task.data, task.name).with_origin(task.origin)


def run_task(task: Task) -> list[Outcome]:
    """The match step for every quote of ``task``: the function workers run.

    A task sent without its bytes whose document this process does not hold is an error
    (a batch sends such tasks only to the worker it sent the bytes to, and resends them)."""
    try:
        return _run(task)
    except _SourceNotHeldError:
        raise CiteproofError("the task names a source this worker was never sent") from None


def _run(task: Task) -> list[Outcome]:
    pipeline = Pipeline(task.options)
    try:
        document = _document(task)
    except CiteproofError as err:
        return [
            _error(line, item_id, "unreadable_source", str(err))
            for line, item_id, _, _ in task.items
        ]
    outcomes = []
    for line, item_id, quote, claim in task.items:
        try:
            outcomes.append(
                _matched(pipeline, line, item_id, quote, claim, document, task.with_payload)
            )
        except CiteproofError as err:
            outcomes.append(_error(line, item_id, "bad_quote", str(err)))
    return outcomes


def run_tasks(tasks: list[Task]) -> list[Outcome]:
    """Several tasks in one call: fewer, larger units for a scheduler to move around."""
    return [outcome for task in tasks for outcome in run_task(task)]


@dataclass(frozen=True, slots=True)
class _Done:
    """What a worker returns for a bundle."""

    outcomes: list[Outcome]
    missing: list[int]
    """Tasks it could not run: they named a source by hash that it no longer holds."""
    kept: list[int]
    """Tasks whose source it holds now (parsed, and small enough for its memo)."""
    seconds: float
    """How long it took, by the worker's clock (how fast it is, for the :class:`Router`)."""


def _run_bundle(tasks: list[Task]) -> _Done:
    """What a batch's worker runs: every task of a bundle it can."""
    started = time.perf_counter()
    outcomes: list[Outcome] = []
    missing: list[int] = []
    kept: list[int] = []
    for n, task in enumerate(tasks):
        try:
            outcomes.extend(_run(task))
        except _SourceNotHeldError:
            missing.append(n)
            continue
        sha256 = task.origin.sha256
        if task.data is not None and sha256 is not None and peek(sha256, task.name) is not None:
            kept.append(n)
    return _Done(outcomes, missing, kept, time.perf_counter() - started)


# ---------------------------------------------------------------------------------- routing


class Router:
    """Which worker runs which source's checks: the same worker, chunk after chunk, so the
    document it parsed for the first chunk is still there for the next.

    Balance comes first: a worker with more than its share of a chunk keeps the others
    waiting at every chunk, while a source parsed by two workers costs one more parse, once.
    A worker's share is in proportion to how fast it has been (checks a second, from the
    bundles it returned: :meth:`observe`; followed once it moved by :data:`SPEED_STEP`), so a
    worker that shares its core, or a slower machine of a cluster, is given less; until
    anything is measured, the shares are even.
    The sources of a chunk are placed largest first, each with its home (the worker it went
    to before; for a new one, the worker with the most room left) while the home has room for
    all its checks; else with a worker that has, which becomes its home; else split, the
    home's room filled first.  The same input and the same measurements give the same routes.
    """

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._home: OrderedDict[str, int] = OrderedDict()
        self._speed: list[float | None] = [None] * self.workers
        self._used: list[float | None] = [None] * self.workers

    def home(self, source: str) -> int | None:
        """The worker ``source`` was last sent to, if it is remembered."""
        return self._home.get(source)

    def observe(self, worker: int, checks: int, seconds: float) -> None:
        """``worker`` ran ``checks`` checks in ``seconds`` (its own clock, start to end)."""
        if checks <= 0 or seconds <= 0:
            return
        speed, before = checks / seconds, self._speed[worker]
        speed = speed if before is None else (before + speed) / 2
        self._speed[worker] = speed
        # The shares follow a worker's speed only when it has moved by more than a tenth:
        # following every wobble of the clock would move sources from worker to worker.
        used = self._used[worker]
        if used is None or abs(speed / used - 1) > SPEED_STEP:
            self._used[worker] = speed

    def shares(self, total: int) -> list[int]:
        """How many of ``total`` checks each worker is to run (adding up to at least all)."""
        known = [s for s in self._used if s is not None]
        usual = sum(known) / len(known) if known else 1.0
        speeds = [s if s is not None else usual for s in self._used]
        return [math.ceil(total * s / sum(speeds)) for s in speeds]

    def route(self, sizes: dict[str, int]) -> dict[str, list[tuple[int, int, int]]]:
        """For each source (with its number of checks in this chunk), the (worker, start,
        stop) shares of its checks, in order."""
        share = self.shares(sum(sizes.values()))
        load = [0] * self.workers

        def roomiest() -> int:
            return max(range(self.workers), key=lambda w: (share[w] - load[w], -w))

        order = sorted(sizes, key=lambda s: -sizes[s])  # largest first; stable for ties
        routes: dict[str, list[tuple[int, int, int]]] = {}
        for source in order:
            size = sizes[source]
            best = roomiest()
            home = self._home.get(source)
            if home is None or (
                load[home] + size > share[home] and load[best] + size <= share[best]
            ):
                home = best
            self._remember(source, home)
            if load[home] + size <= share[home]:
                pieces = [(home, 0, size)]
                load[home] += size
            else:  # split: the home's room first, then whoever has the most
                pieces, start, worker = [], 0, home
                while start < size:
                    room = min(size - start, share[worker] - load[worker])
                    if room > 0:
                        pieces.append((worker, start, start + room))
                        load[worker] += room
                        start += room
                    # Some worker has room while checks are left: the shares add up to all.
                    worker = roomiest()
            routes[source] = pieces
        return routes

    def _remember(self, source: str, worker: int) -> None:
        self._home[source] = worker
        self._home.move_to_end(source)
        if len(self._home) > REMEMBERED:
            self._home.popitem(last=False)


class _Held:
    """Which worker holds which source's document (most recent last, :data:`REMEMBERED` in
    all): a task for that worker then names the bytes by hash instead of carrying them.

    A worker is taken to hold a source once a bundle that carried its bytes there has come
    back, not when it was sent: a Dask worker need not run its tasks in the order they were
    submitted, so a later task naming the bytes could otherwise run before the one that
    brings them.
    """

    def __init__(self) -> None:
        self._keys: OrderedDict[tuple[int, str, str | None], None] = OrderedDict()

    def has(self, worker: int, sha256: str | None, name: str | None) -> bool:
        key = (worker, sha256 or "", name)
        if sha256 is None or key not in self._keys:
            return False
        self._keys.move_to_end(key)
        return True

    def add(self, worker: int, sha256: str | None, name: str | None) -> None:
        if sha256 is None:
            return
        self._keys[(worker, sha256, name)] = None
        self._keys.move_to_end((worker, sha256, name))
        if len(self._keys) > REMEMBERED:
            self._keys.popitem(last=False)

    def drop(self, worker: int, sha256: str | None, name: str | None) -> None:
        self._keys.pop((worker, sha256 or "", name), None)


# ---------------------------------------------------------------------------------- sources


def _load(pipeline: Pipeline, source: str) -> SourceBytes | FetchFailure | str:
    """A file read or an identifier fetched (and pinned) in this process; why not, as text."""
    try:
        return pipeline.load_bytes(source)
    except CiteproofError as err:
        return str(err)


def _load_all(pipeline: Pipeline, sources: Iterable[str]) -> dict[str, Any]:
    """Every source of a chunk, loaded.  Those that name a file are read one after another
    (a thread costs more than reading a file: three times the CPU for a chunk of 100); the
    rest, identifiers fetched over the network, are loaded concurrently.  Either way each is
    loaded by the same rule, :meth:`Pipeline.load_bytes`: only where it runs differs."""
    names = list(dict.fromkeys(sources))
    loaded = {name: _load(pipeline, name) for name in names if os.path.isfile(name)}
    fetched = [name for name in names if name not in loaded]
    if len(fetched) <= 1:
        loaded.update((name, _load(pipeline, name)) for name in fetched)
        return loaded
    with ThreadPoolExecutor(max_workers=min(FETCH_THREADS, len(fetched))) as pool:
        futures = {name: pool.submit(_load, pipeline, name) for name in fetched}
        loaded.update((name, future.result()) for name, future in futures.items())
    return loaded


def _unread(
    pipeline: Pipeline, loaded: FetchFailure | str, items: list[BatchItem], with_payload: bool
) -> list[Outcome]:
    """Every check of a source that could not be read: a verdict, or an error record."""
    if isinstance(loaded, str):
        return [
            _error(i.line, i.id, "bad_source", loaded or "the source could not be read")
            for i in items
        ]
    return [_matched(pipeline, i.line, i.id, i.quote, i.claim, loaded, with_payload) for i in items]


# ---------------------------------------------------------------------------------- steps after


def _after_match(
    pipeline: Pipeline,
    outcomes: list[Outcome],
    items: dict[int, BatchItem],
    with_payload: bool,
) -> list[Outcome]:
    """The pipeline's steps between the match and the log (:meth:`Pipeline.after_match`)
    for the outcomes whose match ran without them; each then made its output line."""
    finished = []
    for outcome in outcomes:
        if outcome.matched is None:
            finished.append(outcome)
            continue
        item = items[outcome.line]
        result = pipeline.after_match(item.quote, outcome.matched)
        finished.append(_line(pipeline, item.line, item.id, result, item.claim, with_payload))
    return finished


def _log(pipeline: Pipeline, outcomes: list[Outcome]) -> None:
    """The evidence lines of ``outcomes``, in their order, in one locked append; each record
    then names its line."""
    if not pipeline.options.log:
        return
    logged = [(x, x.payload) for x in outcomes if x.payload is not None]
    numbers = pipeline.record([payload for _, payload in logged])
    for (outcome, _), seq in zip(logged, numbers, strict=True):
        record = outcome.record
        record["log_seq"] = seq
        outcome.text = _dumps(record)


# ---------------------------------------------------------------------------------- chunks


@dataclass(slots=True)
class _Bundle:
    """One worker's tasks of a chunk, as sent, with what it takes to send them again."""

    worker: int
    tasks: list[Task]
    loaded: list[SourceBytes]
    future: Any = None


@dataclass(slots=True)
class _Chunk:
    """A chunk on its way: the lines already answered here, and the workers' bundles."""

    ready: list[Outcome]
    items: dict[int, BatchItem]
    """The chunk's checks by line, for the steps after the match."""
    bundles: list[_Bundle] = field(default_factory=list)
    nbytes: int = 0
    """The bytes of its sources, which this process holds until the chunk is written."""


@dataclass(slots=True)
class _Batch:
    """What every chunk of one batch shares."""

    runner: Runner
    pipeline: Pipeline
    router: Router
    held: _Held
    payloads: bool
    with_payload: bool
    on_done: Callable[[int], None]

    def task(self, worker: int, loaded: SourceBytes, items: list[BatchItem]) -> Task:
        """The task for ``worker``: with the bytes unless that worker was sent them before."""
        held = self.held.has(worker, loaded.origin.sha256, loaded.name)
        return Task(
            data=None if held else loaded.data,
            name=loaded.name,
            origin=loaded.origin,
            options=self.pipeline.options,
            items=tuple((i.line, i.id, i.quote, i.claim) for i in items),
            with_payload=self.payloads,
        )

    def send(self, bundle: _Bundle) -> None:
        bundle.future = self.runner.submit(_run_bundle, bundle.tasks, worker=bundle.worker)


def _chunks(parsed: Iterable[BatchItem | LineError], size: int) -> Iterator[list[Any]]:
    chunk: list[BatchItem | LineError] = []
    for entry in parsed:
        chunk.append(entry)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _start_chunk(chunk: list[BatchItem | LineError], batch: _Batch) -> _Chunk:
    """Load the chunk's sources, answer here what needs no worker, send the rest."""
    pipeline = batch.pipeline
    ready = [Outcome(e.line, _dumps(e.record())) for e in chunk if isinstance(e, LineError)]
    groups: dict[str, list[BatchItem]] = {}
    for entry in chunk:
        if isinstance(entry, BatchItem):
            groups.setdefault(entry.source, []).append(entry)
    checks = {i.line: i for items in groups.values() for i in items}
    sources = _load_all(pipeline, groups)
    readable: dict[str, int] = {}
    for name, items in groups.items():
        loaded = sources[name]
        if isinstance(loaded, SourceBytes):
            readable[name] = len(items)
            continue
        ready.extend(
            _after_match(
                pipeline, _unread(pipeline, loaded, items, batch.payloads), checks, batch.payloads
            )
        )
    started = _Chunk(ready, checks)
    started.nbytes = sum(len(sources[name].data) for name in readable)
    shares: dict[int, list[tuple[SourceBytes, list[BatchItem]]]] = {}
    for name, pieces in batch.router.route(readable).items():
        for worker, start, stop in pieces:
            shares.setdefault(worker, []).append((sources[name], groups[name][start:stop]))
    for worker in sorted(shares):
        for part in _halves(shares[worker]):
            bundle = _Bundle(
                worker, [batch.task(worker, s, i) for s, i in part], [s for s, _ in part]
            )
            batch.send(bundle)
            started.bundles.append(bundle)
    if ready:
        batch.on_done(len(ready))
    return started


def _halves(share: list[tuple[SourceBytes, list[BatchItem]]]) -> list[list[Any]]:
    """A worker's share of a chunk in :data:`BUNDLES` bundles of about equal checks (whole
    tasks each): its first results come back, and show as progress, before it is all done."""
    total = sum(len(items) for _, items in share)
    parts: list[list[Any]] = [[]]
    done = 0
    for piece in share:
        if parts[-1] and len(parts) < BUNDLES and done >= total * len(parts) / BUNDLES:
            parts.append([])
        parts[-1].append(piece)
        done += len(piece[1])
    return parts


def _resend(batch: _Batch, bundle: _Bundle, missing: list[int]) -> _Bundle:
    """The tasks a worker could not run (it no longer holds their source), with the bytes."""
    again = _Bundle(bundle.worker, [], [])
    for n in missing:
        task, loaded = bundle.tasks[n], bundle.loaded[n]
        batch.held.drop(bundle.worker, loaded.origin.sha256, loaded.name)
        again.tasks.append(replace(task, data=loaded.data))
        again.loaded.append(loaded)
    batch.send(again)
    return again


def _finished(chunk: _Chunk, batch: _Batch) -> Iterator[list[Outcome]]:
    """Each bundle's outcomes, after the steps that follow the match, as bundles finish."""
    waiting = {id(b.future): b for b in chunk.bundles}
    while waiting:
        futures = [b.future for b in waiting.values()]
        for future in batch.runner.as_completed(futures):
            bundle = waiting.pop(id(future))
            done: _Done = future.result()
            batch.router.observe(bundle.worker, len(done.outcomes), done.seconds)
            for n in done.kept:
                loaded = bundle.loaded[n]
                batch.held.add(bundle.worker, loaded.origin.sha256, loaded.name)
            missing, outcomes = done.missing, done.outcomes
            if missing:
                again = _resend(batch, bundle, missing)
                waiting[id(again.future)] = again
            outcomes = _after_match(batch.pipeline, outcomes, chunk.items, batch.payloads)
            if outcomes:
                batch.on_done(len(outcomes))
                yield outcomes
        # Bundles sent again are waited for in the next round.


def _finish_chunk(chunk: _Chunk, batch: _Batch, *, ordered: bool) -> Iterator[Outcome]:
    """The chunk's outcomes, each logged before it is yielded: in input order, the whole
    chunk in one append (so the log is in input order too, whichever worker ran what);
    unordered, each bundle as it finishes."""
    pipeline, with_payload = batch.pipeline, batch.with_payload
    if not ordered:
        _log(pipeline, chunk.ready)
        yield from (_strip(o, with_payload) for o in chunk.ready)
        for outcomes in _finished(chunk, batch):
            _log(pipeline, outcomes)
            yield from (_strip(o, with_payload) for o in outcomes)
        return
    everything = {o.line: o for o in chunk.ready}
    for outcomes in _finished(chunk, batch):
        everything.update((o.line, o) for o in outcomes)
    in_order = [everything[line] for line in sorted(everything)]
    _log(pipeline, in_order)
    for outcome in in_order:
        yield _strip(outcome, with_payload)


def _strip(outcome: Outcome, with_payload: bool) -> Outcome:
    """The payload stays on an outcome only for a caller that asked for it."""
    return outcome if with_payload or outcome.payload is None else replace(outcome, payload=None)


def run(
    items: Iterable[dict[str, Any]] | Iterable[BatchItem | LineError],
    *,
    options: CheckOptions | None = None,
    executor: Executor = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    ordered: bool = True,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    with_payload: bool = False,
    skip: Iterable[str] = (),
    chunk_lines: int = CHUNK_LINES,
    log: EvidenceLog | None = None,
    on_done: Callable[[int], None] | None = None,
) -> Generator[Outcome, None, None]:
    """Check every item; yields one :class:`Outcome` per item, in input order by default.

    ``items`` are dicts ``{id?, quote, source, claim?}`` (checked by the same rules as a
    JSONL line) or already parsed lines.  ``options`` choose the steps as for any check
    (``offline`` and ``replay`` add to them); with ``options.log`` every check is recorded
    (in ``log``, else the options' log file) and its record names its line.  ``skip`` holds
    ids (as ``json.dumps`` of the id) whose results exist already (``--resume``).
    ``with_payload`` hands each check's evidence-log payload to the caller too.  ``workers``
    None: local workers as many as the work can use (the module docstring), the cores on Dask.
    ``on_done(n)`` is called as each group of ``n`` lines is finished, before they are
    yielded (a progress bar counts lines as they finish, not as a chunk's ordered results
    come out).  Stopping the iteration early (Ctrl-C) stops the workers at once.
    """
    chosen = options or CheckOptions()
    if offline:
        chosen = chosen.but(offline=True)
    if replay is not None:
        chosen = chosen.but(replay=os.fspath(replay))
    materialised = iter(items)
    first = next(materialised, None)
    if first is None:
        return
    stream: Iterable[Any]
    if isinstance(first, BatchItem | LineError):
        stream = _prepend(first, materialised)
    else:
        stream = parse_items(_prepend(first, materialised))
    skipped = set(skip)
    if skipped:
        stream = (e for e in stream if json.dumps(_output_id(e)) not in skipped)
    pipeline = Pipeline(chosen, log=log)
    if workers is None and executor == "local":
        stream, workers = _workers_for(stream)
    count = workers if workers is not None else (os.cpu_count() or 1)
    runner = Runner(executor, max(1, count), scheduler, preload=MATCH_MODULES, routed=True)
    batch = _Batch(
        runner,
        pipeline,
        Router(runner.workers),
        _Held(),
        payloads=with_payload or chosen.log,
        with_payload=with_payload,
        on_done=on_done or _ignore,
    )
    finished = False
    try:
        # Inline, a chunk is done when it is started: reading ahead would only hold back
        # the output (and what an interrupted batch has written).
        ahead = AHEAD if runner.elsewhere else 0
        in_flight: deque[_Chunk] = deque()
        for chunk in _chunks(stream, chunk_lines):
            in_flight.append(_start_chunk(chunk, batch))
            while len(in_flight) > ahead or (
                len(in_flight) > 1 and sum(c.nbytes for c in in_flight) > IN_FLIGHT_BYTES
            ):
                yield from _finish_chunk(in_flight.popleft(), batch, ordered=ordered)
        while in_flight:
            yield from _finish_chunk(in_flight.popleft(), batch, ordered=ordered)
        finished = True
    finally:
        runner.close(abandon=not finished)


def estimated_work(entries: Iterable[BatchItem | LineError]) -> float:
    """CPU seconds the checks of ``entries`` are estimated to take on workers: each check,
    and each distinct source parsed once (:data:`CHECK_SECONDS`, :data:`PARSE_SECONDS_PER_KB`)."""
    work, seen = 0.0, set[str]()
    for entry in entries:
        work += _work_of(entry, seen)
    return work


def _work_of(entry: BatchItem | LineError, seen: set[str]) -> float:
    if not isinstance(entry, BatchItem):
        return 0.0
    if entry.source in seen:
        return CHECK_SECONDS
    seen.add(entry.source)
    try:
        kb = os.stat(entry.source).st_size / 1024 if os.path.isfile(entry.source) else FETCHED_KB
    except OSError:
        kb = 0.0
    return CHECK_SECONDS + kb * PARSE_SECONDS_PER_KB


def _workers_for(stream: Iterable[Any]) -> tuple[Iterator[Any], int]:
    """The stream again (with the lines read ahead put back) and the number of local workers
    chosen from its work: lines are read until the work would keep every core busy, the
    input ends, or :data:`LOOKAHEAD` lines are read (then it is taken to be enough)."""
    cores = os.cpu_count() or 1
    idle = IdleCores(cores)  # measured while the lines are read ahead
    enough = cores * WORK_PER_WORKER
    rest = iter(stream)
    ahead: list[Any] = []
    work, seen = 0.0, set[str]()
    for entry in rest:
        ahead.append(entry)
        work += _work_of(entry, seen)
        if work >= enough or len(ahead) >= LOOKAHEAD:
            work = max(work, enough)
            break
    return itertools.chain(ahead, rest), choose_workers(work, cores=cores, idle=idle)


def _ignore(count: int) -> None:
    return None


def _output_id(entry: BatchItem | LineError) -> str | int:
    """The id the entry's output record carries (the line number when it has none)."""
    return entry.id if entry.id is not None else entry.line


def _prepend(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest
