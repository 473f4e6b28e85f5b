"""Benchmark: the MCP server's check_quote round trip, and its start-up time (issue targets:
at most 10 ms at the median on a local or cached source; at most 1.5 s from starting
``citeproof mcp`` to the first answered tools/list).

Round trip: one in-process session of the SDK's client (as a real client keeps one open),
timing ``check_quote`` end to end: argument validation, the worker thread, the service
(load, match, retraction step, evidence line with fsync), output validation and
serialisation, and the client's own check of the result against the output schema (the
"server side only" rows leave the client out: ``MCPServer.call_tool`` directly).  Two
sources: a cached one (the invented example article pinned under an invented PMCID; the
server runs --offline, so the retraction step asks no service) and the local file itself,
read and hashed on every call (its parse is shared, see ``reading.load_source_shared``).

Start-up: the SDK's stdio client starts ``python -m citeproof.mcp`` (what ``citeproof mcp``
runs) and the clock stops when the tools/list answer arrives; the median of several starts.
For scale, the same is timed for a bare SDK server with one tool (``_BARE_SERVER``): what
any server built on the official SDK pays on this machine before it does anything of its
own (mostly importing the SDK), so the row after it is citeproof's own share.

    python bench/bench_mcp.py [--runs N] [--starts N] [--quick]

``--quick`` (the CI smoke) runs a few calls and starts, prints the table and judges nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "example-article.nxml"
QUOTE = "Mean sleep onset latency fell by 14 minutes (95% CI 9 to 19) in the walking group"
KEY = "pmcid:PMC9990001"  # invented
ROUND_TRIP_TARGET_MS = 10.0
STARTUP_TARGET_S = 1.5


def _pin() -> None:
    from citeproof.loading.pins import open_cache

    with open_cache() as cache:
        cache.pin(
            KEY,
            EXAMPLE.read_bytes(),
            retrieved_at="2026-11-30T00:00:00+00:00",
            served_by="pmc-oa",
            media_type="application/xml",
            meta={"coverage": "full_text", "md5_ok": True},
        )


async def _round_trips(source: str, runs: int, **settings: Any) -> list[float]:
    from mcp import Client

    from citeproof.mcp import build_server

    times = []
    async with Client(build_server(**settings)) as client:
        for _ in range(runs + 1):
            t0 = time.perf_counter()
            result = await client.call_tool("check_quote", {"quote": QUOTE, "source": source})
            times.append((time.perf_counter() - t0) * 1000)
            assert result.structured_content and result.structured_content["verdict"] == "EXACT"
    return times[1:]  # the first call parses and prepares the document


async def _server_side(source: str, runs: int, **settings: Any) -> list[float]:
    """The same call without a client: MCPServer.call_tool (thread, service, conversion)."""
    from citeproof.mcp import build_server

    server = build_server(**settings)
    times = []
    for _ in range(runs + 1):
        t0 = time.perf_counter()
        result = await server.call_tool("check_quote", {"quote": QUOTE, "source": source})
        times.append((time.perf_counter() - t0) * 1000)
        assert getattr(result, "structured_content", None)
    return times[1:]


async def _startup(home: str) -> float:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    from citeproof.mcp.server import TOOL_NAMES

    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env["CITEPROOF_HOME"] = home
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "citeproof.mcp"], env=env, cwd=str(REPO)
    )
    t0 = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        tools = await client.list_tools()
        elapsed = time.perf_counter() - t0
    assert len(tools.tools) == len(TOOL_NAMES)
    return elapsed


_BARE_SERVER = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("bare")
@server.tool()
def echo(text: str) -> str:
    return text
server.run()
"""


async def _bare_startup() -> float:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-c", _BARE_SERVER])
    t0 = time.perf_counter()
    async with Client(params, mode="legacy") as client:
        await client.list_tools()
        return time.perf_counter() - t0


def _row(name: str, value: str, target: str = "") -> None:
    print(f"| {name} | {value} | {target} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="round trips per source")
    parser.add_argument("--starts", type=int, default=5, help="server starts to time")
    parser.add_argument("--quick", action="store_true", help="20 round trips, 2 starts")
    args = parser.parse_args(argv)
    runs, starts = (20, 2) if args.quick else (max(2, args.runs), max(1, args.starts))

    import anyio

    failed = False
    with tempfile.TemporaryDirectory() as home:
        os.environ["CITEPROOF_HOME"] = home
        os.environ.pop("CITEPROOF_LOG", None)
        os.environ.pop("CITEPROOF_REPLAY", None)
        _pin()
        print("| measure | value | target |")
        print("|---|---|---|")
        cases = [
            ("cached source, evidence line written", "PMC9990001", {"offline": True}),
            ("cached source, --no-log", "PMC9990001", {"offline": True, "log": False}),
            ("local file, evidence line written", str(EXAMPLE), {}),
        ]
        for label, source, settings in cases:
            times = anyio.run(lambda s=source, k=settings: _round_trips(s, runs, **k))
            median = statistics.median(times)
            p95 = statistics.quantiles(times, n=20)[-1]
            judged = "evidence line" in label
            verdict = ""
            if judged:
                ok = median <= ROUND_TRIP_TARGET_MS
                failed |= not ok
                verdict = f"<= {ROUND_TRIP_TARGET_MS:g} ms {'PASS' if ok else 'FAIL'}"
            _row(f"check_quote round trip median, {label}", f"{median:.2f} ms", verdict)
            _row(f"check_quote round trip p95, {label}", f"{p95:.2f} ms")
        for label, source, settings in cases[::2]:
            times = anyio.run(lambda s=source, k=settings: _server_side(s, runs, **k))
            _row(f"server side only (no client), {label}", f"{statistics.median(times):.2f} ms")
        startup = [anyio.run(_startup, home) for _ in range(starts)]
        median = statistics.median(startup)
        ok = median <= STARTUP_TARGET_S
        failed |= not ok
        _row(
            f"start to first tools/list answered (stdio), median of {starts}",
            f"{median:.2f} s",
            f"<= {STARTUP_TARGET_S:g} s {'PASS' if ok else 'FAIL'}",
        )
        _row("start to tools/list, slowest", f"{max(startup):.2f} s")
        bare = statistics.median(anyio.run(_bare_startup) for _ in range(starts))
        _row(f"the same for a bare SDK server with one tool, median of {starts}", f"{bare:.2f} s")
        _row("citeproof's own share of the start (difference of medians)", f"{median - bare:.2f} s")
    return 1 if failed and not args.quick else 0


if __name__ == "__main__":
    sys.exit(main())
