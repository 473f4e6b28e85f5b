"""Reading an answer (``audit/parse.py``, ``audit/citations.py``): JSON claims, shapes,
claims in prose, citations.

(First written against the survivors of a mutation-testing run.)

Each group pins one rule a user of the audit relies on: how JSON claims are rendered and
linked (citations, their own quotes, malformed handles, unrecognised references), the
path and expected shape named by every JSON shape error, when ``auto`` reads JSON, which
prose counts as a claim / lead-in / separator / citation-only text, and which citations a
blockquote's quote loses at its end.  Everything goes through ``parse_answer``.
"""

from __future__ import annotations

import json

import pytest

from citeproof.audit.parse import parse_answer
from citeproof.errors import BadInputError

HANDLE = "pmid:1/abstract~ABCD2345"


def claims(*items: object) -> str:
    return json.dumps({"claims": list(items)})


# --- JSON claims: rendering, links, citation kinds --------------------------------------


def test_json_claims_render_as_documented() -> None:
    answer = parse_answer(
        claims(
            {
                "text": "Drug X cut mortality.",
                "quote": "cut mortality",
                "citations": [HANDLE, {"ref": "PMID 27355798", "quote": "reduced mortality"}],
            },
            {"text": "It was safe."},
        )
    )
    assert answer.input_format == "json"
    assert answer.text == (
        f'Drug X cut mortality. “cut mortality” [{HANDLE}] [PMID 27355798 "reduced mortality"]'
        "\n\nIt was safe."
    )
    for item in (*answer.sentences, *answer.citations, *answer.quotes):
        assert answer.text[item.start : item.end] == item.raw
    assert [s.kind for s in answer.sentences] == ["claim", "claim"]


def test_json_handle_citation_with_its_own_quote() -> None:
    answer = parse_answer(
        claims(
            {
                "text": "Drug X cut mortality.",
                "citations": [{"ref": HANDLE, "quote": "reduced mortality"}],
            },
        )
    )
    (cit,) = answer.citations
    assert (cit.kind, cit.form, cit.target, cit.error) == ("handle", "json", HANDLE, None)
    (quote,) = answer.quotes
    assert (quote.kind, quote.text) == ("handle", "reduced mortality")
    assert quote.citations == (cit.index,)
    assert cit.quotes == (quote.index,)


def test_json_identifier_citation_with_its_own_quote() -> None:
    answer = parse_answer(
        claims(
            {
                "text": "Drug X cut mortality.",
                "quote": "cut mortality",
                "citations": [
                    "10.1000/abc",
                    {"ref": "PMID 27355798", "quote": "reduced mortality"},
                ],
            },
        )
    )
    doi, pmid = answer.citations
    assert (doi.kind, doi.form, doi.target) == ("doi", "json", "doi:10.1000/abc")
    assert doi.identifier is not None and doi.error is None
    assert (pmid.kind, pmid.target) == ("pmid", "pmid:27355798")
    assert pmid.identifier is not None
    claim_quote, own = answer.quotes
    assert (claim_quote.kind, claim_quote.text) == ("claim", "cut mortality")
    assert (own.kind, own.text) == ("handle", "reduced mortality")
    assert own.citations == (pmid.index,)  # the citation's own quote is its only quote
    assert pmid.quotes == (own.index,)
    assert claim_quote.citations == (doi.index,)


def test_json_unrecognised_citation_is_kept_with_an_error() -> None:
    answer = parse_answer(
        claims(
            {
                "text": "Drug X cut mortality.",
                "citations": [{"ref": "nonsense here", "quote": "reduced mortality"}],
            },
        )
    )
    (cit,) = answer.citations
    assert (cit.kind, cit.form, cit.target) == ("unknown", "json", "nonsense here")
    assert cit.error is not None and cit.error.code == "unrecognised_citation"
    assert "nonsense here" in cit.error.message
    assert "neither" in cit.error.message and "handle" in cit.error.message
    (quote,) = answer.quotes
    assert quote.citations == (cit.index,) and cit.quotes == (quote.index,)


@pytest.mark.parametrize(
    ("ref", "kind"),
    [
        ("https://doi.org/10.1000/xyz", "doi"),
        ("doi:10.1000/xyz", "doi"),
        ("pmid:27355798", "pmid"),
        ("PMC123", "pmcid"),
    ],
)
def test_json_identifiers_with_a_scheme_or_a_url_are_identifiers_not_handles(
    ref: str, kind: str
) -> None:
    """As in a Markdown bracket: only a check code, or a handle scheme with a path, makes a
    handle."""
    parsed = parse_answer(json.dumps({"claims": [{"text": "X.", "citations": [ref]}]}))
    (citation,) = parsed.citations
    assert (citation.kind, citation.error) == (kind, None)


