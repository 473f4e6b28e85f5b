"""Every occurrence of a string, and whether a span starts or ends inside a word.

A ``Haystack`` searches through a one-byte-per-character key of its text: scholarly
text is almost all Latin-1, but a single Greek letter or math symbol makes CPython store
the whole string with two bytes a character, and scanning half the memory is about twice
as fast.  Characters outside Latin-1 become ``?`` in the key, so a needle that holds a
``?`` is searched for in the real text instead: confirming each hit of the key would cost
a trip through Python per position in a text of Greek or Chinese, where the key is ``?``
almost everywhere.

A text searched often enough gets a word index (``word_index.py``), which answers the same
searches without reading the text; what a search returns never depends on whether it has one.
Only searches over most of the text use it: in a window of a few thousand characters (an
ellipsis fragment looked for after the one before it) a scan is cheaper than any lookup.
"""

from __future__ import annotations

from collections.abc import Callable

from citeproof.match.word_index import BUILD_PASSES, DERIVE_PASSES, MIN_INDEX_CHARS, WordIndex

_PLACEHOLDER = ord("?")


class Haystack:
    """A text prepared for repeated full-text searches."""

    __slots__ = ("_folded_from", "_index", "_key", "_scanned", "text")

    def __init__(
        self, text: str, folded_from: tuple[Haystack, Callable[[str], str]] | None = None
    ) -> None:
        """``folded_from``: the haystack whose text, folded word by word with the function
        given, is this one's (the lower-cased layer and the layer); once that one has an
        index, this one's is derived from it, far cheaper than reading the text again."""
        self.text = text
        self._key: str | bytes = text if text.isascii() else text.encode("latin-1", "replace")
        self._folded_from = folded_from
        self._index: WordIndex | None = None
        self._scanned = 0
        """Characters read by wide scans so far, to weigh against what an index costs."""

    @property
    def indexed(self) -> bool:
        return self._index is not None

    @property
    def index(self) -> WordIndex | None:
        """The word index, if it has been built."""
        return self._index

    def build_index(self) -> WordIndex:
        """The word index, built now if it was not: for callers that know many searches
        will follow, and for measuring what it costs."""
        if self._index is None:
            source = self._folded_from[0].index if self._folded_from is not None else None
            if source is not None and self._folded_from is not None:
                self._index = source.folded(self.text, self._folded_from[1])
            else:
                self._index = WordIndex(self.text)
        return self._index

    def _indexed(self, start: int, stop: int) -> WordIndex | None:
        """The index, for a search of ``text[start:stop]`` wide enough to use it; built
        once the scans made so far have cost about what building does (fewer when it can
        be derived from an index that exists)."""
        n = len(self.text)
        if (stop - start) * 2 < n:
            return None
        if self._index is None:
            if n < MIN_INDEX_CHARS:
                return None
            self._scanned += stop - start
            due = BUILD_PASSES
            if self._folded_from is not None and self._folded_from[0].indexed:
                due = DERIVE_PASSES
            if self._scanned < due * n:
                return None
            return self.build_index()
        return self._index

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
        stop = len(self.text) if end is None else end
        out: list[int] = []
        index = self._indexed(start, stop)
        if index is not None:
            found = index.find_all(needle, start, stop, limit)
            if found is not None:
                out, resume = found
                if resume is None or (limit is not None and len(out) >= limit):
                    return out
                start = resume  # the index stopped at its cap: scan on from there
        hay, key = self._searched(needle)
        find = hay.find
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
        out: list[int] = []
        stop = end
        index = self._indexed(start, end)
        if index is not None:
            found = index.find_all(needle, start, end, limit, backwards=True)
            if found is not None:
                out, resume = found
                if resume is None or len(out) >= limit:
                    return out
                stop = resume + len(needle)  # occurrences starting at ``resume`` or before
        hay, key = self._searched(needle)
        rfind = hay.rfind
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
