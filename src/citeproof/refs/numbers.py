"""The numbers of a printed reference: which one is its year, and whether a record's volume
and pages are among them.

A string holds many numbers, and only one is the year: page numbers (1809, 2048), years
inside titles ("Romania, 1917"), access dates ("accessed 2021"), DOIs and ISBNs look like
years too.  Each citation style puts the year in a place of its own, so the year is read from
those places, most telling first:

* in brackets right after the authors or at the end: ``(2019)``, ``(2019a)``, ``(2019, May)``
  (APA, Harvard, AIP, Elsevier);
* before the volume: ``2019;30:844`` (Vancouver), ``2004, 30, 844`` (ACS), ``2019. 30(4)``;
* after the authors' full stop: ``Smith, J. 2019. Title.`` (Chicago author-date);
* last before the end: ``..., pp. 1-10, 2019.`` (IEEE, MLA).

Numbers inside a page range, a DOI, a URL, an ISBN or after "accessed"/"retrieved" are never
the year.  Pure: no I/O.
"""

from __future__ import annotations

import re

__all__ = [
    "LINKS",
    "cited_year",
    "coordinates",
    "first_surname",
    "has_number",
    "number_tokens",
    "numbers_identify",
    "page_by_year",
    "printed_first_page",
    "years_in_place",
]

_YEAR = r"(1[5-9][0-9]{2}|20[0-9]{2})"
#: A volume in Roman numerals, as old journals number theirs ("LI", "CLX"): two letters or
#: more in a valid order, in capitals where a style puts the volume; a record's volume or
#: page is looked for in capitals or in lower case (``number_tokens``).
_ROMAN = r"\b(?=[MDCLXVI]{2,9}\b)M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})\b"
_HIDDEN = re.compile(
    r"(?:https?://|www\.)\S+|\b10\.\d{4,9}/\S+|\bisbn[\s:-]*[\dxX][\d\s-]{8,}[\dxX]"
    r"|\b(?:accessed|retrieved|cited|viewed|consulted)\b[^.;\]]*"
    r"|\b(?:doi|pmid|pmcid|arxiv)\s*:\s*|\bpp?\.\s*[A-Za-z]?\d+(?:\s*[-‐‑‒–—]+\s*\d+)?",
    re.IGNORECASE,
)
#: URLs and DOIs, whose digits are no volume or page and whose words are no title's.
LINKS = re.compile(r"(?:https?://|www\.)\S+|\b10\.\d{4,9}/\S+", re.IGNORECASE)
_RANGE = re.compile(r"\b\d+\s*[-‐‑‒–—]+\s*\d+\b")
_PLACES: tuple[tuple[re.Pattern[str], int], ...] = (
    # (2019), (2019a), (2019, May 3), (n.d.) never matches
    (re.compile(r"\(\s*" + _YEAR + r"[a-z]?(?:\s*[,/][^()]{0,20})?\s*\)"), 5),
    # 2019;30:844, 2019;30(4), 2019:30
    (re.compile(r"\b" + _YEAR + r"[a-z]?\s*[;:]\s*\d"), 4),
    # 2004, 30, 844 (ACS), 2019, 30(4), 1908, LI, 2083 (a volume in Roman numerals)
    (re.compile(r"\b" + _YEAR + r"[a-z]?\s*,\s*(?:\d+|" + _ROMAN + r")\s*(?:\(|,)"), 4),
    # Smith J. 2019. Title (Chicago), Journal 2019 (ACS) before the volume
    (re.compile(r"(?:^|[.,]\s)\s*" + _YEAR + r"[a-z]?\.\s"), 3),
    # ..., 2019.  (IEEE, MLA) at the end (what follows it, a DOI, is hidden)
    (re.compile(r",\s*" + _YEAR + r"[a-z]?\s*[.,]?\s*$"), 3),
    # Month 2019, 2019 Jan
    (
        re.compile(
            r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+" + _YEAR,
            re.IGNORECASE,
        ),
        2,
    ),
)
#: "(n.d.)", "n.d.": the styles' words for a work without a date, always in lower case (an
#: author's initials "N.D." are not it).
_NO_DATE = re.compile(r"(?<![\w.])n\.\s?d\.(?!\w)")
_ANY_YEAR = re.compile(r"(?<![\d.])" + _YEAR + r"(?![\d])")
_WHOLE_YEAR = re.compile(_YEAR)
#: Where a style puts the first page, right after the volume: "Venue 4, 1775 (20N0)" (AIP),
#: "2019;30:1775" (Vancouver).  A lone year-shaped number there is a page whose year the
#: extraction garbled, not the year.
_ISSUE = r"\([^()]{1,12}\)"
_PAGE_PLACE = re.compile(r"\d\s*(?:" + _ISSUE + r"\s*)?[,:]\s*$")
#: APA's "volume(issue), page": a number after it is the page, even where another style
#: prints its year ("The Lancet, 183(4735),1554."); after a volume alone it may be IEEE's
#: year ("vol. 3, no. 4, 2019."), so only :data:`_PAGE_PLACE`'s loose years are refused so.
_AFTER_ISSUE = re.compile(r"\d\s*" + _ISSUE + r"\s*,\s*$")


