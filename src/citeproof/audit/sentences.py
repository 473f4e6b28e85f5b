"""Markdown blocks and sentence boundaries, with offsets into the original answer.

Why not a Markdown library: the audit needs every span in the answer *as written* (Windows
newlines, markers, odd indentation), and only a handful of block types matter for deciding what
is a claim.  Why pysbd for sentences: abbreviations (``e.g.``, ``Dr.``, ``et al.``), decimals
and initials defeat a regex splitter, and a wrong split detaches a citation from its claim.

Rules (documented for the audit; tests pin each one):

* Blocks are found line by line.  A fenced code block (``````` or ``~~~``) runs to its closing
  fence or the end of the text.  ATX headings (``# ...``) and a *single* short line underlined
  with ``===``/``---`` are headings.  ``---``/``***``/``___`` alone is a separator.  Consecutive
  ``>`` lines form one blockquote.  A line starting ``- ``, ``* ``, ``+ ``, ``• ``, ``1. `` or
  ``1) `` starts a list item (the marker is not part of any sentence); following non-blank lines
  that start no other block continue it.  Lines starting with ``|`` and holding two or more
  pipes are table rows; the row above a ``|---|`` rule is the header.  Indented code blocks are
  not recognised (they are indistinguishable from list continuations in AI answers).
* A paragraph or list item starting with a bold span (``**...**`` or ``__...__``) of at most six
  words, with no ``[``, followed by optional ``:``/``.``/dash and then whitespace or the end, is
  a lead-in.  A sentence of at most six words ending in ``:`` and with no citation is a lead-in
  too (a label introducing a list).
* Paragraphs and list items are split by pysbd (line breaks count as spaces: a soft wrap is not
  a sentence end).  A boundary inside a citation, a quotation, a code span or a link is
  ignored; citations (and the punctuation after them) at the start of a sentence belong to the
  sentence before (``... works. [1] Next ...``).  Headings, blockquotes, table rows and code
  blocks are one segment each.
* If pysbd fails or its output cannot be aligned with the text, a simple punctuation splitter is
  used instead; very long blocks are cut into windows first, because pysbd's cost grows faster
  than linearly.

Speed: pysbd is most of the cost of reading an answer (about a millisecond per short
paragraph), so its cuts are remembered per window text, process-wide and bounded
(:data:`CUTS_KEEP_CHARS`).  The cuts are a pure function of the window's text, so a repeated
paragraph (an answer audited again after an edit, the same boilerplate across answers) gets
exactly the cuts it would have got.  A fresh ``pysbd.Segmenter`` is made per window: making one
costs microseconds, and one shared by the MCP server's worker threads would mix their texts
(``segment`` keeps the text being split on the object).
"""

from __future__ import annotations

import bisect
import itertools
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

import pysbd  # type: ignore[import-untyped]

from citeproof.refs.listed import split_lines

__all__ = [
    "CUTS_KEEP_CHARS",
    "Block",
    "BlockKind",
    "lead_in_end",
    "scan_blocks",
    "split_lines",
    "split_sentences",
]

BlockKind = Literal[
    "paragraph",
    "list_item",
    "heading",
    "blockquote",
    "code",
    "separator",
    "table_header",
    "table_row",
    "table_rule",
]


@dataclass(frozen=True, slots=True)
class Block:
    """A block's content span (markers and surrounding whitespace excluded) and its lines'
    content spans (for blockquotes: each line without its ``>`` markers)."""

    kind: BlockKind
    start: int
    end: int
    lines: tuple[tuple[int, int], ...]


