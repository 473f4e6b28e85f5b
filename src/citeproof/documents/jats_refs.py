"""How a JATS reference reads as text.

A reference is one block, and a quote may be checked against it (a quoted title, an
author list), so it must read as a person would write it.  ``mixed-citation`` carries its
own punctuation and is walked like any inline text; an element-only citation is a bag of
fields (``<surname>``, ``<year>``, ``<fpage>`` ...) with nothing between them, so this module
writes it out Vancouver-like: "Smith J, Doe A. Title. Source. 2010;12(3):45-67.".  It
needs nothing from the tree walker except ``capture``, the walker's reading of one
element's inline text (entities resolved, citation markers left out), so it is kept
apart from the walker and can be read on its own.
"""

from __future__ import annotations

from collections.abc import Callable

from lxml import etree

from citeproof.documents._text import word_set
from citeproof.documents.safe_xml import local_name

__all__ = ["Capture", "element_citation", "has_own_text", "person_name"]

Capture = Callable[[etree._Element], str]
"""The inline text of an element, as the walker reads it."""

_CITATION_FIELDS = word_set(
    "source year volume issue fpage lpage page-range elocation-id edition "
    "publisher-loc publisher-name"
)
_CITATION_TITLES = word_set("article-title chapter-title data-title part-title")
_CITATION_EXTRAS = word_set(
    "comment ext-link uri conf-name conf-loc conf-date date-in-citation series "
    "institution version isbn issn std patent gov"
)

_PEOPLE = word_set("person-group name string-name collab etal")
_CITATION_PARTS = _CITATION_FIELDS | _CITATION_TITLES | _CITATION_EXTRAS | {"pub-id"}


def has_own_text(el: etree._Element) -> bool:
    """Whether a citation carries its own punctuation (mixed content) or only fields."""
    return bool((el.text or "").strip()) or any((c.tail or "").strip() for c in el)


def person_name(el: etree._Element, capture: Capture, surname_first: bool = False) -> str:
    """A person's name as it is printed: "Boshen Jiao" in a byline, "Jiao B" in a reference."""
    if local_name(el) != "name":
        return capture(el)
    parts: dict[str, str] = {}
    for child in el:
        parts.setdefault(local_name(child), capture(child))
    if surname_first or el.get("name-style") == "eastern":
        order: tuple[str, ...] = ("prefix", "surname", "given-names", "suffix")
    else:
        order = ("prefix", "given-names", "surname", "suffix")
    return " ".join(parts[n] for n in order if parts.get(n))


def element_citation(el: etree._Element, capture: Capture) -> str:
    """An element-only citation as one readable string, so its fields do not run together."""
    people: list[str] = []
    fields: dict[str, str] = {}
    extra: list[str] = []
    for child in el:
        name = local_name(child)
        if name in _PEOPLE:
            people.extend(_people(child, name, capture))
        elif name in _CITATION_PARTS and (text := capture(child)):
            _take_field(child, name, text, fields, extra)
    f = fields.get
    source = " ".join(x for x in (f("source"), f("edition")) if x)
    publisher = ": ".join(x for x in (f("publisher-loc"), f("publisher-name")) if x)
    parts = (", ".join(people), f("title"), source, publisher, _where(fields), *extra)
    return " ".join(_sentences(parts))


def _people(child: etree._Element, name: str, capture: Capture) -> list[str]:
    """The names a person group (or one name, a collaboration, "et al.") prints."""
    out: list[str] = []
    for person in child if name == "person-group" else (child,):
        who = local_name(person)
        if who == "etal":
            out.append("et al.")
        elif who in _PEOPLE:
            out.append(person_name(person, capture, surname_first=True))
    return out


def _take_field(
    child: etree._Element, name: str, text: str, fields: dict[str, str], extra: list[str]
) -> None:
    """File one field's text: the first title and the first of each field are kept; an
    identifier and the extras are printed after the rest, in their order."""
    if name in _CITATION_TITLES:
        fields.setdefault("title", text)
    elif name in _CITATION_FIELDS:
        fields.setdefault(name, text)
    elif name == "pub-id":
        extra.append(f"{child.get('pub-id-type', 'id')}: {text}")
    elif name in _CITATION_EXTRAS:
        extra.append(text)


def _where(fields: dict[str, str]) -> str:
    """Where in its venue the work is, Vancouver-like: "2010;12(3):45-67"."""
    f = fields.get
    pages = f("page-range") or "\u2013".join(p for p in (f("fpage"), f("lpage")) if p)
    where = f("year") or ""
    if volume := (f("volume") or "") + (f"({f('issue')})" if f("issue") else ""):
        where += (";" if where else "") + volume
    if pages := pages or f("elocation-id", ""):
        where += (":" if where else "") + pages
    return where


def _sentences(parts: tuple[str | None, ...]) -> list[str]:
    """The parts that are not empty, each ending as a sentence ends."""
    out: list[str] = []
    for part in parts:
        if part := (part or "").rstrip(" ."):
            out.append(part if part[-1] in "?!" else part + ".")
    return out
