"""Handle maths: grammar, canonical form, check codes (pure, no I/O)."""

from __future__ import annotations

import hashlib
import hmac

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from citeproof.errors import BadInputError
from citeproof.handles.grammar import (
    CROCKFORD,
    SCHEMES,
    Handle,
    MalformedHandleError,
    encode_code,
    format_handle,
    handle_for,
    issue_code,
    normalize_code,
    parse_handle,
    passage_sha256,
    valid_path,
    verify,
)

KEY = b"k" * 32
TEXT = "The programme did not improve total sleep time."

# -------------------------------------------------------------------------- strategies

segments = st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
paths = st.lists(segments, min_size=1, max_size=4).map(".".join)
codes = st.text(alphabet=CROCKFORD, min_size=8, max_size=8)
ids = st.one_of(
    st.tuples(st.just("pmid"), st.integers(1, 10**10 - 1).map(str), st.none()),
    st.tuples(
        st.just("pmcid"),
        st.integers(1, 10**10 - 1).map(lambda n: f"PMC{n}"),
        st.one_of(st.none(), st.integers(1, 9999)),
    ),
    st.tuples(
        st.just("doi"),
        st.builds(
            lambda reg, suffix: f"10.{reg}/{suffix}",
            st.integers(1000, 99999),
            st.from_regex(r"[a-z0-9][a-z0-9.()/_-]{0,20}[a-z0-9]", fullmatch=True),
        ),
        st.none(),
    ),
    st.tuples(st.just("ppr"), st.integers(1, 10**9).map(lambda n: f"PPR{n}"), st.none()),
    st.tuples(st.just("nct"), st.integers(0, 10**8 - 1).map(lambda n: f"NCT{n:08d}"), st.none()),
    st.tuples(st.just("setid"), st.uuids().map(str), st.none()),
)
handles = st.builds(lambda i, path, code: Handle(i[0], i[1], path, code, i[2]), ids, paths, codes)


# -------------------------------------------------------------------------- round trips


@given(handles)
def test_parse_format_round_trip(handle: Handle) -> None:
    assert parse_handle(format_handle(handle)) == handle
    assert str(handle) == format_handle(handle)


@given(handles)
def test_parsing_is_case_insensitive_for_scheme_and_code(handle: Handle) -> None:
    text = format_handle(handle)
    scheme, rest = text.split(":", 1)
    head, code = rest.rsplit("~", 1)
    assert parse_handle(f"{scheme.upper()}:{head}~{code.lower()}") == handle


def test_crockford_aliases_map_to_digits() -> None:
    h = parse_handle("pmid:1/abstract.1~OOIILL00")
    assert h.code == "00111100"
    assert normalize_code("oOiIlL01") == "001111" + "01"
    assert normalize_code("ABCDEFGU") is None  # U is not in the alphabet
    assert normalize_code("ABC") is None


def test_id_is_canonicalised_as_identifiers_do() -> None:
    h = parse_handle("DOI:10.1371/Journal.PONE.0340378/body.results.p4~7G2KQ1XM")
    assert h.base == "doi:10.1371/journal.pone.0340378/body.results.p4"
    assert parse_handle("pmcid:pmc00123.v2/abstract.1~7G2KQ1XM").base == (
        "pmcid:PMC123.v2/abstract.1"
    )
    assert parse_handle("pmid:0042/caption.fig2~7G2KQ1XM").id == "42"
    assert parse_handle("nct:nct04363697/table.t1~7G2KQ1XM").id == "NCT04363697"
    uuid = "7C4DEB97-9966-4C8E-9BA6-BB260B71E130"
    assert parse_handle(f"setid:{uuid}/body.p1~7G2KQ1XM").id == uuid.lower()
    assert parse_handle("ppr:ppr1021553/body.p1~7G2KQ1XM").id == "PPR1021553"
    assert parse_handle("  pmid:1/abstract.1~7G2KQ1XM\n").id == "1"


