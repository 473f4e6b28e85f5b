"""Which fields identify a cited work, as real reference lists print them (issue 22).

Each case is one of the ways a real reference was called a problem although it names a real
work: a style that prints no title, a misspelt or transliterated name, a page number read as
the year, a generic title, a notice or a book verified for an article or a chapter, a
preprint for its journal version, a title in another language.  Every record is INVENTED.
"""

from __future__ import annotations

import pytest

from citeproof.models.references import WorkRecord
from citeproof.refs.decide import IdentifierEvidence, SearchEvidence, decide
from citeproof.refs.kinds import isbn_problem, isbns_in, outside_kind
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.names import same_family
from citeproof.refs.numbers import cited_year, coordinates, number_tokens
from citeproof.refs.scoring import informative, score
from citeproof.refs.stated import StatedReference
from citeproof.refs.venues import abbreviates

LUYT = WorkRecord(
    source="crossref",
    doi="10.5555/invented.vap",
    title="Invented pneumonia acquired on ventilators: a cohort",
    authors=("Luyt, Charles-Edouard", "Chastre, Jean", "Fagon, Jean-Yves"),
    year=2004,
    venue="Intensive Care Medicine",
    volume="30",
    issue="5",
    pages="844-852",
)


def _search(*records: WorkRecord, service: str = "crossref") -> list[SearchEvidence]:
    return [SearchEvidence(service, True, records)]


def _string(text: str) -> StatedReference:
    return parse_reference_string(text)


# ---------------------------------------------------------------------- title-less styles


@pytest.mark.parametrize(
    "text",
    [
        "(1) Luyt, C.-E.; Chastre, J.; Fagon, J.-Y. Intensive Care Med. 2004, 30, 844–852.",  # ACS
        "1 C.-E. Luyt, J. Chastre, and J.-Y. Fagon, Intensive Care Med. 30, 844 (2004).",  # AIP
        "[1] C.-E. Luyt, J. Chastre, J.-Y. Fagon, Intensive Care Med. 30 (2004) 844–852.",  # Els.
    ],
)
def test_a_style_without_titles_is_identified_by_its_coordinates(text: str) -> None:
    got = decide(_string(text), [], _search(LUYT))
    assert got.verdict == "verified", got.reason
    assert got.work is not None
    assert set(got.work.decided_by) >= {"authors", "year", "volume", "pages"}
    assert "venue" in got.work.decided_by  # the NLM abbreviation of the record's venue
    assert got.work.field("title").agreement == "not_stated"  # no title printed: none differs


def test_coordinates_of_another_article_do_not_identify_it() -> None:
    text = "(1) Luyt, C.-E.; Chastre, J. Intensive Care Med. 2004, 30, 1010–1018."
    got = decide(_string(text), [], _search(LUYT))
    assert got.verdict != "verified"


def test_a_title_less_entry_with_its_doi_agrees_with_its_record() -> None:
    text = "(1) Luyt, C.-E.; Chastre, J. Intensive Care Med. 2004, 30, 844. DOI: 10.5555/x."
    stated = _string(text)
    ids = [IdentifierEvidence(f"doi:{LUYT.doi}", True, (LUYT,))]
    got = decide(stated, ids, [])
    assert got.verdict == "verified", got.reason


# ---------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("printed", "recorded"),
    [
        ("Smyth", "Smith"),  # one letter off a name of five letters or more
        ("Mueller", "Müller"),
        ("Muller", "Müller"),
        ("Sorensen", "Sørensen"),
        ("van der Berg", "Berg"),
        ("Berg", "van der Berg"),
        ("García", "García-Márquez"),
        ("Garcia Marquez", "García-Márquez"),
        ("Dennis Jr", "Dennis"),
        ("Schwarzenegger", "Schwarzeneger"),  # one letter lost in a long name
        ("Kowalczyk", "Kowalcyzk"),  # two letters swapped
    ],
)
def test_spellings_of_one_surname(printed: str, recorded: str) -> None:
    assert same_family(printed, recorded)


@pytest.mark.parametrize(("a", "b"), [("Lee", "Li"), ("Wang", "Wong"), ("Park", "Parks")])
def test_short_different_names_stay_different(a: str, b: str) -> None:
    assert not same_family(a, b)


def test_one_letter_off_a_short_name_is_another_author_unless_title_and_year_agree() -> None:
    record = LUYT.model_copy(update={"title": "Ventilator pneumonia in an invented cohort"})
    other_title = StatedReference(title="Invented sepsis scores", authors=("Luyd C",), year=2004)
    got = score(other_title, record)
    assert got.fit == "other" and got.field("authors").agreement == "differs"


def test_a_typo_in_the_first_author_does_not_make_a_real_reference_partial() -> None:
    record = LUYT.model_copy(update={"title": "Ventilator pneumonia in an invented cohort"})
    stated = StatedReference(
        title="Ventilator pneumonia in an invented cohort", authors=("Luyd C",), year=2004
    )
    assert score(stated, record).fit == "match"


