"""One verdict per reference, from what the registries and the searches answered.

The verdicts, in the order they are decided (the first that applies):

``unresolvable``
    The entry names an identifier that does not exist: doi.org's registration-agency look-up
    says so and neither Crossref nor DataCite has a record (for a PMID or PMCID, NCBI has
    none), or an ISBN whose check digit is wrong.
``mismatch``
    The identifier exists but its record is another work: the fields that identify a work
    (``refs.scoring``) do not agree.  ``suggested`` is the work a search finds for the stated
    metadata, when one validates.
``unavailable``
    A database could not be read, or answered without what identity needs (hits without a
    title), and nothing validated: never ``not_found``.
``unchecked``
    Nothing could be checked: the entry names nothing to look up, its identifier's record
    holds nothing to compare, or it is a kind of work the databases do not hold (a book
    without DOI, a thesis, a standard, software, a data set, a web page, a legal text:
    ``refs.kinds``) and no database holds it.  Never an accusation.
``not_found``
    No identifier, and every database asked answered well-formed with nothing that matches,
    for an entry that prints what identifies a work (:func:`prints_identity`; one that does
    not is ``unchecked``).  A lead to check by hand, with the closest records, never a
    finding.
``partial``
    A record has the stated title (or all the stated numbers), but another field differs.
``ambiguous``
    Several different works validate with scores within :data:`AMBIGUITY_MARGIN`.
``verified``
    The entry matches one work; ``decided_by`` names the fields that identified it.

Records that share an identifier, or that name each other as versions (a preprint and its
journal article), are one work.  A validated match is evidence whichever database gave it,
so a failure elsewhere does not undo a ``verified``; a failure only stops a *negative*
conclusion.  Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from citeproof.errors import UnknownIdentifierError
from citeproof.identifiers import parse_identifier
from citeproof.models.references import WorkRecord
from citeproof.refs.kinds import isbn_problem, isbns_in, outside_kind
from citeproof.refs.numbers import numbers_identify
from citeproof.refs.scoring import (
    TITLE_OTHER,
    Scored,
    informative,
    score,
    venue_garbled_in,
    year_garbled_in,
)
from citeproof.refs.stated import StatedReference, sentence_words

__all__ = [
    "AMBIGUITY_MARGIN",
    "Decision",
    "IdentifierEvidence",
    "SearchEvidence",
    "decide",
    "prints_identity",
]

#: Works whose scores are this close to the best are equally good matches.
AMBIGUITY_MARGIN = 0.02
#: At most this many works are listed for an ambiguous reference, or as the closest.
MAX_CANDIDATES = 5
CLOSEST = 3
#: Lower-case words that say a string prints a title its reader did not find.
TITLE_WORDS = 3
#: How alike a venue must be for a record without a title to be possibly the cited work:
#: the venue comparison's own threshold lets a venue that is part of another agree.
UNTITLED_VENUE_SAME = 0.90
#: What every flag says of itself: evidence for a person, not a verdict on the author.
LEAD = "This is a lead to check by hand, not a finding."


@dataclass(frozen=True, slots=True)
class IdentifierEvidence:
    """What the registries said about one identifier the entry names."""

    key: str
    """``doi:…``, ``pmid:…`` or ``pmcid:…``."""
    exists: bool | None
    """False: it does not exist; None: it could not be established (a failure)."""
    records: tuple[WorkRecord, ...] = ()
    registered_with: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class SearchEvidence:
    """One search of one database for the stated metadata."""

    service: str
    ok: bool
    """The database answered, well-formed (an empty answer is ok)."""
    records: tuple[WorkRecord, ...] = ()
    reason: str | None = None

    def complete(self, stated: StatedReference) -> bool:
        """Whether every hit could be compared: a hit without a title cannot be, so an answer
        holding one cannot show that the work is not there, unless two of its other fields
        already differ from the entry's (another work: :func:`_another_work`)."""
        return all(r.title or _another_work(stated, r) for r in self.records)


