"""What an entry must print before "no record matches" says anything against it, and which
hits without a title still leave a search unable to show a work absent (issue 22: every flag
is evidence).  Every record and entry is INVENTED, in the printed forms real lists have.
"""

from __future__ import annotations

import pytest

from citeproof.models.references import WorkRecord
from citeproof.refs.decide import SearchEvidence, decide, prints_identity
from citeproof.refs.listed import parse_reference_string, read_list
from citeproof.refs.lookup import MAX_QUERY, bibliographic_string
from citeproof.refs.numbers import coordinates, page_by_year, printed_first_page
from citeproof.refs.scoring import score
from citeproof.refs.stated import searchable, sentence_words

#: A record the searches find that is none of the entries below: another journal, another
#: year, other authors, other numbers.
ELSEWHERE = WorkRecord(
    source="crossref",
    doi="10.5555/invented.elsewhere",
    title="Counting invented beetles on coastal dunes",
    authors=("Okonkwo, Ada",),
    year=1999,
    venue="Invented Dune Ecology",
    volume="3",
    pages="1-9",
)
#: Crossref holds real records without a title: this one's other fields are another work's.
UNTITLED_OTHER = WorkRecord(
    source="crossref",
    doi="10.5555/invented.untitled-other",
    title=None,
    authors=("Lindqvist, Per",),
    year=1987,
    venue="Invented Harbour Review",
)
#: A hit cut down to its identifier: nothing to compare.
UNTITLED_BARE = WorkRecord(source="crossref", doi="10.5555/invented.bare", title=None)


def _answered(*records: WorkRecord) -> list[SearchEvidence]:
    return [SearchEvidence("crossref", True, records), SearchEvidence("openalex", True, ())]


# ------------------------------------------------------------ too little to be found missing


@pytest.mark.parametrize(
    "text",
    [
        "(1) Rosenau, J. N. 1964.",  # ACS: a record without volume or pages
        "1 M.U. Ramos and J. Knapik, Invented Coastal Letters (1978).",  # AIP, likewise
        "[1]F. B. Cady, “Biometrics,” Encyclopedia of Invented Sciences, Aug. 2006.",
        "Quist, T. (2011). Editorial. Invented Harbour Review.",
    ],
)
def test_an_entry_that_prints_no_identity_is_unchecked_not_not_found(text: str) -> None:
    """No title that says which work it is, no volume and page: a database without a
    matching record says nothing against it (the old code called each ``not_found``)."""
    stated = parse_reference_string(text)
    assert not prints_identity(stated)
    got = decide(stated, [], _answered(ELSEWHERE))
    assert got.verdict == "unchecked", got.reason
    assert "prints too little to identify a work" in got.reason
    assert got.closest and got.closest[0].record.doi == ELSEWHERE.doi  # what came back


@pytest.mark.parametrize(
    "text",
    [
        # a title (the fabrications of a model answer print one)
        "Okafor N, Lindgren P. Adaptive thermal lattices in seasonal kinetics. J Invented "
        "Lett. 2008.",
        # Springer's author-year style, whose title the reader now finds
        "Okafor N, Lindgren P (2008) Adaptive thermal lattices in seasonal kinetics. Invented "
        "Letters",
        # the numbers that name an article, without a title (ACS, AIP, Elsevier)
        "(1) Luyt, C.-E.; Chastre, J. Invented Care Med. 2004, 30, 844–852.",
        "1 P. Harnetty, The Invented History Review24, 414 (1971).",
        "[1] A. Willms, Invented Ecology 12 (2001) 104.",
        # a chapter's page before its year (AIP)
        "1 C.W. Finkl, Invented Geology 517 (n.d.).",
    ],
)
def test_an_entry_that_prints_an_identity_is_still_not_found(text: str) -> None:
    stated = parse_reference_string(text)
    assert prints_identity(stated)
    got = decide(stated, [], _answered(ELSEWHERE))
    assert got.verdict == "not_found", got.reason


def test_a_title_the_reader_missed_counts_by_its_lower_case_words() -> None:
    """A string no pattern reads still prints a title in sentence case."""
    text = "Okafor N and Lindgren P 2008 adaptive thermal lattices in seasonal kinetics"
    stated = parse_reference_string(text)
    assert stated.title is None
    assert sentence_words(text) >= 3
    assert prints_identity(stated)
    # capitalised names and a venue are no title: "of" and "and" say nothing
    assert sentence_words("Rosenau, J. N. Journal of Invented Studies and Letters 1964") == 0


# ------------------------------------------------------------------- hits without a title


def test_an_untitled_hit_whose_fields_are_another_works_does_not_block_not_found() -> None:
    """Two of its fields differ (author, year, venue): it is not the cited work, so the
    answer can still show the entry absent (the old code made it ``unavailable``)."""
    stated = parse_reference_string(
        "Okafor, N. (2008). Adaptive thermal lattices in seasonal kinetics. Invented "
        "Letters, 4, 10–19."
    )
    got = decide(stated, [], _answered(UNTITLED_OTHER))
    assert got.verdict == "not_found", got.reason


def test_an_untitled_hit_with_nothing_to_compare_still_makes_it_unavailable() -> None:
    stated = parse_reference_string(
        "Okafor, N. (2008). Adaptive thermal lattices in seasonal kinetics. Invented "
        "Letters, 4, 10–19."
    )
    got = decide(stated, [], _answered(UNTITLED_BARE))
    assert got.verdict == "unavailable", got.reason
    assert "hits without a title" in got.reason


def test_an_untitled_hit_that_may_be_the_work_still_makes_it_unavailable() -> None:
    """The first author and the year agree: a title stripped from the answer may be this
    one, so nothing is concluded."""
    near = WorkRecord(
        source="crossref",
        doi="10.5555/invented.near",
        title=None,
        authors=("Okafor, Nneka",),
        year=2008,
        venue="Invented Letters",
    )
    stated = parse_reference_string(
        "Okafor, N. (2008). Adaptive thermal lattices in seasonal kinetics. Invented "
        "Letters, 4, 10–19."
    )
    got = decide(stated, [], _answered(near))
    assert got.verdict == "unavailable", got.reason


# ------------------------------------------------------------- numbers glued by extraction


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 P. Harnetty, The Invented History Review24, 414 (1971).", ("24", "414")),
        ("1 P. Schoenhagen,InvVIDE5, 228 (2018).", ("5", "228")),
        ("[1] A. Willms, Invented Ecology12 (2001) 104.", ("12", "104")),
        ("Invented Review 1234, 5 (2019).", ("1234", "5")),
        ("Hobel, C., 1980. U.S.A. The Invented Lancet, 315(8158), pp.31–33.", ("315", "31")),
        ("“Calendar.” Invented Fuel 77.13 (1998): 1525.", ("77", "1525")),
        ("“Index.” 2001. Invented Chemistry 633 (1-2) (August): 189.", ("633", "189")),
        ("Berg, M.G., 1990. Breakthrough. Invented Chasqui, 19(1), p.88.", ("19", "88")),
        ("1 B.E. Erickson, Invented Analytical Chemistry 76, 386 A (2004).", ("76", "386")),
        ("Dong, H. (1997). Ergophthalmology. Invented Literature Today, 71(1), 36.", ("71", "36")),
    ],
)
def test_a_volume_glued_to_the_venue_is_still_the_volume(
    text: str, expected: tuple[str, str]
) -> None:
    assert coordinates(text) == expected


@pytest.mark.parametrize(
    "text",
    ["1BMJ 2, S497 (1913).", "1InvPharma 132, 12 (1978).", "1 P. Schoenhagen,InvVIDE5, 228 (2018)"],
)
def test_a_list_number_or_a_volume_glued_to_a_word_leaves_it_searchable(text: str) -> None:
    """The old code counted "1BMJ" as no word, and the entry was never looked up."""
    assert searchable(text)


@pytest.mark.parametrize("text", ["Halloway2021", "Smith", "Nature, 2019", "Smith2019, 12"])
def test_a_citation_key_is_still_not_searchable(text: str) -> None:
    assert not searchable(text)


def test_a_page_range_after_pp_is_a_page_range() -> None:
    """The old code read no page in "pp.391–406" (the full stop hid it)."""
    assert printed_first_page("Anon, 2008. Index. Invented Dermatology, pp.391–406.") == "391"


def test_an_untitled_hit_whose_author_and_venue_the_entry_does_not_print_is_another_work() -> None:
    """One field differs (the pages), the year agrees, and the entry prints neither the
    record's first author nor its venue: another work, not a reason to conclude nothing."""
    other = WorkRecord(
        source="crossref",
        doi="10.5555/invented.kemal",
        title=None,
        authors=("Kemal, Aydin F.",),
        year=2004,
        venue="Invented Fuels and Oils",
        volume="39",
        pages="76-81",
    )
    stated = parse_reference_string(
        "1 B.E. Erickson, Invented Analytical Chemistry 76, 386 (2004)."
    )
    got = decide(stated, [], _answered(other))
    assert got.verdict == "not_found", got.reason


def test_a_page_by_year_is_read_before_its_year_only_at_the_end() -> None:
    assert page_by_year("1 C.W. Finkl, Invented Geology 517 (n.d.).") == "517"
    assert page_by_year("1 C.W. Finkl, Invented Geology 517 (2004).") == "517"
    assert page_by_year("1 M.U. Ramos and J. Knapik, (1978).") is None
    assert page_by_year("Invented Geology 517 (2004). Some later words") is None
    assert page_by_year("[1] R.A. Reid, Invented Organelles (1980) 156.") == "156"
    # ACS prints a volume without pages as it prints pages without a volume: not read
    assert page_by_year("(1) Berlin, L. Invented Medicine 2012, 307.") is None


def test_springer_author_year_entries_have_their_title_read() -> None:
    got = parse_reference_string(
        "Lin TY, Burns NH (1981) Design of invented prestressed structures. Wiley, Ann Arbor"
    )
    assert got.title == "Design of invented prestressed structures"
    assert got.authors == ("Lin TY", "Burns NH")
    assert got.year == 1981


@pytest.mark.parametrize(
    "text",
    [
        "1 H.P.Invent, INVJ 2, 363 o(1919).",  # initials glued to the name, the year garbled
        "1 J.D.Savage, Invented m Society 20, 446 (198i).",
    ],
)
def test_ocr_noise_around_a_volume_and_page_leaves_the_entry_searchable(text: str) -> None:
    """The old code never searched these (the name glued to its initials was no word, and
    the garbled year hid the volume and page)."""
    assert searchable(text)


