"""Quotations in a manuscript, and the citation each one carries.

Inline quotations, within one paragraph (a paragraph, list item, note, cell or caption; a
block that a layout cut from the one before, as a PDF's page break does, goes on with it:
one that starts in lower case or with a bracketed citation, or follows a block that ends
without closing its sentence):

* Marks: ``“…”``, ``"…"`` (paired in order), ``„…“``, ``«…»``, ``»…«``, and ``‘…’`` only when
  the opening mark starts a word and the closing one ends a word (``it’s`` is no quotation).
  Straight single quotes are apostrophes.  Quotations do not nest: inner marks are part of
  the outer quotation's words.
* Fewer than three words is a scare quote or a term (``the so-called “gold standard”``), not
  a quotation of a source; so is a quotation with no letter in it.
* Its citation: the citation right after the closing mark, with at most a little
  punctuation between (``…” [3].``, ``…”.³``, ``…” (Smith, 2019, p. 4)``), and any further
  citations that follow it with only punctuation between; else the first citation after it
  in the same sentence (before the sentence ends and before another quotation opens); else
  the last one before it in the same sentence (``Smith (2019) wrote that “…”``).  A citation
  inside the marks is the source's own and never counts.

Block quotations (a block of kind ``quote``: Word's Quote styles or an indented paragraph,
``\\begin{quote}``, ``<blockquote>``, ``> ``, JATS ``<disp-quote>``): consecutive quote blocks
are one quotation; its citations are those that end its last paragraph (only punctuation
after them), which are left out of its words; else, when the block right after it holds
nothing but citations (``— Smith (2019, p. 4)``), those.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from citeproof.manuscript.structure import InTextCitation, Quotation, TextBlock

__all__ = ["MIN_WORDS", "find_quotations", "quote_spans"]

#: A quotation has at least this many words.
MIN_WORDS = 3
#: A quotation longer than this is an unbalanced mark, not a quotation.
MAX_QUOTE = 5_000

_OPEN = re.compile('[“"«»„‘]')
_CLOSE = {"“": "”", '"': '"', "«": "»", "»": "«", "„": "“"}
_SINGLE_WINDOW = 2_100
_JUST_AFTER = re.compile(r"[\s.,;:!?’'\")\]\-–—]{0,4}")
_BETWEEN = re.compile(r"[\s,;]{0,3}")
_SENTENCE_END = re.compile(r"[.!?](?=[\s”’\")\]]*(?:\s+[A-Z0-9“\"(\[]|\s*$))")
_TRAILING = re.compile(r"[\s.,;:)\]\-–—]*")
_PROSE = frozenset({"paragraph", "list_item", "footnote", "cell", "caption"})
_CLOSING = frozenset('.!?:;”"’)]»')
_MAX_JOINED = 3


def quote_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Spans of the words inside quotation marks in ``text[start:end]`` (module rules)."""
    spans: list[tuple[int, int]] = []
    pos = start
    while (m := _OPEN.search(text, pos, end)) is not None:
        i = m.start()
        mark = m.group()
        close = _single_close(text, i, end) if mark == "‘" else text.find(_CLOSE[mark], i + 1, end)
        if close < 0 or close - i > MAX_QUOTE:
            pos = i + 1
            continue
        if text[i + 1 : close].strip():
            spans.append((i + 1, close))
        pos = close + 1
    return spans


def _single_close(text: str, i: int, end: int) -> int:
    if i > 0 and text[i - 1].isalnum():
        return -1
    k = i + 1
    limit = min(end, i + _SINGLE_WINDOW)
    while (k := text.find("’", k, limit)) >= 0:
        if (
            k > i + 1
            and not text[k - 1].isspace()
            and (k + 1 >= len(text) or not text[k + 1].isalnum())
        ):
            return k
        k += 1
    return -1


def _is_quotation(words: str) -> bool:
    return len(words.split()) >= MIN_WORDS and any(c.isalpha() for c in words)


def find_quotations(
    text: str, blocks: Sequence[TextBlock], citations: Sequence[InTextCitation]
) -> list[Quotation]:
    """Every quotation of the manuscript with its citations (module rules)."""
    ordered = sorted(citations, key=lambda c: c.start)
    out: list[Quotation] = []
    blocks = sorted(blocks, key=lambda b: b.start)
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if block.region == "references" or (block.region == "front" and block.kind != "paragraph"):
            i += 1
            continue
        if block.kind == "quote":
            j = i
            while j + 1 < len(blocks) and blocks[j + 1].kind == "quote":
                j += 1
            following = blocks[j + 1] if j + 1 < len(blocks) else None
            quoted = _block_quote(text, blocks[i : j + 1], following, ordered)
            if quoted is not None:
                out.append(quoted)
            i = j + 1
            continue
        if block.kind in _PROSE:
            j = i
            while (
                j + 1 < len(blocks)
                and j - i < _MAX_JOINED
                and _goes_on(text, blocks[j], blocks[j + 1])
            ):
                j += 1
            joined = replace(block, end=blocks[j].end)
            out.extend(_inline(text, joined, ordered))
            i = j + 1
            continue
        i += 1
    return out


