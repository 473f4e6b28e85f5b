"""Offset maps and deletion layers (``match/normalize.py``, ``match/prepare.py``).

(First written against the survivors of a mutation-testing run.)

Each group pins one contract that offsets in results depend on: ``OffsetMap.from_original``
(the first t1 position at or after an original offset, used to carry a parser's known
citation spans into t1), the deletion ``Layer`` (its maps to and from the parent string,
where a deletion began and ended, and the points where something was deleted), and how
``prepare`` takes known citation spans.  The maps are checked against obvious reference
definitions written out here, over generated texts.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from citeproof.match.normalize import normalize, normalize_with_map
from citeproof.match.prepare import Layer, delete_spans, deletion_points, prepare

# --- OffsetMap.from_original: the first t1 position whose original span starts at or after p


# _PLAIN takes every path of t1 (copies, runs of spaces, in-place substitutions, ligatures,
# accents to compose, superscripts); _MARKS adds the combining marks and invisible characters
# that can make a cluster of original characters give several t1 characters.
_PLAIN = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    " .,;:!?()[]'\"-/%<>=+"
    "\n\r\t\u00a0\u2009\u202f\u3000"
    "\u2018\u2019\u201c\u201d\u00ab\u00bb\u2032\u2033"
    "\u2010\u2011\u2013\u2014\u2212"
    "\ufb01\ufb02\u00bd\u2474\uff21"
    "\u00e9\u00fc\u03b1\u03b2\u00b5\u00b1\u00b0\u00b9\u00b2\u2070\u2075"
)
_MARKS = "\u0301\u0308\u0304\u00ad\u200b\u200d\ufeff"


def _first_at_or_after(starts: list[int], p: int, norm_len: int) -> int:
    return next((i for i, a in enumerate(starts) if a >= p), norm_len)


@given(st.text(alphabet=_PLAIN + _MARKS, max_size=60))
def test_from_original_is_the_first_position_at_or_after(s: str) -> None:
    """At every original offset, inside clusters and at the end of the text too."""
    n = normalize_with_map(s)
    starts = [n.map.start(i) for i in range(len(n.text))]
    for p in range(len(s) + 1):
        assert n.map.from_original(p) == _first_at_or_after(starts, p, len(n.text)), p


def test_from_original_past_a_cluster_of_several_pieces() -> None:
    """A cluster that gives several t1 characters sharing its span: an offset inside it or
    at its end maps past all of them, not into the cluster (a bug once: it gave the
    cluster's second character)."""
    for text, p in (("0\u0301", 2), ("mean x\u0304", 7), ("a \ufb01\u00ad", 4), ("0\u0301", 1)):
        n = normalize_with_map(text)
        assert n.map.from_original(p) == len(n.text), (text, p)


def test_from_original_at_the_start_of_a_cluster() -> None:
    # "x" + combining macron has no composed form: two t1 characters, both mapped to the
    # two original ones.  Both offsets before the cluster's first character give its first.
    s = "mean x\u0304 is 3"
    n = normalize_with_map(s)
    assert n.text == s
    assert (n.map.start(5), n.map.end(6)) == (5, 7)
    assert (n.map.start(6), n.map.end(7)) == (5, 7)
    assert n.map.from_original(5) == 5
    assert n.map.from_original(7) == 7
    assert n.map.from_original(8) == 8
    # the ligature gives two t1 characters for one original one
    s = "a \ufb01ne day"
    n = normalize_with_map(s)
    assert n.text == "a fine day"
    assert [n.map.from_original(p) for p in range(len(s) + 1)] == [0, 1, 2, 4, 5, 6, 7, 8, 9, 10]


@given(st.text(alphabet=_PLAIN + _MARKS, max_size=40))
def test_empty_spans_at_the_ends_of_the_t1_text(s: str) -> None:
    """An empty span at the start of the t1 text maps to where its first character begins,
    one at its end to where its last character ends; an empty t1 text maps to 0."""
    n = normalize_with_map(s)
    k = len(n.text)
    if k == 0:
        assert (n.map.start(0), n.map.end(0)) == (0, 0)
        return
    assert n.map.end(0) == n.map.start(0)
    assert n.map.start(k) == n.map.end(k)
    assert n.map.start(k + 3) == n.map.end(k)


def test_map_ends_examples() -> None:
    s = "  ab \u00a0e\u0301 d  "
    n = normalize_with_map(s)
    assert n.text == "ab \u00e9 d"
    assert (n.map.start(0), n.map.end(0)) == (2, 2)
    assert (n.map.start(len(n.text)), n.map.end(len(n.text))) == (10, 10)
    assert (n.map.start(3), n.map.end(4)) == (6, 8)
    blank = normalize_with_map(" \n\u200b ")
    assert blank.text == ""
    assert (blank.map.start(0), blank.map.end(0), blank.map.from_original(2)) == (0, 0, 0)


def test_from_original_over_collapsed_and_trimmed_spaces() -> None:
    s = "  ab \n\t cd  "
    n = normalize_with_map(s)
    assert n.text == "ab cd"
    # leading spaces: the first character; inside a run: the next word; past the end: the end
    assert [n.map.from_original(p) for p in range(len(s) + 1)] == [
        0,
        0,
        0,
        1,
        2,
        3,
        3,
        3,
        3,
        4,
        5,
        5,
        5,
    ]
    empty = normalize_with_map("")
    assert empty.text == "" and empty.map.from_original(0) == 0


# --- clusters: what NFKC composes is one cluster, whatever the invisible characters between


def test_an_invisible_character_does_not_keep_an_accent_from_its_letter() -> None:
    # t1 removes soft hyphens and zero-width characters before NFKC
    s = "caf" + "e\u00ad\u0301 au lait"
    n = normalize_with_map(s)
    assert n.text == "caf\u00e9 au lait"
    assert (n.map.start(3), n.map.end(4)) == (3, 6)  # é maps to e, soft hyphen, accent
    assert normalize("e\u200b\u0308\ufeff\u0301") == unicodedata.normalize("NFKC", "e\u0308\u0301")


def test_decomposed_hangul_composes_into_syllables() -> None:
    # Conjoining jamo are starters that compose with the cluster before them: leading
    # consonant + vowel (+ trailing consonant) is one syllable, with the map to all of it.
    s = "Seoul \u1109\u1165\u110b\u116e\u11af city"
    n = normalize_with_map(s)
    assert n.text == "Seoul \uc11c\uc6b8 city"
    assert [(n.map.start(i), n.map.end(i + 1)) for i in (6, 7)] == [(6, 8), (8, 11)]
    assert normalize("\u1100\u1161\u11a8") == "\uac01"


# --- Layer: a string with spans deleted, and its map back to the parent -----------------


@st.composite
def _text_and_spans(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    """A text and sorted, disjoint spans of it; spans may touch, be empty, or reach the ends."""
    text = draw(st.text(alphabet="ab ", max_size=20))
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    return text, [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]


def _kept(text: str, spans: list[tuple[int, int]]) -> list[int]:
    deleted = {p for a, b in spans for p in range(a, b)}
    return [p for p in range(len(text)) if p not in deleted]


@given(_text_and_spans())
def test_layer_maps_match_a_reference(ts: tuple[str, list[tuple[int, int]]]) -> None:
    text, spans = ts
    kept = _kept(text, spans)
    layer = delete_spans(text, spans)
    n = len(kept)
    assert layer.text == "".join(text[p] for p in kept)
    for i in range(n):
        assert layer.to_parent(i) == kept[i]
    for j in range(1, n + 1):
        assert layer.to_parent_end(j) == kept[j - 1] + 1
    for p in range(len(text) + 1):
        # the layer position of parent position p: the next kept one if p was deleted
        assert layer.from_parent(p) == sum(1 for k in kept if k < p), p
    if n == 0:
        return

    def gap_before(i: int) -> bool:
        return kept[i] > (kept[i - 1] + 1 if i else 0)

    assert deletion_points(layer) == [i for i in range(n) if gap_before(i)]
    for i in range(n):
        began = (kept[i - 1] + 1 if i else 0) if gap_before(i) else kept[i]
        assert layer.deleted_before(i) == began, i
    assert layer.deleted_before(n) == kept[-1] + 1
    for j in range(n + 1):
        if j == n:
            ended = len(text)  # whatever was deleted after the last kept character
        elif j == 0 or gap_before(j):
            ended = kept[j]
        else:
            ended = kept[j - 1] + 1
        assert layer.deleted_after(j, len(text)) == ended, j


def test_layer_examples() -> None:
    #       0123456789012
    text = "ab[1] cd [2]e"
    layer = delete_spans(text, [(2, 5), (9, 12)])
    assert layer.text == "ab cd e"
    assert [layer.to_parent(i) for i in range(7)] == [0, 1, 5, 6, 7, 8, 12]
    assert deletion_points(layer) == [2, 6]
    assert (layer.deleted_before(2), layer.deleted_after(2, len(text))) == (2, 5)
    assert (layer.deleted_before(6), layer.deleted_after(6, len(text))) == (9, 12)
    assert (layer.deleted_before(3), layer.deleted_after(4, len(text))) == (6, 7)
    assert layer.deleted_after(7, len(text)) == len(text)
    assert [layer.from_parent(p) for p in (0, 2, 3, 5, 8, 9, 11, 12, 13)] == [
        0,
        2,
        2,
        2,
        5,
        6,
        6,
        6,
        7,
    ]
    # deleted at both ends
    edge = delete_spans("[1]abc[2]", [(0, 3), (6, 9)])
    assert edge.text == "abc"
    assert deletion_points(edge) == [0]
    assert (edge.deleted_before(0), edge.deleted_after(3, 9)) == (0, 9)
    assert edge.deleted_after(0, 9) == 3
    assert (edge.to_parent(0), edge.to_parent_end(3)) == (3, 6)
    # nothing deleted: the identity
    same = delete_spans("abc", [])
    assert same == Layer("abc", [], [])
    assert [same.from_parent(p) for p in range(4)] == [0, 1, 2, 3]
    assert deletion_points(same) == []
    # everything deleted
    gone = delete_spans("abc", [(0, 3)])
    assert gone.text == "" and gone.from_parent(2) == 0


# --- prepare: known citation spans are given in original offsets ------------------------


def test_prepare_carries_known_markers_into_t1() -> None:
    text = "The e\u0301ffect  was seen 12 in all"
    at = text.index("12")
    prep = prepare(text, markers=[(at, at + 2)])
    assert prep.original == text
    assert prep.norm.text == "The \u00e9ffect was seen 12 in all"
    assert prep.known_markers
    assert [prep.norm.text[a:b] for a, b in prep.markers] == [" 12"]
    assert prep.layer.text == "The \u00e9ffect was seen in all"
    # without the span, "12" is data
    plain = prepare(text)
    assert not plain.known_markers and plain.markers == []
    assert plain.layer.text == plain.norm.text


def test_prepare_ignores_empty_known_spans() -> None:
    text = "effect 12 was"
    prep = prepare(text, markers=[(7, 7), (9, 7)])
    assert not prep.known_markers
    assert prep.markers == [] and prep.layer.text == text
