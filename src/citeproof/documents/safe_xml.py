"""XML from untrusted bytes: the prolog read by hand, then a parser that cannot be abused.

Articles arrive from publishers, mirrors and users, so the XML is treated as hostile: an
entity declaration can read local files or expand to gigabytes, and a DTD or schema
reference makes the parser go to the network.  The prolog is scanned at byte level *before*
lxml sees the document, so declarations are refused without ever being stored, and the same
scan tells format detection what the root element is without a full parse.

lxml and the HTML5 entity table are imported when a document is first parsed, not with this
module: format detection imports it for :func:`scan_prolog` on every file, and a plain text
file must not pay for an XML library it never uses (``bench/bench_startup.py``).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citeproof.documents._decode import decode_unicode_text, split_bom
from citeproof.errors import DocumentError, UnsafeXMLError

if TYPE_CHECKING:
    from lxml import etree

__all__ = ["Prolog", "entity_chars", "local_name", "parse_xml_safely", "scan_prolog"]


# --- XML prolog ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prolog:
    """What precedes the root element of an XML (or HTML) document."""

    has_xml_decl: bool
    doctype_name: str | None
    internal_subset: bytes | None
    root: str | None
    """Local name of the first element (prefix dropped); None if there is none."""
    end: int
    """Where the scan stopped: the root's ``<``, or the first byte that is not prolog."""


_NAME = re.compile(rb"[A-Za-z_:][-A-Za-z0-9_.:]*")
_XML_DECL = re.compile(rb"<\?xml[ \t\r\n?]")


def scan_prolog(data: bytes, limit: int | None = None) -> Prolog:
    """Read the prolog of ASCII-compatible XML bytes without parsing the document.

    This runs *before* lxml sees hostile input, so entity declarations are refused without
    the parser ever storing them, and format detection can learn the root element cheaply.
    Quoted strings and comments in the DOCTYPE are skipped so a ``]`` or ``>`` inside them
    cannot end the internal subset early.
    """
    end = len(data) if limit is None else min(len(data), limit)
    pos = 3 if data.startswith(codecs.BOM_UTF8) else 0
    has_decl = False
    doctype: str | None = None
    subset: bytes | None = None
    while True:
        while pos < end and data[pos] in b" \t\r\n":
            pos += 1
        if data.startswith(b"<?", pos):
            has_decl = has_decl or _XML_DECL.match(data, pos) is not None
            close = data.find(b"?>", pos + 2, end)
            if close < 0:
                return Prolog(has_decl, doctype, subset, None, pos)
            pos = close + 2
        elif data.startswith(b"<!--", pos):
            close = data.find(b"-->", pos + 4, end)
            if close < 0:
                return Prolog(has_decl, doctype, subset, None, pos)
            pos = close + 3
        elif data[pos : pos + 9].upper() == b"<!DOCTYPE":
            m = _NAME.match(data, _skip_ws(data, pos + 9, end))
            doctype = m.group().decode("ascii") if m else ""
            pos, subset = _scan_doctype(data, m.end() if m else pos + 9, end)
        elif data.startswith(b"<", pos):
            m = _NAME.match(data, pos + 1)
            root = m.group().decode("ascii").rpartition(":")[2] if m else None
            return Prolog(has_decl, doctype, subset, root, pos)
        else:
            return Prolog(has_decl, doctype, subset, None, pos)


def _skip_ws(data: bytes, pos: int, end: int) -> int:
    while pos < end and data[pos] in b" \t\r\n":
        pos += 1
    return pos


def _scan_doctype(data: bytes, pos: int, end: int) -> tuple[int, bytes | None]:
    """Return (position after the DOCTYPE, its internal subset or None)."""
    subset: bytes | None = None
    quote = 0
    while pos < end:
        c = data[pos]
        if quote:
            if c == quote:
                quote = 0
        elif c in b"\"'":
            quote = c
        elif c == ord("["):
            start = pos + 1
            pos = _scan_subset(data, start, end)
            subset = data[start:pos]
        elif c == ord(">"):
            return pos + 1, subset
        pos += 1
    return end, subset


