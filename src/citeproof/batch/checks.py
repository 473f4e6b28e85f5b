"""Checking quotes by the thousand: JSONL in, JSONL out, one source read once, on many cores.

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
* **Order.**  Results are yielded in input order (``ordered=True``) or as tasks finish.

A line that is not a valid check, a quote that is empty or too long, and a source that
cannot be read all give that line its own record; nothing stops the batch.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from citeproof.batch.lines import BatchItem, LineError

if TYPE_CHECKING:
    from citeproof.documents.model import Document, Origin
    from citeproof.loading.pins import FetchFailure
    from citeproof.match.types import MatchOptions

__all__ = ["CHUNK_LINES", "Options", "Outcome", "Task", "run", "run_task", "run_tasks"]

CHUNK_LINES: Final = 2000
#: Identifier sources fetched at once (each host's rate limit still spaces the requests).
FETCH_THREADS: Final = 8

Executor = Literal["local", "dask"]


@dataclass(frozen=True, slots=True)
class Options:
    """Matcher options, as plain values so they pickle to any worker."""

    near_threshold: float = 0.90
    max_gap: int = 3000
    profile: str = "t1"

    def match(self) -> MatchOptions:
        from citeproof.service import match_options

        return match_options(self.near_threshold, self.max_gap, self.profile)


@dataclass(frozen=True, slots=True)
class Task:
    """Every check of one source in one chunk, with the source's bytes."""

    data: bytes
    name: str | None
    origin: Origin
    options: Options
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


def _outcome(
    line: int,
    record: dict[str, Any],
    payload: dict[str, Any] | None = None,
    verdict: str | None = None,
) -> Outcome:
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    return Outcome(line, text, payload, verdict)


# ---------------------------------------------------------------------------------- workers

def _document(task: Task) -> Document:
    """The task's source, parsed once per worker process (see :mod:`citeproof.loading.memo`)."""
    from citeproof.loading.memo import parsed

    if task.origin.sha256 is None:
        from citeproof.documents import parse

        return parse(task.data, name=task.name).with_origin(task.origin)
    return parsed(task.origin.sha256, task.data, task.name).with_origin(task.origin)


def run_task(task: Task) -> list[Outcome]:
    """Check every quote of ``task`` against its source: the function workers run."""
    from citeproof.errors import CiteproofError
    from citeproof.evidence.payloads import check_payload
    from citeproof.service import check_document

    options = task.options.match()
    try:
        document = _document(task)
    except CiteproofError as err:
        return [
            _outcome(line, _error(line, item_id, "unreadable_source", str(err)))
            for line, item_id, _, _ in task.items
        ]
    outcomes = []
    for line, item_id, quote, claim in task.items:
        try:
            result = check_document(quote, document, options)
        except CiteproofError as err:
            outcomes.append(_outcome(line, _error(line, item_id, "bad_quote", str(err))))
            continue
        record = {"id": item_id, **result.model_dump(mode="json")}
        payload = check_payload(result, options, claim=claim) if task.with_payload else None
        outcomes.append(_outcome(line, record, payload, result.verdict))
    return outcomes


def run_tasks(tasks: list[Task]) -> list[Outcome]:
    """Several tasks in one call: fewer, larger units for a scheduler to move around."""
    return [outcome for task in tasks for outcome in run_task(task)]


def _error(line: int, item_id: str | int, code: str, message: str) -> dict[str, Any]:
    return LineError(line, code, message, item_id).record()


# ---------------------------------------------------------------------------------- sources


@dataclass(slots=True)
class _Source:
    """A source of the chunk: its bytes and origin, or why there are none."""

    data: bytes | None = None
    name: str | None = None
    origin: Origin | None = None
    failure: FetchFailure | None = None
    error: str | None = None


def _read_source(source: str, offline: bool, replay: str | None) -> _Source:
    """Read a file or fetch an identifier (pinning it), in this process."""
    from citeproof import service
    from citeproof.documents.model import Origin
    from citeproof.errors import CiteproofError
    from citeproof.identifiers import looks_like_identifier, parse_identifier
    from citeproof.loading.pins import FetchFailure, pinned_bytes

    try:
        path = Path(source)
        if not path.exists() and looks_like_identifier(source):
            found = pinned_bytes(
                parse_identifier(source),
                offline=offline,
                replay_dir=Path(replay) if replay is not None else None,
            )
            if isinstance(found, FetchFailure):
                return _Source(failure=found)
            data, origin = found
            return _Source(data=data, origin=origin)
        data = service.read_bytes(source)
        import hashlib

        digest = hashlib.sha256(data).hexdigest()
        origin = Origin(input=source, coverage="file", served_by="file", sha256=digest)
        return _Source(data=data, name=path.name, origin=origin)
    except CiteproofError as err:
        return _Source(error=str(err))


def _fetch_all(
    sources: Iterable[str], offline: bool, replay: str | None
) -> dict[str, _Source]:
    names = list(dict.fromkeys(sources))
    if len(names) <= 1:
        return {name: _read_source(name, offline, replay) for name in names}
    with ThreadPoolExecutor(max_workers=min(FETCH_THREADS, len(names))) as pool:
        futures = {name: pool.submit(_read_source, name, offline, replay) for name in names}
        return {name: future.result() for name, future in futures.items()}


