"""Identifier parsing: every accepted form, the refusals, and running-text extraction.

Examples are real identifiers from the shared corpus (Crossref, PMC, Europe PMC, openFDA,
ClinicalTrials.gov fixtures), so a regression shows up on inputs users actually paste.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from citeproof.errors import BadInputError
from citeproof.identifiers import (
    ACCEPTED_FORMS,
    Identifier,
    UnknownIdentifierError,
    find_identifiers,
    looks_like_identifier,
    parse_identifier,
)

# (input, expected key)
ACCEPTED: list[tuple[str, str]] = [
    # DOI: bare, labelled, URL; case folded, balanced brackets kept
    ("10.1371/journal.pone.0340378", "doi:10.1371/journal.pone.0340378"),
    ("10.1016/S0140-6736(97)11096-0", "doi:10.1016/s0140-6736(97)11096-0"),
    ("doi:10.1016/s0140-6736(97)11096-0", "doi:10.1016/s0140-6736(97)11096-0"),
    ("DOI: 10.7326/M18-2101", "doi:10.7326/m18-2101"),
    ("doi 10.1038/srep16696", "doi:10.1038/srep16696"),
    ("10.21203/rs.3.rs-10665898/v1", "doi:10.21203/rs.3.rs-10665898/v1"),
    ("10.3892/ijo_00000353", "doi:10.3892/ijo_00000353"),
    ("10.5409/wjcp.v14.i3.101974", "doi:10.5409/wjcp.v14.i3.101974"),
    ("https://doi.org/10.1126/science.169.3946.635", "doi:10.1126/science.169.3946.635"),
    ("http://dx.doi.org/10.1002/jor.1100150407", "doi:10.1002/jor.1100150407"),
    ("https://www.doi.org/10.1038/srep16696", "doi:10.1038/srep16696"),
    ("HTTPS://DOI.ORG/10.1038/SREP16696", "doi:10.1038/srep16696"),
    ("doi.org/10.1038/srep16696", "doi:10.1038/srep16696"),
    ("dx.doi.org/10.1038/srep16696", "doi:10.1038/srep16696"),
    ("https://doi.org/10.1016%2FS0140-6736%2897%2911096-0", "doi:10.1016/s0140-6736(97)11096-0"),
    (
        "https://doi.org/10.1371/journal.pone.0340378?utm_source=x",
        "doi:10.1371/journal.pone.0340378",
    ),
    ("https://doi.org/10.1371/journal.pone.0340378#sec1", "doi:10.1371/journal.pone.0340378"),
    ("<https://doi.org/10.1038/srep16696>", "doi:10.1038/srep16696"),
    ("doi:10.1038/srep16696.", "doi:10.1038/srep16696"),
    ("(doi:10.1016/S0140-6736(97)11096-0)", "doi:10.1016/s0140-6736(97)11096-0"),
    (
        "10.1002/(SICI)1097-4636(199706)35:4<413::AID-JBM1>3.0.CO;2-C",
        "doi:10.1002/(sici)1097-4636(199706)35:4<413::aid-jbm1>3.0.co;2-c",
    ),
    ("10.978.8898392/315", "doi:10.978.8898392/315"),  # ISBN-A
    ("10.1000.10/123456", "doi:10.1000.10/123456"),  # sub-prefix
    # PMCID, with and without a pinned version
    ("PMC12829825", "pmcid:PMC12829825"),
    ("pmc13599058", "pmcid:PMC13599058"),
    ("PMC10496602.1", "pmcid:PMC10496602.1"),
    ("PMCID: PMC12585062", "pmcid:PMC12585062"),
    ("pmcid:12585062", "pmcid:PMC12585062"),
    ("https://www.ncbi.nlm.nih.gov/pmc/articles/PMC12829825/", "pmcid:PMC12829825"),
    ("https://pmc.ncbi.nlm.nih.gov/articles/PMC12829825/", "pmcid:PMC12829825"),
    ("https://pmc.ncbi.nlm.nih.gov/articles/PMC10496602.1/", "pmcid:PMC10496602.1"),
    ("https://pmc.ncbi.nlm.nih.gov/articles/PMC12829825", "pmcid:PMC12829825"),
    # PMID
    ("PMID 27355798", "pmid:27355798"),
    ("PMID: 41187138", "pmid:41187138"),
    ("pmid:27355798", "pmid:27355798"),
    ("PMID:027355798", "pmid:27355798"),
    ("https://pubmed.ncbi.nlm.nih.gov/27355798/", "pmid:27355798"),
    ("https://pubmed.ncbi.nlm.nih.gov/27355798", "pmid:27355798"),
    ("https://www.ncbi.nlm.nih.gov/pubmed/27355798", "pmid:27355798"),
    # NCT
    ("NCT04363697", "nct:NCT04363697"),
    ("nct04363697", "nct:NCT04363697"),
    ("https://clinicaltrials.gov/study/NCT04363697", "nct:NCT04363697"),
    ("https://clinicaltrials.gov/study/NCT04363697?tab=results", "nct:NCT04363697"),
    ("https://clinicaltrials.gov/ct2/show/NCT04363697", "nct:NCT04363697"),
    # openFDA set ids (from the openFDA label fixtures)
    ("7c4deb97-9966-4c8e-9ba6-bb260b71e130", "setid:7c4deb97-9966-4c8e-9ba6-bb260b71e130"),
    ("598E5E2E-9264-8371-E063-6394A90AAF18", "setid:598e5e2e-9264-8371-e063-6394a90aaf18"),
    ("setid:541c9a70-adaf-4ef3-94ba-ad4e70dfa057", "setid:541c9a70-adaf-4ef3-94ba-ad4e70dfa057"),
    (
        "https://dailymed.nlm.nih.gov/dailymed/drugInfo.cfm?setid=724b0061-f42a-4008-a078-09c800ee9785",
        "setid:724b0061-f42a-4008-a078-09c800ee9785",
    ),
    # Europe PMC preprints and article URLs
    ("PPR1021553", "ppr:PPR1021553"),
    ("ppr1180508", "ppr:PPR1180508"),
    ("https://europepmc.org/article/MED/27355798", "pmid:27355798"),
    ("https://europepmc.org/abstract/MED/27355798", "pmid:27355798"),
    ("https://europepmc.org/article/PMC/PMC12829825", "pmcid:PMC12829825"),
    ("https://europepmc.org/article/PMC/12829825", "pmcid:PMC12829825"),
    ("https://europepmc.org/article/PPR/PPR1021553", "ppr:PPR1021553"),
    ("https://europepmc.org/articles/PMC12829825", "pmcid:PMC12829825"),
    ("http://www.europepmc.org/article/med/27355798/", "pmid:27355798"),
    # everything else http(s) is a plain URL, kept as given
    ("https://example.org/paper?id=1&x=2", "url:https://example.org/paper?id=1&x=2"),
    (
        "https://pmc.ncbi.nlm.nih.gov/articles/PMC123/pdf/x.pdf",
        "url:https://pmc.ncbi.nlm.nih.gov/articles/PMC123/pdf/x.pdf",
    ),
    ("https://europepmc.org/article/AGR/AGR123", "url:https://europepmc.org/article/AGR/AGR123"),
    (
        "https://pubmed.ncbi.nlm.nih.gov/?term=autism",
        "url:https://pubmed.ncbi.nlm.nih.gov/?term=autism",
    ),
    ("url:https://doi.org/10.1038/srep16696", "url:https://doi.org/10.1038/srep16696"),
]


@pytest.mark.parametrize(("text", "key"), ACCEPTED)
def test_accepted_forms(text: str, key: str) -> None:
    ident = parse_identifier(text)
    assert ident.key == key
    assert ident.raw == text.strip()
    assert parse_identifier(ident.key) == ident  # keys round-trip
    assert looks_like_identifier(text)


def test_fields() -> None:
    ident = parse_identifier(" PMC10496602.1 ")
    assert (ident.kind, ident.value, ident.version, ident.raw) == (
        "pmcid",
        "PMC10496602",
        1,
        "PMC10496602.1",
    )
    assert parse_identifier("PMC10496602").version is None
    assert str(ident) == ident.key


def test_equality_ignores_raw() -> None:
    a = parse_identifier("https://doi.org/10.1038/SREP16696")
    b = parse_identifier("doi:10.1038/srep16696")
    assert a == b and hash(a) == hash(b) and a.raw != b.raw
    assert parse_identifier("PMC10496602.1") != parse_identifier("PMC10496602")


def test_doi_lowercases_ascii_only() -> None:
    # DOIs are case-insensitive for ASCII letters only; other letters are kept as written.
    assert parse_identifier("10.1234/ÄBC").value == "10.1234/Äbc"


def test_frozen() -> None:
    ident = parse_identifier("PMC12829825")
    with pytest.raises(AttributeError):
        ident.value = "PMC1"  # type: ignore[misc]


REFUSED: list[tuple[str, str]] = [
    ("https://doi.org/", "names no DOI"),  # was fetched as a web page: now malformed
    ("12345", "PMID 12345 or pmid:12345"),
    ("27355798.", "PMID 27355798"),
    ("foo", "not an identifier"),
    ("doi:foo", "not a valid DOI"),
    ("10.1234/", "not a valid DOI"),
    ("10.12/abc", "not an identifier"),  # registrant code too short
    ("PMC0", "PMCIDs start at 1"),
    ("PMC123.0", "versions start at 1"),
    ("PMID 0", "PMIDs start at 1"),
    ("NCT123", "not an identifier"),
    ("", "No identifier"),
    ("   ", "No identifier"),
    ("https://", "not a valid http(s) URL"),
    ("https://user:secret@example.org/x", "user name or password"),
    ("https://example.org/a b", "not a valid URL"),
    ("https://example.org:99999/", "not a valid URL"),
    ("ftp://example.org/x", "not an identifier"),
    ("7c4deb97-9966-4c8e-9ba6", "not an identifier"),
]


@pytest.mark.parametrize(("text", "fragment"), REFUSED)
def test_refused(text: str, fragment: str) -> None:
    with pytest.raises(UnknownIdentifierError) as info:
        parse_identifier(text)
    message = str(info.value)
    assert fragment in message
    assert ACCEPTED_FORMS in message  # the refusal always lists what would work
    assert isinstance(info.value, BadInputError)
    assert info.value.exit_code == 2


def test_accepted_forms_read_as_one_line() -> None:
    """Every interface shows an error on one line; the table it was ran its columns together
    there ("PMID PMID 27355798 ... web page any http:// ...")."""
    with pytest.raises(UnknownIdentifierError) as info:
        parse_identifier("pmid:abc")
    message = str(info.value)
    assert "\n" not in message and "  " not in message
    assert "PMID PMID" not in message
    assert len(ACCEPTED_FORMS) < 450


def test_accepted_forms_message_has_examples() -> None:
    for example in (
        "10.1371/journal.pone.0340378",
        "PMC10496602.1",
        "PMID 27355798",
        "NCT04363697",
        "PPR1021553",
        "https://",
        " - ",
    ):
        assert example in ACCEPTED_FORMS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12345", True),  # refused with guidance, not treated as a missing file
        ("doi:foo", True),
        ("PMC0", True),
        ("https://", True),
        ("PMC12829825", True),
        ("the patients were randomised", False),
        ("notes.txt", False),
        ("./paper.pdf", False),
        ("-", False),
        ("", False),
        ("PMID 1\nsecond line", False),
    ],
)
def test_looks_like_identifier(text: str, expected: bool) -> None:
    assert looks_like_identifier(text) is expected


# --------------------------------------------------------------------------------------------
# Running text


def keys(text: str) -> list[str]:
    return [ident.key for ident in find_identifiers(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "1. Wakefield AJ, et al. Lancet. 1998;351(9103):637-41. "
            "doi:10.1016/S0140-6736(97)11096-0.",
            ["doi:10.1016/s0140-6736(97)11096-0"],
        ),
        ("(doi:10.1016/S0140-6736(97)11096-0)", ["doi:10.1016/s0140-6736(97)11096-0"]),
        ("[10.1016/S0140-6736(97)11096-0]", ["doi:10.1016/s0140-6736(97)11096-0"]),
        ("see 10.1371/journal.pone.0340378, and", ["doi:10.1371/journal.pone.0340378"]),
        ("see 10.1371/journal.pone.0340378; and", ["doi:10.1371/journal.pone.0340378"]),
        ("“10.1371/journal.pone.0340378”", ["doi:10.1371/journal.pone.0340378"]),
        (
            "https://doi.org/10.1371/journal.pone.0340378?utm_source=x.",
            ["doi:10.1371/journal.pone.0340378"],
        ),
        ("10.1371/journal.pone.0340378#sec1", ["doi:10.1371/journal.pone.0340378"]),
        ("<https://doi.org/10.1038/srep16696>", ["doi:10.1038/srep16696"]),
        ("doi.org/10.1016%2FS0140-6736%2897%2911096-0", ["doi:10.1016/s0140-6736(97)11096-0"]),
        (
            "10.1038/srep16696,10.3892/ijo_00000353;10.7326/M18-2101",
            ["doi:10.1038/srep16696", "doi:10.3892/ijo_00000353", "doi:10.7326/m18-2101"],
        ),
        (
            "PMID: 41187138; PMCID: PMC12585062; doi:10.1371/journal.pmed.1004764",
            ["pmid:41187138", "pmcid:PMC12585062", "doi:10.1371/journal.pmed.1004764"],
        ),
        ("Trial NCT04363697 (PMC10496602.1).", ["nct:NCT04363697", "pmcid:PMC10496602.1"]),
        (
            "preprint PPR1021553, label 7c4deb97-9966-4c8e-9ba6-bb260b71e130.",
            ["ppr:PPR1021553", "setid:7c4deb97-9966-4c8e-9ba6-bb260b71e130"],
        ),
        (
            "Available at https://pubmed.ncbi.nlm.nih.gov/27355798/. And "
            "(https://europepmc.org/article/PPR/PPR1180508)",
            ["pmid:27355798", "ppr:PPR1180508"],
        ),
        ("See https://example.org/a_(b)_c).", ["url:https://example.org/a_(b)_c"]),
        (
            "https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0340378",
            ["url:https://journals.plos.org/plosone/article?id=10.1371/journal.pone.0340378"],
        ),
        ("In 2019, 12345 patients (p. 27355798) were seen.", []),  # bare numbers are not PMIDs
        ("PMC123 and again pmc123 and PMC123.", ["pmcid:PMC123"]),  # one each, first order
        ("x10.1038/srep16696 ABCPMC123 NCT0436369", []),  # not at a word boundary / too short
        ("", []),
    ],
)
def test_find_identifiers(text: str, expected: list[str]) -> None:
    assert keys(text) == expected


def test_find_keeps_raw_text() -> None:
    (ident,) = find_identifiers("doi: see PMID:27355798.")
    assert ident.raw == "PMID:27355798"


# --------------------------------------------------------------------------------------------
# Properties

_WORD = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,8}", fullmatch=True)
_LETTER_WORD = st.from_regex(r"[A-Za-z][A-Za-z0-9_\-]{0,8}", fullmatch=True)
_INNER = st.from_regex(r"[A-Za-z0-9]{1,6}", fullmatch=True)


@st.composite
def dois(draw: st.DrawFn) -> str:
    """A Crossref-style DOI: ``10.NNNN/`` then words joined by ``. _ ; / : -``, some with
    balanced ``(...)`` groups; never ending in punctuation (which would be context)."""
    registrant = draw(st.from_regex(r"[1-9][0-9]{3,8}", fullmatch=True))
    parts = [draw(_WORD)]
    for _ in range(draw(st.integers(0, 4))):
        sep = draw(st.sampled_from([".", "/", "-", "_", ";", ":"]))
        # after ";" a part starts with a letter, so it never reads as a second "10.NNNN/" DOI
        word = draw(_LETTER_WORD if sep == ";" else _WORD)
        if draw(st.booleans()):
            word = f"{word}({draw(_INNER)})" + draw(st.sampled_from(["", "x1", "-0"]))
        parts.append(sep + word)
    return f"10.{registrant}/" + "".join(parts)


_TRAILERS = st.lists(
    st.sampled_from(
        [
            ".",
            ",",
            ";",
            ":",
            "!",
            "?",
            ")",
            "]",
            "}",
            ">",
            "'",
            '"',
            "”",
            "…",
            "?utm_source=x",
            "#sec1",
            "?a=1&b=2",
            ").",
            "].",
            "),",
        ]
    ),
    max_size=4,
).map("".join)
_LEADERS = st.sampled_from(
    [
        "",
        "doi:",
        "DOI: ",
        "(",
        "[",
        "(doi:",
        "https://doi.org/",
        "http://dx.doi.org/",
        "see ",
        "“",
        "<",
    ]
)
_AFTER = st.sampled_from(["", " and more text.", "\n2. Next reference", " (1998)"])


@given(dois(), _LEADERS, _TRAILERS, _AFTER)
def test_find_returns_exactly_the_doi(doi: str, lead: str, trail: str, after: str) -> None:
    text = f"Ref: {lead}{doi}{trail}{after}"
    assert keys(text) == [f"doi:{doi.lower()}"]


@given(dois(), _LEADERS, _TRAILERS)
def test_parse_strips_context_from_a_doi(doi: str, lead: str, trail: str) -> None:
    assume(lead != "see ")  # a word before it makes prose, not an identifier
    assert parse_identifier(f"{lead}{doi}{trail}").value == doi.lower()


_ANY_ID = st.one_of(
    dois(),
    dois().map(lambda d: "https://doi.org/" + d),
    st.integers(1, 10**9).map(lambda n: f"PMID {n}"),
    st.integers(1, 10**9).map(lambda n: f"pmid:{n}"),
    st.integers(1, 10**9).map(lambda n: f"PMC{n}"),
    st.tuples(st.integers(1, 10**9), st.integers(1, 99)).map(lambda t: f"PMC{t[0]}.{t[1]}"),
    st.integers(0, 10**8 - 1).map(lambda n: f"NCT{n:08d}"),
    st.integers(1, 10**9).map(lambda n: f"ppr{n}"),
    st.uuids().map(lambda u: str(u).upper()),
    st.from_regex(r"https://[a-z]{1,10}\.org/[a-z0-9/_]{0,20}(\?[a-z]=[0-9])?", fullmatch=True),
)


@given(_ANY_ID)
def test_key_round_trips_and_is_idempotent(text: str) -> None:
    ident = parse_identifier(text)
    again = parse_identifier(ident.key)
    assert again == ident
    assert again.key == ident.key
    assert parse_identifier(again.key).key == ident.key


@given(_ANY_ID)
def test_find_agrees_with_parse(text: str) -> None:
    ident = parse_identifier(text)
    assert find_identifiers(f"As reported ({text}).") == [ident]


@given(st.text(max_size=200))
def test_never_crashes(text: str) -> None:
    found = find_identifiers(text)
    assert all(isinstance(i, Identifier) for i in found)
    assert len({i.key for i in found}) == len(found)
    with contextlib.suppress(UnknownIdentifierError):
        parse_identifier(text)
    looks_like_identifier(text)


@given(st.integers(0, 10**12))
def test_bare_numbers_are_refused(n: int) -> None:
    with pytest.raises(UnknownIdentifierError, match=f"PMID {n} or pmid:{n}"):
        parse_identifier(str(n))


def test_a_name_that_is_neither_identifier_nor_file_still_lists_the_forms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading re-raises the parser's refusal with its own sentence added; the accepted forms,
    which the identifiers package (not the error tree) now supplies, must survive that."""
    from citeproof.loading.load import _is_identifier

    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnknownIdentifierError) as info:
        _is_identifier("PMCabc", files=True)
    message = str(info.value)
    assert "There is no file of that name here either." in message
    assert message.endswith(ACCEPTED_FORMS)
    assert info.value.accepted_forms == ACCEPTED_FORMS


def test_a_doi_org_address_keeps_the_angle_brackets_of_a_sici_doi() -> None:
    """Older Wiley DOIs hold "<...>" (the SICI form); the old code ended the doi.org address
    at "<", and the reference was called unresolvable for a DOI it never printed."""
    text = (
        "Invented J Med Genet, 94(2), 170–173. "
        "https://doi.org/10.1002/1096-8628(20000911)94:2<170::aid-ajmg10>3.0.co;2-2"
    )
    assert [i.value for i in find_identifiers(text)] == [
        "10.1002/1096-8628(20000911)94:2<170::aid-ajmg10>3.0.co;2-2"
    ]
    # an address in angle brackets still ends at its closing bracket
    assert [i.value for i in find_identifiers("see <https://doi.org/10.5555/xyz> for it")] == [
        "10.5555/xyz"
    ]
