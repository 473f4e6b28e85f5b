"""What pdfium's character API says about single glyphs, and what the page text leaves out.

pdfium's page text is one string.  Its character API also says, for each glyph, where it
is drawn (box, baseline origin) and how large it is set, and three things a reader sees are
only recoverable from that:

* **Spacing accents.**  TeX and some other typesetters draw an accent (¨ ˝ ´ ...) as a glyph
  of its own over the letter.  pdfium maps it to the spacing character and places it by
  position, often at the end of the line: ``Erdos such that ... are labeled ˝``.  The accent
  is put back on the letter it is drawn over, as the combining mark composed (NFC), and the
  spacing glyph and the blanks pdfium generated around it are dropped: ``Erdős ... labeled``.
* **Drawn symbols.**  LaTeX's ``\\copyright`` is a ``c`` inside a circle from a symbol font
  that maps to no character (pdfium gives U+000D, which the text cleaning drops, leaving a
  bare ``c``).  A ``c`` (``R``) inside such a glyph is the sign ``©`` (``®``).
* **Superscripts.**  A run of digits set clearly smaller than its line, on a raised baseline,
  is a note or citation number (``one billion.⁴ Many``).  Its span is reported so that the
  Document lists it among its markers, which a match skips whether or not the quote has it.

Sizes are effective sizes: pdfium's font size times the vertical scale of the glyph's text
matrix, because many PDFs set all text at size 1 and scale it with the matrix (where
``FPDFText_GetFontSize`` alone says 1.0 for every glyph).  Everything here only reads a
text page that ``pdf`` opened; pdfium itself is never called outside its lock.
"""

from __future__ import annotations

import ctypes
import itertools
import math
import re
import statistics
import unicodedata
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = [
    "LINE_END_HYPHEN",
    "Glyphs",
    "join_split_lines",
    "line_size",
    "repair_glyphs",
    "superscripts",
]

SPACING_ACCENTS: dict[str, str] = {
    "\u00a8": "\u0308",  # diaeresis
    "\u02dd": "\u030b",  # double acute
    "\u00b4": "\u0301",  # acute
    "\u0060": "\u0300",  # grave
    "\u02c6": "\u0302",  # circumflex
    "\u02dc": "\u0303",  # tilde
    "\u00af": "\u0304",  # macron
    "\u02d8": "\u0306",  # breve
    "\u02d9": "\u0307",  # dot above
    "\u02da": "\u030a",  # ring above
    "\u02c7": "\u030c",  # caron
    "\u00b8": "\u0327",  # cedilla
    "\u02db": "\u0328",  # ogonek
}
"""Spacing accents pdfium reports for an accent drawn as its own glyph, and the combining
mark each stands for."""
_BELOW = frozenset("\u00b8\u02db")
_CIRCLED = {"c": "\u00a9", "C": "\u00a9", "R": "\u00ae"}
_NEEDS_REPAIR = re.compile("[" + "".join(SPACING_ACCENTS) + "]|\r(?!\n)")

SUPERSCRIPT_SIZE = 0.8
"""A superscript is set at most this fraction of its line's size (TeX: 0.7, Word: 0.65)."""
SUPERSCRIPT_RISE = 0.15
"""... with its baseline at least this fraction of the line's size above the line's."""
_DIGITS = re.compile(r"\d+")
_EXPONENT_BEFORE = frozenset("0123456789-+^\u2212")
_UNIT_BEFORE_SQUARE = frozenset("ms")


