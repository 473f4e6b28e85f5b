"""Every occurrence of a string, and whether a span starts or ends inside a word.

A ``Haystack`` searches through a one-byte-per-character key of its text: scholarly
text is almost all Latin-1, but a single Greek letter or math symbol makes CPython store
the whole string with two bytes a character, and scanning half the memory is about twice
as fast.  Characters outside Latin-1 become ``?`` in the key, so a needle that holds a
``?`` is searched for in the real text instead: confirming each hit of the key would cost
a trip through Python per position in a text of Greek or Chinese, where the key is ``?``
almost everywhere.
"""

from __future__ import annotations

_PLACEHOLDER = ord("?")


class Haystack:
    """A text prepared for repeated full-text searches."""

    __slots__ = ("_key", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._key: str | bytes = text if text.isascii() else text.encode("latin-1", "replace")

    def _searched(self, needle: str) -> tuple[str | bytes, str | bytes]:
        """The string to search and the needle in its form: the one-byte key, unless the
        needle has a ``?`` there (a character outside Latin-1, or a real ``?``, which
        the key cannot tell apart): then the text itself."""
        if isinstance(self._key, str):
            return self._key, needle
        key = needle.encode("latin-1", "replace")
        if _PLACEHOLDER in key:
            return self.text, needle
        return self._key, key

    def find_all(
        self, needle: str, start: int = 0, end: int | None = None, limit: int | None = None
    ) -> list[int]:
        """Start of every occurrence in ``text[start:end]``, overlaps included, in order."""
        if not needle:
            return []
        hay, key = self._searched(needle)
        stop = len(self.text) if end is None else end
        find = hay.find
        out: list[int] = []
        p = find(key, start, stop)  # type: ignore[arg-type]
        while p >= 0:
            out.append(p)
            if limit is not None and len(out) >= limit:
                break
            p = find(key, p + 1, stop)  # type: ignore[arg-type]
        return out

    def rfind_all(self, needle: str, start: int, end: int, limit: int) -> list[int]:
        """Occurrences in ``text[start:end]``, nearest to ``end`` first."""
        if not needle:
            return []
        hay, key = self._searched(needle)
        rfind = hay.rfind
        out: list[int] = []
        stop = end
        while len(out) < limit:
            p = rfind(key, start, stop)  # type: ignore[arg-type]
            if p < 0:
                break
            out.append(p)
            stop = p + len(needle) - 1
        return out

    def contains(self, needle: str) -> bool:
        return bool(self.find_all(needle, limit=1))


def _wordish(c: str) -> bool:
    return c.isalnum()


def mid_word(text: str, start: int, end: int) -> tuple[bool, bool]:
    """Whether ``text[start:end]`` starts inside a word and whether it ends inside one."""
    starts = 0 < start < len(text) and _wordish(text[start - 1]) and _wordish(text[start])
    ends = 0 < end < len(text) and _wordish(text[end - 1]) and _wordish(text[end])
    return starts, ends
