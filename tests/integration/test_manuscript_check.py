"""``citeproof manuscript`` end to end, offline, on the INVENTED example manuscript.

The example (``examples/manuscript/``) is one text in Word, LaTeX and PDF whose works are the
recorded invented world's (``tests/refs_world.py``): references are verified by replaying
``tests/refs/recordings``, the retraction of the fourth work comes from the world's
Retraction Watch CSV, and the two quotations are checked against the editor's copies in
``examples/manuscript/sources`` (one exact, one with "tripled" where the source says
"doubled").  Every form must give the same verdicts, a report valid against the published
schema, a signature that verifies, and one evidence-log line.  ``citeproof audit`` must refuse
a manuscript, naming this command, and a paper's text piped into it must not make its
numbered citations "fabricated" (a corpus test).
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from jsonschema import Draft202012Validator

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "manuscript"
SOURCES = EXAMPLE / "sources"
RECORDINGS = REPO / "tests" / "refs" / "recordings"
RW_CSV = REPO / "tests" / "refs" / "retraction-watch-world.csv"
CORPUS = REPO.parent / "shared" / "corpus" / "pmc-jats"

FORMS = {
    "docx": EXAMPLE / "paper.docx",
    "pdf": EXAMPLE / "paper.pdf",
    "latex-folder": EXAMPLE,
    "latex-file": EXAMPLE / "paper.tex",
}
EXACT = "compost held above forty degrees for a week doubled the earthworms counted in spring"
ALTERED = "harvested rainwater tripled the days a bed could go without watering"


def flat(text: str) -> str:
    return " ".join(text.split())


def check(run_cli: CliRun, source: str | Path, *args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run_cli(
        "manuscript", source, "--replay", RECORDINGS, "--sources", SOURCES, "--json", *args
    )
    assert result.exit_code in (0, 1, 3), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return result.exit_code, data


@pytest.fixture(autouse=True)
def _world_retractions() -> None:
    """The invented world's Retraction Watch snapshot, in this test's private home."""
    from citeproof.sources.retractionwatch import import_csv

    import_csv(RW_CSV)


@pytest.fixture(scope="module")
def schema(run_cli: CliRun) -> Draft202012Validator:
    result = run_cli("schema", "manuscript")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["$id"] == "citeproof.manuscript/1" and data["title"] == "ManuscriptReport"
    Draft202012Validator.check_schema(data)
    return Draft202012Validator(data)


# ------------------------------------------------------------------------------ the example


@pytest.mark.parametrize("form", list(FORMS))
def test_every_form_of_the_example_gives_the_same_verdicts(
    run_cli: CliRun, form: str, schema: Draft202012Validator
) -> None:
    code, report = check(run_cli, FORMS[form], "--no-log")
    assert code == 1 and report["verdict"] == "fail"  # the second entry's DOI is another work's
    assert report["schema"] == "citeproof.manuscript/1"
    assert sorted(schema.iter_errors(report), key=str) == []
    refs = report["references"]
    assert [r["result"]["verdict"] for r in refs] == [
        "verified",
        "mismatch",
        "verified",
        "verified",
    ]
    assert [r["cited_by"] for r in refs] == [[0, 3, 4], [1, 5], [2, 3], [6]]
    assert refs[0]["work"] == "doi:10.5555/invented.world.1"

    exact, altered = report["quotations"]
    # (a PDF's line break stays in the words; the matcher takes it for a space)
    assert (flat(exact["text"]), exact["verdict"], exact["finding"]) == (EXACT, "EXACT", "ok")
    assert exact["section"] == ["Results"] and exact["entry_ids"] == [refs[0]["id"]]
    assert exact["against"] == {
        "entry_id": refs[0]["id"],
        "kind": "file",
        "identifier": None,
        "basis": None,
        "file": "halloway2021.txt",
        "matched_by": "doi",
    }
    assert exact["check"]["schema"] == "citeproof.check/1" and exact["check"]["verdict"] == "EXACT"
    assert (flat(altered["text"]), altered["verdict"]) == (ALTERED, "NEAR")
    assert altered["finding"] == "near_quote"
    replaced = [d for d in altered["check"]["near"]["diff"] if d["op"] == "replace"]
    assert replaced == [{"op": "replace", "quote": "tripled", "source": "doubled"}]
    assert "'tripled' where the source has 'doubled'" in altered["reason"]
    # The mismatch's wrong DOI is Halloway's: the copy is matched by title and first author.
    assert altered["against"]["file"] == "brennan2020.txt"
    assert altered["against"]["matched_by"] == "title_author"

    (retracted,) = report["retracted"]
    assert retracted["identifier"] == "doi:10.5555/invented.world.7"
    assert retracted["status"] == "RETRACTED" and retracted["acknowledged"] is True
    assert report["unlinked"] == [] and report["uncited"] == []
    counts = report["counts"]
    assert counts["by_quotation_verdict"]["EXACT"] == counts["by_quotation_verdict"]["NEAR"] == 1
    assert counts["by_reference_verdict"]["verified"] == 3 and counts["retracted"] == 1
    assert counts["citations"] == 7 and counts["references"] == 4
    assert [s["file"] for s in report["sources"]] == ["brennan2020.txt", "halloway2021.txt"]
    assert report["signature"]["algorithm"] == "ed25519"


def test_a_latex_archive_reads_as_its_folder(run_cli: CliRun, tmp_path: Path) -> None:
    archive = tmp_path / "paper.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name in ("paper.tex", "refs.bib"):
            tar.add(EXAMPLE / name, arcname=f"paper/{name}")
    _, folder = check(run_cli, EXAMPLE, "--no-log")
    _, packed = check(run_cli, archive, "--no-log")
    assert packed["manuscript"]["format"] == "latex"
    assert packed["manuscript"]["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
    for key in ("quotations", "citations", "unlinked", "uncited", "retracted"):
        assert packed[key] == folder[key], key
    verdicts = [r["result"]["verdict"] for r in packed["references"]]
    assert verdicts == [r["result"]["verdict"] for r in folder["references"]]


def test_a_folder_is_named_by_the_digest_of_its_sources(run_cli: CliRun) -> None:
    _, report = check(run_cli, EXAMPLE, "--no-log")
    lines = "".join(
        f"{hashlib.sha256((EXAMPLE / n).read_bytes()).hexdigest()}  {n}\n"
        for n in ("paper.tex", "refs.bib")
    )
    assert report["manuscript"]["sha256"] == hashlib.sha256(lines.encode()).hexdigest()
    assert report["manuscript"]["members"] == ["paper.tex"]


def test_the_signature_verifies_and_any_change_breaks_it(run_cli: CliRun, tmp_path: Path) -> None:
    _, report = check(run_cli, FORMS["docx"], "--no-log")
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    ok = run_cli("manuscript", "verify", path)
    assert ok.exit_code == 0, ok.output
    assert "valid: the signature is valid." in ok.stdout and "manuscript verdict: fail" in ok.stdout
    changed = dict(report, verdict="pass")
    path.write_text(json.dumps(changed), encoding="utf-8")
    bad = run_cli("manuscript", "verify", path, "--json")
    assert bad.exit_code == 1 and json.loads(bad.stdout)["valid"] is False
    # An audit report is not a manuscript report, and the other way round.
    wrong = run_cli("audit", "verify", "-", input=json.dumps(report))
    assert wrong.exit_code == 2 and "not an audit report" in wrong.stderr
    wrong = run_cli("manuscript", "verify", "-", input='{"schema": "citeproof.audit/1"}')
    assert wrong.exit_code == 2 and "not a manuscript report" in wrong.stderr


def test_the_check_is_one_evidence_line_naming_the_signed_report(run_cli: CliRun) -> None:
    from citeproof.evidence.log import EvidenceLog, default_log_path
    from citeproof.service.signatures import report_bytes

    result = run_cli(
        "manuscript", FORMS["pdf"], "--replay", RECORDINGS, "--sources", SOURCES, "--json"
    )
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    (entry,) = list(EvidenceLog(default_log_path()).entries())
    assert entry.kind == "manuscript"
    assert f"recorded as log entry {entry.seq}" in result.stderr
    payload = entry.payload
    assert payload["schema"] == "citeproof.manuscript/1" and payload["verdict"] == "fail"
    assert payload["manuscript_sha256"] == hashlib.sha256(FORMS["pdf"].read_bytes()).hexdigest()
    assert payload["report_sha256"] == hashlib.sha256(report_bytes(report)).hexdigest()
    assert payload["signed_by"] == report["signature"]["key_id"]
    assert payload["counts"] == report["counts"]


def test_fail_on_chooses_what_fails(run_cli: CliRun) -> None:
    code, report = check(run_cli, FORMS["docx"], "--no-log", "--fail-on", "misquote")
    assert (code, report["verdict"]) == (0, "warn")  # a mismatch and a near quote only warn
    code, report = check(run_cli, FORMS["docx"], "--no-log", "--fail-on", "near_quote")
    assert (code, report["verdict"]) == (1, "fail")
    bad = run_cli("manuscript", FORMS["docx"], "--fail-on", "bogus", "--no-log")
    assert bad.exit_code == 2
    assert bad.stderr.count("\n") == 1 and "'bogus'" in bad.stderr and "misquote" in bad.stderr


def test_without_the_editors_copies_a_quotation_is_checked_against_the_cited_work(
    run_cli: CliRun,
) -> None:
    result = run_cli("manuscript", FORMS["docx"], "--replay", RECORDINGS, "--json", "--no-log")
    report = json.loads(result.stdout)
    exact, altered = report["quotations"]
    # The works' texts were never recorded: nothing is concluded, never NOT_FOUND.
    assert exact["verdict"] == "UNAVAILABLE" and exact["finding"] == "unchecked"
    assert exact["against"]["kind"] == "work" and exact["against"]["basis"] == "verified"
    assert exact["against"]["identifier"] == "doi:10.5555/invented.world.1"
    # The mismatch is checked against the work its stated metadata describes.
    assert altered["against"]["identifier"] == "doi:10.5555/invented.world.2"
    assert altered["against"]["basis"] == "suggested"
    assert report["sources"] == []


def test_citations_with_no_entry_and_entries_never_cited_are_listed(
    run_cli: CliRun, tmp_path: Path
) -> None:
    world = (EXAMPLE / "paper.tex").read_text(encoding="utf-8")
    assert "INVENTED" in world
    entries = [
        "Halloway W, Okonkwo-Reyes T. Compost temperature and earthworm density in invented "
        "allotments. Invented Journal of Soil Ecology. 2021;4(2):e0101. "
        "doi:10.5555/invented.world.1",
        "Adeyemi F, Novak L. Pollinator visits to invented rooftop meadows. Invented Urban "
        "Ecology. 2022;9(1):33-41.",
    ]
    paper = tmp_path / "paper.md"
    paper.write_text(
        "# An INVENTED note\n\nCompost matters [1], and so does something else [5]. Someone "
        f"once wrote that “{EXACT}”, without saying where.\n\n## References\n\n"
        + "\n".join(f"{n}. {e}" for n, e in enumerate(entries, start=1))
        + "\n",
        encoding="utf-8",
    )
    code, report = check(run_cli, paper, "--no-log")
    assert report["manuscript"]["format"] == "markdown"
    (unlinked,) = report["unlinked"]
    assert unlinked["target"] == "5" and unlinked["marker"] == "[5]"
    assert report["uncited"] == ["ref2"]
    (quotation,) = report["quotations"]
    assert quotation["finding"] == "unattributed" and quotation["verdict"] == "NOT_CHECKABLE"
    assert report["counts"]["unlinked"] == 1 and report["counts"]["uncited"] == 1
    assert (code, report["verdict"]) == (0, "warn")


def test_bad_input_is_one_line(run_cli: CliRun, tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("A note that cites nothing and quotes nothing.\n", encoding="utf-8")
    for args in (
        ("manuscript", REPO / "no-such-paper.pdf"),
        ("manuscript", FORMS["docx"], "--sources", REPO / "no-such-folder"),
        ("manuscript", notes),  # nothing to check
        ("manuscript", REPO / "examples" / "example-cache.zip"),  # an archive of no sources
    ):
        result = run_cli(*args, "--no-log")
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("citeproof: error: ")
        assert result.stderr.count("\n") == 1, result.stderr


def test_the_terminal_report_puts_problems_first() -> None:
    from rich.console import Console

    from citeproof.cli.manuscript import render_manuscript
    from citeproof.service.manuscripts import check_manuscript

    report = check_manuscript(FORMS["pdf"], sources=SOURCES, replay=RECORDINGS)
    out = io.StringIO()
    render_manuscript(report, Console(file=out, width=110, highlight=False, color_system=None))
    text = out.getvalue()
    assert text.startswith("manuscript: FAIL  paper.pdf (pdf)")
    problems = text.index("Problems")
    assert problems < text.index("Quotations") < text.index("References")
    # what fails the manuscript (the mismatch) before what only warns (the near quote)
    assert problems < text.index("reference [2]: mismatch") < text.index("quotation 2")
    assert "'tripled' where the source has 'doubled'" in " ".join(text.split())
    assert "cited work [4] retracted (the manuscript says so)" in text


# ------------------------------------------------------------------------------ the audit


@pytest.mark.parametrize(
    ("given", "kind"),
    [
        (FORMS["pdf"], "a PDF"),
        (FORMS["docx"], "a Word document"),
        (EXAMPLE, "a LaTeX manuscript's folder"),
        (FORMS["latex-file"], "a LaTeX source"),
        (REPO / "examples" / "example-article.nxml", "a JATS XML article"),
        (REPO / "examples" / "example-page.html", "an HTML page"),
    ],
)
def test_audit_refuses_a_manuscript_naming_the_command(
    run_cli: CliRun, given: Path, kind: str
) -> None:
    result = run_cli("audit", given, "--offline", "--no-log")
    assert result.exit_code == 2
    assert result.stderr == (
        f"citeproof: error: {given} is {kind}, not an AI answer; check a manuscript with "
        f"`citeproof manuscript {given}`.\n"
    )


def test_audit_refuses_a_piped_pdf(run_cli: CliRun) -> None:
    result = run_cli("audit", "-", "--offline", "--no-log", input=FORMS["pdf"].read_bytes())
    assert result.exit_code == 2
    assert "standard input holds a PDF" in result.stderr and "citeproof manuscript" in result.stderr
    assert "UTF-8" not in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("article", ["PMC1790863", "PMC3166277", "PMC7417471"])
def test_a_papers_text_piped_into_audit_has_no_fabricated_citations(
    run_cli: CliRun, article: str
) -> None:
    """``citeproof text paper | citeproof audit -`` once said every ``[n]`` had no entry:
    the list was not found in text that is not Markdown, or its bare numbers were not read.
    PMC3166277's list has neither a heading nor numbers."""
    path = CORPUS / f"{article}.nxml"
    if not path.is_file():
        pytest.skip(f"../shared/corpus not found: needs {path.name} from the shared corpus")
    text = run_cli("text", path)
    assert text.exit_code == 0, text.output
    result = run_cli("audit", "-", "--offline", "--no-log", "--json", input=text.stdout)
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(result.stdout)
    numbered = [c for s in report["sentences"] for c in s["citations"] if c["kind"] == "numbered"]
    assert len(numbered) >= 20
    assert [c for c in numbered if c["verdict"] in ("unresolvable", "forged", "mismatch")] == []
    assert report["metrics"]["fabricated"] == 0
    assert report["metrics"]["references"] >= 30
