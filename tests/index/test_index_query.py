"""The query API ``citeproof refs`` calls: identifier look-ups, bibliographic search,
notices, the manifest; well-formed answers or citeproof errors, never a guess."""

from __future__ import annotations

import multiprocessing
import pickle
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("tantivy", reason="the index extra (tantivy) is not installed")

from citeproof.errors import BadInputError, UnavailableError
from citeproof.index.query import LocalIndex, open_index
from citeproof.models.references import WorkRecord


@pytest.fixture(scope="module")
def index(built: Path) -> LocalIndex:
    return open_index(built)


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        ("doi", "https://doi.org/10.5555/INVENTED.IDX.1"),
        ("doi", "doi:10.5555/invented.idx.1"),
        ("pmid", "PMID:90000001"),
        ("pmcid", "pmc9000001"),
        ("openalex", "https://openalex.org/W1000000001"),
    ],
)
def test_every_spelling_of_an_identifier_finds_the_work(
    index: LocalIndex, kind: str, value: str
) -> None:
    found = index.by_identifier(kind, value)
    assert [r.source for r in found] == ["crossref", "pubmed", "openalex"]
    assert all(isinstance(r, WorkRecord) for r in found)


def test_every_identifier_kind_is_asked(index: LocalIndex) -> None:
    assert index.by_identifier("arxiv", "arXiv:1901.00001v2")[1].arxiv == "1901.00001"
    assert (
        index.by_identifier("arxiv", "hep-th/9901001")[0].key == "doi:10.48550/arxiv.hep-th/9901001"
    )
    assert (
        index.by_identifier("dblp", "conf/invented/OkaforT20")[0].dblp == "conf/invented/OkaforT20"
    )
    assert index.by_identifier("doi", "10.5555/invented.data.5")[0].kind == "Dataset"


def test_what_the_index_does_not_hold_is_an_empty_answer(index: LocalIndex) -> None:
    assert index.by_identifier("doi", "10.5555/never.registered") == []
    assert index.by_identifier("pmid", "not a pmid") == []
    assert index.notices("doi:10.5555/never.registered") == []


def test_a_question_the_index_cannot_ask_is_bad_input(index: LocalIndex) -> None:
    with pytest.raises(BadInputError, match="no identifier kind 'isbn'"):
        index.by_identifier("isbn", "978-3-16-148410-0")
    with pytest.raises(BadInputError):
        index.notices("10.5555/invented.idx.2")
    with pytest.raises(BadInputError, match="needs a reference"):
        index.search("   ")
    with pytest.raises(BadInputError, match="limit"):
        index.search("compost", limit=0)


def test_a_whole_reference_string_finds_its_work_first(index: LocalIndex) -> None:
    hits = index.search(
        "Lindqvist R. Rainwater harvesting for invented urban gardens. "
        "Invent Urban Hortic. 2020;7:55-61."
    )
    first, score = hits[0]
    assert first.doi == "10.5555/invented.idx.2" and score > 0
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    works = [r.key for r, _ in hits]
    assert len(works) == len(set(works))  # one hit a work


def test_a_search_by_fields_weighs_title_and_authors(index: LocalIndex) -> None:
    hits = index.search(title="earthworm density compost", authors=["Okafor"], year=2019)
    assert {r.key for r, _ in hits[:2]} == {
        "doi:10.5555/invented.idx.1",
        "doi:10.48550/arxiv.1901.00001",
    }
    accents = index.search(title="schone neue welt datenbanken", authors=["Muller"])
    assert accents[0][0].doi == "10.5555/invented.idx.4"  # folded: Schöne, Müller
    assert index.search("zzzz qqqq") == []


def test_notices_about_a_work_come_from_every_source_with_the_dump_date(index: LocalIndex) -> None:
    notices = index.notices("pmid:90000002")  # the work by another of its identifiers
    assert {n.source for n in notices} == {"crossref", "pubmed", "openalex", "retractionwatch"}
    assert {n.category for n in notices} == {"retracted"}
    crossref = next(n for n in notices if n.source == "crossref")
    assert crossref.notice == "doi:10.5555/invented.idx.2r" and crossref.as_of == "2025-03-01"
    watch = next(n for n in notices if n.source == "retractionwatch")
    assert watch.reason == "+Concerns/Issues About Data;" and watch.record_id == "90001"
    concern = index.notices("doi:10.5555/invented.idx.6")
    assert [(n.kind, n.category) for n in concern] == [("expression_of_concern", "concern")]


def test_the_manifest_names_the_index(index: LocalIndex) -> None:
    assert len(index.manifest.hash) == 64
    assert index.coverage_phrase() == (
        "Crossref 2025 + PubMed baseline 2026 + OpenAlex 2026 + DataCite 2025 + arXiv 2020 "
        "+ DBLP 2025 + Retraction Watch 2024-02-01"
    )


def test_an_index_pickles_as_its_path(index: LocalIndex) -> None:
    copy = pickle.loads(pickle.dumps(index))
    assert copy.path == index.path and copy.manifest.hash == index.manifest.hash


def _lookup(path: str) -> list[str]:
    opened = open_index(path)
    return [r.source for r in opened.by_identifier("pmid", "90000001")]


def test_many_processes_open_the_same_index(built: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        answers = pool.map(_lookup, [str(built)] * 4)
    assert answers == [["crossref", "pubmed", "openalex"]] * 4


@pytest.mark.parametrize("damage", ["no manifest", "edited manifest", "no tables", "bad tables"])
def test_an_index_that_cannot_be_read_is_unavailable(damage: str, fresh_copy: Path) -> None:
    if damage == "no manifest":
        (fresh_copy / "manifest.json").unlink()
    elif damage == "edited manifest":
        path = fresh_copy / "manifest.json"
        path.write_text(path.read_text().replace('"records": 20', '"records": 21', 1))
    elif damage == "no tables":
        (fresh_copy / "index.sqlite3").unlink()
    else:
        (fresh_copy / "index.sqlite3").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4096)
    with pytest.raises(UnavailableError):
        found = open_index(fresh_copy)
        found.by_identifier("doi", "10.5555/invented.idx.1")


def test_tables_damaged_after_opening_are_unavailable_not_empty(fresh_copy: Path) -> None:
    opened = open_index(fresh_copy)
    connection = sqlite3.connect(fresh_copy / "index.sqlite3")
    connection.execute("DROP TABLE ids")
    connection.commit()
    connection.close()
    with pytest.raises(UnavailableError, match="cannot be read"):
        opened.by_identifier("doi", "10.5555/invented.idx.1")