def test_json_handle_without_a_check_code_is_malformed() -> None:
    data = {"claims": [{"text": "X.", "citations": ["pmcid:PMC123/abstract.1"]}]}
    (citation,) = parse_answer(json.dumps(data)).citations
    assert citation.kind == "handle"
    assert citation.error is not None and citation.error.code == "malformed_handle"


def test_json_token_with_a_tilde_is_a_malformed_handle() -> None:
    answer = parse_answer(claims({"text": "Drug X cut mortality.", "citations": ["ABCD~2345"]}))
    (cit,) = answer.citations
    assert (cit.kind, cit.target) == ("handle", "ABCD~2345")
    assert cit.error is not None and cit.error.code == "malformed_handle"
    assert "handle scheme" in cit.error.message


def test_json_handle_with_an_empty_check_code_is_malformed() -> None:
    answer = parse_answer(
        claims({"text": "Drug X cut mortality.", "citations": ["pmid:1/abstract~"]})
    )
    (cit,) = answer.citations
    assert cit.kind == "handle"
    assert cit.error is not None and cit.error.code == "malformed_handle"
    assert "check code" in cit.error.message


# --- JSON claims: shape errors name the path and the expected shape ---------------------


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"claims": [], "extra": 1}, "the top level has unknown keys ['extra']"),
        ({"claims": [3]}, "claims[0] must be an object"),
        ({"claims": [{"text": "a", "citations": "x"}]}, "claims[0].citations must be a list"),
        ({"claims": [{"text": "a", "quote": 5}]}, "claims[0].quote must be a string, not int"),
        (
            {"claims": [{"text": "a", "citations": ["x", {"ref": "y", "z": 1}]}]},
            "claims[0].citations[1] has unknown keys ['z']",
        ),
        (
            {"claims": [{"text": "a", "citations": [{"quote": "y"}]}]},
            'claims[0].citations[0] has no "ref"',
        ),
        (
            {"claims": [{"text": "a", "citations": [{"ref": "y", "quote": []}]}]},
            "claims[0].citations[0].quote must be a string, not list",
        ),
        (
            {"claims": [{"text": "a", "citations": [{"ref": 7}]}]},
            "claims[0].citations[0].ref must be a string, not int",
        ),
        (
            {"claims": [{"text": "a", "citations": [""]}]},
            "claims[0].citations[0] must not be empty",
        ),
    ],
)
def test_json_shape_errors_name_the_offending_path(data: object, words: str) -> None:
    with pytest.raises(BadInputError) as err:
        parse_answer(json.dumps(data), input_format="json")
    message = str(err.value)
    assert words in message
    # the message shows the expected shape
    assert '{"claims": [{"text": "...", "citations": ["<handle or identifier>", ' in message
    assert '{"ref": "...", "quote": "..."}], "quote": "..."}]}' in message


# --- auto: when an answer is read as JSON ----------------------------------------------


def test_auto_reads_json_claims_after_leading_whitespace() -> None:
    text = "\n  " + claims({"text": "Drug X cut mortality."})
    assert parse_answer(text).input_format == "json"


def test_markdown_is_markdown_even_when_it_looks_like_json_claims() -> None:
    text = claims({"text": "Drug X cut mortality."})
    answer = parse_answer(text, input_format="markdown")
    assert answer.input_format == "markdown"
    assert answer.text == text


# --- what prose counts as -------------------------------------------------------------


def kinds(text: str) -> list[tuple[str, str]]:
    return [(s.kind, s.raw) for s in parse_answer(text).sentences]


def test_short_label_with_a_colon_is_a_lead_in_up_to_six_words() -> None:
    assert kinds("One two three four five six:\n\nOne two three four five six seven:") == [
        ("lead_in", "One two three four five six:"),
        ("claim", "One two three four five six seven:"),
    ]


def test_punctuation_after_a_cited_sentence_is_a_separator() -> None:
    assert kinds("Aspirin works well [1]. !!! ?") == [
        ("claim", "Aspirin works well [1]."),
        ("separator", "!!!"),
        ("separator", "?"),
    ]


def test_words_after_a_leading_citation_make_a_claim() -> None:
    assert kinds("Intro words.\n\n[2] Works well.") == [
        ("claim", "Intro words."),
        ("claim", "[2] Works well."),
    ]
    assert kinds("Intro words.\n\n[3]") == [("claim", "Intro words."), ("citation_only", "[3]")]


# --- blockquotes lose only their trailing citations ------------------------------------


def blockquote(text: str) -> tuple[str, tuple[int, ...]] | None:
    answer = parse_answer(text)
    quotes = [q for q in answer.quotes if q.kind == "blockquote"]
    if not quotes:
        return None
    (q,) = quotes
    assert answer.text[q.start : q.end].endswith(q.text.splitlines()[-1])
    return q.text, q.citations


