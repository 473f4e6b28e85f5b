"""The quote matcher (``match/quote.py``): ellipsis quotes, fragments, markers at the edges.

(First written against the survivors of a mutation-testing run.)

Each group pins one rule of ``find_quote`` a user relies on: how an ellipsis quote with
one misquoted fragment is reported (NEAR, fragment by fragment), which fragment placements
are allowed (in order only, at the edges of the text too), how a quote's own leading and
trailing citation markers widen the reported span, when a NEAR/NOT_FOUND result says the
quote matches "whatever the case", the threshold being inclusive, and the dehyphenated
profile.  Everything goes through ``prepare`` + ``find_quote``, the pure API the service
calls, or through ``citeproof.check_text``.
"""

from __future__ import annotations

import pytest

import citeproof
from citeproof.match.prepare import prepare
from citeproof.match.quote import find_quote
from citeproof.match.types import MatchOptions, QuoteMatch

TRIAL = (
    "Aspirin reduced the risk of stroke in older adults. The trial did not reduce "
    "mortality overall. Later, the drug was approved for secondary prevention in Europe"
)


def match(quote: str, text: str = TRIAL, **options: object) -> QuoteMatch:
    return find_quote(prepare(text), quote, MatchOptions(**options))  # type: ignore[arg-type]


def span_text(text: str, m: QuoteMatch) -> list[str]:
    return [text[s.start : s.end] for s in m.spans]


# --- an ellipsis quote with a misquoted fragment ----------------------------------------


def test_fragment_near_then_exact_is_near_fragment_by_fragment() -> None:
    m = match("Aspirin reduced the rusk of stroke ... the drug was approved")
    assert m.verdict == "NEAR"
    assert m.reason is None
    assert m.profile == "t1"
    assert m.spans == () and m.count == 0
    assert m.casefold_match is False  # "rusk" is nowhere, whatever the case
    assert m.fragments is not None and len(m.fragments) == 2
    first, second = m.fragments
    assert first.verdict == "NEAR"
    assert first.span is not None and TRIAL[first.span.start : first.span.end] == (
        "Aspirin reduced the risk of stroke"
    )
    assert first.similarity is not None and 0.9 <= first.similarity < 1.0
    assert first.gap_before is None
    assert second.verdict == "EXACT" and second.similarity == 1.0
    assert second.span is not None
    assert TRIAL[second.span.start : second.span.end] == "the drug was approved"
    assert second.gap_before == second.span.start - first.span.end
    # the skipped text says "did not": the ellipsis may hide a negation
    assert second.flags == ("ellipsis_hides_negation",)
    assert m.flags == ("ellipsis_hides_negation",)
    assert m.near is not None and m.near.similarity == first.similarity


def test_fragment_exact_then_near_keeps_the_exact_fragment_exact() -> None:
    m = match("Aspirin reduced the risk of stroke ... the drug was aproved for")
    assert m.verdict == "NEAR"
    assert m.casefold_match is True  # the first fragment is in the text as written
    assert m.fragments is not None
    first, second = m.fragments
    assert (first.verdict, first.similarity) == ("EXACT", 1.0)
    assert first.span is not None and (first.span.start, first.span.end) == (0, 34)
    assert second.verdict == "NEAR"
    assert second.similarity is not None and second.similarity < 1.0
    assert second.span is not None
    assert TRIAL[second.span.start : second.span.end].startswith("the drug was approved")


def test_the_worst_fragment_is_the_near_of_the_whole_quote() -> None:
    m = match("Aspirin reduced the rusk of stroke ... the drug was aproved for secondary")
    assert m.verdict == "NEAR"
    assert m.fragments is not None
    sims = [f.similarity for f in m.fragments]
    assert all(f.verdict == "NEAR" for f in m.fragments)
    assert sims[0] is not None and sims[1] is not None and sims[0] < sims[1]
    assert m.near is not None and m.near.similarity == min(sims)  # type: ignore[type-var]
    assert m.near.span == m.fragments[0].span


def test_a_near_fragment_keeps_its_own_flags() -> None:
    m = match("aspirin reduced the risk of stroke ... the drug was approved")
    assert m.verdict == "NEAR"
    assert m.fragments is not None
    assert m.fragments[0].verdict == "NEAR"
    assert "case_only" in m.fragments[0].flags
    assert m.fragments[1].flags == ("ellipsis_hides_negation",)


