"""What a reference says about the work it cites, whatever list it came from.

Every reader (BibTeX, RIS, CSL-JSON, a plain list, an answer's reference list, a JATS
``<ref-list>``, a PDF's references) produces the same :class:`StatedReference`, so the
lookup and the comparison never know the format.  A reference may be structured (fields
from BibTeX or CSL-JSON), unstructured (only ``text``, as most PDF and answer entries are),
or both (a JATS ``mixed-citation`` has its fields *and* its printed string).  Search and
validation use the fields where they exist and the text otherwise, as Crossref's
search-based matching does with unstructured strings.

Pure: no I/O.  Names are kept as printed; :func:`surname` derives what is compared.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from citeproof.refs.numbers import LINKS, numbers_identify

__all__ = [
    "SEARCH_WORDS",
    "StatedReference",
    "fold",
    "searchable",
    "surname",
    "year_in",
    "years_in",
]

_YEAR = re.compile(r"(?<![0-9])(1[6-9][0-9]{2}|20[0-9]{2})(?![0-9])")
_PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "da", "di", "le", "la"})


@dataclass(frozen=True, slots=True)
class StatedReference:
    """One entry of a reference list, as its author wrote it."""

    text: str = ""
    """The entry as printed (for a structured entry, a readable string built from it)."""
    title: str | None = None
    authors: tuple[str, ...] = ()
    """Author names as given: ``"Smith, John"``, ``"J. Smith"``, ``"Smith J"``."""
    year: int | None = None
    venue: str | None = None
    """Journal, book or proceedings title."""
    doi: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    label: str | None = None
    """The entry's number or citation key (``"3"``, ``"smith2019"``)."""
    where: str | None = None
    """Where the entry stands in its file: ``"line 12"``, ``"entry 3"``, ``"page 9"``."""
    kind: str | None = None
    """The entry's own type (``article``, ``book``, ``dataset`` ...), when it says."""
    extra_ids: tuple[str, ...] = field(default_factory=tuple)
    """Other identifier keys the entry names (``arxiv:…``, URLs), reported, not looked up."""
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    """As stated: ``844-852``, ``e0102``; a string's numbers are read when compared."""
    doi_alternatives: tuple[str, ...] = ()
    """Other readings of ``doi`` where a line end broke it and left a doubt (a hyphen or a
    full stop at the end of the line: ``citeproof.identifiers.mend_line_breaks``), likelier
    first: a look-up that finds no record for ``doi`` tries these before calling it
    unresolvable."""
    malformed_ids: tuple[str, ...] = ()
    """What the entry writes as an identifier that is none (``doi:10.``, ``PMID: 0``), as
    written: not looked up, and said in the verdict's reason."""
    marker: str | None = None
    """The list marker the entry was printed with ("[3]", "3.", "(3)"). It tells apart
    styles whose fields print alike: after "[3]" (Elsevier's numbered style) "Venue 18
    (1987)." is a volume without its page; after AIP's bare "3", which stays in the text,
    it is a page without a volume."""

    @property
    def identifiers(self) -> tuple[tuple[str, str], ...]:
        """``(kind, value)`` of each identifier the entry names, DOI first."""
        out: list[tuple[str, str]] = []
        for kind, value in (("doi", self.doi), ("pmid", self.pmid), ("pmcid", self.pmcid)):
            if value:
                out.append((kind, value))
        return tuple(out)

    @property
    def surnames(self) -> tuple[str, ...]:
        """Folded surnames of the stated authors, in order; empty when none were given."""
        return tuple(s for s in (surname(a) for a in self.authors) if s)

    @property
    def is_empty(self) -> bool:
        """Nothing to look up: no identifier, no title, and no text a search could find a
        work by (:func:`searchable`).  Such an entry ("Smith", "Nature, 2019", a citation
        key, ``doi:10.``) is not asked about at all: a search for it would find nothing that
        validates, and "no database holds it" would accuse a reference of being fabricated
        for saying too little."""
        return not self.identifiers and not self.title and not searchable(self.text)


#: Words that say nothing about which work is meant: labels, "et al.", the small words of a
#: title or a venue.
_NOT_NAMING = frozenset(
    "doi pmid pmcid pmc isbn issn url http https www et al and eds ed edn vol pp no nr in "
    "the of a an for on to at from available online retrieved accessed epub ahead print".split()
)
_STRIP = ".,;:()[]{}<>\"'“”‘’«»!?&*+=/|~`"
_WORD = re.compile(r"[^\W\d_]{2,}(?:['’\-][^\W\d_]+)*")
#: Scripts written without spaces between words: a token is a phrase, not one word.
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\u0e00-\u0e7f]")
#: A list number or a volume glued to a word by extraction ("1BMJ", "Review24").
_GLUED = re.compile(r"^\d{1,4}(?=[^\W\d_]{2})|(?<=[^\W\d_]{2})\d{1,4}$")
#: What separates a string's words: a comma with no space after it too ("Smith,Nature"),
#: and a full stop between letters ("H.P.Leite", "J.Chem.Phys").
_TOKENS = re.compile(r"[\s,;]+|(?<=[^\W\d_])\.(?=[^\W\d_])")
#: A volume and a page side by side ("2, 363"), whatever OCR made of the year after them.
_VOLUME_PAGE = re.compile(
    r"(?<![\d.])(?!(?:1[5-9]|20)\d\d\b)\d{1,4}\s*,\s*[A-Za-z]?\d{1,6}\b(?!\s*,\s*\d)"
)
#: Words a search needs when the entry prints no title it could be read by.
SEARCH_WORDS = 3


