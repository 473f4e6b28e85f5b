"""The Retraction Watch snapshot: import (streaming, atomic, dated) and lookup.

The CSV used here is ``examples/retraction-watch-invented.csv``: INVENTED example data in the
dataset's real column layout (every row says so in its Notes column); no real record is copied.
Tests of the dataset's quirks (PMIDs written as floats, ``unavailable`` DOIs, US dates, a BOM,
bad bytes, reordered columns) write further INVENTED rows in that layout into ``tmp_path``;
none of them needs anything outside the repository.
"""

from __future__ import annotations

import csv
import os
import random
import sqlite3
import tracemalloc
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.errors import BadInputError, CiteproofError
from citeproof.sources import retractionwatch as rw

REPO = Path(__file__).resolve().parents[2]
INVENTED = REPO / "examples" / "retraction-watch-invented.csv"
HEADER = INVENTED.read_text(encoding="utf-8").splitlines()[0]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "data" / rw.DB_NAME
    rw.import_csv(INVENTED, path, as_of=date(2025, 3, 1))
    return path


def test_import_records_rows_and_date(db: Path) -> None:
    info = rw.snapshot_info(db)
    assert info is not None
    assert (info.rows, info.as_of, info.skipped) == (5, date(2025, 3, 1), 0)
    assert info.source_name == INVENTED.name


@pytest.mark.parametrize(
    "doi",
    [
        "10.5555/invented.retracted.1",
        "10.5555/INVENTED.RETRACTED.1",
        "doi:10.5555/Invented.Retracted.1",
        "https://doi.org/10.5555/invented.retracted.1",
    ],
)
def test_lookup_by_doi_is_case_insensitive_and_canonical(db: Path, doi: str) -> None:
    info, (entry,) = rw.lookup(db, doi=doi)
    assert info.as_of == date(2025, 3, 1)
    assert entry.kind == "retraction"
    assert entry.record_id == "900001"
    assert entry.notice_doi == "10.5555/invented.notice.1"
    assert entry.notice_date == "2024-03-01"
    assert entry.original_doi == "10.5555/invented.retracted.1"
    assert entry.notice_pmid is None  # "0" in the dataset means none


def test_lookup_by_pmid(db: Path) -> None:
    _, (entry,) = rw.lookup(db, pmid="99000001")
    assert entry.record_id == "900001"
    assert rw.lookup(db, pmid="0")[1] == []
    assert rw.lookup(db, pmid="12345")[1] == []


def test_lookup_as_notice(db: Path) -> None:
    _, (entry,) = rw.lookup(db, doi="10.5555/invented.notice.2", as_notice=True)
    assert entry.kind == "expression_of_concern"
    assert rw.lookup(db, doi="10.5555/invented.notice.2")[1] == []


def test_natures_are_mapped(db: Path) -> None:
    kinds = {
        doi: [e.kind for e in rw.lookup(db, doi=doi)[1]]
        for doi in (
            "10.5555/invented.concern.1",
            "10.5555/invented.corrected.1",
            "10.5555/invented.reinstated.1",
        )
    }
    assert kinds == {
        "10.5555/invented.concern.1": ["expression_of_concern"],
        "10.5555/invented.corrected.1": ["correction"],
        "10.5555/invented.reinstated.1": ["retraction", "reinstatement"],  # by notice date
    }


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ("Retraction", "retraction"),
        ("Expression of concern", "expression_of_concern"),
        ("Expression of Concern", "expression_of_concern"),
        ("Correction", "correction"),
        ("Reinstatement", "reinstatement"),
        ("  Something  New ", "something_new"),
    ],
)
def test_nature_kind(raw: str, kind: str) -> None:
    assert rw.nature_kind(raw) == kind


def test_default_date_is_the_file_modification_date(tmp_path: Path) -> None:
    copy = tmp_path / "rw.csv"
    copy.write_bytes(INVENTED.read_bytes())
    when = datetime(2024, 7, 9, 12, 0, tzinfo=UTC).timestamp()
    os.utime(copy, (when, when))
    info = rw.import_csv(copy, tmp_path / "rw.sqlite3")
    assert info.as_of == date(2024, 7, 9)


