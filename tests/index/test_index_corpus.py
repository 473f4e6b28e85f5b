"""The real records of ``../shared/corpus`` through a whole build: Crossref ``works/{doi}``
messages packed as the public data file packs them, and E-utilities efetch answers (real
``PubmedArticleSet`` files, the format of the baseline), looked up and searched."""

from __future__ import annotations

import gzip
import json

import pytest

pytest.importorskip("tantivy", reason="the index extra (tantivy) is not installed")

from index_dumps import CORPUS, NO_CORPUS

from citeproof.index.build import build_index
from citeproof.index.query import LocalIndex, open_index


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory: pytest.TempPathFactory) -> LocalIndex:
    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    root = tmp_path_factory.mktemp("corpus")
    messages = [
        json.loads(p.read_bytes())["message"]
        for p in sorted((CORPUS / "crossref").glob("habanero-crossref-works-10.*.json"))
    ]
    (root / "crossref").mkdir()
    (root / "crossref" / "0.json.gz").write_bytes(
        gzip.compress(json.dumps({"items": messages}).encode())
    )
    (root / "pubmed").mkdir()
    for path in sorted((CORPUS / "eutils").glob("tekmeria-eutils-efetch-pubmed-*.xml")):
        (root / "pubmed" / f"{path.stem}.xml.gz").write_bytes(gzip.compress(path.read_bytes()))
    build_index(root / "idx", [root / "crossref", root / "pubmed"])
    return open_index(root / "idx")


def test_real_crossref_records_are_found_by_doi_and_by_reference(corpus_index: LocalIndex) -> None:
    (record,) = corpus_index.by_identifier("doi", "10.1371/journal.pone.0033693")
    assert record.source == "crossref" and record.title and record.authors
    first_author = record.authors[0].split(",")[0]
    hits = corpus_index.search(f"{first_author}. {record.title}. {record.venue}. {record.year}.")
    assert hits[0][0].doi == "10.1371/journal.pone.0033693"


def test_the_lancet_retraction_is_read_from_the_real_pubmed_record(
    corpus_index: LocalIndex,
) -> None:
    # Wakefield et al. 1998 (PMID 9500320): PubMed records its retraction.
    records = corpus_index.by_identifier("pmid", "9500320")
    assert records and records[0].year == 1998
    notices = corpus_index.notices("pmid:9500320")
    assert any(n.category == "retracted" and n.source == "pubmed" for n in notices)


def test_a_pmid_in_several_real_files_is_one_record(corpus_index: LocalIndex) -> None:
    # PMID 30831578 is in four of the corpus's efetch answers: the later file replaces.
    (record,) = corpus_index.by_identifier("pmid", "30831578")
    assert record.source == "pubmed" and record.doi
    assert corpus_index.by_identifier("doi", record.doi) == [record]
    assert corpus_index.manifest.counts["replaced_or_deleted"] >= 3
