"""Plain text: strict decoding, text kept exactly, paragraphs as blocks."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.documents.model import REGIONS, Document
from citeproof.documents.plain import document_from_string, parse_text
from citeproof.errors import EncodingError


def assert_well_formed(doc: Document) -> None:
    previous_end = 0
    for block in doc.blocks:
        assert previous_end <= block.start < block.end <= len(doc.text)
        assert doc.text[block.start : block.end].strip()
        assert block.region in REGIONS
        previous_end = block.end


def block_texts(doc: Document) -> list[str]:
    return [doc.text[b.start : b.end] for b in doc.blocks]


def test_paragraphs_split_on_blank_lines() -> None:
    doc = parse_text(b"First line\nsame paragraph.\n\nSecond paragraph.\n   \n\tThird.\n")
    assert block_texts(doc) == ["First line\nsame paragraph.", "Second paragraph.", "Third."]
    assert {(b.kind, b.region, b.section) for b in doc.blocks} == {("paragraph", "body", ())}
    assert doc.format == "text"
    assert_well_formed(doc)


def test_text_is_kept_exactly_including_crlf_and_tabs() -> None:
    raw = "Alpha\r\nbeta\t gamma\r\n\r\nDelta  "
    doc = parse_text(raw.encode())
    assert doc.text == raw
    assert block_texts(doc) == ["Alpha\r\nbeta\t gamma", "Delta"]


def test_old_mac_line_endings_separate_paragraphs() -> None:
    assert block_texts(parse_text(b"one\r\rtwo")) == ["one", "two"]


def test_whitespace_only_lines_with_unicode_spaces_are_blank() -> None:
    doc = document_from_string("one\n\u00a0\u3000\ntwo")
    assert block_texts(doc) == ["one", "two"]


@pytest.mark.parametrize(
    "data",
    [
        codecs.BOM_UTF8 + "Caf\u00e9 au lait".encode(),
        codecs.BOM_UTF16_LE + "Caf\u00e9 au lait".encode("utf-16-le"),
        codecs.BOM_UTF16_BE + "Caf\u00e9 au lait".encode("utf-16-be"),
        codecs.BOM_UTF32_LE + "Caf\u00e9 au lait".encode("utf-32-le"),
    ],
    ids=["utf-8-bom", "utf-16-le", "utf-16-be", "utf-32-le"],
)
def test_byte_order_mark_decides_and_is_not_text(data: bytes) -> None:
    doc = parse_text(data)
    assert doc.text == "Caf\u00e9 au lait"
    assert block_texts(doc) == ["Caf\u00e9 au lait"]


def test_latin1_is_refused_with_the_offset_of_the_first_bad_byte() -> None:
    with pytest.raises(EncodingError) as excinfo:
        parse_text("ok caf\u00e9".encode("latin-1"))
    message = str(excinfo.value)
    assert "offset 6" in message
    assert "0xe9" in message
    assert "UTF-8" in message


def test_offset_counts_the_bom() -> None:
    with pytest.raises(EncodingError, match="offset 5"):
        parse_text(codecs.BOM_UTF8 + b"ab\xff")


def test_broken_utf16_is_refused() -> None:
    with pytest.raises(EncodingError, match="UTF-16"):
        parse_text(codecs.BOM_UTF16_LE + b"a\x00b")


@pytest.mark.parametrize("data", [b"", b"   \n\n \t", codecs.BOM_UTF8])
def test_empty_text_gives_a_document_without_blocks(data: bytes) -> None:
    doc = parse_text(data)
    assert doc.blocks == []
    assert doc.text == data.decode("utf-8-sig")


def test_string_input_is_used_as_given() -> None:
    doc = document_from_string("\ufeffKept as passed.")
    assert doc.text == "\ufeffKept as passed."
    assert block_texts(doc) == ["\ufeffKept as passed."]


@given(st.text(alphabet=st.sampled_from(list("ab \t\r\n\u00a0.")), max_size=60))
def test_blocks_are_well_formed_for_any_text(text: str) -> None:
    doc = document_from_string(text)
    assert_well_formed(doc)
    for block in doc.blocks:
        body = doc.text[block.start : block.end]
        assert body == body.strip()
        lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        assert all(line.strip() for line in lines), "a block never spans a blank line"
    covered = "".join(doc.text[b.start : b.end] for b in doc.blocks)
    assert "".join(covered.split()) == "".join(text.split())
