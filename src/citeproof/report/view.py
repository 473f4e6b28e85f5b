"""The audit page's content: a report (plain JSON data) turned into what the template shows.

Kept apart from :mod:`citeproof.report.page`, which only renders and writes, so this half is
pure and can be read on its own:

* Invisible characters that change how text reads (bidi overrides, zero-width marks, control
  characters) are shown as visible ``[U+XXXX]`` tokens (:func:`shown`): an audit view must not
  let a quote look different from what it is.
* The report is taken as plain JSON data (``report.model_dump(mode="json")``), so a page can be
  made from a report file written earlier.  Fields beyond the contract (spans, the passage as
  issued) are used when present and found by tolerant lookups; without them the page falls
  back to locating text, and as a last resort lists the sentences on their own.
* The reference list's entries (``references``, absent from older reports) become one card
  each (:class:`ReferenceView`).  A work's identifier is the page's only kind of link, and it
  is made here from a DOI or PMID of the expected shape (:func:`_link`), never copied from
  the report.
* The answer's Markdown is laid out by :mod:`citeproof.report.markdown` as data (blocks, runs
  of sentences, inline pieces), with every citation shown as written; the page never renders
  Markdown to HTML.
* What an editor reads first is computed here too: the banner's counts ("1 forged, 1
  misquote, 1 retracted"), the metric cards, and the table of at most
  :data:`GLANCE_ROWS` citations, problems first.  A retracted work is flagged on its
  citation's chip and card as plainly as a misquote; a retraction status that could not be
  established is shown neutrally, never like a retraction.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from citeproof.report.markdown import Block, layout

__all__ = [
    "GLANCE_ROWS",
    "CitationView",
    "ComparisonView",
    "MetricCard",
    "Piece",
    "ReferenceView",
    "SentenceView",
    "WorkView",
    "answer_text",
    "build_view",
    "reference_view",
    "shown",
]

#: The most citations the "at a glance" table lists (problems first).
GLANCE_ROWS = 12

_VERDICT_WORDS: dict[str, tuple[str, str]] = {
    "pass": ("Pass", "Every claim is cited and every citation holds."),
    "warn": ("Warning", "Nothing failed, but some claims are uncited or quotes only near."),
    # The banner counts what failed ("1 forged, 1 misquote"); the words say where to look.
    "fail": ("Fail", "Each problem is marked in the answer below and listed after it."),
    "incomplete": ("Incomplete", "A source could not be read, so the audit could not finish."),
}

#: Citation verdict -> (label, glyph, CSS class).  Classes come only from this table.
_CITATION_VERDICTS: dict[str, tuple[str, str, str]] = {
    "ok": ("OK", "\u2713", "v-ok"),
    "near_quote": ("Near quote", "\u2248", "v-near"),
    "misquote": ("Misquote", "\u2717", "v-bad"),
    "forged": ("Forged", "\u2717", "v-bad"),
    "malformed": ("Malformed", "\u2717", "v-bad"),
    "unresolvable": ("Unresolvable", "\u2717", "v-bad"),
    "mismatch": ("Wrong work", "\u2717", "v-bad"),
    "unavailable": ("Unavailable", "?", "v-gone"),
    "withdrawn": ("Withdrawn", "?", "v-gone"),
}

#: Reference verdict -> (label, glyph, CSS class), in the order the verdicts are decided.
#: ``unavailable`` and ``unchecked`` are neutral: the record could not be read, or the entry
#: could not be checked, which says nothing of the entry.
_REFERENCE_VERDICTS: dict[str, tuple[str, str, str]] = {
    "unresolvable": ("Unresolvable", "\u2717", "v-bad"),
    "mismatch": ("Wrong work", "\u2717", "v-bad"),
    "unavailable": ("Unavailable", "?", "v-gone"),
    "unchecked": ("Unchecked", "\u2013", "v-gone"),
    "not_found": ("Not found", "\u2717", "v-bad"),
    "partial": ("Partial match", "\u2248", "v-near"),
    "ambiguous": ("Ambiguous", "\u2248", "v-near"),
    "verified": ("Verified", "\u2713", "v-ok"),
}

#: Field comparison -> (label, glyph, CSS class).
_AGREEMENT: dict[str, tuple[str, str, str]] = {
    "agrees": ("agrees", "\u2713", "cmp-agrees"),
    "differs": ("differs", "\u2717", "cmp-differs"),
    "not_stated": ("not stated", "\u2013", "cmp-none"),
    "not_recorded": ("not recorded", "\u2013", "cmp-none"),
}

#: A field the entry states no value of, compared all the same: the record's value was looked
#: for in the entry's whole text.  "agrees" beside a missing value would say the entry
#: states it; the result says where it was found instead.
_IN_TEXT: dict[str, str] = {
    "agrees": "found in the entry's text",
    "differs": "not found in the entry's text",
}

#: A work's retraction status -> (label, CSS class); statuses not listed get no badge.
#: A retraction is a failure (red), a concern a warning (amber); a status that could not be
#: established is neutral, never styled like a retraction.
_WORK_RETRACTION: dict[str, tuple[str, str]] = {
    "RETRACTED": ("Retracted", "v-bad"),
    "CONCERN": ("Expression of concern", "v-near"),
    "UNVERIFIABLE": ("Retraction status unknown", "v-gone"),
}

#: A retraction report's reason opens with what its status says ("retracted according to
#: pmc, crossref."); the page says the status once, in a sentence about the work:
#: status -> (the reason's opening, what the sentence says of the work instead).
_STATUS_SAID: dict[str, tuple[str, str]] = {
    "RETRACTED": ("retracted according to ", "has been retracted"),
    "CONCERN": ("an expression of concern according to ", "is under an expression of concern"),
}

#: How a problem counts in the banner, in this order: (key, one, many).
_COUNT_WORDS: tuple[tuple[str, str, str], ...] = (
    ("forged", "forged", "forged"),
    ("malformed", "malformed", "malformed"),
    ("unresolvable", "unresolvable", "unresolvable"),
    ("mismatch", "wrong work", "wrong works"),
    ("misquote", "misquote", "misquotes"),
    ("retracted", "retracted", "retracted"),
    ("concern", "expression of concern", "expressions of concern"),
    ("near_quote", "near quote", "near quotes"),
    ("unavailable", "unavailable", "unavailable"),
    ("withdrawn", "withdrawn", "withdrawn"),
    ("uncited", "uncited claim", "uncited claims"),
)
#: Citation verdict -> rank in the "at a glance" table (0 first); a retraction ranks 0.
_SEVERITY: dict[str, int] = {
    "forged": 0,
    "malformed": 0,
    "unresolvable": 0,
    "mismatch": 0,
    "misquote": 0,
    "near_quote": 1,
    "unavailable": 2,
    "withdrawn": 2,
    "ok": 3,
}
_EXCERPT = 110

#: Only identifiers of these shapes become links, and only to these two resolvers.
_DOI = re.compile(r"10\.\d{4,9}/[!-~]+")
_PMID = re.compile(r"[1-9]\d{0,9}")
_FIRST_AUTHORS = 3

_SENTENCE_STATUS: dict[str, tuple[str, str]] = {
    "cited_ok": ("cited, holds", "s-ok"),
    "cited_problem": ("cited, problem", "s-problem"),
    "uncited": ("uncited claim", "s-uncited"),
    "not_a_claim": ("not a claim", "s-none"),
}

_METRICS: tuple[tuple[str, str, bool], ...] = (
    ("sentences", "Sentences", False),
    ("claims", "Claims", False),
    ("cited_claims", "Cited claims", False),
    ("citations", "Citations", False),
    ("quotes", "Quotes", False),
    ("quotes_ok", "Quotes that hold", False),
    ("citation_validity", "Citation validity", True),
    ("quote_accuracy", "Quote accuracy", True),
    ("claim_coverage", "Claim coverage", True),
    ("fabricated", "Fabricated", False),
    ("retracted_cited", "Retracted works cited", False),
)

_SOURCE_FIELDS: tuple[tuple[str, str], ...] = (
    ("identifier", "Identifier"),
    ("title", "Title"),
    ("input", "Input"),
    ("kind", "Format"),
    ("served_by", "Served by"),
    ("version", "Version"),
    ("coverage", "Coverage"),
    ("sha256", "SHA-256"),
    ("url", "URL"),
    ("retrieved_at", "Retrieved"),
    ("licence", "Licence"),
)

_PASSAGE_KEYS = ("passage", "as_issued", "as_issued_text", "passage_as_issued", "issued_text")

# Controls that change how text reads without being seen: C0/C1 controls (but tab and line
# breaks), bidi embeddings, overrides and isolates, zero-width characters, and the BOM.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)


def shown(text: object) -> str:
    """``text`` as a string, every invisible control replaced by a visible ``[U+XXXX]``."""
    s = "" if text is None else str(text)
    return _INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", s)


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of text; ``mark`` says how it is highlighted (``""``: plainly)."""

    text: str
    mark: str = ""


