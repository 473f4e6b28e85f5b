"""Profile t1 and its offset map."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.match.normalize import IGNORABLE, normalize, normalize_with_map

# Characters whose NFKC does not depend on neighbours beyond a base letter and its marks,
# plus every kind of character t1 treats specially.
ALPHABET = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    " .,;:!?()[]'\"-/%<>=+"
    "\n\r\t\u00a0\u2009\u202f\u3000"
    "\u2018\u2019\u201c\u201d\u00ab\u00bb\u2032\u2033"
    "\u2010\u2011\u2013\u2014\u2212"
    "\u00ad\u200b\u200d\ufeff"
    "\ufb01\ufb02\u00bd\u2474\uff21"
    "\u00e9\u0301\u0308\u00fc\u03b1\u03b2\u00b5\u00b1\u00b0\u00b9\u00b2\u2070\u2075"
)
texts = st.text(alphabet=ALPHABET, max_size=120)

_QUOTES = {c: "'" for c in "\u2018\u2019\u2032"} | {c: '"' for c in "\u201c\u201d\u00ab\u00bb"}
_DASHES = {c: "-" for c in "\u2010\u2011\u2013\u2014\u2212"}


def reference_t1(s: str) -> str:
    """t1 written the slow, obvious way: invisible characters out, whole-string NFKC,
    then the substitutions."""
    s = "".join(c for c in s if c not in IGNORABLE)
    s = unicodedata.normalize("NFKC", s)
    s = s.translate(str.maketrans(_QUOTES | _DASHES))
    return " ".join(s.split())


@given(texts)
def test_matches_the_reference_definition(s: str) -> None:
    assert normalize(s) == reference_t1(s)


@given(texts)
def test_idempotent(s: str) -> None:
    once = normalize(s)
    assert normalize(once) == once


@given(texts)
def test_no_untrimmed_or_repeated_space(s: str) -> None:
    n = normalize(s)
    assert n == n.strip()
    assert "  " not in n
    assert not any(c in n for c in IGNORABLE)


@given(texts)
def test_offset_map_is_monotonic_and_inside(s: str) -> None:
    n = normalize_with_map(s)
    prev_start = prev_end = 0
    for i in range(len(n.text)):
        a, b = n.map.start(i), n.map.end(i + 1)
        assert 0 <= a < b <= len(s)
        assert a >= prev_start and b >= prev_end
        prev_start, prev_end = a, b


@given(texts, st.data())
def test_every_normalised_span_comes_from_its_original_span(s: str, data: st.DataObject) -> None:
    n = normalize_with_map(s)
    if not n.text:
        return
    i = data.draw(st.integers(0, len(n.text) - 1))
    j = data.draw(st.integers(i + 1, len(n.text)))
    a, b = n.map.start(i), n.map.end(j)
    assert n.text[i:j].strip() in normalize(s[a:b])


@pytest.mark.parametrize(
    ("original", "expected"),
    [
        ("  two\n\nlines  ", "two lines"),
        ("\u201cquoted\u201d \u2018single\u2019", "\"quoted\" 'single'"),
        ("en\u2013dash em\u2014dash minus\u22121", "en-dash em-dash minus-1"),
        ("co\u00adoperate zero\u200bwidth", "cooperate zerowidth"),
        ("non\u00a0breaking\u2009thin", "non breaking thin"),
        ("\ufb01ne \ufb02ow", "fine flow"),
        ("caf\u0065\u0301", "caf\u00e9"),
        ("\u2474 \u00bd", "(1) 1\u20442"),
        ("a\r\nb\tc", "a b c"),
        ("", ""),
        (" \u200b ", ""),
    ],
)
def test_examples(original: str, expected: str) -> None:
    assert normalize(original) == expected


def test_map_of_expansion_and_composition() -> None:
    s = "x \ufb01 e\u0301!"
    n = normalize_with_map(s)
    assert n.text == "x fi \u00e9!"
    spans = [s[n.map.start(i) : n.map.end(i + 1)] for i in range(len(n.text))]
    assert spans == ["x", " ", "\ufb01", "\ufb01", " ", "e\u0301", "!"]


def test_collapsed_whitespace_maps_to_the_whole_run() -> None:
    s = "a \n\t\u00a0 b"
    n = normalize_with_map(s)
    assert n.text == "a b"
    assert s[n.map.start(1) : n.map.end(2)] == " \n\t\u00a0 "


def test_from_original_inverts_the_map() -> None:
    s = "A\u00a0\ufb01ne  day"
    n = normalize_with_map(s)
    for i in range(len(n.text)):
        assert n.map.from_original(n.map.start(i)) <= i


def test_superscripts_are_recorded_before_nfkc_erases_them() -> None:
    n = normalize_with_map("effect\u00b9\u00b2 and 10\u00b3")
    assert n.text == "effect12 and 103"
    assert [n.text[a:b] for a, b in n.superscripts] == ["1", "2", "3"]


@given(texts)
def test_a_copied_character_maps_to_itself_alone(s: str) -> None:
    """A character that t1 copies maps back to exactly that character: a map that is right
    only up to the word around it would make every reported offset a little wrong."""
    n = normalize_with_map(s)
    for i, c in enumerate(n.text):
        a, b = n.map.start(i), n.map.end(i + 1)
        span = s[a:b]
        if c != " " and span.isascii() and span.strip():
            assert span == c, (i, c, span)


@pytest.mark.parametrize(
    "s",
    [
        "effect\u00b9 the  ",  # a region that ends in a space, then a stretch ending in a run
        "that \u201cdose\u201d  e.g. the\nthe  ",
        "a\u00a0b  c\u2009d   e",
    ],
)
def test_copied_characters_map_to_themselves_around_runs(s: str) -> None:
    n = normalize_with_map(s)
    for i, c in enumerate(n.text):
        span = s[n.map.start(i) : n.map.end(i + 1)]
        if c != " " and span.isascii() and span.strip():
            assert span == c, (i, c, span)


# Text made of the pieces that meet at region boundaries: words, single spaces, runs of
# spaces, line breaks, and characters that take the per-character path or change in place.
PIECES = st.sampled_from(
    [
        "the",
        "x",
        " ",
        "  ",
        "   ",
        "\n",
        "\u00a0",
        "\u2009",
        "\u00b9",
        "\u201c",
        "\u2013",
        "e\u0301",
        "\ufb01",
        "\u00ad",
        "e.g.",
        "\u03bc",
        "\u00b5",
    ]
)
piece_texts = st.lists(PIECES, max_size=40).map("".join)


@given(piece_texts)
def test_piece_texts_map_exactly(s: str) -> None:
    n = normalize_with_map(s)
    assert n.text == reference_t1(s)
    for i, c in enumerate(n.text):
        span = s[n.map.start(i) : n.map.end(i + 1)]
        if c != " " and span.isascii() and span.strip():
            assert span == c, (i, c, span)
