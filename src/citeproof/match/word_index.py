"""Where a string can occur in a text, from the text's words, without reading the text.

A check searches its text several times (the quote as written, case-folded, then a dozen seed
pieces for the closest passage), and each ``str.find`` pass reads the whole text: at 10 MB a
check that reads it eight times costs tens of milliseconds however rare the quote's words
are.  A text split at its spaces into words, each word with the sorted positions where it
stands, answers "where might this needle start?" from the positions of one of the needle's
words, and each candidate is confirmed against the text.  The answers are exactly a scan's
(every occurrence, overlaps included, in order); only the time differs.

How a needle is anchored.  Split at its spaces, a needle's inner parts (a space on both
sides) are whole words of the text wherever the needle occurs, its last part (a space before
it) begins a word, and its first part (a space after it) ends one; a needle without a space
lies inside one word.  The anchor is the inner word with the fewest positions; failing that,
the longer of the first and last parts, looked up among the words that end or begin with it
(two sorted lists of the distinct words); a needle without a space is looked for in the
vocabulary, every distinct word once in one string.

Only the space separates words, in the text and in the needle alike, so a part bounded by
spaces in the needle is bounded by spaces in the text: no other rule about what a word is has
to agree between the two.

A lookup confirms at most ``max(64, len(text) / 1024)`` candidates (a third of a pass's time
or so); a needle of common words that has more says where it stopped, and the caller scans
the rest of the text from there, so a search never costs much more than the scan it replaces.

Building costs about half a microsecond a word in CPython, some hundreds of ``str.find``
passes over the text (``bench/bench_match.py`` prints both), which is why ``Haystack`` builds
one only once its scans have cost about as much.  Memory: a 4-byte position per word and
each distinct word once, under the size of the prepared text it indexes.
"""

from __future__ import annotations

import bisect
import sys
from array import array
from collections import defaultdict, deque
from collections.abc import Callable
from functools import partial
from itertools import accumulate, chain, compress, count, islice, repeat
from operator import add, itemgetter, sub
from typing import Final, TypeAlias

__all__ = ["BUILD_PASSES", "DERIVE_PASSES", "MIN_INDEX_CHARS", "WordIndex"]

BUILD_PASSES: Final = 256
"""Full-text scans a ``Haystack`` makes (counted in characters read) before it builds its
index.  Building costs about this many passes of the scans it replaces, so a text searched a
few times never pays for an index, and one searched often pays at most about twice what it
would have with the index from the start (the ski-rental rule)."""

DERIVE_PASSES: Final = 32
"""The same for an index derived from another's (``WordIndex.folded``): merging and sorting
the other's words costs a few tens of passes, not hundreds."""

MIN_INDEX_CHARS: Final = 1 << 16
"""Below this, a pass costs microseconds and an index would not pay for its lookups."""

_CHUNK_CHARS: Final = 1 << 20
"""The text is split a megabyte at a time, so building holds one chunk's words at once."""

_TOP: Final = "\U0010ffff"


def _past(prefix: str) -> str | None:
    """The first string after every string that begins with ``prefix``, in code point
    order (None: there is none, the prefix is all U+10FFFF), so that ``[prefix, _past)``
    holds exactly the strings beginning with it."""
    stem = prefix.rstrip(_TOP)
    if not stem:
        return None
    return stem[:-1] + chr(ord(stem[-1]) + 1)


_REVERSED: Final = itemgetter(slice(None, None, -1))

Positions: TypeAlias = "array[int] | tuple[array[int], ...]"
"""A word's sorted positions; or, in a folded index, the sorted positions of each word that
folds to it, merged into one array when the word is first looked up."""

Found: TypeAlias = tuple[list[int], int | None]
"""Needle starts found, and where the index stopped (None: it found them all)."""


def _size(where: Positions) -> int:
    return len(where) if isinstance(where, array) else sum(map(len, where))


