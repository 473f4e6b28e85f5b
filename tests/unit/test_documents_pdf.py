"""parse_pdf on PDFs built at test time (tests/pdfgen.py): no files, no network."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from citeproof.documents.model import REGIONS, Document
from citeproof.documents.pdf import PAGE_SEPARATOR, SOFT_HYPHEN, _clean_marked, parse_pdf
from citeproof.errors import CiteproofError, DocumentError, UnsupportedFormatError
from citeproof.models import CheckResult

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


def test_syllable_break_is_joined(hyphenated: Document) -> None:
    # pdfium joins the two lines; the word reads whole, as the paper's own text has it
    assert "a hyphenated word at the end" in hyphenated.text
    assert SOFT_HYPHEN not in hyphenated.text


def test_compound_split_at_line_end_keeps_a_real_hyphen(hyphenated: Document) -> None:
    # "well-known" occurs elsewhere in the document; "wellknown" does not
    assert "a well-known one breaks" in hyphenated.text
    assert "COVID-19 in the last line" in hyphenated.text
    assert_well_formed(hyphenated)


def _clean(raw: str, resolve: dict[tuple[str, str], str]) -> str:
    return _clean_marked(raw, resolve, [])[0]


def test_clean_drops_control_characters_and_maps_markers() -> None:
    assert _clean("\x0f What is\x00 this\x8d?\r", {}) == "What is this?"
    assert _clean("tab\there", {}) == "tab here"
    assert _clean("litera\ufffeture", {("litera", "ture"): SOFT_HYPHEN}) == "literature"
    assert _clean("require\u00adments", {}) == "requirements"  # the PDF's own soft hyphen
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


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_LINE, min_size=0, max_size=6), min_size=1, max_size=3))
# digits only, at the top of two pages and near the foot of one: a running head with its page
# number, which the reader moves to the page's first paragraph break (reading_order)
@example(pages=[["0 0"], ["0 0", "00", "00", "00", "0 0", "00"]])
def test_any_lines_round_trip(pages: list[list[str]]) -> None:
    """Every line comes back on its page; in order, unless the reader took a line for
    page furniture (a top or bottom line repeated across pages, digits aside), which it
    moves out of the text's way."""
    doc = parse_pdf(pdfgen.build_pdf([pdfgen.column(lines) for lines in pages]))
    assert doc.pages == len(pages)
    if not any(pages):
        assert doc.text == "" and doc.blocks == []
        return
    read = [page.split("\n") if page else [] for page in doc.text.split(PAGE_SEPARATOR)]
    assert [sorted(lines) for lines in read] == [sorted(lines) for lines in pages]
    if not any(b.kind == "furniture" for b in doc.blocks):
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


# --- glyphs: superscripts, accents, drawn symbols -----------------------------------------


def check(quote: str, doc: Document) -> CheckResult:
    import citeproof

    return citeproof.check(quote, doc)


def marked(doc: Document) -> list[str]:
    return [doc.text[a:b] for a, b in doc.markers]


@pytest.fixture(scope="module")
def superscripted() -> Document:
    sup = pdfgen.Sup
    lines = [
        *pdfgen.run(["Users of the service grew to one billion.", sup("4"), " Many"], y=720),
        *pdfgen.run(["of them came back, as shown before", sup("12,13"), " in the"], y=706.5),
        *pdfgen.run(["survey of the 2020 data, where 10", sup("4"), " cells and"], y=693),
        *pdfgen.run(["an area of 3 m", sup("2"), " were found in each sample."], y=679.5),
    ]
    return parse_pdf(pdfgen.build_pdf([lines]))


def test_superscript_citation_number_is_a_marker(superscripted: Document) -> None:
    assert "one billion.4 Many" in superscripted.text  # the text keeps what the page shows
    # a raised digit after a digit (10⁴) or a lone ² after a unit (m²) is a power, not a marker
    assert marked(superscripted) == ["4", "12", "13"]
    result = check(
        "Users of the service grew to one billion. Many of them came back", superscripted
    )
    assert result.verdict == "EXACT" and result.flags == []
    assert check("as shown before in the survey", superscripted).verdict == "EXACT"


