"""A log that cannot be written never loses the check's result, and never takes a user's file.

Every failure on the evidence log's path (a folder where the file goes, a file where a folder
goes, no permission, a file that is not a log) used to end in a 40-line traceback with nothing
on stdout: the check had run, and its result was lost.  Now the result is printed first, then
one ``citeproof: error:`` line, exit 2 (docs/cli.md, "Exit codes").
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from citeproof.errors import LogError
from citeproof.evidence.log import EvidenceLog

if TYPE_CHECKING:
    from conftest import CliRun

ROOT = Path(__file__).resolve().parents[2]
NOTES = str(ROOT / "examples" / "example-notes.txt")
QUOTE = "compost applied in autumn had broken down by spring"
NOT_THERE = "compost applied in winter had broken down by spring and summer alike"


def _check(
    *extra: str, env: dict[str, str] | None = None, quote: str = QUOTE
) -> subprocess.CompletedProcess[str]:
    """A real process, as a user runs it: what click's runner would hide (tracebacks) shows."""
    return subprocess.run(
        [sys.executable, "-m", "citeproof", "check", "--json", quote, NOTES, *extra],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def _result_then_one_line(run: subprocess.CompletedProcess[str], says: str) -> dict[str, object]:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeproof: error: "), run.stderr
    assert says in lines[0], lines[0]
    result = json.loads(run.stdout)  # the check's result was printed before the error
    assert isinstance(result, dict)
    assert result["log_seq"] is None
    return result


def test_a_log_under_a_file_prints_the_result_then_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("mine\n")
    run = _check("--log", str(blocker / "log.jsonl"))
    result = _result_then_one_line(run, f"{blocker} is a file, not a folder")
    assert result["verdict"] == "EXACT"
    assert blocker.read_text() == "mine\n"


def test_citeproof_home_a_file_prints_the_result_then_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home-is-a-file"
    home.write_text("not a folder\n")
    run = _check(env={"CITEPROOF_HOME": str(home)}, quote=NOT_THERE)
    result = _result_then_one_line(run, "is a file, not a folder")
    assert result["verdict"] in {"NEAR", "NOT_FOUND"}  # a negative verdict is not lost either
    assert home.read_text() == "not a folder\n"


def test_citeproof_log_a_folder_prints_the_result_then_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    run = _check(env={"CITEPROOF_LOG": str(folder)})
    _result_then_one_line(run, "it is a folder")
    assert list(folder.iterdir()) == []


def test_a_users_file_named_as_the_log_is_left_alone(run_cli: CliRun, tmp_path: Path) -> None:
    """A typo naming a user's notes: never "repaired" into a log, never locked or moved."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, not a log\n")
    run = _check("--log", str(notes))
    _result_then_one_line(run, f"{notes} is not an evidence log")
    assert "repair" not in run.stderr.replace("neither appends to nor repairs", "")
    repair = run_cli("log", "--log", notes, "repair")
    assert repair.exit_code == 2, repair.output
    assert "is not an evidence log" in repair.stderr
    assert notes.read_text() == "my notes, not a log\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no .lock, no .head


def test_an_unwritable_log_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Permission denied (tests run as root, so the refusal is made by hand)."""
    log = EvidenceLog(tmp_path / "evidence.jsonl", key_dir=tmp_path / "keys")
    log.append("check", {"i": 1})
    real_open = os.open

    def refuse(path: str | os.PathLike[str], flags: int, *args: int) -> int:
        if os.fspath(path) == str(log.path):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(LogError, match=r"cannot append to the evidence log .*permission denied"):
        log.append("check", {"i": 2})


def test_annotate_on_a_read_only_log_is_one_line(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "evidence.jsonl"
    monkeypatch.setenv("CITEPROOF_LOG", str(path))
    EvidenceLog(path).append("check", {"i": 1})
    real_open = os.open

    def read_only(p: str | os.PathLike[str], flags: int, *args: int) -> int:
        if os.fspath(p) == str(path) and flags & (os.O_WRONLY | os.O_RDWR):
            raise OSError(errno.EROFS, "Read-only file system", os.fspath(p))
        return real_open(p, flags, *args)

    monkeypatch.setattr(os, "open", read_only)
    run = run_cli("log", "annotate", "1", "--support", "supports", "--by", "me")
    assert run.exit_code == 2, run.output
    assert run.stderr.count("\n") == 1
    assert "is on a read-only file system" in run.stderr


def test_an_os_error_no_step_names_is_still_one_line(tmp_path: Path) -> None:
    """The command line's last net: ``log verify`` on a folder given as CITEPROOF_LOG."""
    folder = tmp_path / "logs"
    folder.mkdir()
    run = subprocess.run(
        [sys.executable, "-m", "citeproof", "log", "verify"],
        capture_output=True,
        text=True,
        env={**os.environ, "CITEPROOF_LOG": str(folder)},
        check=False,
    )
    assert run.returncode == 2
    assert run.stderr == f"citeproof: error: {folder} is a folder, not a file.\n"


def test_an_audit_whose_log_is_under_a_file_prints_the_report_then_one_line(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("mine\n")
    answer = tmp_path / "answer.md"
    answer.write_text("An uncited claim about sleep.\n")
    log = str(blocker / "log.jsonl")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "citeproof",
            "audit",
            "--json",
            "--offline",
            str(answer),
            "--log",
            log,
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "CITEPROOF_HOME": str(tmp_path / "home")},
        check=False,
    )
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeproof: error: "), run.stderr
    assert f"{blocker} is a file, not a folder" in lines[0]
    assert json.loads(run.stdout)["schema"] == "citeproof.audit/1"  # the report came first
    assert blocker.read_text() == "mine\n"
