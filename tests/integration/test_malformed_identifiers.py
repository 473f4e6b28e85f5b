"""A malformed identifier is said to be one, with the accepted forms, at every door.

``PMCabc``, ``PMC``, ``pmid:`` and ``doi:not a doi`` were reported as missing files ("give the
path of a PDF ..."), which sends the user looking for a file they never meant, and
``https://doi.org/`` was fetched (the resolver's home page, checked as if it were the work).
The rule lives in one place, :mod:`citeproof.loading.load` with the grammar of
:mod:`citeproof.identifiers`, so the command line, the library and the MCP tools agree; a file
whose name only looks like an identifier (``PMC123.pdf``) is still read when it exists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from citeproof.errors import UnknownIdentifierError
from citeproof.identifiers import looks_like_identifier, parse_identifier
from citeproof.service.pipeline import CheckOptions, Pipeline
from citeproof.service.reading import resolve_identifier

if TYPE_CHECKING:
    from conftest import CliRun

QUOTE = "a garden that is fed from below needs less watering"
MALFORMED = ["PMCabc", "PMC", "pmid:", "doi:not a doi", "https://doi.org/", "doi.org/"]


@pytest.fixture(autouse=True)
def _nothing_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every request is answered from an empty folder: a fetch fails as "not recorded"
    (UNAVAILABLE, exit 3) instead of reaching the network, so a fetch cannot pass for a
    refusal."""
    folder = tmp_path / "no-recordings"
    folder.mkdir()
    monkeypatch.setenv("CITEPROOF_REPLAY", str(folder))
    monkeypatch.chdir(tmp_path)
    return folder


@pytest.mark.parametrize("source", MALFORMED)
def test_the_command_line_says_malformed_and_lists_the_forms(run_cli: CliRun, source: str) -> None:
    result = run_cli("check", "--no-log", QUOTE, source)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"citeproof: error: {source!r}")
    assert "Accepted sources" in line and "PMC12829825" in line
    assert "does not exist" not in line and "give the path of a PDF" not in line


@pytest.mark.parametrize("source", ["PMCabc", "PMC", "PMC12x"])
def test_a_bare_form_that_could_be_a_file_name_says_there_is_none(
    run_cli: CliRun, source: str
) -> None:
    (line,) = run_cli("check", "--no-log", QUOTE, source).stderr.splitlines()
    assert "malformed" in line and "no file of that name" in line


def test_a_doi_org_address_without_a_doi_is_not_fetched() -> None:
    with pytest.raises(UnknownIdentifierError, match="names no DOI"):
        parse_identifier("https://doi.org/")
    # A doi.org page itself can still be asked for, labelled as a URL.
    assert parse_identifier("url:https://doi.org/").kind == "url"


def test_a_file_whose_name_only_looks_like_an_identifier_is_read(
    run_cli: CliRun, tmp_path: Path
) -> None:
    notes = tmp_path / "PMC123.pdf"  # not a PMCID (".pdf"), and it exists: a file
    notes.write_text(f"Notes: {QUOTE}.\n")
    result = run_cli("check", "--no-log", "--json", QUOTE, "PMC123.pdf")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["source"]["kind"] == "text"
    (tmp_path / "PMCabc").write_text(f"Notes: {QUOTE}.\n")
    assert run_cli("check", "--no-log", QUOTE, "PMCabc").exit_code == 0


@pytest.mark.parametrize("source", MALFORMED)
def test_the_library_and_a_files_refusing_server_agree(source: str) -> None:
    assert looks_like_identifier(source)
    for files in (True, False):
        with pytest.raises(UnknownIdentifierError):
            Pipeline(CheckOptions(files=files)).load(source)
    with pytest.raises(UnknownIdentifierError):
        resolve_identifier(source)


@pytest.mark.parametrize("allow_files", [True, False])
@pytest.mark.parametrize("source", ["PMCabc", "pmid:", "https://doi.org/"])
def test_the_mcp_tools_say_malformed_and_list_the_forms(source: str, allow_files: bool) -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from citeproof.mcp.tools import CiteproofTools, ToolSettings

    tools = CiteproofTools(ToolSettings(log=False, allow_files=allow_files))
    try:
        for call in (
            lambda: tools.check_quote(QUOTE, source),
            lambda: tools.read_source(source),
            lambda: tools.resolve_identifier(source),
        ):
            with pytest.raises(ToolError) as info:
                call()
            message = str(info.value)
            assert "Accepted sources" in message, message
            assert "does not exist" not in message and "local files are not read" not in message
    finally:
        tools.close()
