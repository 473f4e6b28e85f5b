"""Word (``.docx``) manuscripts: the body, footnotes and endnotes, and reference managers' fields.

python-docx opens the package and gives the body's XML, the styles and the notes parts;
each part is walked here in document order with lxml (python-docx's paragraph text leaves
out simple fields, content controls and tracked insertions, and knows nothing of fields):

* Text: ``w:t``; ``w:tab`` a tab; ``w:br``/``w:cr`` a line break; ``w:noBreakHyphen`` a
  hyphen.  Deleted text (``w:del``, ``w:moveFrom``) is left out, inserted text kept.  A
  field's instruction (between its begin and separate marks, ``w:instrText``) is not text;
  its result is.
* Blocks: each paragraph (table cells' paragraphs too, kind ``cell``), joined by a blank
  line.  A paragraph styled ``Title`` is the title; ``Heading N`` (or with an outline level)
  a heading of level N; a ``Quote``-like style (``Quote``, ``Intense Quote``, ``Block Text``)
  or a left indent of at least :data:`QUOTE_INDENT` twips without list numbering a block
  quote; ``Caption`` a caption; a numbered or bulleted paragraph a list item.
* Notes: footnotes and endnotes (``word/footnotes.xml``, ``word/endnotes.xml``) follow the
  body, one block per paragraph, region ``footnotes``.  A note reference in the text is
  written as its number in superscript digits (Word numbers notes by first reference) and
  calls its note; the note's own number mark is left out of the note's text.
* Citations from structure: a reference manager's citation field (complex, ``w:fldChar`` and
  ``w:instrText``, or simple, ``w:fldSimple``), read by :mod:`.fields`, is a ``field``
  citation spanning its result, one item per work, each with its CSL-JSON; a Mendeley Cite
  content control likewise; a run of superscript digits (``w:vertAlign``) outside a field is
  a ``superscript`` citation.  Everything else (``[3]``, ``(Smith et al., 2019)``) is found
  by the shared scans.
* The reference list: the paragraphs of a bibliography field (``ZOTERO_BIBL``,
  ``EN.REFLIST``, Mendeley's) or content control, else the paragraphs after the last heading
  (or paragraph) that is only a reference heading, up to the next heading of that level or
  higher; each paragraph is one entry (an entry's number from Word's automatic numbering
  when its text has none).  With fields and no printed list, each cited work is an entry.

Bounds: the package is refused before python-docx reads it when it has over
:data:`MAX_PARTS` parts, over :data:`MAX_UNPACKED` bytes unpacked, or a part compressed over
:data:`MAX_RATIO` to one (a zip bomb); at most :data:`MAX_FIELDS` citation fields are read
and fields nest at most :data:`MAX_FIELD_DEPTH` deep (the rest are reported).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

from citeproof.documents.safe_xml import local_name, parse_xml_safely
from citeproof.errors import CiteproofError, SourceTooLargeError, UnsupportedFormatError
from citeproof.manuscript.draft import Draft, NoteCall, RawCitation, RawTarget
from citeproof.manuscript.fields import (
    FieldData,
    bibliography_field,
    read_field,
    read_mendeley_tag,
)
from citeproof.manuscript.scan import numbers_of
from citeproof.manuscript.structure import BlockKind, ReferenceEntry, Region, TextBlock
from citeproof.refs.listed import REFERENCE_HEADING, parse_reference_string

__all__ = [
    "MAX_FIELDS",
    "MAX_FIELD_DEPTH",
    "MAX_PARTS",
    "MAX_RATIO",
    "MAX_UNPACKED",
    "QUOTE_INDENT",
    "check_package",
    "read_docx",
]

MAX_PARTS: Final = 5_000
MAX_UNPACKED: Final = 200 * 1024 * 1024
MAX_RATIO: Final = 200
MAX_FIELDS: Final = 20_000
MAX_FIELD_DEPTH: Final = 32
QUOTE_INDENT: Final = 567  # twips: one centimetre

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_VAL = f"{{{_W}}}val"
_SKIP = frozenset(
    {
        "del",
        "moveFrom",
        "pPr",
        "rPr",
        "sectPr",
        "proofErr",
        "bookmarkStart",
        "bookmarkEnd",
        "commentRangeStart",
        "commentRangeEnd",
        "lastRenderedPageBreak",
        "sdtPr",
        "sdtEndPr",
        "customXmlPr",
        "smartTagPr",
    }
)
_SUPER_DIGITS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.IGNORECASE)
_QUOTE_STYLES = re.compile(r"quote|block\s*text|quotation|extract", re.IGNORECASE)
_BIB_STYLES = re.compile(r"bibliography|endnotebibliography|references?\b", re.IGNORECASE)
_SUPER_CITE = re.compile(r"[\s\[(]*\d{1,4}(?:\s*[,;\-–—]\s*\d{1,4})*[\s\])]*")
_NUMERIC_RESULT = re.compile(r"[\s\[(]*(\d{1,4}(?:\s*[,;\-–—]\s*\d{1,4})*)[\s\])]*")
_NOTE_TYPES = frozenset({None, "normal"})


def check_package(data: bytes) -> None:
    """Refuse a package too large or too compressed to unpack safely (module bounds)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as exc:
        raise UnsupportedFormatError(
            f"The Word file is not a readable ZIP package ({exc}); save it again from Word."
        ) from None
    infos = archive.infolist()
    if len(infos) > MAX_PARTS:
        raise UnsupportedFormatError(
            f"The Word file has {len(infos):,} parts; citeproof reads packages of at most "
            f"{MAX_PARTS:,}."
        )
    total = sum(i.file_size for i in infos)
    if total > MAX_UNPACKED:
        raise SourceTooLargeError(
            f"The Word file unpacks to {total:,} bytes; citeproof reads at most {MAX_UNPACKED:,}."
        )
    for info in infos:
        if info.file_size > 1_000_000 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise UnsupportedFormatError(
                f"The Word file's part {info.filename} is compressed more than {MAX_RATIO} to "
                "one, as only a zip bomb is; citeproof does not unpack it."
            )


