"""Build small PDFs at test time with pdfium's own writer, so unit tests need no files.

The PDFs are real (pdfium lays out standard-font text objects and writes a content
stream), which means the parser sees exactly what it would see in a published paper:
pdfium's line grouping, its CRLF line ends and its line-end hyphen marker.
"""

from __future__ import annotations

import ctypes
import io
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

PAGE_WIDTH = 612.0
PAGE_HEIGHT = 792.0


@dataclass(frozen=True)
class Line:
    """One line of text at a position; several lines make a page."""

    text: str
    x: float = 72.0
    y: float = 720.0
    size: float = 11.0


@dataclass(frozen=True)
class Sup:
    """A superscript piece of a ``run``: smaller and raised, as a citation number is set."""

    text: str


def text_width(text: str, size: float = 11.0) -> float:
    """How wide pdfium sets ``text`` in Helvetica at ``size`` points (to place the next piece)."""
    raw_doc = pdfium_c.FPDF_CreateNewDocument()
    try:
        font = pdfium_c.FPDFText_LoadStandardFont(raw_doc, b"Helvetica")
        obj = pdfium_c.FPDFPageObj_CreateTextObj(raw_doc, font, size)
        _set_text(obj, text)
        left, bottom, right, top = (ctypes.c_float() for _ in range(4))
        ok = pdfium_c.FPDFPageObj_GetBounds(obj, left, bottom, right, top)
        pdfium_c.FPDFPageObj_Destroy(obj)
        pdfium_c.FPDFFont_Close(font)
    finally:
        pdfium_c.FPDF_CloseDocument(raw_doc)
    if not ok:
        raise RuntimeError("FPDFPageObj_GetBounds failed")
    return right.value - left.value


def run(
    pieces: Sequence[str | Sup],
    *,
    x: float = 72.0,
    y: float = 720.0,
    size: float = 11.0,
    sup_size: float = 7.0,
    rise: float = 4.0,
) -> list[Line]:
    """One visual line of several text objects, ``"one billion.", Sup("4"), " Many"``:
    superscripts set smaller and raised, the way a typesetter writes citation numbers.

    A piece that starts with a space gets the space as a gap (a text object's leading
    blank is not drawn), so the words after a superscript stay apart.
    """
    out: list[Line] = []
    for piece in pieces:
        sup = isinstance(piece, Sup)
        text = piece.text if isinstance(piece, Sup) else piece
        piece_size = sup_size if sup else size
        if text.startswith(" "):
            x += text_width("n", piece_size) * 0.5
            text = text.lstrip()
        out.append(Line(text, x, y + rise if sup else y, piece_size))
        x += text_width(text, piece_size)
    return out


def column(
    lines: Sequence[str],
    *,
    x: float = 72.0,
    top: float = 720.0,
    size: float = 11.0,
    leading: float = 13.5,
    indent: Sequence[int] = (),
    gap_before: Sequence[int] = (),
) -> list[Line]:
    """Lay lines out top to bottom like a text column.

    ``indent`` lists line numbers set in by one em (a paragraph's first line);
    ``gap_before`` lists line numbers with an extra blank line above (headings).
    """
    out: list[Line] = []
    y = top
    for i, text in enumerate(lines):
        if i in gap_before:
            y -= leading
        out.append(Line(text, x + (size if i in indent else 0.0), y, size))
        y -= leading
    return out


def _set_text(obj: object, text: str) -> None:
    encoded = (text + "\x00").encode("utf-16-le")
    buffer = ctypes.create_string_buffer(encoded, len(encoded))
    widestr = ctypes.cast(buffer, ctypes.POINTER(pdfium_c.FPDF_WCHAR))
    if not pdfium_c.FPDFText_SetText(obj, widestr):
        raise RuntimeError("FPDFText_SetText failed")


def build_pdf(pages: Sequence[Sequence[Line]], *, title: str | None = None) -> bytes:
    """A PDF with one page per item; each Line becomes one Helvetica text object.

    A page with no lines has no text objects at all (like a scan without OCR).
    """
    raw_doc = pdfium_c.FPDF_CreateNewDocument()
    pdf = pdfium.PdfDocument(raw_doc)
    try:
        font = pdfium_c.FPDFText_LoadStandardFont(raw_doc, b"Helvetica")
        for index, lines in enumerate(pages):
            page = pdfium_c.FPDFPage_New(raw_doc, index, PAGE_WIDTH, PAGE_HEIGHT)
            try:
                for line in lines:
                    obj = pdfium_c.FPDFPageObj_CreateTextObj(raw_doc, font, line.size)
                    _set_text(obj, line.text)
                    pdfium_c.FPDFPageObj_Transform(obj, 1, 0, 0, 1, line.x, line.y)
                    pdfium_c.FPDFPage_InsertObject(page, obj)
                if not pdfium_c.FPDFPage_GenerateContent(page):
                    raise RuntimeError("FPDFPage_GenerateContent failed")
            finally:
                pdfium_c.FPDF_ClosePage(page)
        pdfium_c.FPDFFont_Close(font)
        buffer = io.BytesIO()
        pdf.save(buffer)
    finally:
        pdf.close()
    data = buffer.getvalue()
    return data if title is None else _add_info_title(data, title)


