"""The library API on real documents: load once and check many times, sources, errors."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Any

import pytest

import citeproof
from citeproof.errors import (
    BadInputError,
    EmptyQuoteError,
    QuoteTooLongError,
    SourceNotFoundError,
    SourceTooLargeError,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
ARTICLE = EXAMPLES / "example-article.nxml"
NOTES = EXAMPLES / "example-notes.txt"
QUOTE = "Participants who walked for thirty minutes each morning fell asleep faster"


def test_load_a_path_as_str_or_path() -> None:
    by_str = citeproof.load(str(ARTICLE))
    by_path = citeproof.load(ARTICLE)
    assert isinstance(by_str, citeproof.Document)
    assert by_str.text == by_path.text and by_str.format == "jats"
    assert by_str.origin is not None and by_str.origin.input == str(ARTICLE)
    assert by_str.origin.coverage == "file" and by_str.origin.served_by == "file"


def test_load_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = io.TextIOWrapper(io.BytesIO(NOTES.read_bytes()))
    monkeypatch.setattr(sys, "stdin", fake)
    doc = citeproof.load("-")
    assert doc.origin is not None and doc.origin.served_by == "stdin"
    assert doc.text == citeproof.load(NOTES).text


def test_load_with_an_explicit_stream_and_cap() -> None:
    doc = citeproof.load("-", stdin=io.BytesIO(b"Some text given on stdin."))
    assert doc.text.startswith("Some text")
    with pytest.raises(SourceTooLargeError):
        citeproof.load(NOTES, max_bytes=10)


def test_load_text() -> None:
    doc = citeproof.load(text="The quick brown fox jumps over the lazy dog.")
    assert doc.format == "text"
    assert doc.origin is not None and doc.origin.coverage == "text"


def test_load_many_check_many_reuses_prepared_state(monkeypatch: pytest.MonkeyPatch) -> None:
    import citeproof.match.prepare as prepare_module

    calls: list[Any] = []
    real = prepare_module.prepare

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(prepare_module, "prepare", counting)
    doc = citeproof.load(ARTICLE)
    first = citeproof.check(QUOTE, doc)
    assert doc.prepared is doc.prepared
    second = citeproof.check("fell asleep sooner than those in the control group", doc)
    third = citeproof.check("nothing like this sentence is anywhere in the article", doc)
    assert (first.verdict, second.verdict, third.verdict) == ("EXACT", "NEAR", "NOT_FOUND")
    # Once, or not at all when an earlier load of the same bytes in this process (another
    # test) already prepared them: see citeproof.loading.memo.
    assert len(calls) <= 1
    again = citeproof.load(ARTICLE)
    assert again is not doc and again.prepared is doc.prepared  # shared, not rebuilt
    assert len(calls) <= 1


def test_check_accepts_document_path_and_str() -> None:
    doc = citeproof.load(ARTICLE)
    results = [citeproof.check(QUOTE, source) for source in (doc, ARTICLE, str(ARTICLE))]
    assert {r.verdict for r in results} == {"EXACT"}
    assert results[0].model_dump() == results[1].model_dump() == results[2].model_dump()


def test_check_text() -> None:
    result = citeproof.check_text(
        "the quick brown fox jumps over the lazy dog",
        "Yesterday the quick brown fox jumps over the lazy dog.",
    )
    assert result.verdict == "EXACT" and result.ok
    assert result.source.coverage == "text" and result.source.served_by == "text"
    assert result.source.kind == "text"
    match = result.matches[0]
    assert match.text == "the quick brown fox jumps over the lazy dog"


def test_check_text_options() -> None:
    source = "The trial enrolled 120 adults aged 65 to 84 years in three towns."
    quote = "The trial enrolled 120 adults aged 65 to 85 years in three towns."
    assert citeproof.check_text(quote, source).verdict == "NEAR"
    assert citeproof.check_text(quote, source, near_threshold=1.0).verdict == "NOT_FOUND"


def test_result_serialises_to_the_contract() -> None:
    data = citeproof.check(QUOTE, ARTICLE).model_dump(mode="json")
    assert data["schema"] == "citeproof.check/1"
    assert data["source"]["resolved"]["doi"] == "10.5555/citeproof.example.1"
    assert data["source"]["title"].startswith("A brief morning walking programme")


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: citeproof.check("", ARTICLE), EmptyQuoteError),
        (lambda: citeproof.check_text(" \n ", "text"), EmptyQuoteError),
        (lambda: citeproof.check("x" * 100_001, ARTICLE), QuoteTooLongError),
        (lambda: citeproof.check(QUOTE, "no/such/file.pdf"), SourceNotFoundError),
        (lambda: citeproof.check(QUOTE, ARTICLE, expect_sha256="abc"), BadInputError),
        (lambda: citeproof.check(QUOTE, ARTICLE, near_threshold=2), BadInputError),
        (lambda: citeproof.check(QUOTE, ARTICLE, max_gap=-3), BadInputError),
        (lambda: citeproof.check(QUOTE, ARTICLE, profile="t0"), BadInputError),
    ],
)
def test_errors_are_citeproof_errors(call: Any, error: type[Exception]) -> None:
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, citeproof.CiteproofError)
    message = str(info.value)
    assert message and "\n" not in message


def test_identifier_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path))
    with pytest.raises(citeproof.CiteproofError, match="--offline forbids") as info:
        citeproof.load("doi:10.1371/journal.pmed.1004764", offline=True)
    assert info.value.exit_code == 3
