"""Matcher rules: search bounds, four dots, negations, "only punctuation", citation markers.

(First written against the survivors of a mutation-testing run.)

Each group pins one rule a user of the matcher relies on: the bounds of a full-text
search, what four dots mean in a quote, which words count as negations, when a
difference is "only punctuation", and which spans count as citation markers (including a
marker at the very start of a text).  The cases go through the small public functions of
``citeproof.match`` and, where the rule shows in a verdict, through ``check_text``.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citeproof
from citeproof.match.diff import (
    has_negation,
    negation_tokens,
    numeric_tokens,
    risk_flags,
    word_diff,
)
from citeproof.match.exact import Haystack, mid_word
from citeproof.match.forms import prepare_quote, split_quote
from citeproof.match.markers import find_markers, marker_numbers

# --- Haystack: every occurrence inside [start, end), overlaps included -------------------


def _naive(text: str, needle: str, start: int, end: int) -> list[int]:
    return [p for p in range(start, end - len(needle) + 1) if text[p : p + len(needle)] == needle]


def test_find_all_respects_the_end_bound() -> None:
    hay = Haystack("ab ab ab ab")
    assert hay.find_all("ab") == [0, 3, 6, 9]
    assert hay.find_all("ab", 0, 8) == [0, 3, 6]
    assert hay.find_all("ab", 0, 7) == [0, 3]  # "ab" at 6 would end past the bound
    assert hay.find_all("ab", 1, 8) == [3, 6]
    assert hay.find_all("ab", 4, 4) == []


def test_find_all_counts_overlaps_and_stops_at_the_limit() -> None:
    hay = Haystack("aaaaa")
    assert hay.find_all("aa") == [0, 1, 2, 3]
    assert hay.find_all("aa", limit=2) == [0, 1]
    assert hay.find_all("aa", limit=1) == [0]
    assert hay.find_all("aa", 1, 4, limit=5) == [1, 2]
    assert hay.find_all("") == []


def test_find_all_confirms_hits_of_characters_outside_latin1() -> None:
    # "α" and "β" both become "?" in the one-byte key: a hit must be checked on the text.
    hay = Haystack("β-blocker and α-blocker, α-blocker")
    assert hay.find_all("α-blocker") == [14, 25]
    assert hay.find_all("α-blocker", limit=1) == [14]
    assert hay.find_all("α-blocker", 0, 30) == [14]
    assert hay.find_all("β-blocker") == [0]
    assert hay.find_all("γ-blocker") == []
    assert hay.find_all("é") == []
    assert hay.contains("α-blocker") and not hay.contains("γ-blocker")
    # A real "?" in the text is found, and is not confused with a replaced character.
    assert Haystack("why? α?").find_all("?") == [3, 6]
    assert Haystack("why? α?").find_all("α?") == [5]


def test_rfind_all_returns_nearest_to_the_end_first() -> None:
    hay = Haystack("ab ab ab ab")
    assert hay.rfind_all("ab", 0, 11, 10) == [9, 6, 3, 0]
    assert hay.rfind_all("ab", 0, 10, 10) == [6, 3, 0]
    assert hay.rfind_all("ab", 1, 11, 2) == [9, 6]
    assert hay.rfind_all("ab", 4, 11, 10) == [6, 9][::-1]
    assert hay.rfind_all("", 0, 11, 10) == []
    assert Haystack("aaaa").rfind_all("aa", 0, 4, 10) == [2, 1, 0]
    greek = Haystack("α-x β-x α-x")
    assert greek.rfind_all("α-x", 0, 11, 5) == [8, 0]
    assert greek.rfind_all("α-x", 0, 11, 1) == [8]


_ALPHABET = st.text(alphabet="ab?αβ", max_size=14)


@given(_ALPHABET, st.text(alphabet="ab?αβ", min_size=1, max_size=3), st.data())
def test_find_all_and_rfind_all_agree_with_a_naive_scan(
    text: str, needle: str, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    limit = data.draw(st.integers(1, 6))
    hay = Haystack(text)
    expected = _naive(text, needle, start, end)
    assert hay.find_all(needle, start, end) == expected
    assert hay.find_all(needle, start, end, limit) == expected[:limit]
    assert hay.rfind_all(needle, start, end, limit) == expected[::-1][:limit]
    assert hay.contains(needle) == (needle in text)


def test_mid_word_reads_both_ends() -> None:
    text = "aspirin reduced risk"
    assert mid_word(text, 0, 7) == (False, False)
    assert mid_word(text, 2, 7) == (True, False)
    assert mid_word(text, 0, 5) == (False, True)
    assert mid_word(text, 3, 12) == (True, True)
    assert mid_word(text, 8, len(text)) == (False, False)
    assert mid_word("a1b", 1, 2) == (True, True)  # digits are word characters too
    # The ends of the text are never inside a word, and only the two characters that
    # meet at a boundary decide.
    assert mid_word("ab", 2, 2) == (False, False)
    assert mid_word("ab", 0, 0) == (False, False)
    assert mid_word("ab", 0, 1) == (False, True)
    assert mid_word("ab", 1, 1) == (True, True)
    assert mid_word("a b", 0, 2) == (False, False)


# --- Ellipses: four dots after a word are a full stop and an ellipsis --------------------


@pytest.mark.parametrize(
    ("quote", "fragments"),
    [
        ("It rose.... Then it fell", [("It rose.",), (" Then it fell",)]),
        ("It rose. . . . Then it fell", [("It rose.",), (" Then it fell",)]),
        ("It rose.....", [("It rose.",)]),
        # After a space the four dots are all ellipsis: no full stop was quoted.
        ("It rose .... Then it fell", [("It rose ",), (" Then it fell",)]),
        ("....Then it fell", [("Then it fell",)]),
        # Three dots are an ellipsis only, wherever they stand.
        ("It rose... then", [("It rose",), (" then",)]),
        ("It rose…then", [("It rose",), ("then",)]),
        ("It rose [....] then", [("It rose ",), (" then",)]),
        ("It rose (...) then", [("It rose ",), (" then",)]),
        ("[...] it rose", [(" it rose",)]),
        ("A.... B words", [("A.",), (" B words",)]),
    ],
)
def test_split_quote_at_ellipses(quote: str, fragments: list[tuple[str, ...]]) -> None:
    assert split_quote(quote) == fragments


def test_split_quote_editorial_brackets() -> None:
    assert split_quote("aspirin reduced the risk") is None
    assert split_quote("rate [12] rose") is None  # a citation marker is quoted as it stands
    assert split_quote("rate [95% CI 1.2-3.4] rose") is None  # bracketed data too
    assert split_quote("[T]he drug works") == [("The drug works", "the drug works")]
    assert split_quote("the [drug] works") == [("the ",), (" works",)]
    assert split_quote("it [3] works [sic] well") == [("it [3] works ",), (" well",)]
    # A bracket right after an ellipsis, or after another bracket, is still the quoter's.
    assert split_quote("it rose...[sic] then") == [("it rose",), (" then",)]
    assert split_quote("[...] it rose [sic] then") == [(" it rose ",), (" then",)]
    assert split_quote("[T]he drug [sic] works") == [("The drug ", "the drug "), (" works",)]
    # Only a single bracketed letter that starts a word stands for either case.
    assert split_quote("[I]t works") == [("It works", "it works")]
    assert split_quote("the [a] group") == [("the ",), (" group",)]
    assert split_quote("the [drug]s work") == [("the ",), ("s work",)]
    assert split_quote("[中]文") == [("中文",)]  # a letter without case has one form


SOURCE = (
    "Aspirin reduced the risk of stroke. Side effects were rare in all groups. "
    "Then it was approved."
)


def test_four_dot_ellipsis_keeps_the_full_stop_in_the_first_fragment() -> None:
    result = citeproof.check_text("the risk of stroke.... Then it was approved", SOURCE)
    assert result.verdict == "EXACT"
    frags = result.fragments or []
    assert [f.quote for f in frags] == ["the risk of stroke.", " Then it was approved"]
    first = frags[0]
    assert first.start is not None and first.end is not None
    assert SOURCE[first.start : first.end] == "the risk of stroke."


def test_four_dot_ellipsis_needs_the_full_stop_in_the_source() -> None:
    source = "Aspirin reduced the risk of stroke in all groups. Then it was approved."
    result = citeproof.check_text("the risk of stroke.... Then it was approved", source)
    assert result.verdict != "EXACT"
    spaced = citeproof.check_text("the risk of stroke .... Then it was approved", source)
    assert spaced.verdict == "EXACT"


# --- Negations and risk flags -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("it does work", []),
        ("it doesn't work", ["doesn't"]),
        ("they WON'T and can't stop", ["won't", "can't"]),
        ("it did not work", ["not"]),
        ("no effect, never", ["no", "never"]),
        ("without harm", ["without"]),
        ("nonsmokers", ["non"]),
        ("non-smokers", ["non"]),
        ("a nonlinear", ["non"]),
        ("none of them", ["none"]),
        ("nonetheless it held", []),
        ("the nation's", []),
        ("anon", []),
    ],
)
def test_negation_tokens(text: str, tokens: list[str]) -> None:
    assert negation_tokens(text) == tokens
    assert has_negation(text) == bool(tokens)


def test_hyphenating_a_non_prefix_is_punctuation_not_negation() -> None:
    assert risk_flags("non-smokers", "nonsmokers") == ("punctuation_only",)
    assert risk_flags("in smokers", "in nonsmokers") == ("negation_differs",)
    assert risk_flags("nonetheless it worked", "it worked") == ()


def test_contraction_flips_a_quote() -> None:
    assert risk_flags("it does work", "it doesn't work") == ("negation_differs",)
    assert risk_flags("it doesn't work", "it does work") == ("negation_differs",)
    assert risk_flags("it doesn't work", "it doesn't work") == ()


@pytest.mark.parametrize(
    ("quote", "source", "flags"),
    [
        ("same words", "same words", ()),
        ("Aspirin works", "aspirin works", ("case_only",)),
        ("A-B test", "A B test", ("punctuation_only",)),
        ("risk, was low", "risk was low", ("punctuation_only",)),
        # A number that differs only by its decimal point is a number, not punctuation.
        ("1.5 mg", "15 mg", ("numbers_differ",)),
        ("dose of 1.5", "dose of 15", ("numbers_differ",)),
        ("5 mg", "5 g", ("numbers_differ",)),
        ("p < 0.05", "p = 0.05", ("numbers_differ",)),
        ("three doses", "two doses", ("numbers_differ",)),
        ("no effect", "an effect", ("negation_differs",)),
        ("No 5 mg", "no 5 mg", ("case_only",)),
        ("No effect", "no effect", ("case_only",)),
        ("Not 1.5", "not 15", ("numbers_differ",)),
        ("no 2 doses", "2 doses", ("negation_differs",)),
        ("no 2 doses", "3 doses", ("numbers_differ", "negation_differs")),
    ],
)
def test_risk_flags(quote: str, source: str, flags: tuple[str, ...]) -> None:
    assert risk_flags(quote, source) == flags


def test_word_diff_groups_words_of_one_step() -> None:
    steps = word_diff("the big old dog", "the small red dog")
    assert [(d.op, d.quote, d.source) for d in steps] == [
        ("equal", "the", "the"),
        ("replace", "big old", "small red"),
        ("equal", "dog", "dog"),
    ]


def test_numeric_tokens_keep_units_and_comparisons() -> None:
    assert numeric_tokens("5 mg and <3%") == ["5 mg", "<", "3 %"]
    assert numeric_tokens("twice the 2 doses") == ["2", "twice"]
    assert numeric_tokens("5 mgx") == ["5"]  # a unit must end at a word boundary


@given(st.text(alphabet="ab1.,- ", max_size=12))
def test_risk_flags_of_identical_text_are_empty(s: str) -> None:
    assert risk_flags(s, s) == ()


@given(st.text(alphabet="abAB ,.-", min_size=1, max_size=12))
def test_punctuation_only_means_same_letters(s: str) -> None:
    other = s.replace(",", "").replace("-", " ")
    flags = risk_flags(s, other)
    assert ("punctuation_only" in flags) == (s != other)
    assert "numbers_differ" not in flags


# --- Citation markers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        # A marker at offset 0 takes the space after it instead of the one before.
        ("[1] Aspirin works", [(0, 4)]),
        ("(1, 2) Aspirin", [(0, 7)]),
        ("[12]Aspirin", [(0, 4)]),
        ("([1]) Aspirin", [(0, 6)]),
        (" [1] Aspirin", [(0, 4)]),
        ("[1] Aspirin works ", [(0, 4)]),
        ("[1]", [(0, 3)]),
        ("x [[1] y", [(3, 7)]),
        # Elsewhere it takes one space before, when punctuation or the end follows.
        ("Aspirin works [1].", [(13, 17)]),
        ("Aspirin works [1]", [(13, 17)]),
        ("Aspirin works [1] today", [(13, 17)]),
        ("Aspirin works[1] today", [(13, 16)]),
        ("Aspirin works [1]x", [(14, 17)]),
        # Brackets that hold only the marker are taken in.
        ("x ([1]) y", [(1, 7)]),
        ("Aspirin ([1]) works", [(7, 13)]),
        ("x [(1)] y", [(1, 7)]),
        ("x ([1] y", [(3, 7)]),  # "(" stays: takes the space after
        # Markers of one kind joined by separators are one group.
        ("effect [1], [2] was", [(6, 15)]),
        ("effect [1] and [2].", [(6, 18)]),
        ("effect [1-3; 5] was", [(6, 15)]),
        # Years and data stay.
        ("Aspirin works (2019).", []),
        ("45 (12) patients", []),
        ("45(12) patients", []),
        ("5(12) patients", []),
        ("5 (12) patients", []),
        ("risk [95% CI 1.2-3.4]", []),
        ("no markers here", []),
    ],
)
def test_find_markers(text: str, spans: list[tuple[int, int]]) -> None:
    assert find_markers(text) == spans


def test_superscript_markers() -> None:
    text = "effect12 was"  # the parser reports where the superscript digits were
    assert find_markers(text, [(6, 8)]) == [(6, 8)]
    assert find_markers("10-3 was", [(3, 4)]) == []  # an exponent
    assert find_markers("mm-1 was", [(3, 4)]) == []
    # In t1 text superscript digits are plain digits; their spans say where they were.
    assert find_markers("in m2 was", [(4, 5)]) == []  # a squared unit
    assert find_markers("in cm3 was", [(5, 6)]) == []
    assert find_markers("in m/s2 was", [(6, 7)]) == []
    assert find_markers("in cm4 was", [(5, 6)]) == [(5, 6)]  # only a square or a cube
    assert find_markers("in m23 was", [(4, 6)]) == [(4, 6)]  # two digits: a marker
    assert find_markers("in kg2 was", [(5, 6)]) == [(5, 6)]  # only m or s before a power
    assert find_markers("is 2 was", [(3, 4)]) == []  # free-standing
    assert find_markers("2was", [(0, 1)]) == []
    assert find_markers("A1 was", [(1, 2)]) == [(1, 2)]
    assert find_markers("NOX1 rose", [(3, 4)]) == [(3, 4)]
    assert find_markers("trials1 showed", [(6, 7)]) == [(6, 7)]  # "s" then a 1: no unit
    # A superscript that is not a marker does not hide the ones after it.
    assert find_markers("10-3 and effect1 was", [(3, 4), (15, 16)]) == [(15, 16)]
    assert find_markers("in m2 and effect1 was", [(4, 5), (16, 17)]) == [(16, 17)]
    assert find_markers("is 2 and effect1 was", [(3, 4), (15, 16)]) == [(15, 16)]
    # Superscripts joined by commas are one marker; kinds are kept apart.
    assert find_markers("effect1,2 was", [(6, 7), (8, 9)]) == [(6, 9)]
    assert find_markers("effect1, [2] was", [(6, 7)]) == [(6, 7), (8, 12)]
    # The parts of one superscript group are judged together: "2" after ", " is not a
    # free-standing number here.
    assert find_markers("effect1, 2 was", [(6, 7), (9, 10)]) == [(6, 10)]
    assert find_markers("effect1 and 2 was", [(6, 7), (12, 13)]) == [(6, 13)]
    assert find_markers("effect1,2 was", [(6, 7)], known=[(8, 9)]) == [(6, 7), (8, 9)]
    # Markers that touch are one marker, whatever their kinds.
    assert find_markers("effect[1]2 was", [(9, 10)]) == [(6, 10)]


def test_known_citation_spans() -> None:
    # A narrative citation is part of the sentence and is not a marker ...
    assert find_markers("as Jones showed it", known=[(3, 8)]) == []
    # ... unless it stands alone in brackets, with or without the brackets in the span,
    assert find_markers("as [Jones] showed it", known=[(4, 9)]) == [(2, 10)]
    assert find_markers("as (Jones) showed it", known=[(3, 10)]) == [(2, 10)]
    # ... or is only numbers.
    assert find_markers("effect 12 was", known=[(7, 9)]) == [(6, 9)]
    assert find_markers("12 was", known=[(0, 2)]) == [(0, 3)]
    assert find_markers("effect 12", known=[(7, 9)]) == [(6, 9)]
    assert find_markers("[Jones] showed it", known=[(1, 6)]) == [(0, 8)]
    assert find_markers("as Jones", known=[(3, 8)]) == []
    # A narrative citation does not hide the markers after it.
    assert find_markers("as Jones showed [2] it", known=[(3, 8)]) == [(15, 19)]
    # Spans outside the text, and empty spans, are ignored.
    assert find_markers("a [] b", known=[(3, 3)]) == []
    assert find_markers("abc", known=[(2, 9), (-1, 1)]) == []
    assert find_markers("(Jones", known=[(1, 6)]) == []


def test_marker_numbers_and_quote_forms() -> None:
    assert marker_numbers("a [1, 12] b (3-5)", [(2, 9), (12, 17)]) == ["1", "12", "3", "5"]
    q = prepare_quote("[4] Aspirin reduced the risk [12] of stroke [5].")
    assert q.layer == "Aspirin reduced the risk of stroke."
    assert q.marker_numbers == ("4", "12", "5")
    assert q.leading_marker and not q.trailing_marker
    assert q.leading_text == "[4]" and q.trailing_text == ""
    assert q.marker_groups == (("12",), ("5",))
    inner = prepare_quote("A[1] reduced the risk")
    assert inner.layer == "A reduced the risk"
    assert inner.marker_points == (1,) and inner.marker_groups == (("1",),)
    plain = prepare_quote("Aspirin reduced the risk [12]")
    assert plain.trailing_marker and not plain.leading_marker
    assert plain.trailing_text == "[12]" and plain.layer == "Aspirin reduced the risk"


def test_a_marker_at_the_start_of_the_source_does_not_break_a_match() -> None:
    text = "[1] Aspirin reduced the risk of stroke."
    result = citeproof.check_text("Aspirin reduced the risk of stroke.", text)
    assert result.verdict == "EXACT"
    assert result.matches[0].text == "Aspirin reduced the risk of stroke."
    assert result.matches[0].start == 4
