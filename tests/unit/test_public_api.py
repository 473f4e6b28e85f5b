"""The public API is pinned: adding or removing a name is a deliberate, reviewed change.

As httpx's ``test_exported_members``: ``citeproof.__all__`` is compared with what the package
actually exports (its lazy table), so nothing becomes public by accident, and each name is
the real object from the module the docs name.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import citeproof

PUBLIC = [
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
HEAVY = ("pydantic", "lxml", "rapidfuzz", "pypdfium2", "rich")


def test_all_is_pinned() -> None:
    assert sorted(citeproof.__all__) == PUBLIC


def test_all_is_what_the_package_exports() -> None:
    """A name in the lazy table but not in __all__ (or the reverse) is public by accident."""
    exported = {*citeproof._LAZY, "__version__"}
    assert set(citeproof.__all__) == exported
    assert all(not name.startswith("_") or name == "__version__" for name in citeproof.__all__)


@pytest.mark.parametrize("name", sorted(set(PUBLIC) - {"__version__"}))
def test_every_public_name_comes_from_citeproof(name: str) -> None:
    value = getattr(citeproof, name)
    assert getattr(value, "__module__", "").startswith("citeproof."), name


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(citeproof, name) is not None


def test_names_are_the_real_objects() -> None:
    from citeproof import errors, issuing, models, service
    from citeproof.audit import run
    from citeproof.documents.model import Document
    from citeproof.models.audit import AuditReport
    from citeproof.service import lookups

    assert citeproof.check is service.check
    assert citeproof.check_text is service.check_text
    assert citeproof.load is service.load
    assert citeproof.Document is Document
    assert citeproof.CheckResult is models.CheckResult
    assert citeproof.CiteproofError is errors.CiteproofError
    assert citeproof.UnavailableError is errors.UnavailableError
    assert citeproof.AuditReport is AuditReport
    # the paths the docs have sent users to still work, and are the same objects
    assert citeproof.audit_answer is run.audit_answer
    assert citeproof.passages_for is issuing.passages_for is lookups.passages_for
    assert citeproof.resolve_handle is issuing.resolve_handle


def test_version_is_a_string() -> None:
    assert isinstance(citeproof.__version__, str) and citeproof.__version__


def test_unknown_attribute_raises() -> None:
    with pytest.raises(AttributeError):
        _ = citeproof.no_such_name  # type: ignore[attr-defined]


def _imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('@@', ' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    modules = out.rpartition("@@")[2]
    return {name.split(".")[0] for name in modules.split()}


@pytest.mark.parametrize(
    "code",
    [
        "import citeproof",
        "import citeproof.cli",
        "import citeproof; citeproof.Document",
        "import citeproof; citeproof.CiteproofError",
    ],
)
def test_import_stays_light(code: str) -> None:
    loaded = _imported_after(code)
    assert not loaded & set(HEAVY), f"{code!r} imported {sorted(loaded & set(HEAVY))}"


def test_help_imports_no_heavy_dependency() -> None:
    code = (
        "import sys\nfrom citeproof.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
    )
    loaded = _imported_after(code)
    assert not loaded & set(HEAVY)


def test_dir_lists_public_names() -> None:
    assert set(PUBLIC) <= set(dir(citeproof))
