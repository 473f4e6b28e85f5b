"""Writes ``models.plain``'s classes from the declarations in ``models.check``: the check
result is declared once, as the pydantic models, and its pydantic-free twin is generated.

Why generated rather than built at run time: the one-shot ``citeproof check`` must not import
pydantic (about 80 to 150 ms here, ten times a whole check's budget: ``bench/bench_startup.py``),
so the plain classes cannot be made from the models when a check starts; and classes made
from a table at run time would be invisible to mypy, which checks every field every caller
reads.  So the classes are written out as source, below a marker in ``models/plain.py``, by

    python -m citeproof.models.mirror           # rewrite them after a model changed
    python -m citeproof.models.mirror --check   # exit 1 when they are not current

and ``tests/unit/test_plain_results.py`` fails when they are stale, as it does for the MCP
server's cached schemas.  The declarations are read as source (:mod:`ast`), not imported, so
writing them needs no pydantic either, and keeps each annotation and default as written.

The rules, one per kind of field (what the plain classes always did by hand):

* a ``list[X]`` field takes any sequence and keeps a list of it (``Field(default_factory=list)``:
  empty when not given);
* a field of another mirrored model with a ``default_factory`` takes None for "the default";
* a ``Literal`` of one value with a default (``schema``) is that constant, not a parameter;
* a field whose type names a model that is not mirrored (the retraction report, find-source's
  findings: only the steps after the match fill them in) is always None;
* methods (``ok``) are copied as written; a field's ``alias`` is what :func:`to_json` writes.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = ["MARKER", "MIRRORED", "generated", "module_text", "write"]

_HERE = Path(__file__).resolve().parent
#: The classes mirrored, in the order they are written: (module file, class name).
MIRRORED: Final = (
    ("base.py", "Resolved"),
    ("check.py", "Location"),
    ("check.py", "Match"),
    ("check.py", "WordBoundaries"),
    ("check.py", "DiffOp"),
    ("check.py", "Near"),
    ("check.py", "Fragment"),
    ("check.py", "Refresh"),
    ("check.py", "SourceInfo"),
    ("check.py", "CheckResult"),
)
#: The line after which ``models/plain.py`` is generated; everything above it is written by hand.
MARKER: Final = (
    "# Generated from models/check.py by `python -m citeproof.models.mirror`: do not edit below."
)
_INDENT = "    "


@dataclass(frozen=True, slots=True)
class _Field:
    """One model field, as the plain class takes and keeps it."""

    name: str
    annotation: str
    default: str | None
    """The default as source (None: required); for a constant, its value."""
    kind: str
    """``value``, ``list``, ``optional_list``, ``model`` (a default-made model), ``constant``
    or ``after_match`` (always None)."""
    alias: str | None


def _source(name: str) -> tuple[str, ast.Module]:
    text = (_HERE / name).read_text(encoding="utf-8")
    return text, ast.parse(text)


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node
    raise LookupError(f"no class {name} to mirror")


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _vocabulary(tree: ast.Module) -> set[str]:
    """The names a model module takes from ``models.plain`` (verdicts, coverages: written
    once, by hand, and shared), and ``Literal``: the capitalised names that are not models."""
    names = {"Literal"}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "citeproof.models.plain":
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _declared(value: ast.expr | None) -> tuple[ast.expr | None, bool, str | None]:
    """What a field's right-hand side declares: its default (None: required), whether a
    ``default_factory`` makes it, and its alias; from ``Field(...)`` or a plain value."""
    if not (isinstance(value, ast.Call) and getattr(value.func, "id", None) == "Field"):
        return value, False, None
    alias_node = _keyword(value, "alias")
    alias = None
    if isinstance(alias_node, ast.Constant) and isinstance(alias_node.value, str):
        alias = alias_node.value
    default = _keyword(value, "default") or (value.args[0] if value.args else None)
    return default, _keyword(value, "default_factory") is not None, alias


def _kind(annotation: ast.expr, written: str, has_default: bool, known: set[str]) -> str:
    """Which rule of the module docstring a field follows."""
    named = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
    if any(n[:1].isupper() and n not in known for n in named):
        return "after_match"
    if written.startswith("Literal[") and has_default and "," not in written:
        return "constant"
    if written.startswith("list["):
        return "optional_list" if written.endswith(" | None") else "list"
    return "value"


def _field(text: str, node: ast.AnnAssign, known: set[str]) -> _Field:
    """``node`` as a plain field; ``known`` holds the mirrored classes and the vocabulary."""
    assert isinstance(node.target, ast.Name)
    annotation = ast.get_source_segment(text, node.annotation) or ""
    value, made, alias = _declared(node.value)
    default = ast.get_source_segment(text, value) if value is not None else None
    kind = _kind(node.annotation, annotation, default is not None, known)
    if made and kind == "list":
        default = "()"
    elif made and kind == "value":
        kind, default = "model", "None"
    return _Field(node.target.id, annotation, default, kind, alias)


def _parameter(field: _Field) -> str:
    annotation = field.annotation
    if field.kind in ("list", "optional_list"):  # any sequence given, a list kept
        annotation = "Sequence" + annotation[len("list") :]
    elif field.kind == "model":
        annotation = f"{annotation} | None"
    default = "" if field.default is None else f" = {field.default}"
    return f"{field.name}: {annotation}{default}"


def _assignment(field: _Field) -> str:
    name = field.name
    if field.kind == "list":
        return f"self.{name} = list({name})"
    if field.kind == "optional_list":
        return f"self.{name} = None if {name} is None else list({name})"
    if field.kind == "model":
        return f"self.{name} = {field.annotation}() if {name} is None else {name}"
    if field.kind == "constant":
        return f"self.{name}: {field.annotation} = {field.default}"
    if field.kind == "after_match":
        return f"self.{name}: None = None"
    return f"self.{name} = {name}"


def _docstring(node: ast.ClassDef) -> list[str]:
    first = node.body[0] if node.body else None
    if not (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return []
    lines = ast.get_docstring(node, clean=True) or ""
    body = [f"{_INDENT}{line}" if line else "" for line in lines.splitlines()]
    body[0] = f'{_INDENT}"""{lines.splitlines()[0]}'
    if len(body) == 1:
        return [body[0] + '"""', ""]
    return [*body, f'{_INDENT}"""', ""]