def _bad_files(tmp_path: Path) -> dict[str, Path]:
    files = {
        "missing columns": "Record ID,Title,OriginalPaperDOI\n1,x,10.5555/x\n",
        "header only": HEADER + "\n",
        "empty": "",
        "prose": "This is not a CSV at all.\nJust words.\n",
    }
    out = {name: tmp_path / f"{i}.csv" for i, name in enumerate(files)}
    for name, path in out.items():
        path.write_text(files[name], encoding="utf-8")
    binary = tmp_path / "binary.csv"
    binary.write_bytes(bytes(range(256)) * 64)
    out["binary"] = binary
    return out


@pytest.mark.parametrize("which", ["missing columns", "header only", "empty", "prose", "binary"])
def test_a_bad_file_is_refused_and_the_old_snapshot_kept(
    db: Path, tmp_path: Path, which: str
) -> None:
    before = db.read_bytes()
    bad = _bad_files(tmp_path)[which]
    with pytest.raises(rw.RetractionWatchFormatError) as caught:
        rw.import_csv(bad, db, as_of=date(2026, 1, 1))
    assert caught.value.exit_code == 2
    assert isinstance(caught.value, BadInputError)
    assert str(bad) in str(caught.value)
    assert db.read_bytes() == before
    assert rw.snapshot_info(db) is not None and rw.snapshot_info(db).as_of == date(2025, 3, 1)  # type: ignore[union-attr]
    assert [p.name for p in db.parent.iterdir()] == [db.name]  # no temporary file left


def test_missing_file_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="does not exist"):
        rw.import_csv(tmp_path / "nope.csv", tmp_path / "db")


def test_short_rows_are_skipped_and_counted(tmp_path: Path) -> None:
    text = INVENTED.read_text(encoding="utf-8") + "900009,too,short\n"
    path = tmp_path / "rw.csv"
    path.write_text(text, encoding="utf-8")
    info = rw.import_csv(path, tmp_path / "db.sqlite3", as_of=date(2025, 1, 1))
    assert (info.rows, info.skipped) == (5, 1)


def test_no_snapshot_and_a_damaged_one(tmp_path: Path) -> None:
    assert rw.snapshot_info(tmp_path / "absent.sqlite3") is None
    damaged = tmp_path / "damaged.sqlite3"
    damaged.write_bytes(b"not a database" * 100)
    with pytest.raises(rw.SnapshotError):
        rw.snapshot_info(damaged)
    with pytest.raises(CiteproofError):
        rw.lookup(damaged, doi="10.5555/x")


def test_snapshot_of_another_format_is_refused(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE meta SET value = '0' WHERE key = 'format'")
    connection.close()
    with pytest.raises(rw.SnapshotError, match="import the CSV again"):
        rw.snapshot_info(db)


@pytest.mark.slow
def test_import_streams(tmp_path: Path) -> None:
    """A CSV far larger than the Python memory the import uses (rows are not kept)."""
    path = tmp_path / "big.csv"
    filler = "x" * 800
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write(HEADER + "\n")
        for n in range(16_000):
            handle.write(
                f'{n},"Invented title {n}",,,Journal,Press,,,,,1/2/2020 0:00,10.5555/n.{n},0,'
                f"1/1/2019 0:00,10.5555/o.{n},{n + 1},Retraction,{filler},No,invented\n"
            )
    size = path.stat().st_size
    tracemalloc.start()
    try:
        info = rw.import_csv(path, tmp_path / "big.sqlite3", as_of=date(2025, 1, 1))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.rows == 16_000
    assert size > 12_000_000
    assert peak < size / 4, (peak, size)
    _, (entry,) = rw.lookup(tmp_path / "big.sqlite3", pmid="16000")
    assert entry.original_doi == "10.5555/o.15999"


@given(
    st.lists(st.sampled_from("abcdefghijklmnopqrstuvwxyz0123456789.-_"), min_size=1, max_size=20),
    st.randoms(),
)
def test_any_ascii_case_of_a_stored_doi_finds_it(suffix: list[str], rnd: random.Random) -> None:
    doi = "10.5555/" + "".join(suffix)
    flipped = "".join(c.upper() if rnd.random() < 0.5 else c for c in doi)
    assert rw._doi(flipped) == rw._doi(doi)
    if doi[-1].isalnum():
        assert rw._doi(flipped) == doi


# --- the dataset's quirks, on invented rows -----------------------------------------------------

COLUMNS = HEADER.split(",")


def _row(**fields: str) -> list[str]:
    """An invented row in the dataset's column order (``Record_ID`` names "Record ID");
    unnamed columns are empty."""
    values = dict.fromkeys(COLUMNS, "")
    values.update({"Notes": "INVENTED EXAMPLE DATA - not a real record", "Paywalled": "No"})
    for key, value in fields.items():
        name = key.replace("_", " ")
        assert name in values, name
        values[name] = value
    return [values[c] for c in COLUMNS]


def _write_csv(path: Path, rows: list[list[str]], *, header: list[str] = COLUMNS) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_default_location_follows_citeproof_home(tmp_path: Path, monkeypatch: Any) -> None:
    """Without a db path the snapshot goes to <CITEPROOF_HOME>/data, where lookups find it."""
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path / "home"))
    assert rw.default_db_path() == tmp_path / "home" / "data" / rw.DB_NAME
    assert rw.snapshot_info() is None
    info = rw.import_csv(INVENTED, as_of=date(2025, 3, 1))
    assert info.path == rw.default_db_path() and info.path.is_file()
    assert rw.snapshot_info() == info
    assert rw.lookup(rw.default_db_path(), pmid="99000001")[1][0].record_id == "900001"


