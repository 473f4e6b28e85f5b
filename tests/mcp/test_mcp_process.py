"""The server as a process: the message cap on stdio, how it stops, and the settings it refuses.

* A line over 4 MiB on stdin ends the server with one ``citeproof: error:`` line, exit 2,
  and a JSON-RPC error on stdout, in bounded memory: ``citeproof mcp < /dev/zero`` grew to
  24 GB in four seconds.
* Ctrl-C is exit 130 with one line, at once, also while a call is under way (it waited for
  the call, and ``python -m citeproof.mcp`` printed "Aborted!" and exited 1); SIGTERM is an
  orderly stop, exit 0 (it was killed by the signal); the end of input is exit 0.
* An HTTP option without ``--http`` is a usage error (``--token`` was silently ignored), an
  empty host says it is empty, a port in use is one line before anything is printed.

Servers run as real subprocesses (signals and file descriptors are the point), on loopback.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import pytest
from mcp_helpers import INITIALIZE, REPO, server_env

from citeproof.mcp import stdio
from citeproof.mcp.serving import MAX_MESSAGE_BYTES
from citeproof.mcp.stdio import CHUNK_BYTES, LineRelay

if TYPE_CHECKING:
    from conftest import CliRun

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="/dev/zero, wait4 and rlimits")

INITIALIZE_LINE = json.dumps(INITIALIZE).encode() + b"\n"
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
INTERRUPTED = "citeproof: interrupted (Ctrl-C); nothing more was done."
TOO_LONG = "citeproof: error: a message on standard input is longer than 4,194,304 bytes"
#: A server whose retraction_status never returns: a call under way when a signal lands.
STUCK_SERVER = """
import sys, threading
from citeproof.mcp import tools

def retraction_status(self, identifier):
    print("test: the call is under way", file=sys.stderr, flush=True)
    threading.Event().wait()

tools.CiteproofTools.retraction_status = retraction_status
from citeproof.cli.mcp import main
main()
"""
STUCK_CALL = (
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"retraction_status",'
    b'"arguments":{"identifier":"10.1000/xyz"}}}\n'
)


def _limit_memory() -> None:
    """In the child: at most 2 GiB of address space, so a server that grows without bound
    fails there instead of taking the machine (the bug grew to 24 GB)."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def _start(
    args: list[str],
    home: Path,
    processes: list[subprocess.Popen[bytes]],
    *,
    stdin: int | IO[bytes] | None = subprocess.PIPE,
) -> subprocess.Popen[bytes]:
    """``python ARGS``, in ``processes`` at once, so a failing test never leaves it running."""
    proc = subprocess.Popen(
        [sys.executable, *args],
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=server_env(home),
        cwd=REPO,
        preexec_fn=_limit_memory if sys.platform == "linux" else None,
    )
    processes.append(proc)
    return proc


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Servers started by a test, killed if the test left them running."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _finish(proc: subprocess.Popen[bytes], timeout: float = 30) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) once ``proc`` ends; a failure if it does not in time."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the server did not end within {timeout} s: {err.decode()[-500:]}")
    return proc.returncode, out.decode(), err.decode()


def _peak_memory(proc: subprocess.Popen[bytes], timeout: float = 60) -> tuple[int, int]:
    """(exit code, peak resident memory in KiB) of ``proc``, waited for with wait4; killed
    after ``timeout`` seconds."""
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        killer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_maxrss


def _read_line_with(stream: IO[bytes] | None, wanted: str, timeout: float = 30) -> str:
    """The first line of ``stream`` that holds ``wanted``."""
    assert stream is not None
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        line = stream.readline().decode()
        if not line:
            break
        seen.append(line)
        if wanted in line:
            return line
    pytest.fail(f"{wanted!r} never came; read: {''.join(seen)[-500:]}")


def _stdio_server(
    args: list[str], home: Path, processes: list[subprocess.Popen[bytes]]
) -> subprocess.Popen[bytes]:
    """A stdio server started with ``args`` that has answered the initialize handshake: it
    is reading its input."""
    proc = _start(args, home, processes)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INITIALIZE_LINE)
    proc.stdin.flush()
    assert json.loads(proc.stdout.readline())["id"] == 1
    proc.stdin.write(INITIALIZED)
    proc.stdin.flush()
    return proc


# ------------------------------------------------------------------------------ the line cap


def _relay(data: bytes, limit: int, *, end: bool = True) -> tuple[bytes, bool]:
    """What :class:`LineRelay` passes on of ``data`` (then the end of input, if ``end``),
    and whether it stopped at a line over ``limit``."""
    source_read, source_write = os.pipe()
    sink_read, sink_write = os.pipe()
    relay = LineRelay(source_read, sink_write, limit)
    copying = threading.Thread(target=relay.run)
    copying.start()

    def feed() -> None:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(source_write, view) :]
        except OSError:  # the relay stopped reading and its end was closed
            pass
        finally:
            if end:
                os.close(source_write)

    feeding = threading.Thread(target=feed, daemon=True)
    feeding.start()
    passed = bytearray()
    while chunk := os.read(sink_read, 1 << 16):
        passed += chunk
    copying.join(10)
    assert not copying.is_alive()
    os.close(source_read)  # a feeder still writing gets EPIPE
    feeding.join(10)
    if not end:
        os.close(source_write)
    os.close(sink_read)
    return bytes(passed), relay.too_long


