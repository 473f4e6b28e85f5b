"""The word index answers every search exactly as a scan does, and is built only when due.

Why property tests: the index anchors a needle on one of its words and confirms candidates,
and every rule it uses (inner words are whole words, the last part begins a word, the first
ends one, a spaceless needle lies inside one) has edge cases in runs of spaces, needles that
begin or end with one, overlapping occurrences and the cap that hands the rest to a scan.  A
scan with ``str.find`` is the oracle: same starts, same order, same limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeproof.match.exact import Haystack
from citeproof.match.prepare import lower_in_place, prepare
from citeproof.match.quote import find_quote
from citeproof.match.word_index import BUILD_PASSES, DERIVE_PASSES, MIN_INDEX_CHARS, WordIndex

BENCH = Path(__file__).resolve().parents[3] / "shared" / "bench"


def scan(text: str, needle: str, start: int, stop: int, limit: int | None) -> list[int]:
    out: list[int] = []
    p = text.find(needle, start, stop)
    while p >= 0:
        out.append(p)
        if limit is not None and len(out) >= limit:
            break
        p = text.find(needle, p + 1, stop)
    return out


def rscan(text: str, needle: str, start: int, stop: int, limit: int) -> list[int]:
    out: list[int] = []
    while len(out) < limit:
        p = text.rfind(needle, start, stop)
        if p < 0:
            break
        out.append(p)
        stop = p + len(needle) - 1
    return out


# few letters and many spaces: words repeat, needles have many occurrences, runs of spaces,
# a "?" (the one-byte key's placeholder) and characters outside Latin-1 (its "?")
ALPHABETS = st.sampled_from(
    ["a ", "ab ", "abc  ", "aab c", "ab \u03b1? ", "a  \u00e9b", "xy z\u4e2d "]
)


@st.composite
def text_and_needle(draw: st.DrawFn) -> tuple[str, str]:
    alphabet = draw(ALPHABETS)
    text = draw(st.text(alphabet, min_size=1, max_size=300))
    if draw(st.booleans()):
        a = draw(st.integers(0, len(text) - 1))
        needle = text[a : a + draw(st.integers(1, 12))]
    else:
        needle = draw(st.text(alphabet, min_size=1, max_size=8))
    return text, needle


@settings(deadline=None)
@given(
    text_and_needle(),
    st.sampled_from([None, 1, 2, 3, 65]),
    st.sampled_from([1, 2, 3, 64]),
    st.data(),
)
def test_indexed_searches_are_scans(
    case: tuple[str, str], limit: int | None, cap: int, data: st.DataObject
) -> None:
    text, needle = case
    hay = Haystack(text)
    index = hay.build_index()
    index._cap = cap  # a small cap: the index hands the rest of the text to the scan
    start = data.draw(st.sampled_from([0, 0, len(text) // 3]))
    stop = data.draw(st.sampled_from([len(text), len(text), len(text) - 1]))
    assert hay.find_all(needle, start, stop, limit) == scan(text, needle, start, stop, limit)
    wanted = limit or 50
    assert hay.rfind_all(needle, start, stop, wanted) == rscan(text, needle, start, stop, wanted)
    assert hay.contains(needle) == (needle in text)


@settings(deadline=None)
@given(st.text(st.sampled_from("aAbB \u03a3\u03c3\u0130i\u00df"), min_size=1, max_size=200))
def test_folded_index_is_the_index_of_the_folded_text(text: str) -> None:
    """Lower-casing word by word gives the lower-cased text's words: final sigma ("Σ" at a
    word's end) and "İ" (whose lower case is two characters) included."""
    low, fold = lower_in_place(text)
    assert len(low) == len(text)
    derived = WordIndex(text).folded(low, fold)
    direct = WordIndex(low)
    assert set(derived._words) == set(direct._words)
    for word in direct._words:
        assert list(derived._positions(word)) == list(direct._positions(word))


def test_needles_that_begin_or_end_with_a_space_and_overlap() -> None:
    text = "aa aa  aaa a aa aa"
    hay = Haystack(text)
    hay.build_index()
    for needle in (" aa", "aa ", " aa ", "a a", "aa  aaa", "  ", " ", "aa", "a", "aaa a"):
        assert hay.find_all(needle) == scan(text, needle, 0, len(text), None), needle


@pytest.mark.parametrize("cap", [1, 2, 3])
def test_the_scan_takes_over_exactly_where_the_index_stopped(cap: int) -> None:
    """Occurrences two characters apart, and a cap that stops the index after one to three
    candidates: the scan that goes on must neither skip nor repeat one."""
    for text in ("a a a a a a a a a a a", "b a b a b a b a b a b"):
        hay = Haystack(text)
        hay.build_index()._cap = cap
        for needle in ("a a a", "b a b", "a b a", " a ", "b a b a b"):
            assert hay.find_all(needle) == scan(text, needle, 0, len(text), None), needle
            assert hay.rfind_all(needle, 0, len(text), 99) == rscan(text, needle, 0, len(text), 99)
            assert hay.find_all(needle, 3, len(text), 2) == scan(text, needle, 3, len(text), 2)