def test_doi_path_is_after_the_last_slash() -> None:
    h = parse_handle("doi:10.1000/a/b/c/body.intro.p1~7G2KQ1XM")
    assert h.id == "10.1000/a/b/c"
    assert h.path == "body.intro.p1"
    assert h.identifier.key == "doi:10.1000/a/b/c"


def test_pmcid_version_becomes_the_identifier_version() -> None:
    h = parse_handle("pmcid:PMC3166277.v1/abstract.2~7G2KQ1XM")
    assert h.version == 1
    assert h.identifier.key == "pmcid:PMC3166277.1"
    # a DOI may end in ".v2": it is part of the DOI, never a version
    d = parse_handle("doi:10.1000/x.v2/abstract.2~7G2KQ1XM")
    assert d.id == "10.1000/x.v2" and d.version is None


# -------------------------------------------------------------------------- malformed

MALFORMED = [
    ("", "it is empty"),
    ("   ", "it is empty"),
    ("pmid 1/abstract.1~7G2KQ1XM", "whitespace"),
    ("pmid1/abstract.1~7G2KQ1XM", "no ':' after the scheme"),
    ("pubmed:1/abstract.1~7G2KQ1XM", "scheme 'pubmed' is not one of"),
    ("pm1d:1/abstract.1~7G2KQ1XM", "scheme"),
    ("pmid:1abstract.1~7G2KQ1XM", "no '/' before the passage path"),
    ("pmid:1/abstract.1", "no '~' before the check code"),
    ("pmid:1/abstract.1~7G2K~Q1XM", "more than one '~'"),
    ("pmid:1/~7G2KQ1XM", "the passage path is empty"),
    ("pmid:1/Abstract.1~7G2KQ1XM", "passage path 'Abstract.1'"),
    ("pmid:1/abstract..1~7G2KQ1XM", "passage path"),
    ("pmid:1/abstract.1.~7G2KQ1XM", "passage path"),
    ("pmid:1/body.-x.p1~7G2KQ1XM", "passage path"),
    ("pmid:1/abstract.1~7G2KQ1X", "check code '7G2KQ1X' is not 8"),
    ("pmid:1/abstract.1~7G2KQ1XMM", "check code"),
    ("pmid:1/abstract.1~7G2KQ1XU", "check code"),
    ("pmid:1/abstract.1~7G2KQ1X!", "check code"),
    ("pmid:/abstract.1~7G2KQ1XM", "the identifier is empty"),
    ("pmid:abc/abstract.1~7G2KQ1XM", "'abc' is not a valid pmid identifier"),
    ("pmid:0/abstract.1~7G2KQ1XM", "not a valid pmid"),
    ("pmid:1.v2/abstract.1~7G2KQ1XM", "not a valid pmid"),
    ("pmcid:PMC0/abstract.1~7G2KQ1XM", "not a valid pmcid"),
    ("pmcid:PMC12.v0/abstract.1~7G2KQ1XM", "versions start at 1"),
    ("pmcid:PMC12.2/abstract.1~7G2KQ1XM", "a version is written .vN"),
    ("nct:NCT123/abstract.1~7G2KQ1XM", "not a valid nct"),
    ("ppr:123/abstract.1~7G2KQ1XM", "not a valid ppr"),
    ("setid:not-a-uuid/abstract.1~7G2KQ1XM", "not a valid setid"),
    ("doi:11.1000/x/abstract.1~7G2KQ1XM", "not a valid DOI"),
    ("doi:10.1000/x./abstract.1~7G2KQ1XM", "not a DOI as written"),
    ("doi:10.1000/x?a=1/abstract.1~7G2KQ1XM", "not a DOI as written"),
    ("pmid:" + "1" * 700 + "/a~7G2KQ1XM", "over 600 characters"),
]


@pytest.mark.parametrize(("text", "problem"), MALFORMED)
def test_each_grammar_error_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(MalformedHandleError) as info:
        parse_handle(text)
    assert problem in info.value.problem
    assert isinstance(info.value, BadInputError)
    assert "scheme:id[.vN]/path~code" in str(info.value)


