"""The closest passage (``match/near.py``), as docs/matching.md documents it.

(First written against the survivors of a mutation-testing run.)

``docs/matching.md`` ("The closest passage") documents the search: the similarity formula;
seeds that are pieces of whole words (12 to 32 characters, longer for longer quotes), or
runs of four or more letters or digits for a short quote; the first, last and middle seeds
looked up first and the others only when no region reaches the threshold; votes grouped
into regions; a passage that starts at the quote's first word and ends at its last word
when those are nearby, else at the best word boundaries.  Each group below pins one of
these rules, through ``closest_passage`` where the rule shows in its result and through
the small helpers whose docstrings state their contract where it does not.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citeproof.match.exact import Haystack
from citeproof.match.near import (
    MAX_HITS,
    MAX_REGIONS,
    MAX_SEEDS,
    SEED_CHARS,
    Passage,
    _candidates,
    _group,
    _Region,
    _seeds,
    _spread,
    closest_passage,
    similarity,
)

# --- similarity: 1 - indel_distance / (len(a) + len(b)) ---------------------------------


def _lcs(a: str, b: str) -> int:
    row = [0] * (len(b) + 1)
    for ca in a:
        prev = 0
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], prev + 1 if ca == cb else max(row[j], row[j - 1])
    return row[-1]


@given(st.text(alphabet="abc ", max_size=12), st.text(alphabet="abc ", max_size=12))
def test_similarity_is_the_normalised_indel_similarity(a: str, b: str) -> None:
    total = len(a) + len(b)
    indel = total - 2 * _lcs(a, b)
    expected = 1.0 if total == 0 else 1 - indel / total
    assert abs(similarity(a, b) - expected) < 1e-9
    assert similarity(a, b) == similarity(b, a)


def test_similarity_examples() -> None:
    assert similarity("risk", "risk") == 1.0
    assert similarity("abcd", "abce") == 0.75  # one deleted, one inserted, of eight
    assert similarity("abc", "xyz") == 0.0


# --- seeds: pieces of whole words, spread over the quote ---------------------------------


def _word_spans(q: str) -> list[tuple[int, int]]:
    spans, start = [], None
    for i, c in enumerate(q + " "):
        if c != " " and start is None:
            start = i
        elif c == " " and start is not None:
            spans.append((start, i))
            start = None
    return spans


_words = st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=9), min_size=1, max_size=90)


@given(_words)
def test_seeds_are_ordered_pieces_of_whole_words(words: list[str]) -> None:
    q = " ".join(words)
    seeds = _seeds(q)
    assert 1 <= len(seeds) <= MAX_SEEDS
    starts = {a for a, _ in _word_spans(q)}
    ends = {b for _, b in _word_spans(q)}
    prev_end = -1
    for offset, piece in seeds:
        assert q[offset : offset + len(piece)] == piece
        assert offset in starts and offset + len(piece) in ends
        assert offset > prev_end  # in order, not overlapping
        prev_end = offset + len(piece)
    word_pieces = len(seeds) >= 2 and seeds[0][0] == 0 and " " in q
    if word_pieces and len(q) >= 2 * 34 * MAX_SEEDS:
        # long quotes: every piece is as long as the longest seed size, and no longer
        # than it needs to be (one word fewer would be too short)
        for _, piece in seeds:
            assert len(piece) >= 32
            assert len(piece.rsplit(" ", 1)[0]) < 32 or seeds[-1][1] == piece


def test_seed_pieces_grow_to_the_size_and_a_short_tail_joins_the_last() -> None:
    # 12 characters at least for a short quote: "aaaa bbbb" is 9, "aaaa bbbb cccc" 14
    q = "aaaa bbbb cccc dddd eeee ffff gggg"
    assert _seeds(q) == [(0, "aaaa bbbb cccc"), (15, "dddd eeee ffff gggg")]
    q = "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii"
    assert _seeds(q) == [(0, "aaaa bbbb cccc"), (15, "dddd eeee ffff"), (30, "gggg hhhh iiii")]
    # a piece that reaches the size exactly stops there
    q = "aaaaa bbbbbb ccccc dddddd"
    assert _seeds(q) == [(0, "aaaaa bbbbbb"), (13, "ccccc dddddd")]


def test_seeds_of_a_long_quote_are_32_characters_and_spread() -> None:
    words = [f"w{i:03d}" for i in range(200)]  # four characters and a space each
    q = " ".join(words)
    seeds = _seeds(q)
    assert len(seeds) == MAX_SEEDS
    assert seeds[0] == (0, " ".join(words[:7]))  # 34 characters: 6 words would be 29
    assert all(len(p) == 34 for _, p in seeds)
    offsets = [a for a, _ in seeds]
    assert offsets == sorted(set(offsets))
    # spread over the whole quote, not bunched at its start
    assert offsets[-1] > len(q) * 3 // 4


def test_a_seed_of_exactly_32_characters_is_long_enough() -> None:
    words = [f"{c * 9}{i % 10}" for i in range(100) for c in "xyz"[i % 3]]  # 10 characters
    q = " ".join(words)
    seeds = _seeds(q)
    assert len(seeds) == MAX_SEEDS
    assert all(len(p) == 32 and p.count(" ") == 2 for _, p in seeds)


def test_seeds_of_a_medium_quote_are_longer_than_the_minimum() -> None:
    words = [f"w{i:03d}" for i in range(50)]
    q = " ".join(words)  # 249 characters
    seeds = _seeds(q)
    assert all(len(p) >= 30 for _, p in seeds[:-1])
    assert all(len(p) > SEED_CHARS for _, p in seeds)


def test_two_word_pieces_are_enough_and_one_is_not() -> None:
    q = "aaaaaa bbbbbb cccccc dddddd"  # two pieces of whole words
    assert _seeds(q) == [(0, "aaaaaa bbbbbb"), (14, "cccccc dddddd")]
    # one piece only: runs of four or more letters or digits instead
    assert _seeds("risk (RRID:AB_12) ok") == [(0, "risk"), (6, "RRID")]
    assert _seeds("a b c") == [(0, "a b c")]  # nothing better: the one piece


# --- seed order: first, last, middle, then the rest --------------------------------------


def test_spread_looks_up_first_last_and_middle_first() -> None:
    assert _spread(0) == []
    assert _spread(1) == [0]
    assert _spread(2) == [0, 1]
    assert _spread(3) == [0, 2, 1]
    assert _spread(4) == [0, 3, 2, 1]
    assert _spread(7) == [0, 6, 3, 1, 2, 4, 5]
    for n in range(20):
        assert sorted(_spread(n)) == list(range(n))


# --- grouping votes into regions ---------------------------------------------------------


def test_votes_are_grouped_by_diagonal_and_regions_with_more_seeds_come_first() -> None:
    # (diagonal, seed, start, end)
    votes = [
        (500, 1, 500, 580),
        (100, 0, 100, 180),
        (104, 2, 104, 184),
        (12, 2, 12, 92),
        (10, 1, 10, 90),
    ]
    assert _group(votes, 80) == [
        _Region(10, 92, 2),
        _Region(100, 184, 2),
        _Region(500, 580, 1),
    ]
    assert _group([], 80) == []
    # the region runs from the first seed's start to the last seed's end
    assert _group([(40, 3, 41, 120), (38, 0, 38, 118), (39, 5, 39, 119)], 80) == [
        _Region(38, 119, 3)
    ]
    assert _group([(38, 2, 38, 118), (41, 0, 41, 121), (40, 5, 40, 120)], 80) == [
        _Region(41, 120, 3)
    ]
    # far apart: two regions, the earlier first when they have as many seeds
    assert _group([(300, 0, 300, 380), (30, 1, 30, 110)], 80) == [
        _Region(30, 110, 1),
        _Region(300, 380, 1),
    ]
    # one seed's many hits do not outweigh two seeds
    many = [(d * 200, 0, d * 200, d * 200 + 80) for d in range(1, 6)]
    assert _group([*many, (2000, 1, 2000, 2080), (2002, 3, 2002, 2082)], 80)[0] == (
        _Region(2000, 2082, 2)
    )


def test_at_most_max_regions_regions() -> None:
    votes = [(d * 1000, 0, d * 1000, d * 1000 + 80) for d in range(MAX_REGIONS + 10)]
    regions = _group(votes, 80)
    assert [r.start for r in regions] == [d * 1000 for d in range(MAX_REGIONS)]


# --- where a passage may start or end ----------------------------------------------------

_texts = st.text(alphabet="ab ", max_size=30)


@given(_texts, st.data(), st.sampled_from(["", "a", "aa", "ab", "ba", "b b"]), st.booleans())
def test_candidates_are_the_nearest_word_hits_or_boundaries(
    text: str, data: st.DataObject, word: str, ends: bool
) -> None:
    lo = data.draw(st.integers(0, len(text) + 2))
    width = data.draw(st.integers(0, 12))
    at = data.draw(st.integers(0, len(text)))
    hi = lo + width
    got = _candidates(text, lo, hi, at, word, ends)
    wlo, whi = max(lo, 0), min(hi, len(text))
    if ends:
        hits = [
            p + len(word)
            for p in range(len(text))
            if word and text.startswith(word, p) and wlo <= p + len(word) <= whi
        ]
    else:
        hits = [
            p for p in range(len(text)) if word and text.startswith(word, p) and wlo <= p <= whi
        ]
    if hits:
        valid = set(hits)
    elif ends:
        valid = {at} | {
            p
            for p in range(max(wlo, 1), whi + 1)
            if (p == len(text) or text[p] == " ") and text[p - 1] != " "
        }
    else:
        valid = {at} | {
            p
            for p in range(wlo, min(whi + 1, len(text)))
            if text[p] != " " and (p == 0 or text[p - 1] == " ")
        }
    assert 1 <= len(got) <= 8
    assert set(got) <= valid
    distances = [abs(p - at) for p in got]
    assert distances == sorted(distances)  # nearest first
    if len(set(got)) < 8:
        assert set(got) == valid
    else:  # the eight nearest
        assert max(distances) <= min((abs(p - at) for p in valid - set(got)), default=99)


def test_candidates_examples() -> None:
    text = "the cat sat on the mat and the dog"
    # the quote's first word, nearest to the estimate first
    assert _candidates(text, 0, 30, 16, "the", ends=False) == [15, 27, 0]
    assert _candidates(text, 0, 30, 16, "the", ends=True) == [18, 3, 30]
    assert _candidates(text, 16, 30, 16, "the", ends=False) == [27]
    assert _candidates(text, 0, 17, 16, "the", ends=True) == [3]
    # not there: the estimate itself and the word boundaries in the window
    assert _candidates(text, 5, 20, 12, "zzz", ends=False) == [12, 12, 15, 8, 19]
    assert _candidates(text, 5, 20, 12, "zzz", ends=True) == [12, 11, 14, 7, 18]
    assert _candidates(text, 30, 60, 34, "zzz", ends=True) == [34, 34, 30]
    # every occurrence counts, next to or overlapping another
    assert _candidates("aaaa", 0, 4, 0, "aa", ends=False) == [0, 1, 2]
    assert _candidates("aaaa", 0, 4, 4, "aa", ends=True) == [4, 3, 2]
    assert _candidates("a a", 0, 3, 0, "a", ends=True) == [1, 3]
    # the end of a one-letter first word is a boundary too
    assert _candidates("a bc", 0, 4, 1, "zzz", ends=True) == [1, 1, 4]
    # at most eight, the nearest
    assert _candidates("a" * 20, 0, 20, 10, "a", ends=False) == [10, 9, 11, 8, 12, 7, 13, 6]


# --- the closest passage -----------------------------------------------------------------

TRIAL = (
    "Background. Aspirin did not reduce the risk of stroke in older adults with "
    "diabetes, and bleeding was more common. Methods follow."
)


def _passage(text: str, quote: str, good_enough: float = 0.9) -> str:
    found = closest_passage(Haystack(text), quote, good_enough)
    assert found is not None
    return text[found.start : found.end]


def test_passage_starts_at_the_first_word_so_a_dropped_not_stays_inside() -> None:
    quote = "did reduce the risk of stroke in older adults with diabetes"
    assert _passage(TRIAL, quote) == (
        "did not reduce the risk of stroke in older adults with diabetes"
    )


NEGATED = (
    "In this trial aspirin did not at all reduce the risk of stroke in older adults "
    "with diabetes, and it was not at all reduced later. Done."
)


def test_a_negation_next_to_the_quote_s_edge_stays_inside_the_passage() -> None:
    # Cutting "did" (or "reduced") off would score higher, but the passage is anchored
    # at the quote's first (last) word, so the dropped words stay visible in the diff.
    quote = "did reduce the risk of stroke in older adults with diabetes"
    assert _passage(NEGATED, quote, 0.8) == (
        "did not at all reduce the risk of stroke in older adults with diabetes"
    )
    quote = "risk of stroke in older adults with diabetes, and it was reduced"
    assert _passage(NEGATED, quote, 0.8) == (
        "risk of stroke in older adults with diabetes, and it was not at all reduced"
    )


def test_the_most_similar_start_wins_over_the_nearest() -> None:
    # The quote's first seed is not in the text, so the estimate is 8 characters early,
    # right at "the fact": the start is chosen by similarity, not by distance.
    text = (
        "We noted the fact the risk of ischaemic stroke in older adults with diabetes "
        "was lower. End."
    )
    quote = "the overall risk of ischaemic stroke in older adults with diabetes was lower"
    assert _passage(text, quote, 0.8) == (
        "the risk of ischaemic stroke in older adults with diabetes was lower"
    )
    # ... and the end is then chosen from that start: the quote's last word is not there,
    # so the best word boundary near the estimate, not the estimate itself
    text = text.replace("lower.", "lower than that.")
    quote = "the overall risk of ischaemic stroke in older adults with diabetes was lowest"
    assert _passage(text, quote, 0.8) == (
        "the risk of ischaemic stroke in older adults with diabetes was lower"
    )


def test_passage_ends_at_the_last_word() -> None:
    quote = "Aspirin did not reduce the risk of strokes in older adults with diabetes, and"
    assert _passage(TRIAL, quote) == (
        "Aspirin did not reduce the risk of stroke in older adults with diabetes, and"
    )
    quote = "the risk of stroke in elderly adults with diabetes"
    assert _passage(TRIAL, quote) == "the risk of stroke in older adults with diabetes"


def test_passage_at_the_very_start_and_end_of_the_text() -> None:
    text = "Aspirin did not reduce the risk of stroke in older adults"
    assert _passage(text, "Aspirin did reduce the risk of stroke in older adults") == text
    assert _passage(text, "aspirin did not reduce the risk of stroke in older") == (
        "Aspirin did not reduce the risk of stroke in older"
    )
    # the last word is found where it is, even inside a longer word
    found = closest_passage(Haystack(text), "Aspirin did not reduce the risk of strok", 0.9)
    assert found == Passage(0, len("Aspirin did not reduce the risk of strok"), 1.0)


def test_the_best_region_wins_whatever_its_place() -> None:
    # a weaker copy comes first in the text: the better one, later, is reported
    quote = "the drug reduced the risk of stroke in older adults with diabetes"
    weak = "the drug changed the rate of strokes in older people with diabetes"
    text = f"{weak}. Then: {quote.replace('reduced', 'reduces')}. End."
    found = closest_passage(Haystack(text), quote, 1.0)
    assert found is not None
    assert text[found.start : found.end] == quote.replace("reduced", "reduces")
    text = f"{quote.replace('reduced', 'reduces')}. Then: {weak}. End."
    found = closest_passage(Haystack(text), quote, 1.0)
    assert found is not None and found.start == 0


def test_a_change_of_case_does_not_hide_the_passage_when_folded() -> None:
    text = "BACKGROUND. ASPIRIN DID NOT REDUCE THE RISK OF STROKE IN OLDER ADULTS. END."
    quote = "Aspirin did not reduce the risk of stroke in older adults"
    hay = Haystack(text)
    assert closest_passage(hay, quote, 0.9) is None  # seeds are looked up as they are
    found = closest_passage(hay, quote, 0.9, folded=Haystack(text.lower()))
    assert found is not None
    assert text[found.start : found.end] == quote.upper()


# Seeds of this quote: 0 "alpha bravo charlie", 1 "delta echo foxtrot", 2 "golf hotel
# india", 3 "juliet kilo lima", 4 "mike november oscar".  The first batch looks up seeds 0, 4
# and 2; a decoy has those and nothing else.
SEEDED = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar"
)
DECOY = (
    "alpha bravo charlie zzzzz zzzz zzzzzzz golf hotel india zzzzzz zzzz zzzz mike november oscar"
)
# only seed 1, the fourth looked up, finds the true passage
TRUE = (
    SEEDED.replace("alpha", "alpxa")
    .replace("india", "indya")
    .replace("oscar", "oscxr")
    .replace("lima", "lina")
)
HAY = f"{DECOY}. {'filler words here. ' * 10}{TRUE}."


def test_the_other_seeds_are_looked_up_only_below_good_enough() -> None:
    assert [a for a, _ in _seeds(SEEDED)] == [0, 20, 39, 56, 73]
    decoy = closest_passage(Haystack(HAY), SEEDED, good_enough=0.5)
    assert decoy is not None and decoy.start == 0 and decoy.similarity < 0.9
    # a passage at exactly good_enough is good enough
    again = closest_passage(Haystack(HAY), SEEDED, good_enough=decoy.similarity)
    assert again == decoy
    # above it, every seed is looked up, and the true passage is found
    best = closest_passage(Haystack(HAY), SEEDED, good_enough=1.0)
    assert best is not None and HAY[best.start : best.end] == TRUE
    assert best.similarity > 0.9


def test_regions_backed_by_more_seeds_are_refined_first() -> None:
    # More copies of the quote's first seed come before the passage than there are regions
    # refined (MAX_REGIONS); the passage, backed by three seeds, is still found.
    quote = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima"
    decoys = " ".join(
        f"alpha bravo charlie {i:02d} filler words here." for i in range(MAX_REGIONS + 4)
    )
    passage = quote.replace("echo", "ecko")
    text = f"{decoys} {passage}. End."
    found = closest_passage(Haystack(text), quote, 0.9)
    assert found is not None and text[found.start : found.end] == passage


def test_a_seed_found_everywhere_does_not_crowd_out_a_rare_one() -> None:
    # The first seed occurs more than MAX_HITS times before the passage, where it is
    # misspelt; only the last seed is found there.  The common seed's hits are set aside,
    # so the one hit of the rare seed decides the region.
    quote = "alpha bravo charlie delta echo foxtrot golf hotel india"
    assert [p for _, p in _seeds(quote)] == [
        "alpha bravo charlie",
        "delta echo foxtrot",
        "golf hotel india",
    ]
    decoys = " ".join(
        f"alpha bravo charlie {w} here." for w in ["one", "two", "six"] * (MAX_HITS // 3 + 2)
    )
    passage = quote.replace("alpha", "alpxa").replace("delta", "delxa")
    text = f"{decoys} And then: {passage}. End."
    found = closest_passage(Haystack(text), quote, 0.9)
    assert found is not None and text[found.start : found.end] == passage


def test_of_two_equally_close_passages_the_first_is_reported() -> None:
    quote = "the risk of ischaemic stroke in older adults with diabetes was lower"
    copy = quote.replace("lower", "lowar")
    text = f"Start. {copy}. Middle part of the text. {copy}. End."
    found = closest_passage(Haystack(text), quote, 1.0)
    assert found is not None and found.start == text.index(copy)
    assert text[found.start : found.end] == copy


def test_no_passage_without_a_quote_a_text_or_a_shared_seed() -> None:
    assert closest_passage(Haystack(TRIAL), "", 0.9) is None
    assert closest_passage(Haystack(""), "the risk of stroke", 0.9) is None
    assert closest_passage(Haystack(TRIAL), "zebra crossings everywhere in town", 0.9) is None
