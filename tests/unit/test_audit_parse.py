"""Reading an AI answer: sentences, citations, quotes and the reference list (pure)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.audit.answer import ParsedAnswer
from citeproof.audit.assemble import MAX_ANSWER_BYTES
from citeproof.audit.parse import parse_answer, parse_claims_json, parse_markdown
from citeproof.errors import BadInputError

HANDLE = "pmid:27355798/abstract.2~ABCD2345"


def kinds(parsed: ParsedAnswer) -> list[tuple[str, str]]:
    return [(s.kind, s.raw) for s in parsed.sentences]


def cites(parsed: ParsedAnswer) -> list[tuple[str, str, str]]:
    return [(c.kind, c.raw, c.target) for c in parsed.citations]


def check_invariants(parsed: ParsedAnswer) -> None:
    text = parsed.text
    previous_end = 0
    for i, s in enumerate(parsed.sentences):
        assert s.index == i
        assert 0 <= s.start < s.end <= len(text)
        assert text[s.start : s.end] == s.raw
        assert s.start >= previous_end, "sentences overlap or are out of order"
        previous_end = s.end
    for c in parsed.citations:
        assert 0 <= c.start < c.end <= len(text)
        assert text[c.start : c.end] == c.raw
        holders = [s for s in parsed.sentences if s.start <= c.start and c.end <= s.end]
        assert len(holders) == 1, (c, holders)
        assert holders[0].index == c.sentence
        assert c.index in holders[0].citations
    for q in parsed.quotes:
        assert 0 <= q.start < q.end <= len(text)
        assert text[q.start : q.end] == q.raw
        for ci in q.citations:
            assert q.index in parsed.citations[ci].quotes
    for r in parsed.references:
        assert text[r.start : r.end] == r.raw
        assert parsed.sentences[r.sentence].kind == "reference_entry"


# --------------------------------------------------------------------------------------------
# Sentences and what is not a claim


def test_sentences_split_by_pysbd_with_abbreviations() -> None:
    p = parse_markdown("Dr. Smith et al. found e.g. 5 mg/kg in 2020. It worked.")
    assert kinds(p) == [
        ("claim", "Dr. Smith et al. found e.g. 5 mg/kg in 2020."),
        ("claim", "It worked."),
    ]


def test_headings_lead_ins_list_markers_blank_lines_code() -> None:
    text = (
        "# Title\n\n**Background.** Aspirin helps.\n\n- First item.\n1. Second item.\n\n"
        "```\nnot [1] a claim.\n```\n\n---\n\nKey findings:\n"
    )
    p = parse_markdown(text)
    assert kinds(p) == [
        ("heading", "Title"),
        ("lead_in", "**Background.**"),
        ("claim", "Aspirin helps."),
        ("claim", "First item."),
        ("claim", "Second item."),
        ("code", "```\nnot [1] a claim.\n```"),
        ("separator", "---"),
        ("lead_in", "Key findings:"),
    ]
    assert p.citations == ()


@pytest.mark.parametrize(
    "lead", ["**Efficacy:**", "**Efficacy**:", "__Safety.__", "**Key points**"]
)
def test_bold_lead_in_forms(lead: str) -> None:
    p = parse_markdown(f"{lead} The drug works.")
    assert p.sentences[0].kind == "lead_in"
    assert p.sentences[0].raw == lead
    assert p.sentences[1].raw == "The drug works."


def test_long_bold_sentence_is_a_claim_not_a_lead_in() -> None:
    p = parse_markdown("**The drug reduced mortality in every single arm of the trial.** Yes.")
    assert p.sentences[0].kind == "claim"


def test_setext_heading_and_table() -> None:
    text = "Results\n=======\n\n| Drug | Effect |\n|---|---|\n| A | 30% [1] |\n"
    p = parse_markdown(text)
    assert [s.kind for s in p.sentences] == ["heading", "table_header", "separator", "claim"]
    assert p.citations[0].sentence == 3


def test_windows_newlines_keep_offsets() -> None:
    text = "First claim [PMID 123].\r\nStill the same paragraph.\r\n\r\n# Head\r\nNext."
    p = parse_markdown(text)
    check_invariants(p)
    assert [s.raw for s in p.sentences] == [
        "First claim [PMID 123].",
        "Still the same paragraph.",
        "Head",
        "Next.",
    ]


def test_citation_after_full_stop_belongs_to_previous_sentence() -> None:
    p = parse_markdown("The drug works. [PMID 123] Another claim [PMID 456].")
    assert [s.raw for s in p.sentences] == [
        "The drug works. [PMID 123]",
        "Another claim [PMID 456].",
    ]


def test_citation_only_sentence() -> None:
    p = parse_markdown("> Quoted words.\n\n[PMID 1]")
    assert [s.kind for s in p.sentences] == ["blockquote", "citation_only"]


def test_sentence_over_limit_gets_its_own_error() -> None:
    long = "word " * 1100 + "end."
    p = parse_markdown(f"Short claim. {long}")
    assert p.sentences[0].error is None
    assert p.sentences[-1].error is not None
    assert p.sentences[-1].error.code == "sentence_too_long"


def test_code_block_is_not_length_limited() -> None:
    p = parse_markdown("```\n" + "x" * 6000 + "\n```")
    assert p.sentences[0].kind == "code" and p.sentences[0].error is None


# --------------------------------------------------------------------------------------------
# Citations


@pytest.mark.parametrize(
    ("written", "kind", "target"),
    [
        ("[PMID 27355798]", "pmid", "pmid:27355798"),
        ("[PMID: 27355798]", "pmid", "pmid:27355798"),
        ("[PMC12829825]", "pmcid", "pmcid:PMC12829825"),
        ("(doi:10.1000/xyz)", "doi", "doi:10.1000/xyz"),
        ("[doi:10.1371/journal.pone.0340378]", "doi", "doi:10.1371/journal.pone.0340378"),
        ("(https://doi.org/10.1371/X)", "doi", "doi:10.1371/x"),
        ("[https://example.org/page]", "url", "url:https://example.org/page"),
        ("[NCT04363697]", "nct", "nct:NCT04363697"),
    ],
)
def test_plain_citations_span_their_bracket(written: str, kind: str, target: str) -> None:
    p = parse_markdown(f"Aspirin helps {written}.")
    assert cites(p) == [(kind, written, target)]
    assert p.citations[0].identifier is not None
    check_invariants(p)


def test_bare_identifiers_and_trailing_punctuation() -> None:
    p = parse_markdown("See doi:10.1000/xyz, and https://example.org/a?b=1). Also PMID 123; PMC9.")
    assert cites(p) == [
        ("doi", "doi:10.1000/xyz", "doi:10.1000/xyz"),
        ("url", "https://example.org/a?b=1", "url:https://example.org/a?b=1"),
        ("pmid", "PMID 123", "pmid:123"),
        ("pmcid", "PMC9", "pmcid:PMC9"),
    ]
    assert all(c.form == "bare" for c in p.citations)


def test_identifiers_inside_larger_bracket_or_paren() -> None:
    p = parse_markdown("A claim (Smith 2020; PMID 123) and [Jones, doi:10.1000/abc].")
    assert [(c.form, c.raw) for c in p.citations] == [
        ("paren", "PMID 123"),
        ("bracket", "doi:10.1000/abc"),
    ]


def test_handle_with_quote_and_malformed_handles() -> None:
    text = (
        f'Claim [{HANDLE} "exact words"]. Bad [pmid:1/abs~ more words]. '
        'Worse [pmid:123/abstract.2]. Unknown [foo:1/x~ABCDEFGH]. Open [pmid:1/a~X "oops].'
    )
    p = parse_markdown(text)
    handles = [c for c in p.citations if c.kind == "handle"]
    assert [c.target for c in handles] == [
        HANDLE,
        "pmid:1/abs~",
        "pmid:123/abstract.2",
        "foo:1/x~ABCDEFGH",
        "pmid:1/a~X",
    ]
    assert handles[0].error is None
    assert all(c.error is not None and c.error.code == "malformed_handle" for c in handles[1:])
    quote = p.quotes[handles[0].quotes[0]]
    assert (quote.kind, quote.text) == ("handle", "exact words")
    check_invariants(p)


def test_curly_quoted_handle() -> None:
    p = parse_markdown(f"Claim [{HANDLE} “exact [sic] words”].")
    assert p.citations[0].kind == "handle"
    assert p.quotes[0].text == "exact [sic] words"


def test_doi_without_code_is_a_plain_doi_not_a_handle() -> None:
    p = parse_markdown("Claim [doi:10.1000/xyz/abstract.2].")
    assert p.citations[0].kind == "doi"


def test_numbered_citations_resolve_through_reference_list() -> None:
    text = (
        "A [1]. B [1, 3-5]. C [2–4].\n\n## References\n\n"
        "1. Smith J. doi:10.1371/journal.pone.0340378\n2. Jones. PMID: 27355798\n"
        "3. No identifier\n4. https://example.org/x\n"
    )
    p = parse_markdown(text)
    numbered = [(c.number, c.reference, c.error and c.error.code) for c in p.citations]
    assert numbered == [
        (1, 0, None),
        (1, 0, None),
        (3, 2, "reference_without_identifier"),
        (4, 3, None),
        (5, None, "no_reference_entry"),
        (2, 1, None),
        (3, 2, "reference_without_identifier"),
        (4, 3, None),
    ]
    assert p.references[0].identifiers[0].key == "doi:10.1371/journal.pone.0340378"
    assert p.references[2].error is not None
    assert [s.kind for s in p.sentences][-5:] == ["heading"] + ["reference_entry"] * 4
    check_invariants(p)


@pytest.mark.parametrize(
    "entries",
    ["[1] Smith doi:10.1/abcd\n[2] x", "[1]: https://example.org/a\n[2]: https://b.org/"],
)
def test_trailing_bracketed_list_without_heading(entries: str) -> None:
    p = parse_markdown(f"Claim [1]. Other [2].\n\n{entries}\n")
    assert p.reference_section is not None
    assert [c.reference for c in p.citations] == [0, 1]


def test_trailing_numbered_list_of_claims_is_not_a_reference_list() -> None:
    p = parse_markdown("Steps:\n\n1. Take aspirin daily.\n2. See a doctor.\n")
    assert p.reference_section is None
    assert [s.kind for s in p.sentences] == ["lead_in", "claim", "claim"]


def test_numbered_without_reference_list_and_years() -> None:
    p = parse_markdown("In [2020] and [1999, 2001] it worked [3].")
    assert [(c.number, c.error and c.error.code) for c in p.citations] == [(3, "no_reference_list")]


def test_year_with_matching_entry_is_a_citation() -> None:
    p = parse_markdown("It worked [2020].\n\nReferences:\n[2020] doi:10.1000/y\n")
    assert p.citations[0].reference == 0


def test_not_citations_code_link_text_checkbox_nested() -> None:
    text = (
        "Use `x[1]` here. See [the trial](https://pubmed.ncbi.nlm.nih.gov/27355798/) and "
        "[[2]](https://example.org/r). ![img](https://example.org/i.png) - [ ] todo [see [1]]."
    )
    p = parse_markdown(text)
    assert [(c.kind, c.form, c.raw) for c in p.citations] == [
        ("pmid", "link", "https://pubmed.ncbi.nlm.nih.gov/27355798/"),
        ("url", "link", "https://example.org/r"),
        ("numbered", "bracket", "[1]"),
    ]
    check_invariants(p)


def test_huge_range_is_one_error_not_a_million_citations() -> None:
    p = parse_markdown("Claim [1-999999].")
    assert len(p.citations) == 1
    assert p.citations[0].error is not None
    assert p.citations[0].error.code == "range_too_large"


# --------------------------------------------------------------------------------------------
# Quotes


def test_inline_quotes_straight_curly_single_and_linking() -> None:
    text = 'Smith said “it works” [PMID 1] and Jones said "it fails" [PMID 2].'
    p = parse_markdown(text)
    assert [(q.text, q.citations) for q in p.quotes] == [("it works", (0,)), ("it fails", (1,))]
    p = parse_markdown("They wrote ‘clearly effective’ and it’s fine [PMID 1].")
    assert [q.text for q in p.quotes] == ["clearly effective"]
    assert p.quotes[0].citations == (0,)


def test_two_quotes_then_one_citation_both_link_to_it() -> None:
    p = parse_markdown('Both "A" and "B" hold [PMID 1].')
    assert [q.citations for q in p.quotes] == [(0,), (0,)]
    assert p.citations[0].quotes == (0, 1)


def test_apostrophes_and_unbalanced_quotes_are_not_quotes() -> None:
    p = parse_markdown("It’s the dogs’ dinner. “Never closed [PMID 1]. 'single' too.")
    assert p.quotes == ()


def test_quote_spanning_pysbd_boundary_keeps_one_sentence() -> None:
    p = parse_markdown('The paper says "It failed. It was unsafe." [PMID 1] Next.')
    assert p.sentences[0].raw.startswith('The paper says "It failed. It was unsafe." [PMID 1]')
    assert p.quotes[0].sentence == 0 and p.quotes[0].citations == (0,)
    assert p.quotes[0].text == "It failed. It was unsafe."


def test_blockquote_links_to_last_line_or_following_citation() -> None:
    p = parse_markdown("> The drug\n> works well. [PMID 1]\n")
    q = p.quotes[0]
    assert (q.kind, q.text, q.raw) == (
        "blockquote",
        "The drug\nworks well.",
        "The drug\n> works well.",
    )
    assert q.citations == (0,)
    p = parse_markdown("> The drug works.\n> [PMID 1]\n")
    assert p.quotes[0].text == "The drug works."
    p = parse_markdown("> The drug works.\n\n— Smith [PMID 7]\n")
    assert p.quotes[0].citations == (0,)
    assert p.sentences[0].kind == "blockquote"


def test_quote_over_limit_gets_its_own_error() -> None:
    long = "x " * 1200
    p = parse_markdown(f'Short "fine" [PMID 1]. Long "{long}" [PMID 2].')
    assert p.quotes[0].error is None
    assert p.quotes[1].error is not None and p.quotes[1].error.code == "quote_too_long"


# --------------------------------------------------------------------------------------------
# JSON claims and limits


def test_json_claims_render_and_link() -> None:
    data = {
        "claims": [
            {"text": "Drug X works.", "citations": [HANDLE, {"ref": "PMID 1", "quote": "q1"}]},
            {"text": 'It said "so".', "citations": ["nonsense"], "quote": "claim words"},
        ]
    }
    p = parse_answer(json.dumps(data))
    assert p.input_format == "json"
    check_invariants(p)
    assert [s.kind for s in p.sentences] == ["claim", "claim"]
    assert [(c.kind, c.form) for c in p.citations] == [
        ("handle", "json"),
        ("pmid", "json"),
        ("unknown", "json"),
    ]
    assert p.citations[2].error is not None
    assert p.quotes[p.citations[1].quotes[0]].text == "q1"
    assert {p.quotes[i].text for i in p.citations[2].quotes} == {"so", "claim words"}


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ([], "top level must be an object"),
        ({"claims": {}}, "claims must be a list"),
        ({"claims": [], "x": 1}, "unknown keys ['x']"),
        ({"claims": [{"citations": []}]}, 'claims[0] has no "text"'),
        ({"claims": [{"text": " "}]}, "claims[0].text must not be empty"),
        ({"claims": [{"text": "a", "citations": [1]}]}, "claims[0].citations[0] must be a"),
        ({"claims": [{"text": "a", "citations": [{"quote": "q"}]}]}, 'has no "ref"'),
        ({"claims": [{"text": "a", "extra": 1}]}, "claims[0] has unknown keys"),
    ],
)
def test_json_claims_shape_errors(data: object, fragment: str) -> None:
    with pytest.raises(BadInputError, match=None) as info:
        parse_claims_json(json.dumps(data))
    assert fragment in str(info.value)


def test_auto_detection_falls_back_to_markdown() -> None:
    assert parse_answer('{"not": "claims"}').input_format == "markdown"
    assert parse_answer("{broken json [PMID 1]").input_format == "markdown"
    with pytest.raises(BadInputError, match="not valid JSON"):
        parse_answer("{broken", input_format="json")


def test_size_cap() -> None:
    with pytest.raises(BadInputError, match="at most"):
        parse_answer("é" * (MAX_ANSWER_BYTES // 2 + 1))


# --------------------------------------------------------------------------------------------
# Hostile input and properties


@pytest.mark.parametrize(
    "text",
    [
        "[[[[[[" * 200,
        "]]]]" * 200 + "((((" * 200,
        '"' * 999,
        "“" * 3000 + "‘" * 3000,
        '[pmid:1/a~B "' * 300,
        "a" * 60_000,
        ("word. " * 3000),
        "> " * 500 + "\n>" * 500,
        "```\n" * 301,
        "PMID 1 " * 3000,
        "\r\r\n\n\r" * 500,
        "[1]" * 2000 + "\n\n1. x\n",
        "– — … ‘’“” «»" * 300,
    ],
)
def test_hostile_inputs_parse(text: str) -> None:
    check_invariants(parse_markdown(text))


_ALPHABET = st.sampled_from(
    [
        *"ab .,;:!?\n\r\t#>-*_`|~^/()[]{}\"'“”‘’«»–—…0123456789",
        *("PMID ", "doi:10.1000/", "https://x.org/", "PMC", HANDLE, "[1]", "## ", "1. ", "**"),
    ]
)


@given(st.lists(_ALPHABET, max_size=80).map("".join))
def test_property_markdown_invariants(text: str) -> None:
    check_invariants(parse_markdown(text))


@given(st.text(max_size=300))
def test_property_arbitrary_text_never_raises(text: str) -> None:
    check_invariants(parse_answer(text))


@given(
    st.lists(
        st.fixed_dictionaries(
            {"text": st.text(min_size=1).filter(str.strip)},
            optional={
                "citations": st.lists(
                    st.one_of(st.text(min_size=1).filter(str.strip), st.just(HANDLE))
                ),
                "quote": st.text(min_size=1).filter(str.strip),
            },
        ),
        max_size=4,
    )
)
def test_property_json_claims(claims: list[dict[str, object]]) -> None:
    check_invariants(parse_claims_json(json.dumps({"claims": claims})))
