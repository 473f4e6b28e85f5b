"""PDF bytes -> Document, with pdfium's text layer and a little layout reasoning.

Why the text looks the way it does:

* pdfium's ``get_text_range`` is used, not ``get_text_bounded``: on the corpus both give
  the same reading order, but the bounded variant silently drops line breaks inside
  tables (``resources\\r\\nfor`` becomes ``resourcesfor``) and marks hyphens as ``\\x02``.
* pdfium ends lines with ``\\r\\n``; they become ``\\n`` so that ``citeproof text`` prints
  ordinary lines (the matcher turns any whitespace run into one space either way).
  Leading and trailing blanks of a line and lines that are blank are dropped.
* A hyphen at a line end is reported by pdfium as U+FFFE, with the two lines already
  joined (``litera\\ufffeture``).  pdfium cannot tell a syllable break from a compound
  split at the line end (``non\\ufffepainful``), so the document itself decides: when the
  joined word occurs elsewhere in it, or neither form does, the marker becomes a soft
  hyphen U+00AD (``t1`` removes it, so ``literature`` matches exactly); when only the
  hyphenated compound occurs elsewhere, or a digit or a lower->upper case change meets
  the break (``COVID-19``, ``Never-Ending``), it becomes ``-``.  A marker with no word
  after it (end of page) becomes ``-`` so the ``t1+dehyphen`` fallback can join it.
* Other control characters (unmapped glyphs such as bullets come out as ``\\x01`` or
  ``\\x0f``, a lone ``\\r`` stands in for the circle of a drawn copyright sign) are removed.
* Pages are joined with a blank line; every block lies inside one page.

Blocks, regions and sections come from the heuristics below (``_layout``/``_structure``):
pdfium gives no blank lines between paragraphs, so paragraph starts are read from the
geometry of each line's first character.  A PDF with no extractable text on any page
gives ``text == ""`` and no blocks: the caller reports it as having no text layer.
"""

from __future__ import annotations

import ctypes
import itertools
import re
import statistics
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from citeproof.documents.model import Block, Document, DocumentMeta, Region
from citeproof.errors import DocumentError, UnsupportedFormatError

__all__ = ["parse_pdf"]

