"""Citations written as text: ``[3]``, ``[1, 3–5]``, ``²⁻⁴``, ``(Smith et al., 2019; Lee
2020a)``, ``Smith and Lee (2019)``.

Why scan text at all: a DOCX typed by hand, a PDF, a Markdown file or HTML without links
carry their citations only as printed characters; structure (a field, a ``\\cite``, a JATS
``<xref>``, a raised run) is used first wherever a format has it, and a span a reader has
already claimed is never scanned again.

Rules:

* **Numeric**: a bracket holding numbers, ranges and lists (``[3]``, ``[3–5]``, ``[1, 3-5]``,
  ``[2;7]``, any of ``- – — ‐ ‑ −`` as the dash).  A range names every number in it, at most
  :data:`MAX_NUMBERS` per citation (past that the citation is kept, unlinked, with the reason).
  A bracket whose every number looks like a year (1800–2100) is a year, not a citation,
  unless the list has an entry with that number (the caller says which numbers it has).
* **Superscript** characters after a word or punctuation (``trials.²⁻⁴``), not after a digit
  (an exponent) nor after a unit (``m²``).
* **Author-year**, parenthetical: a parenthesis whose ``;``-separated parts are each
  ``[prefix] Names[,] Year[, Year...][, locator]``; Names is one name, ``A and B``, ``A & B``,
  ``A, B and C`` or ``A et al.``; a name is up to four capitalised words, with particles
  (``van der Berg``); the year is four digits with an optional letter (``2020a``), or ``n.d.``,
  ``in press``; ``2019a, b`` names 2019a and 2019b.  A prefix is at most four words (``see
  also``), or any words ending in a lead-in (``… work on adaptation, e.g., Daumé, 2007``); a
  short remark may follow (``Ferragina and Scaiella, 2010, TagMe``).  Parts that are not
  citations (``unpublished data``) are left out; a parenthesis with none is not a
  citation.  Lead-in words (``See``, ``In``, ``Following``) are never names.  A citation
  whose names include a word that starts so many non-citations (months, ``Table``,
  ``Page``) is *tentative*: kept only if it links (Winter and Page are surnames too).
* **Author-year**, narrative: ``Names (Year[, Year...][, locator])``.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from citeproof.manuscript.draft import RawCitation, RawTarget
from citeproof.refs.stated import fold

__all__ = [
    "MAX_NUMBERS",
    "Taken",
    "numbers_of",
    "scan_author_year",
    "scan_numeric",
    "scan_superscripts",
    "superscript_numbers",
]

#: A ``[1-100000]`` is not expanded into a hundred thousand citations.
MAX_NUMBERS = 100

_DASHES = "-–—‐‑−"
_NUMERIC = re.compile(rf"\[\s?(\d{{1,4}}(?:\s?[{_DASHES},;]\s?\d{{1,4}})*)\s?\]")
_SPLIT_LIST = re.compile(r"\s*[,;]\s*")
_SPLIT_RANGE = re.compile(rf"\s*[{_DASHES}]\s*")
_SUPER_DIGITS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_SUPER = re.compile(rf"[{_SUPER_DIGITS}]+(?:[⁻,‐–][{_SUPER_DIGITS}]+)*")
_SUPER_MAP = str.maketrans(_SUPER_DIGITS + "⁻", "0123456789-")
_UNIT = re.compile(r"(?:^|[^\w])(?:[a-zµ]{1,2}|[a-z]{1,2}\d?)$")

_PARTICLE = r"(?:van|von|de|der|den|del|della|da|di|du|dos|das|le|la|ten|ter|zu|mac|al|el)"
_CAP_WORD = r"[A-ZÀ-ÖØ-Þ][\w'’\-]*"
_NAME = rf"(?:{_PARTICLE}\s+){{0,3}}{_CAP_WORD}(?:\s+(?:{_PARTICLE}\s+){{0,2}}{_CAP_WORD}){{0,3}}"
_AUTHORS = (
    rf"(?P<first>{_NAME})(?:(?P<middle>(?:,\s+{_NAME})*),?\s+(?:and|&)\s+(?P<second>{_NAME})"
    r"|,?\s+et\s+al\.?(?P<etal>))?"
)
_YEAR = r"(?:1[5-9]\d\d|20\d\d)[a-z]?|n\.\s?d\.|in\s+press|forthcoming"
_YEARS = rf"(?P<years>(?:{_YEAR})(?:,\s*(?:{_YEAR}|[a-z](?![\w.])))*)"
_LOCATOR = (
    r"(?:,|:)\s*(?P<locator>(?:pp?|pages?|chap|ch|sec|para|fig|table|s)\.?\s*"
    r"[\dxivlc][\w–\-]*(?:\s*[,–\-]\s*\d+)*|\d+(?:[–\-]\d+)?)"
)
_PART = re.compile(
    rf"(?P<prefix>(?:[\w.,'’-]+\s+)*?)(?P<authors>{_AUTHORS}),?\s+{_YEARS}"
    rf"(?:{_LOCATOR})?(?P<remark>,\s*[\w'’ -]{{1,40}})?\s*[.,]?"
)
_LEAD_IN = re.compile(
    r"(?:e\.\s?g\.|i\.\s?e\.|cf\.|see(?:\s+also)?|as\s+in|following),?\s*$", re.IGNORECASE
)
_PAREN = re.compile(r"\(([^()]{4,600})\)")
_NARRATIVE = re.compile(rf"(?<![\w.])(?P<authors>{_AUTHORS})\s+\(\s*{_YEARS}(?:{_LOCATOR})?\s*\)")
_NOT_NAMES = frozenset(
    fold(w)
    for w in (
        "January February March April May June July August September October November December "
        "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Spring Summer Autumn Fall Winter "
        "Table Tables Figure Figures Fig Figs Supplementary Supplement Appendix Section Chapter "
        "Eq Equation Version Phase Step Study Trial Day Days Week Weeks Year Years Month Model "
        "Grade Stage Type Class Wave COVID SARS Note Notes Box Panel Vol Volume Issue No Number "
        "Protocol Accessed Retrieved Updated Published Age Aged Born Died Cohort Group Sample "
        "Data Dataset Release Edition Page Pages Part Act Law Article Annex Exhibit Unpublished "
        "Personal Mean Median Total Range Overall Baseline Epub Online Available"
    ).split()
)
"""Words that start so many non-citations (``(January 2020)``, ``(Table 2019)``) that a
citation naming one is kept only when it links: Winter, May and Page are surnames too."""
_LEADS = frozenset(
    fold(w)
    for w in (
        "See Also In Following As From By After Before Since During Cf Eg Ie Like Unlike Per "
        "According Both Then Thus However While Whereas When Where With Without Recently "
        "Previously Notably Here This These That Those The Our Their His Her Its A An And Or "
        "But For To Of On At Moreover Furthermore Indeed Similarly Conversely"
    ).split()
)
"""Words that stand before a name (``See Peters et al. (2017)``), never a surname."""

Taken = list[tuple[int, int]]
"""Spans already claimed (by structure, or by an earlier scan), sorted or not."""


def _free(taken: Sequence[tuple[int, int]], start: int, end: int) -> bool:
    return not any(s < end and start < e for s, e in taken)


def numbers_of(spec: str) -> list[int] | None:
    """The numbers ``1, 3-5`` names, in order, each once; None past :data:`MAX_NUMBERS`."""
    out: list[int] = []
    for part in _SPLIT_LIST.split(spec.strip()):
        if not part:
            continue
        bounds = [b for b in _SPLIT_RANGE.split(part) if b]
        if not bounds or not all(b.isdigit() for b in bounds):
            continue
        low, high = int(bounds[0]), int(bounds[-1])
        if low > high:
            low, high = high, low
        if high - low + 1 + len(out) > MAX_NUMBERS:
            return None
        out.extend(n for n in range(low, high + 1) if n not in out)
    return out


def _numbered(start: int, end: int, spec: str, kind: str, where: str | None) -> RawCitation | None:
    numbers = numbers_of(spec)
    if numbers is None:
        target = RawTarget(
            spec,
            reason=f"The citation names more than {MAX_NUMBERS} numbers; citeproof expands at "
            f"most {MAX_NUMBERS} per citation.",
        )
        return RawCitation(
            start, end, "numeric" if kind == "numeric" else "superscript", [target], where=where
        )
    if not numbers:
        return None
    targets = [RawTarget(str(n), number=n) for n in numbers]
    if kind == "numeric":
        return RawCitation(start, end, "numeric", targets, where=where)
    return RawCitation(start, end, "superscript", targets, where=where)


def scan_numeric(
    text: str,
    start: int,
    end: int,
    taken: Taken,
    known: frozenset[int] = frozenset(),
    where: str | None = None,
) -> list[RawCitation]:
    """Bracketed numeric citations in ``text[start:end]`` (module rules)."""
    out: list[RawCitation] = []
    for m in _NUMERIC.finditer(text, start, end):
        if not _free(taken, m.start(), m.end()):
            continue
        spec = m.group(1)
        numbers = numbers_of(spec)
        if numbers is not None and all(1800 <= n <= 2100 and n not in known for n in numbers):
            continue
        cite = _numbered(m.start(), m.end(), spec, "numeric", where)
        if cite is not None:
            _bridge(text, out, cite)
            out.append(cite)
            taken.append((m.start(), m.end()))
    return out


_BRIDGE = re.compile(rf"[ \t]*[{_DASHES}][ \t]*")


def _bridge(text: str, before: list[RawCitation], cite: RawCitation) -> None:
    """``[5]–[7]`` prints a range across two brackets: the numbers between go to the first."""
    if not before or _BRIDGE.fullmatch(text, before[-1].end, cite.start) is None:
        return
    first = before[-1]
    low = max((t.number for t in first.targets if t.number is not None), default=None)
    high = min((t.number for t in cite.targets if t.number is not None), default=None)
    if low is not None and high is not None and 1 < high - low <= MAX_NUMBERS:
        first.targets.extend(RawTarget(str(n), number=n) for n in range(low + 1, high))


def superscript_numbers(marker: str) -> str:
    """``²⁻⁴`` as ``2-4``: the spec :func:`numbers_of` reads."""
    return marker.translate(_SUPER_MAP)


def scan_superscripts(
    text: str, start: int, end: int, taken: Taken, where: str | None = None
) -> list[RawCitation]:
    """Superscript-digit citations in ``text[start:end]`` (module rules)."""
    out: list[RawCitation] = []
    for m in _SUPER.finditer(text, start, end):
        s = m.start()
        if s == 0 or not _free(taken, s, m.end()):
            continue
        before = text[max(0, s - 4) : s]
        if not before or before[-1].isdigit() or before[-1].isspace():
            continue
        if _UNIT.search(before) and before[-1].isalpha():
            continue
        cite = _numbered(s, m.end(), superscript_numbers(m.group()), "superscript", where)
        if cite is not None:
            out.append(cite)
            taken.append((s, m.end()))
    return out


def _years(spec: str) -> Iterator[str]:
    """``2019a, b, 2020`` as ``2019a``, ``2019b``, ``2020``."""
    last = ""
    for piece in re.split(r",[ \t]*", spec):
        piece = " ".join(piece.split())
        if len(piece) == 1 and piece.isalpha() and last:
            yield last[:4] + piece
            continue
        last = piece
        yield piece


def _leads(name: str) -> int:
    """How many of the name's first words are lead-in words (``See``, ``In``), not names."""
    words = name.split()
    n = 0
    while n < len(words) - 1 and fold(words[n]) in _LEADS:
        n += 1
    return n


