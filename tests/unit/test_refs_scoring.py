"""The comparison of a stated reference with a record (citeproof.refs.scoring), and the
verdicts decided from it (citeproof.refs.decide).  Every record here is invented."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from citeproof.models.references import WorkRecord
from citeproof.refs.decide import IdentifierEvidence, SearchEvidence, decide
from citeproof.refs.scoring import TITLE_SAME, score
from citeproof.refs.stated import StatedReference, fold, surname

ASPIRIN = WorkRecord(
    source="crossref",
    doi="10.5555/invented.aspirin",
    title="Aspirin and the risk of stroke: a cohort study",
    authors=("Smith, John", "Doe, Anne"),
    year=2019,
    venue="The Lancet",
)
COFFEE = WorkRecord(
    source="crossref",
    doi="10.5555/invented.coffee",
    title="Coffee consumption and liver enzymes in adults",
    authors=("Okafor, Chidi",),
    year=2015,
    venue="Hepatology",
)


def stated(**fields: object) -> StatedReference:
    return StatedReference(**fields)  # type: ignore[arg-type]


# -------------------------------------------------------------------------------- scoring


def test_the_same_work_matches_even_with_the_subtitle_left_out() -> None:
    s = stated(title="Aspirin and the risk of stroke", authors=("Smith J",), year=2019)
    got = score(s, ASPIRIN)
    assert got.fit == "match"
    assert got.field("title").score is not None and got.field("title").score >= TITLE_SAME


def test_a_year_one_off_is_within_tolerance_two_off_is_not() -> None:
    one = score(stated(title=ASPIRIN.title, authors=("Smith J",), year=2020), ASPIRIN)
    two = score(stated(title=ASPIRIN.title, authors=("Smith J",), year=2021), ASPIRIN)
    assert one.fit == "match"
    assert two.fit == "partial" and two.differs == ("year",)


def test_other_authors_on_the_same_title_is_partial() -> None:
    got = score(stated(title=ASPIRIN.title, authors=("Nguyen, T.",), year=2019), ASPIRIN)
    assert got.fit == "partial"
    assert got.differs == ("authors",)


def test_another_title_is_another_work() -> None:
    got = score(stated(title=COFFEE.title, authors=("Okafor C",), year=2015), ASPIRIN)
    assert got.fit == "other"
    assert "title" in got.differs


def test_a_journal_abbreviation_agrees_with_the_full_name() -> None:
    record = WorkRecord(
        source="pubmed",
        pmid="1",
        title="A trial",
        authors=("Lee K",),
        year=2001,
        venue="New England Journal of Medicine",
    )
    got = score(
        stated(title="A trial", authors=("Lee, K.",), year=2001, venue="N Engl J Med"), record
    )
    assert got.field("venue").agreement == "agrees"


def test_an_unstructured_string_is_validated_by_the_records_title_inside_it() -> None:
    text = "Smith J, Doe A. Aspirin and the risk of stroke: a cohort study. Lancet. 2019;1:2."
    assert score(stated(text=text), ASPIRIN).fit == "match"
    assert score(stated(text=text), COFFEE).fit == "other"


def test_accents_and_case_do_not_change_a_surname() -> None:
    record = WorkRecord(source="crossref", doi="10.5555/x", title="T", authors=("Müller, Jörg",))
    assert score(stated(title="T", authors=("MULLER, J",)), record).field("authors").agreement == (
        "agrees"
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Smith, John", "smith"),
        ("Smith J", "smith"),
        ("Smith JA", "smith"),
        ("John Smith", "smith"),
        ("J. A. Smith", "smith"),
        ("van der Berg, Anna", "van der berg"),
        ("Anna van der Berg", "van der berg"),
        ("Müller, J.", "muller"),
    ],
)
def test_surnames(name: str, expected: str) -> None:
    assert surname(name) == expected


@given(st.text(min_size=1, max_size=40), st.text(max_size=20))
def test_the_family_name_before_a_comma_is_the_surname(family: str, given_names: str) -> None:
    """With nothing after the comma, capitals closing the part before it are a Vancouver
    name's initials and the list's comma ("Xie S-P,"), not the surname: that rule has its
    own tests (test_refs_noisy_strings), and this property holds wherever given names follow."""
    assume(given_names.strip())
    assert surname(f"{family.replace(',', ' ')}, {given_names}") == fold(family.replace(",", " "))


@given(st.text(max_size=80))
def test_a_record_always_matches_an_entry_that_copies_it(title: str) -> None:
    if len(fold(title)) < 3:
        return
    record = WorkRecord(
        source="crossref", doi="10.5555/p", title=title, authors=("Roe, R",), year=2000
    )
    got = score(stated(title=title, authors=("Roe R",), year=2000), record)
    assert got.fit == "match"
    assert 0.0 <= got.score <= 1.0


# -------------------------------------------------------------------------------- decide


def test_a_doi_nobody_knows_is_unresolvable() -> None:
    ids = [IdentifierEvidence("doi:10.5555/nope", False, reason="no registry knows it")]
    assert decide(stated(title="x", doi="10.5555/nope"), ids, []).verdict == "unresolvable"


def test_a_real_doi_on_another_work_is_a_mismatch_with_the_work_suggested() -> None:
    s = stated(title=COFFEE.title, authors=("Okafor C",), year=2015, doi=ASPIRIN.doi)
    ids = [IdentifierEvidence(f"doi:{ASPIRIN.doi}", True, (ASPIRIN,))]
    found = [SearchEvidence("crossref", True, (COFFEE, ASPIRIN))]
    got = decide(s, ids, found)
    assert got.verdict == "mismatch"
    assert got.work is not None and got.work.record is ASPIRIN
    assert got.suggested is not None and got.suggested.record is COFFEE
    assert "title" in got.differs


def test_a_failed_registry_is_unavailable_never_not_found() -> None:
    s = stated(title=COFFEE.title, doi="10.5555/unknown")
    ids = [IdentifierEvidence("doi:10.5555/unknown", None, reason="Crossref answered 503")]
    assert decide(s, ids, []).verdict == "unavailable"


def test_an_unreadable_record_reads_as_one_sentence() -> None:
    """A failure's reason is a sentence; quoted in brackets it was "...pin it.)."."""
    s = stated(title="A title", authors=("Smith J",), year=2019, doi="10.5555/unknown")
    why = "--offline: the answer was never pinned; run once without --offline to pin it."
    ids = [IdentifierEvidence("doi:10.5555/unknown", None, reason=why)]
    got = decide(s, ids, [])
    assert got.reason.endswith("without --offline to pin it).")
    assert ".)" not in got.reason