def test_a_near_fragment_counts_at_exactly_the_threshold() -> None:
    quote = "Aspirin reduced the rusk of stroke ... the drug was approved"
    sim = match(quote).fragments[0].similarity  # type: ignore[index]
    assert sim is not None
    assert match(quote, near_threshold=sim).verdict == "NEAR"
    assert match(quote, near_threshold=sim + 0.0001).verdict == "NOT_FOUND"


def test_a_near_fragment_anchored_at_the_very_start_of_the_text() -> None:
    # the longest fragment anchors the placement; here it is the near one, at offset 0
    m = match("Aspirin reduced the rusk of stroke in older adults ... the drug was approved")
    assert m.verdict == "NEAR"
    assert m.fragments is not None
    assert m.fragments[0].span is not None and m.fragments[0].span.start == 0


def test_a_near_fragment_anchored_at_the_very_end_of_the_text() -> None:
    m = match("the drug ... approved for secondary prevention in Europx")
    assert m.verdict == "NEAR"
    assert m.fragments is not None
    last = m.fragments[1]
    assert last.verdict == "NEAR"
    assert last.span is not None and last.span.end == len(TRIAL)


def test_a_near_fragment_may_not_be_placed_before_the_previous_one() -> None:
    m = match("the drug was approved for secondary prevention ... Aspirin reduced the rusk")
    assert m.verdict == "NOT_FOUND"
    assert m.reason is not None and "not in order" in m.reason


def test_an_exact_fragment_may_not_be_placed_before_the_previous_one() -> None:
    m = match("the drug was approved for secondary prevention ... Aspirin")
    assert m.verdict == "NOT_FOUND"
    assert m.reason is not None and "not in order" in m.reason
    assert m.casefold_match is True
    assert m.fragments is not None
    assert [f.verdict for f in m.fragments] == ["EXACT", "EXACT"]
    assert [f.similarity for f in m.fragments] == [1.0, 1.0]
    spans = [f.span for f in m.fragments]
    assert spans[0] is not None and TRIAL[spans[0].start : spans[0].end] == (
        "the drug was approved for secondary prevention"
    )
    assert spans[1] is not None and (spans[1].start, spans[1].end) == (0, 7)


def test_a_missing_fragment_makes_the_quote_not_found() -> None:
    m = match("Aspirin reduced the risk ... zebra crossing quickly here")
    assert m.verdict == "NOT_FOUND"
    assert m.profile == "t1"
    assert m.reason is not None and "does not occur" in m.reason
    assert m.casefold_match is True
    assert m.fragments is not None
    found, missing = m.fragments
    assert (found.verdict, found.similarity) == ("EXACT", 1.0)
    assert found.span is not None and (found.span.start, found.span.end) == (0, 24)
    assert (missing.verdict, missing.span, missing.similarity) == ("NOT_FOUND", None, None)


def test_a_misquoted_fragment_beside_a_missing_one_is_reported_near_not_exact() -> None:
    # "rusk" is not in the text: the fragment must not be reported as occurring exactly.
    m = match("Aspirin reduced the rusk of stroke ... zebra crossing quickly here now")
    assert m.verdict == "NOT_FOUND"
    assert m.fragments is not None
    near, missing = m.fragments
    assert near.verdict == "NEAR" and near.similarity is not None and near.similarity < 1.0
    assert near.span is not None and near.span.start == 0
    assert missing.verdict == "NOT_FOUND"


def test_a_missing_fragment_reports_the_first_occurrence_of_the_others() -> None:
    text = "the drug was approved. Then the drug was approved again."
    m = match("the drug was approved ... zebra crossing quickly here", text)
    assert m.verdict == "NOT_FOUND"
    assert m.fragments is not None
    span = m.fragments[0].span
    assert span is not None and span.start == 0


def test_a_short_missing_fragment_does_not_stop_the_search_for_near_fragments() -> None:
    # "zebra crossing" is too short for a closest passage; the next fragment is near
    m = match("zebra crossing ... Aspirin reduced the rusk of stroke ... oh my zebra")
    assert m.verdict == "NOT_FOUND"
    assert m.fragments is not None
    assert m.fragments[0].verdict == "NOT_FOUND"
    assert m.fragments[1].span is not None  # "rusk" was still looked for nearby


