"""A failure never reads as an answer: a fallback text may confirm a quote, never deny one.

When PMC (or a lookup that could have found it) *failed*, the chain falls back to a lower
source (here the PubMed abstract).  Before, ``check`` then said NOT_FOUND (exit 1) for a quote
that is in the full text, and pinned the abstract under the PMCID, so later checks kept
saying it after PMC recovered.  The rule now (docs/verdicts.md): NOT_FOUND only against the
best text the chain could have read; against a fallback, the quote's absence is UNAVAILABLE
naming the failed step, its presence is EXACT/NEAR with ``source.degraded`` saying so, and a
fallback's pin is retried on the next check.

Every answer is INVENTED (an invented paper PMC9993001, PMID 99930001), in the services' real
formats, written into a replay folder per test; nothing reaches the network.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from citeproof.audit.run import audit_answer
from citeproof.net.recordings import write_recording
from pmc_replay import listing

if TYPE_CHECKING:
    from conftest import CliRun

PMCID, PMID, DOI = "PMC9993001", "99930001", "10.5555/invented.fallback.1"
BUCKET = "https://pmc-oa-opendata.s3.amazonaws.com"
IDCONV = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/"
EPMC = "https://www.ebi.ac.uk/europepmc/webservices/rest/"
EFETCH = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi"
WHEN = datetime(2026, 12, 1, tzinfo=UTC)
PROVENANCE = "INVENTED for citeproof's tests, in the real format of the service; not a real answer"

IN_ABSTRACT = "walking each morning shortened sleep onset in older adults"
IN_FULL_TEXT_ONLY = "the walking group kept a sleep diary for eight weeks"
ABSTRACT = f"In this invented trial, {IN_ABSTRACT}."
JATS = (
    '<?xml version="1.0"?><article><front><article-meta><title-group><article-title>'
    "Morning walks (invented)</article-title></title-group><abstract><p>"
    f"{ABSTRACT}</p></abstract></article-meta></front><body><sec><title>Methods</title><p>"
    f"In the methods, {IN_FULL_TEXT_ONLY}, and the control group did too.</p></sec></body>"
    "</article>"
).encode()
EFETCH_BODY = (
    '<?xml version="1.0" ?><PubmedArticleSet><PubmedArticle><MedlineCitation Status="MEDLINE">'
    f'<PMID Version="1">{PMID}</PMID><Article><ArticleTitle>Morning walks (invented)'
    f"</ArticleTitle><Abstract><AbstractText>{ABSTRACT}</AbstractText></Abstract>"
    "<PublicationTypeList><PublicationType>Journal Article</PublicationType>"
    "</PublicationTypeList></Article></MedlineCitation></PubmedArticle></PubmedArticleSet>"
).encode()


def _record(
    folder: Path, name: str, url: str, body: bytes, status: int = 200, **headers: str
) -> None:
    write_recording(
        folder,
        name,
        url=url,
        status=status,
        body=body,
        date=WHEN,
        headers=headers or {"content-type": "application/xml"},
        provenance=PROVENANCE,
    )


def _common(folder: Path) -> Path:
    """The ID converter, Europe PMC and doi.org answering, and PubMed serving the abstract."""
    idconv = {
        "status": "ok",
        "records": [{"pmcid": PMCID, "pmid": int(PMID), "doi": DOI, "requested-id": PMCID}],
    }
    _record(
        folder,
        "idconv",
        f"{IDCONV}?ids={PMCID}&idtype=pmcid&format=json",
        json.dumps(idconv).encode(),
        **{"content-type": "application/json"},
    )
    _record(folder, "epmc", f"{EPMC}{PMCID}/fullTextXML", b"", 404)
    _record(
        folder,
        "doi",
        f"https://doi.org/{DOI}",
        b"<html>Not found</html>",
        404,
        **{"content-type": "text/html"},
    )
    _record(folder, "efetch", f"{EFETCH}?db=pubmed&id={PMID}&retmode=xml", EFETCH_BODY)
    return folder


def pmc_down(folder: Path, how: str) -> Path:
    """Replay folder in which the PMC copy cannot be read, in the way ``how`` says."""
    _common(folder)
    list_url = f"{BUCKET}/?list-type=2&prefix={PMCID}."
    key = f"{PMCID}.1/{PMCID}.1.xml"
    if how == "503":
        _record(folder, "list", list_url, b"<Error><Code>SlowDown</Code></Error>", 503)
    elif how == "garbage":
        _record(folder, "list", list_url, b"<<< this is not XML")
    elif how == "empty 200":
        _record(folder, "list", list_url, b"")
    elif how == "truncated":
        _record(folder, "list", list_url, listing(f"{PMCID}.", [key])[:80])
    elif how == "md5 mismatch":
        _pmc_up(folder, md5_of=b"other bytes")
    else:  # pragma: no cover - the parametrisation is closed
        raise ValueError(how)
    return folder


def _pmc_up(folder: Path, md5_of: bytes = JATS) -> None:
    meta = {
        "pmcid": PMCID,
        "version": 1,
        "pmid": int(PMID),
        "doi": DOI,
        "title": "Morning walks (invented)",
        "is_pmc_openaccess": True,
        "is_manuscript": False,
        "is_retracted": False,
        "license_code": "CC0",
        "xml_url": f"s3://pmc-oa-opendata/{PMCID}.1/{PMCID}.1.xml?md5="
        + hashlib.md5(md5_of).hexdigest(),
    }
    _record(
        folder,
        "list",
        f"{BUCKET}/?list-type=2&prefix={PMCID}.",
        listing(f"{PMCID}.", [f"{PMCID}.1/{PMCID}.1.xml"]),
    )
    _record(
        folder,
        "meta",
        f"{BUCKET}/{PMCID}.1/{PMCID}.1.json",
        json.dumps(meta).encode(),
        **{"content-type": "application/json"},
    )
    _record(folder, "xml", f"{BUCKET}/{PMCID}.1/{PMCID}.1.xml", JATS)


def pmc_up(folder: Path) -> Path:
    _common(folder)
    _pmc_up(folder)
    return folder


def not_open_access(folder: Path) -> Path:
    """PMC *answers* that it has no open-access copy: the abstract is the best readable text."""
    _common(folder)
    _record(folder, "list", f"{BUCKET}/?list-type=2&prefix={PMCID}.", listing(f"{PMCID}.", []))
    return folder


def check(run_cli: CliRun, quote: str, *args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run_cli(
        "check", "--json", "--no-log", "--no-retraction", quote, PMCID, *map(str, args)
    )
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("how", ["503", "garbage", "empty 200", "truncated", "md5 mismatch"])
def test_a_quote_not_in_a_fallback_is_unavailable_not_not_found(
    run_cli: CliRun, tmp_path: Path, how: str
) -> None:
    code, data = check(run_cli, IN_FULL_TEXT_ONLY, "--replay", pmc_down(tmp_path / "replay", how))
    assert (code, data["verdict"]) == (3, "UNAVAILABLE"), data
    assert data["source"]["coverage"] == "abstract"
    assert data["source"]["served_by"] == "pubmed"
    assert data["source"]["degraded"].startswith("pmc: ")
    assert "a better source failed (pmc: " in data["reason"]
    assert data["matches"] == [] and data["near"] is None


def test_a_quote_in_a_fallback_is_found_and_the_result_says_it_was_one(
    run_cli: CliRun, tmp_path: Path
) -> None:
    code, data = check(run_cli, IN_ABSTRACT, "--replay", pmc_down(tmp_path / "replay", "503"))
    assert (code, data["verdict"]) == (0, "EXACT"), data
    assert data["source"]["coverage"] == "abstract"
    assert data["source"]["degraded"].startswith("pmc: PMC Cloud Service")


def test_a_fallback_pin_is_retried_and_replaced_once_pmc_answers(
    run_cli: CliRun, tmp_path: Path
) -> None:
    code, _ = check(run_cli, IN_FULL_TEXT_ONLY, "--replay", pmc_down(tmp_path / "down", "503"))
    assert code == 3
    # Offline, the pinned fallback is what there is: still marked, still not a NOT_FOUND.
    code, data = check(run_cli, IN_FULL_TEXT_ONLY, "--offline")
    assert (code, data["verdict"], data["source"]["coverage"]) == (3, "UNAVAILABLE", "abstract")
    # Still down: the fallback is retried, and kept, marked with the failure seen now.
    code, data = check(run_cli, IN_ABSTRACT, "--replay", pmc_down(tmp_path / "still", "garbage"))
    assert (code, data["source"]["coverage"]) == (0, "abstract")
    assert "not safe, valid XML" in data["source"]["degraded"]
    # PMC recovered: no --refresh needed, the full text replaces the fallback.
    code, data = check(run_cli, IN_FULL_TEXT_ONLY, "--replay", pmc_up(tmp_path / "up"))
    assert (code, data["verdict"]) == (0, "EXACT"), data
    assert (data["source"]["coverage"], data["source"]["served_by"]) == ("full_text", "pmc")
    assert data["source"]["degraded"] is None
    code, data = check(run_cli, IN_FULL_TEXT_ONLY, "--offline")
    assert (code, data["source"]["coverage"], data["source"]["degraded"]) == (0, "full_text", None)


def test_when_pmc_answers_that_it_has_no_copy_the_abstract_may_say_not_found(
    run_cli: CliRun,
    tmp_path: Path,
) -> None:
    """Absent is not failed: then the abstract is the best text, and NOT_FOUND is an answer."""
    code, data = check(run_cli, IN_FULL_TEXT_ONLY, "--replay", not_open_access(tmp_path / "replay"))
    assert (code, data["verdict"]) == (1, "NOT_FOUND"), data
    assert data["source"]["degraded"] is None
    assert "Only the abstract was checked" in data["reason"]


def test_the_audit_and_check_agree_on_a_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_REPLAY", str(pmc_down(tmp_path / "replay", "503")))
    report = audit_answer(
        f'The trial says "{IN_FULL_TEXT_ONLY}" [{PMCID}].', retraction=False, sign=False
    )
    (citation,) = report.citations()
    assert citation.verdict == "unavailable"
    assert citation.check is not None and citation.check.verdict == "UNAVAILABLE"
    assert report.verdict == "incomplete"


def test_the_documented_replay_folder_is_the_one_tested(tmp_path: Path) -> None:
    """docs/verdicts.md runs against examples/replay-pmc-down: it must be this test's folder."""
    written = pmc_down(tmp_path / "replay", "503")
    shipped = Path(__file__).resolve().parents[2] / "examples" / "replay-pmc-down"
    names = sorted(p.name for p in written.iterdir())
    assert sorted(p.name for p in shipped.iterdir() if p.name != "README.md") == names
    for name in names:
        assert (shipped / name).read_bytes() == (written / name).read_bytes(), name


def test_the_log_line_of_a_fallback_check_names_the_failed_step(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "evidence.jsonl"
    monkeypatch.setenv("CITEPROOF_LOG", str(log))
    replay = pmc_down(tmp_path / "replay", "503")
    args = ["check", "--json", "--no-retraction", IN_ABSTRACT, PMCID, "--replay", str(replay)]
    assert run_cli(*args).exit_code == 0
    (line,) = [json.loads(raw) for raw in log.read_text(encoding="utf-8").splitlines()]
    assert line["payload"]["source"]["degraded"].startswith("pmc: PMC Cloud Service")