#: Chicago's issue in brackets before its month or season ("Nature 77 (2007) (April):
#: 569"): an issue number, never the year.
_ISSUE_BEFORE_MONTH = re.compile(
    r"\(\s*\d{1,4}\s*\)(?=\s*\((?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|spring"
    r"|summer|autumn|fall|winter)[a-z]*\.?\))",
    re.IGNORECASE,
)


#: An issue in brackets after a number, then the page: the number is APA's volume
#: ("Biochimica et Biophysica Acta, 1850(1), 178–185"), never the year.
_ISSUE_NEXT = re.compile(r"\s*" + _ISSUE + r"\s*[,:]")


def _visible(text: str) -> str:
    """``text`` with the numbers that are never the year blanked out (same length)."""
    text = _HIDDEN.sub(lambda m: " " * len(m.group(0)), text)
    text = _ISSUE_BEFORE_MONTH.sub(lambda m: " " * len(m.group(0)), text)
    return _RANGE.sub(lambda m: " " * len(m.group(0)), text)


#: A bracketed year that extraction split with a space ("(20 17)", "(2 010)").
_SPLIT_BRACKETED = re.compile(r"\(\s*(\d{1,3}) (\d{1,3})\s*\)")


def years_in_place(text: str) -> list[tuple[int, int]]:
    """Every year in a place where a style prints the year: ``(year, weight)``, strongest
    first, then in order of appearance.  A bracketed year split by a space is the year
    where APA puts it (extraction's "(20 17)"), as strong as one printed whole."""
    visible = _visible(text)
    found: dict[int, tuple[int, int]] = {}
    for match in _SPLIT_BRACKETED.finditer(visible):
        joined = match.group(1) + match.group(2)
        if _WHOLE_YEAR.fullmatch(joined):
            found[match.start(1)] = (int(joined), 5)
    for pattern, weight in _PLACES:
        for match in pattern.finditer(visible):
            year, at = int(match.group(1)), match.start(1)
            if weight < 5 and _AFTER_ISSUE.search(visible, 0, at):
                continue
            if at not in found or found[at][1] < weight:
                found[at] = (year, weight)
    return [found[at] for at in sorted(found, key=lambda a: (-found[a][1], a))]


