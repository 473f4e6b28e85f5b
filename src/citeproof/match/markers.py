"""Inline citation markers, found in t1 text and removed from a matching layer.

A source reads "X causes Y [12]." and a quote reads "X causes Y." (or the reverse): both
are the paper's words, so markers must never break a match.  The matcher therefore
searches a layer of the text with markers deleted, and deletes them from the quote the
same way.  What counts as a marker:

* a bracketed or parenthesised list of small numbers: ``[12]``, ``[3-5]``, ``[1, 4, 7]``,
  ``(4, 7)`` (at most three digits each, so years such as ``(2019)`` stay; a parenthesis
  right after a number, ``45 (12)``, is data such as a standard deviation and stays);
* a run of superscript digits after a word (``effect¹²``), but not an exponent
  (``10⁻³``, ``mm⁻¹``) nor the square or cube of a unit (``m²``, ``cm³``);
* any span the document parser knows is a citation (JATS ``<xref ref-type="bibr">``),
  widened to the brackets around it when they hold nothing else — but only when it is
  numbers or stands alone in brackets: a narrative citation ("as Jones and Brown
  showed") is part of the sentence, and a quote that drops it is not the source's words.

Bracketed data (``[95% CI 1.2-3.4]``) has letters or decimals and is never a marker.

A quote that copies a marker must copy the source's: two markers are the same when they
cite the same works (``cited_works``), so a range is not its ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_NUMS = r"\s?\d{1,3}[a-z]?(?:\s?[,;-]\s?\d{1,3}[a-z]?)*\s?"
_BRACKET = re.compile(r"\[" + _NUMS + r"\]")
_PAREN = re.compile(r"\(" + _NUMS + r"\)")
_SEPARATORS = re.compile(r"(?:[\s,;-]|and)*")
_DIGITS = re.compile(r"\d+")
_NUMERIC_ONLY = re.compile(r"[\d\s,;\-]+")
_FOLLOWING_PUNCT = frozenset(" .,;:!?)]")
_PUNCT = frozenset(".,;:!?)]")
_UNIT_BEFORE_SQUARE = frozenset("ms")
_DIGIT_OR_SPACE = frozenset("0123456789 ")


def find_markers(
    text: str,
    superscripts: Sequence[tuple[int, int]] = (),
    known: Iterable[tuple[int, int]] = (),
) -> list[tuple[int, int]]:
    """Sorted, merged spans of ``text`` that are citation markers.

    Markers of one kind separated only by commas, semicolons, dashes or "and" form one
    group (``[1], [2]``); markers of different kinds are kept apart, since a comma
    between a superscript and a bracket is usually the sentence's own punctuation.
    """
    spans: list[tuple[int, int, int]] = []  # (start, end, kind)
    find = text.find
    for opener, pattern in (("[", _BRACKET), ("(", _PAREN)):
        p = find(opener)
        while p >= 0:
            if text[p + 1 : p + 2] in _DIGIT_OR_SPACE:
                m = pattern.match(text, p)
                if m and not (opener == "(" and _after_number(text, p)):
                    spans.append((m.start(), m.end(), 0))
            p = find(opener, p + 1)
    spans.extend((a, b, 1) for a, b in _superscript_markers(text, superscripts))
    spans.extend((a, b, 2) for a, b in known if 0 <= a < b <= len(text))
    if not spans:
        return []
    spans.sort()
    merged = [spans[0]]
    for a, b, kind in spans[1:]:
        pa, pb, pkind = merged[-1]
        if a <= pb or (kind == pkind and _SEPARATORS.fullmatch(text, pb, a)):
            merged[-1] = (pa, max(pb, b), pkind)
        else:
            merged.append((a, b, kind))
    out = []
    for a, b, kind in merged:
        if kind == 2 and not _parenthetical(text, a, b):
            continue  # a narrative citation ("as Jones and Brown showed") is part of the prose
        out.append(_widen(text, a, b))
    return out


def _parenthetical(text: str, a: int, b: int) -> bool:
    """A parser-known citation that is only numbers, or stands alone in brackets."""
    if _NUMERIC_ONLY.fullmatch(text, a, b):
        return True
    pairs = (("[", "]"), ("(", ")"))
    if b - a >= 2 and (text[a], text[b - 1]) in pairs:
        return True  # the parser took the brackets in
    return a > 0 and b < len(text) and (text[a - 1], text[b]) in pairs


def _after_number(text: str, p: int) -> bool:
    q = p - 1
    while q >= 0 and text[q] == " ":
        q -= 1
    return q >= 0 and text[q].isdigit()


def _superscript_markers(
    text: str, superscripts: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    groups: list[tuple[int, int]] = []
    for a, b in superscripts:
        if groups and (a <= groups[-1][1] or _SEPARATORS.fullmatch(text, groups[-1][1], a)):
            groups[-1] = (groups[-1][0], b)
        else:
            groups.append((a, b))
    out = []
    for a, b in groups:
        before = text[a - 1] if a > 0 else " "
        if before.isdigit() or before in "-+^":
            continue  # an exponent: 10⁻³, mm⁻¹
        if b - a == 1 and text[a] in "23" and before in _UNIT_BEFORE_SQUARE:
            continue  # m², cm³, m/s²
        if before == " " or a == 0:
            continue  # a free-standing number, not attached to a word
        out.append((a, b))
    return out


def _widen(text: str, a: int, b: int) -> tuple[int, int]:
    """Take in enclosing brackets that hold only the marker, then one adjoining space."""
    if a > 0 and b < len(text) and (text[a - 1], text[b]) in (("[", "]"), ("(", ")")):
        a -= 1
        b += 1
    if a > 0 and text[a - 1] == " " and (b == len(text) or text[b] in _FOLLOWING_PUNCT):
        a -= 1
    elif (
        b < len(text)
        and text[b] == " "
        and (a == 0 or text[a - 1] in "([" or text[b + 1 : b + 2] in _PUNCT)
    ):
        b += 1  # "quotient[4] , is" reads "quotient, is"
    return a, b


_ITEM = re.compile(r"\d+[a-z]?")
_RANGE_DASH = re.compile(r" ?[\])]? ?- ?[\[(]? ?")
_MAX_NUMBER_DIGITS = 9


def cited_works(text: str, start: int = 0, end: int | None = None) -> tuple[str, ...]:
    """The works the markers in ``text[start:end]`` cite, in the order written, in one
    canonical form: two markers are the same marker when these are equal.

    A number followed by a dash and a larger number is a range, and cites every number
    from the one to the other (``[3-5]``, ``[3–5]``, ``[3]–[5]``); numbers that follow
    one another (``[3, 4, 5]``) are written as the range they make.  So ``[62–64]`` gives
    ``("62-64",)``, the same as ``[62, 63, 64]``, and ``[62, 64]`` gives ``("62", "64")``:
    a range cites more works than its ends.  A number with a letter (``[3a]``) is a work of
    its own, never part of a range.
    """
    stop = len(text) if end is None else end
    runs: list[list[int] | str] = []
    prev_end = -1
    for m in _ITEM.finditer(text, start, stop):
        token = m.group()
        if not token.isdigit() or len(token) > _MAX_NUMBER_DIGITS:
            runs.append(token)
            prev_end = -1
            continue
        n = int(token)
        last = runs[-1] if runs else None
        ranged = prev_end >= 0 and bool(_RANGE_DASH.fullmatch(text, prev_end, m.start()))
        if isinstance(last, list) and (last[1] + 1 == n or (ranged and last[1] < n)):
            last[1] = n  # the next number, or the end of a range
        else:
            runs.append([n, n])
        prev_end = m.end()
    return tuple(r if isinstance(r, str) else _run(r[0], r[1]) for r in runs)


def _run(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def marker_numbers(text: str, spans: Iterable[tuple[int, int]]) -> list[str]:
    """The numbers inside marker spans, to compare a quote's markers with the source's."""
    out: list[str] = []
    for a, b in spans:
        out.extend(_DIGITS.findall(text, a, b))
    return out
