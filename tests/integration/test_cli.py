"""The command line end to end: verdicts and exit codes, the JSON contract, stdin, errors.

Most cases run in-process through click's CliRunner (fast); a few run the real program
(`python -m citeproof`) to pin what only a real process shows: exit status, that stdout
that is not a terminal gets JSON, byte-exact `citeproof text`, and no traceback on stderr.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import Result

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
ARTICLE = EXAMPLES / "example-article.nxml"
PAGE = EXAMPLES / "example-page.html"
NOTES = EXAMPLES / "example-notes.txt"

EXACT_QUOTE = (
    "Participants who walked for thirty minutes each morning fell asleep faster "
    "than those in the control group."
)
NEAR_QUOTE = (
    "Participants who walked for thirty minutes each morning fell asleep sooner "
    "than those in the control group."
)
ABSENT_QUOTE = "Coffee after noon had no measurable effect on anything we recorded."
SHORT_QUOTE = "fell asleep"


def assert_bad_input(result: Result, *words: str) -> None:
    """Exit 2, one `citeproof: error:` line on stderr, nothing on stdout, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("citeproof: error: ")
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in lines[0], lines[0]


# ---------------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(
    ("quote", "verdict", "code"),
    [
        (EXACT_QUOTE, "EXACT", 0),
        (NEAR_QUOTE, "NEAR", 1),
        (ABSENT_QUOTE, "NOT_FOUND", 1),
        (SHORT_QUOTE, "TOO_SHORT", 1),
    ],
)
def test_verdict_and_exit_code(run_cli: CliRun, quote: str, verdict: str, code: int) -> None:
    exit_code, data = run_cli.json("check", "--json", quote, ARTICLE)
    assert (data["verdict"], exit_code) == (verdict, code)


def test_citation_markers_do_not_break_a_match(run_cli: CliRun) -> None:
    quote = "Difficulty falling asleep is reported by about a third of people over 65 years of age."
    code, data = run_cli.json("check", "--json", quote, ARTICLE)
    assert (code, data["verdict"]) == (0, "EXACT")


def test_near_reports_wording_diff_and_risk_flags(run_cli: CliRun) -> None:
    code, data = run_cli.json(
        "check",
        "--json",
        "Mean sleep onset latency fell by 12 minutes (95% CI 9 to 19) in the walking group",
        ARTICLE,
    )
    assert (code, data["verdict"]) == (1, "NEAR")
    near = data["near"]
    assert "14 minutes" in near["text"]
    assert "numbers_differ" in near["flags"]
    assert near["similarity"] >= 0.9
    assert any(step["op"] != "equal" for step in near["diff"])


def test_negation_flag(run_cli: CliRun) -> None:
    code, data = run_cli.json(
        "check",
        "--json",
        "The programme did improve total sleep time, which changed by less than ten minutes",
        ARTICLE,
    )
    assert (code, data["verdict"]) == (1, "NEAR")
    assert "negation_differs" in data["near"]["flags"]


def test_ambiguous_quote_lists_every_occurrence(run_cli: CliRun) -> None:
    code, data = run_cli.json("check", "--json", "a brief morning walking programme", ARTICLE)
    assert code == 0 and data["ambiguous"] and data["count"] == len(data["matches"]) >= 2
    regions = {m["location"]["region"] for m in data["matches"]}
    assert {"abstract", "body"} <= regions


def test_locations_name_sections_and_regions(run_cli: CliRun) -> None:
    _, data = run_cli.json(
        "check", "--json", "Walks were recorded with a wrist-worn step counter", ARTICLE
    )
    location = data["matches"][0]["location"]
    assert location["section"] == ["Methods", "Intervention", "Adherence"]
    assert location["region"] == "body"
    _, data = run_cli.json(
        "check", "--json", "Mean minutes to fall asleep in the walking and control groups", ARTICLE
    )
    assert data["matches"][0]["location"]["region"] == "caption"


def test_case_difference_is_reported(run_cli: CliRun) -> None:
    _, data = run_cli.json(
        "check", "--json", "walks were recorded with a wrist-worn step counter", ARTICLE
    )
    assert data["verdict"] == "NEAR" and data["casefold_match"]
    assert "case_only" in data["near"]["flags"]


def test_match_in_references_is_flagged(run_cli: CliRun) -> None:
    _, data = run_cli.json("check", "--json", "Hypnotic drugs and falls in older people", ARTICLE)
    assert data["verdict"] == "EXACT"
    assert data["matches"][0]["location"]["region"] == "references"
    assert "match_in_references" in data["flags"]


