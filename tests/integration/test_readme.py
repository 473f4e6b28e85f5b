"""The documentation's examples are real: every one is run here.

* README's Quick start block holds exactly two command lines (install and check; install
  test extras and test), and the check part of the first one succeeds.
* Every other ``sh`` block in README.md and docs/*.md is run line by line from the
  repository root with bash; a trailing ``# exit N`` gives the expected exit code (else 0).
* Every ``python`` block in README.md and docs/*.md is executed, a page's blocks in order in
  one namespace, from a scratch folder holding ``examples/``, with a private home where the
  example cache is imported and the recorded answers of the demo's invented papers (and of
  PMC3166277, from the corpus) are replayed: the page's code runs as written, offline.
* A ``json`` block after an ``<!-- output-of: COMMAND -->`` marker must equal COMMAND's
  output, and a ``text`` block after ``<!-- help-of: COMMAND -->`` must equal
  ``COMMAND --help``; every command and subcommand has its help in its docs page.  Run with
  ``UPDATE_DOCS_OUTPUT=1`` to rewrite such blocks after a deliberate change.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
EXIT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")
OUTPUT_OF = re.compile(r"<!-- output-of: (.+?) -->\n```json\n(.*?)```", re.DOTALL)
HELP_OF = re.compile(r"<!-- help-of: (.+?) -->\n```text\n(.*?)```", re.DOTALL)
HELP_WIDTH = 100


def _blocks(markdown: str, language: str) -> list[str]:
    return [body for lang, body in FENCE.findall(markdown) if lang == language]


def _quick_start() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    return _blocks(section, "sh")[0]  # the first block is the two commands


@pytest.fixture(scope="module")
def bin_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory whose ``citeproof`` is the installed command for this interpreter."""
    installed = Path(sys.executable).parent / "citeproof"
    if installed.exists():
        return installed.parent
    shim_dir = tmp_path_factory.mktemp("bin")  # pragma: no cover - no console script here
    shim = shim_dir / "citeproof"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m citeproof "$@"\n')
    shim.chmod(0o755)
    return shim_dir


@pytest.fixture(scope="module")
def docs_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One CITEPROOF_HOME for every documented command, in page order, so a page can import
    something in one line and use it in the next, and nothing lands in the user's own dirs.
    (Not the per-test ``home`` of ``tests/conftest.py``: it lives as long as the module.)"""
    return tmp_path_factory.mktemp("citeproof-home")


def _env(bin_dir: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    env["CITEPROOF_HOME"] = str(home)
    return env


def test_readme_opens_with_a_description_then_quick_start() -> None:
    text = README.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert headings[0] == "Quick start"


def test_quick_start_has_exactly_two_command_lines() -> None:
    lines = [line for line in _quick_start().splitlines() if line.strip()]
    assert len(lines) == 2
    install, demo = (part.strip() for part in lines[0].split("&&"))
    assert install == "pip install ."
    assert demo == "citeproof demo"
    install, tests = (part.strip() for part in lines[1].split("&&"))
    assert install == 'pip install ".[test]"'
    assert tests == "pytest"


def test_quick_start_demo_succeeds(bin_dir: Path, tmp_path: Path) -> None:
    first = _quick_start().splitlines()[0]
    demo = first.split("&&", 1)[1].strip()
    argv = shlex.split(demo)
    argv[0] = str(bin_dir / "citeproof")
    # Run from an empty folder: the demo must not need the repository's files.
    done = subprocess.run(
        argv,
        cwd=tmp_path,
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
        check=False,
        env=_env(bin_dir, tmp_path / "home"),
    )
    assert done.returncode == 0, done.stderr.decode()
    summary = json.loads(done.stdout)  # stdout is a pipe: JSON
    assert summary["audit"] == "fail"  # the answer holds a forged handle and a misquote
    assert Path(summary["page"]).is_file()


def _commands() -> list[tuple[str, str, int]]:
    found: list[tuple[str, str, int]] = []
    for path in [README, *DOCS]:
        text = path.read_text(encoding="utf-8")
        if path == README:
            text = text.replace(_quick_start(), "")
        for block in _blocks(text, "sh"):
            for line in block.splitlines():
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                expected = EXIT.search(line)
                found.append((path.name, line, int(expected.group(1)) if expected else 0))
    return found


COMMANDS = _commands()


def test_docs_have_examples() -> None:
    names = {name for name, _, _ in COMMANDS}
    assert {"README.md", "cli.md", "verdicts.md"} <= names


# The commands share one home and run in page order (a page imports in one line what the next
# uses): pytest-xdist runs a module's tests on one worker, in order (--dist loadscope).
@pytest.mark.parametrize(
    ("doc", "command", "expected"),
    COMMANDS,
    ids=[f"{d}:{i}" for i, (d, _, _) in enumerate(COMMANDS)],
)
def test_doc_command(bin_dir: Path, docs_home: Path, doc: str, command: str, expected: int) -> None:
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=REPO,
        env=_env(bin_dir, docs_home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == expected, (command, done.stdout[-2000:], done.stderr.decode())
    assert b"Traceback" not in done.stderr


def _python_pages() -> list[Path]:
    return [p for p in [README, *DOCS] if _blocks(p.read_text(encoding="utf-8"), "python")]


@pytest.fixture
def docs_sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder with ``examples/``, a private home holding the example cache, and
    recorded answers for the identifiers the docs use; the docs' code runs from it."""
    from citeproof.demo import write_recordings
    from citeproof.service.storage import open_cache

    work = tmp_path / "work"
    work.mkdir()
    (work / "examples").symlink_to(REPO / "examples")
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "home"))
    recordings = tmp_path / "recordings"
    write_recordings(recordings)
    monkeypatch.setenv("CITEPROOF_REPLAY", str(recordings))
    with open_cache() as cache:
        cache.import_from(REPO / "examples" / "example-cache.zip")
    monkeypatch.chdir(work)
    return recordings


