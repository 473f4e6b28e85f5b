"""How the server runs as a process: the size of a message, and how it stops.

**One cap on a message**, :data:`MAX_MESSAGE_BYTES` (4 MiB, the SDK's own default for an HTTP
request body), on both transports: over HTTP a larger body is answered 413; over stdio a
larger line ends the server (:mod:`citeproof.mcp.stdio`), since nothing bounded could be
done with the rest of it.

**How it stops** (``citeproof mcp --help`` and docs/mcp.md say the same):

* **Ctrl-C** (SIGINT) stops it at once, with exit 130 as every command.  The server runs on
  a worker thread and the main thread only waits for it, so ``KeyboardInterrupt`` is raised
  in the main thread the moment the signal lands.  Run on the main thread, the event loop
  turned the first Ctrl-C into a cancellation, and a cancelled call waits for its worker
  thread: Ctrl-C during a slow fetch did nothing until the fetch ended.
* **SIGTERM** is an orderly stop, exit 0, as process managers expect: ``stop`` (uvicorn's
  graceful shutdown over HTTP) runs, calls under way get :data:`GRACE_SECONDS` to finish,
  and then the process ends whatever still runs.  Without a ``stop`` (stdio, where a client
  sends SIGTERM only after closing stdin and waiting) it ends at once.
* **The end of input** (stdio: the client closed stdin) ends the server with exit 0 once
  the calls under way have ended (the SDK sends their answers nowhere: the client left).

A server stopped by a signal may leave calls running on worker threads, which the
interpreter would wait for at exit; the command line ends the process without them
(``citeproof.cli.mcp``).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Final

__all__ = ["GRACE_SECONDS", "MAX_MESSAGE_BYTES", "run_until_stopped"]

#: The most one MCP message may be, in bytes, over stdio and over HTTP alike
#: (``mcp.server.transport_security.DEFAULT_MAX_REQUEST_BODY_SIZE``).
MAX_MESSAGE_BYTES: Final = 4 * 1024 * 1024
#: How long calls under way may take to finish after SIGTERM.
GRACE_SECONDS: Final = 10
#: How often the waiting main thread looks whether SIGTERM asked it to stop.
_POLL_SECONDS: Final = 0.1


def run_until_stopped(
    serve: Callable[[], None],
    *,
    stop: Callable[[], None] | None = None,
    started: Callable[[], None] | None = None,
    grace: float = GRACE_SECONDS,
) -> bool:
    """Run ``serve`` until it returns (False) or SIGTERM stops it (True).

    ``serve`` runs on a daemon thread, so Ctrl-C raises ``KeyboardInterrupt`` here at once;
    an exception ``serve`` raises is raised here.  On SIGTERM, ``stop`` is called (from the
    signal handler: it must only set a flag) and ``serve`` gets ``grace`` seconds to return.
    ``started`` is called once SIGTERM is handled, so whoever is told the server runs (a
    URL printed) can stop it in order from then on.  Called from any thread but the main
    one (which alone receives signals), ``serve`` just runs there.
    """
    if threading.current_thread() is not threading.main_thread():
        if started is not None:
            started()
        serve()
        return False
    failed: list[BaseException] = []
    terminated = threading.Event()

    def run() -> None:
        try:
            serve()
        except BaseException as exc:  # raised again in the main thread
            failed.append(exc)

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        terminated.set()
        if stop is not None:
            stop()

    worker = threading.Thread(target=run, name="citeproof-mcp-server", daemon=True)
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        worker.start()
        if started is not None:
            started()
        while worker.is_alive() and not terminated.is_set():
            worker.join(_POLL_SECONDS)
        if terminated.is_set() and stop is not None:
            worker.join(grace)
    finally:
        signal.signal(signal.SIGTERM, previous)
    if terminated.is_set():
        return True
    if failed:
        raise failed[0]
    return False
