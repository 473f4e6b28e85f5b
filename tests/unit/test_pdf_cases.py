"""Issue 24: PDFs read like their ground truth, the cases seen on real papers.

Each case is an invented PDF built at test time (``tests/pdfgen.py``) with the layout that
broke a real paper's text: a superscript glued to the next word or on a line of its own, a
range whose dash the font maps to ``e``, soft and line-end hyphens, a page-one sidebar of
affiliations, a running head that pdfium reads amid page one's columns, floats that
interrupt a sentence.  No files, no network.
"""

from __future__ import annotations

import sys
from pathlib import Path

from citeproof.documents.model import Document
from citeproof.documents.pdf import PAGE_SEPARATOR, SOFT_HYPHEN, parse_pdf
from citeproof.models import CheckResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pdfgen


def check(quote: str, doc: Document) -> CheckResult:
    import citeproof

    return citeproof.check(quote, doc)


def assert_exact(quote: str, doc: Document) -> None:
    result = check(quote, doc)
    assert result.verdict == "EXACT", (result.verdict, doc.text)


def marked(doc: Document) -> list[str]:
    return [doc.text[a:b] for a, b in doc.markers]


def block_of(doc: Document, needle: str) -> tuple[str, str, int | None]:
    index = doc.block_at(doc.text.index(needle))
    assert index is not None
    block = doc.blocks[index]
    return block.kind, block.region, block.page


# --- superscript citation numbers inside a sentence ------------------------------------


def test_superscript_glued_to_the_next_word_is_set_apart() -> None:
    doc = parse_pdf(pdfgen.glued_superscript())
    assert "habits.24 In the past" in doc.text
    assert marked(doc) == ["24", "25"]
    assert_exact("They kept to their old eating habits. In the past they had tried", doc)


def test_superscript_that_pdfium_puts_on_a_line_of_its_own() -> None:
    doc = parse_pdf(pdfgen.superscript_own_line())
    assert "Jadad et al.11 All of the studies were\nread twice" in doc.text
    assert marked(doc) == ["11"]
    assert_exact("on the scale of Jadad et al. All of the studies were read twice", doc)


def test_superscript_group_with_a_blank_and_a_range_drawn_as_e() -> None:
    doc = parse_pdf(pdfgen.range_drawn_as_e())
    assert "meaningful.4 36\u201338 Iron" in doc.text
    assert marked(doc) == ["4", "36\u201338"]
    assert_exact("which is clinically meaningful. Iron stores fell", doc)


def test_a_real_e_between_raised_digits_is_not_a_dash() -> None:
    # the same letters drawn as an "e" (its ink is as tall as it is wide) stay what they are
    doc = parse_pdf(pdfgen.range_drawn_as_e(remapped=False))
    assert "36e38" in doc.text
    assert "36\u2013" not in doc.text


# --- hyphens -----------------------------------------------------------------------------


def test_line_end_syllable_break_is_joined_and_a_compound_kept() -> None:
    doc = parse_pdf(pdfgen.line_end_hyphens())
    assert SOFT_HYPHEN not in doc.text
    assert "The new software read the files" in doc.text
    assert "both tools are well-known and both are free software." in doc.text


def test_line_end_hyphen_pdfium_missed_is_decided_like_its_own() -> None:
    doc = parse_pdf(pdfgen.hidden_line_end_hyphen())
    assert "A. Broström, The measurement of depression in patients" in doc.text


# --- page one: a side column of author notes, a running head amid the columns -------------


def test_page_one_side_column_of_affiliations_is_front_matter() -> None:
    doc = parse_pdf(pdfgen.side_column_page())
    for needle in ("Department of Tests", "Institute of Reading", "*Correspondence", "Accepted"):
        assert block_of(doc, needle)[1] == "front-matter", needle
    assert block_of(doc, "Documents are everywhere")[1] == "body"
    assert_exact("and it goes on for a few more lines so that the body is most of the page", doc)


