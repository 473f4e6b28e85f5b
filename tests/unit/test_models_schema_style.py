"""The published schemas write optional scalars as type lists, and mean what they meant."""

from __future__ import annotations

import copy
from typing import Any, Literal

from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict

from citeproof.models import CheckResult
from citeproof.models.base import compact_nullable


class Inner(BaseModel):
    n: int


class Plain(BaseModel):
    """Every kind of optional field, with pydantic's own schema style."""

    text: str | None = None
    count: int | None = None
    share: float | None = None
    flag: bool | None = None
    words: list[str] | None = None
    mode: Literal["a", "b"] | None = None
    inner: Inner | None = None
    always: str = "x"


class Compact(Plain):
    model_config = ConfigDict(json_schema_extra=compact_nullable)


def test_optional_scalars_become_type_lists() -> None:
    props = Compact.model_json_schema()["properties"]
    assert props["text"]["type"] == ["string", "null"] and "anyOf" not in props["text"]
    assert props["count"]["type"] == ["integer", "null"]
    assert props["words"]["type"] == ["array", "null"]
    assert props["words"]["items"] == {"type": "string"}
    assert props["mode"]["enum"] == ["a", "b", None]
    # an optional model keeps its anyOf: a $ref cannot share "type" with null
    assert {"type": "null"} in props["inner"]["anyOf"]
    assert props["always"] == Plain.model_json_schema()["properties"]["always"]


def test_a_branch_with_composite_keywords_is_left_alone() -> None:
    prop: dict[str, Any] = {"anyOf": [{"const": "x", "type": "string"}, {"type": "null"}]}
    schema = {"properties": {"p": copy.deepcopy(prop)}}
    compact_nullable(schema)
    assert schema["properties"]["p"] == prop
    clash = {"anyOf": [{"type": "string", "title": "inner"}, {"type": "null"}], "title": "x"}
    schema = {"properties": {"p": copy.deepcopy(clash)}}
    compact_nullable(schema)
    assert schema["properties"]["p"] == clash


values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=3),
    st.lists(st.one_of(st.text(max_size=2), st.integers(0, 3)), max_size=2),
    st.sampled_from(["a", "b", "c"]),
    st.fixed_dictionaries({"n": st.integers(0, 3)}),
)
PLAIN = Draft202012Validator(Plain.model_json_schema())
COMPACT = Draft202012Validator(Compact.model_json_schema())


@given(st.dictionaries(st.sampled_from(sorted(Plain.model_fields)), values))
def test_the_compact_schema_accepts_exactly_what_the_original_accepts(
    document: dict[str, Any],
) -> None:
    assert PLAIN.is_valid(document) == COMPACT.is_valid(document)


def test_published_check_schema_uses_the_compact_style() -> None:
    schema = CheckResult.model_json_schema(mode="serialization")
    props = schema["properties"]
    assert props["reason"]["type"] == ["string", "null"]
    scalar_any_of = [
        name
        for definition in [schema, *schema.get("$defs", {}).values()]
        for name, prop in definition.get("properties", {}).items()
        if any("type" in b and b["type"] != "null" for b in prop.get("anyOf", []))
        and {"type": "null"} in prop.get("anyOf", [])
    ]
    assert scalar_any_of == []
