"""The registry of identifier kinds (``identifiers/specs.py``): each kind declared once, whole.

A kind added to :data:`citeproof.identifiers.KINDS` must come with examples that parse as it
says, a page that names it again, and a loader: these tests fail until it does.
"""

from __future__ import annotations

from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.handles.grammar import SCHEMES, MalformedHandleError, handle_for
from citeproof.identifiers import (
    KINDS,
    Identifier,
    IdentifierKind,
    KindSpec,
    find_identifiers,
    kind_names,
    parse_identifier,
    record_url,
)
from citeproof.loading.chain import LOADERS

_ROWS = [(spec, written, key) for spec in KINDS.values() for written, key in spec.examples]
EXAMPLES = [pytest.param(*row, id=row[1]) for row in _ROWS]


def test_every_kind_is_declared_once_in_the_order_of_identifier_kind() -> None:
    assert tuple(KINDS) == get_args(IdentifierKind)
    assert all(kind == spec.kind for kind, spec in KINDS.items())


def test_every_kind_has_a_loader() -> None:
    """The pure registry cannot fetch; the loading chain must know how to, for every kind."""
    assert set(LOADERS) == set(KINDS)


def test_handle_schemes_are_the_kinds_declared_with_handles() -> None:
    assert {spec.kind for spec in KINDS.values() if spec.handles} == set(SCHEMES)


@pytest.mark.parametrize("spec", KINDS.values(), ids=lambda spec: spec.kind)
def test_every_kind_is_described(spec: KindSpec) -> None:
    assert spec.name and spec.examples
    assert spec.starts is None or spec.form, "a refusal by start must say what the kind looks like"
    assert all(spec.kind == key.split(":", 1)[0] for _, key in spec.examples)


@pytest.mark.parametrize(("spec", "written", "key"), EXAMPLES)
def test_examples_parse_to_their_key_and_back(spec: KindSpec, written: str, key: str) -> None:
    ident = parse_identifier(written)
    assert (ident.kind, ident.key) == (spec.kind, key)
    assert parse_identifier(ident.key) == ident
    assert spec.is_canonical(ident.value)
    assert spec.canonical(ident.value) == ident.value  # canonical forms are fixed points


# ``url:`` is a label for a string on its own, not something prose writes.
IN_TEXT = [pytest.param(*row, id=row[1]) for row in _ROWS if not row[1].startswith("url:")]


@pytest.mark.parametrize(("spec", "written", "key"), IN_TEXT)
def test_examples_are_found_in_running_text(spec: KindSpec, written: str, key: str) -> None:
    found = find_identifiers(f"As reported ({written}), the effect held.")
    assert [ident.key for ident in found] == [key]


@pytest.mark.parametrize(("spec", "written", "key"), EXAMPLES)
def test_the_record_page_names_the_same_identifier(spec: KindSpec, written: str, key: str) -> None:
    ident = parse_identifier(written)
    page = record_url(ident.kind, ident.value, ident.version)
    assert page is not None and page.startswith("https://")
    if spec.kind == "url":
        assert page == ident.value  # a URL is its own page, whatever it would parse as
    else:
        assert parse_identifier(page) == ident


def test_record_url_takes_values_as_a_person_writes_them() -> None:
    assert record_url("pmcid", "pmc0123") == "https://pmc.ncbi.nlm.nih.gov/articles/PMC123/"
    assert record_url("doi", "10.1371/Journal.X") == "https://doi.org/10.1371/journal.x"
    assert record_url("nct", "nct04363697") == "https://clinicaltrials.gov/study/NCT04363697"
    assert record_url("pmid", "0") is None
    assert record_url("isbn", "9780262033848") is None


def test_kind_names_lists_every_kind() -> None:
    assert kind_names() == "a DOI, PMID, PMCID, NCT number, openFDA set id, PPR id or URL"


_VALUES: dict[str, st.SearchStrategy[str]] = {
    "pmid": st.integers(1, 10**10 - 1).map(str),
    "pmcid": st.integers(1, 10**10 - 1).map(lambda n: f"PMC{n}"),
    "nct": st.integers(0, 10**8 - 1).map(lambda n: f"NCT{n:08d}"),
    "ppr": st.integers(0, 10**10 - 1).map(lambda n: f"PPR{n}"),
    "setid": st.uuids().map(str),
    "doi": st.builds(
        lambda reg, suffix: f"10.{reg}/{suffix}",
        st.integers(1000, 999999999),
        st.from_regex(r"[a-z0-9][a-z0-9.()/_;:<>-]{0,20}[a-z0-9]", fullmatch=True),
    ),
}


@given(st.sampled_from(sorted(_VALUES)).flatmap(lambda k: st.tuples(st.just(k), _VALUES[k])))
def test_canonical_values_round_trip(kind_value: tuple[str, str]) -> None:
    kind, value = kind_value
    spec = next(spec for spec in KINDS.values() if spec.kind == kind)
    assert spec.is_canonical(value)
    page = record_url(kind, value)
    assert page is not None
    assert parse_identifier(page) == Identifier(spec.kind, value)
    assert parse_identifier(f"{kind}:{value}") == Identifier(spec.kind, value)


@pytest.mark.parametrize(
    ("kind", "written", "canonical"),
    [
        ("pmid", "0027355798", "27355798"),
        ("pmid", "١٢٣", None),  # a digit is an ASCII digit
        ("pmcid", "123", "PMC123"),
        ("pmcid", "pmc0", None),
        ("nct", "nct04363697", "NCT04363697"),
        ("nct", "NCT0436369", None),
        ("ppr", "ppr12", "PPR12"),
        ("setid", "7C4DEB97-9966-4C8E-9BA6-BB260B71E130", "7c4deb97-9966-4c8e-9ba6-bb260b71e130"),
        ("doi", "10.1371/X.", "10.1371/x"),
        ("doi", "10.1371/a b", None),
        ("url", "https://example.org/x).", "https://example.org/x"),
        ("url", "ftp://example.org/x", None),
    ],
)
def test_canonical_is_lenient_about_case_and_context(
    kind: str, written: str, canonical: str | None
) -> None:
    spec = next(spec for spec in KINDS.values() if spec.kind == kind)
    assert spec.canonical(written) == canonical


def test_handle_ids_are_read_by_the_kinds_canonical_form() -> None:
    handle = handle_for(b"k" * 32, "nct", "nct04363697", "p1", "text")
    assert handle.id == "NCT04363697"
    with pytest.raises(MalformedHandleError, match="not a valid pmid"):
        handle_for(b"k" * 32, "pmid", "١٢٣", "p1", "text")
