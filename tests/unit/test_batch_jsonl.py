"""Strict JSONL lines: every kind of bad line is that line's error, never the batch's."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.batch.jsonl import (
    MAX_LINE_BYTES,
    BatchItem,
    LineError,
    parse_items,
    parse_line,
    parse_stream,
    read_lines,
)


def test_a_good_line_with_and_without_id() -> None:
    item = parse_line(b'{"id": "a1", "quote": "q w", "source": "x.txt", "claim": "c"}', 3)
    assert item == BatchItem(3, "a1", "q w", "x.txt", "c")
    assert parse_line(b'{"quote": "q", "source": "x"}', 7) == BatchItem(7, 7, "q", "x")
    assert parse_line(b'{"id": 12, "quote": "q", "source": "x"}', 1) == BatchItem(1, 12, "q", "x")


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"quote": NaN, "source": "x"}', "not_json"),
        (b'{"quote": "q", "source": "x", "n": Infinity}', "not_json"),
        (b'{"quote": "a", "quote": "b", "source": "x"}', "duplicate_key"),
        (b"[1, 2]", "not_an_object"),
        (b"not json", "not_json"),
        (b'{"quote": "q"}', "missing_field"),
        (b'{"quote": "  ", "source": "x"}', "missing_field"),
        (b'{"quote": 5, "source": "x"}', "bad_field"),
        (b'{"id": true, "quote": "q", "source": "x"}', "bad_field"),
        (b'{"id": 1.5, "quote": "q", "source": "x"}', "bad_field"),
        (b'{"qoute": "q", "source": "x"}', "unknown_field"),
        (b'{"quote": "\xff", "source": "x"}', "not_utf8"),
        (b'{"quote": "q", "source": "x", "id": ' + b"[" * 40 + b"]" * 40 + b"}", "too_deep"),
        (b"[" * 100_000 + b"]" * 100_000, "too_deep"),
    ],
)
def test_bad_lines_are_errors(raw: bytes, code: str) -> None:
    parsed = parse_line(raw, 5)
    assert isinstance(parsed, LineError)
    assert (parsed.code, parsed.line) == (code, 5)
    assert parsed.message
    record = parsed.record()
    assert record["line"] == 5 and record["error"]["code"] == code


def test_the_id_survives_into_the_error_when_it_was_readable() -> None:
    parsed = parse_line(b'{"id": "x9", "qoute": "q", "source": "x"}', 2)
    assert isinstance(parsed, LineError) and parsed.record()["id"] == "x9"


def test_nesting_at_the_limit_is_fine_and_one_deeper_is_not() -> None:
    def nested(depth: int) -> bytes:
        inner = "[" * (depth - 1) + "]" * (depth - 1)
        return f'{{"quote": "q", "source": "x", "id": 1, "claim": null, "z": {inner}}}'.encode()

    # unknown field "z" aside, the depth check comes first
    assert parse_line(nested(32), 1).code == "unknown_field"  # type: ignore[union-attr]
    assert parse_line(nested(33), 1).code == "too_deep"  # type: ignore[union-attr]


def test_brackets_in_a_string_are_not_nesting() -> None:
    """Only a line with more than 32 brackets is walked for its depth; its strings count."""
    quote = "[" * 40 + "{" * 40
    parsed = parse_line(json.dumps({"quote": quote, "source": "x"}).encode(), 1)
    assert isinstance(parsed, BatchItem) and parsed.quote == quote
    nested: object = "q"
    for _ in range(30):
        nested = [nested]
    line = json.dumps({"quote": quote, "source": "x", "claim": nested}).encode()
    assert parse_line(line, 1).code == "bad_field"  # type: ignore[union-attr]
    bom = parse_line(b'\xef\xbb\xbf{"quote": "q", "source": "x"}', 1)
    assert isinstance(bom, LineError) and bom.code == "not_json" and "BOM" in bom.message


def test_an_over_long_line_is_refused_without_being_held_whole() -> None:
    long_line = b'{"quote": "' + b"a" * (MAX_LINE_BYTES + 10) + b'", "source": "x"}\n'
    good = b'{"quote": "q", "source": "x"}\n'
    lines = list(read_lines(io.BytesIO(good + long_line + good)))
    assert len(lines) == 3
    assert len(lines[1]) == MAX_LINE_BYTES + 1  # only the start was kept
    parsed = list(parse_stream(io.BytesIO(good + long_line + good)))
    assert [type(p).__name__ for p in parsed] == ["BatchItem", "LineError", "BatchItem"]
    assert isinstance(parsed[1], LineError) and parsed[1].code == "line_too_long"
    assert [p.line for p in parsed] == [1, 2, 3]


def test_blank_lines_crlf_and_a_last_line_without_newline() -> None:
    data = b'{"quote": "q", "source": "x"}\r\n\n   \n{"quote": "r", "source": "y"}'
    parsed = list(parse_stream(io.BytesIO(data)))
    assert [(p.line, p.quote) for p in parsed if isinstance(p, BatchItem)] == [(1, "q"), (4, "r")]


def test_python_items_follow_the_same_rules() -> None:
    parsed = list(parse_items([{"quote": "q", "source": "x"}, {"quote": float("nan")}, {"a": 1}]))
    assert isinstance(parsed[0], BatchItem)
    assert isinstance(parsed[1], LineError) and parsed[1].code == "not_json"
    assert isinstance(parsed[2], LineError) and parsed[2].code == "unknown_field"


@given(st.binary(max_size=300))
def test_any_bytes_give_an_item_an_error_or_nothing(raw: bytes) -> None:
    parsed = parse_line(raw, 1)
    assert parsed is None or isinstance(parsed, BatchItem | LineError)
    if isinstance(parsed, LineError):
        json.dumps(parsed.record())  # always writable as an output line


@given(
    st.dictionaries(
        st.sampled_from(["id", "quote", "source", "claim", "extra"]),
        st.one_of(st.none(), st.integers(), st.text(max_size=20), st.booleans()),
    )
)
def test_any_object_is_an_item_only_when_it_is_a_valid_check(obj: dict[str, object]) -> None:
    parsed = parse_line(json.dumps(obj).encode(), 1)
    valid = (
        set(obj) <= {"id", "quote", "source", "claim"}
        and isinstance(obj.get("quote"), str)
        and str(obj["quote"]).strip() != ""
        and isinstance(obj.get("source"), str)
        and str(obj["source"]).strip() != ""
        and (obj.get("claim") is None or isinstance(obj.get("claim"), str))
        and (
            obj.get("id") is None
            or (isinstance(obj["id"], int | str) and not isinstance(obj["id"], bool))
        )
    )
    assert isinstance(parsed, BatchItem) == valid
