"""The evidence log: format, appends, reading, checkpoints, proofs, repair."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from citeproof.evidence.canonical import CanonicalJSONError
from citeproof.evidence.lines import ZERO_HASH, build_line, head_path_for, read_head
from citeproof.evidence.log import (
    EvidenceLog,
    LogDamagedError,
    LogError,
    LogTamperedError,
    default_log_path,
    verify_proof,
)
from citeproof.evidence.merkle import leaf_hash, root_of
from citeproof.store.keys import LogKey


def _clock() -> Iterator[datetime]:
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    while True:
        yield moment
        moment += timedelta(seconds=1)


@pytest.fixture
def key() -> LogKey:
    return LogKey.generate()


@pytest.fixture
def log(tmp_path: Path, key: LogKey) -> EvidenceLog:
    ticks = _clock()
    return EvidenceLog(tmp_path / "evidence.jsonl", key=key, clock=lambda: next(ticks))


def test_line_format_matches_the_design(log: EvidenceLog) -> None:
    first = log.append("check", {"quote": "naïve", "n": 1})
    second = log.append("search", {"q": "x"})
    lines = log.path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 3
    obj = json.loads(lines[0])
    assert obj == {
        "v": 1,
        "seq": 1,
        "time": "2026-01-02T03:04:05.000000Z",
        "kind": "check",
        "prev": ZERO_HASH,
        "payload": {"quote": "naïve", "n": 1},
        "hash": first.hash,
    }
    assert "naïve".encode() in lines[0]  # UTF-8, not \u escapes
    without = {k: v for k, v in obj.items() if k != "hash"}
    canonical = json.dumps(without, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert first.hash == "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    assert json.loads(lines[1])["prev"] == first.hash and second.seq == 2
    assert first.line.encode() == lines[0]


def test_append_many_is_one_batch(log: EvidenceLog) -> None:
    log.append("check", {})
    entries = log.append_many([("search", {"i": i}) for i in range(5)])
    assert [e.seq for e in entries] == [2, 3, 4, 5, 6]
    assert len({e.time for e in entries}) == 1  # one clock reading for the batch
    assert log.append_many([]) == []
    assert log.size == 6 and log.verify().ok


def test_bad_payload_or_kind_leaves_the_log_untouched(log: EvidenceLog) -> None:
    log.append("check", {})
    before = log.path.read_bytes()
    with pytest.raises(CanonicalJSONError):
        log.append_many([("check", {"ok": 1}), ("check", {"bad": float("nan")})])
    with pytest.raises(LogError, match="kind"):
        log.append("not a kind!", {})
    assert log.path.read_bytes() == before


def test_reading_entries(log: EvidenceLog) -> None:
    for i in range(5):
        log.append("check" if i % 2 else "search", {"i": i})
    assert [e.seq for e in log.entries()] == [1, 2, 3, 4, 5]
    assert [e.seq for e in log.entries(4)] == [4, 5]
    assert log.get(3).payload == {"i": 2}
    assert [e.seq for e in log.last(2)] == [4, 5]
    with pytest.raises(LogError, match="not in the evidence log"):
        log.get(6)


def test_annotate(log: EvidenceLog) -> None:
    target = log.append("check", {"verdict": "EXACT"})
    note = log.annotate(1, "supports", "Dr Who", "fine")
    assert note.kind == "annotation"
    assert note.payload == {
        "target": {"seq": 1, "hash": target.hash, "kind": "check"},
        "support": "supports",
        "by": "Dr Who",
        "note": "fine",
    }
    with pytest.raises(LogError, match="support"):
        log.annotate(1, "maybe", "x")
    with pytest.raises(LogError, match="--by"):
        log.annotate(1, "absent", "  ")
    with pytest.raises(LogError):
        log.annotate(9, "absent", "x")


def test_head_and_checkpoint_follow_every_append(log: EvidenceLog, key: LogKey) -> None:
    empty = log.checkpoint()
    assert empty.split("\n")[1] == "0"
    leaves = []
    for i in range(7):
        e = log.append("check", {"i": i})
        leaves.append(leaf_hash(e.line.encode()))
        head = read_head(head_path_for(log.path))
        assert head is not None and head.size == i + 1 and head.last == e.hash
        assert head.end == log.path.stat().st_size
        assert head.compact_range().root() == root_of(leaves)
    cp = log.checkpoint()
    assert cp.split("\n")[:2] == [key.name, "7"]


def test_verify_against_an_old_checkpoint(log: EvidenceLog) -> None:
    log.append_many([("check", {"i": i}) for i in range(10)])
    old = log.checkpoint()
    log.append_many([("check", {"i": i}) for i in range(10, 15)])
    report = log.verify(old)
    assert report.ok and report.entries == 15 and report.checkpoint_size == 10


def test_inclusion_proof_round_trip(log: EvidenceLog, key: LogKey) -> None:
    log.append_many([("check", {"i": i}) for i in range(13)])
    for seq in (1, 7, 13):
        bundle = log.prove(seq)
        assert bundle.tree_size == 13 and bundle.leaf_index == seq - 1
        report = verify_proof(bundle.to_json(), key.verifier.verifier_key())
        assert report.ok and report.seq == seq, report.reason
        assert verify_proof(json.dumps(bundle.to_json()), key.verifier).ok
    with pytest.raises(LogError, match="not in the signed log"):
        log.prove(14)


def test_proof_fails_for_a_changed_entry_or_path_or_key(log: EvidenceLog, key: LogKey) -> None:
    log.append_many([("check", {"i": i}) for i in range(9)])
    bundle = log.prove(4).to_json()
    pub = key.verifier.verifier_key()
    changed = dict(bundle, entry=log.get(5).line)
    assert not verify_proof(changed, pub).ok
    edited = dict(bundle, entry=bundle["entry"].replace('"i":3', '"i":4'))
    assert "not a valid log entry" in verify_proof(edited, pub).reason
    path = list(bundle["audit_path"])
    path[0] = path[1]
    assert "does not lead" in verify_proof(dict(bundle, audit_path=path), pub).reason
    assert not verify_proof(dict(bundle, tree_size=8), pub).ok
    assert not verify_proof(dict(bundle, leaf_index=4), pub).ok
    assert not verify_proof(bundle, LogKey.generate().verifier).ok
    assert "malformed" in verify_proof("{not json", pub).reason
    assert "malformed" in verify_proof({"entry": "x"}, pub).reason


def test_torn_tail_stops_appends_and_repair_moves_it_aside(log: EvidenceLog) -> None:
    log.append_many([("check", {"i": i}) for i in range(3)])
    intact = log.path.read_bytes()
    torn = b'{"hash":"sha256:12'
    with log.path.open("ab") as f:
        f.write(torn)
    report = log.verify()
    assert not report.ok and report.problems[0].code == "torn"
    assert report.problems[0].seq == 4 and report.entries == 3
    with pytest.raises(LogDamagedError, match="citeproof log repair"):
        log.append("check", {})
    fixed = log.repair()
    assert fixed.repaired and fixed.moved_bytes == len(torn) and fixed.adopted == 0
    assert fixed.moved_to is not None and Path(fixed.moved_to).read_bytes() == torn
    assert fixed.moved_sha256 == hashlib.sha256(torn).hexdigest()
    assert log.path.read_bytes().startswith(intact)  # nothing valid rewritten
    entry = log.get(4)
    assert entry.kind == "repair" and entry.payload["moved_bytes"] == len(torn)
    assert entry.payload["moved_to"] == Path(fixed.moved_to).name
    assert log.verify().ok
    log.append("check", {})
    assert log.repair().repaired is False


def test_unsigned_whole_entries_are_signed_by_repair(log: EvidenceLog, tmp_path: Path) -> None:
    """An append interrupted between writing the line and signing the head."""
    log.append("check", {})
    head = log.head_path.read_bytes()
    log.append("check", {"interrupted": True})
    log.head_path.write_bytes(head)  # as if the process died before the head update
    report = log.verify()
    assert [p.code for p in report.problems] == ["unsigned"]
    with pytest.raises(LogDamagedError):
        log.append("check", {})
    fixed = log.repair()
    assert fixed.adopted == 1 and fixed.moved_bytes == 0 and fixed.entry_seq == 3
    assert log.get(2).payload == {"interrupted": True}
    assert log.verify().ok


def test_repair_can_set_unsigned_entries_aside(log: EvidenceLog) -> None:
    log.append("check", {})
    head = log.head_path.read_bytes()
    stranger = log.append("check", {"by": "stranger"})
    log.head_path.write_bytes(head)
    fixed = log.repair(set_aside_unsigned=True)
    assert fixed.adopted == 0 and fixed.moved_to is not None
    assert Path(fixed.moved_to).read_text().strip() == stranger.line
    assert log.get(2).kind == "repair" and log.verify().ok


def test_missing_head(log: EvidenceLog) -> None:
    log.append_many([("check", {"i": i}) for i in range(3)])
    cp = log.checkpoint()
    log.head_path.unlink()
    report = log.verify()
    assert report.head == "missing" and report.problems[0].code == "head-missing"
    assert "no signed head" in report.problems[0].message
    # A copy without its head still verifies against a checkpoint covering all of it.
    assert log.verify(cp).ok
    with pytest.raises(LogDamagedError, match="no signed head"):
        log.append("check", {})
    fixed = log.repair()
    assert fixed.adopted == 3 and log.verify(cp).ok and log.size == 4


def test_repair_refuses_a_log_shorter_than_its_head(log: EvidenceLog) -> None:
    log.append_many([("check", {"i": i}) for i in range(3)])
    data = log.path.read_bytes()
    log.path.write_bytes(data[: data.index(b"\n") + 1])
    with pytest.raises(LogTamperedError, match="backup"):
        log.repair()
    with pytest.raises(LogTamperedError, match="removed"):
        log.append("check", {})


def test_a_short_write_is_taken_back(log: EvidenceLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk cuts the line short: the append takes its own bytes back and fails, and
    the log stays appendable (it used to need `log repair`)."""
    log.append("check", {})
    before = log.path.read_bytes()
    real_write = os.write

    def short_write(fd: int, data: bytes) -> int:
        if os.fstat(fd).st_ino == log.path.stat().st_ino:
            return real_write(fd, data[:5])
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", short_write)
    with pytest.raises(LogError, match="disk full") as caught:
        log.append("check", {"long": "x" * 100})
    assert not isinstance(caught.value, LogDamagedError)
    assert "nothing was appended" in str(caught.value)
    monkeypatch.undo()
    assert log.path.read_bytes() == before and not log.intent_path.exists()
    assert log.verify().ok
    log.append("check", {"after": True})
    assert log.size == 2 and log.verify().ok


