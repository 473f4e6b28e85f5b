"""Passages of a Document: which blocks, which paths, offsets, and BM25 ranking (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.documents import parse
from citeproof.documents.model import Block, Document
from citeproof.documents.plain import document_from_string
from citeproof.handles.grammar import valid_path
from citeproof.handles.passages import (
    cut_passages,
    passage_at,
    rank_passages,
    slug,
    tokenize,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "example-article.nxml"


@pytest.fixture(scope="module")
def example() -> Document:
    return parse(EXAMPLE.read_bytes(), name=EXAMPLE.name)


def test_example_article_paths(example: Document) -> None:
    paths = [p.path for p in cut_passages(example)]
    assert paths == [
        "abstract.1",
        "abstract.2",
        "abstract.3",
        "abstract.4",
        "body.introduction.p1",
        "body.introduction.p2",
        "body.participants.p1",
        "body.intervention.p1",
        "body.adherence.p1",
        "body.outcomes.p1",
        "body.results.p1",
        "body.results.p2",
        "caption.fig1",
        "caption.t1",
        "table.t1.r1",
        "table.t1.r2",
        "table.t1.r3",
        "table.t1.r4",
        "body.discussion.p1",
        "back-matter.acknowledgements.p1",
    ]


def test_passages_slice_the_document_text(example: Document) -> None:
    passages = cut_passages(example)
    for p in passages:
        assert example.text[p.start : p.end] == p.text
        assert valid_path(p.path)
    row = passage_at(passages, "table.t1.r4")
    assert row is not None and row.kind == "table-row" and row.region == "table"
    assert row.text.startswith("Pittsburgh Sleep Quality Index") and row.text.endswith("8.9")
    header = passage_at(passages, "table.t1.r1")
    assert header is not None and header.text.startswith("Outcome")
    assert "Sleep onset latency" not in header.text
    abstract = passage_at(passages, "abstract.3")
    assert abstract is not None and abstract.section == ("Abstract", "Results")
    assert passage_at(passages, "body.results.p9") is None


def test_no_title_heading_front_matter_or_reference_is_a_passage(example: Document) -> None:
    kinds = {p.kind for p in cut_passages(example)}
    regions = {p.region for p in cut_passages(example)}
    assert not kinds & {"heading", "title", "reference", "authors"}
    assert not regions & {"title", "front-matter", "references"}


def test_same_bytes_same_paths(example: Document) -> None:
    again = parse(EXAMPLE.read_bytes(), name=None)
    assert cut_passages(again) == cut_passages(example)


def _doc(text: str, blocks: list[Block]) -> Document:
    return Document(text=text, blocks=blocks, format="text")


def test_repeated_labels_and_sections_get_unique_paths() -> None:
    parts = [
        ("Figure 1 A.", Block(0, 0, "caption", ("Results",), "caption")),
        ("Figure 1 B.", Block(0, 0, "caption", ("Results",), "caption")),
        ("Plain caption.", Block(0, 0, "caption", ("Results",), "caption")),
        ("one", Block(0, 0, "paragraph", ("Results",), "body")),
        ("two", Block(0, 0, "paragraph", ("Other", "Results"), "body")),
        ("three", Block(0, 0, "paragraph", (), "body")),
        ("   ", Block(0, 0, "paragraph", (), "body")),
        ("cell a", Block(0, 0, "cell", (), "table")),
        ("cell b", Block(0, 0, "cell", (), "table")),
        ("Ünïcode title text", Block(0, 0, "paragraph", ("Ünïcode / Ärger!",), "footnote")),
    ]
    text, blocks, pos = "", [], 0
    for words, block in parts:
        blocks.append(Block(pos, pos + len(words), block.kind, block.section, block.region))
        text += words + "\n\n"
        pos = len(text)
    paths = [p.path for p in cut_passages(_doc(text, blocks))]
    assert paths == [
        "caption.fig1",
        "caption.fig1-2",
        "caption.3",
        "body.results.p1",
        "body.results.p2",
        "body.p1",
        "table.t1",
        "footnote.unicode-arger.p1",
    ]


def _table_doc(rows: list[list[tuple[str, int | None]]], caption: str | None) -> Document:
    parts: list[tuple[str, str, int | None]] = []
    if caption is not None:
        parts.append((caption, "caption", None))
    parts += [(words, "cell", row) for cells in rows for words, row in cells]
    parts.append(("After the table.", "paragraph", None))
    text, blocks = "", []
    for words, kind, row in parts:
        region = "table" if kind == "cell" else "caption" if kind == "caption" else "body"
        blocks.append(Block(len(text), len(text) + len(words), kind, (), region, row=row))  # type: ignore[arg-type]
        text += words + "\n\n"
    return _doc(text, blocks)


def test_each_table_row_is_a_passage_numbered_within_its_table() -> None:
    doc = _table_doc(
        [[("Group", 7), ("n", 7)], [("Walking", 8), ("12", 8)], [("Control", 9), ("11", 9)]],
        "Table 2. Participants.",
    )
    passages = cut_passages(doc)
    rows = [p for p in passages if p.kind == "table-row"]
    assert [p.path for p in rows] == ["table.t2.r1", "table.t2.r2", "table.t2.r3"]
    assert [p.text for p in rows] == ["Group\n\nn", "Walking\n\n12", "Control\n\n11"]
    for p in passages:
        assert doc.text[p.start : p.end] == p.text
    unlabelled = cut_passages(_table_doc([[("a", 1)], [("b", 2)]], None))
    assert [p.path for p in unlabelled if p.kind == "table-row"] == ["table.t1.r1", "table.t1.r2"]


def test_a_table_without_row_numbers_is_one_passage() -> None:
    doc = _table_doc([[("a", None), ("b", None)]], "Table 4. Plain.")
    tables = [p for p in cut_passages(doc) if p.region == "table"]
    assert [(p.path, p.kind, p.text) for p in tables] == [("table.t4", "table", "a\n\nb")]


def test_slug() -> None:
    assert slug("Methods and Materials") == "methods-and-materials"
    assert slug("2.1 Día ñ") == "2-1-dia-n"
    assert slug("!!!") == ""
    assert len(slug("x" * 100)) == 40


@given(st.text(max_size=400))
def test_plain_text_passages_are_valid_and_unique(text: str) -> None:
    document = document_from_string(text)
    passages = cut_passages(document)
    assert len({p.path for p in passages}) == len(passages)
    for p in passages:
        assert valid_path(p.path)
        assert document.text[p.start : p.end] == p.text


# -------------------------------------------------------------------------- ranking


def test_tokenizer_casefolds_word_characters() -> None:
    assert tokenize("Straße, SLEEP-onset (n=12)") == ["strasse", "sleep", "onset", "n", "12"]


def test_no_query_is_document_order(example: Document) -> None:
    passages = cut_passages(example)
    ranked = rank_passages(passages, None, 3)
    assert [r.passage for r in ranked] == passages[:3]
    assert all(r.score is None for r in ranked)
    assert [r.passage for r in rank_passages(passages, "   ")] == passages


def test_bm25_ranks_the_passage_about_the_query_first(example: Document) -> None:
    passages = cut_passages(example)
    ranked = rank_passages(passages, "Pittsburgh Sleep Quality Index", 5)
    assert ranked[0].passage.path == "table.t1.r4"
    scores = [r.score for r in ranked]
    assert all(s is not None for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert len(ranked) <= 5


def test_query_words_absent_everywhere_give_nothing(example: Document) -> None:
    passages = cut_passages(example)
    assert rank_passages(passages, "zebrafish xylophone") == []
    assert rank_passages(passages, "!!!") == []
    assert rank_passages([], "sleep") == []


def test_every_ranked_passage_shares_a_query_token(example: Document) -> None:
    passages = cut_passages(example)
    for r in rank_passages(passages, "walking daylight"):
        assert {"walking", "daylight"} & set(tokenize(r.passage.text))


def test_negative_limit_is_refused(example: Document) -> None:
    with pytest.raises(ValueError):
        rank_passages(cut_passages(example), "sleep", -1)
