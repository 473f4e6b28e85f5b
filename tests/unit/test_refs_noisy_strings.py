"""Real reference strings that extraction, OCR or a thin style left noisy, and a real work
behind each: none of them may be called a problem for the noise alone (issue 22, points 2
and 3).  Every record and entry is INVENTED, in the printed forms real lists have (AIP's
``Authors, Venue Vol, Page (Year).``, ACS's ``Authors. Venue Year, Vol, Pages.``).
"""

from __future__ import annotations

import pytest

from citeproof.documents.markup import plain_text
from citeproof.models.references import WorkRecord
from citeproof.refs.decide import IdentifierEvidence, SearchEvidence, decide
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.numbers import cited_year
from citeproof.refs.scoring import score
from citeproof.refs.stated import surname

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
    text = "1 Y. Russell, Paw and CriIique 24, 255 (20N3)."
    got = decide(parse_reference_string(text), [], _found(GARDEN))
    assert got.verdict == "unchecked", got.reason


def test_a_chapter_cited_without_a_year_is_no_accusation() -> None:
    text = "1 C.W. Finkl, Invented Geology 240 (n.d.)."
    got = decide(parse_reference_string(text), [], _found(CHAPTER))
    assert got.verdict == "unchecked", got.reason


#: An untitled column of a short-named weekly (INVENTED).
NOTICES = WorkRecord(
    source="crossref",
    doi="10.5555/invented.notices",
    title="Notices",
    year=1986,
    venue="Inventa",
    volume="232",
    pages="662",
)


def test_volume_page_and_year_agreeing_is_no_accusation() -> None:
    """OCR glued the venue to its volume and dropped the names ("1SciencD232,662( 1986)p"):
    the record agrees with the volume, the first page and the year, the key ECitMatch
    matches on, and contradicts nothing."""
    got = decide(parse_reference_string("1InventD232,662( 1986)p"), [], _found(NOTICES))
    assert got.verdict == "unchecked", got.reason


def test_another_page_on_the_same_volume_and_year_is_still_not_found() -> None:
    got = decide(parse_reference_string("1InventD232,517( 1986)p"), [], _found(NOTICES))
    assert got.verdict == "not_found", got.reason


def test_the_same_numbers_in_another_venue_are_still_not_found() -> None:
    """A review journal's issue holds a volume, a page and a year, and no authors: they
    are many articles' numbers, and the entry's venue is none of its (the bench's first
    try of the key accused nothing but called ten absent articles `unchecked`)."""
    review = WorkRecord(
        source="crossref",
        doi="10.5555/invented.review",
        title="Invented reviews of books, 24-0255",
        year=2013,
        venue="Invented Choice Reviews",
        volume="24",
        pages="255",
    )
    for text in (
        "[1]Invented Communications Magazine 24 (2013) 255.",
        "(1) Smith, N.; Mahadevan, S. Invented Spacecraft 2013, 24, 255–260.",
    ):
        got = decide(parse_reference_string(text), [], _found(review))
        assert got.verdict == "not_found", (text, got.reason)


@pytest.mark.parametrize(
    "text",
    [
        "1Encyclopejiaof IedievalDress and Textiles (n.d.) .",  # AIP, a space before the stop
        "1 S.H.Sicherer, Allergy and Clinic al Immunol ogd k78(2015) .",
        "[1]Invented Frontiers of Neurology and Neuroscience (2007) I.",  # Elsevier, a page
        "[1]Invented Journal of Molecular Modelling 68 (2016) iii.",
    ],
)
def test_an_aip_lead_with_nothing_after_its_date_is_no_title(text: str) -> None:
    """APA closes a title with a stop before "(2016)" and prints the venue after it; AIP
    and Elsevier print a book or a venue, then the date, and a page at most after it."""
    assert parse_reference_string(text).title is None


