"""What ``citeproof audit`` writes, and what it refuses to (issue 21: nothing a user wrote is
lost, every failure is one line).

* ``--html`` never writes over an input (the answer, by any name, or the evidence log), even
  with ``--overwrite``, and says so before the audit runs;
* over an existing file only with ``--overwrite``, except an earlier audit page, which a
  re-run replaces; the page is written whole or not at all;
* an option the run would ignore (``-o`` without ``--batch``, ``--find-source`` with it) is a
  usage error, not silently dropped.

Every answer here has no citation, so the audit needs no source and no network.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import Result

import citeproof.report.page as page_module
from citeproof.errors import HtmlWriteError
from citeproof.report.page import GENERATOR_TAG, is_audit_page, render_audit_html, write_audit_html

if TYPE_CHECKING:
    from conftest import CliRun

ANSWER = "# Sleep\n\nA morning walk helps older adults sleep.\n"


def answer_file(tmp_path: Path) -> Path:
    path = tmp_path / "ans.md"
    path.write_text(ANSWER, encoding="utf-8")
    return path


def one_error_line(result: Result) -> str:
    """The single ``citeproof: error:`` line a refused run prints, and nothing on stdout."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeproof: error: "), result.stderr
    assert result.stdout == ""  # no report: the audit did not run
    return lines[0]


# --------------------------------------------------------------------- --html over an input


def test_the_page_is_never_written_over_the_answer(run_cli: CliRun, tmp_path: Path) -> None:
    """``audit ans.md --html ans.md`` overwrote the answer with the page (exit 1)."""
    answer = answer_file(tmp_path)
    log = tmp_path / "log.jsonl"
    for extra in ((), ("--overwrite",)):
        result = run_cli("audit", answer, "--html", answer, "--log", log, *extra)
        line = one_error_line(result)
        assert f"the --html page {answer} is the input {answer}" in line
        assert answer.read_text(encoding="utf-8") == ANSWER
        assert not log.exists()  # refused before the audit ran: nothing was logged


def test_the_answer_by_another_name_and_the_log_are_inputs_too(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = answer_file(tmp_path)
    link = tmp_path / "link.md"
    link.symlink_to(answer)
    refused = run_cli("audit", answer, "--html", link, "--no-log", "--overwrite")
    assert "is the input" in one_error_line(refused)
    assert answer.read_text(encoding="utf-8") == ANSWER
    log = tmp_path / "log.jsonl"
    assert run_cli("audit", answer, "--html", tmp_path / "first.html", "--log", log).exit_code == 0
    before = log.read_bytes()
    refused = run_cli("audit", answer, "--html", log, "--log", log, "--overwrite")
    assert "is the input" in one_error_line(refused)
    assert log.read_bytes() == before
    # The log in use by default (CITEPROOF_LOG here), even when this run does not write to it.
    monkeypatch.setenv("CITEPROOF_LOG", str(log))
    refused = run_cli("audit", answer, "--html", log, "--no-log", "--overwrite")
    assert "is the input" in one_error_line(refused)
    assert log.read_bytes() == before


# --------------------------------------------------------------- --html over an existing file


def test_an_unrelated_file_is_replaced_only_with_overwrite(run_cli: CliRun, tmp_path: Path) -> None:
    """``audit --html notes.txt`` silently replaced the user's notes."""
    answer = answer_file(tmp_path)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    refused = run_cli("audit", answer, "--html", notes, "--no-log")
    line = one_error_line(refused)
    assert "already exists and citeproof did not write it" in line and "--overwrite" in line
    assert notes.read_text(encoding="utf-8") == "my notes\n"
    replaced = run_cli("audit", answer, "--html", notes, "--no-log", "--overwrite")
    assert replaced.exit_code == 0, replaced.output
    assert is_audit_page(notes)


def test_a_rerun_replaces_its_own_page_without_overwrite(run_cli: CliRun, tmp_path: Path) -> None:
    answer = answer_file(tmp_path)
    page = tmp_path / "audit.html"
    assert run_cli("audit", answer, "--html", page, "--no-log").exit_code == 0
    first = page.read_text(encoding="utf-8")
    assert first.index(GENERATOR_TAG.decode()) < 4096
    answer.write_text(ANSWER + "\nAnother uncited claim about naps.\n", encoding="utf-8")
    again = run_cli("audit", answer, "--html", page, "--no-log")
    assert again.exit_code == 0, again.output
    assert "naps" in page.read_text(encoding="utf-8") and "naps" not in first
    empty = tmp_path / "empty.html"
    empty.touch()  # an empty file holds nothing to lose
    assert run_cli("audit", answer, "--html", empty, "--no-log").exit_code == 0


def test_a_page_path_that_cannot_be_written_is_refused_before_the_audit(
    run_cli: CliRun, tmp_path: Path
) -> None:
    answer = answer_file(tmp_path)
    log = tmp_path / "log.jsonl"
    missing = run_cli("audit", answer, "--html", tmp_path / "no" / "page.html", "--log", log)
    assert "does not exist" in one_error_line(missing)
    folder = run_cli("audit", answer, "--html", tmp_path, "--log", log)
    assert "directory" in one_error_line(folder)
    assert not log.exists()


def test_the_page_is_written_whole_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure (or Ctrl-C) while writing leaves the earlier page as it was, and no
    half-written file beside it."""
    report = {"schema": "citeproof.audit/1", "verdict": "pass", "sentences": []}
    target = tmp_path / "audit.html"
    write_audit_html(report, ANSWER, target)
    before = target.read_bytes()
    assert before.decode() == render_audit_html(report, ANSWER)

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(page_module.os, "fsync", full_disk)
    with pytest.raises(HtmlWriteError, match="No space left on device"):
        write_audit_html(report | {"verdict": "fail"}, ANSWER, target)

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(page_module.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_audit_html(report | {"verdict": "fail"}, ANSWER, target)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.html"]


def test_a_new_page_gets_the_usual_permissions(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        path = write_audit_html({"verdict": "pass"}, ANSWER, tmp_path / "audit.html")
    finally:
        os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o644


def test_only_a_citeproof_page_is_recognised(tmp_path: Path) -> None:
    mine = write_audit_html({"verdict": "pass"}, ANSWER, tmp_path / "mine.html")
    assert is_audit_page(mine)
    theirs = tmp_path / "theirs.html"
    theirs.write_text("<!DOCTYPE html><html><head><title>x</title></head></html>")
    late = tmp_path / "late.html"  # the tag far down a file is not a page's head
    late.write_bytes(b" " * 8192 + GENERATOR_TAG)
    assert not is_audit_page(theirs) and not is_audit_page(late)
    assert not is_audit_page(tmp_path / "absent.html") and not is_audit_page(tmp_path)


# ------------------------------------------------------------------ options a run would ignore


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("-o", "out.jsonl"), "-o/--output goes with --batch"),
        (("--output", "-"), "-o/--output goes with --batch"),
        (("--resume",), "--resume goes with --batch"),
        (("--workers", "2"), "--workers goes with --batch"),
        (("--overwrite",), "--overwrite replaces the file --html FILE names"),
    ],
)
def test_a_batch_option_without_batch_is_a_usage_error(
    run_cli: CliRun,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: tuple[str, ...],
    named: str,
) -> None:
    """``audit x.md -o out.jsonl`` audited to the terminal and wrote no out.jsonl."""
    answer = answer_file(tmp_path)
    monkeypatch.chdir(tmp_path)
    line = one_error_line(run_cli("audit", answer, "--no-log", *args))
    assert named in line and "'citeproof audit --help'" in line
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--find-source",), "--find-source is for one answer's audit"),
        (("--no-references",), "--no-references is for one answer's audit"),
        (("--format", "markdown"), 'give each line its own "format"'),
        (("--log", "log.jsonl"), "a batch records nothing in the evidence log"),
        (("--open",), "--open is for one answer's audit"),
    ],
)
def test_an_option_a_batch_ignores_is_a_usage_error(
    run_cli: CliRun, tmp_path: Path, args: tuple[str, ...], named: str
) -> None:
    lines = tmp_path / "answers.jsonl"
    lines.write_text('{"id": 1, "answer": "A claim."}\n')
    out = tmp_path / "reports.jsonl"
    line = one_error_line(run_cli("audit", "--batch", lines, "-o", out, "--offline", *args))
    assert named in line
    assert not out.exists()


def test_overwrite_is_documented_for_html(run_cli: CliRun, tmp_path: Path) -> None:
    shown = " ".join(run_cli("audit", "--help").stdout.split())
    assert "--overwrite Replace an existing file at --html FILE, or with --batch" in shown
