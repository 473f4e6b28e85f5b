"""HTML manuscripts, through the HTML Document every check reads.

* Text, blocks, headings, regions: :func:`citeproof.documents.html.parse_html` (what a
  reader sees; ``<blockquote>`` a block quote; the references region under a References
  heading or in a reference list such as ``ol.references``).
* Entries: :func:`citeproof.refs.pdf_list.read_document_references` over that region; an
  entry also takes as its key the ``id`` of the element that holds it in the page
  (``<li id="ref3">``), so a link to ``#ref3`` finds it.
* Citations: the markers the parser sees (``<sup>`` numbers, links to ``#cite…``/``#ref…``
  anchors): a numeric marker is a ``numeric`` citation (``superscript`` when raised); a link
  whose text is not a number cites the entry its ``#fragment`` names (kind ``key``).  Text
  citations (``[3]``, ``(Smith, 2019)``) are found by the shared scans.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from lxml import etree

from citeproof.documents.html import parse_html
from citeproof.documents.model import Document
from citeproof.manuscript.doc_blocks import draft_from_document
from citeproof.manuscript.draft import Draft, RawCitation, RawTarget
from citeproof.manuscript.read_pdf import locate_entries
from citeproof.manuscript.scan import numbers_of
from citeproof.manuscript.structure import CitationKind, ReferenceEntry
from citeproof.refs.pdf_list import read_document_references
from citeproof.refs.stated import fold

__all__ = ["read_html"]

_NUMBERS = re.compile(r"[\[(]?\s*(\d{1,4}(?:\s*[,;\-–—]\s*\d{1,4})*)\s*[\])]?")
_MAX_ANCHORS = 50_000


def read_html(data: bytes) -> Draft:
    """The draft of an HTML manuscript (module rules)."""
    document = parse_html(data)
    draft = draft_from_document(document, "html")
    entries = locate_entries(document.text, draft.blocks, read_document_references(document))
    links, holders = _page(data)
    draft.entries.extend(_keyed(entries, holders))
    _markers(draft, document, links)
    return draft


def _page(data: bytes) -> tuple[list[tuple[str, str, bool]], list[tuple[str, str]]]:
    """(text, fragment, raised) of each link to an anchor of the page, in order, and
    (id, text) of each element with an id."""
    parser = etree.HTMLParser(recover=True, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError):
        return [], []
    if root is None:
        return [], []
    links: list[tuple[str, str, bool]] = []
    holders: list[tuple[str, str]] = []
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if (
            el.tag == "a"
            and (href := el.get("href") or "").startswith("#")
            and len(links) < _MAX_ANCHORS
        ):
            parent = el.getparent()
            raised = parent is not None and parent.tag == "sup"
            links.append((" ".join("".join(el.itertext()).split()), href[1:], raised))
        if (ident := el.get("id")) and len(holders) < _MAX_ANCHORS:
            holders.append((ident, " ".join("".join(el.itertext()).split())[:200]))
    return links, holders


def _keyed(
    entries: Sequence[ReferenceEntry], holders: Sequence[tuple[str, str]]
) -> list[ReferenceEntry]:
    """Each entry with the id of the page element whose text starts it."""
    out: list[ReferenceEntry] = []
    folded = [(ident, fold(text)) for ident, text in holders if text]
    for entry in entries:
        head = fold(entry.reference.text)[:60]
        key = next(
            (
                ident
                for ident, text in folded
                if (head and text.startswith(head[:40])) or (head and head[:40] in text[:80])
            ),
            None,
        )
        out.append(replace(entry, key=key) if key else entry)
    return out


def _markers(draft: Draft, document: Document, links: Sequence[tuple[str, str, bool]]) -> None:
    text = document.text
    cursor = 0
    for s, e in document.markers:
        piece = " ".join(text[s:e].split())
        numbers = _NUMBERS.fullmatch(piece)
        block = next((b for b in draft.blocks if b.start <= s < b.end), None)
        if block is None or block.region not in ("body", "footnotes"):
            continue
        link = None
        for k in range(cursor, min(cursor + 20, len(links))):
            if links[k][0] and links[k][0] in piece:
                link, cursor = links[k], k + 1
                break
        if numbers is not None:
            found = numbers_of(numbers.group(1)) or []
            # a bare number is a raised one (the parser marks <sup> digits); [3] is printed inline
            kind: CitationKind = "superscript" if piece[:1].isdigit() else "numeric"
            if found:
                targets = [RawTarget(str(n), number=n) for n in found]
                draft.citations.append(RawCitation(s, e, kind, targets, region=block.region))
        elif link is not None:
            draft.citations.append(
                RawCitation(s, e, "key", [RawTarget(link[0], key=link[1])], region=block.region)
            )
