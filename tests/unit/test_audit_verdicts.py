"""The audit's decision rules (citeproof.audit.verdicts): pure, no I/O."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof import service
from citeproof.audit.answer import ItemError
from citeproof.audit.verdicts import (
    DEFAULT_FAIL_ON,
    FLAGS,
    Outcome,
    acknowledges_retraction,
    from_check,
    from_failure,
    from_handle,
    from_item_error,
    overall_verdict,
    parse_fail_on,
    rate,
    sentence_status,
    short_quote,
    worst,
)
from citeproof.errors import BadInputError
from citeproof.models.audit import VERDICTS
from citeproof.models.handle import HandleStatus

SOURCE = (
    "In the trial, the treatment reduced mortality by 30% over five years. "
    "The effect was not significant in the youngest group, and adverse events were rare."
)
EXACT = "the treatment reduced mortality by 30% over five years"


def outcome(quote: str) -> Outcome:
    return from_check(service.check_text(quote, SOURCE))


# ---------------------------------------------------------------------------- quote checks


def test_exact_is_ok() -> None:
    assert outcome(EXACT) == Outcome("ok", (), None)


def test_not_found_is_misquote() -> None:
    got = outcome("the placebo doubled survival in every single group studied")
    assert got.verdict == "misquote"


def test_near_with_a_risk_flag_is_misquote() -> None:
    got = outcome(EXACT.replace("30%", "40%"))
    assert got.verdict == "misquote" and "numbers_differ" in got.flags
    assert "must not be presented as a quote" in (got.reason or "")


def test_near_without_risk_flag_is_near_quote() -> None:
    got = outcome(EXACT.replace("mortality", "mortalty"))
    assert got.verdict == "near_quote" and got.flags == ()


def test_mid_word_match_is_misquote() -> None:
    got = outcome(EXACT[2:])  # "e treatment ..." starts inside "the"
    assert got.verdict == "misquote" and "partial_word" in got.flags


def test_an_ellipsis_hiding_a_negation_is_misquote() -> None:
    got = outcome("The effect was ... significant in the youngest group")
    assert got.verdict == "misquote" and "ellipsis_hides_negation" in got.flags


def test_not_found_in_an_abstract_concludes_nothing() -> None:
    result = service.check_text("words that are nowhere in this source text", SOURCE)
    abstract = result.model_copy(
        update={"source": result.source.model_copy(update={"coverage": "abstract"})}
    )
    got = from_check(abstract)
    assert got.verdict == "unavailable" and "not_full_text" in got.flags


def test_unavailable_and_not_checkable_checks_are_unavailable() -> None:
    base = service.check_text(EXACT, SOURCE)
    for verdict in ("UNAVAILABLE", "NOT_CHECKABLE"):
        got = from_check(base.model_copy(update={"verdict": verdict, "reason": "why"}))
        assert got == Outcome("unavailable", (), "why")


def test_short_quotes_warn_rather_than_fail() -> None:
    assert short_quote(True) == Outcome("ok", ("short_quote",), None)
    assert short_quote(False).verdict == "near_quote"


# ---------------------------------------------------------------------------- other steps


@pytest.mark.parametrize(
    ("code", "verdict"),
    [
        ("malformed_handle", "malformed"),
        ("unrecognised_citation", "malformed"),
        ("quote_too_long", "malformed"),
        ("sentence_too_long", "malformed"),
        ("range_too_large", "malformed"),
        ("no_reference_list", "unresolvable"),
        ("no_reference_entry", "unresolvable"),
        ("reference_without_identifier", "unresolvable"),
    ],
)
def test_parser_errors(code: str, verdict: str) -> None:
    got = from_item_error(ItemError(code, "message"))  # type: ignore[arg-type]
    assert got == Outcome(verdict, (), "message")  # type: ignore[arg-type]


@pytest.mark.parametrize("state", ["forged", "unavailable", "unresolvable", "withdrawn"])
def test_handle_states_decide(state: str) -> None:
    status = HandleStatus(handle="h", status=state, reason="r")  # type: ignore[arg-type]
    assert from_handle(status) == Outcome(state, (), "r")  # type: ignore[arg-type]


def test_handle_ok_decides_nothing_and_malformed_says_why() -> None:
    assert from_handle(HandleStatus(handle="h", status="ok")) is None
    got = from_handle(HandleStatus(handle="h", status="malformed", reason="no ~"))
    assert got is not None and got.verdict == "malformed" and "no ~" in (got.reason or "")


def test_withdrawn_handle_carries_version_changed() -> None:
    status = HandleStatus(handle="h", status="withdrawn", version_changed=True)
    got = from_handle(status)
    assert got is not None and got.flags == ("version_changed",)


def test_fetch_failures() -> None:
    assert from_failure("unavailable", "503", {}, has_quote=True).verdict == "unavailable"
    nobody = from_failure("not_checkable", "missing", {"pmid": "1"}, has_quote=False)
    assert nobody.verdict == "unresolvable"
    known = {"pmid": "1", "pmcid": "PMC2", "doi": "10.1/x"}
    assert from_failure("not_checkable", "no OA", known, has_quote=False).verdict == "ok"
    assert from_failure("not_checkable", "no OA", known, has_quote=True).verdict == "unavailable"


# ---------------------------------------------------------------------------- combining


@given(st.lists(st.sampled_from(VERDICTS), min_size=1))
def test_worst_is_the_earliest_verdict(verdicts: list[str]) -> None:
    outcomes = [Outcome(v) for v in verdicts]  # type: ignore[arg-type]
    assert worst(outcomes).verdict == min(verdicts, key=VERDICTS.index)


def test_worst_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError):
        worst([])


def test_sentence_status() -> None:
    assert sentence_status(True, []) == "uncited"
    assert sentence_status(False, []) == "not_a_claim"
    assert sentence_status(True, [Outcome("ok")]) == "cited_ok"
    assert sentence_status(True, [Outcome("ok"), Outcome("near_quote")]) == "cited_problem"
    assert sentence_status(True, [Outcome("ok", ("concern",))]) == "cited_problem"
    acknowledged = Outcome("ok", ("retracted", "retraction_acknowledged"))
    assert sentence_status(True, [acknowledged]) == "cited_ok"


def test_overall_verdict_order() -> None:
    fail_on = DEFAULT_FAIL_ON
    assert overall_verdict([Outcome("ok")], 0, fail_on) == "pass"
    assert overall_verdict([Outcome("ok")], 1, fail_on) == "warn"
    assert overall_verdict([Outcome("near_quote")], 0, fail_on) == "warn"
    assert overall_verdict([Outcome("withdrawn")], 0, fail_on) == "warn"
    assert overall_verdict([Outcome("ok", ("concern",))], 0, fail_on) == "warn"
    assert overall_verdict([Outcome("unavailable"), Outcome("near_quote")], 1, fail_on) == (
        "incomplete"
    )
    assert overall_verdict([Outcome("unavailable"), Outcome("misquote")], 0, fail_on) == "fail"
    assert overall_verdict([Outcome("ok", ("retracted",))], 0, fail_on) == "fail"
    acknowledged = Outcome("ok", ("retracted", "retraction_acknowledged"))
    assert overall_verdict([acknowledged], 0, fail_on) == "pass"
    assert overall_verdict([Outcome("ok", ("retracted",))], 0, ("forged",)) == "warn"
    assert overall_verdict([], 1, ("uncited",)) == "fail"
    assert overall_verdict([Outcome("ok", ("preprint",))], 0, ("preprint",)) == "fail"


_RANK = {"pass": 0, "warn": 1, "incomplete": 2, "fail": 3}


@given(
    st.lists(st.sampled_from(VERDICTS), max_size=6),
    st.sampled_from(VERDICTS),
    st.integers(0, 3),
)
def test_adding_a_citation_never_improves_the_verdict(
    verdicts: list[str], extra: str, uncited: int
) -> None:
    before = overall_verdict([Outcome(v) for v in verdicts], uncited, DEFAULT_FAIL_ON)  # type: ignore[arg-type]
    after = overall_verdict(
        [*(Outcome(v) for v in verdicts), Outcome(extra)],
        uncited,
        DEFAULT_FAIL_ON,  # type: ignore[arg-type]
    )
    assert _RANK[after] >= _RANK[before]


def test_parse_fail_on() -> None:
    assert parse_fail_on(None) == DEFAULT_FAIL_ON
    assert parse_fail_on(" Misquote, uncited,,misquote ") == ("misquote", "uncited")
    assert parse_fail_on(["forged"]) == ("forged",)
    assert parse_fail_on("") == ()
    with pytest.raises(BadInputError, match="'ok'"):
        parse_fail_on("ok")
    assert set(FLAGS) <= set(parse_fail_on(",".join(FLAGS)))


def test_retraction_acknowledgement() -> None:
    assert acknowledges_retraction("This study was later retracted [1].", None)
    assert acknowledges_retraction("Drug X works [1].", "1. Smith. RETRACTION of: ...")
    assert not acknowledges_retraction("Drug X works [1].", None)


def test_rate() -> None:
    assert rate(1, 3) == 0.3333 and rate(0, 0) is None and rate(2, 2) == 1.0
