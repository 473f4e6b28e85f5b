"""The audit's faster pysbd call splits exactly as pysbd's own ``segment`` does."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pysbd  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeproof.audit import sentences
from citeproof.audit.sentences import split_sentences


def pysbd_segment(text: str) -> list[str]:
    return list(pysbd.Segmenter(language="en", clean=False, char_span=False).segment(text))


PIECES = st.sampled_from(
    [
        "Dr. Smith et al. found it.",
        " ",
        "  ",
        "\n",
        "\t",
        "It fell by 3.5 mg (p < 0.01).",
        "Why?",
        "No!",
        "e.g. this",
        "U.S.",
        "...",
        "“Quoted.”",
        "(See Fig. 2.)",
        "a",
        "The same sentence.",
        "The same sentence.",
        "\u00a0",
        "\u2003",
        "1.",
        "i.e.",
    ]
)


@settings(deadline=None)
@given(st.lists(PIECES, max_size=12).map("".join))
def test_segment_matches_pysbd_on_sentence_like_text(text: str) -> None:
    assert sentences._segment(text) == pysbd_segment(text)


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from("ab .?!\n\t\u00a0()\"'1"), max_size=60))
def test_segment_matches_pysbd_on_any_punctuation(text: str) -> None:
    assert sentences._segment(text) == pysbd_segment(text)


def test_repeated_sentences_are_located_in_order() -> None:
    text = "It works. It works. It works.  Then it stops."
    assert sentences._segment(text) == pysbd_segment(text)
    assert len(sentences._segment(text)) == 4


def test_remembered_cuts_are_the_cuts() -> None:
    text = "First claim here. Second claim follows. Third one ends it."
    first = split_sentences(text, 0, len(text), (), ())
    again = split_sentences(text, 0, len(text), (), ())
    assert first == again
    assert [text[a:b] for a, b in first] == [
        "First claim here.",
        "Second claim follows.",
        "Third one ends it.",
    ]


def test_the_memo_of_cuts_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sentences, "CUTS_KEEP_CHARS", 2_000)
    for n in range(60):
        sentences._pysbd_cuts(f"Claim number {n} is here. " * 4)
    assert 0 < sentences._cuts_chars <= 2_000
    assert sum(len(t) for t in sentences._CUTS) == sentences._cuts_chars


def test_threads_splitting_different_texts_do_not_mix() -> None:
    texts = [f"Sentence {n} starts. Then sentence {n} ends here." for n in range(40)]

    def split(text: str) -> list[str]:
        return [text[a:b] for a, b in split_sentences(text, 0, len(text), (), ())]

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(split, texts))
    for n, got in enumerate(results):
        assert got == [f"Sentence {n} starts.", f"Then sentence {n} ends here."]
