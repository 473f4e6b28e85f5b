"""The pydantic models every interface renders: one module per published schema.

``check`` holds ``citeproof.check/1`` (re-exported here, with ``citeproof.retraction/1``, since
nearly every caller wants them); the others are imported from their modules:
``models.audit`` (``citeproof.audit/1``), ``models.search`` (``citeproof.search/1``),
``models.passages`` (``citeproof.passages/1``), ``models.handle`` (``citeproof.handle/1``),
``models.recheck`` (``citeproof.recheck/1``), ``models.source`` (a page of text, a resolved
identifier) and ``models.evidence`` (what the evidence log's commands report).  All derive
from :class:`citeproof.models.base.Model`.  Fields may be added; none is renamed or removed
without bumping ``schema``.

Imports: ``pydantic``, each other, and the vocabularies of ``documents``; nothing with I/O.
``models.plain`` is the exception that proves the rule: the check result as plain classes,
generated from ``models.check`` (``models.mirror``) and importing nothing, for the one-shot
check that must not pay for pydantic.

The names below are resolved on first use (PEP 562), so that importing ``models.plain``, or
a module that names a model only in its type hints, does not import pydantic: every
``from citeproof.models import CheckResult`` still works and still gives the model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeproof.models.base import Model, Published, Resolved
    from citeproof.models.check import (
        CHECK_SCHEMA,
        VERDICTS,
        CheckResult,
        Coverage,
        DiffOp,
        FoundElsewhere,
        Fragment,
        Location,
        Match,
        Near,
        Refresh,
        SearchedPlace,
        SourceInfo,
        Verdict,
        WordBoundaries,
    )
    from citeproof.models.retraction import (
        RETRACTION_SCHEMA,
        Notice,
        RetractionReport,
        RetractionSource,
        RetractionStatus,
        SourceReport,
        SourceState,
    )

__all__ = [
    "CHECK_SCHEMA",
    "RETRACTION_SCHEMA",
    "VERDICTS",
    "CheckResult",
    "Coverage",
    "DiffOp",
    "FoundElsewhere",
    "Fragment",
    "Location",
    "Match",
    "Model",
    "Near",
    "Notice",
    "Published",
    "Refresh",
    "Resolved",
    "RetractionReport",
    "RetractionSource",
    "RetractionStatus",
    "SearchedPlace",
    "SourceInfo",
    "SourceReport",
    "SourceState",
    "Verdict",
    "WordBoundaries",
]

_BASE = "citeproof.models.base"
_RETRACTION = "citeproof.models.retraction"
#: The names of ``__all__`` that ``models.check`` does not define, and the module that does.
_ELSEWHERE: dict[str, str] = {
    "Model": _BASE,
    "Published": _BASE,
    "Resolved": _BASE,
    **dict.fromkeys(
        [
            "RETRACTION_SCHEMA",
            "Notice",
            "RetractionReport",
            "RetractionSource",
            "RetractionStatus",
            "SourceReport",
            "SourceState",
        ],
        _RETRACTION,
    ),
}
#: name -> the module that defines it; imported on first access only.
_LAZY: dict[str, str] = {name: _ELSEWHERE.get(name, "citeproof.models.check") for name in __all__}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'citeproof.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # cache: later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
