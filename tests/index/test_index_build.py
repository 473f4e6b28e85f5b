"""Building an index from every invented dump, merging records into works, updating it with
newer files, and the folders a build refuses."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

pytest.importorskip("tantivy", reason="the index extra (tantivy) is not installed")

from index_dumps import publish

from citeproof.errors import BadInputError
from citeproof.index.build import build_index, update_index
from citeproof.index.query import open_index


def _sources(records: list[object]) -> list[str]:
    return [getattr(r, "source") for r in records]  # noqa: B009


def test_records_sharing_an_identifier_are_one_work(built: Path) -> None:
    index = open_index(built)
    work = index.by_identifier("doi", "10.5555/invented.idx.1")
    assert _sources(work) == ["crossref", "pubmed", "openalex"]  # by DOI and by PMID
    assert index.by_identifier("pmid", "90000001") == work
    assert index.by_identifier("pmcid", "PMC9000001") == work
    assert index.by_identifier("openalex", "W1000000001") == work
    # The preprint is another work: arXiv, its DataCite DOI and DBLP's CoRR entry.
    preprint = index.by_identifier("arxiv", "1901.00001")
    assert _sources(preprint) == ["datacite", "arxiv", "dblp"]
    assert index.by_identifier("dblp", "journals/corr/abs-1901-00001") == preprint
    assert "has-preprint:doi:10.48550/arxiv.1901.00001" in work[0].related
    # DBLP's electronic edition is the Crossref DOI: one work.
    assert _sources(index.by_identifier("dblp", "journals/invented/Mueller19")) == [
        "crossref",
        "dblp",
    ]


def test_a_merged_openalex_work_is_gone_and_its_id_finds_the_work_it_joined(built: Path) -> None:
    index = open_index(built)
    records = index.by_identifier("openalex", "W1000000009")
    assert records and all(r.openalex != "W1000000009" for r in records)
    assert _sources(records) == ["crossref", "pubmed", "openalex"]


def test_the_manifest_lists_every_file_with_its_hash(built: Path) -> None:
    manifest = open_index(built).manifest
    assert set(manifest.sources) == {
        "crossref",
        "pubmed",
        "openalex",
        "datacite",
        "arxiv",
        "dblp",
        "retractionwatch",
    }
    assert len(manifest.files) == 8
    assert all(len(f["sha256"]) == 64 and f["size"] > 0 for f in manifest.files)
    assert manifest.counts["records"] == 20 and manifest.counts["replaced_or_deleted"] == 1
    assert (built / "manifest.json").stat().st_mode & 0o044  # readable by other readers
    text = (built / "manifest.json").read_text()
    assert json.loads(text)["hash"] == manifest.hash
    assert "/tmp" not in text and str(built) not in text  # file names only, no paths
    assert manifest.coverage_phrase().startswith("Crossref 2025 + PubMed baseline 2026")


def test_the_same_files_give_the_same_manifest_but_its_dates(
    published: Path, built: Path, tmp_path: Path
) -> None:
    again = build_index(tmp_path / "again", [published]).manifest.data
    first = open_index(built).manifest.data
    for key in ("sources", "counts", "files"):
        assert again[key] == first[key]


def test_an_update_replaces_revised_records_keeps_newest_versions_and_deletes(
    fresh_copy: Path, update_file: Path
) -> None:
    index = open_index(fresh_copy)
    before = index.manifest.hash
    assert index.by_identifier("pmid", "90000005")
    report = update_index(fresh_copy, [update_file])
    assert report.files == 1 and report.records == 3
    assert index.manifest.hash != before  # an open index follows the update
    revised = index.by_identifier("pmid", "90000004")
    assert [r.title for r in revised] == [
        "[Pollinator visits to INVENTED rooftop meadows in two cities]."
    ]
    assert index.by_identifier("doi", "10.5555/invented.idx.7") == revised
    assert index.by_identifier("pmid", "90000005") == []  # DeleteCitation
    # PMID version 2 wins over version 1, though version 1 came later in the file; and the
    # DOI it names joins the OpenAlex work.
    versions = index.by_identifier("pmid", "90000006")
    assert _sources(versions) == ["pubmed", "openalex"]
    assert (
        versions[0].title == "Mycorrhizal networks under INVENTED orchard cover crops (version 2)."
    )
    assert index.search("Pollinator rooftop meadows", limit=5)[0][0].pmid == "90000004"
    assert all(r.pmid != "90000005" for r, _ in index.search("duplicate INVENTED record"))
    # Applying the same file again reads nothing.
    again = update_index(fresh_copy, [update_file])
    assert again.files == 0 and again.passed_over


def test_a_newer_retraction_watch_file_replaces_the_older(fresh_copy: Path, tmp_path: Path) -> None:
    newer = tmp_path / "rw" / "retraction_watch.csv"
    newer.parent.mkdir()
    rows = (Path(__file__).parent / "dumps" / "retraction_watch.csv").read_text().splitlines()
    newer.write_text("\n".join([rows[0], rows[1]]) + "\n")  # the concern row is gone
    index = open_index(fresh_copy)
    assert any(n.source == "retractionwatch" for n in index.notices("doi:10.5555/invented.idx.6"))
    update_index(fresh_copy, [newer])
    assert not any(
        n.source == "retractionwatch" for n in index.notices("doi:10.5555/invented.idx.6")
    )
    assert any(n.source == "retractionwatch" for n in index.notices("doi:10.5555/invented.idx.2"))


def test_files_given_in_a_folder_that_are_no_dumps_are_passed_over(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "downloads"
    publish("pubmed26n0001.xml", folder / "pubmed26n0001.xml.gz", True)
    (folder / "pubmed26n0001.xml.gz.md5").write_text("MD5(pubmed26n0001.xml.gz)= 0\n")
    (folder / "README.html").write_text("<html><body>readme</body></html>")
    report = build_index(tmp_path / "idx", [folder])
    assert report.files == 1 and len(report.passed_over) == 2


@pytest.mark.parametrize("case", ["not empty", "finished", "update without index", "no dump"])
def test_a_build_refuses_folders_it_would_spoil(case: str, published: Path, tmp_path: Path) -> None:
    directory = tmp_path / "idx"
    if case == "not empty":
        directory.mkdir()
        (directory / "thesis.tex").write_text("mine")
        with pytest.raises(BadInputError, match="not empty"):
            build_index(directory, [published])
        assert (directory / "thesis.tex").read_text() == "mine"
    elif case == "finished":
        build_index(directory, [published / "pubmed"])
        with pytest.raises(BadInputError, match="already holds a finished index"):
            build_index(directory, [published / "pubmed"])
    elif case == "update without index":
        with pytest.raises(BadInputError, match="no local index to update"):
            update_index(directory, [published / "pubmed"])
    else:
        (tmp_path / "notes.txt").write_text("hello")
        with pytest.raises(BadInputError, match="not a metadata dump"):
            build_index(directory, [tmp_path / "notes.txt"])


def test_a_stopped_build_resumes_only_with_the_same_files(published: Path, tmp_path: Path) -> None:
    directory = tmp_path / "idx"
    build_index(directory, [published / "pubmed"])
    connection = sqlite3.connect(directory / "index.sqlite3")
    connection.execute("UPDATE meta SET value = 'building' WHERE key = 'state'")
    connection.commit()
    connection.close()
    (directory / "manifest.json").unlink()
    with pytest.raises(BadInputError, match="unfinished build of other files"):
        build_index(directory, [published / "crossref"])
    with pytest.raises(BadInputError, match="unfinished build"):
        update_index(directory, [published / "pubmed"])


def test_dumps_inside_a_tar_and_a_parallel_build_give_the_same_index(
    published: Path, built: Path, tmp_path: Path
) -> None:
    report = build_index(tmp_path / "parallel", [published], workers=2)
    assert report.workers == 2
    parallel = open_index(tmp_path / "parallel")
    serial = open_index(built)
    assert parallel.manifest.counts == serial.manifest.counts
    for key in ("doi:10.5555/invented.idx.1", "arxiv:1901.00001", "pmid:90000002"):
        kind, value = key.split(":", 1)
        assert parallel.by_identifier(kind, value) == serial.by_identifier(kind, value)
