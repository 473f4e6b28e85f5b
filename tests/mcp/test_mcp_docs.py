"""docs/mcp.md: the client snippets are valid JSON/TOML and start the real command, every
tool is documented, and the Python example runs."""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from typing import TYPE_CHECKING, Any

import click
import pytest
from mcp import Client
from mcp_helpers import REPO, run

from citeproof.cli import COMMANDS
from citeproof.mcp.server import PROMPT_NAME, RESOURCE_TEMPLATE, TOOL_NAMES

if TYPE_CHECKING:
    from conftest import CliRun

DOC = REPO / "docs" / "mcp.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks(language: str) -> list[str]:
    return [
        body for lang, body in FENCE.findall(DOC.read_text(encoding="utf-8")) if lang == language
    ]


def _project_script() -> str:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "scripts"
    ]
    (name,) = [name for name, target in scripts.items() if target == "citeproof.cli:main"]
    return str(name)


def _assert_starts_the_server(entry: dict[str, Any]) -> None:
    assert entry["command"] == _project_script() == "citeproof"
    assert entry["args"] == ["mcp"]


def test_the_mcp_command_is_the_real_one() -> None:
    from citeproof.cli.mcp import mcp

    assert isinstance(mcp, click.Command)
    assert COMMANDS.get("mcp", "citeproof.cli.mcp:mcp") == "citeproof.cli.mcp:mcp"


def test_json_snippets_parse_and_start_citeproof_mcp() -> None:
    configs = [json.loads(block) for block in _blocks("json")]
    assert len(configs) == 3
    desktop_like = [c for c in configs if "mcpServers" in c]
    vscode = [c for c in configs if "servers" in c]
    assert len(desktop_like) == 2 and len(vscode) == 1
    for config in desktop_like:
        _assert_starts_the_server(config["mcpServers"]["citeproof"])
    entry = vscode[0]["servers"]["citeproof"]
    assert entry["type"] == "stdio"
    _assert_starts_the_server(entry)


def test_codex_toml_parses() -> None:
    (block,) = _blocks("toml")
    config = tomllib.loads(block)
    entry = config["mcp_servers"]["citeproof"]
    _assert_starts_the_server(entry)
    assert isinstance(entry["env"], dict)


def test_claude_code_commands_start_citeproof_mcp() -> None:
    lines = [
        line.removeprefix("$ ")
        for block in _blocks("console")
        for line in block.splitlines()
        if line.startswith("$ claude mcp add")
    ]
    stdio = [shlex.split(line) for line in lines if " -- " in line]
    assert len(stdio) == 2
    for words in stdio:
        assert words[words.index("--") + 1 :] == [_project_script(), "mcp"]
        assert words[words.index("--") - 1] == "citeproof"  # the server's name
    (http,) = [shlex.split(line) for line in lines if "--transport" in line]
    assert "http://127.0.0.1:8000/mcp" in http


def test_no_sh_blocks_so_nothing_here_needs_a_client() -> None:
    assert _blocks("sh") == []  # sh blocks are executed by tests/integration/test_readme.py


@pytest.mark.parametrize("name", [*TOOL_NAMES, PROMPT_NAME, RESOURCE_TEMPLATE])
def test_everything_the_server_offers_is_documented(name: str) -> None:
    assert f"`{name}" in DOC.read_text(encoding="utf-8")


def test_python_example_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (block,) = _blocks("python")
    monkeypatch.chdir(REPO)
    exec(compile(block, str(DOC), "exec"), {"__name__": "__doc__"})
    assert capsys.readouterr().out.strip() == "EXACT"


def test_mcp_help_names_every_tool_and_the_resource_template(run_cli: CliRun) -> None:
    """`citeproof mcp --help` once listed 9 of the 11 tools, and then the template as
    ``{identifier}`` while the server registers ``{+identifier}``: it must name what the
    server offers, as the server names it."""

    from citeproof.mcp.server import build_server

    result = run_cli("mcp", "--help", terminal_width=100)
    text = " ".join(result.output.split())
    missing = [name for name in TOOL_NAMES if name not in text]
    assert result.exit_code == 0 and missing == []
    assert PROMPT_NAME in text

    async def registered() -> list[str]:
        async with Client(build_server(log=False)) as client:
            listed = await client.list_resource_templates()
            tools = await client.list_tools()
        assert [t.name for t in tools.tools] == list(TOOL_NAMES)
        return [t.uri_template for t in listed.resource_templates]

    assert run(registered) == [RESOURCE_TEMPLATE] == ["citeproof://source/{+identifier}"]
    assert f"the resource {RESOURCE_TEMPLATE};" in text
