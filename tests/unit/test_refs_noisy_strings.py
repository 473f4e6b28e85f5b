"""Real reference strings that extraction, OCR or a thin style left noisy, and a real work
behind each: none of them may be called a problem for the noise alone (issue 22, points 2
and 3).  Every record and entry is INVENTED, in the printed forms real lists have (AIP's
``Authors, Venue Vol, Page (Year).``, ACS's ``Authors. Venue Year, Vol, Pages.``).
"""

from __future__ import annotations

import pytest

from citeproof.models.references import WorkRecord
from citeproof.refs.decide import IdentifierEvidence, SearchEvidence, decide
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.numbers import cited_year
from citeproof.refs.scoring import score

ORCHARD = WorkRecord(
    source="crossref",
    doi="10.5555/invented.orchard",
    title="Learning invented pruning rules for hillside orchards",
    authors=("Takahama, Tetsu", "Sakai, Setsu"),
    year=2003,
    venue="Systems and Computers in Invented Lands",
    volume="34",
    issue="6",
    pages="80-90",
)
GARDEN = WorkRecord(
    source="crossref",
    doi="10.5555/invented.garden",
    title="Thinking compost through the law of allotments",
    authors=("Russell, Yvonne",),
    year=2013,
    venue="Law and Critique of Gardens",
    volume="24",
    issue="3",
    pages="255-275",
)
CHAPTER = WorkRecord(
    source="crossref",
    doi="10.5555/invented.chapter",
    title="Invented fieldwork codes for moorland surveys",
    authors=("Finkl, Charles W.",),
    venue="Encyclopedia of Invented Moorlands",
    pages="240-243",
    kind="book-chapter",
)


def _found(*records: WorkRecord) -> list[SearchEvidence]:
    return [SearchEvidence("crossref", True, records)]


# ------------------------------------------------------------------ a page read as the year


@pytest.mark.parametrize(
    "text",
    [
        "1 H. Wu, Invented Control Letters 4, 1775 (20N0).",  # AIP, the year garbled
        "Wu H. Invented Control Letters. 4:1775.",  # Vancouver without its year
    ],
)
def test_a_first_page_after_the_volume_is_not_the_year(text: str) -> None:
    assert cited_year(text) is None
    assert parse_reference_string(text).year is None


def test_a_year_where_the_style_prints_it_is_still_read() -> None:
    assert parse_reference_string("Wu H. Invented Control Letters. 2010;4:1775.").year == 2010
    assert parse_reference_string("1 H. Wu, Invented Control Letters 4, 1775 (2010).").year == (
        2010
    )


def test_a_garbled_year_leaves_the_coordinates_to_decide() -> None:
    record = GARDEN.model_copy(update={"venue": "Invented Control Letters", "pages": "1775-84"})
    record = record.model_copy(update={"volume": "4", "authors": ("Wu, Hong",), "year": 2010})
    got = decide(
        parse_reference_string("1 H. Wu, Invented Control Letters 4, 1775 (20N0)."),
        [],
        _found(record),
    )
    assert got.verdict == "verified", got.reason


# ------------------------------------------------------------------ words OCR broke or glued


@pytest.mark.parametrize(
    "text",
    [
        # the venue's words broken and glued, a letter wrong here and there
        "1 T. Takahama and S.gSakai, hystems and Computersin Invented Lamds 34, 80 (2003).",
        "1 T. Takahama and S.gSakai, Sys tems andComputers inInvent ed Lamds 34, 80 (2003).",
    ],
)
def test_a_noisy_title_less_entry_is_not_given_a_title_that_differs(text: str) -> None:
    got = score(parse_reference_string(text), ORCHARD)
    assert got.field("title").agreement != "differs"
    assert got.fit == "match", got.decided_by