def test_superscript_after_a_generated_blank_still_attaches() -> None:
    lines = pdfgen.run(
        ["and models for predicting citations in a paper draft", pdfgen.Sup(" 13"), " and more."]
    )
    doc = parse_pdf(pdfgen.build_pdf([lines]))
    assert marked(doc) == ["13"]
    assert check("citations in a paper draft and more.", doc).verdict == "EXACT"


def test_accent_drawn_apart_is_composed() -> None:
    # TeX draws an accent as a glyph of its own over the letter; pdfium orders it by
    # position, here after the line ("Erdos ... Erdos, we count ¨ ¨")
    text = "For the Erdos number, after Paul Erdos, we count"
    centre = (pdfgen.text_width("o") - pdfgen.text_width("\u00a8")) / 2

    def over(prefix: str) -> pdfgen.Line:
        return pdfgen.Line("\u00a8", 72 + pdfgen.text_width(prefix) + centre, 720.5)

    lines = [
        pdfgen.Line(text, 72, 720),
        over("For the Erd"),
        over("For the Erdos number, after Paul Erd"),
    ]
    doc = parse_pdf(pdfgen.build_pdf([lines]))
    assert doc.text == "For the Erdös number, after Paul Erdös, we count"
    assert check("For the Erdös number, after Paul Erdös, we count", doc).verdict == "EXACT"


class _FakeGlyphs:
    """Glyph boxes for a text, as pdfium would report them, without a PDF."""

    def __init__(self, boxes: dict[int, tuple[float, float, float, float]]) -> None:
        self.boxes = boxes

    def box(self, i: int) -> tuple[float, float, float, float] | None:
        return self.boxes.get(i, (10.0 * i, 0.0, 10.0 * i + 8, 8.0))

    def size(self, i: int) -> float:
        return 9.0

    def generated(self, i: int) -> bool:
        return False


def test_circled_c_is_the_copyright_sign() -> None:
    # LaTeX's \\copyright: a c inside a circle glyph that pdfium maps to U+000D
    from citeproof.documents.pdf_glyphs import repair_glyphs

    text = "2018. \rc 2017 ACL"
    glyphs = _FakeGlyphs({6: (58.0, -2.0, 70.0, 10.0), 7: (60.0, 0.0, 66.0, 6.0)})
    repaired, positions = repair_glyphs(text, glyphs)  # type: ignore[arg-type]
    assert repaired == "2018. \u00a9 2017 ACL"
    assert positions is not None and repaired[positions.index(7)] == "\u00a9"
    # a control character with no letter inside it is left for the cleaning to drop
    assert repair_glyphs("a \rz", _FakeGlyphs({}))[0] == "a \rz"  # type: ignore[arg-type]


# --- text flow: page furniture and footnotes do not split a sentence ---------------------


def _two_pages(*, boundary: bool, head: str | None = None) -> Document:
    """A sentence that runs from page 1 onto page 2, with page numbers at the feet and,
    optionally, a running head on both pages and a new paragraph on each page."""
    first = ["This paper is about tests and it has a first paragraph.", "Then we looked at"]
    first += ["the data again and counted each of the"]
    second = ["2273 tasks in turn, one by one, by hand.", "A second paragraph says more.", "end."]
    page1 = pdfgen.column(first, top=700, indent=[1] if boundary else [])
    page2 = pdfgen.column(second, top=700, indent=[1] if boundary else [])
    page1.append(pdfgen.Line("1", 300, 40))
    page2.append(pdfgen.Line("2", 300, 40))
    if head is not None:
        page1.insert(0, pdfgen.Line(head, 72, 760, 9))
        page2.insert(0, pdfgen.Line(head, 72, 760, 9))
    return parse_pdf(pdfgen.build_pdf([page1, page2]))