def _doubtful(m: re.Match[str]) -> bool:
    """Whether a name of the citation is a word that starts so many non-citations."""
    names = [m.group("first"), m.group("second") or ""]
    return any(fold(w) in _NOT_NAMES for n in names for w in n.split())


def _targets(m: re.Match[str]) -> list[RawTarget]:
    first = " ".join(m.group("first").split()[_leads(m.group("first")) :])
    second = m.group("second")
    middle = [fold(n) for n in (m.group("middle") or "").split(",") if n.strip()]
    names = (fold(first), *middle) + ((fold(second),) if second else ())
    etal = m.group("etal") is not None
    written = first + (" et al." if etal else f" and {' '.join(second.split())}" if second else "")
    locator = m.group("locator")
    return [
        RawTarget(f"{written} {year}", names=names, etal=etal, year=year, locator=locator)
        for year in _years(m.group("years"))
    ]


def scan_author_year(
    text: str, start: int, end: int, taken: Taken, where: str | None = None
) -> list[RawCitation]:
    """Author-year citations in ``text[start:end]``, parenthetical and narrative."""
    out: list[RawCitation] = []
    pos = start
    while (m := _NARRATIVE.search(text, pos, end)) is not None:
        first = m.group("first")
        lead = _leads(first)
        if lead or fold(first.split()[0]) in _LEADS:
            # "See Peters et al. (2017)": the name starts after the lead-in words
            skip = re.match(rf"(?:\S+\s+){{{max(lead, 1)}}}", text[m.start() : m.end()])
            pos = m.start() + (skip.end() if skip else len(first))
            continue
        pos = m.end()
        if not _free(taken, m.start(), m.end()):
            continue
        cite = RawCitation(m.start(), m.end(), "author_year", _targets(m), where=where)
        cite.tentative = _doubtful(m)
        out.append(cite)
        taken.append((m.start(), m.end()))
    for m in _PAREN.finditer(text, start, end):
        if not _free(taken, m.start(), m.end()):
            continue
        targets: list[RawTarget] = []
        doubtful = True
        for part in m.group(1).split(";"):
            found = _PART.fullmatch(part.strip())
            if found is None:
                continue
            prefix = found.group("prefix")
            if len(prefix.split()) > 4 and _LEAD_IN.search(prefix) is None:
                continue
            targets.extend(_targets(found))
            doubtful = doubtful and _doubtful(found)
        if targets:
            cite = RawCitation(m.start(), m.end(), "author_year", targets, where=where)
            cite.tentative = doubtful
            out.append(cite)
            taken.append((m.start(), m.end()))
    out.sort(key=lambda c: c.start)
    return out
