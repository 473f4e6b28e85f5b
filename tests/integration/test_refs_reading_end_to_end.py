"""Issue 22, the reading side, end to end: ``citeproof refs``, the library, the MCP tool and
the audit on lists as real bibliographies lay them out, replayed from the invented world's
recordings (``tests/refs_world.py``), so no test touches the network.

* a DOI a line end broke is verified, not called unresolvable for its layout;
* a list of which nothing can be looked up is bad input (exit 2, one line); an entry that
  names nothing among others is ``unchecked`` and nothing is asked about it; a JSONL line
  that is no reference is bad input naming its line;
* an answer's entry that is only a citation key is no fabrication in the audit;
* a numbered list whose numbers skip is read entry by entry, and the skip is said.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from click.testing import Result

from citeproof.audit.run import audit_answer
from citeproof.errors import ReferenceListError
from citeproof.service.references import verify_references
from refs_world import PREFIX, RECORDINGS, REFERENCES

if TYPE_CHECKING:
    from conftest import CliRun

VERIFIED = REFERENCES["verified"]
assert VERIFIED.endswith(f"doi:{PREFIX}1")


def _refs(run_cli: CliRun, *args: str | Path) -> Result:
    return run_cli(
        "refs", *(str(a) for a in args), "--replay", RECORDINGS, "--no-retraction", "--no-log"
    )


# ------------------------------------------------------------------- 1. a DOI a line end broke


@pytest.mark.parametrize(
    "broken",
    [
        VERIFIED.replace("invented.world.1", "invented.\nworld.1"),
        VERIFIED.replace("invented.world.1", "invented.world\n   .1"),
        VERIFIED.replace("doi:10.5555/", "https://doi.org/10.5555/\n"),
    ],
)
def test_a_reference_whose_doi_a_line_end_broke_is_verified(
    run_cli: CliRun, tmp_path: Path, broken: str
) -> None:
    listed = tmp_path / "refs.txt"
    listed.write_text(f"1. {broken}\n", encoding="utf-8")
    result = _refs(run_cli, listed, "--json")
    assert result.exit_code == 0, result.output
    (ref,) = json.loads(result.stdout)["references"]
    assert ref["verdict"] == "verified" and ref["stated"]["doi"] == f"{PREFIX}1"
    assert ref["work"]["identifier"] == f"doi:{PREFIX}1"


# ---------------------------------------------------------------- 2. entries naming nothing


def test_a_file_of_which_nothing_can_be_looked_up_is_bad_input(
    run_cli: CliRun, tmp_path: Path
) -> None:
    listed = tmp_path / "keys.txt"
    listed.write_text("Smith\nHalloway et al. 2021\n", encoding="utf-8")
    result = _refs(run_cli, listed)
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line == (
        f"citeproof: error: no entry of {listed} names anything to look up: line 1 is only "
        "'Smith'; line 2 is only 'Halloway et al. 2021'; give each reference's DOI, PMID or "
        "PMCID, or its authors, title and year."
    )


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        (['"Smith"', '{"reference": "doi:10."}'], "no entry of {path} names anything to look up"),
        (
            [json.dumps(VERIFIED), "{}"],
            '{path}, line 2: the object is no reference: it has no "reference"',
        ),
        (
            [json.dumps(VERIFIED), '{"reference": 5}'],
            '{path}, line 2: "reference" is a number, not',
        ),
        (['{"id": "a"}'], "{path}, line 1: the object is no reference"),
    ],
)
def test_jsonl_lines_that_are_no_reference_are_bad_input(
    run_cli: CliRun, tmp_path: Path, lines: list[str], said: str
) -> None:
    path = tmp_path / "refs.jsonl"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    result = _refs(run_cli, path, "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("citeproof: error: " + said.format(path=path)), line
    assert not (tmp_path / "out.jsonl").exists() or not (tmp_path / "out.jsonl").read_text()


def test_an_entry_naming_nothing_among_others_is_unchecked_and_not_asked_about(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from citeproof.cli.refs import _render

    report = verify_references(
        ["Halloway et al. 2021", "The Lancet. 2019.", "doi:10.", VERIFIED],
        replay=RECORDINGS,
        retraction=False,
    )
    verdicts = [(r.verdict, len(r.asked)) for r in report.references]
    assert verdicts == [("unchecked", 0), ("unchecked", 0), ("unchecked", 0), ("verified", 1)]
    assert "nothing to search for" in report.references[0].reason
    assert report.counts.not_found == 0
    _render(report)  # the summary under the table counts them, so its numbers add up
    assert "4 references: 1 verified, 0 ambiguous, 0 partial, 0 not found, 3 unchecked," in (
        " ".join(capsys.readouterr().out.split())
    )


def test_the_library_and_the_mcp_tool_refuse_a_list_that_names_nothing() -> None:
    with pytest.raises(ReferenceListError, match="no entry of the list names anything"):
        verify_references(["Smith"], replay=RECORDINGS, retraction=False)

    from mcp import Client

    from citeproof.mcp.server import build_server
    from citeproof.mcp.tools import ToolSettings

    server = build_server(ToolSettings(replay=str(RECORDINGS)))

    async def call() -> Any:
        async with Client(server) as client:
            return await client.call_tool("verify_references", {"references": ["Smith"]})

    result = anyio.run(call)
    assert result.is_error
    text = getattr(result.content[0], "text", "")
    assert "no entry of the list names anything to look up" in text
    assert "may be fabricated" not in text


# ----------------------------------------------------------- 3. the audit and a citation key


@pytest.mark.parametrize("references", [True, False])
def test_an_answers_citation_key_entry_is_no_fabrication(references: bool) -> None:
    answer = "Compost warms the soil of allotments [1].\n\n## References\n\n1. Halloway2021\n"
    report = audit_answer(
        answer, replay=RECORDINGS, retraction=False, sign=False, references=references
    )
    (c,) = report.citations()
    assert c.verdict == "unavailable"
    assert c.reason is not None and c.reason.startswith(
        "the reference names nothing that can be looked up: no DOI, PMID, PMCID or URL, and "
        "no title or other words to search for"
    )
    assert report.metrics.fabricated == 0 and report.verdict != "fail"


# ------------------------------------------------------------ 4. numbers that skip


@pytest.fixture
def skipping(tmp_path: Path) -> Path:
    path = tmp_path / "skipping.txt"
    path.write_text(
        f"3. {VERIFIED}\n7. {REFERENCES['found_by_search']}\n12. {REFERENCES['unresolvable']}\n",
        encoding="utf-8",
    )
    return path


SKIPS = "The numbering skips 1-2, 4-6, 8-11: no entry was read for 9 numbers; check the list."


def test_a_list_whose_numbers_skip_is_read_entry_by_entry(
    run_cli: CliRun, skipping: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    result = _refs(run_cli, skipping, "-o", out)
    assert result.exit_code == 1, result.output  # entry 12's DOI nobody registered
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["stated"]["label"], r["verdict"]) for r in lines] == [
        ("3", "verified"),
        ("7", "verified"),
        ("12", "unresolvable"),
    ]
    said = result.stderr.splitlines()
    assert said[0] == f"citeproof: 3 references in {skipping}; checking..."
    assert said[1] == f"citeproof: {skipping}: {SKIPS}"


def test_what_reading_found_is_in_the_report_and_under_the_table(
    run_cli: CliRun, skipping: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from citeproof.cli.refs import _render

    report = verify_references(skipping, replay=RECORDINGS, retraction=False)
    assert report.reading == [f"{skipping}: {SKIPS}"]
    assert len(report.references) == 3
    as_json = _refs(run_cli, skipping, "--json")
    assert json.loads(as_json.stdout)["reading"] == [f"{skipping}: {SKIPS}"]
    assert f"citeproof: {skipping}: {SKIPS}" in as_json.stderr
    _render(report)
    shown = " ".join(capsys.readouterr().out.split())
    assert "3 references: 2 verified," in shown and "1 unresolvable" in shown
    # The table wraps a long path wherever the width falls (a worker's tmp path is longer).
    assert "".join(shown.split()).endswith("".join(f"{skipping}: {SKIPS}".split()))