@dataclass(slots=True)
class CitationView:
    number: int
    raw: str
    kind: str
    target: str
    verdict: str
    label: str
    glyph: str
    css: str
    #: "Retracted" / "Expression of concern" (or acknowledged): the chip's and card's badge.
    retraction_label: str
    retraction_css: str
    #: The chip's and card's colour: the verdict's, or the retraction's when worse.
    card_css: str
    #: Whether the chip, card and table show the verdict: not an "OK" beside a retraction
    #: or a concern, which would say both that the citation holds and that it does not.
    verdict_shown: bool
    #: What the chip names: the target, or for a numbered citation the work it resolved to.
    chip_target: str
    #: The work a numbered citation resolved to (its reference entry's), shown beside its
    #: target, the number.
    resolved_to: str
    #: 0 fails, 1 warns, 2 could not be checked, 3 holds; ``problem`` below 3.
    severity: int
    problem: bool
    #: The verdict when it is one of the known ones, else "unknown" (a data attribute).
    key: str
    flags: list[str]
    reason: str
    quote: str
    check_verdict: str
    check_reason: str
    evidence_title: str
    evidence: list[Piece]
    similarity: str
    diff: list[Piece]
    near_flags: list[str]
    location: str
    fragments: list[tuple[str, str]]
    passage: list[Piece]
    source: list[tuple[str, str]]
    retraction: dict[str, Any] | None
    elsewhere: list[str]
    #: The start of the sentence that cites it (for the "at a glance" table).
    sentence: str = ""
    #: Why, in one line: the citation's reason, else its quote check's or retraction's.
    why: str = ""


