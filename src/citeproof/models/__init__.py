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
"""

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
