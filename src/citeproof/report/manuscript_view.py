"""The manuscript page's content: a ``citeproof.manuscript/1`` report (the model or its JSON)
turned into what ``manuscript.html.j2`` shows.

Pure, like the audit's and the references page's views, and built from their cards so a
thing reads the same on every page: each reference entry is the references page's card
(:func:`~citeproof.report.reference_card.reference_view` with ``full=True``: stated vs
record, the work found, the services asked), and each quotation's evidence is the audit
page's (:func:`~citeproof.report.citation_card.citation_view`: the passage found or the
closest one, the word diff, the source's record).  What only a manuscript knows is added
here: where a quotation stands, which entries it cites, which text it was checked against,
who cites each entry.  The report is read through the published models
(:mod:`citeproof.report.lenient`), so a saved report, an older one or a hostile one is shown
as it is, never refused.

What is decided here:

* **The order.**  An editor opens the page to find what needs them, so it has three parts.
  *Problems*: quotations not as the cited work has them (misquotes, then near quotes, each
  with its word diff), references to check by hand (stated vs record), retracted works
  cited, citations that name no entry, entries no citation names, quotations that cite
  nothing.  *Not checked*: quotations no text could be read for, references a database
  could not answer, copies that matched no entry, what the reader could not read, the caps
  reached.  *Matched*: quotations found as written, references verified.
* **The words.**  What could not be checked accuses nothing: it is grey, in a part of its
  own, and said as "could not be checked", never as a failure.  A flagged reference is a
  lead to check by hand, as on the references page.  A retracted work the manuscript says
  is retracted is listed with what matched, in grey: citing it so fails nothing.
* **The banner.**  The report's own verdict (the exit code's), and what it comes to,
  counted from what the page shows, the problems first.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from citeproof.models.audit import CitationReport
from citeproof.models.manuscript import (
    CheckedAgainst,
    ManuscriptReference,
    ManuscriptReport,
    QuotationReport,
)
from citeproof.models.references import PROBLEM_VERDICTS
from citeproof.report.citation_card import CITATION_VERDICTS, CitationView, citation_view
from citeproof.report.figures import MetricCard
from citeproof.report.lenient import read
from citeproof.report.reference_card import ReferenceView, reference_view
from citeproof.report.values import counted, integer, shown, status_sentence, text

__all__ = [
    "CitedEntry",
    "GroupView",
    "PartView",
    "QuotationView",
    "RetractedView",
    "UncitedView",
    "UnlinkedView",
    "build_manuscript_view",
]

#: The overall verdict -> (label, CSS class of the banner, what it means for the reader).
_VERDICTS: Final[dict[str, tuple[str, str, str]]] = {
    "fail": (
        "Fail",
        "o-fail",
        "What the manuscript fails on is among the problems listed first below.",
    ),
    "warn": (
        "Warning",
        "o-warn",
        "Nothing the manuscript fails on was found, but the problems listed first below are "
        "worth a look.",
    ),
    "incomplete": (
        "Incomplete",
        "o-incomplete",
        "Nothing failed, but some of it could not be checked (see Not checked): that says "
        "nothing against the manuscript.",
    ),
    "pass": (
        "Pass",
        "o-pass",
        "Every reference checked names the work it states, and every quotation checked is in "
        "the work it cites.",
    ),
}
_UNKNOWN_VERDICT: Final = ("Unknown", "o-unknown", "The report names no verdict.")

#: A quotation's finding -> (label, glyph, CSS class): the audit's words where they mean the
#: same (its misquote, near quote and OK chips), the rest in the manuscript's own.
_FINDINGS: Final[dict[str, tuple[str, str, str]]] = {
    "misquote": CITATION_VERDICTS["misquote"],
    "near_quote": CITATION_VERDICTS["near_quote"],
    "unattributed": ("No citation", "?", "v-near"),
    "unchecked": ("Not checked", "?", "v-gone"),
    "ok": ("Found", "\u2713", "v-ok"),
}

#: What a quotation's check verdict says, in words.
_CHECK_WORDS: Final[dict[str, str]] = {
    "EXACT": "found word for word",
    "NEAR": "not word for word: the closest passage differs",
    "NOT_FOUND": "not found in the text read",
    "TOO_SHORT": "too short to check on its own",
    "UNAVAILABLE": "no text of the cited work could be read",
    "NOT_CHECKABLE": "nothing to check it against",
}

#: Where the identifier a quotation was checked against came from.
_BASIS: Final[dict[str, str]] = {
    "verified": "the work the reference was verified as",
    "partial": "the work found for the reference, with fields that differ",
    "suggested": "the work the entry's stated metadata describes (its own identifier names "
    "another)",
    "stated": "the entry's own identifier",
}

_MATCHED_BY: Final[dict[str, str]] = {
    "doi": "its DOI",
    "pmid": "its PMID",
    "pmcid": "its PMCID",
    "title_author": "its title and first author",
}

_FORMATS: Final[dict[str, str]] = {
    "docx": "Word",
    "latex": "LaTeX",
    "pdf": "PDF",
    "jats": "JATS XML",
    "html": "HTML",
    "markdown": "Markdown",
}

#: How each count reads in the banner, problems first: (key, one, many).
_COUNT_WORDS: Final = (
    ("misquote", "misquote", "misquotes"),
    ("near_quote", "near quote", "near quotes"),
    ("unresolvable", "unresolvable", "unresolvable"),
    ("mismatch", "wrong work", "wrong works"),
    ("not_found", "reference not found", "references not found"),
    ("partial", "partial match", "partial matches"),
    ("retracted", "retracted work cited", "retracted works cited"),
    ("concern", "work under concern cited", "works under concern cited"),
    ("unlinked", "citation with no entry", "citations with no entry"),
    ("uncited", "entry never cited", "entries never cited"),
    ("unattributed", "quotation without a citation", "quotations without a citation"),
    ("quotation_unchecked", "quotation not checked", "quotations not checked"),
    ("reference_unchecked", "reference not checked", "references not checked"),
)

#: A reference card's place: a lead to check, nothing concluded, matched.
_NOT_CHECKED: Final = frozenset({"unavailable", "unchecked"})

#: The most characters of an entry the "never cited" list shows (its card has the rest).
_EXCERPT: Final = 160


@dataclass(slots=True)
class CitedEntry:
    """An entry a quotation cites, as its citation prints it, with a link to its card."""

    marker: str
    #: "Reference 2", or what the citation names that no entry holds.
    label: str
    #: The entry's card on the page, or "" when the citation names no entry.
    anchor: str


@dataclass(slots=True)
class QuotationView:
    """One quotation's card: the words, where they stand, what they cite, the finding, and
    the audit's evidence for it."""

    number: int
    anchor: str
    text: str
    block: bool
    #: "Results (body)": the manuscript's section and region.
    where: str
    finding: str
    label: str
    glyph: str
    css: str
    #: EXACT, NEAR ... and what it says, in words.
    verdict: str
    verdict_words: str
    reason: str
    cites: list[CitedEntry]
    #: "Checked against your copy a.pdf (matched by its DOI)", or "".
    against: str
    #: When several entries are cited: one line per entry checked.
    targets: list[str]
    flags: list[str]
    #: The audit's card of the check: passage, diff, source.  None when nothing was checked.
    evidence: CitationView | None
    problem: bool