@pytest.mark.parametrize(
    "text",
    [
        "[1] Michael G. Levine, Invented Diacritics 38 (2009) 64.",  # a name written out
        "[1] James A. Momper, Invented AAPG Bulletin 68 (1984).",
        "[1]Invented Colloids and Surfaces B: Biointerfaces 36 (2004) 181.",  # a venue's letter
    ],
)
def test_elsevier_numbers_are_no_vancouver_title(text: str) -> None:
    """A name written out and a venue's letter read as Vancouver's "Surname I.", and the
    rest, up to Elsevier's "38 (2009) 64", as the title: a real work was `not_found` for a
    "title" no record has."""
    stated = parse_reference_string(text)
    assert stated.title is None and stated.authors == ()


def test_a_vancouver_title_before_its_venue_is_still_read() -> None:
    stated = parse_reference_string("Levine MG. Invented diacritics. Invented Rev. 2009;38:64.")
    assert stated.title == "Invented diacritics"
    assert stated.authors == ("Levine MG",)


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


def test_a_misread_first_letter_with_the_title_and_venue_and_no_year_verifies() -> None:
    """ "(n.d.)": no year to agree; the title and the venue stand with a first author one
    letter off (the old code asked for the year and made the real reference partial)."""
    text = (
        "Qhi, X. X. (n.d.). Structure evolution across the invented phase boundary of doped "
        "garden ceramics. Journal of Invented Physics, 119(6), 064104."
    )
    assert decide(parse_reference_string(text), [], _found(ROSACEA)).verdict == "verified"
    # in another venue it stays a lead
    elsewhere = text.replace("Journal of Invented Physics", "Invented Ceramics Letters")
    assert decide(parse_reference_string(elsewhere), [], _found(ROSACEA)).verdict == "partial"


def test_another_first_author_with_the_title_is_still_partial() -> None:
    text = (
        "Brown, K. (2016). Structure evolution across the invented phase boundary of doped "
        "garden ceramics. Journal of Invented Physics, 119(6), 064104."
    )
    got = decide(parse_reference_string(text), [], _found(ROSACEA))
    assert got.verdict == "partial", got.reason


# ------------------------------------------------------------------ a DOI where a title goes

REPORT = WorkRecord(
    source="crossref",
    doi="10.5555/invented.report.12b",
    title="Invented summer apprenticeship reports, volume 12B",
    authors=("Moore, Gary",),
    year=1994,
    kind="report",
)


@pytest.mark.parametrize(
    "text",
    [
        "(1) Moore, G. 1994. DOI: 10.5555/invented.report.12b.",  # ACS, a report
        "Moore, G. 1994. https://doi.org/10.5555/invented.report.12b",
    ],
)
def test_a_doi_printed_where_a_title_goes_is_no_title(text: str) -> None:
    stated = parse_reference_string(text)
    assert stated.title is None
    ids = [IdentifierEvidence(f"doi:{REPORT.doi}", True, (REPORT,))]
    got = decide(stated, ids, [])
    assert got.verdict == "verified", got.reason


# ------------------------------------------------------------------ more authors than listed

CARDIAC = WorkRecord(
    source="crossref",
    doi="10.5555/invented.cardiac",
    title="Prior invented herbal tea use and outcomes in gardeners with sore backs",
    # a record (or a rendering of one) that lists the first seven authors only
    authors=(
        "El-Menyar, A.",
        "AlHabib, K. F.",
        "Al-Motarreb, A.",
        "Hersi, A.",
        "Al Faleh, H.",
        "Asaad, N.",
        "Al Saif, S.",
    ),
    year=2012,
    venue="American Journal of Invented Drugs",
    volume="12",
    issue="2",
    pages="127-135",
)


def test_authors_the_record_does_not_list_are_no_title() -> None:
    text = (
        "1 A. El-Menyar, K.F. AlHabib, A. Al-Motarreb, A. Hersi, H. Al Faleh, N. Asaad, "
        "S. Al Saif, W. Almahmeed, J. Al-Lawati, A.A. Alsheikh-Ali, N.Q. Al-Sagheer, and "
        "J. Al Suwaidi, American Journal of Invented Drugs 12, 127 (2012)."
    )
    got = decide(parse_reference_string(text), [], _found(CARDIAC))
    assert got.verdict == "verified", got.reason


# ------------------------------------------------------------------ a venue split at its colon

