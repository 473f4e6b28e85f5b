"""What users and agents meet first: every help page shows an example, the top-level help
names identifiers, and ``citeproof resolve`` answers what ``resolve_identifier`` answers.

``resolve`` runs offline here: the replay folder ``examples/replay-pmc-down`` has PMC
answering 503 and PubMed serving the abstract of an invented PMCID.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from citeproof.cli import COMMANDS
from citeproof.service.reading import resolve_identifier

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
REPLAY = REPO / "examples" / "replay-pmc-down"
INVENTED = "PMC9993001"  # served by the replay as a PubMed abstract

WITH_EXAMPLES = [
    "check",
    "text",
    "passages",
    "retraction",
    "retractions",
    "retractions import",
    "retractions info",
    "search",
    "citing",
    "log",
    "log path",
    "log verify",
    "log checkpoint",
    "log key",
    "log prove",
    "log verify-proof",
    "log repair",
    "log annotate",
    "log show",
    "log export",
    "recheck",
    "record",
    "cache",
    "cache path",
    "cache ls",
    "cache show",
    "cache prune",
    "cache verify",
    "cache export",
    "cache import",
    "schema",
    "resolve",
]


def help_of(run_cli: CliRun, command: str) -> str:
    result = run_cli(*command.split(), "--help", prog_name="citeproof", terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", WITH_EXAMPLES)
def test_every_help_page_shows_an_example(run_cli: CliRun, command: str) -> None:
    text = help_of(run_cli, command)
    examples = text.split("\n  Examples:\n", 1)
    assert len(examples) == 2, f"`citeproof {command} --help` has no Examples:"
    shown = [line.strip() for line in examples[1].splitlines() if line.strip()]
    assert 1 <= len(shown) <= 3
    name = command.split()[0]
    assert any(f"citeproof {name}" in line for line in shown), shown


def test_the_top_level_help_names_identifiers(run_cli: CliRun) -> None:
    text = help_of(run_cli, "")
    for word in ("DOI", "PMID", "PMCID"):
        assert word in text
    assert "resolve" in text


def test_resolve_is_a_lazy_command() -> None:
    assert COMMANDS["resolve"] == "citeproof.cli.resolve:resolve"


def test_resolve_says_who_serves_the_text(run_cli: CliRun) -> None:
    result = run_cli("resolve", "--json", INVENTED, "--replay", REPLAY)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["status"] == "RESOLVED" and data["key"] == "pmcid:PMC9993001"
    assert data["served_by"] == "pubmed" and data["coverage"] == "abstract"
    assert data["resolved"]["pmid"] == "99930001"
    # The same answer as the MCP tool's door, now from the pin (no request).
    again = resolve_identifier(INVENTED, offline=True)
    assert again.model_dump(mode="json") == data


def test_resolve_renders_for_a_terminal(run_cli: CliRun, monkeypatch: pytest.MonkeyPatch) -> None:
    import citeproof.cli._common as common

    monkeypatch.setattr(common, "want_json", lambda flag: flag)
    result = run_cli("resolve", INVENTED, "--replay", REPLAY)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("pmcid:PMC9993001: RESOLVED\n")
    assert "served by: pubmed · abstract" in result.stdout
    assert "pmid 99930001" in result.stdout


def test_resolve_accepts_a_pmid_in_two_words(run_cli: CliRun) -> None:
    result = run_cli("resolve", "--json", "--offline", "PMID", "99930001")
    assert result.exit_code == 3  # well formed, never pinned: unavailable offline
    assert json.loads(result.stdout)["key"] == "pmid:99930001"


def test_resolve_exit_codes(run_cli: CliRun) -> None:
    unpinned = run_cli("resolve", "--json", "--offline", "10.5555/citeproof.example.1")
    assert unpinned.exit_code == 3
    assert json.loads(unpinned.stdout)["status"] == "UNAVAILABLE"
    malformed = run_cli("resolve", "PMCabc")
    assert malformed.exit_code == 2 and malformed.stdout == ""
    (line,) = malformed.stderr.splitlines()
    assert line.startswith("citeproof: error: 'PMCabc' is malformed") and "Accepted" in line
    path = run_cli("resolve", str(REPO / "examples" / "example-notes.txt"))
    assert path.exit_code == 2  # a path is not an identifier here


def test_resolve_is_documented() -> None:
    cli_md = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert "<!-- help-of: citeproof resolve -->" in cli_md
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    listing = readme.split("## The command line", 1)[1].split("```", 2)[1]
    assert "citeproof resolve IDENT" in listing
