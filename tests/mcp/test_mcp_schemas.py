"""The schemas the server publishes are cached in ``citeproof/mcp/schemas.json``: they must
be what the models and the argument models give today, and the limits written into the
argument models must be the service's own."""

from __future__ import annotations

import json

from citeproof.mcp import arguments, schemas
from citeproof.mcp.descriptions import TOOL_NAMES


def test_the_cached_schemas_are_what_the_models_give() -> None:
    derived = schemas.derive()
    cached = json.loads(schemas.SCHEMA_FILE.read_text(encoding="utf-8"))
    assert list(derived) == list(TOOL_NAMES)
    stale = [name for name in derived if cached.get(name) != derived[name]]
    assert stale == [], f"{stale}: run `python -m citeproof.mcp.schemas` to write them again"
    assert schemas.SCHEMA_FILE.read_text(encoding="utf-8") == schemas.dumps(derived)


def test_every_tool_has_an_arguments_model_and_an_output_model() -> None:
    """Both derived from the tool's one declaration: its method's parameters and return."""
    from pydantic import BaseModel

    from citeproof.mcp.tools import TOOLS

    assert tuple(TOOLS) == TOOL_NAMES
    assert tuple(schemas.output_models()) == TOOL_NAMES
    for name, spec in TOOLS.items():
        assert issubclass(spec.arguments(), arguments.Arguments), name
        assert issubclass(spec.output(), BaseModel), name
        assert ("detail" in spec.arguments().model_fields) == spec.detail, name


def test_the_argument_limits_are_the_services() -> None:
    from citeproof.audit.verdicts import DEFAULT_FAIL_ON, FAIL_ON_CHOICES
    from citeproof.search.params import ENGINES, max_limit
    from citeproof.service.reading import DEFAULT_READ_LIMIT, MAX_READ_LIMIT

    assert arguments.ENGINES == ENGINES
    assert arguments.MAX_READ_LIMIT == MAX_READ_LIMIT
    inputs = schemas.load()
    assert inputs["read_source"]["input"]["properties"]["limit"]["default"] == DEFAULT_READ_LIMIT
    assert max(max_limit(e) for e in ENGINES) == arguments.MAX_SEARCH_LIMIT
    assert max_limit("openalex") == arguments.MAX_CITING
    assert tuple(sorted(FAIL_ON_CHOICES)) == arguments.FAIL_ON_CHOICES
    assert arguments.DEFAULT_FAIL_ON == DEFAULT_FAIL_ON
    described = inputs["search_literature"]["input"]["properties"]["limit"]["description"]
    for engine in ("litsense", "openalex", "pubmed"):
        assert f"{max_limit(engine)} {engine}" in described or (
            f"{max_limit(engine)} for {engine}" in described
        ), engine
