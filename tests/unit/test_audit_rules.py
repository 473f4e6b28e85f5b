"""The audit's rules: verdicts from checks, failures and handles, the overall verdict,
signed reports, and reference-list entries.

(First written against the survivors of a mutation-testing run.)

Groups: which flags a quote check passes on to the audit and which verdict they decide
(:func:`from_check`), fetch failures and handles, the overall verdict, signed reports
(every way a signature can fail says so, and names the key), and the entries of a
reference list (numbers, continuation lines, duplicates, entries without identifiers).
Reasons are compared by the words that tell a user the cause and the fix, not verbatim.
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof import service
from citeproof.audit.parse import parse_markdown
from citeproof.audit.run import audit_answer
from citeproof.audit.signing import key_id, load_report_json, signed_bytes, verify_report
from citeproof.audit.verdicts import (
    DEFAULT_FAIL_ON,
    FLAGS,
    RISK_FLAGS,
    Outcome,
    from_check,
    from_failure,
    from_handle,
    handle_flags,
    overall_verdict,
    parse_fail_on,
    sentence_status,
    short_quote,
    worst,
)
from citeproof.errors import BadInputError
from citeproof.models import CheckResult, FoundElsewhere, Fragment, Near, WordBoundaries
from citeproof.models.handle import HandleStatus
from citeproof.store.keys import LogKey

SOURCE = (
    "In the trial, the treatment reduced mortality by 30% over five years. "
    "The effect was not significant in the youngest group, and adverse events were rare."
)
EXACT = "the treatment reduced mortality by 30% over five years"
BASE = service.check_text(EXACT, SOURCE)


def with_(result: CheckResult = BASE, **update: Any) -> CheckResult:
    return result.model_copy(update=update)


def near(flags: list[str], similarity: float = 0.9) -> Near:
    return Near(similarity=similarity, start=0, end=3, text="The", diff=[], flags=flags)


def fragment(flags: list[str]) -> Fragment:
    return Fragment(quote="q", verdict="EXACT", start=0, end=1, flags=flags)


ELSEWHERE = FoundElsewhere(
    identifier="pmcid:PMC1", verdict="EXACT", start=0, end=3, text="The", via="cache"
)


# --- from_check: which flags are kept ----------------------------------------------------


def test_exact_keeps_only_audit_flags_in_order_without_duplicates() -> None:
    got = from_check(with_(flags=["match_in_references", "some_matcher_detail"]))
    assert got == Outcome("ok", ("match_in_references",), None)
    got = from_check(
        with_(
            flags=["match_in_front_matter"],
            fragments=[
                fragment(["not_an_audit_flag", "match_in_references"]),
                fragment(["match_in_references", "match_in_front_matter"]),
            ],
        )
    )
    assert got == Outcome("ok", ("match_in_front_matter", "match_in_references"), None)


def test_found_elsewhere_is_a_flag() -> None:
    got = from_check(with_(found_elsewhere=[ELSEWHERE]))
    assert got == Outcome("ok", ("found_elsewhere",), None)
    assert from_check(with_(found_elsewhere=[])).flags == ()


@given(st.lists(st.sampled_from([*FLAGS, "x_unknown", "weird", "EXACT"]), max_size=8))
def test_every_kept_flag_is_known_and_none_is_lost(flags: list[str]) -> None:
    got = from_check(with_(flags=flags))
    known = [f for f in flags if f in FLAGS]
    assert set(got.flags) <= set(FLAGS)
    assert set(known) <= set(got.flags)
    assert len(got.flags) == len(set(got.flags))


@pytest.mark.parametrize(
    "bounds",
    [
        WordBoundaries(starts_mid_word=True, ends_mid_word=False),
        WordBoundaries(starts_mid_word=False, ends_mid_word=True),
        WordBoundaries(starts_mid_word=True, ends_mid_word=True),
    ],
)
def test_exact_inside_a_word_is_a_misquote(bounds: WordBoundaries) -> None:
    got = from_check(with_(word_boundaries=bounds))
    assert got.verdict == "misquote" and got.flags == ("partial_word",)
    assert "part of a word" in (got.reason or "") and "mid-word" in (got.reason or "")
    # A partial_word the matcher already set is not repeated.
    again = from_check(with_(word_boundaries=bounds, flags=["partial_word"]))
    assert again.flags == ("partial_word",)


def test_exact_on_word_boundaries_is_ok() -> None:
    bounds = WordBoundaries(starts_mid_word=False, ends_mid_word=False)
    assert from_check(with_(word_boundaries=bounds)) == Outcome("ok", (), None)
    assert from_check(with_(word_boundaries=None)) == Outcome("ok", (), None)
    flagged = from_check(with_(word_boundaries=None, flags=["partial_word"]))
    assert flagged.verdict == "misquote"


def test_exact_with_an_ellipsis_hiding_a_negation() -> None:
    got = from_check(with_(fragments=[fragment(["ellipsis_hides_negation"])]))
    assert got.verdict == "misquote" and got.flags == ("ellipsis_hides_negation",)
    assert "ellipsis" in (got.reason or "") and "negation" in (got.reason or "")
    assert "reverse" in (got.reason or "")


# --- from_check: NEAR ----------------------------------------------------------------------


def test_near_with_risk_flags_names_them_sorted_and_the_similarity() -> None:
    got = from_check(
        with_(
            verdict="NEAR",
            near=near(["numbers_differ", "negation_differs"], 0.875),
            flags=["match_in_references"],
        )
    )
    assert got.verdict == "misquote"
    assert got.flags == ("numbers_differ", "negation_differs", "match_in_references")
    reason = got.reason or ""
    assert "(negation_differs, numbers_differ)" in reason
    assert "(similarity 0.88)" in reason and "must not be presented as a quote" in reason


@pytest.mark.parametrize("flag", sorted(RISK_FLAGS))
def test_each_risk_flag_makes_a_near_a_misquote(flag: str) -> None:
    got = from_check(with_(verdict="NEAR", near=near([flag])))
    assert got.verdict == "misquote" and got.flags == (flag,)
    assert f"({flag})" in (got.reason or "")


@pytest.mark.parametrize("flag", ["partial_word", "ellipsis_hides_negation"])
def test_near_with_a_meaning_flag_of_the_result_is_a_misquote(flag: str) -> None:
    got = from_check(with_(verdict="NEAR", near=near([]), flags=[flag]))
    assert got.verdict == "misquote" and got.flags == (flag,)
    assert f"({flag})" in (got.reason or "")
    both = from_check(
        with_(verdict="NEAR", near=near([]), flags=["partial_word", "ellipsis_hides_negation"])
    )
    assert "(ellipsis_hides_negation, partial_word)" in (both.reason or "")


def test_near_without_risk_is_a_near_quote_that_says_quote_exactly() -> None:
    got = from_check(
        with_(verdict="NEAR", near=near(["not_risky"], 0.93), flags=["match_in_references"])
    )
    assert got.verdict == "near_quote"
    assert got.flags == ("not_risky", "match_in_references")
    reason = got.reason or ""
    assert "(similarity 0.93)" in reason and "quote it exactly" in reason
    bare = from_check(with_(verdict="NEAR", near=None))
    assert bare.verdict == "near_quote" and "similarity" not in (bare.reason or "")
    assert "differs slightly; quote it exactly" in (bare.reason or "")


# --- from_check: NOT_FOUND and the rest -----------------------------------------------------


@pytest.mark.parametrize("coverage", ["abstract", "page"])
def test_not_found_in_partial_text_concludes_nothing(coverage: str) -> None:
    source = BASE.source.model_copy(update={"coverage": coverage})
    got = from_check(with_(verdict="NOT_FOUND", source=source, flags=["match_in_references"]))
    assert got.verdict == "unavailable"
    assert got.flags == ("match_in_references", "not_full_text")
    assert f"not in the {coverage}" in (got.reason or "")
    assert "full text could not be" in (got.reason or "")


def test_not_found_in_full_text_is_a_misquote_with_the_matchers_reason() -> None:
    got = from_check(with_(verdict="NOT_FOUND", reason="nothing close"))
    assert got == Outcome("misquote", (), "nothing close")
    got = from_check(with_(verdict="NOT_FOUND", reason=None))
    assert got.verdict == "misquote" and "not in the cited source" in (got.reason or "")


def test_other_verdicts_are_unavailable_with_a_reason() -> None:
    got = from_check(with_(verdict="UNAVAILABLE", reason=None, flags=["concern"]))
    assert got == Outcome("unavailable", ("concern",), "the quote could not be checked.")


# --- failures, handles, short quotes ---------------------------------------------------------


def test_fetch_failures_say_why() -> None:
    assert from_failure(
        "unavailable", "503", {"pmid": "1", "doi": "10.1/x"}, has_quote=False
    ) == Outcome("unavailable", (), "503")
    # Only identifiers that were learnt count: an empty value is no identifier.
    for ids in ({}, {"pmid": "1"}, {"pmid": "1", "doi": "", "pmcid": ""}):
        got = from_failure("not_checkable", "not found", ids, has_quote=True)
        assert got.verdict == "unresolvable" and got.flags == ()
        assert "no service knows this work" in (got.reason or "")
        assert "not found" in (got.reason or "")
    two = {"pmid": "1", "doi": "10.1/x"}
    quoted = from_failure("not_checkable", "no OA", two, has_quote=True)
    assert quoted.verdict == "unavailable" and quoted.flags == ()
    assert "the work exists" in (quoted.reason or "") and "not checked" in (quoted.reason or "")
    assert "no OA" in (quoted.reason or "")
    bare = from_failure("not_checkable", "no OA", two, has_quote=False)
    assert bare.verdict == "ok" and bare.flags == () and "exists" in (bare.reason or "")
    assert "no text could be read" in (bare.reason or "")


def test_handle_flags() -> None:
    def status(state: str, **kw: Any) -> HandleStatus:
        return HandleStatus(handle="h", status=state, reason="r", **kw)  # type: ignore[arg-type]

    assert handle_flags(status("ok")) == ()
    assert handle_flags(status("ok", version_changed=True)) == ("version_changed",)
    assert handle_flags(status("ok", text_changed=True)) == ("version_changed", "text_changed")
    both = status("ok", version_changed=True, text_changed=True)
    assert handle_flags(both) == ("version_changed", "text_changed")
    assert from_handle(status("withdrawn", text_changed=True)) == Outcome(
        "withdrawn", ("version_changed", "text_changed"), "r"
    )
    assert from_handle(status("forged", version_changed=False)) == Outcome("forged", (), "r")
    malformed = from_handle(status("malformed", version_changed=True))
    assert malformed == Outcome("malformed", (), "the handle is malformed: r.")


def test_short_quote_reason_names_the_limit() -> None:
    got = short_quote(False)
    assert got.flags == ("short_quote",)
    reason = got.reason or ""
    assert "under 20 characters" in reason and "not in the source" in reason
    assert "quotation" in reason


# --- statuses and the overall verdict --------------------------------------------------------


def test_sentence_status_counts_concerns_and_unacknowledged_retractions() -> None:
    ok = Outcome("ok")
    assert sentence_status(True, [ok, ok]) == "cited_ok"
    assert sentence_status(False, [ok]) == "cited_ok"
    assert sentence_status(True, [ok, Outcome("near_quote")]) == "cited_problem"
    assert sentence_status(True, [Outcome("ok", ("concern",))]) == "cited_problem"
    assert sentence_status(True, [Outcome("ok", ("retracted",))]) == "cited_problem"
    acked = Outcome("ok", ("retracted", "retraction_acknowledged"))
    assert sentence_status(True, [acked]) == "cited_ok"
    assert sentence_status(True, [Outcome("ok", ("version_changed",))]) == "cited_ok"


def test_overall_verdict_rules() -> None:
    ok = Outcome("ok")
    fail_on = DEFAULT_FAIL_ON
    assert overall_verdict([], 0, fail_on) == "pass"
    assert overall_verdict([ok], 0, fail_on) == "pass"
    assert overall_verdict([ok], 1, fail_on) == "warn"
    assert overall_verdict([ok], 1, ("uncited",)) == "fail"
    assert overall_verdict([ok], 0, ("uncited",)) == "pass"
    assert overall_verdict([Outcome("ok", ("retracted",))], 0, fail_on) == "fail"
    acked = Outcome("ok", ("retracted", "retraction_acknowledged"))
    assert overall_verdict([acked], 0, fail_on) == "pass"
    assert overall_verdict([Outcome("ok", ("retracted",))], 0, ()) == "warn"
    assert overall_verdict([Outcome("ok", ("concern",))], 0, fail_on) == "warn"
    assert overall_verdict([Outcome("ok", ("concern",))], 0, ("concern",)) == "fail"
    assert overall_verdict([ok, Outcome("unavailable")], 0, fail_on) == "incomplete"
    assert overall_verdict([Outcome("unavailable"), Outcome("misquote")], 0, fail_on) == "fail"
    assert overall_verdict([Outcome("unavailable")], 0, ("unavailable",)) == "fail"
    assert overall_verdict([Outcome("near_quote")], 0, fail_on) == "warn"
    assert overall_verdict([Outcome("withdrawn")], 0, fail_on) == "warn"
    assert overall_verdict([Outcome("near_quote")], 0, ("near_quote",)) == "fail"


# --- signed reports ---------------------------------------------------------------------------

KEY = LogKey.generate("mutants-key")
OTHER = LogKey.generate("other-key")
WANTED = key_id(KEY.verifier)


def signed(data: dict[str, Any], key: LogKey = KEY) -> dict[str, Any]:
    value = base64.b64encode(key.sign(signed_bytes(data))).decode("ascii")
    signature = {"algorithm": "ed25519", "key_id": key_id(key.verifier), "value": value}
    return {**data, "signature": signature}


REPORT = {"schema": "citeproof.audit/1", "verdict": "warn", "metrics": {"claims": 2}}


def test_a_valid_signature_reports_key_and_verdict() -> None:
    result = verify_report(signed(REPORT), KEY.verifier)
    assert (result.valid, result.key_id, result.verdict) == (True, WANTED, "warn")
    assert result.reason == "the signature is valid."
    assert WANTED.startswith("mutants-key+") and len(WANTED) > len("mutants-key+")


def test_the_verdict_is_only_reported_when_it_is_a_string() -> None:
    data = signed({**REPORT, "verdict": 3})
    result = verify_report(data, KEY.verifier)
    assert result.valid and result.verdict is None
    unsigned = verify_report({**REPORT, "verdict": ["pass"]}, KEY.verifier)
    assert unsigned.verdict is None


@pytest.mark.parametrize("signature", [None, "abc", ["x"], 7])
def test_an_unsigned_report(signature: object) -> None:
    data = {**REPORT} if signature is None else {**REPORT, "signature": signature}
    result = verify_report(data, KEY.verifier)
    assert result.valid is False and result.reason == "the report is not signed."
    assert result.key_id is None and result.verdict == "warn"


def test_a_signature_of_another_algorithm_or_without_a_value() -> None:
    good = signed(REPORT)["signature"]
    for change in ({"algorithm": "rsa"}, {"algorithm": None}, {"value": 12}, {"value": None}):
        data = {**REPORT, "signature": {**good, **change}}
        result = verify_report(data, KEY.verifier)
        assert result.valid is False and "not an ed25519 signature" in result.reason
        assert result.key_id == WANTED and result.verdict == "warn"
    odd_id = {**REPORT, "signature": {**good, "algorithm": "rsa", "key_id": 5}}
    assert verify_report(odd_id, KEY.verifier).key_id is None


def test_a_report_signed_by_another_key_names_both_keys() -> None:
    data = signed(REPORT, OTHER)
    result = verify_report(data, KEY.verifier)
    other_id = key_id(OTHER.verifier)
    assert result.valid is False and result.key_id == other_id and result.verdict == "warn"
    assert f"signed by {other_id!r}" in result.reason
    assert f"not by the given key {WANTED!r}" in result.reason
    assert verify_report(data, OTHER.verifier).valid
    no_id = {**REPORT, "signature": {**data["signature"], "key_id": None}}
    missing = verify_report(no_id, KEY.verifier)
    assert missing.valid is False and missing.key_id is None and "signed by None" in missing.reason


@pytest.mark.parametrize("value", ["***", "YWJj!", "YWJ"])
def test_a_signature_that_is_not_base64(value: str) -> None:
    data = {**REPORT, "signature": {**signed(REPORT)["signature"], "value": value}}
    result = verify_report(data, KEY.verifier)
    assert result.valid is False and "not valid base64" in result.reason
    assert result.key_id == WANTED and result.verdict == "warn"


def test_a_changed_report_or_signature_is_invalid() -> None:
    data = signed(REPORT)
    changed = {**data, "verdict": "pass"}
    result = verify_report(changed, KEY.verifier)
    assert result.valid is False and "changed after signing" in result.reason
    assert result.key_id == WANTED and result.verdict == "pass"
    wrong = base64.b64encode(b"\0" * 64).decode("ascii")
    forged = {**data, "signature": {**data["signature"], "value": wrong}}
    assert "changed after signing" in verify_report(forged, KEY.verifier).reason


def test_a_report_that_cannot_be_canonicalised() -> None:
    data = {**signed(REPORT), "metrics": {"ratio": float("nan")}}
    result = verify_report(data, KEY.verifier)
    assert result.valid is False and "cannot be canonicalised" in result.reason
    assert result.key_id == WANTED and result.verdict == "warn"


# --- reference lists ----------------------------------------------------------------------

ANSWER = """Claim one [1]. Claim two [2]. Claim [3] and [4].