@dataclass(slots=True)
class _Frame:
    """One open field."""

    data: str | None
    instruction: list[str] = field(default_factory=list)
    result: bool = False
    start: int = 0
    kind: str = "other"
    """``citation``, ``bibliography`` or ``other``, decided at the separate mark."""
    parsed: FieldData | None = None


@dataclass(slots=True)
class _Para:
    """The text of one paragraph being built, with what stands in it."""

    parts: list[str] = field(default_factory=list)
    size: int = 0
    citations: list[RawCitation] = field(default_factory=list)
    calls: list[NoteCall] = field(default_factory=list)
    superscript: list[tuple[int, int]] = field(default_factory=list)

    def add(self, text: str, superscript: bool = False) -> None:
        if not text:
            return
        if superscript:
            self.superscript.append((self.size, self.size + len(text)))
        self.parts.append(text)
        self.size += len(text)


#: Run children that stand for one character of text.
_RUN_CHARACTERS: Final = {"tab": "\t", "br": "\n", "cr": "\n", "noBreakHyphen": "-"}


class _Reader:
    def __init__(self, doc: Any) -> None:
        self.doc = doc
        self.draft = Draft("docx")
        self.stack: list[_Frame] = []
        self.fields = 0
        self.in_bibliography = 0
        self.note_numbers: dict[str, int] = {}
        self.paragraph_no = 0
        self.styles = _styles(doc)
        self.numbering: dict[tuple[str, str], int] = {}
        self.paragraphs: list[tuple[int, int, str, str | None]] = []
        """(start, end, what, number) of each paragraph: what is ``bib`` (in a bibliography
        field or style), ``heading``, ``refheading`` (a heading-like reference heading),
        ``note``, or ``para``; number is Word's automatic number, if any."""
        self.region: Region = "body"
        self.note: str | None = None

    # --- parts ----------------------------------------------------------------------------

    def run(self) -> Draft:
        body = self.doc.element.body
        self._container(body, "body")
        self._notes()
        self._entries()
        title = self.doc.core_properties.title
        if title and title.strip() and not self.draft.title:
            self.draft.title = " ".join(title.split())
        return self.draft

    def _container(self, el: etree._Element, where: str) -> None:
        for child in el:
            name = local_name(child)
            if name == "p":
                self._paragraph(child)
            elif name == "tbl":
                for cell in child.iter(f"{{{_W}}}tc"):
                    for p in cell:
                        if local_name(p) == "p":
                            self._paragraph(p, cell=True)
            elif name in ("sdt", "customXml"):
                content = next((c for c in child if local_name(c) in ("sdtContent",)), child)
                bib = _sdt_tag(child) == "MENDELEY_BIBLIOGRAPHY"
                self.in_bibliography += bib
                self._container(content, where)
                self.in_bibliography -= bib

    def _notes(self) -> None:
        for rel_type, prefix, label in (
            ("footnotes", "fn", "footnote"),
            ("endnotes", "en", "endnote"),
        ):
            blob = _part_blob(self.doc, rel_type)
            if blob is None:
                continue
            try:
                root = parse_xml_safely(blob)
            except CiteproofError as exc:
                self.draft.problem(
                    "unreadable_part",
                    f"The {label}s could not be read: {exc}",
                    f"word/{rel_type}.xml",
                )
                continue
            if root is None:
                continue
            notes = [n for n in root if local_name(n) in ("footnote", "endnote")]
            ordered = sorted(
                (n for n in notes if n.get(f"{{{_W}}}type") in _NOTE_TYPES),
                key=lambda n: self.note_numbers.get(f"{prefix}{n.get(f'{{{_W}}}id')}", 10**9),
            )
            for note in ordered:
                note_id = f"{prefix}{note.get(f'{{{_W}}}id')}"
                if note_id not in self.note_numbers:
                    continue
                self.region, self.note = "footnotes", note_id
                first = self.draft.size
                for p in note.iter(f"{{{_W}}}p"):
                    self._paragraph(p, note=True)
                if self.draft.size > first:
                    start = first + (2 if first else 0)
                    self.draft.notes[note_id] = (start, self.draft.size)
            self.region, self.note = "body", None

    # --- paragraphs ----------------------------------------------------------------------

    def _paragraph(self, p: etree._Element, *, cell: bool = False, note: bool = False) -> None:
        self.paragraph_no += 1
        para = _Para()
        bib_before = self.in_bibliography
        self._walk(p, para)
        text = "".join(para.parts)
        style, level, outline = self._style(p)
        in_bib = bool(bib_before or self.in_bibliography or _BIB_STYLES.fullmatch(style or ""))
        if not text.strip():
            return
        kind = self._block_kind(p, style, level, outline, cell=cell, note=note)
        lead = len(text) - len(text.lstrip())
        text_stripped = text.strip()
        region: Region = self.region if kind != "title" else "front"
        start, end = self.draft.add_block(
            text_stripped, kind, region, level or ((outline or 0) + 1 if kind == "heading" else 0)
        )
        shift = start - lead
        where = f"paragraph {self.paragraph_no}" if not note else f"note {self.note}"
        self._place_marks(para, shift, (start, end), region, where)
        self._superscripts(para, text, shift, region, where)
        if kind == "title" and self.draft.title is None:
            self.draft.title = text_stripped
        what = _role(kind, text_stripped, in_bib=in_bib, note=note)
        number = self._number(p) if what in ("bib", "para") else None
        self.paragraphs.append((start, end, what, number))

    def _block_kind(
        self,
        p: etree._Element,
        style: str | None,
        level: int,
        outline: int | None,
        *,
        cell: bool,
        note: bool,
    ) -> BlockKind:
        """What a paragraph is, by where it stands, then its style, then its numbering and
        indent (a paragraph indented as far as a quotation is one)."""
        if note:
            return "footnote"
        if cell:
            return "cell"
        if style and style.lower() in ("title", "subtitle"):
            return "title"
        if level or outline is not None:
            return "heading"
        if style and _QUOTE_STYLES.search(style):
            return "quote"
        if style and style.lower() == "caption":
            return "caption"
        style_info = self.styles.get(_style_id(p) or "")
        if _numbered(p) or (style_info is not None and style_info.num_id):
            return "list_item"
        if _indent(p) >= QUOTE_INDENT:
            return "quote"
        return "paragraph"

    def _place_marks(
        self, para: _Para, shift: int, block: tuple[int, int], region: Region, where: str
    ) -> None:
        """The paragraph's citations and note calls, moved from its own offsets to the
        manuscript's (a citation kept inside its block)."""
        start, end = block
        for c in para.citations:
            c.start, c.end = _clamp(c.start + shift, start, end), _clamp(c.end + shift, start, end)
            c.region, c.where, c.note = region, where, self.note
            self.draft.citations.append(c)
        for call in para.calls:
            self.draft.note_calls.append(
                NoteCall(call.start + shift, call.end + shift, call.note, region)
            )

    def _superscripts(self, para: _Para, text: str, shift: int, region: Region, where: str) -> None:
        """Runs of raised digits outside fields and note marks: superscript citations."""
        merged: list[list[int]] = []
        for s, e in para.superscript:
            if merged and merged[-1][1] == s:
                merged[-1][1] = e
            else:
                merged.append([s, e])
        taken = [(c.start - shift, c.end - shift) for c in para.citations]
        taken += [(c.start, c.end) for c in para.calls]
        for s, e in merged:
            piece = text[s:e]
            if not _SUPER_CITE.fullmatch(piece) or any(a < e and s < b for a, b in taken):
                continue
            if s == 0 or text[s - 1].isdigit():
                continue
            digits = piece.strip(" [()]")
            numbers = numbers_of(digits) or []
            lead = len(piece) - len(piece.lstrip(" "))
            trail = len(piece) - len(piece.rstrip(" "))
            self.draft.citations.append(
                RawCitation(
                    s + lead + shift,
                    e - trail + shift,
                    "superscript",
                    [RawTarget(str(n), number=n) for n in numbers],
                    region=region,
                    where=where,
                    note=self.note,
                )
            )

    def _style(self, p: etree._Element) -> tuple[str | None, int, int | None]:
        ppr = _kid(p, "pPr")
        style_id = None
        outline: int | None = None
        if ppr is not None:
            ps = _kid(ppr, "pStyle")
            style_id = ps.get(_VAL) if ps is not None else None
            ol = _kid(ppr, "outlineLvl")
            if ol is not None and (ol.get(_VAL) or "").isdigit() and int(ol.get(_VAL) or 9) < 9:
                outline = int(ol.get(_VAL) or 0)
        style = self.styles.get(style_id or "")
        name = style.name if style is not None else style_id
        if outline is None and style is not None:
            outline = style.outline
        level = 0
        if name and (m := _HEADING_STYLE.fullmatch(name.strip())):
            level = int(m.group(1))
        return name, level, outline

    def _number(self, p: etree._Element) -> str | None:
        """The number Word's automatic numbering gives a paragraph (its own numbering, or
        its style's), counted per list and level."""
        ppr = _kid(p, "pPr")
        num = _kid(ppr, "numPr") if ppr is not None else None
        num_id = _kid(num, "numId") if num is not None else None
        ilvl = _kid(num, "ilvl") if num is not None else None
        list_id = (num_id.get(_VAL) or "") if num_id is not None else ""
        if not list_id and ppr is not None and (ps := _kid(ppr, "pStyle")) is not None:
            style = self.styles.get(ps.get(_VAL) or "")
            list_id = (style.num_id or "") if style is not None else ""
        key = (list_id, (ilvl.get(_VAL) or "0") if ilvl is not None else "0")
        if key[0] in ("", "0"):
            return None
        self.numbering[key] = self.numbering.get(key, 0) + 1
        return str(self.numbering[key])

    # --- inside a paragraph ---------------------------------------------------------------

    def _walk(self, el: etree._Element, para: _Para) -> None:
        for child in el:
            name = local_name(child)
            if not name or name in _SKIP:
                continue
            if name == "r":
                self._run(child, para)
            elif name == "fldSimple":
                frame = _Frame(None, [child.get(f"{{{_W}}}instr") or ""])
                self._open(frame)
                self._separate(frame, para)
                self._walk(child, para)
                self._close(para)
            elif name == "sdt":
                self._inline_sdt(child, para)
            else:  # hyperlink, ins, smartTag, customXml, moveTo, math ...
                self._walk(child, para)

    def _inline_sdt(self, sdt: etree._Element, para: _Para) -> None:
        content = _kid(sdt, "sdtContent")
        if content is None:
            return
        tag = _sdt_tag(sdt)
        parsed = read_mendeley_tag(tag) if tag else None
        start = para.size
        self._walk(content, para)
        if parsed is not None and not self._instruction_open():
            self._citation(parsed, start, para, f"Mendeley Cite ({len(parsed.items)} items)")

    def _instruction_open(self) -> bool:
        return any(not f.result for f in self.stack)

    def _run(self, r: etree._Element, para: _Para) -> None:
        superscript = _superscript(r)
        for c in r:
            name = local_name(c)
            if name == "t":
                if not self._instruction_open():
                    para.add(c.text or "", superscript)
            elif name == "instrText":
                if self.stack and not self.stack[-1].result:
                    self.stack[-1].instruction.append(c.text or "")
            elif name == "fldChar":
                self._field_char(c, para)
            elif self._instruction_open():
                continue
            elif name in _RUN_CHARACTERS:
                para.add(_RUN_CHARACTERS[name])
            elif name in ("footnoteReference", "endnoteReference"):
                self._note_mark(c, "fn" if name == "footnoteReference" else "en", para)

    def _field_char(self, c: etree._Element, para: _Para) -> None:
        """A field's begin, separator (its instruction read, its result next) or end."""
        kind = c.get(f"{{{_W}}}fldCharType")
        if kind == "begin":
            data = _kid(c, "fldData")
            self._open(_Frame(data.text if data is not None else None))
        elif kind == "separate" and self.stack:
            self._separate(self.stack[-1], para)
        elif kind == "end" and self.stack:
            self._close(para)

    def _note_mark(self, c: etree._Element, prefix: str, para: _Para) -> None:
        """A footnote's or endnote's mark: its number, raised, and the call to the note.
        Notes are numbered in the order they are first called, each kind on its own."""
        note_id = f"{prefix}{c.get(f'{{{_W}}}id')}"
        number = self.note_numbers.setdefault(
            note_id, sum(k.startswith(prefix) for k in self.note_numbers) + 1
        )
        mark = str(number).translate(_SUPER_DIGITS)
        start = para.size
        para.add(mark)
        para.calls.append(NoteCall(start, para.size, note_id))

    def _open(self, frame: _Frame) -> None:
        if len(self.stack) >= MAX_FIELD_DEPTH:
            self.draft.problem(
                "too_deep",
                f"Fields nest more than {MAX_FIELD_DEPTH} deep; the deeper ones were read as text.",
                f"paragraph {self.paragraph_no}",
            )
            self.stack.append(_Frame(None, result=True, kind="ignored"))
            return
        self.stack.append(frame)

    def _separate(self, frame: _Frame, para: _Para) -> None:
        if frame.result:
            return
        frame.result = True
        frame.start = para.size
        instruction = "".join(frame.instruction)
        if bibliography_field(instruction):
            frame.kind = "bibliography"
            self.in_bibliography += 1
            return
        parsed = read_field(instruction, frame.data)
        if parsed is not None:
            frame.kind, frame.parsed = "citation", parsed

    def _close(self, para: _Para) -> None:
        frame = self.stack.pop()
        if not frame.result:  # a field with no result (EndNote's nested data field)
            frame.result = True
            instruction = "".join(frame.instruction)
            parsed = read_field(instruction, frame.data)
            if parsed is not None and parsed.items and self.stack and not self.stack[-1].result:
                return
            frame.start = para.size
            frame.kind, frame.parsed = (
                ("citation", parsed) if parsed is not None else ("other", None)
            )
        if frame.kind == "bibliography":
            self.in_bibliography = max(self.in_bibliography - 1, 0)
        elif frame.kind == "citation" and frame.parsed is not None:
            words = "".join(frame.instruction).split()
            label = " ".join(words[:3]) if words else "field"
            self._citation(
                frame.parsed, frame.start, para, f"{label} ({len(frame.parsed.items)} items)"
            )

    def _citation(self, parsed: FieldData, start: int, para: _Para, raw: str) -> None:
        self.fields += 1
        if self.fields > MAX_FIELDS:
            if self.fields == MAX_FIELDS + 1:
                self.draft.problem(
                    "too_many_fields",
                    f"The file has more than {MAX_FIELDS:,} "
                    "citation fields; the rest were read as text.",
                )
            return
        end = para.size
        text = "".join(para.parts)[start:end]
        s = start + len(text) - len(text.lstrip())
        e = end - (len(text) - len(text.rstrip()))
        if e < s:
            s = e = start
        shown = _NUMERIC_RESULT.fullmatch(text)
        numbers = (numbers_of(shown.group(1)) or []) if shown else []
        if len(numbers) != len(parsed.items):
            numbers = []
        targets = [
            RawTarget(
                item.key or str(item.csl.get("title") or f"item {n + 1}"),
                key=item.key,
                csl=item.csl,
                locator=item.locator,
                number=numbers[n] if numbers else None,
            )
            for n, item in enumerate(parsed.items)
        ]
        if parsed.error and not targets:
            targets = [RawTarget(raw, reason=parsed.error)]
            self.draft.problem("unreadable_field", parsed.error, f"paragraph {self.paragraph_no}")
        para.citations.append(RawCitation(s, e, "field", targets, raw=raw))

    # --- the reference list ----------------------------------------------------------------

    def _entries(self) -> None:
        """Entries from the bibliography paragraphs, or after a reference heading."""
        text = self.draft.text
        spans = [(s, e, n) for s, e, what, n in self.paragraphs if what == "bib"]
        if not spans:
            spans = self._after_heading()
        if not spans:
            return
        chosen = {(s, e) for s, e, _ in spans}
        headings = {(s, e) for s, e, what, _ in self.paragraphs if what == "refheading"}
        kept = []
        for b in self.draft.blocks:
            if (b.start, b.end) in chosen:
                kept.append(TextBlock(b.start, b.end, "reference", "references"))
            elif (b.start, b.end) in headings and b.end <= spans[0][0]:
                kept.append(TextBlock(b.start, b.end, "heading", "references", max(b.level, 1)))
            else:
                kept.append(b)
        self.draft.blocks = kept
        for k, (s, e, number) in enumerate(spans, start=1):
            where = f"entry {k}"
            ref = parse_reference_string(text[s:e], where=where)
            if ref.label is None and number is not None:
                ref = parse_reference_string(text[s:e], label=number, where=where)
            self.draft.entries.append(
                ReferenceEntry(f"ref{k}", ref, ref.label, start=s, end=e, where=where)
            )

    def _after_heading(self) -> list[tuple[int, int, str | None]]:
        """The paragraphs after the last reference heading, to the next heading of its
        level or higher (a heading-like paragraph ends the list at any heading)."""
        items = self.paragraphs
        at = next((n for n in range(len(items) - 1, -1, -1) if items[n][2] == "refheading"), -1)
        if at < 0:
            return []
        levels = {b.start: b.level for b in self.draft.blocks if b.kind == "heading"}
        level = levels.get(items[at][0], 0)
        out: list[tuple[int, int, str | None]] = []
        for s, e, what, number in items[at + 1 :]:
            if what in ("note", "refheading"):
                break
            if what == "heading":
                if not level or levels.get(s, 0) <= level:
                    break
                continue
            out.append((s, e, number))
        return out


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(value, high))


