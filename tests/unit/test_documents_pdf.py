"""parse_pdf on PDFs built at test time (tests/pdfgen.py): no files, no network."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeproof.documents.model import REGIONS, Document
from citeproof.documents.pdf import PAGE_SEPARATOR, SOFT_HYPHEN, _clean, parse_pdf
from citeproof.errors import CiteproofError, DocumentError, UnsupportedFormatError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pdfgen

PAGES = [
    ["First page, first line of text.", "First page, second line of text."],
    ["Second page has one line only."],
    ["Third page line one.", "Third page line two.", "Third page line three."],
]


def assert_well_formed(doc: Document) -> None:
    """The block invariants every consumer relies on."""
    assert doc.pages is not None
    page_spans = []
    offset = 0
    for page_text in doc.text.split(PAGE_SEPARATOR) if doc.text else []:
        page_spans.append((offset, offset + len(page_text)))
        offset += len(page_text) + len(PAGE_SEPARATOR)
    previous_end = 0
    for block in doc.blocks:
        assert previous_end <= block.start < block.end <= len(doc.text)
        span = doc.text[block.start : block.end]
        assert span.strip() == span != ""
        assert block.page is not None and 1 <= block.page <= doc.pages
        assert block.region in REGIONS
        start, end = page_spans[block.page - 1]
        assert start <= block.start and block.end <= end
        previous_end = block.end


@pytest.fixture(scope="module")
def multipage() -> Document:
    return parse_pdf(pdfgen.build_pdf([pdfgen.column(lines) for lines in PAGES]))


def test_multipage_text_is_pages_joined(multipage: Document) -> None:
    expected = PAGE_SEPARATOR.join("\n".join(lines) for lines in PAGES)
    assert multipage.text == expected
    assert multipage.format == "pdf"
    assert multipage.dehyphen is True
    assert multipage.pages == 3


def test_multipage_blocks_carry_their_page(multipage: Document) -> None:
    assert_well_formed(multipage)
    for page_no, lines in enumerate(PAGES, start=1):
        for line in lines:
            at = multipage.text.index(line)
            index = multipage.block_at(at)
            assert index is not None
            block = multipage.blocks[index]
            assert block.start <= at < block.end
            assert block.page == page_no


def test_crlf_and_stray_controls_do_not_reach_the_text(multipage: Document) -> None:
    assert "\r" not in multipage.text
    assert "\ufffe" not in multipage.text


def test_empty_page_in_the_middle_keeps_page_numbers() -> None:
    doc = parse_pdf(
        pdfgen.build_pdf([pdfgen.column(["Before the gap."]), [], pdfgen.column(["After it."])])
    )
    assert doc.pages == 3
    assert doc.text == "Before the gap." + PAGE_SEPARATOR * 2 + "After it."
    assert [b.page for b in doc.blocks] == [1, 3]
    assert_well_formed(doc)


# --- hyphenation ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def hyphenated() -> Document:
    lines = [
        "This sentence contains a hyphen-",
        "ated word at the end of its first line.",
        "A well-known phrase appears here, and a well-",
        "known one breaks across the line, as does COVID-",
        "19 in the last line of the page.",
    ]
    return parse_pdf(pdfgen.build_pdf([pdfgen.column(lines)]))


def test_syllable_break_keeps_a_soft_hyphen(hyphenated: Document) -> None:
    # pdfium joins the two lines; the hyphen stays, as U+00AD, which t1 removes
    assert f"hyphen{SOFT_HYPHEN}ated word" in hyphenated.text
    assert "hyphenated word" in hyphenated.text.replace(SOFT_HYPHEN, "")


def test_compound_split_at_line_end_keeps_a_real_hyphen(hyphenated: Document) -> None:
    # "well-known" occurs elsewhere in the document; "wellknown" does not
    assert "a well-known one breaks" in hyphenated.text
    assert "COVID-19 in the last line" in hyphenated.text
    assert_well_formed(hyphenated)


def test_clean_drops_control_characters_and_maps_markers() -> None:
    assert _clean("\x0f What is\x00 this\x8d?\r", {}) == "What is this?"
    assert _clean("tab\there", {}) == "tab here"
    assert _clean("litera\ufffeture", {("litera", "ture"): SOFT_HYPHEN}) == "litera\u00adture"
    assert _clean("end of line\ufffe", {}) == "end of line-"


# --- no text layer, broken and protected files -----------------------------------------


def test_pdf_without_text_objects_has_no_text() -> None:
    doc = parse_pdf(pdfgen.build_pdf([[], []]))
    assert doc.text == ""
    assert doc.blocks == []
    assert doc.pages == 2
    assert doc.format == "pdf"


@pytest.mark.parametrize(
    "data",
    [b"", b"not a pdf at all", b"%PDF-1.7\n%garbage without objects\n", b"\x00" * 64],
    ids=["empty", "text", "header-only", "zeros"],
)
def test_garbage_raises_unsupported_format(data: bytes) -> None:
    with pytest.raises(UnsupportedFormatError) as info:
        parse_pdf(data)
    assert_sentence(str(info.value))


def test_truncated_pdf_raises_a_citeproof_error() -> None:
    data = pdfgen.build_pdf([pdfgen.column(lines) for lines in PAGES])
    for cut in (len(data) // 2, 100, 9):
        with pytest.raises(CiteproofError) as info:
            parse_pdf(data[:cut])
        assert_sentence(str(info.value))


def test_password_protected_pdf_raises_document_error() -> None:
    with pytest.raises(DocumentError, match="password") as info:
        parse_pdf(pdfgen.encrypted_pdf())
    assert_sentence(str(info.value))


def assert_sentence(message: str) -> None:
    assert message[0].isupper() and message.endswith(".")
    assert "\n" not in message and "Traceback" not in message


# --- metadata ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("A Study of  Parsing", "A Study of Parsing"),
        ("6489122611071476 1..10", None),
        ("Microsoft Word - draft.docx", None),
        ("paper.pdf", None),
        ("", None),
    ],
)
def test_title_from_info_dictionary(title: str, expected: str | None) -> None:
    doc = parse_pdf(pdfgen.build_pdf([pdfgen.column(["Some text."])], title=title))
    assert doc.meta.title == expected


# --- layout: blocks, regions, sections ---------------------------------------------------


@pytest.fixture(scope="module")
def paper() -> Document:
    line = pdfgen.Line
    page1 = [
        *pdfgen.column(["A Study of Parsing", "Jane Doe and John Roe"], top=740, size=14),
        *pdfgen.column(
            [
                "Abstract",
                "We study how text is extracted from PDF files",
                "and how well it survives.",
            ],
            top=680,
            gap_before=[1],
        ),
        *pdfgen.column(["Keywords: parsing, PDF"], top=620),
        *pdfgen.column(
            [
                "1 Introduction",
                "Documents are everywhere and their text matters to",
                "anyone who checks quotations against sources.",
                "A second paragraph starts with an indent and goes",
                "on for another line of text.",
            ],
            top=580,
            gap_before=[1],
            indent=[3],
        ),
        *pdfgen.column(["1.1 Prior Work", "Earlier tools read text in other ways."], top=480),
        *pdfgen.column(
            [
                "2 Methods",
                "We built PDFs and parsed them in three steps:",
                "1. The first step of the list",
                "2. The second step of the list",
            ],
            top=420,
            gap_before=[1],
        ),
        line("1", 300, 40),
    ]
    page2 = [
        *pdfgen.column(["2.1 Data Collection", "Data came from generated files."], top=740),
        *pdfgen.column(
            [
                "References",
                "[1] A. Author. A paper about things. 2020.",
                "[2] B. Author. Another paper. 2021.",
            ],
            top=680,
            gap_before=[1],
        ),
        *pdfgen.column(["Appendix A", "Extra material lives here."], top=600, gap_before=[1]),
        line("2", 300, 40),
    ]
    return parse_pdf(pdfgen.build_pdf([page1, page2], title="A Study of Parsing"))


def block_with(doc: Document, needle: str) -> tuple[str, str, tuple[str, ...], int | None]:
    index = doc.block_at(doc.text.index(needle))
    assert index is not None
    block = doc.blocks[index]
    return block.kind, block.region, block.section, block.page


def test_paper_blocks_are_well_formed(paper: Document) -> None:
    assert_well_formed(paper)
    assert paper.meta.title == "A Study of Parsing"


def test_front_matter_abstract_and_keywords(paper: Document) -> None:
    assert block_with(paper, "Jane Doe")[1] == "front-matter"
    assert block_with(paper, "Abstract") == ("heading", "abstract", ("Abstract",), 1)
    assert block_with(paper, "and how well it survives")[1] == "abstract"
    assert block_with(paper, "Keywords: parsing")[1] == "front-matter"


def test_numbered_headings_give_section_paths(paper: Document) -> None:
    assert block_with(paper, "1 Introduction") == ("heading", "body", ("Introduction",), 1)
    assert block_with(paper, "Earlier tools") == (
        "paragraph",
        "body",
        ("Introduction", "Prior Work"),
        1,
    )
    assert block_with(paper, "Data came from") == (
        "paragraph",
        "body",
        ("Methods", "Data Collection"),
        2,
    )


def test_numbered_list_items_are_not_headings(paper: Document) -> None:
    kind, region, section, _ = block_with(paper, "1. The first step")
    assert (kind, region, section) == ("paragraph", "body", ("Methods",))


def test_indented_line_starts_a_paragraph(paper: Document) -> None:
    first = paper.block_at(paper.text.index("Documents are everywhere"))
    second = paper.block_at(paper.text.index("A second paragraph"))
    assert first is not None and second == first + 1
    assert paper.text[paper.blocks[first].start : paper.blocks[first].end].endswith("sources.")


def test_references_then_appendix(paper: Document) -> None:
    assert block_with(paper, "References") == ("heading", "references", ("References",), 2)
    assert block_with(paper, "[2] B. Author")[1] == "references"
    assert block_with(paper, "Extra material")[1] == "back-matter"


def test_page_numbers_are_page_furniture(paper: Document) -> None:
    furniture = [b for b in paper.blocks if b.kind == "furniture"]
    assert [(paper.text[b.start : b.end], b.region, b.page) for b in furniture] == [
        ("1", "other", 1),
        ("2", "other", 2),
    ]


def test_no_abstract_heading_means_no_front_matter() -> None:
    doc = parse_pdf(pdfgen.build_pdf([pdfgen.column(["Just a title", "Then body text."])]))
    assert {b.region for b in doc.blocks} == {"body"}


# --- property: whatever the lines, text and blocks stay consistent -----------------------

_WORD = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789.,;()'", min_size=1, max_size=9
)
# pdfium reads one-character lines stacked under each other as vertical text and joins
# them ("0" over "0" gives "00"), so generated lines have at least two characters.
_LINE = st.lists(_WORD, min_size=1, max_size=8).map(" ".join).filter(lambda line: len(line) > 1)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_LINE, min_size=0, max_size=6), min_size=1, max_size=3))
def test_any_lines_round_trip(pages: list[list[str]]) -> None:
    doc = parse_pdf(pdfgen.build_pdf([pdfgen.column(lines) for lines in pages]))
    assert doc.pages == len(pages)
    if not any(pages):
        assert doc.text == "" and doc.blocks == []
        return
    assert doc.text == PAGE_SEPARATOR.join("\n".join(lines) for lines in pages)
    assert_well_formed(doc)
    for block in doc.blocks:
        assert block.page is not None and pages[block.page - 1]


def test_inline_abstract_and_back_matter() -> None:
    page = [
        *pdfgen.column(["On Reading PDFs", "A. Writer"], top=740),
        *pdfgen.column(
            ["Abstract: We read PDF files and report what they say,", "in a few lines."], top=690
        ),
        *pdfgen.column(["Introduction", "Text starts here and goes on."], top=640, gap_before=[1]),
        *pdfgen.column(["Acknowledgments", "We thank the readers."], top=560, gap_before=[1]),
        *pdfgen.column(["References", "[1] Someone. Something. 2000."], top=500, gap_before=[1]),
    ]
    doc = parse_pdf(pdfgen.build_pdf([page]))
    assert block_with(doc, "A. Writer")[1] == "front-matter"
    assert block_with(doc, "Abstract: We read")[:3] == ("paragraph", "abstract", ("Abstract",))
    assert block_with(doc, "Text starts here")[1:3] == ("body", ("Introduction",))
    assert block_with(doc, "We thank")[1:3] == ("back-matter", ("Acknowledgments",))
    assert block_with(doc, "[1] Someone")[1] == "references"
    assert_well_formed(doc)


def test_paragraph_continues_into_the_next_column() -> None:
    left = pdfgen.column(
        ["A paragraph that starts in the left column", "and runs to the bottom of it, then"],
        x=72,
        top=120,
        indent=[0],
    )
    right = pdfgen.column(
        ["carries on at the top of the right column.", "A new paragraph starts after it", "here."],
        x=320,
        top=720,
        indent=[1],
    )
    doc = parse_pdf(pdfgen.build_pdf([[*left, *right]]))
    index = doc.block_at(doc.text.index("A paragraph that starts"))
    assert index is not None
    block = doc.blocks[index]
    assert doc.text[block.start : block.end].endswith("top of the right column.")
    assert doc.blocks[index + 1].start == doc.text.index("A new paragraph")
