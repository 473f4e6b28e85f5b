"""The answer's Markdown laid out as blocks whose text still knows where it is in the answer.

The audit places every sentence and every citation by its character span in the answer *as
written*, Markdown markers included.  A Markdown renderer turns that text into HTML and
forgets the offsets, so the page cannot simply render the answer and then look for the
sentences in the output.  This module keeps both:

* **Blocks come from markdown-it** (CommonMark, raw HTML off): headings, paragraphs, lists,
  block quotes, code and rules, each with the lines it covers.  A paragraph's or heading's
  text is the block's lines without their block markers (``> ``, ``1. ``, ``## ``,
  indentation); every character of that text is mapped back to its offset in the answer.
* **Inline Markdown is rendered piece by piece.**  A block's text is cut where a sentence
  begins or ends and around each citation as written; each piece between cuts is parsed on
  its own as inline Markdown (emphasis, code, links, line breaks).  So a sentence is always
  one run of elements, whatever Markdown it holds.  The price: emphasis or a link that
  crosses a sentence boundary or a citation shows its markers as typed, which is what the
  answer says anyway.
* **A citation is shown exactly as written** (a ``cite`` piece, never parsed as Markdown):
  the page must show what was cited, and DOIs and handles are full of ``_``, ``*`` and
  ``[...]`` that Markdown would eat.
* **Nothing here is HTML.**  The result is data (:class:`Block`, :class:`Run`,
  :class:`Inline`) with kinds from fixed lists, which the template turns into elements it
  chooses, escaping every text; a Markdown link becomes its text and its address as text,
  never a link (the page's rule: only the identifiers it builds itself are links), and
  images, raw HTML and reference definitions are off, so nothing can load and no text
  disappears into a definition.
* **When the layout cannot account for a citation** (a line markdown-it rewrote, such as a tab
  inside a list's indentation), the whole answer is shown as it was written, as plain text
  with the same sentence spans: a page that shows every citation beats a prettier one.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["Block", "Inline", "Run", "layout"]

BlockKind = Literal[
    "p", "h1", "h2", "h3", "h4", "h5", "h6", "code", "raw", "hr", "ul", "ol", "li", "quote"
]
InlineKind = Literal["text", "cite", "code", "br", "em", "strong", "link"]

_MD = MarkdownIt("commonmark", {"html": False}).disable(
    ["image", "reference", "html_block", "html_inline"]
)

_HEADINGS: dict[str, BlockKind] = {
    "h1": "h1",
    "h2": "h2",
    "h3": "h3",
    "h4": "h4",
    "h5": "h5",
    "h6": "h6",
}
_CONTAINERS: dict[str, BlockKind] = {
    "blockquote_open": "quote",
    "bullet_list_open": "ul",
    "ordered_list_open": "ol",
    "list_item_open": "li",
}
#: What may stand before a paragraph line's text: indentation and block markers.
_PREFIX = frozenset(" \t>*+-#0123456789.)")
# The same controls as ``view.shown``: kept visible through Markdown as ``[U+XXXX]``.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)


_ESCAPED = re.compile(r"\\\[(U\+[0-9A-F]{4})\\\]")


def _visible(text: str) -> str:
    return _INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


@dataclass(slots=True)
class Inline:
    """A piece of inline Markdown: text, a citation as written, or an element around pieces."""

    kind: InlineKind
    text: str = ""
    children: list[Inline] = field(default_factory=list)
    #: A link's address, shown as text after the link's own text.
    url: str = ""


@dataclass(slots=True)
class Run:
    """A stretch of one block's text: part of sentence ``sentence``, or text between them."""

    inlines: list[Inline]
    sentence: int | None = None
    #: The sentence's first run (it carries the sentence's id) and its last (its tag and
    #: its citations' details follow it).  A sentence across two blocks has two runs.
    first: bool = False
    last: bool = False


@dataclass(slots=True)
class Block:
    """A Markdown block: a leaf with runs of text, or a container of blocks."""

    kind: BlockKind
    runs: list[Run] = field(default_factory=list)
    children: list[Block] = field(default_factory=list)
    #: An ordered list's first number, when not 1.
    start: int | None = None
    #: A paragraph of a tight list (shown without a paragraph's margins).
    tight: bool = False
    #: Whether a sentence with a problem is in it (the page's "problems only" filter).
    problem: bool = False
    #: For a leaf: the answer offsets of its text, one per character; ``markdown`` says
    #: whether that text is inline Markdown or shown as written.
    positions: list[int] = field(default_factory=list)
    markdown: bool = False