_FENCE_RE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})")
_ATX_RE = re.compile(r"[ \t]{0,3}(#{1,6})(?:[ \t]+|$)")
_BREAK_RE = re.compile(r"[ \t]{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_SETEXT_RE = re.compile(r"[ \t]{0,3}(?:=+|-+)[ \t]*$")
_QUOTE_MARK_RE = re.compile(r"[ \t]{0,3}(?:>[ \t]?)+")
_LIST_RE = re.compile(r"[ \t]*(?:[-*+•]|\d{1,9}[.)])[ \t]+(?=\S)")
_TABLE_RULE_RE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_SPACE_CHARS = " \t\f\v\u00a0\u2028\u2029\x85"


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    """Shrink (start, end) past whitespace on both sides; empty spans collapse to (end, end)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _is_table_line(line: str) -> bool:
    return line.lstrip().startswith("|") and line.count("|") >= 2


def scan_blocks(text: str, start: int = 0, end: int | None = None) -> list[Block]:
    """The Markdown blocks of ``text[start:end]`` in order (see the module rules)."""
    lines = split_lines(text, start, end)
    blocks: list[Block] = []
    current: list[tuple[int, int]] = []
    current_kind: BlockKind = "paragraph"

    def flush() -> None:
        spans = [span for span in current if span[0] < span[1]]
        if spans:
            blocks.append(Block(current_kind, spans[0][0], spans[-1][1], tuple(spans)))
        current.clear()

    i = 0
    while i < len(lines):
        s, e = lines[i]
        line = text[s:e]
        fence = _FENCE_RE.match(line)
        if fence is not None:
            flush()
            marker = fence.group(1)
            j = i + 1
            while j < len(lines):
                closing = text[lines[j][0] : lines[j][1]].strip()
                if closing.startswith(marker[0] * len(marker)) and not closing.strip(marker[0]):
                    break
                j += 1
            last = min(j, len(lines) - 1)
            cs, ce = _strip(text, s, lines[last][1])
            blocks.append(Block("code", cs, ce, ((cs, ce),)))
            i = last + 1
            continue
        if not line.strip():
            flush()
            i += 1
            continue
        if (atx := _ATX_RE.match(line)) is not None:
            flush()
            content = line[atx.end() :].rstrip()
            closing_hashes = re.search(r"(?:^|[ \t])#+$", content)
            if closing_hashes is not None:
                content = content[: closing_hashes.start()]
            cs, ce = _strip(text, s + atx.end(), s + atx.end() + len(content))
            if cs < ce:
                blocks.append(Block("heading", cs, ce, ((cs, ce),)))
            i += 1
            continue
        if (
            _SETEXT_RE.match(line)
            and current_kind == "paragraph"
            and len(current) == 1
            and current[0][1] - current[0][0] <= 120
        ):
            heading = current[0]
            current.clear()
            blocks.append(Block("heading", heading[0], heading[1], (heading,)))
            i += 1
            continue
        if _BREAK_RE.match(line):
            flush()
            cs, ce = _strip(text, s, e)
            blocks.append(Block("separator", cs, ce, ((cs, ce),)))
            i += 1
            continue
        if _QUOTE_MARK_RE.match(line):
            flush()
            spans: list[tuple[int, int]] = []
            while i < len(lines):
                qs, qe = lines[i]
                mark = _QUOTE_MARK_RE.match(text, qs, qe)
                if mark is None:
                    break
                spans.append(_strip(text, mark.end(), qe))
                i += 1
            kept = [span for span in spans if span[0] < span[1]]
            if kept:
                blocks.append(Block("blockquote", kept[0][0], kept[-1][1], tuple(kept)))
            continue
        if _is_table_line(line):
            flush()
            cs, ce = _strip(text, s, e)
            if _TABLE_RULE_RE.match(line):
                kind: BlockKind = "table_rule"
            elif i + 1 < len(lines) and _TABLE_RULE_RE.match(
                text[lines[i + 1][0] : lines[i + 1][1]]
            ):
                kind = "table_header"
            else:
                kind = "table_row"
            blocks.append(Block(kind, cs, ce, ((cs, ce),)))
            i += 1
            continue
        if (item := _LIST_RE.match(line)) is not None:
            flush()
            current_kind = "list_item"
            current.append(_strip(text, s + item.end(), e))
            i += 1
            continue
        if not current:
            current_kind = "paragraph"
        current.append(_strip(text, s, e))
        i += 1
    flush()
    return blocks


# --------------------------------------------------------------------------------------------
# Lead-ins

_LEAD_IN_RE = re.compile(r"(\*\*|__)([^*_\n\r]{1,100}?)\1([ \t]*[:.—–-])?(?=\s|$)")


def lead_in_end(text: str, start: int, end: int) -> int | None:
    """End of a bold lead-in at ``start`` (see the module rules), or None."""
    m = _LEAD_IN_RE.match(text, start, end)
    if m is None:
        return None
    words = m.group(2).split()
    if not words or len(words) > 6 or "[" in m.group(2):
        return None
    return m.end()


# --------------------------------------------------------------------------------------------
# Sentences

_TO_SPACE = str.maketrans({ch: " " for ch in "\r\n\t\f\v\u2028\u2029\x85"})
_FALLBACK_CUT_RE = re.compile(r"(?<=[.!?])[\"”’)\]]*\s+(?=[A-Z\"“(\[])")
_WINDOW_CUT_RE = re.compile(r"(?<=[a-z]{3}[.!?])\s+(?=[A-Z])")
#: pysbd's cost grows faster than linearly with its input, so longer runs are windowed.
_WINDOW = 3000
_AFTER_CITATION_PUNCT = frozenset(".,;:!?")


def _fallback_cuts(text: str) -> list[int]:
    return [m.end() for m in _FALLBACK_CUT_RE.finditer(text)]


#: Characters of window text whose pysbd cuts are remembered (about 1-4 MB of keys).
CUTS_KEEP_CHARS: Final = 1_000_000
_CUTS: OrderedDict[str, tuple[int, ...]] = OrderedDict()
_CUTS_LOCK = threading.Lock()
_cuts_chars = 0


def _pysbd_cuts(text: str) -> list[int]:
    """Offsets in ``text`` where pysbd starts a new sentence (the first sentence excluded),
    remembered per text (see the module's note on speed)."""
    global _cuts_chars
    with _CUTS_LOCK:
        known = _CUTS.get(text)
        if known is not None:
            _CUTS.move_to_end(text)
            return list(known)
    cuts = _pysbd_cuts_uncached(text)
    if len(text) <= CUTS_KEEP_CHARS // 4:
        with _CUTS_LOCK:
            if text not in _CUTS:
                _CUTS[text] = tuple(cuts)
                _cuts_chars += len(text)
                while _cuts_chars > CUTS_KEEP_CHARS:
                    _cuts_chars -= len(_CUTS.popitem(last=False)[0])
    return cuts


def _segment(text: str) -> list[str]:
    """``pysbd.Segmenter(language="en", clean=False, char_span=False).segment(text)``.

    pysbd's ``segment`` ends by finding each sentence in the text with a regex built from
    that sentence, so every new sentence compiles a pattern; a hundred of them per answer
    evict pysbd's own few hundred rule patterns from ``re``'s cache, which are then compiled
    again for every paragraph (half the cost of splitting a new answer).  For the pysbd
    release whose ``segment`` :func:`_locate` reproduces (the dependency pins ``<0.4``) the
    sentences are located with ``str.find`` instead; any other release is called as is.
    """
    segmenter = pysbd.Segmenter(language="en", clean=False, char_span=False)
    if getattr(pysbd, "__version__", None) != "0.3.4":
        return list(segmenter.segment(text))
    if not text:
        return []
    sentences = segmenter.processor(text).process()
    located = _locate(sentences, text)
    if located is None:
        return list(segmenter.segment(text))
    return located


def _locate(sentences: Sequence[object], text: str) -> list[str] | None:
    r"""pysbd 0.3.4's ``Segmenter.sentences_with_char_spans`` (``sent``s only), without a
    regex per sentence; None for input it was not written for (its caller then asks pysbd).

    pysbd runs ``re.finditer(re.escape(sent) + r"\s*", text)`` and keeps, for each sentence,
    the first match ending after the previous kept one.  A match there is the sentence's
    literal text at some position plus all the whitespace after it (``\s`` in a str pattern
    is exactly ``str.isspace``), and finditer looks for the next match from the end of the
    last, so the same walk with ``str.find`` yields the same matches in the same order.
    """
    pieces: list[str] = []
    prior_end = 0
    size = len(text)
    for sent in sentences:
        if not isinstance(sent, str) or not sent:
            return None  # an empty pattern matches empty strings: leave that to pysbd
        pos = 0
        while True:
            found = text.find(sent, pos)
            if found < 0:
                break
            end = found + len(sent)
            while end < size and text[end].isspace():
                end += 1
            if end > prior_end:
                pieces.append(text[found:end])
                prior_end = end
                break
            pos = end
    return pieces


def _pysbd_cuts_uncached(text: str) -> list[int]:
    try:
        pieces = _segment(text)
    except Exception:  # pysbd is third-party regex code; never let it sink an audit
        return _fallback_cuts(text)
    cuts: list[int] = []
    pos = 0
    for piece in pieces:
        stripped = piece.strip() if isinstance(piece, str) else ""
        if not stripped:
            continue
        found = text.find(stripped, pos)
        if found < 0:
            return _fallback_cuts(text)
        if cuts or pos > 0 or text[:found].strip():
            cuts.append(found)
        pos = found + len(stripped)
    return [cut for cut in cuts if 0 < cut < len(text)]


def _windows(text: str) -> list[tuple[int, int]]:
    """Split a long run into windows at likely sentence ends, each at most about _WINDOW."""
    if len(text) <= _WINDOW:
        return [(0, len(text))]
    windows: list[tuple[int, int]] = []
    start = 0
    last_cut = 0
    for m in _WINDOW_CUT_RE.finditer(text):
        if m.end() - start > _WINDOW and last_cut > start:
            windows.append((start, last_cut))
            start = last_cut
        last_cut = m.end()
    if len(text) - start > _WINDOW and start < last_cut < len(text):
        windows.append((start, last_cut))
        start = last_cut
    windows.append((start, len(text)))
    return windows


def split_sentences(
    text: str,
    start: int,
    end: int,
    protected: Sequence[tuple[int, int]],
    citations: Sequence[tuple[int, int]],
) -> list[tuple[int, int]]:
    """Sentence spans in ``text[start:end]``, stripped, in order, covering every non-space
    character of the range exactly once.

    ``protected`` spans (citations, quotes, code spans, links) are never cut; ``citations`` at
    the start of a sentence move to the sentence before.
    """
    run = text[start:end].translate(_TO_SPACE)
    cuts: list[int] = []
    for ws, we in _windows(run):
        if ws > 0:
            cuts.append(start + ws)
        window = run[ws:we]
        # A window with no likely sentence end to cut at would make pysbd crawl.
        found = _fallback_cuts(window) if we - ws > 2 * _WINDOW else _pysbd_cuts(window)
        cuts.extend(start + ws + cut for cut in found)
    cuts = _drop_protected(sorted(set(cuts)), protected)
    cuts = _shift_leading_citations(text, cuts, end, citations)
    spans: list[tuple[int, int]] = []
    bounds = [start, *cuts, end]
    for a, b in itertools.pairwise(bounds):
        s, e = _strip(text, a, b)
        if s < e:
            spans.append((s, e))
    return spans


def _drop_protected(cuts: list[int], protected: Sequence[tuple[int, int]]) -> list[int]:
    """Remove cuts that fall strictly inside a protected span."""
    if not protected:
        return cuts
    ordered = sorted(protected)
    starts = [s for s, _ in ordered]
    # Running maximum of ends, so nested or overlapping spans are handled in one bisect.
    max_end: list[int] = []
    best = -1
    for _, e in ordered:
        best = max(best, e)
        max_end.append(best)
    kept: list[int] = []
    for cut in cuts:
        i = bisect.bisect_left(starts, cut) - 1
        if i >= 0 and max_end[i] > cut:
            continue
        kept.append(cut)
    return kept


def _shift_leading_citations(
    text: str, cuts: list[int], end: int, citations: Sequence[tuple[int, int]]
) -> list[int]:
    """Move each cut past citations (and the punctuation after them) that open a sentence."""
    if not citations:
        return cuts
    by_start: dict[int, int] = {}
    for s, e in citations:
        by_start[s] = max(e, by_start.get(s, e))
    shifted: list[int] = []
    for cut in cuts:
        pos = cut
        moved = cut
        while True:
            while pos < end and text[pos].isspace():
                pos += 1
            if pos in by_start:
                pos = by_start[pos]
                while pos < end and text[pos] in _AFTER_CITATION_PUNCT:
                    pos += 1
                moved = pos
                continue
            break
        if shifted and moved <= shifted[-1]:
            continue
        shifted.append(moved)
    return [cut for cut in shifted if cut < end]
