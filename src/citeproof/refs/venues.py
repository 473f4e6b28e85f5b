"""When a printed venue is the journal a record names, abbreviated or not.

Styles print venues as ISO 4 / NLM abbreviations ("J. Am. Chem. Soc.", "Phys. Rev. Lett.",
"Proc. Natl. Acad. Sci. U.S.A.", "Intensive Care Med."), and databases record the full title
("Journal of the American Chemical Society"), sometimes beside an abbreviation of their own
(Crossref ``short-container-title``, PubMed's NLM ``source``).  ISO 4 abbreviates each word of
the title by dropping letters (never adding or reordering them) and drops articles,
prepositions and conjunctions; so a printed word abbreviates a title word when its letters
occur in that word in order, starting with its first letter ("natl" of "national", "soc" of
"society").  The comparison walks both titles word by word on that rule.  No maintained
library does this (the one on the registries was last released in 2021 and needs the LTWA
list); the rule is the LTWA's own principle, and records' own abbreviations are checked too.

Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = ["abbreviates", "letters_in", "same_venue", "venue_words"]

#: Words ISO 4 leaves out of an abbreviation (and some styles keep).
_SKIP = frozenset(
    {
        "of",
        "the",
        "and",
        "for",
        "in",
        "on",
        "a",
        "an",
        "to",
        "de",
        "la",
        "le",
        "des",
        "du",
        "der",
        "die",
        "das",
        "und",
        "fur",
        "et",
        "y",
        "e",
        "di",
        "del",
        "della",
        "at",
        "&",
    }
)


@lru_cache(maxsize=65536)
def venue_words(text: str) -> tuple[str, ...]:
    """The folded words of a venue, without the words ISO 4 leaves out; "U.S.A." is one
    word ("usa") and "Lett." is "lett"."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()
    bare = re.sub(r"\b([a-z])\.(?=[a-z]\.)", r"\1", bare)  # u.s.a. -> usa.
    bare = bare.replace("&", " and ")
    words = re.sub(r"[^\w]+", " ", bare).split()
    joined: list[str] = []
    run: list[str] = []  # "u s a" (NLM's "U S A") is one word of initials
    for word in [*words, ""]:
        if len(word) == 1 and word.isalpha():
            run.append(word)
            continue
        if run:
            joined.append("".join(run))
            run = []
        if word:
            joined.append(word)
    return tuple(w for w in joined if w not in _SKIP)


def letters_in(short: str, word: str) -> bool:
    """Whether the letters of ``short`` stand in ``word`` in order (dropping letters is how
    an abbreviation is made: "Phys" in "physical")."""
    at = 0
    for letter in short:
        at = word.find(letter, at)
        if at < 0:
            return False
        at += 1
    return True


def _subsequence(short: str, word: str) -> bool:
    if not short or not word or short[0] != word[0]:
        return False
    return letters_in(short, word)


def abbreviates(short: str, full: str) -> bool:
    """Whether ``short`` is an ISO 4 style abbreviation of ``full`` (or the same title).

    Every word of ``short`` abbreviates the next word of ``full``, in order, and every word
    of ``full`` is used: "Phys. Rev." is not "Physical Review Letters", nor "Nature" "Nature
    Communications".  A word of initials stands for as many words ("U.S.A." for "United
    States of America", "LNCS" for "Lecture Notes in Computer Science").
    """
    s, f = venue_words(short), venue_words(full)
    if not s or not f or len(s) > len(f):
        return False
    i = 0
    for word in s:
        if i >= len(f):
            return False
        if _subsequence(word, f[i]):
            i += 1
        elif len(word) >= 2 and "".join(w[0] for w in f[i : i + len(word)]) == word:
            i += len(word)
        else:
            return False
    return i == len(f)


def same_venue(stated: str, names: tuple[str, ...]) -> bool:
    """Whether ``stated`` is any of a record's venue names, in full or abbreviated either way
    (a record may hold the abbreviation and the entry the full title)."""
    for name in names:
        if not name:
            continue
        if venue_words(stated) == venue_words(name):
            return True
        if abbreviates(stated, name) or abbreviates(name, stated):
            return True
    return False
