"""The evidence log: every check and search, appended, hash-chained, Merkle-signed.

Why: a reader of a report should be able to ask "was this really checked, when, against
which bytes?" and get an answer that the checker cannot quietly revise later.  Each entry
names the hash of the one before it (a chain), the whole log is a Merkle tree whose root is
signed with the user's Ed25519 key (a checkpoint), and anyone holding an earlier checkpoint
can prove that today's log still begins with exactly the entries it had then.

Decisions:

* **Appends cost the same at any size.**  Under a file lock (``<log>.lock``) the writer
  reads the small signed head (``<log>.head``: size, end offset, last hash, Merkle compact
  range, signed checkpoint), checks it and the last line (read backwards from the head's
  end offset), extends the compact range and signs the checkpoint of the new state, writes
  that head as the append's *intent* (``<log>.intent``, fsynced), writes the new line(s)
  with ONE ``os.write`` on an ``O_APPEND`` descriptor, fsyncs, and renames the intent over
  the head.  Nothing is re-read, and there are as many fsyncs as without the intent.
* **A killed append never stops the log.**  The head only moves to a state whose lines
  are on disk, and an append killed between its write and the rename leaves its intent.
  The next process to take the lock settles it before anything else
  (:meth:`EvidenceLog._settle`): lines that are exactly what the intent signs are
  committed, a write cut short is moved aside into ``<log>.rolled-back-<time>`` (it was
  never acknowledged), an intent whose append wrote nothing is dropped.  An append whose
  call returned was renamed into the head before it returned, so it is never touched.
* **Damage stops appends.**  A torn or invalid tail that no intent explains, entries the
  head does not cover, a file shorter than its head or a head that does not verify raise
  :class:`LogDamagedError` / :class:`LogTamperedError` naming the command to run.
* **Repair never rewrites valid data.**  :meth:`EvidenceLog.repair` moves damaged bytes at
  the end into ``<log>.damaged-<time>`` (nothing is deleted), truncates exactly those bytes,
  signs whole valid entries that the head did not cover (an append interrupted between
  writing and signing) unless asked to set them aside too, and records all of it in a
  ``repair`` entry.  A log shorter than its signed head is not "repaired": that is the
  evidence of a deletion, and only a backup can restore it.
* **Key and clock are injectable** for tests; by default the key lives in the data
  directory's ``keys/`` (see :mod:`citeproof.store.keys`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeproof.errors import os_problem
from citeproof.evidence.canonical import canonical_bytes
from citeproof.evidence.checkpoint import Checkpoint, sign_checkpoint
from citeproof.evidence.lines import (
    ZERO_HASH,
    Head,
    Intent,
    LineProblemError,
    LogDamagedError,
    LogEntry,
    LogError,
    LogLockedError,
    LogTamperedError,
    build_line,
    head_path_for,
    intent_outcome,
    intent_path_for,
    iter_raw_lines,
    parse_line,
    read_head,
    read_intent,
    read_line_ending_at,
    write_head,
    write_intent,
)
from citeproof.evidence.lines import (
    datasync as _datasync,
)
from citeproof.evidence.lines import (
    file_lock as _file_lock,
)
from citeproof.evidence.merkle import CompactRange
from citeproof.store.keys import LOG_KEY_FILE, LogKey, load_or_create_log_key
from citeproof.store.paths import resolve_dirs, resolve_log_path

if TYPE_CHECKING:
    from citeproof.evidence.verify import verify_proof
    from citeproof.models.evidence import ProofBundle, ProofReport, RepairReport, VerifyReport

__all__ = [
    "SUPPORT_VALUES",
    "EvidenceLog",
    "LogDamagedError",
    "LogEntry",
    "LogError",
    "LogLockedError",
    "LogTamperedError",
    "ProofBundle",
    "ProofReport",
    "RepairReport",
    "VerifyReport",
    "default_log_path",
    "open_log",
    "verify_proof",
]

#: Exported here, imported on first use (:func:`__getattr__`).
_REPORTS = frozenset({"ProofBundle", "ProofReport", "RepairReport", "VerifyReport"})

SUPPORT_VALUES = ("supports", "contradicts", "absent")
#: How every line of a log begins: canonical JSON sorts the keys, and ``hash`` comes first.
_LINE_START = b'{"hash":"sha256:'
MAX_KIND_CHARS = 64
# The state an intent of the first append extends: no entries (nothing to sign).
_EMPTY = Head(0, 0, ZERO_HASH, (), "")
_SETTLED = {
    "finished": " (an interrupted append was completed first)",
    "rolled-back": " (an interrupted append's partial write was moved aside first)",
    "discarded": " (an interrupted append that wrote nothing was dropped)",
}


def __getattr__(name: str) -> Any:
    """The verifier and the pydantic reports, imported when first named: appending (a
    check's one line) needs neither, and a one-shot check must not pay for them."""
    if name == "verify_proof":
        from citeproof.evidence.verify import verify_proof  # start-up

        return verify_proof
    if name in _REPORTS:
        from citeproof.models import evidence  # start-up

        return getattr(evidence, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def default_log_path(env: Mapping[str, str] | None = None) -> Path:
    """``CITEPROOF_LOG`` or ``evidence.jsonl`` in the data directory (``env`` defaults to
    the process environment)."""
    return resolve_log_path(os.environ if env is None else env)


def open_log(path: str | os.PathLike[str] | None = None) -> EvidenceLog:
    """The evidence log at ``path``, else ``CITEPROOF_LOG``, else the data directory's: the
    one rule every interface uses to choose the log file."""
    return EvidenceLog(Path(path) if path is not None else default_log_path())


def _utc_now() -> datetime:
    return datetime.now(UTC)


def format_time(moment: datetime) -> str:
    """UTC ISO 8601 with microseconds and ``Z``; a naive datetime is refused."""
    if moment.tzinfo is None:
        raise ValueError("the log clock must return an aware datetime")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _check_kind(kind: str) -> None:
    if not kind or len(kind) > MAX_KIND_CHARS or not kind.replace("-", "").isalnum():
        raise LogError(
            f"{kind!r} is not a valid entry kind: use letters, digits and '-' "
            f"(at most {MAX_KIND_CHARS})."
        )


class EvidenceLog:
    """The log at ``path``; every method takes the lock it needs, so instances may be
    created freely and shared between threads, and many processes may append at once."""

    def __init__(
        self,
        path: Path | str,
        *,
        key: LogKey | Callable[[], LogKey] | None = None,
        key_dir: Path | None = None,
        clock: Callable[[], datetime] = _utc_now,
        lock_timeout: float = 60.0,
        durable: bool = True,
    ) -> None:
        self.path = Path(path)
        self.head_path = head_path_for(self.path)
        self.intent_path = intent_path_for(self.path)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self._key = key
        self._key_dir = key_dir
        self._clock = clock
        self._lock_timeout = lock_timeout
        self._durable = durable
        self._trusted_head: Head | None = None

    # ------------------------------------------------------------------ plumbing

    @property
    def key(self) -> LogKey:
        """The signing key (loaded, or created in the key directory, on first use)."""
        if isinstance(self._key, LogKey):
            return self._key
        if self._key is not None:
            self._key = self._key()
            return self._key
        key_dir = self._key_dir or resolve_dirs(os.environ).keys
        self._key = load_or_create_log_key(key_dir)
        return self._key

    def _existing_key(self) -> LogKey | None:
        """The signing key if there is one; never created (reading a log must not make a key,
        which could only say that nothing verifies)."""
        if self._key is None:
            key_dir = self._key_dir or resolve_dirs(os.environ).keys
            if not (key_dir / LOG_KEY_FILE).exists():
                return None
        return self.key

    @property
    def exists(self) -> bool:
        """Whether any of the log is on disk: its file, its signed head or an append intent."""
        return any(p.exists() for p in (self.path, self.head_path, self.intent_path))

    def _locked(self) -> contextlib.AbstractContextManager[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return _file_lock(self.lock_path, self._lock_timeout, self.path)

    @contextlib.contextmanager
    def _writing(self, doing: str) -> Iterator[None]:
        """Refuse a path that is no evidence log, and turn what the operating system refuses
        (a folder in a file's place, a file in a folder's, no permission, a full disk) into a
        :class:`LogError` naming the log, so every interface shows one line with a way out
        instead of a traceback; a check's result is shown before it (docs/cli.md)."""
        self._refuse_foreign(doing)
        try:
            yield
        except OSError as exc:
            raise LogError(
                f"cannot {doing} the evidence log {self.path}: {os_problem(exc)}. Name another "
                "log file with --log or CITEPROOF_LOG, or leave the log out with --no-log."
            ) from exc

    def _refuse_foreign(self, doing: str) -> None:
        """A folder, or a file that holds something else (a typo naming a user's notes), is
        never written to nor "repaired" into a log: that would move the user's bytes aside.

        A log's lines are canonical JSON with sorted keys, so every line, even a damaged
        one, begins with :data:`_LINE_START`; a log with a head or an intent is a log
        whatever its first line holds (its damage is for ``verify`` and ``repair``)."""
        if self.path.is_dir():
            raise LogError(
                f"cannot {doing} the evidence log {self.path}: it is a folder. The log is a "
                f"file; name one, such as {self.path / 'evidence.jsonl'}."
            )
        if self.head_path.exists() or self.intent_path.exists():
            return
        try:
            with self.path.open("rb") as fh:
                start = fh.read(len(_LINE_START))
        except OSError:
            return  # not there, or unreadable: the write itself will say which
        if start and not _LINE_START.startswith(start) and not start.startswith(_LINE_START):
            raise LogError(
                f"{self.path} is not an evidence log: it holds other data, which citeproof "
                "neither appends to nor repairs. Name the log file with --log or "
                "CITEPROOF_LOG (`citeproof log path` prints the one in use), or a new file."
            )

    def _verify_head(self, head: Head) -> None:
        """Check the head's signature, once per distinct head text in this process."""
        if head != self._trusted_head:
            head.verify(self.key.verifier)
            self._trusted_head = head

    def _sign_head(self, acc: CompactRange, end: int, last: str) -> Head:
        key = self.key
        text = sign_checkpoint(Checkpoint(key.name, acc.size, acc.root()), key)
        return Head(acc.size, end, last, tuple(acc.hashes), text)

    def _damaged(self, what: str) -> LogDamagedError:
        return LogDamagedError(
            f"the evidence log {self.path} {what}; nothing more is appended until it is "
            "fixed. See `citeproof log verify`, then run `citeproof log repair`."
        )

    def _sound_head(self, fd: int, size: int) -> Head | None:
        """The signed head after checking it and the entry it ends at (None: no head)."""
        head = read_head(self.head_path)
        if head is None:
            return None
        self._verify_head(head)
        if size < head.end:
            raise LogTamperedError(
                f"the evidence log {self.path} is shorter than its signed head ({size} < "
                f"{head.end} bytes): entries were removed. Restore it from a backup; "
                "`citeproof log verify` shows what is missing."
            )
        if head.size:
            raw = read_line_ending_at(fd, head.end)
            try:
                last = parse_line(raw)
            except LineProblemError:
                last = None
            if last is None or last.hash != head.last or last.seq != head.size:
                raise LogTamperedError(
                    f"the last signed entry of {self.path} was altered: run `citeproof "
                    "log verify` to see where."
                )
        return head

    def _settle(self, fd: int, head: Head | None, size: int) -> tuple[Head | None, int, str]:
        """Finish or roll back an append that was killed after recording its intent.

        ``head`` is the sound signed head (None: none) and ``size`` the file's size.
        Returns the head and size afterwards and what was done: ``""`` (no intent),
        ``"finished"``, ``"rolled-back"``, ``"discarded"`` (the append wrote nothing) or
        ``"unexplained"`` (the intent does not explain what follows the head: it is left
        for ``log repair``).  Runs under the lock.
        """
        base = head if head is not None else _EMPTY
        try:
            intent = read_intent(self.intent_path)
        except LogDamagedError:
            # Killed while writing the intent: no line is written before it is synced.
            if size == base.end:
                self._drop_intent()
                return head, size, "discarded"
            return head, size, "unexplained"
        if intent is None:
            return head, size, ""
        if size > base.end and size - base.end > intent.head.end - base.end:
            return head, size, "unexplained"
        tail = os.pread(fd, size - base.end, base.end) if size > base.end else b""
        outcome = intent_outcome(base, intent, tail)
        if outcome == "nothing":
            self._drop_intent()
            return head, size, "discarded"
        if outcome == "foreign":
            return head, size, "unexplained"
        try:
            intent.head.verify(self.key.verifier)
        except LogTamperedError:
            return head, size, "unexplained"  # not written with this log's key
        if outcome == "finish":
            if self._durable:
                _datasync(fd)  # the dead appender may have been killed before its fsync
            os.replace(self.intent_path, self.head_path)
            self._trusted_head = intent.head
            return intent.head, size, "finished"
        self._set_aside(fd, base.end, tail, "rolled-back")
        self._drop_intent()
        return head, base.end, "rolled-back"

    def _drop_intent(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.intent_path.unlink()

    def _set_aside(self, fd: int, end: int, data: bytes, what: str) -> Path:
        """Copy ``data`` (the file's bytes from ``end`` on) into ``<log>.<what>-<time>``,
        fsynced, then cut the file at ``end``."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
        moved_path = self.path.with_name(f"{self.path.name}.{what}-{stamp}")
        out = os.open(moved_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(out, data)
            os.fsync(out)
        finally:
            os.close(out)
        os.ftruncate(fd, end)
        os.fsync(fd)
        return moved_path

    def _checked_head(self, fd: int) -> Head:
        """The head after checking it against the file and settling an interrupted
        append; raise if appending is unsafe."""
        size = os.fstat(fd).st_size
        head, size, _ = self._settle(fd, self._sound_head(fd, size), size)
        if head is None:
            if size == 0:
                return self._sign_head(CompactRange(), 0, ZERO_HASH)
            raise self._damaged("has no signed head (its .head file is missing)")
        if size > head.end:
            tail = os.pread(fd, min(size - head.end, 1 << 16), head.end)
            if not tail.endswith(b"\n") and size - head.end <= len(tail):
                raise self._damaged("ends in a torn (incomplete) line")
            raise self._damaged(
                "holds data after its last signed entry (a damaged line, an interrupted "
                "append, or entries added without the log key)"
            )
        return head

    def _open_fd(self) -> int:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)

    def _append_locked(
        self, fd: int, head: Head, items: list[tuple[str, Mapping[str, Any]]]
    ) -> list[LogEntry]:
        """Write ``items`` after ``head``; their payloads are JSON types already (checked by
        :meth:`append_many`, or built by :meth:`repair` from its own values)."""
        acc = head.compact_range()
        prev, seq = head.last, head.size
        now = format_time(self._clock())
        chunks: list[bytes] = []
        entries: list[LogEntry] = []
        for kind, payload in items:
            seq += 1
            line, entry = build_line(seq, now, kind, prev, payload, checked=True)
            acc.append(line[:-1])
            chunks.append(line)
            entries.append(entry)
            prev = entry.hash
        data = b"".join(chunks)
        new_head = self._sign_head(acc, head.end + len(data), prev)
        # The intent goes to disk before the lines: whoever finds the lines without a head
        # that covers them finds the intent that does (see _settle).
        write_intent(
            self.intent_path,
            Intent(head.size, head.end, head.last, tuple(e.hash for e in entries), new_head),
            durable=self._durable,
        )
        written = os.write(fd, data)
        if written != len(data):
            # Our own bytes, under our lock: take them back at once.
            os.ftruncate(fd, head.end)
            self._drop_intent()
            raise LogError(
                f"only {written} of {len(data)} bytes reached {self.path} (disk full?); "
                "the partial write was taken back and nothing was appended: free some "
                "space and try again."
            )
        if self._durable:
            _datasync(fd)
        os.replace(self.intent_path, self.head_path)
        self._trusted_head = new_head
        return entries

    # ------------------------------------------------------------------ writing

    def append(self, kind: str, payload: Mapping[str, Any]) -> LogEntry:
        """Append one entry; see :meth:`append_many`."""
        return self.append_many([(kind, payload)])[0]

    def append_many(self, items: Iterable[tuple[str, Mapping[str, Any]]]) -> list[LogEntry]:
        """Append entries with one lock, one write, one fsync and one head update.

        Payloads are checked (canonical JSON) before the lock is taken, so a bad payload
        leaves the log untouched.  Raises :class:`LogDamagedError` /
        :class:`LogTamperedError` when the log must be verified or repaired first.
        """
        batch = [(kind, dict(payload)) for kind, payload in items]
        for kind, payload in batch:
            _check_kind(kind)
            canonical_bytes(payload)
        if not batch:
            return []
        with self._writing("append to"), self._locked():
            fd = self._open_fd()
            try:
                return self._append_locked(fd, self._checked_head(fd), list(batch))
            finally:
                os.close(fd)

    def annotate(self, seq: int, support: str, by: str, note: str | None = None) -> LogEntry:
        """Record ``by``'s judgement (supports / contradicts / absent) of entry ``seq``."""
        if support not in SUPPORT_VALUES:
            raise LogError(f"--support must be one of {', '.join(SUPPORT_VALUES)}.")
        if not by.strip():
            raise LogError("--by must name the person or judge giving the verdict.")
        target = self.get(seq)
        payload: dict[str, Any] = {
            "target": {"seq": target.seq, "hash": target.hash, "kind": target.kind},
            "support": support,
            "by": by.strip(),
        }
        if note:
            payload["note"] = note
        return self.append("annotation", payload)

    # ------------------------------------------------------------------ reading

    def entries(self, start: int = 1) -> Iterator[LogEntry]:
        """Valid entries from ``start`` on, streamed; stops at the first invalid line."""
        for lineno, raw in enumerate(iter_raw_lines(self.path), 1):
            if lineno < start:
                continue
            try:
                yield parse_line(raw)
            except LineProblemError:
                return

    def last(self, n: int) -> list[LogEntry]:
        return list(deque(self.entries(), maxlen=n)) if n > 0 else []

    def get(self, seq: int) -> LogEntry:
        for entry in self.entries(seq):
            if entry.seq == seq:
                return entry
            break
        raise LogError(
            f"entry {seq} is not in the evidence log {self.path} (or is damaged); "
            "`citeproof log show` lists the entries."
        )

    @property
    def size(self) -> int:
        """The number of entries covered by the signed head (0 without a head)."""
        head = read_head(self.head_path)
        return head.size if head else 0

    # ------------------------------------------------------------------ checking

    def checkpoint(self) -> str:
        """The signed checkpoint of the log as last signed (after checking the head)."""
        head = read_head(self.head_path)
        if head is None:
            if self.path.exists() and self.path.stat().st_size:
                raise self._damaged("has no signed head (its .head file is missing)")
            return self._sign_head(CompactRange(), 0, ZERO_HASH).checkpoint
        head.verify(self.key.verifier)
        return head.checkpoint

    def verify(self, checkpoint: str | None = None) -> VerifyReport:
        """Check every entry, the chain, the signed head and ``checkpoint``; creates nothing
        (no key, no file: a log that is not there verifies as empty)."""
        from citeproof.evidence.verify import verify_log  # start-up

        key = self._existing_key()
        return verify_log(self.path, key.verifier if key is not None else None, checkpoint)

    def prove(self, seq: int) -> ProofBundle:
        head = read_head(self.head_path)
        if head is None:
            if not self.path.exists() or self.path.stat().st_size == 0:
                # A fresh log has no head to repair: it simply holds no entries yet.
                raise LogError(
                    f"the evidence log {self.path} has no entry {seq}: it holds no entries "
                    "yet (every check adds one); `citeproof log show` lists the entries."
                )
            raise self._damaged("has no signed head (its .head file is missing)")
        from citeproof.evidence.verify import prove  # start-up

        return prove(self.path, head, self.key.verifier, seq)

    # ------------------------------------------------------------------ repair

    def repair(self, *, set_aside_unsigned: bool = False) -> RepairReport:
        """Move a damaged tail aside, sign whole valid entries the head missed, record it.

        ``set_aside_unsigned`` moves entries not covered by the signed head aside too,
        instead of signing them (use it when they were not written by you).  A log that is
        not there at all is left so: nothing is created.
        """
        from citeproof.models.evidence import RepairReport  # start-up

        if not self.exists:
            return RepairReport(repaired=False, message="the log is empty; nothing to do.")
        with self._writing("repair"), self._locked():
            fd = self._open_fd()
            try:
                return RepairReport(**self._repair_locked(fd, set_aside_unsigned))
            finally:
                os.close(fd)

    def _repair_locked(self, fd: int, set_aside_unsigned: bool) -> dict[str, Any]:
        """What :meth:`repair` did, as the fields of its report."""
        size = os.fstat(fd).st_size
        head = read_head(self.head_path)
        if head is not None:
            head.verify(self.key.verifier)
            if size < head.end:
                raise LogTamperedError(
                    f"the evidence log {self.path} is shorter than its signed head: "
                    "entries were removed, which repair cannot undo; restore it from a backup."
                )
            if head.size:
                try:
                    last = parse_line(read_line_ending_at(fd, head.end))
                except LineProblemError:
                    last = None
                if last is None or last.hash != head.last:
                    raise LogTamperedError(
                        f"signed entries of {self.path} were altered; repair only fixes the "
                        "tail. Run `citeproof log verify` and restore from a backup."
                    )
        # An interrupted append is the next appender's to settle, and so repair's first.
        head, size, settled = self._settle(fd, head, size)
        stale_intent = settled == "unexplained"
        if head is None:
            acc, start, prev, reason = CompactRange(), 0, ZERO_HASH, "no signed head"
        else:
            acc, start, prev = head.compact_range(), head.end, head.last
            reason = "data after the last signed entry"
        if size == start and not stale_intent:
            done = _SETTLED.get(settled, "")
            if head is None and size == 0:
                return {"repaired": False, "message": f"the log is empty; nothing to do{done}."}
            if head is not None:
                return {"repaired": False, "message": f"the log is intact; nothing to do{done}."}
        end, adopted = start, 0
        if not set_aside_unsigned:
            for raw in iter_raw_lines(self.path, start):
                try:
                    entry = parse_line(raw)
                except LineProblemError:
                    break
                if entry.seq != acc.size + 1 or entry.prev != prev:
                    break
                acc.append(raw[:-1])
                prev, end, adopted = entry.hash, end + len(raw), adopted + 1
        moved = b""
        moved_path: Path | None = None
        if end < size:
            moved = os.pread(fd, size - end, end)
            moved_path = self._set_aside(fd, end, moved, "damaged")
        head = self._sign_head(acc, end, prev)
        write_head(self.head_path, head, durable=True, sync_dir=True)
        if stale_intent:
            self._drop_intent()
        payload: dict[str, Any] = {
            "reason": reason,
            "moved_bytes": len(moved),
            "moved_to": moved_path.name if moved_path else None,
            "moved_sha256": hashlib.sha256(moved).hexdigest() if moved_path else None,
            "adopted_entries": adopted,
        }
        if adopted:
            payload["adopted_to_seq"] = acc.size
            payload["adopted_root"] = acc.root().hex()
        if stale_intent:
            payload["discarded_intent"] = True
        (entry,) = self._append_locked(fd, head, [("repair", payload)])
        parts = []
        if moved_path:
            parts.append(f"moved {len(moved)} damaged bytes to {moved_path}")
        if adopted:
            parts.append(f"signed {adopted} whole entries the head did not cover")
        if stale_intent:
            parts.append(f"removed an append intent ({self.intent_path.name}) that did not match")
        return {
            "repaired": True,
            "message": "; ".join(parts or ["signed the log"]) + f"; recorded as entry {entry.seq}.",
            "moved_bytes": len(moved),
            "moved_to": str(moved_path) if moved_path else None,
            "moved_sha256": payload["moved_sha256"],
            "adopted": adopted,
            "entry_seq": entry.seq,
        }