class WordIndex:
    """The words of one text and where each stands."""

    __slots__ = (
        "_by_start",
        "_cap",
        "_end_counts",
        "_ends",
        "_keys",
        "_start_counts",
        "_starts",
        "_text",
        "_vocab",
        "_vocab_key",
        "_words",
    )

    def __init__(self, text: str, words: dict[str, Positions] | None = None) -> None:
        """Index ``text``; or, given ``words`` (each word of ``text`` and its positions,
        as ``folded`` derives them), take those instead of reading the text."""
        self._text = text
        n = len(text)
        code = "I" if n < (1 << 32) else "Q"
        if words is None:
            words = dict(self._read(text, code))
        self._words = words
        self._keys = list(words)
        # " w0 w1 ... wk ": every word once, bounded by spaces, for needles without a space;
        # _starts[k] is where word k begins in it
        self._vocab = " " + " ".join(words) + " "
        self._vocab_key: str | bytes = (
            self._vocab if self._vocab.isascii() else self._vocab.encode("latin-1", "replace")
        )
        self._starts = array(code, map(add, accumulate(map(len, words), initial=1), count()))
        # the words in order, and in the order of their reversals, with the running count of
        # their positions: how many candidates "the words beginning (ending) with x" give,
        # in O(log n)
        self._by_start = sorted(words)
        self._start_counts = array(
            code, accumulate(map(_size, map(words.__getitem__, self._by_start)), initial=0)
        )
        self._ends = sorted(words, key=_REVERSED)
        self._end_counts = array(
            code, accumulate(map(_size, map(words.__getitem__, self._ends)), initial=0)
        )
        self._cap = max(64, n >> 10)

    @staticmethod
    def _read(text: str, code: str) -> defaultdict[str, array[int]]:
        """Every word of ``text`` and its positions, a megabyte of text at a time."""
        # a new word gets its array from the factory, in C, when it is first looked up
        words: defaultdict[str, array[int]] = defaultdict(partial(array, code))
        n = len(text)
        a = 0
        while a < n:
            b = text.find(" ", min(a + _CHUNK_CHARS, n))
            if b < 0:
                b = n
            parts = text[a:b].split(" ")
            # every part's position, appended to its word's array, all in C
            positions = map(add, accumulate(map(len, parts), initial=a), count())
            deque(map(array.append, map(words.__getitem__, parts), positions), maxlen=0)
            a = b + 1
        words.default_factory = None  # from here on, an unknown word is a KeyError
        words.pop("", None)  # between two spaces
        return words

    def folded(self, text: str, fold: Callable[[str], str]) -> WordIndex:
        """The index of ``text``, which is this index's text with ``fold`` applied word by
        word, position for position (lower-casing that keeps every length): the folded
        words' positions are this index's, without reading ``text``.  Several words can
        fold to one ("The", "the"): their positions are merged when it is first looked up,
        since most words never are; one word's are shared, not copied."""
        groups: dict[str, list[array[int]]] = {}
        for word, where in self._words.items():
            if isinstance(where, tuple):
                where = self._positions(word)
            groups.setdefault(fold(word), []).append(where)
        merged: dict[str, Positions] = {
            word: same[0] if len(same) == 1 else tuple(same) for word, same in groups.items()
        }
        return WordIndex(text, merged)

    def _positions(self, word: str) -> array[int]:
        """The sorted positions of a word of the text (KeyError for any other)."""
        where = self._words[word]
        if isinstance(where, tuple):
            merged = array(where[0].typecode, sorted(chain(*where)))
            self._words[word] = merged  # one assignment: another thread sees one or other
            return merged
        return where

    def _get(self, word: str) -> array[int] | None:
        return self._positions(word) if word in self._words else None

    @property
    def words(self) -> int:
        """How many distinct words the text has."""
        return len(self._words)

    def nbytes(self) -> int:
        """The index's own memory, roughly: positions, the vocabulary and the word table."""
        size = sys.getsizeof(self._words) + sys.getsizeof(self._keys)
        size += sys.getsizeof(self._vocab) + sys.getsizeof(self._starts)
        if isinstance(self._vocab_key, bytes):
            size += sys.getsizeof(self._vocab_key)
        size += sys.getsizeof(self._by_start) + sys.getsizeof(self._ends)
        size += sys.getsizeof(self._start_counts) + sys.getsizeof(self._end_counts)
        for word, where in self._words.items():
            size += sys.getsizeof(word) + sys.getsizeof(where)
        return size

    # ------------------------------------------------------------------------ search
    def find_all(
        self, needle: str, start: int, stop: int, limit: int | None, backwards: bool = False
    ) -> Found | None:
        """The starts of ``needle`` in ``text[start:stop]``, in order (nearest ``stop``
        first when ``backwards``), at most ``limit``: what a scan returns, or the first part
        of it and where the index stopped (the caller scans on from there: forwards from
        that position; backwards, occurrences starting at or before it).  None when the
        index cannot narrow the search at all."""
        last = stop - len(needle)  # the last start that fits
        if last < start:
            return [], None
        parts = needle.split(" ")
        if len(parts) == 1:
            inside = self._inside(needle)
            if inside is None:
                return None
            return self._confirm(inside, 0, needle, start, last, limit, backwards)
        # the inner word with the fewest positions
        best: array[int] | None = None
        best_at = 0
        at = len(parts[0]) + 1
        for part in parts[1:-1]:
            if part:
                where = self._get(part)
                if where is None:
                    return [], None  # a whole word of the needle is no word of the text
                if best is None or len(where) < len(best):
                    best, best_at = where, at
            at += len(part) + 1
        # or the words that begin with its last part, or end with its first
        first, final = parts[0], parts[-1]
        begin = self._range(self._by_start, self._start_counts, final) if final else None
        end = self._range(self._ends, self._end_counts, first[::-1], _REVERSED) if first else None
        inner = len(best) if best is not None else sys.maxsize
        options = [(inner, 0), (begin[2] if begin else sys.maxsize, 1)]
        options.append((end[2] if end else sys.maxsize, 2))
        size, choice = min(options)
        if size == 0:
            return [], None
        if choice and size <= self._cap:
            listed: list[int] = []
            if choice == 1:
                assert begin is not None
                shift = len(final) - len(needle)
                for w in self._by_start[begin[0] : begin[1]]:
                    listed.extend(map(add, self._positions(w), repeat(shift)))
            else:
                assert end is not None
                for w in self._ends[end[0] : end[1]]:
                    listed.extend(map(add, self._positions(w), repeat(len(w) - len(first))))
            listed.sort()
            return self._confirm(listed, 0, needle, start, last, limit, backwards)
        if best is None:
            return None
        return self._confirm(best, best_at, needle, start, last, limit, backwards)

    @staticmethod
    def _range(
        ordered: list[str], counts: array[int], key: str, by: Callable[[str], str] | None = None
    ) -> tuple[int, int, int]:
        """The words of ``ordered`` (sorted by ``by``) whose ``by`` begins with ``key``
        (``lo``, ``hi``), and how many positions they have between them."""
        lo = bisect.bisect_left(ordered, key, key=by)
        past = _past(key)
        hi = len(ordered) if past is None else bisect.bisect_left(ordered, past, lo, key=by)
        return lo, hi, counts[hi] - counts[lo]

    def _inside(self, needle: str) -> list[int] | None:
        """Candidate starts of a needle without a space: where it stands inside each word
        of the vocabulary that holds it."""
        vocab = self._vocab_key
        key: str | bytes = needle
        if isinstance(vocab, bytes):
            key = needle.encode("latin-1", "replace")
            if b"?" in key:  # the key's placeholder: search the vocabulary itself
                vocab, key = self._vocab, needle
        starts, keys = self._starts, self._keys
        hits: list[tuple[array[int], int]] = []
        total = 0
        p = vocab.find(key)  # type: ignore[arg-type]
        while p >= 0:
            k = bisect.bisect_right(starts, p) - 1
            where = self._positions(keys[k])
            hits.append((where, p - starts[k]))
            total += len(where)
            if total > self._cap:
                return None
            p = vocab.find(key, p + 1)  # type: ignore[arg-type]  # "aa" is twice in "aaa"
        out: list[int] = []
        for where, shift in hits:
            out.extend(q + shift for q in where)
        out.sort()
        return out

    def _confirm(
        self,
        where: array[int] | list[int],
        shift: int,
        needle: str,
        start: int,
        last: int,
        limit: int | None,
        backwards: bool,
    ) -> Found:
        """Confirm candidates ``where[i] - shift`` in ``[start, last]`` against the text, in
        order, until ``limit`` are found or the cap: then say where to scan on from.  The
        candidates are confirmed a block at a time in C (``map`` of ``str.startswith``,
        ``compress``), about a tenth of a microsecond each."""
        startswith = self._text.startswith
        lo = bisect.bisect_left(where, start + shift)
        hi = bisect.bisect_right(where, last + shift)
        wanted = sys.maxsize if limit is None else limit
        cap = self._cap
        cut = hi - lo > cap
        if backwards:
            block = list(map(sub, reversed(where[max(lo, hi - cap) : hi]), repeat(shift)))
        else:
            block = list(map(sub, where[lo : min(hi, lo + cap)], repeat(shift)))
        out = list(islice(compress(block, map(startswith, repeat(needle), block)), wanted))
        if not cut or len(out) >= wanted:
            return out, None
        # the cap: the rest is the caller's to scan, from just past the last one confirmed
        return out, block[-1] - 1 if backwards else block[-1] + 1
