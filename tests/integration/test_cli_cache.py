"""``citeproof cache`` end to end, in-process through CliRunner.

The cache is filled through the library API (no network), under a CITEPROOF_HOME in
tmp_path, and every subcommand is run against it: listing, showing, pruning by key and by
age, verifying a healthy and a corrupted cache, export/import round trips, a refused
tampered export, and the path.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import Result

from citeproof.store.cache import Cache
from citeproof.store.paths import resolve_dirs

if TYPE_CHECKING:
    from conftest import CliRun

BLOBS = {
    "pmcid:PMC1": (b"first article text", "2026-01-01T10:00:00Z", "v1", "pmc"),
    "pmcid:PMC2": (b"second article text", "2026-02-01T10:00:00+02:00", None, "europepmc"),
    "doi:10.5555/x": (b"landing page bytes", "2025-06-01T00:00:00Z", None, "doi"),
}


def _db(home: Path) -> Path:
    return resolve_dirs({"CITEPROOF_HOME": str(home)}).cache_db


def _fill(home: Path) -> None:
    with Cache(_db(home)) as cache:
        for key, (data, when, version, served_by) in BLOBS.items():
            cache.pin(key, data, retrieved_at=when, version=version, served_by=served_by)


@pytest.fixture
def home(home: Path) -> Path:
    """The shared home (``tests/conftest.py``) with three pins in its cache."""
    _fill(home)
    return home


@pytest.fixture
def run(run_cli: CliRun) -> Callable[..., Result]:
    """``citeproof cache ARGS``."""
    return functools.partial(run_cli, "cache")


def _one_line_error(result: Result) -> None:
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeproof: error: ")
    assert "Traceback" not in result.output


def _corrupt(home: Path, key: str) -> str:
    """Flip the first byte of KEY's blob inside the SQLite file (same size, wrong hash)."""
    conn = sqlite3.connect(_db(home))
    with conn:
        (digest,) = conn.execute("SELECT sha256 FROM pins WHERE key = ?", (key,)).fetchone()
        (data,) = conn.execute("SELECT data FROM blobs WHERE sha256 = ?", (digest,)).fetchone()
        damaged = bytes([data[0] ^ 0xFF]) + data[1:]
        conn.execute("UPDATE blobs SET data = ? WHERE sha256 = ?", (damaged, digest))
    conn.close()
    return str(digest)


def test_path_prints_the_database_under_citeproof_home(
    run: Callable[..., Result], home: Path
) -> None:
    result = run("path")
    assert result.exit_code == 0
    assert result.stdout.strip() == str(_db(home))


def test_path_creates_nothing(
    run: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "fresh"))
    assert run("path").exit_code == 0
    assert not (tmp_path / "fresh").exists()


def test_first_use_creates_the_cache(
    run: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "fresh"))
    result = run("ls", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout) == []
    assert _db(tmp_path / "fresh").exists()


def test_ls_json(run: Callable[..., Result], home: Path) -> None:
    result = run("ls", "--json")
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    assert [r["key"] for r in rows] == sorted(BLOBS)
    pmc2 = next(r for r in rows if r["key"] == "pmcid:PMC2")
    assert pmc2["retrieved_at"] == "2026-02-01T08:00:00Z"  # stored in UTC
    assert pmc2["size"] == len(b"second article text")
    assert pmc2["served_by"] == "europepmc" and len(pmc2["sha256"]) == 64


def test_ls_is_json_off_a_terminal(run: Callable[..., Result], home: Path) -> None:
    """CliRunner's stdout is not a terminal, so JSON comes without --json."""
    assert len(json.loads(run("ls").stdout)) == 3


