"""Build INVENTED Word manuscripts at test time, with reference managers' fields in their
real shapes, so the tests (and the manuscript benchmark, and the example's script) need no
Word file checked in.

python-docx writes the package; the field codes are written into the XML here, as the
managers write them:

* Zotero: a complex field (``w:fldChar`` begin / ``w:instrText`` split over runs, as Zotero
  splits long instructions / separate / result / end) with
  ``ADDIN ZOTERO_ITEM CSL_CITATION {json}``, ``citationItems[].itemData`` CSL-JSON, ``uris``,
  ``properties.formattedCitation``, and a random id after the JSON; or a simple field
  (``w:fldSimple``).  Bibliography: ``ADDIN ZOTERO_BIBL {…} CSL_BIBLIOGRAPHY`` whose begin
  and separate stand in the first entry's paragraph and whose end stands in the last's.
* Mendeley Desktop: ``ADDIN CSL_CITATION {json}`` with a ``mendeley`` object; Mendeley Cite:
  a content control tagged ``MENDELEY_CITATION_v3_`` + base64 JSON.
* EndNote: ``ADDIN EN.CITE <EndNote><Cite>…<record>…</record></Cite></EndNote>`` in the
  instruction, or ``ADDIN EN.CITE`` with the XML base64 in ``w:fldData`` and a nested
  ``ADDIN EN.CITE.DATA`` field; bibliography ``ADDIN EN.REFLIST``.
* Footnotes: a ``word/footnotes.xml`` part with the separator notes Word writes.
"""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from xml.sax.saxutils import escape

import docx
from docx.opc.constants import CONTENT_TYPE as CT
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from docx.oxml import parse_xml

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
NS = f'xmlns:w="{W}"'

Manager = Literal["zotero", "zotero-simple", "mendeley", "mendeley-v3", "endnote", "endnote-data"]


@dataclass(frozen=True)
class Field:
    """A reference manager's citation: the works (CSL-JSON items) and what it prints."""

    items: Sequence[Mapping[str, Any]]
    shown: str
    manager: Manager = "zotero"
    locators: Sequence[str | None] = ()


@dataclass(frozen=True)
class Sup:
    """Raised text (a superscript citation number)."""

    text: str


@dataclass(frozen=True)
class Note:
    """A footnote: its reference goes where the Note stands, its text to footnotes.xml."""

    pieces: Sequence[str | Field]


Piece = str | Field | Sup | Note


@dataclass
class Block:
    kind: Literal["title", "h1", "h2", "p", "quote", "indented", "numbered"]
    pieces: Sequence[Piece]


def p(*pieces: Piece) -> Block:
    return Block("p", pieces)


def h1(text: str) -> Block:
    return Block("h1", [text])


def h2(text: str) -> Block:
    return Block("h2", [text])


def quote(*pieces: Piece) -> Block:
    return Block("quote", pieces)


@dataclass
class _Notes:
    xml: list[str] = field(default_factory=list)


def _run(text: str, *, sup: bool = False) -> str:
    rpr = '<w:rPr><w:vertAlign w:val="superscript"/></w:rPr>' if sup else ""
    return f'<w:r {NS}>{rpr}<w:t xml:space="preserve">{escape(text)}</w:t></w:r>'


def _instr_runs(instruction: str, size: int = 200) -> list[str]:
    chunks = [instruction[i : i + size] for i in range(0, len(instruction), size)] or [""]
    return [
        f'<w:r {NS}><w:instrText xml:space="preserve">{escape(c)}</w:instrText></w:r>'
        for c in chunks
    ]


def _fld(kind: str, data: str | None = None) -> str:
    inner = f'<w:fldData xml:space="preserve">{data}</w:fldData>' if data else ""
    return f'<w:r {NS}><w:fldChar w:fldCharType="{kind}">{inner}</w:fldChar></w:r>'


def csl_json(f: Field, n: int) -> str:
    items = []
    for k, item in enumerate(f.items):
        entry: dict[str, Any] = {
            "id": item.get("id", f"ITEM-{k + 1}"),
            "uris": [f"http://zotero.org/users/0/items/{item.get('id', k)}"],
            "itemData": dict(item),
        }
        if k < len(f.locators) and f.locators[k]:
            entry["locator"] = f.locators[k]
            entry["label"] = "page"
        items.append(entry)
    payload: dict[str, Any] = {
        "citationID": f"cit{n:05d}",
        "properties": {"formattedCitation": f.shown, "plainCitation": f.shown, "noteIndex": 0},
        "citationItems": items,
        "schema": "https://github.com/citation-style-language/schema/raw/master/csl-citation.json",
    }
    if f.manager == "mendeley":
        payload["mendeley"] = {"formattedCitation": f.shown, "previouslyFormattedCitation": f.shown}
        del payload["properties"]["formattedCitation"]
    return json.dumps(payload, ensure_ascii=False)