def _pdf_string(text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("latin-1") + b")"


def _add_info_title(data: bytes, title: str) -> bytes:
    """Append an incremental update with an Info dictionary (pdfium cannot write one)."""
    root = re.search(rb"/Root\s+(\d+)\s+0\s+R", data)
    size = re.search(rb"/Size\s+(\d+)", data)
    prev = re.findall(rb"startxref\s+(\d+)", data)
    if root is None or size is None or not prev:
        raise RuntimeError("unexpected PDF structure from pdfium")
    num = int(size.group(1))
    body = bytearray(data if data.endswith(b"\n") else data + b"\n")
    obj_offset = len(body)
    body += b"%d 0 obj\n<< /Title " % num + _pdf_string(title) + b" >>\nendobj\n"
    xref_offset = len(body)
    body += b"xref\n%d 1\n%010d 00000 n \n" % (num, obj_offset)
    body += b"trailer\n<< /Size %d /Root %s 0 R /Info %d 0 R /Prev %s >>\n" % (
        num + 1,
        root.group(1),
        num,
        prev[-1],
    )
    body += b"startxref\n%d\n%%%%EOF\n" % xref_offset
    return bytes(body)


def encrypted_pdf() -> bytes:
    """A tiny PDF whose Standard security handler rejects the empty password.

    The /U entry is not derived from any password, so every password fails:
    exactly what a reader meets with a user-password-protected file.
    """
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -4 >>" % (b"11" * 32, b"22" * 32),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R /Encrypt 4 0 R " % (len(objects) + 1)
    out += b"/ID [<" + b"ab" * 16 + b"> <" + b"ab" * 16 + b">] >>\n"
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def remap_glyphs(data: bytes, mapping: dict[str, str]) -> bytes:
    """The PDF with its font's ToUnicode map saying ``mapping[ch]`` for the glyph of each
    ``ch``: what a publisher's font does when it maps the en dash of a range to ``e``.

    The glyphs drawn stay the same (the font still draws an en dash); only the text a
    reader extracts changes.  Written as an incremental update of the font object.
    """
    font = re.search(rb"(\d+) 0 obj\s*<<\s*/BaseFont\s*/Helvetica\b(.*?)>>", data, re.S)
    size = re.search(rb"/Size\s+(\d+)", data)
    root = re.search(rb"/Root\s+(\d+)\s+0\s+R", data)
    prev = re.findall(rb"startxref\s+(\d+)", data)
    if font is None or size is None or root is None or not prev:
        raise RuntimeError("unexpected PDF structure from pdfium")
    pairs = []
    for drawn, read in mapping.items():
        code = drawn.encode("cp1252")[0]
        pairs.append(b"<%02X> <%04X>" % (code, ord(read)))
    cmap = (
        b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        b"/CMapName /Remapped def /CMapType 2 def\n"
        b"1 begincodespacerange <00> <FF> endcodespacerange\n"
        + b"%d beginbfchar\n" % len(pairs)
        + b"\n".join(pairs)
        + b"\nendbfchar endcmap CMapName currentdict /CMap defineresource pop end end\n"
    )
    font_num, cmap_num = int(font.group(1)), int(size.group(1))
    body = bytearray(data if data.endswith(b"\n") else data + b"\n")
    font_offset = len(body)
    body += b"%d 0 obj\n<< /BaseFont /Helvetica%s /ToUnicode %d 0 R >>\nendobj\n" % (
        font_num,
        font.group(2),
        cmap_num,
    )
    cmap_offset = len(body)
    body += b"%d 0 obj\n<< /Length %d >>\nstream\n" % (cmap_num, len(cmap))
    body += cmap + b"endstream\nendobj\n"
    xref_offset = len(body)
    body += b"xref\n%d 1\n%010d 00000 n \n%d 1\n%010d 00000 n \n" % (
        font_num,
        font_offset,
        cmap_num,
        cmap_offset,
    )
    body += b"trailer\n<< /Size %d /Root %s 0 R /Prev %s >>\n" % (
        cmap_num + 1,
        root.group(1),
        prev[-1],
    )
    body += b"startxref\n%d\n%%%%EOF\n" % xref_offset
    return bytes(body)


# --- the layouts of issues 24 and 22, shared with bench/bench_pdf.py ------------------------
#
# Each builds the layout that broke a real paper's text, with invented words: the tests in
# tests/unit/test_pdf_cases.py and test_pdf_reference_list.py check how it reads, and
# bench/bench_pdf.py counts it among its rows.


def glued_superscript() -> bytes:
    """``habits.²⁴In the past``: pdfium sees no gap after the raised number."""
    return build_pdf(
        [
            [
                *run(["They kept to their old eating habits.", Sup("24"), "In the past"], y=720),
                *run(["they had tried to change them, as others did.", Sup("25")], y=706.5),
            ]
        ]
    )


def superscript_own_line() -> bytes:
    """A number raised so far that pdfium breaks its line twice: ``Jadad et al.`` /
    ``11`` / ``All of the studies were``."""
    before = "quality was scored on the scale of Jadad et al."
    x = 72 + text_width(before, 9)
    return build_pdf(
        [
            [
                Line(before, 72, 720, 9),
                Line("11", x, 728, 6),
                Line("All of the studies were", x + text_width("11", 6) + 2, 720, 9),
                Line("read twice by two of us.", 72, 709, 9),
            ]
        ]
    )


def range_drawn_as_e(*, remapped: bool = True) -> bytes:
    """``meaningful.⁴ ³⁶⁻³⁸ Iron``, a group set with a blank whose range's en dash the font
    maps to ``e`` (``remapped=False``: the same letters really drawn as ``36e38``)."""
    if not remapped:
        return build_pdf(
            [run(["which is clinically meaningful.", Sup("4"), Sup(" 36e38"), " Iron"])]
        )
    line = run(
        ["which is clinically meaningful.", Sup("4"), Sup(" 36\u201338"), " Iron stores fell"]
    )
    return remap_glyphs(build_pdf([line]), {"\u2013": "e"})


def line_end_hyphens() -> bytes:
    """Syllable breaks (``soft-`` / ``ware``) and a compound split at a line end
    (``well-`` / ``known``, written ``well-known`` elsewhere)."""
    lines = [
        "The new soft-",
        "ware read the files, and the well-known tool that the",
        "team knew well read them too; both tools are well-",
        "known and both are free soft-",
        "ware.",
    ]
    return build_pdf([column(lines)])


def hidden_line_end_hyphen() -> bytes:
    """An accent drawn after the line (``Brostr ¨ om, The measure- ¨``) hides the hyphen at
    the line end from pdfium, which then keeps ``measure-`` and ``ment`` on two lines."""
    text = "[10] P. Johansson and A. Brostrom, The measure-"
    centre = (text_width("o") - text_width("\u00a8")) / 2
    accent_x = 72 + text_width("[10] P. Johansson and A. Brostr") + centre
    lines = [
        Line(text, 72, 720),
        Line("\u00a8", accent_x, 720.5),
        Line("ment of depression in patients with heart failure,", 90, 706.5),
        Line("Progress in Cardiovascular Nursing, 2006.", 90, 693),
    ]
    return build_pdf([lines])


def _side_column(top: float) -> list[Line]:
    """Affiliations, correspondence and dates in a narrow column of small print."""
    out: list[Line] = []
    notes = [
        ("1", "Department of Tests, University"),
        ("", "of Examples, Exampletown, UK"),
        ("2", "Institute of Reading, Example"),
        ("", "College, Sampleton, UK"),
        ("", "*Correspondence: jane@example.org"),
        ("", "Received: 1 May 2020"),
        ("", "Accepted: 2 June 2020"),
    ]
    for k, (number, words) in enumerate(notes):
        pieces: list[str | Sup] = [Sup(number), words] if number else [words]
        out += run(pieces, x=36, y=top - 9 * k, size=7, sup_size=5, rise=2.5)
    return out


def side_column_page() -> bytes:
    """Page one with a side column of affiliations that the typesetter draws after the
    first lines of the introduction, so pdfium reads it inside a sentence of the body."""

    def main(lines: list[str], top: float, gap_before: Sequence[int] = ()) -> list[Line]:
        return column(lines, x=200, top=top, size=10, leading=12.5, gap_before=gap_before)

    introduction = [
        "Introduction",
        "Documents are everywhere and their text matters to anyone",
        "who checks quotations against their sources, which is what",
        "this paper is about, and it goes on for a few more lines so",
    ]
    page = [
        *column(["Reading PDF Files Well"], x=200, top=740, size=16),
        *run(["Jane Doe", Sup("1"), " and John Roe", Sup("2")], x=200, y=715, size=11),
        *main(["Abstract", "We read the text of PDF files and compare it with what"], 680),
        *main(["other tools read from them, sentence by sentence."], 655),
        *main(introduction, 620, gap_before=[1]),
        *_side_column(680),
        *main(["that the body is most of the page. A second paragraph starts"], 570),
        *main(["here and it too runs over several lines of text."], 557.5),
    ]
    return build_pdf([page])


def _later_page(number: int) -> list[Line]:
    head = Line(f"Journal of Tests 12 (2020) 1\u201310 {number}", 72, 765, 8)
    body = [
        f"Page {number} goes on with the study, in sentences of its own.",
        "It tells what was done" + (" and why." if number % 2 else ", and how."),
        "Then it ends" + (" here." if number % 2 else " there."),
    ]
    return [head, *column(body, top=700)]


def running_head_amid_columns() -> bytes:
    """Page one's running head drawn after the left column, so pdfium reads it between
    the two columns, inside a sentence that runs from one to the other; two more pages
    carry the head with their numbers."""
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
        *column(["Reading Two Columns Well"], top=720, size=16),
        *column(["Abstract", "We read two-column pages and check them."], top=690),
        *column(["1 Introduction", *left], top=640, gap_before=[1]),
        Line("Journal of Tests 12 (2020) 1\u201310", 72, 765, 8),
        *column(right, x=320, top=628),
    ]
    return build_pdf([page1, _later_page(2), _later_page(3)])


