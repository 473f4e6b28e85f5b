"""The source cache and the store directories.

The cache is what makes a check reproducible, so these tests pin its promises: the bytes
read back are the bytes stored (or a clear error), a refresh says whether they changed, an
export carries exactly those bytes to another machine and a tampered one is refused, and
nothing identifying the user is ever written.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import platformdirs
import pytest

from citeproof.errors import CiteproofError
from citeproof.redact import strip_secret_params
from citeproof.store.cache import SCHEMA_VERSION, Cache
from citeproof.store.cache_records import (
    CacheCorruptError,
    CacheError,
    CacheImportError,
    CacheMissError,
    sha256_hex,
)
from citeproof.store.paths import HOME_ENV, default_dirs, resolve_dirs

T0 = "2026-01-01T00:00:00Z"
T1 = "2026-02-01T00:00:00Z"
T2 = "2026-03-01T00:00:00+01:00"
CONTACT = "someone@example.org"
XML = b"<article><p>The quick brown fox.</p></article>"


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[Cache]:
    with Cache(tmp_path / "c" / "cache.sqlite3") as c:
        yield c


def _rewrite_zip(src: Path, dst: Path, edit: dict[str, bytes | None]) -> None:
    """Copy a zip, replacing (bytes) or dropping (None) members, adding new ones."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            if info.filename in edit:
                data = edit[info.filename]
                if data is not None:
                    zout.writestr(info.filename, data)
            else:
                zout.writestr(info.filename, zin.read(info.filename))
        for name, data in edit.items():
            if name not in zin.namelist() and data is not None:
                zout.writestr(name, data)


# --------------------------------------------------------------------------- pins


def test_pin_then_lookup(cache: Cache) -> None:
    result = cache.pin(
        "pmcid:PMC1",
        XML,
        retrieved_at=T0,
        version="v2",
        url="https://example.org/a?id=1",
        served_by="europepmc",
        media_type="application/xml",
        meta={"title": "A"},
    )
    assert result.sha256 == sha256_hex(XML)
    assert result.is_new and not result.changed and result.previous_sha256 is None
    pin = cache.lookup("pmcid:PMC1")
    assert pin is not None
    assert (pin.key, pin.sha256, pin.size, pin.media_type) == (
        "pmcid:PMC1",
        sha256_hex(XML),
        len(XML),
        "application/xml",
    )
    assert (pin.version, pin.retrieved_at, pin.url, pin.served_by, pin.meta) == (
        "v2",
        T0,
        "https://example.org/a?id=1",
        "europepmc",
        {"title": "A"},
    )
    assert cache.get_blob(pin.sha256) == XML
    assert cache.read("pmcid:PMC1") == (pin, XML)
    assert cache.lookup("pmcid:PMC2") is None


def test_retrieved_at_is_normalised_to_utc_and_needs_a_zone(cache: Cache) -> None:
    cache.pin("k", XML, retrieved_at=T2)
    pin = cache.lookup("k")
    assert pin is not None and pin.retrieved_at == "2026-02-28T23:00:00Z"
    with pytest.raises(CacheError, match="time zone"):
        cache.pin("k", XML, retrieved_at="2026-01-01T00:00:00")
    with pytest.raises(CacheError, match="ISO 8601"):
        cache.pin("k", XML, retrieved_at="yesterday")


def test_changed_flag_on_repin(cache: Cache) -> None:
    first = cache.pin("k", b"one", retrieved_at=T0)
    same = cache.pin("k", b"one", retrieved_at=T1)
    assert not same.changed and same.previous_sha256 == first.sha256 and not same.is_new
    other = cache.pin("k", b"two", retrieved_at=T1)
    assert other.changed and other.previous_sha256 == first.sha256
    assert other.sha256 == sha256_hex(b"two")
    pin = cache.lookup("k")
    assert pin is not None and pin.sha256 == other.sha256 and pin.retrieved_at == T1


def test_offline_read_of_unpinned_source_says_so(cache: Cache) -> None:
    with pytest.raises(CacheMissError, match="--offline"):
        cache.read("doi:10.1/none")
    with pytest.raises(CacheMissError):
        cache.get_blob("0" * 64)


def test_list_pins_and_prefix(cache: Cache) -> None:
    for key in ["pmcid:PMC2", "doi:10.1/x", "pmcid:PMC1", "pm%d:_x"]:
        cache.pin(key, key.encode(), retrieved_at=T0)
    assert [p.key for p in cache.list_pins()] == sorted(
        ["pmcid:PMC2", "doi:10.1/x", "pmcid:PMC1", "pm%d:_x"]
    )
    assert [p.key for p in cache.list_pins("pmcid:")] == ["pmcid:PMC1", "pmcid:PMC2"]
    # LIKE wildcards in a prefix are literal characters.
    assert [p.key for p in cache.list_pins("pm%")] == ["pm%d:_x"]


