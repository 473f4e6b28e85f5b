"""PubMed XML, ClinicalTrials.gov v2 JSON and openFDA label JSON parsers, on small inline inputs."""

from __future__ import annotations

import json

import pytest

import citeproof
from citeproof.documents.ctgov import parse_ctgov
from citeproof.documents.detect import detect_format, parse_bytes
from citeproof.documents.model import Document
from citeproof.documents.openfda import humanise, parse_openfda
from citeproof.documents.pubmed import CommentCorrection, parse_pubmed, pubmed_records
from citeproof.errors import DocumentError, UnsafeXMLError, UnsupportedFormatError

PUBMED = b"""<?xml version="1.0" ?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2025//EN"
 "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_250101.dtd">
<PubmedArticleSet>
<PubmedArticle>
  <MedlineCitation Status="MEDLINE" Owner="NLM">
    <PMID Version="1">9500320</PMID>
    <Article PubModel="Print">
      <Journal>
        <JournalIssue CitedMedium="Print"><Volume>351</Volume><Issue>9103</Issue>
          <PubDate><Year>1998</Year><Month>Feb</Month></PubDate></JournalIssue>
        <Title>Lancet (London, England)</Title>
      </Journal>
      <ArticleTitle>Ileal-lymphoid-nodular <i>hyperplasia</i> in children.</ArticleTitle>
      <Pagination><MedlinePgn>637-41</MedlinePgn></Pagination>
      <ELocationID EIdType="doi" ValidYN="Y">10.1016/elocation</ELocationID>
      <Abstract>
        <AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">We investigated a
          consecutive series of children with chronic enterocolitis.</AbstractText>
        <AbstractText Label="METHODS">Twelve children (mean age 6 years [range 3-10],
          11 boys) were referred to a paediatric clinic; CD4<sup>+</sup> counts were low.
        </AbstractText>
        <CopyrightInformation>Copyright 1998 The Lancet.</CopyrightInformation>
      </Abstract>
      <PublicationTypeList>
        <PublicationType UI="D016428">Journal Article</PublicationType>
        <PublicationType UI="D016441">Retracted Publication</PublicationType>
      </PublicationTypeList>
    </Article>
    <CommentsCorrectionsList>
      <CommentsCorrections RefType="RetractionIn">
        <RefSource>Lancet. 2010 Feb 6;375(9713):445.</RefSource><PMID Version="1">20137807</PMID>
      </CommentsCorrections>
      <CommentsCorrections RefType="ErratumIn"><RefSource>Lancet. 1998;351:1234.</RefSource>
      </CommentsCorrections>
    </CommentsCorrectionsList>
  </MedlineCitation>
  <PubmedData>
    <ArticleIdList>
      <ArticleId IdType="pubmed">9500320</ArticleId>
      <ArticleId IdType="doi">10.1016/s0140-6736(97)11096-0</ArticleId>
      <ArticleId IdType="pmc">PMC123</ArticleId>
    </ArticleIdList>
    <ReferenceList><Reference><Citation>Other work.</Citation>
      <ArticleIdList><ArticleId IdType="doi">10.9999/not-this-one</ArticleId></ArticleIdList>
    </Reference></ReferenceList>
  </PubmedData>
</PubmedArticle>
<PubmedArticle>
  <MedlineCitation><PMID>2</PMID><Article><ArticleTitle>Second.</ArticleTitle>
    <Abstract><AbstractText>An unstructured abstract of the second record here.</AbstractText>
    </Abstract></Article></MedlineCitation>
</PubmedArticle>
</PubmedArticleSet>
"""

BOOK = b"""<PubmedArticleSet><PubmedBookArticle><BookDocument>
  <PMID>20301295</PMID>
  <Book><BookTitle>GeneReviews</BookTitle></Book>
  <ArticleTitle>Cystic Fibrosis</ArticleTitle>
  <Abstract><AbstractText Label="CLINICAL CHARACTERISTICS">Cystic fibrosis affects the
    epithelia of the respiratory tract and exocrine pancreas.</AbstractText></Abstract>
  <PublicationType UI="D000072">Review</PublicationType>
</BookDocument>
<PubmedBookData><ArticleIdList><ArticleId IdType="bookaccession">NBK1250</ArticleId>
</ArticleIdList></PubmedBookData></PubmedBookArticle></PubmedArticleSet>"""


