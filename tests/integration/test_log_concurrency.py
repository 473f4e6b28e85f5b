"""Many processes appending at once, and a process killed in the middle of an append loop."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from citeproof.evidence.log import EvidenceLog
from citeproof.store.keys import LogKey

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
    assert all(p.code in {"torn", "unsigned"} for p in report.problems), report.problems
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
