"""Shared machinery for the tree parsers: the block builder and the text helpers around it.

Every structured parser (JATS, HTML) walks a tree and must produce one string whose offsets
the matcher, the CLI and the evidence log all agree on.  Doing that in one place means the
whitespace rule, the block separator, the marker bookkeeping and the block invariants
(non-empty, ordered, non-overlapping, ``text[b.start:b.end]`` is the block) are written once.
Getting from bytes to a tree is a separate concern: ``_decode`` and ``safe_xml``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from citeproof.documents.model import Block, Region

__all__ = [
    "ASCII_WS",
    "BLOCK_SEPARATOR",
    "Context",
    "DocBuilder",
    "collapse",
    "licence_name",
    "merge_markers",
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


def word_set(words: str) -> frozenset[str]:
    """Element names written as one space-separated string, which reads better than a list."""
    return frozenset(words.split())


def collapse(text: str) -> str:
    """Collapse ASCII whitespace runs to one space and trim, as a browser renders inline text."""
    return _WS_RUN.sub(" ", text).strip(" ")


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
    row: int | None = None
    """The table row the text is in (see ``Block.row``)."""


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
        self.blocks.append(Block(start, self._pos, ctx.kind, ctx.section, ctx.region, row=ctx.row))
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