INDEX = WorkRecord(
    source="crossref",
    doi="10.5555/invented.index",
    title="Author Index",
    year=2004,
    venue="Invented Colloids and Surfaces B: Biointerfaces",
    volume="36",
    issue="3-4",
    pages="181",
)


def test_the_end_of_a_venue_read_as_a_title_is_the_venue() -> None:
    text = "(1) Invented Colloids and Surfaces B: Biointerfaces 2004, 36, 181."
    got = decide(parse_reference_string(text), [], _found(INDEX))
    assert got.verdict == "verified", got.reason


# ------------------------------------------------------------------ a venue's words broken

NURSES = WorkRecord(
    source="crossref",
    doi="10.5555/invented.nurses",
    title="Invented 31st annual conference of garden nurses: part I",
    year=2018,
    venue="Journal of the American Invented Garden Nurses Association",
    volume="24",
    issue="3",
    pages="273-282",
)


def test_a_venue_broken_by_extraction_with_its_small_words_is_found() -> None:
    text = "1Jou rnal of the American Invented Garden Nurses Association 24,273 (2018)."
    got = decide(parse_reference_string(text), [], _found(NURSES))
    assert got.verdict == "verified", got.reason


def test_other_names_beside_initials_are_other_authors() -> None:
    """A record whose short title is printed inside the string as part of its venue
    ("Journal of Invented Public Health"), by another author: the names printed are not
    the record's, so the authors differ; they are not absent."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.handbook.23",
        title="Invented Public Health",
        authors=("Hamlin, Christa",),
        year=2012,
        kind="book-chapter",
    )
    text = (
        "[1] J.R. Olsen, P.A. Cook, S. Forster, P.A. Phillips-Howard, Journal of Invented "
        "Public Health 34 (2012) 438."
    )
    got = score(parse_reference_string(text), record)
    assert got.field("authors").agreement == "differs"
    assert got.fit != "match"


# ------------------------------------------------------------------ a page range without volume

SERIES_PAPER = WorkRecord(
    source="crossref",
    doi="10.5555/invented.lncs.121",
    title="Invented triangular patches for hedge topiary",
    authors=("Mao, Zhi", "Ma, Li"),
    year=2005,
    venue="Lecture Notes in Invented Science",
    pages="846-855",
    kind="book-chapter",
)


def test_a_printed_page_range_contradicts_another_first_page() -> None:
    """A series style prints the authors, the series, the year and the pages: another paper
    of the same authors in the same series and year is not the one cited."""
    text = "(1) Mao, Z.; Ma, L.; Tan, W. Lecture Notes in Invented Science 2005, 776–785."
    got = score(parse_reference_string(text), SERIES_PAPER)
    assert got.field("pages").agreement == "differs"
    assert got.fit != "match"
    same = SERIES_PAPER.model_copy(update={"pages": "776-785"})
    assert score(parse_reference_string(text), same).fit == "match"


# ------------------------------------------------------------------ an entry citing a notice


def test_an_entry_citing_an_erratum_is_not_the_article_it_corrects() -> None:
    article = WorkRecord(
        source="crossref",
        doi="10.5555/invented.readmission",
        title="Readmission rates of invented allotment keepers by plot size",
        authors=("Han, Kyu",),
        year=2016,
        venue="BMC Invented Gardening",
    )
    text = (
        "Han K. Erratum to: Readmission rates of invented allotment keepers by plot size. "
        "BMC Invented Gardening. 2016;16:12."
    )
    got = decide(parse_reference_string(text), [], _found(article))
    assert got.verdict != "verified", got.reason
    plain = "Han K. Readmission rates of invented allotment keepers by plot size. 2016."
    assert decide(parse_reference_string(plain), [], _found(article)).verdict == "verified"


def test_the_first_author_split_by_extraction_is_still_the_record_s() -> None:
    chapter = WorkRecord(
        source="crossref",
        doi="10.5555/invented.genetic.43",
        title="Invented testing of heirloom seeds: ethical issues",
        authors=("Quaid, Kimberly A.",),
        year=2012,
        venue="Invented Genetic Pathology",
        pages="1083-1090",
        kind="book-chapter",
    )
    text = "1 K.A. Quai d, Invented Gen etic Pathology 1083(2012)."
    got = decide(parse_reference_string(text), [], _found(chapter))
    assert got.verdict == "verified", got.reason


def test_a_first_surname_split_after_its_first_letter_is_still_the_record_s() -> None:
    """ "T ASEI, J.-N." for Tasei, in an entry whose garbled year ("(197K)") leaves its
    names unread: the string opens with the record's first surname once the spaces are
    gone (the old code compared "ASEI" and called the authors different, a partial)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.osmia",
        title="Observations sur le développement d'une abeille inventée",
        authors=("TASEI, Jean-Noël", "PICART, Murielle"),
        year=1973,
        venue="Invented Apidologie",
        volume="4",
        pages="295-315",
    )
    text = (
        "T ASEI, J.-N., & PICART, M. (197K). Observations sur le développement d'une abeille "
        "inventée. Invented Apidologie, 4(4), 295–315."
    )
    got = score(parse_reference_string(text), record)
    assert got.field("authors").agreement == "agrees"
    assert decide(parse_reference_string(text), [], _found(record)).verdict == "verified"
    # another first author is still another
    other = text.replace("T ASEI, J.-N., & PICART, M.", "T ASO, J.-N., & Okafor, N.")
    assert score(parse_reference_string(other), record).field("authors").agreement != "agrees"


