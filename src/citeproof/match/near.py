"""The closest passage to a quote that does not occur exactly.

Similarity is the Indel normalised similarity (rapidfuzz ``fuzz.ratio / 100``):

    similarity(q, p) = 1 - indel_distance(q, p) / (len(q) + len(p))

where the Indel distance counts the characters inserted and deleted to turn one string
into the other, and both strings are t1-normalised with citation markers removed.

Why seeding: scoring every window of a 10 MB text is far too slow (difflib takes tens of
milliseconds per check even with anchors).  A quote close enough to count (similarity at
least 0.90) shares long verbatim stretches with its passage, so pieces of the quote are
looked up with ``str.find`` (a C scan), each hit votes for where the passage would start,
and only the few regions with votes are scored with rapidfuzz.  The passage's ends are
then moved to nearby word boundaries where that scores higher.

Why a budget: what the search does grows with the text (a pass of ``str.find`` per seed)
and with the square of the quote (each rapidfuzz comparison), and a hostile quote (100,000
characters stitched from pieces of the text) can make every seed hit everywhere.  So the
search is given a ``Budget``, counted in one unit per character of a ``str.find`` pass, and
every step is priced before it is taken: when the next step would overrun, the search
stops with ``BudgetSpentError`` and reports no passage at all.  A partial search could only say
"the best of what was looked at", which may not be the closest passage, so it says
nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeproof.match.exact import Haystack

_WORD = re.compile(r"\S+")
_ALNUM = re.compile(r"[^\W_]{4,}")
SEED_CHARS = 12
MAX_SEEDS = 12
MAX_HITS = 64
MAX_REGIONS = 16

# The price of each step, in units of one character of a ``str.find`` pass.  Measured on
# CPython 3.11 and rapidfuzz 3 (bench/bench_hostile.py prints what one pass costs): a seed
# scan is about 0.1-0.3 ns a character, one cell of rapidfuzz's bit-parallel Indel (64
# characters of one string against one of the other) about 1.5 ns, one turn of a loop in
# Python about 100 ns.  Each price is rounded well up, so the units a search spends are an
# upper bound on its time in passes.
CELL_UNITS = 32
"""One rapidfuzz cell: 64 characters of the shorter string against one of the longer."""
STEP_UNITS = 1024
"""One turn of a Python loop (a hit looked at, a position tried, a vote sorted)."""
NEAR_PASSES = 512
"""The budget of one check's closest-passage search, in passes over its text."""
NEAR_FLOOR_CHARS = 1 << 20
"""Added to the text's length, so that a short text still affords a full search."""


class BudgetSpentError(Exception):
    """The closest-passage search stopped at its budget before it finished."""


@dataclass(slots=True)
class Budget:
    """Work the closest-passage search may still do, in units of one character of a
    ``str.find`` pass.  ``spend`` is called before each step, with its price."""

    limit: int
    spent: int = 0

    @classmethod
    def for_search(cls, text_chars: int, quote_chars: int) -> Budget:
        """The budget of one check: NEAR_PASSES passes over the text, the quote and
        NEAR_FLOOR_CHARS more characters."""
        return cls(NEAR_PASSES * (text_chars + quote_chars + NEAR_FLOOR_CHARS))

    def spend(self, units: int) -> None:
        if self.spent + units > self.limit:
            raise BudgetSpentError
        self.spent += units


