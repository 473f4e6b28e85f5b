"""``citeproof audit`` end to end, offline: every citation verdict, the overall verdicts and
exit codes, retraction flags, per-item limits, stdin, JSON claims and signature checks.

The cited work is PMC3166277 from the recorded PMC chain (``pmc_replay``), pinned once by
issuing its passages; every audit then runs ``--offline`` against the pin.  Retractions come
from the invented Retraction Watch CSV in ``examples/``.  The commands run through the real
``citeproof`` group, so errors are reported exactly as users see them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from citeproof.audit.run import audit_answer
from citeproof.evidence.log import default_log_path
from citeproof.handles.registry import passages_for
from pmc_replay import QUOTE, jats, pmc_replay

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
RW_CSV = REPO / "examples" / "retraction-watch-invented.csv"

NEGATION_GAP = "the observed negative relationship was ... significant"


def audit_json(
    run_cli: CliRun, tmp_path: Path, answer: str, *args: str
) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "answer.md"
    path.write_text(answer, encoding="utf-8")
    result = run_cli("audit", str(path), "--offline", "--json", *args)
    assert result.exit_code in (0, 1, 3), result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return result.exit_code, data


def citations(report: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for s in report["sentences"] for c in s["citations"]]


@pytest.fixture
def replay(tmp_path: Path) -> Path:
    return pmc_replay(tmp_path / "replay")


@pytest.fixture
def issued(replay: Path) -> dict[str, str]:
    """Path -> handle for every passage of PMC3166277 (which also pins the article)."""
    listing = passages_for("PMC3166277", replay=replay, limit=1000)
    return {p.path: p.handle for p in listing.passages if p.handle is not None}


@pytest.fixture
def passage_text(replay: Path, issued: dict[str, str]) -> dict[str, str]:
    listing = passages_for("PMC3166277", offline=True, limit=1000)
    return {p.path: p.text for p in listing.passages}


# ---------------------------------------------------------------------------- verdicts


def test_every_quote_verdict_against_a_pinned_article(
    run_cli: CliRun, tmp_path: Path, issued: dict[str, str]
) -> None:
    answer = (
        f'Exact: "{QUOTE}" [PMC3166277].\n\n'
        f'Not found: "stochastic lysis never happens in any phage whatsoever" [PMC3166277].\n\n'
        f'Negated: "{QUOTE.replace("provides", "does not provide")}" [PMC3166277].\n\n'
        f'Mid-word: "{QUOTE[1:]}" [PMC3166277].\n\n'
        f'Hidden: "{NEGATION_GAP}" [PMC3166277].\n\n'
        f'Near: "{QUOTE.replace("explore", "explor")}" [PMC3166277].\n\n'
        "No quote, resolves [PMC3166277].\n"
    )
    code, report = audit_json(run_cli, tmp_path, answer, "--no-retraction")
    got = [(c["verdict"], c["flags"]) for c in citations(report)]
    assert got == [
        ("ok", []),
        ("misquote", []),
        ("misquote", ["negation_differs"]),
        ("misquote", ["partial_word"]),
        ("misquote", ["ellipsis_hides_negation"]),
        ("near_quote", []),
        ("ok", []),
    ]
    assert code == 1 and report["verdict"] == "fail"
    first = citations(report)[0]
    assert first["check"]["verdict"] == "EXACT" and first["quote"] == QUOTE
    assert first["source"]["identifier"] == "pmcid:PMC3166277"
    assert citations(report)[-1]["check"] is None
    m = report["metrics"]
    assert m["quotes"] == 6 and m["quotes_ok"] == 1 and m["quote_accuracy"] == round(1 / 6, 4)
    assert m["by_verdict"]["misquote"] == 4 and m["claim_coverage"] == 1.0


def test_handle_verdicts_malformed_forged_ok_and_unavailable(
    run_cli: CliRun, tmp_path: Path, issued: dict[str, str], passage_text: dict[str, str]
) -> None:
    handle = issued["abstract.2"]
    words = " ".join(passage_text["abstract.2"].split()[:8])
    forged = re.sub(r"~.*$", "~ABCDEFGH", handle)
    answer = (
        f'Handle ok: "{words}" [{handle}].\n\n'
        f"Handle without quote [{handle}].\n\n"
        f"Forged [{forged}].\n\n"
        "Malformed [pmcid:PMC3166277~x].\n\n"
        "Not pinned [PMID 27355798].\n"
    )
    code, report = audit_json(run_cli, tmp_path, answer, "--no-retraction")
    got = [c["verdict"] for c in citations(report)]
    assert got == ["ok", "ok", "forged", "malformed", "unavailable"]
    ok = citations(report)[0]
    assert ok["handle"]["as_issued_text"] == passage_text["abstract.2"]
    assert ok["check"]["source"]["input"] == handle
    assert ok["resolved_to"] == "pmcid:PMC3166277"
    assert code == 1  # forged and malformed fail, which outranks incomplete
    assert report["metrics"]["fabricated"] == 1


def test_unavailable_alone_is_incomplete_exit_3(run_cli: CliRun, tmp_path: Path) -> None:
    code, report = audit_json(run_cli, tmp_path, "Claim [PMID 27355798].\n", "--no-retraction")
    assert (code, report["verdict"]) == (3, "incomplete")
    (c,) = citations(report)
    assert c["verdict"] == "unavailable" and "offline" in c["reason"]


def test_numbered_citations_and_an_entry_that_is_missing(
    run_cli: CliRun, tmp_path: Path, issued: dict[str, str]
) -> None:
    answer = (
        f'Lysis "{QUOTE}" [1]. Missing entry [2].\n\n'
        "## References\n\n1. An open article. PMCID: PMC3166277\n"
    )
    _, report = audit_json(run_cli, tmp_path, answer, "--no-retraction")
    first, second = citations(report)
    assert first["kind"] == "numbered" and first["verdict"] == "ok"
    assert first["resolved_to"] == "pmcid:PMC3166277" and first["reference"] == 0
    assert second["verdict"] == "unresolvable" and "no entry 2" in second["reason"]


def test_a_removed_passage_is_withdrawn(
    run_cli: CliRun, tmp_path: Path, issued: dict[str, str]
) -> None:
    data = re.sub(rb'<table-wrap id="T3".*?</table-wrap>', b"", jats(), flags=re.DOTALL)
    changed = pmc_replay(tmp_path / "changed", data)
    from citeproof import service

    service.load_source("PMC3166277", refresh=True, replay=changed)
    answer = f"Gone [{issued['table.t3.r2']}]. Kept [{issued['abstract.2']}].\n"
    code, report = audit_json(run_cli, tmp_path, answer, "--no-retraction")
    gone, kept = citations(report)
    assert gone["verdict"] == "withdrawn" and "version_changed" in gone["flags"]
    assert kept["verdict"] == "ok" and "version_changed" in kept["flags"]
    assert (code, report["verdict"]) == (0, "warn")


# ---------------------------------------------------------------------------- overall


def test_uncited_claims_warn_and_fail_on_changes_the_set(
    run_cli: CliRun, tmp_path: Path, issued: dict[str, str]
) -> None:
    answer = f'# Heading\n\n**Background.** Cited "{QUOTE}" [PMC3166277]. Not cited here.\n'
    code, report = audit_json(run_cli, tmp_path, answer, "--no-retraction")
    assert (code, report["verdict"]) == (0, "warn")
    statuses = [s["status"] for s in report["sentences"]]
    assert statuses == ["not_a_claim", "not_a_claim", "cited_ok", "uncited"]
    code, report = audit_json(run_cli, tmp_path, answer, "--no-retraction", "--fail-on", "uncited")
    assert (code, report["verdict"]) == (1, "fail") and report["fail_on"] == ["uncited"]
    # misquote no longer fails once the set leaves it out
    bad = 'Wrong "stochastic lysis never happens in any phage whatsoever" [PMC3166277].\n'
    code, report = audit_json(run_cli, tmp_path, bad, "--no-retraction", "--fail-on", "forged")
    assert (code, report["verdict"]) == (0, "warn")


def test_a_clean_answer_passes(run_cli: CliRun, tmp_path: Path, issued: dict[str, str]) -> None:
    code, report = audit_json(
        run_cli, tmp_path, f'Lysis: "{QUOTE}" [PMC3166277].\n', "--no-retraction"
    )
    assert (code, report["verdict"]) == (0, "pass")
    assert report["metrics"]["citation_validity"] == 1.0


def test_unknown_fail_on_is_bad_input(run_cli: CliRun, tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("x [1]\n")
    result = run_cli("audit", str(path), "--fail-on", "misquote,bogus")
    assert result.exit_code == 2 and "'bogus'" in result.stderr


def test_an_over_long_quote_is_one_malformed_citation(
    run_cli: CliRun, tmp_path: Path, issued: dict[str, str]
) -> None:
    long_quote = "word " * 500
    answer = f'Long "{long_quote}" [PMC3166277].\n\nFine "{QUOTE}" [PMC3166277].\n'
    code, report = audit_json(run_cli, tmp_path, answer, "--no-retraction")
    long, fine = citations(report)
    assert long["verdict"] == "malformed" and "characters" in long["reason"]
    assert fine["verdict"] == "ok"
    assert code == 1  # the audit itself ran; the over-long item failed


# ---------------------------------------------------------------------------- retraction


def test_retracted_and_concern_flags_from_the_invented_snapshot(
    run_cli: CliRun, tmp_path: Path
) -> None:
    from citeproof.sources.retractionwatch import import_csv

    import_csv(RW_CSV)
    answer = (
        "Compost helps [doi:10.5555/INVENTED.RETRACTED.1].\n\n"
        "Watering from below [doi:10.5555/invented.concern.1].\n"
    )
    code, report = audit_json(run_cli, tmp_path, answer)
    retracted, concern = citations(report)
    assert "retracted" in retracted["flags"] and retracted["retraction"]["status"] == "RETRACTED"
    assert "concern" in concern["flags"]
    assert report["metrics"]["retracted_cited"] == 1
    assert (code, report["verdict"]) == (1, "fail")
    acknowledged = "A retracted study claimed compost helps [doi:10.5555/INVENTED.RETRACTED.1].\n"
    code, report = audit_json(run_cli, tmp_path, acknowledged)
    (c,) = citations(report)
    assert "retraction_acknowledged" in c["flags"]
    assert (code, report["verdict"]) == (3, "incomplete")  # the text itself is not pinned


# ---------------------------------------------------------------------------- inputs


def test_stdin_and_json_claims(run_cli: CliRun, issued: dict[str, str]) -> None:
    claims = {
        "claims": [
            {"text": "Lysis timing varies.", "citations": [{"ref": "PMC3166277", "quote": QUOTE}]},
            {"text": "Another claim.", "citations": ["not-a-citation"]},
        ]
    }
    result = run_cli(
        "audit", "-", "--offline", "--json", "--no-retraction", input=json.dumps(claims)
    )
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    assert report["answer"]["format"] == "json"
    ok, unknown = citations(report)
    assert ok["verdict"] == "ok" and ok["quote"] == QUOTE
    assert unknown["kind"] == "unknown" and unknown["verdict"] == "malformed"


def test_bad_json_claims_are_bad_input(run_cli: CliRun) -> None:
    result = run_cli("audit", "-", "--format", "json", input='{"claims": 3}')
    assert result.exit_code == 2 and "claims" in result.stderr


def test_an_answer_is_decoded_as_a_source_is(run_cli: CliRun, tmp_path: Path) -> None:
    """UTF-16 with a byte-order mark was refused as "not valid UTF-8" while the same file
    was read as a source; a legacy code page is refused with where it fails."""
    answer = "Compost warms the soil of allotments.\n"
    utf16 = tmp_path / "answer-utf16.md"
    utf16.write_bytes(answer.encode("utf-16"))
    result = run_cli("audit", str(utf16), "--offline", "--json", "--no-log")
    assert result.exit_code in (0, 1), result.output
    assert json.loads(result.stdout)["sentences"][0]["text"].startswith("Compost warms")
    latin1 = tmp_path / "answer-latin1.md"
    latin1.write_bytes("Le compost réchauffe le sol.\n".encode("latin-1"))
    refused = run_cli("audit", str(latin1), "--offline", "--no-log")
    assert refused.exit_code == 2
    assert "is not valid UTF-8: the byte at offset" in refused.stderr


def test_missing_answer_file(run_cli: CliRun, tmp_path: Path) -> None:
    result = run_cli("audit", str(tmp_path / "nope.md"))
    assert result.exit_code == 2 and "answer file" in result.stderr


def test_the_human_rendering_names_every_verdict(tmp_path: Path, issued: dict[str, str]) -> None:
    from rich.console import Console

    from citeproof.cli.audit import render_audit

    report = audit_answer(f'X "{QUOTE}" [PMC3166277]. Y [2].\n', offline=True, retraction=False)
    console = Console(record=True, width=120)
    render_audit(report, console)
    shown = console.export_text()
    assert "FAIL" in shown and "unresolvable" in shown and "ok" in shown


# ---------------------------------------------------------------------------- signing, log


def test_verify_a_report_and_detect_tampering(
    run_cli: CliRun, tmp_path: Path, issued: dict[str, str]
) -> None:
    _, report = audit_json(run_cli, tmp_path, f'X "{QUOTE}" [PMC3166277].\n', "--no-retraction")
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report))
    assert run_cli("audit", "verify", str(path)).exit_code == 0
    key = run_cli("log", "key").output.strip()
    result = run_cli("audit", "verify", str(path), "--key", key, "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["valid"] is True
    report["sentences"][0]["citations"][0]["verdict"] = "misquote"
    path.write_text(json.dumps(report))
    result = run_cli("audit", "verify", str(path))
    assert result.exit_code == 1 and "changed after signing" in result.output
    not_a_report = tmp_path / "x.json"
    not_a_report.write_text("[]")
    assert run_cli("audit", "verify", str(not_a_report)).exit_code == 2
    missing = run_cli("audit", "verify", str(tmp_path / "nothing.json"))
    assert missing.exit_code == 2
    assert "the report file" in missing.output and "citeproof audit --json" in missing.output
    assert "PDF" not in missing.output


def test_audit_is_logged_unless_no_log(
    run_cli: CliRun, tmp_path: Path, issued: dict[str, str]
) -> None:
    from citeproof.evidence.log import open_log

    _, report = audit_json(run_cli, tmp_path, "Claim [PMC3166277].\n", "--no-retraction")
    entries = [e for e in open_log().entries() if e.kind == "audit"]
    assert len(entries) == 1
    payload = entries[0].payload
    assert payload["answer_sha256"] == report["answer"]["sha256"]
    assert payload["verdict"] == report["verdict"] == "pass"
    audit_json(run_cli, tmp_path, "Claim [PMC3166277].\n", "--no-retraction", "--no-log")
    assert len([e for e in open_log().entries() if e.kind == "audit"]) == 1
    assert default_log_path().exists()


def test_schema_command_prints_both_schemas(run_cli: CliRun) -> None:
    for name, title in (("audit", "AuditReport"), ("check", "CheckResult")):
        result = run_cli("schema", name)
        assert result.exit_code == 0
        data = json.loads(result.stdout)
        assert data["title"] == title and data["$id"] == f"citeproof.{name}/1"
    assert "schema" in json.loads(run_cli("schema", "audit").stdout)["properties"]


def test_library_entry_signs_with_the_given_key(issued: dict[str, str]) -> None:
    from citeproof.audit.signing import verify_report
    from citeproof.store.keys import LogKey

    key = LogKey.generate()
    report = audit_answer("Claim [PMC3166277].\n", offline=True, retraction=False, key=key)
    assert report.signature is not None
    check = verify_report(report.model_dump(mode="json"), key.verifier)
    assert check.valid, check.reason
    unsigned = audit_answer("Claim [PMC3166277].\n", offline=True, retraction=False, sign=False)
    assert unsigned.signature is None