PAGE_SEPARATOR = "\n\n"
SOFT_HYPHEN = "\u00ad"
_PDFIUM_HYPHEN = "\ufffe"
_PDFIUM_LOCK = threading.Lock()
"""pdfium is not thread-safe, not even across documents; the service may parse in threads."""
_ABSTRACT_CAP = 6000
"""Characters after which an abstract that no heading ended is taken to be over."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\uffff]")
"""Control characters (C0, DEL, C1) and the noncharacter U+FFFF carry no text; tab is a space."""

_WORD = re.compile(r"[^\W\d_]+")
_RUN = re.compile(r"\w+")
_HYPHENS = re.compile(r"[-\u2010\u2011]")
_COMPOUND = re.compile(r"\w+(?:[-\u2010\u2011]\w+)+")

_NUM = r"(?:(?:\d{1,2}|[IVX]{1,4}|[A-H])\.?\s+)?"
_END = r"\s*[:.]?"
_ABSTRACT = re.compile(_NUM + r"abstract" + _END, re.I)
_ABSTRACT_INLINE = re.compile(r"(?:Abstract|ABSTRACT)\s*(?:[:.\u2014\u2013]|\s-)\s*\S")
_REFERENCES = re.compile(
    _NUM + r"(?:references?|bibliography|literature\s+cited|works\s+cited|cited\s+literature"
    r"|references\s+and\s+notes|reference\s+list)" + _END,
    re.I,
)
_APPENDIX = re.compile(
    r"(?:appendix(?:\s+[A-Z0-9]{1,3})?(?:\s*[:.]\s*[A-Z][^,;()]{0,60})?|appendices"
    r"|supplementary\s+(?:materials?|information|data)|supporting\s+information)" + _END,
    re.I,
)
_BACK = re.compile(
    _NUM + r"(?:acknowledge?ments?|funding|competing\s+interests?|conflicts?\s+of\s+interests?"
    r"|declaration\s+of\s+(?:competing\s+)?interests?|authors?['\u2019]?\s+contributions?"
    r"|author\s+details|availability\s+of\s+data\s+and\s+materials?"
    r"|data\s+availability(?:\s+statement)?|abbreviations|declarations"
    r"|ethics\s+approval\s+and\s+consent\s+to\s+participate|consent\s+for\s+publication)" + _END,
    re.I,
)
_BODY = re.compile(
    _NUM + r"(?:introduction|background|methods?|materials\s+and\s+methods|methodology"
    r"|results|discussion|results\s+and\s+discussion|conclusions?|conclusions?\s+and\s+future"
    r"\s+work|related\s+work|experiments?|evaluation|limitations)" + _END,
    re.I,
)
_KEYWORDS = re.compile(
    r"(?:Key ?words|KEY ?WORDS|Index [Tt]erms|INDEX TERMS)(?:\s*[:.\u2014\u2013-].*)?"
)
_NUMBERED = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,2})(\.?)\s+(\S.{0,79})")
_STOP_LAST = re.compile(
    r"a|an|the|of|in|on|and|or|to|for|with|by|from|at|as|is|are|was|were|be|that|this", re.I
)
"""Words a title does not end with; a line ending in one is a wrapped sentence."""


@dataclass(slots=True)
class _Line:
    """One pdfium line (several physical lines when pdfium joined a hyphenated break)."""

    raw: str
    page: int
    left: float | None = None
    first_bottom: float | None = None
    last_bottom: float | None = None
    text: str = ""
    start: int = 0
    para_start: bool = False
    gap_before: float = 0.0
    """Space above the line in units of the page's line pitch (0 when unknown)."""


def parse_pdf(data: bytes) -> Document:
    """Parse PDF bytes; raise UnsupportedFormatError/DocumentError for unusable files."""
    pages, n_pages, title = _extract(bytes(data))
    lines = [line for page in pages for line in page]
    meta = DocumentMeta(title=title)
    resolve = _hyphen_resolver([line.raw for line in lines])
    parts: list[str] = []
    offset = 0
    kept_pages: list[list[_Line]] = []
    for index, page in enumerate(pages):
        if index:
            offset += len(PAGE_SEPARATOR)
        kept: list[_Line] = []
        for line in page:
            line.text = _clean(line.raw, resolve)
            if not line.text:
                continue
            if kept:
                offset += 1
            line.start = offset
            offset += len(line.text)
            kept.append(line)
        _layout(kept)
        kept_pages.append(kept)
        parts.append("\n".join(line.text for line in kept))
    kept_lines = [line for page in kept_pages for line in page]
    if not kept_lines:  # no text layer (a scan), or only glyphs that map to nothing
        return Document(text="", blocks=[], format="pdf", meta=meta, dehyphen=True, pages=n_pages)
    text = PAGE_SEPARATOR.join(parts)
    return Document(
        text=text,
        blocks=_structure(kept_lines),
        format="pdf",
        meta=meta,
        dehyphen=True,
        pages=n_pages,
    )


# --- pdfium -------------------------------------------------------------------------


def _extract(data: bytes) -> tuple[list[list[_Line]], int, str | None]:
    """Read every page's lines and first/last character geometry, closing all handles."""
    import pypdfium2 as pdfium

    if not data:
        raise UnsupportedFormatError("The PDF is empty (0 bytes); give a complete PDF file.")
    with _PDFIUM_LOCK:
        try:
            pdf = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as err:
            raise _open_error(err) from None
        try:
            n_pages = len(pdf)
            title = _title(pdf)
            pages = [_page_lines(pdf, i) for i in range(n_pages)]
        except pdfium.PdfiumError as err:
            raise DocumentError(
                f"The PDF opened but a page could not be read ({err}); "
                "re-export or repair the file and try again."
            ) from None
        finally:
            pdf.close()
    return pages, n_pages, title