@pytest.mark.parametrize(
    ("boundary", "head"),
    [(False, None), (True, None), (True, "Journal of Test Studies 12 (2020)")],
    ids=["page-number-only", "paragraphs", "running-head"],
)
def test_sentence_across_a_page_break_is_exact(boundary: bool, head: str | None) -> None:
    doc = _two_pages(boundary=boundary, head=head)
    assert_well_formed(doc)
    quote = "we looked at the data again and counted each of the 2273 tasks in turn"
    result = check(quote, doc)
    assert result.verdict == "EXACT", result.near
    match = result.matches[0]
    assert PAGE_SEPARATOR in doc.text[match.start : match.end]  # offsets index doc.text
    assert doc.text[match.end - len("in turn") : match.end] == "in turn"
    furniture = [doc.text[b.start : b.end] for b in doc.blocks if b.kind == "furniture"]
    assert {"1", "2"} <= {line for block in furniture for line in block.split("\n")}


def test_page_number_left_in_place_is_a_marker() -> None:
    # a page with no paragraph break to move the number to: the matcher skips it
    doc = _two_pages(boundary=False)
    number = doc.text.index("\n1\n")
    assert (number + 1, number + 2) in doc.markers


def test_footnote_at_the_foot_of_the_page_does_not_split_a_sentence() -> None:
    title = pdfgen.column(["A Title Page", "With its authors."], top=700, size=14)
    body = ["Our corpus has many papers and we cite it.", "We describe how we read it and then"]
    body += ["the words of each are collectively"]
    page2 = pdfgen.column(body, top=700, indent=[1])
    note: list[str | pdfgen.Sup] = [pdfgen.Sup("7"), "http://example.org/corpus/"]
    page2 += pdfgen.run(note, y=120, size=8, sup_size=6, rise=2.5)
    page2 += pdfgen.run(["and notes on how it was made."], y=110, size=8)
    page3 = pdfgen.column(["referred to as a mention of it.", "Then more text follows."], top=700)
    doc = parse_pdf(pdfgen.build_pdf([title, page2, page3]))
    assert_well_formed(doc)
    result = check("the words of each are collectively referred to as a mention", doc)
    assert result.verdict == "EXACT", result.near
    kind, region, _, page = block_with(doc, "http://example.org")
    assert (kind, region, page) == ("footnote", "footnote", 2)
    assert check("http://example.org/corpus/ and notes on how it was made", doc).verdict == "EXACT"


# --- regions: appendices, page one ----------------------------------------------------------


@pytest.mark.parametrize(
    ("heading", "size"),
    [
        ("A Appendix A - Baseline Details", 11.0),
        ("A Appendix A - Baseline Details", 9.0),  # as small as the entries: by its words
        ("Appendix B: More Results", 11.0),
        ("B Hyperparameters and Settings", 12.0),
    ],
)
def test_appendix_after_the_references_ends_them(heading: str, size: float) -> None:
    page = [
        *pdfgen.column(["1 Introduction", "We start here and go on for a line."], top=740),
        *pdfgen.column(
            ["References", "A. Author. 2020. A paper about things.", "B. Author. 2021. More."],
            top=680,
            size=9,
            leading=11,
            gap_before=[1],
        ),
        pdfgen.Line(heading, 72, 600, size),
        *pdfgen.column(["The baseline was trained for ten epochs."], top=584),
    ]
    doc = parse_pdf(pdfgen.build_pdf([page]))
    assert block_with(doc, "B. Author. 2021")[1] == "references"
    assert block_with(doc, heading)[:2] == ("heading", "back-matter")
    assert block_with(doc, "The baseline was trained")[1] == "back-matter"


