"""Serving over stdio with a bounded message size.

The SDK's stdio transport reads each message as one line of standard input, and a line has
no length limit: ``citeproof mcp < /dev/zero`` (one endless line) grew to 24 GB in four
seconds.  Over HTTP the SDK refuses a body over 4 MiB; this module gives stdio the same cap
(:data:`~citeproof.mcp.serving.MAX_MESSAGE_BYTES`) without replacing the SDK's transport:
the client's bytes reach the SDK through a pipe, copied by :class:`LineRelay`, which reads
them in bounded chunks and passes on only whole lines of at most the cap.

**A line over the cap ends the server.**  stdio has no way to refuse one message and go on:
the rest of an over-long line may never come (``/dev/zero``), and until it ends nothing
after it can be read.  So the relay stops at once, the SDK sees the end of input (the
messages before the line are handled), the client gets a JSON-RPC error with ``id: null``
(JSON-RPC 2.0's answer to a request that could not be read; the SDK itself drops an
unreadable line without a word) and the command ends with one ``citeproof: error:`` line
and exit 2.  A client that sent it sees the server close, as after any failure of a stdio
server.

Memory stays bounded: the relay holds at most one line (the cap) and a chunk, and the SDK
never reads a longer line than the relay passed on.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from typing import TYPE_CHECKING, Final

from citeproof.errors import BadInputError
from citeproof.mcp.serving import MAX_MESSAGE_BYTES, run_until_stopped

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["CHUNK_BYTES", "INVALID_REQUEST", "LineRelay", "serve_stdio"]

#: How much of standard input is read at a time.
CHUNK_BYTES: Final = 64 * 1024
#: JSON-RPC 2.0's code for a message that is not a valid request.
INVALID_REQUEST: Final = -32600


class LineRelay:
    """Copy bytes from ``source`` to ``sink`` (file descriptors) one whole line at a time,
    and stop at the first line longer than ``limit`` bytes (its newline not counted).

    :meth:`run` returns at the end of ``source`` (passing on a last line without a newline),
    at a line over the limit (``too_long`` is then True and that line is not passed on), or
    when ``sink`` is closed; it closes ``sink`` either way, so the reader sees the end.
    """

    def __init__(self, source: int, sink: int, limit: int = MAX_MESSAGE_BYTES) -> None:
        if limit < CHUNK_BYTES:
            raise ValueError(f"limit must be at least {CHUNK_BYTES} bytes, one chunk")
        self.source = source
        self.sink = sink
        self.limit = limit
        self.too_long = False
        self.done = threading.Event()

    def run(self) -> None:
        try:
            self._copy()
        except OSError:  # the reader went away, or the source failed: the end either way
            pass
        finally:
            os.close(self.sink)
            self.done.set()

    def _copy(self) -> None:
        pending = bytearray()  # the line begun and not yet ended
        while True:
            chunk = os.read(self.source, CHUNK_BYTES)
            if not chunk:
                self._write(pending)
                return
            last = chunk.rfind(b"\n")
            if last < 0:
                pending += chunk
                if len(pending) > self.limit:
                    self.too_long = True
                    return
                continue
            # Only the first line ending here can be long: the others lie within the chunk.
            if len(pending) + chunk.find(b"\n") > self.limit:
                self.too_long = True
                return
            pending += chunk[: last + 1]
            self._write(pending)
            pending = bytearray(chunk[last + 1 :])

    def _write(self, data: bytearray) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.sink, view) :]


def _stdin_fd() -> int | None:
    """0 when standard input is the process's file descriptor 0 (not a test's stand-in)."""
    try:
        return 0 if sys.stdin is not None and sys.stdin.fileno() == 0 else None
    except (AttributeError, OSError, ValueError):
        return None


def _too_long_answer() -> str:
    error = {
        "code": INVALID_REQUEST,
        "message": f"message too large: a message is one line of at most {MAX_MESSAGE_BYTES} "
        "bytes; the server stopped",
    }
    return json.dumps({"jsonrpc": "2.0", "id": None, "error": error}, separators=(",", ":"))


def serve_stdio(server: MCPServer) -> bool:
    """Serve ``server`` over stdin and stdout until the client closes stdin (False) or
    SIGTERM stops it (True); a line over the cap ends it with :class:`BadInputError`."""
    import anyio

    def serve() -> None:
        anyio.run(server.run_stdio_async)

    if _stdin_fd() is None:  # an in-process stand-in for stdin (a test runner): no fd to guard
        return run_until_stopped(serve)
    source = os.dup(0)  # the client's stream, kept by the relay
    read_end, write_end = os.pipe()
    os.dup2(read_end, 0)  # what the SDK reads as stdin
    os.close(read_end)
    relay = LineRelay(source, write_end)
    threading.Thread(target=relay.run, name="citeproof-mcp-stdin", daemon=True).start()
    stopped = run_until_stopped(serve)
    # The SDK ends at the end of input, which the relay makes as it ends; a signal leaves it
    # reading, on a descriptor it still needs.
    if stopped or not relay.done.wait(timeout=5):
        return stopped
    os.dup2(source, 0)
    os.close(source)
    if relay.too_long:
        sys.stdout.write(_too_long_answer() + "\n")
        sys.stdout.flush()
        raise BadInputError(
            f"a message on standard input is longer than {MAX_MESSAGE_BYTES:,} bytes (4 MiB), "
            "the most one MCP message may be, over stdio as over HTTP; the server stopped. "
            "Send each message as one line of JSON."
        )
    return stopped
