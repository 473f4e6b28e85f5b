"""``citeproof passages`` and handle resolution end to end, offline.

An identifier source comes from the recorded PMC chain of PMC3166277 (``pmc_replay``); an
upstream change is played by a second replay folder with edited bytes and a refresh.
Resolution covers every outcome: ok, forged (a changed code, the code of another passage,
a tampered store), malformed, withdrawn, unavailable, and version_changed.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from click.testing import Result

from citeproof.cli import _common
from citeproof.cli.passages import passages
from citeproof.handles.grammar import CROCKFORD, parse_handle
from citeproof.handles.registry import passages_for, resolve_handle
from citeproof.store.issued import PassageStore, default_store_path
from pmc_replay import QUOTE, jats, pmc_replay

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "example-article.nxml"


def run(run_cli: CliRun, *args: str) -> Result:
    return run_cli(*args, command=passages)


def run_json(run_cli: CliRun, *args: str) -> dict[str, Any]:
    result = run(run_cli, *args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


@pytest.fixture
def replay(tmp_path: Path) -> Path:
    return pmc_replay(tmp_path / "replay")


@pytest.fixture
def issued(run_cli: CliRun, replay: Path) -> dict[str, Any]:
    """Every passage of PMC3166277, issued through the command."""
    return run_json(run_cli, "PMC3166277", "--replay", str(replay), "--limit", "1000")


def by_path(listing: dict[str, Any], path: str) -> dict[str, Any]:
    (item,) = [p for p in listing["passages"] if p["path"] == path]
    return item


# -------------------------------------------------------------------------- listing


def test_a_local_file_gets_passages_without_handles(run_cli: CliRun) -> None:
    data = run_json(run_cli, str(EXAMPLE))
    assert data["schema"] == "citeproof.passages/1"
    assert data["source"]["identifier"] is None
    assert data["total"] == 20 and len(data["passages"]) == 20
    assert all(p["handle"] is None for p in data["passages"])
    assert data["passages"][0]["path"] == "abstract.1"
    assert not default_store_path().exists()  # nothing issued, nothing stored


def test_query_and_limit_rank_with_bm25(run_cli: CliRun) -> None:
    data = run_json(run_cli, str(EXAMPLE), "--query", "Pittsburgh sleep quality", "--limit", "2")
    assert data["query"] == "Pittsburgh sleep quality"
    assert data["passages"][0]["path"] == "table.t1.r4"
    assert data["passages"][0]["kind"] == "table-row"
    assert len(data["passages"]) == 2
    assert data["passages"][0]["score"] >= data["passages"][1]["score"] > 0


def test_identifier_passages_get_handles_and_are_stored(issued: dict[str, Any]) -> None:
    assert issued["source"]["identifier"] == "pmcid:PMC3166277"
    assert issued["total"] == len(issued["passages"]) > 40
    text = "".join(p["text"] for p in issued["passages"])
    assert QUOTE in text
    for item in issued["passages"]:
        handle = parse_handle(item["handle"])
        assert item["handle"] == str(handle)
        assert handle.base == f"pmcid:PMC3166277/{item['path']}"
    with PassageStore(default_store_path()) as store:
        assert store.count() == issued["total"]
        first = issued["passages"][0]
        row = store.lookup(first["handle"])
        assert row is not None and row.text == first["text"]
        assert row.document_sha256 == issued["source"]["sha256"]
        assert (row.start, row.end) == (first["start"], first["end"])


def test_the_same_passage_gets_the_same_handle_again(
    run_cli: CliRun, issued: dict[str, Any]
) -> None:
    again = run_json(run_cli, "PMC3166277", "--offline", "--limit", "1000")
    assert [p["handle"] for p in again["passages"]] == [p["handle"] for p in issued["passages"]]


def test_a_pinned_pmc_version_is_in_the_handle(tmp_path: Path) -> None:
    replay = pmc_replay(tmp_path / "replay")
    data = passages_for("PMC3166277.1", replay=replay, limit=2)
    handle = data.passages[0].handle
    assert handle is not None and handle.startswith("pmcid:PMC3166277.v1/abstract.1~")
    status = resolve_handle(handle, offline=True)
    assert status.status == "ok", status.reason
    assert status.source == "pmcid:PMC3166277.1"


def test_human_rendering_shows_handles(
    run_cli: CliRun, issued: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_common, "want_json", lambda flag: flag)
    result = run(run_cli, "PMC3166277", "--offline", "--query", "holin", "--limit", "3")
    assert result.exit_code == 0, result.output
    assert "pmcid:PMC3166277/" in result.output
    assert "3 of 112 passages matching the query" in result.output
    plain = run(run_cli, str(EXAMPLE), "--limit", "2")
    assert "abstract.1" in plain.output and "no handles" in plain.output


def test_unavailable_source_is_one_line_exit_3(run_cli: CliRun) -> None:
    from citeproof.cli import LazyGroup

    group = LazyGroup(lazy_subcommands={"passages": "citeproof.cli.passages:passages"})
    result = run_cli("passages", "PMC3166277", "--offline", command=group)
    assert result.exit_code == 3
    assert "not in the cache" in result.output
    assert "Traceback" not in result.output


def test_bad_arguments_exit_2(run_cli: CliRun) -> None:
    assert run(run_cli, str(EXAMPLE), "--limit", "0").exit_code == 2
    assert run(run_cli, "-").exit_code == 2


# -------------------------------------------------------------------------- resolving


def test_an_issued_handle_resolves_ok(issued: dict[str, Any]) -> None:
    item = by_path(issued, "abstract.2")
    status = resolve_handle(item["handle"], offline=True)
    assert status.status == "ok", status.reason
    assert status.as_issued_text == status.current_text == item["text"]
    assert (status.start, status.end) == (item["start"], item["end"])
    assert status.version_changed is False and status.text_changed is False
    assert status.issued_document_sha256 == issued["source"]["sha256"]
    # case and Crockford aliases do not matter
    lower = item["handle"][:-8] + item["handle"][-8:].lower()
    assert resolve_handle(lower, offline=True).status == "ok"


def test_a_changed_code_is_forged(issued: dict[str, Any]) -> None:
    handle = by_path(issued, "abstract.2")["handle"]
    last = handle[-1]
    other = CROCKFORD[(CROCKFORD.index(last) + 1) % len(CROCKFORD)]
    status = resolve_handle(handle[:-1] + other, offline=True)
    assert status.status == "forged"
    assert status.as_issued_text is None and status.current_text is None


def test_the_code_of_another_passage_is_forged(issued: dict[str, Any]) -> None:
    code = by_path(issued, "abstract.1")["handle"].rsplit("~", 1)[1]
    status = resolve_handle(f"pmcid:PMC3166277/abstract.2~{code}", offline=True)
    assert status.status == "forged"
    made_up = resolve_handle("pmcid:PMC3166277/body.nowhere.p1~7G2KQ1XM", offline=True)
    assert made_up.status == "forged"


def test_a_tampered_store_row_is_forged(issued: dict[str, Any]) -> None:
    handle = by_path(issued, "abstract.2")["handle"]
    conn = sqlite3.connect(default_store_path())
    conn.execute("UPDATE issued SET text_sha256 = ? WHERE handle = ?", ("0" * 64, handle))
    conn.commit()
    conn.close()
    assert resolve_handle(handle, offline=True).status == "forged"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "pmcid:PMC3166277/abstract.2",
        "pubmed:1/abstract.1~7G2KQ1XM",
        "pmcid:PMC3166277abstract.2~7G2KQ1XM",
        "pmcid:PMC3166277/Abstract.2~7G2KQ1XM",
        "pmcid:PMC3166277/abstract.2~7G2KQ1X",
        "pmcid:PMC3166277/abstract.2~7G2KQ1XU",
        "pmcid:XYZ/abstract.2~7G2KQ1XM",
    ],
)
def test_malformed_handles(text: str) -> None:
    status = resolve_handle(text, offline=True)
    assert status.status == "malformed"
    assert status.reason and status.canonical is None


def test_a_handle_issued_elsewhere_with_the_shared_key(
    replay: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_HANDLE_KEY", "a team secret of enough length")
    handle = passages_for("PMC3166277", replay=replay, limit=1).passages[0].handle
    assert handle is not None
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "colleague"))  # no store, no cache
    assert resolve_handle(handle, offline=True).status == "unavailable"
    status = resolve_handle(handle, replay=replay)
    assert status.status == "ok" and status.reason and "not issued here" in status.reason
    assert status.as_issued_text == status.current_text
    assert status.version_changed is None
    monkeypatch.setenv("CITEPROOF_HANDLE_KEY", "another secret of enough length")
    assert resolve_handle(handle, offline=True).status == "forged"


def test_an_unreadable_source_is_unavailable_with_the_text_as_issued(
    issued: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = by_path(issued, "abstract.2")
    store = default_store_path()
    other_home = tmp_path / "other"
    (other_home / "data").mkdir(parents=True)
    (other_home / "data" / store.name).write_bytes(store.read_bytes())
    keys = store.parent / "keys"
    (other_home / "data" / "keys").mkdir()
    for key in keys.iterdir():
        copy = other_home / "data" / "keys" / key.name
        copy.write_bytes(key.read_bytes())
        copy.chmod(0o600)  # as private as the original, or the key is warned about
    monkeypatch.setenv("CITEPROOF_HOME", str(other_home))  # the store, but no cache
    status = resolve_handle(item["handle"], offline=True)
    assert status.status == "unavailable"
    assert status.as_issued_text == item["text"] and status.current_text is None


# -------------------------------------------------------------------------- upstream changes


def changed_replay(tmp_path: Path, edit: Any) -> Path:
    data = edit(jats().decode("utf-8")).encode("utf-8")
    assert data != jats()
    return pmc_replay(tmp_path / "changed", data)


def test_a_passage_gone_after_a_refresh_is_withdrawn(
    issued: dict[str, Any], tmp_path: Path
) -> None:
    item = by_path(issued, "table.t3.r2")
    kept = by_path(issued, "abstract.2")

    def drop_table_3(text: str) -> str:
        return re.sub(r'<table-wrap id="T3".*?</table-wrap>', "", text, flags=re.DOTALL)

    replay = changed_replay(tmp_path, drop_table_3)
    status = resolve_handle(item["handle"], refresh=True, replay=replay)
    assert status.status == "withdrawn"
    assert status.as_issued_text == item["text"] and status.current_text is None
    assert status.version_changed is True
    # the rest of the document is still there, its bytes changed
    other = resolve_handle(kept["handle"], offline=True)
    assert other.status == "ok"
    assert other.version_changed is True and other.text_changed is False
    assert other.current_document_sha256 != issued["source"]["sha256"]


def test_reworded_passage_stays_ok_with_both_texts(issued: dict[str, Any], tmp_path: Path) -> None:
    item = by_path(issued, "abstract.2")
    replay = changed_replay(
        tmp_path, lambda t: t.replace("Individual lysis events", "Single lysis events", 1)
    )
    status = resolve_handle(item["handle"], refresh=True, replay=replay)
    assert status.status == "ok"
    assert status.version_changed is True and status.text_changed is True
    assert status.as_issued_text == item["text"]
    assert status.current_text is not None and status.current_text.startswith("Single lysis")
    # issuing again gives the new wording its own handle; the old one still resolves
    again = passages_for("PMC3166277", offline=True, limit=1000)
    new_handle = next(p.handle for p in again.passages if p.path == "abstract.2")
    assert new_handle is not None and new_handle != item["handle"]
    assert resolve_handle(new_handle, offline=True).version_changed is False
    assert resolve_handle(item["handle"], offline=True).as_issued_text == item["text"]
