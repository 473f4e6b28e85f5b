"""Concrete cases for the matcher, one behaviour each, through the public API.

``check`` below wraps ``citeproof.check_text`` and asserts the offset invariants on every
result it returns (``text[start:end] == match.text``, spans inside the text), so every
case also checks those.  A few cases go through ``prepare`` + ``find_quote`` directly, the
pure API the service calls.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import citeproof
from citeproof.documents.model import Block, Document
from citeproof.match.prepare import prepare
from citeproof.match.quote import find_quote
from citeproof.match.types import MatchOptions
from citeproof.models import CheckResult

STROKE = "Aspirin reduced the risk of stroke [12]. It was well tolerated."


def assert_offsets(result: CheckResult, text: str) -> None:
    for m in result.matches:
        assert 0 <= m.start <= m.end <= len(text)
        assert text[m.start : m.end] == m.text
    if result.near is not None:
        assert 0 <= result.near.start <= result.near.end <= len(text)
        assert text[result.near.start : result.near.end] == result.near.text
    for f in result.fragments or []:
        if f.start is not None:
            assert f.end is not None and 0 <= f.start <= f.end <= len(text)


def check(quote: str, text: str, **options: Any) -> CheckResult:
    result = citeproof.check_text(quote, text, **options)
    assert_offsets(result, text)
    return result


def check_doc(quote: str, doc: Document, **options: Any) -> CheckResult:
    result = citeproof.check(quote, doc, **options)
    assert_offsets(result, doc.text)
    return result


def only_match(result: CheckResult) -> tuple[int, int, str]:
    assert result.verdict == "EXACT", (result.verdict, result.reason, result.near)
    assert result.count == 1 and not result.ambiguous
    m = result.matches[0]
    return m.start, m.end, m.text


def changed(result: CheckResult) -> list[tuple[str, str, str]]:
    assert result.near is not None
    return [(d.op, d.quote, d.source) for d in result.near.diff if d.op != "equal"]


# --------------------------------------------------------------- citation markers


def test_quote_without_the_marker_is_exact() -> None:
    result = check("Aspirin reduced the risk of stroke.", STROKE)
    start, end, _ = only_match(result)
    assert start == 0
    assert STROKE[end - 1] == "."


def test_quote_with_the_marker_is_exact_and_the_span_includes_it() -> None:
    result = check("Aspirin reduced the risk of stroke [12].", STROKE)
    assert only_match(result) == (0, 40, "Aspirin reduced the risk of stroke [12].")


def test_quote_with_the_marker_but_no_full_stop() -> None:
    result = check("Aspirin reduced the risk of stroke [12]", STROKE)
    assert only_match(result) == (0, 39, "Aspirin reduced the risk of stroke [12]")


@pytest.mark.parametrize(
    "marker", ["[12]", "[3-5]", "[3–5]", "[1, 4, 7]", "[3,4]", "(4, 7)", "[3]-[5]"]
)
def test_marker_forms_never_break_a_match(marker: str) -> None:
    source = f"Aspirin reduced the risk of stroke {marker}. It was well tolerated."
    with_marker = f"Aspirin reduced the risk of stroke {marker}."
    for quote in (
        "Aspirin reduced the risk of stroke.",
        with_marker,
        "Aspirin reduced the risk of stroke. It was well tolerated.",
    ):
        result = check(quote, source)
        assert result.verdict == "EXACT", (quote, source, result.verdict)
        assert result.matches[0].start == 0
    assert only_match(check(with_marker, source))[2] == with_marker


def test_superscript_markers_never_break_a_match() -> None:
    source = "Aspirin reduced the risk of stroke¹². It was well tolerated."
    assert only_match(check("Aspirin reduced the risk of stroke.", source))[:2] == (0, 37)
    assert only_match(check("Aspirin reduced the risk of stroke¹².", source))[:2] == (0, 37)
    assert check("Aspirin reduced the risk of stroke [12].", source).verdict == "EXACT"


def test_markers_inside_a_sentence() -> None:
    source = "Aspirin [12] reduced the risk of stroke [3, 4] and death."
    assert only_match(check("Aspirin reduced the risk of stroke and death.", source)) == (
        0,
        len(source),
        source,
    )


def test_wrong_citation_number_is_not_exact() -> None:
    result = check("Aspirin reduced the risk of stroke [13].", STROKE)
    assert result.verdict == "NEAR"
    assert result.near is not None and "numbers_differ" in result.near.flags
    assert changed(result) == [("replace", "[13].", "[12].")]


def test_citation_the_source_does_not_have_is_not_exact() -> None:
    result = check(
        "Aspirin reduced the risk of stroke [12].",
        "Aspirin reduced the risk of stroke. It was fine.",
    )
    assert result.verdict == "NEAR"
    assert result.near is not None and "numbers_differ" in result.near.flags


def test_citation_numbers_in_the_wrong_places_are_not_exact() -> None:
    source = "It reduced the risk of stroke [13] and of death [12]. Fine."
    result = check("It reduced the risk of stroke [12] and of death [13]", source)
    assert result.verdict != "EXACT", [m.text for m in result.matches]


def test_superscript_exponents_and_units_are_not_markers() -> None:
    for quote, source in [
        ("an area of 25 m was sampled in each plot", "an area of 25 m² was sampled in each plot"),
        (
            "a concentration of 10 M was used in all assays",
            "a concentration of 10⁻³ M was used in all assays",
        ),
        (
            "the speed was 3 m/s on average in the tests",
            "the speed was 3 m/s² on average in the tests",
        ),
    ]:
        result = check(quote, source)
        assert result.verdict == "NEAR", (quote, result.verdict)
        assert result.near is not None and "numbers_differ" in result.near.flags


JATS = """<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
<front><article-meta><title-group><article-title>Aspirin and stroke</article-title>
</title-group></article-meta></front>
<body><sec><title>Results</title>
<p>Aspirin reduced the risk of stroke in older adults (<xref ref-type="bibr" rid="b1">Smith
et al., 2019</xref>). It was well tolerated.</p>
<p>Bleeding was rare in the treated group [<xref ref-type="bibr" rid="b2">12</xref>].</p>
<p>As <xref ref-type="bibr" rid="b2">Jones and Brown</xref> showed, aspirin reduces the risk
of stroke in younger adults.</p>
</sec></body>
<back><ref-list><title>References</title>
<ref id="b1"><mixed-citation>Smith A, Lee B. Aspirin for the prevention of stroke in older
adults. Lancet. 2019;1:1-10.</mixed-citation></ref>
<ref id="b2"><mixed-citation>Jones C, Brown D. Bleeding on aspirin. BMJ. 2018;2:3-4.
</mixed-citation></ref>
</ref-list></back></article>
"""


@pytest.fixture(scope="module")
def jats_doc(tmp_path_factory: pytest.TempPathFactory) -> Document:
    path = tmp_path_factory.mktemp("jats") / "article.nxml"
    path.write_text(JATS, encoding="utf-8")
    doc = citeproof.load(path)
    assert doc.format == "jats" and doc.markers
    return doc


def test_jats_author_year_xref_never_breaks_a_match(jats_doc: Document) -> None:
    for quote in (
        "Aspirin reduced the risk of stroke in older adults.",
        "Aspirin reduced the risk of stroke in older adults (Smith et al., 2019).",
        "Aspirin reduced the risk of stroke in older adults. It was well tolerated.",
    ):
        result = check_doc(quote, jats_doc)
        assert result.verdict == "EXACT", (quote, result.verdict, result.reason)
        loc = result.matches[0].location
        assert loc.region == "body" and loc.section == ["Results"]
    result = check_doc("Bleeding was rare in the treated group.", jats_doc)
    assert result.verdict == "EXACT"
    result = check_doc("Bleeding was rare in the treated group [13].", jats_doc)
    assert result.verdict != "EXACT"


def test_jats_wrong_year_in_author_year_citation_is_not_exact(jats_doc: Document) -> None:
    quote = "Aspirin reduced the risk of stroke in older adults (Smith et al., 2018)."
    assert check_doc(quote, jats_doc).verdict != "EXACT"


def test_jats_changed_word_with_author_year_citation_is_near(jats_doc: Document) -> None:
    quote = "Aspirin reduced the risk of stroke in younger adults (Smith et al., 2019)."
    result = check_doc(quote, jats_doc)
    assert result.verdict == "NEAR", (result.verdict, result.reason)
    assert changed(result) == [("replace", "younger", "older")]


def test_jats_narrative_citation_quoted_verbatim_is_exact(jats_doc: Document) -> None:
    quote = "As Jones and Brown showed, aspirin reduces the risk of stroke in younger adults."
    result = check_doc(quote, jats_doc)
    assert result.verdict == "EXACT", (result.verdict, result.reason)


def test_jats_reference_title_is_flagged(jats_doc: Document) -> None:
    result = check_doc("Aspirin for the prevention of stroke in older adults", jats_doc)
    assert result.verdict == "EXACT"
    assert result.matches[0].location.region == "references"
    assert "match_in_references" in result.flags


# ------------------------------------------------------------------ bracketed data

ODDS = "In the trial, aspirin was associated with stroke (OR 2.1 [95% CI 1.2-3.4]) in men."


def test_confidence_interval_is_kept_and_compared() -> None:
    quote = "aspirin was associated with stroke (OR 2.1 [95% CI 1.2-3.4]) in men."
    start, end, text = only_match(check(quote, ODDS))
    assert text == quote and (start, end) == (ODDS.index("aspirin"), len(ODDS))
    result = check(quote.replace("3.4", "3.5"), ODDS)
    assert result.verdict == "NEAR"
    assert result.near is not None and "numbers_differ" in result.near.flags
    assert changed(result) == [("replace", "1.2-3.5])", "1.2-3.4])")]


def test_dropping_bracketed_data_is_not_exact() -> None:
    result = check("aspirin was associated with stroke (OR 2.1) in men.", ODDS)
    assert result.verdict in ("NEAR", "NOT_FOUND")


def test_a_year_is_not_a_marker() -> None:
    source = "This was first reported by the registry (2019) and confirmed later."
    result = check("This was first reported by the registry (2018) and confirmed later.", source)
    assert result.verdict == "NEAR"
    assert result.near is not None and "numbers_differ" in result.near.flags
    result = check("This was first reported by the registry and confirmed later.", source)
    assert result.verdict != "EXACT"


def test_number_then_parenthesised_number_is_data() -> None:
    source = "The mean score was 45 (12) points in the treated group."
    assert only_match(check(source, source))[:2] == (0, len(source))
    for quote in (
        "The mean score was 45 points in the treated group.",
        "The mean score was 45 (13) points in the treated group.",
    ):
        result = check(quote, source)
        assert result.verdict == "NEAR", quote
        assert result.near is not None and "numbers_differ" in result.near.flags


# ---------------------------------------------------------------- every occurrence


def test_every_occurrence_in_text_order() -> None:
    sentence = "Aspirin reduced the risk of stroke in older adults."
    source = f"We saw it. {sentence} Then more. {sentence} And {sentence}"
    result = check(sentence, source)
    assert result.verdict == "EXACT"
    assert result.count == 3 and result.ambiguous
    starts = [m.start for m in result.matches]
    assert starts == sorted(starts)
    expected, p = [], source.find(sentence)
    while p >= 0:
        expected.append(p)
        p = source.find(sentence, p + 1)
    assert starts == expected
    assert all(m.text == sentence for m in result.matches)


# -------------------------------------------------------------------- risk flags

SLEEP = "Aspirin reduced the risk of stroke in older adults."


def test_case_only() -> None:
    result = check("aspirin reduced the risk of Stroke in older adults.", SLEEP)
    assert result.verdict == "NEAR"
    assert result.casefold_match
    assert result.near is not None and result.near.flags == ["case_only"]
    assert result.near.text == SLEEP


def test_exact_match_has_casefold_match() -> None:
    assert check(SLEEP, SLEEP).casefold_match


@pytest.mark.parametrize(
    "quote",
    [
        "Aspirin reduced the risk of stroke, in older adults",
        "Aspirin reduced the risk of stroke in older adults!",
    ],
)
def test_punctuation_only(quote: str) -> None:
    result = check(quote, SLEEP)
    assert result.verdict == "NEAR"
    assert result.near is not None and result.near.flags == ["punctuation_only"]
    assert not result.casefold_match


DOSES = "The dose was 1.5 mg/kg and the change was -5 points, with p < 0.05 in 30% of 12 mg doses."


@pytest.mark.parametrize(
    ("quote", "new", "old"),
    [
        ("The dose was 15 mg/kg and the change was -5 points", "15", "1.5"),
        ("The dose was 1.5 mg/kg and the change was 5 points", "5", "-5"),
        ("the change was -5 points, with p > 0.05 in 30% of 12 mg doses.", ">", "<"),
        ("with p < 0.05 in 30% of 12 g doses.", "g", "mg"),
        ("with p < 0.05 in 30 of 12 mg doses.", "30", "30%"),
        ("with p < 0.05 in 3.0% of 12 mg doses.", "3.0%", "30%"),
    ],
)
def test_numbers_differ(quote: str, new: str, old: str) -> None:
    result = check(quote, DOSES)
    assert result.verdict == "NEAR", (quote, result.verdict, result.reason)
    assert result.near is not None and "numbers_differ" in result.near.flags
    assert ("replace", new, old) in changed(result)


TREATMENT = (
    "The new drug did reduce pain in patients with arthritis. The drug was given with "
    "food. There was a benefit on sleep."
)


@pytest.mark.parametrize(
    ("quote", "step"),
    [
        ("The new drug did not reduce pain in patients with arthritis.", ("insert", "not", "")),
        ("The drug was given without food.", ("replace", "without", "with")),
        ("There was no benefit on sleep.", ("replace", "no", "a")),
    ],
)
def test_negation_differs(quote: str, step: tuple[str, str, str]) -> None:
    result = check(quote, TREATMENT)
    assert result.verdict == "NEAR", (quote, result.verdict)
    assert result.near is not None and "negation_differs" in result.near.flags
    assert step in changed(result)


def test_negation_removed() -> None:
    source = "The new drug did not reduce pain in patients with arthritis."
    result = check("The new drug did reduce pain in patients with arthritis.", source)
    assert result.verdict == "NEAR"
    assert result.near is not None and "negation_differs" in result.near.flags
    assert changed(result) == [("delete", "", "not")]


# ------------------------------------------------------------------ word boundaries

EXAMPLE = "For example of the effect of aspirin on stroke, see the trial."


def test_starts_mid_word() -> None:
    result = check("ample of the effect of aspirin on stroke", EXAMPLE)
    assert only_match(result)[:2] == (6, 46)
    assert result.word_boundaries is not None
    assert result.word_boundaries.starts_mid_word and not result.word_boundaries.ends_mid_word
    assert "partial_word" in result.flags


def test_ends_mid_word() -> None:
    result = check("For example of the effect of aspiri", EXAMPLE)
    assert result.verdict == "EXACT"
    assert result.word_boundaries is not None
    assert not result.word_boundaries.starts_mid_word and result.word_boundaries.ends_mid_word
    assert "partial_word" in result.flags


def test_clean_boundaries() -> None:
    result = check("example of the effect of aspirin on stroke", EXAMPLE)
    assert result.verdict == "EXACT"
    assert result.word_boundaries is not None
    assert not result.word_boundaries.starts_mid_word
    assert not result.word_boundaries.ends_mid_word
    assert "partial_word" not in result.flags


# ------------------------------------------------------------------------ too short


@pytest.mark.parametrize(
    "quote", ["aspirin reduced", "aspirin reduced ris", "  aspirin   reduced\n ris  "]
)
def test_too_short(quote: str) -> None:
    result = check(quote, "aspirin reduced risk of stroke")
    assert result.verdict == "TOO_SHORT"
    assert result.reason and "20" in result.reason
    assert not result.matches


def test_twenty_characters_is_enough() -> None:
    assert check("aspirin reduced risk", "aspirin reduced risk of stroke").verdict == "EXACT"


# --------------------------------------------------------------------- ellipses

TRIAL = (
    "Aspirin reduced the risk of stroke in the first year. Bleeding was rare and mostly "
    "mild. The effect did not persist after treatment stopped, and it was smaller in "
    "women."
)


@pytest.mark.parametrize("joiner", ["...", "…", "[...]", "[…]", ". . ."])
def test_ellipsis_fragments_in_order(joiner: str) -> None:
    quote = f"Aspirin reduced the risk of stroke {joiner} Bleeding was rare and mostly mild."
    result = check(quote, TRIAL)
    assert result.verdict == "EXACT", (joiner, result.reason)
    assert result.fragments is not None and len(result.fragments) == 2
    first, second = result.fragments
    assert first.verdict == second.verdict == "EXACT"
    assert (first.start, first.end) == (0, TRIAL.index(" in the first"))
    assert second.start == TRIAL.index("Bleeding")
    assert second.end == TRIAL.index("mild.") + len("mild.")
    assert first.gap_before is None
    assert second.gap_before == second.start - first.end
    assert "Bleeding" in second.quote and "Aspirin" in first.quote
    assert result.matches[0].start == first.start and result.matches[0].end == second.end
    assert "ellipsis_hides_negation" not in result.flags


def test_ellipsis_fragments_out_of_order() -> None:
    quote = "Bleeding was rare and mostly mild ... Aspirin reduced the risk of stroke"
    result = check(quote, TRIAL)
    assert result.verdict == "NOT_FOUND"
    assert result.reason and "order" in result.reason
    assert result.fragments is not None
    assert [f.verdict for f in result.fragments] == ["EXACT", "EXACT"]


def test_ellipsis_gap_bound() -> None:
    quote = "Aspirin reduced the risk of stroke ... Bleeding was rare and mostly mild."
    gap = TRIAL.index("Bleeding") - TRIAL.index(" in the first")
    assert check(quote, TRIAL, max_gap=gap).verdict == "EXACT"
    result = check(quote, TRIAL, max_gap=gap - 1)
    assert result.verdict == "NOT_FOUND"
    assert result.reason and str(gap - 1) in result.reason


def test_ellipsis_gap_bound_through_match_options() -> None:
    prep = prepare(TRIAL)
    quote = "Aspirin reduced the risk of stroke ... it was smaller in women."
    assert find_quote(prep, quote).verdict == "EXACT"
    assert find_quote(prep, quote, MatchOptions(max_gap=50)).verdict == "NOT_FOUND"


def test_ellipsis_hiding_a_negation_is_flagged() -> None:
    result = check("Aspirin reduced the risk of stroke ... it was smaller in women.", TRIAL)
    assert result.verdict == "EXACT"
    assert "ellipsis_hides_negation" in result.flags
    assert result.fragments is not None
    assert "ellipsis_hides_negation" in result.fragments[1].flags
    assert "ellipsis_hides_negation" not in result.fragments[0].flags


def test_ellipsis_fragment_with_the_right_citation_number() -> None:
    result = check("Aspirin reduced the risk of stroke [12] ... It was well tolerated.", STROKE)
    assert only_match(result) == (0, len(STROKE), STROKE)
    assert result.fragments is not None
    assert STROKE[result.fragments[0].start or 0 : result.fragments[0].end] == (
        "Aspirin reduced the risk of stroke [12]"
    )


def test_ellipsis_fragment_with_a_wrong_citation_number_is_flagged() -> None:
    result = check("Aspirin reduced the risk of stroke [13] ... It was well tolerated.", STROKE)
    assert result.verdict in ("NEAR", "NOT_FOUND")
    if result.verdict == "NEAR":
        assert result.near is not None
        assert result.near.similarity < 1
        assert "numbers_differ" in result.near.flags
        assert any("[13]" in d.quote for d in result.near.diff if d.op != "equal")


def test_ellipsis_fragment_that_does_not_occur() -> None:
    quote = "Aspirin reduced the risk of stroke ... Bleeding was common and mostly mild."
    result = check(quote, TRIAL)
    assert result.verdict == "NOT_FOUND"
    assert result.fragments is not None
    assert [f.verdict for f in result.fragments] == ["EXACT", "NOT_FOUND"]
    assert result.fragments[1].start is None


def test_bracketed_editorial_insertion() -> None:
    source = "Aspirin reduced the risk of stroke in the first year."
    result = check("[The drug] reduced the risk of stroke in the first year.", source)
    assert result.verdict == "EXACT"
    assert result.matches[0].start == source.index("reduced")
    assert result.matches[0].end == len(source)


@pytest.mark.parametrize(
    "quote",
    [
        "[T]he effect did not persist after treatment stopped",
        "[t]he effect did not persist after treatment stopped",
    ],
)
def test_bracketed_capital(quote: str) -> None:
    result = check(quote, TRIAL)
    assert result.verdict == "EXACT"
    assert result.matches[0].text == "The effect did not persist after treatment stopped"


def test_quote_with_a_literal_bracketed_aside_is_exact_where_it_occurs() -> None:
    source = "The risk was not adjusted for symptoms [e.g. because of testing in men]. Then."
    quote = "The risk was not adjusted for symptoms [e.g. because of testing in men]."
    assert only_match(check(quote, source)) == (0, len(quote), quote)


def test_quote_ending_with_a_literal_bracketed_aside() -> None:
    source = "39 Entrez gene database. [http://www.ncbi.nlm.nih.gov/gene/]\n\n40 Next."
    quote = "39 Entrez gene database. [http://www.ncbi.nlm.nih.gov/gene/]"
    assert only_match(check(quote, source)) == (0, len(quote), quote)


# ------------------------------------------------------------------- typography


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The so-called \u201cdose effect\u201d was clear in the trial",
            'The so-called "dose effect" was clear in the trial',
        ),
        (
            "It\u2019s the patients\u2019 choice in every single case",
            "It's the patients' choice in every single case",
        ),
        (
            "from 1990\u20132000 the rates rose \u2014 sharply \u2014 in men",
            "from 1990-2000 the rates rose - sharply - in men",
        ),
        (
            "blood pressure\u00a0was 120\u2009mmHg in most adults",
            "blood pressure was 120 mmHg in most adults",
        ),
        (
            "the \ufb01nal analysis of the \ufb01rst cohort",
            "the final analysis of the first cohort",
        ),
        (
            "patients at the cafe\u0301 were interviewed twice",
            "patients at the caf\u00e9 were interviewed twice",
        ),
        (
            "patients at the caf\u00e9 were interviewed twice",
            "patients at the cafe\u0301 were interviewed twice",
        ),
        (
            "the treat\u00adment was well tol\u200berated by all",
            "the treatment was well tolerated by all",
        ),
        ("the treatment was\n  well tolerated\tby all", "the treatment was well tolerated by all"),
        ("a \u2212 5 change in the total score overall", "a - 5 change in the total score overall"),
        (
            'The so-called "dose effect" was clear in the trial',
            "The so-called \u201cdose effect\u201d was clear in the trial",
        ),
    ],
)
def test_typography_is_exact_with_original_offsets(source: str, quote: str) -> None:
    before = "Intro text here. "
    text = f"{before}{source} And more."
    assert only_match(check(quote, text)) == (len(before), len(before) + len(source), source)


# ---------------------------------------------------------------- t1+dehyphen

SPLIT_WORD = "Patients in the second arm received a new treat-\nment for chronic pain during it."


def test_pdf_document_dehyphenates() -> None:
    doc = Document(
        text=SPLIT_WORD,
        blocks=[Block(0, len(SPLIT_WORD), "paragraph", page=1)],
        format="pdf",
        dehyphen=True,
    )
    result = check_doc("received a new treatment for chronic pain", doc)
    start = SPLIT_WORD.index("received")
    assert only_match(result) == (
        start,
        SPLIT_WORD.index(" during"),
        "received a new treat-\nment for chronic pain",
    )
    assert result.normalisation == "t1+dehyphen"
    assert result.matches[0].location.page == 1
    assert result.model_dump(mode="json")["normalisation"] == "t1+dehyphen"


def test_plain_text_does_not_dehyphenate() -> None:
    result = check("received a new treatment for chronic pain", SPLIT_WORD)
    assert result.verdict == "NEAR"
    assert result.normalisation == "t1"
    assert result.near is not None
    assert result.near.text == "received a new treat-\nment for chronic pain"


def test_dehyphen_profile_on_plain_text() -> None:
    result = check("received a new treatment for chronic pain", SPLIT_WORD, profile="t1+dehyphen")
    assert result.verdict == "EXACT" and result.normalisation == "t1+dehyphen"


def test_hyphenated_quote_in_hyphenated_source_is_plain_t1() -> None:
    result = check("received a new treat- ment for chronic pain", SPLIT_WORD)
    assert result.verdict == "EXACT" and result.normalisation == "t1"


# ------------------------------------------------------------------------ NEAR

WALK = (
    "Background text. Patients who walked every morning fell asleep faster than those in "
    "the control group. Other text follows."
)
WALK_SENTENCE = (
    "Patients who walked every morning fell asleep faster than those in the control group."
)

FAR = (
    "Patients who ran every evening fell asleep sooner than all of the others in the control "
    "group."
)  # similarity 0.82 with WALK_SENTENCE


def test_near_reports_the_source_wording() -> None:
    quote = WALK_SENTENCE.replace("faster", "sooner")
    result = check(quote, WALK)
    assert result.verdict == "NEAR" and not result.matches
    near = result.near
    assert near is not None
    assert (near.start, near.end) == (WALK.index("Patients"), WALK.index(" Other"))
    assert near.text == WALK_SENTENCE
    assert 0.90 <= near.similarity < 1
    assert near.flags == []
    assert changed(result) == [("replace", "sooner", "faster")]
    assert near.location is not None and near.location.region == "body"


def test_below_threshold_is_not_found_with_the_closest_similarity() -> None:
    result = check(FAR, WALK)
    assert result.verdict == "NOT_FOUND"
    assert result.near is None
    assert result.reason and "0.90" in result.reason and "closest has 0.82" in result.reason


def test_near_threshold_changes_the_outcome() -> None:
    quote = WALK_SENTENCE.replace("faster", "sooner")
    result = check(quote, WALK, near_threshold=0.99)
    assert result.verdict == "NOT_FOUND"
    assert result.reason and "0.99" in result.reason and "0.96" in result.reason
    result = check(FAR, WALK, near_threshold=0.8)
    assert result.verdict == "NEAR"
    assert result.near is not None and 0.8 <= result.near.similarity < 0.9


def test_near_through_find_quote() -> None:
    prep = prepare(WALK)
    found = find_quote(prep, WALK_SENTENCE.replace("faster", "sooner"))
    assert found.verdict == "NEAR" and found.near is not None
    assert WALK[found.near.span.start : found.near.span.end] == WALK_SENTENCE
    assert (
        find_quote(
            prep, WALK_SENTENCE.replace("faster", "sooner"), MatchOptions(near_threshold=0.99)
        ).verdict
        == "NOT_FOUND"
    )


def test_near_for_a_quote_without_spaces() -> None:
    source = "The data are at https://example.org/archive/records/2019/file-000123.csv for all."
    result = check("https://example.org/archive/records/2019/file-000124.csv", source)
    assert result.verdict == "NEAR", (result.verdict, result.reason)
    assert result.near is not None and "numbers_differ" in result.near.flags


def _long_text() -> tuple[str, list[str], int]:
    rng = random.Random(7)
    words = (
        "patients trial aspirin stroke dose mild severe cohort women men older younger risk "
        "reduced increased effect outcome study"
    ).split()
    sentences: list[str] = []
    size = 0
    while size < 2_000_000:
        n = len(sentences)
        s = (
            f"In cohort {n} the {rng.choice(words)} {rng.choice(words)} was "
            f"{rng.choice(words)} with {rng.choice(words)} {n * 7 + 3}. "
        )
        sentences.append(s)
        size += len(s)
    return "".join(sentences), sentences, len(sentences) // 2


def test_near_in_a_two_megabyte_text() -> None:
    text, sentences, middle = _long_text()
    target = sentences[middle].strip()
    start = text.index(target)
    words = target.split()
    i = 5  # W2 in "In cohort N the W1 W2 was W3 with W4 M."
    words[i] = "pebbles"
    quote = " ".join(words)
    result = check(quote, text)
    assert result.verdict == "NEAR", (result.verdict, result.reason)
    assert result.near is not None
    assert (result.near.start, result.near.end) == (start, start + len(target))
    assert ("replace", "pebbles", target.split()[i]) in changed(result)
