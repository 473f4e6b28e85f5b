"""Works the bibliographic databases do not hold, recognised from how an entry prints them.

Books without a DOI, theses, standards, software and model cards, data sets, web pages,
government and legal documents are real works that Crossref, PubMed, OpenAlex and DataCite
often do not record.  Not finding one of them there says nothing about whether it exists, so
such an entry is ``unchecked`` with the kind recognised and what a person should look at,
never "may be fabricated".  What citeproof can check of them it does: an ISBN's check digit
here, whether a URL answers in ``refs.lookup``.

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeproof.refs.stated import StatedReference

__all__ = ["OutsideKind", "isbn_problem", "isbns_in", "outside_kind", "urls_in"]


@dataclass(frozen=True, slots=True)
class OutsideKind:
    """A kind of work outside the databases, and where a person can confirm it."""

    kind: str
    look: str


_KINDS: tuple[tuple[str, re.Pattern[str], str], ...] = (
    (
        "thesis",
        re.compile(
            r"\b(?:ph\.?\s?d\.?|doctoral|master'?s|m\.?sc\.?|m\.?a\.?|bachelor'?s|diploma|"
            r"habilitation)\s+(?:thesis|dissertation)\b|\b(?:thesis|dissertation|"
            r"dissertations? abstracts)\b|\[(?:dissertation|thesis)\]",
            re.IGNORECASE,
        ),
        "the university's repository or a thesis database (ProQuest, EThOS, DART-Europe)",
    ),
    (
        "standard",
        re.compile(
            r"\b(?:ISO|IEC|ISO/IEC|NISO\s+Z\d|ANSI|ASTM|IEEE\s+Std|BS\s+EN|DIN(?:\s+EN)?|"
            r"CEN|EN|ITU-T|ETSI|RFC)\s*[A-Z]?\s*\d[\d.:/-]*|\bstandard\s+(?:no\.|number)",
        ),
        "the standards body's catalogue (ISO, IEC, NISO, IEEE, IETF ...)",
    ),
    (
        "software",
        re.compile(
            r"\bgithub\.com/|\bgitlab\.com/|\bbitbucket\.org/|\bhuggingface\.co/|\bpypi\.org/|"
            r"\bcran\.r-project\.org|\[(?:computer\s+)?software\]|\bR package\b|"
            r"\bsoftware\b.*\bversion\b|\bmodel card\b|\bsource code\b",
            re.IGNORECASE,
        ),
        "the repository or registry the entry names (its release and version)",
    ),
    (
        "data set",
        re.compile(
            r"\[data\s*set\]|\bdata\s*set\b|\bdataset\b|\bdata repository\b|\bdryad\b|"
            r"\bfigshare\b|\bgeo accession\b|\bGSE\d{3,}\b|\bPRJ[A-Z]{2}\d+\b",
            re.IGNORECASE,
        ),
        "the data repository and the accession or DOI it gives",
    ),
    (
        "legal or government document",
        re.compile(
            r"\b(?:Act|Regulation|Directive|Decision)\s+(?:\(EU\)|\(EC\)|No\.?|of\s+\d{4})|"
            r"\b\d+\s+U\.?S\.?C\.?|\bFederal Register\b|\bPublic Law\b|\bOfficial Journal of"
            r"|\bStatutory Instrument\b|\bCode of Federal Regulations\b|\bC\.?F\.?R\.?\b|"
            r"\bv\.\s+[A-Z][a-z]+.*\b\d+\s+(?:U\.?S\.?|F\.\s?\d?d?|S\.\s?Ct\.)\s+\d+|"
            r"\b(?:Ministry|Department) of\b|\bWorld Health Organization\b|\bWHO\s+(?:guideline|"
            r"report)|\bgovernment\b|\bparliament\b|\bcongress(?:ional)?\b",
            re.IGNORECASE,
        ),
        "the issuing body's official publication or legal database",
    ),
    (
        "book",
        re.compile(
            r"\bISBN\b|\b\d+(?:st|nd|rd|th)\s+ed(?:ition|n)?\.?|\b(?:eds?|editors?)\.?\)|"
            r"\((?:eds?|editors?)\.?\)|\bpublishers?\b|\bpress\b|\b(?:springer|wiley|elsevier|"
            r"routledge|sage|crc|academic|oxford university|cambridge university)\b.*\b\d{4}\b",
            re.IGNORECASE,
        ),
        "a library catalogue (WorldCat) or the publisher's catalogue, by title and ISBN",
    ),
    (
        "web page",
        re.compile(
            r"\b(?:retrieved|accessed|available|cited|viewed)\b[^.]*\b(?:from|at|on|\d{4})\b|"
            r"\[(?:internet|online|web page|website)\]|\bhttps?://",
            re.IGNORECASE,
        ),
        "the page itself (or an archived copy, e.g. the Wayback Machine)",
    ),
)
_JOURNAL_LIKE = re.compile(r"\b\d+\s*\(\s*\d+\s*\)\s*[:,]|\bvol\.?\s*\d|;\s*\d+\s*[:(]")
_ISBN = re.compile(r"\bISBN(?:-1[03])?:?\s*((?:97[89][\s-]?)?(?:\d[\s-]?){9}[\dXx])", re.I)
_URL = re.compile(r"https?://[^\s<>\"')\]]+", re.IGNORECASE)


def outside_kind(stated: StatedReference) -> OutsideKind | None:
    """The kind of work outside the databases ``stated`` prints, or None (an article).

    An entry printed like a journal article (a volume and issue, ``2019;12:34``) is an
    article whatever else it mentions; the first kind whose pattern the entry matches
    wins, most specific first.  A structured entry's own type decides when it has one.
    """
    kind = (stated.kind or "").casefold()
    by_type = {
        "phdthesis": "thesis",
        "mastersthesis": "thesis",
        "thesis": "thesis",
        "software": "software",
        "dataset": "data set",
        "data": "data set",
        "book": "book",
        "webpage": "web page",
        "online": "web page",
        "misc-web": "web page",
        "standard": "standard",
        "legislation": "legal or government document",
        "legal_case": "legal or government document",
        "report": "legal or government document",
    }
    looks = {k: look for k, _, look in _KINDS}
    if kind in by_type and not stated.doi:
        name = by_type[kind]
        return OutsideKind(name, looks[name])
    text = " ".join(p for p in (stated.text, stated.venue or "") if p)
    if _JOURNAL_LIKE.search(text) and not re.search(r"\bISBN\b", text, re.I):
        return None
    for name, pattern, look in _KINDS:
        if pattern.search(text):
            return OutsideKind(name, look)
    return None


def isbns_in(text: str) -> list[str]:
    """The ISBNs printed in ``text``, digits (and X) only."""
    return [re.sub(r"[\s-]", "", m.group(1)).upper() for m in _ISBN.finditer(text)]


def isbn_problem(isbn: str) -> str | None:
    """Why ``isbn`` cannot be an ISBN (its length or its check digit), or None."""
    digits = isbn.upper()
    if len(digits) == 10:
        if not re.fullmatch(r"\d{9}[\dX]", digits):
            return f"ISBN {isbn} is not 9 digits and a check digit"
        total = sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(digits))
        return None if total % 11 == 0 else f"the check digit of ISBN {isbn} is wrong"
    if len(digits) == 13:
        if not digits.isdigit():
            return f"ISBN {isbn} is not 13 digits"
        total = sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(digits))
        return None if total % 10 == 0 else f"the check digit of ISBN {isbn} is wrong"
    return f"ISBN {isbn} has {len(digits)} digits, not 10 or 13"


def urls_in(text: str) -> list[str]:
    """The web addresses an entry prints (trailing punctuation dropped), in order."""
    return list(dict.fromkeys(u.rstrip(".,;:") for u in _URL.findall(text)))
