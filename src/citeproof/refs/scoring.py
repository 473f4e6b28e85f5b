"""How well a stated reference matches a database's record: one score per field, the
tolerance each is held to, and what the comparison concludes.

The thresholds (written down here and in docs/references.md, and reported with every score):

* **title**: rapidfuzz ``ratio`` of the folded titles (accents, case and punctuation gone),
  also against the record's title without its subtitle and the stated one without its own,
  so "Aspirin and stroke" matches "Aspirin and stroke: a cohort study".  At least
  :data:`TITLE_SAME` (0.90) is the same title; below :data:`TITLE_OTHER` (0.75) another
  work.  Between the two the title is *close*: a typo or a translation, which validates only
  when the first author and the year agree too.  For an entry that is only a string (no
  title field), the record's title is looked for *inside* the string (``partial_ratio``),
  Crossref's SBMV way of validating an unstructured reference.
* **authors**: the first stated surname against the record's first surname (folded, so
  "Müller" is "Muller"); for a string, the record's first surname as a word of the string.
  Agreement also counts how many stated surnames the record lists (``score``).
* **year**: within :data:`YEAR_TOLERANCE` (1) of the record's: online-first and print years
  often differ by one.
* **venue**: ``token_set_ratio`` at least :data:`VENUE_SAME` (0.80), or the stated venue
  an abbreviation of the record's ("N Engl J Med" of "New England Journal of Medicine":
  every stated word the start of a record word, in order).  Abbreviation lists differ
  between databases, so a venue alone never makes a work another work (see ``decide``).

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz

from citeproof.models.references import WorkRecord
from citeproof.refs.stated import StatedReference, fold, surname, years_in

__all__ = [
    "FIELD_WEIGHTS",
    "TITLE_OTHER",
    "TITLE_SAME",
    "VENUE_SAME",
    "YEAR_TOLERANCE",
    "FieldScore",
    "Fit",
    "Scored",
    "score",
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
#: How much each field weighs in the overall score, over the fields both sides have.
FIELD_WEIGHTS = {"title": 0.6, "authors": 0.2, "year": 0.1, "venue": 0.1}

Agreement = Literal["agrees", "differs", "not_stated", "not_recorded"]
Fit = Literal["match", "partial", "close", "other"]
"""``match``: the record is the work the entry describes.  ``partial``: the same title, but
the authors, year or venue differ beyond tolerance.  ``close``: a near title whose other
fields do not confirm it.  ``other``: a different work."""

_STOP = frozenset({"of", "the", "and", "for", "in", "on", "a", "an", "to", "de", "la", "und"})
_SUBTITLE = re.compile(r"\s*[:.?!]\s+")

THRESHOLDS = {
    "title": f"same title at >= {TITLE_SAME:.2f}, another work below {TITLE_OTHER:.2f}",
    "authors": "the first author's surname is the record's first author",
    "year": f"within {YEAR_TOLERANCE} year of the record",
    "venue": f"token-set similarity >= {VENUE_SAME:.2f}, or an abbreviation of the record's",
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

    def field(self, name: str) -> FieldScore:
        return next(f for f in self.fields if f.field == name)

    @property
    def differs(self) -> tuple[str, ...]:
        return tuple(f.field for f in self.fields if f.agreement == "differs")


def _main_title(text: str) -> str:
    return _SUBTITLE.split(text, maxsplit=1)[0]


def _title(stated: StatedReference, record: WorkRecord) -> FieldScore:
    if not record.title:
        return FieldScore("title", stated.title, None, None, "not_recorded")
    recorded = fold(record.title[:MAX_COMPARED])
    if stated.title:
        given = fold(stated.title[:MAX_COMPARED])
        ratio = max(
            fuzz.ratio(given, recorded),
            fuzz.ratio(
                fold(_main_title(stated.title[:MAX_COMPARED])),
                fold(_main_title(record.title[:MAX_COMPARED])),
            ),
            fuzz.ratio(given, fold(_main_title(record.title[:MAX_COMPARED]))),
        )
        value = ratio / 100.0
        agreement: Agreement = "agrees" if value >= TITLE_SAME else "differs"
        return FieldScore("title", stated.title, record.title, round(value, 3), agreement)
    text = fold(stated.text[:MAX_COMPARED])
    if len(text.split()) < 2:
        return FieldScore("title", None, record.title, None, "not_stated")
    # The record's title inside the string, or its main title (entries often drop the
    # subtitle); a short title must match whole words.
    value = 0.0
    for candidate in dict.fromkeys((recorded, fold(_main_title(record.title[:MAX_COMPARED])))):
        found = fuzz.partial_ratio(candidate, text) / 100.0
        if len(candidate) < 12 and f" {candidate} " not in f" {text} ":
            found = min(found, TITLE_OTHER - 0.01)
        value = max(value, found)
    agreement = "agrees" if value >= TITLE_SAME else "differs"
    return FieldScore("title", None, record.title, round(value, 3), agreement)


def _authors(stated: StatedReference, record: WorkRecord) -> FieldScore:
    recorded = tuple(s for s in (surname(a) for a in record.authors[:MAX_AUTHORS]) if s)
    shown = record.authors[0] if record.authors else None
    if not recorded:
        return FieldScore("authors", _first(stated), None, None, "not_recorded")
    given = stated.surnames[:MAX_AUTHORS]
    if given:
        first_ok = _same_name(given[0], recorded[0])
        listed = sum(1 for g in given if any(_same_name(g, r) for r in recorded))
        value = listed / len(given)
        agreement: Agreement = "agrees" if first_ok else "differs"
        return FieldScore("authors", stated.authors[0], shown, round(value, 3), agreement)
    words = f" {fold(stated.text[:MAX_COMPARED])} "
    if len(words.split()) < 2:
        return FieldScore("authors", None, shown, None, "not_stated")
    found = f" {recorded[0]} " in words
    return FieldScore("authors", None, shown, 1.0 if found else 0.0, _agree(found))


def _first(stated: StatedReference) -> str | None:
    return stated.authors[0] if stated.authors else None


def _same_name(a: str, b: str) -> bool:
    """Folded surnames that name the same person: equal, or one a particle-less form of the
    other ("berg" and "van der berg"), or within one edit for names of six letters or more."""
    if a == b or a.split()[-1:] == b.split()[-1:]:
        return True
    return min(len(a), len(b)) >= 6 and fuzz.ratio(a, b) >= 90


def _agree(ok: bool) -> Agreement:
    return "agrees" if ok else "differs"


def _year(stated: StatedReference, record: WorkRecord) -> FieldScore:
    given = stated.year
    if given is None and not stated.title:
        from_text = years_in(stated.text[:MAX_COMPARED])
        if from_text and record.year is not None:
            # A string may carry several years (an access date); the nearest one counts.
            given = min(from_text, key=lambda y: abs(y - (record.year or 0)))
    shown = str(given) if given is not None else None
    if record.year is None:
        return FieldScore("year", shown, None, None, "not_recorded")
    if given is None:
        return FieldScore("year", None, str(record.year), None, "not_stated")
    gap = abs(given - record.year)
    value = 1.0 if gap == 0 else (0.5 if gap <= YEAR_TOLERANCE else 0.0)
    return FieldScore("year", shown, str(record.year), value, _agree(gap <= YEAR_TOLERANCE))


def _abbreviates(short: str, long: str) -> bool:
    words = [w for w in short.split() if w not in _STOP]
    full = [w for w in long.split() if w not in _STOP]
    if not words or len(words) > len(full):
        return False
    at = 0
    for word in words:
        while at < len(full) and not full[at].startswith(word):
            at += 1
        if at == len(full):
            return False
        at += 1
    return True


def _venue(stated: StatedReference, record: WorkRecord) -> FieldScore:
    if not stated.venue:
        return FieldScore("venue", None, record.venue, None, "not_stated")
    if not record.venue:
        return FieldScore("venue", stated.venue, None, None, "not_recorded")
    given, recorded = fold(stated.venue[:MAX_COMPARED]), fold(record.venue[:MAX_COMPARED])
    value = fuzz.token_set_ratio(given, recorded) / 100.0
    ok = value >= VENUE_SAME or _abbreviates(given, recorded) or _abbreviates(recorded, given)
    return FieldScore("venue", stated.venue, record.venue, round(value, 3), _agree(ok))


def score(stated: StatedReference, record: WorkRecord) -> Scored:
    """Every field of ``stated`` held against ``record``, the weighted score, and the fit."""
    fields = (
        _title(stated, record),
        _authors(stated, record),
        _year(stated, record),
        _venue(stated, record),
    )
    weight = total = 0.0
    for f in fields:
        if f.score is not None:
            weight += FIELD_WEIGHTS[f.field]
            total += FIELD_WEIGHTS[f.field] * f.score
    overall = round(total / weight, 3) if weight else 0.0
    return Scored(record, fields, overall, _fit(fields))


def _fit(fields: tuple[FieldScore, ...]) -> Fit:
    title, authors, year, venue = fields
    if title.score is None:
        # No title to compare: only the authors and year can speak, and they can confirm
        # a record found by its identifier (``decide``), never a search hit.
        spoken = [f for f in (authors, year) if f.agreement in ("agrees", "differs")]
        if spoken and all(f.agreement == "agrees" for f in spoken):
            return "close"
        return "other"
    others = (authors, year, venue)
    if title.score >= TITLE_SAME:
        differing = [f for f in others if f.agreement == "differs"]
        if not differing:
            return "match"
        if differing == [venue] and authors.agreement == "agrees" and year.agreement == "agrees":
            return "match"  # a venue alone is how databases abbreviate, not another work
        return "partial"
    if title.score >= TITLE_OTHER:
        if authors.agreement == "agrees" and year.agreement == "agrees":
            return "match"
        return "close"
    return "other"
