"""How the pages read a report: JSON data as the published models, whatever the data holds.

Why not ``AuditReport.model_validate``: a page is made from any report a user hands it, a
file saved earlier, a report another citeproof version wrote, a hand-made or hostile one,
and must show what it holds rather than refuse it (docs/report.md: "a page can be made from
any report").  Why not dictionaries either: a page that reads ``cit.get("passage")`` reads a
key no report has ever held without anyone noticing, and a field renamed in ``models/`` would
leave the page reading nothing.  So the pages read the report through the models' own
classes, built here without validation (``model_construct``), and mypy checks the name of
every field a page reads.

What :func:`read` guarantees, and what it does not:

* **The shape is the model's.**  A field whose type is a model holds an instance of it (an
  optional one holds ``None`` unless the data gave a non-empty object); a list of models is
  a list of instances (an item that is not an object becomes an instance with every field
  ``None``); any other list is a list; a dictionary is a dictionary.  So ``cit.check.source
  .title`` never fails on a report with a field missing or of the wrong kind.
* **The leaves are the data's, unchecked.**  A ``str`` or ``int`` field holds whatever the
  JSON held there (``None`` when absent): a report may put a string where a number belongs.
  The pages read every leaf through a coercion (:mod:`citeproof.report.values`), never trust
  its declared type, and show hostile text as text.
* Which fields the data gave is ``model_fields_set``, as for a validated model.

A model already built (a validated report) is taken as it is.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from inspect import isclass
from typing import Any, Literal, TypeGuard, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

__all__ = ["given", "read"]

M = TypeVar("M", bound=BaseModel)

#: How a field is read: ``leaf`` as the data has it; ``node`` as a model (always one);
#: ``optional`` as a model or None; ``nodes`` as a list of models; ``items`` as a list;
#: ``mapping`` as a dictionary.
_Shape = Literal["leaf", "node", "optional", "nodes", "items", "mapping"]


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    key: str
    shape: _Shape
    model: type[BaseModel] | None = None


def read(model: type[M], value: object) -> M:
    """``value`` (JSON data) as a ``model``, the shape guaranteed and the leaves as given."""
    if isinstance(value, model):
        return value
    data: Mapping[Any, Any] = value if isinstance(value, Mapping) else {}
    plan = _plan(model)
    values = {name: data.get(key) for name, key in plan.leaves}
    for f in plan.nested:
        values[f.name] = _shaped(f, data.get(f.key))
    present = {plan.names[key] for key in data if key in plan.names}
    return model.model_construct(_fields_set=present, **values)


def given(model: type[M], value: object) -> M | None:
    """``value`` as a ``model`` when it is a non-empty object (or a model), else None."""
    if isinstance(value, model) or (isinstance(value, Mapping) and value):
        return read(model, value)
    return None


def _shaped(f: _Field, raw: object) -> object:
    if f.shape == "items":
        return list(raw) if isinstance(raw, list | tuple) else []
    if f.shape == "mapping":
        return raw if isinstance(raw, Mapping) else {}
    if f.model is None:  # a leaf
        return raw
    if f.shape == "node":
        return read(f.model, raw)
    if f.shape == "optional":
        return given(f.model, raw)
    return [read(f.model, item) for item in raw] if isinstance(raw, list | tuple) else []


@dataclass(frozen=True, slots=True)
class _Plan:
    """How a model's fields are read: the leaves, taken as they are, apart from the rest."""

    leaves: tuple[tuple[str, str], ...]
    nested: tuple[_Field, ...]
    #: JSON key -> field name.
    names: dict[str, str]


@cache
def _plan(model: type[BaseModel]) -> _Plan:
    """How each field of ``model`` is read, worked out once from its annotations."""
    fields = [_field(name, info) for name, info in model.model_fields.items()]
    return _Plan(
        leaves=tuple((f.name, f.key) for f in fields if f.shape == "leaf"),
        nested=tuple(f for f in fields if f.shape != "leaf"),
        names={f.key: f.name for f in fields},
    )


def _field(name: str, info: FieldInfo) -> _Field:
    key = info.alias or name
    annotation = info.annotation
    optional = False
    if get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(args) < len(get_args(annotation))
        if len(args) != 1:
            return _Field(name, key, "leaf")
        annotation = args[0]
    if _is_model(annotation):
        return _Field(name, key, "optional" if optional else "node", annotation)
    origin = get_origin(annotation)
    if origin in (list, tuple):
        item = get_args(annotation)[0] if get_args(annotation) else None
        if _is_model(item):
            return _Field(name, key, "nodes", item)
        return _Field(name, key, "items")
    if origin is dict:
        return _Field(name, key, "mapping")
    return _Field(name, key, "leaf")


def _is_model(annotation: object) -> TypeGuard[type[BaseModel]]:
    return isclass(annotation) and issubclass(annotation, BaseModel)