def cited_year(text: str) -> int | None:
    """The year a printed reference gives for its work, or None.

    The strongest place wins; without any, a lone year outside the hidden spans (a page
    range, a DOI, an access date) is taken, and with several such years none is (a year in
    a title and one in an unknown place cannot be told apart); a number where the first page
    goes, after the volume, or a volume before its issue ("1850(1), 178"), is never taken
    so.  An entry that prints "n.d." (no date) where the year goes has said it has none,
    and one that prints its bracketed year garbled ("(20I4)") has printed it where it goes:
    a year elsewhere in either is a venue's or a title's ("ISCAS 2001. The 2001 IEEE
    International Symposium ..."), never taken so."""
    placed = years_in_place(text)
    if placed:
        return placed[0][0]
    visible = _visible(text)
    if _NO_DATE.search(text) or _garbled_year(visible):
        return None
    loose = {
        int(m.group(1))
        for m in _ANY_YEAR.finditer(visible)
        if not _PAGE_PLACE.search(visible, 0, m.start()) and not _ISSUE_NEXT.match(visible, m.end())
    }
    return loose.pop() if len(loose) == 1 else None


#: A year in brackets, where APA, AIP and Elsevier put it, with one digit OCR read as a
#: letter: "(20I4)", "(197K)".
_BRACKETED = re.compile(r"\(\s*([12][0-9A-Za-z]{3})\s*\)")


def _garbled_year(visible: str) -> bool:
    """Whether the entry (its :func:`_visible` text) prints its year where its style puts
    it, garbled: then a year elsewhere is a title's ("Uit de Economist van 1854. (20I4). De
    Economist, 152(2)"), never taken for the year."""
    return any(sum(c.isalpha() for c in m.group(1)) == 1 for m in _BRACKETED.finditer(visible))


def number_tokens(text: str) -> frozenset[str]:
    """Every number printed in ``text`` outside DOIs and URLs, without leading zeros, and
    the parts of page ranges ("844–852" gives 844 and 852): a record's volume and pages are
    looked for among them."""
    visible = LINKS.sub(" ", text)
    tokens = {t.lstrip("0") or "0" for t in re.findall(r"(?<![\w.])\d+(?![\d])", visible)}
    # article numbers and lettered pages: e0102, B551, C347, L12, a cover's CO4, an
    # appendix's App4, a page's second half 90a
    for match in _LETTERED.finditer(visible):
        tokens.add(match.group(0).lower())
        if match.group("core"):
            tokens.add(match.group("core").lower())  # "S168R": OCR glued a letter to S168
    # a volume of a numbered series: Notes and Queries' "s9-VII", ninth series, volume 7
    tokens.update(m.lower() for m in _SERIES_VOLUME.findall(visible.translate(_DASHES)))
    # a volume or a front matter's page in Roman numerals ("LI", "xiii"), in capitals or in
    # lower case as printed (never a name's "Li"), kept in capitals apart from the digits
    tokens.update(
        m.group(0).upper()
        for m in _ROMAN_TOKEN.finditer(visible)
        if m.group(0).isupper() or m.group(0).islower()
    )
    return frozenset(tokens)


_SERIES_VOLUME = re.compile(r"\b[sS]\d{1,2}-[IVXLCivxlc]{1,6}\b")
_ROMAN_TOKEN = re.compile(_ROMAN, re.IGNORECASE)
_DASHES = str.maketrans(dict.fromkeys("‐‑‒–—", "-"))


#: A page or article number with letters: before its digits (up to three: "e0102", "CO4",
#: "App4") or one after them ("90a"), or a word before them, as J-STAGE numbers a
#: journal's notices and covers ("Announce11", "Cover11").
_LETTERED = re.compile(
    r"\b(?:(?P<core>[A-Za-z]{1,3}\d+)[A-Za-z]?|\d+[A-Za-z]|[A-Z][a-z]{3,9}\d{1,4})\b"
)