def test_small_print_beside_nothing_is_not_a_side_column() -> None:
    # an abstract set small across the page, with no text beside it, stays the abstract
    page = [
        *pdfgen.column(["Reading PDF Files Well"], top=740, size=16),
        *pdfgen.column(
            [
                "Department of Tests and the people in it read the text of PDF files",
                "and compare it with what other tools read from them, one by one.",
            ],
            top=700,
            size=8,
            leading=10,
        ),
        *pdfgen.column(["Documents are everywhere and their text matters."], top=640),
    ]
    doc = parse_pdf(pdfgen.build_pdf([page]))
    assert block_of(doc, "Department of Tests and the people")[1] != "front-matter" or (
        block_of(doc, "Documents are everywhere")[1] == "body"
    )
    assert doc.text.index("Department of Tests") < doc.text.index("Documents are")


def test_running_head_amid_page_one_columns_is_furniture() -> None:
    doc = parse_pdf(pdfgen.running_head_amid_columns())
    assert block_of(doc, "Journal of Tests 12 (2020) 1\u201310\n") == ("furniture", "other", 1)
    assert_exact("We built a reader that follows the columns of a page and the sentences", doc)
    assert block_of(doc, "Page 2 goes on")[:2] == ("paragraph", "body")


# --- floats that interrupt a sentence ----------------------------------------------------


def test_table_at_the_top_of_a_column_moves_out_of_the_sentence() -> None:
    doc = parse_pdf(pdfgen.table_at_column_top())
    assert_exact("passed through one fully-connected layer and then fed into a two-layer", doc)
    assert block_of(doc, "Table 1: Results")[:2] == ("caption", "caption")
    assert block_of(doc, "title 85.5 85.5")[:2] == ("cell", "table")
    assert block_of(doc, "reads the sequence")[1] == "body"
    # the float goes to the end of the paragraph it interrupted, not away from it
    assert doc.text.index("both directions.") < doc.text.index("Field Precision")
    assert doc.text.index("Table 1: Results") < doc.text.index("Training. The system")


def test_figure_caption_drawn_last_moves_out_of_a_sentence_across_pages() -> None:
    doc = parse_pdf(pdfgen.caption_drawn_last())
    assert_exact("applied every 300 ms in order to avoid summation effects and muscle", doc)
    assert block_of(doc, "Fig. 1 The set-up")[:3] == ("caption", "caption", 1)
    assert doc.text.index("Fig. 1 The set-up") < doc.text.index("Single pulses")


def test_prose_that_names_a_table_is_not_a_caption() -> None:
    lines = [
        "The results are in the table below, and they are good.",
        "Table 2 shows the results for 500 papers, which we read",
        "one by one, and then counted with care.",
    ]
    doc = parse_pdf(pdfgen.build_pdf([pdfgen.column(lines, gap_before=[1])]))
    assert {b.region for b in doc.blocks} == {"body"}
    assert PAGE_SEPARATOR not in doc.text


def test_line_end_hyphen_inside_an_address_is_kept() -> None:
    lines = ["Correspondence to the first author, at jane.doe@uni-", "tuebingen.de or by post."]
    doc = parse_pdf(pdfgen.build_pdf([pdfgen.column(lines)]))
    assert "jane.doe@uni-tuebingen.de or by post." in doc.text


def test_line_end_dash_between_words_keeps_the_words_together() -> None:
    # "mention–" / "mention edges": pdfium keeps the two lines apart after a dash
    lines = ["Entity\u2013entity relations. While mention\u2013", "mention edges say more."]
    doc = parse_pdf(pdfgen.build_pdf([pdfgen.column(lines)]))
    assert "While mention\u2013mention edges say more." in doc.text


def test_numbers_alone_at_page_edges_stay_furniture_whatever_their_order() -> None:
    # a number alone is no text: a page number, or a manuscript's line number in the margin
    words = ["Walking helps.", "Sleep matters too.", "So does food."]
    pages = [
        [pdfgen.Line(number, 40, 700, 9), *pdfgen.column([say, "Then " + say.lower()], top=650)]
        for number, say in zip(["5", "17", "2"], words, strict=True)
    ]
    doc = parse_pdf(pdfgen.build_pdf(pages))
    assert [doc.text[b.start : b.end] for b in doc.blocks if b.kind == "furniture"] == [
        "5",
        "17",
        "2",
    ]
