"""The ``<ref-list>`` of a JATS article (PMC ``.nxml``, Europe PMC ``fullTextXML``, or a
bare ``<ref-list>``), one reference per ``<ref>``.

Why both the fields and the string: JATS tags a reference's parts (``element-citation``
has nothing else; ``mixed-citation`` has them among its own punctuation), and tagged
fields are what the author's tool knew, so they win.  The printed string is kept as
``text`` (for an element-only citation, written out Vancouver-like by
:func:`citeproof.documents.jats_refs.element_citation`, the same string the article's
Document holds), and what the tags leave out (an untagged mixed citation, a DOI only in
the text) is read from it by :func:`citeproof.refs.listed.parse_reference_string`, except
authors when the citation tags people who are not its authors (an edited book's editors).

Fields: authors are the ``<name>`` / ``<string-name>`` / ``<collab>`` of the author
``person-group`` (or of a group without a type, or loose in the citation), as
``"Surname, Given names"``; editors are not authors.  The title is ``article-title``,
``chapter-title``, ``data-title`` or ``part-title``; a citation without one whose
``publication-type`` is not ``journal`` (a book, a report, software) has its ``source`` as
the title, otherwise ``source`` is the venue.  ``year`` is the first ``<year>``.
``pub-id`` gives the DOI, PMID and PMCID (``pmc`` or ``pmcid``); another ``pub-id`` type
goes to ``extra_ids`` as ``type:value``; ``ext-link`` addresses are URLs as for every
reader.  ``citation-alternatives`` gives its ``mixed-citation`` as the text and its
``element-citation`` as the fields.  The label is the ``<label>`` or the ref's ``id``; the
kind is ``publication-type`` (or NLM ``citation-type``); ``where`` is ``line N`` of the
``<ref>``.

The XML is parsed by :func:`citeproof.documents.safe_xml.parse_xml_safely`, and its
errors (:class:`~citeproof.errors.UnsafeXMLError`, :class:`~citeproof.errors.DocumentError`)
are raised as they are.  Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from lxml import etree

from citeproof.documents.jats_refs import element_citation, has_own_text
from citeproof.documents.safe_xml import entity_chars, local_name, parse_xml_safely
from citeproof.refs.listed import from_fields, parse_reference_string
from citeproof.refs.stated import StatedReference, year_in

__all__ = ["read_jats_references"]

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_CITATIONS = ("mixed-citation", "element-citation", "citation", "nlm-citation")
_TITLES = ("article-title", "chapter-title", "data-title", "part-title")
_PEOPLE = frozenset({"name", "string-name", "collab"})
_FORMATTING = frozenset(
    "italic bold sup sub sc monospace underline overline roman sans-serif strike "
    "styled-content named-content abbrev".split()
)
_PMCID_TYPES = ("pmc", "pmcid")


def read_jats_references(data: bytes) -> list[StatedReference]:
    """Every ``<ref>`` of every ``<ref-list>`` in the XML, in document order."""
    root = parse_xml_safely(data)
    if root is None:
        return []
    refs = [
        el
        for el in root.iter()
        if local_name(el) == "ref" and any(local_name(a) == "ref-list" for a in el.iterancestors())
    ]
    return [_reference(ref) for ref in refs]


def _kid(el: etree._Element, *names: str) -> etree._Element | None:
    return next((c for c in el if local_name(c) in names), None)


def _reference(ref: etree._Element) -> StatedReference:
    printed, tagged = _citations(ref)
    label_el = _kid(ref, "label")
    label = _capture(label_el) if label_el is not None else ref.get("id")
    where = f"line {ref.sourceline}" if ref.sourceline else None
    if tagged is None:
        text = _capture(ref, skip="label")
        return parse_reference_string(text, label=label, where=where, numbered=False)
    text, stated = _printed(printed, tagged)
    authors = list(_authors(tagged))
    if any(local_name(d) in _PEOPLE for d in _descendants(tagged)):
        stated = replace(stated, authors=())  # named people, none of them authors: editors
    kind = tagged.get("publication-type") or tagged.get("citation-type")
    title, venue, year = _tagged(tagged, kind)
    ids, extra, urls = _identifiers(tagged)
    return from_fields(
        title=title or stated.title,
        authors=authors or stated.authors,
        year=year or stated.year,
        venue=venue or stated.venue,
        doi=ids.get("doi") or stated.doi,
        pmid=ids.get("pmid") or stated.pmid,
        pmcid=ids.get("pmcid") or stated.pmcid,
        label=label,
        where=where,
        kind=kind,
        text=text,
        extra_ids=[*extra, *stated.extra_ids],
        urls=urls,
    )


def _printed(printed: etree._Element, tagged: etree._Element) -> tuple[str, StatedReference]:
    """The string the reference prints, and what that string states: nothing, when it is
    written from the tags (it has nothing more to tell than they do)."""
    if printed is tagged and (
        local_name(tagged) in ("element-citation", "nlm-citation") or not has_own_text(tagged)
    ):
        return element_citation(tagged, _capture), StatedReference()
    text = _capture(printed, guard=True)
    return text, parse_reference_string(text, numbered=False)


def _tagged(tagged: etree._Element, kind: str | None) -> tuple[str | None, str | None, int | None]:
    """The title, the venue and the year the tags give; the one name of a work that is no
    journal article (a book, a report) is its title."""
    title_el = next((d for d in _descendants(tagged) if local_name(d) in _TITLES), None)
    source_el = next((d for d in _descendants(tagged) if local_name(d) == "source"), None)
    year_el = next((d for d in _descendants(tagged) if local_name(d) == "year"), None)
    title = _capture(title_el) if title_el is not None else None
    venue = _capture(source_el) if source_el is not None else None
    if title is None and venue and kind not in (None, "journal"):
        title, venue = venue, None
    year = year_in(_capture(year_el)) if year_el is not None else None
    return title, venue, year


def _citations(ref: etree._Element) -> tuple[etree._Element, etree._Element | None]:
    """(the citation whose string is printed, the citation whose tags are read)."""
    for child in ref:
        name = local_name(child)
        if name == "citation-alternatives":
            mixed = _kid(child, "mixed-citation")
            fields = _kid(child, "element-citation", "nlm-citation", "citation")
            printed = mixed if mixed is not None else _kid(child, *_CITATIONS)
            if printed is not None:
                return printed, fields if fields is not None else printed
        elif name in _CITATIONS:
            return child, child
    return ref, None


def _descendants(el: etree._Element) -> Iterator[etree._Element]:
    return (d for d in el.iterdescendants() if isinstance(d.tag, str))


def _authors(citation: etree._Element) -> Iterator[str]:
    groups = [c for c in citation if local_name(c) == "person-group"]
    typed = [g for g in groups if g.get("person-group-type") == "author"]
    chosen = typed or [g for g in groups if g.get("person-group-type") is None]
    for group in [*chosen, citation]:
        for person in group:
            name = local_name(person)
            if name == "etal":
                return
            if name in _PEOPLE and (who := _person(person)):
                yield who


def _person(el: etree._Element) -> str:
    parts = {local_name(c): _capture(c) for c in el if isinstance(c.tag, str)}
    family = " ".join(p for p in (parts.get("prefix"), parts.get("surname")) if p)
    if not family:
        return _capture(el)
    given = parts.get("given-names", "")
    return f"{family}, {given}" if given else family


def _identifiers(citation: etree._Element) -> tuple[dict[str, str], list[str], list[str]]:
    ids: dict[str, str] = {}
    extra: list[str] = []
    urls: list[str] = []
    for el in _descendants(citation):
        name = local_name(el)
        if name == "pub-id" and (value := _capture(el)):
            kind = (el.get("pub-id-type") or "").lower()
            kind = "pmcid" if kind in _PMCID_TYPES else kind
            if kind in ("doi", "pmid", "pmcid"):
                ids.setdefault(kind, value)
            else:
                extra.append(f"{kind or 'id'}:{value}")
        elif name in ("ext-link", "uri") and (href := el.get(_XLINK_HREF) or _capture(el)):
            urls.append(href)
    return ids, extra, urls


def _capture(el: etree._Element, *, guard: bool = False, skip: str = "") -> str:
    """An element's text as printed: entities resolved, whitespace collapsed.  With
    ``guard``, a space goes between two fields that would otherwise touch
    (``<source>Lancet</source><year>2019</year>``), never inside a formatted word nor
    before punctuation.  A child named ``skip`` (the ref's ``<label>``) is left out."""
    parts: list[str] = []
    _walk(el, parts, guard, skip)
    after = ""  # the first character of the text that follows, read from the end
    out: list[str] = []
    for part in reversed(parts):
        if part != _BOUNDARY:
            out.append(part)
            after = part[:1] or after
        elif after.isalnum():
            out.append(_BOUNDARY)
    text = "".join(reversed(out))
    pieces = text.split(_BOUNDARY)
    joined = pieces[0]
    for piece in pieces[1:]:
        joined += " " + piece if joined[-1:].isalnum() else piece
    return " ".join(joined.split())


_BOUNDARY = "\x00"  # marks a field boundary in _walk's parts (XML text never holds NUL)


def _walk(el: etree._Element, parts: list[str], guard: bool, skip: str = "") -> None:
    if el.text:
        parts.append(el.text)
    for child in el:
        if isinstance(child, etree._Entity):
            parts.append(entity_chars(child.name))
        elif isinstance(child.tag, str) and local_name(child) != skip:
            fenced = guard and local_name(child) not in _FORMATTING
            if fenced:
                parts.append(_BOUNDARY)
            _walk(child, parts, guard)
            if fenced:
                parts.append(_BOUNDARY)
        if child.tail:
            parts.append(child.tail)