def test_pin_needs_a_key_and_json_meta(cache: Cache) -> None:
    with pytest.raises(CacheError):
        cache.pin("", XML, retrieved_at=T0)
    with pytest.raises(CacheError, match="JSON"):
        cache.pin("k", XML, retrieved_at=T0, meta={"x": object()})


# --------------------------------------------------------------------------- corruption


@pytest.mark.parametrize("garbage", [b"garbage", b"X" * len(XML)])
def test_corrupted_blob_is_detected_and_repaired_by_refresh(cache: Cache, garbage: bytes) -> None:
    digest = cache.pin("k", XML, retrieved_at=T0).sha256
    with sqlite3.connect(cache.path) as raw:
        raw.execute("UPDATE blobs SET data = ? WHERE sha256 = ?", (garbage, digest))
    with pytest.raises(CacheCorruptError, match="corrupted") as info:
        cache.get_blob(digest)
    assert isinstance(info.value, CiteproofError)
    with pytest.raises(CacheCorruptError):
        cache.read("k")
    assert cache.verify() == [digest]
    with pytest.raises(CacheCorruptError):
        cache.export_to(cache.path.parent / "x.zip")
    # A refresh stores the same bytes again and repairs the row.
    assert not cache.pin("k", XML, retrieved_at=T1).changed
    assert cache.get_blob(digest) == XML
    assert cache.verify() == []


def test_not_a_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(CacheCorruptError, match="not a usable SQLite database"):
        Cache(path)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    Cache(path).close()
    with sqlite3.connect(path) as raw:
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(CacheError, match="newer citeproof"):
        Cache(path)


# --------------------------------------------------------------------------- sqlite setup


def test_wal_mode_and_schema_version(cache: Cache) -> None:
    assert cache.journal_mode == "wal"
    cache.pin("k", XML, retrieved_at=T0)
    raw = sqlite3.connect(cache.path)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        raw.close()