def block_texts(doc: Document) -> list[tuple[str, str, tuple[str, ...], str]]:
    return [(b.kind, b.region, b.section, doc.text[b.start : b.end]) for b in doc.blocks]


# --- PubMed ---------------------------------------------------------------------------------


def test_pubmed_first_record_title_structured_abstract_and_journal() -> None:
    doc = parse_pubmed(PUBMED)
    assert doc.format == "pubmed"
    assert block_texts(doc) == [
        ("title", "title", (), "Ileal-lymphoid-nodular hyperplasia in children."),
        (
            "paragraph",
            "abstract",
            ("Abstract", "BACKGROUND"),
            "We investigated a consecutive series of children with chronic enterocolitis.",
        ),
        (
            "paragraph",
            "abstract",
            ("Abstract", "METHODS"),
            "Twelve children (mean age 6 years [range 3-10], 11 boys) were referred to a "
            "paediatric clinic; CD4+ counts were low.",
        ),
        ("copyright", "front-matter", ("Abstract",), "Copyright 1998 The Lancet."),
        ("journal", "front-matter", (), "Lancet (London, England). 1998;351(9103):637-41"),
    ]
    assert "Second." not in doc.text


def test_pubmed_meta_prefers_the_records_own_article_ids() -> None:
    meta = parse_pubmed(PUBMED).meta
    assert meta.title == "Ileal-lymphoid-nodular hyperplasia in children."
    assert meta.pmid == "9500320"
    assert meta.doi == "10.1016/s0140-6736(97)11096-0"
    assert meta.pmcid == "PMC123"


def test_pubmed_doi_falls_back_to_elocation_id() -> None:
    data = PUBMED.replace(b'<ArticleId IdType="doi">10.1016/s0140-6736(97)11096-0</ArticleId>', b"")
    assert parse_pubmed(data).meta.doi == "10.1016/elocation"


def test_pubmed_abstract_quote_is_exact_in_the_abstract() -> None:
    doc = parse_bytes(PUBMED)
    result = citeproof.check("were referred to a paediatric clinic; CD4+ counts were low", doc)
    assert result.verdict == "EXACT"
    assert result.matches[0].location.region == "abstract"
    assert result.matches[0].location.section == ["Abstract", "METHODS"]


def test_pubmed_records_list_every_record_with_types_and_corrections() -> None:
    first, second = pubmed_records(PUBMED)
    assert first.pmid == "9500320"
    assert first.title == "Ileal-lymphoid-nodular hyperplasia in children."
    assert first.publication_types == ["Journal Article", "Retracted Publication"]
    assert first.comments_corrections == [
        CommentCorrection("RetractionIn", "20137807", "Lancet. 2010 Feb 6;375(9713):445."),
        CommentCorrection("ErratumIn", None, "Lancet. 1998;351:1234."),
    ]
    assert first.doi == "10.1016/s0140-6736(97)11096-0"
    assert (second.pmid, second.publication_types, second.comments_corrections) == ("2", [], [])


def test_pubmed_book_article() -> None:
    doc = parse_bytes(BOOK)
    assert doc.format == "pubmed"
    assert doc.meta.pmid == "20301295"
    assert doc.meta.title == "Cystic Fibrosis"
    assert doc.blocks[1].section == ("Abstract", "CLINICAL CHARACTERISTICS")
    assert pubmed_records(BOOK)[0].publication_types == ["Review"]


def test_pubmed_without_abstract_has_title_only() -> None:
    data = b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID><Article>"
    data += b"<ArticleTitle>Only a title.</ArticleTitle></Article></MedlineCitation>"
    data += b"</PubmedArticle></PubmedArticleSet>"
    doc = parse_pubmed(data)
    assert doc.text == "Only a title."
    assert [b.region for b in doc.blocks] == ["title"]


