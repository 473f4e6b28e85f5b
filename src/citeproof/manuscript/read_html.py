"""HTML manuscripts, through the HTML Document every check reads.

* Text, blocks, headings, regions: :func:`citeproof.documents.html.parse_html` (what a
  reader sees; the references region under a References heading or in a reference list
  such as ``ol.references``); a paragraph that stands in a ``<blockquote>`` is a block
  quote.
* Entries: each list item of that region (``<li>``) is one entry, read by
  :func:`citeproof.refs.listed.parse_reference_string`; a region without list items is cut
  into entries by :func:`citeproof.refs.pdf_list.read_document_references`.  An entry also
  takes as its key the ``id`` of the element that holds it in the page (``<li id="ref3">``),
  so a link to ``#ref3`` finds it.
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
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.pdf_list import read_document_references
from citeproof.refs.stated import fold

__all__ = ["read_html"]

_NUMBERS = re.compile(r"[\[(]?\s*(\d{1,4}(?:\s*[,;\-–—]\s*\d{1,4})*)\s*[\])]?")
_MAX_ANCHORS = 50_000


def read_html(data: bytes) -> Draft:
    """The draft of an HTML manuscript (module rules)."""
    document = parse_html(data)
    draft = draft_from_document(document, "html")
    items = [b for b in document.blocks if b.region == "references" and b.kind == "reference"]
    if items:  # one list item, one entry: a page's list needs no guessing where entries end
        entries = [
            ReferenceEntry(
                f"ref{n}",
                ref := parse_reference_string(document.text[b.start : b.end], where=f"entry {n}"),
                ref.label,
                start=b.start,
                end=b.end,
                where=f"entry {n}",
            )
            for n, b in enumerate(items, start=1)
        ]
    else:
        stated = read_document_references(document)
        entries = locate_entries(document.text, draft.blocks, stated)
    links, holders, quoted = _page(data)
    draft.entries.extend(_keyed(entries, holders))
    _block_quotes(draft, document.text, quoted)
    _markers(draft, document, links)
    return draft


_Page = tuple[list[tuple[str, str, bool]], list[tuple[str, str]], list[str]]


def _page(data: bytes) -> _Page:
    """(text, fragment, raised) of each link to an anchor of the page, in order; (id, text)
    of each element with an id; and the text of each ``<blockquote>``."""
    parser = etree.HTMLParser(recover=True, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(data, parser)
    except (etree.XMLSyntaxError, ValueError):
        return [], [], []
    if root is None:
        return [], [], []
    links: list[tuple[str, str, bool]] = []
    holders: list[tuple[str, str]] = []
    quoted: list[str] = []
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
        if el.tag == "blockquote" and len(quoted) < _MAX_ANCHORS:
            quoted.append(" ".join("".join(el.itertext()).split()))
    return links, holders, quoted


def _block_quotes(draft: Draft, text: str, quoted: Sequence[str]) -> None:
    """The Document's paragraphs that stand in a ``<blockquote>`` become block quotes."""
    if not quoted:
        return
    whole = "\n".join(quoted)
    draft.blocks = [
        replace(b, kind="quote")
        if b.kind == "paragraph" and " ".join(text[b.start : b.end].split()) in whole
        else b
        for b in draft.blocks
    ]


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
