"""The house rules of docs/architecture.md that import-linter does not check.

The layers, the interfaces' imports, the pure core and the cycles are import-linter contracts
(``lint-imports`` in CI, configured in pyproject.toml); this file pins the rest: how many
loose modules there may be, which module names may repeat across packages, where a late
import may stand, and what importing the check pipeline costs.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "citeproof"

#: Modules that may import citeproof modules inside functions, each line marked
#: ``# start-up`` (the reason is in the module's docstring).  Every ``cli/`` and ``mcp/``
#: module and every package ``__init__`` may, unmarked: that is what keeps ``--help`` fast.
STARTUP_LATE_IMPORTS = {
    "documents/detect.py",  # a parser when its format is met (PDF, XML, HTML libraries)
    "evidence/log.py",  # the verifier and the report models, which an append never needs
    "loading/describe.py",  # the result models, for callers that want a model, not plain data
    "loading/load.py",  # the pins, and with them the HTTP stack, for identifiers only
    "service/pipeline.py",  # the network and log steps, when they run
    "service/references.py",  # the local index (tantivy, an extra) only when one is given
}

#: Packages whose modules are named after what they front or publish, so a module may share
#: its name with another package's module: cli/check.py fronts the check, models/audit.py
#: publishes citeproof.audit/1.
NAMED_AFTER_OTHERS = {"cli", "mcp", "models"}
#: A service's client and the parser of what it serves share the service's name.
CLIENT_AND_PARSER = {"ctgov", "openfda", "pubmed"}


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py"))


def _relative(path: Path) -> str:
    return path.relative_to(PACKAGE).as_posix()


def test_at_most_ten_loose_modules() -> None:
    loose = [p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert len(loose) <= 10, loose


def test_no_module_is_named_like_another_packages_module_or_package() -> None:
    """``passages.py`` beside ``store/passages.py`` made a reader guess which one was meant."""
    names: dict[str, set[str]] = defaultdict(set)
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    for path in _modules():
        if path.name in ("__init__.py", "__main__.py"):
            continue
        where = path.parent.name if path.parent != PACKAGE else ""
        names[path.stem.lstrip("_")].add(where)
    clashes = []
    for name, places in names.items():
        if name in packages:
            places = places | {"<package>"}
        strict = {p for p in places if p not in NAMED_AFTER_OTHERS}
        if name in CLIENT_AND_PARSER and strict <= {"sources", "documents"}:
            continue
        if len(strict) > 1:
            clashes.append((name, sorted(places)))
    assert clashes == []


def _late_imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for sub in ast.walk(node):
            names = []
            if isinstance(sub, ast.ImportFrom) and sub.module and sub.level == 0:
                names = [sub.module]
            elif isinstance(sub, ast.Import):
                names = [a.name for a in sub.names]
            if any(n == "citeproof" or n.startswith("citeproof.") for n in names):
                end = sub.end_lineno or sub.lineno
                found.append((sub.lineno, " ".join(lines[sub.lineno - 1 : end])))
    return found


def test_late_imports_stand_only_where_start_up_needs_them() -> None:
    """A function-level import once hid four import cycles; now the acyclic contract catches
    cycles, and a late import is allowed only for start-up, where it says so."""
    wrong = []
    for path in _modules():
        rel = _relative(path)
        if rel.startswith(("cli/", "mcp/")) or path.name == "__init__.py":
            continue
        for line, text in _late_imports(path):
            if rel not in STARTUP_LATE_IMPORTS or "# start-up" not in text:
                wrong.append(f"{rel}:{line}: {text.strip()}")
    assert wrong == []


def test_the_start_up_allowance_is_used() -> None:
    for rel in STARTUP_LATE_IMPORTS:
        assert _late_imports(PACKAGE / rel), f"{rel} has no late import: drop it from the list"


def _loaded_by(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('@@', ' '.join(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return {name.split(".")[0] for name in out.rpartition("@@")[2].split()}


@pytest.mark.parametrize(
    ("code", "absent"),
    [
        # a check of a local file needs no HTTP stack, no SQLite, no keys, no templates
        (
            "import citeproof.service.pipeline",
            {"httpx2", "sqlite3", "cryptography", "filelock", "jinja2", "mcp", "asyncio"},
        ),
        # printing a file's text needs no result models either
        ("import citeproof.service.texts", {"pydantic", "httpx2", "sqlite3", "cryptography"}),
    ],
)
def test_a_one_shot_check_imports_only_what_it_uses(code: str, absent: set[str]) -> None:
    assert _loaded_by(code) & absent == set()


def test_the_layer_map_in_the_docs_is_the_contract() -> None:
    """docs/architecture.md draws the layers import-linter enforces; a package added to the
    contract (manuscript and index once were not drawn) must be drawn too, in its row."""
    import tomllib

    root = PACKAGE.parents[1]
    contract = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(
        c["layers"]
        for c in contract["tool"]["importlinter"]["contracts"]
        if c.get("type") == "layers"
    )
    doc = (root / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = doc.split("## The layers", 1)[1].split("```text", 1)[1].split("```", 1)[0]
    drawn = []
    for line in block.strip().splitlines():
        names = line.strip().split("  ", 1)[0]  # the names, then two spaces and what they do
        drawn.append(" ".join(names.split()))
    assert drawn == [" ".join(layer.split()) for layer in layers]