@pytest.mark.parametrize("text", ["Smith, J. 2019, 12", "Smith2019, 12"])
def test_a_year_and_a_number_are_no_volume_and_page(text: str) -> None:
    assert not searchable(text)


@pytest.mark.parametrize(
    "text",
    [
        "(1) Invented Queries 1911, s11-IV, 100–100.",  # a page range
        "1 I. Danto, Esprit Mars/Avril, 207 (2013).",  # AIP: a chapter's page by the year
        "[1]Invented Reviews (2010) 340.",  # Elsevier, likewise
    ],
)
def test_one_word_and_a_page_where_the_style_puts_it_is_searchable(text: str) -> None:
    """The old code searched only with a volume and first page beside the word."""
    assert searchable(text)


def test_a_list_number_glued_to_an_acronym_venue_is_no_part_of_it() -> None:
    """ "1INVJ 1, 388 (1912).": the venue, its volume, page and year name the record (whose
    title the style does not print); the old code read the venue as "1INVJ"."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.invj",
        title="Scotland",
        year=1912,
        venue="INVJ",
        volume="1",
        pages="388",
    )
    got = decide(parse_reference_string("1INVJ 1, 388 (1912)."), [], _answered(record))
    assert got.verdict == "verified", got.reason


def test_an_apa_entry_without_an_author_has_its_title_read() -> None:
    """APA puts the title first when a work has no author; the old code read nothing."""
    got = parse_reference_string(
        "Multi-party invented key exchange with privacy for mobile settings. (2016). Invented "
        "Transactions on Networks, 10(12), 5-20."
    )
    assert got.title == "Multi-party invented key exchange with privacy for mobile settings"
    assert got.authors == ()
    assert got.year == 2016
    assert got.venue == "Invented Transactions on Networks"


@pytest.mark.parametrize(
    "text",
    [
        "Smith, J., & Doe, A. (2019). Deep invented learning. Invented Nature, 12, 1-10.",
        "J. A. Smith and K. Doe. (2019). Deep invented learning. Invented Nature.",
        "World Invented Organization. (2019). Global invented report 2019. Geneva.",
        # a comma and a number inside the title are no venue and its volume
        "World Invented Organization. (2019). Invented report 2019, 3rd edition.",
    ],
)
def test_names_before_the_year_are_never_read_as_a_title(text: str) -> None:
    got = parse_reference_string(text)
    assert got.title != text.split(". (")[0]


def test_an_anonymous_author_leaves_the_title_to_read() -> None:
    got = parse_reference_string(
        "Anon, 2008. A STUDY OF INVENTED DATA QUALITY IN MOBILE OPERATORS. Proceedings of "
        "the Tenth Invented Conference."
    )
    assert got.title == "A STUDY OF INVENTED DATA QUALITY IN MOBILE OPERATORS"
    assert got.authors == ()
    assert got.year == 2008


def test_a_page_labelled_as_one_is_a_printed_identity() -> None:
    stated = parse_reference_string(
        "[1]L. Albert and L. Nicolas, “Bibliographie,” Invented Rhétorique, p. 427, 2010."
    )
    assert prints_identity(stated)
    assert not prints_identity(parse_reference_string("[1]L. Albert, “Bibliographie,” 2010."))


@pytest.mark.parametrize(
    ("text", "authors"),
    [
        (
            "Nowinski, Wieslaw L., Chua, Beng Choon, & Nowinska, Natalia G. (2012). Invented "
            "tectonics illustrated. Invented Methods, 206(2), 205–216.",
            ("Nowinski, Wieslaw L.", "Chua, Beng Choon", "Nowinska, Natalia G"),
        ),
        (
            "PARENTE, A, GALLETTI, C, & TOGNOTTI, L (2008). Editorial. Invented Hydrogen, "
            "33(24), 7553–7564.",
            ("PARENTE, A", "GALLETTI, C", "TOGNOTTI, L"),
        ),
        (
            "Murphy‐O’Connor, Jerome (2012). Invented keys to a city. Invented Essays, 147–156.",
            ("Murphy‐O’Connor, Jerome",),
        ),
        # a stray mark between the names and the year
        (
            "Woolf, Stuart. : (2008). Invented Timing. Invented Historical Review, 113(4), 12–13.",
            ("Woolf, Stuart",),
        ),
        (
            "Woolf, S. : (2008). Invented Timing. Invented Historical Review, 113(4), 12.",
            ("Woolf, S.",),
        ),
        # the last initial's stop left out, as Crossref holds some given names
        (
            "Walker, J.D (1971). Invented Resistance. Invented Chronicle, 47(2), 94.",
            ("Walker, J.D",),
        ),
    ],
)
def test_surname_comma_given_names_are_read(text: str, authors: tuple[str, ...]) -> None:
    """Given names written out, or initials without stops: the old code read no author,
    and so no title, and a chimera's numbers verified it."""
    got = parse_reference_string(text)
    assert got.authors == authors
    assert got.title


@pytest.mark.parametrize(
    "text",
    [
        "Ann Smith and Bo Doe (2016). An invented title. Invented Letters.",
        "Smith and J (2016). A b.",
    ],
)
def test_names_joined_by_and_are_no_surname_given_pair(text: str) -> None:
    assert "Smith, Bo Doe" not in parse_reference_string(text).authors
    assert all("," not in a for a in parse_reference_string(text).authors)


def test_a_one_word_title_on_another_works_numbers_is_partial_not_verified() -> None:
    """A chimera: "Editorial" printed with a real article's authors, venue and numbers."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.flame",
        title="Effect of invented kinetics on a flameless burner",
        authors=("Parente, Alessandro", "Galletti, Chiara"),
        year=2008,
        venue="Invented Hydrogen",
        volume="33",
        pages="7553-7564",
    )
    text = (
        "PARENTE, A, GALLETTI, C, & TOGNOTTI, L (2008). Editorial. Invented Hydrogen, 33(24), "
        "7553–7564."
    )
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "partial", got.reason


def test_a_short_title_with_its_first_author_and_first_page_is_the_chapter() -> None:
    """The entry names the book by its series; the title alone says little, but with the
    first author and the first page it names the chapter (a mismatch once its one-word
    title was read)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.telenursing",
        title="Telenursing",
        authors=("Edirippulige, Sisira",),
        venue="Invented Practice in Nursing Informatics",
        pages="150-161",
        kind="book-chapter",
    )
    text = (
        "Edirippulige, S. (n.d.). Telenursing. Advances in Invented Clinical Practice, 150–161. "
        "https://doi.org/10.5555/invented.telenursing"
    )
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", (got.fields, got.decided_by)


@pytest.mark.parametrize(
    "text",
    [
        "“Shellfish.” Invented Scientific Encyclopedia (2005): n. pag.",
        "[1]“Ice Day,” Invented Scientific Encyclopedia, Nov. 2006.",
    ],
)
def test_a_record_titled_as_the_entrys_container_is_not_its_title(text: str) -> None:
    """A review of the encyclopedia is titled as the encyclopedia: the entry's own title
    is "Shellfish", so the record does not "have this title" (the old code called the
    entry partial, "the year differs"); and it prints too little to be found missing."""
    review = WorkRecord(
        source="crossref",
        doi="10.5555/invented.review",
        title="Invented Scientific Encyclopedia",
        year=1993,
        venue="Invented Journal of Chemical Technology",
        volume="57",
        pages="453",
    )
    stated = parse_reference_string(text)
    assert stated.title in ("Shellfish", "Ice Day")
    assert score(stated, review).field("title").agreement == "differs"
    got = decide(stated, [], _answered(review))
    assert got.verdict == "unchecked", got.reason