def test_a_missing_fragment_of_exactly_twenty_characters_is_looked_for_nearby() -> None:
    # 20 characters is long enough for a closest passage: the quote is NEAR
    frag = "the drug was aproved"
    assert len(frag) == 20
    m = match(f"Aspirin reduced the risk of stroke ... {frag}")
    assert m.verdict == "NEAR"
    assert m.fragments is not None and m.fragments[1].verdict == "NEAR"


# --- which occurrence of a fragment with variants ([T]he) is placed ---------------------


def test_a_fragment_before_the_anchor_takes_its_nearest_occurrence() -> None:
    text = "The drug was tested first. Later the drug was approved in Europe and widely used."
    m = match("[T]he drug was ... approved in Europe and widely used", text)
    assert m.verdict == "EXACT"
    assert m.fragments is not None
    span = m.fragments[0].span
    assert span is not None and span.start == text.index("the drug was")


def test_a_fragment_after_the_anchor_takes_its_first_occurrence() -> None:
    text = (
        "Aspirin reduced the risk of stroke in older adults; the drug was cheap. "
        "The drug was approved."
    )
    m = match("Aspirin reduced the risk of stroke in older adults ... [T]he drug was", text)
    assert m.verdict == "EXACT"
    assert m.fragments is not None
    span = m.fragments[1].span
    assert span is not None and span.start == text.index("the drug was")


# --- citation markers in fragments ------------------------------------------------------

MARKED = (
    "Aspirin reduced the risk of stroke [12]. It was well tolerated in most patients, "
    "and the drug was approved in Europe [13]."
)


def test_a_fragment_opening_with_a_marker_covers_the_marker() -> None:
    m = match("Aspirin reduced the risk ... [12]. It was well tolerated", MARKED)
    assert m.verdict == "EXACT"
    assert m.fragments is not None
    span = m.fragments[1].span
    assert span is not None
    assert MARKED[span.start : span.end] == "[12]. It was well tolerated"


def test_a_fragment_with_a_marker_in_the_wrong_place_is_not_exact() -> None:
    m = match("Aspirin reduced the risk of [12] stroke. It was ... well tolerated", MARKED)
    assert m.verdict != "EXACT"


# --- a quote's own leading and trailing markers widen the span --------------------------


@pytest.mark.parametrize(
    ("text", "quote", "expected"),
    [
        (MARKED, "[12]. It was well tolerated", "[12]. It was well tolerated"),
        (MARKED, "stroke [12]. It was well tolerated", "stroke [12]. It was well tolerated"),
        (
            MARKED,
            "It was well tolerated in most patients, and the drug was approved in Europe [13]",
            "It was well tolerated in most patients, and the drug was approved in Europe [13]",
        ),
        (
            "Aspirin reduced the risk of stroke [4] it was well tolerated [5] in most patients.",
            "[4] it was well tolerated",
            "[4] it was well tolerated",
        ),
        (
            "Aspirin reduced the risk of stroke [4] it was well tolerated [5] in most patients.",
            "it was well tolerated [5]",
            "it was well tolerated [5]",
        ),
        (
            "Aspirin reduced the risk of stroke [4] it was well tolerated [5] in most patients.",
            "[4]  it was well tolerated  [5]",
            "[4] it was well tolerated [5]",
        ),
        (
            "Aspirin reduced the risk of stroke.[4] It was well tolerated.[5] In most patients.",
            "[4] It was well tolerated.",
            "[4] It was well tolerated.",
        ),
        (
            "Aspirin reduced the risk of stroke.[4] It was well tolerated.[5] In most patients.",
            "It was well tolerated.[5]",
            "It was well tolerated.[5]",
        ),
        (
            "Aspirin reduced the risk of stroke.[4] It was well tolerated.[5] In most patients.",
            ".[4] It was well tolerated.[5]",
            ".[4] It was well tolerated.[5]",
        ),
    ],
)
def test_leading_and_trailing_markers_are_inside_the_span(
    text: str, quote: str, expected: str
) -> None:
    m = match(quote, text)
    assert m.verdict == "EXACT"
    assert span_text(text, m) == [expected]


# --- NEAR and NOT_FOUND -----------------------------------------------------------------


