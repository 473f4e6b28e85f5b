"""A pinned source is parsed and prepared once per process, whatever asks for it again."""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

import pytest

from citeproof.documents.model import Document
from citeproof.identifiers import parse_identifier
from citeproof.loading.pins import load_identifier
from citeproof.store.cache import Cache

JATS = (
    b"<article><front><article-meta><title-group><article-title>Memo test</article-title>"
    b"</title-group></article-meta></front><body><sec><title>Results</title><p>Pinned bytes "
    b"are parsed once and reused by every later check in the process.</p></sec></body>"
    b"</article>"
)


def test_repeat_loads_share_one_parsed_and_prepared_document(tmp_path: Path) -> None:
    ident = parse_identifier("PMC999999")
    with Cache(tmp_path / "cache.sqlite3") as cache:
        cache.pin(
            ident.key,
            JATS,
            retrieved_at="2026-11-30T00:00:00Z",
            served_by="pmc",
            media_type="application/xml",
            meta={"coverage": "full_text"},
        )
        first = load_identifier(ident, offline=True, cache=cache)
        second = load_identifier(ident, offline=True, cache=cache)
    assert isinstance(first, Document) and isinstance(second, Document)
    assert first is not second  # each load carries its own origin ...
    assert first.prepared is second.prepared  # ... over one prepared text
    assert first.origin is not None and first.origin.served_by == "pmc"
    assert first.origin.coverage == "full_text"


def test_different_bytes_are_parsed_anew(tmp_path: Path) -> None:
    ident = parse_identifier("PMC999998")
    with Cache(tmp_path / "cache.sqlite3") as cache:
        cache.pin(
            ident.key,
            JATS,
            retrieved_at="2026-11-30T00:00:00Z",
            served_by="pmc",
            media_type="application/xml",
        )
        first = load_identifier(ident, offline=True, cache=cache)
        cache.pin(
            ident.key,
            JATS.replace(b"Memo test", b"Memo test two"),
            retrieved_at="2026-11-30T01:00:00Z",
            served_by="pmc",
            media_type="application/xml",
        )
        second = load_identifier(ident, offline=True, cache=cache)
    assert isinstance(first, Document) and isinstance(second, Document)
    assert "Memo test two" in second.text and "Memo test two" not in first.text


def test_the_memo_is_bounded_by_the_size_of_what_it_keeps(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bounded by count, 32 pages of 25 MB were kept at once; by characters, they are not."""
    from citeproof.loading import memo

    monkeypatch.setattr(memo, "KEEP_CHARS", 1_000)
    monkeypatch.setattr(memo, "_MEMO", OrderedDict())
    monkeypatch.setattr(memo, "_chars", 0)
    texts = [(f"{n} " + "word " * 60).encode() for n in range(10)]  # ~300 characters each
    for n, data in enumerate(texts):
        memo.parsed(f"sha-{n}", data)
    kept = sum(len(d.text) for d in memo._MEMO.values())
    assert kept <= 1_000 and kept == memo._chars
    assert memo.peek("sha-9") is not None and memo.peek("sha-0") is None  # oldest went first
    huge = b"x " * 2_000  # larger than the whole bound: parsed, never kept
    assert memo.parsed("sha-huge", huge).text.startswith("x")
    assert memo.peek("sha-huge") is None


def test_a_batch_s_hundred_sources_of_10_kb_stay_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Kept by count (32), 100 sources were parsed again for every chunk of a batch (500 parses
    for 10,000 checks over 100 documents): the budget is characters of text, not documents."""
    from citeproof.loading import memo

    monkeypatch.setattr(memo, "_MEMO", OrderedDict())
    monkeypatch.setattr(memo, "_chars", 0)
    texts = [(f"source {n} " + "plain words of a paper " * 440).encode() for n in range(100)]
    assert all(len(t) > 10_000 for t in texts)
    for _ in range(3):  # three chunks, each checking every source
        for n, data in enumerate(texts):
            memo.parsed(f"sha-{n}", data)
    assert all(memo.peek(f"sha-{n}") is not None for n in range(100))
    assert memo.recall("sha-0") is not None and next(reversed(memo._MEMO)) == ("sha-0", None)