@dataclass(slots=True)
class RetractedView:
    """A cited work that is retracted or under an expression of concern."""

    label: str
    anchor: str
    identifier: str
    status: str
    css: str
    #: "The cited work has been retracted, according to retractionwatch."
    said: str
    cited: str
    acknowledged: bool


@dataclass(slots=True)
class UnlinkedView:
    """A work a citation names that no entry holds."""

    marker: str
    target: str
    reason: str
    where: str


@dataclass(slots=True)
class UncitedView:
    """An entry no citation names."""

    label: str
    anchor: str
    text: str


@dataclass(slots=True)
class GroupView:
    """One group of a part: its heading, what it means, and its items (of one kind)."""

    key: str
    title: str
    hint: str
    quotations: list[QuotationView] = field(default_factory=list)
    references: list[ReferenceView] = field(default_factory=list)
    retracted: list[RetractedView] = field(default_factory=list)
    unlinked: list[UnlinkedView] = field(default_factory=list)
    uncited: list[UncitedView] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        return f"g-{self.key}"

    @property
    def count(self) -> int:
        kinds: tuple[Sequence[object], ...] = (
            self.quotations,
            self.references,
            self.retracted,
            self.unlinked,
            self.uncited,
            self.lines,
        )
        return sum(len(items) for items in kinds)


