"""Build small PDFs at test time with pdfium's own writer, so unit tests need no files.

The PDFs are real (pdfium lays out standard-font text objects and writes a content
stream), which means the parser sees exactly what it would see in a published paper:
pdfium's line grouping, its CRLF line ends and its line-end hyphen marker.
"""

from __future__ import annotations

import ctypes
import io
import re
from collections.abc import Sequence
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
