"""``citeproof mcp --index DIR`` (and ``CITEPROOF_INDEX``): the server's ``verify_references``
asks the local index first, as ``citeproof refs --index`` does; a folder that is no index,
or an index without the extra installed, is one line and exit 2 before anything is served."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

if TYPE_CHECKING:
    from conftest import CliRun

# INVENTED: the record of tests/index/dumps/crossref-0.json, as an author prints it.
ENTRY = (
    "Müller K, Okafor C. Compost temperature and earthworm density in invented allotments. "
    "J Invent Soil Ecol. 2019;12:101-109."
)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The server the command would serve over stdio, and the index variable it saw."""
    from citeproof.mcp import stdio

    seen: list[Any] = []

    def serve(server: Any) -> bool:
        seen.append((server, os.environ.get("CITEPROOF_INDEX")))
        return False

    monkeypatch.setattr(stdio, "serve_stdio", serve)
    # Recorded here, so the value the command sets is undone after the test.
    monkeypatch.setenv("CITEPROOF_INDEX", "")
    return seen


def _verify(server: Any, references: list[str]) -> dict[str, Any]:
    from mcp import Client

    async def go() -> dict[str, Any]:
        async with Client(server) as client:
            result = await client.call_tool("verify_references", {"references": references})
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    return anyio.run(go)


def test_verify_references_asks_the_index_the_server_was_given(
    run_cli: CliRun, built: Path, served: list[Any]
) -> None:
    run = run_cli("mcp", "--index", built, "--offline", "--no-log")
    assert run.exit_code == 0, run.output
    ((server, variable),) = served
    assert variable == str(built)
    report = _verify(server, [ENTRY])
    (reference,) = report["references"]
    assert reference["verdict"] == "verified", reference["reason"]
    assert reference["work"]["identifier"] == "doi:10.5555/invented.idx.1"


def test_the_audit_checks_an_answers_references_in_the_index(
    run_cli: CliRun, built: Path, served: list[Any]
) -> None:
    """``audit_answer`` verifies the answer's reference list as ``verify_references`` does:
    offline, only the index can have verified it."""
    from mcp import Client

    run = run_cli("mcp", "--index", built, "--offline", "--no-log")
    assert run.exit_code == 0, run.output
    ((server, _),) = served
    answer = f"Compost warms with more earthworms [1].\n\nReferences\n1. {ENTRY}\n"

    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool("audit_answer", {"answer": answer, "detail": "full"})

    result = anyio.run(go)
    assert not result.is_error, result.content
    (reference,) = result.structured_content["references"]
    assert reference["verdict"] == "verified", reference["reason"]
    assert [a["service"] for a in reference["asked"]] == ["index"]


def test_without_an_index_the_same_server_finds_nothing_offline(
    run_cli: CliRun, served: list[Any]
) -> None:
    """The contrast that shows the index answered above: offline, nothing else can."""
    run = run_cli("mcp", "--offline", "--no-log")
    assert run.exit_code == 0, run.output
    ((server, variable),) = served
    assert not variable
    (reference,) = _verify(server, [ENTRY])["references"]
    assert reference["verdict"] != "verified"


def test_the_index_variable_is_checked_as_the_option_is(
    run_cli: CliRun, tmp_path: Path, served: list[Any]
) -> None:
    run = run_cli("mcp", "--no-log", env={"CITEPROOF_INDEX": str(tmp_path / "nope")})
    assert run.exit_code == 2
    (line,) = run.stderr.splitlines()
    assert "no local index at" in line and "nope" in line
    assert served == []


def test_a_missing_index_folder_is_one_line_before_serving(
    run_cli: CliRun, tmp_path: Path, served: list[Any]
) -> None:
    run = run_cli("mcp", "--index", tmp_path / "nope", "--no-log")
    assert run.exit_code == 2
    (line,) = run.stderr.splitlines()
    assert line.startswith("citeproof: error: there is no local index at")
    assert served == []


def test_without_the_extra_the_server_says_what_to_install(built: Path, tmp_path: Path) -> None:
    without = (
        "import sys; sys.modules['tantivy'] = None; from citeproof.cli import main; "
        "main(sys.argv[1:])"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env["CITEPROOF_HOME"] = str(tmp_path / "home")
    done = subprocess.run(
        [sys.executable, "-c", without, "mcp", "--index", str(built), "--no-log"],
        capture_output=True,
        timeout=60,
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "citeproof: error: the local index needs the index extra, which is not installed: "
        'pip install "citeproof[index]".\n'
    )