def _normalise(answer: str) -> tuple[str, list[int]]:
    """``answer`` with CR LF and CR as LF (as Markdown reads it), and where each of the
    answer's offsets (and its end) lands in that text."""
    out: list[str] = []
    at: list[int] = []
    i = 0
    while i < len(answer):
        ch = answer[i]
        at.append(len(out))
        if ch == "\r":
            if i + 1 < len(answer) and answer[i + 1] == "\n":
                i += 1
                at.append(len(out))
            ch = "\n"
        out.append(ch)
        i += 1
    at.append(len(out))
    return "".join(out), at


def _line_starts(text: str) -> list[int]:
    return [0, *(i + 1 for i, ch in enumerate(text) if ch == "\n")]


def _line(text: str, starts: Sequence[int], n: int) -> tuple[int, int]:
    """Start and end (before its line break) of line ``n``."""
    end = starts[n + 1] - 1 if n + 1 < len(starts) else len(text)
    return starts[n], end


def _find(raw: str, text: str) -> int | None:
    """Where ``text`` starts in the line ``raw``, after block markers only."""
    for p in range(len(raw) - len(text) + 1):
        if raw.startswith(text, p):
            return p
        if raw[p] not in _PREFIX:
            return None
    return None


def _inline_positions(
    src: str, starts: Sequence[int], first_line: int, content: str
) -> list[int] | None:
    """The offset of each character of a paragraph's or heading's ``content`` in ``src``."""
    out: list[int] = []
    lines = content.split("\n")
    for k, text in enumerate(lines):
        n = first_line + k
        if n >= len(starts):
            return None
        lo, hi = _line(src, starts, n)
        p = _find(src[lo:hi], text)
        if p is None:
            return None
        out.extend(range(lo + p, lo + p + len(text)))
        if k < len(lines) - 1:
            out.append(hi)  # the line break between two lines of the block
    return out


def _line_positions(src: str, starts: Sequence[int], lines: Sequence[int]) -> list[int]:
    lo = _line(src, starts, lines[0])[0]
    hi = _line(src, starts, max(lines[0], lines[1] - 1))[1]
    return list(range(lo, hi))


def _blocks(src: str) -> list[Block] | None:
    """The block tree of ``src`` with each leaf's character positions; None when a leaf's
    text cannot be found in its lines."""
    starts = _line_starts(src)
    matched = src.replace("\x00", "\ufffd")  # as markdown-it reads NUL
    tokens = _MD.parse(matched)
    top: list[Block] = []
    stack: list[Block] = []

    def add(block: Block) -> None:
        (stack[-1].children if stack else top).append(block)

    i = 0
    while i < len(tokens):
        tok: Token = tokens[i]
        if tok.type in _CONTAINERS:
            block = Block(_CONTAINERS[tok.type])
            if tok.type == "ordered_list_open":
                start = tok.attrGet("start")
                ok = isinstance(start, int) and not isinstance(start, bool)
                block.start = start if ok and isinstance(start, int) else None
            add(block)
            stack.append(block)
        elif tok.type.endswith("_close") and tok.type[:-6] + "_open" in _CONTAINERS:
            if stack:
                stack.pop()
        elif tok.type in ("paragraph_open", "heading_open"):
            inline = tokens[i + 1] if i + 1 < len(tokens) else None
            if inline is None or inline.type != "inline" or inline.map is None:
                return None
            positions = _inline_positions(matched, starts, inline.map[0], inline.content)
            if positions is None:
                return None
            kind = _HEADINGS.get(tok.tag, "p") if tok.type == "heading_open" else "p"
            add(Block(kind, positions=positions, markdown=True, tight=tok.hidden))
            i += 2  # the inline token and the closing one
        elif tok.type == "hr":
            add(Block("hr"))
        elif tok.map is not None and tok.nesting == 0:  # fences, indented code
            add(Block("code", positions=_line_positions(src, starts, tok.map)))
        i += 1
    return top


def _leaves(blocks: Sequence[Block]) -> list[Block]:
    out: list[Block] = []
    for block in blocks:
        if block.children:
            out.extend(_leaves(block.children))
        elif block.positions:
            out.append(block)
    return out


