"""The compiled bibliography of a LaTeX manuscript (``.bbl``): what the paper really prints.

Why the ``.bbl`` first: it is BibTeX's or biber's output, so it holds exactly the entries the
paper cites, in print order, with their printed labels, while a ``.bib`` is a library.

* **thebibliography** (BibTeX, or written by hand in the ``.tex``): each ``\\bibitem[label]{key}``
  starts an entry that runs to the next; its text is the LaTeX turned into text by pylatexenc
  (``\\newblock`` a space) and read by :func:`citeproof.refs.listed.parse_reference_string`.
  The label is the optional argument (natbib's ``Smith et al.(2019)``), else the entry's
  number in the list.
* **biblatex** (biber's ``.bbl``): each ``\\entry{key}{type}{…}`` … ``\\endentry`` gives its
  fields as ``\\field{title}{…}``, ``\\field{journaltitle}{…}``, ``\\field{year}{…}``, names as
  ``\\name{author}{n}{}{…family={Smith}…given={John}…}`` and identifiers as
  ``\\verb{doi} \\verb 10.1000/x \\endverb``.  These lines are machine-written one field a
  line, so they are picked out by pattern; their values are decoded by pylatexenc.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pylatexenc.latex2text import LatexNodes2Text  # type: ignore[import-untyped]
from pylatexenc.latexwalker import (  # type: ignore[import-untyped]
    LatexEnvironmentNode,
    LatexMacroNode,
    LatexWalker,
)

from citeproof.manuscript.latex_context import walker_context
from citeproof.manuscript.structure import ReferenceEntry
from citeproof.refs.listed import from_fields, parse_reference_string

__all__ = ["read_bbl", "read_thebibliography"]

_ENTRY = re.compile(r"\\entry\{([^{}]*)\}\{([^{}]*)\}.*?\\endentry", re.DOTALL)
_FIELD = re.compile(r"\\field\{(\w+)\}\{((?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*)\}")
_VERB = re.compile(r"\\verb\{(\w+)\}\s*\\verb (.*?)\s*\\endverb", re.DOTALL)
_NAMES = re.compile(r"\\name\{author\}\{\d+\}\{[^{}]*\}\{%?(.*?)\n\s*\}", re.DOTALL)
_FAMILY = re.compile(r"family=\{((?:[^{}]|\{[^{}]*\})*)\}")
_GIVEN = re.compile(r"given=\{((?:[^{}]|\{[^{}]*\})*)\}")
_PERSON = re.compile(r"\{\{[^{}]*\}\{(.*?)\}\}%?\s*$", re.MULTILINE)


def read_bbl(text: str, to_text: Callable[[str], str], where: str) -> list[ReferenceEntry]:
    """The entries of a ``.bbl`` (either kind, module rules); ``to_text`` decodes LaTeX."""
    if "\\entry{" in text and "\\endentry" in text:
        return _biblatex(text, to_text, where)
    return read_thebibliography(text, where)


def read_thebibliography(source: str, where: str) -> list[ReferenceEntry]:
    """The ``\\bibitem`` entries of a ``thebibliography`` (module rules)."""
    l2t = LatexNodes2Text(math_mode="text")
    nodes = LatexWalker(source, latex_context=walker_context(), tolerant_parsing=True)
    nodelist = nodes.get_latex_nodes()[0]
    items: list[tuple[str | None, str, list[object]]] = []
    for node in _flatten_environment(nodelist):
        if isinstance(node, LatexMacroNode) and node.macroname == "bibitem":
            args = node.nodeargd.argnlist if node.nodeargd else []
            label = l2t.nodelist_to_text([args[0]]).strip() if args and args[0] else None
            key = args[1].latex_verbatim().strip("{} ") if len(args) > 1 and args[1] else ""
            items.append((label or None, key, []))
        elif items:
            items[-1][2].append(node)
    out: list[ReferenceEntry] = []
    for n, (label, key, body) in enumerate(items, start=1):
        printed = " ".join(l2t.nodelist_to_text(body).split())
        place = f"\\bibitem {n} of {where}"
        ref = parse_reference_string(printed, label=label or str(n), where=place, numbered=False)
        out.append(
            ReferenceEntry(key or f"ref{n}", ref, ref.label, key or None, "bbl", where=place)
        )
    return out


def _flatten_environment(nodelist: list[object]) -> list[object]:
    """The nodes inside a ``thebibliography`` environment (or the list itself)."""
    for node in nodelist:
        if isinstance(node, LatexEnvironmentNode) and node.environmentname == "thebibliography":
            return list(node.nodelist)
    return list(nodelist)


def _biblatex(text: str, to_text: Callable[[str], str], where: str) -> list[ReferenceEntry]:
    out: list[ReferenceEntry] = []
    for n, m in enumerate(_ENTRY.finditer(text), start=1):
        key, kind, body = m.group(1), m.group(2), m.group(0)
        fields = {f.group(1).lower(): to_text(f.group(2)) for f in _FIELD.finditer(body)}
        verbs = {v.group(1).lower(): " ".join(v.group(2).split()) for v in _VERB.finditer(body)}
        authors: list[str] = []
        names = _NAMES.search(body)
        if names is not None:
            for family in _FAMILY.finditer(names.group(1)):
                rest = names.group(1)[family.end() : family.end() + 400]
                given = _GIVEN.search(rest.split("family=", 1)[0])
                name = to_text(family.group(1))
                authors.append(f"{name}, {to_text(given.group(1))}" if given else name)
        year = fields.get("year") or (fields.get("date") or "")[:4]
        place = f"\\entry {n} of {where}"
        ref = from_fields(
            title=fields.get("title"),
            authors=authors,
            year=int(year) if year[:4].isdigit() else None,
            venue=fields.get("journaltitle") or fields.get("booktitle"),
            doi=verbs.get("doi") or fields.get("doi"),
            pmid=fields.get("pmid")
            or (fields.get("eprint") if fields.get("eprinttype") == "pubmed" else None),
            label=key,
            where=place,
            kind=kind,
            urls=[verbs.get("url", "")],
        )
        out.append(ReferenceEntry(key, ref, None, key, "bbl", where=place))
    return out
