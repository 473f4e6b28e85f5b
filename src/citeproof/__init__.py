"""citeproof: check that a quoted passage really appears in the cited source.

The public API is small and pinned by a test (``__all__``)::

    import citeproof
    doc = citeproof.load("paper.nxml")            # or load("-"), load(text="...")
    r = citeproof.check("the quoted words", doc)   # a CheckResult (schema citeproof.check/1)
    r = citeproof.check_text("the quoted words", "the source text")

Every name is resolved lazily (PEP 562 module ``__getattr__``): ``import citeproof`` must stay
cheap because the command line imports this package before it knows which command runs, and
``citeproof --help`` should not pay for pydantic, lxml, rapidfuzz, pypdfium2 or rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeproof.documents.model import Document
    from citeproof.errors import CiteproofError
    from citeproof.models import CheckResult
    from citeproof.service import check, check_text, load

    __version__: str

__all__ = [
    "CheckResult",
    "CiteproofError",
    "Document",
    "__version__",
    "check",
    "check_text",
    "load",
]

# name -> (module, attribute); imported on first access only.
_LAZY: dict[str, tuple[str, str]] = {
    "load": ("citeproof.service", "load"),
    "check": ("citeproof.service", "check"),
    "check_text": ("citeproof.service", "check_text"),
    "Document": ("citeproof.documents.model", "Document"),
    "CheckResult": ("citeproof.models", "CheckResult"),
    "CiteproofError": ("citeproof.errors", "CiteproofError"),
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
