"""Every occurrence of a string, and whether a span starts or ends inside a word."""

from __future__ import annotations


def find_all(text: str, needle: str, start: int = 0, end: int | None = None,
             limit: int | None = None) -> list[int]:
    """Start of every occurrence of ``needle`` in ``text[start:end]``, overlaps included."""
    if not needle:
        return []
    stop = len(text) if end is None else end
    out: list[int] = []
    find = text.find
    p = find(needle, start, stop)
    while p >= 0:
        out.append(p)
        if limit is not None and len(out) >= limit:
            break
        p = find(needle, p + 1, stop)
    return out


def rfind_all(text: str, needle: str, start: int, end: int, limit: int) -> list[int]:
    """Occurrences of ``needle`` in ``text[start:end]``, nearest to ``end`` first."""
    out: list[int] = []
    rfind = text.rfind
    stop = end
    while len(out) < limit:
        p = rfind(needle, start, stop)
        if p < 0:
            break
        out.append(p)
        stop = p + len(needle) - 1
    return out


def _wordish(c: str) -> bool:
    return c.isalnum()


def mid_word(text: str, start: int, end: int) -> tuple[bool, bool]:
    """Whether ``text[start:end]`` starts inside a word and whether it ends inside one."""
    starts = 0 < start < len(text) and _wordish(text[start - 1]) and _wordish(text[start])
    ends = 0 < end < len(text) and _wordish(text[end - 1]) and _wordish(text[end])
    return starts, ends
