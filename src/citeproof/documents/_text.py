"""Shared machinery for the text parsers: decoding, XML prolog sniffing, and the block builder.

Every structured parser (JATS, HTML) walks a tree and must produce one string whose offsets
the matcher, the CLI and the evidence log all agree on.  Doing that in one place means the
whitespace rule, the block separator, the marker bookkeeping and the block invariants
(non-empty, ordered, non-overlapping, ``text[b.start:b.end]`` is the block) are written once.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from dataclasses import dataclass
from html.entities import html5

from lxml import etree

from citeproof.documents.model import Block, Region
from citeproof.errors import DocumentError, EncodingError, UnsafeXMLError

__all__ = [
    "ASCII_WS",
    "BLOCK_SEPARATOR",
    "Context",
    "DocBuilder",
    "Prolog",
    "collapse",
    "decode_unicode_text",
    "entity_chars",
    "licence_name",
    "parse_xml_safely",
    "scan_prolog",
    "split_bom",
    "word_set",
]

ASCII_WS = " \t\n\r\f"
"""The whitespace HTML and XML collapse.  NBSP and other Unicode spaces are *not* in it: they
are content, and the matcher's normalisation profile decides what they are worth."""

BLOCK_SEPARATOR = "\n\n"
_WS_RUN = re.compile(r"[ \t\n\r\f]+")

# Gap text allowed between two markers that are merged into one span: "[1], [2]" and "1-3".
_MARKER_GAP = re.compile(r"[ \t\n\r\f,;\u2010-\u2015\-]*")
_BRACKETS = {("[", "]"), ("(", ")")}
# A field boundary after a word or one of these needs a space: "Title.Nature" is two fields,
# while "2001;12:45-67" and "(2001" are punctuated as the publisher meant.
_GAP_AFTER = frozenset(".?!)]\u201d\u2019")

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def word_set(words: str) -> frozenset[str]:
    """Element names written as one space-separated string, which reads better than a list."""
    return frozenset(words.split())


def collapse(text: str) -> str:
    """Collapse ASCII whitespace runs to one space and trim, as a browser renders inline text."""
    return _WS_RUN.sub(" ", text).strip(" ")


def split_bom(data: bytes) -> tuple[str | None, bytes]:
    """Return (codec named by the byte-order mark, bytes after it); (None, data) without one.

    UTF-32 marks are tested before UTF-16 because ``FF FE 00 00`` starts with ``FF FE``.
    """
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return codec, data[len(bom) :]
    return None, data


