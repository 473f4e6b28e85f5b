"""Normalisation profile ``t1`` with an offset map back to the original text.

``t1``: soft hyphens, zero-width and other invisible format characters removed (first,
so that one between a letter and its accent does not keep them apart), Unicode NFKC
(applied per cluster: a starter and every character that combines with it, so composed
and decomposed forms give the same string), every quotation mark and prime to ``'`` or
``"``, every dash and minus sign to ``-``, every run of whitespace to one space, the ends
trimmed.  Case is kept.
A profile's behaviour never changes under the same name: a change gets a new name.

Why this shape: the matcher must report offsets in the ORIGINAL text, so every normalised
character carries the original span it came from (``ﬁ`` gives ``f`` and ``i``, both
mapped to the one ligature; ``e`` + U+0301 gives ``é`` mapped to both code points).  And
it must be fast (a 10 MB text in well under a second), so the common case never touches
characters one at a time: line breaks become spaces with ``str.replace`` (that moves no
offset), runs of spaces are found with ``str.split`` and mapped with slice assignments, a
lone typographic quote, dash, accented letter or no-break space is changed in place, and
only what is left (ligatures, accents to compose, superscripts, spaces next to non-ASCII
characters) goes through the per-character path.  In a long region of non-ASCII text
(Greek, Cyrillic, Chinese), the characters that are clusters of their own and that NFKC
leaves alone or changes one for one are copied the ASCII way too; only the others, with
the letter before them, go one cluster at a time.  And a cluster is capped at
MAX_CLUSTER_MARKS characters after its first, with the marks past the cap copied as runs,
so that no text costs more than a bounded amount of work per character.  The map is stored
as pieces; a piece whose normalised and original lengths agree is a linear copy, any other
piece maps each of its characters to the whole original span.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from dataclasses import dataclass
from itertools import accumulate

PROFILE = "t1"

# Same-length substitutions that commute with NFKC (none of these characters composes or
# is composed with a neighbour), done first with str.replace because they move no offset.
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u02bc\u2039\u203a\uff07\u0060\u00b4"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u301d\u301e\u301f\uff02"
_DASHES = (
    "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2043\ufe58\ufe63\uff0d\u2e3a\u2e3b\u058a"
    "\u2e17\u301c\u1806"
)
_SPACES = (
    "\n\r\t\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_ONE_TO_ONE: tuple[tuple[str, str], ...] = (
    *((c, "'") for c in _SINGLE_QUOTES),
    *((c, '"') for c in _DOUBLE_QUOTES),
    *((c, "-") for c in _DASHES),
    *((c, " ") for c in _SPACES),
)
_ONE_TO_ONE_MAP = dict(_ONE_TO_ONE)
_TRANSLATE = str.maketrans(_ONE_TO_ONE_MAP)
# Characters the per-character path maps one to one without calling NFKC (the result is
# the same): the typographic quotes, dashes and spaces that fill scholarly text.
_SIMPLE = {
    c: out
    for c in _SINGLE_QUOTES + _DOUBLE_QUOTES + _DASHES + _SPACES
    if not c.isascii() and len(out := unicodedata.normalize("NFKC", c).translate(_TRANSLATE)) == 1
}
_NON_ASCII = re.compile(r"[^\x00-\x7f]+(?: +[^\x00-\x7f]+)*")
_MAY_GO_ON = frozenset(b"? ")
_ASCII_SPACES = tuple((c, " ") for c in "\n\r\t\x0b\x0c\x1c\x1d\x1e\x1f")

# Removed outright: soft hyphen, zero-width space/joiners, word joiner, invisible
# operators, BOM, and the other format characters that only steer rendering.
IGNORABLE = frozenset(
    "\u00ad\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff\u034f"
    "\u180e\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_DROP = dict.fromkeys(map(ord, IGNORABLE))

# A cluster is a character and at most this many more that combine with it: Unicode's
# Stream-Safe Text Format (UAX #15) limit on a run of non-starters, far beyond what any
# language needs.  A mark past it is a cluster of its own, so no cluster costs more than
# a bounded amount of work, however many marks follow one letter.
MAX_CLUSTER_MARKS = 30

# Superscript digits: NFKC turns them into plain digits, so they are recognised here,
# before that information is lost, as candidates for citation markers.
SUPERSCRIPT_DIGITS = frozenset("\u00b9\u00b2\u00b3\u2070\u2074\u2075\u2076\u2077\u2078\u2079")


@dataclass(frozen=True, slots=True)
class OffsetMap:
    """Piecewise map from normalised positions to original spans.

    Piece ``k`` covers normalised ``[norm_starts[k], norm_starts[k+1])`` and original
    ``[orig_starts[k], orig_ends[k])``; equal lengths mean a linear copy, otherwise every
    normalised character of the piece maps to the whole original span.
    """

    norm_starts: list[int]
    orig_starts: list[int]
    orig_ends: list[int]
    norm_len: int
    orig_len: int

    def _piece(self, i: int) -> int:
        return bisect.bisect_right(self.norm_starts, i) - 1

    def _linear(self, k: int) -> bool:
        nxt = self.norm_starts[k + 1] if k + 1 < len(self.norm_starts) else self.norm_len
        return nxt - self.norm_starts[k] == self.orig_ends[k] - self.orig_starts[k]

    def start(self, i: int) -> int:
        """Original offset where normalised character ``i`` begins."""
        if not self.norm_starts:
            return 0
        if i >= self.norm_len:
            return self.orig_ends[-1]
        k = self._piece(i)
        if self._linear(k):
            return self.orig_starts[k] + (i - self.norm_starts[k])
        return self.orig_starts[k]

    def end(self, j: int) -> int:
        """Original offset (exclusive) where the normalised span ending at ``j`` ends."""
        if not self.norm_starts:
            return 0
        if j <= 0:
            return self.orig_starts[0]
        k = self._piece(j - 1)
        if self._linear(k):
            return self.orig_starts[k] + (j - self.norm_starts[k])
        return self.orig_ends[k]

    def from_original(self, p: int) -> int:
        """First normalised position whose original span starts at or after ``p``."""
        last = bisect.bisect_right(self.orig_starts, p) - 1
        if last < 0:
            return 0
        # Characters of one cluster can be pieces of their own that share its span: the
        # answer inside or past it is after its last piece, at its start its first piece.
        nxt = self.norm_starts[last + 1] if last + 1 < len(self.norm_starts) else self.norm_len
        k = last
        while k > 0 and self.orig_starts[k - 1] == self.orig_starts[k]:
            k -= 1
        if p >= self.orig_ends[k]:
            return nxt
        if self._linear(k):
            return self.norm_starts[k] + (p - self.orig_starts[k])
        return self.norm_starts[k] if p == self.orig_starts[k] else nxt


@dataclass(frozen=True, slots=True)
class Normalized:
    """A t1-normalised string, its offset map, and where superscript digits landed."""

    text: str
    map: OffsetMap
    superscripts: tuple[tuple[int, int], ...]
    """Normalised spans produced from superscript digits (citation-marker candidates)."""


class _Builder:
    """Accumulates output parts and map pieces, merging contiguous linear pieces."""

    __slots__ = (
        "last_space",
        "norm_len",
        "norm_starts",
        "orig_ends",
        "orig_starts",
        "parts",
        "shared",
        "space_piece",
        "sups",
    )

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.norm_starts: list[int] = []
        self.orig_starts: list[int] = []
        self.orig_ends: list[int] = []
        self.norm_len = 0
        self.last_space = True  # at the start, a space would be leading: drop it
        self.space_piece = False  # the last piece is one space, which a run may widen
        self.shared = False  # the last piece shares its cluster's span: keep it apart
        self.sups: list[tuple[int, int]] = []

    def literal(self, s: str, a: int) -> None:
        """Copy ``s`` (original offset ``a``), which holds no runs of spaces."""
        if not s:
            return
        if self.last_space and s[0] == " ":
            s = s[1:]
            a += 1
            if not s:
                return
        self._piece(a, a + len(s), len(s))
        self.parts.append(s)
        self.norm_len += len(s)
        self.last_space = s[-1] == " "
        self.space_piece = False

    def space(self, a: int, b: int) -> None:
        """One space for original ``[a, b)``; a space right after another widens it, so
        a collapsed run maps to the whole run."""
        if self.last_space:
            if self.space_piece:
                self.orig_ends[-1] = b
            return
        self.norm_starts.append(self.norm_len)
        self.orig_starts.append(a)
        self.orig_ends.append(b)
        self.parts.append(" ")
        self.norm_len += 1
        self.last_space = self.space_piece = True

    def emit(self, text: str, a: int, b: int) -> None:
        """Normalised ``text`` (no spaces) for original ``[a, b)``, as one piece."""
        self._piece(a, b, len(text))
        self.parts.append(text)
        self.norm_len += len(text)
        self.last_space = self.space_piece = False

    def _piece(self, a: int, b: int, n: int) -> None:
        ends = self.orig_ends
        if (
            ends
            and ends[-1] == a
            and b - a == n
            and not self.space_piece
            and not self.shared
            and (self.norm_len - self.norm_starts[-1]) == (ends[-1] - self.orig_starts[-1])
        ):
            ends[-1] = b
            return
        self.norm_starts.append(self.norm_len)
        self.orig_starts.append(a)
        self.orig_ends.append(b)
        self.shared = False

    def finish(self, orig_len: int) -> Normalized:
        text = "".join(self.parts)
        if text.endswith(" "):
            text = text[:-1]
            self.norm_len -= 1
            k = len(self.norm_starts) - 1
            if self.norm_starts[k] == self.norm_len:
                del self.norm_starts[k], self.orig_starts[k], self.orig_ends[k]
            elif (self.orig_ends[k] - self.orig_starts[k]) == (
                self.norm_len + 1 - self.norm_starts[k]
            ):
                self.orig_ends[k] -= 1
        sups = tuple((a, b) for a, b in self.sups if a < len(text))
        omap = OffsetMap(self.norm_starts, self.orig_starts, self.orig_ends, len(text), orig_len)
        return Normalized(text, omap, sups)


def _slow_regions(s: str) -> list[tuple[int, int]]:
    """The only places that need more than the ASCII path besides runs of spaces: runs of
    non-ASCII characters and the single or repeated spaces between them, widened over the
    spaces around them and over the base letter a leading mark may compose with, merged
    where they touch.

    ``encode("ascii", "replace")`` (C speed) puts a ``?`` at the index of every non-ASCII
    code point, so only the ``?`` bytes need a look: far cheaper than a regular-expression
    scan of a whole text that is almost all ASCII.  From each one, a regular expression
    (C speed again) takes in the whole region at once, so that Greek or Chinese text, all
    of it non-ASCII, is a few long regions rather than one per word.
    """
    spans: list[tuple[int, int]] = []
    if s.isascii():
        return spans
    n = len(s)
    data = s.encode("ascii", "replace")
    find = data.find
    p = find(63)  # b"?"
    while p >= 0:
        if s[p] == "?":
            p = find(63, p + 1)
            continue
        a, b = p, p + 1
        if b < n and data[b] in _MAY_GO_ON:  # most non-ASCII characters stand alone
            m = _NON_ASCII.match(s, p)
            b = m.end() if m is not None else b
        first = a
        while first < b - 1 and s[first] in IGNORABLE:
            first += 1
        if a > 0 and s[a - 1] != " " and _joins_previous(s[first]):
            a -= 1
        while a > 0 and s[a - 1] == " ":
            a -= 1
        while b < n and s[b] == " ":
            b += 1
        if spans and a <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(b, spans[-1][1]))
        else:
            spans.append((a, b))
        p = find(63, b)
    return spans


_ONE_FOR_ONE: dict[str, str | None] = {}


def _one_for_one(c: str) -> str | None:
    """What ``c`` becomes under t1 when that is one character, whatever its neighbours
    (``’`` -> ``'``, ``é`` -> ``é``, no-break space -> space), else None."""
    try:
        return _ONE_FOR_ONE[c]
    except KeyError:
        pass
    out: str | None = None
    if c in _SIMPLE:
        out = _SIMPLE[c]
    elif not (c in IGNORABLE or c in SUPERSCRIPT_DIGITS or unicodedata.combining(c)):
        norm = unicodedata.normalize("NFKC", c).translate(_TRANSLATE)
        if len(norm) == 1 and not unicodedata.combining(norm):
            out = " " if norm.isspace() else norm  # é stays é, µ (micro) becomes μ
    _ONE_FOR_ONE[c] = out
    return out


def _joins_previous(c: str) -> bool:
    return unicodedata.combining(c) != 0


def _cluster_end(s: str, i: int, end: int) -> tuple[int, bool]:
    """End of the cluster starting at ``i``: the starter and all that combines with it,
    at most MAX_CLUSTER_MARKS characters after the first; and whether it stopped at that
    cap with a combining mark next (the first of the marks past the cap)."""
    j = i + 1
    base = s[i]
    joined = 0
    while j < end:
        c = s[j]
        if c in IGNORABLE:
            j += 1  # removed before NFKC, so it does not keep a mark from its base
            continue
        if c == " ":
            break
        mark = unicodedata.combining(c) != 0
        if joined == MAX_CLUSTER_MARKS:
            return j, mark
        if not mark and len(unicodedata.normalize("NFC", base + c)) > len(
            unicodedata.normalize("NFC", base)
        ):
            break  # a starter that does not compose with the cluster begins a new one
        base += c
        joined += 1
        j += 1
    return j, False


@functools.cache
def _single_marks() -> tuple[re.Pattern[str], tuple[tuple[str, str], ...]]:
    """Runs of combining marks (canonical combining class not 0) that are one character
    under NFKC when each stands on its own: all of them but U+0344 (two).  And the table
    for the three that NFKC changes (U+0340, U+0341, U+0343, old spellings of U+0300,
    U+0301, U+0313), done with ``str.replace``, which is C speed where ``str.translate``
    is not.  Built on first use (a text's first cluster longer than the cap) from
    the first two planes, where Unicode has every combining mark; a mark it misses still
    takes the per-cluster path."""
    ranges: list[str] = []
    table: list[tuple[str, str]] = []
    start = -1
    for cp in range(0x20001):
        c = chr(cp)
        alone = _alone(c) if cp < 0x20000 and unicodedata.combining(c) else ""
        if len(alone) == 1:
            if alone != c:
                table.append((c, alone))
            if start < 0:
                start = cp
        elif start >= 0:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(cp - 1))}")
            start = -1
    return re.compile("[" + "".join(ranges) + "]+"), tuple(table)