def test_blockquote_drops_a_run_of_trailing_citations() -> None:
    assert blockquote("> Aspirin reduced stroke. [1], [2].\n\nMore text here [3].") == (
        "Aspirin reduced stroke.",
        (0, 1),
    )


def test_blockquote_keeps_a_citation_in_the_middle() -> None:
    assert blockquote("> Aspirin [1] reduced stroke [2]\n") == (
        "Aspirin [1] reduced stroke",
        (0, 1),
    )


def test_blockquote_citation_on_its_own_last_line() -> None:
    assert blockquote("> Aspirin reduced stroke.\n> [1]\n") == ("Aspirin reduced stroke.", (0,))


def test_blockquote_of_only_a_citation_quotes_nothing() -> None:
    assert blockquote("> [1]\n") is None


def test_blockquote_rules_hold_in_a_later_block() -> None:
    prefix = "Intro paragraph here.\n\n"
    assert blockquote(prefix + "> Aspirin reduced stroke. [1], [2].") == (
        "Aspirin reduced stroke.",
        (0, 1),
    )
    assert blockquote(prefix + "> Aspirin [1] reduced\n> stroke [2]\n") == (
        "Aspirin [1] reduced\nstroke",
        (0, 1),
    )


# --- citations in Markdown ------------------------------------------------------------


def cites(text: str) -> list[tuple[str, str, str, str]]:
    answer = parse_answer(text)
    for c in answer.citations:
        assert answer.text[c.start : c.end] == c.raw
    return [(c.raw, c.kind, c.form, c.target) for c in answer.citations]


def errors(text: str) -> list[tuple[str, str] | None]:
    return [c.error and (c.error.code, c.error.message) for c in parse_answer(text).citations]


def test_handle_with_a_quote_is_one_citation_with_its_own_quote() -> None:
    text = f'See [“x”] and [see "this"] and [{HANDLE} "reduced mortality"].'
    answer = parse_answer(text)
    (cit,) = answer.citations
    assert (cit.kind, cit.form, cit.target, cit.error) == ("handle", "bracket", HANDLE, None)
    own = [q for q in answer.quotes if q.kind == "handle"]
    assert [(q.text, q.citations) for q in own] == [("reduced mortality", (cit.index,))]


@pytest.mark.parametrize(
    ("token", "words"),
    [
        ("pmid:12345", "check code"),
        ("pmid:1/abstract~x~", "empty check code"),
        ("pmid:1~ABCD2345", "passage path"),
        ("pmid:1/~ABCD2345", "passage path"),
        ("foo:bar", "pmid:, pmcid:, doi:"),
    ],
)
def test_malformed_handle_with_a_quote_says_why(token: str, words: str) -> None:
    text = f'Aspirin works [{token} "reduced mortality"].'
    answer = parse_answer(text)
    (cit,) = answer.citations
    assert (cit.kind, cit.form, cit.target) == ("handle", "bracket", token)
    assert cit.error is not None and cit.error.code == "malformed_handle"
    assert words in cit.error.message
    (quote,) = answer.quotes
    assert (quote.kind, quote.text, quote.citations) == ("handle", "reduced mortality", (0,))


def test_a_handle_may_hold_more_colons_and_tildes() -> None:
    token = "doi:10.1000/a:b/abstract~ABCD2345"
    assert errors(f'It works [{token} "w w"].') == [None]


def test_handle_with_an_empty_quote_is_malformed() -> None:
    (err,) = errors(f'It works [{HANDLE} " "].')
    assert err is not None and err[0] == "malformed_handle"
    assert "empty" in err[1] and "quote" in err[1]


def test_handle_followed_by_words_not_quoted_is_malformed() -> None:
    (err,) = errors(f"It [{HANDLE} see above] works.")
    assert err is not None and err[0] == "malformed_handle"
    assert '[handle "exact words"]' in err[1]


@pytest.mark.parametrize(
    "text",
    ['See [foo:bar "a" "b"].', 'See [foo:bar  "a" "b"].', "See [foo:bar “a” “b”]."],
)
def test_scheme_token_followed_by_quotes_is_a_malformed_handle(text: str) -> None:
    (cit,) = parse_answer(text).citations
    assert (cit.kind, cit.form, cit.target) == ("handle", "bracket", "foo:bar")
    assert cit.error is not None and "handle scheme" in cit.error.message


