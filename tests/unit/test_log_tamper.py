"""Tamper fixtures, each named for the attack, built from a real log in a temporary directory.

Every attack must make ``verify`` fail (and name what is wrong), and appending must stop
where the attack left the log unsafe to extend.
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

from citeproof.evidence.lines import ZERO_HASH, build_line
from citeproof.evidence.log import EvidenceLog, LogDamagedError, LogError
from citeproof.models.evidence import VerifyReport
from citeproof.store.keys import LogKey

N = 10


@pytest.fixture(scope="module")
def key() -> LogKey:
    return LogKey.generate()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory, key: LogKey) -> tuple[Path, str, str]:
    """A 10-entry log, its checkpoint at 6 entries and at 10 entries."""
    folder = tmp_path_factory.mktemp("pristine")
    log = EvidenceLog(folder / "evidence.jsonl", key=key)
    log.append_many([("check", {"quote": f"quote {i}", "verdict": "EXACT"}) for i in range(6)])
    cp6 = log.checkpoint()
    log.append_many([("search", {"query": f"q{i}"}) for i in range(6, N)])
    return folder, cp6, log.checkpoint()


@pytest.fixture
def victim(tmp_path: Path, pristine: tuple[Path, str, str], key: LogKey) -> EvidenceLog:
    folder, _, _ = pristine
    for f in folder.iterdir():
        if f.name.startswith("evidence.jsonl") and not f.name.endswith(".lock"):
            shutil.copy(f, tmp_path / f.name)
    return EvidenceLog(tmp_path / "evidence.jsonl", key=key)


def _lines(log: EvidenceLog) -> list[bytes]:
    return log.path.read_bytes().splitlines(keepends=True)


def _write(log: EvidenceLog, lines: list[bytes]) -> None:
    log.path.write_bytes(b"".join(lines))


def _recompute_from(lines: list[bytes], start: int) -> list[bytes]:
    """What an attacker without the key can do: rebuild the hash chain after an edit."""
    out = lines[:start]
    prev = json.loads(out[-1])["hash"] if out else ZERO_HASH
    for seq, raw in enumerate(lines[start:], start + 1):
        obj = json.loads(raw)
        line, entry = build_line(seq, obj["time"], obj["kind"], prev, obj["payload"])
        out.append(line)
        prev = entry.hash
    return out


def _codes(report: VerifyReport) -> list[str]:
    return [p.code for p in report.problems]


def test_pristine_log_verifies(victim: EvidenceLog, pristine: tuple[Path, str, str]) -> None:
    _, cp6, cp10 = pristine
    assert victim.verify().ok and victim.verify(cp6).ok and victim.verify(cp10).ok


def test_edited_payload(victim: EvidenceLog) -> None:
    lines = _lines(victim)
    original = json.loads(lines[3])["hash"]
    lines[3] = lines[3].replace(b'"quote 3"', b'"quote X"')
    _write(victim, lines)
    report = victim.verify()
    first = report.problems[0]
    assert not report.ok and first.code == "hash-mismatch" and first.seq == 4
    assert first.actual == original and first.expected not in (None, original)
    assert "entry 4" in first.message
    # Appends check only the tail (their cost must not grow with the log): editing the
    # last entry stops them; a middle edit is left to `verify`, which finds it above.
    lines[-1] = lines[-1].replace(b'"q9"', b'"qX"')
    _write(victim, lines)
    with pytest.raises(LogError, match="altered"):
        victim.append("check", {})


def test_edit_with_the_whole_chain_recomputed(
    victim: EvidenceLog, pristine: tuple[Path, str, str]
) -> None:
    _, cp6, _ = pristine
    lines = _lines(victim)
    lines[2] = lines[2].replace(b'"quote 2"', b'"quote X"')
    _write(victim, _recompute_from(lines, 2))
    report = victim.verify()
    assert _codes(report) == ["rewritten"]  # every line and link is valid on its own
    assert report.problems[0].expected != report.problems[0].actual
    assert "chain recomputed" in report.problems[0].message
    assert "checkpoint-mismatch" in _codes(victim.verify(cp6))
    with pytest.raises(LogError, match="altered"):
        victim.append("check", {})


def test_deleted_middle_entry(victim: EvidenceLog, pristine: tuple[Path, str, str]) -> None:
    lines = _lines(victim)
    del lines[4]
    _write(victim, lines)
    report = victim.verify()
    first = report.problems[0]
    assert first.code == "seq-gap" and first.line == 5
    assert (first.expected, first.actual) == ("5", "6")
    # Renumbered and rechained: the signed root and the checkpoint still catch it.
    _write(victim, _recompute_from(lines, 4))
    assert "truncated" in _codes(victim.verify())
    assert "checkpoint-mismatch" in _codes(victim.verify(pristine[1]))


def test_two_entries_swapped(victim: EvidenceLog, pristine: tuple[Path, str, str]) -> None:
    lines = _lines(victim)
    lines[2], lines[3] = lines[3], lines[2]
    _write(victim, lines)
    first = victim.verify().problems[0]
    assert first.code == "seq-gap" and first.line == 3
    # Swapped and rechained so every seq and prev is right again.
    swapped = [json.loads(x) for x in lines]
    swapped[2]["seq"], swapped[3]["seq"] = 3, 4
    rebuilt = [x if i < 2 else b"" for i, x in enumerate(lines)]
    prev = json.loads(lines[1])["hash"]
    for i in range(2, N):
        line, entry = build_line(
            i + 1, swapped[i]["time"], swapped[i]["kind"], prev, swapped[i]["payload"]
        )
        rebuilt[i], prev = line, entry.hash
    _write(victim, rebuilt)
    assert _codes(victim.verify()) == ["rewritten"]
    assert "checkpoint-mismatch" in _codes(victim.verify(pristine[1]))


def test_truncated_tail(
    victim: EvidenceLog, pristine: tuple[Path, str, str], tmp_path: Path
) -> None:
    _, cp6, cp10 = pristine
    lines = _lines(victim)
    _write(victim, lines[:8])
    report = victim.verify()
    assert _codes(report) == ["truncated"] and report.entries == 8
    assert (report.problems[0].expected, report.problems[0].actual) == (str(N), "8")
    with pytest.raises(LogError, match="removed"):
        victim.append("check", {})
    # Rolled back to an old *signed* state (log and head copied from a backup of when it
    # held 6 entries): only a checkpoint the user kept can tell, and it does.
    old = EvidenceLog(tmp_path / "old" / "evidence.jsonl", key=victim.key)
    old.path.parent.mkdir()
    old.path.write_bytes(b"".join(lines[:6]))
    old.head_path.unlink(missing_ok=True)
    old.repair()  # signs what it holds (and records a repair entry), like an old head
    shutil.copy(old.path, victim.path)
    shutil.copy(old.head_path, victim.head_path)
    assert victim.verify().ok
    assert victim.verify(cp6).ok
    assert _codes(victim.verify(cp10)) == ["checkpoint-truncated"]  # 7 entries < 10


def test_line_appended_by_someone_without_the_key(victim: EvidenceLog) -> None:
    last = json.loads(_lines(victim)[-1])
    line, _ = build_line(N + 1, last["time"], "check", last["hash"], {"forged": True})
    with victim.path.open("ab") as f:
        f.write(line)
    report = victim.verify()
    assert _codes(report) == ["unsigned"] and report.problems[0].seq == N + 1
    with pytest.raises(LogDamagedError):
        victim.append("check", {})
    # The signed head cannot be moved forward without the key.
    head = json.loads(victim.head_path.read_bytes())
    head["size"], head["last"] = N + 1, json.loads(line)["hash"]
    victim.head_path.write_text(json.dumps(head))
    assert "head-invalid" in _codes(victim.verify())


def test_checkpoint_with_a_forged_signature(
    victim: EvidenceLog, pristine: tuple[Path, str, str]
) -> None:
    _, _, cp10 = pristine
    body, _, sig_line = cp10.rstrip("\n").rpartition("\n")
    name, blob = sig_line[2:].split(" ")
    raw = bytearray(base64.b64decode(blob))
    raw[-1] ^= 0x55
    forged = f"{body}\n\u2014 {name} {base64.b64encode(bytes(raw)).decode()}\n"
    report = victim.verify(forged)
    assert not report.ok and _codes(report) == ["checkpoint-invalid"]
    assert "forged or altered" in report.problems[0].message
    # A checkpoint signed by another key under the log's name.
    impostor = LogKey.generate(victim.key.name)
    from citeproof.evidence.checkpoint import Checkpoint, sign_checkpoint

    fake = sign_checkpoint(Checkpoint(victim.key.name, 3, b"\0" * 32), impostor)
    assert _codes(victim.verify(fake)) == ["checkpoint-invalid"]