def test_a_long_title_cut_short_by_the_reader_still_finds_its_record() -> None:
    """The reader stops at "precipitation.1." and the record's title goes on after it:
    that is the work's title, not a container's (a regression the container rule made)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.drops",
        title="On deviations of invented drop counts from the Poisson distribution",
        authors=("Kostinski, A. B.",),
        year=1997,
        venue="Journal of the Invented Atmospheric Sciences",
    )
    text = (
        "Kostinski AB, Jameson AR (1997) Fluctuation properties of invented precipitation.1. "
        "On deviations of invented drop counts from the Poisson distribution. J Invented Atmos"
    )
    assert score(parse_reference_string(text), record).fit == "match"


INVENTED_ARTICLE = WorkRecord(
    source="crossref",
    doi="10.5555/invented.metals",
    title="Corrosion of invented alloys in sea water",
    authors=("Gerasimenko, A. A.", "Bell, Stuart"),
    year=2000,
    venue="Protection of Invented Metals",
    volume="36",
    pages="397-401",
)


@pytest.mark.parametrize(
    "text",
    [
        "1 A.A. Gerasimenko, Protection of Invented MetalsA6, 397 (2000).",  # the volume
        "1 A.A. Gerasimenko, Protection of Invented Metals 36, k97 (2000).",  # the page
    ],
)
def test_a_digit_read_as_a_letter_still_agrees(text: str) -> None:
    """OCR reads a digit as a letter: "A6" for 36, "k97" for 397 (the old code called the
    number another and the reference not found)."""
    got = score(parse_reference_string(text), INVENTED_ARTICLE)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]


@pytest.mark.parametrize(
    "text",
    [
        "1 A.A. Gerasimenko, Protection of Invented Metals 36, CE97 (2000).",  # 3 read as E
        "1 A.A. Gerasimenko, Protection of Invented Metals 36, qC397 (2000).",  # a letter more
    ],
)
def test_a_lettered_page_ocr_garbled_still_agrees(text: str) -> None:
    """A page with a letter before its digits (the American Journal of Physiology's
    "C397") keeps the letter while OCR reads one digit as a letter, or glues a letter
    before it: the old code read those pages as another article's and the real reference
    as not found."""
    record = WorkRecord(**{**INVENTED_ARTICLE.model_dump(), "pages": "C397-C401"})
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    other = parse_reference_string(
        "1 A.A. Gerasimenko, Protection of Invented Metals 36, CE98 (2000)."
    )
    assert score(other, record).field("pages").agreement == "differs"


@pytest.mark.parametrize(
    ("text", "pages"),
    [
        ("1 A.A. Gerasimenko, Protection of Invented Metals 3D6, 397 (2000).", "397-401"),
        ("1 A.A. Gerasimenko, Protection of Invented Metals 36, 3U97 (2000).", "397-401"),
        ("1 A.A. Gerasimenko, Protection of Invented Metals 36, B97a (2000).", "397a"),
    ],
)
def test_a_letter_put_between_digits_or_for_a_digit_before_a_suffix_still_agrees(
    text: str, pages: str
) -> None:
    """OCR puts a letter between two digits ("3D6" for 36, "3U97" for 397), or reads a
    digit as a letter in an abstract's page ("B97a" for 397a): the old code called the
    number another, and the real reference was not found."""
    record = WorkRecord(**{**INVENTED_ARTICLE.model_dump(), "pages": pages})
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    # another number is still another
    other = text.replace("3D6", "4D6").replace("3U97", "3U98").replace("B97a", "B98a")
    fields = score(parse_reference_string(other), record).fields
    assert [f.agreement for f in fields if f.field in ("volume", "pages")] != ["agrees"] * 2


def test_a_lettered_page_whose_letter_ocr_garbled_still_agrees() -> None:
    """A supplement's page printed with another letter ("K397" for S397), its digits whole:
    the old code called it another page and the real reference not found."""
    record = WorkRecord(**{**INVENTED_ARTICLE.model_dump(), "pages": "S397"})
    text = "1 A.A. Gerasimenko, Protection of Invented Metals 36, K397 (2000)."
    assert score(parse_reference_string(text), record).fit == "match"
    other = text.replace("K397", "K398")
    assert score(parse_reference_string(other), record).field("pages").agreement != "agrees"


def test_a_one_digit_number_is_never_a_garbled_one() -> None:
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.one",
        title="Invented",
        year=2000,
        venue="Invented Letters",
        volume="6",
        pages="39",
    )
    got = score(parse_reference_string("1 Invented Letters A, 39 (2000)."), record)
    assert got.field("volume").agreement != "agrees"


def test_venue_year_volume_and_page_identify_an_article_whatever_its_first_author() -> None:
    """ECitMatch's key whole, with the author misread ("S. Belland" for Bell, "and" glued):
    the old code called it not found."""
    text = "1S. Belland SI Morse, Protection of Invented Metals 36, 397 (2000)."
    got = decide(parse_reference_string(text), [], _answered(INVENTED_ARTICLE))
    assert got.verdict == "verified", got.reason
    # with a title that is another work's, it stays a lead
    chimera = (
        "1 S. Belland, Grazing invented goats on terraced vineyards, Protection of Invented "
        "Metals 36, 397 (2000)."
    )
    assert decide(parse_reference_string(chimera), [], _answered(INVENTED_ARTICLE)).verdict != (
        "verified"
    )


def test_a_title_in_another_order_with_its_venue_and_year_is_the_work() -> None:
    """A record with no authors: the same title words, scrambled by extraction, with the
    venue and the year agreeing (the old code asked for a first author it could not have)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.pond",
        title="Building capacity of invented pond organizations to serve youth",
        year=2007,
        venue="Invented Pond Dataset",
    )
    text = (
        ". Invented youth pond capacity Building of organizations serve to. Invented Pond "
        "Dataset. 2007. . ."
    )
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    other_year = score(parse_reference_string(text.replace("2007", "1999")), record)
    assert other_year.fit != "match"


def test_the_book_an_invented_chapter_is_given_in_is_not_the_chapter() -> None:
    """An invented title with a real author, given in a real book: the book's record has
    the title the entry prints as its venue, so it is not "this title" (the old code
    verified the entry as the book)."""
    book = WorkRecord(
        source="crossref",
        doi="10.5555/invented.cabling",
        title="Designing an invented cabling system",
        authors=("Elliott, Barry J.",),
        year=2002,
        kind="book",
    )
    text = (
        "Elliott, Barry J. (2002). Latent neural and viral urban in seasonal membrane: a "
        "catalytic study. Designing an invented cabling system, 129–154."
    )
    assert parse_reference_string(text).venue == "Designing an invented cabling system"
    got = score(parse_reference_string(text), book)
    assert got.fit != "match", got.decided_by


def test_the_proceedings_a_paper_is_given_in_are_not_the_paper_when_the_venue_is_unread() -> None:
    """A proceedings title with a full stop or a comma in it ("INVENTSY 22. Robot Design,
    Dynamics and Control") is no venue APA's reader can delimit; printed after the entry's
    own title it is still where the container goes (the old code verified an invented
    paper as the proceedings, on the proceedings' title found in the string and the
    year)."""
    proceedings = WorkRecord(
        source="crossref",
        doi="10.5555/invented.romansy",
        title="INVENTSY 22. Robot Design, Dynamics and Control",
        year=2018,
        kind="proceedings",
    )
    text = (
        "Lin, Rongfu, & Guo, Weizhong (2018). Effects of invented coastal sediment under "
        "quantum conditions. INVENTSY 22. Robot Design, Dynamics and Control, 118–125."
    )
    stated = parse_reference_string(text)
    assert stated.venue is None
    assert decide(stated, [], _answered(proceedings)).verdict != "verified"
    commas = parse_reference_string(text.replace("INVENTSY 22. ", ""))
    assert commas.venue is None
    commas_whole = proceedings.model_copy(update={"title": "Robot Design, Dynamics and Control"})
    assert decide(commas, [], _answered(commas_whole)).verdict != "verified"
    # the proceedings cited as themselves are still the proceedings
    whole = parse_reference_string(
        "Lin, R. (2018). INVENTSY 22. Robot Design, Dynamics and Control. Invented Press."
    )
    assert decide(whole, [], _answered(proceedings)).verdict == "verified"


def test_one_word_among_a_record_s_title_and_the_year_are_not_the_work() -> None:
    """ "Overview" is among the words of "An Invented Overview of Tropical Diseases": the
    same words need words enough on the entry's side too (the old code verified a chimera
    as that record on the one word and the year, its venue and numbers unrecorded)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.overview",
        title="An Invented Overview of Tropical Diseases",
        year=2015,
    )
    text = "Wang, Y., & Lee, K. S. (2014). Overview. Invented Brain Research, 1583, 245–254."
    assert score(parse_reference_string(text), record).fit != "match"


def test_a_short_record_title_closing_a_longer_title_is_not_the_same_title() -> None:
    """A record titled "Oral invented papillomatosis" (a reference work's entry) closing the
    entry's "Successful methotrexate therapy in oral invented papillomatosis": the words
    before it are a title's, in lower case, not names the reader joined to it (the old code
    verified the entry as the record, its venue differing)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.papillomatosis",
        title="Oral invented papillomatosis",
        venue="Invented Reference",
    )
    text = (
        "Kingsbury H, Koskoff E. Successful methotrexate therapy in oral invented "
        "papillomatosis. Invented Ethnomusicology. 1991;35(1):79."
    )
    assert score(parse_reference_string(text), record).fit != "match"
    # the record's own title, names before it read into the title, is still the title
    names = "Kingsbury H Koskoff E. Oral invented papillomatosis. Invented Reference. 1991."
    assert score(parse_reference_string(names), record).field("title").agreement == "agrees"


def test_a_short_record_title_inside_a_longer_title_is_not_the_same_title() -> None:
    """A record titled "Variant invented disease" inside the entry's fifteen-word title."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.variant",
        title="Variant invented disease",
        venue="Invented Reference",
    )
    text = (
        "Wu, Mei-Yu (2010). Potential effect of excluding variant invented disease on the "
        "eye donor pool in Australia. Invented Journal of Transplants, 12(3), 4–9."
    )
    got = score(parse_reference_string(text), record)
    assert got.field("title").agreement == "differs"
    assert got.fit != "match"


def test_an_entry_that_prints_no_identity_is_no_partial_of_a_record() -> None:
    """ "[1]Invented Encyclopedia (2005).": the entry prints the venue and a year; a review
    titled as the encyclopedia, of another year, is no lead (the old code called the entry
    partial, "the year differs")."""
    review = WorkRecord(
        source="crossref",
        doi="10.5555/invented.review2",
        title="Invented Scientific Encyclopedia",
        year=1993,
        venue="Invented Journal of Chemical Technology",
    )
    stated = parse_reference_string("[1]Invented Scientific Encyclopedia (2005).")
    assert not prints_identity(stated)
    got = decide(stated, [], _answered(review))
    assert got.verdict == "unchecked", got.reason


def test_a_generic_title_its_venue_places_is_the_work() -> None:
    """ "Table of Contents" of one book, nothing differing: the record is the entry's (the
    old code called a DOI naming it another work, "its title differs")."""
    contents = WorkRecord(
        source="crossref",
        doi="10.5555/invented.contents",
        title="Table of Contents",
        venue="Origins of Invented Plant Domestication",
    )
    text = (
        "“Table of Contents.” Origins of Invented Plant Domestication n. pag. "
        "doi:10.5555/invented.contents."
    )
    got = score(parse_reference_string(text), contents)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    another_book = WorkRecord(
        source="crossref",
        doi="10.5555/invented.contents2",
        title="Table of Contents",
        venue="Invented Geology of Moorlands",
    )
    assert score(parse_reference_string(text), another_book).fit != "match"


def test_full_names_an_entry_opens_with_are_no_title() -> None:
    """A title-less style with the authors' names written out, against a record that lists
    no authors: the names are no title the record lacks (the old code called the entry
    partial, "the title differs")."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.superconformal",
        title="Invented superconformal invariance in two dimensions",
        year=1987,
        venue="Invented Physics B",
        volume="288",
        pages="275-300",
    )
    text = "[1] Ming Yu, Hai Bin Zheng, Invented Physics B 288 (1987) 275."
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]


def test_an_apa_list_with_an_ellipsis_character_before_the_last_author_is_read() -> None:
    """APA 7 prints "…" before the last of many authors; the old code read only "...", so
    neither the authors nor the title were read."""
    got = parse_reference_string(
        "Boiko, E., Maltsev, D., Savicheva, A., … Suetov, A. (2015). Infection of the invented "
        "retina by chlamydia. Invented Ophthalmology, 12(3), 4–9."
    )
    assert got.authors == ("Boiko, E.", "Maltsev, D.", "Savicheva, A.", "Suetov, A.")
    assert got.title == "Infection of the invented retina by chlamydia"