def table_at_column_top() -> bytes:
    """ACL style: a table and its caption open the right column, between ``and then`` at
    the foot of the left column and ``fed into`` under the caption."""
    left = [
        "Model. The input token representations are",
        "passed through one fully-connected layer and then",
    ]
    table = ["Field Precision Recall F1", "title 85.5 85.5 85.5", "authors 92.1 92.1 92.1"]
    right = [
        "fed into a two-layer bidirectional LSTM, which",
        "reads the sequence in both directions.",
        "Training. The system is trained on a snapshot",
        "of the data at hand, as we describe next.",
    ]
    page = [
        *column(left, top=120, indent=[0]),
        *column(table, x=360, top=740),
        *column(["Table 1: Results of the parsing system."], x=330, top=690),
        *column(right, x=320, top=655, indent=[2]),
    ]
    return build_pdf([page])


def caption_drawn_last() -> bytes:
    """A figure (an image) and its caption drawn after the page's text, so pdfium reads
    the caption between the last words of the page and the next page."""
    text = [
        "Methods",
        "The subjects were asked to report any discomfort.",
        "Single pulses were applied every 300 ms in order to",
    ]
    caption = [
        "Fig. 1 The set-up seen from above: electrodes and the glove, with the",
        "array on the forearm and the cables to the stimulator",
    ]
    page1 = [*column(text, top=300, indent=[1]), *column(caption, top=700, size=8, leading=10)]
    page2 = column(["avoid summation effects and muscle contraction.", "After that we rested."])
    return build_pdf([page1, page2])


