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

Sup = pdfgen.Sup


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
    # "habits.24In the past": pdfium sees no gap after the raised number
    lines = [
        *pdfgen.run(["They kept to their old eating habits.", Sup("24"), "In the past"], y=720),
        *pdfgen.run(["they had tried to change them, as others did.", Sup("25")], y=706.5),
    ]
    doc = parse_pdf(pdfgen.build_pdf([lines]))
    assert "habits.24 In the past" in doc.text
    assert marked(doc) == ["24", "25"]
    assert_exact("They kept to their old eating habits. In the past they had tried", doc)


def test_superscript_that_pdfium_puts_on_a_line_of_its_own() -> None:
    # raised well above its line, the number makes pdfium break the line twice:
    # "Jadad et al." / "11" / "All of the studies were"
    before = "quality was scored on the scale of Jadad et al."
    x = 72 + pdfgen.text_width(before, 9)
    lines = [
        pdfgen.Line(before, 72, 720, 9),
        pdfgen.Line("11", x, 728, 6),
        pdfgen.Line("All of the studies were", x + pdfgen.text_width("11", 6) + 2, 720, 9),
        pdfgen.Line("read twice by two of us.", 72, 709, 9),
    ]
    doc = parse_pdf(pdfgen.build_pdf([lines]))
    assert "Jadad et al.11 All of the studies were\nread twice" in doc.text
    assert marked(doc) == ["11"]
    assert_exact("on the scale of Jadad et al. All of the studies were read twice", doc)


def test_superscript_group_with_a_blank_and_a_range_drawn_as_e() -> None:
    # "meaningful.4 36e38 Iron": the font maps the range's en dash to "e"
    lines = pdfgen.run(
        ["which is clinically meaningful.", Sup("4"), Sup(" 36\u201338"), " Iron stores fell"]
    )
    data = pdfgen.remap_glyphs(pdfgen.build_pdf([lines]), {"\u2013": "e"})
    doc = parse_pdf(data)
    assert "meaningful.4 36\u201338 Iron" in doc.text
    assert marked(doc) == ["4", "36\u201338"]
    assert_exact("which is clinically meaningful. Iron stores fell", doc)


def test_a_real_e_between_raised_digits_is_not_a_dash() -> None:
    # the same letters drawn as an "e" (its ink is as tall as it is wide) stay what they are
    lines = pdfgen.run(["which is clinically meaningful.", Sup("4"), Sup(" 36e38"), " Iron"])
    doc = parse_pdf(pdfgen.build_pdf([lines]))
    assert "36e38" in doc.text
    assert "36\u2013" not in doc.text


# --- hyphens -----------------------------------------------------------------------------


def test_line_end_syllable_break_is_joined_and_a_compound_kept() -> None:
    lines = [
        "The new soft-",
        "ware read the files, and the well-known tool that the",
        "team knew well read them too; both tools are well-",
        "known and both are free soft-",
        "ware.",
    ]
    doc = parse_pdf(pdfgen.build_pdf([pdfgen.column(lines)]))
    assert SOFT_HYPHEN not in doc.text
    assert "The new software read the files" in doc.text
    assert "both tools are well-known and both are free software." in doc.text


def test_line_end_hyphen_pdfium_missed_is_decided_like_its_own() -> None:
    # an accent drawn after the line (as in "Brostr ¨ om, The measure- ¨") hides the hyphen
    # at the line end from pdfium, which then keeps "measure-" and "ment" on two lines
    text = "[10] P. Johansson and A. Brostrom, The measure-"
    centre = (pdfgen.text_width("o") - pdfgen.text_width("\u00a8")) / 2
    accent_x = 72 + pdfgen.text_width("[10] P. Johansson and A. Brostr") + centre
    lines = [
        pdfgen.Line(text, 72, 720),
        pdfgen.Line("\u00a8", accent_x, 720.5),
        pdfgen.Line("ment of depression in patients with heart failure,", 90, 706.5),
        pdfgen.Line("Progress in Cardiovascular Nursing, 2006.", 90, 693),
    ]
    doc = parse_pdf(pdfgen.build_pdf([lines]))
    assert "A. Broström, The measurement of depression in patients" in doc.text


# --- page one: a side column of author notes, a running head amid the columns -------------


def _side_column(top: float = 680.0) -> list[pdfgen.Line]:
    """Affiliations, correspondence and dates in a narrow column of small print."""
    out: list[pdfgen.Line] = []
    notes = [
        ("1", "Department of Tests, University"),
        ("", "of Examples, Exampletown, UK"),
        ("2", "Institute of Reading, Example"),
        ("", "College, Sampleton, UK"),
        ("", "*Correspondence: jane@example.org"),
        ("", "Received: 1 May 2020"),
        ("", "Accepted: 2 June 2020"),
    ]
    for k, (number, text) in enumerate(notes):
        pieces: list[str | pdfgen.Sup] = [Sup(number), text] if number else [text]
        out += pdfgen.run(pieces, x=36, y=top - 9 * k, size=7, sup_size=5, rise=2.5)
    return out