def test_a_quoted_title_without_a_stop_inside_its_quotes_is_read() -> None:
    got = parse_reference_string("2017. “Sanitation and Invented Water for All” (March).")
    assert got.title == "Sanitation and Invented Water for All"
    # a quoted phrase inside a title is no title of its own
    inner = parse_reference_string(
        "Rodgers GE (2013) A visually attractive “invented network of ideas” for teaching "
        "chemistry. J Invented Chem"
    )
    assert inner.title is not None and inner.title.startswith("A visually attractive")


def test_a_nickname_in_quotes_is_no_title() -> None:
    got = parse_reference_string(
        "[1] R.M. Islam, W. “Bill” King, Journal of Invented Testing 43 (2014) 20140014."
    )
    assert got.title != "Bill"


def test_a_nickname_closing_an_acs_author_list_is_no_title() -> None:
    """ACS parts its names by semicolons and prints no title in quotes: "King, W. “Bill.”"
    closing the list is a nickname (the old code compared "Bill." as the title and made
    the real reference partial); IEEE's quoted title after a comma is still read."""
    got = parse_reference_string(
        "(1) Islam, R. M.; Wasiuddin, N. M.; King, W. “Bill.” Journal of Invented Testing "
        "2014, 43, 20140014."
    )
    assert got.title is None
    ieee = parse_reference_string("[1] W. King, “Editorial,” Invented Review, vol. 4, 2014.")
    assert ieee.title == "Editorial"


def test_a_generic_title_and_a_venue_without_a_year_name_no_one_work() -> None:
    editorial = WorkRecord(
        source="crossref",
        doi="10.5555/invented.editorial",
        title="Editorial",
        year=2019,
        venue="Invented Nature Letters",
    )
    assert score(
        parse_reference_string("Editorial. (n.d.). Invented Nature Letters."), editorial
    ).fit != ("match")


def test_an_aip_list_number_before_names_written_out_leaves_them_names() -> None:
    """AIP's bare list number ("1 Seung Hong Lee, ...") stays in the entry's text: the names
    after it are still no title the record lacks (the old code called the entry partial,
    "the title differs", on the work it cites)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.vcr",
        title="Development of an invented tape recorder",
        year=2003,
        venue="Invented Transactions on Consumer Devices",
        volume="49",
        pages="1114-1117",
    )
    text = (
        "1 Seung Hong Lee, Hyung Nam Kim, Young Soon Park, and Yunmo Chung, Invented "
        "Transactions on Consumer Devices 49, 1114 (2003)."
    )
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    # a title of its own among them is still a title the record does not have
    titled = text.replace("Chung, ", "Chung, Grazing invented goats on terraced vineyards, ")
    assert score(parse_reference_string(titled), record).fit != "match"


@pytest.mark.parametrize(
    ("text", "venue", "volume"),
    [
        (
            "Q P. Harnetty, The Invented Histo ry Review24, 414 (1971).",
            "The Invented History Review",
            "24",
        ),
        ("F J. Zha a nd Z.Li, To urism Inventions 23, 414 (1971).", "Tourism Inventions", "23"),
        (
            "FromKtheOtherSide. (1971). The InventedHistory, 24(6), 414–420.",
            "The Invented History",
            "24",
        ),
    ],
)
def test_authors_and_venue_read_as_a_title_are_no_title_that_differs(
    text: str, venue: str, volume: str
) -> None:
    """OCR noise made the reader take the authors and the venue for a title: its words are
    the record's authors and venue, and the rest of the string is the record's too (its title
    glued: "FromKtheOtherSide"), so no title differs and ECitMatch's key decides (the old
    code called each entry partial on the work it cites)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.cotton",
        title="From the other side" if "From" in text else "Cotton exports and agriculture",
        authors=("Harnetty, Peter", "Zha, Jianping", "Li, Zhiyong"),
        year=1971,
        venue=venue,
        volume=volume,
        pages="414-420",
    )
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", [(f.field, f.stated, f.agreement) for f in got.fields]


def test_a_title_another_works_venue_and_numbers_are_printed_beside_stays_a_lead() -> None:
    """The words of a real title are no venue's: a chimera's title with the record's venue
    and numbers is still partial."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.cotton2",
        title="Cotton exports and invented agriculture",
        authors=("Harnetty, Peter",),
        year=1971,
        venue="The Invented History Review",
        volume="24",
        pages="414-420",
    )
    text = (
        "Harnetty, P. (1971). Grazing invented goats on terraced vineyards. The Invented "
        "History Review, 24, 414–420."
    )
    assert score(parse_reference_string(text), record).fit == "partial"


def test_the_title_and_ecitmatchs_key_agreeing_outweigh_a_misprinted_first_author() -> None:
    """ "Dy er" for Dyer, "Schonnhaged" for Schoenhagen: the title, the venue, the year, the
    volume and the first page all agree (the old code called each entry partial, "the
    authors differ", on the work it cites)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.green",
        title="Why are invented agroecosystems green?",
        authors=("Schoenhagen, Paul",),
        year=2007,
        venue="Invented Ecology",
        volume="88",
        pages="1606-1607",
    )
    text = (
        "Schonnhaged, P. (2007). Why are invented agroecosystems green? Invented Ecology, "
        "88(6), 1606–1607."
    )
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    # another page: the author's difference stands
    assert score(parse_reference_string(text.replace("1606–1607", "16–17")), record).fit != (
        "match"
    )


def test_an_erratum_printed_before_a_quoted_title_still_cites_the_notice() -> None:
    """The reader takes the quoted title of 'Erratum: “...” (venue, year, volume, pages)';
    the entry still cites the erratum, not the article whose coordinates it prints (the new
    rule that lets the title and ECitMatch's key outweigh the author would otherwise have
    verified the article)."""
    article = WorkRecord(
        source="crossref",
        doi="10.5555/invented.transform",
        title="Accurate transform inversion in invented heterogeneous media",
        authors=("Gordon, P. F.",),
        year=1977,
        venue="Journal of Invented Mechanics",
        volume="44",
        pages="352-354",
    )
    text = (
        "Armelao L, Barreca D. Erratum: “Accurate transform inversion in invented "
        "heterogeneous media” (Journal of Invented Mechanics, 1977, 44, pp. 352–354). Invented "
        "Physics IV. 2001;11:437-444."
    )
    got = score(parse_reference_string(text), article)
    assert got.fit == "other" and got.note, got.decided_by


def test_names_and_a_venue_read_as_a_title_leave_a_title_printed_before_them() -> None:
    """ "cost acsounting [n]. (2010). Venue, 196–196.": the reader took the venue for the
    title; the entry's own title ("cost acsounting", no field of this record) still differs
    from the record's, so the record at the same page is no match."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.estimate",
        title="cost estimate [n]",
        year=2010,
        venue="Invented Dictionary of Landscape and Urban Planning",
        pages="196-196",
    )
    text = (
        "cost acsounting [n]. (2010). Invented Dictionary of Pandscape aod UrbanPlanning, 196–196."
    )
    assert score(parse_reference_string(text), record).fit != "match"


def test_a_number_before_the_year_after_a_bracketed_marker_is_a_volume_without_a_page() -> None:
    """Elsevier's numbered style prints a volume without its page as "Venue 89 (2014).",
    exactly as AIP prints a page without a volume; its "[1]" marker tells them apart.  A
    volume and a year name no article, so finding none is no evidence (the old code called
    such entries not found)."""
    elsevier = "[1] A. Ghosh, Invented Review D 89 (2014)."
    aip = "1 A. Ghosh, Invented Review D 89 (2014)."
    assert page_by_year(elsevier.removeprefix("[1] "), bracketed=True) is None
    assert page_by_year(elsevier) == "89"
    stated = parse_reference_string(elsevier)
    assert stated.marker == "[1]"
    assert not prints_identity(stated)
    assert decide(stated, [], _answered(ELSEWHERE)).verdict == "unchecked"
    assert prints_identity(parse_reference_string(aip))
    assert decide(parse_reference_string(aip), [], _answered(ELSEWHERE)).verdict == "not_found"
    # Elsevier's page without a volume stays a page: "Venue (2014) 89."
    assert prints_identity(parse_reference_string("[1] A. Ghosh, Invented Review D (2014) 89."))


def test_a_list_keeps_each_entrys_marker() -> None:
    entries = read_list(
        "[1] A. Ghosh, Invented Review D 89 (2014).\n[2] B. Lund, Invented Review D 90 (2015).\n"
    )
    assert [e.marker for e in entries] == ["[1]", "[2]"]
    assert not any(prints_identity(e) for e in entries)


def test_a_scrambled_title_with_its_author_and_venue_and_no_year_on_either_side_verifies() -> None:
    """A conference paper's record without a year, cited without one, its title's words
    scrambled by extraction: the first author and the venue decide with the title's words,
    as the year would (the old code asked for a year neither side has, and the entry was
    not found)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.solder",
        title="Analyzing the mechanical strength of invented solder joints",
        authors=("Chen, W.",),
        venue="Proceedings. Seventh Invented Manufacturing Symposium",
    )
    text = (
        "Chen, W.. Analyzing mechanical of the joints invented strength solder. Proceedings. "
        "Seventh Invented Manufacturing Symposium. . . ."
    )
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "verified", got.reason
    # a year on one side only is no agreement: too close to accuse, not verified
    dated = parse_reference_string(text.replace(". . . .", ". 1999. . ."))
    assert decide(dated, [], _answered(record)).verdict == "unchecked"