def endnote_xml(f: Field) -> str:
    cites = []
    for k, item in enumerate(f.items):
        authors = "".join(
            f"<author>{escape(a.get('family', ''))}, {escape(a.get('given', ''))}</author>"
            for a in item.get("author", [])
        )
        first = item.get("author", [{}])[0].get("family", "") if item.get("author") else ""
        year = str(item.get("issued", {}).get("date-parts", [[""]])[0][0])
        doi = (
            f"<electronic-resource-num>{escape(item['DOI'])}</electronic-resource-num>"
            if item.get("DOI")
            else ""
        )
        cites.append(
            f"<Cite><Author>{escape(first)}</Author><Year>{year}</Year><RecNum>{k + 1}</RecNum>"
            f"<DisplayText>{escape(f.shown)}</DisplayText><record><rec-number>{k + 1}</rec-number>"
            '<ref-type name="Journal Article">17</ref-type>'
            f"<contributors><authors>{authors}</authors></contributors>"
            f"<titles><title>{escape(item.get('title', ''))}</title>"
            f"<secondary-title>{escape(item.get('container-title', ''))}</secondary-title></titles>"
            f"<dates><year>{year}</year></dates>{doi}</record></Cite>"
        )
    return "<EndNote>" + "".join(cites) + "</EndNote>"


def field_xml(f: Field, n: int) -> list[str]:
    """The XML elements (runs, or one fldSimple / sdt) of a citation field."""
    result = _run(f.shown)
    if f.manager in ("zotero", "zotero-simple"):
        instruction = f" ADDIN ZOTERO_ITEM CSL_CITATION {csl_json(f, n)} RNDx{n:06d}"
    elif f.manager == "mendeley":
        instruction = f" ADDIN CSL_CITATION {csl_json(f, n)} "
    elif f.manager == "mendeley-v3":
        tag = "MENDELEY_CITATION_v3_" + base64.b64encode(csl_json(f, n).encode()).decode()
        return [
            f'<w:sdt {NS}><w:sdtPr><w:tag w:val="{tag}"/></w:sdtPr>'
            f"<w:sdtContent>{result}</w:sdtContent></w:sdt>"
        ]
    elif f.manager == "endnote":
        instruction = f" ADDIN EN.CITE {endnote_xml(f)}"
    else:  # endnote-data
        data = base64.b64encode(endnote_xml(f).encode()).decode()
        return [
            _fld("begin", data),
            *_instr_runs(" ADDIN EN.CITE "),
            _fld("begin", data),
            *_instr_runs(" ADDIN EN.CITE.DATA "),
            _fld("end"),
            _fld("separate"),
            result,
            _fld("end"),
        ]
    if f.manager == "zotero-simple":
        return [
            f'<w:fldSimple {NS} w:instr="{escape(instruction, {chr(34): "&quot;"})}">'
            f"{result}</w:fldSimple>"
        ]
    return [_fld("begin"), *_instr_runs(instruction), _fld("separate"), result, _fld("end")]


