"""Many processes appending at once, and a process killed in the middle of an append loop."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from citeproof.evidence.log import EvidenceLog
from citeproof.store.keys import LogKey

# Many processes appending, some killed mid-write: long concurrency runs, left to CI.
pytestmark = pytest.mark.slow

WORKERS = 8
PER_WORKER = 500


def _key_from(pem: bytes) -> LogKey:
    private = serialization.load_pem_private_key(pem, password=None)
    assert isinstance(private, Ed25519PrivateKey)
    return LogKey.from_private(private)


def _pem(key: LogKey) -> bytes:
    return key.private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _worker(path: str, pem: bytes, worker: int, start: multiprocessing.synchronize.Event) -> None:
    # durable=False skips the fsyncs only: the lock, the single write and the head update
    # are the same, and this keeps the test at a few seconds (fsync cost is benchmarked).
    log = EvidenceLog(path, key=_key_from(pem), durable=False)
    start.wait()
    for i in range(PER_WORKER):
        log.append("check", {"worker": worker, "i": i})


def test_eight_processes_append_500_entries_each(tmp_path: Path) -> None:
    key = LogKey.generate()
    path = tmp_path / "evidence.jsonl"
    ctx = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    start = ctx.Event()
    procs = [
        ctx.Process(target=_worker, args=(str(path), _pem(key), w, start)) for w in range(WORKERS)
    ]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    log = EvidenceLog(path, key=key)
    report = log.verify()
    assert report.ok, report.problems
    entries = list(log.entries())
    assert len(entries) == WORKERS * PER_WORKER == report.entries == log.size
    assert [e.seq for e in entries] == list(range(1, WORKERS * PER_WORKER + 1))
    seen = {(e.payload["worker"], e.payload["i"]) for e in entries}
    assert len(seen) == WORKERS * PER_WORKER  # nothing lost, nothing doubled


_LOOP = """
import sys
from cryptography.hazmat.primitives import serialization
from citeproof.store.keys import LogKey
from citeproof.evidence.log import EvidenceLog
key = LogKey.from_private(serialization.load_pem_private_key(open(sys.argv[2], "rb").read(), None))
log = EvidenceLog(sys.argv[1], key=key)
i = 0
while True:
    log.append("check", {"i": i, "pad": "x" * 2000})
    i += 1
    if i == 20:
        print("running", flush=True)
