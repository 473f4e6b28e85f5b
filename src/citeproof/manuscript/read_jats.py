"""JATS manuscripts (publisher XML): the article's Document, ``<ref-list>`` and ``<xref>`` s.

* Text, blocks and sections: the JATS Document (:mod:`citeproof.documents.jats`), so the text
  is the one ``citeproof text`` prints; ``<disp-quote>`` is a block quote there.
* Entries: one per ``<ref>`` of every ``<ref-list>``, read by
  :func:`citeproof.refs.jats_list.read_jats_references`; an entry's id is the ``<ref>``'s
  ``id`` (else ``refN``), its span the Document's reference block when the two lists agree.
* Citations: each ``<xref ref-type="bibr">`` (and an ``<xref>`` without a type whose
  ``rid`` names a ``<ref>``) is a citation of the ``<ref>`` s its ``rid`` names (``rid`` may
  name several, space-separated).  The Document marks where each citation marker stands;
  the XML's ``<xref>`` s are paired with those marks in order, by their text (a mark the XML
  does not explain, or an ``<xref>`` with no text, is reported, not guessed).  Kind:
  ``superscript`` inside ``<sup>``, ``numeric`` when its text is numbers, else
  ``author_year``.
* Ranges: ``<xref rid="B3">3</xref>–<xref rid="B5">5</xref>`` also cites the refs between
  B3 and B5 in list order (added to the first citation of the pair), as the printed
  ``3–5`` does.  An ``<xref>`` whose own text is a range (``3–5``) but whose ``rid`` names
  one ref cites the numbered refs of that range.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lxml import etree

from citeproof.documents.jats import parse_jats
from citeproof.documents.model import Document
from citeproof.documents.safe_xml import local_name, parse_xml_safely
from citeproof.manuscript.doc_blocks import draft_from_document
from citeproof.manuscript.draft import Draft, RawCitation, RawTarget
from citeproof.manuscript.scan import numbers_of
from citeproof.manuscript.structure import CitationKind, ReferenceEntry
from citeproof.refs.jats_list import read_jats_references

__all__ = ["read_jats", "xref_dash"]

_CITE_TEXT = re.compile(r"[\[(]?\s*\d+[a-z]?(?:\s*[,;\u2013\u2014-]\s*\d+[a-z]?)*\s*[\])]?")
_DASH_ONLY = re.compile(r"\s*[-–—‐‑−]\s*")


@dataclass(frozen=True, slots=True)
class _Xref:
    text: str
    rids: tuple[str, ...]
    sup: bool
    dash_after: bool
    """The next ``<xref>`` follows after nothing but a dash (a printed range)."""


def xref_dash(xref: etree._Element) -> bool:
    """Whether the next sibling ``<xref>`` follows this one after only a dash, so the two
    print a range (``3–5``)."""
    tail = xref.tail or ""
    nxt = xref.getnext()
    return (
        nxt is not None
        and local_name(nxt) == "xref"
        and nxt.get("ref-type") == xref.get("ref-type")
        and _DASH_ONLY.fullmatch(tail) is not None
    )


def read_jats(data: bytes) -> Draft:
    """The draft of a JATS article (module rules)."""
    document = parse_jats(data)
    draft = draft_from_document(document, "jats")
    root = parse_xml_safely(data)
    if root is None:
        return draft
    refs = [
        el
        for el in root.iter()
        if local_name(el) == "ref" and any(local_name(a) == "ref-list" for a in el.iterancestors())
    ]
    stated = read_jats_references(data)
    ids = _ids(refs)
    spans = [(b.start, b.end) for b in document.blocks if b.kind == "reference"]
    same = len(spans) == len(stated)
    for n, (ref, entry_id) in enumerate(zip(stated, ids, strict=True)):
        start, end = spans[n] if same else (None, None)
        draft.entries.append(
            ReferenceEntry(
                entry_id, ref, ref.label, start=start, end=end, where=ref.where, origin="jats"
            )
        )
    draft.entries_numbered = any(
        e.label and e.label.strip("[]().").isdigit() for e in draft.entries
    )
    known = set(ids)
    _citations(draft, document, _xrefs(root, known), ids)
    return draft


def _ids(refs: Sequence[etree._Element]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for n, ref in enumerate(refs, start=1):
        rid = ref.get("id") or f"ref{n}"
        while rid in seen:
            rid = f"{rid}-{n}"
        seen.add(rid)
        out.append(rid)
    return out


def _xrefs(root: etree._Element, known: set[str]) -> list[tuple[str, _Xref | None]]:
    """Every ``<xref>`` the Document marks, in order, with its text; None for a marked one
    that is no bibliographic citation (a footnote mark)."""
    out: list[tuple[str, _Xref | None]] = []
    for el in root.iter():
        if local_name(el) != "xref":
            continue
        kind = el.get("ref-type")
        text = " ".join("".join(el.itertext()).split())
        rids = tuple((el.get("rid") or "").split())
        marked = kind in ("bibr", "fn", "table-fn") or (
            kind is None and _CITE_TEXT.fullmatch(text) is not None
        )
        if not marked or _in_captured(el):
            continue
        bibliographic = kind == "bibr" or (kind is None and any(r in known for r in rids))
        if not bibliographic:
            if text:
                out.append((text, None))
            continue
        parent = el.getparent()
        sup = parent is not None and local_name(parent) == "sup"
        out.append((text, _Xref(text, rids, sup, xref_dash(el))))
    return out


def _in_captured(el: etree._Element) -> bool:
    """Inside a reference, whose citations the Document writes out without markers."""
    return any(local_name(a) == "ref" for a in el.iterancestors())


def _placed(
    text: str, marks: Sequence[tuple[int, int]], found: Sequence[tuple[str, _Xref | None]]
) -> tuple[list[tuple[int, int, _Xref | None]], list[tuple[int, int]], int]:
    """Each ``<xref>`` placed in the Document's text: the Document merges the markers of
    one printed group (``[1, 2]``, ``(A 2007; B 1980)``) into one span, so the XML's
    ``<xref>`` s are taken in order and each is looked for in what is left of the current
    span.  When one is not there, either the span has no ``<xref>`` (skipped when the
    ``<xref>`` is in one of the next spans) or the ``<xref>`` has no marker (skipped
    otherwise).  Returns (start, end, xref) of each placed ``<xref>``, the spans no
    ``<xref>`` explains, and how many ``<xref>`` s had no place."""
    placed: list[tuple[int, int, _Xref | None]] = []
    unexplained: list[tuple[int, int]] = []
    lost = 0
    m = 0
    cursor = marks[0][0] if marks else 0
    used = False
    for xtext, xref in found:
        while m < len(marks):
            s, e = marks[m]
            at = text.find(xtext, max(cursor, s), e) if xtext else -1
            if at >= 0:
                placed.append((at, at + len(xtext), xref))
                cursor, used = at + len(xtext), True
                break
            later = any(xtext and text.find(xtext, a, b) >= 0 for a, b in marks[m + 1 : m + 4])
            if used or later:
                if not used:
                    unexplained.append((s, e))
                m += 1
                used = False
                if m < len(marks):
                    cursor = marks[m][0]
                continue
            if xref is not None:
                lost += 1
            break
        else:
            if xref is not None:
                lost += 1
    if not used and m < len(marks):
        unexplained.append(marks[m])
    unexplained.extend(marks[m + 1 :])
    return placed, unexplained, lost


def _citations(
    draft: Draft,
    document: Document,
    found: Sequence[tuple[str, _Xref | None]],
    ids: Sequence[str],
) -> None:
    text = document.text
    marks = [(s, e) for s, e in document.markers if e > s]
    placed, unexplained, lost = _placed(text, marks, found)
    position = {rid: n for n, rid in enumerate(ids)}
    by_label = {e.label.strip(): e.id for e in draft.entries if e.label}
    pending_range: tuple[RawCitation, int] | None = None
    for s, e, xref in placed:
        if xref is None:
            pending_range = None
            continue
        targets = _targets(xref, ids, position, by_label)
        kind: CitationKind = (
            "superscript"
            if xref.sup
            else ("numeric" if _CITE_TEXT.fullmatch(xref.text) else "author_year")
        )
        cite = RawCitation(s, e, kind, targets, raw=f"<xref rid={' '.join(xref.rids)!r}>")
        if pending_range is not None:
            first, low = pending_range
            high = min((position[r] for r in xref.rids if r in position), default=-1)
            if high > low + 1:
                first.targets.extend(
                    RawTarget(f"{ids[k]} (in a range)", entry_id=ids[k])
                    for k in range(low + 1, high)
                )
        pending_range = None
        if xref.dash_after:
            low = max((position[r] for r in xref.rids if r in position), default=-1)
            if low >= 0:
                pending_range = (cite, low)
        draft.citations.append(cite)
    for s, e in unexplained:
        if _CITE_TEXT.fullmatch(" ".join(text[s:e].split())):
            draft.problem(
                "unmatched_marker",
                f"The citation marker {text[s:e]!r} could not be paired with an <xref> of the XML.",
                None,
                s,
                e,
            )
    if lost:
        draft.problem(
            "unplaced_xref",
            f"{lost} <xref> citation(s) of the XML have no marker in "
            "the article's text (an empty <xref>, or one the text does not show); "
            "they are not in the model.",
        )


def _targets(
    xref: _Xref, ids: Sequence[str], position: dict[str, int], by_label: dict[str, str]
) -> list[RawTarget]:
    targets = [RawTarget(r, entry_id=r) for r in xref.rids]
    if len(xref.rids) == 1 and xref.rids[0] in position:
        spec = xref.text.strip("[]() ")
        numbers = numbers_of(spec) if re.fullmatch(r"[\d\s,;\-–—]+", spec) else None
        if numbers and len(numbers) > 1:
            extra = [by_label[str(n)] for n in numbers if str(n) in by_label]
            targets += [
                RawTarget(f"{r} (in a range)", entry_id=r) for r in extra if r != xref.rids[0]
            ]
    if not targets:
        targets = [RawTarget(xref.text, reason="The <xref> names no rid.")]
    return targets
