"""The cluster cap of profile t1 (``match/normalize.py``, docs/matching.md "Profile t1").

A cluster is a character and at most ``MAX_CLUSTER_MARKS`` (30) more that combine with it;
a combining mark past the cap is a cluster of its own.  The cap is what keeps one letter
followed by a million marks from costing a million times a letter (that is measured in
``bench/bench_hostile.py``, never in a test); here its rules are pinned: the t1 text, and an
offset map that still sends every t1 character back to the original span it came from.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.match.normalize import IGNORABLE, MAX_CLUSTER_MARKS, normalize, normalize_with_map

# Marks of several combining classes (230, 220, 202, 216, 240, 10, 130), two that NFKC
# changes on their own (U+0340 -> U+0300, U+0344 -> U+0308 U+0301), and invisible
# characters, which are removed before clusters are read and so do not count.
MARKS = "\u0301\u0300\u0323\u0327\u031b\u0345\u05b0\u0f72\u0340\u0344"
INVISIBLE = "\u00ad\u200b"
LETTERS = "aeoAnxy"


def reference_capped(s: str) -> str:
    """t1 written the slow, obvious way, with the cap: invisible characters out; then each
    character that is not a mark, with the marks after it (the first character after a
    space counts as such, mark or not), is one cluster, cut after its first
    MAX_CLUSTER_MARKS marks; every mark past the cut is a cluster of its own; NFKC of each
    cluster; runs of whitespace to one space."""
    s = "".join(c for c in s if c not in IGNORABLE).replace("\n", " ")
    out: list[str] = []
    i = 0
    while i < len(s):
        j = i + 1
        if s[i] != " ":
            while j < len(s) and s[j] != " " and unicodedata.combining(s[j]):
                j += 1
        cut = min(j, i + 1 + MAX_CLUSTER_MARKS)
        out.append(unicodedata.normalize("NFKC", s[i:cut]))
        out.extend(unicodedata.normalize("NFKC", m) for m in s[cut:j])
        i = j
    return " ".join("".join(out).split())


@st.composite
def marked_text(draw: st.DrawFn) -> str:
    """Words of letters, each letter followed by a run of marks that may pass the cap."""
    parts: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            parts.append(draw(st.sampled_from(LETTERS)))
        run = draw(st.integers(0, 2 * MAX_CLUSTER_MARKS + 5))
        parts.append("".join(draw(st.sampled_from(MARKS + INVISIBLE)) for _ in range(run)))
        parts.append(draw(st.sampled_from(["", "", " ", "\n", "  "])))
    return "".join(parts)


@given(marked_text())
def test_t1_with_the_cap_matches_its_reference(s: str) -> None:
    assert normalize(s) == reference_capped(s)


@given(marked_text())
def test_the_cap_keeps_offsets_monotonic_and_every_character_in_its_cluster(s: str) -> None:
    n = normalize_with_map(s)
    starts = [n.map.start(i) for i in range(len(n.text))]
    ends = [n.map.end(i + 1) for i in range(len(n.text))]
    assert starts == sorted(starts)
    assert ends == sorted(ends)
    for i, (a, b) in enumerate(zip(starts, ends, strict=True)):
        assert 0 <= a < b <= len(s)
        # the original span holds a visible character and normalises to text that has
        # the t1 character in it: it is where that character came from
        assert n.text[i] == " " or n.text[i] in normalize(s[a:b]), (i, s[a:b])
        # and a span never reaches over more than one capped cluster
        visible = [c for c in s[a:b] if c not in IGNORABLE and not c.isspace()]
        assert len(visible) <= MAX_CLUSTER_MARKS + 1


def test_marks_past_the_cap_are_clusters_of_their_own() -> None:
    s = "x" + "\u0301" * 100
    n = normalize_with_map(s)
    assert n.text == s  # nothing composes with x
    # the first 31 characters are one cluster: each maps to all of it ...
    assert all((n.map.start(i), n.map.end(i + 1)) == (0, 31) for i in range(31))
    # ... and each mark past the cap maps to itself
    assert [(n.map.start(i), n.map.end(i + 1)) for i in range(31, 101)] == [
        (i, i + 1) for i in range(31, 101)
    ]


def test_a_mark_past_the_cap_is_neither_reordered_nor_composed() -> None:
    # Under a whole-cluster NFKC the dot below (combining class 220) would move before the
    # thirty acutes (230) and compose with the a.  Past the cap it stays where it is.
    s = "a" + "\u0301" * MAX_CLUSTER_MARKS + "\u0323"
    assert normalize(s) == "\u00e1" + "\u0301" * (MAX_CLUSTER_MARKS - 1) + "\u0323"
    # within the cap it is reordered and composed, as before
    short = "a" + "\u0301" * (MAX_CLUSTER_MARKS - 1) + "\u0323"
    assert normalize(short) == unicodedata.normalize("NFKC", short)


def test_invisible_characters_do_not_count_towards_the_cap() -> None:
    s = "a" + "\u00ad" * 50 + "\u0301" * MAX_CLUSTER_MARKS + "\u0323"
    assert normalize(s) == unicodedata.normalize("NFKC", "a" + "\u0301" * 30) + "\u0323"


def test_a_mark_nfkc_changes_past_the_cap() -> None:
    s = "x" + "\u0301" * MAX_CLUSTER_MARKS + "\u0344\u0340" + "\u0301" * 3 + " b"
    n = normalize_with_map(s)
    assert n.text == "x" + "\u0301" * 30 + "\u0308\u0301" + "\u0300" + "\u0301" * 3 + " b"
    # both characters of U+0344 map to it
    assert (n.map.start(31), n.map.end(32)) == (31, 32)
    assert (n.map.start(32), n.map.end(33)) == (31, 32)
    assert (n.map.start(33), n.map.end(34)) == (32, 33)


def test_a_hundred_thousand_marks_after_one_letter() -> None:
    s = "a" + "\u0301" * 100_000 + " and then words"
    n = normalize_with_map(s)
    assert n.text == "\u00e1" + "\u0301" * (100_000 - 1) + " and then words"
    assert n.map.start(50_000) == 50_001 and n.map.end(50_001) == 50_002
    assert n.map.from_original(50_001) == 50_000
    assert len(n.map.norm_starts) < 10  # one piece for the run, not one per mark


# --- long regions of non-Latin text are copied like ASCII where nothing combines ---------

# Every kind of character the per-cluster path treats specially, inside text that is mostly
# Greek, Chinese or Cyrillic: marks, invisible characters, superscripts, ligatures, full-
# width forms, no-break and thin spaces, typographic quotes and dashes, Hangul jamo that
# compose (L V T), a precomposed syllable, half-width kana and the sound mark that NFKC
# turns into a combining one, a Bengali vowel sign that composes with the one before it.
SCRIPTS = (
    "αβγδεζηθλμνξπρστφχψωΣ"
    "中文的一是不了人我在"
    "абвгдежзий"
    "   \n\u00a0\u2009\u3000\u2018\u2019\u201c\u201d\u2013\u2014"
    "\u0301\u0308\u0323\u0344\u00ad\u200b\u00b9\u00b2\ufb01\uff21\uff0c\u2474\u00a8\u0f73"
    "\u1100\u1161\u11a8\uac00\uff76\uff9e\u09c7\u09be\u00b5\u00e9"
    "ab1.,;()[]"
)


@given(st.text(alphabet=SCRIPTS, max_size=200))
def test_the_fast_path_for_long_regions_changes_nothing(s: str) -> None:
    from citeproof.match import normalize as module

    fast = normalize_with_map(s)
    saved = module._FAST_MIN
    module._FAST_MIN = 10**9  # every region one cluster at a time
    try:
        slow = normalize_with_map(s)
    finally:
        module._FAST_MIN = saved
    assert fast.text == slow.text
    assert fast.superscripts == slow.superscripts
    for i in range(len(fast.text) + 1):
        assert fast.map.start(i) == slow.map.start(i), i
        assert fast.map.end(i) == slow.map.end(i), i
    for p in range(len(s) + 1):
        assert fast.map.from_original(p) == slow.map.from_original(p), p


@given(st.text(alphabet=SCRIPTS, max_size=120))
def test_from_original_is_the_first_position_at_or_after_in_any_script(s: str) -> None:
    """As ``test_match_offset_maps`` has it for Latin text.  A cluster that gives several
    pieces ("¨" gives a space and a mark) once let the text after it merge into its last
    piece, and an offset in that text then mapped past it."""
    n = normalize_with_map(s)
    starts = [n.map.start(i) for i in range(len(n.text))]
    for p in range(len(s) + 1):
        expected = next((i for i, a in enumerate(starts) if a >= p), len(n.text))
        assert n.map.from_original(p) == expected, p


def test_from_original_after_a_cluster_of_several_pieces() -> None:
    n = normalize_with_map("ξ¨我 ζ")  # "¨" is a space and a combining diaeresis in t1
    assert n.text == "ξ \u0308我 ζ"
    assert [n.map.from_original(p) for p in range(6)] == [0, 1, 3, 4, 5, 6]


def test_only_the_characters_that_need_it_go_one_cluster_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from citeproof.match import normalize as module

    calls: list[str] = []
    real = module._cluster

    def counting(s: str, i: int, j: int, out: Any) -> None:
        calls.append(s[i:j])
        real(s, i, j, out)

    monkeypatch.setattr(module, "_cluster", counting)
    s = "中文的一是不了人我在" * 10_000 + "，结束 e\u0301 αβγ¹ δ"
    n = normalize_with_map(s)
    assert n.text == "中文的一是不了人我在" * 10_000 + ",结束 é αβγ1 δ"
    # the accented e and the superscript (with the letter before it), nothing else
    assert calls == ["e\u0301", "γ", "¹"]
    assert n.superscripts == ((len(n.text) - 3, len(n.text) - 2),)
    assert len(n.map.norm_starts) < 20
    assert (n.map.start(50_000), n.map.end(50_001)) == (50_000, 50_001)