@dataclass(slots=True)
class SentenceView:
    index: int
    status: str
    label: str
    css: str
    problem: bool = False
    #: The sentence's citations: their chips and details follow the sentence.
    citations: list[CitationView] = field(default_factory=list)
    #: The sentence's own text, shown as written (when the answer cannot be laid out).
    text: str = ""


@dataclass(slots=True)
class MetricCard:
    """One of the cards above the answer: a figure, what it is, and how it looks."""

    name: str
    value: str
    note: str
    css: str


@dataclass(slots=True)
class WorkView:
    """A work as a database records it, ready to show."""

    identifier: str
    href: str
    title: str
    authors: str
    year: str
    venue: str
    kind: str
    source: str
    score: str
    retraction: str
    retraction_css: str
    retraction_reason: str


@dataclass(slots=True)
class ComparisonView:
    field: str
    stated: str
    #: The entry states no value of its own for the field, and the record's was looked for
    #: in the entry's whole text (a title the reader could not separate): the Stated cell
    #: says so instead of a bare dash beside a score.
    in_text: bool
    record: str
    score: str
    agreement: str
    glyph: str
    css: str
    threshold: str


@dataclass(slots=True)
class AskedView:
    service: str
    purpose: str
    query: str
    status: str
    reason: str
    #: (method, HTTP status, URL, sha256) of each answer read.
    responses: list[tuple[str, str, str, str]]


@dataclass(slots=True)
class ReferenceView:
    index: int
    anchor: str
    label: str
    verdict: str
    verdict_label: str
    glyph: str
    css: str
    #: The card's accent: the verdict's, or a failure's when the work is retracted.
    card_css: str
    #: Not verified, or the work is retracted or under concern ("problems only" keeps it).
    problem: bool
    reason: str
    text: str
    where: str
    source: str
    identifiers: list[tuple[str, str, str]]
    comparisons: list[ComparisonView]
    work: WorkView | None
    suggested: WorkView | None
    candidates: list[WorkView]
    retracted: str
    retracted_css: str
    #: The notice's sentence: "The work this entry names has been retracted, according to ..."
    retracted_reason: str
    asked: list[AskedView]
    log_seq: str
    #: What only the references page shows (``reference_view(..., full=True)``); the audit
    #: page's cards leave them empty, so its References section reads as it always has.
    #: The fields whose agreement identified the work ("title, authors, year").
    decided_by: list[str] = field(default_factory=list)
    #: What else a reader should know: another version of the work, what was checked.
    notes: list[str] = field(default_factory=list)
    #: For unchecked: the kind of work the databases may not hold (book, thesis ...).
    work_kind: str = ""
    #: For a flag: the records that came closest, with their scores, minus the works the
    #: card shows already (a partial's closest record is its work).
    closest: list[WorkView] = field(default_factory=list)


def _s(value: Any) -> str:
    return "" if value is None else str(value)


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _seq(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list | tuple) else ()


def _span(item: Mapping[str, Any]) -> tuple[int, int] | None:
    """The item's ``start``/``end`` (or ``span``), when they are sane integers."""
    start, end = item.get("start"), item.get("end")
    span = item.get("span")
    if isinstance(span, Mapping):
        start, end = span.get("start"), span.get("end")
    elif isinstance(span, list | tuple) and len(span) == 2:
        start, end = span
    if isinstance(start, bool) or not isinstance(start, int) or not isinstance(end, int):
        return None
    return (start, end) if 0 <= start <= end else None


def _highlight(text: str, span: tuple[int, int] | None, needle: str, css: str) -> list[Piece]:
    """``text`` with the run at ``span`` (if it holds ``needle``) or else ``needle`` marked."""
    if span is not None and needle and text[span[0] : span[1]] == needle:
        start, end = span
    else:
        start = text.find(needle) if needle else -1
        if start < 0:
            return [Piece(shown(text))]
        end = start + len(needle)
    pieces = [
        Piece(shown(text[:start])),
        Piece(shown(text[start:end]), css),
        Piece(shown(text[end:])),
    ]
    return [p for p in pieces if p.text]


def _evidence(passage: str, found: Mapping[str, Any], css: str) -> list[Piece]:
    """The passage with ``found`` marked in it, or ``found`` alone when no passage came."""
    text = _s(found.get("text"))
    if passage:
        return _highlight(passage, _span(found), text, css)
    return [Piece("\u2026 "), Piece(shown(text), css), Piece(" \u2026")]


def _location(loc: Mapping[str, Any]) -> str:
    bits: list[str] = []
    if loc.get("region"):
        bits.append(_s(loc["region"]))
    section = [_s(x) for x in _seq(loc.get("section"))]
    if section and bits and section[0].casefold() == bits[0].casefold():
        section = section[1:]  # "abstract", not "abstract, Abstract"
    if section:
        bits.append(" \u203a ".join(section))
    if isinstance(loc.get("page"), int):
        bits.append(f"page {loc['page']}")
    return shown(", ".join(bits))


def _diff(ops: Sequence[Any]) -> list[Piece]:
    out: list[Piece] = []
    for raw_op in ops:
        op = _map(raw_op)
        kind, quote, source = _s(op.get("op")), _s(op.get("quote")), _s(op.get("source"))
        if kind == "equal":
            out.append(Piece(shown(source or quote)))
        elif kind == "replace":
            out += [Piece(shown(source), "del"), Piece(shown(quote), "ins")]
        elif kind == "insert":
            out.append(Piece(shown(quote), "ins"))
        elif kind == "delete":
            out.append(Piece(shown(source), "del"))
        out.append(Piece(" "))
    return out[:-1] if out else out


def _passage_text(cit: Mapping[str, Any]) -> str:
    for key in _PASSAGE_KEYS:
        value = cit.get(key)
        if isinstance(value, str) and value:
            return value
        if isinstance(value, Mapping):
            for inner in ("text", "as_issued_text", "as_issued"):
                if isinstance(value.get(inner), str) and value[inner]:
                    return str(value[inner])
    handle = _map(cit.get("handle"))
    return _s(handle.get("as_issued_text"))


def status_sentence(status: str, reason: str, subject: str) -> str:
    """What ``status`` says of ``subject``, with the sources ``reason`` names, said once:
    "The cited work has been retracted, according to pmc, crossref." rather than a heading
    "Retracted" over "retracted according to pmc, crossref.".  A reason in other words
    follows the sentence; a status with no sentence of its own keeps its reason as it is."""
    opening, said = _STATUS_SAID.get(status, ("", ""))
    if not said:
        return reason
    if reason.lower().startswith(opening):
        sources = reason[len(opening) :].strip()
        return f"{subject} {said}, according to {sources}" + ("" if sources.endswith(".") else ".")
    return f"{subject} {said}." + (f" {reason}" if reason else "")


def _retraction(check: Mapping[str, Any]) -> dict[str, Any] | None:
    rep = _map(check.get("retraction"))
    status = _s(rep.get("status"))
    if not rep or status in ("", "NOT_RETRACTED_AS_OF"):
        return None
    by = []
    notices = []
    for src in map(_map, _seq(rep.get("sources"))):
        said = [
            w
            for w, key in (("retracted", "retracted"), ("concern", "concern"))
            if src.get(key) is True
        ]
        state = _s(src.get("state"))
        by.append(shown(f"{_s(src.get('source'))}: {', '.join(said) if said else state}"))
        for n in map(_map, [*_seq(src.get("notices")), *_seq(src.get("corrections"))]):
            bits = [_s(n.get(k)) for k in ("kind", "date", "doi", "pmid", "source", "url")]
            notices.append(shown(" \u00b7 ".join(b for b in bits if b)))
    title, css = _WORK_RETRACTION.get(status, (f"Retraction status: {status}", "v-gone"))
    return {
        "status": shown(status),
        "title": shown(title),
        "css": css,
        "reason": shown(rep.get("reason")),
        "said": shown(status_sentence(status, _s(rep.get("reason")), "The cited work")),
        "by": by,
        "notices": notices,
        "as_of": shown(rep.get("as_of")),
    }


def _retraction_badge(status: str, flags: Sequence[str]) -> tuple[str, str]:
    """The chip's retraction badge: (label, CSS class), or ("", "") for none.

    A retracted work is a failure like a misquote; one the answer itself says is retracted
    (``retraction_acknowledged``) is not, and is labelled so, neutrally.
    """
    if status == "RETRACTED" or "retracted" in flags:
        if "retraction_acknowledged" in flags:
            return "Retracted (the answer says so)", "v-gone"
        return "Retracted", "v-bad"
    if status == "CONCERN" or "concern" in flags:
        return "Expression of concern", "v-near"
    return "", ""


def _worst(*classes: str) -> str:
    order = ("v-bad", "v-near", "v-gone", "v-unk", "v-ok")
    return min((c for c in classes if c in order), key=order.index, default="v-unk")


def _citation(number: int, cit: Mapping[str, Any]) -> CitationView:
    verdict = _s(cit.get("verdict"))
    label, glyph, css = _CITATION_VERDICTS.get(verdict, (verdict or "unknown", "\u2022", "v-unk"))
    check = _map(cit.get("check"))
    if not check:  # a report may keep the checks per quote only
        check = next(
            (_map(q.get("check")) for q in map(_map, _seq(cit.get("quotes"))) if q.get("check")), {}
        )
    passage = _passage_text(cit)
    matches = [_map(m) for m in _seq(check.get("matches"))]
    near = _map(check.get("near"))
    evidence: list[Piece] = []
    title, location, similarity = "", "", ""
    diff: list[Piece] = []
    if matches:
        first = matches[0]
        title = "The quote, found in the source"
        evidence = _evidence(passage, first, "hit")
        location = _location(_map(first.get("location")))
        if len(matches) > 1:
            more = len(matches) - 1
            places = "place" if more == 1 else "places"
            location = shown(f"{location} (and {more} more {places})".lstrip(" "))
    elif near:
        title = "The closest passage in the source"
        evidence = _evidence(passage, near, "near")
        sim = near.get("similarity")
        similarity = f"{sim:.2f}" if isinstance(sim, int | float) else ""
        diff = _diff(_seq(near.get("diff")))
        location = _location(_map(near.get("location")))
    elif passage:
        title = "The passage as issued"
        evidence = [Piece(shown(passage))]
    src = _map(check.get("source")) or _map(cit.get("source"))
    source = [
        (name, shown(src.get(key)))
        for key, name in _SOURCE_FIELDS
        if src.get(key) and not (key == "input" and src.get(key) == src.get("identifier"))
    ]
    fragments = [
        (shown(_map(f).get("quote")), shown(_map(f).get("verdict")))
        for f in _seq(check.get("fragments"))
    ]
    elsewhere = []
    for fe in map(_map, _seq(check.get("found_elsewhere"))):
        bits = [_s(fe.get(k)) for k in ("identifier", "title", "verdict") if fe.get(k)]
        elsewhere.append(shown(" \u00b7 ".join(bits) + f": \u201c{_s(fe.get('text'))}\u201d"))
    retraction = _retraction(check) or _retraction(cit)
    flags = [_s(f) for f in _seq(cit.get("flags"))]
    badge, badge_css = _retraction_badge(retraction["status"] if retraction else "", flags)
    severity = _SEVERITY.get(verdict, 2)
    if badge_css == "v-bad":
        severity = 0
    elif badge_css == "v-near":
        severity = min(severity, 1)
    why = _s(cit.get("reason")) or _s(check.get("reason"))
    if not why and badge and retraction:
        why = status_sentence(retraction["status"], _s(retraction.get("reason")), "the cited work")
    why = why or badge
    resolved = _s(cit.get("resolved_to"))
    target = resolved if cit.get("kind") == "numbered" and resolved else _s(cit.get("target"))
    return CitationView(
        number=number,
        raw=shown(cit.get("raw")),
        kind=shown(cit.get("kind")),
        target=shown(cit.get("target")),
        verdict=shown(verdict),
        label=shown(label),
        glyph=glyph,
        css=css,
        retraction_label=badge,
        retraction_css=badge_css,
        card_css=_worst(css, badge_css) if badge_css != "v-gone" else css,
        verdict_shown=not (verdict == "ok" and badge_css in ("v-bad", "v-near")),
        chip_target=shown(target),
        resolved_to=shown(resolved) if cit.get("kind") == "numbered" else "",
        severity=severity,
        problem=severity < 3,
        key=verdict if verdict in _CITATION_VERDICTS else "unknown",
        flags=[shown(f) for f in _seq(cit.get("flags"))],
        reason=shown(cit.get("reason")),
        quote=shown(cit.get("quote")),
        check_verdict=shown(check.get("verdict")),
        check_reason=shown(check.get("reason")),
        evidence_title=title,
        evidence=evidence,
        similarity=similarity,
        diff=diff,
        near_flags=[shown(f) for f in _seq(near.get("flags"))],
        location=location,
        fragments=fragments,
        passage=[Piece(shown(passage))] if passage and not evidence else [],
        source=source,
        retraction=retraction,
        elsewhere=elsewhere,
        why=shown(why),
    )


def _link(work: Mapping[str, Any]) -> str:
    """https://doi.org/<doi> or https://pubmed.ncbi.nlm.nih.gov/<pmid>/, or ``""``.

    Built here, never taken from the report: only a DOI or PMID of the expected shape, the
    DOI percent-encoded, so the link can only ever point at one of those two resolvers.
    """
    ident = _s(work.get("identifier"))
    doi = _s(work.get("doi")) or (ident[4:] if ident.lower().startswith("doi:") else "")
    pmid = _s(work.get("pmid")) or (ident[5:] if ident.lower().startswith("pmid:") else "")
    if _DOI.fullmatch(doi.strip()):
        return "https://doi.org/" + quote(doi.strip(), safe="/")
    if _PMID.fullmatch(pmid.strip()):
        return f"https://pubmed.ncbi.nlm.nih.gov/{pmid.strip()}/"
    return ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _score(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return f"{value:.2f}"


def _authors(names: Sequence[Any]) -> str:
    shown_names = [_s(n) for n in names[:_FIRST_AUTHORS]]
    more = len(names) - _FIRST_AUTHORS
    return shown("; ".join(shown_names) + (f" et al. ({more} more)" if more > 0 else ""))


def _work(value: Any) -> WorkView | None:
    work = _map(value)
    if not work:
        return None
    status = _s(work.get("retraction"))
    label, css = _WORK_RETRACTION.get(status, ("", ""))
    ident = _s(work.get("identifier"))
    if not ident:
        ident = next((f"{k}:{work[k]}" for k in ("doi", "pmid", "pmcid") if work.get(k)), "")
    year = _int(work.get("year"))
    return WorkView(
        identifier=shown(ident),
        href=_link(work),
        title=shown(work.get("title")),
        authors=_authors(_seq(work.get("authors"))),
        year="" if year is None else str(year),
        venue=shown(work.get("venue")),
        kind=shown(work.get("type")),
        source=shown(work.get("source")),
        score=_score(work.get("score")),
        retraction=label,
        retraction_css=css,
        retraction_reason=(
            shown(status_sentence(status, _s(work.get("retraction_reason")), "This work"))
            if label and work.get("retraction_reason")
            else ""
        ),
    )


def _comparison(value: Any) -> ComparisonView:
    cmp = _map(value)
    agreement = _s(cmp.get("agreement"))
    label, glyph, css = _AGREEMENT.get(agreement, (agreement or "unknown", "\u2022", "cmp-none"))
    in_text = not _s(cmp.get("stated")) and agreement in _IN_TEXT
    if in_text:
        label = _IN_TEXT[agreement]
    return ComparisonView(
        field=shown(cmp.get("field")),
        stated=shown(cmp.get("stated")),
        in_text=in_text,
        record=shown(cmp.get("record")),
        score=_score(cmp.get("score")),
        agreement=shown(label),
        glyph=glyph,
        css=css,
        threshold=shown(cmp.get("threshold")),
    )


def _identifier_check(value: Any) -> tuple[str, str, str]:
    """(identifier, what the registries said, CSS class)."""
    check = _map(value)
    exists = check.get("exists")
    reason = _s(check.get("reason"))
    if exists is True:
        agency = _s(check.get("registered_with"))
        said, css = (f"exists, registered with {agency}" if agency else "exists"), "v-ok"
    elif exists is False:
        said, css = "does not exist", "v-bad"
    else:
        said, css = "could not be established", "v-gone"
    if reason:
        said += f": {reason}"
    return shown(check.get("identifier")), shown(said), css


def _asked(value: Any) -> AskedView:
    ans = _map(value)
    responses = []
    for r in map(_map, _seq(ans.get("responses"))):
        status = _int(r.get("status"))
        responses.append(
            (
                shown(r.get("method") or "GET"),
                "" if status is None else str(status),
                shown(r.get("url")),
                shown(r.get("sha256")),
            )
        )
    return AskedView(
        service=shown(ans.get("service")),
        purpose=shown(ans.get("purpose")),
        query=shown(ans.get("query")),
        status=shown(ans.get("status")),
        reason=shown(ans.get("reason")),
        responses=responses,
    )


def reference_view(position: int, value: Any, *, full: bool = False) -> ReferenceView:
    """One reference entry's card; ``position`` is its place in the list (0-based).

    ``full`` adds what the references page shows and the audit page does not (how the work
    was identified, notes, the kind of an unchecked work, the closest records): one builder
    for both pages, so a card can never say one thing on one page and another on the other.
    """
    ref = _map(value)
    stated = _map(ref.get("stated"))
    verdict = _s(ref.get("verdict"))
    label, glyph, css = _REFERENCE_VERDICTS.get(verdict, (verdict or "unknown", "\u2022", "v-unk"))
    index = _int(ref.get("index"))
    work = _work(ref.get("work"))
    retracted, retracted_css, retracted_reason = "", "", ""
    status = _s(_map(ref.get("work")).get("retraction"))
    if ref.get("retracted") is True or status in ("RETRACTED", "CONCERN"):
        status = "CONCERN" if status == "CONCERN" else "RETRACTED"
        retracted = "Expression of concern" if status == "CONCERN" else "Retracted"
        retracted_css = "v-near" if status == "CONCERN" else "v-bad"
        reason = _s(_map(ref.get("work")).get("retraction_reason"))
        retracted_reason = shown(status_sentence(status, reason, "The work this entry names"))
        if work:  # said once, in the card's retraction notice
            work.retraction_reason = ""
    log_seq = _int(ref.get("log_seq"))
    view = ReferenceView(
        index=position + 1 if index is None else index,
        anchor=f"ref-{position}",
        label=shown(stated.get("label")),
        verdict=shown(verdict),
        verdict_label=shown(label),
        glyph=glyph,
        css=css,
        card_css=_worst(css, retracted_css) if retracted else css,
        problem=verdict != "verified" or bool(retracted),
        reason=shown(ref.get("reason")),
        text=shown(stated.get("text")),
        where=shown(stated.get("where")),
        source=shown(ref.get("source")),
        identifiers=[_identifier_check(i) for i in _seq(ref.get("identifiers"))],
        comparisons=[_comparison(c) for c in _seq(ref.get("comparisons"))],
        work=work,
        suggested=_work(ref.get("suggested")),
        candidates=[w for w in map(_work, _seq(ref.get("candidates"))) if w is not None],
        retracted=retracted,
        retracted_css=retracted_css,
        retracted_reason=retracted_reason,
        asked=[_asked(a) for a in _seq(ref.get("asked"))],
        log_seq="" if log_seq is None else str(log_seq),
    )
    if full:
        view.decided_by = [shown(f) for f in _seq(ref.get("decided_by"))]
        view.notes = [shown(n) for n in _seq(ref.get("notes"))]
        view.work_kind = shown(ref.get("work_kind"))
        seen = {w.identifier for w in (view.work, view.suggested, *view.candidates) if w}
        closest = (w for w in map(_work, _seq(ref.get("closest"))) if w is not None)
        view.closest = [w for w in closest if not (w.identifier and w.identifier in seen)]
    return view


def _reference_metrics(
    metrics: Mapping[str, Any], refs: Sequence[ReferenceView]
) -> list[tuple[str, str]]:
    """ "References verified: N of M" (the report's own counts, else the list's), by verdict."""
    total, verified = metrics.get("references"), metrics.get("references_verified")
    if not (_int(total) or 0) > 0:
        total = len(refs)
        verified = sum(1 for r in refs if r.verdict == "verified")
    if not total:
        return []
    rows = [("References verified", f"{shown(verified)} of {total}")]
    counts = [
        f"{_REFERENCE_VERDICTS[v][0]}: {n}"
        for v in _REFERENCE_VERDICTS
        if (n := sum(1 for r in refs if r.verdict == v))
    ]
    retracted = sum(1 for r in refs if r.retracted)
    if retracted:
        counts.append(f"retracted or under concern: {retracted}")
    if counts:
        rows.append(("References by verdict", ", ".join(counts)))
    return rows


def _place_sentences(sentences: Sequence[Mapping[str, Any]], answer: str) -> list[tuple[int, int]]:
    """Each sentence's span in ``answer``; empty if any cannot be placed in reading order."""
    placed: list[tuple[int, int]] = []
    cursor = 0
    for sent in sentences:
        text = _s(sent.get("text"))
        span = _span(sent)
        if (
            span
            and span[0] >= cursor
            and span[1] <= len(answer)
            and (not text or answer[span[0] : span[1]] == text)
        ):
            placed.append(span)
        else:
            at = answer.find(text, cursor) if text else -1
            if at < 0:
                return []
            placed.append((at, at + len(text)))
        cursor = placed[-1][1]
    return placed


def _cited_span(
    cit: Mapping[str, Any], start: int, text: str, cursor: int
) -> tuple[int, int] | None:
    """Where the citation's text as written lies in the sentence ``text`` (which starts at
    ``start`` in the answer), as answer offsets; ``cursor`` is where the previous one ended."""
    raw = _s(cit.get("raw"))
    span = _span(cit)
    if not raw:
        return None
    inside = span is not None and start <= span[0] and span[1] <= start + len(text)
    if span and inside and text[span[0] - start : span[1] - start] == raw:
        return span
    if span and span[1] <= len(text) and text[span[0] : span[1]] == raw:  # sentence-relative
        return start + span[0], start + span[1]
    at = text.find(raw, cursor - start) if cursor >= start else -1
    at = at if at >= 0 else text.find(raw)
    return (start + at, start + at + len(raw)) if at >= 0 else None


def _percent(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "\u2014"
    return f"{value * 100:.1f}%" if value <= 1 else f"{value:.1f}"


def _excerpt(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= _EXCERPT else one[: _EXCERPT - 1].rstrip() + "\u2026"


def _counts(
    cits: Sequence[CitationView], rows: Sequence[SentenceView], metrics: Mapping[str, Any]
) -> str:
    """The banner's "1 forged, 1 misquote, 1 retracted, 2 uncited claims"."""
    tally: dict[str, int] = {}
    for c in cits:
        tally[c.verdict] = tally.get(c.verdict, 0) + 1
        if c.retraction_css == "v-bad":
            tally["retracted"] = tally.get("retracted", 0) + 1
        elif c.retraction_css == "v-near":
            tally["concern"] = tally.get("concern", 0) + 1
    if not cits:  # a report that keeps only its metrics
        for key, value in _map(metrics.get("by_verdict")).items():
            if _int(value):
                tally[_s(key)] = _int(value) or 0
    retracted = _int(metrics.get("retracted_cited"))
    if retracted is not None:  # works, as the metric counts them
        tally["retracted"] = retracted
    tally["uncited"] = sum(1 for r in rows if r.status == "uncited")
    said = [
        f"{n} {one if n == 1 else many}"
        for key, one, many in _COUNT_WORDS
        if (n := tally.get(key, 0)) > 0
    ]
    if said:
        return ", ".join(said)
    total = len(cits) or (_int(metrics.get("citations")) or 0)
    if not total:
        return "no citations"
    return f"{total} citation{'s' if total != 1 else ''}, every one holds"


def _about(metrics: Mapping[str, Any], rows: Sequence[SentenceView], cits: int) -> str:
    """ "11 sentences, 7 claims, 5 citations": what was audited (the metrics, else counted)."""
    claims = _int(metrics.get("claims"))
    figures = (
        (_int(metrics.get("sentences")) or len(rows), "sentence"),
        (
            len([r for r in rows if r.status != "not_a_claim"]) if claims is None else claims,
            "claim",
        ),
        (_int(metrics.get("citations")) or cits, "citation"),
    )
    return ", ".join(f"{n} {word}{'' if n == 1 else 's'}" for n, word in figures)


def _cards(
    metrics: Mapping[str, Any], cits: Sequence[CitationView], refs: Sequence[ReferenceView]
) -> list[MetricCard]:
    """The cards above the answer: the figures an editor looks at first."""
    cards: list[MetricCard] = []
    total = _int(metrics.get("citations"))
    total = len(cits) if total is None else total
    problems = sum(1 for c in cits if c.problem)
    if total or cits:
        note = f"{problems} with a problem" if problems else "every one holds"
        cards.append(MetricCard("Citations", str(total), note, "v-bad" if problems else "v-ok"))
    for key, name, note in (
        ("citation_validity", "Citation validity", "name a real work, the right one"),
        ("quote_accuracy", "Quote accuracy", "quotes found as cited"),
        ("claim_coverage", "Claim coverage", "claims with a citation"),
    ):
        value = metrics.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            cards.append(
                MetricCard(name, _percent(value), note, "v-ok" if value >= 1 else "v-near")
            )
    for key, name, note in (
        ("fabricated", "Fabricated", "forged, unresolvable or the wrong work"),
        ("retracted_cited", "Retracted works cited", "cited without saying so"),
    ):
        count = _int(metrics.get(key))
        if count is not None:
            cards.append(MetricCard(name, str(count), note, "v-bad" if count else "v-ok"))
    ref_total = _int(metrics.get("references")) or len(refs)
    if ref_total:
        verified = _int(metrics.get("references_verified"))
        if verified is None:
            verified = sum(1 for r in refs if r.verdict == "verified")
        css = "v-ok" if verified == ref_total else "v-near"
        # A verified entry names a real work; a retracted one is a problem all the same.
        retracted = sum(1 for r in refs if r.retracted_css == "v-bad")
        concern = sum(1 for r in refs if r.retracted_css == "v-near")
        notes = [f"{retracted} retracted"] if retracted else []
        notes += [f"{concern} under an expression of concern"] if concern else []
        if notes:
            css = _worst(css, "v-bad" if retracted else "v-near")
        value = f"{verified} of {ref_total}"
        cards.append(MetricCard("References verified", value, ", ".join(notes), css))
    return cards


def _layout(
    answer: str,
    rows: Sequence[SentenceView],
    spans: Sequence[tuple[int, int]],
    cited: Sequence[tuple[int, int]],
    markdown: bool,
) -> tuple[list[Block], bool]:
    return layout(
        answer,
        spans,
        cited,
        [r.problem for r in rows],
        markdown=markdown,
        needed=[i for i, r in enumerate(rows) if r.citations],
    )


def build_view(
    report: Mapping[str, Any],
    answer: str,
    generated_at: str | None,
    *,
    source_name: str | None = None,
) -> dict[str, Any]:
    """Everything the template shows for ``report`` and ``answer``; escaping is the template's.

    ``source_name`` names the audited file in the banner (the report does not know it).
    """
    sentences = [_map(s) for s in _seq(report.get("sentences"))]
    spans = _place_sentences(sentences, answer)
    numbered = 0
    rows: list[SentenceView] = []
    all_cits: list[CitationView] = []
    cited: list[tuple[int, int]] = []
    for i, sent in enumerate(sentences):
        status = _s(sent.get("status"))
        if status not in _SENTENCE_STATUS:
            status = "unknown"
        label, css = _SENTENCE_STATUS.get(status, ("status unknown", "s-none"))
        text = answer[spans[i][0] : spans[i][1]] if spans else _s(sent.get("text"))
        index = sent.get("index")
        row = SentenceView(
            index=index if isinstance(index, int) else i,
            status=shown(status),
            label=shown(label),
            css=css,
            problem=css in ("s-problem", "s-uncited"),
            text=shown(text),
        )
        cursor = spans[i][0] if spans else 0
        for cit in map(_map, _seq(sent.get("citations"))):
            view = _citation(numbered, cit)
            numbered += 1
            view.sentence = _excerpt(shown(text))
            row.citations.append(view)
            all_cits.append(view)
            where = _cited_span(cit, spans[i][0], text, cursor) if spans else None
            if where is not None:
                cited.append(where)
                cursor = where[1]
        rows.append(row)
    markdown = _s(_map(report.get("answer")).get("format")) != "json"
    blocks, rendered = _layout(answer, rows, spans, cited, markdown) if spans else ([], False)
    verdict = _s(report.get("verdict"))
    words = _VERDICT_WORDS.get(verdict, (verdict or "Unknown", "The report names no verdict."))
    metrics = _map(report.get("metrics"))
    metric_rows = [
        (name, _percent(metrics.get(key)) if ratio else shown(metrics.get(key, "\u2014")))
        for key, name, ratio in _METRICS
        if key in metrics
    ]
    by_verdict = [(shown(k), shown(v)) for k, v in _map(metrics.get("by_verdict")).items()]
    references = [reference_view(i, r) for i, r in enumerate(_seq(report.get("references")))]
    signature = _map(report.get("signature"))
    when = (
        generated_at
        or _s(report.get("generated_at"))
        or _s(report.get("created_at"))
        or datetime.now(UTC).isoformat(timespec="seconds")
    )
    glance = sorted(all_cits, key=lambda c: (c.severity, c.number))[:GLANCE_ROWS]
    return {
        "schema": shown(report.get("schema")),
        "verdict": verdict if verdict in _VERDICT_WORDS else "unknown",
        "verdict_label": shown(words[0]),
        "verdict_words": shown(words[1]),
        "verdict_counts": shown(_counts(all_cits, rows, metrics)),
        "source_name": shown(source_name) if source_name else "",
        "about": _about(metrics, rows, len(all_cits)),
        "cards": _cards(metrics, all_cits, references),
        "metrics": metric_rows,
        "reference_metrics": _reference_metrics(metrics, references),
        "references": references,
        "by_verdict": by_verdict,
        "fail_on": [shown(x) for x in _seq(report.get("fail_on"))],
        "key_id": shown(signature.get("key_id")),
        "algorithm": shown(signature.get("algorithm")),
        "generated_at": shown(when),
        "blocks": blocks,
        "markdown": rendered,
        "rows": rows,
        "placed": bool(spans),
        "citations": all_cits,
        "problems": sum(1 for c in all_cits if c.problem),
        "glance": glance,
        "glance_more": len(all_cits) - len(glance),
        "statuses": list(_SENTENCE_STATUS.values()),
        "report": report,
    }


def answer_text(report: Mapping[str, Any]) -> str:
    """The audited answer as the report carries it (``answer.text``), or ``""``."""
    return _s(_map(report.get("answer")).get("text"))