def has_number(tokens: frozenset[str], value: str | None) -> bool | None:
    """Whether a record's number (a volume, a first page) is printed; None when the record
    has none that can be looked for."""
    if not value:
        return None
    printed = value.strip().translate(_DASHES)
    bare = printed.lower()
    if _SERIES_VOLUME.fullmatch(bare):
        return bare in tokens
    if _ROMAN_TOKEN.fullmatch(printed) and (printed.isupper() or printed.islower()):
        return printed.upper() in tokens
    if bare.isdigit():
        return (bare.lstrip("0") or "0") in tokens
    joined = _JOINED.fullmatch(bare)
    if joined:
        # a volume that joins several ("185-189", "12/13"): lists print one end or both,
        # and extraction glues the first to the venue ("Superconductivity185-189")
        return any((n.lstrip("0") or "0") in tokens for n in joined.groups())
    if _LETTERED.fullmatch(printed) or _LETTERED.fullmatch(bare):
        if bare in tokens:
            return True
        if bare[0].isalpha():
            return False  # a page with letters before its digits is printed whole or not
    # "19A" printed "19", "329B" printed "329": its digits
    digits = re.findall(r"\d+", bare)
    return (digits[0].lstrip("0") or "0") in tokens if digits else None


#: A record's number that joins two: a combined volume ("185-189", "12/13").
_JOINED = re.compile(r"(\d+)\s*[-/]\s*(\d+)")
_Y = r"(?:1[5-9]|20)\d\d"
#: A page as printed: its digits, up to three letters before them ("App4", "e0102", "S168")
#: and one after ("90a", "19A"), or a capitalised word before them ("Announce11").
_PAGE_FORM = r"(?:[A-Za-z]{0,3}\d+[A-Za-z]?|[A-Z][a-z]{3,9}\d{1,4})"
_PAGE = rf"({_PAGE_FORM})"
_COORDINATES: tuple[re.Pattern[str], ...] = (
    re.compile(r"\bvol\.?\s*(\d+)\b.*?\bpp?\.\s*" + _PAGE, re.IGNORECASE),  # IEEE, MLA
    re.compile(r"\b" + _Y + r"[a-z]?[^;]{0,24};\s*(\d+)\s*(?:\([^)]{0,12}\))?\s*:\s*" + _PAGE),
    re.compile(r"\b" + _Y + r"[a-z]?\s*,\s*(\d+)\s*(?:\([^)]{0,12}\))?\s*,\s*" + _PAGE),  # ACS
    re.compile(r"\b" + _Y + r"[a-z]?\s*,\s*(" + _ROMAN + r")\s*,\s*" + _PAGE),  # ACS, "LI"
    # AIP and Elsevier, the volume glued to the venue as extraction leaves it ("Review24"),
    # AIP's page with a letter after it ("76, 386 A (2004)")
    re.compile(r"(?<![\d.])(\d+)\s*,\s*" + _PAGE + r"(?:\s[A-Z])?\s*\(\s*" + _Y + r"\s*\)"),
    re.compile(r"(?<![\d.])(\d+)\s*\(\s*" + _Y + r"\s*\)\s*" + _PAGE),
    # APA, Harvard: "30(4), 844–852", "315(8158), pp.31–33", "19(1), p.88."
    re.compile(r",\s*(\d+)\s*(?:\([^)]{0,12}\))?\s*[,:]\s*(?:pp?\.\s*)?" + _PAGE + r"\s*[-‐‑‒–—]"),
    re.compile(r",\s*(\d+)\s*(?:\([^)]{0,12}\))?\s*,\s*pp?\.\s*" + _PAGE + r"\b"),
    # APA's volume(issue) and a single page ("71(1), 36.")
    re.compile(r",\s*(\d+)\s*\([^)]{1,12}\)\s*,\s*" + _PAGE + r"\b(?![-‐‑‒–—])"),
    # MLA "77.13 (1998): 1525", Chicago "633 (1-2) (August): 189"
    re.compile(r"\b(\d+)(?:\.\d+)?\s*(?:\([^)]{0,20}\)\s*){1,2}:\s*" + _PAGE),
)
_PAGES_LABEL = re.compile(r"\bpp?\.")
_PAGE_RANGE = re.compile(r"(?<![(\w.])([A-Za-z]?\d+)\s*[-‐‑‒–—]+\s*([A-Za-z]?\d+)\b(?!\s*\))")


