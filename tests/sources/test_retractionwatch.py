"""The Retraction Watch snapshot: import (streaming, atomic, dated) and lookup.

The CSV used here is ``examples/retraction-watch-invented.csv``: INVENTED example data in the
dataset's real column layout (every row says so in its Notes column); no real record is copied.
"""

from __future__ import annotations

import os
import random
import sqlite3
import tracemalloc
from datetime import UTC, date, datetime
from pathlib import Path

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
