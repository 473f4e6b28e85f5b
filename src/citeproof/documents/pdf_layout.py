"""Layout reasoning for PDF text: paragraphs, page furniture, headings, regions, sections.

pdfium hands over lines, where their first and last characters sit and the size they are
set in, nothing more: no blank lines between paragraphs, no notion of a heading, a running
head or a footnote.  Everything a Document says about structure is therefore a guess from
geometry, type size and wording, and the guesses are kept here, apart from the pdfium
calls, so they can be read, tested and tuned on plain ``Line`` values without opening a
PDF.  They err towards saying less: a block cut too finely or a heading not recognised
costs a little context in a report, while a wrong region or section would misplace a
match.
"""

from __future__ import annotations

import itertools
import re
import statistics
from dataclasses import dataclass, field

from citeproof.documents.model import Block, Region

__all__ = [
    "Line",
    "blocks_from_lines",
    "body_size",
    "line_pitch",
    "mark_floats",
    "mark_out_of_flow",
    "mark_paragraph_starts",
    "reading_order",
]

_ABSTRACT_CAP = 6000
"""Characters after which an abstract that no heading ended is taken to be over."""

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
    _NUM + r"(?:appendix(?:\s+[A-Z0-9]{1,3})?(?:\s*[:.\-\u2013\u2014]\s*[A-Z][^,;()]{0,60})?"
    r"|appendices|supplementary\s+(?:materials?|information|data)|supporting\s+information)" + _END,
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
class Line:
    """One pdfium line (several physical lines when pdfium joined a hyphenated break).

    ``pdf`` fills in the text and geometry (``raw`` to ``start``); ``mark_paragraph_starts``
    sets ``para_start`` and ``gap_before``, ``mark_out_of_flow`` sets ``role``, and
    ``blocks_from_lines`` reads them all.
    """

    raw: str
    page: int
    left: float | None = None
    first_bottom: float | None = None
    last_bottom: float | None = None
    right: float | None = None
    page_height: float | None = None
    size: float | None = None
    """The font size the line is set in (effective points; None when unknown)."""
    marks: list[tuple[int, int]] = field(default_factory=list)
    """Superscript note or citation numbers, as spans of ``raw`` until ``pdf`` cleans the
    line, then of ``text``."""
    text: str = ""
    start: int = 0
    para_start: bool = False
    gap_before: float = 0.0
    """Space above the line in units of the page's line pitch (0 when unknown)."""
    role: str | None = None
    """Set for lines outside the text flow: ``furniture`` (running heads, page numbers),
    ``footnote``, ``sidebar`` (page one's boxed author notes and licence, or its side
    column of affiliations), and for floats ``caption``, ``table`` (cells) and ``figure``
    (a figure's labels)."""


# --- layout: paragraph starts from geometry ------------------------------------------


def mark_paragraph_starts(page: list[Line]) -> None:
    """Mark paragraph starts on one page from first-line indents, hanging indents and gaps.

    pdfium gives no blank lines, so the only evidence is where lines begin: a line set in
    from the lines around it starts a paragraph; a line set out from the two lines after
    it starts a hanging-indent item (reference entries, lists); extra space above a line
    (over 1.6 line pitches) starts a new block.  Centred or ragged text (titles, tables)
    may be cut more finely than it should; that only makes blocks smaller.  Lines outside
    the text flow (``mark_out_of_flow``, which runs first) are left out of the geometry, so
    a running head above the page's first line does not make it a paragraph start; a note
    that opens with its number starts one, so that each footnote is a block of its own.
    """
    for line in page:
        if line.role is not None and _opens_note(line):
            line.para_start = True
    lines = [line for line in page if line.role is None]
    for line in lines:
        line.para_start, line.gap_before = False, 0.0
    pitch = line_pitch(lines)
    tol, wide = 0.35 * pitch, 3.0 * pitch

    def follows(a: Line | None, b: Line | None) -> bool:
        """``b`` comes right under ``a`` in the same column."""
        if a is None or b is None or a.last_bottom is None or b.first_bottom is None:
            return False
        if a.left is None or b.left is None:
            return False
        drop = a.last_bottom - b.first_bottom
        return 0.0 < drop < 2.5 * pitch and abs(a.left - b.left) < wide

    def left(line: Line | None) -> float:
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