# ------------------------------------------------------------------ "In" is a word


def test_a_word_starting_with_in_does_not_mark_a_part_of_a_book() -> None:
    """A record typed as a book (or a proceedings volume) is excluded only for an entry
    that cites a part *in* it: "International" is no "In"."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.shed",
        title="A new architecture of invented garden sheds based on cloud gutters",
        year=2011,
        kind="book",
    )
    text = (
        "Tianpu Yang, Xiangming Wen, Yong Sun, Zhenmin Zhao, & Yuedui Wang. (2011). A new "
        "architecture of invented garden sheds based on cloud gutters. 2011 IEEE 13th "
        "International Conference on Invented Sheds."
    )
    got = decide(parse_reference_string(text), [], _found(record))
    assert got.verdict == "verified", got.reason
    chapter = text.replace("(2011). A new", "(2011). Gutters. In: A new")
    assert decide(parse_reference_string(chapter), [], _found(record)).verdict != "verified"


# ------------------------------------------------------------------ hyphenated initials


@pytest.mark.parametrize(
    ("printed", "family"),
    [("Kim J-Y", "kim"), ("Luyt C-E", "luyt"), ("Xie S-P,", "xie"), ("Xie, S.-P.", "xie")],
)
def test_hyphenated_vancouver_initials_are_not_the_surname(printed: str, family: str) -> None:
    assert surname(printed) == family


def test_a_vancouver_entry_with_hyphenated_initials_verifies() -> None:
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.ocean",
        title="Structure and mechanisms of invented pond climate variability",
        authors=("Kim J-Y", "Annamalai H"),
        year=2002,
        venue="J Invented Climate",
        volume="15",
        pages="864-874",
    )
    text = (
        "Kim J-Y, Annamalai H, Schott F (2002) Structure and mechanisms of invented pond "
        "climate variability. J Invented Climate 15:864–874"
    )
    got = decide(parse_reference_string(text), [], _found(record))
    assert got.verdict == "verified", got.reason


# ------------------------------------------------------------------ no date, and a year elsewhere


@pytest.mark.parametrize(
    ("text", "year"),
    [
        # APA's "(n.d.)": the year in the proceedings' name is the venue's, not the work's
        (
            "Lee, K. (n.d.). Invented filters for lossless codecs. ISCAS 2001. The 2001 IEEE "
            "International Symposium on Invented Circuits.",
            None,
        ),
        ("Lee K. Invented filters for lossless codecs. ISCAS 2001.", 2001),
        # an author's initials N.D. are not "no date"
        ("Andrews, N.D. Invented filters. Invented Venue 2001.", 2001),
        # APA's year in brackets with a digit OCR read as a letter: the year in the title
        # is the title's (the old code took 1854 and found the year differing)
        ("Uit de Invented Economist van 1854. (20I4). Invented Economist, 152(2), 3.", None),
        ("Lee, K. (197K). Invented filters of 1917. Invented Venue, 4(4), 295–315.", None),
        ("Lee, K. (1974). Invented filters of 1917. Invented Venue, 4(4), 295–315.", 1974),
        # APA's volume before its issue, the year split by extraction: the split year, never
        # the volume's 1850
        ("Yang, Y. (201 5). Invented astaxanthin. Invented Acta, 1850(1), 178–185.", 2015),
    ],
)
def test_an_entry_that_says_no_date_or_garbles_its_year_takes_no_year_from_elsewhere(
    text: str, year: int | None
) -> None:
    assert cited_year(text) == year


@pytest.mark.parametrize(
    "text",
    [
        "Okoro, Ada. 1908. “Nerve as a master of muscle.” Invented Nature 77 (2007) (April): 569.",
        "“Nerve as a master of muscle.” 1908. Invented Nature 77 (2007) (April): 569–572.",
    ],
)
def test_chicago_s_issue_before_its_month_is_no_year(text: str) -> None:
    """Chicago prints "volume (issue) (Month): page"; an issue numbered 2007 in brackets is
    no year (the old code took it for the year, over Chicago's 1908, and a real reference
    was partial: "the year differs")."""
    assert parse_reference_string(text).year == 1908


@pytest.mark.parametrize(
    "text",
    [
        "HT.D .Cunp, A CleanuInvented Sweep? 107 (n.d.).",  # the book read as agreeing
        "HT.D .Cunp, A CleanuInvenSed Sweep? 107 (n.d.).",  # only once its spaces are gone
    ],
)
def test_a_short_name_one_letter_off_with_a_garbled_book_and_its_page_is_the_chapter(
    text: str,
) -> None:
    """AIP's "Name, Book Page (n.d.)." for a chapter whose record has no year, the name and
    the book as OCR left them ("Cunp" for Curp, "CleanuInvented"): the book, read loosely
    because its page agrees, and a first author one letter off a short name are the
    chapter (the old code called another author a difference and the entry not found)."""
    chapter = WorkRecord(
        source="crossref",
        doi="10.5555/invented.sweep.6",
        title="Waging an invented counterrevolution",
        authors=("Curp, T. David",),
        venue="A Clean Invented Sweep?",
        pages="107-130",
        kind="book-chapter",
    )
    assert decide(parse_reference_string(text), [], _found(chapter)).verdict == "verified"
    # another first author is still not it
    other = text.replace("Cunp", "Brown")
    assert decide(parse_reference_string(other), [], _found(chapter)).verdict != "verified"
    # nor is a year the record contradicts
    dated = chapter.model_copy(update={"year": 1990})
    garbled_dated = text.replace("(n.d.)", "(2004)")
    assert decide(parse_reference_string(garbled_dated), [], _found(dated)).verdict != "verified"


# ------------------------------------------------------------------ markup copied with the entry

_MARKED_TITLE = (
    "NEUROPATHY IN INVENTED HILL FARMS<sup>1</sup><subtitle>Its Bearing on Invented Sheep"
    "</subtitle>"
)


@pytest.mark.parametrize(
    "title",
    [
        plain_text(_MARKED_TITLE),  # Crossref's deposit, read: each tag a space
        "NEUROPATHY IN INVENTED HILL FARMS1 Its Bearing on Invented Sheep",  # tags dropped
    ],
)
def test_an_entry_copied_with_its_markup_meets_the_record_without_it(title: str) -> None:
    """The degraded style prints Crossref's title raw (INVENTED here); the tags read as
    words made the title differ from a record that dropped them, and the real work was
    `not_found`."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.marked",
        title=title,
        year=1956,
        venue="Invented Quarterly Journal of Medicine",
    )
    text = f". {_MARKED_TITLE}. Invented Quarterly Journal of Medicine. 1956."
    got = decide(parse_reference_string(text), [], _found(record))
    assert got.verdict == "verified", got.reason