def searchable(text: str) -> bool:
    """Whether a printed reference without identifier or title gives a search something to
    find a work by: at least :data:`SEARCH_WORDS` words that could be a title's, an
    author's or a venue's (a year, a page, an initial, "et al.", an identifier's label,
    a citation key like ``Halloway2021`` are none of those), or one such word and the
    numbers that name an article or a chapter (``Nature 2019;571:1-10``, a page range, a
    page beside the year: ``numbers.numbers_identify``), which PubMed and Crossref can match.
    A list number or a volume glued to a word ("1BMJ", "Review24") leaves the word; a volume
    and a page side by side count as numbers whatever OCR made of the year ("2, 363
    o(1919)").
    """
    words = 0
    for token in _TOKENS.split(text):
        bare = _GLUED.sub("", token.strip(_STRIP))
        if _UNSPACED.search(bare):
            words += max(1, len(bare) // 2)
        elif _WORD.fullmatch(bare) and bare.casefold() not in _NOT_NAMING:
            words += 1
        if words >= SEARCH_WORDS:
            return True
    return words > 0 and (numbers_identify(text) or _VOLUME_PAGE.search(text) is not None)


_LOWER_WORD = re.compile(r"(?<![\w'’-])([a-z][a-z'’-]{2,})(?![\w'’-])")


def sentence_words(text: str) -> int:
    """How many words a string prints in lower case that say something (not "and", "of",
    "et al."): the words of a title in sentence case, which names and venues, capitalised,
    do not have.  Why: a string whose reader found no title may print one all the same
    ("Lin TY (1981) Design of prestressed concrete structures"); three such words say it
    does."""
    return sum(1 for w in _LOWER_WORD.findall(LINKS.sub(" ", text)) if w not in _NOT_NAMING)


@lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Lower case, accents and punctuation gone, spaces collapsed: what names are compared as.

    Remembered (bounded): a reference's comparisons fold the same record fields over and over,
    some hundred calls a reference, and the answer depends on the text alone."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    bare = bare.replace("ß", "ss").replace("ø", "o").replace("Ø", "o").replace("ł", "l")
    bare = bare.replace("đ", "d").replace("æ", "ae").replace("œ", "oe").casefold()
    return " ".join(re.sub(r"[^\w]+", " ", bare).split())


#: Vancouver initials after a surname: "JA", and hyphenated for a hyphenated given name
#: ("Kim J-Y", "Luyt C-E"), which are no surname.
_VANCOUVER_INITIALS = re.compile(r"[A-Z]{1,3}|[A-Z](?:-[A-Z]){1,2}")
#: One initial as a name splits into words: "J.", "-Y." of "J.-Y. Kim".
_INITIAL = re.compile(r"-?[A-Z]\.?")


def surname(name: str) -> str:
    """The folded family name of a printed name.

    ``"Smith, John"`` and ``"Smith J"``/``"Smith JA"`` (Vancouver) name Smith; ``"John
    Smith"`` and ``"J. A. Smith"`` too.  A trailing run of one to three capitals is read as
    initials, hyphenated too (``"Kim J-Y"``).  Particles stay with the surname (``"van der
    Berg"``).
    """
    raw = name.strip()
    if not raw:
        return ""
    if "," in raw:
        before, given = raw.split(",", 1)
        head = before.split()
        if not given.strip() and len(head) >= 2 and _VANCOUVER_INITIALS.fullmatch(head[-1]):
            head = head[:-1]  # "Xie S-P,": a Vancouver name with the list's comma after it
        return fold(" ".join(head))
    words = raw.replace(".", ". ").split()
    if len(words) >= 2 and _VANCOUVER_INITIALS.fullmatch(words[-1].replace(".", "")):
        family = [w for w in words[:-1] if not _INITIAL.fullmatch(w)]
        if family:
            return fold(" ".join(family))
        if len(words[-1]) >= 2 and "." not in words[-1]:
            # "B. LI": initials, then a surname in capitals (as lists print many Chinese
            # names); an initial is no surname that could be compared
            return fold(words[-1])
        return fold(words[0])
    given_done = [w for w in words if not re.fullmatch(r"[A-Z]\.|[A-Z]", w)]
    if not given_done:
        return fold(raw)
    # "John Smith", "Jean de la Fontaine": the last word and the particles before it.
    last = len(given_done) - 1
    start = last
    while start > 0 and given_done[start - 1].lower() in _PARTICLES:
        start -= 1
    return fold(" ".join(given_done[start:]))


def year_in(text: str) -> int | None:
    """The first plausible publication year written in ``text``, or None."""
    match = _YEAR.search(text)
    return int(match.group(1)) if match else None


def years_in(text: str) -> list[int]:
    """Every plausible publication year written in ``text`` (an access date is one too)."""
    return [int(y) for y in _YEAR.findall(text)]