def _goes_on(text: str, block: TextBlock, nxt: TextBlock) -> bool:
    """Whether ``nxt`` continues ``block``'s paragraph: a layout cut it (a page or column
    break, a line taken for a paragraph start) when the next block starts in lower case or
    with a citation, or this one ends without closing a sentence."""
    if nxt.kind not in _PROSE or nxt.region != block.region:
        return False
    head = text[nxt.start : nxt.start + 2]
    tail = text[block.start : block.end].rstrip()[-1:]
    return head[:1].islower() or head[:1] == "[" or (bool(tail) and tail not in _CLOSING)


def _inline(text: str, block: TextBlock, citations: Sequence[InTextCitation]) -> list[Quotation]:
    inside = [c for c in citations if block.start <= c.start < block.end]
    spans = quote_spans(text, block.start, block.end)
    out: list[Quotation] = []
    for n, (qs, qe) in enumerate(spans):
        words = text[qs:qe]
        if not _is_quotation(words):
            continue
        # the next quotation's opening mark bounds where this one's citation may stand
        limit = spans[n + 1][0] - 1 if n + 1 < len(spans) else block.end
        chosen = _after(text, qe + 1, limit, inside) or _before(text, block.start, qs - 1, inside)
        out.append(Quotation(words, qs, qe, False, chosen, block.region))
    return out


def _after(text: str, pos: int, limit: int, citations: Sequence[InTextCitation]) -> tuple[int, ...]:
    """The citation right after a closing mark, and those following it (module rules)."""
    later = [c for c in citations if pos <= c.start < limit]
    if not later:
        return ()
    first = later[0]
    if _JUST_AFTER.fullmatch(text, pos, first.start) is None:
        end = _SENTENCE_END.search(text, pos, limit)
        if end is not None and end.start() < first.start:
            return ()
    chosen = [first.index]
    last = first
    for c in later[1:]:
        if _BETWEEN.fullmatch(text, last.end, c.start) is None:
            break
        chosen.append(c.index)
        last = c
    return tuple(chosen)


def _before(
    text: str, start: int, pos: int, citations: Sequence[InTextCitation]
) -> tuple[int, ...]:
    """The last citation before an opening mark in the same sentence."""
    earlier = [c for c in citations if start <= c.start and c.end <= pos]
    if not earlier:
        return ()
    last = earlier[-1]
    if _SENTENCE_END.search(text, last.end, pos) is not None:
        return ()
    return (last.index,)


def _block_quote(
    text: str,
    blocks: Sequence[TextBlock],
    following: TextBlock | None,
    citations: Sequence[InTextCitation],
) -> Quotation | None:
    start, end = blocks[0].start, blocks[-1].end
    last = blocks[-1]
    trailing = _trailing_citations(text, last, citations)
    if trailing:
        words_end = trailing[0].start
        while words_end > last.start and text[words_end - 1] in " \t\n(—–-":
            words_end -= 1
        chosen = tuple(c.index for c in trailing)
    else:
        words_end = end
        chosen = _citations_alone(text, following, citations)
    parts = [text[b.start : min(b.end, words_end)].strip() for b in blocks if b.start < words_end]
    words = "\n\n".join(p for p in parts if p)
    if not _is_quotation(words):
        return None
    return Quotation(words, start, words_end, True, chosen, blocks[0].region)


def _trailing_citations(
    text: str, last: TextBlock, citations: Sequence[InTextCitation]
) -> list[InTextCitation]:
    """The citations that end a block quote's last block, with nothing but separators
    between them and after them."""
    inside = [c for c in citations if last.start <= c.start < last.end]
    trailing: list[InTextCitation] = []
    stop = last.end
    for c in reversed(inside):
        if _TRAILING.fullmatch(text, c.end, stop) is None:
            break
        trailing.insert(0, c)
        stop = c.start
    return trailing


def _citations_alone(
    text: str, following: TextBlock | None, citations: Sequence[InTextCitation]
) -> tuple[int, ...]:
    """The citations of the paragraph after a block quote when it holds nothing else (a
    source line under the quote); none otherwise."""
    if following is None or following.kind not in _PROSE:
        return ()
    after = [c for c in citations if following.start <= c.start < following.end]
    rest = text[following.start : following.end]
    for c in sorted(after, key=lambda c: c.start, reverse=True):
        rest = rest[: c.start - following.start] + rest[c.end - following.start :]
    if after and not any(ch.isalnum() for ch in rest):
        return tuple(c.index for c in after)
    return ()