def test_near_threshold_is_inclusive() -> None:
    quote = "Aspirin reduced the risk of strokes in older adults"
    sim = match(quote).near.similarity  # type: ignore[union-attr]
    at = match(quote, near_threshold=sim)
    assert at.verdict == "NEAR" and at.near is not None and at.near.similarity == sim
    above = match(quote, near_threshold=min(1.0, sim + 0.0001))
    assert above.verdict == "NOT_FOUND"
    assert above.reason is not None and f"{sim:.2f}" in above.reason


def test_not_found_in_another_case_still_says_case_folded_match() -> None:
    m = match("ASPIRIN REDUCED THE RISK OF STROKE IN OLDER ADULTS")
    assert m.verdict == "NOT_FOUND"
    assert m.casefold_match is True
    other = match("Completely different words that are not there at all")
    assert other.verdict == "NOT_FOUND" and other.casefold_match is False
    assert other.reason is not None and "0.90" in other.reason


def test_near_with_a_changed_word_is_not_a_case_folded_match() -> None:
    m = match("Aspirin reduced the risk of strokes in older adults")
    assert m.verdict == "NEAR" and m.casefold_match is False
    c = match("aspirin reduced the risk of stroke in older adults")
    assert c.verdict == "NEAR" and c.casefold_match is True
    assert c.near is not None and "case_only" in c.near.flags


def test_seeds_are_found_whatever_the_case() -> None:
    # every seed of the quote has a capital the source lacks: only case-folded seeds
    # find the passage
    text = (
        "in the randomised trial, daily aspirin reduced the combined risk of ischaemic "
        "stroke and myocardial infarction among older adults with diabetes."
    )
    quote = (
        "In the Randomised trial, Daily aspirin Reduced the combined Risk of ischaemic "
        "Stroke and Myocardial infarction Among older adults With diabetes."
    )
    m = match(quote, text)
    assert m.verdict == "NEAR"
    assert m.near is not None and m.near.span.start == 0


# --- the dehyphenated profile -----------------------------------------------------------

HYPHENS = "The anti-inflammatory effects [12] were seen in all patients of the cohort."


def test_dehyphen_profile_places_a_quote_with_markers() -> None:
    m = match("antiinflammatory effects [12] were seen", HYPHENS, profile="t1+dehyphen")
    assert m.verdict == "EXACT" and m.profile == "t1+dehyphen"
    assert span_text(HYPHENS, m) == ["anti-inflammatory effects [12] were seen"]
    wrong = match("antiinflammatory effects [13] were seen", HYPHENS, profile="t1+dehyphen")
    assert wrong.verdict != "EXACT"


def test_dehyphen_profile_names_itself_on_a_near_match() -> None:
    m = match(
        "the antiinflammatory effects were seen in all patients of the cohorts",
        HYPHENS,
        profile="t1+dehyphen",
    )
    assert m.verdict == "NEAR" and m.profile == "t1+dehyphen"
    assert m.near is not None
    assert HYPHENS[m.near.span.start : m.near.span.end] == HYPHENS
    r = citeproof.check_text(
        "the antiinflammatory effects were seen in all patients of the cohorts",
        HYPHENS,
        profile="t1+dehyphen",
    )
    assert r.verdict == "NEAR"


# --- the closest passage ----------------------------------------------------------------

STUDY = (
    "The study enrolled 4000 adults. Aspirin reduced the risk of ischaemic stroke by a "
    "quarter in adults over seventy years of age with diabetes. Bleeding was rare."
)


@pytest.mark.parametrize(
    ("quote", "passage"),
    [
        (
            "Aspirin reduced the risk of ischemic stroke by a quarter in adults over seventy "
            "years of age with diabetes.",
            "Aspirin reduced the risk of ischaemic stroke by a quarter in adults over seventy "
            "years of age with diabetes.",
        ),
        ("the risk of ischaemic stroke by a quater", "the risk of ischaemic stroke by a quarter"),
        (
            "Aspirin reduced the risk of ischaemic stroke",
            "Aspirin reduced the risk of ischaemic stroke",
        ),
    ],
)
def test_closest_passage_ends_where_the_quote_ends(quote: str, passage: str) -> None:
    from citeproof.match.exact import Haystack
    from citeproof.match.near import closest_passage

    found = closest_passage(Haystack(STUDY), quote, 0.9)
    assert found is not None
    assert STUDY[found.start : found.end] == passage
    assert found.similarity >= 0.98


