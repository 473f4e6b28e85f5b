"""The references page's content: one or more ``citeproof.references/1`` reports (plain JSON
data) turned into what ``references.html.j2`` shows.

Pure, like :mod:`citeproof.report.view`, whose card builder it uses
(:func:`~citeproof.report.view.reference_view` with ``full=True``), so a reference reads the
same on the audit page and here.  What is decided here:

* **The order.**  A reader opens the page to find what needs them, so each list's cards come
  in three groups: the leads to check by hand (unresolvable, wrong work, not found, partial,
  then works that are retracted or under concern, whatever their verdict), then what was not
  checked (unavailable, unchecked: they accuse nothing, and are never styled as a failure),
  then what matched (ambiguous, verified).  Within a group the list's own order holds, so
  the card numbers still say where an entry stands in the file.
* **The words.**  A flag is a lead, not a finding: the banner and the group headings say
  "check by hand", never that a work is invented; the reasons (the report's) say the rest.
* **The lists.**  ``refs`` reads many files into one report whose results each name their
  file; a page may also be given several reports.  Each file is one list, under its name,
  with what reading it found wrong (numbers skipped, entries merged) above its cards.
* **The banner.**  Its state follows the exit code of ``citeproof refs`` (a flag, else an
  unavailable database, else nothing found wrong), and its counts put the flags first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from citeproof.models.references import PROBLEM_VERDICTS
from citeproof.report.values import counted
from citeproof.report.view import MetricCard, ReferenceView, reference_view, shown

__all__ = [
    "GroupView",
    "ListView",
    "build_references_view",
]

#: The verdicts that flag an entry for a person to look at, in the order they are shown.
_FLAGS: Final = PROBLEM_VERDICTS
#: The verdicts that conclude nothing about the entry, shown after the flags, neutrally.
_NEUTRAL: Final = ("unavailable", "unchecked")
#: What matched, shown last.
_MATCHED: Final = ("ambiguous", "verified")
#: Where a card goes among its list's: the flags, a retracted work, what was not checked
#: (a verdict this version does not know goes here too: it accuses nothing it can name),
#: what matched.
_RANK: Final[dict[str, int]] = {
    **{v: i for i, v in enumerate(_FLAGS)},
    "retracted": len(_FLAGS),
    **{v: len(_FLAGS) + 1 + i for i, v in enumerate(_NEUTRAL)},
    **{v: len(_FLAGS) + 1 + len(_NEUTRAL) + i for i, v in enumerate(_MATCHED)},
}
_UNKNOWN_RANK: Final = _RANK["unchecked"]
#: How many file names the banner gives before "and N more" (each list is named below).
_NAMES_SHOWN: Final = 3

#: How each count reads in the banner, flags first: (key, one, many).
_COUNT_WORDS: Final = (
    ("unresolvable", "unresolvable", "unresolvable"),
    ("mismatch", "wrong work", "wrong works"),
    ("not_found", "not found", "not found"),
    ("partial", "partial match", "partial matches"),
    ("retracted", "retracted", "retracted"),
    ("concern", "under an expression of concern", "under an expression of concern"),
    ("unavailable", "unavailable", "unavailable"),
    ("unchecked", "unchecked", "unchecked"),
    ("other", "of another verdict", "of another verdict"),
    ("ambiguous", "ambiguous", "ambiguous"),
    ("verified", "verified", "verified"),
)

#: Banner state -> (label, CSS class); the state is the exit code's, in words.
_STATES: Final[dict[str, tuple[str, str]]] = {
    "check": ("Check by hand", "o-fail"),
    "incomplete": ("Incomplete", "o-incomplete"),
    "clear": ("No problem found", "o-pass"),
    "empty": ("No references", "o-unknown"),
}

#: Group key -> (heading, what it means).
_GROUPS: Final[dict[str, tuple[str, str]]] = {
    "check": (
        "To check by hand",
        "Each of these is a lead, not a finding: what the databases hold did not match the "
        "entry as it should, or the work it names is retracted. A real work can be missing "
        "from the databases or recorded differently; look each one up before changing it. "
        "The card says why, shows the entry beside the record, and folds what was asked.",
    ),
    "unchecked": (
        "Not checked",
        "A database could not be read, or the work is of a kind the databases may not hold "
        "(a book, a thesis, a standard, a web page): nothing was concluded, and nothing is "
        "said against these entries.",
    ),
    "matched": (
        "Matched",
        "Verified: the entry names a real work whose record agrees with it. Ambiguous: several "
        "works match it equally well, often versions of one work. Neither says that the work "
        "supports what cites it.",
    ),
}


@dataclass(slots=True)
class GroupView:
    """One group of a list's cards (to check, not checked, matched)."""

    key: str
    anchor: str
    title: str
    hint: str
    refs: list[ReferenceView]
    #: Whether "problems only" keeps the group (it holds a flag).
    problem: bool