class Glyphs:
    """Geometry and size of the glyphs of one pdfium text page, by index into its text.

    ``text`` is the page's ``get_text_range()``; its indices are Python (code point)
    positions, while pdfium counts UTF-16 units, so a page with astral characters is
    shifted through a prefix table built once.
    """

    def __init__(self, textpage: Any, text: str) -> None:
        import pypdfium2.raw as pdfium_c

        self._c = pdfium_c
        self._handle = textpage.raw
        self._shift: list[int] | None = None
        if text and max(text) > "\uffff":
            self._shift = list(itertools.accumulate((ord(ch) > 0xFFFF for ch in text), initial=0))
        self._rect = pdfium_c.FS_RECTF()
        self._matrix = pdfium_c.FS_MATRIX()
        self._d = [ctypes.c_double() for _ in range(4)]

    def _char(self, i: int) -> int:
        if self._shift is not None:
            i += self._shift[i]
        return int(self._c.FPDFText_GetCharIndexFromTextIndex(self._handle, i))

    def loose_box(self, i: int) -> tuple[float, float, float, float] | None:
        """(left, bottom, right, top) of the glyph's box from the font's ascent and descent:
        the same height for every glyph of a font, so bottoms compare across lines."""
        c = self._char(i)
        if c < 0 or not self._c.FPDFText_GetLooseCharBox(self._handle, c, ctypes.byref(self._rect)):
            return None
        r = self._rect
        return r.left, r.bottom, r.right, r.top

    def box(self, i: int) -> tuple[float, float, float, float] | None:
        """(left, bottom, right, top) of the glyph's ink: where an accent really sits."""
        c = self._char(i)
        left, right, bottom, top = self._d
        if c < 0 or not self._c.FPDFText_GetCharBox(self._handle, c, left, right, bottom, top):
            return None
        return left.value, bottom.value, right.value, top.value

    def origin(self, i: int) -> tuple[float, float] | None:
        """The glyph's origin: its x and its baseline."""
        c = self._char(i)
        x, y = self._d[0], self._d[1]
        if c < 0 or not self._c.FPDFText_GetCharOrigin(self._handle, c, x, y):
            return None
        return x.value, y.value

    def size(self, i: int) -> float | None:
        """Effective font size: the font size times the text matrix's vertical scale."""
        c = self._char(i)
        if c < 0:
            return None
        size = float(self._c.FPDFText_GetFontSize(self._handle, c))
        if self._c.FPDFText_GetMatrix(self._handle, c, ctypes.byref(self._matrix)):
            m = self._matrix
            size *= math.hypot(m.c, m.d) or 1.0
        return size

    def generated(self, i: int) -> bool:
        """Whether pdfium made the character up (a blank for a gap, a line end)."""
        c = self._char(i)
        return c >= 0 and self._c.FPDFText_IsGenerated(self._handle, c) == 1


# --- accents and drawn symbols ------------------------------------------------------


def repair_glyphs(text: str, glyphs: Glyphs) -> tuple[str, list[int] | None]:
    """``text`` with drawn accents put on their letters and drawn ©/® restored.

    Returns the new text and, when anything changed, the position in ``text`` of each of
    its characters (so geometry can still be asked of the original glyphs).  A page
    without spacing accents or stray U+000D glyphs costs one regex search.
    """
    if _NEEDS_REPAIR.search(text) is None:
        return text, None
    marks: dict[int, list[str]] = {}
    replace: dict[int, str] = {}
    drop: set[int] = set()
    for m in _NEEDS_REPAIR.finditer(text):
        i = m.start()
        if text[i] == "\r":
            _circled(text, i, glyphs, replace, drop)
            continue
        if glyphs.generated(i):
            continue
        base = _accent_base(text, i, glyphs)
        if base is None:
            continue
        marks.setdefault(base, []).append(SPACING_ACCENTS[text[i]])
        drop.add(i)
        drop.update(_blanks_around(text, i, glyphs, drop))
    if not marks and not replace:
        return text, None
    for base, combining in marks.items():
        replace[base] = unicodedata.normalize("NFC", text[base] + "".join(combining))
    parts: list[str] = []
    positions: list[int] = []
    for i, ch in enumerate(text):
        if i in drop:
            continue
        new = replace.get(i, ch)
        parts.append(new)
        positions.extend([i] * len(new))
    return "".join(parts), positions