def test_pubmed_empty_set_and_other_roots_are_refused() -> None:
    with pytest.raises(UnsupportedFormatError, match="no PubmedArticle"):
        parse_pubmed(b"<PubmedArticleSet></PubmedArticleSet>")
    with pytest.raises(UnsupportedFormatError, match="<eSearchResult>"):
        parse_pubmed(b"<eSearchResult><Count>0</Count></eSearchResult>")


def test_pubmed_entity_declarations_are_refused() -> None:
    evil = b'<!DOCTYPE PubmedArticleSet [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    evil += b"<PubmedArticleSet>&x;</PubmedArticleSet>"
    with pytest.raises(UnsafeXMLError):
        parse_bytes(evil)


# --- ClinicalTrials.gov -----------------------------------------------------------------------

STUDY_TITLE = "Drug X in Adults With Heart Failure"
ORG = "Example University"
STUDY = {
    "protocolSection": {
        "identificationModule": {
            "nctId": "NCT01234567",
            "briefTitle": STUDY_TITLE,
            "organization": {"fullName": "Example University", "class": "OTHER"},
        },
        "statusModule": {"overallStatus": "COMPLETED", "startDateStruct": {"date": "2020-09"}},
        "descriptionModule": {
            "briefSummary": "This trial tests drug X.  It enrolls   adults with heart failure.",
        },
        "designModule": {"phases": ["PHASE3"], "enrollmentInfo": {"count": 2401}},
        "eligibilityModule": {
            "eligibilityCriteria": "Inclusion Criteria:\n\n* Age 18 years or older\n* NYHA II",
            "healthyVolunteers": False,
        },
        "outcomesModule": {
            "primaryOutcomes": [{"measure": "Time to death", "timeFrame": "2 months"}],
        },
        "referencesModule": {"references": [{"pmid": "1", "citation": "Smith J. A trial."}]},
    },
    "derivedSection": {"conditionBrowseModule": {"meshes": [{"term": "Heart Failure"}]}},
    "hasResults": False,
}


def test_ctgov_one_block_per_prose_field_with_module_and_field_path() -> None:
    doc = parse_ctgov(json.dumps(STUDY).encode())
    assert doc.format == "ctgov"
    assert doc.meta.title == "Drug X in Adults With Heart Failure"
    assert block_texts(doc) == [
        ("identifier", "front-matter", ("identificationModule", "nctId"), "NCT01234567"),
        ("title", "title", ("identificationModule", "briefTitle"), STUDY_TITLE),
        ("field", "front-matter", ("identificationModule", "organization.fullName"), ORG),
        (
            "paragraph",
            "body",
            ("descriptionModule", "briefSummary"),
            "This trial tests drug X. It enrolls adults with heart failure.",
        ),
        (
            "paragraph",
            "body",
            ("eligibilityModule", "eligibilityCriteria"),
            "Inclusion Criteria:\n* Age 18 years or older\n* NYHA II",
        ),
        ("paragraph", "body", ("outcomesModule", "primaryOutcomes.measure"), "Time to death"),
        ("paragraph", "body", ("outcomesModule", "primaryOutcomes.timeFrame"), "2 months"),
        (
            "reference",
            "references",
            ("referencesModule", "references.citation"),
            "Smith J. A trial.",
        ),
    ]
    assert "COMPLETED" not in doc.text and "2401" not in doc.text


def test_ctgov_page_reads_the_first_study_and_summary_is_exact() -> None:
    page = json.dumps({"studies": [STUDY, {"protocolSection": {}}], "nextPageToken": "x"})
    doc = parse_bytes(page.encode())
    assert doc.format == "ctgov"
    result = citeproof.check("It enrolls adults with heart failure.", doc)
    assert result.verdict == "EXACT"
    assert result.matches[0].location.section == ["descriptionModule", "briefSummary"]


