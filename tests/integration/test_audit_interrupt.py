"""Ctrl-C during ``citeproof audit ANSWER`` (issue 21): one ``citeproof: interrupted`` line on
stderr and exit 130, whatever the audit is waiting on: the answer on standard input, or a
source that is slow to answer while a work is loaded, its reference looked up or its
retraction status asked.  Nothing on the way (an event loop, a gather of requests, a clean-up
handler) may swallow the interrupt and let the audit go on, and the ``--html`` page of an
earlier run is left as it was.

Each case runs the real command in a child process, sent SIGINT as it waits.  The child is
the command line with one change, made by a small driver: the replayed answers are slow (a
recorded response is served after a minute) and the driver says on stderr when it is waiting,
so the signal arrives while the audit waits, not before or after.  No request leaves the
machine: the answers are replayed (``--replay``), or there are none to give (standard input).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeproof.demo import run_demo

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX"),
    pytest.mark.slow,  # Ctrl-C sent to real processes: a long fault run, left to CI
]

WAITING = "citeproof-test: waiting"
INTERRUPTED = "citeproof: interrupted (Ctrl-C); nothing more was done."

DRIVER = f"""
import asyncio, os, sys, time
import citeproof.cli._common as common
from citeproof.net.replay import ReplayTransport

SLOW = os.environ.get("SLOW_URL", "")

def say(request=None):
    if request is None or (SLOW and SLOW in str(request.url)):
        print({WAITING!r}, file=sys.stderr, flush=True)
        return True
    return False

stdin_bytes = common.stdin_bytes
def waiting_stdin(what="the source"):
    say()
    return stdin_bytes(what)
common.stdin_bytes = waiting_stdin

serve, serve_async = ReplayTransport.handle_request, ReplayTransport.handle_async_request
def slow(self, request):
    if say(request):
        time.sleep(60)
    return serve(self, request)
async def slow_async(self, request):
    if say(request):
        await asyncio.sleep(60)
    return await serve_async(self, request)
ReplayTransport.handle_request, ReplayTransport.handle_async_request = slow, slow_async

from citeproof.cli import main
main(sys.argv[1:])
"""


def interrupt(args: list[str], home: Path, slow_url: str = "") -> tuple[int, list[str]]:
    """Run ``citeproof ARGS`` in a child, SIGINT it once it waits; (exit code, stderr lines
    but the driver's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env |= {"CITEPROOF_HOME": str(home), "SLOW_URL": slow_url}
    child = subprocess.Popen(
        [sys.executable, "-c", DRIVER, *args],
        stdin=subprocess.PIPE,  # held open: a read of it waits
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
    )
    assert child.stderr is not None
    seen: list[str] = []
    try:
        for line in child.stderr:
            seen.append(line.rstrip("\n"))
            if line.startswith(WAITING):
                break
        assert seen and seen[-1] == WAITING, seen
        time.sleep(0.3)  # into the read, or the sleep of the slow answer
        child.send_signal(signal.SIGINT)
        started = time.monotonic()
        _, rest = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert time.monotonic() - started < 10  # it stopped; it did not wait the minute out
    lines = [x for x in seen + rest.splitlines() if x != WAITING]
    return child.returncode, lines


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo's folder: its answer, its recordings and its home (keys, cache)."""
    folder = tmp_path_factory.mktemp("demo") / "demo"
    run_demo(folder, say=lambda line: None)
    return folder


def test_ctrl_c_while_the_answer_is_read_from_stdin(tmp_path: Path) -> None:
    code, lines = interrupt(["audit", "-", "--offline", "--no-log"], tmp_path)
    assert (code, lines) == (130, [INTERRUPTED])


@pytest.mark.parametrize(
    "slow_url",
    [
        "esummary",  # looking up the reference list's entry
        "prefix=PMC9900001",  # loading a cited work
        "filter=updates",  # asking for a cited work's retraction status
    ],
)
def test_ctrl_c_while_a_source_is_slow(demo: Path, tmp_path: Path, slow_url: str) -> None:
    page = tmp_path / "audit.html"
    page.write_text('<meta name="generator" content="citeproof"> an earlier page')
    args = ["audit", str(demo / "answer.md"), "--replay", str(demo / "recordings")]
    args += ["--html", str(page), "--log", str(tmp_path / "log.jsonl")]
    code, lines = interrupt(args, demo / "home", slow_url)
    assert (code, lines) == (130, [INTERRUPTED])
    assert page.read_text() == '<meta name="generator" content="citeproof"> an earlier page'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.html"]  # no log, no temp