def _open_error(err: Any) -> Exception:
    import pypdfium2.raw as pdfium_c

    code = getattr(err, "err_code", None)
    if code == pdfium_c.FPDF_ERR_PASSWORD:
        return DocumentError(
            "The PDF is protected by a password; remove the protection (or save an "
            "unprotected copy) and check that file."
        )
    if code == pdfium_c.FPDF_ERR_SECURITY:
        return DocumentError(
            "The PDF uses an encryption scheme citeproof cannot open; save an unprotected "
            "copy and check that file."
        )
    return UnsupportedFormatError(
        "The file could not be read as a PDF (it is damaged, truncated or not a PDF); "
        "check that the download is complete or give the document in another format."
    )


def _title(pdf: Any) -> str | None:
    """The Info Title when it names the work, not a file or a typesetting job id."""
    raw = pdf.get_metadata_value("Title")
    title = " ".join(str(raw or "").split())
    if title.lower().startswith("microsoft word - "):
        return None
    letters = sum(ch.isalpha() for ch in title)
    if letters < 4 or letters < 0.5 * len(title.replace(" ", "")) or len(title) > 500:
        return None
    if re.search(r"\.(?:docx?|pdf|tex|dvi|ps|indd|rtf|odt)$", title, re.I):
        return None
    if title.lower() in {"untitled", "title", "no title", "document"}:
        return None
    return title


def _page_lines(pdf: Any, index: int) -> list[_Line]:
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            raw = textpage.get_text_range()
            return list(_lines_with_geometry(textpage, raw, index + 1))
        finally:
            textpage.close()
    finally:
        page.close()


def _lines_with_geometry(textpage: Any, raw: str, page_no: int) -> Iterator[_Line]:
    """Split pdfium's page text on CRLF and locate each line's first and last character.

    Text indices are UTF-16 positions; a page with astral characters needs the shift.
    This runs for every line of every page, hence the bound locals.
    """
    import pypdfium2.raw as pdfium_c

    astral = bool(raw) and max(raw) > "\uffff"
    handle = textpage.raw
    rect = pdfium_c.FS_RECTF()
    rect_ref = ctypes.byref(rect)
    char_index = pdfium_c.FPDFText_GetCharIndexFromTextIndex
    loose_box = pdfium_c.FPDFText_GetLooseCharBox

    def box(py_index: int) -> bool:
        if astral:
            py_index += sum(ord(ch) > 0xFFFF for ch in raw[:py_index])
        c_index = char_index(handle, py_index)
        return c_index >= 0 and bool(loose_box(handle, c_index, rect_ref))

    pos = 0
    for raw_line in raw.split("\r\n"):
        line = _Line(raw=raw_line, page=page_no)
        body = raw_line.rstrip()
        if body:
            if box(pos + len(body) - 1):
                line.last_bottom = rect.bottom
            if box(pos + len(body) - len(body.lstrip())):
                line.left, line.first_bottom = rect.left, rect.bottom
        pos += len(raw_line) + 2
        yield line


# --- text ---------------------------------------------------------------------------


def _marked_tokens(line: str) -> Iterator[tuple[int, int]]:
    """Spans of the word tokens that contain pdfium's hyphen marker.

    Found by scanning out from each marker: a regex with a word class on both sides of
    the marker backtracks at every position of every line.
    """
    at = line.find(_PDFIUM_HYPHEN)
    while at >= 0:
        start = at
        while start and _token_char(line[start - 1]):
            start -= 1
        end = at + 1
        while end < len(line) and (line[end] == _PDFIUM_HYPHEN or _token_char(line[end])):
            end += 1
        yield start, end
        at = line.find(_PDFIUM_HYPHEN, end)


def _token_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_-\u2010\u2011"