def test_field_quirks_are_normalised(tmp_path: Path) -> None:
    """The dataset's quirks (float PMIDs, "unavailable" DOIs, odd dates) read as documented."""
    rows = [
        _row(
            Record_ID="900101",
            Title="Invented example: float PMIDs",
            RetractionDate="12/31/2024 0:00",
            RetractionDOI="unavailable",
            RetractionPubMedID="99000101.0",
            OriginalPaperDate="2020-02-29",
            OriginalPaperDOI="https://doi.org/10.5555/INVENTED.Quirk.1",
            OriginalPaperPubMedID="0099000102",
            RetractionNature="Retraction",
        ),
        _row(
            Record_ID="900102",
            RetractionDate="Spring 2024",
            RetractionDOI="NA",
            RetractionPubMedID="\u0661\u0662\u0663",  # Arabic-Indic digits are not a PMID
            OriginalPaperDate="",
            OriginalPaperDOI="see the notice",
            OriginalPaperPubMedID="99000103",
            RetractionNature="Retraction and Replacement",
        ),
        _row(
            Record_ID="900103",
            RetractionDate="2023-07-04 00:00:00",
            OriginalPaperDOI="PMC9900103",  # an identifier, but not a DOI
            OriginalPaperPubMedID="99000104",
            RetractionNature="  ",
        ),
    ]
    db = tmp_path / "q.sqlite3"
    info = rw.import_csv(_write_csv(tmp_path / "q.csv", rows), db, as_of=date(2025, 1, 1))
    assert (info.rows, info.skipped) == (3, 0)

    _, (first,) = rw.lookup(db, doi="10.5555/invented.quirk.1")
    assert first.original_pmid == "99000102"  # leading zeros dropped
    assert (first.notice_doi, first.notice_pmid, first.notice_date) == (
        None,
        "99000101",
        "2024-12-31",
    )
    assert rw.lookup(db, pmid="99000102")[1] == [first]
    assert rw.lookup(db, pmid="99000101", as_notice=True)[1] == [first]

    _, (second,) = rw.lookup(db, pmid="99000103")
    assert (second.kind, second.nature) == (
        "retraction_and_replacement",
        "Retraction and Replacement",
    )
    assert (second.original_doi, second.notice_doi, second.notice_pmid) == (None, None, None)
    assert second.notice_date == "Spring 2024"  # unreadable dates are kept as written
    assert second.title is None and second.journal is None

    _, (third,) = rw.lookup(db, pmid="99000104")
    assert (third.kind, third.nature, third.original_doi) == ("unknown", None, None)
    assert third.notice_date == "2023-07-04"  # ISO, with a time, as some exports write it


