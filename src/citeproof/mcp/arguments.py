"""What the tools take: the argument types, and the strict model each tool's are checked by.

Each tool's arguments model is derived from its declaration (the parameters of its method,
:mod:`citeproof.mcp.toolspec`) by :func:`model_for`, on its first call.  The SDK would build
one from the same signature, but with unknown arguments silently dropped and its own
multi-line validation text (with a pydantic URL) as the error.  These models differ:

* **Unknown arguments are refused** (``extra="forbid"``, so the input schema says
  ``additionalProperties: false``): a misspelt ``find_sources`` must not be ignored.
* **Limits and choices are in the schema** (``minimum``/``maximum``, ``maxItems``, ``enum``),
  so a client can see them before calling; the service checks them again.
* **An optional argument is an ``anyOf`` with ``null``** (pydantic's default; the published
  models' shorter ``type: [..., "null"]`` is flagged by strict MCP validators).
* **A refusal is one line that says what to change** (:func:`argument_error`).
* **A reference object's fields have the types CSL-JSON gives them**: ``{"title": 5}`` is
  refused as ``references[0].title must be a string, not 5``, where the reader (lenient with
  files) would look up the title "5" and answer ``unavailable``.  Only the fields citeproof
  reads are checked (:data:`REFERENCE_FIELDS`, the shapes ``citeproof.refs.csl`` reads);
  the others are passed on untouched.  A check the schema cannot say is a :class:`Checked`
  mark on the argument's type (:data:`References`).

The literals (engines, read limit, ``fail_on`` names) are written here rather than imported
from the service, so the server starts without importing the service;
``tests/mcp/test_mcp_schemas.py`` checks that they are the service's own.  This module is
imported on a tool's first call; ``tools/list`` is served from the cached schemas
(:mod:`citeproof.mcp.schemas`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic_core import InitErrorDetails, PydanticCustomError

__all__ = [
    "DEFAULT_FAIL_ON",
    "ENGINES",
    "FAIL_ON_CHOICES",
    "MAX_BATCH",
    "MAX_CITING",
    "MAX_PASSAGES",
    "MAX_READ_LIMIT",
    "MAX_SEARCH_LIMIT",
    "REFERENCE_FIELDS",
    "Arguments",
    "Checked",
    "QuoteItem",
    "argument_error",
    "model_for",
    "validate",
]

#: Most items one ``check_quotes``, ``verify_references`` or ``resolve_handles`` call takes.
MAX_BATCH: Final = 100
MAX_READ_LIMIT: Final = 200_000  # citeproof.service.reading.MAX_READ_LIMIT
MAX_PASSAGES: Final = 200
MAX_CITING: Final = 200  # OpenAlex's page limit
#: The largest page any engine serves (PubMed's); each engine's own limit is checked by the
#: search itself and named in the error.
MAX_SEARCH_LIMIT: Final = 10_000
ENGINES: Final = ("europepmc", "pubmed", "litsense", "openalex", "clinicaltrials", "openfda")
Engine = Literal["europepmc", "pubmed", "litsense", "openalex", "clinicaltrials", "openfda"]
#: citeproof.audit.verdicts.DEFAULT_FAIL_ON and FAIL_ON_CHOICES.
DEFAULT_FAIL_ON: Final = (
    "forged",
    "malformed",
    "unresolvable",
    "mismatch",
    "misquote",
    "retracted",
)
FailOn = Literal[
    "case_only",
    "concern",
    "ellipsis_hides_negation",
    "forged",
    "found_elsewhere",
    "malformed",
    "match_in_front_matter",
    "match_in_references",
    "mismatch",
    "misquote",
    "near_quote",
    "negation_differs",
    "not_full_text",
    "numbers_differ",
    "partial_word",
    "preprint",
    "punctuation_only",
    "reference_partial",
    "retracted",
    "retraction_acknowledged",
    "short_quote",
    "text_changed",
    "unavailable",
    "uncited",
    "unresolvable",
    "version_changed",
    "withdrawn",
]
FAIL_ON_CHOICES: Final[tuple[str, ...]] = get_args(FailOn)

Detail = Annotated[
    Literal["summary", "full"],
    Field(description="summary: the fields to act on; full: the whole published object."),
]
Source = Annotated[
    str,
    Field(
        description="DOI, PMID, PMCID, NCT, openFDA set id, PPR id, URL, or a local file "
        "(JATS, HTML, PDF, text)."
    ),
]
Identifier = Annotated[
    str, Field(description="A DOI, PMID, PMCID, NCT number, openFDA set id, PPR id or URL.")
]
Cursor = Annotated[
    str | None, Field(description="next_cursor from a previous call, to continue it.")
]
Quote = Annotated[str, Field(description="The exact words, as they would stand between quotes.")]
Claim = Annotated[
    str | None,
    Field(
        description="The sentence the quote supports; logged for a later support review, "
        "never judged."
    ),
]


Problem = tuple[tuple[str | int, ...], str, Any]


@dataclass(frozen=True, slots=True)
class Checked:
    """A mark on an argument's type: ``problems(value)`` says what the schema cannot, as
    (where in the value, what it must be, what it is)."""

    problems: Callable[[Any], Iterator[Problem]]


class Arguments(BaseModel):
    """The base of every tool's arguments: unknown names refused, values not coerced loosely."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def problems(self) -> Iterator[InitErrorDetails]:
        """What the schema cannot say is wrong with the arguments: what the :class:`Checked`
        marks on their types find."""
        for name, field in type(self).model_fields.items():
            for mark in field.metadata:
                if isinstance(mark, Checked):
                    for where, wanted, given in mark.problems(getattr(self, name)):
                        yield InitErrorDetails(
                            type=PydanticCustomError(
                                _WRONG_FIELD, "must be {wanted}", {"wanted": wanted}
                            ),
                            loc=(name, *where),
                            input=given,
                        )