def test_one_database_failing_without_a_match_is_unavailable() -> None:
    s = stated(title="A title nobody wrote", authors=("Ghost G",), year=2020)
    found = [SearchEvidence("crossref", True, (ASPIRIN,)), SearchEvidence("pubmed", False)]
    assert decide(s, [], found).verdict == "unavailable"


def test_every_database_answering_with_nothing_that_matches_is_not_found() -> None:
    s = stated(title="A title nobody wrote", authors=("Ghost G",), year=2020)
    found = [SearchEvidence("crossref", True, (ASPIRIN,)), SearchEvidence("pubmed", True)]
    assert decide(s, [], found).verdict == "not_found"


def test_a_match_elsewhere_verifies_despite_a_failure() -> None:
    s = stated(title=ASPIRIN.title, authors=("Smith J",), year=2019)
    found = [SearchEvidence("crossref", True, (ASPIRIN,)), SearchEvidence("pubmed", False)]
    assert decide(s, [], found).verdict == "verified"


def test_two_editions_that_match_equally_are_ambiguous() -> None:
    second = WorkRecord(
        source="crossref",
        doi="10.5555/invented.aspirin.2",
        title=ASPIRIN.title,
        authors=ASPIRIN.authors,
        year=ASPIRIN.year,
        venue=ASPIRIN.venue,
    )
    s = stated(title=ASPIRIN.title, authors=("Smith J",), year=2019)
    got = decide(s, [], [SearchEvidence("crossref", True, (ASPIRIN, second))])
    assert got.verdict == "ambiguous"
    assert {c.record.doi for c in got.candidates} == {ASPIRIN.doi, second.doi}