def _past_the_cap(s: str, j: int, end: int, out: _Builder) -> int:
    """The combining marks from ``j`` on, past a cluster's cap: each is a cluster of its
    own, so each maps back to itself.  A run of marks that stay one character each is
    copied as one piece, found by a regular expression (C speed): a million marks after
    one letter must not cost a million trips through Python."""
    pattern, table = _single_marks()
    while j < end:
        c = s[j]
        if c in IGNORABLE:
            j += 1
            continue
        if not unicodedata.combining(c):
            break
        m = pattern.match(s, j, end)
        if m is not None:
            run = m.group()
            for old, new in table:
                if old in run:
                    run = run.replace(old, new)
            out.emit(run, j, m.end())
            j = m.end()
        else:  # U+0344, two marks under NFKC, both mapped to it; or a mark the table misses
            alone = _alone(c)
            if len(alone) > 1 and not any(x.isspace() or x in IGNORABLE for x in alone):
                out.emit(alone, j, j + 1)
            else:
                _cluster(s, j, j + 1, out)
            j += 1
    return j


_ALONE: dict[str, str] = {}


def _alone(c: str) -> str:
    """``c`` under NFKC and t1's substitutions, as a cluster of its own."""
    try:
        return _ALONE[c]
    except KeyError:
        out = _ALONE[c] = unicodedata.normalize("NFKC", c).translate(_TRANSLATE)
        return out


