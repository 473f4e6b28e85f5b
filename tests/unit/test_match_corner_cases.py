"""Corner cases of the matcher where a verdict said more than the source does.

Each case here was answered wrongly once: a range marker taken for its ends, a
lower-cased quote given a passage that starts at the wrong "the", a bracket the source has
too keeping a PDF quote from ``t1+dehyphen``, a marker's space left before a comma.  The
rules are in docs/matching.md ("Citation markers", "Exact occurrences", "The closest
passage").
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citeproof
from citeproof.match.forms import prepare_quote
from citeproof.match.markers import cited_works, find_markers
from citeproof.match.normalize import normalize
from citeproof.match.prepare import prepare
from citeproof.match.quote import find_quote
from citeproof.models import CheckResult


def check(quote: str, text: str, **options: object) -> CheckResult:
    result = citeproof.check_text(quote, text, **options)  # type: ignore[arg-type]
    for m in result.matches:
        assert text[m.start : m.end] == m.text
    if result.near is not None:
        assert text[result.near.start : result.near.end] == result.near.text
    return result


# --- the same marker: the same works, a range standing for every number in it -----------


@pytest.mark.parametrize(
    ("marker", "works"),
    [
        ("[62–64]", ("62-64",)),
        ("[62-64]", ("62-64",)),
        ("[62 - 64]", ("62-64",)),
        ("[62, 63, 64]", ("62-64",)),
        ("[62]–[64]", ("62-64",)),
        ("[62, 64]", ("62", "64")),
        ("[1, 2-4]", ("1-4",)),
        ("[1,3-5,7]", ("1", "3-5", "7")),
        ("[2,3]", ("2-3",)),
        ("[3,2]", ("3", "2")),  # the order written is kept
        ("[5-3]", ("5", "3")),  # not a range: its end is smaller
        ("[3a, 3b]", ("3a", "3b")),
        ("[12], [13]", ("12-13",)),
        ("(4, 7)", ("4", "7")),
        ("12", ("12",)),
        ("", ()),
        ("[1234567890-1234567891]", ("1234567890", "1234567891")),  # too long to count
    ],
)
def test_cited_works(marker: str, works: tuple[str, ...]) -> None:
    assert cited_works(normalize(marker)) == works


@given(st.lists(st.integers(1, 60), min_size=1, max_size=8))
def test_a_list_and_its_ranges_cite_the_same_works(numbers: list[int]) -> None:
    """Writing consecutive numbers as a range never changes the works cited."""
    listed = "[" + ", ".join(map(str, numbers)) + "]"
    runs: list[list[int]] = []
    for n in numbers:
        if runs and runs[-1][1] + 1 == n:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    ranged = "[" + ", ".join(f"{a}–{b}" if a != b else str(a) for a, b in runs) + "]"
    assert cited_works(normalize(listed)) == cited_works(normalize(ranged))


RANGE = "Transformers were first described in three papers [62–64]. Later work changed the design."


def test_a_quote_citing_the_ends_of_a_range_is_not_exact() -> None:
    result = check("Transformers were first described in three papers [62, 64].", RANGE)
    assert result.verdict == "NEAR"
    assert result.near is not None and "numbers_differ" in result.near.flags


def test_a_range_is_not_its_ends_inside_a_quote_either() -> None:
    source = RANGE.replace("[62–64].", "[62–64] and later work changed it.")
    quote = "described in three papers [62, 64] and later work changed it."
    assert check(quote, source).verdict == "NEAR"
    # the source's ends, the quote's range: the quote cites a work the source does not
    quote_range = "described in three papers [62-64] and later"
    assert check(quote_range, source.replace("[62–64]", "[62, 64]")).verdict == "NEAR"


@pytest.mark.parametrize("marker", ["[62–64]", "[62-64]", "[62, 63, 64]", "[62]–[64]"])
def test_every_way_of_writing_the_same_works_is_the_same_marker(marker: str) -> None:
    result = check(f"Transformers were first described in three papers {marker}.", RANGE)
    assert result.verdict == "EXACT"
    assert result.matches[0].text.endswith("[62–64].")


def test_a_quote_ending_in_part_of_a_group_of_markers() -> None:
    source = "Aspirin reduced the risk of stroke [12], [13]. It was well tolerated."
    # written as the start of the source's group: the span covers as much
    first = check("Aspirin reduced the risk of stroke [12]", source)
    assert first.verdict == "EXACT"
    assert first.matches[0].text == "Aspirin reduced the risk of stroke [12]"
    # not the start of it: compared with the whole group, which cites 12 and 13
    assert check("Aspirin reduced the risk of stroke [13]", source).verdict != "EXACT"
    # inside the quote, before punctuation, the whole group must be there
    assert check("Aspirin reduced the risk of stroke [12].", source).verdict != "EXACT"
    assert check("Aspirin reduced the risk of stroke [12, 13].", source).verdict == "EXACT"


def test_markers_of_a_pdf_quote_are_compared_at_their_places() -> None:
    """Under ``t1+dehyphen`` the quote's markers must be the source's at the same places,
    as in the plain layer (the numbers once only had to occur somewhere in the span)."""
    source = "the Trans- former [12] changed and the Trans- former [13] did not change at all."
    swapped = "the Transformer [13] changed and the Transformer [12] did not"
    assert check(swapped, source, profile="t1+dehyphen").verdict != "EXACT"
    right = "the Transformer [12] changed and the Transformer [13] did not"
    result = check(right, source, profile="t1+dehyphen")
    assert (result.verdict, result.normalisation) == ("EXACT", "t1+dehyphen")
    # a quote that ends with a marker: its span covers the source's marker, as in t1
    ending = check("changed and the Transformer [13]", source, profile="t1+dehyphen")
    assert ending.verdict == "EXACT" and ending.matches[0].text.endswith("former [13]")


def test_quote_forms_hold_the_works_of_their_markers() -> None:
    q = prepare_quote("[4] Aspirin reduced the risk [12–14] of stroke [5, 6].")
    assert q.leading_works == ("4",)
    assert q.marker_works == (("12-14",), ("5-6",))
    assert prepare_quote("Aspirin reduced the risk [2, 4]").trailing_works == ("2", "4")


# --- a quote that differs only in case gets the passage that differs only in case --------

WIND = (
    "The trees bent in the wind. The participants were asked to rate their sleep each "
    "night. Most of them slept well."
)


def test_a_lower_cased_quote_is_near_with_case_only_on_its_own_words() -> None:
    quote = "the participants were asked to rate their sleep each night."
    result = check(quote, WIND)
    assert result.verdict == "NEAR" and result.casefold_match
    assert result.near is not None
    assert result.near.text == "The participants were asked to rate their sleep each night."
    assert result.near.flags == ["case_only"]


def test_a_case_change_and_a_changed_word_still_start_at_the_quote_s_first_word() -> None:
    # the first word is found whatever its case, so the passage does not start at the
    # earlier "the" of "the wind"
    quote = "the participants were told to rate their sleep each night."
    result = check(quote, WIND)
    assert result.verdict == "NEAR"
    assert result.near is not None
    assert result.near.text == "The participants were asked to rate their sleep each night."


# --- a bracket the source has too, and a kept line-end hyphen ---------------------------

PDF_TEXT = (
    "We prepend a [CLS] token to every input of the Trans-\nformer encoder and train the "
    "whole model end to end."
)


def test_a_bracket_the_source_has_does_not_keep_a_quote_from_t1_dehyphen() -> None:
    quote = "We prepend a [CLS] token to every input of the Transformer encoder"
    result = find_quote(prepare(PDF_TEXT, dehyphen=True), quote)
    assert (result.verdict, result.profile) == ("EXACT", "t1+dehyphen")
    span = result.spans[0]
    assert PDF_TEXT[span.start : span.end] == (
        "We prepend a [CLS] token to every input of the Trans-\nformer encoder"
    )
    # as a quote without a bracket is
    plain = find_quote(prepare(PDF_TEXT, dehyphen=True), "every input of the Transformer encoder")
    assert (plain.verdict, plain.profile) == ("EXACT", "t1+dehyphen")
    # and through the profile option on any text
    assert check(quote, PDF_TEXT, profile="t1+dehyphen").verdict == "EXACT"


def test_an_insertion_the_source_does_not_have_is_still_an_insertion() -> None:
    quote = "We prepend a [special] token to every input of the"
    result = find_quote(prepare(PDF_TEXT, dehyphen=True), quote)
    assert result.verdict == "EXACT" and result.fragments is not None


def test_a_literal_ellipsis_and_a_line_end_hyphen() -> None:
    text = "Two results ... were then trans- formed into scores by the panel."
    result = find_quote(prepare(text, dehyphen=True), "Two results ... were then transformed into")
    assert (result.verdict, result.profile) == ("EXACT", "t1+dehyphen")


# --- one adjoining space goes with a marker, also before punctuation ---------------------


def test_the_space_after_a_marker_goes_with_it_before_punctuation() -> None:
    assert find_markers("the quotient[4] , is") == [(12, 16)]
    assert find_markers("the quotient[4] ; is") == [(12, 16)]
    assert find_markers("the quotient[4] is") == [(12, 15)]  # between words: it stays
    assert find_markers("the quotient [4] , is") == [(12, 16)]  # one space, the one before


def test_wikipedia_s_marker_before_a_comma() -> None:
    text = "The result of the division, called the quotient[4] , is an integer in this case."
    for quote in (
        "The result of the division, called the quotient, is an integer",
        "The result of the division, called the quotient[4], is an integer",
        "called the quotient[4] , is an integer",
    ):
        result = check(quote, text)
        assert result.verdict == "EXACT", quote