def test_key_from_the_key_dir_and_default_path(tmp_path: Path) -> None:
    log = EvidenceLog(tmp_path / "l.jsonl", key_dir=tmp_path / "keys")
    log.append("check", {})
    assert (tmp_path / "keys" / "log-ed25519.pem").exists()
    again = EvidenceLog(tmp_path / "l.jsonl", key_dir=tmp_path / "keys")
    assert again.verify().ok
    other_key = EvidenceLog(tmp_path / "l.jsonl", key=LogKey.generate())
    assert other_key.verify().problems[0].code == "head-invalid"
    with pytest.raises(LogTamperedError, match="does not verify"):
        other_key.append("check", {})
    assert default_log_path({"CITEPROOF_LOG": str(tmp_path / "x")}) == tmp_path / "x"
    assert default_log_path({"CITEPROOF_HOME": str(tmp_path)}) == (
        tmp_path / "data" / "evidence.jsonl"
    )


def test_append_cost_does_not_read_the_log(
    log: EvidenceLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    log.append_many([("check", {"i": i, "pad": "x" * 200}) for i in range(2000)])
    size = log.path.stat().st_size
    read_bytes = 0
    real_pread = os.pread

    def counting_pread(fd: int, n: int, offset: int) -> bytes:
        nonlocal read_bytes
        read_bytes += n
        return real_pread(fd, n, offset)

    monkeypatch.setattr(os, "pread", counting_pread)
    log.append("check", {})
    assert read_bytes < 20_000 < size


# --------------------------------------------------------------------------- killed appends


class _Killed(BaseException):
    """Stands for SIGKILL: nothing after the kill point runs, no ``except`` catches it."""


def _log_fd(log: EvidenceLog, fd: int) -> bool:
    return log.path.exists() and os.fstat(fd).st_ino == log.path.stat().st_ino


def _kill_at(point: str, log: EvidenceLog, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the next append of ``log`` die at ``point``."""
    import citeproof.evidence.log as log_module

    real_write, real_replace = os.write, os.replace
    if point == "writing-intent":
        real_intent = log_module.write_intent

        def half_intent(path: Path, intent: object, *, durable: bool = True) -> None:
            real_intent(path, intent, durable=durable)  # type: ignore[arg-type]
            data = path.read_bytes()
            path.write_bytes(data[: len(data) // 2])
            raise _Killed

        monkeypatch.setattr(log_module, "write_intent", half_intent)
    elif point in ("before-write", "torn-write"):

        def write(fd: int, data: bytes) -> int:
            if _log_fd(log, fd):
                if point == "torn-write":
                    real_write(fd, data[: len(data) // 2])
                raise _Killed
            return real_write(fd, data)

        monkeypatch.setattr(os, "write", write)
    elif point == "before-fsync":

        def datasync(fd: int) -> None:
            raise _Killed

        monkeypatch.setattr(log_module, "_datasync", datasync)
    elif point == "before-head":

        def replace(src: Path, dst: Path) -> None:
            if Path(dst) == log.head_path:
                raise _Killed
            real_replace(src, dst)

        monkeypatch.setattr(os, "replace", replace)
    else:
        raise AssertionError(point)


# point -> is the killed append there afterwards (finished) or not (rolled back / dropped)
KILL_POINTS = {
    "writing-intent": False,
    "before-write": False,
    "torn-write": False,
    "before-fsync": True,
    "before-head": True,
}


@pytest.mark.parametrize("point", sorted(KILL_POINTS))
def test_the_next_appender_settles_an_append_killed_at_any_point(
    point: str, tmp_path: Path, key: LogKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append killed between writing its lines and signing the head used to stop every
    other appender until `log repair`; now the next one finishes or rolls it back."""
    path = tmp_path / "evidence.jsonl"
    dead = EvidenceLog(path, key=key)
    acked = dead.append_many([("check", {"i": i}) for i in range(3)])
    _kill_at(point, dead, monkeypatch)
    with pytest.raises(_Killed):
        dead.append_many([("check", {"killed": k, "pad": "x" * 300}) for k in range(3)])
    monkeypatch.undo()

    other = EvidenceLog(path, key=key)  # another process: nothing cached
    after = other.append("check", {"after": True})
    finished = KILL_POINTS[point]
    assert after.seq == (7 if finished else 4)
    entries = list(other.entries())
    assert [e.hash for e in entries[:3]] == [e.hash for e in acked]  # acknowledged: kept
    assert [e.payload.get("killed") for e in entries[3:-1]] == ([0, 1, 2] if finished else [])
    report = other.verify()
    assert report.ok, report.problems
    assert report.entries == other.size == after.seq and not other.intent_path.exists()
    rolled = sorted(tmp_path.glob("evidence.jsonl.rolled-back-*"))
    assert len(rolled) == (point == "torn-write")  # a partial write is set aside, not lost
    assert other.repair().repaired is False  # nothing is left for repair


def test_verify_explains_an_interrupted_append_before_it_is_settled(
    tmp_path: Path, key: LogKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "evidence.jsonl"
    log = EvidenceLog(path, key=key)
    log.append("check", {})

    # Lines on disk, head not yet replaced: the intent's signature covers them.
    _kill_at("before-head", log, monkeypatch)
    with pytest.raises(_Killed):
        log.append_many([("check", {"k": 1}), ("check", {"k": 2})])
    monkeypatch.undo()
    report = EvidenceLog(path, key=key).verify()
    assert report.ok and report.entries == 3 and report.signed_size == 1, report.problems
    assert any("entries 2 to 3" in note and "intent" in note for note in report.notes)
    assert EvidenceLog(path, key=key).checkpoint().split("\n")[1] == "1"  # only the head's
    EvidenceLog(path, key=key).append("check", {})

    # A write cut short: reported, and rolled back by the next append (not by repair).
    _kill_at("torn-write", log, monkeypatch)
    with pytest.raises(_Killed):
        log.append("check", {"pad": "x" * 200})
    monkeypatch.undo()
    report = EvidenceLog(path, key=key).verify()
    assert [p.code for p in report.problems] == ["interrupted"]
    assert "no repair is needed" in report.problems[0].message
    assert EvidenceLog(path, key=key).append("check", {}).seq == 5
    assert EvidenceLog(path, key=key).verify().ok

    # Killed before writing a byte: a note only.
    _kill_at("before-write", log, monkeypatch)
    with pytest.raises(_Killed):
        log.append("check", {})
    monkeypatch.undo()
    report = EvidenceLog(path, key=key).verify()
    assert report.ok and any("before it wrote anything" in n for n in report.notes)


def test_the_first_append_killed_before_its_head(
    tmp_path: Path, key: LogKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "evidence.jsonl"
    log = EvidenceLog(path, key=key)
    _kill_at("before-head", log, monkeypatch)
    with pytest.raises(_Killed):
        log.append("check", {"first": True})
    monkeypatch.undo()
    assert not log.head_path.exists()
    report = EvidenceLog(path, key=key).verify()
    assert report.ok and report.head == "missing" and report.notes, report.problems
    assert EvidenceLog(path, key=key).append("check", {}).seq == 2
    assert log.verify().ok and log.get(1).payload == {"first": True}


def test_an_intent_does_not_sign_what_it_does_not_cover(
    tmp_path: Path, key: LogKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Settling acts only on the intent's own lines, signed with the log's own key."""
    path = tmp_path / "evidence.jsonl"
    log = EvidenceLog(path, key=key)
    log.append("check", {})
    _kill_at("before-head", log, monkeypatch)
    with pytest.raises(_Killed):
        log.append("check", {"v": "real"})
    monkeypatch.undo()
    intent = log.intent_path.read_bytes()
    data = log.path.read_bytes()
    real = log.get(2)
    # The same length and a valid chain, other content (so not the signed root); shorter.
    forged, _ = build_line(2, real.time, "check", real.prev, {"v": "fake"})
    short, _ = build_line(2, real.time, "check", real.prev, {"v": "x"})
    assert len(forged) == len(real.line) + 1
    last_start = data.rindex(b"\n", 0, len(data) - 1) + 1
    for tail in (forged, short):
        log.path.write_bytes(data[:last_start] + tail)
        log.intent_path.write_bytes(intent)
        with pytest.raises(LogDamagedError, match="citeproof log repair"):
            EvidenceLog(path, key=key).append("check", {})
        assert "unsigned" in [p.code for p in log.verify().problems]
    # The real lines, but an intent signed with another key.
    log.path.write_bytes(data)
    stranger = EvidenceLog(tmp_path / "other.jsonl", key=LogKey.generate())
    _kill_at("before-head", stranger, monkeypatch)
    with pytest.raises(_Killed):
        stranger.append("check", {"v": "real"})
    monkeypatch.undo()
    obj = json.loads(intent)
    obj["checkpoint"] = json.loads(stranger.intent_path.read_bytes())["checkpoint"]
    log.intent_path.write_text(json.dumps(obj))
    with pytest.raises(LogDamagedError):
        EvidenceLog(path, key=key).append("check", {})
    # Repair signs the whole entries as before, and drops the intent that did not match.
    fixed = EvidenceLog(path, key=key).repair()
    assert fixed.adopted == 1 and "intent" in fixed.message and not log.intent_path.exists()
    assert log.get(3).payload["discarded_intent"] is True and log.verify().ok


def test_repair_settles_an_interrupted_append_first(
    tmp_path: Path, key: LogKey, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "evidence.jsonl"
    log = EvidenceLog(path, key=key)
    log.append("check", {})
    _kill_at("before-fsync", log, monkeypatch)
    with pytest.raises(_Killed):
        log.append("check", {})
    monkeypatch.undo()
    fixed = EvidenceLog(path, key=key).repair()
    assert not fixed.repaired and "completed" in fixed.message
    assert log.size == 2 and log.verify().ok