def varied_entry(i: int) -> list[str]:
    """A one-line reference entry; entries share their words, and differ in number, year,
    volume and pages."""
    year, volume, page = 2000 + i % 20, i % 30 + 1, 3 * i
    return [
        f"{i}. Smith J, Lee K. Walking and sleep. J Sleep Res. {year};{volume}:{page}-{page + 9}."
    ]


def number_only_entry(i: int) -> list[str]:
    """A one-line reference entry that differs from the others in its number only."""
    return [f"{i}. Smith J, Lee K. Walking and sleep in older adults. J Sleep Res. 2019;3:45."]


def wrapped_entry(i: int) -> list[str]:
    """Every third entry runs on to a second line, set in under the number."""
    if i % 3:
        return varied_entry(i)
    year, volume = 2000 + i % 20, i % 30 + 1
    return [
        f"{i}. Smith J, Lee K, Brown M. Walking and sleep in older adults: a",
        f"randomised trial. J Sleep Res. {year};{volume}:{3 * i}-{3 * i + 9}.",
    ]


def reference_list(
    entry: Callable[[int], list[str]], count: int = 150, *, furniture: bool = False
) -> bytes:
    """A paper whose reference list runs over several pages, nine-point lines 11 apart.

    With ``furniture``, every page has a running head and a page number, which must still
    be read as furniture; without, the page edges are reference lines (a manuscript).
    """
    pages: list[list[Line]] = []
    lines = [
        *column(["1 Introduction", f"We cite many papers [1-{count}]."], top=740),
        Line("References", 72, 705, 11),
    ]
    y = 690.0
    for i in range(1, count + 1):
        parts = entry(i)
        if y - 11 * (len(parts) - 1) < 70:
            pages.append(lines)
            lines, y = [], 740.0
        for k, part in enumerate(parts):
            lines.append(Line(part, 72 if k == 0 else 84, y, 9))
            y -= 11
    pages.append(lines)
    if furniture:
        for number, page in enumerate(pages, start=1):
            page.insert(0, Line("Journal of Tests 12 (2020) 1\u201310", 72, 765, 8))
            page.append(Line(str(number), 300, 40, 9))
    return build_pdf(pages)