def test_ctgov_empty_page_and_bad_json_are_clear_errors() -> None:
    with pytest.raises(DocumentError, match="no study"):
        parse_bytes(b'{"studies": []}')
    with pytest.raises(UnsupportedFormatError, match="protocolSection"):
        parse_ctgov(b'{"studies": [{"x": 1}]}')
    with pytest.raises(DocumentError, match="not well-formed"):
        parse_ctgov(b'{"protocolSection": ')


# --- openFDA ----------------------------------------------------------------------------------

LABEL_BOXED = "WARNING: BLEEDING RISK Drug Y can cause major or fatal bleeding."
LABEL = {
    "meta": {"results": {"skip": 0, "limit": 1, "total": 1}},
    "results": [
        {
            "set_id": "7c4deb97-9966-4c8e-9ba6-bb260b71e130",
            "id": "abc",
            "version": "3",
            "effective_time": "20240101",
            "boxed_warning": [LABEL_BOXED],
            "indications_and_usage": ["1 INDICATIONS AND USAGE Drug Y is indicated for", "AF."],
            "warnings": ["Monitor INR   regularly in all treated patients."],
            "drug_interactions_table": ["<table><tr><td>x</td></tr></table>"],
            "spl_product_data_elements": ["Drug Y WARFARIN SODIUM LACTOSE"],
            "openfda": {"brand_name": ["Brandy"], "generic_name": ["DRUG Y"]},
        }
    ],
}


def test_openfda_one_block_per_label_section() -> None:
    doc = parse_openfda(json.dumps(LABEL).encode())
    assert doc.format == "openfda"
    assert doc.meta.title == "Brandy"
    assert block_texts(doc) == [
        ("section", "body", ("Boxed warning",), LABEL_BOXED),
        (
            "section",
            "body",
            ("Indications and usage",),
            "1 INDICATIONS AND USAGE Drug Y is indicated for\nAF.",
        ),
        ("section", "body", ("Warnings",), "Monitor INR regularly in all treated patients."),
    ]
    for left_out in ("7c4deb97", "20240101", "<table", "Brandy", "LACTOSE"):
        assert left_out not in doc.text


def test_openfda_warning_sentence_is_exact_and_title_falls_back_to_generic() -> None:
    label = json.loads(json.dumps(LABEL))
    del label["results"][0]["openfda"]["brand_name"]
    doc = parse_bytes(json.dumps(label).encode())
    assert doc.meta.title == "DRUG Y"
    result = citeproof.check("Monitor INR regularly in all treated patients.", doc)
    assert result.verdict == "EXACT"
    assert result.matches[0].location.section == ["Warnings"]


def test_openfda_empty_results_is_a_clear_error() -> None:
    with pytest.raises(DocumentError, match="no drug label"):
        parse_openfda(b'{"meta": {}, "results": []}')


@pytest.mark.parametrize(
    ("field", "title"),
    [
        ("indications_and_usage", "Indications and usage"),
        ("spl_medguide", "SPL medguide"),
        ("boxed_warning", "Boxed warning"),
    ],
)
def test_humanise(field: str, title: str) -> None:
    assert humanise(field) == title


# --- detection --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "fmt"),
    [
        (PUBMED, "pubmed"),
        (b"<PubmedArticleSet><PubmedArticle/></PubmedArticleSet>", "pubmed"),
        (json.dumps(STUDY).encode(), "ctgov"),
        (b'  \n{"studies": []}', "ctgov"),
        (json.dumps(LABEL).encode(), "openfda"),
        (b"{Draft} notes that only look like JSON.", "text"),
    ],
)
def test_detection_routes_records(data: bytes, fmt: str) -> None:
    assert detect_format(data, name="answer.txt") == fmt


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b'{"error": {"code": "NOT_FOUND"}}', "keys error"),
        (b'{"results": []}', "keys results"),
        (b'{"esearchresult": {"count": "0"}}', "keys esearchresult"),
    ],
)
def test_other_json_is_refused_naming_its_keys(data: bytes, what: str) -> None:
    with pytest.raises(UnsupportedFormatError, match=what) as excinfo:
        parse_bytes(data)
    assert "ClinicalTrials.gov" in str(excinfo.value) and "openFDA" in str(excinfo.value)