def _another_work(stated: StatedReference, record: WorkRecord) -> bool:
    """Whether a record's fields other than the title say it is not the cited work: two of
    its first author, year, venue, volume and first page differ from the entry's, or the
    entry prints neither its first author nor its venue.

    Why: Crossref holds real records without a title, and search ranks them beside the
    entry.  One differing field may be a misprint; two, or a record whose author and venue
    are nowhere in the entry, are another work.  A hit that holds no author, year or venue
    (an answer cut down to identifiers) says nothing either way."""
    if not (record.authors or record.year or record.venue):
        return False
    scored = score(stated, record).fields[1:]
    fields = {f.field: f.agreement for f in scored}
    if sum(1 for agreement in fields.values() if agreement == "differs") >= 2:
        return True
    venue = next(f for f in scored if f.field == "venue")
    if venue.agreement == "agrees" and (venue.score or 0) < UNTITLED_VENUE_SAME:
        # a venue whose words are in the record's only as a part ("Journal of Adaptive
        # Letters" in "International Journal of Adaptive, Resilient and Autonomic
        # Systems"): a journal's own record, titled by nothing, is no work of the entry's
        return fields["authors"] != "agrees"
    return "agrees" not in (fields["authors"], fields["venue"])


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: str
    reason: str
    work: Scored | None = None
    suggested: Scored | None = None
    candidates: tuple[Scored, ...] = ()
    differs: tuple[str, ...] = field(default_factory=tuple)
    closest: tuple[Scored, ...] = ()
    notes: tuple[str, ...] = ()
    work_kind: str | None = None


def _names_nothing(stated: StatedReference) -> bool:
    """The entry states nothing but its identifiers: there is nothing to compare."""
    if stated.title or stated.authors:
        return False
    text = stated.text
    for _, value in stated.identifiers:
        text = text.replace(value, " ")
    words = [w for w in text.split() if any(c.isalpha() for c in w) and len(w) > 3]
    return len([w for w in words if w.lower().strip(":.") not in ("doi", "pmid", "pmcid")]) < 2


def _keys(record: WorkRecord) -> set[str]:
    """Every identifier key a record carries, and the keys of the other versions it names:
    records sharing one are one work (a preprint and its journal article are cited as one)."""
    pairs = (
        ("doi", record.doi),
        ("pmid", record.pmid),
        ("pmcid", record.pmcid),
        ("openalex", record.openalex),
    )
    keys = {f"{kind}:{value}" for kind, value in pairs if value}
    keys.update(r.split(":", 1)[1] for r in record.related if ":" in r)
    return keys


def _own_keys(record: WorkRecord) -> set[str]:
    pairs = (("doi", record.doi), ("pmid", record.pmid), ("pmcid", record.pmcid))
    return {f"{kind}:{value}" for kind, value in pairs if value}


def _merged(group: list[WorkRecord]) -> list[WorkRecord]:
    """One work's records, each completed with the identifiers the others know (a PubMed
    summary without its DOI is still the Crossref record's work); versions keep their own."""
    known: dict[str, str] = {}
    for record in group:
        if record.related:
            continue  # another version: its DOI is not the others'
        for name in ("doi", "pmid", "pmcid", "openalex"):
            value = getattr(record, name)
            if value and name not in known:
                known[name] = value
    out = []
    for record in group:
        missing = {k: v for k, v in known.items() if not getattr(record, k)}
        out.append(record.model_copy(update=missing) if missing and not record.related else record)
    return out


