"""Checking quotes by the thousand: JSONL in, JSONL out, one source read once, on many cores.

A batch is the check pipeline (:mod:`citeproof.service.pipeline`) cut where the work is: the
sources are loaded and pinned in this process, the match step runs on workers, and the steps
after it (retraction, find-source, the evidence log) run here again, for a whole group at once.
One :class:`~citeproof.service.pipeline.CheckOptions` chooses them, as for any check.

How a batch runs, and why:

* **Chunks.**  The input is read in chunks of lines (``CHUNK_LINES``), never whole, so memory
  does not grow with the input; a chunk is finished and written before the next is read.
* **Grouped by source.**  Within a chunk, the checks of one source become one *task*: the
  source is fetched (identifiers, concurrently, within the per-host rate limits; the bytes
  are pinned in the cache as for any check) or read (files) once in this process, and its
  bytes travel with the task.  Shipping bytes rather than paths makes a task self-contained,
  so a Dask worker on another machine, with no access to this cache or these files, runs it
  the same way.
* **CPU on workers.**  Parsing and matching run in worker processes (``executor="local"``)
  or on a Dask cluster (``executor="dask"``).  A worker keeps the documents it parsed, so a
  source that recurs in later chunks is parsed once per worker.
* **The log.**  With ``options.log``, each worker makes the evidence payloads where the
  results are, and the chunk's lines are appended in one locked append before its results
  are handed out, so every result line names its evidence line (``log_seq``).
* **Order.**  Results are yielded in input order (``ordered=True``) or as tasks finish.
  In input order a chunk's results come out only once the whole chunk is done, so a caller
  that shows progress is told how many lines are finished as each worker returns them
  (``on_done``), not only when they are yielded.

A line that is not a valid check, a quote that is empty or too long, and a source that
cannot be read all give that line its own record; nothing stops the batch.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Final

from citeproof.batch.executors import Executor, Runner
from citeproof.batch.jsonl import BatchItem, LineError, parse_items
from citeproof.documents import parse
from citeproof.documents.model import Document, Origin
from citeproof.errors import CiteproofError
from citeproof.evidence.log import EvidenceLog
from citeproof.loading.failure import FetchFailure
from citeproof.loading.load import SourceBytes
from citeproof.loading.memo import parsed
from citeproof.models import CheckResult
from citeproof.service.pipeline import CheckOptions, Pipeline

__all__ = [
    "CHUNK_LINES",
    "FETCH_THREADS",
    "Executor",
    "Options",
    "Outcome",
    "Task",
    "run",
    "run_task",
    "run_tasks",
]

CHUNK_LINES: Final = 2000
#: Identifier sources fetched at once (each host's rate limit still spaces the requests).
FETCH_THREADS: Final = 8

#: The options of every check of a batch (the name the batch API has always used).
Options = CheckOptions


@dataclass(frozen=True, slots=True)
class Task:
    """Every check of one source in one chunk, with the source's bytes."""

    data: bytes
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
    """

    line: int
    text: str
    payload: dict[str, Any] | None = None
    verdict: str | None = None

    @property
    def record(self) -> dict[str, Any]:
        """The record as a dict (parsed on demand)."""
        value: dict[str, Any] = json.loads(self.text)
        return value


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _error(line: int, item_id: str | int, code: str, message: str) -> Outcome:
    return Outcome(line, _dumps(LineError(line, code, message, item_id).record()))


def _checked(
    pipeline: Pipeline, line: int, item_id: str | int, result: CheckResult, claim: str | None,
    with_payload: bool,
) -> Outcome:  # fmt: skip
    record = {"id": item_id, **result.model_dump(mode="json")}
    payload = pipeline.log_payload(result, claim=claim) if with_payload else None
    return Outcome(line, _dumps(record), payload, result.verdict)


# ---------------------------------------------------------------------------------- workers


def _document(task: Task) -> Document:
    """The task's source, parsed once per worker process (see :mod:`citeproof.loading.memo`)."""
    if task.origin.sha256 is None:
        return parse(task.data, name=task.name).with_origin(task.origin)
    return parsed(task.origin.sha256, task.data, task.name).with_origin(task.origin)


def run_task(task: Task) -> list[Outcome]:
    """The match step for every quote of ``task``: the function workers run."""
    pipeline = Pipeline(task.options)
    try:
        document = _document(task)
    except CiteproofError as err:
        return [_error(line, item_id, "unreadable_source", str(err))
                for line, item_id, _, _ in task.items]  # fmt: skip
    outcomes = []
    for line, item_id, quote, claim in task.items:
        try:
            result = pipeline.match(quote, document)
        except CiteproofError as err:
            outcomes.append(_error(line, item_id, "bad_quote", str(err)))
            continue
        outcomes.append(_checked(pipeline, line, item_id, result, claim, task.with_payload))
    return outcomes


def run_tasks(tasks: list[Task]) -> list[Outcome]:
    """Several tasks in one call: fewer, larger units for a scheduler to move around."""
    return [outcome for task in tasks for outcome in run_task(task)]


# ---------------------------------------------------------------------------------- sources


def _load(pipeline: Pipeline, source: str) -> SourceBytes | FetchFailure | str:
    """A file read or an identifier fetched (and pinned) in this process; why not, as text."""
    try:
        return pipeline.load_bytes(source)
    except CiteproofError as err:
        return str(err)


def _load_all(pipeline: Pipeline, sources: Iterable[str]) -> dict[str, Any]:
    names = list(dict.fromkeys(sources))
    if len(names) <= 1:
        return {name: _load(pipeline, name) for name in names}
    with ThreadPoolExecutor(max_workers=min(FETCH_THREADS, len(names))) as pool:
        futures = {name: pool.submit(_load, pipeline, name) for name in names}
        return {name: future.result() for name, future in futures.items()}


