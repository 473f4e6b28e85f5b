"""The one-parse verify (``_fast_scan``) reports exactly what the full per-line check does."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeproof.evidence.lines import LineProblemError, check_line, parse_line
from citeproof.evidence.log import EvidenceLog
from citeproof.evidence.verify import _full_scan, verify_log
from citeproof.store.keys import LogKey

KEY = LogKey.generate()
SIZE = 6


def _build(folder: Path) -> tuple[Path, str]:
    log = EvidenceLog(folder / "evidence.jsonl", key=KEY, durable=False)
    log.append_many([("check", {"i": i, "quote": f"q{i} é", "n": [i, -i]}) for i in range(3)])
    checkpoint = log.checkpoint()
    log.append_many([("search", {"i": i, "ok": True, "x": None}) for i in range(3, SIZE)])
    return log.path, checkpoint


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return _build(tmp_path_factory.mktemp("pristine"))


def _copy(src: Path, dst: Path) -> Path:
    for p in src.parent.iterdir():
        shutil.copy(p, dst / p.name)
    return dst / src.name


def test_check_line_agrees_with_parse_line(pristine: tuple[Path, str]) -> None:
    for raw in pristine[0].read_bytes().splitlines(keepends=True):
        entry = parse_line(raw)
        assert check_line(raw) == (entry.seq, entry.prev, entry.hash)


def test_sound_log_same_report_as_full_scan(pristine: tuple[Path, str]) -> None:
    path, checkpoint = pristine
    for cp in (None, checkpoint):
        report = verify_log(path, KEY.verifier, cp)
        assert report.ok and report.entries == SIZE, report.problems
        acc, count, *_rest, bad = _full_scan(path, None, None)
        assert bad is None and count == SIZE and acc.root().hex() == report.root


def test_non_canonical_signed_line_detected(pristine: tuple[Path, str], tmp_path: Path) -> None:
    path = _copy(pristine[0], tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"kind":"check"', b'"kind": "check"')
    with pytest.raises(LineProblemError):
        check_line(lines[1])
    path.write_bytes(b"".join(lines))
    for cp in (None, pristine[1]):
        report = verify_log(path, KEY.verifier, cp)
        assert not report.ok
        assert report.problems[0].code in {"not-canonical", "hash-mismatch"}
        assert report.problems[0].line == 2


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), with_cp=st.booleans())
def test_any_single_byte_change_is_detected(
    pristine: tuple[Path, str], data: st.DataObject, with_cp: bool
) -> None:
    src, checkpoint = pristine
    raw = bytearray(src.read_bytes())
    pos = data.draw(st.integers(0, len(raw) - 1))
    byte = data.draw(st.integers(0, 255).filter(lambda b: b != raw[pos]))
    raw[pos] = byte
    with tempfile.TemporaryDirectory() as tmp:
        path = _copy(src, Path(tmp))
        path.write_bytes(bytes(raw))
        report = verify_log(path, KEY.verifier, checkpoint if with_cp else None)
        assert not report.ok


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(i=st.integers(0, SIZE - 1), j=st.integers(0, SIZE - 1), with_cp=st.booleans())
def test_reordered_or_removed_line_is_detected(
    pristine: tuple[Path, str], i: int, j: int, with_cp: bool
) -> None:
    src, checkpoint = pristine
    lines = src.read_bytes().splitlines(keepends=True)
    if i == j:
        del lines[i]
    else:
        lines[i], lines[j] = lines[j], lines[i]
    with tempfile.TemporaryDirectory() as tmp:
        path = _copy(src, Path(tmp))
        path.write_bytes(b"".join(lines))
        assert not verify_log(path, KEY.verifier, checkpoint if with_cp else None).ok