def test_page_one_side_column_of_affiliations_is_front_matter() -> None:
    # the typesetter draws the side column after the first lines of the introduction, so
    # pdfium reads it in the middle of a sentence of the body
    def text(lines: list[str], top: float, **kw: object) -> list[pdfgen.Line]:
        return pdfgen.column(lines, x=200, top=top, size=10, leading=12.5, **kw)  # type: ignore[arg-type]

    page = [
        *pdfgen.column(["Reading PDF Files Well"], x=200, top=740, size=16),
        *pdfgen.run(["Jane Doe", Sup("1"), " and John Roe", Sup("2")], x=200, y=715, size=11),
        *text(["Abstract", "We read the text of PDF files and compare it with what"], top=680),
        *text(["other tools read from them, sentence by sentence."], top=655),
        *text(
            [
                "Introduction",
                "Documents are everywhere and their text matters to anyone",
                "who checks quotations against their sources, which is what",
                "this paper is about, and it goes on for a few more lines so",
            ],
            top=620,
            gap_before=[1],
        ),
        *_side_column(),
        *text(["that the body is most of the page. A second paragraph starts"], top=570),
        *text(["here and it too runs over several lines of text."], top=557.5),
    ]
    doc = parse_pdf(pdfgen.build_pdf([page]))
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


def _later_page(number: int) -> list[pdfgen.Line]:
    head = pdfgen.Line(f"Journal of Tests 12 (2020) 1\u201310 {number}", 72, 765, 8)
    body = [
        f"Page {number} goes on with the study, in sentences of its own.",
        "It tells what was done" + (" and why." if number % 2 else ", and how."),
        "Then it ends" + (" here." if number % 2 else " there."),
    ]
    return [head, *pdfgen.column(body, top=700)]


def test_running_head_amid_page_one_columns_is_furniture() -> None:
    # page one's head is drawn after the left column, so pdfium reads it between the two
    # columns, in the middle of a sentence that runs from one to the other
    left = [
        "Documents are everywhere and their text",
        "matters to anyone who checks quotations",
        "against their sources, which is what this",
        "paper is about. We built a reader that",
        "follows the columns of a page and the",
    ]
    right = [
        "sentences that run from one column to",
        "the next, and we tested it on invented",
        "pages like this one, with a running head.",
    ]
    page1 = [
        *pdfgen.column(["Reading Two Columns Well"], top=720, size=16),
        *pdfgen.column(["Abstract", "We read two-column pages and check them."], top=690),
        *pdfgen.column(["1 Introduction", *left], top=640, gap_before=[1]),
        pdfgen.Line("Journal of Tests 12 (2020) 1\u201310", 72, 765, 8),
        *pdfgen.column(right, x=320, top=628),
    ]
    doc = parse_pdf(pdfgen.build_pdf([page1, _later_page(2), _later_page(3)]))
    assert block_of(doc, "Journal of Tests 12 (2020) 1\u201310\n") == ("furniture", "other", 1)
    assert_exact("We built a reader that follows the columns of a page and the sentences", doc)
    assert block_of(doc, "Page 2 goes on")[:2] == ("paragraph", "body")


# --- floats that interrupt a sentence ----------------------------------------------------


def test_table_at_the_top_of_a_column_moves_out_of_the_sentence() -> None:
    # ACL style: the table and its caption open the right column, between "and then" at
    # the foot of the left column and "fed into" under the caption
    left = pdfgen.column(
        [
            "Model. The input token representations are",
            "passed through one fully-connected layer and then",
        ],
        top=120,
        indent=[0],
    )
    table = pdfgen.column(
        ["Field Precision Recall F1", "title 85.5 85.5 85.5", "authors 92.1 92.1 92.1"],
        x=360,
        top=740,
    )
    caption = pdfgen.column(["Table 1: Results of the parsing system."], x=330, top=690)
    right = pdfgen.column(
        [
            "fed into a two-layer bidirectional LSTM, which",
            "reads the sequence in both directions.",
            "Training. The system is trained on a snapshot",
            "of the data at hand, as we describe next.",
        ],
        x=320,
        top=655,
        indent=[2],
    )
    doc = parse_pdf(pdfgen.build_pdf([[*left, *table, *caption, *right]]))
    assert_exact("passed through one fully-connected layer and then fed into a two-layer", doc)
    assert block_of(doc, "Table 1: Results")[:2] == ("caption", "caption")
    assert block_of(doc, "title 85.5 85.5")[:2] == ("cell", "table")
    assert block_of(doc, "reads the sequence")[1] == "body"
    # the float goes to the end of the paragraph it interrupted, not away from it
    assert doc.text.index("both directions.") < doc.text.index("Field Precision")
    assert doc.text.index("Table 1: Results") < doc.text.index("Training. The system")


def test_figure_caption_drawn_last_moves_out_of_a_sentence_across_pages() -> None:
    # the publisher draws the figure (an image) and its caption after the page's text, so
    # pdfium reads the caption between the last words of the page and the next page
    page1 = [
        *pdfgen.column(
            [
                "Methods",
                "The subjects were asked to report any discomfort.",
                "Single pulses were applied every 300 ms in order to",
            ],
            top=300,
            indent=[1],
        ),
        *pdfgen.column(
            [
                "Fig. 1 The set-up seen from above: electrodes and the glove, with the",
                "array on the forearm and the cables to the stimulator",
            ],
            top=700,
            size=8,
            leading=10,
        ),
    ]
    page2 = pdfgen.column(
        ["avoid summation effects and muscle contraction.", "After that we rested."], top=700
    )
    doc = parse_pdf(pdfgen.build_pdf([page1, page2]))
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
