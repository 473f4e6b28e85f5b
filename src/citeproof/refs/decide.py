"""One verdict per reference, from what the registries and the searches answered.

The verdicts, in the order they are decided (the first that applies):

``unresolvable``
    The entry names an identifier that does not exist: doi.org's registration-agency look-up
    says so and neither Crossref nor DataCite has a record (for a PMID or PMCID, NCBI has
    none).
``mismatch``
    The identifier exists but its record is another work: the title is not the stated one
    (below the same-title threshold, and not a near title confirmed by author and year).
    ``suggested`` is the work a search finds for the stated metadata, when one validates.
``unavailable``
    A database could not be read and nothing validated: never ``not_found``.
``not_found``
    No identifier, and every database asked answered well-formed with nothing that matches.
``partial``
    A record has the stated title, but the authors, year or venue differ beyond tolerance.
``ambiguous``
    Several different works validate with scores within :data:`AMBIGUITY_MARGIN`.
``verified``
    The entry matches one work.

A validated match is evidence whichever database gave it, so a failure elsewhere does not
undo a ``verified``; a failure only stops a *negative* conclusion.  Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from citeproof.models.references import WorkRecord
from citeproof.refs.scoring import Scored, score
from citeproof.refs.stated import StatedReference

__all__ = [
    "AMBIGUITY_MARGIN",
    "Decision",
    "IdentifierEvidence",
    "SearchEvidence",
    "decide",
]

#: Works whose scores are this close to the best are equally good matches.
AMBIGUITY_MARGIN = 0.02
#: At most this many works are listed for an ambiguous reference.
MAX_CANDIDATES = 5


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


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: str
    reason: str
    work: Scored | None = None
    suggested: Scored | None = None
    candidates: tuple[Scored, ...] = ()
    differs: tuple[str, ...] = field(default_factory=tuple)


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
    """Every identifier key a record carries: records sharing one are the same work."""
    pairs = (
        ("doi", record.doi),
        ("pmid", record.pmid),
        ("pmcid", record.pmcid),
        ("openalex", record.openalex),
    )
    return {f"{kind}:{value}" for kind, value in pairs if value}


def _merged(group: list[WorkRecord]) -> list[WorkRecord]:
    """One work's records, each completed with the identifiers the others know (a PubMed
    summary without its DOI is still the Crossref record's work)."""
    known: dict[str, str] = {}
    for record in group:
        for name in ("doi", "pmid", "pmcid", "openalex"):
            value = getattr(record, name)
            if value and name not in known:
                known[name] = value
    out = []
    for record in group:
        missing = {k: v for k, v in known.items() if not getattr(record, k)}
        out.append(record.model_copy(update=missing) if missing else record)
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
        best.append(max(scored, key=lambda s: (_rank(s), s.score)))
    return sorted(best, key=lambda s: (-_rank(s), -s.score, s.record.key))


def _rank(scored: Scored) -> int:
    return {"match": 3, "partial": 2, "close": 1, "other": 0}[scored.fit]


def _differing(scored: Scored) -> str:
    """ "the authors differ", "the year differs": the fields, and a verb that agrees."""
    fields = scored.differs or ("title",)
    verb = "differ" if len(fields) > 1 or fields[0] == "authors" else "differs"
    return f"{', '.join(fields)} {verb}"


def _searched(stated: StatedReference, searches: Sequence[SearchEvidence]) -> list[Scored]:
    return _best(stated, [r for s in searches for r in s.records])


def _failed(searches: Sequence[SearchEvidence]) -> list[SearchEvidence]:
    return [s for s in searches if not s.ok]