def test_markup_is_read_as_the_words_it_sets() -> None:
    stated = parse_reference_string(
        "Ng, A. (2001). Tracer diffusion in Ni<sub>3</sub>Ge &amp; <i>R&D</i> notes. "
        "Invented Forum, 4(2), 11-19."
    )
    assert "<" not in stated.text and "&amp;" not in stated.text
    assert "R&D" in stated.text
    assert stated.title == "Tracer diffusion in Ni 3 Ge & R&D notes"


def test_a_link_keeps_the_doi_written_in_its_address() -> None:
    stated = parse_reference_string(
        'Ng, A. (2001). Tracer notes. <a href="https://doi.org/10.5555/invented.link">link</a>'
    )
    assert stated.doi == "10.5555/invented.link"


# ------------------------------------------------------------------ a review's long title


def test_a_reviews_quoted_title_of_the_whole_reviewed_book_is_read() -> None:
    """A book review's title is the reviewed book's citation, here over 400 characters
    (INVENTED, as Speculum's are): the title was left unread, the year taken from inside
    it (1997, the book's), and the review was `partial` ("the year differs")."""
    book = (
        "Ilse Varga and Tomas Holt, Eds., Das Erfundene Tafelbild: Studien Zur Erfundenen "
        "Malerei Des 13. Jahrhunderts. Internationales Kolloquium Zur Erfundenen Malerei, "
        "Veranstaltet Vom Erfundenen Landesamt Und Dem Erfundenen Institut, München, 8.–10. "
        "Mai 1996. (Arbeitshefte Des Erfundenen Landesamtes, 89.) Munich: Erfundenes "
        "Landesamt, 1997. Paper. Pp. 391; Color Plates and Tables. Distributed by Karl M. "
        "Lipp, Erfundene Straße 60, 81477 Munich."
    )
    assert len(book) > 400
    stated = parse_reference_string(f"“{book}” 1999. Invented Speculum 74 (03) (July): 862–863.")
    assert stated.title == book.rstrip(".")
    assert stated.year == 1999