class DocxBuilder:
    """An INVENTED Word manuscript, built piece by piece."""

    def __init__(self) -> None:
        self.doc = docx.Document()
        self.fields = 0
        self.notes: list[str] = []

    def _fill(self, paragraph: Any, pieces: Sequence[Piece]) -> None:
        for piece in pieces:
            if isinstance(piece, str):
                paragraph._p.append(parse_xml(_run(piece)))
            elif isinstance(piece, Sup):
                paragraph._p.append(parse_xml(_run(piece.text, sup=True)))
            elif isinstance(piece, Field):
                self.fields += 1
                for xml in field_xml(piece, self.fields):
                    paragraph._p.append(parse_xml(xml))
            else:
                note_id = len(self.notes) + 1
                scratch = docx.Document().add_paragraph()
                scratch._p.append(
                    parse_xml(
                        f'<w:r {NS}><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>'
                        "<w:footnoteRef/></w:r>"
                    )
                )
                self._fill(scratch, [" ", *piece.pieces])
                from lxml import etree

                self.notes.append(etree.tostring(scratch._p, encoding="unicode"))
                paragraph._p.append(
                    parse_xml(
                        f'<w:r {NS}><w:rPr><w:vertAlign w:val="superscript"/></w:rPr>'
                        f'<w:footnoteReference w:id="{note_id}"/></w:r>'
                    )
                )

    def add(self, block: Block) -> None:
        if block.kind == "title":
            para = self.doc.add_paragraph(style="Title")
        elif block.kind in ("h1", "h2"):
            para = self.doc.add_heading(level=int(block.kind[1]))
        elif block.kind == "quote":
            para = self.doc.add_paragraph(style="Quote")
        elif block.kind == "numbered":
            para = self.doc.add_paragraph(style="List Number")
        else:
            para = self.doc.add_paragraph()
            if block.kind == "indented":
                para.paragraph_format.left_indent = docx.shared.Cm(1.5)
        self._fill(para, block.pieces)

    def bibliography(
        self, entries: Sequence[str], manager: Literal["zotero", "endnote", "mendeley"] | None
    ) -> None:
        """The reference list: a bibliography field's result, or paragraphs typed by hand."""
        zotero = ' ADDIN ZOTERO_BIBL {"uncited":[],"omitted":[],"custom":[]} CSL_BIBLIOGRAPHY '
        instruction = {
            "zotero": zotero,
            "endnote": " ADDIN EN.REFLIST ",
            "mendeley": " ADDIN Mendeley Bibliography CSL_BIBLIOGRAPHY ",
        }
        for k, entry in enumerate(entries):
            para = self.doc.add_paragraph()
            if manager is not None and k == 0:
                for xml in (_fld("begin"), *_instr_runs(instruction[manager]), _fld("separate")):
                    para._p.append(parse_xml(xml))
            para._p.append(parse_xml(_run(entry)))
            if manager is not None and k == len(entries) - 1:
                para._p.append(parse_xml(_fld("end")))

    def save(self) -> bytes:
        if self.notes:
            body = "".join(
                f'<w:footnote w:id="{n}">{xml}</w:footnote>' for n, xml in enumerate(self.notes, 1)
            )
            blob = (
                f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes {NS}>'
                '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p>'
                '</w:footnote><w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r>'
                f"<w:continuationSeparator/></w:r></w:p></w:footnote>{body}</w:footnotes>"
            ).encode()
            part = Part(
                PackURI("/word/footnotes.xml"), CT.WML_FOOTNOTES, blob, self.doc.part.package
            )
            self.doc.part.relate_to(part, RT.FOOTNOTES)
        out = io.BytesIO()
        self.doc.save(out)
        return out.getvalue()


def build_docx(
    blocks: Sequence[Block],
    references: Sequence[str] = (),
    *,
    bibliography: Literal["zotero", "endnote", "mendeley"] | None = None,
    heading: str | None = "References",
) -> bytes:
    """An INVENTED Word manuscript: ``blocks``, then a heading and the reference list."""
    builder = DocxBuilder()
    for block in blocks:
        builder.add(block)
    if references:
        if heading:
            builder.add(h1(heading))
        builder.bibliography(references, bibliography)
    return builder.save()


# --- PDF ---------------------------------------------------------------------------------

PdfKind = Literal["title", "heading", "p", "ref"]


def pdf_safe(text: str) -> str:
    """``text`` as the standard Helvetica font can draw it (Windows-1252): accents that it
    lacks are dropped, anything else it lacks becomes ``?``."""
    import unicodedata

    out = []
    for ch in text:
        try:
            ch.encode("cp1252")
            out.append(ch)
        except UnicodeEncodeError:
            base = "".join(
                c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)
            )
            try:
                base.encode("cp1252")
                out.append(base or "?")
            except UnicodeEncodeError:
                out.append("?")
    return "".join(out)


def build_pdf_manuscript(
    blocks: Sequence[tuple[PdfKind, str]], *, chars: int = 86, size: float = 10.0
) -> bytes:
    """An INVENTED one-column PDF: a title, headings set larger after a gap, paragraphs
    with an indented first line, reference entries with a hanging indent; text wrapped at
    ``chars`` characters, never inside a word."""
    import textwrap

    from pdfgen import PAGE_HEIGHT, Line, build_pdf

    pages: list[list[Line]] = [[]]
    top, bottom, left, leading = PAGE_HEIGHT - 72, 72.0, 72.0, size * 1.35
    y = top

    def put(text: str, x: float, s: float) -> None:
        nonlocal y
        if y < bottom:
            pages.append([])
            y = top
        pages[-1].append(Line(text, x, y, s))
        y -= leading if s <= size else s * 1.4

    for kind, text in blocks:
        text = pdf_safe(" ".join(text.split()))
        if kind in ("title", "heading"):
            y -= leading
            put(text, left, size + 4 if kind == "title" else size + 2)
            continue
        width = chars if kind == "p" else chars - 4
        lines = textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=True)
        for n, line in enumerate(lines):
            if kind == "p":
                put(line, left + (size * 1.5 if n == 0 else 0), size)
            else:
                put(line, left + (0 if n == 0 else size * 1.5), size)
    return build_pdf([page for page in pages if page])
