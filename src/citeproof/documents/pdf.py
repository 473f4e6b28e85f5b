"""PDF bytes -> Document, with pdfium's text layer and a little layout reasoning.

Why the text looks the way it does:

* pdfium's ``get_text_range`` is used, not ``get_text_bounded``: on the corpus both give
  the same reading order, but the bounded variant silently drops line breaks inside
  tables (``resources\\r\\nfor`` becomes ``resourcesfor``) and marks hyphens as ``\\x02``.
* pdfium ends lines with ``\\r\\n``; they become ``\\n`` so that ``citeproof text`` prints
  ordinary lines (the matcher turns any whitespace run into one space either way).
  Leading and trailing blanks of a line and lines that are blank are dropped.
* A hyphen at a line end is reported by pdfium as U+FFFE, with the two lines already
  joined (``litera\\ufffeture``); one pdfium missed (another glyph drawn after it on the
  line) is turned into that mark (``pdf_glyphs.join_split_lines``).  pdfium cannot tell a
  syllable break from a compound split at the line end (``non\\ufffepainful``), so the
  document itself decides: when the joined word occurs elsewhere in it, or neither form
  does, the word is joined (``literature``, as the paper's own text has it); when only
  the hyphenated compound occurs elsewhere, or a digit or a lower->upper case change
  meets the break (``COVID-19``, ``Never-Ending``), it becomes ``-``.  A marker with no
  word after it (end of page) becomes ``-`` so the ``t1+dehyphen`` fallback can join it.
  A soft hyphen U+00AD that the PDF itself has inside a word is invisible on the page and
  is dropped (``requirements``).
* An accent drawn as a glyph of its own (``Erdos ... ˝``) is put back on its letter and a
  ``c`` inside a drawn circle becomes ``©`` (``pdf_glyphs``), before anything else reads
  the text.  Other control characters (unmapped glyphs such as bullets come out as
  ``\\x01`` or ``\\x0f``) are removed.
* Superscript note and citation numbers (``one billion.⁴ Many``) stay in the text as the
  page shows them, and their spans go into ``Document.markers``, with page numbers: the
  matcher skips markers whether or not a quote has them, so a quote without the ``4``, or
  one that runs over a page break, is EXACT.  A superscript that touches the next word
  gets a blank after it (``habits.24 In``), as the reader sees two words; a group set
  with blanks, or a range whose dash the font maps to ``e`` (``4 36e38``), is one group,
  the ``e`` written as the dash it is; a line pdfium broke at a raised number is one line
  again (``Jadad et al.11 All``).
* Lines outside the text flow (running heads, page numbers, footnotes, page one's boxed
  author notes and side column of affiliations) are moved to the first paragraph break
  of their page, and floats (a caption with its table's cells or its figure's labels) to
  the end of the paragraph they interrupt (``reading_order``), so that a sentence that
  crosses a page or column break, or a float, reads on; they stay on their page, in
  blocks of their own (region ``other``, ``footnote``, ``front-matter``; ``caption``,
  ``table``, and ``other`` for a figure's labels).
* Pages are joined with a blank line; every block lies inside one page.

Blocks, regions and sections come from the layout heuristics in ``pdf_layout``: pdfium
gives no blank lines between paragraphs, so paragraph starts are read from the geometry of
each line's first character, and small print from each line's type size.  A PDF with no
extractable text on any page gives ``text == ""`` and no blocks: the caller reports it as
having no text layer.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterator
from typing import Any

from citeproof.documents.model import Document, DocumentMeta
from citeproof.documents.pdf_glyphs import (
    LINE_END_HYPHEN,
    Glyphs,
    join_split_lines,
    line_size,
    repair_glyphs,
    superscripts,
)
from citeproof.documents.pdf_layout import (
    Line,
    blocks_from_lines,
    body_size,
    mark_floats,
    mark_out_of_flow,
    mark_paragraph_starts,
    reading_order,
)
from citeproof.errors import DocumentError, UnsupportedFormatError

__all__ = ["parse_pdf"]

PAGE_SEPARATOR = "\n\n"
SOFT_HYPHEN = "\u00ad"
_PDFIUM_HYPHEN = LINE_END_HYPHEN
_PDFIUM_LOCK = threading.Lock()
"""pdfium is not thread-safe, not even across documents; the service may parse in threads."""

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\uffff]")
"""Control characters (C0, DEL, C1) and the noncharacter U+FFFF carry no text; tab is a
space.  A soft hyphen goes too: the reader sees the word whole, and so does a quote."""

_RANGE_AS_E = re.compile(r"(?<=\d)e(?=\d)")
_ADDRESS = re.compile(r"@|://|www\.")
_WORD = re.compile(r"[^\W\d_]+")
_RUN = re.compile(r"\w+")
_HYPHENS = re.compile(r"[-\u2010\u2011]")
_COMPOUND = re.compile(r"\w+(?:[-\u2010\u2011]\w+)+")
_DIGIT = re.compile(r"\d")
_PAGE_NUMBER = re.compile(r"\d{1,4}")
"""A furniture line that is only a page number: listed with the markers, so that a match
skips it (the matcher deletes spans of numbers it is told are markers)."""


def parse_pdf(data: bytes) -> Document:
    """Parse PDF bytes; raise UnsupportedFormatError/DocumentError for unusable files."""
    pages, n_pages, title = _extract(bytes(data))
    meta = DocumentMeta(title=title)
    resolve = _hyphen_resolver([line.raw for page in pages for line in page])
    kept_pages: list[list[Line]] = []
    for page in pages:
        kept: list[Line] = []
        for line in page:
            line.text, line.marks = _clean_marked(line.raw, resolve, line.marks)
            if line.text:
                kept.append(line)
        kept_pages.append(kept)
    every = [line for page in kept_pages for line in page]
    mark_out_of_flow(every)
    body = body_size(every)
    for page in kept_pages:
        mark_paragraph_starts(page)
        if mark_floats(page, body):
            mark_paragraph_starts(page)
    kept_pages = [reading_order(page) for page in kept_pages]
    kept_lines = [line for page in kept_pages for line in page]
    if not kept_lines:  # no text layer (a scan), or only glyphs that map to nothing
        return Document(text="", blocks=[], format="pdf", meta=meta, dehyphen=True, pages=n_pages)
    parts: list[str] = []
    markers: list[tuple[int, int]] = []
    offset = 0
    for index, page in enumerate(kept_pages):
        if index:
            offset += len(PAGE_SEPARATOR)
        for k, line in enumerate(page):
            if k:
                offset += 1
            line.start = offset
            offset += len(line.text)
            markers.extend((line.start + a, line.start + b) for a, b in line.marks)
            if line.role == "furniture" and _PAGE_NUMBER.fullmatch(line.text):
                markers.append((line.start, line.start + len(line.text)))
        parts.append("\n".join(line.text for line in page))
    return Document(
        text=PAGE_SEPARATOR.join(parts),
        blocks=blocks_from_lines(kept_lines),
        format="pdf",
        meta=meta,
        markers=tuple(sorted(markers)),
        dehyphen=True,
        pages=n_pages,
    )


# --- pdfium -------------------------------------------------------------------------


def _extract(data: bytes) -> tuple[list[list[Line]], int, str | None]:
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


def _page_lines(pdf: Any, index: int) -> list[Line]:
    page = pdf[index]
    try:
        textpage = page.get_textpage()
        try:
            raw = textpage.get_text_range()
            height = float(page.get_height())
            return list(_lines_with_geometry(textpage, raw, index + 1, height))
        finally:
            textpage.close()
    finally:
        page.close()


def _lines_with_geometry(
    textpage: Any, raw: str, page_no: int, height: float | None = None
) -> Iterator[Line]:
    """Split pdfium's page text on CRLF and read each line's geometry and type size.

    The text is repaired first (accents put back on their letters, drawn © restored, the
    line breaks pdfium put inside one printed line taken out, see ``pdf_glyphs``); geometry
    is still asked of the original glyphs, through the map the repairs return.  Per line:
    the first and last characters' boxes, the size the line is set in, and its superscript
    numbers.  This runs for every line of every page, so it samples a few glyphs per line
    rather than reading all of them.
    """
    glyphs = Glyphs(textpage, raw)
    text, positions = repair_glyphs(raw, glyphs)
    text, positions = join_split_lines(text, glyphs, positions)

    def box(i: int) -> tuple[float, float, float, float] | None:
        return glyphs.loose_box(positions[i] if positions is not None else i)

    pos = 0
    for raw_line in text.split("\r\n"):
        line = Line(raw=raw_line, page=page_no, page_height=height)
        body = raw_line.rstrip()
        if body:
            if (last := box(pos + len(body) - 1)) is not None:
                line.last_bottom, line.right = last[1], last[2]
            if (first := box(pos + len(body) - len(body.lstrip()))) is not None:
                line.left, line.first_bottom = first[0], first[1]
            line.size = line_size(raw_line, pos, glyphs, positions)
            if _DIGIT.search(raw_line):
                marks = superscripts(raw_line, pos, glyphs, positions, line.size)
                line.raw, line.marks = _set_apart(raw_line, marks)
        pos += len(raw_line) + 2
        yield line


def _set_apart(line: str, marks: list[tuple[int, int]]) -> tuple[str, list[tuple[int, int]]]:
    """A line's superscript numbers as a reader takes them: a blank after one that touches
    the next word (``habits.²⁴In the past``: pdfium sees no gap, the reader sees two words),
    and the en dash of a range that the font maps to ``e`` (``³⁶e³⁸``) written as one."""
    if not marks:
        return line, marks
    parts: list[str] = []
    moved: list[tuple[int, int]] = []
    done = shift = 0
    for a, b in marks:
        number = _RANGE_AS_E.sub("\u2013", line[a:b])
        parts += [line[done:a], number]
        moved.append((a + shift, b + shift))
        done = b
        if b < len(line) and line[b].isalpha() and not line[b + 1 : b + 2].isdigit():
            parts.append(" ")
            shift += 1
    parts.append(line[done:])
    return "".join(parts), moved


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


def _run_around(line: str, start: int, end: int) -> str:
    """The blank-free run of ``line`` that holds ``line[start:end]``."""
    return line[line.rfind(" ", 0, start) + 1 : len(line) if (e := line.find(" ", end)) < 0 else e]


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
    lowered = "\n".join(raw_lines).lower().replace(SOFT_HYPHEN, "")
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


def _clean_marked(
    raw: str, resolve: dict[tuple[str, str], str], spans: list[tuple[int, int]]
) -> tuple[str, list[tuple[int, int]]]:
    """One line as it goes into Document.text (markers resolved, controls gone, trimmed),
    with ``spans`` of ``raw`` (superscripts) carried over to the cleaned line.

    Resolving hyphen markers keeps every position; removing control characters (and the
    soft hyphens that stand for a joined word) and trimming shift them, so the spans are
    moved by the characters dropped before them.  A hyphen at a line end inside an
    address (``alireza@uni-tuebingen.de``, a URL) is kept: addresses are broken only at
    their own hyphens.
    """
    if _PDFIUM_HYPHEN in raw:
        parts, done = [], 0
        for start, end in _marked_tokens(raw):
            pieces = raw[start:end].split(_PDFIUM_HYPHEN)
            joined = [pieces[0]]
            address = _ADDRESS.search(_run_around(raw, start, end)) is not None
            for left, right in itertools.pairwise(pieces):
                joined += ["-" if address else resolve.get((left, right), "-"), right]
            parts += [raw[done:start], "".join(joined)]
            done = end
        raw = "".join([*parts, raw[done:]])
    kept: list[int] | None = None
    if _CONTROL.search(raw):
        raw = raw.replace("\t", " ")
        if spans:
            kept = list(itertools.accumulate((not _CONTROL.match(ch) for ch in raw), initial=0))
        raw = _CONTROL.sub("", raw)
    text = raw.strip()
    if not spans:
        return text, []
    lead = len(raw) - len(raw.lstrip())
    moved = []
    for a, b in spans:
        if kept is not None:
            a, b = kept[a], kept[b]
        a, b = max(a - lead, 0), min(b - lead, len(text))
        if a < b:
            moved.append((a, b))
    return text, moved