def _hyphen_resolver(raw_lines: list[str]) -> dict[tuple[str, str], str]:
    """Decide, per (left, right) fragment pair, what pdfium's line-end hyphen stands for.

    The evidence is whether ``left-right`` or ``leftright`` occurs elsewhere in the
    document.  Unicode-class regexes are slow in CPython, so the vocabulary is built
    from ``\\w+`` runs and from the few whitespace tokens that contain a hyphen.
    """
    pairs: set[tuple[str, str]] = set()
    for line in raw_lines:
        for start, end in _marked_tokens(line):
            pairs.update(itertools.pairwise(line[start:end].split(_PDFIUM_HYPHEN)))
    if not pairs:
        return {}
    lowered = "\n".join(raw_lines).lower()
    words = set(_RUN.findall(lowered))
    compounds: set[str] = set()
    for token in lowered.split():
        if "-" in token or "\u2010" in token or "\u2011" in token:
            for compound in _COMPOUND.findall(token):
                parts = _HYPHENS.split(compound)
                compounds.update(f"{a}-{b}" for a, b in itertools.pairwise(parts))
    return {pair: _hyphen_for(*pair, words, compounds) for pair in pairs}


def _hyphen_for(left: str, right: str, words: set[str], compounds: set[str]) -> str:
    if not left or not right:
        return "-"
    lw = (_WORD.findall(left) or [""])[-1].lower()
    rw = (_WORD.findall(right) or [""])[0].lower()
    if lw and rw:
        hyphenated = f"{lw}-{rw}" in compounds
        joined = lw + rw in words
        if hyphenated != joined:
            return "-" if hyphenated else SOFT_HYPHEN
    if left[-1].isdigit() or right[0].isdigit() or (left[-1].islower() and right[0].isupper()):
        return "-"
    return SOFT_HYPHEN


def _clean(raw: str, resolve: dict[tuple[str, str], str]) -> str:
    """One line as it goes into Document.text: markers resolved, controls gone, trimmed."""
    if _PDFIUM_HYPHEN in raw:
        parts, done = [], 0
        for start, end in _marked_tokens(raw):
            pieces = raw[start:end].split(_PDFIUM_HYPHEN)
            joined = [pieces[0]]
            for left, right in itertools.pairwise(pieces):
                joined += [resolve.get((left, right), "-"), right]
            parts += [raw[done:start], "".join(joined)]
            done = end
        raw = "".join([*parts, raw[done:]])
    if _CONTROL.search(raw):
        raw = _CONTROL.sub("", raw.replace("\t", " "))
    return raw.strip()


# --- layout: paragraph starts from geometry ------------------------------------------


def _layout(lines: list[_Line]) -> None:
    """Mark paragraph starts on one page from first-line indents, hanging indents and gaps.

    pdfium gives no blank lines, so the only evidence is where lines begin: a line set in
    from the lines around it starts a paragraph; a line set out from the two lines after
    it starts a hanging-indent item (reference entries, lists); extra space above a line
    (over 1.6 line pitches) starts a new block.  Centred or ragged text (titles, tables)
    may be cut more finely than it should; that only makes blocks smaller.
    """
    deltas = [
        a.last_bottom - b.first_bottom
        for a, b in itertools.pairwise(lines)
        if a.last_bottom is not None
        and b.first_bottom is not None
        and 2.0 < a.last_bottom - b.first_bottom < 50.0
    ]
    pitch = statistics.median(deltas) if deltas else 12.0
    tol, wide = 0.35 * pitch, 3.0 * pitch

    def follows(a: _Line | None, b: _Line | None) -> bool:
        """``b`` comes right under ``a`` in the same column."""
        if a is None or b is None or a.last_bottom is None or b.first_bottom is None:
            return False
        if a.left is None or b.left is None:
            return False
        drop = a.last_bottom - b.first_bottom
        return 0.0 < drop < 2.5 * pitch and abs(a.left - b.left) < wide

    def left(line: _Line | None) -> float:
        return line.left if line is not None and line.left is not None else float("nan")

    for i, line in enumerate(lines):
        prev = lines[i - 1] if i else None
        nxt = lines[i + 1] if i + 1 < len(lines) else None
        nxt2 = lines[i + 2] if i + 2 < len(lines) else None
        if prev is not None and prev.last_bottom is not None and line.first_bottom is not None:
            line.gap_before = (prev.last_bottom - line.first_bottom) / pitch
            if line.gap_before > 1.6:
                line.para_start = True
                continue
        if not follows(line, nxt):
            continue
        shift = left(line) - left(nxt)
        if tol <= shift <= wide:
            # first-line indent, unless this is the last line of a hanging-indent item
            line.para_start = not follows(prev, line) or abs(left(prev) - left(nxt)) < tol
        elif tol <= -shift <= wide:
            line.para_start = follows(nxt, nxt2) and abs(left(nxt2) - left(nxt)) < tol