def test_words_that_hold_the_last_code_point() -> None:
    """U+10FFFF sorts after everything: the words beginning with a prefix must still be all
    of them ("a\U0010ffffb" begins with "a\U0010ffff" and with "a")."""
    text = "x a\U0010ffffb y a\U0010ffff z \U0010ffff\U0010ffff q ab"
    hay = Haystack(text)
    hay.build_index()
    for needle in (
        "x a",
        "y a\U0010ffff",
        " \U0010ffff",
        "z \U0010ffff",
        "\U0010ffff q",
        "x a\U0010ffffb",
    ):
        assert hay.find_all(needle) == scan(text, needle, 0, len(text), None), needle


def test_a_missing_inner_word_answers_at_once() -> None:
    hay = Haystack("the cat sat on the mat " * 50)
    hay.build_index()
    assert hay.find_all("the dog sat") == []
    assert hay.find_all("the cat sat") == [23 * k for k in range(50)]


def _wide_text() -> str:
    words = [f"w{k}" for k in range(500)]
    text = " ".join(words[k % 500] for k in range(MIN_INDEX_CHARS // 3))
    assert len(text) >= MIN_INDEX_CHARS
    return text


def test_an_index_is_built_once_the_scans_cost_as_much() -> None:
    """Ski rental: a text searched a few times is scanned; once the scans have read it
    BUILD_PASSES times, it gets an index.  Searches of a small window never count."""
    text = _wide_text()
    hay = Haystack(text)
    for _ in range(3 * BUILD_PASSES):
        hay.find_all("w7 w8", 0, 1000)  # a window: scanned, not counted
    assert not hay.indexed
    for _ in range(BUILD_PASSES - 1):
        hay.find_all("w7 w8")
    assert not hay.indexed
    before = hay.find_all("w7 w8")  # the pass that makes BUILD_PASSES: builds, then answers
    assert hay.indexed
    assert before == scan(text, "w7 w8", 0, len(text), None)


def test_a_short_text_is_never_indexed_by_itself() -> None:
    hay = Haystack("a b c " * 100)
    for _ in range(4 * BUILD_PASSES):
        hay.find_all("b c")
    assert not hay.indexed


def test_the_lower_cased_layer_derives_its_index_from_the_layer() -> None:
    text = _wide_text().replace("w1 ", "W1 ")
    prep = prepare(text)
    prep.hay.build_index()
    lower = prep.lower
    for _ in range(DERIVE_PASSES - 1):
        lower.find_all("w1 w2")
    assert not lower.indexed
    lower.find_all("w1 w2")
    index = lower.index
    assert index is not None and prep.hay.index is not None
    # a word without another case shares the layer's positions; "W1" and "w1" merge
    assert index._positions("w7") is prep.hay.index._positions("w7")
    assert list(index._positions("w1")) == list(WordIndex(lower.text)._positions("w1"))
    assert lower.find_all("w1 w2") == scan(lower.text, "w1 w2", 0, len(text), None)


QUOTES = [
    "the cat sat on the mat and the dog sat on the log",
    "The Cat sat on the mat",
    "the cat sat on a mat and the dog",
    "a dog sat on the log and the cat",
    "the cat [12] sat on the mat",
    "on the mat ... the dog sat on the log",
    "zebras were not seen on the mat at all",
    "mat and the dog sat on the log and the cat sat",
]


def test_a_check_answers_the_same_with_and_without_indexes() -> None:
    """Invented text: the index changes how fast a check is, never what it answers (budget
    and flags included)."""
    text = (
        "Intro. The cat sat on the mat and the dog sat on the log [12]. " * 400
        + "The cat sat on a mat and the Dog sat. A dog sat on the log and the cat ran. " * 300
    )
    plain, indexed = prepare(text), prepare(text)
    indexed.build_indexes()
    for quote in QUOTES:
        assert find_quote(indexed, quote) == find_quote(plain, quote), quote


@pytest.mark.skipif(not (BENCH / "quotes").is_dir(), reason="../shared/bench not found")
def test_the_shared_quote_sets_answer_the_same_indexed() -> None:
    """Every quote of the shared 100k set, and every 6th of the 1m set: the same answer
    from a prepared text with its indexes built as from one without."""
    for size, step in (("100k", 1), ("1m", 6)):
        text = (BENCH / "texts" / f"{size}.txt").read_text(encoding="utf-8")
        plain, indexed = prepare(text), prepare(text)
        indexed.build_indexes()
        lines = (BENCH / "quotes" / f"{size}.jsonl").read_text(encoding="utf-8").splitlines()
        for line in lines[::step]:
            quote = json.loads(line)["quote"]
            assert find_quote(indexed, quote) == find_quote(plain, quote), quote
