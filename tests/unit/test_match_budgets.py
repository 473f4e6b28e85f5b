"""The work budget of the closest-passage search (``match/near.py``, docs/matching.md "The
budget"), and the searches that must not cost a trip through Python per character.

A search that ends within its budget gives exactly what it gives without one; a search
that would overrun stops and reports no passage, and the check is NOT_FOUND with a reason
that says so.  What the budget costs in time is measured by ``bench/bench_hostile.py``,
never here: every test below counts work, not seconds.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import citeproof
from citeproof.match import near
from citeproof.match.exact import Haystack
from citeproof.match.near import (
    CELL_UNITS,
    NEAR_FLOOR_CHARS,
    NEAR_PASSES,
    STEP_UNITS,
    Budget,
    BudgetSpentError,
    closest_passage,
    comparison_units,
)
from citeproof.match.prepare import prepare
from citeproof.match.quote import BUDGET_FLAG, BUDGET_REASON, find_quote

# --- the budget itself --------------------------------------------------------------------


def test_the_budget_of_one_check() -> None:
    assert (NEAR_PASSES, NEAR_FLOOR_CHARS) == (512, 1 << 20)
    budget = Budget.for_search(10_000_000, 100_000)
    assert budget.limit == 512 * (10_000_000 + 100_000 + 1_048_576)
    assert budget.spent == 0


def test_a_step_that_would_overrun_is_refused_and_not_spent() -> None:
    budget = Budget(100)
    budget.spend(60)
    with pytest.raises(BudgetSpentError):
        budget.spend(41)
    assert budget.spent == 60
    budget.spend(40)
    assert budget.spent == 100
    with pytest.raises(BudgetSpentError):
        budget.spend(1)


def test_a_comparison_is_priced_by_its_bit_parallel_cells() -> None:
    # one cell is 64 characters of the shorter string against one of the longer
    assert comparison_units(10, 10) == CELL_UNITS * 1 * 10 + STEP_UNITS
    assert comparison_units(64, 100) == CELL_UNITS * 2 * 100 + STEP_UNITS
    assert comparison_units(100, 64) == comparison_units(64, 100)
    assert comparison_units(100_000, 100_000) == CELL_UNITS * 1563 * 100_000 + STEP_UNITS


# --- a budget never changes a passage: it gives the same one, or none ----------------------

WORDS = st.sampled_from(
    "the of and a to in risk was stroke older adults aspirin not reduced Aspirin The "
    "12 3.5 trial patients".split()
)
TEXTS = st.lists(WORDS, min_size=4, max_size=80).map(" ".join)


@st.composite
def text_and_quote(draw: st.DrawFn) -> tuple[str, str]:
    """A text and a quote made from a piece of it with a few words changed (or from
    anywhere: pieces of the text stitched together)."""
    text = draw(TEXTS)
    words = text.split(" ")
    if draw(st.booleans()):
        a = draw(st.integers(0, len(words) - 1))
        b = draw(st.integers(a + 1, len(words)))
        picked = words[a:b]
        for _ in range(draw(st.integers(0, 3))):
            picked[draw(st.integers(0, len(picked) - 1))] = draw(WORDS)
    else:
        picked = draw(st.lists(st.sampled_from(words), min_size=1, max_size=30))
    return text, " ".join(picked)


@given(text_and_quote(), st.integers(0, 3_000_000), st.booleans(), st.sampled_from([0.9, 1.0]))
def test_a_search_within_its_budget_is_the_search_without_one(
    case: tuple[str, str], limit: int, fold: bool, good_enough: float
) -> None:
    text, quote = case
    hay = Haystack(text)
    folded = Haystack(text.lower()) if fold else None
    free = closest_passage(hay, quote, good_enough, folded)
    budget = Budget(limit)
    try:
        got = closest_passage(hay, quote, good_enough, folded, budget)
    except BudgetSpentError:
        assert budget.spent <= limit
        # a budget that was not enough is never more than what a finished search spends
        whole = Budget(10**12)
        closest_passage(hay, quote, good_enough, folded, whole)
        assert whole.spent > limit
        return
    assert got == free
    assert budget.spent <= limit


@given(text_and_quote())
def test_what_a_search_spends_does_not_depend_on_its_budget(case: tuple[str, str]) -> None:
    text, quote = case
    spent = []
    for limit in (10**9, 10**12):
        budget = Budget(limit)
        closest_passage(Haystack(text), quote, 0.9, None, budget)
        spent.append(budget.spent)
    assert spent[0] == spent[1]


# --- a check whose search stops at its budget --------------------------------------------

STROKE = "Background. Aspirin did not reduce the risk of stroke in older adults. Methods follow."
QUOTE = "Aspirin did not reduce the risk of strokes in older adults"


def test_a_check_whose_search_stops_at_its_budget_is_not_found_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert find_quote(prepare(STROKE), QUOTE).verdict == "NEAR"
    monkeypatch.setattr(near, "NEAR_PASSES", 1)
    monkeypatch.setattr(near, "NEAR_FLOOR_CHARS", 0)
    found = find_quote(prepare(STROKE), QUOTE)
    assert (found.verdict, found.near, found.reason) == ("NOT_FOUND", None, BUDGET_REASON)
    assert found.flags == (BUDGET_FLAG,)
    # the public result says so too (service/results.py passes the reason on)
    result = citeproof.check_text(QUOTE, STROKE)
    assert result.verdict == "NOT_FOUND" and result.near is None
    assert result.reason is not None and "stopped at its work budget" in result.reason
    assert result.flags == [BUDGET_FLAG]


def test_a_missing_fragment_whose_search_stops_at_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quote = "Background. Aspirin ... did not reduce the risk of strokes in older adults"
    assert find_quote(prepare(STROKE), quote).verdict == "NEAR"
    monkeypatch.setattr(near, "NEAR_PASSES", 1)
    monkeypatch.setattr(near, "NEAR_FLOOR_CHARS", 0)
    found = find_quote(prepare(STROKE), quote)
    assert (found.verdict, found.near, found.reason) == ("NOT_FOUND", None, BUDGET_REASON)
    assert found.flags == (BUDGET_FLAG,)
    assert found.fragments is not None
    assert [f.verdict for f in found.fragments] == ["EXACT", "NOT_FOUND"]


def test_a_stitched_quote_stops_at_the_real_budget() -> None:
    """Twenty thousand characters stitched from pieces of a text: every seed hits
    somewhere, and every region would cost sixteen comparisons of the whole quote."""
    rng = random.Random(7)
    vocab = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(2, 9)))
        for _ in range(400)
    ]
    text = " ".join(rng.choice(vocab) for _ in range(40_000))
    pieces, size = [], 0
    while size < 20_000:
        a = rng.randrange(len(text) - 300)
        a = text.index(" ", a) + 1
        piece = text[a : text.index(" ", a + rng.randint(40, 250))]
        pieces.append(piece)
        size += len(piece) + 1
    quote = " ".join(pieces)
    found = find_quote(prepare(text), quote)
    assert (found.verdict, found.near, found.reason) == ("NOT_FOUND", None, BUDGET_REASON)
    assert found.flags == (BUDGET_FLAG,)


# --- searches that must not go through Python once per hit --------------------------------


class _CountingText(str):
    """A text that counts how often a search confirms a hit on it."""

    confirmations = 0

    def startswith(self, *args: object, **kwargs: object) -> bool:
        type(self).confirmations += 1
        return super().startswith(*args, **kwargs)  # type: ignore[arg-type]


def test_a_needle_outside_latin1_is_searched_in_the_text_not_confirmed_hit_by_hit() -> None:
    # Greek: every letter is "?" in the one-byte key, so the key matches "????" nearly
    # everywhere; each of those places once cost a confirmation in Python.
    text = _CountingText(" ".join(["αβγδ"] * 5_000 + ["αβγε"]))
    hay = Haystack(text)
    _CountingText.confirmations = 0
    assert hay.find_all("αβγε") == [len(text) - 4]
    assert hay.rfind_all("αβγδ", 0, len(text), 2) == [len(text) - 9, len(text) - 14]
    assert _CountingText.confirmations == 0
    # a real "?" is told apart from a placeholder the same way
    assert Haystack("why? α?").find_all("?") == [3, 6]
    assert Haystack("why? α?").rfind_all("?", 0, 7, 5) == [6, 3]
