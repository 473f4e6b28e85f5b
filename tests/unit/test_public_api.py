"""The public API is pinned: adding or removing a name is a deliberate, reviewed change."""

from __future__ import annotations

import subprocess
import sys

import pytest

import citeproof

PUBLIC = [
    "CheckResult",
    "CiteproofError",
    "Document",
    "__version__",
    "check",
    "check_text",
    "load",
]
HEAVY = ("pydantic", "lxml", "rapidfuzz", "pypdfium2", "rich")


def test_all_is_pinned() -> None:
    assert sorted(citeproof.__all__) == PUBLIC


@pytest.mark.parametrize("name", PUBLIC)
def test_every_public_name_resolves(name: str) -> None:
    assert getattr(citeproof, name) is not None


def test_names_are_the_real_objects() -> None:
    from citeproof import errors, models, service
    from citeproof.documents.model import Document

    assert citeproof.check is service.check
    assert citeproof.check_text is service.check_text
    assert citeproof.load is service.load
    assert citeproof.Document is Document
    assert citeproof.CheckResult is models.CheckResult
    assert citeproof.CiteproofError is errors.CiteproofError


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