@pytest.mark.parametrize("page", _python_pages(), ids=lambda p: p.name)
def test_doc_python(page: Path, docs_sandbox: Path) -> None:
    text = page.read_text(encoding="utf-8")
    if "PMC3166277" in text:
        from pmc_replay import pmc_replay

        pmc_replay(docs_sandbox)  # skips, naming the corpus, when it is absent
    namespace: dict[str, object] = {"__name__": "__docs__"}
    for code in _blocks(text, "python"):
        exec(compile(code, page.name, "exec"), namespace)


def _output_blocks() -> list[tuple[Path, str, str]]:
    return [
        (path, command, body)
        for path in DOCS
        for command, body in OUTPUT_OF.findall(path.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize(("path", "command", "body"), _output_blocks())
def test_documented_output(
    bin_dir: Path, tmp_path: Path, path: Path, command: str, body: str
) -> None:
    # A fresh home each time: the output (its log_seq, say) must not depend on what ran before.
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=REPO,
        env=_env(bin_dir, tmp_path),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
        check=False,
    )
    actual = done.stdout.decode("utf-8")
    if os.environ.get("UPDATE_DOCS_OUTPUT") == "1":  # pragma: no cover - maintenance
        text = path.read_text(encoding="utf-8")
        path.write_text(
            text.replace(f"```json\n{body}```", f"```json\n{actual}```"), encoding="utf-8"
        )
        return
    assert body.strip(), f"{path.name}: empty output block for {command!r}"
    assert json.loads(actual) == json.loads(body)


def _help_blocks() -> list[tuple[Path, str, str]]:
    return [
        (path, command, body)
        for path in [README, *DOCS]
        for command, body in HELP_OF.findall(path.read_text(encoding="utf-8"))
    ]


def _help_text(run_cli: CliRun, command: str) -> str:
    words = shlex.split(command)
    assert words[0] == "citeproof", command
    result = run_cli(*words[1:], "--help", prog_name="citeproof", terminal_width=HELP_WIDTH)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize(
    ("path", "command", "body"), _help_blocks(), ids=[c for _, c, _ in _help_blocks()]
)
def test_documented_help(run_cli: CliRun, path: Path, command: str, body: str) -> None:
    actual = _help_text(run_cli, command)
    if os.environ.get("UPDATE_DOCS_OUTPUT") == "1":  # pragma: no cover - maintenance
        text = path.read_text(encoding="utf-8")
        marker = f"<!-- help-of: {command} -->\n```text\n"
        path.write_text(
            text.replace(f"{marker}{body}```", f"{marker}{actual}```"), encoding="utf-8"
        )
        return
    assert body == actual, f"{path.name}: `{command} --help` differs (UPDATE_DOCS_OUTPUT=1)"


def _every_command() -> list[str]:
    """``citeproof`` and every command and subcommand it has, as typed."""
    import click

    from citeproof.cli import cli

    found = ["citeproof"]
    ctx = click.Context(cli, info_name="citeproof")
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        assert command is not None
        found.append(f"citeproof {name}")
        if isinstance(command, click.Group):
            sub_ctx = click.Context(command, info_name=name, parent=ctx)
            for sub in command.list_commands(sub_ctx):
                sub_command = command.get_command(sub_ctx, sub)
                if sub_command is not None and not sub_command.hidden:
                    found.append(f"citeproof {name} {sub}")
    return found


def test_every_command_has_its_help_in_the_docs() -> None:
    documented = {command for _, command, _ in _help_blocks()}
    assert sorted(set(_every_command()) - documented) == []


def test_readme_lists_every_command_and_every_page() -> None:
    text = README.read_text(encoding="utf-8")
    listing = text.split("## The command line", 1)[1].split("```", 2)[1]
    for command in _every_command()[1:]:
        name = command.split()[1]
        assert re.search(rf"\bciteproof {re.escape(name)}\b", listing), name
    for page in DOCS:
        assert f"](docs/{page.name})" in text, page.name


def test_no_machine_paths_in_docs() -> None:
    for path in [README, *DOCS]:
        text = path.read_text(encoding="utf-8")
        assert "/work/" not in text and "/root/" not in text, path.name