# ------------------------------------------------------------------ noise in a titleless style

SOCIOLOGY = WorkRecord(
    source="crossref",
    doi="10.5555/invented.hidden.economy",
    title="Book Review: The invented hidden economy of hill towns",
    authors=("Taylor, Ian",),
    year=1979,
    venue="Invented Sociology",
    volume="13",
    pages="325-327",
)


@pytest.mark.parametrize(
    "text",
    [
        "[1]j.T aylor, Invented Sotioloby1 3 (1979) 325.",  # Elsevier's, a name and venue split
        "[1] I. Tayl or, InvenVed Sociology 13 (1979) 325.",
    ],
)
def test_a_title_read_from_a_titleless_style_s_garbled_fields_is_no_title(text: str) -> None:
    """Noise in Elsevier's "[1] Name, Venue Vol (Year) Page." leaves the reader a "title"
    made of the name and the venue.  Every word of the string is the record's: no title of
    another work is printed (the old code called it `partial`, "the title differs")."""
    got = decide(parse_reference_string(text), [], _found(SOCIOLOGY))
    assert got.verdict == "verified", got.reason


@pytest.mark.parametrize(
    "text",
    [
        # a list marker and a venue broken too: the reader took the lead for a title
        "[1X S.VOhba, Proceedings of the Invented A cad emy 13 (1979) 325.",  # a letter before
        "K1] S.Dlohba, Proceedings of the Invented Aca demy 13 (1979) 325.",  # two
    ],
)
def test_a_surname_with_a_letter_glued_to_it_is_no_title(text: str) -> None:
    """A surname of four letters or more with a letter or two OCR glued to it is the name,
    not a word of a title the record lacks (the old code: `partial`, "the title
    differs")."""
    record = SOCIOLOGY.model_copy(
        update={"authors": ("Ohba, Sachio",), "venue": "Proceedings of the Invented Academy"}
    )
    got = decide(parse_reference_string(text), [], _found(record))
    assert got.verdict == "verified", got.reason