def _from_identifiers(
    stated: StatedReference,
    ids: Sequence[IdentifierEvidence],
    searches: Sequence[SearchEvidence],
) -> Decision:
    gone = [i for i in ids if i.exists is False]
    if gone:
        return Decision(
            "unresolvable",
            f"{gone[0].key} does not exist: {gone[0].reason or 'no registry knows it'}.",
        )
    records = [r for i in ids for r in i.records]
    if not records:
        # The identifier's own record could not be read; a search that validates the very
        # work it names still verifies the entry, anything else concludes nothing.
        named = {i.key for i in ids}
        for found in _searched(stated, searches):
            # (a search's records are merged by work, so a key the entry names is found
            # even when only another database's record of the work carries it)
            if found.fit == "match" and named & _keys(found.record):
                return Decision(
                    "verified",
                    f"The entry matches {found.record.key}, found by search (the registry "
                    "record could not be read).",
                    work=found,
                )
        failed = next((i for i in ids if i.exists is None), None)
        reason = failed.reason if failed is not None and failed.reason else "no record"
        # The reason is a sentence of its own; inside the brackets it loses its full stop.
        why = reason.rstrip(".")
        return Decision("unavailable", f"The record of {ids[0].key} could not be read ({why}).")
    ranked = _best(stated, records)
    best = ranked[0]
    if _names_nothing(stated):
        return Decision(
            "verified",
            f"{best.record.key} exists; the entry states nothing else to compare.",
            work=best,
        )
    if best.fit == "match":
        return Decision("verified", f"The entry matches the record of {best.record.key}.", best)
    if best.fit == "close" and best.field("title").score is None:
        return Decision(
            "verified",
            f"The stated authors and year agree with the record of {best.record.key} (no "
            "title was stated to compare).",
            best,
        )
    if best.fit == "partial":
        return Decision(
            "partial",
            f"{best.record.key} has this title, but the {_differing(best)}.",
            work=best,
            differs=best.differs,
        )
    suggested = next(
        (
            s
            for s in _searched(stated, searches)
            if s.fit == "match" and s.record.key != best.record.key
        ),
        None,
    )
    differs = best.differs or ("title",)
    reason = f"{best.record.key} is another work: its {_differing(best)} from the entry's."
    if suggested is not None:
        reason += f" The stated metadata describes {suggested.record.key}."
    return Decision("mismatch", reason, work=best, suggested=suggested, differs=differs)


def decide(
    stated: StatedReference,
    ids: Sequence[IdentifierEvidence],
    searches: Sequence[SearchEvidence],
) -> Decision:
    """The verdict for ``stated`` (see the module docstring for the order)."""
    if ids:
        return _from_identifiers(stated, ids, searches)
    ranked = _searched(stated, searches)
    failed = _failed(searches)
    matches = [s for s in ranked if s.fit == "match"]
    if matches:
        top = matches[0]
        equal = [s for s in matches if top.score - s.score <= AMBIGUITY_MARGIN]
        if len(equal) > 1:
            keys = ", ".join(s.record.key for s in equal[:MAX_CANDIDATES])
            return Decision(
                "ambiguous",
                f"{len(equal)} works match the entry equally well: {keys}.",
                candidates=tuple(equal[:MAX_CANDIDATES]),
            )
        return Decision("verified", f"The entry matches {top.record.key}.", work=top)
    partial = next((s for s in ranked if s.fit == "partial"), None)
    if failed:
        # Nothing validated, and a database that could not be read might hold the work.
        names = ", ".join(s.service for s in failed)
        closest = ""
        if partial is not None:
            closest = f" (closest: {partial.record.key}, whose {_differing(partial)})"
        return Decision(
            "unavailable",
            f"{names} could not be read and nothing else matched{closest}; nothing was concluded.",
        )
    if partial is not None:
        return Decision(
            "partial",
            f"{partial.record.key} has this title, but the {_differing(partial)}.",
            work=partial,
            differs=partial.differs,
        )
    if not searches:
        return Decision("not_found", "The entry names no identifier and nothing to search for.")
    asked = ", ".join(s.service for s in searches)
    return Decision(
        "not_found",
        f"No work in {asked} matches the entry: it may be fabricated or mis-cited.",
    )