def test_a_record_with_the_titles_words_and_nothing_else_is_too_close_to_accuse() -> None:
    """ ". 4.3. mortality myocardial acute In-hospital infarction following.": the record has
    the same title's words, and neither side has an author, venue or year to compare: not
    a match, but never not found (the old code called it not found)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.mortality",
        title="4.3. In-hospital mortality following acute invented infarction",
    )
    text = ". 4.3. mortality invented acute In-hospital infarction following. . . . ."
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "unchecked", got.reason


def test_a_generic_title_alone_agreeing_is_no_reason_to_withhold_not_found() -> None:
    """Another book's "Index" with no year, venue or pages to compare: its title agreeing
    says nothing, so the entry, which prints its pages, can still be not found."""
    index = WorkRecord(source="crossref", doi="10.5555/invented.index", title="Index")
    text = "“Index.” 2008. Invented Obstetric Dermatology: 391–406."
    got = decide(parse_reference_string(text), [], _answered(index))
    assert got.verdict == "not_found", got.reason


def test_a_long_author_list_leaves_the_venue_and_numbers_in_the_query() -> None:
    """Forty authors written out fill the query's 500 characters; the old code cut the
    string's end, so the search asked for names alone and the work was not found."""
    names = ", ".join(f"{chr(65 + n % 26)}. Invented{n}" for n in range(40))
    text = f"[1] H. Kilpinen, {names}, Invented Nature 546 (2017) 686."
    query = bibliographic_string(parse_reference_string(text))
    assert len(query) <= MAX_QUERY
    assert query.startswith("H. Kilpinen, A. Invented0")
    assert query.endswith("Invented Nature 546 (2017) 686.")
    short = "Okoro TY, Vance NH (1983) Tidal loads on invented piers. Wiley, Leeds"
    assert bibliographic_string(parse_reference_string(short)) == short


def test_names_and_a_year_are_not_too_close_to_an_entry_that_prints_a_key() -> None:
    """A data set's record by a Wang of the next year, holding no volume or pages, against
    an entry that prints its venue's volume and page: the names and the year are many
    works', so the entry can be not found (the old code left it unchecked, "too close to
    accuse")."""
    dataset = WorkRecord(
        source="crossref",
        doi="10.5555/invented.crystal",
        title="Crystal structure of an invented kinetochore protein",
        authors=("Wang, Li", "Shao, Min", "Zhang, Wei"),
        year=2017,
    )
    text = "1 X. Wang, Y. Zhang, and J. Zhao, Invented Computational Letters 13, 1253 (2016)."
    got = decide(parse_reference_string(text), [], _answered(dataset))
    assert got.verdict == "not_found", got.reason
    # an entry printing no numbers stays too close to accuse
    bare = "1 X. Wang, Y. Zhang, and J. Zhao, Invented Computational Letters (2016)."
    assert decide(parse_reference_string(bare), [], _answered(dataset)).verdict == "unchecked"


def test_a_scrambled_title_and_its_year_identify_a_record_that_holds_nothing_else() -> None:
    """A report's record holds a title and a year alone: its informative title's words in
    another order and the year are all there is to compare, and they agree (the old code
    left the entry unchecked)."""
    report = WorkRecord(
        source="crossref",
        doi="10.5555/invented.crisis",
        title="Potentiating invented health and the immune system in crisis",
        year=1997,
    )
    text = ". Potentiating immune the invented of crisis health the system and. . 1997. . ."
    assert score(parse_reference_string(text), report).fit == "match"
    # another year is not enough
    assert score(parse_reference_string(text.replace("1997", "1985")), report).fit != "match"


@pytest.mark.parametrize(
    "text",
    [
        "1III-Vs jnvented Keview 6, 59 (1993).",  # OCR: two letters of the venue wrong
        "1 L.S paiS, ArtoJournal 58,84 (1999).",  # the words of an invented venue glued
    ],
)
def test_the_year_volume_and_page_agreeing_read_a_garbled_venue_more_loosely(text: str) -> None:
    """ECitMatch's key with its venue garbled by OCR: the year, the volume and the first
    page agree and the venue is in the string once its spaces are gone, a letter in five
    wrong at most (the old code called each entry not found)."""
    venue = "III-Vs Invented Review" if "III" in text else "Arto Journal"
    volume, page, year = ("6", "59", 1993) if "III" in text else ("58", "84", 1999)
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.gaas",
        title="Gallium arsenide for invented optoelectronics",
        year=year,
        venue=venue,
        volume=volume,
        pages=page,
    )
    assert score(parse_reference_string(text), record).fit == "match"
    # another page: no key
    other = text.replace(f"{page} (", "91 (").replace(f",{page} (", ",91 (")
    assert score(parse_reference_string(other), record).fit != "match"


def test_a_cover_page_is_a_generic_title() -> None:
    """Every issue has an "Inside front cover": that title and a year name no one work (the
    old code verified the entry by another journal's cover of the same year)."""
    cover = WorkRecord(
        source="crossref",
        doi="10.5555/invented.cover",
        title="Inside front cover",
        year=2016,
        venue="Invented Chemistry Reviews",
        volume="45",
        pages="1",
    )
    text = (
        "[1]“Inside front cover,” Invented Aerospace Magazine, vol. 31, no. 5, pp. c2–c2, May 2016."
    )
    assert score(parse_reference_string(text), cover).fit != "match"


@pytest.mark.parametrize(
    "title", ["Letters to the Editor", "Correspondence", "Besprechungen", "Comptes rendus"]
)
def test_a_column_s_heading_is_a_generic_title(title: str) -> None:
    """A journal's letters, reviews and notes columns are titled alike in every issue, in
    the plural and in other languages: such a title and a year name no one work (the old
    code verified an entry by another journal's "Letters to the Editor" of the year before,
    its volume and pages differing)."""
    column = WorkRecord(
        source="crossref",
        doi="10.5555/invented.column",
        title=title,
        year=1993,
        venue="Invented Anthropology Newsletter",
        volume="15",
        pages="3-9",
    )
    text = f"Sharma KK, Wanklyn BM. {title}. Invented Surface Science. 1994;81(2):251-258."
    assert score(parse_reference_string(text), column).fit != "match"


def test_a_vancouver_venue_before_the_year_alone_is_read() -> None:
    """An article online before its volume: "Names. Title. Venue. 2018." reads the venue,
    and a one-word title before it is read too (it had been left unread)."""
    got = parse_reference_string("Hu QL, Torres MN. Papoose. Invented Action Research. 2018.")
    assert (got.title, got.venue, got.year) == ("Papoose", "Invented Action Research", 2018)


_BOOK = WorkRecord(
    source="crossref",
    doi="10.5555/invented.treaty",
    title="Monitoring the Invented Test-Ban Treaty",
    authors=("Ringdal, Frode",),
    year=2001,
    venue="Monitoring the Invented Test-Ban Treaty: Sourse Location",
    pages="1-2",
)
_LEXICON_ENTRY = WorkRecord(
    source="crossref",
    doi="10.5555/invented.kosmetik",
    title="Kosmetik",
    authors=("Bährle-Rapp, Marina",),
    year=2007,
    venue="Springer Lexikon Invented Kosmetik und Körperpflege",
    pages="300",
)


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        # the book's title is the entry's venue before its subtitle
        (
            "Ringdal, Frode (2001). Towards longitudinal catalytic for optical kinetic and "
            "quantum latent. Monitoring the Invented Test-Ban Treaty: Sourse Location, 1–2.",
            _BOOK,
        ),
        # a short record title inside the entry's venue
        (
            "Bährle-Rapp, Marina (2007). Towards neural protein for latent seasonal and genomic "
            "lattice. Springer Lexikon Invented Kosmetik und Körperpflege, 536–536.",
            _LEXICON_ENTRY,
        ),
    ],
)
def test_a_record_titled_as_the_venue_an_invented_title_is_given_in_is_not_the_work(
    text: str, whole: WorkRecord
) -> None:
    """The book or the dictionary an invented chapter is given in: its title is printed
    where the entry's venue goes, so it is not "this title" (the old code verified each
    entry as that record)."""
    got = score(parse_reference_string(text), whole)
    assert got.fit != "match", [(f.field, f.agreement) for f in got.fields]


@pytest.mark.parametrize(
    ("text", "pages"),
    [
        ("(1) Journal of the Invented Society of Engineers 1921, 24, App4.", "App4"),
        ("1Journal of the Invented Dietetic Association 24, RF5 (1921).", "RF5-RF7"),
        ("1 A. Fournier, Journal of the Invented Society of Engineers 24, 90a (1921).", "90a"),
        ("[1]Journal of the Invented Society of Engineers 24 (1921) 19A.", "19A"),
        (
            "1 Y. Katanami, Journal of the Invented Society of Engineers 24, S168R(1921).",
            "S168-S169",
        ),
        # J-STAGE numbers a journal's notices and covers with a word
        ("(1) Journal of the Invented Society of Engineers 1921, 24, Announce11.", "Announce11"),
        ("[1]Journal of the Invented Society of Engineers 24 (1921) Cover3.", "Cover3"),
        ("Journal of the Invented Society of Engineers, 24(Special), Cover3.", "Cover3"),
    ],
)
def test_pages_with_letters_are_read_and_compared(text: str, pages: str) -> None:
    """An appendix's "App4", a cover's "RF5", a half page's "90a", OCR's "S168R", a notice's
    "Announce11": the first page is read where the style puts it and compared whole (the
    old code read a single letter before the digits only, and no word, so each key was
    incomplete and the untitled record was no evidence either way: `unavailable`)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.app4",
        title=None,
        year=1921,
        venue="Journal of the Invented Society of Engineers"
        if "Society" in text
        else "Journal of the Invented Dietetic Association",
        volume="24",
        pages=pages,
    )
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "verified", got.reason
    # another page with letters is another work
    other = record.model_copy(update={"pages": "App9"})
    assert decide(parse_reference_string(text), [], _answered(other)).verdict != "verified"


@pytest.mark.parametrize(
    "text",
    [
        "1Invented Notes and Queries s9-VII, 347 (1901).",
        "[1]Invented Notes and Queries s9-VII (1901) 347.",
        "(1) Invented Notes and Queries 1901, s9-VII, 347–347.",
    ],
)
def test_a_volume_of_a_numbered_series_is_compared(text: str) -> None:
    """Notes and Queries numbers its volumes by series ("s9-VII", ninth series, volume 7,
    which Crossref writes with an en dash): the volume agrees, and with the venue, the year
    and the page it names the article (the old code called the volume not printed, and the
    entry too close to accuse)."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.moore",
        title="Invented Moore manuscripts",
        year=1901,
        venue="Invented Notes and Queries",
        volume="s9–VII",
        pages="347-348",
    )
    got = score(parse_reference_string(text), record)
    assert got.field("volume").agreement == "agrees"
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    other = record.model_copy(update={"volume": "s9-VIII"})
    assert score(parse_reference_string(text), other).fit != "match"


