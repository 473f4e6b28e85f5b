"""How a batch spreads its checks: every source on the worker that parsed it, chunk after
chunk; its bytes sent to that worker once; the next chunk handed out before this one is
written; and whatever the routes, the same output.

The workers here are stand-ins that run each call at once in this process, each with its own
parse memo, as separate processes would have: what is pinned is what the batch sends where,
which does not depend on where the calls run.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from citeproof.batch import checks
from citeproof.batch.checks import Router, Task
from citeproof.documents.model import Document
from citeproof.loading import memo

WORDS = (
    "walking sleep morning trial participants group control minutes evening latency "
    "quality adults outcome measured week baseline reported faster hours night"
).split()


class StandInWorkers:
    """``workers`` workers that run each call when it is submitted, each with its own parse
    memo; what was sent to whom, and when, is kept in ``sent`` and ``events``."""

    def __init__(
        self,
        workers: int,
        events: list[tuple[str, Any]],
        forget: bool = False,
        pace: list[float] | None = None,
    ) -> None:
        self.workers = workers
        self.elsewhere = True
        self.events = events
        self.forget = forget  # each worker's memo is emptied before every call
        self.pace = pace or [1.0] * workers  # seconds a worker reports per 1,000 checks
        self.memos: list[OrderedDict[tuple[str, str | None], Document]] = [
            OrderedDict() for _ in range(workers)
        ]
        self.sent: list[tuple[int, list[Task]]] = []

    def submit(self, fn: Callable[..., Any], tasks: list[Task], worker: int | None = None) -> Any:
        assert worker is not None and 0 <= worker < self.workers
        self.sent.append((worker, tasks))
        self.events.append(("sent", [line for t in tasks for line, *_ in t.items]))
        if self.forget:
            self.memos[worker].clear()
        saved = memo._MEMO, memo._chars
        memo._MEMO, memo._chars = self.memos[worker], 0
        try:
            result = fn(tasks)
            done: Future[Any] = Future()
            done.set_result(
                replace(result, seconds=self.pace[worker] * len(result.outcomes) / 1000)
            )
        finally:
            memo._MEMO, memo._chars = saved
        return done

    def as_completed(self, futures: list[Any]) -> Iterator[Any]:
        yield from futures

    def close(self, *, abandon: bool = False) -> None:
        return None


def documents(folder: Path, count: int) -> list[tuple[Path, list[str]]]:
    rng = random.Random(count)
    docs = []
    for n in range(count):
        words = [f"s{n}"] + [rng.choice(WORDS) for _ in range(400)]
        path = folder / f"doc{n:02d}.txt"
        path.write_text(" ".join(words), encoding="utf-8")
        docs.append((path, words))
    return docs


def checks_of(docs: list[tuple[Path, list[str]]], count: int) -> list[dict[str, Any]]:
    """``count`` checks over the documents, unevenly (some sources far more often), every
    third with a word changed."""
    rng = random.Random(7)
    rows = []
    for i in range(count):
        path, words = docs[min(int(rng.expovariate(0.25)), len(docs) - 1)]
        at = rng.randrange(0, len(words) - 20)
        quote = words[at : at + 12]
        if i % 3 == 2:
            quote[6] = "zebra"
        rows.append({"id": i, "quote": " ".join(quote), "source": str(path)})
    return rows


def run_on(
    monkeypatch: pytest.MonkeyPatch,
    workers: StandInWorkers,
    rows: list[dict[str, Any]],
    chunk_lines: int,
) -> list[str]:
    with monkeypatch.context() as patch:
        patch.setattr(checks, "Runner", lambda *a, **k: workers)
        out = []
        for outcome in checks.run(rows, workers=workers.workers, chunk_lines=chunk_lines):
            workers.events.append(("out", outcome.line))
            out.append(outcome.text)
    return out


def inline(rows: list[dict[str, Any]]) -> list[str]:
    """The output of one worker, in this process, in one chunk."""
    return [o.text for o in checks.run(rows, workers=1)]


# ------------------------------------------------------------------------ the router


def test_a_source_stays_on_its_worker_from_chunk_to_chunk() -> None:
    router = Router(3)
    sizes = {f"s{n}": 10 + n for n in range(12)}
    first = router.route(sizes)
    homes = {source: pieces[0][0] for source, pieces in first.items()}
    assert all(len(pieces) == 1 for pieces in first.values())
    for _ in range(5):
        again = router.route(sizes)
        assert {source: pieces[0][0] for source, pieces in again.items()} == homes
    loads = [sum(sizes[s] for s, w in homes.items() if w == worker) for worker in range(3)]
    assert max(loads) <= -(-sum(sizes.values()) // 3)  # no worker over its even share


def test_every_worker_gets_no_more_than_its_share_and_every_check_a_worker() -> None:
    rng = random.Random(3)
    router = Router(4)
    for _ in range(50):
        sizes = {f"s{rng.randrange(40)}": rng.randint(1, 300) for _ in range(rng.randint(1, 30))}
        routes = router.route(sizes)
        share = router.shares(sum(sizes.values()))
        load = [0] * 4
        for source, pieces in routes.items():
            assert [(a, b) for _, a, b in pieces] == list(
                zip([0] + [b for _, _, b in pieces[:-1]], [b for _, _, b in pieces], strict=True)
            )  # the pieces cover the source's checks, in order
            assert pieces[-1][2] == sizes[source]
            for worker, start, stop in pieces:
                load[worker] += stop - start
        assert all(load[w] <= share[w] for w in range(4))


def test_a_source_larger_than_a_worker_s_share_is_split_home_first() -> None:
    router = Router(2)
    assert router.route({"big": 100}) == {"big": [(0, 0, 50), (1, 50, 100)]}
    assert router.home("big") == 0
    assert router.route({"big": 100, "small": 10})["big"][0][0] == 0


def test_a_slower_worker_is_given_less() -> None:
    """Balanced by count, a worker that shared its core made the other wait at every chunk."""
    router = Router(2)
    assert router.shares(900) == [450, 450]
    router.observe(0, 1000, 1.0)
    router.observe(1, 1000, 2.0)
    assert router.shares(900) == [600, 300]
    routes = router.route({f"s{n}": 30 for n in range(30)})
    load = [0, 0]
    for pieces in routes.values():
        for worker, start, stop in pieces:
            load[worker] += stop - start
    assert load == [600, 300]


# ------------------------------------------------------------------------ what is sent where


def test_each_source_goes_to_one_worker_and_its_bytes_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every chunk's sources used to be dealt out anew, so each worker parsed most of them
    and every task carried the bytes again."""
    docs = documents(tmp_path, 12)
    rows = [
        {"id": i, "quote": " ".join(docs[i % 12][1][5:17]), "source": str(docs[i % 12][0])}
        for i in range(240)
    ]
    workers = StandInWorkers(2, [])
    out = run_on(monkeypatch, workers, rows, chunk_lines=48)  # 5 chunks, 4 lines a source each
    assert out == inline(rows)
    where: dict[str | None, set[int]] = {}
    carried: list[tuple[int, int, str | None]] = []  # (chunk, worker, source)
    for worker, tasks in workers.sent:
        for task in tasks:
            where.setdefault(task.name, set()).add(worker)
            if task.data is not None:
                carried.append(((task.items[0][0] - 1) // 48, worker, task.name))
    assert all(len(ws) == 1 for ws in where.values()), where  # each on one worker
    # The bytes go with every task until the worker has returned one that brought them:
    # the chunks handed out before the first came back, and never again.
    assert {chunk for chunk, _, _ in carried} == set(range(checks.AHEAD + 1))
    assert len(carried) == 12 * (checks.AHEAD + 1)
    assert [len(m) for m in workers.memos] == [6, 6]  # each parsed only its own sources


def test_a_worker_that_no_longer_holds_a_source_is_sent_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = documents(tmp_path, 5)
    rows = checks_of(docs, 120)
    workers = StandInWorkers(2, [], forget=True)  # as if each memo let everything go
    assert run_on(monkeypatch, workers, rows, chunk_lines=25) == inline(rows)
    without = [t for _, tasks in workers.sent for t in tasks if t.data is None]
    assert without, "later chunks should name the bytes by hash"
    again = {(t.origin.sha256, t.items) for _, tasks in workers.sent for t in tasks if t.data}
    assert all((t.origin.sha256, t.items) in again for t in without)  # each was resent


def test_the_next_chunk_is_handed_out_before_this_one_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chunk used to wait for all its results and be written before the next was read,
    so the workers sat idle while this process read, loaded and wrote."""
    docs = documents(tmp_path, 6)
    rows = checks_of(docs, 100)
    events: list[tuple[str, Any]] = []
    out = run_on(monkeypatch, StandInWorkers(2, events), rows, chunk_lines=20)
    assert out == inline(rows)
    first_out = events.index(next(e for e in events if e[0] == "out"))
    sent_before = {line for kind, lines in events[:first_out] if kind == "sent" for line in lines}
    assert set(range(1, 21)) <= sent_before and len(sent_before) > 20


@pytest.mark.parametrize("workers", [2, 3, 5])
def test_the_output_does_not_depend_on_the_routes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    docs = documents(tmp_path, 9)
    rows = checks_of(docs, 150)
    rows[17] = {"id": 17, "quote": "a quote", "source": str(tmp_path / "missing.txt")}
    rows[40] = {"id": 40, "quote": 3, "source": str(docs[0][0])}  # type: ignore[dict-item]
    out = run_on(monkeypatch, StandInWorkers(workers, []), rows, chunk_lines=23)
    assert out == inline(rows)
    records = [json.loads(line) for line in out]
    assert [r["id"] for r in records] == list(range(150))
    assert records[17]["error"]["code"] == "bad_source"
    assert records[40]["error"]["code"] == "bad_field"
    assert {r.get("verdict") for r in records} >= {"EXACT", "NEAR"}


def test_a_worker_that_runs_slower_is_sent_fewer_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = documents(tmp_path, 10)
    rows = [
        {"id": i, "quote": " ".join(docs[i % 10][1][5:17]), "source": str(docs[i % 10][0])}
        for i in range(400)
    ]
    workers = StandInWorkers(2, [], pace=[1.0, 3.0])  # worker 1 takes three times as long
    assert run_on(monkeypatch, workers, rows, chunk_lines=100) == inline(rows)
    last = [0, 0]
    for worker, tasks in workers.sent[-4:]:  # the last chunk's bundles
        last[worker] += sum(len(t.items) for t in tasks)
    assert last[0] > 2 * last[1] > 0


def test_large_sources_are_not_read_ahead_past_the_byte_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading ahead holds each chunk's source bytes; past the budget, a chunk is written
    before the next is read, as before, so large sources do not triple the memory."""
    docs = documents(tmp_path, 6)
    rows = checks_of(docs, 100)
    monkeypatch.setattr(checks, "IN_FLIGHT_BYTES", 1)
    events: list[tuple[str, Any]] = []
    assert run_on(monkeypatch, StandInWorkers(2, events), rows, chunk_lines=20) == inline(rows)
    first_out = events.index(next(e for e in events if e[0] == "out"))
    sent_before = {line for kind, lines in events[:first_out] if kind == "sent" for line in lines}
    assert sent_before == set(range(1, 41))  # the next chunk, not the two after it


def test_a_batch_without_the_log_builds_no_result_models(tmp_path: Path) -> None:
    """Each check's result was made a pydantic model only to be dumped to JSON again: the
    plain result gives the same bytes, and the batch (in this process, or a worker forked
    from one that imported only the checks) never imports pydantic."""
    path = documents(tmp_path, 1)[0][0]
    code = (
        "import sys, json\n"
        "from citeproof import batch\n"
        f"rows = [{{'quote': 'walking sleep morning trial', 'source': {str(path)!r}}}]\n"
        "out = [o.text for o in batch.run(rows, workers=1)]\n"
        "print(json.dumps(['pydantic' in sys.modules, out]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, out = json.loads(done.stdout)
    assert not imported
    assert json.loads(out[0])["schema"] == "citeproof.check/1"


def test_files_are_read_without_a_thread_per_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Eight threads were started for every chunk to read its files, which took three times
    the CPU of reading them in turn; threads are for identifiers, fetched over the network."""
    docs = documents(tmp_path, 8)
    rows = checks_of(docs, 60)
    expected = inline(rows)

    def no_threads(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a thread pool for local files")

    monkeypatch.setattr(checks, "ThreadPoolExecutor", no_threads)
    assert [o.text for o in checks.run(rows, workers=1, chunk_lines=20)] == expected


def test_the_work_is_estimated_from_the_checks_and_each_distinct_source(tmp_path: Path) -> None:
    from citeproof.batch.jsonl import BatchItem, LineError

    paper = tmp_path / "paper.txt"
    paper.write_bytes(b"x" * 10 * 1024)
    entries: list[BatchItem | LineError] = [
        BatchItem(1, 1, "a quote", str(paper)),
        BatchItem(2, 2, "another quote", str(paper)),
        LineError(3, "bad_line", "not JSON"),
        BatchItem(4, 4, "a quote", "10.5555/invented.1"),
    ]
    expected = (
        3 * checks.CHECK_SECONDS
        + 10 * checks.PARSE_SECONDS_PER_KB  # the file, parsed once
        + checks.FETCHED_KB * checks.PARSE_SECONDS_PER_KB  # the identifier, not fetched yet
    )
    assert checks.estimated_work(entries) == pytest.approx(expected)


def test_a_small_batch_runs_in_this_process_and_reads_its_input_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines read ahead to choose the number of workers are checked like the rest, in
    order; a batch of a few checks starts no worker."""
    from citeproof.batch.executors import Runner as real
    from citeproof.service.pipeline import CheckOptions

    chosen: list[int] = []

    def recording(executor: Any, workers: int, *args: Any, **kwargs: Any) -> Any:
        chosen.append(workers)
        return real(executor, workers, *args, **kwargs)

    monkeypatch.setattr(checks, "Runner", recording)
    source = tmp_path / "source.txt"
    source.write_text(" ".join(WORDS) + ".", encoding="utf-8")
    items = (
        {"id": n, "quote": " ".join(WORDS[n : n + 6]), "source": str(source)} for n in range(12)
    )
    outcomes = list(checks.run(items, options=CheckOptions(retraction=False)))
    assert chosen == [1]
    assert [json.loads(o.text)["id"] for o in outcomes] == list(range(12))
    assert {json.loads(o.text)["verdict"] for o in outcomes} == {"EXACT"}