def line_pitch(lines: list[Line]) -> float:
    """The usual drop from one line to the next (12 points when the lines do not say)."""
    deltas = [
        a.last_bottom - b.first_bottom
        for a, b in itertools.pairwise(lines)
        if a.last_bottom is not None
        and b.first_bottom is not None
        and 2.0 < a.last_bottom - b.first_bottom < 50.0
    ]
    return statistics.median(deltas) if deltas else 12.0


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

    def accept(self, line: Line) -> tuple[str, ...] | None:
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


def _furniture(lines: list[Line]) -> set[int]:
    """Indices of running heads and feet: a top or bottom line repeated on many pages.

    A page's edge lines are its first two and last two in pdfium's order and its two
    highest and two lowest on the page (pdfium may read page one's head amid its columns).
    Digits are ignored when comparing, so ``84`` ... ``91`` and ``Page 2 of 9`` repeat; but
    only a page number may change from page to page, so of a repeated line's numbers at
    most one may differ between its pages, and that one must go up with the page (``84`` on
    page 1, ``86`` on page 3).  Reference entries that differ only in their numbers
    (``12. Smith J ... 2019;3:45.``) are not running heads, however alike they look; nor is
    a line set at the size and the line pitch of the line next to it, inside the text.
    These lines never count as headings.  A top or bottom line that is part of such a
    repeated line is furniture too: page one carries the running head without its page
    number (``Agyeman-Duah et al. BMC ... 2014, 14:1`` where later pages add ``Page 2 of
    10``), or the journal's name alone.
    """
    by_page: dict[int, list[int]] = {}
    for i, line in enumerate(lines):
        by_page.setdefault(line.page, []).append(i)
    seen: dict[str, list[int]] = {}
    edge: dict[int, str] = {}
    for indices in by_page.values():
        for i in _edges(lines, indices):
            key = _DIGITS.sub("#", lines[i].text)
            edge[i] = key
            seen.setdefault(key, []).append(i)
    need = max(2, -(-len(by_page) // 4))
    candidates = {key: _running(lines, found) for key, found in seen.items()}
    candidates = {
        key: running
        for key, running in candidates.items()
        if len({lines[i].page for i in running}) >= need
    }
    alike = {i for running in candidates.values() for i in running}
    out: set[int] = set()
    repeated: set[str] = set()
    for key, running in candidates.items():
        apart = [i for i in running if not _in_text(lines, by_page[lines[i].page], i, alike)]
        if len({lines[i].page for i in apart}) >= need:
            repeated.add(key)
            out.update(apart)
    long_keys = [key.strip(" #") for key in repeated if len(key.strip(" #")) >= 16]
    for i, key in edge.items():
        bare = key.strip(" #")
        if i not in out and len(bare) >= 16 and any(bare in k for k in long_keys):
            out.add(i)
    return out


_DIGITS = re.compile(r"\d+")
_NUMBER_ONLY = re.compile(r"\d{1,4}")


def _edges(lines: list[Line], indices: list[int]) -> set[int]:
    """A page's first two and last two lines, in pdfium's order and by height."""
    placed = sorted(
        (i for i in indices if lines[i].first_bottom is not None),
        key=lambda i: lines[i].first_bottom or 0.0,
    )
    return {*indices[:2], *indices[-2:], *placed[:2], *placed[-2:]}


def _running(lines: list[Line], found: list[int]) -> list[int]:
    """Of the edge lines that read alike (``found``), those that are one running line: the
    same numbers on every page, or all the same but one that goes up with the page.  Lines
    that are a number and nothing else (page numbers, a manuscript's line numbers in the
    margin) are all running lines: no text is only a number."""
    numbers = [_DIGITS.findall(lines[i].text) for i in found]
    varying = [k for k in range(len(numbers[0])) if len({n[k] for n in numbers}) > 1]
    if not varying or all(_NUMBER_ONLY.fullmatch(lines[i].text) for i in found):
        return found
    if len(varying) > 1:
        return []
    k = varying[0]
    by_offset: dict[int, list[int]] = {}
    for i, n in zip(found, numbers, strict=True):
        by_offset.setdefault(int(n[k]) - lines[i].page, []).append(i)
    return max(by_offset.values(), key=lambda group: len({lines[i].page for i in group}))


def _in_text(lines: list[Line], page: list[int], i: int, outside: set[int]) -> bool:
    """Whether edge line ``i`` is set like the text next to it: the nearest other line
    inward (below a line in the page's upper half, above one in its lower half) is within
    1.15 line pitches and set at the same size."""
    line = lines[i]
    if line.first_bottom is None or line.size is None:
        return False
    upper = line.page_height is not None and line.first_bottom > line.page_height / 2
    others = [
        lines[j]
        for j in page
        if j not in outside and lines[j].first_bottom is not None and lines[j] is not line
    ]
    inward = [
        o
        for o in others
        if o.first_bottom is not None
        and (o.first_bottom < line.first_bottom if upper else o.first_bottom > line.first_bottom)
    ]
    if not inward:
        return False
    near = min(inward, key=lambda o: abs((o.first_bottom or 0.0) - (line.first_bottom or 0.0)))
    if near.size is None or abs(near.size - line.size) > 0.05 * line.size:
        return False
    pitch = line_pitch([lines[j] for j in page])
    return abs((near.first_bottom or 0.0) - line.first_bottom) < 1.15 * pitch


def body_size(lines: list[Line]) -> float | None:
    """The font size most of the text is set in (by characters), to tell small print."""
    weight: dict[float, int] = {}
    for line in lines:
        if line.size is not None:
            key = round(line.size, 1)
            weight[key] = weight.get(key, 0) + len(line.text)
    return max(weight, key=lambda k: weight[k]) if weight else None


_NOTE_MARK = "*\u2020\u2021\u00a7\u00b6"
"""Symbols that open a footnote or an author note (* † ‡ § ¶)."""
_NOTE_NUMBER = re.compile(r"\d{1,3}")
_NOTES_FROM_BOTTOM = 0.3
"""Notes start in the lowest part of the page: footnotes, page one's boxed notes."""
_SMALL = 0.88
"""Small print is set at most this fraction of the body size (notes: 0.8-0.82 typically)."""


def _small(line: Line, body: float | None) -> bool:
    return body is not None and line.size is not None and line.size <= _SMALL * body


def _low(line: Line) -> bool:
    """In the lower part of the page, where notes are set (``_NOTES_FROM_BOTTOM``)."""
    if line.page_height is None or line.first_bottom is None:
        return True
    return line.first_bottom <= _NOTES_FROM_BOTTOM * line.page_height


def _opens_note(line: Line) -> bool:
    return bool(line.marks and line.marks[0][0] == 0) or line.text[:1] in _NOTE_MARK


def _notes(page: list[Line], body: float | None) -> set[int]:
    """Indices (into ``page``) of its notes: small print at the foot of a column.

    A note block is a run of small-print lines in the lowest part of the page whose first
    line opens with a superscript number or a note symbol (or is the number alone, when
    pdfium put the raised number on a line of its own), with no heading in it, and which
    ends the page or a column: after it comes a line higher up (the top of the next
    column), furniture or nothing.
    """
    out: set[int] = set()
    flow = [i for i, line in enumerate(page) if line.role is None]
    k = 0
    while k < len(flow):
        first = page[flow[k]]
        alone = _NOTE_NUMBER.fullmatch(first.text) and k + 1 < len(flow)  # pdfium split it off
        if not (_small(first, body) and (_opens_note(first) or alone) and _low(first)):
            k += 1
            continue
        j = k
        while (
            j + 1 < len(flow)
            and _small(page[flow[j + 1]], body)
            and _heading_role(page[flow[j + 1]].text) is None
        ):
            j += 1
        after = page[flow[j + 1]] if j + 1 < len(flow) else None
        if (
            after is None
            or after.first_bottom is None
            or first.first_bottom is None
            or after.first_bottom > first.first_bottom
        ):
            out.update(flow[k : j + 1])
        k = j + 1
    return out


def mark_out_of_flow(lines: list[Line]) -> None:
    """Set ``role`` on the lines that are not part of the text flow.

    Furniture (running heads and feet, page numbers) from repetition across pages; notes
    from small print at the foot of a column (see ``_notes``).  On page one such notes are
    the boxed author notes, correspondence and licence beside the article (``sidebar``),
    elsewhere footnotes; so is a side column of affiliations set beside page one's text
    (``_side_column``).  Floats are marked per page, later (``mark_floats``).
    """
    for i in _furniture(lines):
        lines[i].role = "furniture"
    body = body_size(lines)
    by_page: dict[int, list[Line]] = {}
    for line in lines:
        by_page.setdefault(line.page, []).append(line)
    first_page = min(by_page, default=1)
    for page_no, page in by_page.items():
        for i in _notes(page, body):
            page[i].role = "sidebar" if page_no == first_page else "footnote"
    for i in _side_column(by_page.get(first_page, []), body):
        by_page[first_page][i].role = "sidebar"


_AFFILIATION = re.compile(
    r"(?:\W{0,2}\d{0,2}\s*)(?:department|university|institute|hospital|school|faculty|college"
    r"|cent(?:re|er)|laboratory|division|unit|clinic|correspondence|e-?mail|affiliations?"
    r"|author details|received|accepted|published|citation|copyright|edited by|reviewed by"
    r"|academic editor|\u00a9)",
    re.I,
)
"""How a line of page one's side column of author notes begins (after a note number)."""


def _side_column(page: list[Line], body: float | None) -> set[int]:
    """Indices (into page one) of a side column of author notes read amid the text.

    Some layouts set affiliations, correspondence and dates in a narrow column beside page
    one's text, from high on the page; pdfium reads it wherever the content stream has
    it, often inside the abstract or the first paragraph.  Such a column is a run of
    small-print lines that opens like an author note (a superscript number, a note
    symbol, or words such as Department, University, Correspondence, Received), with no
    heading in it, and that sits beside the text: lines set at the body size share its
    height on the page but none of them shares its width.
    """
    out: set[int] = set()
    flow = [i for i, line in enumerate(page) if line.role is None]
    text = [page[i] for i in flow if not _small(page[i], body) and page[i].left is not None]
    k = 0
    while k < len(flow):
        j = k
        while (
            j < len(flow)
            and _small(page[flow[j]], body)
            and _heading_role(page[flow[j]].text) is None
        ):
            j += 1
        run = [page[i] for i in flow[k:j]]
        if run and _opens_side_note(run[0]) and _beside(run, text):
            out.update(flow[k:j])
        k = max(j, k + 1)
    return out


def _opens_side_note(line: Line) -> bool:
    return _opens_note(line) or bool(_AFFILIATION.match(line.text))


def _beside(run: list[Line], text: list[Line]) -> bool:
    """Whether ``run`` is a column of its own beside body-size ``text`` lines."""
    if any(line.left is None or line.right is None or line.first_bottom is None for line in run):
        return False
    top = max(line.first_bottom or 0.0 for line in run)
    bottom = min(min(line.first_bottom or 0.0, line.last_bottom or 0.0) for line in run)
    left = min(line.left or 0.0 for line in run)
    right = max(line.right or 0.0 for line in run)
    level = [
        t
        for t in text
        if t.first_bottom is not None and t.right is not None and bottom <= t.first_bottom <= top
    ]
    return bool(level) and all(
        (t.left or 0.0) >= right - 1.0 or (t.right or 0.0) <= left + 1.0 for t in level
    )


# --- floats: tables and figures with their captions -----------------------------------

_CAPTION = re.compile(
    r"(?:Table|TABLE|Figure|FIGURE|Fig\.|FIG\.|Scheme|Chart)\s?[A-Z]?\d{1,3}[a-z]?"
    r"(?:\s*[:.|]\s*\S|\s+\(?[A-Z\u00c0-\u00de])"
)
"""A caption's first line: ``Table 1: Results``, ``Fig. 1 Multi-contact``, ``Table 2
Overview``; not prose that names a float (``Table 2 shows``, ``Fig. 1). The``)."""
_TABLE_CAPTION = re.compile(r"Table|TABLE")
_FLOAT_MAX = 60
"""Lines a table or figure's own text (cells, labels) may have on one page."""


def _break_above(line: Line) -> bool:
    """Space above the line, or the line starts a new column or block (higher up)."""
    return line.gap_before > 1.6 or line.gap_before < -1.0


def mark_floats(page: list[Line], body: float | None) -> bool:
    """Set ``role`` on one page's floats: ``caption``, and ``table`` or ``figure`` for the
    text a table or figure has of its own (cells, labels); True when there are any.

    A float is set apart from the text by space, so it is found from its caption: a line
    that opens like one (``_CAPTION``) with space above it or at the top of a column or
    block, and the lines that go on from it in the same size.  The float's own text is the
    run of lines between the caption and the space on its other side (above it for a
    caption under its table or figure, below it for one over its table), when those lines
    read like cells or labels rather than prose: most are small print, or hold a number,
    or are short, and none has many words.  Those lines are kept as they are; a run of
    prose is never taken in.  ``mark_paragraph_starts`` must have run on the page;
    run it again after this, so that the text around a float reads as if it were not
    there.
    """
    flow = [line for line in page if line.role is None]
    widths = sorted((x.right or 0.0) - (x.left or 0.0) for x in flow if x.left is not None)
    width = widths[len(widths) // 2] if widths else 0.0
    found = False
    k = 0
    while k < len(flow):
        if not _opens_caption(flow, k):
            k += 1
            continue
        j = _caption_end(flow, k)
        cells = _cells_above(flow, k, body, width) if flow[k].gap_before >= -_COLUMN else []
        cells += _cells_below(flow, j, body, width)
        _mark_float(flow[k : j + 1], cells)
        found = True
        k = j + 1
    return found


def _opens_caption(flow: list[Line], k: int) -> bool:
    """Whether ``flow[k]`` opens a caption: it reads like one, with space above it, or at
    the top of a column or block, or right after another float."""
    line = flow[k]
    opens = k == 0 or _break_above(line) or flow[k - 1].role in _FLOATS
    return bool(_CAPTION.match(line.text)) and opens


def _caption_end(flow: list[Line], k: int) -> int:
    """The last line of the caption ``flow[k]`` opens: the lines that go on from it, close
    below and in its size (a dozen at most)."""
    size = flow[k].size
    j = k
    while (
        j + 1 < len(flow)
        and j - k < 12
        and 0.0 < flow[j + 1].gap_before <= 1.6
        and not flow[j + 1].para_start
        and not _size_changed(flow[j + 1], size)
    ):
        j += 1
    return j


def _cells_below(flow: list[Line], j: int, body: float | None, width: float) -> list[Line]:
    """The text of the table or figure under the caption that ends at ``flow[j]``: the
    block below it, when it reads like cells or labels."""
    after = j + 1
    while after < len(flow) and after - j <= _FLOAT_MAX:
        if after > j + 1 and _break_above(flow[after]):
            break
        after += 1
    if after > j + 1 and _tabular(flow[j + 1 : after], body, width):
        return flow[j + 1 : after]
    return []


def _mark_float(captions: list[Line], cells: list[Line]) -> None:
    """Set the roles of one float's caption lines and of its own text, each starting a
    paragraph of its own."""
    for n, caption in enumerate(captions):
        caption.role, caption.para_start = "caption", n == 0
    kind = "table" if _TABLE_CAPTION.match(captions[0].text) else "figure"
    for n, cell in enumerate(cells):
        cell.role, cell.para_start = kind, n == 0


_COLUMN = 5.0
"""A line this many line pitches above the one before it starts a column (or page)."""


def _cells_above(flow: list[Line], k: int, body: float | None, width: float) -> list[Line]:
    """The text of the table or figure above the caption at ``flow[k]``.

    Going up from the caption, block by block (a block starts with space above it, or
    higher up than the line before: a figure's labels are scattered), each block that reads
    like cells or labels is taken in, up to the top of the column the float opens.
    """
    start = k
    while start > 0 and k - start < _FLOAT_MAX:
        top = start - 1
        while top > 0 and flow[top].role is None and not _break_above(flow[top]):
            top -= 1
        if flow[top].role is not None or not _tabular(flow[top:start], body, width):
            break
        start = top
        if top == 0 or flow[top].gap_before < -_COLUMN:
            break
    return flow[start:k]


def _tabular(run: list[Line], body: float | None, width: float) -> bool:
    """Whether lines read like a table's cells or a figure's labels, not prose."""
    if not run:
        return False
    words = [len(_WORDS.findall(line.text)) for line in run]
    if max(words) > 8:
        return False
    cell_like = sum(
        _small(line, body)
        or any(ch.isdigit() for ch in line.text)
        or (line.right or 0.0) - (line.left or 0.0) < 0.6 * width
        for line in run
    )
    return cell_like >= 0.75 * len(run)


_WORDS = re.compile(r"[^\W\d_]{2,}")


_SENTENCE_END = re.compile(r"[.!?:;)\]\"\u201d\u2019']$")


def reading_order(page: list[Line]) -> list[Line]:
    """One page's lines with those outside the text flow moved to a paragraph break.

    pdfium reads a page in the order of its content stream, so a running head, a
    footnote, a page number or a float sits between the last words of one page (or
    column) and the first of the next, or amid a column, in the middle of any sentence
    that crosses it.  Moving them to a paragraph break (space above a line, a paragraph
    start after a line that ends a sentence, a known heading) lets that sentence read on,
    while every line stays on its page: furniture, notes and sidebars go to the page's
    first break, a float to the first break after it (the end of the paragraph it
    interrupts) or, when the page has none, the last one before it.  A page with no such
    break keeps pdfium's order.
    """
    flow = [line for line in page if line.role is None]
    if len(flow) == len(page) or not flow:
        return page
    breaks = [
        k
        for k, line in enumerate(flow)
        if (
            line.para_start
            and (k == 0 or line.gap_before > 1.6 or _SENTENCE_END.search(flow[k - 1].text))
        )
        or _heading_role(line.text) is not None
    ]
    if not breaks:
        return page
    placed: dict[int, list[Line]] = {}
    read = 0
    for line in page:
        if line.role is None:
            read += 1
            continue
        target = breaks[0]
        if line.role in _FLOATS:
            later = [k for k in breaks if k >= read]
            target = later[0] if later else max(k for k in breaks if k <= read)
        placed.setdefault(target, []).append(line)
    out: list[Line] = []
    for k, line in enumerate(flow):
        out += placed.get(k, [])
        out.append(line)
    return out


_FLOATS = frozenset({"caption", "table", "figure"})


@dataclass(slots=True)
class _Tag:
    kind: str
    region: Region
    section: tuple[str, ...]


_OUTSIDE: dict[str, tuple[str, Region]] = {
    "furniture": ("furniture", "other"),
    "footnote": ("footnote", "footnote"),
    "sidebar": ("paragraph", "front-matter"),
    "caption": ("caption", "caption"),
    "table": ("cell", "table"),
    "figure": ("figure", "other"),
}
_ABSTRACT_MIN = 400
"""Characters a block needs to be taken for an abstract that has no heading."""
_NOT_ABSTRACT = re.compile(
    r"(?:copyright|\u00a9|received|accepted|correspondence|keywords?|academic editor"
    r"|citation|published|e-?mail)\b",
    re.I,
)
_SIZE_CHANGE = 0.06
"""A paragraph set this much larger or smaller than the abstract is no longer abstract."""


def _unheaded_abstract(lines: list[Line], roles: list[str | None]) -> int:
    """Where page one's abstract starts when it has no heading, or -1.

    With no Abstract heading, the front matter (title, authors, affiliations, dates,
    licence) runs to the first section heading of page one, and the last paragraph before
    that heading is the abstract when it is long prose (``_ABSTRACT_MIN``), not a licence
    or correspondence line (``Objectives. Patient experiences of ...`` above ``1. Intro``).
    """
    first = next((i for i, line in enumerate(lines) if line.page == 1 and roles[i] == "body"), None)
    if first is None:
        return -1
    flow = [i for i in range(first) if lines[i].role is None]
    starts = [i for i in flow if lines[i].para_start]
    if not starts:
        return -1
    at = starts[-1]
    text = " ".join(lines[i].text for i in flow if i >= at)
    if len(text) < _ABSTRACT_MIN or _NOT_ABSTRACT.match(text) or not text[:1].isupper():
        return -1
    return at


_LETTERED = re.compile(r"[A-H](?:\.\d{1,2})*\.?\s+[A-Z][^,;()]{2,60}")


def _starts_appendix(line: Line, role: str | None, reference_sizes: list[float]) -> bool:
    """A heading that starts an appendix after the references.

    ``Appendix A``, ``A Appendix A - Baseline Details``; or a lettered title (``A Baseline
    Details``) with space above it, set larger than the reference entries before it.
    """
    if role == "appendix":
        return True
    if not line.para_start or line.size is None or not reference_sizes:
        return False
    if not _LETTERED.fullmatch(line.text) or line.text.endswith("."):
        return False
    return line.size >= 1.05 * statistics.median(reference_sizes)


def blocks_from_lines(lines: list[Line]) -> list[Block]:
    """Tag each line with kind, region and section, then group lines into blocks.

    Regions: text on page 1 before an Abstract heading is front-matter; an Abstract
    heading (or a line opening ``Abstract:``) starts the abstract, which ends at the next
    heading, at a paragraph set in another size (an introduction with no heading), or after
    ``_ABSTRACT_CAP`` characters; with no Abstract heading, the long paragraph right above
    page one's first section heading is the abstract (``_unheaded_abstract``).  A Keywords
    paragraph is front-matter; the last references heading starts references, which run
    to the end or to a heading that starts an appendix (back-matter); Acknowledgements,
    Funding, Competing interests and the like are back-matter until the next body
    heading; everything else is body.  Lines outside the text flow (``Line.role``) are
    furniture (``other``), footnotes or page one's sidebar (front-matter), and change no
    section.  Sections come from known unnumbered headings (Introduction, Methods ...) and
    from numbered headings that continue the numbering; nothing else is guessed.
    """
    roles = [None if line.role else _heading_role(line.text) for line in lines]
    tagger = _Tagger(lines, roles)
    return _group(lines, [tagger.tag(i, line) for i, line in enumerate(lines)])


def _abstract_start(lines: list[Line], roles: list[str | None]) -> int:
    """The line where the abstract starts: an Abstract heading or a line opening
    ``Abstract:`` on the first two pages, else the unheaded abstract; -1 when none."""
    at = next(
        (
            i
            for i, line in enumerate(lines)
            if line.page <= 2
            and line.role is None
            and (roles[i] == "abstract" or _ABSTRACT_INLINE.match(line.text))
        ),
        -1,
    )
    return at if at >= 0 else _unheaded_abstract(lines, roles)


@dataclass(slots=True)
class _Tagger:
    """The region and section as the lines are read in order (the rules are
    :func:`blocks_from_lines`'), one small step per kind of line."""

    lines: list[Line]
    roles: list[str | None]
    refs_at: int = -1
    abstract_at: int = -1
    region: Region = "body"
    section: tuple[str, ...] = ()
    numbering: _Numbering = field(default_factory=_Numbering)
    abstract_start: int = 0
    abstract_size: float | None = None
    keywords: bool = False
    """Inside the Keywords paragraph (front-matter, whatever the region around it)."""
    reference_sizes: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        roles, lines = self.roles, self.lines
        self.refs_at = max((i for i, r in enumerate(roles) if r == "references"), default=-1)
        self.abstract_at = _abstract_start(lines, roles)
        if self.abstract_at > 0 and lines[self.abstract_at].page == 1:
            self.region = "front-matter"

    def tag(self, i: int, line: Line) -> _Tag:
        if line.role is not None:
            kind, outside = _OUTSIDE[line.role]
            return _Tag(kind, outside, self.section)
        role = self.roles[i]
        self.keywords = (
            self.keywords
            and not line.para_start
            and role is None
            and i > 0
            and line.page == self.lines[i - 1].page
        )
        heading, line_region = self._step(i, line, role)
        if self.region == "abstract" and not heading and self.abstract_size is None:
            self.abstract_size = line.size
        return _Tag("heading" if heading else "paragraph", line_region or self.region, self.section)

    def _step(self, i: int, line: Line, role: str | None) -> tuple[bool, Region | None]:
        """Region and section moved on by line ``i``: whether it is a heading, and the region
        of this line alone (a Keywords line), if it has one."""
        if i == self.refs_at:
            self.region, self.section = "references", (_plain_title(line.text),)
            return True, None
        if i == self.abstract_at:
            self.region, self.section = "abstract", ("Abstract",)
            self.abstract_start = line.start
            return role == "abstract", None
        if self.region == "front-matter" and self.abstract_at > i:
            return False, None  # title, authors and affiliations: no headings here
        if self.region == "references":
            return self._in_references(line, role), None
        if role is not None:
            return self._titled(line, role), None
        return self._untitled(line)

    def _in_references(self, line: Line, role: str | None) -> bool:
        """A reference entry, or the heading of an appendix after them."""
        if _starts_appendix(line, role, self.reference_sizes):
            self.region, self.section = "back-matter", (_plain_title(line.text),)
            return True
        if line.size is not None:
            self.reference_sizes.append(line.size)
        return False

    def _titled(self, line: Line, role: str) -> bool:
        """A known heading: back-matter (appendix, acknowledgements ...), else a body section."""
        title = _plain_title(line.text)
        if role in ("appendix", "back"):
            self.region, self.section = "back-matter", (title,)
        else:
            self.region, self.section = "body", (title,)
            self.numbering.known(line.text, title)
        return True

    def _untitled(self, line: Line) -> tuple[bool, Region | None]:
        """A Keywords line, a numbered heading, or where an abstract without an end ends."""
        if _KEYWORDS.fullmatch(line.text):
            self.keywords = True
            if self.region == "abstract":
                self.region, self.section = "body", ()
            return False, "front-matter"
        if self.keywords:
            return False, "front-matter"  # the Keywords paragraph's second line
        numbered = self.numbering.accept(line)
        if numbered is not None:
            self.region, self.section = "body", numbered
            return True, None
        if self.region == "abstract" and (
            line.start - self.abstract_start > _ABSTRACT_CAP
            or (line.para_start and _size_changed(line, self.abstract_size))
        ):
            self.region, self.section = "body", ()
        return False, None


def _size_changed(line: Line, size: float | None) -> bool:
    if size is None or line.size is None:
        return False
    return abs(line.size - size) > _SIZE_CHANGE * size


def _group(lines: list[Line], tags: list[_Tag]) -> list[Block]:
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