def test_a_suffix_read_as_the_surname_is_dropped() -> None:
    record = WorkRecord(
        source="pubmed",
        pmid="1",
        title="An invented trial of mulch in raised beds",
        authors=("Dennis G",),
        year=2010,
    )
    stated = StatedReference(
        title="An invented trial of mulch in raised beds", authors=("Dennis Jr G",), year=2010
    )
    assert score(stated, record).field("authors").agreement == "agrees"


# ---------------------------------------------------------------------- years


@pytest.mark.parametrize(
    ("text", "year"),
    [
        ("Smith J. Romania, 1917: a history. J Hist. 1998;12:1809-1820.", 1998),
        ("Smith, J. (2019a). Title. Journal, 12(3), 1809–2048.", 2019),
        ('Author, F. 2001. "Ocular surface." Ophthalmology 108 (11): 1933.', 2001),
        ("1 A. Author, Phys. Rev. Lett. 98, 1809 (2007).", 2007),
        ('[2] A. B. Smith, "T," J. Foo, vol. 12, no. 3, pp. 1933-1940, 2001.', 2001),
    ],
)
def test_the_year_is_read_where_the_style_prints_it(text: str, year: int) -> None:
    assert cited_year(text) == year


def test_pages_and_dois_are_not_years() -> None:
    tokens = number_tokens("J Foo. 2001;12:1809-1820. doi:10.5555/2019.2048")
    assert {"1809", "1820", "12", "2001"} <= tokens and "2048" not in tokens
    assert coordinates("Smith J. T. J Foo. 2019;30(4):844-52.") == ("30", "844")


# ---------------------------------------------------------------------- generic titles


@pytest.mark.parametrize("title", ["Stroke", "Editorial", "Index", "Front matter", "H"])
def test_a_generic_title_alone_verifies_nothing(title: str) -> None:
    assert not informative(title)
    record = WorkRecord(source="crossref", doi="10.5555/g", title=title, year=2019)
    stated = StatedReference(
        text=f"Smith J. {title}. Invented Journal. 2020;3:12.",
        title=title,
        year=2020,
        authors=("Smith J",),
    )
    assert decide(stated, [], _search(record)).verdict not in ("verified", "partial")


def test_a_one_letter_main_title_makes_no_partial() -> None:
    record = WorkRecord(
        source="crossref",
        doi="10.5555/e",
        title="E. coli in invented allotment soils",
        authors=("Park, J",),
        year=2018,
    )
    stated = StatedReference(title="E. coli counts in invented orchards", authors=("Lee K",))
    assert score(stated, record).fit == "other"


# ---------------------------------------------------------------------- the wrong work


def test_a_correction_notice_never_verifies_the_article() -> None:
    notice = WorkRecord(
        source="crossref",
        doi="10.5555/corr",
        title="Invented pneumonia acquired on ventilators: a cohort",
        authors=("Luyt, C",),
        year=2004,
        is_notice=True,
        types=("journal-article",),
    )
    stated = StatedReference(
        title="Invented pneumonia acquired on ventilators: a cohort",
        authors=("Luyt C",),
        year=2004,
    )
    got = decide(stated, [], _search(notice, LUYT))
    assert got.verdict == "verified" and got.work is not None
    assert got.work.record.doi == LUYT.doi


def test_the_book_never_verifies_a_chapter_of_it() -> None:
    book = WorkRecord(
        source="crossref",
        doi="10.5555/book",
        title="The Invented Handbook of Soils",
        authors=("Okafor, C",),
        year=2012,
        kind="book",
        types=("book",),
    )
    stated = StatedReference(
        title="Earthworms in invented allotments",
        authors=("Okafor C",),
        year=2012,
        venue="The Invented Handbook of Soils",
    )
    got = score(stated, book)
    assert got.fit == "other" and got.note is not None and "part of which" in got.note


# ---------------------------------------------------------------------- versions, languages


def test_a_preprint_verifies_the_journal_citation_with_a_note() -> None:
    preprint = WorkRecord(
        source="crossref",
        doi="10.5555/pre",
        title="Compost and worms in invented plots",
        authors=("Halloway, W",),
        year=2019,
        venue="bioRxiv",
        types=("posted-content",),
        related=("is-preprint-of:doi:10.5555/vor",),
    )
    stated = StatedReference(
        title="Compost and worms in invented plots",
        authors=("Halloway W",),
        year=2021,
        venue="Invented Soil Journal",
    )
    got = decide(stated, [], _search(preprint))
    assert got.verdict == "verified", got.reason
    assert got.notes and "preprint" in got.notes[0] and "10.5555/vor" in got.notes[0]