def test_reopen_keeps_pins(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    with Cache(path) as c:
        c.pin("k", XML, retrieved_at=T0)
    with Cache(path) as c:
        assert c.read("k")[1] == XML


def test_threads_can_share_one_cache(cache: Cache) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(20):
                cache.pin(f"k{n}-{i}", f"{n}-{i}".encode(), retrieved_at=T0)
                assert cache.read(f"k{n}-{i}")[1] == f"{n}-{i}".encode()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(cache.list_pins()) == 120


# --------------------------------------------------------------------------- prune


def test_remove_and_prune(cache: Cache) -> None:
    cache.pin("old", b"old bytes", retrieved_at=T0)
    cache.pin("new", b"new bytes", retrieved_at=T1)
    cache.pin("other", b"other", retrieved_at=T1)
    cache.pin("shared", b"new bytes", retrieved_at=T0)
    cache.pin("other", b"other v2", retrieved_at=T1)  # leaves b"other" unreferenced

    only_orphans = cache.prune()
    assert (only_orphans.pins_removed, only_orphans.blobs_removed) == (0, 1)
    assert only_orphans.bytes_freed == len(b"other")

    # Older than T1 drops "old" and "shared"; b"new bytes" is still used by "new".
    result = cache.prune(older_than="2026-01-15T00:00:00+00:00")
    assert (result.pins_removed, result.blobs_removed, result.bytes_freed) == (
        2,
        1,
        len(b"old bytes"),
    )
    assert [p.key for p in cache.list_pins()] == ["new", "other"]
    assert cache.has_blob(sha256_hex(b"new bytes"))

    assert cache.prune(keys=["new", "missing"]).pins_removed == 1
    assert not cache.has_blob(sha256_hex(b"new bytes"))

    assert cache.remove("other") is True
    assert cache.remove("other") is False
    assert cache.has_blob(sha256_hex(b"other v2"))  # blobs go at the next prune
    assert cache.prune().blobs_removed == 1
    assert cache.list_pins() == []


# --------------------------------------------------------------------------- export / import


def _filled(path: Path) -> Cache:
    c = Cache(path)
    c.pin(
        "pmcid:PMC1",
        XML,
        retrieved_at=T0,
        version="1",
        url="https://example.org/x?id=1",
        served_by="europepmc",
        media_type="application/xml",
        meta={"n": 1},
    )
    c.pin("doi:10.1/y", b"%PDF-1.7 fake", retrieved_at=T1, media_type="application/pdf")
    c.pin("doi:10.1/same", XML, retrieved_at=T1)
    return c


def test_export_import_round_trip(tmp_path: Path) -> None:
    archive = tmp_path / "out" / "export.zip"
    with _filled(tmp_path / "a" / "cache.sqlite3") as src:
        assert src.export_to(archive) == 3
        expected = src.list_pins()
    with Cache(tmp_path / "b" / "cache.sqlite3") as dst:
        report = dst.import_from(archive)
        assert (report.pins_added, report.blobs_added, report.conflicts) == (3, 2, ())
        assert dst.list_pins() == expected
        assert dst.read("pmcid:PMC1")[1] == XML
        assert dst.read("doi:10.1/same")[1] == XML
        assert dst.read("doi:10.1/y")[1] == b"%PDF-1.7 fake"
        again = dst.import_from(archive)
        assert (again.pins_added, again.blobs_added, again.pins_unchanged) == (0, 0, 3)
    assert list(tmp_path.joinpath("out").iterdir()) == [archive]  # no temp file left


def test_export_selected_keys(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with _filled(tmp_path / "cache.sqlite3") as src:
        assert src.export_to(archive, keys=["doi:10.1/y"]) == 1
        with pytest.raises(CacheMissError):
            src.export_to(tmp_path / "x.zip", keys=["nope"])
    with zipfile.ZipFile(archive) as zf:
        assert sorted(zf.namelist()) == ["blobs/" + sha256_hex(b"%PDF-1.7 fake"), "manifest.json"]


def test_import_reports_conflicts_and_keeps_local_bytes(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with _filled(tmp_path / "a.sqlite3") as src:
        src.export_to(archive)
    with Cache(tmp_path / "b.sqlite3") as dst:
        local = dst.pin("pmcid:PMC1", b"my local copy", retrieved_at=T1).sha256
        report = dst.import_from(archive)
        assert report.pins_added == 2
        assert len(report.conflicts) == 1
        conflict = report.conflicts[0]
        assert (conflict.key, conflict.existing_sha256, conflict.incoming_sha256) == (
            "pmcid:PMC1",
            local,
            sha256_hex(XML),
        )
        assert not conflict.replaced
        assert dst.read("pmcid:PMC1")[1] == b"my local copy"

        forced = dst.import_from(archive, replace=True)
        assert [c.replaced for c in forced.conflicts] == [True]
        assert dst.read("pmcid:PMC1")[1] == XML


def test_tampered_blob_is_refused_and_nothing_imported(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with _filled(tmp_path / "a.sqlite3") as src:
        src.export_to(archive)
    tampered = tmp_path / "tampered.zip"
    member = "blobs/" + sha256_hex(XML)
    _rewrite_zip(archive, tampered, {member: XML.replace(b"quick", b"slow!")})
    with Cache(tmp_path / "b.sqlite3") as dst:
        with pytest.raises(CacheImportError, match="does not match its sha256") as info:
            dst.import_from(tampered)
        assert "Nothing was imported" in str(info.value)
        assert dst.list_pins() == []
        assert not dst.has_blob(sha256_hex(b"%PDF-1.7 fake"))


def test_tampered_manifest_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "export.zip"
    with _filled(tmp_path / "a.sqlite3") as src:
        src.export_to(archive)
    with zipfile.ZipFile(archive) as zf:
        manifest = json.loads(zf.read("manifest.json"))

    def variant(name: str, edit: dict[str, bytes | None]) -> Path:
        out = tmp_path / name
        _rewrite_zip(archive, out, edit)
        return out

    repointed = json.loads(json.dumps(manifest))
    repointed["pins"][0]["sha256"] = "f" * 64
    sized = json.loads(json.dumps(manifest))
    sized["blobs"][0]["size"] += 1
    bad: dict[str, tuple[dict[str, bytes | None], str]] = {
        "repointed.zip": ({"manifest.json": json.dumps(repointed).encode()}, "does not contain"),
        "sized.zip": ({"manifest.json": json.dumps(sized).encode()}, "does not match"),
        "extra.zip": ({"blobs/evil": b"x"}, "unexpected members"),
        "missing.zip": ({"blobs/" + sha256_hex(XML): None}, "listed but missing"),
        "nomanifest.zip": ({"manifest.json": None}, "no manifest.json"),
        "notjson.zip": ({"manifest.json": b"{"}, "not valid JSON"),
    }
    with Cache(tmp_path / "b.sqlite3") as dst:
        for name, (edit, message) in bad.items():
            with pytest.raises(CacheImportError, match=message):
                dst.import_from(variant(name, edit))
        not_zip = tmp_path / "plain.txt"
        not_zip.write_text("hello")
        with pytest.raises(CacheImportError, match="not a citeproof cache export"):
            dst.import_from(not_zip)
        assert dst.list_pins() == []


# --------------------------------------------------------------------------- secrets


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            f"https://eutils.ncbi.nlm.nih.gov/efetch?db=pmc&id=1&email={CONTACT}&tool=citeproof",
            "https://eutils.ncbi.nlm.nih.gov/efetch?db=pmc&id=1",
        ),
        (
            "https://api.crossref.org/works/10.1/x?mailto=someone%40example.org",
            "https://api.crossref.org/works/10.1/x",
        ),
        ("https://x.org/a?API_KEY=secret&q=a+b%20c#frag", "https://x.org/a?q=a+b%20c#frag"),
        ("https://x.org/a?apikey=s&api%5Fkey=t&keep=1", "https://x.org/a?keep=1"),
        ("https://user:pw@x.org/a?q=1", "https://x.org/a?q=1"),
        ("https://x.org/plain", "https://x.org/plain"),
        ("https://x.org/a?emailed=1&q", "https://x.org/a?emailed=1&q"),
    ],
)
def test_strip_secret_params(url: str, expected: str) -> None:
    assert strip_secret_params(url) == expected


def test_nothing_stored_contains_the_contact_address(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    archive = tmp_path / "export.zip"
    with Cache(path) as c:
        c.pin(
            "pmid:1",
            XML,
            retrieved_at=T0,
            url=f"https://eutils.ncbi.nlm.nih.gov/efetch?id=1&email={CONTACT}&api_key=SECRET",
            meta={"redirects": [f"https://x.org/r?mailto={CONTACT}"]},
        )
        pin = c.lookup("pmid:1")
        assert pin is not None
        assert pin.url == "https://eutils.ncbi.nlm.nih.gov/efetch?id=1"
        assert pin.meta == {"redirects": ["https://x.org/r"]}
        c.export_to(archive)
    for stored in [path, archive]:
        blob = stored.read_bytes()
        assert CONTACT.encode() not in blob and b"SECRET" not in blob
    with zipfile.ZipFile(archive) as zf:
        assert CONTACT not in zf.read("manifest.json").decode()


def test_import_strips_secrets_from_a_foreign_export(tmp_path: Path) -> None:
    manifest = {
        "format": "citeproof-cache-export",
        "version": 1,
        "blobs": [{"sha256": sha256_hex(XML), "size": len(XML), "media_type": "text/xml"}],
        "pins": [
            {
                "key": "k",
                "sha256": sha256_hex(XML),
                "version": None,
                "retrieved_at": T0,
                "url": f"https://x.org/a?email={CONTACT}",
                "served_by": None,
                "meta": {},
            }
        ],
    }
    archive = tmp_path / "foreign.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        zf.writestr("blobs/" + sha256_hex(XML), XML)
    with Cache(tmp_path / "cache.sqlite3") as c:
        assert c.import_from(archive).pins_added == 1
        pin = c.lookup("k")
        assert pin is not None and pin.url == "https://x.org/a"


# --------------------------------------------------------------------------- paths


def test_citeproof_home_overrides_every_directory(tmp_path: Path) -> None:
    dirs = resolve_dirs({HOME_ENV: str(tmp_path)})
    assert (dirs.data, dirs.cache, dirs.state) == (
        tmp_path / "data",
        tmp_path / "cache",
        tmp_path / "state",
    )
    assert dirs.cache_db == tmp_path / "cache" / "cache.sqlite3"
    assert not (tmp_path / "data").exists()  # resolving has no side effects


@pytest.mark.parametrize("env", [{}, {HOME_ENV: ""}, {HOME_ENV: "  "}])
def test_platform_dirs_without_citeproof_home(env: dict[str, str]) -> None:
    dirs = resolve_dirs(env)
    assert dirs.data == platformdirs.user_data_path("citeproof", appauthor=False)
    assert dirs.cache == platformdirs.user_cache_path("citeproof", appauthor=False)
    assert dirs.state == platformdirs.user_state_path("citeproof", appauthor=False)


def test_default_dirs_reads_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(HOME_ENV, str(tmp_path))
    assert default_dirs().cache == tmp_path / "cache"
    with Cache(default_dirs().cache_db) as c:
        c.pin("k", XML, retrieved_at=T0)
    assert (tmp_path / "cache" / "cache.sqlite3").is_file()