def printed_first_page(text: str) -> str | None:
    """The first page of the last page range a string prints ("776–785"), outside DOIs and
    URLs and brackets (an issue "(3–4)"), never a span of years ("1830–1900"); None
    without one.  A record whose first page is not it is another article."""
    visible = LINKS.sub(" ", text)
    visible = _PAGES_LABEL.sub(" ", visible)  # "pp.391–406"
    found = None
    for match in _PAGE_RANGE.finditer(visible):
        first, last = match.group(1), match.group(2)
        if all(re.fullmatch(_YEAR, n) for n in (first, last)):
            continue
        found = first.lstrip("0") or "0"
    return found


_MARKER = re.compile(r"^\s*(?:\[\d+\]|\(\d+\)|\d+[.)]?)\s+")
_INITIALS = re.compile(r"^(?:[A-Z]\.?-?)+(?:[A-Z]\.?)?[,;]?$")


def coordinates(text: str) -> tuple[str, str] | None:
    """``(volume, first page)`` as a citation style prints them, or None: what identifies a
    work whose title the style leaves out (with the first author and the year)."""
    visible = LINKS.sub(" ", text)
    for pattern in _COORDINATES:
        match = pattern.search(visible)
        if match:
            return match.group(1).lstrip("0") or "0", match.group(2)
    return None


#: A page a title-less style prints beside the year, at the end, without a volume: AIP's
#: "Invented Geology 517 (n.d.).", Elsevier's "Invented Geology (2001) 517.".  (ACS's
#: "Invented Geology 2001, 517." is not read: ACS prints a volume without pages alike, and
#: so does Elsevier "Invented Geology 18 (1987).", which the first pattern reads as AIP's.)
_PAGE_BY_YEAR = (
    re.compile(r"(?<![\d.])([A-Za-z]?\d{1,5})\s*\(\s*(?:" + _Y + r"|n\.\s?d\.)\s*\)\W*$"),
    re.compile(r"\(\s*(?:" + _Y + r"|n\.\s?d\.)\s*\)\s*" + _PAGE + r"\W*$"),
)


def page_by_year(text: str, *, bracketed: bool = False) -> str | None:
    """The page a title-less style prints beside the year at the end of an entry whose work
    has no volume (a chapter, a journal numbered by year), or None.

    ``bracketed``: the entry's list marker is "[3]", the numbered styles' (Elsevier's, not
    AIP's bare "3"), where "Venue 18 (1987)." is a volume without its page."""
    tail = text[-200:]
    for pattern in _PAGE_BY_YEAR[1:] if bracketed else _PAGE_BY_YEAR:
        match = pattern.search(tail)
        if match:
            return match.group(1)
    return None


def first_surname(text: str) -> str | None:
    """The first author's surname of a printed reference that was not read into fields:
    the first word of two letters or more after the list marker that is not initials."""
    for word in _MARKER.sub("", text).split()[:8]:
        # "Chen,mA.-P.": a comma without its space still ends the surname
        bare = re.split(r"[,;]", word.strip(",;:.()[]\"'"), maxsplit=1)[0]
        if len(bare) >= 2 and not _INITIALS.match(word) and bare[0].isupper():
            return bare
    return None


_PAGE_LABELLED = re.compile(r"\bpp?\.\s*" + _PAGE_FORM)


def numbers_identify(text: str, *, bracketed: bool = False) -> bool:
    """Whether a string prints the numbers that name an article or a chapter where a style
    puts them: the volume and first page (:func:`coordinates`), a page range
    (:func:`printed_first_page`), a page beside the year (:func:`page_by_year`, which
    ``bracketed`` is passed to), or a page labelled as one ("p. 427")."""
    if _PAGE_LABELLED.search(LINKS.sub(" ", text)):
        return True
    if coordinates(text) is not None or printed_first_page(text) is not None:
        return True
    return page_by_year(text, bracketed=bracketed) is not None