@dataclass(slots=True)
class PartView:
    """Problems, not checked, matched: a part of the page and its groups."""

    key: str
    title: str
    hint: str
    groups: list[GroupView]

    @property
    def count(self) -> int:
        return sum(g.count for g in self.groups)


def _where(section: Sequence[object], region: object) -> str:
    """ "Results › Sleep (body)": where in the manuscript."""
    path = " \u203a ".join(text(s) for s in section if text(s))
    place = text(region)
    if path and place:
        return shown(f"{path} ({place})")
    return shown(path or place)


class _Entries:
    """The manuscript's entries by id, with each one's card anchor and label."""

    def __init__(self, references: Sequence[ManuscriptReference]) -> None:
        self.by_id: dict[str, tuple[int, ManuscriptReference]] = {}
        for position, ref in enumerate(references):
            self.by_id.setdefault(text(ref.id), (position, ref))

    def label(self, entry_id: str) -> str:
        found = self.by_id.get(entry_id)
        if found is None:
            return shown(entry_id)
        position, ref = found
        number = integer(ref.result.index) if ref.result is not None else None
        shown_label = text(ref.label) or text(ref.key)  # a LaTeX entry has its key only
        if number is None:
            number = position + 1
        if shown_label and shown_label != str(number):
            return shown(f"Reference {number} [{shown_label}]")
        return f"Reference {number}"

    def anchor(self, entry_id: str) -> str:
        found = self.by_id.get(entry_id)
        return f"ref-{found[0]}" if found is not None else ""


def _against(against: CheckedAgainst | None, entries: _Entries) -> str:
    """Which text a quotation was checked against, in a sentence."""
    if against is None:
        return ""
    if text(against.kind) == "file":
        how = _MATCHED_BY.get(text(against.matched_by), "")
        said = f"your copy {text(against.file)}" + (f" (matched by {how})" if how else "")
    else:
        basis = _BASIS.get(text(against.basis), "")
        said = f"the cited work {text(against.identifier) or 'named by the entry'}" + (
            f", {basis}" if basis else ""
        )
    entry = text(against.entry_id)
    return shown(f"{entries.label(entry)}: {said}" if entry else said)


def _quotation(
    q: QuotationReport, number: int, cited: list[CitedEntry], entries: _Entries
) -> QuotationView:
    finding = text(q.finding)
    label, glyph, css = _FINDINGS.get(finding, (finding or "unknown", "\u2022", "v-unk"))
    verdict = text(q.verdict)
    targets = []
    if len(q.targets) > 1:
        for t in q.targets:
            words = _CHECK_WORDS.get(text(t.verdict), "")
            line = f"{entries.label(text(t.entry_id))}: {text(t.verdict)}"
            line += f" ({words})" if words else ""
            line += f". {text(t.reason)}" if t.reason else ""
            targets.append(shown(line))
    evidence = None
    if q.check is not None:
        evidence = citation_view(number, read(CitationReport, {"quote": q.text, "check": q.check}))
    return QuotationView(
        number=number + 1,
        anchor=f"q-{number}",
        text=shown(q.text),
        block=q.block is True,
        where=_where(q.section, q.region),
        finding=shown(finding),
        label=shown(label),
        glyph=glyph,
        css=css,
        verdict=shown(verdict),
        verdict_words=_CHECK_WORDS.get(verdict, ""),
        reason=shown(q.reason),
        cites=cited,
        against=_against(q.against, entries),
        targets=targets,
        flags=[shown(f) for f in q.flags],
        evidence=evidence,
        problem=finding in ("misquote", "near_quote", "unattributed"),
    )


