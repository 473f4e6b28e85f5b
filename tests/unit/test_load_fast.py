"""The fast load path gives exactly what the old one gave.

The old per-line paragraph builder and the old per-byte binary sniff are kept here as the
oracles: the regex builder and the ``bytes.translate`` count must agree with them on any text,
and ``Document.has_text`` must agree with ``text.strip()``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citeproof
from citeproof.documents.detect import control_bytes, detect_format
from citeproof.documents.model import Document, Origin
from citeproof.documents.plain import document_from_string, paragraph_blocks
from citeproof.errors import UnsupportedFormatError

# the code the fast paths replaced is the oracle; the benchmark times the two side by side
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from load_oracle import old_control_bytes, old_paragraph_blocks

# Line breaks, whitespace that is not a line break (tab, VT, FF, FS, NEL, NBSP, U+2028,
# ideographic space), and letters: the characters the two builders could disagree on.
_CHARS = "\r\n \t\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u2028\u2029\u3000ab."
text_like = st.text(alphabet=st.sampled_from(_CHARS), max_size=60)
any_text = st.text(max_size=60)


@given(text_like)
def test_blocks_match_old_builder_on_whitespace_heavy_text(text: str) -> None:
    assert paragraph_blocks(text) == old_paragraph_blocks(text)


@given(any_text)
def test_blocks_match_old_builder_on_any_text(text: str) -> None:
    assert paragraph_blocks(text) == old_paragraph_blocks(text)


@given(st.lists(text_like, max_size=8))
def test_blocks_match_old_builder_on_crlf_and_lf_mixes(parts: list[str]) -> None:
    for sep in ("\n\n", "\r\n\r\n", "\r\r", "\n \t\n", "\r\n"):
        text = sep.join(parts)
        assert paragraph_blocks(text) == old_paragraph_blocks(text)


@pytest.mark.parametrize(
    ("text", "spans"),
    [
        ("", []),
        ("   \n\n \t", []),
        ("a", [(0, 1)]),
        ("  a b  \n  c  \n\n\n  d\n", [(2, 11), (18, 19)]),
        ("a\r\nb", [(0, 4)]),
        ("a\r\n\r\nb", [(0, 1), (5, 6)]),
        ("a\n\rb", [(0, 1), (3, 4)]),  # \n then a lone \r: an empty line between
        ("a\r\rb", [(0, 1), (3, 4)]),
        ("a\n\x0c\nb", [(0, 1), (4, 5)]),  # a line holding only a form feed is blank
        ("a\u2028\u2028b", [(0, 4)]),  # U+2028 is not a line break here
        ("a\n\xa0\nb", [(0, 1), (4, 5)]),
    ],
)
def test_blocks_examples(text: str, spans: list[tuple[int, int]]) -> None:
    assert [(b.start, b.end) for b in paragraph_blocks(text)] == spans
    assert paragraph_blocks(text) == old_paragraph_blocks(text)


def test_long_whitespace_runs_stay_linear() -> None:
    text = ("word " + " " * 20000 + "\n" + "\t" * 20000 + "\n" + " " * 20000) * 5 + "end"
    assert paragraph_blocks(text) == old_paragraph_blocks(text)


@given(st.binary(max_size=300))
def test_control_count_matches_old_loop(data: bytes) -> None:
    assert control_bytes(data) == old_control_bytes(data)


def test_control_count_every_byte() -> None:
    every = bytes(range(256))
    assert control_bytes(every) == old_control_bytes(every) == 27


@pytest.mark.parametrize("n", [0, 1, 9, 10, 11, 100])
def test_sniff_threshold_unchanged(n: int) -> None:
    head = b"\x01" * n + b"a" * (100 - n)
    refused = n > len(head) // 10
    if refused:
        with pytest.raises(UnsupportedFormatError, match="control characters"):
            detect_format(head)
    else:
        assert detect_format(head) == "text"


@given(text_like | any_text)
def test_has_text_is_strip(text: str) -> None:
    doc = document_from_string(text)
    assert doc.has_text is bool(text.strip())


def test_has_text_follows_reassigned_text_and_copies() -> None:
    doc = document_from_string("  \n ")
    assert not doc.has_text
    doc.text = "now some words"
    assert doc.has_text
    copy = doc.with_origin(Origin(input="x", coverage="text"))
    assert copy.has_text
    empty = Document(text="", blocks=[], format="text")
    assert not empty.has_text


def test_whitespace_document_is_not_checkable_and_short_quote_too_short() -> None:
    blank = citeproof.check("a quote long enough to be checked", citeproof.load(text=" \n\t "))
    assert blank.verdict == "NOT_CHECKABLE"
    short = citeproof.check("too short", citeproof.load(text="some text " * 10))
    assert short.verdict == "TOO_SHORT"