def test_a_books_year_and_first_page_name_its_chapter_whatever_the_author() -> None:
    """A chapter's record has no volume: the book, the year and the first page name it as a
    journal's volume and page name an article, so OCR's "M. MYhe" for Mohe does not make the
    entry not found (the old code asked for the author too)."""
    chapter = WorkRecord(
        source="crossref",
        doi="10.5555/invented.meta",
        title="Invented meta-consulting",
        authors=("Mohe, Michael",),
        year=2015,
        venue="Invented Beratungskonzepte",
        pages="285-311",
    )
    text = "1 M. MYhe, In vented Beratungskonzepte 285 (2015)."
    assert score(parse_reference_string(text), chapter).fit == "match"
    assert score(parse_reference_string(text.replace("285", "286")), chapter).fit != "match"


@pytest.mark.parametrize(
    ("text", "record"),
    [
        # a chapter: no volume, the book's title garbled
        (
            "1 P. Pruzan, RQesearch Meqhods 175(2016).",
            WorkRecord(
                source="crossref",
                doi="10.5555/invented.pruzan",
                title="Invented research design",
                authors=("Pruzan, Peter",),
                year=2016,
                venue="Research Methods",
                pages="175-205",
            ),
        ),
        # the year garbled too: the first author stands in for it
        (
            "1 Y. Russell, Pprt and CriIique 24, 255 (20N3).",
            WorkRecord(
                source="crossref",
                doi="10.5555/invented.russell",
                title="Invented bodies of law",
                authors=("Russell, Yvette",),
                year=2013,
                venue="Tort and Critique",
                volume="24",
                pages="255-275",
            ),
        ),
    ],
)
def test_a_garbled_venue_is_read_for_a_chapter_and_beside_a_garbled_year(
    text: str, record: WorkRecord
) -> None:
    """The loose reading of a venue OCR garbled, for a chapter (its record has no volume)
    and where the year is garbled as well, the first author agreeing (the old code left
    both entries unchecked)."""
    assert score(parse_reference_string(text), record).fit == "match"
    stranger = record.model_copy(update={"authors": ("Okonkwo, Ada",)})
    assert score(parse_reference_string(text), stranger).fit != "match"


@pytest.mark.parametrize(
    "text",
    [
        "[1] D.A. Okoro, N.J. Vance, Invented Infectious Diseases (2016) ciw420.",
        "[1] C.D. van Strien, Invented Travellers in Holland (n.d.) IL1.",
        "Van Strien, C.D., Illustrations. Invented Travellers in Holland, pp.IL1–IL15.",
    ],
)
def test_a_page_with_letters_beside_the_year_or_labelled_prints_an_identity(text: str) -> None:
    """An article number ("ciw420") or a plate page ("IL1") where the style puts the page:
    the entry prints an identity, so no record matching it is a lead (the old code read one
    letter before a page's digits only, and called these entries too thin to accuse)."""
    assert prints_identity(parse_reference_string(text))


@pytest.mark.parametrize(
    ("text", "title", "venue"),
    [
        (
            "Editorial Board. (2001). Invented Limnologica, 31(1), CO2.",
            "Editorial Board",
            "Invented Limnologica",
        ),
        (
            "Inhalt. (2013). Geschichte in Invented Köln, 60(1).",
            "Inhalt",
            "Geschichte in Invented Köln",
        ),
        ("Masthead. (1913). Invented Revue, 20(6), fmi–fmi.", "Masthead", "Invented Revue"),
    ],
)
def test_an_apa_entry_with_only_a_venue_after_its_year_opens_with_its_title(
    text: str, title: str, venue: str
) -> None:
    """APA prints a work without an author as "Title. (Year). Venue, volume(issue), page.":
    with nothing but a venue and its numbers after the year, what stands before it is the
    title, not a group author (the old code read the venue as the title, so a generic
    "Editorial Board" printed an informative title and was accused when not found)."""
    got = parse_reference_string(text)
    assert (got.title, got.venue, got.authors) == (title, venue, ())


def test_a_venue_whose_words_extraction_glued_is_the_same_venue() -> None:
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.edge",
        title="From the other side",
        year=1998,
        venue="The Invented Leading Edge",
        volume="17",
        pages="740-740",
    )
    text = "Okoro, T. (1998). From the other side. The InventedLeadingEdge, 17(6), 740–740."
    assert score(parse_reference_string(text), record).field("venue").agreement == "agrees"
    other = record.model_copy(update={"venue": "The Invented Trailing Edge"})
    assert score(parse_reference_string(text), other).field("venue").agreement == "differs"


AGRICULTURE = WorkRecord(
    source="crossref",
    doi="10.5555/invented.agri",
    title="Invented farmers adopt new irrigation techniques",
    authors=("Dillon, Joe", "Edinger-Marshall, Susan", "Letey, John"),
    year=1999,
    venue="Invented Agriculture Quarterly",
    volume="53",
    pages="24-31",
)


@pytest.mark.parametrize(
    ("text", "record"),
    [
        (
            "1 J. Dillon, S. Edinger-Marshall, andqJ. Letey, Inv ented Ag ricul ture Quar terly "
            "53, 24(1999).",
            AGRICULTURE,
        ),
        (
            "1 L. Hunt, P. Fleming, and the ALSPqC Study Team, Invented PEDvAtrics Re ports "
            "100, e11 (1997).",
            WorkRecord(
                source="crossref",
                doi="10.5555/invented.peds",
                title="Does the supine position harm invented infants",
                year=1997,
                venue="Invented Pediatrics Reports",
                volume="100",
                pages="e11",
            ),
        ),
    ],
)
def test_a_venue_ocr_split_into_pieces_is_no_title(text: str, record: WorkRecord) -> None:
    """OCR split the venue's words ("Ag ricul ture" for Agriculture): each piece is too
    short to be found in the record alone, joined to its neighbours it is the record's word.
    The old code counted each piece as a word of a title the record lacks, so the entry was
    `partial` on its own work (title differs) with every number agreeing."""
    got = score(parse_reference_string(text), record)
    assert got.fit == "match", [(f.field, f.agreement) for f in got.fields]
    assert got.field("title").agreement == "not_stated"


def test_a_title_in_pieces_that_are_no_field_s_words_still_differs() -> None:
    """Pieces joined only where the join is the record's word: a title the record lacks,
    printed in pieces, is still a title that differs."""
    text = (
        "1 J. Dillon, S. Edinger-Marshall, and J. Letey, Ha rbour tid es and moo rings of "
        "lak es, Invented Agriculture Quarterly 53, 24(1999)."
    )
    got = score(parse_reference_string(text), AGRICULTURE)
    assert got.fit == "partial", [(f.field, f.agreement) for f in got.fields]
    assert got.field("title").agreement == "differs"


def test_a_collaboration_s_venue_and_numbers_after_its_authors_are_compared() -> None:
    """Three hundred authors written out fill the 2,000 characters that are compared; the
    venue, volume, year and page follow them. The old code compared the start alone, so
    the venue printed at the end went uncompared (on a real ZEUS entry only the names and
    the year agreed, and it was `unchecked`: "too little to tell"); the start and the end
    are compared now."""
    names = [f"{chr(65 + n % 26)}. Invented{n}" for n in range(300)]
    text = f"[1] S. Chekanov, {', '.join(names)}, Invented Nuclear Physics B 831 (2010) 1."
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.zeus",
        title="Invented measurement of charm production at an invented collider",
        authors=("Chekanov, S.", *(f"Invented{n}, {chr(65 + n % 26)}." for n in range(99))),
        year=2010,
        venue="Invented Nuclear Physics B",
        volume="831",
        pages="1-31",
    )
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "verified", got.reason
    assert got.work is not None
    assert {"venue", "volume", "pages"} <= set(got.work.decided_by), got.work.decided_by


REFRIGERATION = WorkRecord(
    source="crossref",
    doi="10.5555/invented.refrigeration",
    title="Invented refrigerant prices for the coming winter",
    year=1989,
    venue="Invented Journal of Refrigeration",
    volume="12",
    pages="237",
)


@pytest.mark.parametrize(
    ("text", "record"),
    [
        ("[1] BOC Limited, Invented Journal of Refrigeration 12 (1989) 237.", REFRIGERATION),
        (
            "[1] 김일환, Invented Review of Korean Cultural Studies 49 (2015) 249.",
            WorkRecord(
                source="crossref",
                doi="10.5555/invented.korean",
                title="An invented study of village rites",
                authors=("Kim, Il-hwan",),
                year=2015,
                venue="Invented Review of Korean Cultural Studies",
                volume="49",
                pages="249-280",
            ),
        ),
    ],
)
def test_a_group_author_where_the_authors_go_is_no_title(text: str, record: WorkRecord) -> None:
    """Elsevier's numbered style prints no title: a group author ("BOC Limited") or a name
    in another script before the venue stands where the authors go. The old code read it,
    with the venue, as a title, and the entry was `partial` on its own work with the
    venue, volume, year and page agreeing."""
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "verified", got.reason


@pytest.mark.parametrize(
    ("text", "record"),
    [
        # a record that lists its authors can contradict a segment in Latin letters
        (
            "[1] Frozen Cargo, Invented Journal of Refrigeration 12 (1989) 237.",
            REFRIGERATION.model_copy(update={"authors": ("Okoro, Tunde",)}),
        ),
        # five words are a title, not a group author
        (
            "[1] Cold stores of invented ports, Invented Journal of Refrigeration 12 (1989) 237.",
            REFRIGERATION,
        ),
    ],
)
def test_a_title_where_the_authors_go_still_differs(text: str, record: WorkRecord) -> None:
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "partial", got.reason