def test_the_relay_passes_whole_lines_up_to_the_limit() -> None:
    limit = 4 * CHUNK_BYTES
    lines = [b'{"a":1}\n', b"x" * limit + b"\n", b"y" * (3 * CHUNK_BYTES + 5) + b"\n", b"{}"]
    assert _relay(b"".join(lines), limit) == (b"".join(lines), False)
    assert _relay(b"", limit) == (b"", False)


def test_the_relay_stops_at_the_first_line_over_the_limit() -> None:
    limit = CHUNK_BYTES
    before, after = b'{"id":1}\n{"id":2}\n', b'{"id":3}\n'
    passed, too_long = _relay(before + b"z" * (limit + 1) + b"\n" + after, limit)
    assert (passed, too_long) == (before, True)  # nothing of the long line, nothing after it
    # a line over the limit that never ends: the relay does not wait for its end
    assert _relay(before + b"\0" * (3 * limit), limit, end=False) == (before, True)


def test_a_relay_limit_below_a_chunk_is_refused() -> None:
    with pytest.raises(ValueError, match="at least"):
        LineRelay(0, 1, CHUNK_BYTES - 1)


@pytest.mark.slow
@linux_only
def test_an_endless_line_on_stdin_ends_the_server_at_once(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    """``citeproof mcp < /dev/zero`` grew to 24 GB in four seconds."""
    with open("/dev/zero", "rb") as zero:
        proc = _start(["-m", "citeproof.mcp", "--no-log"], tmp_path, processes, stdin=zero)
    code, out, err = _finish(proc)
    assert code == 2, err[-500:]
    (line,) = err.splitlines()
    assert line.startswith(TOO_LONG) and "one line of JSON" in line
    answer = json.loads(out.splitlines()[-1])  # JSON-RPC's answer to what could not be read
    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert str(MAX_MESSAGE_BYTES) in answer["error"]["message"]


@pytest.mark.slow
@linux_only
def test_a_64_mb_line_is_refused_in_bounded_memory(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    """The line is read in chunks and dropped past the cap; the requests before it are
    answered.  Memory is compared with the same server given no input at all."""
    idle = _start(
        ["-m", "citeproof.mcp", "--no-log"], tmp_path, processes, stdin=subprocess.DEVNULL
    )
    idle_code, idle_peak = _peak_memory(idle)
    assert idle_code == 0

    proc = _start(["-m", "citeproof.mcp", "--no-log"], tmp_path, processes)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdin = proc.stdin

    def feed() -> None:
        try:
            stdin.write(INITIALIZE_LINE)
            for _ in range(64):
                stdin.write(b"[" * (1 << 20))
            stdin.close()
        except (BrokenPipeError, ValueError):
            pass  # the server stopped reading, as it should

    feeding = threading.Thread(target=feed, daemon=True)
    feeding.start()
    started = time.monotonic()
    code, peak = _peak_memory(proc)
    took = time.monotonic() - started
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    feeding.join(10)
    assert code == 2, err[-500:]
    assert err.splitlines() == [err.strip()] and err.startswith(TOO_LONG)
    first, *_, last = out.splitlines()
    assert json.loads(first)["id"] == 1  # the initialize before the long line was answered
    assert json.loads(last)["error"]["code"] == -32600
    grew = peak - idle_peak
    assert grew < 32 * 1024, f"the server grew by {grew} KiB reading a 64 MiB line"
    assert took < 30


# ------------------------------------------------------------------------------ stopping


def _interrupt(proc: subprocess.Popen[bytes]) -> tuple[int, str, str]:
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    result = _finish(proc, timeout=15)
    assert time.monotonic() - started < 10, "Ctrl-C waited"
    return result


@pytest.mark.slow
@pytest.mark.parametrize("entry", [["-m", "citeproof.mcp"], ["-m", "citeproof", "mcp"]])
def test_ctrl_c_on_stdio_is_one_line_and_exit_130(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]], entry: list[str]
) -> None:
    """``python -m citeproof.mcp`` printed "Aborted!" and exited 1."""
    proc = _stdio_server([*entry, "--no-log"], tmp_path, processes)
    code, out, err = _interrupt(proc)
    assert (code, out, err) == (130, "", INTERRUPTED + "\n")


