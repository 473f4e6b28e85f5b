"""How well a stated reference matches a database's record: one comparison per field, the
tolerance each is held to, and whether the record is the work the entry cites.

Identity is decided by the fields a citation style prints, never by the title alone:

* **the title**: rapidfuzz ``ratio`` of the folded titles (accents, case and punctuation
  gone), against every title the record holds (with and without its subtitle, in the
  original language, translated); at least :data:`TITLE_SAME` (0.90) is the same title.  The
  same words in another order (``token_set_ratio`` at least 0.90) or a near title (at least
  :data:`TITLE_OTHER`, 0.75: a typo, OCR noise) count only with the first author and the
  year.  For an entry that is only a string, the record's title is looked for *inside* the
  string (Crossref's SBMV way), a short one as whole words.  A title that says nothing by
  itself ("Stroke", "Editorial", "Index", one word, under 12 letters) needs the first author
  and the year as well.
* **the authors**: the first stated surname against the record's first (``refs.names``: a
  typo, diacritics, transliterations, particles, compound names, suffixes); for a string,
  the record's first surname (or two of its first three) among the string's words.
* **the year**: the year the style prints where a year goes (``refs.numbers``), within
  :data:`YEAR_TOLERANCE` (1) of the record's (online-first and print years differ).
* **the venue**: the same title, or an ISO 4 / NLM abbreviation of it either way
  (``refs.venues``), against every name the record gives its venue.
* **volume and first page**: the record's numbers among the entry's.  With the first author,
  the year and the venue (when printed), they identify a work whose title the style does not
  print (ACS, AIP, Elsevier numbered), as PubMed's ECitMatch does: ``decided_by`` names them.

What the comparison concludes (``fit``): ``match`` (the record is the work), ``partial``
(the record has the entry's title, or all its numbers, but another field differs), ``close``
(a near title the other fields do not confirm), ``other`` (another work), and why, in
``decided_by``.  A record that cannot be the work an entry cites whatever its fields say —
a correction, erratum or retraction notice, a book review, when the entry cites no notice;
the book or proceedings volume when the entry cites a part of it — is ``other``, and
``note`` says which.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rapidfuzz import fuzz, process
from rapidfuzz.distance import OSA

from citeproof.models.references import WorkRecord
from citeproof.refs.names import CAPITALS, NAME_LETTERS, family_keys, near_family, same_family
from citeproof.refs.numbers import (
    LINKS,
    cited_year,
    coordinates,
    has_number,
    number_tokens,
    printed_first_page,
    years_in_place,
)
from citeproof.refs.stated import StatedReference, fold, surname
from citeproof.refs.venues import letters_in, same_venue, venue_words

__all__ = [
    "FIELD_WEIGHTS",
    "TITLE_OTHER",
    "TITLE_SAME",
    "VENUE_SAME",
    "YEAR_TOLERANCE",
    "FieldScore",
    "Fit",
    "Scored",
    "is_preprint",
    "score",
    "venue_garbled_in",
    "year_garbled_in",
]

#: The most characters of an entry that are compared: a reference is a few hundred, and
#: fuzzy scores cost the product of the lengths, so a pasted page must not stall a check.
MAX_COMPARED = 2_000
#: The most authors of each side that are compared (collaborations list thousands).
MAX_AUTHORS = 100
TITLE_SAME = 0.90
TITLE_OTHER = 0.75
VENUE_SAME = 0.80
YEAR_TOLERANCE = 1
#: The authors' score of a first surname one letter off a short name ("Luyd" for "Luyt"): a
#: typo when the title and the year agree, another person otherwise.
NEAR_NAME = 0.8
#: ``partial_ratio`` at which a name or venue counts as printed inside a string whose words
#: extraction broke or glued (one character in ten may be wrong).
SQUEEZED_SAME = 90
#: A preprint and its journal version are often a year or two apart.
PREPRINT_YEAR_TOLERANCE = 2
#: How much each field weighs in the overall score, over the fields both sides have.
FIELD_WEIGHTS = {
    "title": 0.5,
    "authors": 0.2,
    "year": 0.1,
    "venue": 0.1,
    "volume": 0.05,
    "pages": 0.05,
}

Agreement = Literal["agrees", "differs", "not_stated", "not_recorded"]
Fit = Literal["match", "partial", "close", "other"]

_SUBTITLE = re.compile(r"\s*(?::|[.?!](?<![A-Z]\.)(?<!\b[A-Za-z]\.))\s+")
#: Titles that say nothing about which work they name: records with them are front matter,
#: indexes, notices, columns.  Matching one of these alone never identifies a work.
GENERIC_TITLES = frozenset(
    fold(t)
    for t in (
        "editorial",
        "index",
        "front matter",
        "frontmatter",
        "back matter",
        "backmatter",
        "guide for authors",
        "instructions for authors",
        "information for authors",
        "register",
        "contents",
        "table of contents",
        "title page",
        "cover",
        "masthead",
        "erratum",
        "errata",
        "correction",
        "corrigendum",
        "retraction",
        "notice",
        "expression of concern",
        "letter to the editor",
        "reply",
        "response",
        "comment",
        "commentary",
        "preface",
        "foreword",
        "introduction",
        "abstracts",
        "abstract",
        "book review",
        "book reviews",
        "reviewers",
        "acknowledgements",
        "acknowledgments",
        "news",
        "obituary",
        "in memoriam",
        "announcement",
        "announcements",
        "meeting report",
        "subject index",
        "author index",
        "issue information",
        "editorial board",
        "conclusion",
        "discussion",
        "summary",
        "references",
        "bibliography",
        "appendix",
        # a journal issue's or a book's parts, each issue has one
        "inside front cover",
        "inside back cover",
        "front cover",
        "back cover",
        "outside front cover",
        "outside back cover",
        "about the cover",
        "cover image",
        "copyright page",
        "copyright",
        "half title page",
        "half title",
        "title pages",
        "contents list",
        "in this issue",
        "full issue",
        "contributors",
        "list of contributors",
        "dedication",
        "glossary",
        "books received",
        "advertisement",
        "advertisements",
        "calendar",
        "welcome",
        "welcome message",
        "message from the chairs",
        "committees",
        "organizing committee",
        "program committee",
        "keynote",
        "keynote address",
        # the plurals and the columns a journal titles its letters, notes and reviews with
        "letters to the editor",
        "letter",
        "letters",
        "correspondence",
        "replies",
        "comments",
        "editorials",
        "corrections",
        "notices",
        "news and announcements",
        "new books",
        "book notes",
        "reviews",
        # the same headings in German and French, as Crossref holds them
        "besprechungen",
        "buchbesprechungen",
        "rezensionen",
        "diskussion",
        "vorwort",
        "einleitung",
        "inhalt",
        "inhaltsverzeichnis",
        "avant-propos",
        "comptes rendus",
    )
)
#: Words that mark a notice or a review of another work; an entry that does not say it
#: cites one cannot be a notice's record.
_NOTICE_WORDS = re.compile(
    r"\b(?:errat(?:um|a)|correction|corrigend(?:um|a)|retract(?:ion|ed)|expression of "
    r"concern|withdraw(?:n|al)|comment(?:ary)? on|reply to|response to|book review|review "
    r"of)\b",
    re.IGNORECASE,
)
#: How a notice's own title names it: "Erratum to: ...", "Correction: ...", "Retraction
#: Note: ...".  An entry printed so cites the notice, not the work it corrects.
_CITES_A_NOTICE = re.compile(
    r"\b(?:errat(?:um|a)|corrigend(?:um|a)|correction|retraction(?:\s+note)?|addendum|"
    r"expression of concern)(?:\s+(?:to|for|of|on|regarding))?\s*:",
    re.IGNORECASE,
)
_NOTICE_TYPES = frozenset(
    {
        "erratum",
        "correction",
        "retraction",
        "retraction of publication",
        "published erratum",
        "expression of concern",
        "comment",
        "letter",
        "book-review",
        "review of book",
    }
)
#: Record types that are a whole a part of which an entry may cite.
_CONTAINER_TYPES = frozenset(
    {
        "book",
        "edited-book",
        "monograph",
        "reference-book",
        "book-set",
        "book-series",
        "proceedings",
        "journal",
        "journal-volume",
        "journal-issue",
        "book-track",
        "proceedings-series",
        "report-series",
        "component",
    }
)
#: What marks a part of a whole: "In:", "In Proceedings", "pp. 12", "chapter" (whole words:
#: the "In" of "International" or "Intensive" marks nothing).
_PART_MARKER = re.compile(r"(?:^|[\s.,;])(?:in\b:?|pp?\.\s*\d|chapter\b|chap\.)", re.I)
_PREPRINT_VENUES = re.compile(
    r"\b(?:biorxiv|medrxiv|arxiv|chemrxiv|psyarxiv|socarxiv|ssrn|research square|"
    r"preprints(?:\.org)?|osf preprints|techrxiv|authorea|eartharxiv|engrxiv|sportrxiv|"
    r"scielo preprints|jmir preprints|zenodo)\b",
    re.IGNORECASE,
)
#: Words of a printed reference that are never a title's: style words, months, publishers.
_STYLE_WORDS = frozenset(
    "and et al eds ed editor editors edn edition vol vols volume no nos number issue pp pages "
    "page doi org http https www available online accessed retrieved cited internet epub "
    "ahead print journal jan feb mar apr may jun jul aug sep sept oct nov dec january "
    "february march april june july august september october november december suppl "
    "supplement part press university publisher publishers inc ltd llc co springer wiley "
    "elsevier crossref pubmed pmid pmcid the of for with from this that".split()
)

THRESHOLDS = {
    "title": f"same title at >= {TITLE_SAME:.2f} (the same words in another order, or a near "
    f"title >= {TITLE_OTHER:.2f}, only with the first author and the year)",
    "authors": "the first author's surname is the record's first author (spelling variants "
    "and one typo in a name of five letters or more allowed; in a shorter one only when the "
    "title and year agree)",
    "year": f"the year printed where the style puts it, within {YEAR_TOLERANCE} year of the record",
    "venue": "the same title, or an ISO 4 / NLM abbreviation of it",
    "volume": "the record's volume among the entry's numbers",
    "pages": "the record's first page (or article number) among the entry's numbers",
}


@dataclass(frozen=True, slots=True)
class FieldScore:
    field: str
    stated: str | None
    record: str | None
    score: float | None
    agreement: Agreement

    @property
    def threshold(self) -> str:
        return THRESHOLDS[self.field]


@dataclass(frozen=True, slots=True)
class Scored:
    """A record held against a stated reference."""

    record: WorkRecord
    fields: tuple[FieldScore, ...]
    score: float
    fit: Fit
    decided_by: tuple[str, ...] = ()
    """The fields whose agreement made (or unmade) the fit."""
    note: str | None = None
    """Why the record cannot be the cited work whatever its fields say, or a version note."""

    def field(self, name: str) -> FieldScore:
        return next(f for f in self.fields if f.field == name)

    @property
    def differs(self) -> tuple[str, ...]:
        return tuple(f.field for f in self.fields if f.agreement == "differs")


# ------------------------------------------------------------------------------ the entry


@dataclass(frozen=True, slots=True)
class _Entry:
    """What is compared of a stated reference, worked out once for all its records."""

    stated: StatedReference
    raw: str
    """The printed string without a list number glued to it."""
    text: str
    """The folded string (for an entry that is only a string)."""
    words: frozenset[str]
    numbers: frozenset[str]
    year: int | None
    years: tuple[int, ...]
    """Every year printed where a style puts one (the stated year first)."""
    surnames: tuple[str, ...]
    coordinates: tuple[str, str] | None
    """The volume and first page the string prints where its style puts them."""
    first_page: str | None
    """The first page of the page range the string prints ("776–785"), even without a
    volume beside it (a chapter, a series volume)."""
    squeezed: str
    """The folded string without spaces: what OCR and PDF extraction glue or split ("Journ
    al ofB CrystalyGrowth") is compared here, fuzzily, when the words do not match."""
    names: frozenset[str]
    """The folded words printed next to initials ("Zhang, W.", "K.V.N. Menon"): authors'
    names, which a record that lists only the first few authors does not account for."""
    leading: frozenset[str]
    """The folded words of the names a string opens with, written out in full ("Ming Yu,
    Hai Bin Zheng, Nuclear Physics B ..."): no title's words, whether or not the record
    lists its authors."""
    prose: tuple[str, ...]
    """The folded words without identifiers and URLs, nor any word with a digit in it (an
    article number "C409", a DOI's "v28i51", a page glued to a year): the words that could
    be a title's."""


_INITIALS = r"(?:[A-Z]\.(?:\s?-?[A-Z]\.){0,3})"
_SURNAME = rf"[{CAPITALS}][{NAME_LETTERS}]+"
#: A name beside its initials, either way round ("W. Zhang" / "Zhang, W." / "Zhang W").
_NAMED = (
    re.compile(rf"{_INITIALS}\s*({_SURNAME})"),
    re.compile(rf"({_SURNAME}),?\s+(?:{_INITIALS}|[A-Z]{{1,3}}\b)"),
    # a surname of two or three words after the initials, up to the comma or "and" that
    # ends it ("H. Al Faleh, S. Al Saif, and J. Al Suwaidi,")
    re.compile(rf"{_INITIALS}\s*({_SURNAME}(?:\s{_SURNAME}){{1,2}})(?=\s*(?:,|;|and\b))"),
    # a group author closing an author list ("and the ALSPAC Study Team,"), which a record
    # that lists the people alone does not hold
    re.compile(
        r"\b(?:and|&)\s+the\s+((?:[\w'’-]+\s+){0,4}?(?:Study|Research|Working|Writing|Trial)?"
        r"\s*(?:Group|Team|Consortium|Collaboration|Collaborative|Investigators|Committee))\b"
    ),
)
#: A list number the reader leaves in the entry: glued to it ("1Anaesthesia 32, 84 (1977).",
#: "1BMJ 1, 388 (1912).") or AIP's bare one before the names ("1 Seung Hong Lee, ..."),
#: never a number of the entry's (a volume, a page) nor a word of a title.
_GLUED_NUMBER = re.compile(
    r"^\s*(?:\[\d{1,4}\]|\(\d{1,4}\)|\d{1,4}(?=[A-Z][a-z]|[A-Z]{2,}\b|[A-Z]{3})"
    r"|\d{1,3}\s+(?=[A-Z]))\s*"
)


@lru_cache(maxsize=4096)
def _entry(stated: StatedReference) -> _Entry:
    raw = _GLUED_NUMBER.sub("", _compared(stated.text))
    text = fold(raw)
    numbers = number_tokens(" ".join(p for p in (raw, stated.volume, stated.pages) if p))
    placed = [y for y, _ in years_in_place(raw)]
    year = stated.year if stated.year is not None else cited_year(raw)
    return _Entry(
        stated=stated,
        raw=raw,
        text=text,
        words=frozenset(text.split()),
        numbers=numbers,
        year=year,
        years=tuple(dict.fromkeys([*([year] if year is not None else []), *placed])),
        surnames=stated.surnames[:MAX_AUTHORS],
        coordinates=coordinates(raw),
        first_page=printed_first_page(raw),
        squeezed=text.replace(" ", ""),
        names=frozenset(
            w for pattern in _NAMED for n in pattern.findall(raw) for w in fold(n).split()
        ),
        leading=_leading_names(raw),
        prose=tuple(
            w for w in fold(LINKS.sub(" ", raw)).split() if not any(c.isdigit() for c in w)
        ),
    )


#: One person's name written out: two to four capitalised words ("Hai Bin Zheng",
#: "Ban-Leong Ooi"), initials allowed ("John E. Jones").
_FULL_NAME = re.compile(r"(?:[A-Z][\w'’\-]*\.?\s+){1,3}[A-Z][\w'’\-]+")
_NAME_SEPARATORS = re.compile(r"\s*(?:[,;]|\band\b|&)\s*")


def _compared(text: str) -> str:
    """The part of an entry that is compared: all of it, or past :data:`MAX_COMPARED`
    characters its start and its end, cut at spaces.

    Why the end: a collaboration's hundreds of authors written out fill the first 2,000
    characters, and the venue, the volume, the page and the year come after them; cutting
    the end left the names alone to compare, so the entry was too little to tell."""
    if len(text) <= MAX_COMPARED:
        return text
    half = MAX_COMPARED // 2
    head = text[:half].rsplit(" ", 1)[0]
    tail = text[-half:].split(" ", 1)[-1]
    return f"{head} … {tail}"


def _leading_names(raw: str) -> frozenset[str]:
    """The words of the full names a string opens with, up to the first piece that is no
    name (a title has a lower-case word or a digit; a venue follows the names)."""
    words: set[str] = set()
    for piece in _NAME_SEPARATORS.split(raw[:400]):
        if not piece:
            continue
        if not _FULL_NAME.fullmatch(piece):
            break
        words.update(fold(piece).split())
    return frozenset(words)


def _main(title: str) -> str:
    """The main title: before a colon or a sentence end (not the "E." of "E. coli")."""
    main = _SUBTITLE.split(title, maxsplit=1)[0]
    return main if len(main.split()) >= 2 else title


def _titles(record: WorkRecord) -> list[str]:
    titles = [t for t in (record.title, *record.other_titles) if t]
    out: list[str] = []
    for t in titles:
        folded = fold(t[:MAX_COMPARED])
        if folded:
            out.append(folded)
        main = fold(_main(t[:MAX_COMPARED]))
        if main and main not in out:
            out.append(main)
    return list(dict.fromkeys(out))


def informative(title: str) -> bool:
    """Whether a title says which work it is: not a generic heading, not one short word."""
    folded = fold(title)
    if folded in GENERIC_TITLES or not folded:
        return False
    words = folded.split()
    return len(words) >= 3 or (len(words) == 2 and len(folded) >= 12) or len(folded) >= 20


# ------------------------------------------------------------------------------ the fields


@dataclass(frozen=True, slots=True)
class _Title:
    field: FieldScore
    level: Literal["same", "words", "close", "absent", "differs", "none"]
    informative: bool


def _title(entry: _Entry, record: WorkRecord) -> _Title:
    stated = entry.stated
    titles = _titles(record)
    shown = record.title
    if not titles:
        return _Title(FieldScore("title", stated.title, None, None, "not_recorded"), "none", False)
    useful = informative(record.title or titles[0])
    found = _in_text(entry, titles, shown, useful)
    if stated.title:
        given = fold(stated.title[:MAX_COMPARED])
        given_main = fold(_main(stated.title[:MAX_COMPARED]))
        ratio = max(max(fuzz.ratio(given, t), fuzz.ratio(given_main, t)) for t in titles) / 100
        words = max(fuzz.token_set_ratio(given, t) for t in titles) / 100
        if any(_short_inside(t, given) for t in titles):
            words = 0.0  # every word of a short title among many is no title's agreement
        rated = _rate(stated.title, shown, ratio, words, useful)
        if (
            rated.level != "same"
            and found is not None
            and found.level == "same"
            and not _elsewhere_is_not_the_title(entry, given, titles)
        ):
            # the title read from the string was another part of it (a venue, a
            # collective author): the record's title is printed there all the same
            return found
        if rated.level != "same" and (
            same_venue(stated.title, _venue_names(record)) or _venue_part(stated.title, record)
        ):
            # what the reader took for a title is the record's venue (a style that prints
            # only a book's or a journal's title, or the end of a venue read after a colon:
            # "Colloids and Surfaces B: Biointerfaces 2004, 36, 181"): no title to differ
            return _Title(FieldScore("title", None, shown, None, "not_stated"), "absent", useful)
        if rated.level != "same" and _ran_into_venue(given, titles, record):
            # the record's title, then its venue, run together by extraction ("Intervi
            # ews.How to Recruit and Hire GrFat Software Engineers, 107–138"): the title
            # the entry prints is the record's
            return _Title(
                FieldScore("title", stated.title, shown, SQUEEZED_SAME / 100, "agrees"),
                "same",
                useful,
            )
        if rated.level != "same" and _author_slot(entry, stated.title, record):
            # a group author, or a name in another script, where a numbered style prints
            # the authors, before the record's venue: no title to differ
            return _Title(FieldScore("title", None, shown, None, "not_stated"), "absent", useful)
        if rated.level == "same" or not _names_and_venue(stated.title, record):
            return rated
        if set(_unexplained(entry, record)) - set(given.split()):
            return rated  # a word outside it no field accounts for: a title it printed
        # what the reader took for a title is the record's authors and venue, garbled, and
        # they account for the rest of the string: it prints no title to differ ("[1]j.T
        # aylor, Sotioloby1 3 (1979) 325.")
        return _Title(FieldScore("title", None, shown, None, "not_stated"), "absent", useful)
    if found is None:
        return _Title(FieldScore("title", None, shown, None, "not_stated"), "none", useful)
    unexplained = _residue(entry, record)
    if found.level in ("differs", "close") and (
        unexplained <= 3 or (not _venue_names(record) and unexplained <= 8)
    ):
        # every word of the string is the record's authors, venue or numbers: the style
        # prints no title (ACS, AIP), so none differs.  (A record without a venue cannot
        # account for the venue's words: up to a conference's name of them is allowed.)
        return _Title(FieldScore("title", None, shown, None, "not_stated"), "absent", useful)
    return found


#: The fewest letters of a record's title that :func:`_ran_into_venue` looks for squeezed.
_RAN_TITLE = 8
_NOT_LETTERS = re.compile(r"[^\w]|[\d_]")


def _ran_into_venue(given: str, titles: list[str], record: WorkRecord) -> bool:
    """Whether a stated title is the record's title and then its venue, as an extraction
    that lost or moved spaces ran them together: the record's title (eight letters or
    more) opens it, spaces aside, with at most one letter in ten wrong, and the record's
    venue follows, likewise.  Words of another title between them are no venue: a chimera
    that opens with a record's short title ("Interviews with invented people") stays a
    title that differs."""
    squeezed = _NOT_LETTERS.sub("", given)
    venues = [_NOT_LETTERS.sub("", fold(v)) for v in _venue_names(record)]
    venues = [v for v in venues if len(v) >= 4]
    if not venues:
        return False
    for title in titles:
        own = _NOT_LETTERS.sub("", title)
        if len(own) < _RAN_TITLE:
            continue
        head = squeezed[: len(own) + 1]
        opening = fuzz.partial_ratio_alignment(own, head)
        if opening is None or opening.dest_start > 1 or opening.score < SQUEEZED_SAME:
            continue
        rest = squeezed[opening.dest_end :]
        if any(
            (found := fuzz.partial_ratio_alignment(v, rest)) is not None
            and found.score >= SQUEEZED_SAME
            and found.dest_start <= 1
            for v in venues
        ):
            return True
    return False


def _elsewhere_is_not_the_title(entry: _Entry, given: str, titles: list[str]) -> bool:
    """Whether the record's title, found in the string but not as the entry's title, is
    something else than a title the reader missed: a short title inside the entry's own
    longer one ("Variant Creutzfeldt-Jakob disease" in "Potential effect of excluding
    variant Creutzfeldt-Jakob disease on the eye donor pool": :func:`_short_inside`), the
    venue the entry names (the book an invented chapter is given in, a journal's own
    record), or, after a short title of the entry's own, the encyclopedia it is in."""
    venue = entry.stated.venue
    if venue:
        names = {fold(venue), fold(_main(venue))}
        if any(fuzz.ratio(n, t) >= 100 * TITLE_SAME for n in names for t in titles):
            return True  # the book or the journal, its subtitle or not
        if any(_short_inside(t, fold(venue)) for t in titles):
            return True  # "Kosmetik" in "Springer Lexikon Kosmetik und Körperpflege"
    if any(_short_inside(t, given, entry.stated.title) for t in titles):
        return True
    return not informative(entry.stated.title or "") and _printed_after(entry, given, titles)


def _short_inside(title: str, given: str, printed: str | None = None) -> bool:
    """A short title (four words at most) among a longer title's words, neither its start
    (a main title: ``_main`` compares it) nor its end (the reader joined names to it): a
    coincidence of words, not the same title.  A longer one inside is a title the reader
    read with names or a venue around it.  With the title as ``printed``, its end too,
    after words in lower case, a title's words, not names: "Successful methotrexate therapy
    in oral florid papillomatosis" is no "Oral florid papillomatosis"."""
    if not title or len(title.split()) > 4 or title not in given or given.startswith(title):
        return False
    if not given.endswith(title):
        return True
    if not printed:
        return False
    words = printed.split()
    return any(w[:1].islower() and w.isalpha() for w in words[1 : len(words) - len(title.split())])


def _printed_after(entry: _Entry, given: str, titles: list[str]) -> bool:
    """Whether the record's title is printed after the entry's own title, where a style
    puts the venue: for an entry whose own title is short, the record is the book or the
    encyclopedia the entry is in ("“Shellfish.” Van Nostrand's Scientific Encyclopedia"),
    not the work.  (A long title the reader cut short, "Fluctuation properties.1. On
    deviations ...", goes on after it: that is the work's.)"""
    start = entry.text.find(given)
    if not given or start < 0:
        return False
    end = start + len(given)
    for t in titles:
        where = fuzz.partial_ratio_alignment(t, entry.text) if t else None
        if where is not None and where.dest_start >= end:
            return True
    return False


def _venue_part(title: str, record: WorkRecord) -> bool:
    """Whether every word of a stated title, its numbers aside, is a word of the record's
    venue: a part of the venue the reader split off as a title."""
    words = [w for w in fold(title).split() if not any(c.isdigit() for c in w)]
    names = {w for name in _venue_names(record) for w in fold(name).split()}
    return bool(words) and all(w in names or _abbreviates(w, names) for w in words)


def _abbreviates(word: str, names: Iterable[str]) -> bool:
    """Whether ``word`` is an ISO 4 abbreviation of one of a venue's words: it starts as
    the venue word does and its letters are the venue word's, in order ("oncol")."""
    return any(name.startswith(word[:3]) and letters_in(word, name) for name in names)


def _in_text(entry: _Entry, titles: list[str], shown: str | None, useful: bool) -> _Title | None:
    """The record's title looked for inside the entry's string (SBMV's validation); None
    when the string is too short to hold one."""
    if len(entry.text.split()) < 2:
        return None
    best = words_found = 0.0
    for candidate in titles:
        found = fuzz.partial_ratio(candidate, entry.text) / 100
        if len(candidate) < 12 and f" {candidate} " not in f" {entry.text} ":
            found = min(found, TITLE_OTHER - 0.01)
        best = max(best, found)
        content = [w for w in candidate.split() if len(w) > 2]
        if content:
            words_found = max(words_found, sum(w in entry.words for w in content) / len(content))
    return _rate(None, shown, best, words_found, useful)


def _rate(
    stated: str | None, shown: str | None, ratio: float, words: float, useful: bool
) -> _Title:
    if ratio >= TITLE_SAME:
        level: Literal["same", "words", "close", "absent", "differs", "none"] = "same"
    elif words >= TITLE_SAME:
        level = "words"
    elif ratio >= TITLE_OTHER:
        level = "close"
    else:
        level = "differs"
    value = round(max(ratio, words if level == "words" else 0.0), 3)
    # The same words in another order contradict nothing (whether they identify the work
    # is the fit's business: only with the first author and the year).
    agreement: Agreement = "agrees" if level in ("same", "words") else "differs"
    return _Title(FieldScore("title", stated, shown, value, agreement), level, useful)


def _record_surnames(record: WorkRecord) -> tuple[str, ...]:
    return tuple(s for s in (surname(a) for a in record.authors[:MAX_AUTHORS]) if s)


def _in_words(name: str, entry: _Entry) -> bool:
    """Whether a surname is among a string's words, by any of its spellings (a typo only in
    a word of five letters or more that begins like the name), or, in a string whose words
    extraction broke or glued, inside it with at most one character in ten wrong."""
    keys = family_keys(name)
    if keys & entry.words:
        return True
    firsts = {k[0] for k in keys}
    if any(len(w) >= 5 and w[0] in firsts and same_family(w, name) for w in entry.words):
        return True
    # one character wrong in the name (its length decides what that costs the ratio)
    return any(
        len(k) >= 6 and fuzz.partial_ratio(k, entry.squeezed) >= 100 * (len(k) - 1) / len(k) - 1
        for k in keys
    )


def _authors(entry: _Entry, record: WorkRecord) -> FieldScore:
    recorded = tuple(r for r in _record_surnames(record) if family_keys(r))
    shown = record.authors[0] if record.authors else None
    if not recorded:  # none, or only initials ("N., E. H."): nothing to compare
        first = entry.stated.authors[0] if entry.stated.authors else None
        return FieldScore("authors", first, None, None, "not_recorded")
    if entry.surnames:
        first_ok = same_family(entry.surnames[0], recorded[0])
        listed = sum(1 for g in entry.surnames if any(same_family(g, r) for r in recorded))
        value = round(listed / len(entry.surnames), 3)
        # "Smith J, Jones K" of "Jones K, Smith J" is a misprint, not other authors, when
        # most names are listed.
        ok = first_ok or (len(entry.surnames) >= 3 and value >= 0.67)
        if not ok and near_family(entry.surnames[0], recorded[0]):
            value = NEAR_NAME  # one letter off a short name: the fit decides with the title
        return FieldScore("authors", entry.stated.authors[0], shown, value, _agree(ok))
    if len(entry.text.split()) < 2:
        return FieldScore("authors", None, shown, None, "not_stated")
    if _in_words(recorded[0], entry) or _opens_with(recorded[0], entry):
        return FieldScore("authors", None, shown, 1.0, "agrees")
    head = recorded[:3]
    present = sum(1 for name in head if _in_words(name, entry))
    if len(head) >= 2 and present >= 2:
        return FieldScore("authors", None, shown, round(present / len(head), 3), "agrees")
    if present == 0 and _residue(entry, record) <= 1 and _no_other_names(entry, recorded[0]):
        # every word of the string is the record's venue, title or numbers: it prints no
        # author to compare ("Anaesthesia 32, 84 (1977).")
        return FieldScore("authors", None, shown, None, "not_stated")
    if any(near_family(name, recorded[0]) for name in entry.names):
        # a name printed beside initials one letter off the first author's ("Qhi, X. X."
        # for Shi): a typo or another person, which the title and the year decide
        return FieldScore("authors", None, shown, NEAR_NAME, "differs")
    return FieldScore("authors", None, shown, round(present / len(head), 3), "differs")


def _opens_with(name: str, entry: _Entry) -> bool:
    """Whether the string opens with a surname, spaces aside, where its first author goes:
    "T ASEI, J.-N." for Tasei, split by extraction (a name of four letters or more; a
    shorter one is found by chance)."""
    return any(
        len(k) >= 4 and k in entry.squeezed[: len(k) + _AUTHOR_SLACK] for k in family_keys(name)
    )


def _no_other_names(entry: _Entry, first: str) -> bool:
    """Whether the string prints no names beside initials but the record's: names that
    are none of its authors are other authors, not no authors.  The first author's name
    printed once the spaces are gone ("K.A. Quai d", "H.YHida") is the record's."""
    if not entry.names:
        return True
    return any(len(k) >= 4 and k in entry.squeezed for k in family_keys(first))


def _agree(ok: bool) -> Agreement:
    return "agrees" if ok else "differs"


def _year(entry: _Entry, record: WorkRecord, tolerance: int) -> FieldScore:
    given = entry.year
    if given is not None and record.year is not None:
        # A string may print a year in more than one place where styles put it (NLM's
        # "J Appl Physiol (1985). 2007;103:594"): any of them agreeing is no difference.
        near = [y for y in entry.years if abs(y - record.year) <= tolerance]
        if near and abs(given - record.year) > tolerance:
            given = near[0]
    shown = str(given) if given is not None else None
    if record.year is None:
        return FieldScore("year", shown, None, None, "not_recorded")
    if given is None:
        if _printed_whole(entry.raw.replace(" ", ""), str(record.year)):
            # "20 04;30:844": the year split by extraction, printed all the same (a bracketed
            # one, "(20 04)", is read as the year where it stands: refs.numbers)
            return FieldScore("year", str(record.year), str(record.year), 1.0, "agrees")
        return FieldScore("year", None, str(record.year), None, "not_stated")
    gap = abs(given - record.year)
    value = 1.0 if gap == 0 else (0.5 if gap <= tolerance else 0.0)
    return FieldScore("year", shown, str(record.year), value, _agree(gap <= tolerance))


def _venue_names(record: WorkRecord) -> tuple[str, ...]:
    """The record's venue names; one without a letter ("1964", a year a record holds where
    its venue goes) names no venue, and would agree with any entry that prints the year."""
    return tuple(
        n for n in (record.venue, *record.venue_names) if n and any(c.isalpha() for c in n)
    )


def year_garbled_in(stated: StatedReference, record: WorkRecord) -> bool:
    """Whether the record's year stands in the entry with one digit OCR read as a letter, or
    a letter put between two ("20b7" for 2007), where no year was read.

    Never agreement: such a year fits ten years ("20b7" is 2007 and 2017 alike), so it can
    only keep an entry from being called missing (``refs.decide``), never decide a work."""
    entry = _entry(stated)
    if entry.year is not None or record.year is None:
        return False
    return _garbled(str(record.year)).search(entry.raw.replace(" ", "")) is not None


def venue_garbled_in(stated: StatedReference, record: WorkRecord) -> bool:
    """Whether the record's venue stands in the entry, spaces gone, with one letter in ten
    wrong, or one letter in a short name ("SciencD232" for Science, 232): a venue OCR
    garbled and glued to its volume, which the venue's field could not read, is there all
    the same and is no other venue."""
    entry = _entry(stated)
    for name in _venue_names(record):
        whole = fold(name).replace(" ", "")
        alike = min(SQUEEZED_SAME, 100 * (1 - 1 / max(len(whole), 1)) - 0.01)
        if _squeezed_in(whole, entry, least=4, alike=alike):
            return True
    return False


def _venue(entry: _Entry, record: WorkRecord) -> FieldScore:
    names = _venue_names(record)
    stated = entry.stated.venue
    if not names:
        return FieldScore("venue", stated, None, None, "not_recorded")
    if stated:
        value = max(fuzz.token_set_ratio(fold(stated), fold(n)) for n in names) / 100
        # words an extraction glued or split ("The LeadingEdge"): the letters, spaces aside,
        # held to the stricter measure of squeezed strings
        squeezed = fold(stated).replace(" ", "")
        glued = max(fuzz.ratio(squeezed, fold(n).replace(" ", "")) for n in names)
        if glued >= SQUEEZED_SAME:
            value = max(value, glued / 100)
        ok = value >= VENUE_SAME or same_venue(stated, names)
        title = entry.stated.title
        if not ok and title and len(title.split()) == 1 and same_venue(f"{title} {stated}", names):
            # "Smith J. Lancet. Oncol. 2001;2:101.": a full stop split the venue, and the
            # reader took its first word for a one-word title
            return FieldScore("venue", f"{title}. {stated}", record.venue, 1.0, "agrees")
        return FieldScore("venue", stated, record.venue, round(value, 3), _agree(ok))
    found = any(_venue_in(entry, name) for name in names)
    return FieldScore(
        "venue", None, record.venue, 1.0 if found else None, "agrees" if found else "not_stated"
    )


def _venue_in(entry: _Entry, name: str) -> bool:
    """Whether a venue name is printed in the string, in full or abbreviated."""
    wanted = venue_words(name)
    if not wanted:
        return False
    printed = venue_words(entry.raw)
    if f" {' '.join(wanted)} " in f" {' '.join(printed)} ":
        return True
    # "Journ al ofB CrystalyGrowth": the words broken, the letters there (with the words
    # ISO 4 leaves out, "of the", as the string prints them, or without them)
    for whole in ("".join(wanted), fold(name).replace(" ", "")):
        if _squeezed_in(whole, entry, least=12, alike=SQUEEZED_SAME):
            return True
    size = len(wanted)
    for start in range(len(printed) - size + 1):
        window = " ".join(printed[start : start + size])
        if same_venue(window, (name,)):
            return True
    return False


def _squeezed_in(whole: str, entry: _Entry, *, least: int, alike: float) -> bool:
    """Whether a name of ``least`` letters or more, its spaces gone, is in the string once
    its spaces are gone too, ``alike`` (a rapidfuzz ratio, 0 to 100) at least."""
    return len(whole) >= least and (
        whole in entry.squeezed or fuzz.partial_ratio(whole, entry.squeezed) >= alike
    )


def _printed_whole(text: str, digits: str) -> bool:
    """Whether ``digits`` stand in ``text`` as a whole number, no digit either side.

    What ``re.search(rf"(?<!\\d){digits}(?!\\d)", text)`` says, without compiling a pattern
    for every number asked (each a new one, past the ``re`` module's cache: 3% of a
    reference's CPU when a local index answers); ``isdecimal`` is ``\\d``'s class.
    """
    start = text.find(digits)
    while start != -1:
        end = start + len(digits)
        if (start == 0 or not text[start - 1].isdecimal()) and (
            end == len(text) or not text[end].isdecimal()
        ):
            return True
        start = text.find(digits, start + 1)
    return False


@lru_cache(maxsize=4096)
def _garbled(digits: str, letters: str = "") -> re.Pattern[str]:
    """``digits`` with one of them (any but a lone one) read as a letter, or a letter put
    between two of them, as a whole number: what OCR makes of a volume or page ("k75" for
    475, "G13" for 513, "1D2" for 12, "11U5" for 115). A page with ``letters`` before its
    digits keeps them ("CE47" for C347, "Sq9" for S29), gains one letter glued before it
    ("qL157" for L157), or keeps its digits whole while its letters are misread ("K92" for
    S92)."""
    ways = [f"{digits[:i]}[A-Za-z]{digits[i + 1 :]}" for i in range(len(digits))]
    ways += [f"{digits[:i]}[A-Za-z]{digits[i:]}" for i in range(1, len(digits))]
    if letters:
        ways = [
            f"{letters}(?:{'|'.join(ways)})",
            f"[A-Za-z]?{letters}{digits}",
            f"[A-Za-z]{{{len(letters)}}}{digits}",
        ]
        return re.compile(rf"(?<![A-Za-z\d])(?:{'|'.join(ways)})(?!\d)")
    return re.compile(rf"(?<!\d)(?:{'|'.join(ways)})(?!\d)")


#: A volume or page of digits, or of digits and a letter or two after them ("133a").
_SUFFIXED_PAGE = re.compile(r"(\d+)[A-Za-z]{0,2}")
#: A page with letters before its digits, as a record holds it ("C347", "S29", "L157").
_LETTERED_PAGE = re.compile(r"([A-Za-z]{1,3})(\d{2,})")


def _number(field: str, stated: str | None, recorded: str | None, entry: _Entry) -> FieldScore:
    present = has_number(entry.numbers, recorded)
    suffixed = _SUFFIXED_PAGE.fullmatch(recorded.strip()) if recorded else None
    if present is False and suffixed:
        # "1 49,J1507": a number split by extraction, or glued to a letter, printed whole
        # once the spaces are gone (and never inside a longer number); a page with a
        # letter after its digits ("133a", an abstract's) is looked for by its digits
        digits = suffixed.group(1).lstrip("0") or "0"
        squeezed = entry.raw.replace(" ", "")
        present = _printed_whole(squeezed, digits)
        if not present and len(digits) >= 2 and _garbled(digits).search(squeezed):
            # "k75" for 475, "MetalsA6" for 36: one digit read as a letter by OCR
            return FieldScore(field, stated, recorded, 0.9, "agrees")
    elif present is False and recorded and (lettered := _LETTERED_PAGE.fullmatch(recorded)):
        letters, digits = lettered.groups()
        if _garbled(digits, letters).search(entry.raw.replace(" ", "")):
            return FieldScore(field, stated, recorded, 0.9, "agrees")
    if stated is None and entry.coordinates is not None:
        # the number the string prints where its style puts the volume or first page
        stated = entry.coordinates[0 if field == "volume" else 1]
    elif stated is None and field == "pages":
        stated = entry.first_page  # a page range printed without a volume
    if present is None:
        return FieldScore(field, stated, recorded, None, "not_recorded")
    if present:
        return FieldScore(field, stated, recorded, 1.0, "agrees")
    if stated:  # the entry states another number
        return FieldScore(field, stated, recorded, 0.0, "differs")
    return FieldScore(field, None, recorded, None, "not_stated")


# ------------------------------------------------------------------------------ the fit


def is_preprint(record: WorkRecord) -> bool:
    """A preprint server's record (bioRxiv, medRxiv, arXiv, SSRN, Research Square...)."""
    kinds = {t.casefold() for t in (*record.types, record.kind or "")}
    if kinds & {"posted-content", "preprint"}:
        return True
    # its own venue only: a journal article OpenAlex also lists on arXiv is no preprint
    return bool(record.venue and _PREPRINT_VENUES.search(record.venue))


def _stated_preprint(stated: StatedReference) -> bool:
    return bool(
        _PREPRINT_VENUES.search(stated.venue or "")
        or (not stated.venue and _PREPRINT_VENUES.search(stated.text))
    )


def _excluded(entry: _Entry, record: WorkRecord, title: _Title) -> str | None:
    """Why ``record`` cannot be the work ``entry`` cites whatever its fields say, or None."""
    kinds = {t.casefold() for t in (*record.types, record.kind or "")}
    notice = record.is_notice or bool(kinds & _NOTICE_TYPES)
    if notice and not _NOTICE_WORDS.search(entry.stated.title or entry.stated.text):
        return f"{record.key} is a notice or a review about another work, not the work cited"
    if (
        not notice
        and _CITES_A_NOTICE.search(_through_title(entry.stated))
        and not _NOTICE_WORDS.search(record.title or "")
    ):
        return f"the entry cites a notice (an erratum, a correction) about {record.key}, not it"
    if kinds & _CONTAINER_TYPES and record.title and _cites_a_part(entry, record, title):
        return f"{record.key} is the whole ({record.kind}) a part of which the entry cites"
    return None


def _through_title(stated: StatedReference) -> str:
    """The entry's string up to the end of its title, where a notice names itself: the
    reader may read only the quoted title of 'Erratum: “Accurate ...” (J Invented Mech,
    1977)', leaving "Erratum:" before it."""
    if not stated.title:
        return stated.text
    at = stated.text.find(stated.title)
    return stated.text[: at + len(stated.title)] if at >= 0 else stated.title


def _cites_a_part(entry: _Entry, record: WorkRecord, title: _Title) -> bool:
    """Whether the entry cites a chapter or paper *in* the book or proceedings ``record``:
    its stated container is the record's title, or the string prints a part's title before
    the record's, with "In" or a page range."""
    whole = fold(record.title or "")
    if entry.stated.title:
        venue = fold(entry.stated.venue or "")
        if venue:
            return fuzz.ratio(venue, whole) >= 90
        # a venue the reader could not delimit ("ROMANSY 22 – Robot Design, Dynamics and
        # Control, 118–125."): the whole's title printed after the entry's own, where the
        # container goes, and the entry's own title not the whole's
        own = fold(entry.stated.title)
        main = fold(_main(record.title or ""))
        return (
            len(main) >= _RAN_TITLE
            and main not in own
            and main in entry.text
            and _printed_after(entry, own, [main])
        )
    if title.level != "same" or not _PART_MARKER.search(entry.stated.text):
        return False
    at = entry.text.find(fold(_main(record.title or "")))
    authors = {w for name in record.authors for w in fold(name).split()}
    before = [
        w
        for w in entry.text[: max(at, 0)].split()
        if len(w) > 3 and w not in _STYLE_WORDS and w not in authors
    ]
    return len(before) >= 4


def _venue_words_of(record: WorkRecord) -> tuple[str, ...]:
    return venue_words(record.venue) if record.venue else ()


def _residue(entry: _Entry, record: WorkRecord) -> int:
    """How many words of a string no field of the record accounts for: a title the record
    does not have, when there are several."""
    return len(_unexplained(entry, record))


@lru_cache(maxsize=1024)
def _unexplained(entry: _Entry, record: WorkRecord) -> tuple[str, ...]:
    """The words of a string no field of the record accounts for.  Kept for the pair: the
    title, the authors and the fit each ask it of the same record."""
    known: set[str] = set(entry.names | entry.leading)  # every printed name, listed or not
    for t in _titles(record):
        known.update(t.split())
    return tuple(_unaccounted(entry.prose, record, known))


#: The fewest words of a record's authors and venue a stated "title" must hold to be them.
_FIELD_WORDS = 2


#: The most words of what a numbered style prints where the authors go, read as a title.
_SLOT_WORDS = 4


def _author_slot(entry: _Entry, title: str, record: WorkRecord) -> bool:
    """Whether what the reader took for a title is the entry's first segment, where the
    authors go, followed by the record's venue: "[1] BOC Limited, Invented Journal of
    Refrigeration 12 (1989) 237.", "[1] 김일환, Invented Review 49 (2015) 249.".

    Elsevier's numbered style prints no title: what stands before the venue is authors. A
    group author is no name the reader knows, and a name in another script is no name a
    record's romanised authors can be compared with, so neither says the title differs.
    Only when the record cannot contradict it: it lists no authors, or the segment is in
    another script (a segment of Latin letters against a record's authors stays a title:
    the authors are there to compare, and they are not it)."""
    lead, comma, rest = title.partition(",")
    lead = lead.strip()
    if not comma or not lead or not entry.raw.lstrip().startswith(lead):
        return False
    if len(lead.split()) > _SLOT_WORDS or any(c.isdigit() for c in lead):
        return False
    if record.authors and not any(c.isalpha() and ord(c) > _LATIN for c in lead):
        return False
    venue = _TRAILING_NUMBERS.sub("", rest).strip()
    names = _venue_names(record)
    return bool(venue and names) and (
        same_venue(venue, names)
        or max(fuzz.ratio(fold(venue), fold(n)) for n in names) >= SQUEEZED_SAME
    )


#: The last code point of the Latin scripts (Latin Extended-B).
_LATIN = 0x24F
_TRAILING_NUMBERS = re.compile(r"[\s\d.,:;()]+$")


def _names_and_venue(title: str, record: WorkRecord) -> bool:
    """Whether what the reader took for a title is the record's authors and venue, as an
    extraction garbled them ("Harnetty, The Economic Histo ry Review24", "NachrichtenAus Der
    Chemie, 53(5 )"): every word of it is theirs, the pieces OCR split off joined to their
    neighbours ("j.T aylor, Sotioloby1 3": Taylor in Sociology, a titleless style's
    authors and venue), or two of its words or more are theirs, and one at most, not the
    first, is no field's.

    Only the record's own names and venue count: not its title (a title garbled,
    "IntroductionTo Holography", is still a title), nor words beside initials or
    capitalised where the authors go ("Larkin D. Keynote 1.", "[1] Frozen Cargo,"), which
    look like names and which a record that lists its authors says are not its."""
    pieces = [w for w in fold(title).split() if not any(c.isdigit() for c in w)]
    words = [w for w in pieces if len(w) >= 3]
    if not _unaccounted(pieces, record, set(), titles=False):
        return True
    left = _unaccounted(words, record, set(), titles=False)
    if left and left[0] == words[0]:
        return False  # a title's own first word before the venue ("Keynote 1. PsycEXTRA")
    return len(left) <= 1 and len(words) - len(left) >= _FIELD_WORDS


def _unaccounted(
    words: Iterable[str], record: WorkRecord, known: set[str], *, titles: bool = True
) -> list[str]:
    """The words no author or venue name of the record (nor ``known``) accounts for, as
    printed, abbreviated (ISO 4) or mangled by extraction (:func:`_broken`: pieces of the
    record's titles too, unless ``titles`` is False)."""
    words = list(words)
    known = set(known)
    for name in record.authors[:MAX_AUTHORS]:
        known.update(fold(name).split())
    for name in _venue_names(record):
        known.update(venue_words(name))
        known.update(fold(name).split())  # "für", "und": words ISO 4 drops, printed all the same
    venue = [w for n in _venue_names(record) for w in venue_words(n)]
    fields: str | None = None
    long_known: list[str] = []
    surnames: list[str] = []
    left: list[str] = []
    for word in words:
        if len(word) < 3 or word in _STYLE_WORDS or word in known or _FRONT_PAGE.fullmatch(word):
            continue  # (a front matter's page, "vii–viii", is a number, not a title's word)
        if _abbreviates(word, venue):
            continue  # an abbreviation of a venue word
        if fields is None:
            fields = _squeezed_fields(record, titles)
            long_known = [k for k in known if len(k) >= 5]
            surnames = [k for k in map(fold, _record_surnames(record)) if len(k) >= _HELD_NAME]
        if _holds_surname(word, surnames):
            continue  # a surname OCR glued a letter or two to ("VOhba", "DlBroderick")
        if _broken(word, long_known, fields):
            continue
        left.append(word)
    if left and len(left) <= _MAX_SPLIT_LEFT and fields is not None:
        left = _split_apart(words, left, fields, known)
    return left


#: A page of a book's front matter in lower-case Roman numerals, up to 39 ("iii", "xxiv").
_FRONT_PAGE = re.compile(r"x{0,3}(?:ix|iv|v?i{0,3})")

#: The shortest surname looked for inside a longer word, and the most letters around it.
_HELD_NAME = 4
_HELD_EXTRA = 2


def _holds_surname(word: str, surnames: list[str]) -> bool:
    """Whether a word is one of the record's surnames (four letters or more) with one or two
    letters OCR or extraction glued to it: "vohba" for Ohba, "dlbroderick" for Broderick."""
    return any(
        len(word) - len(name) <= _HELD_EXTRA and name in word
        for name in surnames
        if len(name) < len(word)
    )


#: The most words one word of a record's fields is found split into ("Ag ricul ture").
_MAX_PIECES = 4
#: Past this many words no field accounts for, the string prints a title the record does
#: not have whatever pieces are joined: they are not looked for (each a fuzzy search).
_MAX_SPLIT_LEFT = 12


def _split_apart(words: list[str], left: list[str], fields: str, known: set[str]) -> list[str]:
    """``left`` without the words that, joined to their neighbours in ``words``, are a word
    of the record's fields OCR split ("CalRfornie Ag ricul ture" for "California
    Agriculture"): each piece alone is too short to be found, together they are the venue
    the entry prints, not a title the record lacks."""
    # a piece is any word but a field's whole word (an author's name, a venue's word): one
    # no field accounts for, one too short to be looked at ("Ag"), the start of a venue's
    # word read as its abbreviation ("Communi catiU ns")
    piece = [w not in known or len(w) < 3 for w in words]
    joined: set[str] = set()
    for start, word in enumerate(words):
        if not piece[start]:
            continue
        whole = word
        for end in range(start + 1, min(len(words), start + _MAX_PIECES)):
            if not piece[end]:
                break
            whole += words[end]
            # a word split keeps its start: the cheap test first
            if whole[:4] in fields and _broken(whole, [], fields):
                joined.update(words[start : end + 1])
    return [w for w in left if w not in joined]


def _squeezed_fields(record: WorkRecord, titles: bool = True) -> str:
    """The record's titles, venue names and authors, each without its spaces: where a word
    extraction glued or split is found again."""
    parts = [t.replace(" ", "") for t in _titles(record)] if titles else []
    parts.extend(fold(n).replace(" ", "") for n in _venue_names(record))
    parts.append("".join(fold(a) for a in record.authors[:MAX_AUTHORS]).replace(" ", ""))
    return " ".join(parts)


#: The shortest piece of a word OCR or extraction broke ("Computersin", "elkunde") that is
#: looked for inside a record's fields: shorter pieces are found anywhere.
_PIECE = 6


def _broken(word: str, long_known: list[str], fields: str) -> bool:
    """Whether a word of a string is a record's word that OCR or PDF extraction mangled: one
    letter wrong in a word of six letters or more ("Heqlth", "hystems"; in one of five, not
    the first), or a piece of the record's title, venue or names glued to the next word or
    split from it ("Computersin", "elkunde"), one letter in ten wrong.  Such words are the
    fields printed, not a title the record lacks.  ``long_known`` are the record's words of
    five letters or more; "one letter wrong" is an optimal-string-alignment distance of at
    most 1 (:func:`citeproof.refs.names.one_edit`'s rule), asked of rapidfuzz's C loop
    because a string's every unexplained word is held against every such word."""
    if len(word) >= 5:
        near = long_known if len(word) >= 6 else [k for k in long_known if k[0] == word[0]]
        if near and process.extractOne(word, near, scorer=OSA.distance, score_cutoff=1):
            return True
    if len(word) < _PIECE:
        return False
    if word in fields:
        return True
    return len(word) >= 10 and fuzz.partial_ratio(word, fields, score_cutoff=SQUEEZED_SAME) > 0


def score(stated: StatedReference, record: WorkRecord) -> Scored:
    """Every field of ``stated`` held against ``record``, the weighted score, and the fit."""
    entry = _entry(stated)
    version = is_preprint(record) != _stated_preprint(stated)
    tolerance = PREPRINT_YEAR_TOLERANCE if version else YEAR_TOLERANCE
    title = _title(entry, record)
    fields = (
        title.field,
        _authors(entry, record),
        _year(entry, record, tolerance),
        _venue(entry, record),
        _number("volume", stated.volume, record.volume, entry),
        _number("pages", stated.pages, record.first_page, entry),
    )
    weight = total = 0.0
    for f in fields:
        if f.score is not None:
            weight += FIELD_WEIGHTS[f.field]
            total += FIELD_WEIGHTS[f.field] * f.score
    overall = round(total / weight, 3) if weight else 0.0
    excluded = _excluded(entry, record, title)
    if excluded is not None:
        return Scored(record, fields, overall, "other", (), excluded)
    fit, decided_by = _fit(entry, record, title, fields, version)
    if fit == "match" and fields[1].agreement == "differs" and fields[1].score == NEAR_NAME:
        near = fields[1]  # the typo the title and the year outweighed
        fields = (
            fields[0],
            FieldScore("authors", near.stated, near.record, NEAR_NAME, "agrees"),
            *fields[2:],
        )
    if fit == "match" and "title" not in decided_by and not stated.title:
        # identified by its numbers: the entry prints no title, so none "differs"
        shown = FieldScore("title", None, record.title, None, "not_stated")
        fields = (shown, *fields[1:])
    note = None
    if fit == "match" and version:
        note = _version_note(stated, record)
    return Scored(record, fields, overall, fit, decided_by, note)


def _version_note(stated: StatedReference, record: WorkRecord) -> str:
    other = [r.split(":", 1)[1] for r in record.related]
    named = f" ({', '.join(other[:2])})" if other else ""
    if is_preprint(record):
        return (
            f"The entry cites a journal version; {record.key} is the preprint of the work{named}."
        )
    return f"The entry cites a preprint; {record.key} is the work's journal version{named}."


def _fit(
    entry: _Entry,
    record: WorkRecord,
    title: _Title,
    fields: tuple[FieldScore, ...],
    version: bool,
) -> tuple[Fit, tuple[str, ...]]:
    """What the comparison concludes, and the fields that decided it (module docstring):
    by the title first, then by the numbers that name an article, then how near it came."""
    _, authors, year, venue, _, _ = fields
    confirming = [f.field for f in (authors, year, venue) if f.agreement == "agrees"]
    spoken = ("title", *confirming)
    if title.level == "same":
        return _fit_same_title(title, fields, version, spoken, entry, record)
    # a year neither side has (a conference paper's record, a string that prints none) is
    # no year that could agree or differ: the other fields decide alone
    timeless = entry.year is None and record.year is None
    if (
        title.level in ("words", "close")
        and authors.agreement == "agrees"
        and (year.agreement == "agrees" or timeless)
        and (venue.agreement != "differs" or version)
    ):
        return "match", spoken
    # the same words need words enough on both sides: one word of the entry's ("Overview")
    # among a record's title ("An Overview of Tropical Diseases") is no title's words
    own_words = title.informative and (
        entry.stated.title is None or informative(entry.stated.title)
    )
    if (
        title.level == "words"
        and own_words
        and authors.agreement != "differs"
        and (year.agreement == "agrees" or timeless)
        and venue.agreement == "agrees"
    ):
        # the title's words in another order, where no first author can be compared: the
        # venue and the year stand in for it
        return "match", spoken
    if (
        title.level == "words"
        and own_words
        and authors.agreement == "not_recorded"
        and venue.agreement == "not_recorded"
        and year.agreement == "agrees"
    ):
        # a record of a title and a year alone (a report, a book in a catalogue): the same
        # words and the year are all it holds, as a same title would be with no year
        return "match", spoken
    if (
        _coordinates(fields)
        or _sparse(entry, record, fields)
        or _key_garbled(entry, record, fields)
    ):
        return _fit_by_numbers(entry, record, title, fields)
    if title.level in ("words", "close"):
        return "close", ()
    return "other", ()


#: The first word of two letters or more of a string, past a list number and initials.
_FIRST_WORD = re.compile(r"[^\W\d_]{2,}")
#: How alike (rapidfuzz's ratio, 0 to 100) the string's first word must be to the record's
#: first surname to be it garbled: "Jrckcon" for Jackson (71), "Drer" for Dyer (75), never
#: "Brown" for Shi (0).
_NAME_LIKE = 60


def _first_name_like(entry: _Entry, record: WorkRecord) -> bool:
    """Whether the string's first word is the record's first surname, one letter or two
    wrong: a name noise garbled, which the title, the venue and the page then decide."""
    names = _record_surnames(record)
    first = _FIRST_WORD.search(fold(entry.raw[: _AUTHOR_SLACK * 4]))
    if not names or first is None:
        return False
    word = first.group(0)
    return any(fuzz.ratio(word, key) >= _NAME_LIKE for key in family_keys(names[0]))


def _coauthors_hold(entry: _Entry, record: WorkRecord) -> bool:
    """Whether the entry's first surname is the only one that is not the record's: it lists
    one co-author or more, each among the record's authors after its first, and its first
    name is none of the record's.

    Why: OCR and typing garble one name ("ZiZ, Y.-J., Uyama, H., & Kobayashi, S." for Kim)
    where it leaves the others whole; with the record's title, the co-authors are the
    record's people.  A chimera (one work's title on another work's authors) lists no
    co-author of the titled work's, and a first author moved down the list ("Uyama, H.,
    Kim, Y.-J.") is another case (the order, already allowed when most names agree)."""
    given = entry.surnames
    recorded = _record_surnames(record)
    if len(given) < 2 or len(recorded) < 2:
        return False
    if any(same_family(given[0], name) for name in recorded):
        return False
    return all(any(same_family(g, name) for name in recorded[1:]) for g in given[1:])


def _garbled_author(entry: _Entry, record: WorkRecord) -> bool:
    """Whether the string opens with the record's first surname, its spaces aside ("Dy er",
    "Weis s") or with a letter or two wrong ("Schonnhaged" for Schoenhagen): what the name
    comparison calls another author, where extraction broke the name."""
    names = _record_surnames(record)
    if not names:
        return False
    first = names[0].replace(" ", "")
    head = entry.squeezed[: len(first) + _AUTHOR_SLACK]
    if len(first) < _GARBLED_NAME:
        return head.startswith(first)
    return fuzz.partial_ratio(first, head) >= 100 * _GARBLED_ALIKE


#: A name shorter than this is compared whole: a short one is too easily found by chance.
_GARBLED_NAME = 5
#: How far into the string the first surname is looked for (a list marker, an initial).
_AUTHOR_SLACK = 12
#: How alike a garbled surname or venue is to the record's (rapidfuzz's ratio, 0 to 1).
_GARBLED_ALIKE = 0.8


def _person_and_time(authors: FieldScore, year: FieldScore) -> bool:
    """The first author and the year both agree."""
    return authors.agreement == "agrees" and year.agreement == "agrees"


def _fit_same_title(
    title: _Title,
    fields: tuple[FieldScore, ...],
    version: bool,
    spoken: tuple[str, ...],
    entry: _Entry,
    record: WorkRecord,
) -> tuple[Fit, tuple[str, ...]]:
    """The fit of a record with the entry's title: a title that says something is the work
    unless the author or the year contradicts it; one that says nothing needs the numbers."""
    _, authors, year, *_ = fields
    a, y = authors.agreement, year.agreement
    near_name = _near_name(authors)
    if title.informative and near_name and y == "agrees":
        return "match", ("title", "year")
    if title.informative and near_name and y == "not_stated" and fields[3].agreement == "agrees":
        # "kmith, C. (n.d.). Projects and Complexity. Making Sense of …": no year to agree,
        # the venue stands in for it beside the title
        return "match", ("title", "venue")
    if title.informative and a != "differs" and y != "differs":
        return "match", spoken
    if _person_and_time(authors, year):
        return "match", spoken
    if (
        title.informative
        and y != "differs"
        and _venue_and_page(fields)
        and _first_name_like(entry, record)
    ):
        # the title, the venue and the first page are the record's (its year too, when
        # both print one), and the first name is the record's as noise left it ("Shma,
        # M. J." for Shea, "IommeN, L." for Lommen); another name is still a lead
        return "match", tuple(f.field for f in fields if f.agreement == "agrees")
    if title.informative and y != "differs" and _coauthors_hold(entry, record):
        # the title, and every co-author the entry lists after its first, are the record's:
        # only the first name is off ("AtdreoW, C. M., Koudounas, S., & Georgiou, J.")
        return "match", spoken
    if title.informative and _key_whole(fields) and _garbled_author(entry, record):
        # the title and ECitMatch's key agree, and the first author is the record's as an
        # extraction garbled it ("Dy er", "Schonnhaged"); another author is still a lead
        return "match", tuple(f.field for f in fields if f.agreement == "agrees")
    if not title.informative:
        agreed = tuple(f.field for f in fields if f.agreement == "agrees")
        if _coordinates(fields):
            return "match", agreed
        if _venue_and_nothing_else(fields):
            # a generic title its venue places ("Table of Contents" of one book)
            return "match", agreed
        if a == "agrees" and y != "differs" and fields[5].agreement == "agrees":
            # the title, the first author and the first page: a chapter whose book the
            # entry names by its series ("Telenursing", Advances in ..., 150–161)
            return "match", agreed
        return "other", ()
    if version and a == "agrees":
        return "match", spoken
    return "partial", ("title",)


def _venue_and_page(fields: tuple[FieldScore, ...]) -> bool:
    """The venue and the first page agree, and the volume does not differ."""
    _, _, _, venue, volume, pages = fields
    return (
        venue.agreement == "agrees"
        and pages.agreement == "agrees"
        and volume.agreement != "differs"
    )


def _venue_and_nothing_else(fields: tuple[FieldScore, ...]) -> bool:
    """The venue agrees, no other field differs, and the year agrees unless the record has
    none ("Editorial. Nature." names no one editorial of a journal that prints many)."""
    year = fields[2].agreement
    return (
        fields[3].agreement == "agrees"
        and year in ("agrees", "not_recorded")
        and not any(f.agreement == "differs" for f in fields[1:])
    )


def _coordinates(fields: tuple[FieldScore, ...]) -> bool:
    """Whether the volume and first page name the article (ECitMatch's key), with the first
    author and the year, each of which the venue may stand in for where a side lacks it.

    A journal's volume and first page in a year name one article: with the first author
    (or one a letter off a short name, "Cunp" for Curp, when the venue agrees), or without
    one the record can compare, when the venue agrees; and with the venue and
    the year all agreeing, whatever the first author (OCR's "S. Belland" for Bell).  (A
    book's chapters have no volume: the book's title, the year and the first page.)  The
    year may be missing on one side (a chapter cited "n.d.") when the venue names where
    the pages are.
    """
    _, authors, year, venue, volume, pages = fields
    if _key_whole(fields):
        return True  # the first author may be misprinted ("Belland")
    numbers = pages.agreement == "agrees" and (
        volume.agreement in ("agrees", "not_recorded")
        # an entry that leaves the volume out ("Генетика 2017, 88–99."): the first author,
        # the venue and the year all agreeing with its first page
        or (
            volume.agreement == "not_stated"
            and all(f.agreement == "agrees" for f in (authors, year, venue))
        )
    )
    return (
        numbers
        and venue.agreement != "differs"
        and (
            _agrees_or_venue_does(authors, venue)
            or (_near_name(authors) and venue.agreement == "agrees")
        )
        and _agrees_or_venue_does(volume, venue)
        and _agrees_or_venue_does(year, venue)
    )


def _near_name(authors: FieldScore) -> bool:
    """The first author one letter off a short name ("Cunp" for Curp): OCR's or a typo,
    which the other fields decide."""
    return authors.agreement == "differs" and authors.score == NEAR_NAME


def _key_whole(fields: tuple[FieldScore, ...]) -> bool:
    """ECitMatch's key whole: the venue, the year, the volume and the first page agree; for
    a record without a volume (a chapter), the book, the year and the first page, as one
    book's pages name one chapter."""
    _, _, year, venue, volume, pages = fields
    if volume.agreement == "not_recorded":
        return all(f.agreement == "agrees" for f in (year, venue, pages))
    return all(f.agreement == "agrees" for f in fields[2:])


def _key_garbled(entry: _Entry, record: WorkRecord, fields: tuple[FieldScore, ...]) -> bool:
    """ECitMatch's key with its venue as OCR garbled it: the year, the volume (a chapter's
    record has none) and the first page agree, no author differs, and the record's venue
    is in the string once spaces are gone, a letter in five wrong at most ("1III-Vs jeview
    6, 59 (1993).", "ArtJournal", "RQesearch Meqhodology 175(2016)").  The numbers agreeing
    let the venue be read more loosely than alone; a year OCR garbled too ("(20N3)") is
    left to the first author, which must then agree.  A first author one letter off a short
    name ("Cunp" for Curp) is OCR's too, where the year agrees or neither side has one (a
    chapter cited "n.d.", its record without a year)."""
    _, authors, year, venue, volume, pages = fields
    near = _near_name(authors)
    if venue.agreement != "not_stated" or (authors.agreement == "differs" and not near):
        return False
    if pages.agreement != "agrees" or volume.agreement not in ("agrees", "not_recorded"):
        return False  # a chapter's record has no volume: its book's pages name it
    timeless = year.agreement == "not_recorded" and entry.year is None
    if near and not (year.agreement == "agrees" or timeless):
        return False
    if (
        year.agreement != "agrees"
        and not timeless
        and not (year.agreement == "not_stated" and authors.agreement == "agrees")
    ):
        return False  # a year OCR garbled ("(20N3)"): the first author stands in for it
    return any(
        _squeezed_in(
            fold(name).replace(" ", ""), entry, least=_GARBLED_VENUE, alike=100 * _GARBLED_ALIKE
        )
        for name in _venue_names(record)
    )


#: The fewest letters of a venue read loosely: a shorter name is found by chance.
_GARBLED_VENUE = 8


def _agrees_or_venue_does(field: FieldScore, venue: FieldScore) -> bool:
    """``field`` agrees, or one side lacks it and the venue agrees in its place."""
    return field.agreement == "agrees" or (
        field.agreement != "differs" and venue.agreement == "agrees"
    )


def _sparse(entry: _Entry, record: WorkRecord, fields: tuple[FieldScore, ...]) -> bool:
    """What a conference or book-series style prints of a paper: its first author, the
    venue (two words or more) and the year, and no title, volume or page to contradict."""
    _, authors, year, venue, volume, pages = fields
    return (
        _person_and_time(authors, year)
        and venue.agreement == "agrees"
        and len(_venue_words_of(record)) >= 2
        and volume.agreement != "differs"
        and pages.agreement != "differs"
        and not entry.stated.title
        and _residue(entry, record) <= 1
    )


def _fit_by_numbers(
    entry: _Entry, record: WorkRecord, title: _Title, fields: tuple[FieldScore, ...]
) -> tuple[Fit, tuple[str, ...]]:
    """The fit of a record its numbers (or its sparse fields) identify: a match, unless the
    entry prints a title the record does not have."""
    agreed = tuple(f.field for f in fields[1:] if f.agreement == "agrees")
    if title.level == "none":
        return "match", agreed  # the record holds no title; its numbers speak
    if not _prints_a_title(entry, record, title) or title.level in ("words", "close"):
        return "match", agreed
    return "partial", agreed


def _prints_a_title(entry: _Entry, record: WorkRecord, title: _Title) -> bool:
    """Whether the entry prints a title: a stated one, or words of a string that no field of
    the record accounts for."""
    return title.level != "absent" and (bool(entry.stated.title) or _residue(entry, record) >= 4)
