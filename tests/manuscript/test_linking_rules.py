"""The shared rules every format's citations go through: scanning text for citations,
linking each cited work to its entry, and finding quotations with their citations."""

from __future__ import annotations

import pytest

from citeproof.manuscript.draft import RawCitation, RawTarget
from citeproof.manuscript.link import Linker
from citeproof.manuscript.quotes import find_quotations, quote_spans
from citeproof.manuscript.scan import (
    MAX_NUMBERS,
    numbers_of,
    scan_author_year,
    scan_numeric,
    scan_superscripts,
)
from citeproof.manuscript.structure import InTextCitation, ReferenceEntry, TextBlock
from citeproof.refs.listed import parse_reference_string
from manuscript.works import APA


@pytest.mark.parametrize(
    ("spec", "numbers"),
    [("3", [3]), ("3–5", [3, 4, 5]), ("1, 3-5", [1, 3, 4, 5]), ("2;7", [2, 7]), ("5-3", [3, 4, 5])],
)
def test_numbers_and_ranges(spec: str, numbers: list[int]) -> None:
    assert numbers_of(spec) == numbers


def test_a_range_past_the_cap_is_kept_with_a_reason() -> None:
    text = "Everything [1-9999] says so."
    (cite,) = scan_numeric(text, 0, len(text), [])
    assert numbers_of("1-9999") is None
    assert f"more than {MAX_NUMBERS}" in (cite.targets[0].reason or "")


def test_brackets_that_are_years_or_two_brackets_that_print_a_range() -> None:
    text = "In [2020] trials [5]–[7] agreed."
    cites = scan_numeric(text, 0, len(text), [])
    assert [[t.number for t in c.targets] for c in cites] == [[5, 6], [7]]
    assert scan_numeric("[2020]", 0, 6, [], known=frozenset({2020}))


def test_superscript_characters_but_not_exponents_or_units() -> None:
    text = "Trials agreed.²⁻⁴ The area was 3 m² and 10³ cells."
    (cite,) = scan_superscripts(text, 0, len(text), [])
    assert text[cite.start : cite.end] == "²⁻⁴"
    assert [t.number for t in cite.targets] == [2, 3, 4]


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("(Smith et al., 2019; Lee 2020a)", [("smith",), ("lee",)]),
        ("Smith and Lee (2019)", [("smith", "lee")]),
        ("(see also van der Berg, 2018, p. 4)", [("van der berg",)]),
        ("(Okonkwo-Reyes & Halloway 2021, 2022)", [("okonkwo reyes", "halloway")] * 2),
        ("(World Health Organization, 2020)", [("world health organization",)]),
    ],
)
def test_author_year_forms(text: str, targets: list[tuple[str, ...]]) -> None:
    (cite,) = scan_author_year(text, 0, len(text), [])
    assert [t.names for t in cite.targets] == targets


@pytest.mark.parametrize("text", ["(January 2020)", "(Table 2019)", "in (n = 2019) cases"])
def test_non_citations_are_not_taken_or_only_tentatively(text: str) -> None:
    assert all(c.tentative for c in scan_author_year(text, 0, len(text), []))


def _entries(strings: list[str]) -> list[ReferenceEntry]:
    return [
        ReferenceEntry(f"ref{n}", parse_reference_string(s, numbered=False), None)
        for n, s in enumerate(strings, start=1)
    ]


def _link(linker: Linker, text: str) -> list[str | None]:
    (cite,) = scan_author_year(text, 0, len(text), [])
    return [i.entry_id for i in linker.link(cite)]


def test_author_year_linking_by_name_year_letter_and_author_count() -> None:
    linker = Linker(_entries(APA))
    assert _link(linker, "(Halloway and Okonkwo-Reyes, 2021b)") == ["ref4"]
    assert _link(linker, "(Adeyemi & Novak, 2022)") == ["ref1"]
    assert _link(linker, "Sato et al. (2019)") == ["ref5"]
    assert _link(linker, "(Sato, 2020)") == [None]


def test_an_ambiguous_citation_names_its_candidates_and_stays_unlinked() -> None:
    linker = Linker(_entries(APA))
    (cite,) = scan_author_year("(Halloway and Okonkwo-Reyes, 2021)", 0, 34, [])
    (item,) = linker.link(cite)
    assert item.entry_id is None and "ambiguous" in (item.reason or "")


def test_without_printed_letters_a_and_b_follow_list_order() -> None:
    strings = [s.replace("2021a", "2021").replace("2021b", "2021") for s in APA]
    linker = Linker(_entries(strings))
    assert _link(linker, "(Halloway and Okonkwo-Reyes, 2021b)") == ["ref4"]


def test_numbers_link_by_label_or_by_place_in_an_unnumbered_list() -> None:
    numbered = [
        ReferenceEntry(f"e{n}", parse_reference_string(f"[{n}] Item {n} x y"), str(n))
        for n in (1, 2)
    ]
    cite = RawCitation(0, 3, "numeric", [RawTarget("2", number=2), RawTarget("9", number=9)])
    assert [i.entry_id for i in Linker(numbered).link(cite)] == ["e2", None]
    plain = _entries(APA[:2])
    assert [i.entry_id for i in Linker(plain).link(cite)] == ["ref2", None]
    assert Linker(plain, by_position=False).link(cite)[0].entry_id is None


def _cite(index: int, start: int, end: int) -> InTextCitation:
    return InTextCitation(index, "x", start, end, "numeric", ())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("He wrote “worms like it warm” [1]. Then [2].", ("worms like it warm", (0,))),
        ("He wrote “worms like it warm”.³ Then.", ("worms like it warm", (0,))),
        ("Smith [1] wrote that “worms like it warm” and left.", ("worms like it warm", (0,))),
        ("A “term” is no quotation [1].", None),
        ("He wrote “worms like it warm”. Later [1] agreed.", ("worms like it warm", ())),
    ],
)
def test_a_quotation_carries_the_citation_after_it_in_its_sentence(
    text: str, expected: tuple[str, tuple[int, ...]] | None
) -> None:
    marks = [(text.find("[1]"), text.find("[1]") + 3), (text.find("³"), text.find("³") + 1)]
    cites = [_cite(0, s, e) for s, e in marks if s >= 0][:1]
    quotes = find_quotations(text, [TextBlock(0, len(text), "paragraph")], cites)
    if expected is None:
        assert quotes == []
    else:
        (q,) = quotes
        assert (q.text, q.citations) == expected


def test_a_block_quote_carries_the_citation_that_ends_it() -> None:
    text = "Worms like it warm and wet, always. (Smith, 2019, p. 4)"
    cite = _cite(0, text.index("("), len(text))
    (q,) = find_quotations(text, [TextBlock(0, len(text), "quote")], [cite])
    assert q.block and q.text == "Worms like it warm and wet, always." and q.citations == (0,)


def test_quotation_marks_pair_as_written() -> None:
    text = '«uno dos tres» and „eins zwei drei“ and it’s ‘one two three’ and "a b c"'
    spans = [text[s:e] for s, e in quote_spans(text, 0, len(text))]
    assert spans == ["uno dos tres", "eins zwei drei", "one two three", "a b c"]