def _page_one(*, running_head: bool = False, sidebar: bool = False) -> list[pdfgen.Line]:
    body = [
        "Documents are everywhere and their text matters to anyone who checks",
        "quotations against their sources, which is what this paper is about, and",
        "it goes on for a few more lines so that the body is most of the page.",
        "A second paragraph starts here and it too runs over several lines of",
        "text, as the body of a paper does, before the page comes to an end.",
    ]
    page = [
        *pdfgen.column(["A Study of Parsing", "Jane Doe and John Roe"], top=740, size=14),
        *pdfgen.column(["Abstract", "We study how text is extracted from PDF files."], top=690),
        *pdfgen.column(["1 Introduction", *body], top=640, gap_before=[1], indent=[4]),
    ]
    if sidebar:
        page += pdfgen.column(
            [
                "* Correspondence: jane@example.org",
                "1 Department of Tests, University of Examples, Exampletown",
                "\u00a9 2020 The Authors. Open access under the CC BY licence.",
            ],
            top=110,
            size=7,
            leading=9,
        )
    if running_head:  # last in the content stream, as BMC's page one has it
        page.append(pdfgen.Line("Doe and Roe Journal of Tests 2020, 1:1", 72, 770, 8))
    return page


def _later_page(number: int) -> list[pdfgen.Line]:
    return [
        pdfgen.Line(f"Doe and Roe Journal of Tests 2020, 1:1 Page {number} of 3", 72, 770, 8),
        *pdfgen.column([f"Page {number} has text of its own, in sentences."], top=700),
    ]


def test_page_one_running_head_is_furniture() -> None:
    doc = parse_pdf(
        pdfgen.build_pdf([_page_one(running_head=True), _later_page(2), _later_page(3)])
    )
    assert block_with(doc, "Doe and Roe Journal of Tests 2020, 1:1")[:2] == ("furniture", "other")
    assert block_with(doc, "Documents are everywhere")[1] == "body"


def test_page_one_sidebar_is_front_matter() -> None:
    doc = parse_pdf(pdfgen.build_pdf([_page_one(sidebar=True)]))
    assert_well_formed(doc)
    for needle in ("* Correspondence", "1 Department of Tests", "\u00a9 2020 The Authors"):
        assert block_with(doc, needle)[1] == "front-matter", needle
    assert block_with(doc, "A second paragraph")[1] == "body"


def test_abstract_without_a_heading_is_the_abstract() -> None:
    abstract = [
        "Objectives. We read the text of PDF files and compare it with what other tools",
        "read from them. Methods. Sentences of known text were checked against the text",
        "each tool gave, one by one, and the misses were sorted by cause. Results. Most",
        "misses came from page furniture, footnotes and superscripts that the tools read",
        "into the sentences. Conclusion. Reading the layout of the page avoids them all,",
        "and what is left are differences of the other tools' own making.",
    ]
    page = [
        *pdfgen.column(["Research Article", "Reading PDF Files Well"], top=740, size=16),
        *pdfgen.column(
            ["Jane Doe and John Roe", "Copyright 2020 Jane Doe et al."], top=690, size=9
        ),
        *pdfgen.column(abstract, top=640, size=9, leading=11),
        *pdfgen.column(["1. Introduction", "Text matters to anyone who checks quotes."], top=560),
    ]
    doc = parse_pdf(pdfgen.build_pdf([page]))
    assert block_with(doc, "Reading PDF Files Well")[1] == "front-matter"
    assert block_with(doc, "Copyright 2020")[1] == "front-matter"
    assert block_with(doc, "Objectives. We read")[1:3] == ("abstract", ("Abstract",))
    assert block_with(doc, "Methods. Sentences")[1] == "abstract"
    assert block_with(doc, "Text matters to anyone")[1:3] == ("body", ("Introduction",))


def test_introduction_without_a_heading_is_not_abstract() -> None:
    page = [
        *pdfgen.column(["A Study of Parsing"], top=740, size=14),
        *pdfgen.column(
            ["Abstract", "We study how text is extracted from PDF files", "and how it survives."],
            top=700,
            size=9,
            leading=11,
        ),
        *pdfgen.column(
            ["Documents are everywhere and their text matters to", "anyone who checks quotes."],
            top=640,
            size=11,
        ),
    ]
    doc = parse_pdf(pdfgen.build_pdf([page]))
    assert block_with(doc, "and how it survives")[1] == "abstract"
    assert block_with(doc, "Documents are everywhere")[1:3] == ("body", ())