def _inline(text: str) -> list[Inline]:
    """``text`` as inline Markdown; every text piece with invisible controls made visible."""
    escaped = _INVISIBLE.sub(lambda m: f"\\[U+{ord(m.group()):04X}\\]", text)
    tokens = _MD.parseInline(escaped)[0].children or []
    root: list[Inline] = []
    stack: list[list[Inline]] = [root]
    for tok in tokens:
        here = stack[-1]
        if tok.type == "text":
            if tok.content:
                here.append(Inline("text", _visible(tok.content)))
        elif tok.type == "softbreak":
            here.append(Inline("text", "\n"))
        elif tok.type == "hardbreak":
            here.append(Inline("br"))
        elif tok.type == "code_inline":  # backslashes are literal in code: undo the escape
            here.append(Inline("code", _visible(_ESCAPED.sub(r"[\1]", tok.content))))
        elif tok.type in ("em_open", "strong_open", "link_open"):
            kind: InlineKind = (
                "em" if tok.type == "em_open" else "strong" if tok.type == "strong_open" else "link"
            )
            node = Inline(kind)
            if kind == "link":
                href = tok.attrGet("href")
                node.url = _visible(href) if isinstance(href, str) else ""
            here.append(node)
            stack.append(node.children)
        elif tok.type in ("em_close", "strong_close", "link_close"):
            if len(stack) > 1:
                stack.pop()
        elif tok.content:
            here.append(Inline("text", _visible(tok.content)))
    return root


def _fill(
    leaves: Sequence[Block],
    src: str,
    sentences: Sequence[tuple[int, int]],
    literals: Sequence[tuple[int, int]],
) -> tuple[list[int], list[int]]:
    """Cut each leaf's text into runs; return, per sentence, how many runs it got and, per
    citation, how many of its characters were placed."""
    runs_of = [0] * len(sentences)
    placed = [0] * len(literals)
    si = li = 0
    for leaf in leaves:
        # (sentence or None, the citation's index or None, positions), in reading order.
        groups: list[tuple[int | None, int | None, list[int]]] = []
        for pos in leaf.positions:
            while si < len(sentences) and sentences[si][1] <= pos:
                si += 1
            while li < len(literals) and literals[li][1] <= pos:
                li += 1
            sentence = si if si < len(sentences) and sentences[si][0] <= pos else None
            cite = li if li < len(literals) and literals[li][0] <= pos else None
            if cite is not None:
                placed[cite] += 1
            if groups and groups[-1][:2] == (sentence, cite):
                groups[-1][2].append(pos)
            else:
                groups.append((sentence, cite, [pos]))
        for sentence, cite, positions in groups:
            text = "".join(src[p] for p in positions)
            if cite is not None:
                pieces = [Inline("cite", _visible(text))]
            elif leaf.markdown:
                pieces = _inline(text)
            else:
                pieces = [Inline("text", _visible(text))]
            if leaf.runs and leaf.runs[-1].sentence == sentence:
                leaf.runs[-1].inlines.extend(pieces)
            else:
                leaf.runs.append(Run(pieces, sentence))
                if sentence is not None:
                    runs_of[sentence] += 1
    return runs_of, placed


def _mark(blocks: Sequence[Block], problem: Sequence[bool]) -> bool:
    """Set each run's first/last and each block's ``problem``; whether any block has one."""
    seen: set[int] = set()
    last: dict[int, Run] = {}
    for leaf in _leaves(blocks):
        for run in leaf.runs:
            if run.sentence is None:
                continue
            run.first = run.sentence not in seen
            seen.add(run.sentence)
            last[run.sentence] = run
    for run in last.values():
        run.last = True

    def walk(block: Block) -> bool:
        mine = any(
            r.sentence is not None and r.sentence < len(problem) and problem[r.sentence]
            for r in block.runs
        )
        kids = [walk(c) for c in block.children]
        block.problem = mine or any(kids)
        return block.problem

    return any([walk(b) for b in blocks])


def layout(
    answer: str,
    sentences: Sequence[tuple[int, int]],
    citations: Sequence[tuple[int, int]],
    problem: Sequence[bool] = (),
    *,
    markdown: bool = True,
    needed: Sequence[int] = (),
) -> tuple[list[Block], bool]:
    """``answer`` as blocks, each sentence (answer offsets, in order, not overlapping) one
    run of pieces per block it touches, each citation (``citations``: the spans of their text
    as written, in order) one ``cite`` piece.

    ``needed`` are the sentences that must be shown (those with citations): when one of them,
    or any citation's text, cannot be placed, the Markdown layout is given up and the answer
    shown as written.  Returns the blocks and whether they are the Markdown layout.
    """
    src, at = _normalise(answer)
    sents = [(at[s], at[e]) for s, e in sentences]
    cites = sorted({(at[s], at[e]) for s, e in citations})  # one citation text, one piece
    if markdown:
        blocks = _blocks(src)
        if blocks is not None:
            runs_of, placed = _fill(_leaves(blocks), src, sents, cites)
            if all(n == e - s for n, (s, e) in zip(placed, cites, strict=True)) and all(
                runs_of[i] for i in needed if 0 <= i < len(runs_of)
            ):
                _mark(blocks, problem)
                return blocks, True
    plain = Block("raw", positions=list(range(len(src))))
    _fill([plain], src, sents, cites)
    _mark([plain], problem)
    return [plain], False