def comparison_units(a: int, b: int) -> int:
    """The price of one rapidfuzz comparison of strings of ``a`` and ``b`` characters."""
    short, long = min(a, b), max(a, b)
    return CELL_UNITS * (short // 64 + 1) * long + STEP_UNITS


@dataclass(frozen=True, slots=True)
class Passage:
    start: int
    end: int
    similarity: float


def similarity(a: str, b: str) -> float:
    # imported here: a quote found as written never needs rapidfuzz, and a one-shot check
    # should not pay for importing it (issue 16); once imported this is a dict lookup
    from rapidfuzz.distance import Indel

    return float(Indel.normalized_similarity(a, b))


def _seeds(q: str) -> list[tuple[int, str]]:
    """Non-overlapping pieces of whole words spread over q.  Longer pieces scan faster
    (``str.find`` skips by the needle's length), shorter ones survive more changes, so
    their length grows with the quote, from SEED_CHARS up to 32."""
    words = [m.span() for m in _WORD.finditer(q)]
    size = max(SEED_CHARS, min(32, len(q) // 8))
    pieces: list[tuple[int, str]] = []
    i = 0
    while i < len(words):
        a = words[i][0]
        j = i
        while j < len(words) and words[j][1] - a < size:
            j += 1
        if j == len(words):
            j -= 1
            if pieces and words[j][1] - a < size:
                # a short tail joins the piece before it
                a = pieces.pop()[0]
        b = words[j][1]
        pieces.append((a, q[a:b]))
        i = j + 1
    if len(pieces) < 2:
        # a short quote: runs of letters or digits give more chances to survive a change
        # ("vector (RRID:Addgene_42231)" still has "RRID" and "Addgene")
        pieces = [(m.start(), m.group()) for m in _ALNUM.finditer(q)] or pieces
    if len(pieces) > MAX_SEEDS:
        step = len(pieces) / MAX_SEEDS
        pieces = [pieces[int(k * step)] for k in range(MAX_SEEDS)]
    return pieces


@dataclass(frozen=True, slots=True)
class _Region:
    start: int
    end: int
    seeds: int


def _scan(
    hay: Haystack,
    q: str,
    seed: tuple[int, str],
    k: int,
    votes: list[tuple[int, int, int, int]],
    common: list[tuple[int, int, int, int]],
    budget: Budget | None = None,
) -> None:
    """Record where one seed occurs: each hit says where the passage would start (hit
    minus the seed's offset in the quote) and end.  A seed with more than MAX_HITS hits
    says little; its hits are kept aside in case no seed is rarer."""
    offset, piece = seed
    n = len(q)
    if budget is not None:
        budget.spend(len(hay.text) + (MAX_HITS + 1) * STEP_UNITS)
    hits = hay.find_all(piece, limit=MAX_HITS + 1)
    target = votes if len(hits) <= MAX_HITS else common
    target.extend((h - offset, k, h - offset, h - offset + n) for h in hits[:MAX_HITS])


def _group(votes: list[tuple[int, int, int, int]], n: int) -> list[_Region]:
    """Cluster votes by diagonal; regions backed by more distinct seeds first."""
    if not votes:
        return []
    votes = sorted(votes)
    tol = max(8, n // 8)
    groups: list[tuple[int, int, _Region]] = []
    g = 0
    for i in range(1, len(votes) + 1):
        if i == len(votes) or votes[i][0] - votes[i - 1][0] > tol:
            group = votes[g:i]
            first = min(group, key=lambda v: v[1])
            last = max(group, key=lambda v: v[1])
            seeds = len({v[1] for v in group})
            groups.append((-seeds, first[2], _Region(first[2], last[3], seeds)))
            g = i
    groups.sort(key=lambda x: (x[0], x[1]))
    return [r for _, _, r in groups[:MAX_REGIONS]]


def _spread(n: int) -> list[int]:
    """Seed order: first, last, middle, then the rest — the first three alone survive any
    single changed word in two places at least."""
    head = list(dict.fromkeys(i for i in (0, n - 1, n // 2) if 0 <= i < n))
    return head + [i for i in range(n) if i not in head]


def _candidates(
    text: str, lo: int, hi: int, at: int, word: str, ends: bool, within: str | None = None
) -> list[int]:
    """Where the passage may start (or end) near ``at``: where the quote's first (last)
    word is, when it is there; else at word boundaries, or ``at`` itself.  ``within``,
    when given, is where the word is looked for (``text`` lower-cased, with the word)."""
    lo, hi = max(lo, 0), min(hi, len(text))
    found: list[int] = []
    where = text if within is None else within
    if word:
        if ends:
            p = where.find(word, max(lo - len(word), 0), hi)
            while p >= 0:
                found.append(p + len(word))
                p = where.find(word, p + 1, hi)
        else:
            p = where.find(word, lo, hi + len(word))
            while p >= 0 and p <= hi:
                found.append(p)
                p = where.find(word, p + 1, hi + len(word))
    if not found:
        found.append(at)
        for p in range(lo, hi + 1):
            if ends:
                if p > 0 and (p == len(text) or text[p] == " ") and text[p - 1] != " ":
                    found.append(p)
            elif p < len(text) and text[p] != " " and (p == 0 or text[p - 1] == " "):
                found.append(p)
    found.sort(key=lambda p: abs(p - at))
    return found[:8]


def _refine(
    text: str,
    q: str,
    region: _Region,
    folded: str | None = None,
    budget: Budget | None = None,
) -> Passage | None:
    """Best passage near the region's estimate: the start chosen with the end fixed, then
    the end with that start (similarity is nearly separable in the two ends).  With
    ``folded`` (``text`` lower-cased), the quote's first and last words are looked for
    whatever their case, as the seeds were."""
    reach = max(12, len(q) // 8)
    first_word = q.split(" ", 1)[0]
    last_word = q.rsplit(" ", 1)[-1]
    if folded is not None:
        first_word, last_word = first_word.lower(), last_word.lower()
    if budget is not None:
        # two windows of 2 * reach positions, each position (or hit) one turn of a loop
        budget.spend(2 * (2 * reach + 2 + len(first_word) + len(last_word)) * STEP_UNITS)
    starts = _candidates(
        text,
        region.start - reach,
        region.start + reach,
        max(region.start, 0),
        first_word,
        ends=False,
        within=folded,
    )
    ends = _candidates(
        text,
        region.end - reach,
        region.end + reach,
        min(region.end, len(text)),
        last_word,
        ends=True,
        within=folded,
    )
    best: Passage | None = None
    b0 = ends[0]
    for a in starts:
        if a < b0:
            if budget is not None:
                budget.spend(comparison_units(len(q), b0 - a))
            sim = similarity(q, text[a:b0])
            if best is None or sim > best.similarity:
                best = Passage(a, b0, sim)
    a0 = best.start if best is not None else starts[0]
    for b in ends:
        if b > a0:
            if budget is not None:
                budget.spend(comparison_units(len(q), b - a0))
            sim = similarity(q, text[a0:b])
            if best is None or sim > best.similarity or (sim == best.similarity and b < best.end):
                best = Passage(a0, b, sim)
    return best


def closest_passage(
    hay: Haystack,
    q: str,
    good_enough: float = 1.0,
    folded: Haystack | None = None,
    budget: Budget | None = None,
) -> Passage | None:
    """The passage of ``text`` most similar to ``q`` among seeded regions, or None.

    Seeds are scanned in two batches; when the first batch already yields a passage at
    ``good_enough`` or above, the rest are not scanned (each costs a pass over the text).
    ``folded``, when given, is ``text`` lower-cased position for position: seeds (and the
    quote's first and last words) are looked up there, so a change of case does not hide
    a passage.  ``budget``, when given, is charged for every step before it is taken;
    when it would overrun, ``BudgetSpentError`` is raised and no passage is returned, so a
    search either finishes as it would without a budget or reports nothing.
    """
    text = hay.text
    if not q or not text:
        return None
    if budget is not None:
        budget.spend(len(q) * STEP_UNITS // 4)  # reading the quote into seeds
    seed_hay = hay if folded is None else folded
    seeds = _seeds(q if folded is None else q.lower())
    order = _spread(len(seeds))
    votes: list[tuple[int, int, int, int]] = []
    common: list[tuple[int, int, int, int]] = []
    best: Passage | None = None
    tried: set[tuple[int, int]] = set()
    lowered = None if folded is None else folded.text
    for batch in (order[:3], order[3:]):
        if not batch:
            continue
        for k in batch:
            _scan(seed_hay, q, seeds[k], k, votes, common, budget)
        if budget is not None:
            budget.spend(4 * (len(votes) + len(common) + 1) * STEP_UNITS)  # grouping
        for region in _group(votes or common, len(q)):
            if (region.start, region.end) in tried:
                continue
            tried.add((region.start, region.end))
            cand = _refine(text, q, region, lowered, budget)
            if cand is not None and (best is None or cand.similarity > best.similarity):
                best = cand
        if best is not None and best.similarity >= good_enough:
            break
    return best