def _methods(text: str, node: ast.ClassDef) -> list[str]:
    lines = text.splitlines()
    out: list[str] = []
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.end_lineno is not None:
            start = min([d.lineno for d in item.decorator_list] + [item.lineno])
            out += ["", *lines[start - 1 : item.end_lineno]]
    return out


def _plain_class(
    text: str, node: ast.ClassDef, known: set[str]
) -> tuple[list[str], dict[str, str]]:
    """The plain class of model ``node``, as lines, and its fields' aliases."""
    fields = [
        _field(text, item, known)
        for item in node.body
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
    ]
    out = [f"class {node.name}(Plain):", *_docstring(node)]
    slots = [f'{_INDENT * 2}"{f.name}",' for f in fields]
    out += [f"{_INDENT}__slots__ = (", *slots, f"{_INDENT})"]
    parameters = [f for f in fields if f.kind not in ("constant", "after_match")]
    out += ["", f"{_INDENT}def __init__(", f"{_INDENT * 2}self,", f"{_INDENT * 2}*,"]
    out += [f"{_INDENT * 2}{_parameter(f)}," for f in parameters]
    out += [f"{_INDENT}) -> None:", *(f"{_INDENT * 2}{_assignment(f)}" for f in fields)]
    out += _methods(text, node)
    aliases = {f.name: f.alias for f in fields if f.alias is not None}
    return out, aliases


def generated() -> str:
    """The generated part of ``models/plain.py``: every mirrored class, and the aliases."""
    mirrored = {name for _, name in MIRRORED}
    classes: list[str] = []
    aliases: dict[str, str] = {}
    for module, name in MIRRORED:
        text, tree = _source(module)
        lines, found = _plain_class(text, _class(tree, name), mirrored | _vocabulary(tree))
        classes += ["", "", *lines]
        aliases.update(found)
    shown = ", ".join(f'"{k}": "{v}"' for k, v in aliases.items())
    head = [
        "",
        "#: Python names that are serialised under another key (pydantic's aliases).",
        f"_ALIASES: dict[str, str] = {{{shown}}}",
    ]
    return "\n".join([*head, *classes]) + "\n"


def module_text() -> str:
    """``models/plain.py`` as it should be: its hand-written part, the marker, the classes."""
    current = (_HERE / "plain.py").read_text(encoding="utf-8")
    hand_written = current.split(MARKER, 1)[0]
    return hand_written + MARKER + "\n" + generated()


def write() -> bool:
    """Rewrite ``models/plain.py`` when its classes are not current; whether it changed."""
    path = _HERE / "plain.py"
    text = module_text()
    if path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


if __name__ == "__main__":
    if "--check" in sys.argv[1:]:
        stale = (_HERE / "plain.py").read_text(encoding="utf-8") != module_text()
        print("models/plain.py is not current" if stale else "models/plain.py is current")
        sys.exit(1 if stale else 0)
    print("models/plain.py rewritten" if write() else "models/plain.py was current")
