"""citeproof: check that a quoted passage really appears in the cited source.

The public API is pinned by a test (``__all__`` against what the package exports, as httpx
does)::

    import citeproof
    doc = citeproof.load("paper.nxml")            # or load("-"), load(text="..."), an identifier
    r = citeproof.check("the quoted words", doc)   # a CheckResult (schema citeproof.check/1)
    r = citeproof.check_text("the quoted words", "the source text")
    report = citeproof.audit_answer(answer_text)  # an AuditReport (citeproof.audit/1)
    listing = citeproof.passages_for("PMC3166277", query="lysis")   # a PassageList with handles
    status = citeproof.resolve_handle(listing.passages[0].handle)   # a HandleStatus
    citeproof.retraction_report("10.1371/journal.pone.0340378")     # a RetractionReport
    citeproof.search_literature("pubmed", "holin lysis timing")     # a SearchRecord
    citeproof.citing_papers("10.1371/journal.pone.0340378")         # a SearchRecord
    citeproof.verify_references(["Smith J. Title. Journal. 2019."])   # a ReferencesReport

The audit's entry point is ``audit_answer``, not ``audit`` as an early sketch had it:
``citeproof.audit`` is the package, and a function of that name would be shadowed as soon as
the package is imported.  For the same reason the searches are ``search_literature`` and
``citing_papers`` (the MCP tools' names), not ``search``.  Every expected failure is a
:class:`CiteproofError`; the ones a caller is expected to tell apart are exported too.

Every name is resolved lazily (PEP 562 module ``__getattr__``): ``import citeproof`` must stay
cheap because the command line imports this package before it knows which command runs, and
``citeproof --help`` should not pay for pydantic, lxml, rapidfuzz, pypdfium2 or rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeproof.audit.run import audit_answer
    from citeproof.documents.model import Document
    from citeproof.errors import (
        BadInputError,
        CiteproofError,
        FetchFailedError,
        UnavailableError,
        UnknownIdentifierError,
    )
    from citeproof.models import CheckResult, RetractionReport
    from citeproof.models.audit import AuditReport
    from citeproof.models.handle import HandleStatus
    from citeproof.models.passages import PassageList
    from citeproof.models.references import ReferencesReport
    from citeproof.models.search import SearchRecord
    from citeproof.service.lookups import (
        citing_papers,
        passages_for,
        resolve_handle,
        retraction_report,
        search_literature,
    )
    from citeproof.service.pipeline import CheckOptions, check, check_text
    from citeproof.service.references import verify_references
    from citeproof.service.texts import load

    __version__: str

__all__ = [
    "AuditReport",
    "BadInputError",
    "CheckOptions",
    "CheckResult",
    "CiteproofError",
    "Document",
    "FetchFailedError",
    "HandleStatus",
    "PassageList",
    "ReferencesReport",
    "RetractionReport",
    "SearchRecord",
    "UnavailableError",
    "UnknownIdentifierError",
    "__version__",
    "audit_answer",
    "check",
    "check_text",
    "citing_papers",
    "load",
    "passages_for",
    "resolve_handle",
    "retraction_report",
    "search_literature",
    "verify_references",
]

# name -> (module, attribute); imported on first access only.
_LAZY: dict[str, tuple[str, str]] = {
    "load": ("citeproof.service.texts", "load"),
    "check": ("citeproof.service.pipeline", "check"),
    "check_text": ("citeproof.service.pipeline", "check_text"),
    "CheckOptions": ("citeproof.service.pipeline", "CheckOptions"),
    "audit_answer": ("citeproof.audit.run", "audit_answer"),
    "passages_for": ("citeproof.service.lookups", "passages_for"),
    "resolve_handle": ("citeproof.service.lookups", "resolve_handle"),
    "retraction_report": ("citeproof.service.lookups", "retraction_report"),
    "search_literature": ("citeproof.service.lookups", "search_literature"),
    "citing_papers": ("citeproof.service.lookups", "citing_papers"),
    "verify_references": ("citeproof.service.references", "verify_references"),
    "ReferencesReport": ("citeproof.models.references", "ReferencesReport"),
    "Document": ("citeproof.documents.model", "Document"),
    "CheckResult": ("citeproof.models", "CheckResult"),
    "RetractionReport": ("citeproof.models", "RetractionReport"),
    "AuditReport": ("citeproof.models.audit", "AuditReport"),
    "PassageList": ("citeproof.models.passages", "PassageList"),
    "HandleStatus": ("citeproof.models.handle", "HandleStatus"),
    "SearchRecord": ("citeproof.models.search", "SearchRecord"),
    "CiteproofError": ("citeproof.errors", "CiteproofError"),
    "BadInputError": ("citeproof.errors", "BadInputError"),
    "UnavailableError": ("citeproof.errors", "UnavailableError"),
    "FetchFailedError": ("citeproof.errors", "FetchFailedError"),
    "UnknownIdentifierError": ("citeproof.errors", "UnknownIdentifierError"),
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from citeproof._version import distribution_version

        value: Any = distribution_version()
    elif name in _LAZY:
        import importlib

        module_name, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module_name), attribute)
    else:
        raise AttributeError(f"module 'citeproof' has no attribute {name!r}")
    globals()[name] = value  # cache: later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
