"""``citeproof manuscript ... --html FILE``: the example manuscript's page, offline, and the
files the page is never written over.

The example (``examples/manuscript/``) is run as ``test_manuscript_check.py`` runs it: its
references answered from ``tests/refs/recordings``, its retracted work from the invented
world's Retraction Watch CSV, its quotations checked against the editor's copies in
``examples/manuscript/sources`` (one exact, one with "tripled" where the source says
"doubled").  The page must show what the JSON report says, problems first; and ``--html``
must refuse, before anything is read, every path the rule of docs/cli.md ("Files citeproof
writes") keeps, in one line, exit 2.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import lxml.html
import pytest
from click.testing import Result

from citeproof.report import render_audit_html, render_references_html
from citeproof.report.page import is_manuscript_page

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "manuscript"
SOURCES = EXAMPLE / "sources"
RECORDINGS = REPO / "tests" / "refs" / "recordings"
RW_CSV = REPO / "tests" / "refs" / "retraction-watch-world.csv"


def offline(run_cli: CliRun, source: str | Path, *args: str | Path) -> Result:
    return run_cli("manuscript", source, "--replay", RECORDINGS, "--sources", SOURCES, *args)


def _text(el: Any) -> str:
    return " ".join(" ".join(el.itertext()).split())


@pytest.fixture(autouse=True)
def _world_retractions() -> None:
    """The invented world's Retraction Watch snapshot, in this test's private home."""
    from citeproof.sources.retractionwatch import import_csv

    import_csv(RW_CSV)


def test_the_example_manuscripts_page(run_cli: CliRun, tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    result = offline(run_cli, EXAMPLE / "paper.docx", "--json", "--no-log", "--html", out)
    assert result.exit_code == 1, result.output
    assert f"citeproof: manuscript page written to {out}." in result.stderr
    report = json.loads(result.stdout)
    assert is_manuscript_page(out)
    html = out.read_text(encoding="utf-8")
    doc = lxml.html.fromstring(html)
    # the page carries exactly the report the command printed
    assert json.loads(doc.cssselect("script#report-data")[0].text) == report

    verdict = doc.get_element_by_id("verdict")
    assert verdict.get("data-verdict") == "fail"
    assert _text(doc.get_element_by_id("verdict-counts")) == "1 near quote, 1 wrong work"
    assert "Manuscript paper.docx (Word)" in _text(doc.get_element_by_id("verdict-about"))

    # Problems first: the altered quotation with both words, then the wrong work's card.
    problems = doc.get_element_by_id("problems")
    (near,) = problems.cssselect("article.quote-card")
    assert near.get("data-finding") == "near_quote"
    assert [_text(d) for d in near.cssselect(".diff del")] == ["doubled"]
    assert [_text(i) for i in near.cssselect(".diff ins")] == ["tripled"]
    assert "your copy brennan2020.txt (matched by its title and first author)" in _text(near)
    (wrong,) = problems.cssselect("article.ref")
    assert wrong.get("data-verdict") == "mismatch" and wrong.get("id") == "ref-1"
    assert wrong.cssselect("table.cmp tr.cmp-differs")
    assert "The stated metadata describes" in _text(wrong)
    assert [_text(h) for h in problems.cssselect("section > h3")] == [
        "Quotations that differ from the work they cite (1)",
        "References to check by hand (1)",
    ]
    # The retracted work the manuscript says is retracted is listed with what matched.
    (retracted,) = doc.get_element_by_id("g-retracted-stated").cssselect("li")
    assert retracted.xpath("ancestor::section[@id='matched']")
    assert "doi:10.5555/invented.world.7" in _text(retracted)
    assert "The manuscript says so where it cites it." in _text(retracted)
    # What matched: the exact quotation (its evidence folded) and the verified entries.
    matched = doc.get_element_by_id("matched")
    (exact,) = matched.cssselect("article.quote-card")
    assert exact.get("data-finding") == "ok" and exact.cssselect("details.evidence mark.hit")
    assert [r.get("data-verdict") for r in matched.cssselect("article.ref")] == ["verified"] * 3
    assert "Everything was checked." in _text(doc.get_element_by_id("unchecked"))


def test_a_rerun_replaces_its_own_page(run_cli: CliRun, tmp_path: Path) -> None:
    out = tmp_path / "out.html"
    for _ in range(2):
        result = offline(run_cli, EXAMPLE / "paper.pdf", "--no-log", "--json", "--html", out)
        assert result.exit_code == 1, result.output
    assert is_manuscript_page(out)


def _refused(result: Result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("citeproof: error: ") and result.stderr.count("\n") == 1
    for word in words:
        assert word in result.stderr, result.stderr
    assert "checking..." not in result.stderr  # refused before the manuscript was read


def test_the_page_is_never_written_over_the_manuscript(run_cli: CliRun, tmp_path: Path) -> None:
    paper = tmp_path / "paper.docx"
    shutil.copy(EXAMPLE / "paper.docx", paper)
    before = paper.read_bytes()
    for args in ((), ("--overwrite",)):
        _refused(offline(run_cli, paper, "--no-log", "--html", paper, *args), "is the input")
        (tmp_path / "link.docx").unlink(missing_ok=True)
        (tmp_path / "link.docx").symlink_to(paper)
        _refused(
            offline(run_cli, paper, "--no-log", "--html", tmp_path / "link.docx", *args), "input"
        )
    assert paper.read_bytes() == before


def test_nor_over_the_evidence_log(run_cli: CliRun, tmp_path: Path) -> None:
    log = tmp_path / "evidence.log"
    log.write_text("a log line\n", encoding="utf-8")
    for args in ((), ("--overwrite",)):
        _refused(
            offline(run_cli, EXAMPLE / "paper.docx", "--log", log, "--html", log, *args), "input"
        )
    assert log.read_text(encoding="utf-8") == "a log line\n"


def test_nor_over_a_file_citeproof_did_not_write(run_cli: CliRun, tmp_path: Path) -> None:
    mine = tmp_path / "notes.html"
    mine.write_text("<p>my notes</p>", encoding="utf-8")
    _refused(
        offline(run_cli, EXAMPLE / "paper.docx", "--no-log", "--html", mine),
        "already exists and citeproof did not write it",
        "--overwrite",
    )
    assert mine.read_text(encoding="utf-8") == "<p>my notes</p>"
    # an audit page and a references page are other commands' pages
    for other in (render_audit_html({}, ""), render_references_html({})):
        mine.write_text(other, encoding="utf-8")
        _refused(
            offline(run_cli, EXAMPLE / "paper.docx", "--no-log", "--html", mine), "did not write"
        )
        assert mine.read_text(encoding="utf-8") == other
    # unless asked
    result = offline(
        run_cli, EXAMPLE / "paper.docx", "--no-log", "--json", "--html", mine, "--overwrite"
    )
    assert result.exit_code == 1, result.output
    assert is_manuscript_page(mine)


def test_nor_into_the_editors_copies_or_over_the_latex_folders_files(
    run_cli: CliRun, tmp_path: Path
) -> None:
    copies = tmp_path / "copies"
    shutil.copytree(SOURCES, copies)
    for name in ("page.html", "brennan2020.txt"):
        for args in ((), ("--overwrite",)):
            result = run_cli(
                "manuscript",
                EXAMPLE / "paper.docx",
                "--replay",
                RECORDINGS,
                "--sources",
                copies,
                "--no-log",
                "--html",
                copies / name,
                *args,
            )
            _refused(result, "inside the --sources folder")
    assert sorted(p.name for p in copies.iterdir()) == ["brennan2020.txt", "halloway2021.txt"]

    latex = tmp_path / "latex"
    latex.mkdir()
    for name in ("paper.tex", "refs.bib"):
        shutil.copy(EXAMPLE / name, latex / name)
    bib = (latex / "refs.bib").read_bytes()
    for source in (latex, latex / "paper.tex"):
        result = offline(run_cli, source, "--no-log", "--html", latex / "refs.bib", "--overwrite")
        _refused(result, "a file of the manuscript's folder")
    assert (latex / "refs.bib").read_bytes() == bib
    # a new page beside the sources is no source
    result = offline(run_cli, latex, "--no-log", "--json", "--html", latex / "page.html")
    assert result.exit_code == 1, result.output
    assert is_manuscript_page(latex / "page.html")


def test_nor_a_folder_nor_a_folder_that_is_not_there(run_cli: CliRun, tmp_path: Path) -> None:
    _refused(
        offline(run_cli, EXAMPLE / "paper.docx", "--no-log", "--html", tmp_path), "is a directory"
    )
    _refused(
        offline(
            run_cli, EXAMPLE / "paper.docx", "--no-log", "--html", tmp_path / "no" / "page.html"
        ),
        "does not exist",
    )


def test_overwrite_without_html_is_refused(run_cli: CliRun) -> None:
    _refused(offline(run_cli, EXAMPLE / "paper.docx", "--no-log", "--overwrite"), "--html")