@given(st.text(max_size=300))
def test_arbitrary_text_raises_only_malformed(text: str) -> None:
    try:
        handle = parse_handle(text)
    except MalformedHandleError:
        return
    assert parse_handle(str(handle)) == handle


@given(
    st.builds(
        lambda scheme, mid, path, code: f"{scheme}:{mid}/{path}~{code}",
        st.sampled_from([*SCHEMES, "PMID", "Doi", "x"]),
        st.text(alphabet="0123456789abcdefPMCNTRvV.-/()~:", max_size=30),
        st.text(alphabet="abz019.-_A/", max_size=20),
        st.text(alphabet=CROCKFORD + "ilouILOU-", max_size=10),
    )
)
def test_near_miss_text_raises_only_malformed(text: str) -> None:
    try:
        handle = parse_handle(text)
    except MalformedHandleError:
        return
    assert parse_handle(str(handle)) == handle


def test_parse_refuses_non_strings() -> None:
    with pytest.raises(TypeError):
        parse_handle(b"pmid:1/a~7G2KQ1XM")  # type: ignore[arg-type]


# -------------------------------------------------------------------------- codes


def test_code_is_40_bits_of_the_hmac_in_crockford_base32() -> None:
    canonical = "pmcid:PMC3166277/abstract.2"
    sha = passage_sha256(TEXT)
    digest = hmac.new(KEY, f"{canonical}\n{sha}".encode(), hashlib.sha256).digest()
    value = int.from_bytes(digest[:5], "big")
    expected = "".join(CROCKFORD[(value >> (35 - 5 * i)) & 31] for i in range(8))
    assert issue_code(KEY, canonical, sha) == expected
    assert encode_code(bytes(5)) == "00000000"
    assert encode_code(b"\xff" * 5) == "ZZZZZZZZ"
    assert sha == hashlib.sha256(TEXT.encode()).hexdigest()


def test_handle_for_issues_a_verifying_handle() -> None:
    h = handle_for(KEY, "pmcid", "pmc3166277", "body.results.p4", TEXT, version=1)
    assert str(h).startswith("pmcid:PMC3166277.v1/body.results.p4~")
    assert verify(KEY, h, passage_sha256(TEXT))
    assert not verify(KEY, h, passage_sha256(TEXT + " "))  # other words at the same path
    assert not verify(b"j" * 32, h, passage_sha256(TEXT))  # another secret
    moved = Handle(h.scheme, h.id, "body.results.p5", h.code, h.version)
    assert not verify(KEY, moved, passage_sha256(TEXT))  # the code of another path
    with pytest.raises(MalformedHandleError):
        handle_for(KEY, "pmid", "1", "Bad Path", TEXT)
    with pytest.raises(MalformedHandleError):
        handle_for(KEY, "pmid", "1", "abstract.1", TEXT, version=2)


@given(
    st.sampled_from(["pmid:12345/abstract.1", "doi:10.1000/x/body.results.p4"]),
    st.text(max_size=200),
    st.integers(0, 7),
    st.sampled_from(CROCKFORD),
)
def test_any_single_character_change_of_the_code_fails(
    base: str, text: str, position: int, replacement: str
) -> None:
    sha = passage_sha256(text)
    code = issue_code(KEY, base, sha)
    assume(code[position] != replacement)
    good = parse_handle(f"{base}~{code}")
    assert verify(KEY, good, sha)
    assert verify(KEY, parse_handle(f"{base}~{code.lower()}"), sha)
    changed = code[:position] + replacement + code[position + 1 :]
    assert not verify(KEY, parse_handle(f"{base}~{changed}"), sha)


@given(paths)
def test_generated_paths_are_valid(path: str) -> None:
    assert valid_path(path)
    assert not valid_path(path + ".")
    assert not valid_path(path.upper() + "X")