def test_looks_like_handle() -> None:
    from citeproof.audit.citations import looks_like_handle

    assert looks_like_handle("pmid:1/abstract")
    assert not looks_like_handle("pmid:12345")
    assert not looks_like_handle("doi:10.1000/xyz")
    assert not looks_like_handle("foo:bar")
    assert looks_like_handle("foo:bar", quoted=True)
    assert not looks_like_handle("foo1:bar", quoted=True)
    assert not looks_like_handle("pmid:1/a:b".replace("pmid", "x1"))
    assert looks_like_handle("pmid:1/a:b")
    assert not looks_like_handle("x~pmid:1")
    assert looks_like_handle("pmid:1~x")


def test_years_in_brackets_are_not_citations_without_a_reference_list() -> None:
    found = cites("Years [1799] [1800] [2100] [2101].")
    assert [(raw, target) for raw, _, _, target in found] == [
        ("[1799]", "1799"),
        ("[2101]", "2101"),
    ]


def test_number_ranges_expand_either_way_up_to_the_cap() -> None:
    answer = parse_answer("Ranges [5-3] and [1-100].")
    numbers = [c.number for c in answer.citations]
    assert numbers[:3] == [3, 4, 5]
    assert numbers[3:] == list(range(1, 101))
    assert [c.target for c in answer.citations[:3]] == ["3", "4", "5"]


@pytest.mark.parametrize("spec", ["1-101", "1-50, 51-101"])
def test_too_large_a_range_is_one_citation_with_an_error(spec: str) -> None:
    answer = parse_answer(f"Ranges [{spec}].")
    (cit,) = answer.citations
    assert (cit.kind, cit.form, cit.target, cit.number) == ("numbered", "bracket", spec, None)
    assert cit.error is not None and cit.error.code == "range_too_large"
    assert f"[{spec}]" in cit.error.message and "more than 100" in cit.error.message


def test_bracketed_numbers_inside_a_quotation_are_the_sources_markers() -> None:
    found = cites("Quote “reduced stroke [12]” [3] and “[14] more words”.")
    assert found == [("[3]", "numbered", "bracket", "3")]


def test_identifier_forms() -> None:
    text = (
        "A [paper](https://doi.org/10.1000/xyz) and (doi:10.1000/abc) and **10.1000/def** "
        "and (see [a 10.1000/ghi b] here) and [see (a 10.1000/jkl b) here]."
    )
    answer = parse_answer(text)
    assert [(c.raw, c.kind, c.form, c.target) for c in answer.citations] == [
        ("https://doi.org/10.1000/xyz", "doi", "link", "doi:10.1000/xyz"),
        ("(doi:10.1000/abc)", "doi", "paren", "doi:10.1000/abc"),
        ("10.1000/def", "doi", "bare", "doi:10.1000/def"),
        ("10.1000/ghi", "doi", "bracket", "doi:10.1000/ghi"),
        ("10.1000/jkl", "doi", "paren", "doi:10.1000/jkl"),
    ]
    assert all(c.identifier is not None for c in answer.citations)


def test_identifiers_in_one_token_each_get_their_own_span() -> None:
    answer = parse_answer("See PMID:123;PMID:456 here.")
    assert [(c.start, c.raw, c.target) for c in answer.citations] == [
        (4, "PMID:123", "pmid:123"),
        (13, "PMID:456", "pmid:456"),
    ]


def test_sentences_are_not_split_inside_code_or_links() -> None:
    assert [raw for _, raw in kinds("Intro.\n\nRun `x. Y` now. Then stop.")] == [
        "Intro.",
        "Run `x. Y` now.",
        "Then stop.",
    ]
    assert [raw for _, raw in kinds("Intro.\n\nSee [a. B](https://example.org) now. Then.")][
        1
    ] == "See [a. B](https://example.org) now."


# --- single curly quotes --------------------------------------------------------------


def inline(text: str) -> list[str]:
    return [q.text for q in parse_answer(text).quotes if q.kind == "inline"]


@pytest.mark.parametrize(
    ("text", "quotes"),
    [
        ("‘Aspirin works’ said Smith", ["Aspirin works"]),
        ("He said ‘Aspirin works’", ["Aspirin works"]),
        ("x‘Aspirin works’ y", []),
        ("Aspirin‘s effect’ here and there", []),
        ("He said ‘Aspirin works ’ and more’ ok", ["Aspirin works ’ and more"]),
        ("He said ‘Aspirin’s effect is clear’ here", ["Aspirin’s effect is clear"]),
        ("He said ‘Aspirin ’’ here", ["Aspirin ’"]),
        ("He said ‘’ is odd’ here", ["’ is odd"]),
        ("He said ‘a’ here", ["a"]),
        ("He said ‘Aspirin work’s", []),
        ("He said ‘" + "word " * 430 + "end’ here", []),
    ],
)
def test_single_curly_quotes(text: str, quotes: list[str]) -> None:
    assert inline(text) == quotes