def _failed_outcomes(
    source: _Source, items: list[BatchItem], options: Options, with_payload: bool
) -> list[Outcome]:
    """Every check of a source that could not be read: a verdict, or an error record."""
    from citeproof.evidence.payloads import check_payload
    from citeproof.service.results import failure_result

    outcomes = []
    for item in items:
        if source.failure is None:
            message = source.error or "the source could not be read"
            outcomes.append(
                _outcome(item.line, _error(item.line, item.id, "bad_source", message))
            )
            continue
        result = failure_result(item.quote, source.failure, options.match())
        payload = check_payload(result, options.match(), claim=item.claim) if with_payload else None
        record = {"id": item.id, **result.model_dump(mode="json")}
        outcomes.append(_outcome(item.line, record, payload, result.verdict))
    return outcomes


# ---------------------------------------------------------------------------------- executors


class _Runner:
    """Runs tasks on local worker processes, on a Dask cluster, or inline (one worker)."""

    def __init__(self, executor: Executor, workers: int, scheduler: str | None) -> None:
        self.executor = executor
        self.workers = workers
        self._pool: Any = None
        self._client: Any = None
        if executor == "dask":
            from distributed import Client, LocalCluster

            if scheduler is not None:
                self._client = Client(scheduler)
            else:
                cluster = LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True,
                    dashboard_address=None,
                )
                self._client = Client(cluster)
        elif workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)

    def submit(self, tasks: list[Task]) -> Future[list[Outcome]] | Any:
        if self._client is not None:
            return self._client.submit(run_tasks, tasks, pure=False)
        if self._pool is not None:
            return self._pool.submit(run_tasks, tasks)
        done: Future[list[Outcome]] = Future()
        done.set_result(run_tasks(tasks))
        return done

    def as_completed(self, futures: list[Any]) -> Iterator[Any]:
        if self._client is not None:
            from distributed import as_completed

            yield from as_completed(futures)
            return
        from concurrent.futures import as_completed as local_completed

        yield from local_completed(futures)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
        if self._client is not None:
            cluster = self._client.cluster
            self._client.close()
            if cluster is not None:
                cluster.close()


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


@dataclass(slots=True)
class _Chunk:
    outcomes: dict[int, Outcome] = field(default_factory=dict)


def _run_chunk(
    chunk: list[BatchItem | LineError],
    runner: _Runner,
    options: Options,
    *,
    offline: bool,
    replay: str | None,
    with_payload: bool,
    ordered: bool,
) -> Iterator[Outcome]:
    errors = [_outcome(e.line, e.record()) for e in chunk if isinstance(e, LineError)]
    groups: dict[str, list[BatchItem]] = {}
    for entry in chunk:
        if isinstance(entry, BatchItem):
            groups.setdefault(entry.source, []).append(entry)
    sources = _fetch_all(groups, offline, replay)
    ready: list[Outcome] = list(errors)
    tasks = []
    for name, items in groups.items():
        source = sources[name]
        if source.data is None or source.origin is None:
            ready.extend(_failed_outcomes(source, items, options, with_payload))
            continue
        task = Task(
            data=source.data,
            name=source.name,
            origin=source.origin,
            options=options,
            items=tuple((i.line, i.id, i.quote, i.claim) for i in items),
            with_payload=with_payload,
        )
        tasks.append(task)
    futures = [runner.submit(bundle) for bundle in _bundles(tasks, runner.workers * 2)]
    if not ordered:
        yield from ready
        for future in runner.as_completed(futures):
            yield from future.result()
        return
    everything = {o.line: o for o in ready}
    for future in runner.as_completed(futures):
        for outcome in future.result():
            everything[outcome.line] = outcome
    for line in sorted(everything):
        yield everything[line]


def run(
    items: Iterable[dict[str, Any]] | Iterable[BatchItem | LineError],
    *,
    options: Options | None = None,
    executor: Executor = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    ordered: bool = True,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    with_payload: bool = False,
    skip: Iterable[str] = (),
    chunk_lines: int = CHUNK_LINES,
) -> Iterator[Outcome]:
    """Check every item; yields one :class:`Outcome` per item, in input order by default.

    ``items`` are dicts ``{id?, quote, source, claim?}`` (checked by the same rules as a
    JSONL line) or already parsed lines.  ``skip`` holds ids (as ``json.dumps`` of the id)
    whose results exist already (``--resume``).  ``with_payload`` adds each check's
    evidence-log payload, for the caller to append in batches.
    """
    import json

    from citeproof.batch.lines import parse_items

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
    count = workers if workers is not None else (os.cpu_count() or 1)
    runner = _Runner(executor, max(1, count), scheduler)
    try:
        for chunk in _chunks(stream, chunk_lines):
            yield from _run_chunk(
                chunk,
                runner,
                options or Options(),
                offline=offline,
                replay=os.fspath(replay) if replay is not None else None,
                with_payload=with_payload,
                ordered=ordered,
            )
    finally:
        runner.close()


def _output_id(entry: BatchItem | LineError) -> str | int:
    """The id the entry's output record carries (the line number when it has none)."""
    return entry.id if entry.id is not None else entry.line


def _prepend(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest
