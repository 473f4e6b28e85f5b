"""Errors and exit codes a script can trust: usage errors, and the evidence log's refusals.

A script reads stderr line by line and branches on the exit code, so every usage error is
one line, ``citeproof: error: <what> <which --help>``, exit 2, whatever click would have
printed (its own report is ``Usage:``, ``Try ...``, a blank line and ``Error: ...``); the
``--help`` named is the one of the command the user typed.  The log commands refuse a log
the user named that is not there instead of reading it as empty, and reading a log never
creates a signing key.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import Result

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "examples" / "example-notes.txt"
QUOTE = "a garden that is fed from below needs less watering"


def one_error_line(result: Result) -> str:
    """Exit 2, nothing on stdout, exactly one ``citeproof: error:`` line on stderr."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    (line,) = lines
    assert line.startswith("citeproof: error: "), line
    assert "Traceback" not in result.stderr
    return line


# ---------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("args", "words", "help_of"),
    [
        (["check", "--near-threshold", "2", QUOTE, NOTES], ["--near-threshold", "0<x<=1"], "check"),
        (["check", "--limit", "0", QUOTE, NOTES], ["No such option", "--limit"], "check"),
        (
            ["check", "--replay", "no-such-folder", QUOTE, NOTES],
            ["--replay", "no-such-folder"],
            "check",
        ),
        (["passages", "--limit", "0", NOTES], ["--limit", "0"], "passages"),
        (["search", "--limit", "0", "europepmc", "sleep"], ["--limit"], "search"),
        (["text", "--bogus", NOTES], ["--bogus"], "text"),
        (["cache", "import", REPO / "examples"], ["is a directory"], "cache import"),
        (["log", "prove", "abc"], ["'abc'"], "log prove"),
        (["--bogus"], ["--bogus"], ""),
    ],
)
def test_an_option_error_is_one_line_naming_the_help_to_read(
    run_cli: CliRun, args: list[str | Path], words: list[str], help_of: str
) -> None:
    line = one_error_line(run_cli(*args))
    for word in words:
        assert word in line, line
    assert f"'citeproof {help_of} --help'".replace("citeproof  ", "citeproof ") in line, line
    assert "Usage:" not in line  # an option error does not need the synopsis


def test_an_argument_error_repeats_the_usage_on_the_same_line(run_cli: CliRun) -> None:
    line = one_error_line(run_cli("check", QUOTE))
    assert "missing SOURCE" in line
    assert "Usage: citeproof check [OPTIONS] QUOTE SOURCE" in line
    line = one_error_line(run_cli("check", QUOTE, NOTES, "extra"))
    assert "got 3 arguments" in line  # not "missing SOURCE" when there is one too many


def test_a_bad_audit_option_names_the_command_the_user_typed(run_cli: CliRun) -> None:
    """``audit ANSWER`` runs a hidden ``run`` command nobody types; its help is ``audit``'s."""
    line = one_error_line(run_cli("audit", "--bogus", "answer.md"))
    assert "'citeproof audit --help'" in line
    assert "audit run" not in line
    line = one_error_line(run_cli("audit"))
    assert "ANSWER" in line and "audit run" not in line


def test_an_unknown_command_is_one_line_and_suggests_the_near_one(run_cli: CliRun) -> None:
    line = one_error_line(run_cli("nosuch"))
    assert "No such command 'nosuch'" in line and "'citeproof --help'" in line
    line = one_error_line(run_cli("chek", QUOTE, NOTES))
    assert "Did you mean 'check'?" in line


def test_help_is_intact(run_cli: CliRun) -> None:
    for args in (["--help"], ["check", "--help"], ["audit", "--help"], ["log", "verify", "-h"]):
        result = run_cli(*args)
        assert result.exit_code == 0, (args, result.output)
        assert result.stdout.startswith("Usage: citeproof"), result.stdout
    assert run_cli().output.startswith("Usage: citeproof")  # no arguments: the help page


def test_a_real_process_prints_one_line_too() -> None:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    done = subprocess.run(
        [sys.executable, "-m", "citeproof", "check", "--near-threshold", "2", QUOTE, str(NOTES)],
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == b""
    lines = done.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeproof: error: Invalid value")


# ---------------------------------------------------------------------------- the log


def test_verify_on_a_named_log_that_is_not_there_is_an_error(
    run_cli: CliRun, tmp_path: Path
) -> None:
    typo = tmp_path / "typo.jsonl"
    line = one_error_line(run_cli("log", "--log", typo, "verify"))
    assert f"there is no evidence log at {typo}" in line
    line = one_error_line(run_cli("log", "verify", env={"CITEPROOF_LOG": str(typo)}))
    assert "there is no evidence log" in line
    for command in (["show"], ["export"], ["prove", "1"], ["checkpoint"], ["repair"]):
        assert "no evidence log" in one_error_line(run_cli("log", "--log", typo, *command))
    assert not typo.exists()


def test_verify_on_a_fresh_install_creates_no_key(run_cli: CliRun, _private_home: Path) -> None:
    result = run_cli("log", "verify", "--json")
    assert result.exit_code == 0, result.output
    assert '"entries": 0' in result.stdout
    assert not list(_private_home.rglob("*.pem")), "log verify created a signing key"
    assert not list(_private_home.rglob("evidence.jsonl*"))


def test_prove_on_a_fresh_log_says_it_has_no_entry(run_cli: CliRun, _private_home: Path) -> None:
    line = one_error_line(run_cli("log", "prove", "1"))
    assert "has no entry 1" in line and "no entries yet" in line
    assert "repair" not in line
    result = run_cli("log", "repair", "--json")  # and repair has nothing to do, and makes nothing
    assert result.exit_code == 0 and "the log is empty" in result.stdout
    assert not list(_private_home.rglob("evidence.jsonl*"))


def test_a_log_without_its_key_says_where_the_key_belongs(run_cli: CliRun, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text(f"Notes. {QUOTE}, as every gardener knows.\n")
    log = tmp_path / "project.jsonl"
    assert run_cli("check", "--log", log, "--json", QUOTE, notes).exit_code == 0
    other_home = tmp_path / "other-home"  # a data directory without that log's key
    result = run_cli(
        "log", "--log", log, "verify", "--json", env={"CITEPROOF_HOME": str(other_home)}
    )
    assert result.exit_code == 1
    assert "no log key here" in result.stdout
    assert not list(other_home.rglob("*.pem"))