_FAST_MIN = 2
"""Below this many characters a region takes the per-cluster path without a look first."""
_STANDALONE: dict[str, str | None] = {}


@functools.cache
def _composes_after() -> frozenset[str]:
    """Characters of combining class 0 that NFC may compose with the character before
    them: the second halves of two-character canonical decompositions (Indic vowel signs
    and length marks, Balinese, Sinhala ...) and Hangul's medial vowels and final
    consonants.  Read on first use from the first two planes, where Unicode has them all."""
    out = {chr(c) for c in range(0x1161, 0x1176)} | {chr(c) for c in range(0x11A8, 0x11C3)}
    for cp in range(0x20000):
        parts = unicodedata.decomposition(chr(cp)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            second = chr(int(parts[1], 16))
            if not unicodedata.combining(second):
                out.add(second)
    return frozenset(out)


def _standalone(c: str) -> str | None:
    """What ``c`` becomes under t1 when it is a cluster of its own whatever stands before
    it, or None when the per-cluster path must read it: a combining mark, an invisible
    character, a superscript digit, one that NFKC lengthens or turns into a mark, one that
    may compose with the character before it."""
    try:
        return _STANDALONE[c]
    except KeyError:
        pass
    out = _one_for_one(c)
    if out is not None and (c in _composes_after() or out in _composes_after()):
        out = None
    _STANDALONE[c] = out
    return out


@functools.lru_cache(maxsize=256)
def _any_of(chars: str) -> re.Pattern[str]:
    return re.compile("[" + re.escape(chars) + "]+")


def _substituted(seg: str, changed: dict[str, str]) -> str:
    """``seg`` with the one-for-one substitutions in ``changed`` made (C speed, with a
    call into Python only where one is made)."""
    if not changed:
        return seg
    return _any_of("".join(sorted(changed))).sub(
        lambda m: "".join(map(changed.__getitem__, m.group())), seg
    )


def _slow(s: str, a: int, b: int, out: _Builder) -> None:
    """The path for a region of non-ASCII text, ``s[a:b]``.  Most characters of Greek,
    Cyrillic or Chinese text are clusters of their own that t1 leaves alone or changes
    one for one: those stretches are copied like ASCII text (``_stretch``, C speed).  Only
    the characters ``_standalone`` cannot vouch for, with the character before each run of
    them (the letter a mark belongs to), go one cluster at a time; a region of a few
    characters goes that way whole."""
    if b - a < _FAST_MIN:
        _clusters(s, a, b, out)
        return
    special: list[str] = []
    changed: dict[str, str] = {}
    blank = {" "}
    for c in set(s[a:b]):
        t = _standalone(c)
        if t is None:
            special.append(c)
        elif t != c:
            changed[c] = t
            if t == " ":
                blank.add(c)
    slow: list[tuple[int, int]] = []
    if special:
        for m in _any_of("".join(sorted(special))).finditer(s, a, b):
            lo, hi = max(m.start() - 1, a), m.end()
            # the spaces next to the run go with it: a run of spaces is not cut in two, and
            # a space a mark follows stays with the mark
            while lo > a and s[lo] in blank:
                lo -= 1
            while hi < b and s[hi] in blank:
                hi += 1
            if slow and lo <= slow[-1][1]:
                slow[-1] = (slow[-1][0], hi)
            else:
                slow.append((lo, hi))
    pos = a
    for lo, hi in slow:
        if lo > pos:
            _stretch(_substituted(s[pos:lo], changed), pos, out)
        _clusters(s, lo, hi, out)
        pos = hi
    if pos < b:
        _stretch(_substituted(s[pos:b], changed), pos, out)


def _clusters(s: str, a: int, b: int, out: _Builder) -> None:
    """The per-cluster path over ``s[a:b]``: one cluster at a time, so that every
    normalised character maps back to the cluster it came from."""
    i = a
    while i < b:
        c = s[i]
        if c == " ":
            out.space(i, i + 1)
            i += 1
            continue
        if c in IGNORABLE:
            i += 1
            continue
        simple = _SIMPLE.get(c)
        if simple is not None and (i + 1 == b or s[i + 1].isascii()):
            if simple == " ":
                out.space(i, i + 1)
            else:
                out.emit(simple, i, i + 1)
            i += 1
            continue
        j, capped = _cluster_end(s, i, b)
        _cluster(s, i, j, out)
        i = _past_the_cap(s, j, b, out) if capped else j


def _cluster(s: str, i: int, j: int, out: _Builder) -> None:
    """Emit the cluster ``s[i:j]`` under t1, every character of it mapped to all of it."""
    c = s[i]
    cluster = s[i:j].translate(_DROP)
    if cluster.isascii():
        out.emit(cluster, i, j)
        return
    norm = unicodedata.normalize("NFKC", cluster).translate(_TRANSLATE)
    norm = norm.translate(_DROP)
    sup_start = out.norm_len
    words = norm.split()
    # a cluster that gives several pieces (words and spaces, "¨" -> " ̈") shares its span
    # among them: none may merge with a neighbour, or the map would read a copy there
    shared = len(words) != 1 or len(norm) != len(words[0])
    out.shared = out.shared or shared
    for k, word in enumerate(words):
        if k or norm[:1].isspace():
            out.space(i, j)
        if len(word) == j - i > 1:
            # as long as its source but not char for char (ﬁ + accent -> fí):
            # one piece per character, so the map does not read it as a copy
            for ch in word:
                out.emit(ch, i, j)
        else:
            out.emit(word, i, j)
    if norm[-1:].isspace():
        out.space(i, j)
    out.shared = out.shared or shared
    if c in SUPERSCRIPT_DIGITS and out.norm_len > sup_start:
        out.sups.append((sup_start, out.norm_len))


def _stretch(seg: str, base: int, out: _Builder) -> None:
    """Copy ``seg`` (original offset ``base``): ASCII text, with one-for-one substitutions
    already made, whose only irregularity is runs of spaces.

    The runs are found by ``str.split`` and the map pieces built with slice assignments,
    all in C: line breaks in verse-like text give one run every few dozen characters, and a
    loop over them in Python would be most of the cost of preparing a text.
    """
    if not seg:
        return
    chunks = seg.split("  ")
    if len(chunks) == 1:
        out.literal(seg, base)
        return
    lens = [len(c) for c in chunks]
    toks = [c.lstrip(" ") for c in chunks]
    if not out.last_space:
        toks[0] = chunks[0]  # a space before the stretch's first word is kept
    starts = [base + x + 2 * i for i, x in enumerate(accumulate(lens, initial=0))]
    kept = [(t, st + ln - len(t)) for t, st, ln in zip(toks, starts, lens, strict=False) if t]
    if not kept:
        out.space(base, base + len(seg))
        return
    words = [t for t, _ in kept]
    t_starts = [st for _, st in kept]
    t_lens = [len(t) for t in words]
    t_ends = [st + ln for st, ln in zip(t_starts, t_lens, strict=True)]
    nl = out.norm_len
    if out.norm_starts and not out.last_space and t_starts[0] > base:
        # the stretch opened with a run right after visible text: one space for it
        out.space(base, t_starts[0])
        nl = out.norm_len
    elif t_starts[0] > base and out.space_piece:
        out.orig_ends[-1] = t_starts[0]
    n_starts = [nl + x + i for i, x in enumerate(accumulate(t_lens, initial=0))][:-1]
    k = len(words)
    ns: list[int] = [0] * (2 * k - 1)
    os_: list[int] = [0] * (2 * k - 1)
    oe: list[int] = [0] * (2 * k - 1)
    ns[0::2] = n_starts
    ns[1::2] = [a + ln for a, ln in zip(n_starts[:-1], t_lens[:-1], strict=True)]
    os_[0::2] = t_starts
    os_[1::2] = t_ends[:-1]
    oe[0::2] = t_ends
    oe[1::2] = t_starts[1:]
    out.norm_starts.extend(ns)
    out.orig_starts.extend(os_)
    out.orig_ends.extend(oe)
    out.parts.append(" ".join(words))
    out.norm_len = nl + sum(t_lens) + k - 1
    out.last_space = words[-1].endswith(" ")
    out.space_piece = out.shared = False
    last_end = t_ends[-1]
    if last_end < base + len(seg):
        out.space(last_end, base + len(seg))  # the stretch closed with a run


def normalize_with_map(original: str) -> Normalized:
    """Normalise ``original`` under t1 and keep the map back to it."""
    s = original
    for src, dst in _ASCII_SPACES:
        if src in s:
            s = s.replace(src, dst)
    out = _Builder()
    pending: list[str] = []  # the current stretch, one-for-one substitutions made
    stretch = pos = 0
    for a, b in _slow_regions(s):
        core = a + 1 if s[a] == " " else a  # the one non-space character, if so
        simple = None
        if b - core == 1 or (b - core == 2 and s[b - 1] == " "):
            simple = _one_for_one(s[core])
            if simple == " " and b - a > 1:
                simple = None  # a space next to a space: the run needs collapsing
        if simple is not None:
            # one typographic quote, dash or accented letter with at most one space on
            # either side: it stays part of the stretch, changed in place
            pending += (s[pos:core], simple, s[core + 1 : b])
        else:
            pending.append(s[pos:a])
            _stretch("".join(pending), stretch, out)
            pending = []
            _slow(s, a, b, out)
            stretch = b
        pos = b
    pending.append(s[pos:])
    _stretch("".join(pending), stretch, out)
    return out.finish(len(original))


def normalize(text: str) -> str:
    """The t1 form of ``text`` (no map); what quotes are compared in."""
    return normalize_with_map(text).text