## References

1. Smith. doi:10.1000/abc
   continued line PMID: 12345
2) Jones, no identifier here
- bullet doi:10.1000/b
[3] Brown https://example.org/x
   more
(4) Lee PMC123456

1. Repeat doi:10.1000/r
loose line after blank
"""


def test_reference_entries_numbers_spans_and_identifiers() -> None:
    parsed = parse_markdown(ANSWER)
    refs = parsed.references
    assert [r.number for r in refs] == [1, 2, None, 3, 4, 1]
    assert [r.raw for r in refs] == [
        "1. Smith. doi:10.1000/abc\n   continued line PMID: 12345",
        "2) Jones, no identifier here",
        "- bullet doi:10.1000/b",
        "[3] Brown https://example.org/x\n   more",
        "(4) Lee PMC123456",
        "1. Repeat doi:10.1000/r\nloose line after blank",
    ]
    for r in refs:
        assert ANSWER[r.start : r.end] == r.raw
    assert [i.key for i in refs[0].identifiers] == ["doi:10.1000/abc", "pmid:12345"]
    assert refs[1].identifiers == ()
    assert [i.kind for i in refs[3].identifiers] == ["url"]
    assert [i.key for i in refs[4].identifiers] == ["pmcid:PMC123456"]
    # Citations resolve to the first entry of a number.
    assert [(c.number, c.reference) for c in parsed.citations] == [(1, 0), (2, 1), (3, 3), (4, 4)]


def test_reference_entry_errors() -> None:
    refs = parse_markdown(ANSWER).references
    errors = [r.error.code if r.error else None for r in refs]
    assert errors == [
        None,
        "reference_without_identifier",
        None,
        None,
        None,
        "duplicate_reference_number",
    ]
    missing = refs[1].error
    assert missing is not None
    assert "DOI, PMID, PMCID or URL" in missing.message and "add one" in missing.message
    duplicate = refs[5].error
    assert duplicate is not None
    assert "Reference 1 is listed twice" in duplicate.message
    assert "first entry" in duplicate.message


def test_reference_list_lines_without_a_marker() -> None:
    text = (
        "Claim [1].\n\n# Sources\n\n"
        "Loose entry doi:10.1000/a\n"
        "still the loose entry\n"
        "\n"
        "after a blank doi:10.1000/c\n"
        "[^2]: footnote doi:10.1000/d\n"
        "* starred PMID: 42\n"
    )
    refs = parse_markdown(text).references
    assert [(r.number, r.raw) for r in refs] == [
        (None, "Loose entry doi:10.1000/a\nstill the loose entry"),
        (None, "after a blank doi:10.1000/c"),
        (2, "[^2]: footnote doi:10.1000/d"),
        (None, "* starred PMID: 42"),
    ]
    assert all(r.error is None for r in refs)


def test_trailing_bracketed_list_is_read_without_a_heading() -> None:
    text = "Drug X works [1] and Y [2].\n\n[1] Smith. Trial.\n[2] Jones doi:10.1000/z\n"
    parsed = parse_markdown(text)
    assert parsed.reference_section is not None
    assert [(r.number, bool(r.identifiers)) for r in parsed.references] == [(1, False), (2, True)]
    plain = "Drug X works [1] and Y [2].\n\n1. Smith. Trial.\n2. Jones. Trial.\n"
    assert parse_markdown(plain).reference_section is None


def test_a_reference_list_ends_at_the_next_heading() -> None:
    text = (
        "Claim [1].\n\n## References\n\n1. Smith doi:10.1000/a\n\n## Appendix\n\nMore text here.\n"
    )
    parsed = parse_markdown(text)
    assert [r.raw for r in parsed.references] == ["1. Smith doi:10.1000/a"]
    assert parsed.reference_section is not None
    assert text[parsed.reference_section[1] :].startswith("## Appendix")


def test_trailing_numbered_list_with_identifiers_is_a_reference_list() -> None:
    text = "Drug X works [1] and Y [2].\n\n1. Smith doi:10.1000/a\n2. Jones doi:10.1000/b\n"
    parsed = parse_markdown(text)
    assert parsed.reference_section is not None
    assert [(c.number, c.reference) for c in parsed.citations] == [(1, 0), (2, 1)]


# --- odds and ends --------------------------------------------------------------------------


def test_worst_keeps_the_first_on_a_tie() -> None:
    first, second = Outcome("misquote", (), "first"), Outcome("misquote", (), "second")
    assert worst([Outcome("ok"), first, second]) is first
    assert worst([second, first]) is second


def test_an_unknown_fail_on_name_lists_the_choices() -> None:
    with pytest.raises(BadInputError) as info:
        parse_fail_on("ok,bogus")
    message = str(info.value)
    assert "'ok', 'bogus'" in message
    assert "choose from case_only, concern," in message


def test_a_file_that_is_not_a_report_says_what_to_give() -> None:
    with pytest.raises(BadInputError) as info:
        load_report_json("{not json")
    assert "not valid JSON" in str(info.value) and "citeproof audit --json" in str(info.value)
    with pytest.raises(BadInputError) as info:
        load_report_json('{"schema": "citeproof.check/1"}')
    message = str(info.value)
    assert "not an audit report" in message and "citeproof audit --json" in message
    assert load_report_json(b'{"schema": "citeproof.audit/1"}') == {"schema": "citeproof.audit/1"}


def test_a_handle_whose_source_cannot_be_read_is_unavailable() -> None:
    # Not issued in this (empty) home, and offline with no cache: nothing can be verified.
    handle = "pmcid:PMC1234567/abstract.1~ABCDEFGH"
    report = audit_answer(f"Drug X works [{handle}].\n", offline=True, retraction=False)
    (citation,) = [c for s in report.sentences for c in s.citations]
    assert citation.verdict == "unavailable"
    assert citation.handle is not None and citation.handle.status == "unavailable"
    reason = citation.reason or ""
    assert "not issued here" in reason and "could not be read" in reason
    assert "--offline" in reason  # the loader's own reason says what to do
    assert report.verdict == "incomplete"


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_reference_lists_with_any_line_ending(newline: str) -> None:
    text = newline.join(
        ["Claim [1].", "", "## References", "", "1. Smith doi:10.1000/a", "2. Jones PMID: 123", ""]
    )
    parsed = parse_markdown(text)
    assert parsed.reference_section is not None
    assert text[parsed.reference_section[0] :].startswith("## References")
    assert [(r.number, r.raw) for r in parsed.references] == [
        (1, "1. Smith doi:10.1000/a"),
        (2, "2. Jones PMID: 123"),
    ]
    # A heading on the second line of the answer, after a lone line break.
    lone = newline + "## References" + newline * 2 + "1. Smith doi:10.1000/a" + newline
    section = parse_markdown(lone).reference_section
    assert section is not None and section[0] == len(newline)


def test_an_empty_reference_list_ends_at_the_next_heading() -> None:
    text = "Claim [1].\n\n## References\n\n## Appendix\n\n1. Smith doi:10.1000/a\n"
    parsed = parse_markdown(text)
    assert parsed.references == ()
    assert parsed.citations[0].reference is None


@pytest.mark.parametrize(
    ("text", "is_list"),
    [
        # A list the answer ends with is its reference list only when the text before it
        # cites by number ...
        ("Drug X works [1].\n\n# Notes\n\n[1] Smith doi:10.1000/a\n", True),
        ("Drug X works.\n\n[1] Smith doi:10.1000/a\n[2] Jones doi:10.1000/b\n", False),
        ("1. Drug X works [1].\n2. Smith doi:10.1000/a\n", False),
        # ... and, unless written [n], at least half of its entries carry an identifier.
        ("Drug X [1].\n\n1. Smith doi:10.1000/a\n2. Jones.\n", True),
        ("Drug X [1].\n\n1. Smith doi:10.1000/a\n2. Jones.\n3. Lee.\n", False),
    ],
)
def test_when_a_trailing_list_is_a_reference_list(text: str, is_list: bool) -> None:
    assert (parse_markdown(text).reference_section is not None) == is_list
