"""Markup in a short field: a record's title or name, a reference copied with its tags.

Why one module below both the sources and the index: a record's title must read the same
whether it came from an API answer (``citeproof.sources``) or from a dump (``citeproof.index``),
and a reference string is compared with those titles (``citeproof.refs``).  Each wrote its own
tag pattern; a difference between them was a difference between the verdicts online and
through the local index.  Pure: no I/O.
"""

from __future__ import annotations

import html
import re
from typing import Any

__all__ = ["plain_text", "typeset_free"]

_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")


def plain_text(value: Any) -> str | None:
    """A record's title or name as a reader sees it: markup (``<i>KRAS</i>``, ``<sub>``),
    entities and line breaks gone, spaces collapsed; an integer as its digits; None for
    anything else, or for no words.

    Every database deposits titles with some markup, and a reference's stated title has
    none, so the comparison must see the words only.  A tag becomes a space, as a reader
    sees a line's break.  The steps are skipped when the text cannot need them: a dump holds
    hundreds of millions of titles, most without a tag, an entity or a run of spaces."""
    if type(value) is not str:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return None
    if "<" in value:
        value = _TAG.sub(" ", value)
    if "&" in value:
        value = html.unescape(value)
    if value.isascii() and "  " not in value and not _CONTROL_SPACE.search(value):
        return value.strip() or None
    return " ".join(value.split()) or None


#: The ASCII whitespace other than the space: one of them means a split is needed.
_CONTROL_SPACE = re.compile(r"[\t\n\r\x0b\x0c\x1c-\x1f]")

#: The inline tags of JATS, HTML and MathML that only say how words are set (italic, small
#: capitals, a subscript, a subtitle's line), never what they say.  Links (``<a>``,
#: ``<ext-link>``) are not among them: their attributes may be the only place a DOI is written.
_TYPESETTING = re.compile(
    r"</?(?:i|b|u|em|strong|sup|sub|sc|small|span|font|tt|br|wbr|italic|bold|roman|inf"
    r"|underline|overline|monospace|sans-serif|strike|subtitle|title|formula|inline-formula"
    r"|mml:[\w.-]+)(?:\s[^<>]{0,200})?/?>",
    re.IGNORECASE,
)
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def typeset_free(text: str) -> str:
    """The words of a reference string without the markup it was copied with.

    Why: a reference copied from a publisher's page, a JATS file or Crossref's own deposit
    keeps its markup ("DISEASE<sup>1</sup><subtitle>Its Bearing …</subtitle>",
    "Ni<sub>3</sub>Ge", "&amp;"), and the records' titles are compared without theirs
    (:func:`plain_text`): a tag becomes a space on both sides, so the words meet again.
    Unlike a record's field, a user's string keeps its links (``<a href>``), whose address
    may hold the only DOI, and decodes only the entities that end in ``;``, so "R&D" stays."""
    if "<" in text:
        text = _TYPESETTING.sub(" ", text)
    if "&" in text:
        text = _ENTITY.sub(lambda m: html.unescape(m.group(0)), text)
    return text
