"""How a quote is read before it is searched: its t1 form, its form without citation
markers (with where those markers stood and what numbers they held), and, for a quote
with ellipses or editorial brackets, its fragments.

Reading the quote is kept apart from searching so that the rules for what a quote says
(which brackets are the quoter's and which are the source's, what four dots mean) can be
read and tested on their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeproof.match.markers import cited_works, marker_numbers
from citeproof.match.normalize import normalize_with_map
from citeproof.match.prepare import deletion_points, strip_markers

ELLIPSIS = re.compile(
    r"\[\s*(?:\.\s*){3,}\]|\[\s*…\s*\]|\(\s*(?:\.\s*){3,}\)|\(\s*…\s*\)|…|\.(?:\s?\.){2,}"
)
_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_MARKER_CONTENT = re.compile(r"\s*\d{1,3}[a-z]?(?:\s*[,;\-–—]\s*\d{1,3}[a-z]?)*\s*")
DIGITS = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class QuoteForm:
    """A quote (or fragment) in the forms the layers need."""

    raw: str
    norm: str
    layer: str
    marker_numbers: tuple[str, ...]
    leading_marker: bool = False
    trailing_marker: bool = False
    marker_points: tuple[int, ...] = ()
    """Positions in ``layer`` where the quote had a marker inside it."""
    leading_text: str = ""
    trailing_text: str = ""
    """The quote's own leading and trailing markers, as t1 text."""
    marker_groups: tuple[tuple[str, ...], ...] = ()
    """The numbers of the marker at each of ``marker_points``."""
    marker_works: tuple[tuple[str, ...], ...] = ()
    """The works the marker at each of ``marker_points`` cites (``markers.cited_works``)."""
    leading_works: tuple[str, ...] = ()
    trailing_works: tuple[str, ...] = ()
    """The works the quote's own leading and trailing markers cite."""


def prepare_quote(raw: str) -> QuoteForm:
    """The forms of ``raw`` that the layers of a prepared text are searched with."""
    qn = normalize_with_map(raw)
    layer, spans = strip_markers(qn)
    text = layer.text.strip()
    shift = len(layer.text) - len(layer.text.lstrip())
    inner = [p for p in deletion_points(layer) if 0 < p - shift < len(text)]
    points = tuple(p - shift for p in inner)
    gaps = [(layer.deleted_before(p), layer.to_parent(p)) for p in inner]
    groups = tuple(tuple(DIGITS.findall(qn.text, a, b)) for a, b in gaps)
    leading = qn.text[: spans[0][1]].strip() if spans and spans[0][0] == 0 else ""
    trailing = qn.text[spans[-1][0] :].strip() if spans and spans[-1][1] == len(qn.text) else ""
    return QuoteForm(
        raw,
        qn.text,
        text,
        tuple(marker_numbers(qn.text, spans)),
        bool(spans) and spans[0][0] == 0,
        bool(spans) and spans[-1][1] == len(qn.text),
        points,
        leading,
        trailing,
        groups,
        tuple(cited_works(qn.text, a, b) for a, b in gaps),
        cited_works(leading),
        cited_works(trailing),
    )


def split_quote(quote: str) -> list[tuple[str, ...]] | None:
    """Fragments of a quote with ellipses or editorial brackets, each as its variants
    (a bracketed capital, ``[T]he``, may stand for either case); None when the quote has
    neither."""
    pos = 0
    marks = [(_ellipsis_start(quote, m), m.end(), "") for m in ELLIPSIS.finditer(quote)]
    for m in _BRACKET.finditer(quote):
        content = m.group(1)
        if any(a <= m.start() < b for a, b, _ in marks):
            continue
        if _MARKER_CONTENT.fullmatch(content) or any(c.isdigit() for c in content):
            continue  # a citation marker or bracketed data: compared as it stands
        if len(content) == 1 and content.isalpha() and quote[m.end() : m.end() + 1].isalpha():
            marks.append((m.start(), m.end(), content))
            continue
        marks.append((m.start(), m.end(), ""))
    if not marks:
        return None
    marks.sort()
    variants: list[tuple[str, ...]] = []
    current = [""]
    for a, b, letter in marks:
        chunk = quote[pos:a]
        current = [c + chunk for c in current]
        if letter:
            forms = (letter,) if letter.swapcase() == letter else (letter, letter.swapcase())
            current = [c + v for c in current for v in forms]
        else:
            variants.append(tuple(current))
            current = [""]
        pos = b
    current = [c + quote[pos:] for c in current]
    variants.append(tuple(current))
    return [v for v in variants if any(x.strip() for x in v)]


def _ellipsis_start(quote: str, m: re.Match[str]) -> int:
    """Four dots after a word are a full stop and an ellipsis: the stop stays quoted."""
    a = m.start()
    if m.group().count(".") >= 4 and a > 0 and not quote[a - 1].isspace():
        return a + 1
    return a