def _unread(
    pipeline: Pipeline, loaded: FetchFailure | str, items: list[BatchItem], with_payload: bool
) -> list[Outcome]:
    """Every check of a source that could not be read: a verdict, or an error record."""
    if isinstance(loaded, str):
        return [_error(i.line, i.id, "bad_source", loaded or "the source could not be read")
                for i in items]  # fmt: skip
    return [
        _checked(pipeline, i.line, i.id, pipeline.match(i.quote, loaded), i.claim, with_payload)
        for i in items
    ]


# ---------------------------------------------------------------------------------- steps after


def _after_match(
    pipeline: Pipeline, outcomes: list[Outcome], quotes: dict[int, tuple[str, str | None]],
    with_payload: bool,
) -> list[Outcome]:  # fmt: skip
    """Retraction, find-source and the log for a group of matched outcomes, as asked."""
    o = pipeline.options
    if o.retraction or o.find_source:
        again = []
        for outcome in outcomes:
            if outcome.verdict is None:
                again.append(outcome)
                continue
            record = outcome.record
            item_id = record.pop("id")
            quote, claim = quotes[outcome.line]
            result = CheckResult.model_validate(record)
            result = pipeline.find_source(quote, pipeline.retraction(result))
            again.append(_checked(pipeline, outcome.line, item_id, result, claim, with_payload))
        outcomes = again
    if not o.log:
        return outcomes
    logged = [(x, x.payload) for x in outcomes if x.payload is not None]
    numbers = pipeline.record([payload for _, payload in logged])
    for (outcome, _), seq in zip(logged, numbers, strict=True):
        record = outcome.record
        record["log_seq"] = seq
        outcome.text = _dumps(record)
    return outcomes


# ---------------------------------------------------------------------------------- chunks


def _bundles(tasks: list[Task], count: int) -> list[list[Task]]:
    """``tasks`` in at most ``count`` bundles of about equal work (checks), largest first.

    One task per source would mean a scheduler round trip per source; a few bundles per
    worker keep every worker busy with far fewer of them.
    """
    bundles: list[list[Task]] = [[] for _ in range(max(1, min(count, len(tasks))))]
    sizes = [0] * len(bundles)
    for task in sorted(tasks, key=lambda t: len(t.items), reverse=True):
        smallest = sizes.index(min(sizes))
        bundles[smallest].append(task)
        sizes[smallest] += len(task.items)
    return [b for b in bundles if b]


def _chunks(parsed: Iterable[BatchItem | LineError], size: int) -> Iterator[list[Any]]:
    chunk: list[BatchItem | LineError] = []
    for entry in parsed:
        chunk.append(entry)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _run_chunk(
    chunk: list[BatchItem | LineError],
    runner: Runner,
    pipeline: Pipeline,
    *,
    with_payload: bool,
    ordered: bool,
    on_done: Callable[[int], None],
) -> Iterator[Outcome]:
    payloads = with_payload or pipeline.options.log
    errors = [Outcome(e.line, _dumps(e.record())) for e in chunk if isinstance(e, LineError)]
    groups: dict[str, list[BatchItem]] = {}
    for entry in chunk:
        if isinstance(entry, BatchItem):
            groups.setdefault(entry.source, []).append(entry)
    quotes = {i.line: (i.quote, i.claim) for items in groups.values() for i in items}
    sources = _load_all(pipeline, groups)
    ready: list[Outcome] = list(errors)
    tasks = []
    for name, items in groups.items():
        loaded = sources[name]
        if not isinstance(loaded, SourceBytes):
            ready.extend(_after_match(pipeline, _unread(pipeline, loaded, items, payloads),
                                      quotes, payloads))  # fmt: skip
            continue
        tasks.append(Task(
            data=loaded.data, name=loaded.name, origin=loaded.origin, options=pipeline.options,
            items=tuple((i.line, i.id, i.quote, i.claim) for i in items), with_payload=payloads,
        ))  # fmt: skip
    futures = [runner.submit(run_tasks, bundle) for bundle in _bundles(tasks, runner.workers * 2)]
    if ready:
        on_done(len(ready))

    def finishing() -> Iterator[list[Outcome]]:
        for future in runner.as_completed(futures):
            outcomes = _after_match(pipeline, future.result(), quotes, payloads)
            on_done(len(outcomes))
            yield outcomes

    finished = finishing()
    if not ordered:
        yield from (_strip(o, with_payload) for o in ready)
        for outcomes in finished:
            yield from (_strip(o, with_payload) for o in outcomes)
        return
    everything = {o.line: o for o in ready}
    for outcomes in finished:
        everything.update((o.line, o) for o in outcomes)
    for line in sorted(everything):
        yield _strip(everything[line], with_payload)


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
    ``with_payload`` hands each check's evidence-log payload to the caller too.
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
    count = workers if workers is not None else (os.cpu_count() or 1)
    runner = Runner(executor, max(1, count), scheduler)
    finished = False
    try:
        for chunk in _chunks(stream, chunk_lines):
            yield from _run_chunk(
                chunk, runner, pipeline, with_payload=with_payload, ordered=ordered,
                on_done=on_done or _ignore,
            )  # fmt: skip
        finished = True
    finally:
        runner.close(abandon=not finished)


def _ignore(count: int) -> None:
    return None


def _output_id(entry: BatchItem | LineError) -> str | int:
    """The id the entry's output record carries (the line number when it has none)."""
    return entry.id if entry.id is not None else entry.line


def _prepend(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest
