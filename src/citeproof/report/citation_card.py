"""One citation's chip and card on the audit page: its verdict, the evidence, the source.

It reads the citation through :class:`~citeproof.models.audit.CitationReport`
(:mod:`citeproof.report.lenient`), so every field it shows is one the model declares, and
each part of the card is one function named for what it decides: the evidence shown
(:func:`_evidence_of`), the retraction notice (:func:`_retraction_notice`) and badge
(:func:`_retraction_badge`), the rank in the "at a glance" table (:func:`_severity`), the
one-line why (:func:`_why`).  A retracted work is flagged on its citation's chip and card as
plainly as a misquote; a retraction status that could not be established is shown
neutrally, never like a retraction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from citeproof.models.audit import CitationReport
from citeproof.models.check import CheckResult, DiffOp, Location, SourceInfo
from citeproof.models.retraction import Notice, RetractionReport, SourceReport
from citeproof.report.lenient import read
from citeproof.report.values import (
    WORK_RETRACTION,
    Piece,
    offsets,
    shown,
    status_sentence,
    text,
    worst,
)

__all__ = ["CITATION_VERDICTS", "CitationView", "RetractionNotice", "citation_view"]

#: Citation verdict -> (label, glyph, CSS class).  Classes come only from this table.
CITATION_VERDICTS: Final[dict[str, tuple[str, str, str]]] = {
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

#: Citation verdict -> rank in the "at a glance" table (0 first); a retraction ranks 0.
_SEVERITY: Final[dict[str, int]] = {
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


@dataclass(slots=True)
class RetractionNotice:
    """The cited work's retraction status, source by source, as its card's notice says it."""

    status: str
    title: str
    css: str
    reason: str
    #: The status said once, in a sentence ("The cited work has been retracted, ...").
    said: str
    #: "crossref: retracted", one per source.
    by: list[str]
    notices: list[str]
    as_of: str


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
    retraction: RetractionNotice | None
    elsewhere: list[str]
    #: The start of the sentence that cites it (for the "at a glance" table).
    sentence: str = ""
    #: Why, in one line: the citation's reason, else its quote check's or retraction's.
    why: str = ""


@dataclass(slots=True)
class _Evidence:
    """What the card shows of the source: the quote found, the closest passage, or the
    passage as issued, with where it lies."""

    title: str = ""
    pieces: list[Piece] = field(default_factory=list)
    location: str = ""
    similarity: str = ""
    diff: list[Piece] = field(default_factory=list)


def citation_view(number: int, cit: CitationReport) -> CitationView:
    """The chip and card of citation ``number`` (its place among the answer's citations)."""
    verdict = text(cit.verdict)
    label, glyph, css = CITATION_VERDICTS.get(verdict, (verdict or "unknown", "\u2022", "v-unk"))
    check = _check_of(cit)
    passage = text(cit.handle.as_issued_text) if cit.handle else ""
    found = _evidence_of(check, passage)
    retraction = _retraction_notice(check.retraction) or _retraction_notice(cit.retraction)
    badge, badge_css = _retraction_badge(retraction, [text(f) for f in cit.flags])
    severity = _severity(verdict, badge_css)
    chip_target, resolved_to = _targets(cit)
    return CitationView(
        number=number,
        raw=shown(cit.raw),
        kind=shown(cit.kind),
        target=shown(cit.target),
        verdict=shown(verdict),
        label=shown(label),
        glyph=glyph,
        css=css,
        retraction_label=badge,
        retraction_css=badge_css,
        card_css=worst(css, badge_css) if badge_css != "v-gone" else css,
        verdict_shown=not (verdict == "ok" and badge_css in ("v-bad", "v-near")),
        chip_target=chip_target,
        resolved_to=resolved_to,
        severity=severity,
        problem=severity < 3,
        key=verdict if verdict in CITATION_VERDICTS else "unknown",
        flags=[shown(f) for f in cit.flags],
        reason=shown(cit.reason),
        quote=shown(cit.quote),
        check_verdict=shown(check.verdict),
        check_reason=shown(check.reason),
        evidence_title=found.title,
        evidence=found.pieces,
        similarity=found.similarity,
        diff=found.diff,
        near_flags=[shown(f) for f in check.near.flags] if check.near else [],
        location=found.location,
        fragments=[(shown(f.quote), shown(f.verdict)) for f in check.fragments or ()],
        passage=[Piece(shown(passage))] if passage and not found.pieces else [],
        source=_source_rows(_source_of(cit, check)),
        retraction=retraction,
        elsewhere=_found_elsewhere(check),
        why=shown(_why(cit, check, retraction, badge)),
    )


def _check_of(cit: CitationReport) -> CheckResult:
    """The check the card shows: the citation's, else its first quote's (a report may keep
    the checks per quote only), else an empty one, every field absent."""
    if cit.check is not None:
        return cit.check
    first = next((q.check for q in cit.quotes if q.check is not None), None)
    return first if first is not None else read(CheckResult, None)


def _targets(cit: CitationReport) -> tuple[str, str]:
    """(what the chip names, the work it resolved to): a numbered citation names the work
    its reference entry resolved to, beside its number; any other names its target."""
    resolved = text(cit.resolved_to)
    if cit.kind != "numbered":
        return shown(cit.target), ""
    return shown(resolved or text(cit.target)), shown(resolved)


def _source_of(cit: CitationReport, check: CheckResult) -> SourceInfo | None:
    """The source that was read: the check's, else the citation's own."""
    return check.source if check.source.model_fields_set else cit.source


def _evidence_of(check: CheckResult, passage: str) -> _Evidence:
    """The quote where it was found (the first of its places), else the closest passage with
    its word diff, else the passage as issued."""
    if check.matches:
        first, more = check.matches[0], len(check.matches) - 1
        location = _location(first.location)
        if more:
            places = "place" if more == 1 else "places"
            location = shown(f"{location} (and {more} more {places})".lstrip(" "))
        pieces = _marked(passage, text(first.text), offsets(first.start, first.end), "hit")
        return _Evidence("The quote, found in the source", pieces, location)
    if check.near is not None:
        near = check.near
        sim = near.similarity
        return _Evidence(
            "The closest passage in the source",
            _marked(passage, text(near.text), offsets(near.start, near.end), "near"),
            _location(near.location),
            f"{sim:.2f}" if isinstance(sim, int | float) else "",
            _diff(near.diff),
        )
    if passage:
        return _Evidence("The passage as issued", [Piece(shown(passage))])
    return _Evidence()


def _marked(passage: str, found: str, span: tuple[int, int] | None, css: str) -> list[Piece]:
    """The passage with ``found`` marked in it, or ``found`` alone when no passage came."""
    if passage:
        return _highlight(passage, span, found, css)
    return [Piece("\u2026 "), Piece(shown(found), css), Piece(" \u2026")]


def _highlight(passage: str, span: tuple[int, int] | None, needle: str, css: str) -> list[Piece]:
    """``passage`` with the run at ``span`` (if it holds ``needle``) or else ``needle`` marked."""
    if span is not None and needle and passage[span[0] : span[1]] == needle:
        start, end = span
    else:
        start = passage.find(needle) if needle else -1
        if start < 0:
            return [Piece(shown(passage))]
        end = start + len(needle)
    pieces = [
        Piece(shown(passage[:start])),
        Piece(shown(passage[start:end]), css),
        Piece(shown(passage[end:])),
    ]
    return [p for p in pieces if p.text]


def _location(loc: Location | None) -> str:
    """ "body, Results › Sleep, page 3": where in the document a passage lies."""
    if loc is None:
        return ""
    bits: list[str] = []
    if loc.region:
        bits.append(text(loc.region))
    section = [text(x) for x in loc.section]
    if section and bits and section[0].casefold() == bits[0].casefold():
        section = section[1:]  # "abstract", not "abstract, Abstract"
    if section:
        bits.append(" \u203a ".join(section))
    if isinstance(loc.page, int):
        bits.append(f"page {loc.page}")
    return shown(", ".join(bits))


def _diff(ops: Sequence[DiffOp]) -> list[Piece]:
    """The word diff from the source's wording to the quote's."""
    out: list[Piece] = []
    for op in ops:
        kind, quote, source = text(op.op), text(op.quote), text(op.source)
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


def _source_rows(src: SourceInfo | None) -> list[tuple[str, str]]:
    """The source's record, field by field; the input only where it is not the identifier."""
    if src is None:
        return []
    rows: tuple[tuple[str, object], ...] = (
        ("Identifier", src.identifier),
        ("Title", src.title),
        ("Input", None if src.input == src.identifier else src.input),
        ("Format", src.kind),
        ("Served by", src.served_by),
        ("Version", src.version),
        ("Coverage", src.coverage),
        ("SHA-256", src.sha256),
        ("URL", src.url),
        ("Retrieved", src.retrieved_at),
        ("Licence", src.licence),
    )
    return [(name, shown(value)) for name, value in rows if value]


def _found_elsewhere(check: CheckResult) -> list[str]:
    """The documents ``--find-source`` found the words in, one line each."""
    lines = []
    for fe in check.found_elsewhere or ():
        bits = [text(v) for v in (fe.identifier, fe.title, fe.verdict) if v]
        lines.append(shown(" \u00b7 ".join(bits) + f": \u201c{text(fe.text)}\u201d"))
    return lines


def _retraction_notice(rep: RetractionReport | None) -> RetractionNotice | None:
    """The notice for a work that is not simply "not retracted", or None."""
    status = text(rep.status) if rep else ""
    if rep is None or status in ("", "NOT_RETRACTED_AS_OF"):
        return None
    title, css = WORK_RETRACTION.get(status, (f"Retraction status: {status}", "v-gone"))
    notices = [_notice_line(n) for src in rep.sources for n in (*src.notices, *src.corrections)]
    return RetractionNotice(
        status=shown(status),
        title=shown(title),
        css=css,
        reason=shown(rep.reason),
        said=shown(status_sentence(status, text(rep.reason), "The cited work")),
        by=[_said_by(src) for src in rep.sources],
        notices=notices,
        as_of=shown(rep.as_of),
    )


def _said_by(src: SourceReport) -> str:
    """ "crossref: retracted", or the state of a source that said nothing ("pubmed: failed")."""
    said = [
        word
        for word, flag in (("retracted", src.retracted), ("concern", src.concern))
        if flag is True
    ]
    return shown(f"{text(src.source)}: {', '.join(said) if said else text(src.state)}")


def _notice_line(notice: Notice) -> str:
    """ "retraction · 2024-01-02 · 10.1/ret · publisher": what a notice is and where."""
    bits = [
        text(b)
        for b in (notice.kind, notice.date, notice.doi, notice.pmid, notice.source, notice.url)
    ]
    return shown(" \u00b7 ".join(b for b in bits if b))


def _retraction_badge(notice: RetractionNotice | None, flags: Sequence[str]) -> tuple[str, str]:
    """The chip's retraction badge: (label, CSS class), or ("", "") for none.

    A retracted work is a failure like a misquote; one the answer itself says is retracted
    (``retraction_acknowledged``) is not, and is labelled so, neutrally.
    """
    status = notice.status if notice else ""
    if status == "RETRACTED" or "retracted" in flags:
        if "retraction_acknowledged" in flags:
            return "Retracted (the answer says so)", "v-gone"
        return "Retracted", "v-bad"
    if status == "CONCERN" or "concern" in flags:
        return "Expression of concern", "v-near"
    return "", ""


def _severity(verdict: str, badge_css: str) -> int:
    """The citation's rank in the "at a glance" table: a retraction ranks with the failures,
    a concern with the warnings."""
    severity = _SEVERITY.get(verdict, 2)
    if badge_css == "v-bad":
        return 0
    if badge_css == "v-near":
        return min(severity, 1)
    return severity


def _why(
    cit: CitationReport, check: CheckResult, retraction: RetractionNotice | None, badge: str
) -> str:
    """Why, in one line: the citation's reason, else its check's, else the retraction's."""
    why = text(cit.reason) or text(check.reason)
    if not why and badge and retraction:
        why = status_sentence(retraction.status, retraction.reason, "the cited work")
    return why or badge