def _cited(report: ManuscriptReport, q: QuotationReport, entries: _Entries) -> list[CitedEntry]:
    """The entries a quotation cites, each with the marker that cites it."""
    citations = {integer(c.index): c for c in report.citations}
    out: list[CitedEntry] = []
    seen: set[str] = set()
    for index in q.citations:
        c = citations.get(integer(index))
        if c is None:
            continue
        for entry_id in map(text, c.entry_ids):
            seen.add(entry_id)
            out.append(
                CitedEntry(shown(c.marker), entries.label(entry_id), entries.anchor(entry_id))
            )
        for target in c.unlinked:
            out.append(CitedEntry(shown(c.marker), shown(f"no entry {text(target)}"), ""))
    for entry_id in map(text, q.entry_ids):
        if entry_id not in seen:
            out.append(CitedEntry("", entries.label(entry_id), entries.anchor(entry_id)))
    return out


def _cited_by(report: ManuscriptReport, ref: ManuscriptReference) -> str:
    """ "Cited 3 times: [1] in Introduction; [1] in Methods; [1] in Results."."""
    citations = {integer(c.index): c for c in report.citations}
    places = []
    for index in ref.cited_by:
        c = citations.get(integer(index))
        if c is None:
            continue
        where = " \u203a ".join(text(s) for s in c.section if text(s))
        places.append(text(c.marker) + (f" in {where}" if where else ""))
    n = len(ref.cited_by)
    if not n:
        return "Never cited in the manuscript."
    times = "once" if n == 1 else f"{n} times"
    return shown(
        f"Cited {times} in the manuscript: {'; '.join(places)}." if places else f"Cited {times}."
    )


def _reference_card(
    report: ManuscriptReport, position: int, ref: ManuscriptReference, acknowledged: bool
) -> ReferenceView:
    """The references page's card of the entry, with what the manuscript adds in its notes."""
    if ref.result is not None and ref.result.model_fields_set:
        card = reference_view(position, ref.result, full=True)
    else:  # past the cap: stated, never verified
        stated = {"text": ref.text, "label": ref.label, "where": ref.where}
        card = reference_view(
            position,
            {
                "index": position + 1,
                "verdict": "unchecked",
                "reason": "Not verified: past the most references one run verifies (see Left "
                "unchecked, under Not checked).",
                "stated": stated,
            },
            full=True,
        )
    card.anchor = f"ref-{position}"
    notes = [_cited_by(report, ref)]
    if ref.source_file:
        notes.append(
            shown(f"Its quotations were checked against your copy {text(ref.source_file)}.")
        )
    if acknowledged:
        notes.append("The manuscript says the work is retracted where it cites it.")
    card.notes = notes + card.notes
    return card


def _reference_group(card: ReferenceView, acknowledged: bool) -> str:
    """Where the card goes: a flag or a retracted work the manuscript does not say is
    retracted is a lead; what could not be checked accuses nothing; the rest matched."""
    if card.verdict in PROBLEM_VERDICTS or (card.retracted and not acknowledged):
        return "check"
    if card.verdict in ("verified", "ambiguous"):
        return "matched"
    return "unchecked"


