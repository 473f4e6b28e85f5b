"""Canonical JSON: one byte string per value, and a clear refusal of what JSON cannot hold."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.evidence.canonical import CanonicalJSONError, canonical_bytes, canonical_text

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",))),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def test_sorted_keys_no_spaces_utf8() -> None:
    assert canonical_bytes({"b": 1, "a": [1, "é", None]}) == '{"a":[1,"é",null],"b":1}'.encode()
    assert canonical_text({"z": {"y": True, "x": 1.5}}) == '{"z":{"x":1.5,"y":true}}'


@given(json_values)
def test_reading_back_gives_the_same_bytes(value: object) -> None:
    data = canonical_bytes(value)
    assert canonical_bytes(json.loads(data)) == data


@pytest.mark.parametrize(
    "bad",
    [
        math.nan,
        math.inf,
        -math.inf,
        {1: "int key"},
        datetime.now(UTC),
        Path("x"),
        {1, 2},
        {"deep": b"bytes"},
        "\ud800",
    ],
)
def test_refuses_what_json_cannot_hold(bad: object) -> None:
    with pytest.raises(CanonicalJSONError):
        canonical_bytes(bad)


def test_refuses_absurd_nesting() -> None:
    value: object = 1
    for _ in range(100):
        value = [value]
    with pytest.raises(CanonicalJSONError, match="nested"):
        canonical_bytes(value)