def decode_unicode_text(data: bytes, *, what: str = "text") -> str:
    """Decode UTF-8 (BOM optional) or UTF-16/32 with a BOM; refuse anything else.

    Guessing a legacy code page would silently change characters, and a quote check against
    mis-decoded text is worse than no check, so invalid bytes are an error with their offset.
    """
    codec, payload = split_bom(data)
    bom_len = len(data) - len(payload)
    try:
        return payload.decode(codec or "utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + bom_len
        raise EncodingError(
            f"The {what} is not valid {(codec or 'utf-8').upper()}: the byte at offset {offset} "
            f"(0x{data[offset]:02x}) cannot be decoded; convert the file to UTF-8 "
            "(for example with `iconv -f latin1 -t utf-8`) and try again."
        ) from None


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


# --- licences ----------------------------------------------------------------------------

_CC_URL = re.compile(r"creativecommons\.org/(licenses|publicdomain)/([a-z-]+)/(\d(?:\.\d)?)", re.I)
_CC_TEXT = re.compile(
    r"Creative Commons (Attribution(?:[- ](?:Non-?Commercial|No-?Derivs|No-?Derivatives|"
    r"Share-?Alike))*)(?: International)?(?: Licen[cs]e)?,?(?: \(?(?:version )?(\d\.\d))?",
    re.IGNORECASE,
)
_CC_PARTS = {"attribution": "BY", "noncommercial": "NC", "sharealike": "SA", "noderivs": "ND"}


def licence_name(urls: list[str], text: str = "") -> str | None:
    """A short licence name ("CC BY 4.0") when the URLs or text tell it, else a URL or text.

    Articles state licences as Creative Commons URLs, as prose, or both; a short name is what
    a reader (and a reuse decision) needs, the URL or sentence is the honest fallback.
    """
    for url in urls:
        if m := _CC_URL.search(url):
            family, kind, version = m.group(1).lower(), m.group(2).lower(), m.group(3)
            if family == "licenses":
                return f"CC {kind.upper()} {version}"
            return f"CC0 {version}" if kind == "zero" else f"Public Domain Mark {version}"
    text = collapse(text)
    if m2 := _CC_TEXT.search(text):
        words = m2.group(1).lower()
        for joined in ("non-commercial", "no-derivs", "no-derivatives", "share-alike"):
            words = words.replace(joined, joined.replace("-", ""))
        words = words.replace("noderivatives", "noderivs")
        short = "CC " + "-".join(_CC_PARTS.get(w, w.upper()) for w in re.split("[- ]+", words))
        return f"{short} {m2.group(2)}" if m2.group(2) else short
    return next((u.strip() for u in urls if u.strip()), None) or text or None


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


# --- building blocks -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Context:
    """Where the text being collected belongs.

    ``single`` marks a container that is one block however many paragraphs it holds (a
    caption, a table cell, a list item, a footnote, a reference): inside it, paragraph
    boundaries become line breaks instead of new blocks.
    """

    kind: str
    region: Region
    section: tuple[str, ...] = ()
    single: bool = False
    guard: bool = False
    """Insert a space at child-element boundaries where two words would otherwise touch
    (citation fields such as ``<surname>Smith</surname><given-names>J</given-names>``)."""


class DocBuilder:
    """Collects inline text into blocks and joins the blocks into one document text.

    Inline text is whitespace-collapsed as it arrives (the pending-space trick keeps blocks
    trimmed without a second pass, so marker offsets never need rewriting); preformatted
    text is kept verbatim.  Blocks are joined with a blank line so paragraph breaks survive
    in ``citeproof text`` output and no quote can run across two blocks by accident.
    """

    def __init__(self, ctx: Context, resolve: Callable[[Context], Context] | None = None) -> None:
        self.ctx = ctx
        self._resolve = resolve
        self._parts: list[str] = []
        self._pos = 0
        self.blocks: list[Block] = []
        self.markers: list[tuple[int, int]] = []
        self.preserve = False
        self._reset()

    def _reset(self) -> None:
        self._buf: list[str] = []
        self._len = 0
        self._pending = ""
        self._sticky = False
        self._guard = False
        self._last = ""
        self._marks: list[tuple[int, int]] = []
        self._open: list[int] = []
        """Start offsets of open markers; -1 until the marker's first character arrives."""

    # inline text ------------------------------------------------------------------------

    def add(self, text: str | None) -> None:
        if not text:
            return
        if self.preserve:
            self._emit(text)
            return
        core = _WS_RUN.sub(" ", text)
        if core[0] == " ":
            self.space()
        core = core.strip(" ")
        if core:
            self._emit(core)
            if text[-1] in ASCII_WS:
                self.space()

    def space(self) -> None:
        if self._len and not self._pending:
            self._pending = " "

    def soft_break(self, sep: str = "\n", *, sticky: bool = False) -> None:
        """A boundary inside one block: a line break, or a sticky space after a label."""
        if not self._len:
            return
        if sticky:
            self._pending, self._sticky = " ", True
        elif not self._sticky and (sep == "\n" or not self._pending):
            self._pending = sep

    def guard(self) -> None:
        self._guard = True

    def recent(self, n: int) -> str:
        """The last ``n`` characters of the block being collected; a pending space is " "."""
        if self._pending:
            return " "
        out = ""
        for part in reversed(self._buf):
            out = part + out
            if len(out) >= n:
                break
        return out[-n:]

    def _emit(self, s: str) -> None:
        if self._pending:
            self._buf.append(self._pending)
            self._len += 1
        elif self._guard and s[0].isalnum() and (self._last.isalnum() or self._last in _GAP_AFTER):
            self._buf.append(" ")
            self._len += 1
        self._pending, self._sticky, self._guard = "", False, False
        if self._open and -1 in self._open:
            self._open = [self._len if o < 0 else o for o in self._open]
        self._buf.append(s)
        self._len += len(s)
        self._last = s[-1]

    def open_marker(self) -> None:
        self._open.append(-1)

    def close_marker(self) -> None:
        if self._open:
            start = self._open.pop()
            if 0 <= start < self._len:
                self._marks.append((start, self._len))

    # blocks -----------------------------------------------------------------------------

    def begin(self, ctx: Context) -> Context:
        """End the current block and start collecting for ``ctx``; returns the old context."""
        self.flush()
        old, self.ctx = self.ctx, ctx
        return old

    def flush(self) -> None:
        if not self._len:
            self._reset()
            return
        raw = "".join(self._buf)
        text = raw.strip(ASCII_WS)
        if not text or text.isspace():
            self._reset()
            return
        lead = len(raw) - len(raw.lstrip(ASCII_WS))
        if self._parts:
            self._parts.append(BLOCK_SEPARATOR)
            self._pos += len(BLOCK_SEPARATOR)
        start = self._pos
        self._parts.append(text)
        self._pos += len(text)
        ctx = self._resolve(self.ctx) if self._resolve else self.ctx
        self.blocks.append(Block(start, self._pos, ctx.kind, ctx.section, ctx.region))
        if self._marks:
            spans = [(max(a - lead, 0), min(b - lead, len(text))) for a, b in self._marks]
            for a, b in merge_markers(text, [s for s in spans if s[0] < s[1]]):
                self.markers.append((start + a, start + b))
        self._reset()

    def text(self) -> str:
        self.flush()
        return "".join(self._parts)

    def block_texts(self) -> list[str]:
        """The texts of the blocks collected so far (used when capturing a title)."""
        full = self.text()
        return [full[b.start : b.end] for b in self.blocks]


def merge_markers(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join markers separated only by commas, dashes or spaces, then take in the brackets
    that enclose them, so ``[<xref>1</xref>, <xref>2</xref>]`` is one span ``[1, 2]``."""
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and (a <= merged[-1][1] or _MARKER_GAP.fullmatch(text, merged[-1][1], a)):
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    out: list[tuple[int, int]] = []
    for a, b in merged:
        while a > 0 and b < len(text) and (text[a - 1], text[b]) in _BRACKETS:
            a, b = a - 1, b + 1
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out