@pytest.mark.slow
def test_ctrl_c_during_a_call_under_way_stops_at_once(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    """The event loop turned Ctrl-C into a cancellation, which waited for the call's thread:
    the server went on until the call ended (a slow fetch: minutes)."""
    script = tmp_path / "stuck_server.py"
    script.write_text(STUCK_SERVER, encoding="utf-8")
    proc = _stdio_server([str(script), "--no-log"], tmp_path, processes)
    assert proc.stdin is not None
    proc.stdin.write(STUCK_CALL)
    proc.stdin.flush()
    _read_line_with(proc.stderr, "the call is under way")
    code, _, err = _interrupt(proc)
    assert (code, err) == (130, INTERRUPTED + "\n")


def test_the_end_of_input_stops_the_stdio_server_with_exit_0(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    proc = _stdio_server(["-m", "citeproof.mcp", "--no-log"], tmp_path, processes)
    assert proc.stdin is not None
    proc.stdin.close()
    proc.stdin = None  # closed: nothing for communicate() to flush
    code, out, err = _finish(proc)
    assert (code, out, err) == (0, "", "")


@pytest.mark.slow
def test_sigterm_stops_the_stdio_server_with_exit_0(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    proc = _stdio_server(["-m", "citeproof.mcp", "--no-log"], tmp_path, processes)
    proc.send_signal(signal.SIGTERM)
    code, _, err = _finish(proc, timeout=15)
    assert (code, err) == (0, "citeproof: stopped (SIGTERM).\n")


def _http_server(
    home: Path, processes: list[subprocess.Popen[bytes]]
) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``citeproof mcp --http --port 0``; the server and the port it reports once
    bound.  It is in ``processes`` before anything can fail, so it is never left running."""
    proc = _start(
        ["-m", "citeproof.mcp", "--http", "--port", "0", "--no-token", "--no-log"], home, processes
    )
    line = _read_line_with(proc.stderr, "serving MCP on")
    found = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", line)
    assert found is not None, line
    port = int(found.group(1))
    assert port != 0  # the port the system chose, not the 0 asked for
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # it listens
    return proc, port


@pytest.mark.parametrize(
    ("sending", "expected"),
    [(signal.SIGINT, (130, INTERRUPTED)), (signal.SIGTERM, (0, "citeproof: stopped (SIGTERM)."))],
    ids=["ctrl-c", "sigterm"],
)
def test_the_http_server_stops_on_a_signal_with_one_line(
    tmp_path: Path,
    processes: list[subprocess.Popen[bytes]],
    sending: signal.Signals,
    expected: tuple[int, str],
) -> None:
    """SIGTERM killed the server (exit -15, nothing said); it is an orderly stop, exit 0."""
    proc, _ = _http_server(tmp_path, processes)
    proc.send_signal(sending)
    code, _, err = _finish(proc, timeout=20)
    assert (code, err.strip()) == expected


# ------------------------------------------------------------------------------ settings


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The transports the command would serve, without serving."""
    calls: list[str] = []

    def fake(name: str) -> Callable[..., bool]:
        def serve(*args: Any, **kwargs: Any) -> bool:
            calls.append(name)
            return False

        return serve

    from citeproof.mcp import http

    monkeypatch.setattr(stdio, "serve_stdio", fake("stdio"))
    monkeypatch.setattr(http, "serve_http", fake("http"))
    monkeypatch.delenv("CITEPROOF_MCP_TOKEN", raising=False)
    return calls


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--token", "test-token-0123456789abcdef"], "--token applies"),
        (["--no-token"], "--no-token applies"),
        (["--host", "0.0.0.0"], "--host applies"),
        (["--port", "9000"], "--port applies"),
        (["--host", "::1", "--port", "9000"], "--host, --port apply"),
    ],
)
def test_an_http_option_without_http_is_a_usage_error(
    run_cli: CliRun, served: list[str], options: list[str], named: str
) -> None:
    """``citeproof mcp --token ...`` served stdio and ignored the token, silently."""
    result = run_cli("mcp", *options, "--no-log")
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"citeproof: error: {named} to --http only")
    assert line.endswith("See 'citeproof mcp --help'.")
    assert served == []


def test_the_token_variable_is_no_error_on_stdio(run_cli: CliRun, served: list[str]) -> None:
    """CITEPROOF_MCP_TOKEN is meant for the HTTP servers a user starts; stdio needs none."""
    result = run_cli("mcp", "--no-log", env={"CITEPROOF_MCP_TOKEN": "test-token-0123456789abcdef"})
    assert result.exit_code == 0, result.output
    assert served == ["stdio"]


@pytest.mark.parametrize("host", ["", "   "])
def test_an_empty_host_says_it_is_empty(run_cli: CliRun, served: list[str], host: str) -> None:
    """It said "refusing to serve on  without a bearer token"."""
    result = run_cli("mcp", "--http", "--host", host)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("citeproof: error: the host is empty; give the address")
    assert served == []


def test_a_port_in_use_is_one_line_before_anything_is_printed(run_cli: CliRun) -> None:
    """uvicorn printed the URL, then its own error, and exited 3."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_cli("mcp", "--http", "--port", port, "--no-token", "--no-log")
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"citeproof: error: cannot serve on 127.0.0.1:{port}: the port is in use (another "
        "server?); choose another --port, or 0 for any."
    ]