def test_a_venue_without_a_letter_names_no_venue() -> None:
    """A record holding a year where its venue goes ("1964") agreed with every entry that
    prints the year, so an entry no database holds was "too close" to that map to accuse
    (the old code said `unchecked`); it names no venue, and the entry is not found."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.map",
        title="Invented gravity map of an invented county",
        year=1964,
        venue="1964",
    )
    text = "[1] A.O. Phinney, P.V. Stoughton, C.E. McLean, Invented Angiology 15 (1964) 485."
    assert score(parse_reference_string(text), record).field("venue").agreement != "agrees"
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "not_found", got.reason


def test_a_group_author_closing_the_author_list_is_no_title() -> None:
    """A group closing an author list ("and the Avon Longitudinal Study Team"), which the
    record, listing no one, does not hold. The old code counted its four words as a title
    the record lacks (`partial` on its own work, every number agreeing)."""
    text = (
        "1 L. Hunt, P. Fleming, J. Golding, and the Avon Longitudinal Study Team, "
        "Invented Pediatrics Digest 100, e11 (1997)."
    )
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.supine",
        title="Does the supine position harm invented infants",
        year=1997,
        venue="Invented Pediatrics Digest",
        volume="100",
        pages="e11",
    )
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "verified", got.reason


GENETICS = WorkRecord(
    source="crossref",
    doi="10.5555/invented.genetics",
    title="Invented hearing loss in an invented village",
    authors=("Okoro, Tunde", "Lund, Berit"),
    year=2017,
    venue="Genetikainvent",
    volume="53",
    pages="88-99",
)


def test_a_key_without_its_volume_names_the_work_with_its_author_venue_and_year() -> None:
    """ACS printed without the volume ("Генетика 2017, 88–99."): the first author, the
    venue, the year and the first page all agree. The old code wanted the volume (or a
    venue of two words or more) and called the entry "too little to tell" (`unchecked`)."""
    text = "(1) Okoro, T.; Lund, B. Genetikainvent 2017, 88–99."
    got = decide(parse_reference_string(text), [], _answered(GENETICS))
    assert got.verdict == "verified", got.reason
    # another first author on the same venue, year and pages is not this work
    other = "(1) Vance, N.; Lund, B. Genetikainvent 2017, 88–99."
    assert decide(parse_reference_string(other), [], _answered(GENETICS)).verdict != "verified"


def test_given_names_with_particles_are_read_and_the_title_after_them_compared() -> None:
    """Given names written out carry particles ("Almeida, Renata Rodrigues de", "Filsner,
    Pedro Henrique Nogueira de Lima"). The old reader took no author and no title from such
    a list, so a chimera of another paper's short title on this work's numbers was verified
    on the numbers; the title is read and differs now."""
    text = (
        "Ferreira, Thais Sebastiana, Almeida, Renata Rodrigues de, Filsner, Pedro Henrique "
        "Nogueira de Lima, & Moreno, Marina (2012). Invented earthing and bonding. "
        "Invented Rural Science, 42(8), 1450–1456."
    )
    stated = parse_reference_string(text)
    assert stated.title == "Invented earthing and bonding"
    assert stated.authors[1:3] == (
        "Almeida, Renata Rodrigues de",
        "Filsner, Pedro Henrique Nogueira de Lima",
    )
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.rural",
        title="Invented pig welfare on invented farms",
        authors=("Ferreira, Thais Sebastiana", "Almeida, Renata Rodrigues de"),
        year=2012,
        venue="Invented Rural Science",
        volume="42",
        pages="1450-1456",
    )
    assert decide(stated, [], _answered(record)).verdict == "partial"


def test_a_vancouver_title_with_a_short_first_sentence_is_read_up_to_the_venue() -> None:
    """The title "Hinduism. II: Popular Hinduism." opens with a sentence of one word, too
    short to be a title alone: the old reader read nothing from the entry, and a chimera
    of that title on another article's authors and numbers was verified on the numbers.
    All before the venue (the last sentence before "2015;769:37-43") is the title now."""
    text = (
        "Sweany M, Brennan J, Reyna D. Hinduism. II: Popular Hinduism. Invented Instruments "
        "and Methods A: Invented Detectors. 2015;769:37-43."
    )
    stated = parse_reference_string(text)
    assert stated.title == "Hinduism. II: Popular Hinduism"
    assert stated.venue == "Invented Instruments and Methods A: Invented Detectors"
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.detector",
        title="An invented neutron detector for invented reactors",
        authors=("Sweany, M.", "Brennan, J."),
        year=2015,
        venue="Invented Instruments and Methods A: Invented Detectors",
        volume="769",
        pages="37-43",
    )
    assert decide(stated, [], _answered(record)).verdict == "partial"


def test_a_vancouver_title_of_one_word_before_the_venue_is_read() -> None:
    """ "Names. Word. Venue. year;volume:pages": the word is the title.  The old reader read
    none, and a chimera of a one-word title ("Interviews") on another article's authors,
    venue and numbers was verified on the numbers."""
    stated = parse_reference_string("Boyton RJ. Interviews. Invented Thorax. 2003;58(8):721-725.")
    assert stated.title == "Interviews"
    assert stated.venue == "Invented Thorax"
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.thorax",
        title="Invented mycobacterial antigens in the lung",
        authors=("Boyton, R. J.",),
        year=2003,
        venue="Invented Thorax",
        volume="58",
        pages="721-725",
    )
    assert decide(stated, [], _answered(record)).verdict == "partial"


def test_a_vancouver_chapter_s_one_word_title_before_its_book_and_pages_is_read() -> None:
    """ "Names. Word. Book. year:pages" (a chapter, no volume): the old reader looked for
    the venue only before "year;", read no title, and a chimera's one-word title on a real
    chapter's author, book, year and pages was verified."""
    text = "Quaid KA. Ureterosigmoidostomy. Invented Genetic Pathology. 2008:731-736."
    stated = parse_reference_string(text)
    assert (stated.title, stated.venue) == ("Ureterosigmoidostomy", "Invented Genetic Pathology")
    chapter = WorkRecord(
        source="crossref",
        doi="10.5555/invented.chapter.30",
        title="Invented legal issues in molecular testing",
        authors=("Quaid, Kimberly A.",),
        year=2008,
        venue="Invented Genetic Pathology",
        pages="731-736",
        kind="book-chapter",
    )
    assert decide(stated, [], _answered(chapter)).verdict == "partial"
    real = text.replace("Ureterosigmoidostomy", "Invented legal issues in molecular testing")
    assert decide(parse_reference_string(real), [], _answered(chapter)).verdict == "verified"


def test_a_venue_a_full_stop_splits_is_no_one_word_title() -> None:
    """ "Lancet. Oncol.": the word read as a title is a word of the record's venue, so no
    title differs and the real reference verifies on its numbers."""
    stated = parse_reference_string("Smith J. Lancet. Oncol. 2001;2:101-105.")
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.oncology",
        title="Invented trials of an invented drug",
        authors=("Smith, John",),
        year=2001,
        venue="The Lancet Oncology",
        volume="2",
        pages="101-105",
    )
    assert score(stated, record).field("title").agreement == "not_stated"
    assert decide(stated, [], _answered(record)).verdict == "verified"


#: A journal's own record, titled by nothing, in a journal whose name holds most of the
#: entry's venue words but is another journal's.
UNTITLED_JOURNAL = WorkRecord(
    source="crossref",
    doi="10.5555/invented.journal-record",
    title=None,
    authors=(),
    year=2008,
    venue="International Journal of Invented Adaptive, Resilient and Autonomic Systems",
)
CITED_IN_LETTERS = (
    "Okafor, N. (2008). Adaptive thermal lattices in seasonal kinetics. Journal of Invented "
    "Adaptive Letters, 4, 10–19."
)


@pytest.mark.parametrize("authors", [(), ("Berg, Mats",)])
def test_an_untitled_hit_whose_venue_agrees_only_in_part_is_another_work(
    authors: tuple[str, ...],
) -> None:
    """The venue comparison lets a venue inside a longer one agree (0.875 here, below
    `UNTITLED_VENUE_SAME`); with no author to agree, that is another journal, and a
    fabricated entry is shown absent (the old code made it ``unavailable``)."""
    record = UNTITLED_JOURNAL.model_copy(update={"authors": authors})
    stated = parse_reference_string(CITED_IN_LETTERS)
    got = decide(stated, [], _answered(record))
    assert got.verdict == "not_found", got.reason


def test_an_untitled_hit_whose_venue_agrees_in_part_and_author_agrees_is_still_unavailable() -> (
    None
):
    record = UNTITLED_JOURNAL.model_copy(update={"authors": ("Okafor, Nneka",)})
    stated = parse_reference_string(CITED_IN_LETTERS)
    got = decide(stated, [], _answered(record))
    assert got.verdict == "unavailable", got.reason


def test_no_identity_is_unchecked_whatever_untitled_hits_came_back() -> None:
    """A hit without a title could neither make such an entry found nor its absence a lead:
    the entry is ``unchecked`` (the old code said ``unavailable``, as if asking again could
    settle it)."""
    stated = parse_reference_string("(1) Rosenau, J. N. 1964.")
    assert not prints_identity(stated)
    got = decide(stated, [], _answered(UNTITLED_BARE))
    assert got.verdict == "unchecked", got.reason


def test_a_failed_search_still_makes_an_entry_without_identity_unavailable() -> None:
    stated = parse_reference_string("(1) Rosenau, J. N. 1964.")
    failed = [SearchEvidence("crossref", False, ()), SearchEvidence("openalex", True, ())]
    got = decide(stated, [], failed)
    assert got.verdict == "unavailable", got.reason


# ------------------------------------------------- names in capitals, joined volumes, supplements


@pytest.mark.parametrize(
    ("name", "family"),
    [("B. LI", "li"), ("B LI", "li"), ("J.-Y. KIM", "kim"), ("A. B. WANG", "wang"), ("LI B", "li")],
)
def test_initials_before_a_surname_in_capitals_leave_the_surname(name: str, family: str) -> None:
    """Initials before a surname in capitals: the old reader took "B. LI" for Vancouver's
    surname and initials, the wrong way round, and so the surname "b", no author's."""
    from citeproof.refs.stated import surname

    assert surname(name) == family


def test_a_surname_in_capitals_after_initials_agrees_with_the_record() -> None:
    """The old code called the entry partial: "has this title, but the authors differ"."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.capitals",
        title="Research on the invented tidal market and developing strategies",
        authors=("LI, Bao-ling",),
        year=2016,
        venue="Invented Transactions on Economics and Management",
    )
    stated = parse_reference_string(
        "[1]B. LI, “Research on the Invented Tidal Market and Developing Strategies,” "
        "Invented Transactions on Economics and Management, no. icem, Nov. 2016."
    )
    got = decide(stated, [], _answered(record))
    assert got.verdict == "verified", got.reason


def test_a_volume_that_joins_two_is_printed_by_either_end() -> None:
    """A combined volume ("185-189") printed glued to the venue: the old code read no 185
    and found the volume differing, and the real reference was not_found."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.joined-volume",
        title="Superconductivity of an invented lattice under pressure",
        authors=("Sakai, K.", "Yamada, K."),
        year=1991,
        venue="Invented Physica C: Superconductivity",
        volume="185-189",
        pages="775-776",
    )
    stated = parse_reference_string(
        "1 K.Sakai, K. YamadY, and B. Okai, Invented Physica C: Sup "
        "erconductivity185-189, 775 (1991)."
    )
    assert score(stated, record).field("volume").agreement == "agrees"
    got = decide(stated, [], _answered(record))
    assert got.verdict == "verified", got.reason


