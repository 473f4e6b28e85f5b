"""Building an index from dumps, updating it with newer ones, and resuming either after a kill.

**Two cores.**  Parsing is the expensive part (inflating, decoding JSON or XML, building
records, deflating them), so it runs in worker processes, one task (a file, or a stripe of a
large JSON Lines file, :mod:`citeproof.index.readers`) at a time.  This process is the one
writer: it numbers the records, appends them to SQLite and hands their text to tantivy, whose
own indexing thread tokenizes and builds segments.  A bounded queue between them keeps memory
flat: a worker that is ahead waits.  Inputs under :data:`IN_PROCESS_BYTES` are parsed here,
without workers (a test's dumps would spend longer starting processes than reading).

**Resume.**  Every :data:`CHECKPOINT_RECORDS` records (or :data:`CHECKPOINT_SECONDS`) the
writer commits tantivy, then SQLite, whose transaction also records how many units of each
task are in.  A kill loses at most the work since the last checkpoint: the next run with the
same files deletes from tantivy any record SQLite never committed (its ``rid`` is above the
last committed one), and each task skips the units already in.  The end of a run (replaced
and deleted records, identifiers, merging works) is one SQLite transaction and then tantivy's
deletes, each recorded in ``meta.state``, so a kill there resumes there.

**Replacing and deleting.**  Each record carries its key (``pubmed:123``), its version and
its stamp (file number and position).  At the end of a run the newest record of each key
stays (PubMed's higher ``Version`` first, then the later file, then the later position);
the others, and those a later ``DeleteCitation`` or OpenAlex merge withdraws, go.  A newer
Retraction Watch file replaces the older one's notices whole (each file is the whole
dataset).  ``index update`` is the same run on an existing index: new files are appended,
files already read (the same path, size and time) are passed over.

**Readers during an update** see the index as it was: new rows stay hidden (``live = 2``)
until the one transaction at the end shows them and hides what they replace, and the new
manifest is written last.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import multiprocessing
import os
import queue
import signal
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Literal

from citeproof.errors import BadInputError, CiteproofError
from citeproof.index import engine, merging, tables
from citeproof.index.dumps import Detected, detect
from citeproof.index.manifest import Manifest, build_manifest, read_manifest, write_manifest
from citeproof.index.readers import Row, Task, TaskStats, read_task
from citeproof.index.records import decode_blob

__all__ = [
    "CHECKPOINT_ENV",
    "CHECKPOINT_RECORDS",
    "CHECKPOINT_SECONDS",
    "IN_PROCESS_BYTES",
    "BuildReport",
    "Progress",
    "build_index",
    "update_index",
]

CHECKPOINT_RECORDS = 250_000
CHECKPOINT_SECONDS = 120.0
#: Sets the records between checkpoints (tests stop a build after a few small ones).
CHECKPOINT_ENV = "CITEPROOF_INDEX_CHECKPOINT"
IN_PROCESS_BYTES = 16 * 1024 * 1024
#: A JSON Lines file larger than this is read by every worker, each its own stripe.
STRIPE_BYTES = 32 * 1024 * 1024
_BATCH_UNITS = 1000
_BATCH_BYTES = 4 * 1024 * 1024
_TANTIVY_HEAP = 256_000_000
_STAMP_SHIFT = 43
_LOCK = ".lock"
_TANTIVY_DIR = "search"

Mode = Literal["build", "update"]


@dataclass(frozen=True, slots=True)
class BuildReport:
    """What a build or update did."""

    directory: Path
    mode: Mode
    manifest: Manifest
    files: int
    """Files read in this run."""
    passed_over: tuple[str, ...]
    """Files of a folder that are no dump, and files an update had already read."""
    records: int
    """Records read in this run (before replacements and deletions)."""
    seconds: float
    resumed: bool
    workers: int


@dataclass(slots=True)
class Progress:
    """How far a run is, for a progress line."""

    files: int
    files_done: int = 0
    records: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.records / elapsed if elapsed > 0 else 0.0


def build_index(
    directory: Path,
    inputs: Sequence[Path],
    *,
    workers: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> BuildReport:
    """Build an index in ``directory`` from the dumps ``inputs`` (files, or folders of them);
    a stopped build of the same files resumes."""
    return _Run(directory, "build", workers, on_progress).run(inputs)


def update_index(
    directory: Path,
    inputs: Sequence[Path],
    *,
    workers: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> BuildReport:
    """Apply newer dumps to the finished index in ``directory``; a stopped update of the
    same files resumes."""
    return _Run(directory, "update", workers, on_progress).run(inputs)


# --- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Input:
    path: Path
    name: str
    size: int
    mtime_ns: int
    found: Detected


def _expand(inputs: Sequence[Path]) -> tuple[list[_Input], list[str]]:
    """Every dump named or inside a named folder (sorted), and what was passed over."""
    chosen: list[tuple[Path, Detected]] = []
    passed: list[str] = []
    for given in inputs:
        if given.is_dir():
            for path in sorted(p for p in given.rglob("*") if p.is_file()):
                if path.name.startswith(".") or path.suffix in (".dtd", ".md5", ".txt"):
                    passed.append(str(path))
                    continue
                try:
                    chosen.append((path, detect(path)))
                except BadInputError:
                    passed.append(str(path))
        elif given.suffix == ".dtd" and given.is_file():
            passed.append(str(given))  # read beside its DBLP dump, not indexed
        else:
            chosen.append((given, detect(given)))
    seen: set[Path] = set()
    unique = []
    for path, found in chosen:
        resolved = path.resolve()
        if resolved not in seen:
            seen.add(resolved)
            unique.append((resolved, found))
    if not unique:
        raise BadInputError(
            "none of the files given is a metadata dump citeproof reads; see docs/index.md."
        )
    root = Path(os.path.commonpath([p.parent for p, _ in unique]))
    out = []
    for path, found in unique:
        stat = path.stat()
        name = path.relative_to(root).as_posix() if len(unique) > 1 else path.name
        out.append(_Input(path, name, stat.st_size, stat.st_mtime_ns, found))
    return out, passed


def _fingerprint(items: Sequence[_Input]) -> str:
    return json.dumps([[str(i.path), i.size, i.mtime_ns] for i in items])


# --- the run --------------------------------------------------------------------------------


class _Run:
    def __init__(
        self,
        directory: Path,
        mode: Mode,
        workers: int | None,
        on_progress: Callable[[Progress], None] | None,
    ) -> None:
        self.directory = directory
        self.mode = mode
        self.requested_workers = workers
        self.on_progress = on_progress
        self.tantivy = engine.require_tantivy()
        self.workers_used = 0
        self.writer: Any = None
        self.index: Any = None

    def run(self, inputs: Sequence[Path]) -> BuildReport:
        started = time.monotonic()
        items, passed = _expand(inputs)
        self.directory.mkdir(parents=True, exist_ok=True)
        with _locked(self.directory):
            db_path = self.directory / tables.DB_NAME
            if self.mode == "build":
                _refuse_foreign(self.directory)
            elif not db_path.is_file():
                raise BadInputError(
                    f"{self.directory} holds no local index to update; build one first "
                    "(citeproof index build DIR FILES...)."
                )
            self.db = tables.connect_writer(db_path, wal=self.mode == "build")
            try:
                tables.create_schema(self.db)
                resumed, fresh = self._plan(items, passed)
                if not resumed and fresh == 0 and self.mode == "update":
                    return self._nothing_new(passed, started)
                state = tables.get_meta(self.db, "state")
                records = 0
                if state in ("building", "updating"):
                    records = self._read_all()
                    tables.set_meta(self.db, "state", "finalizing")
                self._finalize()
                manifest = self._write_manifest()
            finally:
                self.db.close()
        return BuildReport(
            directory=self.directory,
            mode=self.mode,
            manifest=manifest,
            files=fresh,
            passed_over=tuple(passed),
            records=records,
            seconds=time.monotonic() - started,
            resumed=resumed,
            workers=self.workers_used,
        )

    # -- planning ----------------------------------------------------------------------------

    def _plan(self, items: list[_Input], passed: list[str]) -> tuple[bool, int]:
        """Record this run's files (or check they are those of the stopped run); returns
        (resumed, files to read)."""
        db = self.db
        state = tables.get_meta(db, "state")
        if state is not None and tables.get_meta(db, "format") != tables.FORMAT:
            raise BadInputError(
                f"{self.directory} holds an index of another format; build it again in an "
                "empty folder."
            )
        if state in ("building", "updating", "finalizing", "cleanup"):
            if tables.get_meta(db, "mode") != self.mode:
                other = "build" if self.mode == "update" else "update"
                raise BadInputError(
                    f"{self.directory} holds an unfinished {other}; run 'citeproof index "
                    f"{other}' again with the same files to finish it first."
                )
            if tables.get_meta(db, "run_files") != _fingerprint(items):
                raise BadInputError(
                    f"{self.directory} holds an unfinished {self.mode} of other files (or the "
                    f"files changed since); run it again with the same files to resume, or "
                    f"start in an empty folder."
                )
            count = db.execute(
                "SELECT COUNT(*) FROM files WHERE run = ?", (self._run_no(),)
            ).fetchone()[0]
            return True, count
        if state is None and self.mode == "update":
            raise BadInputError(f"{self.directory} holds no finished index to update.")
        if state == "complete" and self.mode == "build":
            raise BadInputError(
                f"{self.directory} already holds a finished index; add newer files with "
                "'citeproof index update', or build in an empty folder."
            )
        db.execute("BEGIN")
        if state is None:
            tables.set_meta(db, "format", tables.FORMAT)
        run = int(tables.get_meta(db, "runs") or "0") + 1
        known = {
            (path, size, mtime)
            for path, size, mtime in db.execute("SELECT path, size, mtime_ns FROM files")
        }
        first_file = db.execute("SELECT COALESCE(MAX(file_no), -1) + 1 FROM files").fetchone()[0]
        workers = self._workers()
        # Striping a file costs each worker its inflating: worth it only when there are
        # fewer files than workers to keep busy.
        few_files = len(items) < workers
        fresh = 0
        for item in items:
            if (str(item.path), item.size, item.mtime_ns) in known:
                passed.append(f"{item.path} (already in the index)")
                continue
            file_no = first_file + fresh
            fresh += 1
            stripes = 1
            if item.found.tar or (
                item.found.layout == "jsonl" and item.size >= STRIPE_BYTES and few_files
            ):
                stripes = workers
            db.execute(
                "INSERT INTO files (file_no, path, name, size, mtime_ns, kind, layout, tar, "
                "stripes, run) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    file_no,
                    str(item.path),
                    item.name,
                    item.size,
                    item.mtime_ns,
                    item.found.kind,
                    item.found.layout,
                    int(item.found.tar),
                    stripes,
                    run,
                ),
            )
            db.executemany(
                "INSERT INTO progress (file_no, stripe, units, done) VALUES (?, ?, 0, 0)",
                [(file_no, s) for s in range(stripes)],
            )
        if fresh == 0 and state == "complete":
            db.execute("ROLLBACK")
            return False, 0
        first_rid = db.execute("SELECT COALESCE(MAX(rid), -1) + 1 FROM records").fetchone()[0]
        tables.set_meta(db, "runs", str(run))
        tables.set_meta(db, "mode", self.mode)
        tables.set_meta(db, "state", "building" if self.mode == "build" else "updating")
        tables.set_meta(db, "run_files", _fingerprint(items))
        tables.set_meta(db, "run_first_rid", str(first_rid))
        tables.set_meta(db, "run_started", _now())
        db.execute("COMMIT")
        return False, fresh

    def _run_no(self) -> int:
        return int(tables.get_meta(self.db, "runs") or "0")

    def _nothing_new(self, passed: list[str], started: float) -> BuildReport:
        return BuildReport(
            directory=self.directory,
            mode=self.mode,
            manifest=read_manifest(self.directory),
            files=0,
            passed_over=tuple(passed),
            records=0,
            seconds=time.monotonic() - started,
            resumed=False,
            workers=0,
        )

    def _workers(self) -> int:
        if self.requested_workers is not None:
            return max(1, self.requested_workers)
        return max(1, min(2, os.cpu_count() or 1))

    # -- reading -----------------------------------------------------------------------------

    def _tasks(self) -> list[Task]:
        rows = self.db.execute(
            "SELECT f.file_no, f.path, f.kind, f.layout, f.tar, p.stripe, f.stripes, p.units "
            "FROM progress p JOIN files f USING (file_no) WHERE p.done = 0 "
            "ORDER BY f.file_no, p.stripe"
        ).fetchall()
        return [
            Task(file_no, path, kind, layout, bool(tar), stripe, stripes, units)
            for file_no, path, kind, layout, tar, stripe, stripes, units in rows
        ]

    def _read_all(self) -> int:
        """Read every unfinished task into the tables and tantivy; returns records read."""
        tasks = self._tasks()
        search_dir = self.directory / _TANTIVY_DIR
        if search_dir.is_dir() and any(search_dir.iterdir()):
            index = engine.open_engine(search_dir)
        else:
            search_dir.mkdir(exist_ok=True)
            index = engine.create_index(search_dir)
        top = self.db.execute("SELECT COALESCE(MAX(rid), -1) FROM records").fetchone()[0]
        writer = index.writer(heap_size=_TANTIVY_HEAP, num_threads=1)
        # Records tantivy holds that SQLite never committed (a kill between the two).
        writer.delete_documents_by_query(
            self.tantivy.Query.range_query(
                index.schema, "rid", self.tantivy.FieldType.Unsigned, lower_bound=top + 1
            )
        )
        writer.commit()
        self.writer = writer
        self.index = index
        self.next_rid = top + 1
        stripes_left: dict[int, int] = {}
        for task in tasks:
            stripes_left[task.file_no] = stripes_left.get(task.file_no, 0) + 1
        progress = Progress(files=len(stripes_left))
        self.workers_used = self._workers_for(tasks)
        read = 0
        since = 0
        last = time.monotonic()
        every = _checkpoint_records()
        self.db.execute("BEGIN")
        try:
            for message in self._messages(tasks):
                if message[0] == "batch":
                    _tag, file_no, stripe, units, rows, delta = message
                    n = self._write(file_no, rows)
                    self._advance(file_no, stripe, units, delta)
                    read += n
                    since += n
                    progress.records += n
                elif message[0] == "done":
                    _tag, file_no, stripe, stats = message
                    self._task_done(file_no, stripe, stats)
                    stripes_left[file_no] -= 1
                    if stripes_left[file_no] == 0:
                        progress.files_done += 1
                if since >= every or time.monotonic() - last > CHECKPOINT_SECONDS:
                    self._checkpoint()
                    since, last = 0, time.monotonic()
                    if self.on_progress:
                        self.on_progress(progress)
            self._checkpoint()
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            with contextlib.suppress(Exception):
                writer.rollback()
            raise
        self.db.execute("COMMIT")
        if self.on_progress:
            self.on_progress(progress)
        return read

    def _workers_for(self, tasks: Sequence[Task]) -> int:
        size = sum(
            Path(t.path).stat().st_size // max(t.stripes, 1) for t in tasks if Path(t.path).exists()
        )
        if self.requested_workers is None and size < IN_PROCESS_BYTES:
            return 0
        return self._workers()

    def _messages(self, tasks: list[Task]) -> Iterator[tuple[Any, ...]]:
        if not tasks:
            return
        if self.workers_used == 0:
            for task in tasks:
                yield from _task_messages(task)
            return
        yield from _parallel(tasks, self.workers_used)

    def _write(self, file_no: int, rows: list[Row]) -> int:
        """Append one batch: records (numbered here), identifiers, notices, deletions."""
        base = file_no << _STAMP_SHIFT
        records: list[tuple[Any, ...]] = []
        stage: list[tuple[str, int]] = []
        notes: list[tuple[Any, ...]] = []
        deletions: list[tuple[Any, ...]] = []
        document = self.tantivy.Document
        add = self.writer.add_document
        for row in rows:
            tag = row[0]
            if tag == "r":
                _t, position, version, rkey, ids, blob, bib, notices = row
                rid = self.next_rid
                self.next_rid += 1
                records.append((rid, rkey, version, base | position, rid, blob))
                stage.extend((value, rid) for value in ids)
                notes.extend((*n, rid, file_no) for n in notices)
                doc = document()
                doc.add_unsigned("rid", rid)
                doc.add_text("bib", bib)
                add(doc)
            elif tag == "d":
                _t, position, rkey, alias = row
                deletions.append((rkey, base | position, alias))
            else:
                notes.append((*row[2], None, file_no))
        db = self.db
        db.executemany(
            "INSERT INTO records (rid, rkey, version, stamp, live, work, data) "
            "VALUES (?, ?, ?, ?, 2, ?, ?)",
            records,
        )
        db.executemany("INSERT INTO ids_stage (value, rid) VALUES (?, ?)", stage)
        if notes:
            db.executemany(
                "INSERT INTO notices (target, kind, notice, date, source, label, reason, "
                "record_id, rid, file_no) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                notes,
            )
        if deletions:
            db.executemany("INSERT INTO deletions (rkey, stamp, alias) VALUES (?, ?, ?)", deletions)
        db.execute(
            "UPDATE files SET records = records + ?, deletions = deletions + ?, "
            "notices = notices + ? WHERE file_no = ?",
            (len(records), len(deletions), len(notes), file_no),
        )
        return len(records)

    def _advance(self, file_no: int, stripe: int, units: int, delta: dict[str, Any]) -> None:
        self.db.execute(
            "UPDATE progress SET units = units + ? WHERE file_no = ? AND stripe = ?",
            (units, file_no, stripe),
        )
        if delta.get("skipped") or delta.get("newest") or delta.get("reasons"):
            row = self.db.execute(
                "SELECT newest, reasons FROM files WHERE file_no = ?", (file_no,)
            ).fetchone()
            newest = (
                max(d for d in (row[0], delta.get("newest")) if d)
                if (row[0] or delta.get("newest"))
                else None
            )
            reasons = (json.loads(row[1]) + list(delta.get("reasons", [])))[:5]
            self.db.execute(
                "UPDATE files SET skipped = skipped + ?, newest = ?, reasons = ? WHERE file_no = ?",
                (delta.get("skipped", 0), newest, json.dumps(reasons), file_no),
            )

    def _task_done(self, file_no: int, stripe: int, stats: dict[str, Any]) -> None:
        self.db.execute(
            "UPDATE progress SET done = 1 WHERE file_no = ? AND stripe = ?", (file_no, stripe)
        )
        self.db.execute(
            "UPDATE files SET text_bytes = text_bytes + ?, sha256 = COALESCE(?, sha256) "
            "WHERE file_no = ?",
            (stats.get("text_bytes", 0), stats.get("sha256"), file_no),
        )

    def _checkpoint(self) -> None:
        """tantivy first, then SQLite: after a kill SQLite never names a record tantivy
        lacks, and what tantivy has beyond SQLite is deleted on resume."""
        self.writer.commit()
        self.db.execute("COMMIT")
        self.db.execute("BEGIN")

    # -- the end of a run --------------------------------------------------------------------

    def _finalize(self) -> None:
        db = self.db
        if tables.get_meta(db, "state") == "finalizing":
            first_rid = int(tables.get_meta(db, "run_first_rid") or "0")
            run = self._run_no()
            db.execute("BEGIN")
            tables.finish_indexes(db)
            dead = self._supersede(first_rid, run)
            self._move_ids(dead)
            if self.mode == "build":
                merging.merge_all(db, merging.scratch_path(self.directory))
            else:
                seeds = [
                    r[0]
                    for r in db.execute(
                        "SELECT rid FROM records WHERE rid >= ? AND live = 2", (first_rid,)
                    )
                ]
                merging.merge_around(db, [*seeds, *dead])
            db.execute("UPDATE records SET live = 1 WHERE live = 2")
            db.execute("DELETE FROM progress")
            tables.set_meta(db, "state", "cleanup")
            db.execute("COMMIT")
        if tables.get_meta(db, "state") == "cleanup":
            self._tantivy_cleanup()
            db.execute("BEGIN")
            db.execute("DELETE FROM dead_pending")
            tables.set_meta(db, "state", "complete")
            times = json.loads(tables.get_meta(db, "run_times") or "[]")
            times.append(
                {
                    "mode": self.mode,
                    "started": tables.get_meta(db, "run_started"),
                    "finished": _now(),
                }
            )
            tables.set_meta(db, "run_times", json.dumps(times))
            db.execute("COMMIT")
            if self.mode == "build":
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                db.execute("PRAGMA journal_mode=DELETE")
            db.execute("PRAGMA analysis_limit=1000")
            db.execute("ANALYZE")

    def _supersede(self, first_rid: int, run: int) -> list[int]:
        """Hide what this run's records replace and its deletions withdraw; returns the rids
        hidden (they leave tantivy and the identifier table)."""
        db = self.db
        db.execute("CREATE TEMP TABLE IF NOT EXISTS touched (rkey TEXT PRIMARY KEY)")
        db.execute("DELETE FROM touched")
        first_file = db.execute(
            "SELECT COALESCE(MIN(file_no), 0) FROM files WHERE run = ?", (run,)
        ).fetchone()[0]
        base = first_file << _STAMP_SHIFT
        if self.mode == "build":
            db.execute(
                "INSERT OR IGNORE INTO touched SELECT rkey FROM records "
                "GROUP BY rkey HAVING COUNT(*) > 1"
            )
        else:
            db.execute(
                "INSERT OR IGNORE INTO touched SELECT rkey FROM records WHERE rid >= ?",
                (first_rid,),
            )
        db.execute(
            "INSERT OR IGNORE INTO touched SELECT rkey FROM deletions WHERE stamp >= ?", (base,)
        )
        dead = [
            r[0]
            for r in db.execute(
                "SELECT r.rid FROM records r JOIN touched t ON t.rkey = r.rkey "
                "WHERE r.live != 0 AND ("
                " EXISTS (SELECT 1 FROM records n WHERE n.rkey = r.rkey AND n.live != 0 AND "
                "  (n.version > r.version OR (n.version = r.version AND n.stamp > r.stamp)))"
                " OR EXISTS (SELECT 1 FROM deletions d WHERE d.rkey = r.rkey "
                "  AND (d.stamp > r.stamp OR d.alias IS NOT NULL)))"
            )
        ]
        db.executemany("UPDATE records SET live = 0 WHERE rid = ?", ((r,) for r in dead))
        db.executemany("INSERT INTO dead_pending (rid) VALUES (?)", ((r,) for r in dead))
        db.executemany("DELETE FROM notices WHERE rid = ?", ((r,) for r in dead))
        db.execute(
            "INSERT OR REPLACE INTO aliases (value, target) "
            "SELECT 'openalex:' || substr(rkey, 10), alias FROM deletions "
            "WHERE alias IS NOT NULL AND stamp >= ? AND rkey LIKE 'openalex:%'",
            (base,),
        )
        newest_rw = db.execute(
            "SELECT MAX(file_no) FROM files WHERE kind = 'retractionwatch'"
        ).fetchone()[0]
        if newest_rw is not None:
            db.execute(
                "DELETE FROM notices WHERE source = 'retractionwatch' AND rid IS NULL "
                "AND file_no < ?",
                (newest_rw,),
            )
        return dead

    def _move_ids(self, dead: list[int]) -> None:
        """Staged identifiers into the key-ordered table (sorted: an append, not 30 million
        random inserts), without those of hidden records."""
        db = self.db
        for rid in dead:
            row = db.execute("SELECT data FROM records WHERE rid = ?", (rid,)).fetchone()
            if row is not None:
                ids, _ = decode_blob(row[0])
                db.executemany(
                    "DELETE FROM ids WHERE value = ? AND rid = ?", ((v, rid) for v in ids)
                )
        db.execute(
            "INSERT OR IGNORE INTO ids (value, rid) SELECT s.value, s.rid FROM ids_stage s "
            "JOIN records r ON r.rid = s.rid WHERE r.live != 0 ORDER BY s.value, s.rid"
        )
        db.execute("DELETE FROM ids_stage")

    def _tantivy_cleanup(self) -> None:
        writer = self.writer
        self.writer = None
        if writer is None:
            index = engine.open_engine(self.directory / _TANTIVY_DIR)
            writer = index.writer(heap_size=_TANTIVY_HEAP, num_threads=1)
        else:
            index = self.index
        dead = [r[0] for r in self.db.execute("SELECT rid FROM dead_pending ORDER BY rid")]
        for start in range(0, len(dead), 10_000):
            writer.delete_documents_by_query(
                self.tantivy.Query.term_set_query(index.schema, "rid", dead[start : start + 10_000])
            )
        writer.commit()
        writer.wait_merging_threads()

    def _write_manifest(self) -> Manifest:
        built = tables.get_meta(self.db, "built")
        if built is None:
            built = _now()
            self.db.execute("BEGIN")
            tables.set_meta(self.db, "built", built)
            self.db.execute("COMMIT")
        data = build_manifest(
            self.db, self.directory, built=built, engine=f"tantivy {_tantivy_version()}"
        )
        return write_manifest(self.directory, data)


def _checkpoint_records() -> int:
    value = os.environ.get(CHECKPOINT_ENV, "")
    return int(value) if value.isdigit() and int(value) > 0 else CHECKPOINT_RECORDS


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _tantivy_version() -> str:
    try:
        return version("tantivy")
    except PackageNotFoundError:  # pragma: no cover - an unusual install
        return "?"


def _refuse_foreign(directory: Path) -> None:
    """A build writes only into an empty folder or one of its own stopped builds."""
    names = {p.name for p in directory.iterdir()} - {_LOCK}
    if names and tables.DB_NAME not in names:
        raise BadInputError(
            f"{directory} is not empty and holds no citeproof index; build in an empty or "
            "new folder."
        )


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """One build or update at a time in a folder (an advisory lock, gone with the process)."""
    handle = (directory / _LOCK).open("a")
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise BadInputError(
                f"another build or update is running in {directory}; wait for it to finish."
            ) from exc
        yield
    finally:
        handle.close()


# --- workers --------------------------------------------------------------------------------


def _task_messages(task: Task) -> Iterator[tuple[Any, ...]]:
    """The messages one task produces: batches of rows (with what changed in the file's
    counts since the last batch), then its totals."""
    stats = TaskStats()
    reported = reasons_sent = 0
    newest_sent: str | None = None
    for units, rows in read_task(task, stats, batch_units=_BATCH_UNITS, batch_bytes=_BATCH_BYTES):
        delta: dict[str, Any] = {}
        if stats.skipped != reported:
            delta["skipped"] = stats.skipped - reported
            reported = stats.skipped
        if len(stats.reasons) > reasons_sent:
            delta["reasons"] = stats.reasons[reasons_sent:]
            reasons_sent = len(stats.reasons)
        if stats.newest != newest_sent:
            delta["newest"] = newest_sent = stats.newest
        yield ("batch", task.file_no, task.stripe, units, rows, delta)
    if stats.skipped != reported:
        yield ("batch", task.file_no, task.stripe, 0, [], {"skipped": stats.skipped - reported})
    totals = {"text_bytes": stats.text_bytes, "sha256": stats.sha256}
    yield ("done", task.file_no, task.stripe, totals)


def _worker(tasks: Any, results: Any) -> None:
    """A parsing process: tasks in, messages out, until the ``None`` that ends it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        task = tasks.get()
        if task is None:
            return
        try:
            for message in _task_messages(task):
                results.put(message)
        except CiteproofError as exc:
            results.put(("error", str(exc)))
            return
        except Exception as exc:  # a bug or the OS: reported, not hung on
            results.put(("error", f"{Path(task.path).name}: {type(exc).__name__}: {exc}"))
            return


def _parallel(tasks: list[Task], workers: int) -> Iterator[tuple[Any, ...]]:
    context = multiprocessing.get_context("spawn")
    task_queue = context.Queue()
    results = context.Queue(maxsize=4 * workers)
    for task in tasks:
        task_queue.put(task)
    for _ in range(workers):
        task_queue.put(None)
    processes = [
        context.Process(target=_worker, args=(task_queue, results), daemon=True)
        for _ in range(workers)
    ]
    for process in processes:
        process.start()
    remaining = len(tasks)
    try:
        while remaining:
            try:
                message = results.get(timeout=1.0)
            except queue.Empty:
                dead = [p for p in processes if p.exitcode not in (None, 0)]
                if dead:
                    raise CiteproofError(
                        f"a parsing process stopped (exit code {dead[0].exitcode}); run the "
                        "same command again to resume."
                    ) from None
                continue
            if message[0] == "error":
                raise BadInputError(str(message[1]))
            if message[0] == "done":
                remaining -= 1
            yield message
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
        for q in (task_queue, results):
            q.cancel_join_thread()
            q.close()