def test_closest_passage_of_a_short_quote_uses_runs_of_letters() -> None:
    from citeproof.match.exact import Haystack
    from citeproof.match.near import closest_passage

    text = "The vector (RRID:Addgene_42231) was used."
    found = closest_passage(Haystack(text), "vector (RRID Addgene 42231)", 0.9)
    assert found is not None
    assert text[found.start : found.end] == "vector (RRID:Addgene_42231)"


def test_closest_passage_among_many_common_words() -> None:
    from citeproof.match.exact import Haystack
    from citeproof.match.near import closest_passage

    filler = " ".join(["the cat sat on the mat and"] * 80)
    text = f"{filler} Aspirin reduced the risk of ischaemic stroke in older adults. {filler}"
    quote = (
        "the cat sat on the mat and Aspirin reduced the risk of ischaemik stroke in older adults."
    )
    found = closest_passage(Haystack(text), quote, 0.9)
    assert found is not None
    assert text[found.start : found.end] == quote.replace("ischaemik", "ischaemic")
    assert closest_passage(Haystack(text), "", 0.9) is None
    assert closest_passage(Haystack(""), quote, 0.9) is None


# --- placing fragments: gap bounds and backtracking --------------------------------------


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        # the anchor (longest fragment) is last: the first is placed backwards
        (
            "Aspirin reduced 0123456789 the risk of stroke in older adults.",
            "Aspirin reduced ... the risk of stroke in older adults",
        ),
        # the anchor is first: the second is placed forwards
        (
            "Aspirin reduced the risk of stroke in older adults 0123456789 was approved.",
            "Aspirin reduced the risk of stroke in older adults ... was approved",
        ),
    ],
)
def test_max_gap_is_inclusive_both_ways(text: str, quote: str) -> None:
    # the fragments are 12 characters apart
    assert match(quote, text, max_gap=12).verdict == "EXACT"
    assert match(quote, text, max_gap=13).verdict == "EXACT"
    far = match(quote, text, max_gap=11)
    assert far.verdict == "NOT_FOUND"
    assert far.reason is not None and "at most 11 characters" in far.reason


def test_three_fragments_placed_around_the_anchor() -> None:
    text = (
        "Aspirin reduced the risk of stroke. It was cheap. The drug was approved in Europe "
        "for secondary prevention."
    )
    m = match(
        "Aspirin reduced ... It was cheap ... The drug was approved in Europe for "
        "secondary prevention",
        text,
    )
    assert m.verdict == "EXACT" and m.profile == "t1"
    assert m.fragments is not None
    assert [(f.span.start, f.span.end) for f in m.fragments if f.span] == [
        (0, 15),
        (36, 48),
        (50, 106),
    ]
    assert span_text(text, m) == [text[:106]]


def test_a_fragment_before_the_anchor_is_not_placed_inside_it() -> None:
    text = "X the drug was approved for the drug trade."
    m = match("the drug ... approved for the drug trade", text)
    assert m.verdict == "EXACT"
    assert m.fragments is not None
    assert [(f.span.start, f.span.end) for f in m.fragments if f.span] == [(2, 10), (15, 42)]


def test_near_with_other_citation_numbers_is_compared_with_the_markers() -> None:
    m = match("Aspirin reduced the risk of stroke [13]. It was well tolerated", MARKED)
    assert m.verdict == "NEAR" and m.profile == "t1"
    assert m.near is not None and "numbers_differ" in m.near.flags
    assert MARKED[m.near.span.start : m.near.span.end] == (
        "Aspirin reduced the risk of stroke [12]. It was well tolerated"
    )


def test_a_literal_ellipsis_in_the_source_matches_when_fragments_cannot() -> None:
    text = "Aspirin reduced the risk ... of stroke in older adults."
    quote = "Aspirin reduced the risk ... of stroke"
    m = match(quote, text, max_gap=2)  # the fragments are 5 characters apart
    assert m.verdict == "EXACT" and m.fragments is None
    assert span_text(text, m) == [quote]
    assert match(quote, text).fragments is not None  # with room, fragment by fragment