def _retracted(report: ManuscriptReport, entries: _Entries) -> list[RetractedView]:
    """Every cited work retracted or under concern; one the manuscript says is retracted is
    grey, since citing it so fails nothing."""
    citations = {integer(c.index): c for c in report.citations}
    out = []
    for w in report.retracted:
        status = text(w.status)
        acknowledged = w.acknowledged is True
        if status == "CONCERN":
            label, css = "Expression of concern", "v-near"
        else:
            label, css = "Retracted", "v-bad"
        if acknowledged:
            css = "v-gone"
        markers = [text(citations[i].marker) for i in map(integer, w.cited_by) if i in citations]
        entry = text(w.entry_id)
        out.append(
            RetractedView(
                label=entries.label(entry),
                anchor=entries.anchor(entry),
                identifier=shown(w.identifier),
                status=label,
                css=css,
                said=shown(
                    status_sentence(status or "RETRACTED", text(w.reason), "The cited work")
                ),
                cited=shown(", ".join(markers)),
                acknowledged=acknowledged,
            )
        )
    return out


def _tally(
    quotations: Sequence[QuotationView],
    cards: Sequence[tuple[ReferenceView, str]],
    retracted: Sequence[RetractedView],
    unlinked: int,
    uncited: int,
) -> dict[str, int]:
    tally: dict[str, int] = {}

    def add(key: str, n: int = 1) -> None:
        tally[key] = tally.get(key, 0) + n

    for q in quotations:
        add("quotation_unchecked" if q.finding == "unchecked" else q.finding)
    for card, group in cards:
        if card.verdict in PROBLEM_VERDICTS:
            add(card.verdict)
        elif group == "unchecked":
            add("reference_unchecked")
        elif card.verdict == "verified":
            add("verified")
    for w in retracted:
        if not w.acknowledged:
            add("retracted" if w.status == "Retracted" else "concern")
    add("unlinked", unlinked)
    add("uncited", uncited)
    return tally


def _cards(
    tally: Mapping[str, int],
    quotations: Sequence[QuotationView],
    retracted: Sequence[RetractedView],
    references: int,
    flagged: int,
) -> list[MetricCard]:
    """The figures under the banner: the references, the quotations, the list's faults."""
    verified = tally.get("verified", 0)
    found = sum(1 for q in quotations if q.finding == "ok")
    misquoted = tally.get("misquote", 0)
    near = tally.get("near_quote", 0)
    differ = misquoted + near
    faults = tally.get("unlinked", 0) + tally.get("uncited", 0)
    failing = sum(1 for w in retracted if not w.acknowledged)
    said = len(retracted) - failing
    not_checked = tally.get("quotation_unchecked", 0) + tally.get("reference_unchecked", 0)
    said_note = ""
    if said:
        said_note = "the manuscript says so" + ("" if said == len(retracted) else f" of {said}")
    if found == len(quotations):
        found_css = "v-ok"
    elif misquoted:
        found_css = "v-bad"
    else:  # near quotes or quotations without a citation warn; quotations not checked do not
        found_css = "v-near" if near or tally.get("unattributed") else "v-gone"
    return [
        MetricCard(
            "References verified",
            f"{verified} of {references}",
            "",
            "v-ok" if verified == references else "v-near" if flagged else "v-gone",
        ),
        MetricCard(
            "To check by hand", str(flagged), "leads, not findings", "v-bad" if flagged else "v-ok"
        ),
        MetricCard(
            "Quotations found as written",
            f"{found} of {len(quotations)}",
            "",
            found_css,
        ),
        MetricCard(
            "Quotations that differ",
            str(differ),
            f"{misquoted} misquoted" if misquoted else "",
            "v-bad" if misquoted else "v-near" if differ else "v-ok",
        ),
        MetricCard(
            "Citations and entries unmatched",
            str(faults),
            "no entry, or never cited",
            "v-near" if faults else "v-ok",
        ),
        MetricCard(
            "Retracted works cited",
            str(len(retracted)),
            said_note,
            "v-bad" if failing else "v-gone" if said else "v-ok",
        ),
        MetricCard("Not checked", str(not_checked), "nothing concluded", "v-gone"),
    ]


