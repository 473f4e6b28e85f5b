"""Issue 22: a PDF's reference list is read whole, and what could not be is said.

A list whose entries differ only in their numbers once lost most of its entries: lines
alike at the page edges were taken for running heads, and the numbering gap that left
made the reader fold every later entry into the one before.  These tests build such lists
as real PDFs (``tests/pdfgen.py``) and check every entry comes back, and that gaps,
repeats and left-out text are reported rather than hidden.  No files, no network.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from citeproof.documents.model import Block, Document
from citeproof.documents.pdf import parse_pdf
from citeproof.refs.pdf_list import read_document_reference_list, read_document_references

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pdfgen

Entry = Callable[[int], list[str]]


@pytest.mark.parametrize(
    "entry", [pdfgen.varied_entry, pdfgen.number_only_entry, pdfgen.wrapped_entry]
)
@pytest.mark.parametrize("furniture", [False, True], ids=["manuscript", "journal"])
def test_every_entry_of_a_long_list_is_read(entry: Entry, furniture: bool) -> None:
    doc = parse_pdf(pdfgen.reference_list(entry, furniture=furniture))
    assert doc.pages is not None and doc.pages >= 3
    listed = read_document_reference_list(doc)
    assert [r.label for r in listed.references] == [str(i) for i in range(1, 151)]
    assert listed.count == 150 and listed.numbered
    assert (listed.first, listed.last, listed.gaps, listed.problems) == (1, 150, (), ())
    assert listed.references[41].text.startswith("Smith J, Lee K")
    heads = [doc.text[b.start : b.end] for b in doc.blocks if b.kind == "furniture"]
    if furniture:  # the real running heads and page numbers are still furniture
        assert sum("Journal of Tests" in h for h in heads) == doc.pages
    else:
        assert heads == []


def _references(*entries: str, blocks: bool = True) -> Document:
    """A Document whose references region holds ``entries``: a block each, as a PDF's
    hanging indents make them, or (``blocks=False``) one block of lines."""
    text = "References\n" + "\n".join(entries)
    spans = [(0, len("References"), "heading")]
    start = len("References") + 1
    if blocks:
        for entry in entries:
            spans.append((start, start + len(entry), "paragraph"))
            start += len(entry) + 1
    else:
        spans.append((start, len(text), "paragraph"))
    doc_blocks = [Block(a, b, kind, ("References",), "references", 1) for a, b, kind in spans]
    return Document(text=text, blocks=doc_blocks, format="pdf", pages=1)


@pytest.mark.parametrize("blocks", [True, False], ids=["blocks", "one-block"])
def test_a_numbering_that_skips_is_still_one_entry_each_and_the_gaps_are_said(
    blocks: bool,
) -> None:
    doc = _references(
        "3. Smith J. Walking and sleep. J Sleep Res. 2019;3:45.",
        "7. Lee K. Running and sleep. J Sleep Res. 2020;4:46.",
        "12. Brown M. Sitting and sleep. J Sleep Res. 2021;5:47.",
        blocks=blocks,
    )
    listed = read_document_reference_list(doc)
    assert [r.label for r in listed.references] == ["3", "7", "12"]
    assert listed.gaps == ((1, 2), (4, 6), (8, 11))
    assert listed.problems == (
        "The numbering skips 1-2, 4-6, 8-11: no entry was read for 9 numbers; check the "
        "PDF's reference list.",
    )


def test_a_repeated_number_is_two_entries_and_said() -> None:
    doc = _references(
        "1. Smith J. Walking and sleep. J Sleep Res. 2019;3:45.",
        "2. Lee K. Running and sleep. J Sleep Res. 2020;4:46.",
        "2. Brown M. Sitting and sleep. J Sleep Res. 2021;5:47.",
    )
    listed = read_document_reference_list(doc)
    assert [r.label for r in listed.references] == ["1", "2", "2"]
    assert listed.repeated == (2,)
    assert listed.problems == ("More than one entry is numbered 2; each is read apart.",)


def test_a_year_that_opens_a_wrapped_line_stays_in_its_entry() -> None:
    doc = _references(
        "1. Waleed Ammar and Matthew Peters.",
        "2017. The ai2 system at SemEval. In ACL workshop.",
        "2. Isabelle Augenstein and Mrinal Das.",
        "2017. SemEval 2017 task 10. In ACL workshop.",
        blocks=False,
    )
    listed = read_document_reference_list(doc)
    assert [r.label for r in listed.references] == ["1", "2"]
    assert "2017. The ai2 system" in listed.references[0].text
    assert listed.problems == ()


def test_a_lower_number_taken_into_an_entry_is_said() -> None:
    doc = _references(
        "11. Smith J. Walking and sleep. J Sleep Res. 2019;3:45.",
        "12. Lee K. Running and sleep. J Sleep Res. 2020;4: pages",
        "4. and more pages of it.",
        blocks=False,
    )
    listed = read_document_reference_list(doc)
    assert [r.label for r in listed.references] == ["11", "12"]
    assert listed.absorbed == ((4, 12),)
    assert "number 4 was read as part of entry 12" in listed.problems[-1]


def test_text_left_out_of_the_list_is_said() -> None:
    doc = _references(
        "1. Smith J. Walking and sleep. J Sleep Res. 2019;3:45.",
        "2. Lee K. Running and sleep. J Sleep Res. 2020;4:46.",
        "Submit your next manuscript to Example Central and take full advantage of:",
        "\u2022 Convenient online submission",
        "\u2022 Thorough peer review",
        "\u2022 No space constraints or color figure charges",
        "Submit your manuscript at www.example.com/submit",
    )
    listed = read_document_reference_list(doc)
    assert [r.label for r in listed.references] == ["1", "2"]
    assert len(listed.left_out) == 5
    assert listed.problems == (
        "Text in the reference list was not read as entries (a publisher's box, a note?): "
        "'Submit your next manuscript to Example Central and take f...', "
        "'\u2022 Convenient online submission', '\u2022 Thorough peer review' and 2 more.",
    )
    assert read_document_references(doc) == listed.references