# --- structure: headings, regions, sections -------------------------------------------


def _heading_role(text: str) -> str | None:
    """Which known heading a whole line is: abstract, references, appendix, back, body."""
    if len(text) > 80:
        return None
    for role, pattern in (
        ("abstract", _ABSTRACT),
        ("references", _REFERENCES),
        ("appendix", _APPENDIX),
        ("back", _BACK),
        ("body", _BODY),
    ):
        if pattern.fullmatch(text):
            return role
    return None


def _plain_title(text: str) -> str:
    stripped = re.sub(r"^(?:\d{1,2}|[IVX]{1,4}|[A-H])\.?\s+(?=\w)", "", text)
    return stripped.rstrip(":. ") or text


class _Numbering:
    """Section numbers seen so far, to accept only headings that continue them.

    A numbered line is a heading only when its number is the next one at its level
    (numbered list items and table rows, which restart at 1 or skip, are refused), it is
    written in the style of the first numbered heading (``1.`` or ``1``), the rest reads
    like a title, and the line has space above it or opens a column.  A paper whose
    known headings (Introduction, Methods ...) carry no numbers gets no numbered ones.
    """

    def __init__(self) -> None:
        self.path: list[int] = []
        self.titles: list[str] = []
        self.dotted: bool | None = None
        self.unnumbered = False

    def known(self, text: str, title: str) -> None:
        m = re.match(r"(\d{1,2})(\.?)\s", text)
        if m is None:
            self.unnumbered = self.unnumbered or not self.path
            return
        self.path, self.titles = [int(m.group(1))], [title]
        self.dotted = bool(m.group(2)) if self.dotted is None else self.dotted

    def accept(self, line: _Line) -> tuple[str, ...] | None:
        m = _NUMBERED.fullmatch(line.text)
        if m is None or self.unnumbered:
            return None
        title = m.group(3).strip()
        words = title.split()
        if (
            not title[0].isupper()
            or len(words) > 12
            or title[-1] in ".,;:"
            or _STOP_LAST.fullmatch(words[-1])
            or "et al" in title
            or sum(ch.isalpha() for ch in title) < 0.5 * len(title)
            or 0.0 < line.gap_before < 1.25
            or (self.dotted is not None and self.dotted != bool(m.group(2)))
        ):
            return None
        number = [int(p) for p in m.group(1).split(".")]
        depth, path = len(number), self.path
        if depth > len(path) + 1 or number[: depth - 1] != path[: depth - 1]:
            return None
        if number[-1] != (path[depth - 1] if len(path) >= depth else 0) + 1:
            return None
        self.path, self.titles = number, [*self.titles[: depth - 1], title]
        self.dotted = bool(m.group(2))
        return tuple(self.titles)