def _group(key: str, title: str, hint: str, **items: Any) -> GroupView:
    return GroupView(key=key, title=title, hint=hint, **items)


def _problems(
    quotations: Sequence[QuotationView],
    refs: Sequence[ReferenceView],
    retracted: list[RetractedView],
    unlinked: list[UnlinkedView],
    uncited: list[UncitedView],
) -> list[GroupView]:
    severity = {"misquote": 0, "near_quote": 1}
    altered = sorted(
        (q for q in quotations if q.finding in severity),
        key=lambda q: (severity[q.finding], q.number),
    )
    groups = [
        _group(
            "quotations-differ",
            "Quotations that differ from the work they cite",
            "Misquotes first: words not in the cited text, or changed in a way that can change "
            "the meaning (a number, a negation); then near quotes, worded slightly otherwise.",
            quotations=altered,
        ),
        _group(
            "references-check",
            "References to check by hand",
            "Each is a lead, not a finding: what the databases hold did not match the entry as "
            "it should, or the work it names is retracted. A real work can be missing from the "
            "databases or recorded differently; each card shows the entry beside the record "
            "and folds what was asked.",
            references=list(refs),
        ),
        _group(
            "retracted",
            "Retracted works cited",
            "A work retracted (or under an expression of concern) that the manuscript cites "
            "without saying so where it cites it.",
            retracted=[w for w in retracted if not w.acknowledged],
        ),
        _group(
            "unlinked",
            "Citations with no entry",
            "A work a citation names that the reference list does not hold.",
            unlinked=unlinked,
        ),
        _group(
            "uncited",
            "Entries never cited",
            "An entry of the reference list that no citation names.",
            uncited=uncited,
        ),
        _group(
            "unattributed",
            "Quotations without a citation",
            "Quoted words that carry no citation, or whose citation names no entry: there is "
            "no cited work to check them against.",
            quotations=[q for q in quotations if q.finding == "unattributed"],
        ),
    ]
    return _with_items(*groups)


def _editor_copies(report: ManuscriptReport, entries: _Entries) -> tuple[list[str], list[str]]:
    """(the copies matched to an entry, the copies that were not), one line each."""
    matched, unmatched = [], []
    for copy in report.sources:
        name = text(copy.file)
        ids = [text(e) for e in copy.entry_ids]
        if ids:
            how = _MATCHED_BY.get(text(copy.matched_by), "")
            named = ", ".join(entries.label(e) for e in ids)
            matched.append(shown(f"{name}: {named}" + (f", matched by {how}" if how else "")))
        else:
            unmatched.append(shown(f"{name}: {text(copy.reason) or 'matched to no entry'}"))
    return matched, unmatched


def _reference_cards(report: ManuscriptReport) -> list[tuple[ReferenceView, str]]:
    """Each entry's card, in list order, with the group it goes to."""
    acknowledged = {text(w.entry_id) for w in report.retracted if w.acknowledged is True}
    cards: list[tuple[ReferenceView, str]] = []
    for position, ref in enumerate(report.references):
        said = text(ref.id) in acknowledged
        card = _reference_card(report, position, ref, said)
        group = _reference_group(card, said)
        card.problem = group == "check"
        cards.append((card, group))
    return cards


def _by_group(cards: Sequence[tuple[ReferenceView, str]]) -> dict[str, list[ReferenceView]]:
    """The cards of each group, in list order; among those that matched, the ambiguous last."""
    by_group: dict[str, list[ReferenceView]] = {"check": [], "unchecked": [], "matched": []}
    for card, group in cards:
        by_group[group].append(card)
    by_group["matched"].sort(key=lambda c: c.verdict != "verified")  # ambiguous last
    return by_group


