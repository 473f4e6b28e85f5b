"""The evidence log's on-disk pieces: entry lines, the signed head, and their errors.

Why a module of its own: the writer (:mod:`citeproof.evidence.log`) and the verifier
(:mod:`citeproof.evidence.verify`) must agree byte for byte on what a valid line is, so
both use :func:`build_line` and :func:`parse_line` from here.

A line is the canonical JSON (see :mod:`.canonical`) of ``{v, seq, time, kind, prev,
payload, hash}`` followed by ``\\n``; ``hash`` is ``sha256:`` + the hex SHA-256 of the
canonical JSON of the same object without ``hash``.  Because keys are sorted, ``hash`` is
always the first key, so the line is ``{"hash":"sha256:…",`` + the hashed text minus its
opening brace: one serialisation gives both the hash and the canonical-form check.

The *head* (``<log>.head``) is a small JSON file rewritten atomically after every append:
the size it covers, the byte offset where that many entries end, the last entry's hash,
the compact range of the Merkle tree and a checkpoint of that size and root signed with
the log key.  It is what lets an append cost the same at any log size (nothing is re-read
to extend the tree) and what exposes a line added by someone without the key.

The *intent* (``<log>.intent``) is the head an append is about to install, written and
fsynced *before* the append writes its lines, with ``extends`` naming the head it follows.
Once the lines are synced the append renames the intent over the head, so the head only
ever moves to a state whose lines are on disk.  An append killed in between leaves the
intent behind, and whoever takes the lock next settles it with :func:`intent_outcome`:
lines that are exactly what the intent signs are committed (the rename is done for the
dead process), a write cut short is rolled back, an intent whose append wrote nothing is
discarded.  Anything else is damage the intent does not explain, for ``log repair``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from citeproof.errors import (
    LogDamagedError,
    LogError,
    LogLockedError,
    LogTamperedError,
)
from citeproof.evidence.canonical import CanonicalJSONError, canonical_bytes, canonical_text
from citeproof.evidence.checkpoint import Checkpoint, CheckpointError, verify_checkpoint
from citeproof.evidence.merkle import CompactRange
from citeproof.store.keys import Verifier

__all__ = [
    "FORMAT_VERSION",
    "ZERO_HASH",
    "Head",
    "Intent",
    "IntentOutcome",
    "LineProblemError",
    "LogDamagedError",
    "LogEntry",
    "LogError",
    "LogLockedError",
    "LogTamperedError",
    "build_line",
    "check_line",
    "head_path_for",
    "intent_outcome",
    "intent_path_for",
    "iter_raw_lines",
    "parse_line",
    "read_head",
    "read_intent",
    "write_head",
    "write_intent",
]

FORMAT_VERSION = 1
ZERO_HASH = "sha256:" + "0" * 64
KEYS = frozenset({"v", "seq", "time", "kind", "prev", "payload", "hash"})
_DECODER = json.JSONDecoder()
_TIME_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z")


@dataclass(frozen=True, slots=True)
class LogEntry:
    """One entry as written."""

    seq: int
    time: str
    kind: str
    prev: str
    payload: dict[str, Any]
    hash: str
    line: str

    def to_json(self) -> dict[str, Any]:
        return {
            "v": FORMAT_VERSION,
            "seq": self.seq,
            "time": self.time,
            "kind": self.kind,
            "prev": self.prev,
            "payload": self.payload,
            "hash": self.hash,
        }


def build_line(
    seq: int,
    time: str,
    kind: str,
    prev: str,
    payload: Mapping[str, Any],
    *,
    checked: bool = False,
) -> tuple[bytes, LogEntry]:
    """The bytes of one entry line (newline included) and the entry.

    ``checked``: the payload already passed :func:`canonical_bytes`, so the type walk is not
    repeated (the fields around it are this function's own strings and integers).
    """
    data = dict(payload)
    body: dict[str, Any] = {
        "v": FORMAT_VERSION,
        "seq": seq,
        "time": time,
        "kind": kind,
        "prev": prev,
        "payload": data,
    }
    try:
        hashed = canonical_bytes(body, checked=checked)
    except CanonicalJSONError as exc:
        raise CanonicalJSONError(f"the {kind} entry's payload cannot be logged: {exc}") from exc
    digest = "sha256:" + hashlib.sha256(hashed).hexdigest()
    line = b'{"hash":"' + digest.encode("ascii") + b'",' + hashed[1:]
    text = line.decode("utf-8")
    return line + b"\n", LogEntry(seq, time, kind, prev, data, digest, text)


class LineProblemError(Exception):
    """Why one line is not a valid entry (``expected``/``actual`` for hash mismatches)."""

    def __init__(
        self,
        code: str,
        message: str,
        seq: int | None = None,
        expected: str | None = None,
        actual: str | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.seq = seq
        self.expected = expected
        self.actual = actual


def parse_line(raw: bytes) -> LogEntry:
    """Parse and check one line (with its newline); raise :class:`LineProblemError` if invalid.

    Checks: a whole line, UTF-8, a JSON object with exactly the entry's fields and their
    types, canonical form, and the ``hash`` recomputed from the rest.  Chain checks (seq,
    prev) need the previous entry and are the caller's.
    """
    if not raw.endswith(b"\n"):
        raise LineProblemError("torn", "the last line is incomplete (no newline): a torn write")
    try:
        text = raw[:-1].decode("utf-8")
        obj = _DECODER.decode(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise LineProblemError("bad-json", f"the line is not valid JSON ({exc})") from None
    if not isinstance(obj, dict) or obj.keys() != KEYS:
        raise LineProblemError(
            "bad-fields", "the line is not an entry object with the log's fields"
        )
    seq, stored, prev = obj["seq"], obj.pop("hash"), obj["prev"]
    if not (
        type(seq) is int
        and seq >= 1
        and obj["v"] == FORMAT_VERSION
        and isinstance(obj["time"], str)
        and _TIME_RE.fullmatch(obj["time"])
        and isinstance(obj["kind"], str)
        and obj["kind"]
        and isinstance(prev, str)
        and len(prev) == 71
        and prev.startswith("sha256:")
        and isinstance(obj["payload"], dict)
        and isinstance(stored, str)
    ):
        raise LineProblemError(
            "bad-fields",
            "a field has the wrong type or form",
            seq=seq if type(seq) is int else None,
        )
    try:
        hashed = canonical_text(obj, checked=True).encode("utf-8")
    except (ValueError, CanonicalJSONError):
        raise LineProblemError(
            "not-canonical", "the entry cannot be written as JSON", seq
        ) from None
    digest = "sha256:" + hashlib.sha256(hashed).hexdigest()
    if digest != stored:
        raise LineProblemError(
            "hash-mismatch",
            "the entry's hash does not match its content: the entry was altered",
            seq,
            expected=digest,
            actual=stored,
        )
    if raw != b'{"hash":"' + digest.encode("ascii") + b'",' + hashed[1:] + b"\n":
        raise LineProblemError("not-canonical", "the line is not in canonical JSON form", seq)
    return LogEntry(seq, obj["time"], obj["kind"], prev, obj["payload"], stored, text)


_PREFIX = b'{"hash":"sha256:'
_LOADS = json.loads
_SHA256 = hashlib.sha256


def check_line(raw: bytes, *, canonical: bool = True) -> tuple[int, str, str]:
    """``(seq, prev, hash)`` of a valid line, from ONE parse; :class:`LineProblemError` if not.

    The same checks as :func:`parse_line`, but the hash is computed from the raw bytes (the
    hashed text is the line with its leading ``"hash":"…",`` member cut out, see the module
    docstring) and no :class:`LogEntry` is built.  ``canonical=False`` skips re-encoding the
    line to check its canonical form: only for a line whose bytes a signature vouches for
    (the caller must check the Merkle root and re-check the line otherwise).  A line this
    rejects is rejected by :func:`parse_line` too, which gives the precise reason.
    """
    if raw[-1:] != b"\n" or raw[:16] != _PREFIX or raw[80:82] != b'",':
        raise LineProblemError("bad-form", "the line does not start with its hash")
    try:
        text = raw[:-1].decode("utf-8")
        obj = _LOADS(text)
    except (UnicodeDecodeError, ValueError):
        raise LineProblemError("bad-json", "the line is not valid JSON") from None
    if type(obj) is not dict or obj.keys() != KEYS:
        raise LineProblemError(
            "bad-fields", "the line is not an entry object with the log's fields"
        )
    seq, stored, prev, when, kind = obj["seq"], obj["hash"], obj["prev"], obj["time"], obj["kind"]
    if not (
        type(seq) is int
        and seq >= 1
        and obj["v"] == FORMAT_VERSION
        and type(obj["v"]) is int
        and type(when) is str
        and _TIME_RE.fullmatch(when)
        and type(kind) is str
        and kind
        and type(prev) is str
        and len(prev) == 71
        and prev.startswith("sha256:")
        and type(obj["payload"]) is dict
        and type(stored) is str
    ):
        raise LineProblemError("bad-fields", "a field has the wrong type or form")
    digest = _SHA256(b"{" + raw[82:-1]).hexdigest()
    if stored[7:] != digest or len(stored) != 71:
        raise LineProblemError("hash-mismatch", "the entry's hash does not match its content")
    if canonical:
        try:
            again = canonical_text(obj, checked=True)
        except ValueError:
            raise LineProblemError("not-canonical", "the entry cannot be written as JSON") from None
        if again != text:
            raise LineProblemError("not-canonical", "the line is not in canonical JSON form")
    return seq, prev, stored


# --------------------------------------------------------------------------- head


def head_path_for(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".head")


@dataclass(frozen=True, slots=True)
class Head:
    """The signed state of the log after its last complete append."""

    size: int
    end: int
    last: str
    range: tuple[bytes, ...]
    checkpoint: str

    def compact_range(self) -> CompactRange:
        return CompactRange(self.size, self.range)

    def to_json(self) -> dict[str, Any]:
        return {
            "v": FORMAT_VERSION,
            "size": self.size,
            "end": self.end,
            "last": self.last,
            "range": [h.hex() for h in self.range],
            "checkpoint": self.checkpoint,
        }

    def verify(self, verifier: Verifier) -> Checkpoint:
        """The head's checkpoint after checking its signature and that the stored compact
        range really has the signed root; :class:`LogTamperedError` otherwise."""
        try:
            cp = verify_checkpoint(self.checkpoint, verifier)
        except CheckpointError as exc:
            raise LogTamperedError(
                f"the log's signed head does not verify ({exc}). If the log key was "
                "replaced on purpose, move the .head file aside and run `citeproof log "
                "repair` to sign the log with the new key."
            ) from exc
        try:
            root = self.compact_range().root()
        except ValueError as exc:
            raise LogTamperedError(f"the log's head is damaged ({exc}).") from exc
        if cp.size != self.size or cp.root != root:
            raise LogTamperedError(
                "the log's head was altered: its tree state does not match its signed checkpoint."
            )
        return cp


def _head_from(obj: Any) -> Head:
    """A :class:`Head` from its JSON form (``ValueError``, ``KeyError`` or ``TypeError``
    when it is not one); unknown keys, such as an intent's ``extends``, are ignored."""
    head = Head(
        size=int(obj["size"]),
        end=int(obj["end"]),
        last=str(obj["last"]),
        range=tuple(bytes.fromhex(h) for h in obj["range"]),
        checkpoint=str(obj["checkpoint"]),
    )
    if head.size < 0 or head.end < 0:
        raise ValueError("negative size")
    return head


def _read_if_there(path: Path, what: str) -> bytes | None:
    """The bytes of ``path``, None when it does not exist; :class:`LogError` otherwise."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LogError(f"cannot read {what} {path} ({exc.strerror}).") from exc


def read_head(path: Path) -> Head | None:
    """The head at ``path``, or None when there is none; a malformed file raises."""
    data = _read_if_there(path, "the log head")
    if data is None:
        return None
    try:
        return _head_from(json.loads(data))
    except (ValueError, KeyError, TypeError) as exc:
        raise LogTamperedError(
            f"the log head {path} is damaged ({exc}); move it aside and run `citeproof log repair`."
        ) from exc


def write_head(path: Path, head: Head, *, durable: bool = True, sync_dir: bool = False) -> None:
    """Replace the head atomically: temporary file, fsync, rename.

    The directory is fsynced only when ``sync_dir`` (repair): after an append, a rename
    lost to a power failure leaves the previous head, which makes the last entries look
    unsigned, and ``citeproof log repair`` signs them, so the append path saves that
    fsync (a third of its cost).
    """
    tmp = path.with_name(path.name + ".tmp")
    data = json.dumps(head.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    if durable and sync_dir:
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)


# --------------------------------------------------------------------------- intent


def intent_path_for(log_path: Path) -> Path:
    return log_path.with_name(log_path.name + ".intent")


@dataclass(frozen=True, slots=True)
class Intent:
    """An append's recorded intent: the signed ``head`` it is about to install, the state
    (``size``, ``end``, ``last``) of the head it extends, and the hashes of the entries it
    writes (every line begins with its hash, so even a partial line can be recognised)."""

    size: int
    end: int
    last: str
    entries: tuple[str, ...]
    head: Head

    def extends(self, base: Head) -> bool:
        return (self.size, self.end, self.last) == (base.size, base.end, base.last)

    def to_json(self) -> dict[str, Any]:
        extends = {"size": self.size, "end": self.end, "last": self.last}
        return {**self.head.to_json(), "extends": extends, "entries": list(self.entries)}


def write_intent(path: Path, intent: Intent, *, durable: bool = True) -> None:
    """Write the intent in place (no rename: a kill mid-write leaves a file that does not
    parse, which is only ever discarded, because no line is written before it is synced)."""
    data = json.dumps(intent.to_json(), ensure_ascii=False, indent=1).encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        if os.write(fd, data) != len(data):
            raise OSError(f"short write to {path}")
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def read_intent(path: Path) -> Intent | None:
    """The intent at ``path``, or None when there is none.

    A file that is not a whole intent (an append killed while writing it) raises
    :class:`LogDamagedError`; the caller decides whether that matters (it does not when
    nothing follows the signed entries).
    """
    data = _read_if_there(path, "the append intent")
    if data is None:
        return None
    try:
        obj = json.loads(data)
        base, hashes = obj["extends"], obj["entries"]
        if not isinstance(hashes, list) or not all(isinstance(h, str) for h in hashes):
            raise TypeError("entries is not a list of hashes")
        return Intent(
            int(base["size"]),
            int(base["end"]),
            str(base["last"]),
            tuple(hashes),
            _head_from(obj),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise LogDamagedError(f"the append intent {path} is incomplete ({exc}).") from exc


IntentOutcome = Literal["nothing", "finish", "roll-back", "foreign"]


def intent_outcome(base: Head, intent: Intent, tail: bytes) -> IntentOutcome:
    """What the interrupted append recorded in ``intent`` left after ``base``.

    ``tail`` is every byte of the log after ``base.end``.  The answer:

    * ``nothing``: no byte follows (the append stopped before writing, or the intent does
      not extend ``base`` and explains nothing): discard the intent;
    * ``finish``: the tail is exactly the entries the intent lists, chained from ``base``,
      with the compact range, last hash and end offset of its head: commit the intent;
    * ``roll-back``: the tail is the start of that append and no more (its first entries
      whole, then at most the beginning of the next one, which starts with that entry's
      listed hash): a write cut short, to be set aside;
    * ``foreign``: anything else; the intent does not explain the tail.

    The intent's signature is the caller's to check (:meth:`Head.verify`) before acting on
    ``finish`` or ``roll-back``.
    """
    if not intent.extends(base):
        return "nothing" if not tail else "foreign"
    if not tail:
        return "nothing"
    meant = intent.head.end - base.end
    if (
        len(tail) > meant
        or not intent.entries
        or intent.head.size != base.size + len(intent.entries)
        or intent.head.last != intent.entries[-1]
    ):
        return "foreign"
    acc = base.compact_range()
    prev, pos = base.last, 0
    for digest in intent.entries:
        cut = tail.find(b"\n", pos)
        if cut < 0:
            # A write cut short: what is left must begin the next entry's line.
            rest = tail[pos:]
            start = b'{"hash":"' + digest.encode("utf-8") + b'",'
            return "roll-back" if rest[: len(start)] == start[: len(rest)] else "foreign"
        raw = tail[pos : cut + 1]
        try:
            entry = parse_line(raw)
        except LineProblemError:
            return "foreign"
        if entry.hash != digest or entry.seq != acc.size + 1 or entry.prev != prev:
            return "foreign"
        acc.append(raw[:-1])
        prev, pos = entry.hash, cut + 1
    if pos == len(tail) == meant and tuple(acc.hashes) == intent.head.range:
        return "finish"
    return "foreign"


@contextlib.contextmanager
def file_lock(lock_path: Path, timeout: float, log_path: Path) -> Iterator[None]:
    """An exclusive lock on ``lock_path`` for the duration of the block.

    On POSIX this is ``flock`` on the lock file (what ``filelock.UnixFileLock`` does
    underneath), called directly because the library's bookkeeping cost about 0.4 ms per
    acquisition here, a fifth of the append budget; elsewhere ``filelock.FileLock``.
    """
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        from filelock import FileLock, Timeout

        try:
            with FileLock(str(lock_path), timeout=timeout):
                yield
        except Timeout as exc:
            raise _lock_timeout(log_path, lock_path, timeout) from exc
        return
    import fcntl

    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + timeout
        pause = 0.0002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise _lock_timeout(log_path, lock_path, timeout) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.01)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _lock_timeout(log_path: Path, lock_path: Path, timeout: float) -> LogLockedError:
    return LogLockedError(
        f"the evidence log {log_path} stayed locked for {timeout:g} s by another process; "
        f"try again when it has finished (the lock is {lock_path})."
    )


def datasync(fd: int) -> None:
    """``fdatasync`` where there is one (the file size, which an append changes, is still
    flushed), else ``fsync``."""
    sync = getattr(os, "fdatasync", os.fsync)
    sync(fd)


def iter_raw_lines(path: Path, start: int = 0) -> Iterator[bytes]:
    """The file's lines as bytes from offset ``start`` (the last one may lack a newline)."""
    try:
        f = path.open("rb")
    except FileNotFoundError:
        return
    with f:
        f.seek(start)
        yield from f


def read_line_ending_at(fd: int, end: int, chunk: int = 8192) -> bytes:
    """The line (with its newline) that ends at byte ``end``, read backwards from ``end``."""
    if end <= 0:
        return b""
    parts: list[bytes] = []
    pos = end
    first = True
    while pos > 0:
        start = max(0, pos - chunk)
        block = os.pread(fd, pos - start, start)
        search = block[:-1] if first else block
        first = False
        cut = search.rfind(b"\n")
        if cut >= 0:
            parts.append(block[cut + 1 :])
            break
        parts.append(block)
        pos = start
    return b"".join(reversed(parts))