@dataclass(slots=True)
class ListView:
    """One reference list: a file's entries, what reading it found wrong, its cards."""

    anchor: str
    #: The file the list was read from, as the report (or the caller) names it; may be "".
    name: str
    format: str
    total: int
    #: "1 wrong work, 1 not found, 2 verified": this list's counts, flags first.
    counts: str
    flagged: int
    #: What reading the list found wrong with it: numbers skipped, entries merged.
    reading: list[str]
    #: Verdict (and "retracted", "concern") -> how many: what the banner adds up.
    tally: dict[str, int] = field(default_factory=dict)
    groups: list[GroupView] = field(default_factory=list)
    #: The report kept its counts only (``refs -o``): there are no cards to show.
    counts_only: bool = False


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _seq(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def _flagged(card: ReferenceView) -> bool:
    """A lead to check: a flag's verdict, or a work retracted or under concern."""
    return card.verdict in _FLAGS or bool(card.retracted)


def _rank(card: ReferenceView) -> int:
    if card.verdict not in _FLAGS and card.retracted:
        return _RANK["retracted"]
    return _RANK.get(card.verdict, _UNKNOWN_RANK)


def _group_of(card: ReferenceView) -> str:
    rank = _rank(card)
    if rank <= _RANK["retracted"]:
        return "check"
    return "matched" if rank >= _RANK[_MATCHED[0]] else "unchecked"


def _tally(cards: Sequence[ReferenceView]) -> dict[str, int]:
    tally: dict[str, int] = {}
    for card in cards:
        key = card.verdict if card.verdict in _RANK else "other"
        tally[key] = tally.get(key, 0) + 1
        if card.retracted_css == "v-bad":
            tally["retracted"] = tally.get("retracted", 0) + 1
        elif card.retracted_css == "v-near":
            tally["concern"] = tally.get("concern", 0) + 1
    return tally


def _counted(report: Mapping[str, Any]) -> tuple[dict[str, int], int]:
    """A report's own counts and total, for a report that kept no results (``refs -o``)."""
    tally: dict[str, int] = {}
    for key, value in _map(report.get("counts")).items():
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            tally[str(key)] = value
    return tally, tally.pop("total", 0)


def _flag_count(tally: Mapping[str, int], cards: Sequence[ReferenceView] | None) -> int:
    if cards is not None:
        return sum(1 for c in cards if _flagged(c))
    # Counts only: a retracted work may also be a flag's; the larger is a floor, never more.
    return max(sum(tally.get(v, 0) for v in _FLAGS), tally.get("retracted", 0))


def _groups(anchor: str, cards: list[ReferenceView]) -> list[GroupView]:
    ordered = sorted(enumerate(cards), key=lambda pair: (_rank(pair[1]), pair[0]))
    groups: list[GroupView] = []
    for key, (title, hint) in _GROUPS.items():
        members = [card for _, card in ordered if _group_of(card) == key]
        if members:
            groups.append(
                GroupView(
                    key=key,
                    anchor=f"{anchor}-{key}",
                    title=title,
                    hint=hint,
                    refs=members,
                    problem=key == "check",
                )
            )
    return groups


def _split(report: Mapping[str, Any]) -> list[tuple[str, list[tuple[int, Any]]]]:
    """The report's results by the file each was read from, in the order files first appear;
    a result that names no file belongs to the report's own."""
    own = str(report.get("source") or "")
    files: dict[str, list[tuple[int, Any]]] = {}
    for position, ref in enumerate(_seq(report.get("references"))):
        name = _map(ref).get("source")
        files.setdefault(str(name) if name else own, []).append((position, ref))
    return list(files.items()) or [(own, [])]


def _reading(lines: Sequence[str], names: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """Each reading problem with the list whose file it names, else with none of them (a
    name inside another one named too, ``a.bib`` in ``data.bib``, is not a second owner).
    Under its list a line loses the "a.bib: " it opens with: the list's heading names it."""
    placed: dict[str, list[str]] = {name: [] for name in names}
    elsewhere: list[str] = []
    for line in lines:
        named = [name for name in names if name and name in line]
        owners = [n for n in named if not any(n != m and n in m for m in named)]
        owner = names[0] if len(names) == 1 else owners[0] if len(owners) == 1 else None
        if owner is None:
            elsewhere.append(line)
        else:
            opening = f"{owner}: "
            said = line[len(opening) :] if owner and line.startswith(opening) else line
            placed[owner].append(said[:1].upper() + said[1:])
    return placed, elsewhere


def _lists(
    reports: Sequence[Mapping[str, Any]], source_names: Sequence[str | None]
) -> tuple[list[ListView], list[str], list[ReferenceView]]:
    lists: list[ListView] = []
    unplaced: list[str] = []
    every: list[ReferenceView] = []
    for number, report in enumerate(reports):
        parts = _split(report)
        given = source_names[number] if number < len(source_names) else None
        reading = [str(line) for line in _seq(report.get("reading"))]
        placed, elsewhere = _reading(reading, [name for name, _ in parts])
        unplaced += [shown(line) for line in elsewhere]
        has_results = isinstance(report.get("references"), list | tuple)
        for name, results in parts:
            anchor = f"list-{len(lists)}"
            cards: list[ReferenceView] = []
            for position, ref in results:
                card = reference_view(position, ref, full=True)
                card.anchor = f"{anchor}-ref-{position}"
                card.problem = _flagged(card)
                card.source = ""  # the list's heading names the file
                cards.append(card)
            every += cards
            counts_only = not results and not has_results
            tally, total = _counted(report) if counts_only else (_tally(cards), len(cards))
            shown_name = given if given and len(parts) == 1 else name
            lists.append(
                ListView(
                    anchor=anchor,
                    name=shown(shown_name),
                    format=shown(report.get("format")),
                    total=total,
                    counts=shown(counted(tally, _COUNT_WORDS)),
                    flagged=_flag_count(tally, None if counts_only else cards),
                    reading=[shown(line) for line in placed.get(name, [])],
                    tally=tally,
                    groups=_groups(anchor, cards),
                    counts_only=counts_only,
                )
            )
    return lists, unplaced, every


def _state(tally: Mapping[str, int], flagged: int, total: int) -> str:
    if flagged:
        return "check"
    if tally.get("unavailable"):
        return "incomplete"
    return "clear" if total else "empty"


def _about(state: str, flagged: int, total: int, tally: Mapping[str, int]) -> str:
    """The banner's sentence under its counts: what the state means for the reader."""
    if state == "check":
        one = flagged == 1
        return (
            f"{flagged} of {total} reference{'s' if total != 1 else ''} "
            f"{'is a lead' if one else 'are leads'} to check by hand, "
            f"{'not a finding' if one else 'not findings'}: {'it comes' if one else 'they come'} "
            "first below, each with why and what was asked."
        )
    if state == "incomplete":
        n = tally.get("unavailable", 0)
        return (
            f"A database could not be read for {n} reference{'s' if n != 1 else ''}, so "
            f"nothing was concluded about {'it' if n == 1 else 'them'}; nothing was flagged."
        )
    if state == "clear":
        said = ["names a real work that matches it"]
        if tally.get("ambiguous"):
            said.append("matches several works equally well")
        if tally.get("unchecked"):
            said.append("is of a kind the databases may not hold, which says nothing against it")
        return f"No entry was flagged: each {', or '.join(said)}."
    return "The page was given no references."


def _cards(tally: Mapping[str, int], flagged: int, total: int) -> list[MetricCard]:
    """The figures under the banner: how many to check, not checked, verified of the total."""
    if not total:
        return []
    not_checked = tally.get("unavailable", 0) + tally.get("unchecked", 0)
    cards = [
        MetricCard("References", str(total), "", "card-total"),
        MetricCard(
            "To check by hand", str(flagged), "leads, not findings", "v-bad" if flagged else "v-ok"
        ),
        MetricCard("Not checked", str(not_checked), "nothing concluded", "v-gone"),
        MetricCard(
            "Verified",
            f"{tally.get('verified', 0)} of {total}",
            f"{tally['ambiguous']} ambiguous" if tally.get("ambiguous") else "",
            "v-ok" if tally.get("verified", 0) == total else "v-near",
        ),
    ]
    retracted = tally.get("retracted", 0) + tally.get("concern", 0)
    if retracted:
        note = "or under an expression of concern" if tally.get("concern") else ""
        cards.append(MetricCard("Retracted works", str(retracted), note, "v-bad"))
    return cards


def build_references_view(
    reports: Sequence[Mapping[str, Any]],
    *,
    source_names: Sequence[str | None] = (),
    generated_at: str | None = None,
) -> dict[str, Any]:
    """Everything ``references.html.j2`` shows for ``reports``; escaping is the template's.

    ``source_names`` names the file each report was read from (one per report; ``None``
    keeps the report's own ``source``).  A report whose results name several files is shown
    as one list per file, under the names the results give.
    """
    lists, unplaced, every = _lists(reports, source_names)
    tally: dict[str, int] = {}
    for view in lists:
        for key, n in view.tally.items():
            tally[key] = tally.get(key, 0) + n
    total = sum(view.total for view in lists)
    flagged = sum(view.flagged for view in lists)
    state = _state(tally, flagged, total)
    label, css = _STATES[state]
    about = _about(state, flagged, total, tally)
    problems = len(unplaced) + sum(len(view.reading) for view in lists)
    if problems:  # what is wrong with a list itself is said above it; the banner points there
        about += (
            f" Reading the list{'s' if len(lists) != 1 else ''} found {problems} "
            f"problem{'s' if problems != 1 else ''} with {'it' if len(lists) == 1 else 'them'}, "
            "said above the entries."
        )
    named = [view.name for view in lists if view.name]
    more = max(len(named) - _NAMES_SHOWN, 0)
    when = generated_at or datetime.now(UTC).isoformat(timespec="seconds")
    return {
        "state": state,
        "state_label": label,
        "state_css": css,
        "counts": shown(counted(tally, _COUNT_WORDS)) or "no references",
        "about": about,
        "names": named[:_NAMES_SHOWN],
        "names_more": more,
        "title_name": named[0] if len(named) == 1 else (f"{len(lists)} lists" if named else ""),
        "total": total,
        "flagged": flagged,
        "cards": _cards(tally, flagged, total),
        "lists": lists,
        "unplaced_reading": unplaced,
        "offline": any(r.get("offline") is True for r in reports),
        "schemas": sorted({shown(r.get("schema")) for r in reports if r.get("schema")}),
        "generated_at": shown(when),
        "references": every,
        "reports": list(reports),
    }