def _unlinked(report: ManuscriptReport) -> list[UnlinkedView]:
    """The works citations name that the list does not hold, each where it is cited."""
    citations = {integer(c.index): c for c in report.citations}
    unlinked = []
    for u in report.unlinked:
        c = citations.get(integer(u.citation))
        unlinked.append(
            UnlinkedView(
                marker=shown(u.marker),
                target=shown(u.target),
                reason=shown(u.reason),
                where=_where(u.section, c.region if c is not None else None),
            )
        )
    return unlinked


def _uncited(report: ManuscriptReport, entries: _Entries) -> list[UncitedView]:
    """The entries no citation names, each with the start of its text."""
    uncited = []
    for entry_id in map(text, report.uncited):
        found = entries.by_id.get(entry_id)
        words = text(found[1].text) if found else ""
        cut = words if len(words) <= _EXCERPT else words[: _EXCERPT - 1] + "\u2026"
        uncited.append(UncitedView(entries.label(entry_id), entries.anchor(entry_id), shown(cut)))
    return uncited


def _with_items(*groups: GroupView) -> list[GroupView]:
    """The groups that have something to show, in order."""
    return [g for g in groups if g.count]


def _unchecked_groups(
    report: ManuscriptReport,
    quotations: Sequence[QuotationView],
    refs: list[ReferenceView],
    copies_unmatched: list[str],
) -> list[GroupView]:
    """What could not be checked, and what limited the run: it accuses nothing."""
    reading = [
        shown(f"{text(p.code)}: {text(p.message)}" + (f" ({text(p.where)})" if p.where else ""))
        for p in report.problems
    ]
    return _with_items(
        _group(
            "quotations-unchecked",
            "Quotations not checked",
            "No text of the cited work could be read (it is not open access, a service did "
            "not answer, or only an abstract could be read, which does not hold the words). "
            "Nothing is concluded about these quotations; give your own copies with "
            "--sources to check them.",
            quotations=[q for q in quotations if q.finding == "unchecked"],
        ),
        _group(
            "references-unchecked",
            "References not checked",
            "A database could not be read, or the work is of a kind the databases may not "
            "hold (a book, a thesis, a web page): nothing was concluded, and nothing is "
            "said against these entries.",
            references=refs,
        ),
        _group(
            "copies-unmatched",
            "Your copies matched to no entry",
            "Files of --sources that name no work of the reference list (by an identifier, "
            "or by its title and first author), or could not be read.",
            lines=copies_unmatched,
        ),
        _group(
            "reading",
            "What reading the manuscript found",
            "Parts the reader could not read or link; what is past a limit is not read.",
            lines=reading,
        ),
        _group(
            "notes",
            "Left unchecked",
            "Limits the run reached.",
            lines=[shown(n) for n in report.notes],
        ),
    )


def _matched_groups(
    quotations: Sequence[QuotationView],
    refs: list[ReferenceView],
    retracted: list[RetractedView],
    copies_matched: list[str],
) -> list[GroupView]:
    """What holds: quotations found, references that match, retractions the manuscript
    states, the copies matched."""
    return _with_items(
        _group(
            "quotations-found",
            "Quotations found as written",
            "Each is in the text of the work it cites, word for word; the evidence, folded "
            "under each, is the passage and the text it was read from. Found is not "
            "support: citeproof never judges whether a work backs what the manuscript says.",
            quotations=[q for q in quotations if q.finding == "ok"],
        ),
        _group(
            "references-matched",
            "References that match",
            "Verified: the entry names a real work whose record agrees with it. Ambiguous: "
            "several works match it equally well, often versions of one work.",
            references=refs,
        ),
        _group(
            "retracted-stated",
            "Retracted works the manuscript says are retracted",
            "Where it cites each one, the manuscript says the work is retracted: citing it "
            "so fails nothing.",
            retracted=[w for w in retracted if w.acknowledged],
        ),
        _group(
            "copies-matched",
            "Your copies, matched",
            "Each file of --sources and the entry it is a copy of.",
            lines=copies_matched,
        ),
    )


