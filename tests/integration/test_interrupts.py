"""Ctrl-C ends a command with one ``citeproof: interrupted`` line and exit 130.

click's own handler printed "Aborted!" and exited 1, the code of NEAR and NOT_FOUND: a script
would have read an interrupted check as a misquote.  130 (128 + SIGINT) is the shell's code
for a program stopped by Ctrl-C, and every command uses it (docs/cli.md, "Exit codes").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _interrupt_while_waiting(args: list[str]) -> subprocess.CompletedProcess[bytes]:
    """Start ``citeproof ARGS`` reading a stdin that never ends, and press Ctrl-C once it
    waits there (SIGINT to the process, as a terminal sends it)."""
    read, write = os.pipe()  # held open and never written: the command waits on it
    proc = subprocess.Popen(
        [sys.executable, "-m", "citeproof", *args],
        stdin=read,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    os.close(read)
    try:
        time.sleep(1.5)  # start-up and the first read; a late signal still lands in the read
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        os.close(write)
        if proc.poll() is None:
            proc.kill()
    return subprocess.CompletedProcess(args, proc.returncode, out, err)


@pytest.mark.slow
def test_ctrl_c_during_check_is_one_line_and_exit_130() -> None:
    run = _interrupt_while_waiting(
        ["check", "--quote-file", "-", "--no-log", "examples/example-notes.txt"]
    )
    assert run.returncode == 130, run.stderr
    assert run.stdout == b""
    assert run.stderr.decode() == "citeproof: interrupted (Ctrl-C); nothing more was done.\n"
    assert b"Aborted" not in run.stderr
