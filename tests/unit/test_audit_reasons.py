"""A citation's reason, where the audit joins its own words to another step's, reads as
proper sentences (issue 21): never "the reference names no identifier and The entry names
...", a capitalised sentence of the reference check glued into one of the audit's.

The texts are compared verbatim: the point is how they read.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.audit.run import _entry_without_identifier, _from_reference
from citeproof.audit.verdicts import Outcome, because, from_failure, from_handle, sentences
from citeproof.models.handle import HandleStatus
from citeproof.models.references import ReferenceResult, ReferenceVerdict, StatedFields

NOT_FOUND = (
    "No work in crossref, pubmed, openalex matches the entry: it may be fabricated or mis-cited."
)


def reference(verdict: ReferenceVerdict, reason: str) -> ReferenceResult:
    return ReferenceResult(
        index=1, verdict=verdict, reason=reason, stated=StatedFields(text="Some entry.")
    )


def test_an_entry_without_an_identifier_that_nothing_matches() -> None:
    got = _entry_without_identifier(reference("not_found", NOT_FOUND))
    assert got == Outcome(
        "unresolvable",
        (),
        "the reference names no identifier. No work in crossref, pubmed, openalex matches the "
        "entry: it may be fabricated or mis-cited.",
    )
    nothing = "The entry names no identifier and nothing to search for."
    got = _entry_without_identifier(reference("not_found", nothing))
    assert isinstance(got, Outcome) and got.reason == (
        "the reference names no identifier. The entry names no identifier and nothing to "
        "search for."
    )


def test_an_entry_without_an_identifier_that_several_works_match() -> None:
    said = "2 works match the entry equally well: doi:10.5555/a, doi:10.5555/b."
    got = _entry_without_identifier(reference("ambiguous", said))
    assert isinstance(got, Outcome) and got.verdict == "unavailable"
    assert got.reason == (
        "the reference names no identifier. 2 works match the entry equally well: "
        "doi:10.5555/a, doi:10.5555/b. Add one to say which of them it means."
    )


def test_an_entry_that_names_another_work() -> None:
    said = "doi:10.5555/a is another work: its title differs from the entry's."
    got = _from_reference(reference("mismatch", said))
    assert got == Outcome(
        "mismatch",
        (),
        "the entry and its identifier name different works. doi:10.5555/a is another work: "
        "its title differs from the entry's.",
    )


def test_fetch_failures_and_malformed_handles_end_in_one_full_stop() -> None:
    gone = from_failure("not_checkable", "NCBI has no such PMCID", {}, has_quote=False)
    assert gone.reason == "no service knows this work: NCBI has no such PMCID."
    dotted = from_failure("not_checkable", "The record is gone.", {}, has_quote=False)
    assert dotted.reason == "no service knows this work: the record is gone."
    two = {"pmid": "1", "doi": "10.1/x"}
    closed = from_failure("not_checkable", "Europe PMC has no open text", two, has_quote=True)
    assert closed.reason == (
        "the work exists but no text of it can be read here, so the quote was not checked: "
        "Europe PMC has no open text."
    )
    status = HandleStatus(handle="x", status="malformed", reason="it contains whitespace")
    assert from_handle(status) == Outcome(
        "malformed", (), "the handle is malformed: it contains whitespace."
    )


@pytest.mark.parametrize(
    ("parts", "said"),
    [
        (("the reference names no identifier", "The entry names none."), None),
        (("the quote is short", "add more words"), "the quote is short. Add more words."),
        (("a", "doi:10.1/x is another work."), "a. doi:10.1/x is another work."),
        (("a.", None, " ", "pmc.1 is old"), "a. pmc.1 is old."),
        (("it is so?", "yes!"), "it is so? Yes!"),
    ],
)
def test_sentences(parts: tuple[str | None, ...], said: str | None) -> None:
    expected = said or "the reference names no identifier. The entry names none."
    assert sentences(*parts) == expected


def test_because_lowers_only_a_common_opening_word() -> None:
    assert because("no service knows it", None) == "no service knows it."
    assert because("no service knows it", "The DOI is unknown") == (
        "no service knows it: the DOI is unknown."
    )
    assert because("x", "Europe PMC said no.") == "x: Europe PMC said no."
    assert because("x", "PMC1 is gone") == "x: PMC1 is gone."


CLAUSES = st.from_regex(r"[A-Za-z][a-z]*( [a-z]+){0,3}\.?", fullmatch=True)


@given(st.lists(CLAUSES, min_size=1, max_size=4))
def test_each_joined_part_is_a_sentence_of_its_own(parts: list[str]) -> None:
    joined = sentences("the audit's words", *parts)
    said = joined.split(". ")
    assert len(said) == len(parts) + 1 and said[0] == "the audit's words"
    assert all(s[0].isupper() for s in said[1:]), joined
    assert joined.endswith(".") and not joined.endswith("..")