def _banner(
    report: ManuscriptReport,
    tally: Mapping[str, int],
    references: int,
    quotations: int,
    *,
    source_name: str | None,
    generated_at: str | None,
) -> dict[str, Any]:
    """The page's head: the verdict in words, what was read, when, and the signature."""
    verdict = text(report.verdict)
    label, css, meaning = _VERDICTS.get(verdict, _UNKNOWN_VERDICT)
    info = report.manuscript
    name = source_name if source_name is not None else text(info.name) or "standard input"
    counts = counted(tally, _COUNT_WORDS)
    if not counts:
        counts = (
            f"{references} reference{'s' if references != 1 else ''}, {quotations} "
            f"quotation{'s' if quotations != 1 else ''}: nothing to look at"
        )
    signature = report.signature
    when = (
        generated_at or text(report.created_at) or datetime.now(UTC).isoformat(timespec="seconds")
    )
    citations = integer(report.counts.citations) or len(report.citations)
    return {
        "verdict": verdict if verdict in _VERDICTS else "unknown",
        "verdict_label": label,
        "verdict_css": css,
        "verdict_words": meaning,
        "verdict_counts": shown(counts),
        "source_name": shown(name),
        "format": shown(_FORMATS.get(text(info.format), text(info.format))),
        "title": shown(info.title),
        "sha256": shown(info.sha256),
        "members": [shown(m) for m in info.members],
        "sizes": shown(f"{references} references, {citations} citations, {quotations} quotations"),
        "generated_at": shown(when),
        "key_id": shown(signature.key_id) if signature is not None else "",
        "algorithm": shown(signature.algorithm) if signature is not None else "",
        "schema": shown(report.schema_),
        "generator": shown(report.generator),
        "fail_on": [shown(f) for f in report.fail_on],
        "offline": report.offline is True,
    }


def build_manuscript_view(
    data: Mapping[str, Any] | ManuscriptReport,
    *,
    generated_at: str | None = None,
    source_name: str | None = None,
) -> dict[str, Any]:
    """Everything ``manuscript.html.j2`` shows for the report; escaping is the template's.

    ``source_name`` names the manuscript in the banner instead of the report's own name.
    ``generated_at`` defaults to the report's time (``created_at``), else now.
    """
    report = read(ManuscriptReport, data)
    entries = _Entries(report.references)
    quotations = [
        _quotation(q, n, _cited(report, q, entries), entries)
        for n, q in enumerate(report.quotations)
    ]
    cards = _reference_cards(report)
    by_group = _by_group(cards)
    retracted = _retracted(report, entries)
    unlinked = _unlinked(report)
    uncited = _uncited(report, entries)
    copies_matched, copies_unmatched = _editor_copies(report, entries)
    parts = [
        PartView(
            "problems",
            "Problems",
            "What needs a person, most serious first.",
            _problems(quotations, by_group["check"], retracted, unlinked, uncited),
        ),
        PartView(
            "unchecked",
            "Not checked",
            "What could not be checked. This says nothing against the manuscript.",
            _unchecked_groups(report, quotations, by_group["unchecked"], copies_unmatched),
        ),
        PartView(
            "matched",
            "What matched",
            "What holds.",
            _matched_groups(quotations, by_group["matched"], retracted, copies_matched),
        ),
    ]
    tally = _tally(quotations, cards, retracted, len(report.unlinked), len(report.uncited))
    return {
        **_banner(
            report,
            tally,
            len(cards),
            len(quotations),
            source_name=source_name,
            generated_at=generated_at,
        ),
        "cards": _cards(tally, quotations, retracted, len(cards), len(by_group["check"])),
        "parts": parts,
        "problems": parts[0].count,
        "report": data.model_dump(mode="json") if isinstance(data, ManuscriptReport) else data,
    }
