"""Many reference lists, or a JSONL of references, verified as one batch.

``citeproof refs a.bib b.pdf refs.jsonl -o out.jsonl`` reads every file (a ``.jsonl`` file
holds one reference per line: a string, or an object with ``reference`` (a string) or CSL-JSON
fields, and an optional ``id``), gives each reference an id (the line's ``id``, else
``FILE#N``), skips the ids ``--resume`` finds in the output, and verifies the rest.

Where they run:

* ``local`` (the default): in this process, :data:`~citeproof.refs.verification.CONCURRENCY`
  references at a time (``--workers`` sets how many).  The work is waiting on services, so
  one event loop keeps every service busy within its rate limit, which the process shares.
  With a local index the work is CPU instead (a search, the scoring), and one process
  keeps one core busy: the references go in chunks of :data:`WORKER_CHUNK` to worker
  processes (``--workers`` of them, else as many as the work and the idle cores can use:
  :func:`~citeproof.batch.executors.choose_workers`), each of which opens the index and
  the pin cache once for the whole run.  Online, each worker keeps ``1/workers`` of every
  service's rate, as Dask workers do, for what the index does not hold.
* ``dask``: chunks of :data:`CHUNK` references on a Dask cluster.  Each worker process has
  its own limiter, so each runs at ``1/workers`` of every service's rate: the cluster as a
  whole keeps the pace one process would.

Result lines and evidence-log lines are written in this process, as results arrive.  With
``keep=False`` (``--output``: the lines are the result) a result is dropped once written, so
memory does not grow with the number of references verified, only with the references read.

A run shares one :class:`~citeproof.refs.verification.Reachability` over its slices: when no
service can be reached, it stops asking, the references not asked are counted
(:attr:`RefsOutcome.not_asked`) and not written, so ``--resume`` asks them later, and the
report still holds each of them as ``unavailable``.

A JSONL file of references is read line by line under batch's strict rules
(:func:`citeproof.batch.jsonl.decode_line`: UTF-8, JSON, at most 1 MiB and 32 levels a
line), and a line they refuse is one ``ReferenceListError`` naming the file and the line;
so is a line that is no reference: an object whose ``reference`` is not text, or that has
neither ``reference`` nor a CSL-JSON field (``{}``), a number, a list, an empty string.

A file none of whose entries names anything to look up (only names, years, citation keys,
``doi:10.``) is refused too (:func:`~citeproof.service.references.check_something_to_look_up`),
and what reading found wrong with a list (numbers it skips or uses twice, text of a PDF's
list not read as entries) goes into the report's ``reading``, one line per problem, naming
the file.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from itertools import islice
from multiprocessing.util import Finalize
from typing import Any

from citeproof.batch.executors import (
    REFS_MODULES,
    Executor,
    IdleCores,
    Runner,
    choose_workers,
    parents_place,
)
from citeproof.batch.jsonl import InvalidLineError, decode_line, read_lines
from citeproof.errors import ReferenceListError
from citeproof.models.references import ReferenceResult, ReferencesReport
from citeproof.refs.csl import csl_problem
from citeproof.refs.formats import Format
from citeproof.refs.stated import StatedReference
from citeproof.refs.verification import Reachability, counts_of, not_asked, was_asked
from citeproof.service.logbook import EvidenceLog, open_log
from citeproof.service.references import (
    REFERENCE_KIND,
    Verifier,
    check_something_to_look_up,
    index_path,
    read_list_file,
    reading_lines,
    stated_reference,
)

__all__ = [
    "CHUNK",
    "INDEX_SECONDS",
    "MAX_RUN",
    "WORKER_CHUNK",
    "Job",
    "RefsOptions",
    "RefsOutcome",
    "earlier_counts",
    "read_jobs",
    "run_refs",
]

#: References per Dask task: big enough to amortise a task, small enough to spread.
CHUNK = 25
#: References per call in this process (``verify_stated`` takes at most 10,000 at once).
LOCAL_SLICE = 1_000
#: References per chunk sent to a local worker process: a chunk costs its worker an event
#: loop and a client (about a millisecond), and the parent waits for a whole chunk before
#: writing it, so progress moves in steps of this many.
WORKER_CHUNK = 100
#: Chunks in flight per local worker: one being verified, one waiting, so no worker waits
#: for the parent, and no more results are held than the output's order needs.
WORKER_AHEAD = 2
#: Estimated CPU seconds a reference costs when a local index answers it (4 to 4.5 ms at
#: 10 million records, bench/README.md), from which the number of workers is chosen.
INDEX_SECONDS = 0.004
#: References in flight in each worker's event loop (the index answers at once; online,
#: what it does not hold waits on the services).
_IN_FLIGHT = 8

#: References one run reads at most: each read reference is kept until the run ends (about
#: 1.4 KB), and a file of a million six-byte entries must not take gigabytes.
MAX_RUN = 250_000


@dataclass(frozen=True, slots=True)
class Job:
    """One reference to verify, with the id its output line carries."""

    id: str
    source: str
    index: int
    stated: StatedReference


@dataclass(frozen=True, slots=True)
class RefsOptions:
    offline: bool = False
    replay: str | None = None
    retraction: bool = True
    log: bool | str = False
    executor: Executor = "local"
    workers: int | None = None
    scheduler: str | None = None
    index: str | None = None
    """A local index (its folder), asked before the web services; each worker opens it."""


@dataclass(slots=True)
class RefsOutcome:
    """What :func:`run_refs` leaves besides its report: the references it did not ask
    because no service could be reached (not written, so ``--resume`` asks them)."""

    not_asked: int = 0
    reach: Reachability | None = None


_ONE_PER_LINE = (
    'give one reference per line, as a string or {"reference": "..."} or a CSL-JSON object.'
)


def _jsonl_jobs(path: str) -> Iterator[Job]:
    with open(path, "rb") as fh:
        for number, raw in enumerate(read_lines(fh), 1):
            if not raw.strip():
                continue
            try:
                value: Any = decode_line(raw)
            except InvalidLineError as problem:
                raise ReferenceListError(
                    f"{path}, line {number}: {problem}; {_ONE_PER_LINE}"
                ) from None
            ident = f"{path}#{number}"
            if isinstance(value, dict):
                ident = str(value.pop("id", ident))
                if "reference" in value:
                    value = value["reference"]
                    if not isinstance(value, str):
                        raise ReferenceListError(
                            f'{path}, line {number}: "reference" is {_a(value)}, not the '
                            f"reference's text; {_ONE_PER_LINE}"
                        )
                elif (unread := csl_problem(value)) is not None:
                    raise ReferenceListError(
                        f"{path}, line {number}: the object is no reference: it has no "
                        f'"reference" and {unread}; {_ONE_PER_LINE}'
                    )
            try:
                stated = stated_reference(value, number)
            except ReferenceListError as err:
                raise ReferenceListError(f"{path}, line {number}: {err}") from None
            yield Job(ident, path, number, stated)


def _a(value: object) -> str:
    """ "a number", "null", "an object": what a JSON value is, in words."""
    if value is None:
        return "null"
    names = {bool: "a boolean", dict: "an object", list: "an array", str: "a string"}
    return names.get(type(value), "a number")


def read_jobs(
    paths: Sequence[str], fmt: Format | None = None, *, reading: list[str] | None = None
) -> tuple[list[Job], dict[str, str]]:
    """Every reference of every file, in order, and the format each file was read as;
    ``reading``, when given, gets one line for each thing reading a file found wrong with
    it (the report's ``reading``).

    At most :data:`MAX_RUN` references in all: a longer list is refused (one line, exit 2)
    as soon as reading passes the cap, before anything is asked.
    """
    jobs: list[Job] = []
    formats: dict[str, str] = {}
    for path in paths:
        left = MAX_RUN - len(jobs)
        if path.endswith(".jsonl") and fmt is None:
            found = list(islice(_jsonl_jobs(path), left + 1))
            formats[path] = "jsonl"
        else:
            read = read_list_file(path, fmt, limit=left)
            formats[path] = read.format
            found = [Job(f"{path}#{i}", path, i, s) for i, s in enumerate(read.references, 1)]
            if reading is not None:
                reading.extend(reading_lines(path, read.problems))
        if len(found) > left:
            raise ReferenceListError(
                f"{'the files hold' if len(paths) > 1 else f'{path} holds'} more than "
                f"{MAX_RUN:,} references; citeproof refs verifies at most {MAX_RUN:,} in one "
                "run: split the list, and give each part its own -o FILE."
            )
        if formats[path] == "jsonl":
            check_something_to_look_up([job.stated for job in found], path)
        jobs.extend(found)
    seen: set[str] = set()
    for job in jobs:
        if job.id in seen:
            raise ReferenceListError(f"the id {job.id!r} is given twice; ids must be unique.")
        seen.add(job.id)
    return jobs, formats


_held: tuple[tuple[Any, ...], Verifier] | None = None
_held_lock = threading.Lock()
#: A worker's own reachability over the run (a worker process serves one run).
_worker_reach = Reachability()


def _verifier(options: RefsOptions, share: float, today: date) -> Verifier:
    """The worker's verifier for this run's options: the cache and the index opened at its
    first chunk and kept for the next ones (a Dask worker may serve several runs: other
    options, another day, open another)."""
    global _held
    key = (options.offline, options.replay, options.retraction, options.index, share, today)
    with _held_lock:
        if _held is not None and _held[0] == key:
            return _held[1]
        if _held is not None:
            _held[1].close()
            _held = None
        verifier = Verifier(
            offline=options.offline,
            replay=options.replay,
            retraction=options.retraction,
            index=options.index,
            rate_share=share,
            today=today,
        )
        Finalize(verifier, verifier.close, exitpriority=10)  # as the worker process ends
        _held = (key, verifier)
        return verifier


def _verify_chunk(
    refs: list[StatedReference], options: RefsOptions, share: float, today: date
) -> list[ReferenceResult]:
    """A Dask task: verify ``refs`` (no log: the parent writes it)."""
    return _verifier(options, share, today).verify(refs)


def _verify_part(
    refs: list[StatedReference], options: RefsOptions, share: float, today: date
) -> tuple[list[ReferenceResult], bool]:
    """A local worker's chunk: its results, and whether the worker has stopped asking the
    services because none could be reached."""
    verifier = _verifier(options, share, today)
    results = verifier.verify(refs, concurrency=_IN_FLIGHT, reach=_worker_reach)
    return results, _worker_reach.gave_up


def _tagged(job: Job, result: ReferenceResult) -> ReferenceResult:
    return result.model_copy(update={"index": job.index, "source": job.source})


#: Results the evidence log is written for at once, at most; and the longest a result waits
#: for the others of its group (so progress and an interrupted run's output stay current).
_GROUP = 100
_GROUP_SECONDS = 0.2


class _InOrder:
    """Results put back in the input's order, then logged and handed on in groups.

    Why groups: an evidence-log append is a write and an fsync, and one a reference cost
    0.5 ms of CPU and milliseconds of waiting, more than a search of the index; the results
    a worker's chunk makes ready are logged with one append.  The entries are the same, in
    the same order, as one append each.
    """

    def __init__(
        self,
        todo: Sequence[Job],
        log: EvidenceLog | None,
        keep: bool,
        outcome: RefsOutcome,
        on_result: Callable[[str, ReferenceResult], None] | None,
        on_not_asked: Callable[[str, ReferenceResult], None] | None,
    ) -> None:
        self.todo = todo
        self.log = log
        self.keep = keep
        self.outcome = outcome
        self.on_result = on_result
        self.on_not_asked = on_not_asked
        self.results: dict[str, ReferenceResult] = {}
        self.tally: Counter[str] = Counter()
        self._position = {id(job): n for n, job in enumerate(todo)}
        self._waiting: dict[int, ReferenceResult] = {}
        self._next = 0
        self._added = 0
        self._flushed = time.monotonic()

    def add(self, job: Job, result: ReferenceResult) -> None:
        self._waiting[self._position[id(job)]] = _tagged(job, result)
        self._added += 1

    def add_soon(self, job: Job, result: ReferenceResult) -> None:
        """:meth:`add`, flushing when a group is full or its first result has waited long
        enough (results arriving one by one, in this process)."""
        self.add(job, result)
        if self._added >= _GROUP or time.monotonic() - self._flushed >= _GROUP_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Log and hand on every result whose turn has come."""
        ready: list[tuple[Job, ReferenceResult]] = []
        while self._next in self._waiting:
            ready.append((self.todo[self._next], self._waiting.pop(self._next)))
            self._next += 1
        self._added = 0
        self._flushed = time.monotonic()
        logged: Iterator[Any] = iter(())
        if self.log is not None:
            payloads = [(REFERENCE_KIND, r.log_payload()) for _j, r in ready if was_asked(r)]
            logged = iter(self.log.append_many(payloads))
        for job, result in ready:
            self._hand_on(job, result, logged)

    def _hand_on(self, job: Job, result: ReferenceResult, logged: Iterator[Any]) -> None:
        self.tally[result.verdict] += 1
        self.tally["retracted"] += result.retracted
        if not was_asked(result):
            if self.keep:
                self.results[job.id] = result
            self.outcome.not_asked += 1
            if self.on_not_asked is not None:
                self.on_not_asked(job.id, result)
            return
        if self.log is not None:
            result = result.model_copy(update={"log_seq": next(logged).seq})
        if self.keep:
            self.results[job.id] = result
        if self.on_result is not None:
            self.on_result(job.id, result)


def run_refs(
    jobs: Sequence[Job],
    options: RefsOptions,
    *,
    skip: Iterable[str] = (),
    on_result: Callable[[str, ReferenceResult], None] | None = None,
    keep: bool = True,
    outcome: RefsOutcome | None = None,
    on_not_asked: Callable[[str, ReferenceResult], None] | None = None,
    reading: Sequence[str] = (),
    idle: Callable[[], float] | None = None,
) -> ReferencesReport:
    """Verify every job not in ``skip``; ``on_result(id, result)`` for each, in input order.
    ``reading`` is what reading the files found wrong (:func:`read_jobs`), for the report.

    Results are written (and logged) in the input's order, whatever order they finish in,
    so the output and the log are the same on every executor and every run.  A reference
    not asked because no service could be reached is neither logged nor handed to
    ``on_result`` but to ``on_not_asked``, in the same order; ``outcome`` counts them.
    Without ``keep`` the report holds the counts only: the caller has had each result.
    ``idle`` says how many cores other processes leave idle
    (:class:`~citeproof.batch.executors.IdleCores`, best made before the input was read),
    when the number of local workers is chosen from the work.
    """
    options = replace(options, index=index_path(options.index))
    done = set(skip)
    todo = [j for j in jobs if json.dumps(j.id) not in done]
    log = open_log(None if options.log is True else options.log) if options.log else None
    outcome = outcome if outcome is not None else RefsOutcome()
    reach = outcome.reach = outcome.reach or Reachability()
    out = _InOrder(todo, log, keep, outcome, on_result, on_not_asked)
    if options.executor == "dask":
        _on_dask(todo, options, out)
    else:
        _on_local(todo, options, out, reach, idle)
    results = out.results
    ordered = [results[j.id] for j in todo if j.id in results]
    sources = {j.source for j in jobs}
    return ReferencesReport(
        source=next(iter(sources)) if len(sources) == 1 else None,
        references=ordered,
        counts=counts_of(out.tally),
        offline=options.offline,
        reading=list(reading),
    )


def _local_workers(count: int, options: RefsOptions, idle: Callable[[], float] | None) -> int:
    """Worker processes for ``count`` references: one (this process) without an index, where
    ``--workers`` is the references in flight; with one, ``--workers``, else as many as the
    work and the idle cores can use."""
    if options.index is None:
        return 1
    if options.workers is not None:
        return options.workers
    cores = os.cpu_count() or 1
    return choose_workers(count * INDEX_SECONDS, cores=cores, idle=idle or IdleCores(cores))


def _on_local(
    todo: Sequence[Job],
    options: RefsOptions,
    out: _InOrder,
    reach: Reachability,
    idle: Callable[[], float] | None,
) -> None:
    workers = _local_workers(len(todo), options, idle)
    if workers > 1 and todo:
        _on_processes(todo, options, out, reach, workers)
        return
    pending = dict(enumerate(todo, 1))

    def arrived(result: ReferenceResult) -> None:
        out.add_soon(pending.pop(result.index), result)

    in_flight = _IN_FLIGHT if options.index is not None else options.workers or _IN_FLIGHT
    verifier = Verifier(
        offline=options.offline,
        replay=options.replay,
        retraction=options.retraction,
        index=options.index,
    )
    try:
        # In slices, so a JSONL of any length stays under one call's cap and its memory.
        for first in range(0, len(todo), LOCAL_SLICE):
            part = todo[first : first + LOCAL_SLICE]
            if reach.gave_up:  # nothing can be reached: the rest is not asked
                for n, job in enumerate(part, first + 1):
                    out.add(pending.pop(n), not_asked(job.stated, n))
                out.flush()
                continue
            verifier.verify(
                [j.stated for j in part],
                concurrency=in_flight,
                on_result=arrived,
                start=first + 1,
                reach=reach,
            )
            out.flush()
    finally:
        verifier.close()


def _on_processes(
    todo: Sequence[Job], options: RefsOptions, out: _InOrder, reach: Reachability, workers: int
) -> None:
    """Chunks of :data:`WORKER_CHUNK` references on ``workers`` local processes, each taking
    this process's environment and folder as it starts (the cache and the index are found
    from them), at most :data:`WORKER_AHEAD` chunks a worker in flight."""
    runner = Runner("local", workers, preload=REFS_MODULES, setup=parents_place())
    share = 1.0 if options.offline else 1.0 / workers
    today = datetime.now(UTC).date()
    chunks = iter([todo[i : i + WORKER_CHUNK] for i in range(0, len(todo), WORKER_CHUNK)])
    pending: dict[Future[tuple[list[ReferenceResult], bool]], Sequence[Job]] = {}

    def submit() -> bool:
        chunk = next(chunks, None)
        if chunk is None:
            return False
        if reach.gave_up:  # a worker could reach nothing: the rest is not asked
            for job in chunk:
                out.add(job, not_asked(job.stated, job.index))
            out.flush()
        else:
            stated = [j.stated for j in chunk]
            pending[runner.submit(_verify_part, stated, options, share, today)] = chunk
        return True

    ended = False
    try:
        while len(pending) < workers * WORKER_AHEAD and submit():
            pass
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:  # put back in the input's order by ``out``
                chunk = pending.pop(future)
                results, gave_up = future.result()
                reach.gave_up = reach.gave_up or gave_up
                for job, result in zip(chunk, results, strict=True):
                    out.add(job, result)
            out.flush()
            while len(pending) < workers * WORKER_AHEAD and submit():
                pass
        ended = True
    finally:
        runner.close(abandon=not ended)  # given up midway (Ctrl-C): stop the workers now


def _on_dask(todo: Sequence[Job], options: RefsOptions, out: _InOrder) -> None:
    workers = options.workers or os.cpu_count() or 1
    runner = Runner("dask", workers, options.scheduler)
    today = datetime.now(UTC).date()
    try:
        futures = []
        chunks: dict[int, list[Job]] = {}
        for start in range(0, len(todo), CHUNK):
            chunk = list(todo[start : start + CHUNK])
            future = runner.submit(
                _verify_chunk, [j.stated for j in chunk], options, 1.0 / workers, today
            )
            chunks[id(future)] = chunk
            futures.append(future)
        for future in runner.as_completed(futures):
            chunk = chunks[id(future)]
            for job, result in zip(chunk, future.result(), strict=True):
                out.add(job, result)
            out.flush()
    finally:
        runner.close()


def earlier_counts(path: str) -> Counter[str]:
    """The verdicts (and ``retracted``) of the result lines already in ``path``, so that a
    resumed run exits as the uninterrupted run would have.  A line that is not a result was
    refused by ``--resume`` before this is asked."""
    counts: Counter[str] = Counter()
    if not os.path.exists(path):
        return counts
    with open(path, "rb") as fh:
        for raw in fh:
            try:
                line = json.loads(raw)
            except ValueError:
                continue  # the torn last line --resume cut off
            if isinstance(line, dict) and isinstance(line.get("verdict"), str):
                counts[line["verdict"]] += 1
                counts["retracted"] += line.get("retracted") is True
    return counts