def test_a_title_printed_on_the_same_coordinates_still_differs() -> None:
    """A chimera: another work's title on this work's authors, venue and numbers."""
    text = (
        "1 T. Takahama and S. Sakai, Grazing invented goats on terraced vineyards, "
        "Systems and Computers in Invented Lands 34, 80 (2003)."
    )
    got = decide(parse_reference_string(text), [], _found(ORCHARD))
    assert got.verdict == "partial", got.reason


# ------------------------------------------------------------------ too close to accuse


def test_author_volume_and_page_agreeing_is_no_accusation() -> None:
    """The year and the venue garbled ("(20N3)", "Paw and CriIique"): the record agrees
    with the first author, the volume and the first page and contradicts nothing."""
    text = "1 Y. Russell, Paw and CriIique of Gardens 24, 255 (20N3)."
    got = decide(parse_reference_string(text), [], _found(GARDEN))
    assert got.verdict == "unchecked", got.reason


def test_a_chapter_cited_without_a_year_is_no_accusation() -> None:
    text = "1 C.W. Finkl, Invented Geology 240 (n.d.)."
    got = decide(parse_reference_string(text), [], _found(CHAPTER))
    assert got.verdict == "unchecked", got.reason


def test_another_first_page_of_the_same_author_is_still_not_found() -> None:
    text = "1 C.W. Finkl, Invented Geology 517 (n.d.)."
    got = decide(parse_reference_string(text), [], _found(CHAPTER))
    assert got.verdict == "not_found", got.reason


# ------------------------------------------------------------------ identifiers are no title

MUSCLE = WorkRecord(
    source="crossref",
    doi="10.5555/ajpcell.1990.259.3.c409",
    title="Influence of invented turnover on glycolysis in vole muscle",
    authors=("Sahlin, K.", "Gorski, J.", "Edstrom, L."),
    year=1990,
    venue="Invented Journal of Physiology-Cell Physiology",
    volume="259",
    issue="3",
    pages="C409-C412",
)


def test_a_doi_and_article_numbers_are_not_read_as_a_title() -> None:
    text = (
        "(1) Sahlin, K.; Gorski, J.; Edstrom, L. Invented Journal of Physiology-Cell Physiology "
        "1990, 259, C409–C412. DOI: 10.5555/ajpcell.1990.259.3.c409."
    )
    stated = parse_reference_string(text)
    ids = [IdentifierEvidence(f"doi:{MUSCLE.doi}", True, (MUSCLE,))]
    got = decide(stated, ids, [])
    assert got.verdict == "verified", got.reason


# ------------------------------------------------------------------ a first letter misread

ROSACEA = WorkRecord(
    source="crossref",
    doi="10.5555/invented.rosacea",
    title="Structure evolution across the invented phase boundary of doped garden ceramics",
    authors=("Shi, Xin Xin", "Liu, Xiao Qiang", "Chen, Xiang Ming"),
    year=2016,
    venue="Journal of Invented Physics",
    volume="119",
    issue="6",
    pages="064104",
)


@pytest.mark.parametrize(
    "text",
    [
        # the string the parser could not split, its first author's first letter misread
        "Qhi, X.X., Liu,X. Q., & Che n, X. M. (2016). Structure evolution across the invented "
        "phase boundary of doped garden ceramics. Journal of Invented Physics, 119(6), 064104.",
        # parsed into fields
        "Qhi, X. X., Liu, X. Q., & Chen, X. M. (2016). Structure evolution across the invented "
        "phase boundary of doped garden ceramics. Journal of Invented Physics, 119(6), 064104.",
    ],
)
def test_a_misread_first_letter_with_the_title_and_year_verifies(text: str) -> None:
    got = decide(parse_reference_string(text), [], _found(ROSACEA))
    assert got.verdict == "verified", got.reason


def test_another_first_author_with_the_title_is_still_partial() -> None:
    text = (
        "Brown, K. (2016). Structure evolution across the invented phase boundary of doped "
        "garden ceramics. Journal of Invented Physics, 119(6), 064104."
    )
    got = decide(parse_reference_string(text), [], _found(ROSACEA))
    assert got.verdict == "partial", got.reason