def _kid(el: etree._Element, name: str) -> etree._Element | None:
    return el.find(f"{{{_W}}}{name}")


def _style_id(p: etree._Element) -> str | None:
    ppr = _kid(p, "pPr")
    ps = _kid(ppr, "pStyle") if ppr is not None else None
    return ps.get(_VAL) if ps is not None else None


def _sdt_tag(sdt: etree._Element) -> str:
    pr = _kid(sdt, "sdtPr")
    tag = _kid(pr, "tag") if pr is not None else None
    return (tag.get(_VAL) or "") if tag is not None else ""


def _superscript(r: etree._Element) -> bool:
    rpr = _kid(r, "rPr")
    align = _kid(rpr, "vertAlign") if rpr is not None else None
    return align is not None and align.get(_VAL) == "superscript"


def _numbered(p: etree._Element) -> bool:
    ppr = _kid(p, "pPr")
    return ppr is not None and _kid(ppr, "numPr") is not None


def _indent(p: etree._Element) -> int:
    ppr = _kid(p, "pPr")
    ind = _kid(ppr, "ind") if ppr is not None else None
    if ind is None:
        return 0
    value = ind.get(f"{{{_W}}}left") or ind.get(f"{{{_W}}}start") or "0"
    try:
        return int(value)
    except ValueError:
        return 0


