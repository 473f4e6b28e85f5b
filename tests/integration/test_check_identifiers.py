"""``citeproof check QUOTE IDENTIFIER``: fetched once through replayed answers, then pinned.

No test touches the network: every request is answered from a replay folder written here with
``write_recording`` (the PMC Cloud Service answers wrap the corpus JATS file of PMC3166277,
with its real md5, as in ``tests/sources/test_resolve.py``), or is forbidden by ``--offline``.
Each test has its own ``CITEPROOF_HOME``, so the cache starts empty.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from rich.console import Console

from citeproof.cli import cli
from citeproof.cli.render import render_check
from citeproof.models import CheckResult
from citeproof.net.recordings import write_recording

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
JATS = CORPUS / "pmc-jats" / "PMC3166277.nxml"
MISSING = "../shared/corpus not found: these tests need the shared corpus beside the repository"
QUOTE = (
    "One trait that provides a good model to explore the molecular basis of stochastic "
    "variation is the timing of host lysis by bacteriophage (phage)."
)
BUCKET = "https://pmc-oa-opendata.s3.amazonaws.com"
IDCONV = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/"
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
XML = {"content-type": "application/xml"}
JSON = {"content-type": "application/json"}


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "home"
    monkeypatch.setenv("CITEPROOF_HOME", str(root))
    monkeypatch.delenv("CITEPROOF_REPLAY", raising=False)
    return root


def jats() -> bytes:
    if not JATS.is_file():
        pytest.skip(MISSING)
    return JATS.read_bytes()


def listing(prefix: str, keys: list[str]) -> bytes:
    contents = "".join(f"<Contents><Key>{k}</Key><Size>1</Size></Contents>" for k in keys)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        f"<Name>pmc-oa-opendata</Name><Prefix>{prefix}</Prefix><KeyCount>{len(keys)}</KeyCount>"
        f"<MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>{contents}</ListBucketResult>"
    ).encode()


def record(folder: Path, name: str, url: str, body: bytes, *, status: int = 200, **h: str) -> None:
    headers = dict(h) or dict(XML)
    write_recording(folder, name, url=url, status=status, headers=headers, body=body, date=WHEN)


def pmc_replay(folder: Path, data: bytes | None = None) -> Path:
    """The ID converter and PMC Cloud Service answers for PMC3166277 (open access).

    ``data`` replaces the corpus JATS bytes (with a matching md5), to play an upstream change.
    """
    data = jats() if data is None else data
    meta = {
        "pmcid": "PMC3166277",
        "version": 1,
        "pmid": 21909999,
        "doi": "10.1000/example.3166277",
        "title": "An open article",
        "is_pmc_openaccess": True,
        "is_manuscript": False,
        "is_retracted": False,
        "license_code": "CC BY",
        "xml_url": "s3://pmc-oa-opendata/PMC3166277.1/PMC3166277.1.xml"
        f"?md5={hashlib.md5(data).hexdigest()}",
    }
    idconv = {
        "status": "ok",
        "records": [
            {
                "pmcid": "PMC3166277",
                "pmid": 21909999,
                "doi": "10.1000/example.3166277",
                "requested-id": "PMC3166277",
            }
        ],
    }
    record(
        folder,
        "idconv",
        IDCONV + "?ids=PMC3166277&idtype=pmcid&format=json",
        json.dumps(idconv).encode(),
        **JSON,
    )
    record(
        folder,
        "listing",
        BUCKET + "/?list-type=2&prefix=PMC3166277.",
        listing("PMC3166277.", ["PMC3166277.1/PMC3166277.1.xml"]),
    )
    record(
        folder,
        "metadata",
        BUCKET + "/PMC3166277.1/PMC3166277.1.json",
        json.dumps(meta).encode(),
        **JSON,
    )
    record(folder, "jats", BUCKET + "/PMC3166277.1/PMC3166277.1.xml", data)
    return folder


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def check_json(*args: str | Path) -> tuple[int, dict[str, Any]]:
    result = run("check", "--json", *args)
    return result.exit_code, json.loads(result.stdout)


def test_pmcid_is_fetched_pinned_and_then_checked_offline(tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    code, data = check_json(QUOTE, "PMC3166277", "--replay", replay)
    assert (code, data["verdict"]) == (0, "EXACT"), data
    source = data["source"]
    assert source["served_by"] == "pmc"
    assert source["coverage"] == "full_text"
    assert source["md5_ok"] is True
    assert source["sha256"] == hashlib.sha256(jats()).hexdigest()
    assert source["identifier"] == "pmcid:PMC3166277"
    assert source["retrieved_at"]
    assert source["fingerprint_ok"] is None

    # The same check again, with no network and no replay: the pinned bytes answer.
    code, again = check_json(QUOTE, "PMC3166277", "--offline")
    assert (code, again["verdict"]) == (0, "EXACT"), again
    assert again["source"]["sha256"] == source["sha256"]
    assert again["source"]["served_by"] == "pmc"
    assert again["source"]["coverage"] == "full_text"
    assert again["source"]["md5_ok"] is True
    assert again["source"]["retrieved_at"] == source["retrieved_at"]
    assert again["matches"] == data["matches"]

    # --expect-sha256 with the right hash passes and says so.
    code, pinned = check_json(QUOTE, "PMC3166277", "--offline", "--expect-sha256", source["sha256"])
    assert (code, pinned["source"]["fingerprint_ok"]) == (0, True)


def test_expect_sha256_mismatch_exits_1_naming_both_hashes(tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    wrong = "0" * 64
    code, data = check_json(QUOTE, "PMC3166277", "--replay", replay, "--expect-sha256", wrong)
    actual = hashlib.sha256(jats()).hexdigest()
    assert code == 1
    assert data["verdict"] == "NOT_CHECKABLE"
    assert data["source"]["fingerprint_ok"] is False
    assert wrong in data["reason"] and actual in data["reason"]
    assert data["matches"] == []


def test_offline_and_not_pinned_is_unavailable() -> None:
    code, data = check_json(QUOTE, "PMC3166277", "--offline")
    assert code == 3
    assert data["verdict"] == "UNAVAILABLE"
    assert "offline" in data["reason"]
    assert data["source"]["identifier"] == "pmcid:PMC3166277"
    assert data["source"]["coverage"] == "none"
    assert data["source"]["sha256"] is None


def test_a_source_answering_503_is_unavailable(tmp_path: Path) -> None:
    replay = tmp_path / "replay"
    record(
        replay,
        "ctgov",
        "https://clinicaltrials.gov/api/v2/studies/NCT04363697",
        b'{"error": "busy"}',
        status=503,
        **JSON,
    )
    code, data = check_json(QUOTE, "NCT04363697", "--replay", replay)
    assert code == 3, data
    assert data["verdict"] == "UNAVAILABLE"
    assert data["reason"].startswith("ctgov:")
    assert data["source"]["identifier"] == "nct:NCT04363697"


def test_replay_folder_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay = pmc_replay(tmp_path / "replay")
    monkeypatch.setenv("CITEPROOF_REPLAY", str(replay))
    code, data = check_json(QUOTE, "PMC3166277")
    assert (code, data["verdict"]) == (0, "EXACT"), data


@pytest.mark.parametrize("source", ["pmid:abc", "12345", "doi:10.1", "NCT123"])
def test_malformed_identifier_is_bad_input_with_the_accepted_forms(
    source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("check", QUOTE, source, "--offline")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Accepted sources" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bare_word_that_is_no_file_is_still_file_not_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "PMID" alone could be a file name; looks_like_identifier leaves it to the file reader.
    monkeypatch.chdir(tmp_path)
    result = run("check", QUOTE, "PMID")
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_refresh_fetches_again_and_contradicts_offline(tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    code, first = check_json(QUOTE, "PMC3166277", "--replay", replay)
    assert code == 0
    assert first["source"]["refresh"] is None  # a first fetch has nothing to compare with
    code, again = check_json(QUOTE, "PMC3166277", "--replay", replay, "--refresh")
    assert (code, again["verdict"]) == (0, "EXACT")
    assert again["source"]["sha256"] == first["source"]["sha256"]
    assert again["source"]["refresh"] == {
        "previous_sha256": first["source"]["sha256"],
        "changed": False,
    }
    result = run("check", QUOTE, "PMC3166277", "--offline", "--refresh")
    assert result.exit_code == 2
    assert "contradict" in result.stderr


def test_refresh_reports_changed_bytes_and_repins(tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    code, first = check_json(QUOTE, "PMC3166277", "--replay", replay)
    assert code == 0
    # Upstream now serves a corrected version: the quoted sentence was reworded.
    changed = jats().replace(b"timing of host lysis", b"timing of cell lysis", 1)
    assert changed != jats()
    newer = pmc_replay(tmp_path / "newer", changed)
    code, again = check_json(QUOTE, "PMC3166277", "--replay", newer, "--refresh")
    assert again["verdict"] == "NEAR" and code == 1
    assert again["source"]["sha256"] == hashlib.sha256(changed).hexdigest()
    assert again["source"]["refresh"] == {
        "previous_sha256": first["source"]["sha256"],
        "changed": True,
    }
    # The new bytes are now the pin: an offline check reads them, with no refresh to report.
    code, offline = check_json(QUOTE, "PMC3166277", "--offline")
    assert offline["source"]["sha256"] == again["source"]["sha256"]
    assert offline["source"]["refresh"] is None
    shown = StringIO()
    render_check(CheckResult.model_validate(again), "", Console(file=shown, width=200))
    assert f"bytes changed since the earlier pin ({first['source']['sha256']})" in shown.getvalue()