def _works(records: Sequence[WorkRecord]) -> list[list[WorkRecord]]:
    """The records grouped by work: two records are one work when they share any
    identifier, directly or through a third (union-find over identifier keys)."""
    parent = list(range(len(records)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, record in enumerate(records):
        for key in _keys(record) or {f"record:{i}"}:
            if key in owner:
                parent[root(i)] = root(owner[key])
            else:
                owner[key] = i
    groups: dict[int, list[WorkRecord]] = {}
    for i, record in enumerate(records):
        groups.setdefault(root(i), []).append(record)
    return list(groups.values())


def _best(stated: StatedReference, records: Sequence[WorkRecord]) -> list[Scored]:
    """Each distinct work once (its best-scoring record), best first."""
    best: list[Scored] = []
    for group in _works(records):
        scored = [score(stated, record) for record in _merged(group)]
        best.append(max(scored, key=_within_work))
    return sorted(best, key=lambda s: (-_rank(s), -s.score, s.record.key))


def _within_work(scored: Scored) -> tuple[int, int, float, bool]:
    """Which record of one work speaks for it: the best fit, then the one that agrees on
    more fields (a journal record over its preprint's, for an entry citing the journal: the
    preprint has no volume or pages to agree), then the score, then one without a note."""
    agreeing = sum(1 for f in scored.fields if f.agreement == "agrees")
    return (_rank(scored), agreeing, scored.score, scored.note is None)


def _rank(scored: Scored) -> int:
    return {"match": 3, "partial": 2, "close": 1, "other": 0}[scored.fit]


def _differing(scored: Scored) -> str:
    """ "the authors differ", "the year differs": the fields, and a verb that agrees."""
    fields = scored.differs or ("title",)
    verb = "differ" if len(fields) > 1 or fields[0] == "authors" else "differs"
    return f"{', '.join(fields)} {verb}"


def _by(scored: Scored) -> str:
    """ "(title, authors, year)": which fields identified the work."""
    return f" ({', '.join(scored.decided_by)} agree)" if scored.decided_by else ""


def _searched(stated: StatedReference, searches: Sequence[SearchEvidence]) -> list[Scored]:
    return _best(stated, [r for s in searches for r in s.records if r.title or r.volume])


def _closest(ranked: Sequence[Scored]) -> tuple[Scored, ...]:
    return tuple(sorted(ranked, key=lambda s: -s.score)[:CLOSEST])


def _notes(scored: Scored | None) -> tuple[str, ...]:
    return (scored.note,) if scored is not None and scored.note else ()


def _verified(reason: str, scored: Scored) -> Decision:
    return Decision("verified", reason, work=scored, notes=_notes(scored))


def _from_identifiers(
    stated: StatedReference,
    ids: Sequence[IdentifierEvidence],
    searches: Sequence[SearchEvidence],
) -> Decision:
    """The verdict for an entry that names identifiers: what their records say, in order."""
    gone = next((i for i in ids if i.exists is False), None)
    if gone is not None:
        return Decision(
            "unresolvable",
            f"{gone.key} does not exist: {gone.reason or 'no registry knows it'}. {LEAD}",
        )
    records = [r for i in ids for r in i.records]
    if not records:
        return _record_unread(stated, ids, searches)
    best = _best(stated, records)[0]
    return (
        _states_nothing_else(stated, best)
        or _record_matches(best)
        or _record_uncontradicted(best)
        or _record_untitled(best)
        or _partial(best)
        or _mismatch(stated, best, searches)
    )


def _record_unread(
    stated: StatedReference,
    ids: Sequence[IdentifierEvidence],
    searches: Sequence[SearchEvidence],
) -> Decision:
    """The identifier's own record could not be read; a search that validates the very
    work it names still verifies the entry, anything else concludes nothing."""
    named = {i.key for i in ids}
    for found in _searched(stated, searches):
        if found.fit == "match" and named & _keys(found.record):
            return _verified(
                f"The entry matches {found.record.key}, found by search (the registry "
                f"record could not be read){_by(found)}.",
                found,
            )
    failed = next((i for i in ids if i.exists is None), None)
    reason = failed.reason if failed is not None and failed.reason else "no record"
    # The reason is a sentence of its own; inside the brackets it loses its full stop.
    why = reason.rstrip(".")
    return Decision("unavailable", f"The record of {ids[0].key} could not be read ({why}).")


def _states_nothing_else(stated: StatedReference, best: Scored) -> Decision | None:
    """An entry that states only its identifier: the record's existence is all there is."""
    if not _names_nothing(stated):
        return None
    return Decision(
        "verified",
        f"{best.record.key} exists; the entry states nothing else to compare.",
        work=best,
    )


def _record_matches(best: Scored) -> Decision | None:
    if best.fit != "match":
        return None
    return _verified(f"The entry matches the record of {best.record.key}{_by(best)}.", best)


def _record_uncontradicted(best: Scored) -> Decision | None:
    """The identifier names the work; nothing the entry states contradicts its record,
    which agrees on the first author or the year."""
    agreeing = [f.field for f in best.fields if f.agreement == "agrees"]
    if best.note or best.differs or not {"authors", "year"} & set(agreeing):
        return None
    shown = replace(best, decided_by=("identifier", *agreeing))
    return _verified(
        f"The record of {best.record.key} agrees with everything the entry states "
        f"({', '.join(agreeing)}).",
        shown,
    )


def _record_untitled(best: Scored) -> Decision | None:
    """A record without a title that the entry's other fields do not identify."""
    if best.field("title").agreement != "not_recorded" or best.fit == "partial":
        return None
    return Decision(
        "unchecked",
        f"{best.record.key} exists, but its record holds no title and the entry's other "
        "fields do not identify it, so whether it is the cited work could not be checked.",
        work=best,
    )


def _partial(scored: Scored | None, closest: tuple[Scored, ...] = ()) -> Decision | None:
    """A record with the entry's title (or numbers) and another field that differs."""
    if scored is None or scored.fit != "partial":
        return None
    return Decision(
        "partial",
        f"{scored.record.key} has this {_what(scored)}, but the {_differing(scored)}. {LEAD}",
        work=scored,
        differs=scored.differs,
        closest=closest,
    )


def _mismatch(
    stated: StatedReference, best: Scored, searches: Sequence[SearchEvidence]
) -> Decision:
    """The identifier's record is another work; a search may find the one the entry
    describes."""
    suggested = next(
        (
            s
            for s in _searched(stated, searches)
            if s.fit == "match" and not (_own_keys(s.record) & _own_keys(best.record))
        ),
        None,
    )
    differs = best.differs or ("title",)
    reason = f"{best.record.key} is another work: its {_differing(best)} from the entry's."
    if best.note:
        reason = f"{best.note[0].upper()}{best.note[1:]}."
    if suggested is not None:
        reason += f" The stated metadata describes {suggested.record.key}{_by(suggested)}."
    return Decision("mismatch", f"{reason} {LEAD}", work=best, suggested=suggested, differs=differs)


def _nothing_to_look_up(stated: StatedReference) -> str:
    """Why an entry was not looked up: no identifier (naming the malformed ones it gives,
    which are no identifiers) and nothing to search for."""
    if not stated.malformed_ids:
        return "The entry names no identifier and nothing to search for."
    why = []
    for raw in stated.malformed_ids[:3]:
        try:
            parse_identifier(raw)
        except UnknownIdentifierError as err:
            why.append(err.reason.rstrip("."))
        else:
            why.append(f"{raw!r} is not an identifier its field can hold")
    return f"The entry names no identifier ({'; '.join(why)}) and nothing to search for."


def _consistent(scored: Scored, stated: StatedReference) -> bool:
    """A record that contradicts nothing the entry states and shares its informative title's
    words, or its year and its first author, venue or title words, or its year, volume and
    first page, or its first author and first page (and volume, when it has one), without
    enough to identify it: too close to call the entry not found.  (A year OCR garbled,
    "(20N3)", or a chapter cited "n.d." leaves the author and the page; a venue OCR glued
    to its volume leaves the volume, the page and the year; a title's words scrambled,
    with no author or year to compare, leave them alone.)  A title nearly the record's, OCR
    having left it short of the same title's likeness (:func:`_nearly_the_title`), counts
    with its year, venue or first author when nothing else differs."""
    if scored.note:
        return False
    agreeing = {f.field for f in scored.fields if f.agreement == "agrees"}
    if scored.differs == ("title",) and _nearly_the_title(scored):
        # "Tide s in EngliEh Tast e(16R9-180O).” 1937": OCR left the title short of the
        # same title's likeness, and nothing else differs
        return bool({"year", "venue", "authors"} & agreeing)
    if scored.differs:
        return False
    if "title" in agreeing and informative(scored.record.title or ""):
        return True  # its title's words, whatever their order: never found missing
    if agreeing <= {"authors", "year"} and _key_beyond(scored, stated):
        return False
    if "year" in agreeing and {"authors", "venue", "title"} & agreeing:
        return True
    if {"authors", "venue"} <= agreeing and year_garbled_in(stated, scored.record):
        return True  # its first author and venue, and its year as OCR garbled it ("20b7")
    if {"year", "volume", "pages"} <= agreeing and _key_whole(scored, stated, agreeing):
        return True  # ECitMatch's key whole, the venue beside it unread ("1SciencD232,662")
    volume = scored.field("volume").agreement
    return {"authors", "pages"} <= agreeing and volume in ("agrees", "not_recorded")


def _nearly_the_title(scored: Scored) -> bool:
    """Whether the record's title, one that says which work it is, is nearly the entry's:
    as alike as :data:`~citeproof.refs.scoring.TITLE_OTHER` or more, short of the same
    title's likeness.  Noise leaves a title there ("AWnealing BufRer (2x)" for Annealing
    Buffer (2x)); another work's title is rarely as near."""
    title = scored.field("title")
    return (
        title.stated is not None
        and (title.score or 0) >= TITLE_OTHER
        and informative(scored.record.title or "")
    )


def _key_whole(scored: Scored, stated: StatedReference, agreeing: set[str]) -> bool:
    """Whether a record that shares an entry's volume, first page and year shares what
    else the entry prints: its venue, garbled past the venue field's reading
    (``scoring.venue_garbled_in``), and, when the entry names authors, its authors.  The
    three numbers alone are many works' (a review journal's issue shares them with the
    articles of another journal), never a key."""
    return ("authors" in agreeing or not stated.surnames) and venue_garbled_in(
        stated, scored.record
    )


def _key_beyond(scored: Scored, stated: StatedReference) -> bool:
    """Whether the entry prints the numbers that name an article (a volume and its page, a
    page range) where the record holds neither a volume nor pages to compare them with:
    the names and the year it shares are many works', not a key's."""
    record = scored.record
    return not (record.volume or record.pages) and _prints_numbers(stated)


def _what(scored: Scored) -> str:
    """What the record shares with the entry, for a ``partial``: its title or its numbers."""
    return "title" if scored.field("title").agreement == "agrees" else "volume and pages"


def decide(
    stated: StatedReference,
    ids: Sequence[IdentifierEvidence],
    searches: Sequence[SearchEvidence],
) -> Decision:
    """The verdict for ``stated`` (see the module docstring for the order)."""
    if ids:
        return _from_identifiers(stated, ids, searches)
    ranked = _searched(stated, searches)
    partial = next((s for s in ranked if s.fit == "partial"), None)
    closest = _closest(ranked)
    identity = prints_identity(stated)
    return (
        _search_matches(ranked)
        or _search_unread(stated, searches, partial, closest, identity)
        or _bad_isbn(stated)
        or (_partial(partial, closest) if identity else None)
        or _too_little(stated, ranked, closest)
        or _outside(stated, searches, closest)
        or _not_found(stated, searches, closest, identity)
    )


def _search_matches(ranked: Sequence[Scored]) -> Decision | None:
    """The work a search validates, or the works that validate equally well."""
    matches = [s for s in ranked if s.fit == "match"]
    if not matches:
        return None
    top = matches[0]
    equal = [s for s in matches if top.score - s.score <= AMBIGUITY_MARGIN]
    if len(equal) > 1:
        keys = ", ".join(s.record.key for s in equal[:MAX_CANDIDATES])
        return Decision(
            "ambiguous",
            f"{len(equal)} works match the entry equally well: {keys}.",
            candidates=tuple(equal[:MAX_CANDIDATES]),
        )
    return _verified(f"The entry matches {top.record.key}{_by(top)}.", top)


def _search_unread(
    stated: StatedReference,
    searches: Sequence[SearchEvidence],
    partial: Scored | None,
    closest: tuple[Scored, ...],
    identity: bool,
) -> Decision | None:
    """Nothing validated, and a database that could not be read (or answered hits it could
    not compare) might hold the work."""
    failed = [s for s in searches if not s.ok]
    # an entry that prints too little to identify a work (not ``identity``) is unchecked
    # whatever the hits: a hit without a title could not make it found, nor its absence a lead
    incomplete = [s for s in searches if s.ok and identity and not s.complete(stated)]
    if not (failed or incomplete):
        return None
    names = ", ".join(s.service for s in failed)
    why = f"{names} could not be read" if failed else ""
    if incomplete:
        shown = ", ".join(s.service for s in incomplete)
        why += ("; " if why else "") + f"{shown} answered hits without a title"
    near = ""
    if partial is not None:
        near = f" (closest: {partial.record.key}, whose {_differing(partial)})"
    return Decision(
        "unavailable",
        f"{why}, and nothing else matched{near}; nothing was concluded.",
        closest=closest,
    )


def _bad_isbn(stated: StatedReference) -> Decision | None:
    """An ISBN whose length or check digit is wrong: no book has it."""
    isbn = next((p for p in map(isbn_problem, isbns_in(stated.text)) if p), None)
    if isbn is None:
        return None
    return Decision(
        "unresolvable", f"{isbn[0].upper()}{isbn[1:]}: no book has it. {LEAD}", work_kind="book"
    )


def _too_little(
    stated: StatedReference, ranked: Sequence[Scored], closest: tuple[Scored, ...]
) -> Decision | None:
    """A record agrees with all the entry states that the record can compare, but that is
    too little to identify a work: not found would be untrue, verified unproven."""
    thin = next((s for s in ranked if _consistent(s, stated)), None)
    if thin is None:
        return None
    agreeing = ", ".join(f.field for f in thin.fields if f.agreement == "agrees")
    return Decision(
        "unchecked",
        f"{thin.record.key} agrees with all the entry states that its record holds "
        f"({agreeing}), but that is too little to tell it is the cited work; compare them "
        "by hand.",
        closest=closest,
    )


def _outside(
    stated: StatedReference, searches: Sequence[SearchEvidence], closest: tuple[Scored, ...]
) -> Decision | None:
    """A kind of work the databases may not hold: no record says nothing against it."""
    outside = outside_kind(stated)
    if outside is None:
        return None
    asked = ", ".join(s.service for s in searches) or "no database"
    return Decision(
        "unchecked",
        f"The entry cites a {outside.kind}, which {asked} may not hold: no record matched, "
        f"which says nothing against it. Look it up in {outside.look}.",
        closest=closest,
        work_kind=outside.kind,
    )


def prints_identity(stated: StatedReference) -> bool:
    """Whether the entry prints what identifies a work: a title that says which work it is
    (``scoring.informative``; or, where the reader found none, :data:`TITLE_WORDS` words of
    one in lower case, ``stated.sentence_words``), or the numbers that name an article or a
    chapter: the volume and first page where its style puts them (ECitMatch's key), a page
    range, or the page a chapter prints before its year.

    Why: "no record matches" is evidence only when a record of the work would have matched.
    An entry that prints an author, a venue and a year ("(1) Rosenau, J. N. 1964.") names no
    work any database could confirm, so finding none says nothing against it."""
    if stated.title and informative(stated.title):
        return True
    if stated.volume and stated.pages:
        return True
    text = stated.text
    if not stated.title and sentence_words(text) >= TITLE_WORDS:
        return True  # a title the reader did not find, in sentence case
    return _prints_numbers(stated)


def _prints_numbers(stated: StatedReference) -> bool:
    """Whether the entry prints the numbers that name an article or a chapter where its
    style puts them (``numbers.numbers_identify``, told the entry's list marker)."""
    return numbers_identify(stated.text, bracketed="[" in (stated.marker or ""))


def _not_found(
    stated: StatedReference,
    searches: Sequence[SearchEvidence],
    closest: tuple[Scored, ...],
    identity: bool,
) -> Decision:
    """Every database asked answered, and nothing matches: a lead, never a finding (and not
    even a lead for an entry that prints too little to identify a work)."""
    if not searches:
        return Decision("unchecked", _nothing_to_look_up(stated))
    asked = ", ".join(s.service for s in searches)
    if not identity:
        return Decision(
            "unchecked",
            f"No record in {asked} matches the entry, but it prints too little to identify a "
            "work (no title that says which work it is, no volume and page), so that says "
            "nothing against it; compare it by hand with the closest records.",
            closest=closest,
        )
    return Decision(
        "not_found",
        f"No record in {asked} matches the entry; each answered, and the closest records are "
        f"listed. The work may be missing from these databases or cited with errors. {LEAD}",
        closest=closest,
    )