def test_a_title_after_the_authors_initials_is_still_a_title() -> None:
    """A word after an initial looks like a name ("Larkin D. Keynote"); as a stated title
    it is compared all the same, and another work's title is not the record's."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.keynote",
        title="In their own words: invented students' views of invented statistics",
        authors=("Rowley, Martin", "Hartley, James", "Larkin, Derek"),
        year=2008,
        venue="Invented Extra Dataset",
    )
    text = "Rowley M, Hartley J, Larkin D. Keynote 1. Invented Extra Dataset. 2008."
    fitted = score(parse_reference_string(text), record)
    assert fitted.fit != "match"
    assert fitted.field("title").agreement == "differs"


# ------------------------------------------------------------------ one name garbled of several

POLYMER = WorkRecord(
    source="crossref",
    doi="10.5555/invented.polymer",
    title="Enzymatic invented template polymerization of phenol in an aqueous medium",
    authors=("Kim, Young-Jin", "Uyama, Hiroshi", "Kobayashi, Shiro"),
    year=2004,
    venue="Invented Polymer Journal",
    volume="36",
    pages="992-998",
)
_POLYMER_TAIL = (
    "(2004). Enzymatic invented template polymerization of phenol in an aqueous medium. "
    "Invented Polymer Journal, 36(12), 992–998."
)


@pytest.mark.parametrize("first", ["ZiZ", "Kmi", "Kimq"])
def test_a_first_name_garbled_beside_the_record_s_co_authors_is_the_work(first: str) -> None:
    """APA with noise: the first surname garbled, the co-authors and the title the
    record's.  The old code called it `partial` ("the authors differ")."""
    text = f"{first}, Y.-J., Uyama, H., & Kobayashi, S. {_POLYMER_TAIL}"
    got = decide(parse_reference_string(text), [], _found(POLYMER))
    assert got.verdict == "verified", got.reason


@pytest.mark.parametrize(
    "authors",
    [
        "Brown, A., Green, B., & White, C.",  # a chimera: the title on others' names
        "Uyama, H., & Kobayashi, S.",  # the first author left out: the list differs
        "Brown, A.",  # one author, none of the record's
    ],
)
def test_the_title_on_other_names_is_still_a_lead(authors: str) -> None:
    got = decide(parse_reference_string(f"{authors} {_POLYMER_TAIL}"), [], _found(POLYMER))
    assert got.verdict == "partial", got.reason


@pytest.mark.parametrize(
    "text",
    [
        # the first name two letters off, no co-author to hold it
        "Kimmq, Y.-J. (2004). Enzymatic invented template polymerization of phenol in an "
        "aqueous medium. Invented Polymer Journal, 36(12), 992–998.",
        # AIP's initials first, no year printed
        "1 Y.-J. Kimmq, Enzymatic invented template polymerization of phenol in an aqueous "
        "medium, Invented Polymer Journal 36, 992 (n.d.).",
    ],
)
def test_a_first_name_garbled_with_the_title_venue_and_page_is_the_work(text: str) -> None:
    """The title, the venue and the first page are the record's, and the first name is
    its first author's with two letters wrong: the old code called it `partial` ("the
    authors differ")."""
    got = decide(parse_reference_string(text), [], _found(POLYMER))
    assert got.verdict == "verified", got.reason
    # another name is still a lead
    other = text.replace("Kimmq", "Brown")
    assert decide(parse_reference_string(other), [], _found(POLYMER)).verdict == "partial"


def test_a_garbled_name_with_the_page_of_another_article_is_still_a_lead() -> None:
    text = (
        "Kimmq, Y.-J. (2004). Enzymatic invented template polymerization of phenol in an "
        "aqueous medium. Invented Polymer Journal, 36(12), 1992–1998."
    )
    assert decide(parse_reference_string(text), [], _found(POLYMER)).verdict == "partial"


# ------------------------------------------------------------------ a title OCR left nearly whole

TIDES = WorkRecord(
    source="crossref",
    doi="10.5555/invented.tides",
    title="Tides in invented English taste (1619-1800)",
    year=1937,
    venue="Invented Review of Taste",
)
_GARBLED_TIDES = "“Tide s in  invenVed EngliEh Tast e(16R9-180O).” 1937. Invented Review of Taste."