class QuoteItem(Arguments):
    """As check_quote's arguments of these names."""

    quote: str
    source: str
    claim: str | None = None


#: A CSL-JSON field citeproof reads -> what its value may be (besides null, which is taken
#: for absent); ``author`` and ``issued`` are checked part by part.  DOI, PMID and PMCID are
#: read in any case of the key.
REFERENCE_FIELDS: Final = {
    "title": "a string",
    "doi": "a string",
    "pmcid": "a string",
    "URL": "a string",
    "type": "a string",
    "container-title": "a string or a list of strings",
    "container-title-short": "a string or a list of strings",
    "pmid": "a string or a whole number",
    "id": "a string or a whole number",
    "author": 'a list of names, each a string or an object such as {"family": "Smith", '
    '"given": "Ann"}',
    "issued": 'a date such as {"date-parts": [[2019, 5]]}, a year or a string',
}
_ANY_CASE: Final = frozenset({"doi", "pmid", "pmcid"})
_NAME_PARTS: Final = ("family", "given", "literal", "non-dropping-particle", "dropping-particle")
_WRONG_FIELD: Final = "reference_field"


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fits(field: str, value: Any) -> bool:
    wanted = REFERENCE_FIELDS[field]
    if wanted == "a string":
        return isinstance(value, str)
    if wanted == "a string or a whole number":
        return isinstance(value, str) or _whole(value)
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )


def _references_problems(references: list[Any]) -> Iterator[Problem]:
    for index, reference in enumerate(references):
        if isinstance(reference, dict):
            for where, wanted, given in _reference_problems(reference):
                yield (index, *where), wanted, given


def _reference_problems(reference: dict[str, Any]) -> Iterator[Problem]:
    """(where in the object, what it must be, what it is) for each field citeproof reads
    whose value has another type."""
    for key, value in reference.items():
        field = key.lower() if key.lower() in _ANY_CASE else key
        if value is None or field not in REFERENCE_FIELDS:
            continue
        if field == "author":
            yield from _author_problems(key, value)
        elif field == "issued":
            yield from _issued_problems(key, value)
        elif not _fits(field, value):
            yield (key,), REFERENCE_FIELDS[field], value


def _author_problems(key: str, value: Any) -> Iterator[Problem]:
    if not isinstance(value, list):
        yield (key,), REFERENCE_FIELDS["author"], value
        return
    for index, person in enumerate(value):
        if isinstance(person, str):
            continue
        if not isinstance(person, dict):
            yield (key, index), 'a name: a string or an object such as {"family": "Smith"}', person
            continue
        for part in _NAME_PARTS:
            if person.get(part) is not None and not isinstance(person[part], str):
                yield (key, index, part), "a string", person[part]


def _issued_problems(key: str, value: Any) -> Iterator[Problem]:
    if isinstance(value, str) or _whole(value):
        return
    if not isinstance(value, dict):
        yield (key,), REFERENCE_FIELDS["issued"], value
        return
    parts = value.get("date-parts")
    if parts is not None and not (
        isinstance(parts, list)
        and all(
            isinstance(date, list) and all(isinstance(p, str) or _whole(p) for p in date)
            for date in parts
        )
    ):
        yield (
            (key, "date-parts"),
            "a list of dates, each a list of numbers such as [2019, 5]",
            parts,
        )
    for name in ("raw", "literal"):
        if value.get(name) is not None and not isinstance(value[name], str):
            yield (key, name), "a string", value[name]


#: Citation strings or CSL-JSON objects, each object's fields checked as citeproof reads them.
References = Annotated[
    list[str | dict[str, Any]],
    Field(
        description=f"1 to {MAX_BATCH} citation strings or CSL-JSON objects (title, author, "
        "issued, container-title, DOI, PMID).",
        min_length=1,
        max_length=MAX_BATCH,
    ),
    Checked(_references_problems),
]