@dataclass(frozen=True, slots=True)
class _Style:
    name: str
    outline: int | None
    """The outline level (0 = top) the style or a style it is based on sets."""
    num_id: str | None
    """The numbering the style gives its paragraphs (``List Number``), if any."""


def _role(kind: BlockKind, text: str, *, in_bib: bool, note: bool) -> str:
    """What a paragraph is to the reference list (``_Reader.paragraphs``): a note, an entry
    of a bibliography, a heading that names the references, another heading, or text."""
    if note:
        return "note"
    if in_bib:
        return "bib"
    if REFERENCE_HEADING.fullmatch(text) is not None and kind in ("heading", "paragraph"):
        return "refheading"
    if kind == "heading":
        return "heading"
    return "para"


def _styles(doc: Any) -> dict[str, _Style]:
    """Paragraph style id -> name, outline level and numbering, following ``basedOn``."""
    out: dict[str, _Style] = {}
    try:
        styles = list(doc.styles)
    except (KeyError, ValueError, AttributeError):
        return out
    by_id = {s.style_id: s.element for s in styles}
    for style in styles:
        outline: int | None = None
        num_id: str | None = None
        current = style.element
        for _ in range(10):  # a basedOn chain is short; a loop in it must not hang
            if current is None:
                break
            ppr = current.find(f"{{{_W}}}pPr")
            if ppr is not None:
                lvl = ppr.find(f"{{{_W}}}outlineLvl")
                if outline is None and lvl is not None and (lvl.get(_VAL) or "").isdigit():
                    outline = int(lvl.get(_VAL) or 0) if int(lvl.get(_VAL) or 0) < 9 else None
                num = ppr.find(f"{{{_W}}}numPr/{{{_W}}}numId")
                if num_id is None and num is not None:
                    num_id = num.get(_VAL)
            based = current.find(f"{{{_W}}}basedOn")
            current = by_id.get(based.get(_VAL)) if based is not None else None
        name = style.name or style.style_id or ""
        out[style.style_id or ""] = _Style(name, outline, num_id)
    return out


def _part_blob(doc: Any, kind: str) -> bytes | None:
    for rel in doc.part.rels.values():
        if rel.reltype.endswith("/" + kind) and not rel.is_external:
            blob = rel.target_part.blob
            return bytes(blob) if blob is not None else None
    return None


def read_docx(data: bytes) -> Draft:
    """The draft of a Word manuscript (module rules)."""
    check_package(data)
    import docx  # python-docx: the package layer

    try:
        doc = docx.Document(io.BytesIO(data))
    except (KeyError, ValueError, zipfile.BadZipFile, etree.XMLSyntaxError) as exc:
        raise UnsupportedFormatError(
            f"The file is not a Word document python-docx can open ({exc}); save it again as .docx."
        ) from None
    return _Reader(doc).run()
