"""A one-shot ``citeproof check`` of a local file imports only what it uses (issue 16).

Such a check is mostly start-up, and importing pydantic and building the result models once
cost more than the rest of it together; ``bench/bench_startup.py`` times it.  Timings do not
belong in tests, so this pins the cause instead: the real command is run in a fresh process
under ``python -X importtime`` and the modules it imported are read from that report.  A
change that puts pydantic (or the HTTP stack, the keys, the templates ...) back on this path
fails here, whatever the machine's speed.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ARTICLE = REPO / "examples" / "example-article.nxml"
QUOTE = "fell asleep faster than those in the control group"

#: Never needed by a check of a local file without the log: the result models, the network,
#: the cache, the keys and the log's lock, the MCP server, the HTML report, the PDF reader,
#: and (for a quote found as written, as these are) the fuzzy matcher of the NEAR search.
NEVER = {
    "pydantic",
    "pydantic_core",
    "httpx2",
    "sqlite3",
    "cryptography",
    "filelock",
    "platformdirs",
    "mcp",
    "jinja2",
    "pypdfium2",
    "asyncio",
    "anyio",
    "importlib_metadata",
    "rapidfuzz",
}


def _imported(argv: list[str], home: Path, *, terminal: bool = False) -> tuple[set[str], str]:
    """Run ``python -X importtime -m citeproof ARGV``; the top-level packages it imported and
    what it printed.  With ``terminal``, stdout is a pseudo-terminal (the readable report)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEPROOF_")}
    env.update(CITEPROOF_HOME=str(home), COLUMNS="100")
    command = [sys.executable, "-X", "importtime", "-m", "citeproof", *argv]
    if terminal:
        leader, follower = pty.openpty()
        try:
            done = subprocess.run(
                command, stdout=follower, stderr=subprocess.PIPE, env=env, timeout=60
            )
        finally:
            os.close(follower)
        shown = _drain(leader)
    else:
        done = subprocess.run(command, capture_output=True, env=env, timeout=60)
        shown = done.stdout.decode()
    report = done.stderr.decode()
    assert done.returncode == 0, report[-2000:]
    names = {
        line.rsplit("|", 1)[1].strip().split(".")[0]
        for line in report.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    names.discard("imported package")  # the report's header line
    return names, shown


def _drain(fd: int) -> str:
    chunks = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except OSError:  # the terminal is closed once the command has exited and all is read
        pass
    finally:
        os.close(fd)
    return b"".join(chunks).decode(errors="replace")


@pytest.fixture
def text_file(tmp_path: Path) -> Path:
    path = tmp_path / "source.txt"
    path.write_text(
        "Results\n\nParticipants who walked for thirty minutes each morning fell asleep faster "
        "than those in the control group.\n",
        encoding="utf-8",
    )
    return path


def test_json_check_of_a_text_file(tmp_path: Path, text_file: Path) -> None:
    names, out = _imported(["check", "--json", "--no-log", QUOTE, str(text_file)], tmp_path)
    assert json.loads(out)["verdict"] == "EXACT"
    assert names & (NEVER | {"lxml", "rich", "html"}) == set()


def test_readable_check_of_a_text_file(tmp_path: Path, text_file: Path) -> None:
    """The terminal report is rendered from the plain result too: rich, but no pydantic."""
    names, shown = _imported(["check", "--no-log", QUOTE, str(text_file)], tmp_path, terminal=True)
    assert "EXACT" in shown and "the quote occurs in the source" in shown
    assert "rich" in names
    assert names & (NEVER | {"lxml"}) == set()


def test_json_check_of_a_jats_article(tmp_path: Path) -> None:
    """An XML article needs lxml to be read, and nothing more than a text file does."""
    names, out = _imported(["check", "--json", "--no-log", QUOTE, str(ARTICLE)], tmp_path)
    assert json.loads(out)["verdict"] == "EXACT"
    assert "lxml" in names
    assert names & (NEVER | {"rich"}) == set()


#: What the evidence line needs besides: the keys that sign it (the data directory is
#: CITEPROOF_HOME here; without it, platformdirs says where it is).
LOG = {"cryptography"}


def test_json_check_with_the_log_on(tmp_path: Path, text_file: Path) -> None:
    """The default ``citeproof check`` writes the evidence line: it signs with the log's key,
    but appending needs neither the log's verifier nor the report models (issue 25: they
    were imported at the top of ``evidence.log`` and made the default check 22.7x
    ``python -c pass``).  The second check reads the key the first one made."""
    for seq in (1, 2):
        names, out = _imported(["check", "--json", QUOTE, str(text_file)], tmp_path)
        assert json.loads(out)["log_seq"] == seq
        assert names >= LOG
        assert names & (NEVER - LOG | {"lxml", "rich", "html"}) == set()


def test_the_library_still_gets_the_model(tmp_path: Path, text_file: Path) -> None:
    """The other doors are unchanged: ``citeproof.check`` returns the pydantic model."""
    code = (
        "import citeproof, sys\n"
        f"r = citeproof.check({QUOTE!r}, {str(text_file)!r})\n"
        "print(type(r).__module__, type(r).__name__, r.verdict)\n"
    )
    env = dict(os.environ, CITEPROOF_HOME=str(tmp_path))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    assert out.split() == ["citeproof.models.check", "CheckResult", "EXACT"]