def _scan_subset(data: bytes, pos: int, end: int) -> int:
    """Position of the ``]`` closing an internal subset (or ``end``)."""
    quote = 0
    while pos < end:
        c = data[pos]
        if quote:
            if c == quote:
                quote = 0
        elif data.startswith(b"<!--", pos):
            close = data.find(b"-->", pos + 4, end)
            pos = end if close < 0 else close + 2
        elif c in b"\"'":
            quote = c
        elif c == ord("]"):
            return pos
        pos += 1
    return end


# --- hardened XML parsing -------------------------------------------------------------------

_PREDEFINED = frozenset({b"amp", b"lt", b"gt", b"quot", b"apos"})
_ENTITY_REF = re.compile(rb"&([A-Za-z][A-Za-z0-9]*);")
_ENTITY_DECL = re.compile(rb"<!ENTITY", re.IGNORECASE)
_ENCODING_DECL = re.compile(rb"^(<\?xml[^>]*?)\s+encoding\s*=\s*(['\"])[^'\"]*\2")


def parse_xml_safely(data: bytes) -> etree._Element | None:
    """Parse XML without DTDs, network or entity expansion; None for empty input.

    Entity declarations are refused from the raw prolog before lxml stores them, and again
    from the parsed DTD in case the byte scan was fooled.  Named references that only a DTD
    would define (``&nbsp;``) are mapped through the HTML5 table, which includes the ISO and
    MathML sets that JATS uses; an unknown name is an error rather than a silent gap.
    """
    data = _ascii_compatible(data)
    if not data.strip():
        return None
    prolog = scan_prolog(data)
    if prolog.internal_subset is not None and _ENTITY_DECL.search(prolog.internal_subset):
        raise _unsafe()
    if prolog.root is None and not data[prolog.end :].strip():
        return None  # a declaration, comments or a DOCTYPE, and no element: an empty document
    root = _parse(data)
    dtd = root.getroottree().docinfo.internalDTD
    if dtd is not None and next(iter(dtd.iterentities()), None) is not None:
        raise _unsafe()
    return root


def entity_chars(name: str) -> str:
    """The characters a named entity reference stands for (HTML5 names)."""
    from html.entities import html5  # a table of 2,000 names, for XML that uses them

    chars = html5.get(name + ";")
    if chars is None:
        raise DocumentError(
            f"The XML uses the entity &{name}; which is not defined (citeproof does not load "
            "DTDs); replace it with the character it stands for and try again."
        )
    return chars


def _unsafe() -> UnsafeXMLError:
    return UnsafeXMLError(
        "The XML declares entities in its DOCTYPE, and citeproof does not expand entities "
        "(they can read local files or exhaust memory); remove the internal DTD subset and "
        "use the characters themselves."
    )


def _ascii_compatible(data: bytes) -> bytes:
    """UTF-16/32 input re-encoded as UTF-8, so the byte-level prolog checks see ASCII."""
    if split_bom(data)[0] in (None, "utf-8"):
        return data
    text = decode_unicode_text(data, what="XML")
    return _ENCODING_DECL.sub(rb"\1", text.encode("utf-8"), count=1)


def _parser() -> etree.XMLParser:
    from lxml import etree

    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def _parse(data: bytes) -> etree._Element:
    from lxml import etree

    try:
        return etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        error = exc
    if error.code == etree.ErrorTypes.ERR_UNDECLARED_ENTITY:
        try:
            return etree.fromstring(_replace_entities(data), _parser())
        except etree.XMLSyntaxError as again:
            error = again
    raise DocumentError(
        f"The XML is not well-formed: {error.msg} (line {error.lineno}); fix or download the "
        "file again, or supply the article in another format."
    )


def _replace_entities(data: bytes) -> bytes:
    """Named references to numeric ones, for XML with no DOCTYPE that still uses them."""

    def sub(m: re.Match[bytes]) -> bytes:
        if m.group(1) in _PREDEFINED:
            return m.group()
        chars = entity_chars(m.group(1).decode("ascii"))
        return "".join(f"&#x{ord(c):x};" for c in chars).encode("ascii")

    return _ENTITY_REF.sub(sub, data)


# --- reading the parsed tree ----------------------------------------------------------------


def local_name(el: etree._Element) -> str:
    """An element's tag without its namespace; "" for what is not an element (an entity)."""
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag if tag[0] != "{" else tag.rpartition("}")[2]