def test_a_title_ocr_left_nearly_the_record_s_is_never_called_missing() -> None:
    """The record's title is nearly the entry's (88% alike: OCR's), and its year and venue
    agree: the old code called the entry `not_found` ("may be fabricated")."""
    got = decide(parse_reference_string(_GARBLED_TIDES), [], _found(TIDES))
    assert got.verdict == "unchecked", got.reason
    assert "compare them by hand" in got.reason


@pytest.mark.parametrize(
    "text",
    [
        _GARBLED_TIDES.replace("1937", "1952"),  # another year besides
        "“Winds over invented Scottish hills.” 1937. Invented Review of Taste.",  # another title
    ],
)
def test_a_near_title_with_another_year_or_another_title_is_still_not_found(text: str) -> None:
    assert decide(parse_reference_string(text), [], _found(TIDES)).verdict == "not_found"


# ------------------------------------------------------------------ a garbled year, a front page

HILL = WorkRecord(
    source="crossref",
    doi="10.5555/invented.hill",
    title="Evaluation of an invented dressing for hill ulcers",
    authors=("Moy, Ronald",),
    year=2007,
    venue="Invented Review of Hill Medicine",
)


def test_a_year_ocr_garbled_keeps_the_author_and_venue_s_record_from_a_not_found() -> None:
    """ACS's year with one digit read as a letter ("20b7"): no year was read, and the
    record's first author and venue agree.  The old code called the entry `not_found`;
    the garbled year fits ten years, so it is `unchecked`, never `verified`."""
    text = "(1) Moy, R. Invented Review of Hill Medicine 20b7, 120–125."
    got = decide(parse_reference_string(text), [], _found(HILL))
    assert got.verdict == "unchecked", got.reason
    # a garbled year that is not the record's leaves it not found
    other = text.replace("20b7", "19b7")
    assert decide(parse_reference_string(other), [], _found(HILL)).verdict == "not_found"


def test_a_front_matter_s_roman_page_is_no_word_of_a_title() -> None:
    """Elsevier's "… 44 (1993) iii.": the page of a book's front matter in Roman numerals,
    with the author's name and the venue garbled, was read as a word of a title the record
    lacks, and the entry was `not_found`."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.intro",
        title="Introduction",
        authors=("Taguchi, F.",),
        year=1993,
        venue="The Invented Annals of Political Science",
        volume="44",
    )
    text = "[1] F.Taguchi, The Invented Annuqls of Po litical Science44 (1993) iii."
    assert decide(parse_reference_string(text), [], _found(record)).verdict != "not_found"


@pytest.mark.parametrize(("printed", "year"), [("(20 17)", 2017), ("(2 010)", 2010)])
def test_a_bracketed_year_split_by_a_space_is_the_year(printed: str, year: int) -> None:
    """Extraction split APA's year; the old code took the year of the conference the
    venue names ("ICSO 2006") and the real paper was `partial` ("the year differs")."""
    text = (
        f"Cassaing, F., Le Duigou, J.-M. {printed}. Towards an invented breadboard for "
        "hill optics. International Conference on Invented Optics 2006."
    )
    assert parse_reference_string(text).year == year
    assert cited_year(text) == year


def test_a_venue_one_letter_off_read_as_the_title_is_no_title() -> None:
    """The reader took the venue, one letter off ("Scinnce"), for the title, and the
    notice's title ("Obitu aries") went unread.  That "title" is the record's venue as OCR
    left it, so the key of volume, page and year stands: `unchecked`, not `not_found`.  A
    cheap pre-test that looked for the venue's words exactly (6e1bf11) missed the one
    letter off, and the entry was `not_found` again; the record here is INVENTED."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.obituaries",
        title="Obituaries",
        year=1986,
        venue="Science",
        volume="232",
        pages="662",
    )
    text = "Obitu aries.(1986). Scinnce,232(4750), 662–662."
    assert decide(parse_reference_string(text), [], _found(record)).verdict == "unchecked"
