"""When two printed surnames name the same person, as reference lists really print them.

Real strings carry every kind of noise a name can: a wrong letter (PDF extraction, OCR,
typing), missing diacritics, transliterations (``Müller``, ``Mueller``, ``Muller``; ``Søren``,
``Soren``), particles kept or dropped (``van der Berg``, ``Berg``), compound and hyphenated
names of which a list prints one part (``García-Márquez``, ``García Márquez``, ``García``),
suffixes read as the surname (``Dennis Jr G``), and group authors.  A false "the authors
differ" turns a real reference into ``partial``, so the rules below err on the side of the
same person; what they may not do is make two different short names equal, so the typo
tolerance grows with the name's length.

Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "CAPITALS",
    "NAME_LETTERS",
    "family_keys",
    "near_family",
    "one_edit",
    "same_family",
    "strip_suffix",
]

#: The capitals a printed name may begin with, as a regular expression's character class
#: content: ASCII's and the Latin scripts' ("Łużniak", "Żarnecki", "Ødegård").
CAPITALS = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper())
#: What may follow a name's first letter, likewise: letters, apostrophes, hyphens, and the
#: combining marks a letter without a precomposed form keeps ("Martı́nez": a dotless i and
#: a combining acute, as Crossref prints LaTeX's accent).
NAME_LETTERS = r"\w'’\-‐‑\u0300-\u036f"

#: Name suffixes a list may print where the surname goes ("Dennis Jr G").
SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "v", "2nd", "3rd", "junior", "senior"})
#: Particles a list may keep or drop before a surname.
PARTICLES = frozenset(
    {
        "van",
        "von",
        "der",
        "den",
        "de",
        "del",
        "della",
        "da",
        "di",
        "le",
        "la",
        "du",
        "des",
        "dos",
        "das",
        "do",
        "ten",
        "ter",
        "te",
        "af",
        "al",
        "el",
        "bin",
        "ibn",
        "mac",
        "st",
        "san",
        "y",
    }
)
#: Letters a transliteration writes as two (German umlauts, Nordic letters, ligatures).
_DIGRAPHS = (("ae", "a"), ("oe", "o"), ("ue", "u"), ("aa", "a"))
_SPECIAL = str.maketrans(
    {
        "ß": "ss",
        "ø": "o",
        "Ø": "o",
        "ł": "l",
        "Ł": "l",
        "đ": "d",
        "Đ": "d",
        "æ": "ae",
        "Æ": "ae",
        "œ": "oe",
        "Œ": "oe",
        "þ": "th",
        "ð": "d",
        "ı": "i",
    }
)


def _bare(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.translate(_SPECIAL))
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def strip_suffix(words: list[str]) -> list[str]:
    """``["dennis", "jr"]`` -> ``["dennis"]``: a suffix is never the family name."""
    kept = [w for w in words if w.strip(".") not in SUFFIXES]
    return kept or words


@lru_cache(maxsize=65536)
def family_keys(name: str) -> frozenset[str]:
    """Every spelling of a folded surname a list may print: the whole name, each part of
    a compound or hyphenated name, the name without particles, and the transliterated forms
    (``muller`` for ``mueller``), so ``same_family`` can compare sets."""
    words = strip_suffix(re.sub(r"[^\w]+", " ", _bare(name)).split())
    if not words:
        return frozenset()
    core = [w for w in words if w not in PARTICLES] or words
    keys = {"".join(words), "".join(core), *core}
    for key in list(keys):
        plain = key
        for pair, single in _DIGRAPHS:
            plain = plain.replace(pair, single)
        keys.add(plain)
    return frozenset(k for k in keys if len(k) > 1)


def one_edit(a: str, b: str) -> bool:
    """Within one substitution, insertion, deletion or swap of neighbours."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diff) <= 1:
            return True
        i, j = diff[0], diff[-1]
        return len(diff) == 2 and j == i + 1 and a[i] == b[j] and a[j] == b[i]
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


def same_family(a: str, b: str) -> bool:
    """Whether two printed surnames can name the same person (see the module docstring).

    A typo is tolerated in names of five letters or more, and only away from the first
    letter, which extraction and typing rarely miss and which short different names share.
    """
    keys_a, keys_b = family_keys(a), family_keys(b)
    if not keys_a or not keys_b:
        return False
    if keys_a & keys_b:
        return True
    for x in keys_a:
        for y in keys_b:
            if min(len(x), len(y)) >= 5 and x[0] == y[0] and one_edit(x, y):
                return True
    return False


def near_family(a: str, b: str) -> bool:
    """One letter off a short surname ("Luyd" for "Luyt"), or a first letter OCR misread
    ("Qhi" for "Shi", "dart" for "Hart"): a typo or another person, which only the other
    fields can tell (``refs.scoring`` lets the title and year decide)."""
    for x in family_keys(a):
        for y in family_keys(b):
            if min(len(x), len(y)) < 3:
                continue
            if (x[0] == y[0] and one_edit(x, y)) or (len(x) == len(y) and x[1:] == y[1:]):
                return True
    return False