def test_ls_text_on_a_terminal(
    run: Callable[..., Result], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("citeproof.cli._common.want_json", lambda flag: flag)
    result = run("ls", "--prefix", "pmcid:")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 2
    key, short, size, version, served_by, when = lines[0].split("\t")
    assert (key, size, version, served_by, when) == (
        "pmcid:PMC1",
        str(len(b"first article text")),
        "v1",
        "pmc",
        "2026-01-01T10:00:00Z",
    )
    assert len(short) == 12


def test_show_existing_key(run: Callable[..., Result], home: Path) -> None:
    result = run("show", "pmcid:PMC1", "--json")
    assert result.exit_code == 0
    obj = json.loads(result.stdout)
    assert obj["key"] == "pmcid:PMC1" and obj["version"] == "v1"
    assert obj["verified"] is True and obj["problem"] is None


def test_show_missing_key_is_a_one_line_error(run: Callable[..., Result], home: Path) -> None:
    result = run("show", "pmcid:PMC404")
    _one_line_error(result)
    assert "pmcid:PMC404" in result.stderr


def test_show_corrupt_blob_exits_1(run: Callable[..., Result], home: Path) -> None:
    _corrupt(home, "pmcid:PMC1")
    result = run("show", "pmcid:PMC1", "--json")
    assert result.exit_code == 1
    obj = json.loads(result.stdout)
    assert obj["verified"] is False and "corrupt" in obj["problem"]


def test_prune_by_key(run: Callable[..., Result], home: Path) -> None:
    result = run("prune", "--key", "pmcid:PMC1", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "pins_removed": 1,
        "blobs_removed": 1,
        "bytes_freed": len(b"first article text"),
    }
    keys = [r["key"] for r in json.loads(run("ls", "--json").stdout)]
    assert keys == ["doi:10.5555/x", "pmcid:PMC2"]


def test_prune_by_age(run: Callable[..., Result], home: Path) -> None:
    result = run("prune", "--older-than", "2026-01-15T00:00:00Z", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["pins_removed"] == 2
    keys = [r["key"] for r in json.loads(run("ls", "--json").stdout)]
    assert keys == ["pmcid:PMC2"]


def test_prune_bad_timestamp_is_a_one_line_error(run: Callable[..., Result], home: Path) -> None:
    _one_line_error(run("prune", "--older-than", "last tuesday"))


def test_verify_healthy_then_corrupt(run: Callable[..., Result], home: Path) -> None:
    result = run("verify", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {"ok": True, "corrupt": []}

    digest = _corrupt(home, "pmcid:PMC2")
    result = run("verify", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {
        "ok": False,
        "corrupt": [{"sha256": digest, "keys": ["pmcid:PMC2"]}],
    }


def test_export_import_round_trip(
    run: Callable[..., Result], home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "out" / "bundle.zip"
    result = run("export", str(bundle), "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["pins"] == 3
    before = json.loads(run("ls", "--json").stdout)

    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "other"))
    result = run("import", str(bundle), "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert (report["pins_added"], report["pins_unchanged"], report["conflicts"]) == (3, 0, [])
    assert json.loads(run("ls", "--json").stdout) == before
    assert run("verify").exit_code == 0

    again = json.loads(run("import", str(bundle), "--json").stdout)
    assert (again["pins_added"], again["pins_unchanged"]) == (0, 3)


def test_export_selected_keys(run: Callable[..., Result], home: Path, tmp_path: Path) -> None:
    bundle = tmp_path / "one.zip"
    result = run("export", str(bundle), "--key", "pmcid:PMC1", "--json")
    assert json.loads(result.stdout)["pins"] == 1
    _one_line_error(run("export", str(tmp_path / "two.zip"), "--key", "pmcid:PMC404"))


def test_import_conflict_kept_exits_1_and_replace_exits_0(
    run: Callable[..., Result], home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "bundle.zip"
    assert run("export", str(bundle), "--key", "pmcid:PMC1").exit_code == 0
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "other"))
    with Cache(_db(tmp_path / "other")) as cache:
        cache.pin("pmcid:PMC1", b"a different version", retrieved_at="2026-03-01T00:00:00Z")

    kept = run("import", str(bundle), "--json")
    assert kept.exit_code == 1
    (conflict,) = json.loads(kept.stdout)["conflicts"]
    assert conflict["key"] == "pmcid:PMC1" and conflict["replaced"] is False

    replaced = run("import", str(bundle), "--replace", "--json")
    assert replaced.exit_code == 0
    assert json.loads(replaced.stdout)["conflicts"][0]["replaced"] is True
    assert json.loads(run("show", "pmcid:PMC1", "--json").stdout)["version"] == "v1"


def test_import_tampered_zip_is_refused(
    run: Callable[..., Result], home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = tmp_path / "bundle.zip"
    assert run("export", str(bundle)).exit_code == 0
    tampered = tmp_path / "tampered.zip"
    with zipfile.ZipFile(bundle) as src, zipfile.ZipFile(tampered, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.startswith("blobs/"):
                data = data.replace(b"article", b"ARTICLE")
            dst.writestr(info.filename, data)

    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "other"))
    result = run("import", str(tampered))
    _one_line_error(result)
    assert "Nothing was imported" in result.stderr
    assert json.loads(run("ls", "--json").stdout) == []


def test_import_unreadable_files_are_one_line_errors(
    run: Callable[..., Result], home: Path, tmp_path: Path
) -> None:
    _one_line_error(run("import", str(tmp_path / "missing.zip")))
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip at all")
    _one_line_error(run("import", str(junk)))


def test_corrupt_cache_database_is_a_one_line_error(
    run: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "broken"
    monkeypatch.setenv("CITEPROOF_HOME", str(root))
    _db(root).parent.mkdir(parents=True)
    _db(root).write_bytes(b"this is not sqlite" * 100)
    result = run("ls")
    _one_line_error(result)
    assert "corrupt" in result.stderr or "not a usable" in result.stderr


def test_export_never_replaces_a_file_it_did_not_write(
    run: Callable[..., Result], home: Path, tmp_path: Path
) -> None:
    """``cache export notes.txt`` replaced the user's notes; now only with --overwrite."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    refused = run("export", str(notes))
    assert refused.exit_code == 2
    assert "already exists and citeproof did not write it" in refused.stderr
    assert "--overwrite" in refused.stderr
    assert notes.read_text() == "my notes\n"
    assert run("export", "--overwrite", str(notes)).exit_code == 0
    assert zipfile.is_zipfile(notes)


def test_export_replaces_its_own_earlier_export(
    run: Callable[..., Result], home: Path, tmp_path: Path
) -> None:
    target = tmp_path / "pins.zip"
    assert run("export", str(target), "--key", "pmcid:PMC1").exit_code == 0
    again = run("export", str(target))  # refreshing an export needs no flag
    assert again.exit_code == 0, again.output
    with zipfile.ZipFile(target) as zf:
        assert len([n for n in zf.namelist() if n.startswith("blobs/")]) == len(BLOBS)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("thesis.tex", "a zip that is not an export")
    assert run("export", str(other)).exit_code == 2