def test_ellipsis_quote_reports_fragments(run_cli: CliRun) -> None:
    code, data = run_cli.json(
        "check",
        "--json",
        "Of the 120 participants randomised ... fell asleep faster than those in the control group",
        ARTICLE,
    )
    assert (code, data["verdict"]) == (0, "EXACT")
    assert [f["verdict"] for f in data["fragments"]] == ["EXACT", "EXACT"]


def test_html_and_text_examples(run_cli: CliRun) -> None:
    code, data = run_cli.json(
        "check", "--json", "Paper does not need charging, survives rain in a plastic sleeve", PAGE
    )
    assert (code, data["verdict"], data["source"]["kind"]) == (0, "EXACT", "html")
    code, data = run_cli.json(
        "check", "--json", "a garden that is fed from below needs less watering", NOTES
    )
    assert (code, data["verdict"], data["source"]["kind"]) == (0, "EXACT", "text")


def test_empty_text_is_not_checkable(run_cli: CliRun, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    code, data = run_cli.json("check", "--json", EXACT_QUOTE, empty)
    assert (code, data["verdict"]) == (1, "NOT_CHECKABLE")
    assert data["reason"] == "the document has no text."


def test_pdf_without_text_layer_is_not_checkable(run_cli: CliRun, tmp_path: Path) -> None:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument.new()
    pdf.new_page(612, 792)
    buffer = io.BytesIO()
    pdf.save(buffer)
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(buffer.getvalue())
    code, data = run_cli.json("check", "--json", EXACT_QUOTE, scan)
    assert (code, data["verdict"], data["source"]["kind"]) == (1, "NOT_CHECKABLE", "pdf")
    assert "no text layer" in data["reason"]


# ---------------------------------------------------------------------------- JSON contract

CONTRACT: dict[str, type | tuple[type, ...]] = {
    "schema": str,
    "verdict": str,
    "reason": (str, type(None)),
    "quote": str,
    "normalisation": str,
    "matches": list,
    "count": int,
    "ambiguous": bool,
    "casefold_match": bool,
    "word_boundaries": (dict, type(None)),
    "near": (dict, type(None)),
    "fragments": (list, type(None)),
    "flags": list,
    "source": dict,
    "log_seq": (int, type(None)),
}
SOURCE_FIELDS = {
    "input",
    "kind",
    "identifier",
    "resolved",
    "served_by",
    "version",
    "coverage",
    "sha256",
    "md5_ok",
    "licence",
    "url",
    "retrieved_at",
    "title",
}


def test_json_contract_fields_and_types(run_cli: CliRun) -> None:
    _, data = run_cli.json("check", "--json", EXACT_QUOTE, ARTICLE)
    for field, kind in CONTRACT.items():
        assert field in data, field
        assert isinstance(data[field], kind), (field, data[field])
    assert data["schema"] == "citeproof.check/1"
    assert data["normalisation"] == "t1"
    match = data["matches"][0]
    assert set(match) >= {"start", "end", "normalized_start", "normalized_end", "text", "location"}
    assert set(match["location"]) == {"block", "section", "region", "page"}
    assert set(data["word_boundaries"]) == {"starts_mid_word", "ends_mid_word"}
    source = data["source"]
    assert set(source) >= SOURCE_FIELDS
    assert set(source["resolved"]) == {"doi", "pmid", "pmcid"}
    assert source["kind"] == "jats" and source["coverage"] == "file"
    assert source["served_by"] == "file" and source["input"] == str(ARTICLE)
    assert source["resolved"]["doi"] == "10.5555/citeproof.example.1"
    assert len(source["sha256"]) == 64
    assert source["sha256"] == __import__("hashlib").sha256(ARTICLE.read_bytes()).hexdigest()


def test_near_contract(run_cli: CliRun) -> None:
    _, data = run_cli.json("check", "--json", NEAR_QUOTE, ARTICLE)
    near = data["near"]
    assert set(near) >= {"similarity", "start", "end", "text", "diff", "flags"}
    assert isinstance(near["similarity"], float)
    for step in near["diff"]:
        assert set(step) == {"op", "quote", "source"}
        assert step["op"] in {"equal", "replace", "insert", "delete"}
    assert data["word_boundaries"] is None and data["matches"] == []


@pytest.mark.parametrize("source", [ARTICLE, PAGE, NOTES])
def test_offsets_index_the_text_command_output(run_cli: CliRun, source: Path) -> None:
    text = run_cli("text", source).stdout_bytes.decode("utf-8")
    quotes = {
        ARTICLE: [
            "Mean sleep onset latency fell by 14 minutes",
            NEAR_QUOTE,
            "Hypnotic drugs and falls in older people",
        ],
        PAGE: ["an empty transect is a result too", "Counts on the south marsh were lower"],
        NOTES: [
            "compost applied in autumn had broken down by spring",
            "compost is a cure for poor drainage, and no amount",
        ],
    }[source]
    for quote in quotes:
        _, data = run_cli.json("check", "--json", quote, source)
        for match in data["matches"]:
            assert text[match["start"] : match["end"]] == match["text"]
        if data["near"]:
            near = data["near"]
            assert text[near["start"] : near["end"]] == near["text"]
        assert data["matches"] or data["near"]


def test_json_output_is_the_model_dump(run_cli: CliRun) -> None:
    import citeproof

    _, data = run_cli.json("check", "--json", EXACT_QUOTE, ARTICLE)
    expected = citeproof.check(EXACT_QUOTE, str(ARTICLE)).model_dump(mode="json")
    assert isinstance(data.pop("log_seq"), int)  # the CLI records the check; the library
    assert expected.pop("log_seq") is None  # does only when asked (log=True)
    assert data == expected


def test_non_terminal_stdout_gets_json_without_the_flag(run_cli: CliRun) -> None:
    result = run_cli("check", EXACT_QUOTE, ARTICLE)  # CliRunner's stdout is not a terminal
    assert json.loads(result.stdout)["verdict"] == "EXACT"


# ---------------------------------------------------------------------------- options


def test_options_are_passed_through(run_cli: CliRun) -> None:
    code, data = run_cli.json("check", "--json", "--near-threshold", "1", NEAR_QUOTE, ARTICLE)
    assert (code, data["verdict"]) == (1, "NOT_FOUND")
    code, data = run_cli.json("check", "--json", "--profile", "t1+dehyphen", EXACT_QUOTE, ARTICLE)
    assert code == 0
    code, data = run_cli.json(
        "check",
        "--json",
        "--max-gap",
        "0",
        "Of the 120 participants randomised ... fell asleep faster than those in the control group",
        ARTICLE,
    )
    assert data["verdict"] != "EXACT"


@pytest.mark.parametrize(
    "args",
    [
        ["--near-threshold", "0"],
        ["--near-threshold", "1.5"],
        ["--near-threshold", "high"],
        ["--max-gap", "-1"],
        ["--profile", "t9"],
    ],
)
def test_bad_option_values_are_usage_errors(run_cli: CliRun, args: list[str]) -> None:
    result = run_cli("check", *args, EXACT_QUOTE, ARTICLE)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.stdout == ""


@pytest.mark.parametrize("args", [[], [EXACT_QUOTE], [EXACT_QUOTE, ARTICLE, "extra"]])
def test_wrong_number_of_arguments(run_cli: CliRun, args: list[str]) -> None:
    result = run_cli("check", *args)
    assert result.exit_code == 2 and "Usage:" in result.stderr


def test_quote_file_and_quote_argument_together(run_cli: CliRun, tmp_path: Path) -> None:
    quote_file = tmp_path / "q.txt"
    quote_file.write_text(EXACT_QUOTE)
    result = run_cli("check", "--quote-file", quote_file, EXACT_QUOTE, ARTICLE)
    assert result.exit_code == 2 and "not both" in result.stderr


# ---------------------------------------------------------------------------- stdin


def test_source_from_stdin(run_cli: CliRun) -> None:
    result = run_cli("check", "--json", EXACT_QUOTE, "-", input=ARTICLE.read_bytes())
    data = json.loads(result.stdout)
    assert (result.exit_code, data["verdict"]) == (0, "EXACT")
    assert data["source"]["input"] == "-" and data["source"]["served_by"] == "stdin"
    assert data["source"]["kind"] == "jats"


def test_quote_file(run_cli: CliRun, tmp_path: Path) -> None:
    quote_file = tmp_path / "quote.txt"
    quote_file.write_text(EXACT_QUOTE + "\n", encoding="utf-8")
    code, data = run_cli.json("check", "--json", "--quote-file", quote_file, ARTICLE)
    assert (code, data["verdict"], data["quote"]) == (0, "EXACT", EXACT_QUOTE)


def test_quote_file_from_stdin(run_cli: CliRun) -> None:
    code, data = run_cli.json(
        "check", "--json", "--quote-file", "-", ARTICLE, input=EXACT_QUOTE + "\r\n"
    )
    assert (code, data["verdict"], data["quote"]) == (0, "EXACT", EXACT_QUOTE)


def test_quote_file_with_bom(run_cli: CliRun) -> None:
    code, data = run_cli.json(
        "check",
        "--json",
        "--quote-file",
        "-",
        ARTICLE,
        input=b"\xef\xbb\xbf" + EXACT_QUOTE.encode(),
    )
    assert (code, data["quote"]) == (0, EXACT_QUOTE)


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_quote_file_is_decoded_as_a_source_is(run_cli: CliRun, tmp_path: Path, codec: str) -> None:
    """A UTF-16 source with a BOM was read while the same quote file was refused: both
    follow one rule now (UTF-8, or UTF-16/32 named by a byte-order mark)."""
    data = (EXACT_QUOTE + "\r\n").encode(codec)
    if codec == "utf-16-be":
        data = b"\xfe\xff" + data  # Python adds no BOM for an explicit byte order
    quote_file = tmp_path / "quote.txt"
    quote_file.write_bytes(data)
    code, result = run_cli.json("check", "--json", "--quote-file", quote_file, ARTICLE)
    assert (code, result["verdict"], result["quote"]) == (0, "EXACT", EXACT_QUOTE)


def test_stdin_cannot_hold_both(run_cli: CliRun) -> None:
    result = run_cli("check", "--quote-file", "-", "-", input=b"whatever")
    assert_bad_input(result, "not both")


# ---------------------------------------------------------------------------- bad input

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE article [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<article><body><p>&lol9;</p></body></article>
"""


@pytest.mark.parametrize("quote", ["", "   ", "\n\t\u00a0"])
def test_empty_quote(run_cli: CliRun, quote: str) -> None:
    assert_bad_input(run_cli("check", quote, ARTICLE), "empty")


def test_missing_file(run_cli: CliRun, tmp_path: Path) -> None:
    assert_bad_input(run_cli("check", EXACT_QUOTE, tmp_path / "nope.nxml"), "does not exist")


def test_unreadable_file_a_directory(run_cli: CliRun, tmp_path: Path) -> None:
    assert_bad_input(run_cli("check", EXACT_QUOTE, tmp_path), "directory")


def test_unreadable_file_a_broken_symlink(run_cli: CliRun, tmp_path: Path) -> None:
    link = tmp_path / "paper.nxml"
    link.symlink_to(tmp_path / "gone.nxml")
    assert_bad_input(run_cli("check", EXACT_QUOTE, link), "does not exist")


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read a chmod 000 file")
def test_unreadable_file_permissions(
    run_cli: CliRun, tmp_path: Path
) -> None:  # pragma: no cover - not root
    locked = tmp_path / "locked.txt"
    locked.write_text("text")
    locked.chmod(0)
    assert_bad_input(run_cli("check", EXACT_QUOTE, locked), "permission")


def test_identifier_offline_and_unpinned_is_unavailable(run_cli: CliRun, tmp_path: Path) -> None:
    # A DOI that is not a file is fetched now; --offline forbids that, so nothing is concluded.
    result = run_cli(
        "check",
        "--json",
        "--offline",
        EXACT_QUOTE,
        "10.5555/citeproof.example.1",
        env={"CITEPROOF_HOME": str(tmp_path), "CITEPROOF_REPLAY": ""},
    )
    assert result.exit_code == 3, result.output
    data = json.loads(result.stdout)
    assert data["verdict"] == "UNAVAILABLE"
    assert "--offline" in data["reason"]


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("binary.bin", bytes(range(256)) * 8),
        ("image.txt", b"\x89PNG\r\n\x1a\n" + b"\x00" * 64),
        ("archive.nxml", b"PK\x03\x04" + b"\x00" * 64),
        (
            "unknown.xml",
            b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg">'
            b"<text>hello there</text></svg>",
        ),
    ],
)
def test_unsupported_formats(run_cli: CliRun, tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    assert_bad_input(run_cli("check", EXACT_QUOTE, path))


def test_invalid_utf8_text(run_cli: CliRun, tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("Caf\u00e9 au lait was served at noon every day.".encode("latin-1"))
    assert_bad_input(run_cli("check", EXACT_QUOTE, path), "UTF-8")


def test_missing_quote_file(run_cli: CliRun, tmp_path: Path) -> None:
    assert_bad_input(run_cli("check", "--quote-file", tmp_path / "q.txt", ARTICLE), "quote file")


def test_invalid_utf8_quote_file(run_cli: CliRun, tmp_path: Path) -> None:
    path = tmp_path / "quote.txt"
    path.write_bytes(b"caf\xe9 au lait was served at noon")
    assert_bad_input(run_cli("check", "--quote-file", path, ARTICLE), "UTF-8")


def test_quote_with_undecodable_bytes(run_cli: CliRun) -> None:
    # On POSIX, bytes in argv that are not UTF-8 arrive as lone surrogates.
    assert_bad_input(run_cli("check", "caf\udce9 au lait was served at noon", ARTICLE), "UTF-8")


def test_file_over_size_cap(run_cli: CliRun) -> None:
    result = run_cli("check", EXACT_QUOTE, ARTICLE, env={"CITEPROOF_MAX_FILE_BYTES": "100"})
    assert_bad_input(result, "100-byte cap", "CITEPROOF_MAX_FILE_BYTES")


def test_stdin_over_size_cap(run_cli: CliRun) -> None:
    result = run_cli(
        "check",
        EXACT_QUOTE,
        "-",
        input=ARTICLE.read_bytes(),
        env={"CITEPROOF_MAX_FILE_BYTES": "100"},
    )
    assert_bad_input(result, "standard input")


def test_bad_size_cap_setting(run_cli: CliRun) -> None:
    result = run_cli("check", EXACT_QUOTE, ARTICLE, env={"CITEPROOF_MAX_FILE_BYTES": "big"})
    assert_bad_input(result, "CITEPROOF_MAX_FILE_BYTES")


def test_quote_over_100000_characters(run_cli: CliRun, tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text("word " * 20_001)
    assert_bad_input(run_cli("check", "--quote-file", path, ARTICLE), "100,000")
    assert_bad_input(run_cli("check", "x" * 100_001, ARTICLE), "100,000")


def test_billion_laughs_is_refused_fast(run_cli: CliRun, tmp_path: Path) -> None:
    path = tmp_path / "laughs.xml"
    path.write_bytes(BILLION_LAUGHS)
    started = time.perf_counter()
    result = run_cli("check", EXACT_QUOTE, path)
    assert time.perf_counter() - started < 5
    assert_bad_input(result)


# ---------------------------------------------------------------------------- citeproof text


def test_text_prints_exactly_the_document_text(run_cli: CliRun) -> None:
    import citeproof

    for source in (ARTICLE, PAGE, NOTES):
        result = run_cli("text", source)
        assert result.exit_code == 0
        assert result.stdout_bytes == citeproof.load(source).text.encode("utf-8")


def test_text_from_stdin(run_cli: CliRun) -> None:
    result = run_cli("text", "-", input=NOTES.read_bytes())
    assert result.stdout_bytes.decode() == run_cli("text", NOTES).stdout_bytes.decode()


def test_text_blocks_are_json_lines(run_cli: CliRun) -> None:
    text = run_cli("text", ARTICLE).stdout_bytes.decode("utf-8")
    result = run_cli("text", "--blocks", ARTICLE)
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert rows
    previous_end = 0
    for row in rows:
        assert set(row) == {"start", "end", "kind", "section", "region", "page"}
        assert 0 <= row["start"] <= row["end"] <= len(text)
        assert row["start"] >= previous_end
        previous_end = row["end"]
    assert {"title", "abstract", "body", "caption", "table", "references"} <= {
        r["region"] for r in rows
    }


def test_text_errors_are_bad_input(run_cli: CliRun, tmp_path: Path) -> None:
    assert_bad_input(run_cli("text", tmp_path / "missing.html"), "does not exist")


def test_text_of_an_empty_document_warns(run_cli: CliRun, tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    result = run_cli("text", empty)
    assert result.exit_code == 0 and result.stdout_bytes == b""
    assert "no text" in result.stderr


# ---------------------------------------------------------------------------- real processes


def _process(
    *args: str | Path, input: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    # Without input, stdin is /dev/null: CI runs with no standard input at all.
    feed: dict[str, Any] = {"input": input} if input is not None else {"stdin": subprocess.DEVNULL}
    return subprocess.run(
        [sys.executable, "-m", "citeproof", *map(str, args)],
        **feed,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )


def test_process_exact_gives_json_on_a_pipe() -> None:
    done = _process("check", EXACT_QUOTE, ARTICLE)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["verdict"] == "EXACT"
    assert done.stderr == b""


def test_process_negative_result_exits_1() -> None:
    done = _process("check", NEAR_QUOTE, ARTICLE)
    assert done.returncode == 1
    assert json.loads(done.stdout)["verdict"] == "NEAR"


def test_process_stdin_source_and_quote_file(tmp_path: Path) -> None:
    done = _process("check", EXACT_QUOTE, "-", input=ARTICLE.read_bytes())
    assert done.returncode == 0 and json.loads(done.stdout)["source"]["input"] == "-"
    done = _process("check", "--quote-file", "-", ARTICLE, input=EXACT_QUOTE.encode())
    assert done.returncode == 0


def test_process_bad_input_has_no_traceback(tmp_path: Path) -> None:
    for args in (
        ("check", "", ARTICLE),
        ("check", EXACT_QUOTE, tmp_path / "missing.pdf"),
        ("text", tmp_path),
    ):
        done = _process(*args)
        assert done.returncode == 2
        stderr = done.stderr.decode()
        assert stderr.startswith("citeproof: error: ") and stderr.count("\n") == 1
        assert b"Traceback" not in done.stderr and done.stdout == b""


def test_process_text_is_byte_exact() -> None:
    import citeproof

    done = _process("text", ARTICLE)
    assert done.returncode == 0
    assert done.stdout == citeproof.load(ARTICLE).text.encode("utf-8")


def test_process_version_and_help() -> None:
    import citeproof

    done = _process("--version")
    assert done.returncode == 0 and done.stdout.decode().strip() == (
        f"citeproof {citeproof.__version__}"
    )
    done = _process("--help")
    assert done.returncode == 0 and b"check" in done.stdout and b"text" in done.stdout


# ---------------------------------------------------------------------------- terminal report


def _report(run_cli: CliRun, monkeypatch: pytest.MonkeyPatch, *args: str | Path) -> Result:
    """Run `check` as if stdout were a terminal (rich writes plain text to CliRunner)."""
    import citeproof.cli._common as common

    monkeypatch.setattr(common, "want_json", lambda flag: flag)
    monkeypatch.setenv("COLUMNS", "200")
    return run_cli("check", *args)


def test_report_for_exact(run_cli: CliRun, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _report(run_cli, monkeypatch, EXACT_QUOTE, ARTICLE)
    assert result.exit_code == 0
    out = result.stdout
    assert "EXACT" in out and "Results · body" in out and "characters" in out
    assert "120 participants randomised" in out  # context around the match
    assert "10.5555/citeproof.example.1" in out and "jats" in out


def test_report_for_near_with_risk_flags(run_cli: CliRun, monkeypatch: pytest.MonkeyPatch) -> None:
    result = _report(
        run_cli,
        monkeypatch,
        "The programme did improve total sleep time, which changed by less than ten minutes",
        ARTICLE,
    )
    assert result.exit_code == 1
    out = result.stdout
    assert "NEAR" in out and "The programme did not improve total sleep time" in out
    assert "negation_differs" in out and "must not be presented as a quote" in out
    assert "did [-not-] improve" in out  # no colour here, so the diff marks are spelled out
    assert "similarity" in out


def test_report_lists_every_occurrence_and_fragments(
    run_cli: CliRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _report(run_cli, monkeypatch, "a brief morning walking programme", ARTICLE).stdout
    assert "occurrence 1 of" in out and "occurs" in out
    out = _report(
        run_cli, monkeypatch, "Of the 120 participants randomised ... fell asleep faster", ARTICLE
    ).stdout
    assert "fragments" in out


def test_report_for_not_checkable_and_too_short(
    run_cli: CliRun, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    out = _report(run_cli, monkeypatch, EXACT_QUOTE, empty).stdout
    assert "NOT_CHECKABLE" in out and "no text" in out
    out = _report(run_cli, monkeypatch, SHORT_QUOTE, ARTICLE).stdout
    assert "TOO_SHORT" in out and "20" in out


def test_report_does_not_interpret_markup(run_cli: CliRun, monkeypatch: pytest.MonkeyPatch) -> None:
    quote = "[bold]this is not markup[/bold] and [red]neither is this[/red] at all"
    out = _report(run_cli, monkeypatch, quote, ARTICLE).stdout
    assert "[bold]this is not markup[/bold]" in out