def _furniture(lines: list[_Line]) -> set[int]:
    """Indices of running heads and feet: a top or bottom line repeated on many pages.

    Digits are ignored when comparing (page numbers), so ``84`` ... ``91`` and
    ``Page 2 of 9`` repeat; these lines never count as headings.
    """
    by_page: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        by_page.setdefault(line.page, []).append(i)
    seen: dict[str, set[int]] = {}
    edge: dict[int, str] = {}
    for page, indices in by_page.items():
        for i in {*indices[:2], *indices[-2:]}:
            key = re.sub(r"\d+", "#", lines[i].text)
            edge[i] = key
            seen.setdefault(key, set()).add(page)
    need = max(2, -(-len(by_page) // 4))
    return {i for i, key in edge.items() if len(seen[key]) >= need}


@dataclass(slots=True)
class _Tag:
    kind: str
    region: Region
    section: tuple[str, ...]


def _structure(lines: list[_Line]) -> list[Block]:
    """Tag each line with kind, region and section, then group lines into blocks.

    Regions: text on page 1 before an Abstract heading is front-matter; an Abstract
    heading (or a line opening ``Abstract:``) starts the abstract, which ends at the next
    heading or after ``_ABSTRACT_CAP`` characters; a Keywords line is front-matter; the
    last references heading starts references, which run to the end or to an Appendix
    heading (back-matter); Acknowledgements, Funding, Competing interests and the like
    are back-matter until the next body heading; everything else is body.  Sections come
    from known unnumbered headings (Introduction, Methods ...) and from numbered headings
    that continue the numbering; nothing else is guessed.
    """
    furniture = _furniture(lines)
    roles = [None if i in furniture else _heading_role(line.text) for i, line in enumerate(lines)]
    refs_at = max((i for i, r in enumerate(roles) if r == "references"), default=-1)
    abstract_at = next(
        (
            i
            for i, line in enumerate(lines)
            if line.page <= 2 and (roles[i] == "abstract" or _ABSTRACT_INLINE.match(line.text))
        ),
        -1,
    )
    region: Region = "front-matter" if abstract_at > 0 and lines[abstract_at].page == 1 else "body"
    section: tuple[str, ...] = ()
    numbering = _Numbering()
    abstract_start = 0
    tags: list[_Tag] = []
    for i, line in enumerate(lines):
        role, heading = roles[i], False
        line_region: Region | None = None
        if i in furniture:
            line_region = "other"
        elif i == refs_at:
            region, section, heading = "references", (_plain_title(line.text),), True
        elif i == abstract_at:
            region, section, heading = "abstract", ("Abstract",), role == "abstract"
            abstract_start = line.start
        elif region == "front-matter" and abstract_at > i:
            pass  # title, authors and affiliations: no headings here
        elif region == "references":
            if role == "appendix":
                region, section, heading = "back-matter", (_plain_title(line.text),), True
        elif role in ("appendix", "back"):
            region, section, heading = "back-matter", (_plain_title(line.text),), True
        elif role is not None:
            title = _plain_title(line.text)
            region, section, heading = "body", (title,), True
            numbering.known(line.text, title)
        elif _KEYWORDS.fullmatch(line.text):
            line_region = "front-matter"
            if region == "abstract":
                region, section = "body", ()
        elif (numbered := numbering.accept(line)) is not None:
            region, section, heading = "body", numbered, True
        elif region == "abstract" and line.start - abstract_start > _ABSTRACT_CAP:
            region, section = "body", ()
        kind = "furniture" if i in furniture else "heading" if heading else "paragraph"
        tags.append(_Tag(kind, line_region or region, section))
    return _group(lines, tags)


def _group(lines: list[_Line], tags: list[_Tag]) -> list[Block]:
    """Consecutive lines with the same tag form a block; each heading stands alone."""
    blocks: list[Block] = []
    for i, (line, tag) in enumerate(zip(lines, tags, strict=True)):
        end = line.start + len(line.text)
        if i and not line.para_start and tag.kind != "heading" and tag == tags[i - 1]:
            last = blocks[-1]
            if last.page == line.page:
                blocks[-1] = Block(last.start, end, last.kind, last.section, last.region, last.page)
                continue
        blocks.append(Block(line.start, end, tag.kind, tag.section, tag.region, line.page))
    return blocks