def test_a_title_in_its_original_language_verifies() -> None:
    record = WorkRecord(
        source="pubmed",
        pmid="2",
        title="Compost and worms in invented allotments",
        other_titles=("Kompost und Würmer in erfundenen Kleingärten",),
        authors=("Müller, K",),
        year=2016,
    )
    stated = StatedReference(
        title="Kompost und Würmer in erfundenen Kleingärten", authors=("Mueller K",), year=2016
    )
    assert score(stated, record).fit == "match"


# ---------------------------------------------------------------------- outside the databases


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Quill P. Invented soils of the north [PhD thesis]. Nowhere University; 2015.", "thesis"),
        ("ISO 9001:2015. Quality management systems. Geneva: ISO; 2015.", "standard"),
        ("Halloway W. mulchsim, version 2.1. https://github.com/invented/mulchsim", "software"),
        ("Okafor C. Soils. 2nd ed. Invented Press; 2010. ISBN 978-0-306-40615-7.", "book"),
    ],
)
def test_works_the_databases_do_not_hold_are_recognised(text: str, kind: str) -> None:
    found = outside_kind(_string(text))
    assert found is not None and found.kind == kind
    got = decide(_string(text), [], _search())
    assert got.verdict == "unchecked" and got.work_kind == kind


def test_an_isbn_check_digit() -> None:
    assert isbns_in("ISBN 978-0-306-40615-7") == ["9780306406157"]
    assert isbn_problem("9780306406157") is None
    assert isbn_problem("9780306406158") == "the check digit of ISBN 9780306406158 is wrong"
    assert isbn_problem("0306406152") is None


def test_an_article_is_never_taken_for_a_work_outside_the_databases() -> None:
    text = "Smith J. Invented press coverage of soils. J Inv Soils. 2019;12(3):45-50."
    assert outside_kind(_string(text)) is None


def test_venue_abbreviations() -> None:
    assert abbreviates("Intensive Care Med.", "Intensive Care Medicine")
    assert abbreviates(
        "Proc Natl Acad Sci U S A",
        "Proceedings of the National Academy of Sciences of the United States of America",
    )
    assert not abbreviates("Phys. Rev.", "Physical Review Letters")
    assert not abbreviates("Nature", "Nature Communications")


# ---------------------------------------------------------------------- extraction noise


def test_a_string_whose_words_extraction_broke_is_still_compared() -> None:
    """Words glued and split, a letter wrong, a number split and one glued to a letter: what
    PDF extraction and OCR do to a real reference (Crossref's "noise" renderings)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.noise",
        title="An invented survey of mulch",
        authors=("Berger, Elisa",),
        year=1989,
        venue="Archives of Internal Medicine",
        volume="149",
        pages="1507-1512",
    )
    text = "1 E.Sl BergeY, Archives of Internal M edicine 1 49,J1507 (1989 )."
    got = score(_string(text), record)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    assert {"authors", "venue", "volume", "pages", "year"} <= set(got.decided_by)


def test_a_book_title_read_as_the_title_is_no_title_that_differs() -> None:
    """A style that prints a chapter as its book and year: the reader takes the book's title
    for the entry's; it is the record's venue, so no title differs (no "partial")."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.chapter",
        title="Earthworms",
        authors=("Okafor, C",),
        year=2005,
        venue="The Invented Encyclopedia of Soils",
        kind="book-chapter",
    )
    stated = StatedReference(
        text="Okafor C. The Invented Encyclopedia of Soils (2005).",
        title="The Invented Encyclopedia of Soils",
        authors=("Okafor C",),
    )
    got = score(stated, record)
    assert got.field("title").agreement == "not_stated"
    assert got.fit != "partial"


def test_an_entry_that_opens_with_its_year_keeps_it() -> None:
    """Chicago prints an entry without authors as "1990. “Title.” Journal ..."; the year was
    taken for the entry's list number and lost."""
    stated = _string("1990. “New Books.” Owl of Minerva 21 (2): 209–218.")
    assert stated.label is None
    assert stated.text.startswith("1990.")
    assert cited_year(stated.text) == 1990


def test_a_malformed_identifier_is_named_in_the_reason() -> None:
    stated = _string("Smith. doi:10.")
    got = decide(stated, [], [])
    assert got.verdict == "unchecked"
    assert "'doi:10.' is not a valid DOI" in got.reason


def test_a_long_author_list_is_not_a_printed_title() -> None:
    """A record that lists the first authors only: the entry's other names are names, not a
    title the record lacks (they made the coordinates "partial: the title differs")."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.many",
        title="Invented liver grafts",
        authors=("Zhang, Wei", "Kim, Ryu", "Quintini, Cristiano"),
        year=2016,
        venue="Liver Transplantation",
        volume="22",
        pages="1089-1096",
    )
    text = (
        "(1) Zhang, W.; Kim, R.; Quintini, C.; Hashimoto, K.; Fujiki, M.; Diago, T.; "
        "Eghtesad, B.; Miller, C.; Fung, J. Liver Transplantation 2016, 22, 1089–1096."
    )
    assert score(_string(text), record).fit == "match"