def test_a_supplement_page_keeps_its_letters() -> None:
    """Crossref records a supplement's pages "S-802-S-803": the first page is "S-802", and
    the old code took "S", found no page agreeing and left the entry unchecked."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.supplement",
        title="Tu1598 An invented inhibitor of gastric cells",
        authors=("Zou, Xiaoping", "Huang, Shuling"),
        year=2013,
        venue="Invented Gastroenterology",
        volume="144",
        pages="S-802-S-803",
    )
    assert record.first_page == "S-802"
    stated = parse_reference_string(
        "(1) Zou, X.; Huang, S. Invented Gastroenterology 2013, 144, S–802–S–803."
    )
    got = decide(stated, [], _answered(record))
    assert got.verdict == "verified", got.reason
    assert score(stated, record).field("pages").agreement == "agrees"


@pytest.mark.parametrize(
    "text",
    [
        "K C. Brasquetand P. Le Cloirec, Invented Water Rewearch 33, 3603 (1999).",
        "R A. Meyer, B. Hackert, and U. Weger, Invented PYycholog ical Research 82, 245 (2016p.",
    ],
)
def test_a_lone_letter_before_initials_is_no_vancouver_surname(text: str) -> None:
    """AIP's list number misread as a letter ("K" for "1"): the old reader took "K C" for a
    Vancouver name and the rest for a title, and the real reference was partial ("the
    title, authors differ") against its own record."""
    stated = parse_reference_string(text)
    assert stated.title is None
    assert not stated.authors


def test_an_aip_entry_whose_list_number_ocr_made_a_letter_verifies() -> None:
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.brasquet",
        title="Invented organics adsorption onto activated carbon",
        authors=("Brasquet, C.", "Le Cloirec, P."),
        year=1999,
        venue="Invented Water Research",
        volume="33",
        pages="3603-3608",
    )
    stated = parse_reference_string(
        "K C. Brasquetand P. Le Cloirec, Invented Water Rewearch 33, 3603 (1999)."
    )
    got = decide(stated, [], _answered(record))
    assert got.verdict == "verified", got.reason


@pytest.mark.parametrize(
    ("text", "year"),
    [
        # APA's "volume(issue), page": a page of 1554 after it is no year
        ("THE INVESTIGATION OF ZÆNA. (191A). The Invented Lancet, 183(4735),1554.", None),
        # a space before the closing bracket (extraction) leaves the year where APA puts it
        ("DELANY,J. L.(1974 ). A Review of: “Invented Analysis”. Invented Press, 1972.", 1974),
        ("Smith, J. (2019). Invented title. Invented Venue, 12(3), 1554.", 2019),
    ],
)
def test_the_year_is_where_the_style_puts_it_not_a_page_after_the_issue(
    text: str, year: int | None
) -> None:
    from citeproof.refs.numbers import cited_year

    assert cited_year(text) == year


#: A chapter whose short title an extraction ran into its book's.
INTERVIEWS = WorkRecord(
    source="crossref",
    doi="10.5555/invented.interviews",
    title="Interviews",
    authors=("McCuller, Patrick",),
    year=2012,
    venue="How to Recruit and Hire Great Invented Engineers",
    pages="107-138",
)


def test_a_title_run_into_its_venue_is_the_records_title() -> None:
    """The old code compared "Intervi ews.How to Recruit ... Engineers, 107–138" with
    "Interviews" and called the real reference partial ("the title differs")."""
    stated = parse_reference_string(
        "McCuller, P.(2012). Intervi ews.How to Recruit and Hire GrFat Invented Engineers, 107–138."
    )
    assert score(stated, INTERVIEWS).field("title").agreement == "agrees"
    got = decide(stated, [], _answered(INTERVIEWS))
    assert got.verdict == "verified", got.reason


def test_a_title_that_opens_with_a_records_short_title_still_differs() -> None:
    """Other words between the record's title and its venue are another title's."""
    stated = parse_reference_string(
        "McCuller, P. (2012). Interviewing at sea. How to Recruit and Hire Great Invented "
        "Engineers, 107–138."
    )
    assert score(stated, INTERVIEWS).field("title").agreement == "differs"


def test_names_that_begin_with_a_latin_capital_beyond_ascii_are_names() -> None:
    """A collaboration's names past those the record lists ("Łużniak, P.", "Żarnecki,
    A. F.") were words no field accounted for, so the old code read them as a title the
    record lacked and called the real ACS reference partial."""
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.collaboration",
        title="An invented analysis of diffractive data",
        authors=("Chekanov, S.", "Derrick, M.", "Magill, S."),
        year=2010,
        venue="Invented Nuclear Physics B",
        volume="831",
        pages="1-25",
    )
    stated = parse_reference_string(
        "(1) Chekanov, S.; Derrick, M.; Magill, S.; Łukasik, J.; Łużniak, P.; Żarnecki, "
        "A. F.; Ødegård, K. Invented Nuclear Physics B 2010, 831, 1–25."
    )
    assert score(stated, record).field("title").agreement == "not_stated"
    got = decide(stated, [], _answered(record))
    assert got.verdict == "verified", got.reason


def test_a_nickname_in_quotes_before_the_year_is_no_title() -> None:
    """APA prints a nickname in the author list ("King, W. “Bill.” (2014).") as a quoted
    word closing a sentence: the old reader took "Bill" for the title and called the real
    reference partial."""
    text = (
        "Islam, R. M., Ashani, S. S., & King, W. “Bill.” (2014). Effects of curing time on "
        "invented asphalt residue. Invented Journal of Testing, 43(3), 20140014."
    )
    stated = parse_reference_string(text)
    assert stated.title != "Bill"
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.bill",
        title="Effects of curing time on invented asphalt residue",
        authors=("Islam, Readul Mohammad", "Ashani, Saeid Salehi", "King, William"),
        year=2014,
        venue="Invented Journal of Testing",
        volume="43",
        pages="20140014",
    )
    got = decide(stated, [], _answered(record))
    assert got.verdict == "verified", got.reason
    # a one-word title in quotes with no names before it is still a title
    assert parse_reference_string("“Shellfish.” (2016). Invented Encyclopedia.").title == (
        "Shellfish"
    )


def test_a_name_with_a_combining_accent_is_a_name() -> None:
    """Crossref prints "Martı́nez" as a dotless i and a combining acute (LaTeX's \\'{\\i}),
    which no precomposed letter is: the old reader read no Vancouver name, so no title, and
    a chimera's title went uncompared ("verified" on another article's numbers)."""
    text = (
        "Aladro-Lubel MA, Martı́nez-Murillo ME. Experience with invented fuels. Invented "
        "Aquatic Botany. 1999;65(1-4):239-254."
    )
    stated = parse_reference_string(text)
    assert stated.title == "Experience with invented fuels"
    assert stated.authors == ("Aladro-Lubel MA", "Martı́nez-Murillo ME")
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.aquatic",
        title="Invented epiphytes on seagrass leaves",
        authors=("Aladro-Lubel, M.Antonieta", "Martı́nez-Murillo, M.Esther"),
        year=1999,
        venue="Invented Aquatic Botany",
        volume="65",
        pages="239-254",
    )
    assert decide(stated, [], _answered(record)).verdict == "partial"


def test_a_volume_in_roman_numerals_is_the_volume_and_the_year_stays_where_acs_puts_it() -> None:
    """ACS "Venue 1908, LI, 2083.": the old reader saw no volume after the year, took the
    page 2083 for the year and left the real reference unchecked."""
    from citeproof.refs.numbers import cited_year

    text = "(1) Journal of the Invented Medical Association 1908, LI, 2083."
    assert cited_year(text) == 1908
    assert coordinates(text) == ("LI", "2083")
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.jima",
        title="Index-catalogue of an invented library",
        year=1908,
        venue="Journal of the Invented Medical Association",
        volume="LI",
        pages="2083",
    )
    got = decide(parse_reference_string(text), [], _answered(record))
    assert got.verdict == "verified", got.reason


@pytest.mark.parametrize(
    ("text", "value", "printed"),
    [
        ("Preface. In: Invented Book. 2001. pp. xiii–xv.", "xiii", True),
        ("Preface. In: Invented Book. 2001. pp. xiii–xv.", "XIII", True),
        ("Li, X. (2001). Invented title. Invented Venue, 3, 4.", "LI", False),  # a name
        ("Mix, X. (2001). Invented title. Invented Venue, 3, 4.", "MIX", False),
    ],
)
def test_roman_numerals_are_numbers_in_capitals_or_lower_case_never_in_a_name(
    text: str, value: str, printed: bool
) -> None:
    from citeproof.refs.numbers import has_number, number_tokens

    assert has_number(number_tokens(text), value) is printed


def test_a_one_word_author_before_a_venue_and_numbers_is_no_apa_title() -> None:
    """Elsevier's numbered style without titles prints "Name, Venue Volume (Year) Page.";
    with a one-word name (a pseudonym, a body) the old reader took name and venue for an
    APA title without an author, found it differing from the record's title and made a
    real reference ``partial``. APA follows its year with a title or a venue, never with a
    page alone."""
    text = "[1] Quill, Invented Notes and Letters s6-XI (1885) 135."
    stated = parse_reference_string(text)
    assert stated.title is None
    record = WorkRecord(
        source="crossref",
        doi="10.5555/invented.stanza",
        title="A rejected stanza in an invented elegy",
        authors=("Quill",),
        year=1885,
        venue="Invented Notes and Letters",
        volume="s6-XI",
        pages="135",
    )
    assert decide(stated, [], _answered(record)).verdict == "verified"
    # AIP's venue, volume and page before the year, OCR's noise in them, likewise
    aip = parse_reference_string("1Invented Radiotherapy andOncolog y 73,S2B 8 (2004) .")
    assert aip.title is None
    # APA's work without an author keeps its title: a venue follows the year
    assert parse_reference_string("Masthead. (1913). Invented Revue, 20(6), 1.").title == (
        "Masthead"
    )
