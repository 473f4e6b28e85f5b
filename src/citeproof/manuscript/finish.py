"""From a reader's draft to the :class:`~citeproof.manuscript.structure.Manuscript`.

The steps every format shares, in order:

1. **Scan the text** of the prose blocks (never headings or the reference list) for the
   citations the reader asked for (:mod:`.scan`), skipping spans the reader already
   claimed: numeric brackets and superscript digits always; author-year only when the
   reference list is not numbered (half its entries or more numbered: a numbered list is
   cited by number, and a capitalised word before a year is then far more often a name in
   prose).  In the front matter only
   bracketed numbers are looked for (a PDF's layout may count the first paragraphs as front
   matter; a raised number there is an affiliation mark).
2. **Link** every work each citation names (:mod:`.link`).
3. **Notes**: a note mark whose note holds citations cites what they cite (kind
   ``footnote``); a note with no citation whose text reads as a reference (an author and a
   year, or an identifier) is linked by its first author and year, or, when the manuscript
   prints no reference list, becomes an entry of its own (origin ``note``).  A note that
   cites nothing is no citation.
4. **Quotations** and the citations they carry (:mod:`.quotes`).
5. **Sections** from the headings: each runs to the next heading.
6. **Problems**: each cited work that could not be linked (``unlinked_citation``), each
   printed entry no citation names (``uncited_entry``), a field item missing from the
   printed list (``cited_not_listed``), and citations with no list at all
   (``no_reference_list``).

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from citeproof.manuscript.draft import Draft, NoteCall, RawCitation, RawTarget
from citeproof.manuscript.link import Linker
from citeproof.manuscript.quotes import find_quotations
from citeproof.manuscript.scan import scan_author_year, scan_numeric, scan_superscripts
from citeproof.manuscript.structure import (
    CitedItem,
    InTextCitation,
    Manuscript,
    Problem,
    ReferenceEntry,
    Section,
    TextBlock,
)
from citeproof.refs.listed import parse_reference_string

__all__ = ["SCANS", "assemble"]

SCANS = frozenset({"numeric", "superscript", "author_year"})
_SCANNED = frozenset({"paragraph", "list_item", "footnote", "cell", "caption", "quote"})
_MAX_CITATIONS = 100_000


def assemble(draft: Draft, *, scans: Iterable[str] = SCANS, name: str | None = None) -> Manuscript:
    """The manuscript a draft describes (module steps)."""
    text = draft.text
    blocks = sorted(draft.blocks, key=lambda b: (b.start, -b.end))
    _scan(draft, text, blocks, frozenset(scans))
    by_position = _author_year_list(draft)
    linker = Linker(draft.entries, by_position=not by_position)
    raw = sorted(draft.citations, key=lambda c: (c.start, c.end))[:_MAX_CITATIONS]
    items = [linker.link(c) for c in raw]
    kept = [
        (c, its)
        for c, its in zip(raw, items, strict=True)
        if not c.tentative or any(i.entry_id for i in its)
    ]
    raw, items = [c for c, _ in kept], [its for _, its in kept]
    notes = _note_citations(draft, text, linker, raw, items)
    pairs = sorted([*zip(raw, items, strict=True), *notes], key=lambda p: (p[0].start, p[0].end))
    citations = tuple(
        InTextCitation(
            index=i,
            marker=text[c.start : c.end],
            start=c.start,
            end=c.end,
            kind=c.kind,
            items=its,
            raw=c.raw,
            region=c.region,
            where=c.where,
        )
        for i, (c, its) in enumerate(pairs)
    )
    cited = {item.entry_id for c in citations for item in c.items if item.entry_id}
    entries = tuple(e for e in linker.entries if e.origin != "bib" or e.id in cited)
    quotations = tuple(find_quotations(text, blocks, citations))
    problems = [*draft.problems, *_problems(citations, entries)]
    return Manuscript(
        format=draft.format,
        text=text,
        title=draft.title,
        blocks=tuple(blocks),
        sections=tuple(_sections(text, blocks)),
        citations=citations,
        references=entries,
        quotations=quotations,
        problems=tuple(problems),
        name=name,
        members=draft.members,
    )


def _author_year_list(draft: Draft) -> bool:
    """Whether the manuscript cites by author and year against an unnumbered list.  Then a
    raised number is a note mark, not a citation (dropped), and a number never names an
    entry by its place in the list."""
    listed = [e for e in draft.entries if e.origin in ("list", "jats", "bbl")]
    labelled = sum(1 for e in listed if e.label and e.label.strip("[]().").isdigit())
    if not listed or labelled * 2 >= len(listed):
        return False
    if not any(c.kind == "author_year" for c in draft.citations):
        return False
    draft.citations = [c for c in draft.citations if c.kind != "superscript"]
    return True


def _scan(draft: Draft, text: str, blocks: Sequence[TextBlock], scans: frozenset[str]) -> None:
    if not scans:
        return
    taken = [(c.start, c.end) for c in draft.citations]
    taken.extend((n.start, n.end) for n in draft.note_calls)
    numbered = draft.entries_numbered
    if numbered is None:
        labelled = sum(1 for e in draft.entries if e.label and e.label.strip("[]().").isdigit())
        numbered = labelled > 0 and labelled * 2 >= len(draft.entries)
    known = frozenset(
        int(e.label.strip("[]()."))
        for e in draft.entries
        if e.label and e.label.strip("[]().").isdigit()
    )
    notes = sorted((span, note) for note, span in draft.notes.items())
    for block in blocks:
        if block.kind not in _SCANNED or block.region == "references":
            continue
        found = _scan_block(text, block, scans, taken, known, numbered=numbered)
        note = next((n for (s, e), n in notes if s <= block.start < e), None)
        for c in found:
            c.region = block.region
            c.note = note
        draft.citations.extend(found)


def _scan_block(
    text: str,
    block: TextBlock,
    scans: frozenset[str],
    taken: list[tuple[int, int]],
    known: frozenset[int],
    *,
    numbered: bool,
) -> list[RawCitation]:
    """The citations the ``scans`` find in one block, outside the spans ``taken``: author
    and year only when the list is not numbered.  A layout guess may put the first
    paragraphs in the front matter: a bracketed number there is still a citation, while a
    raised one is an affiliation mark, and author and year are not looked for."""
    found: list[RawCitation] = []
    if "numeric" in scans:
        found += scan_numeric(text, block.start, block.end, taken, known)
    if block.region == "front":
        return found
    if "superscript" in scans:
        found += scan_superscripts(text, block.start, block.end, taken)
    if "author_year" in scans and not numbered:
        found += scan_author_year(text, block.start, block.end, taken)
    return found


def _note_citations(
    draft: Draft,
    text: str,
    linker: Linker,
    raw: Sequence[RawCitation],
    items: Sequence[tuple[CitedItem, ...]],
) -> list[tuple[RawCitation, tuple[CitedItem, ...]]]:
    """A citation for each note mark whose note cites (module step 3)."""
    by_note: dict[str, list[CitedItem]] = {}
    for c, its in zip(raw, items, strict=True):
        if c.note is not None:
            by_note.setdefault(c.note, []).extend(its)
    out: list[tuple[RawCitation, tuple[CitedItem, ...]]] = []
    for call in draft.note_calls:
        cited = by_note.get(call.note)
        if cited:
            out.append((_note_raw(call), tuple(cited)))
            continue
        span = draft.notes.get(call.note)
        if span is None:
            continue
        item = _note_as_reference(text[span[0] : span[1]], call, linker)
        if item is not None:
            out.append((_note_raw(call), (item,)))
    return out


def _note_raw(call: NoteCall) -> RawCitation:
    return RawCitation(
        call.start, call.end, "footnote", [], region=call.region, where=f"note {call.note}"
    )


def _note_as_reference(note: str, call: NoteCall, linker: Linker) -> CitedItem | None:
    stated = parse_reference_string(note, numbered=False)
    if not (stated.identifiers or (stated.year and (stated.authors or stated.title))):
        return None
    target = f"note {call.note}"
    if stated.surnames and stated.year:
        found = linker.link(
            RawCitation(
                0,
                0,
                "footnote",
                [RawTarget(target, names=stated.surnames[:1], year=str(stated.year))],
            )
        )[0]
        if found.entry_id is not None:
            return found
        if linker.printed:
            return found
    elif linker.printed:
        return CitedItem(
            target,
            None,
            "The note reads as a reference but names no author and year to find its entry by.",
        )
    entry_id = f"note{call.note}"
    entry = ReferenceEntry(entry_id, replace(stated, where=target), origin="note", where=target)
    linker.entries.append(entry)
    linker.by_id[entry_id] = entry
    return CitedItem(target, entry_id)


def _sections(text: str, blocks: Sequence[TextBlock]) -> list[Section]:
    headings = [b for b in blocks if b.kind == "heading"]
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    for n, h in enumerate(headings):
        title = " ".join(text[h.start : h.end].split())
        level = max(h.level, 1)
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))
        end = headings[n + 1].start if n + 1 < len(headings) else len(text)
        out.append(Section(title, level, h.start, end, tuple(t for _, t in stack), h.region))
    return out


_LISTED = frozenset({"list", "bbl", "jats", "bib", "nocite"})
"""Origins of entries the manuscript itself lists (a field's or a note's are the citation's)."""


def _problems(
    citations: Sequence[InTextCitation], entries: Sequence[ReferenceEntry]
) -> list[Problem]:
    out: list[Problem] = []
    cited: set[str] = set()
    for c in citations:
        for item in c.items:
            if item.entry_id is not None:
                cited.add(item.entry_id)
            elif c.kind != "footnote":
                out.append(
                    Problem(
                        "unlinked_citation",
                        f"{c.marker or c.raw}: {item.reason or 'it names no reference entry.'}",
                        c.where,
                        c.start,
                        c.end,
                    )
                )
    listed = [e for e in entries if e.origin in _LISTED]
    needs_list = any(c.kind in ("numeric", "superscript", "author_year") for c in citations)
    if needs_list and not listed:
        out.append(
            Problem(
                "no_reference_list",
                "The manuscript cites by number or by author and year, but no reference list "
                "was found in it.",
            )
        )
    for e in listed:
        if e.id not in cited and e.origin in ("list", "bbl", "jats"):
            name = e.label or e.key or e.id
            out.append(
                Problem(
                    "uncited_entry",
                    f"Reference {name} is cited nowhere in the text: {e.reference.text[:120]}",
                    e.where,
                    e.start,
                    e.end,
                )
            )
    if listed:
        for e in entries:
            if e.origin == "field":
                out.append(
                    Problem(
                        "cited_not_listed",
                        "A reference manager's citation names a work the printed reference "
                        f"list does not hold: {e.reference.text[:120]}",
                        e.where,
                    )
                )
    return out