"""


def test_sigkill_in_an_append_loop_loses_nothing_but_the_torn_tail(tmp_path: Path) -> None:
    key = LogKey.generate()
    pem_file = tmp_path / "key.pem"
    pem_file.write_bytes(_pem(key))
    path = tmp_path / "evidence.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-c", _LOOP, str(path), str(pem_file)], stdout=subprocess.PIPE
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"running\n"
    time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    log = EvidenceLog(path, key=key)
    report = log.verify()
    # Every whole line verifies; at most the last append is torn or not yet signed.
    assert report.entries == whole.count(b"\n")
    # (With an intent next to them, "unsigned" entries are a note, a partial write is
    # "interrupted".)
    assert all(p.code in {"torn", "unsigned", "interrupted"} for p in report.problems)
    assert report.signed_size is not None and report.signed_size >= report.entries - 1

    # Make the tear deterministic too: half a line, as a crash inside write() would leave.
    torn = b'{"hash":"sha256:' + b"0" * 30
    with path.open("ab") as f:
        f.write(torn)
    assert log.verify().problems[0].code == "torn"
    fixed = log.repair()
    assert fixed.repaired and fixed.moved_bytes == len(torn)
    assert path.read_bytes().startswith(whole)  # nothing valid lost or rewritten
    after = log.verify()
    assert after.ok and after.entries == report.entries + 1  # + the repair entry
    assert [e.payload["i"] for e in log.entries() if e.kind == "check"] == list(
        range(report.entries)
    )


_APPENDER = """
import os, sys
from cryptography.hazmat.primitives import serialization
from citeproof.errors import LogError
from citeproof.evidence.log import EvidenceLog
from citeproof.store.keys import LogKey
key = LogKey.from_private(serialization.load_pem_private_key(open(sys.argv[2], "rb").read(), None))
log = EvidenceLog(sys.argv[1], key=key)
ack = os.open(sys.argv[3], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
i = 0
while True:
    batch = [("check", {"w": sys.argv[3], "i": i + k, "pad": "x" * 300}) for k in range(1 + i % 3)]
    try:
        entries = log.append_many(batch)
    except LogError as exc:
        os.write(ack, ("blocked " + " ".join(str(exc).split()) + "\\n").encode())
        sys.exit(2)
    # Acknowledged only once the call returned.
    os.write(ack, "".join(f"ack {e.seq} {e.hash}\\n" for e in entries).encode())
    i += len(entries)
"""


class _Appender:
    def __init__(self, folder: Path, path: Path, pem: Path, name: str) -> None:
        self.acks = folder / f"acks-{name}.txt"
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _APPENDER, str(path), str(pem), str(self.acks)]
        )

    def lines(self) -> list[str]:
        data = self.acks.read_text() if self.acks.exists() else ""
        return data.splitlines()[: data.count("\n")]

    def acked(self) -> int:
        return sum(line.startswith("ack ") for line in self.lines())

    def blocked(self) -> list[str]:
        return [line for line in self.lines() if line.startswith("blocked ")]


def _lock_is_free(path: Path) -> bool:
    import fcntl

    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing releases the lock
    return True


def _in_the_window(path: Path) -> bool:
    """Lines are on disk that the signed head does not cover yet."""
    from citeproof.evidence.lines import head_path_for, read_head

    try:
        head = read_head(head_path_for(path))
    except Exception:
        return False  # a head being replaced
    return path.exists() and path.stat().st_size > (head.end if head else 0)


def _wait(condition: Callable[[], bool], seconds: float = 15.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.0005)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and SIGSTOP are POSIX")
def test_ten_sigkills_during_appends_by_two_processes_never_block_the_other(
    tmp_path: Path,
) -> None:
    """bench/bench_log_kills.py runs the same with 100 kills at random moments.

    Every other kill is aimed: the survivor is paused outside the lock, and the victim is
    killed the moment its lines are on disk and its head is not yet replaced (the case
    that used to stop every appender until `citeproof log repair`).  The others land at a
    random moment of the victim's loop.
    """
    key = LogKey.generate()
    pem = tmp_path / "key.pem"
    pem.write_bytes(_pem(key))
    path = tmp_path / "evidence.jsonl"
    live = {"a": _Appender(tmp_path, path, pem, "a0"), "b": _Appender(tmp_path, path, pem, "b0")}
    every = list(live.values())
    _wait(lambda: all(a.acked() >= 3 for a in live.values()))
    rng = random.Random(5)
    aimed_hits = 0
    try:
        for trial in range(10):
            name, other = ("a", "b") if trial % 2 else ("b", "a")
            victim, survivor = live[name], live[other]
            while True:  # pause the survivor where it holds no lock
                os.kill(survivor.proc.pid, signal.SIGSTOP)
                if _lock_is_free(path):
                    break
                os.kill(survivor.proc.pid, signal.SIGCONT)
                time.sleep(0.001)
            if trial % 2 == 0:
                # stop the victim in the window and make sure it is still there: on a busy
                # machine it may finish replacing the head between a look and the kill
                for _ in range(200):
                    _wait(lambda: _in_the_window(path))
                    os.kill(victim.proc.pid, signal.SIGSTOP)
                    if _in_the_window(path):
                        break
                    os.kill(victim.proc.pid, signal.SIGCONT)
            else:
                time.sleep(rng.uniform(0, 0.01))
            victim.proc.kill()
            victim.proc.wait()
            aimed_hits += trial % 2 == 0 and _in_the_window(path)
            os.kill(survivor.proc.pid, signal.SIGCONT)
            live[name] = _Appender(tmp_path, path, pem, f"{name}{trial + 1}")
            every.append(live[name])
            base = {id(a): a.acked() for a in live.values()}

            def settled(base: dict[int, int] = base) -> bool:
                return any(a.blocked() for a in live.values()) or all(
                    a.acked() >= base[id(a)] + 3 for a in live.values()
                )

            _wait(settled)
            blocked = [line for a in live.values() for line in a.blocked()]
            assert not blocked, (trial, blocked)
    finally:
        for appender in live.values():
            appender.proc.kill()
            appender.proc.wait()
    # The aimed kills left lines without their head (each victim was stopped in the window).
    assert aimed_hits >= 3

    log = EvidenceLog(path, key=key)
    log.append("check", {"final": True})  # settles whatever the last kills left
    report = log.verify()
    assert report.ok, report.problems
    hashes = {e.seq: e.hash for e in log.entries()}
    acked = [line.split() for a in every for line in a.lines() if line.startswith("ack ")]
    assert len(acked) > 60
    lost = [(seq, digest) for _, seq, digest in acked if hashes.get(int(seq)) != digest]
    assert not lost  # nothing acknowledged was lost