def model_for(tool: str, fields: dict[str, tuple[Any, Any]], *, detail: bool) -> type[Arguments]:
    """The arguments model of ``tool`` with ``fields`` (name: (type, default or ``...``)),
    in order, and ``detail`` last when the tool takes it."""
    given: dict[str, Any] = {**fields, "detail": (Detail, "summary")} if detail else fields
    name = "".join(part.title() for part in tool.split("_"))
    return create_model(name, __base__=Arguments, __module__=__name__, **given)


def validate(model: type[Arguments], arguments: dict[str, Any]) -> Arguments:
    """``arguments`` checked against ``model``; ValidationError when they do not fit.

    Some clients send a list or an object as a JSON string; as the SDK does, such a string
    is parsed when the field is not a string field.
    """
    fields = model.model_fields
    given = dict(arguments)
    for name, value in arguments.items():
        field = fields.get(name)
        if field is None or field.annotation is str or not isinstance(value, str):
            continue
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            continue
        if isinstance(parsed, list | dict):
            given[name] = parsed
    checked = model.model_validate(given)
    problems = list(checked.problems())
    if problems:
        raise ValidationError.from_exception_data(model.__name__, problems)
    return checked


def _where(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "the arguments"


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


#: What a type error's value should have been, by pydantic's error type.
_WANTED: Final = {
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
}
#: How pydantic names the branches of ``str | dict[str, Any]`` in an error's location.
_BRANCHES: Final = frozenset({"str", "dict[str,any]"})
_NOT_AN_ARGUMENT: Final = "is not an argument"


def _one(error: Any) -> tuple[str, str]:
    """(where, what is wrong there) for one pydantic error."""
    loc = tuple(p for p in error.get("loc", ()) if p not in _BRANCHES)
    where = _where(loc)
    kind = error.get("type", "")
    ctx = error.get("ctx") or {}
    given = error.get("input")
    if kind == "missing":
        return where, "is required"
    if kind == "extra_forbidden":
        if len(loc) == 1:
            return where, _NOT_AN_ARGUMENT
        return where, "is not a field here; remove it"
    if kind == "literal_error":
        expected = ctx.get("expected", "one of the listed values")
        return where, f"must be {expected}, not {_value(given)}"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        bound = {
            "greater_than_equal": "at least",
            "greater_than": "more than",
            "less_than_equal": "at most",
            "less_than": "less than",
        }[kind]
        limit = next(iter(ctx.values()), "?")
        return where, f"must be {bound} {limit}, not {_value(given)}"
    if kind == "too_long":
        most = ctx.get("max_length", "?")
        return where, (
            f"has {ctx.get('actual_length', 'too many')} items, more than {most} per call; "
            f"split them into calls of at most {most}"
        )
    if kind == "too_short":
        return where, f"is empty; give at least {ctx.get('min_length', 1)}"
    if kind in _WANTED:
        return where, f"must be {_WANTED[kind]}, not {_value(given)}"
    if kind == _WRONG_FIELD:
        return where, f"must be {ctx.get('wanted', 'of another type')}, not {_value(given)}"
    return where, str(error.get("msg", "is not valid")).lower()


def argument_error(tool: str, model: type[Arguments], error: ValidationError) -> str:
    """One line that says which arguments to change, and how.

    A value that fits none of a union's types (a reference that is neither a string nor an
    object) is one problem, "must be a string or an object", not one per type.
    """
    problems: dict[str, list[str]] = {}
    unknown: list[str] = []
    for e in error.errors(include_url=False):
        where, what = _one(e)
        if what == _NOT_AN_ARGUMENT:
            unknown.append(where)
            continue
        found = problems.setdefault(where, [])
        if what not in found:
            found.append(what)
    lines: list[str] = []
    if unknown:
        names = ", ".join(model.model_fields) or "none"
        are = "is not an argument" if len(unknown) == 1 else "are not arguments"
        lines.append(f"{', '.join(unknown)} {are} of {tool} (its arguments: {names})")
    for where, whats in problems.items():
        types = [w for w in whats if w.startswith("must be ") and ", not " in w]
        if len(types) > 1 and len({w.rsplit(", not ", 1)[1] for w in types}) == 1:
            wanted = " or ".join(w.removeprefix("must be ").rsplit(", not ", 1)[0] for w in types)
            whats = [f"must be {wanted}, not {types[0].rsplit(', not ', 1)[1]}"] + [
                w for w in whats if w not in types
            ]
        lines.extend(f"{where} {what}" for what in whats)
    shown = "; ".join(lines[:5])
    more = f"; and {len(lines) - 5} more" if len(lines) > 5 else ""
    return f"{shown}{more}."