def test_the_same_work_from_two_databases_is_one_work_not_ambiguous() -> None:
    pubmed = WorkRecord(
        source="pubmed",
        doi=ASPIRIN.doi,
        pmid="99",
        title=ASPIRIN.title,
        authors=("Smith J", "Doe A"),
        year=2019,
        venue="Lancet",
    )
    s = stated(title=ASPIRIN.title, authors=("Smith J",), year=2019)
    found = [
        SearchEvidence("crossref", True, (ASPIRIN,)),
        SearchEvidence("pubmed", True, (pubmed,)),
    ]
    assert decide(s, [], found).verdict == "verified"


def test_the_same_title_with_other_authors_is_partial() -> None:
    s = stated(title=ASPIRIN.title, authors=("Nguyen T",), year=2019)
    got = decide(s, [], [SearchEvidence("crossref", True, (ASPIRIN,))])
    assert got.verdict == "partial" and got.differs == ("authors",)


def test_an_entry_that_states_only_its_identifier_is_verified_when_it_exists() -> None:
    s = stated(text="doi:10.5555/invented.aspirin", doi=ASPIRIN.doi)
    ids = [IdentifierEvidence(f"doi:{ASPIRIN.doi}", True, (ASPIRIN,))]
    got = decide(s, ids, [])
    assert got.verdict == "verified" and "nothing else" in got.reason


def test_a_search_finding_the_named_work_verifies_when_its_registry_failed() -> None:
    s = stated(title=ASPIRIN.title, authors=("Smith J",), year=2019, doi=ASPIRIN.doi)
    ids = [IdentifierEvidence(f"doi:{ASPIRIN.doi}", None, reason="Crossref answered 503")]
    found = [SearchEvidence("openalex", True, (ASPIRIN,))]
    assert decide(s, ids, found).verdict == "verified"
    other = [SearchEvidence("openalex", True, (COFFEE,))]
    assert decide(s, ids, other).verdict == "unavailable"


def test_a_pasted_page_is_compared_on_its_first_characters_only() -> None:
    """Fuzzy scores cost the product of the lengths: an entry of a megabyte is held to its
    first MAX_COMPARED characters, so it cannot stall a verification."""
    from citeproof.refs.scoring import MAX_COMPARED

    filler = "lorem ipsum " * (MAX_COMPARED // 6)
    late = stated(text=filler + ASPIRIN.title + " " + filler * 40)
    early = stated(text=ASPIRIN.title + " " + filler * 40)
    assert score(late, ASPIRIN).field("title").agreement == "differs"
    assert score(early, ASPIRIN).field("title").agreement == "agrees"
    title = "Trials of mulch in invented beds"  # a one-letter title identifies nothing
    many = WorkRecord(source="crossref", doi="10.5555/x", title=title, authors=("Roe, R",) * 5000)
    assert score(stated(title=title, authors=("Roe R",) * 5000), many).fit == "match"


@given(
    st.text(alphabet="0123456789 ab²٣(),-", max_size=30),
    st.text(alphabet="0123456789٣", min_size=1, max_size=4),
)
def test_a_number_printed_whole_is_what_the_pattern_said(text: str, digits: str) -> None:
    """The scan that replaced a regex compiled per number answers as the regex did, with
    Unicode digits (Arabic-Indic three) and a superscript, which is no decimal digit."""
    import re

    from citeproof.refs.scoring import _printed_whole

    expected = re.search(rf"(?<!\d){re.escape(digits)}(?!\d)", text) is not None
    assert _printed_whole(text, digits) == expected


@given(st.text(alphabet="abcdeé", max_size=8), st.text(alphabet="abcdeé", max_size=8))
def test_one_letter_wrong_is_one_edit_in_rapidfuzz_too(a: str, b: str) -> None:
    """The residue asks rapidfuzz's optimal-string-alignment distance for "one letter wrong";
    it must be names.one_edit's rule (a substitution, an insertion, a deletion, or two
    neighbours swapped), or a word would count as printed where it did not before."""
    from rapidfuzz.distance import OSA

    from citeproof.refs.names import one_edit

    assert one_edit(a, b) == (OSA.distance(a, b, score_cutoff=1) <= 1)