def _line_range(text: str, i: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\r\n", i)
    return start, len(text) if end < 0 else end


def _accent_base(text: str, i: int, glyphs: Glyphs) -> int | None:
    """The letter of ``i``'s pdfium line that the accent glyph is drawn over (or under)."""
    accent = glyphs.box(i)
    size = glyphs.size(i) or 0.0
    if accent is None or size <= 0:
        return None
    a_left, a_bottom, a_right, a_top = accent
    centre = (a_left + a_right) / 2
    below = text[i] in _BELOW
    best: tuple[float, int] | None = None
    start, end = _line_range(text, i)
    for j in range(start, end):
        if j == i or not text[j].isalpha():
            continue
        box = glyphs.box(j)
        if box is None:
            continue
        left, bottom, right, top = box
        slack = 0.15 * (right - left)
        if not left - slack <= centre <= right + slack:
            continue
        middle = (bottom + top) / 2
        if below and a_top > middle + 0.1 * size:
            continue
        if not below and a_bottom < middle:
            continue
        if abs(a_bottom - top) > size and abs(a_top - bottom) > size:
            continue  # another line's letter under the same x
        distance = abs(centre - (left + right) / 2)
        if best is None or distance < best[0]:
            best = (distance, j)
    return None if best is None else best[1]


def _blanks_around(text: str, i: int, glyphs: Glyphs, drop: set[int]) -> list[int]:
    """The blanks pdfium generated only because the accent glyph sat out of order.

    Blanks next to the accent go when they end the line or when the glyphs on either side
    of them touch (``Brostr ¨ om``: ``r`` and ``o`` are neighbours on the page); a real gap
    between words keeps one blank.
    """
    left = i - 1
    while left >= 0 and (left in drop or (text[left] == " " and glyphs.generated(left))):
        left -= 1
    right = i + 1
    while right < len(text) and (right in drop or (text[right] == " " and glyphs.generated(right))):
        right += 1
    blanks = [k for k in range(left + 1, right) if k != i and k not in drop]
    if not blanks:
        return []
    if right >= len(text) or text[right] in "\r\n" or left < 0 or text[left] in "\r\n":
        return blanks
    before, after = glyphs.box(left), glyphs.box(right)
    size = glyphs.size(i) or 0.0
    if before is not None and after is not None and after[0] - before[2] < 0.2 * size:
        return blanks
    return blanks[1:]


def _circled(text: str, i: int, glyphs: Glyphs, replace: dict[int, str], drop: set[int]) -> None:
    """A circle glyph (U+000D) around a ``c`` or ``R`` next to it: the sign it draws."""
    circle = glyphs.box(i)
    if circle is None or glyphs.generated(i):
        return
    for j in (i + 1, i - 1):
        if not 0 <= j < len(text) or text[j] not in _CIRCLED:
            continue
        box = glyphs.box(j)
        if box is None:
            continue
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        if circle[0] <= cx <= circle[2] and circle[1] <= cy <= circle[3]:
            replace[j] = _CIRCLED[text[j]]
            drop.add(i)
            return


# --- lines pdfium split -------------------------------------------------------------

LINE_END_HYPHEN = "\ufffe"
"""pdfium's mark for a hyphen at a line end, with the two lines joined."""
_HYPHEN_GLYPHS = frozenset("-\u00ad")
_DASHES = frozenset("\u2013\u2014")
_SEPARATOR_BEFORE = ",;-\u2013 \r\n"
_ONE_BASELINE = 3.0
"""Points two glyphs' baselines may differ by at most and be on one printed line (the
finer test, a tenth of the type size, follows)."""


def join_split_lines(
    text: str, glyphs: Glyphs, positions: list[int] | None
) -> tuple[str, list[int] | None]:
    """``text`` with the line breaks pdfium put inside one printed line taken out.

    pdfium starts a new line when a glyph leaves the line's baseline, so a raised
    citation number splits the line it is set in (``Jadad et al.`` / ``11`` / ``All of the
    studies``, ``library³`` / ``to convert``), and a glyph whose box is odd (an ``ffi``
    ligature) can split a word (``O`` / ``ffice``).  Such a break is joined when the glyphs
    on either side sit on one baseline, or one side is a superscript number raised above
    it, and they are next to each other (a blank is put in when there is a gap); and after
    a dash set close between words (``mention–`` / ``mention edges``).  pdfium
    also misses a hyphen at a line end when another glyph is drawn after it on the same
    line (an accent set apart: ``measure- ¨``); such a hyphen, after a letter and before a
    line that goes on in lower case right below, becomes pdfium's own line-end mark with
    the two lines joined, so that the document decides it as it decides pdfium's.

    ``positions`` maps ``text`` to pdfium's text (None: the same); the map returned does
    so for the new text.
    """
    if "\r\n" not in text:
        return text, positions

    def at(k: int) -> int:
        return positions[k] if positions is not None else k

    parts: list[str] = []
    where: list[int] = []
    done = 0
    line_start = 0
    for m in re.finditer("\r\n", text):
        k = m.start()
        a = k - 1
        while a >= line_start and text[a].isspace():
            a -= 1
        b = k + 2
        while b < len(text) and text[b] in " \t":
            b += 1
        if a < line_start or b >= len(text) or text[b] == "\r":
            line_start = k + 2
            continue
        joint = _joint(text, line_start, a, b, glyphs, at)
        if joint is None:
            line_start = k + 2
            continue
        cut = a if joint == LINE_END_HYPHEN else a + 1
        parts.append(text[done:cut])
        where.extend(positions[done:cut] if positions is not None else range(done, cut))
        parts.append(joint)
        where.extend([at(cut)] * len(joint))
        done = b
    if not parts:
        return text, positions
    parts.append(text[done:])
    where.extend(positions[done:] if positions is not None else range(done, len(text)))
    return "".join(parts), where


def _joint(
    text: str, line_start: int, a: int, b: int, glyphs: Glyphs, at: Callable[[int], int]
) -> str | None:
    """What replaces the break between glyph ``a`` (the last of its line) and ``b`` (the
    first of the next): ``""`` or ``" "`` (one printed line), the line-end mark, or None."""
    before, after = text[a], text[b]
    if before in _HYPHEN_GLYPHS:
        return LINE_END_HYPHEN if _word_goes_on(text, line_start, a, b, glyphs, at) else None
    if before in _DASHES:
        # a dash set close between words breaks the line after it (mention–mention,
        # programme—the): the words go on after the dash, with no blank
        return "" if _word_goes_on(text, line_start, a, b, glyphs, at) else None
    if not (before.isdigit() or after.isdigit()) and _baselines_apart(a, b, glyphs, at):
        return None  # only one baseline can join: looked at before asking for more
    ga, gb = _glyph(glyphs, at(a)), _glyph(glyphs, at(b))
    if ga is None or gb is None:
        return None
    if before.isdigit() and ga.size <= SUPERSCRIPT_SIZE * gb.size:
        return _after_superscript(text, line_start, a, ga, gb, glyphs, at)
    if after.isdigit() and gb.size <= SUPERSCRIPT_SIZE * ga.size:
        return _before_superscript(ga, gb)
    return _touching(ga, gb)


def _word_goes_on(
    text: str, line_start: int, a: int, b: int, glyphs: Glyphs, at: Callable[[int], int]
) -> bool:
    """Whether the hyphen or dash ``a`` ends a word that goes on at ``b`` right below: a
    letter before it, and after it a lower-case letter (a hyphen) or any letter (a dash)."""
    goes_on = text[b].islower() if text[a] in _HYPHEN_GLYPHS else text[b].isalpha()
    return (
        a > line_start
        and text[a - 1].isalpha()
        and goes_on
        and _next_line_below(a - 1, b, glyphs, at)
    )


def _baselines_apart(a: int, b: int, glyphs: Glyphs, at: Callable[[int], int]) -> bool:
    """Whether glyphs ``a`` and ``b`` are not known to sit on one baseline (to within
    :data:`_ONE_BASELINE`)."""
    oa, ob = glyphs.origin(at(a)), glyphs.origin(at(b))
    return oa is None or ob is None or abs(oa[1] - ob[1]) > _ONE_BASELINE


def _after_superscript(
    text: str,
    line_start: int,
    a: int,
    ga: _Glyph,
    gb: _Glyph,
    glyphs: Glyphs,
    at: Callable[[int], int],
) -> str | None:
    """A superscript ends the line: the next goes on at the baseline before it, in the
    size of the glyph before the number."""
    gc = _glyph_before_number(text, line_start, a, glyphs, at)
    gap = gb.left - ga.right
    if (
        gc is not None
        and abs(gc.base - gb.base) <= 0.1 * gb.size
        and abs(gc.size - gb.size) <= 0.1 * gb.size
        and _superscript_rise(ga.base - gb.base, gb.size)
        and -0.25 * gb.size <= gap <= 1.0 * gb.size
    ):
        return _blank_for(gap, gb.size)
    return None


def _glyph_before_number(
    text: str, line_start: int, a: int, glyphs: Glyphs, at: Callable[[int], int]
) -> _Glyph | None:
    """The glyph the number (or group of numbers) that ends at ``a`` is attached to."""
    c = a
    while c > line_start and (text[c].isdigit() or text[c] in _SEPARATOR_BEFORE):
        c -= 1
    return _glyph(glyphs, at(c)) if c >= line_start and not text[c].isdigit() else None


def _before_superscript(ga: _Glyph, gb: _Glyph) -> str | None:
    """The next line starts with a superscript raised above this line's baseline."""
    gap = gb.left - ga.right
    if _superscript_rise(gb.base - ga.base, ga.size) and -0.25 * ga.size <= gap <= 0.6 * ga.size:
        return _blank_for(gap, ga.size)
    return None


def _touching(ga: _Glyph, gb: _Glyph) -> str | None:
    """One baseline, one size, glyphs touching: one word pdfium cut."""
    gap = gb.left - ga.right
    same = abs(ga.size - gb.size) <= 0.1 * max(ga.size, gb.size)
    if same and abs(ga.base - gb.base) <= 0.1 * ga.size and -0.15 * ga.size <= gap <= 0.1 * ga.size:
        return ""
    return None


def _superscript_rise(rise: float, size: float) -> bool:
    """Whether a baseline ``rise`` above one set in ``size`` is a superscript's."""
    return SUPERSCRIPT_RISE * size <= rise <= 0.9 * size


def _blank_for(gap: float, size: float) -> str:
    """A blank where the glyphs of one line are set apart, none where they touch."""
    return " " if gap > 0.1 * size else ""


class _Glyph(NamedTuple):
    size: float
    base: float
    """The baseline."""
    left: float
    right: float


def _glyph(glyphs: Glyphs, i: int) -> _Glyph | None:
    """Size, baseline, left and right of glyph ``i``; None when unknown."""
    size, origin, box = glyphs.size(i), glyphs.origin(i), glyphs.loose_box(i)
    if size is None or size <= 1.5 or origin is None or box is None:
        return None
    return _Glyph(size, origin[1], box[0], box[2])


def _next_line_below(a: int, b: int, glyphs: Glyphs, at: Callable[[int], int]) -> bool:
    """Whether glyph ``b`` starts the line right below the one glyph ``a`` ends."""
    size, oa, ob = glyphs.size(at(a)), glyphs.origin(at(a)), glyphs.origin(at(b))
    if size is None or size <= 1.5 or oa is None or ob is None:
        return False
    return 0.5 * size <= oa[1] - ob[1] <= 2.5 * size and ob[0] < oa[0]


# --- sizes and superscripts ---------------------------------------------------------


def _inked(ch: str) -> bool:
    return not ch.isspace()


def line_size(line: str, start: int, glyphs: Glyphs, positions: list[int] | None) -> float | None:
    """The size a line is set in: the median over a few of its letters.

    ``line`` starts at ``start`` in the (repaired) page text; ``positions`` maps that text
    to pdfium's.  A median of letters from its start, middle and end, so that one
    superscript, subscript or symbol does not decide it; three, because this runs for every
    line of every page.
    """
    sizes = []
    n = len(line)
    wanted = str.isalpha if any(ch.isalpha() for ch in line) else _inked
    for k in (0, n // 2, n - 1):
        while k < n and not wanted(line[k]):
            k += 1
        if k < n:
            size = glyphs.size(positions[start + k] if positions is not None else start + k)
            if size is not None and size > 1.5:
                sizes.append(size)
    return statistics.median(sizes) if sizes else None


def superscripts(
    line: str,
    start: int,
    glyphs: Glyphs,
    positions: list[int] | None,
    line_size: float | None = None,
) -> list[tuple[int, int]]:
    """Spans of ``line`` that are superscript note or citation numbers.

    ``line`` starts at ``start`` in the (repaired) page text; ``positions`` maps that text
    to pdfium's.  A run of digits is superscript when every digit is set at most
    ``SUPERSCRIPT_SIZE`` of the glyph it is attached to, with its baseline raised by
    ``SUPERSCRIPT_RISE`` of that glyph's size.  The glyph compared with is the one just
    before the run (the one after, for a footnote's own number at a line start), not the
    line's: pdfium joins the two lines of a hyphenated break into one, each with its own
    baseline.  A blank pdfium generated between a word and a superscript that touches it
    (``draft 13 and``) does not detach it.  A run that follows a superscript across a comma,
    a dash or a blank (``³,⁴``, ``⁴ ³⁶``) belongs to its group and is compared with what
    came before the first; so does a run after an ``e`` drawn as a dash, which is how some
    publishers' fonts map the en dash of a range (``³⁶e³⁸``): that run and the range's
    start are one span, whose ``e`` the caller reads as the dash it is.  The matcher's own
    rules for superscript characters apply: not after a digit or sign (an exponent,
    ``10⁻³``), not a lone 2 or 3 after ``m`` or ``s`` (``m²``); a line-start run must be
    followed by text.  With ``line_size`` (the line's size), a run whose first digit is set
    that large is passed over at the cost of one glyph query.
    """

    def at(k: int) -> int:
        return positions[start + k] if positions is not None else start + k

    out: list[tuple[int, int]] = []
    previous: tuple[int, float, float] | None = None  # end, size and baseline of the last
    for m in _DIGITS.finditer(line):
        a, b = m.span()
        if line_size is not None and (glyphs.size(at(a)) or 0.0) > SUPERSCRIPT_SIZE * line_size:
            continue
        gap = _group_gap(line, previous[0], a, glyphs, at, previous[1:]) if previous else None
        if gap is not None and previous is not None:
            metrics: tuple[float, float] | None = previous[1:]
        else:
            reference = _attached_to(line, a, b, glyphs, at)
            if reference is None or not _is_marker(line, a, b, reference):
                continue
            metrics = _metrics(glyphs, at(reference))
        if metrics is None or not all(_raised(glyphs, at(k), *metrics) for k in range(a, b)):
            continue
        if gap == "dash":
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
        previous = (b, *metrics)
    return out


_GROUP_SEPARATORS = frozenset(",;-\u2013")
_DASH_AS_E = "e"
"""What some publishers' fonts map a superscript range's en dash to (``36e38``)."""


def _group_gap(
    line: str,
    end: int,
    a: int,
    glyphs: Glyphs,
    at: Callable[[int], int],
    metrics: tuple[float, float],
) -> str | None:
    """How the digit run at ``a`` continues the superscript group that ended at ``end``:
    ``"separator"`` (a comma, dash or blank, ``³,⁴``, ``⁴ ³⁶``), ``"dash"`` (an ``e`` whose
    ink is a flat stroke set as small and as high as the digits), or None."""
    gap = line[end:a]
    if not gap or len(gap) > 3:
        return None
    if gap == _DASH_AS_E:
        box = glyphs.box(at(end))
        if box is None or not _raised(glyphs, at(end), *metrics):
            return None
        width, height = box[2] - box[0], box[3] - box[1]
        return "dash" if 0.0 <= height <= 0.35 * width else None
    marks = [ch for ch in gap if ch != " "]
    if len(marks) <= 1 and all(ch in _GROUP_SEPARATORS for ch in marks):
        return "separator"
    return None


def _attached_to(line: str, a: int, b: int, glyphs: Glyphs, at: Callable[[int], int]) -> int | None:
    """The glyph a digit run hangs on: the one before it, through a generated blank when the
    two touch on the page; at a line start, or after a blank that keeps it from the word
    before while it touches a letter after it (an affiliation's number mid-line, ``Accra,
    Ghana. ²Medical Department``), the glyph after it."""
    after = b if b < len(line) and line[b].isalpha() else None
    if a == 0:
        return b if b < len(line) and not line[b].isspace() else None
    before = a - 1
    if line[before] != " ":
        return before
    if before == 0 or line[before - 1].isspace() or not glyphs.generated(at(before)):
        return after
    word, digit = glyphs.box(at(before - 1)), glyphs.box(at(a))
    size = glyphs.size(at(before - 1)) or 0.0
    if word is None or digit is None or digit[0] - word[2] > 0.3 * size:
        return after
    return before - 1


def _metrics(glyphs: Glyphs, i: int) -> tuple[float, float] | None:
    size, origin = glyphs.size(i), glyphs.origin(i)
    if size is None or size <= 1.5 or origin is None:
        return None
    return size, origin[1]


def _raised(glyphs: Glyphs, i: int, size: float, baseline: float) -> bool:
    s = glyphs.size(i)
    origin = glyphs.origin(i)
    if s is None or origin is None:
        return False
    return s <= SUPERSCRIPT_SIZE * size and origin[1] - baseline >= SUPERSCRIPT_RISE * size


def _is_marker(line: str, a: int, b: int, reference: int) -> bool:
    if reference >= b:
        return True  # a footnote's own number, before its text
    before = line[reference]
    if before in _EXPONENT_BEFORE:
        return False
    if before.isalpha() and (reference == 0 or not line[reference - 1].isalpha()):
        return False  # after a one-letter variable: a power, A² + B²
    return not (b - a == 1 and line[a] in "23" and before in _UNIT_BEFORE_SQUARE)