def test_bom_reordered_columns_and_bad_bytes_are_read(tmp_path: Path) -> None:
    """Crossref's file may start with a BOM and carry bad bytes; column order is by name."""
    # "Record ID" stays first, so a BOM left on it would hide a required column
    order = [0, *range(len(COLUMNS) - 1, 0, -1)]
    header = [COLUMNS[i] for i in order]
    values = _row(
        Record_ID="900201",
        Title="Invented example: caf\u00e9 lamps",
        Author="Ada Example",
        RetractionDate="1/2/2025 0:00",
        OriginalPaperDOI="10.5555/invented.bom.1",
        OriginalPaperPubMedID="99000201",
        RetractionNature="Expression of Concern",
    )
    line = ",".join(f'"{values[i]}"' for i in order)
    data = (
        "\ufeff".encode()
        + ",".join(header).encode()
        + b"\r\n"
        + line.encode().replace(b"Ada Example", b"Ada Ex\xe9mple")
        + b"\r\n"
    )
    path = tmp_path / "bom.csv"
    path.write_bytes(data)
    db = tmp_path / "bom.sqlite3"
    assert rw.import_csv(path, db, as_of=date(2025, 1, 1)).rows == 1
    _, (entry,) = rw.lookup(db, doi="10.5555/INVENTED.BOM.1")
    assert (entry.record_id, entry.kind, entry.notice_date) == (
        "900201",
        "expression_of_concern",
        "2025-01-02",
    )
    assert entry.title == "Invented example: caf\u00e9 lamps"


def test_blank_lines_are_neither_rows_nor_skipped(tmp_path: Path) -> None:
    text = INVENTED.read_text(encoding="utf-8")
    path = tmp_path / "blank.csv"
    path.write_text(text + "\n   \n\n", encoding="utf-8")
    info = rw.import_csv(path, tmp_path / "b.sqlite3", as_of=date(2025, 1, 1))
    assert (info.rows, info.skipped) == (5, 0)


def test_unreadable_csv_is_refused_and_the_old_snapshot_kept(db: Path, tmp_path: Path) -> None:
    """A field beyond the csv module's limit is a format error (with the line), not a crash."""
    before = db.read_bytes()
    path = _write_csv(
        tmp_path / "huge.csv",
        [_row(Record_ID="1", OriginalPaperPubMedID="99000301"), _row(Reason="x" * 200_000)],
    )
    with pytest.raises(rw.RetractionWatchFormatError, match="not a readable CSV") as caught:
        rw.import_csv(path, db, as_of=date(2026, 1, 1))
    assert "line 3" in str(caught.value)
    assert db.read_bytes() == before
    assert [p.name for p in db.parent.iterdir()] == [db.name]


def test_interrupted_import_keeps_the_old_snapshot(
    db: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    """Even a KeyboardInterrupt mid-import leaves the previous snapshot and no temp file."""
    before = db.read_bytes()
    real = rw._record
    seen: list[int] = []

    def interrupt(fields: list[str]) -> tuple[str | None, ...]:
        seen.append(1)
        if len(seen) == 3:
            raise KeyboardInterrupt
        return real(fields)

    monkeypatch.setattr(rw, "_record", interrupt)
    with pytest.raises(KeyboardInterrupt):
        rw.import_csv(INVENTED, db, as_of=date(2026, 1, 1))
    assert db.read_bytes() == before
    assert [p.name for p in db.parent.iterdir()] == [db.name]


def test_a_folder_given_as_the_csv_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="does not exist or is not a file"):
        rw.import_csv(tmp_path, tmp_path / "db.sqlite3")
    # the reader itself says so too, for a path that cannot be opened
    with pytest.raises(BadInputError, match="cannot read"):
        list(rw._rows(tmp_path))


def test_imported_at_is_utc(tmp_path: Path) -> None:
    when = datetime(2025, 3, 2, 11, 30, tzinfo=timezone(timedelta(hours=1)))
    info = rw.import_csv(INVENTED, tmp_path / "t.sqlite3", as_of=date(2025, 3, 1), now=when)
    assert info.imported_at == "2025-03-02T10:30:00+00:00"
    assert rw.snapshot_info(tmp_path / "t.sqlite3") == info


def test_lookup_by_doi_or_pmid_returns_both_in_notice_order(db: Path) -> None:
    _, entries = rw.lookup(db, doi="10.5555/invented.concern.1", pmid="99000001")
    assert [e.record_id for e in entries] == ["900001", "900002"]  # 2024-03-01, 2024-06-15
    assert rw.lookup(db)[1] == []
    assert rw.lookup(db, doi="not a doi at all")[1] == []


def test_snapshot_with_damaged_metadata_is_refused(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM meta WHERE key = 'as_of'")
    connection.close()
    with pytest.raises(rw.SnapshotError, match="cannot be read"):
        rw.snapshot_info(db)
    with pytest.raises(rw.SnapshotError, match="cannot be read"):
        rw.lookup(db, pmid="99000001")
