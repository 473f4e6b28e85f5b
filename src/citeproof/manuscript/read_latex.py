"""LaTeX manuscripts: a ``.tex`` file, or a folder or archive's files (``members``).

The text is pylatexenc's (``LatexNodes2Text``): no TeX is parsed by hand.  What pylatexenc
would print for some commands is replaced, through its own macro handlers, by placeholders
(Unicode private-use characters, removed from the input first) that are turned into the
model afterwards:

* ``\\cite`` and its natbib/biblatex variants (:data:`~.latex_context.CITE_MACROS`,
  ``\\cite[p.~3]{a,b}``, starred forms): a ``key`` citation printed ``[a, b]``, one item per
  key, the optional argument (post-note) as the locator; ``\\nocite`` prints nothing but makes
  its keys (``*``: all) part of the list.  ``\\footcite`` puts its citation in a footnote.
* ``\\footnote{…}``: a note mark (its number in superscript digits) calling the note, whose
  text (citations included) follows the body, region ``footnotes``.
* ``\\section`` and the other sectioning commands: headings (``\\part``, ``\\chapter`` and
  ``\\section`` level 1, ``\\subsection`` 2, ``\\subsubsection`` 3, ``\\paragraph`` 4).
* ``quote``, ``quotation`` and ``displayquote`` environments: block quotes.
* ``\\input``/``\\include``/``\\subfile``: the member's text in place (``.tex`` added when
  the name has none; names are relative to the main file's folder), at most
  :data:`MAX_INCLUDE_DEPTH` deep and :data:`MAX_FILES` files; a missing file, a loop or a
  file past a cap is a problem, and reading goes on.
* ``\\maketitle``, ``\\today`` and ``\\date`` print nothing (pylatexenc's own would read the
  clock); ``\\title{…}`` is the title.
* Only the ``document`` environment is read when there is one (the preamble is settings).

The reference list: the compiled ``.bbl`` when one is given (the main file's name with
``.bbl``, else the only ``.bbl``), read by :mod:`.bbl`, its entries completed from the
``.bib`` when it has the key; else a ``thebibliography`` in the source; else the ``.bib``
files the source names (``\\bibliography{a,b}``, ``\\addbibresource{a.bib}``; every ``.bib``
given when it names none), of which only the cited entries are kept.

Bounds: at most :data:`MAX_SOURCE_CHARS` characters of LaTeX are read in all, and a file
whose braces nest deeper than :data:`MAX_BRACE_DEPTH` is not read (pylatexenc recurses per
group); macros are never expanded.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final

from pylatexenc.latex2text import (  # type: ignore[import-untyped]
    EnvironmentTextSpec,
    LatexNodes2Text,
    MacroTextSpec,
    get_default_latex_context_db,
)
from pylatexenc.latexwalker import (  # type: ignore[import-untyped]
    LatexEnvironmentNode,
    LatexMacroNode,
    LatexWalker,
)

from citeproof.documents import decode_text
from citeproof.errors import CiteproofError, DocumentError
from citeproof.manuscript.bbl import read_bbl, read_thebibliography
from citeproof.manuscript.bib_entries import bib_entries, bib_names
from citeproof.manuscript.draft import Draft, NoteCall, RawCitation, RawTarget
from citeproof.manuscript.latex_context import CITE_MACROS, FOOTCITE_MACROS, walker_context
from citeproof.manuscript.structure import ReferenceEntry, Region

__all__ = [
    "MAX_BRACE_DEPTH",
    "MAX_FILES",
    "MAX_INCLUDE_DEPTH",
    "MAX_SOURCE_CHARS",
    "brace_depth",
    "read_latex",
]

MAX_INCLUDE_DEPTH: Final = 8
MAX_FILES: Final = 500
MAX_SOURCE_CHARS: Final = 1_000_000
MAX_BRACE_DEPTH: Final = 100

_CITE = ("\ue000", "\ue001")
_NOTE = ("\ue002", "\ue003")
_HEAD = ("\ue004", "\ue005", "\ue006")
_QUOTE = ("\ue007", "\ue008")
_PRIVATE = re.compile("[\ue000-\ue00f]")
_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001|\ue002(\\d+)\ue003")
_SUPER = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_LEVELS: Final = {
    "part": 1,
    "chapter": 1,
    "section": 1,
    "subsection": 2,
    "subsubsection": 3,
    "paragraph": 4,
    "subparagraph": 5,
}
_QUOTES: Final = ("quote", "quotation", "displayquote")
_CHUNK = re.compile(r"\n[ \t\xa0]*\n\s*")


def brace_depth(source: str) -> int:
    """How deep ``{`` groups nest in ``source`` (escaped braces and comments not counted)."""
    depth = deepest = 0
    escaped = False
    comment = False
    for ch in source:
        if comment:
            comment = ch != "\n"
            continue
        if escaped:
            escaped = False
            continue
        if ch == "\\":
            escaped = True
        elif ch == "%":
            comment = True
        elif ch == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "}":
            depth = max(depth - 1, 0)
    return deepest


@dataclass(slots=True)
class _Cite:
    keys: list[str]
    locator: str | None
    macro: str
    raw: str


@dataclass(slots=True)
class _State:
    members: Mapping[str, bytes]
    root: str
    draft: Draft
    cites: list[_Cite] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    chars: int = 0
    bibs: list[str] = field(default_factory=list)
    nocite_all: bool = False
    nocite: set[str] = field(default_factory=set)
    inline_bibliography: list[ReferenceEntry] = field(default_factory=list)


def read_latex(
    source: str, members: Mapping[str, bytes] | None = None, name: str | None = None
) -> Draft:
    """The draft of a LaTeX manuscript whose main file is ``source`` (module rules)."""
    members = members or {}
    main = name or "main.tex"
    draft = Draft("latex")
    state = _State(members, posixpath.dirname(main), draft)
    state.files.append(main)
    source = _PRIVATE.sub("", source)
    if brace_depth(source) > MAX_BRACE_DEPTH:
        raise DocumentError(
            f"The LaTeX source nests braces more than {MAX_BRACE_DEPTH} deep; citeproof does "
            "not read it (no manuscript needs that)."
        )
    state.chars = len(source)
    if state.chars > MAX_SOURCE_CHARS:
        raise DocumentError(
            f"The LaTeX source is {state.chars:,} characters; citeproof reads at most "
            f"{MAX_SOURCE_CHARS:,}."
        )
    l2t = LatexNodes2Text(latex_context=_text_context(state), math_mode="text")
    state.stack.append(main)
    try:
        nodes = _nodes(source)
        body = _document(nodes)
        title = _title(nodes, l2t)
        text = l2t.nodelist_to_text(body)
    except RecursionError:
        raise DocumentError(
            "The LaTeX source is nested too deeply for citeproof to read."
        ) from None
    draft.title = title
    _build(state, text)
    draft.members = tuple(state.files)
    _references(state, l2t, main)
    return draft


def _nodes(source: str) -> list[Any]:
    walker = LatexWalker(source, latex_context=walker_context(), tolerant_parsing=True)
    return list(walker.get_latex_nodes()[0])


def _document(nodes: list[Any]) -> list[Any]:
    for node in nodes:
        if isinstance(node, LatexEnvironmentNode) and node.environmentname == "document":
            return list(node.nodelist)
    return nodes


def _title(nodes: list[Any], l2t: Any) -> str | None:
    for node in nodes:
        if isinstance(node, LatexMacroNode) and node.macroname == "title" and node.nodeargd:
            args = [a for a in node.nodeargd.argnlist if a is not None]
            if args:
                text = _PRIVATE.sub("", l2t.nodelist_to_text([args[-1]]))
                text = _PLACEHOLDER.sub("", text)
                return " ".join(text.split()) or None
    return None


# --- pylatexenc's handlers --------------------------------------------------------------------


def _text_context(state: _State) -> Any:
    db = get_default_latex_context_db()

    def cite(n: Any, l2tobj: Any) -> str:
        args = n.nodeargd.argnlist if n.nodeargd else []
        keys_arg = args[-1] if args else None
        keys_raw = keys_arg.latex_verbatim().strip("{} \n") if keys_arg is not None else ""
        keys = [k.strip() for k in keys_raw.split(",") if k.strip()]
        optional = [a for a in args[1:-1] if a is not None]
        locator = None
        if optional:
            locator = " ".join(l2tobj.nodelist_to_text([optional[-1]]).split()) or None
        if n.macroname == "nocite":
            state.nocite_all |= "*" in keys
            state.nocite.update(k for k in keys if k != "*")
            return ""
        state.cites.append(_Cite(keys, locator, n.macroname, n.latex_verbatim()[:200]))
        placeholder = f"{_CITE[0]}{len(state.cites) - 1}{_CITE[1]}"
        if n.macroname in FOOTCITE_MACROS:
            return _note(state, placeholder)
        return placeholder

    def footnote(n: Any, l2tobj: Any) -> str:
        args = [a for a in (n.nodeargd.argnlist if n.nodeargd else []) if a is not None]
        return _note(state, l2tobj.nodelist_to_text([args[-1]]) if args else "")

    def heading(n: Any, l2tobj: Any) -> str:
        args = [a for a in (n.nodeargd.argnlist if n.nodeargd else []) if a is not None]
        title = l2tobj.nodelist_to_text([args[-1]]) if args else ""
        level = _LEVELS.get(n.macroname, 1)
        return f"\n\n{_HEAD[0]}{level}{_HEAD[1]}{' '.join(title.split())}{_HEAD[2]}\n\n"

    def quote(n: Any, l2tobj: Any) -> str:
        return f"\n\n{_QUOTE[0]}\n\n{l2tobj.nodelist_to_text(n.nodelist)}\n\n{_QUOTE[1]}\n\n"

    def include(n: Any, l2tobj: Any) -> str:
        args = [a for a in (n.nodeargd.argnlist if n.nodeargd else []) if a is not None]
        target = args[-1].latex_verbatim().strip("{} \n") if args else ""
        text = _include(state, target, l2tobj)
        return f"\n\n{text}\n\n" if n.macroname == "include" else text

    def bibliography(n: Any) -> str:
        args = [a for a in (n.nodeargd.argnlist if n.nodeargd else []) if a is not None]
        names = args[-1].latex_verbatim().strip("{} \n") if args else ""
        for part in names.split(","):
            part = part.strip()
            if part:
                state.bibs.append(part if part.lower().endswith(".bib") else part + ".bib")
        return ""

    def thebibliography(n: Any) -> str:
        state.inline_bibliography = read_thebibliography(n.latex_verbatim(), state.files[0])
        return ""

    macros = [MacroTextSpec(name, simplify_repl=cite) for name in sorted(CITE_MACROS)]
    macros += [MacroTextSpec(name, simplify_repl=cite) for name in sorted(FOOTCITE_MACROS)]
    macros += [MacroTextSpec("footnote", simplify_repl=footnote)]
    macros += [MacroTextSpec(name, simplify_repl=heading) for name in _LEVELS]
    macros += [
        MacroTextSpec(name, simplify_repl=include) for name in ("input", "include", "subfile")
    ]
    macros += [
        MacroTextSpec(name, simplify_repl=bibliography)
        for name in ("bibliography", "addbibresource")
    ]
    macros += [
        MacroTextSpec(name, discard=True)
        for name in (
            "maketitle",
            "today",
            "date",
            "bibliographystyle",
            "printbibliography",
            "label",
            "newblock",
            "thanks",
        )
    ]
    environments = [EnvironmentTextSpec(name, simplify_repl=quote) for name in _QUOTES]
    environments += [EnvironmentTextSpec("thebibliography", simplify_repl=thebibliography)]
    db.add_context_category("citeproof", macros=macros, environments=environments, prepend=True)
    return db


def _note(state: _State, text: str) -> str:
    state.notes.append(text)
    return f"{_NOTE[0]}{len(state.notes)}{_NOTE[1]}"


def _member(state: _State, target: str) -> str | None:
    """The member an ``\\input`` names: as written, with ``.tex``, from the main folder."""
    clean = posixpath.normpath(target.replace("\\", "/")).lstrip("/")
    candidates = [clean, clean + ".tex"]
    if state.root:
        candidates = [
            posixpath.normpath(posixpath.join(state.root, c)) for c in candidates
        ] + candidates
    return next((c for c in candidates if c in state.members), None)


def _include(state: _State, target: str, l2tobj: Any) -> str:
    draft = state.draft
    here = state.stack[-1]
    name = _member(state, target)
    if name is None:
        draft.problem(
            "missing_file", f"{here} reads {target!r}, which is not among the files given.", here
        )
        return ""
    if name in state.stack:
        draft.problem(
            "include_loop",
            f"{here} reads {name}, which is already being read (a loop); it is not read again.",
            here,
        )
        return ""
    if len(state.stack) > MAX_INCLUDE_DEPTH:
        draft.problem(
            "include_depth",
            f"{name} is read more than {MAX_INCLUDE_DEPTH} files deep; citeproof reads no deeper.",
            here,
        )
        return ""
    if len(state.files) >= MAX_FILES:
        draft.problem(
            "too_many_files", f"More than {MAX_FILES} files are read; {name} was not.", here
        )
        return ""
    try:
        source = _PRIVATE.sub("", decode_text(state.members[name], what=name))
    except CiteproofError as exc:
        draft.problem("unreadable_file", str(exc), name)
        return ""
    state.chars += len(source)
    if state.chars > MAX_SOURCE_CHARS:
        draft.problem(
            "too_large",
            f"The LaTeX files pass {MAX_SOURCE_CHARS:,} characters; {name} was not read.",
            here,
        )
        return ""
    if brace_depth(source) > MAX_BRACE_DEPTH:
        draft.problem(
            "too_deep",
            f"{name} nests braces more than {MAX_BRACE_DEPTH} deep; it was not read.",
            name,
        )
        return ""
    state.files.append(name)
    state.stack.append(name)
    try:
        return str(l2tobj.nodelist_to_text(_document(_nodes(source))))
    finally:
        state.stack.pop()


# --- from pylatexenc's text to the draft -----------------------------------------------------


def _build(state: _State, text: str) -> None:
    """Blocks and citations from the text with placeholders (module rules)."""
    draft = state.draft
    in_quote = False
    for chunk in _CHUNK.split(text):
        chunk = chunk.strip()
        if not chunk:
            continue
        if chunk == _QUOTE[0]:
            in_quote = True
            continue
        if chunk == _QUOTE[1]:
            in_quote = False
            continue
        if chunk.startswith(_HEAD[0]) and chunk.endswith(_HEAD[2]):
            level_text, _, title = chunk[1:-1].partition(_HEAD[1])
            _paragraph(state, title, "heading", "body", int(level_text or 1))
            continue
        _paragraph(state, chunk, "quote" if in_quote else "paragraph", "body", 0)
    for n, note in enumerate(state.notes, start=1):
        span = _paragraph(state, note, "footnote", "footnotes", 0, note=str(n))
        if span is not None:
            draft.notes[str(n)] = span


def _paragraph(
    state: _State, chunk: str, kind: str, region: Region, level: int, note: str | None = None
) -> tuple[int, int] | None:
    """One block: placeholders printed, their citations and note calls recorded."""
    parts: list[str] = []
    size = 0
    found: list[tuple[int, int, str, int]] = []
    pos = 0
    flat = " ".join(chunk.split())
    for m in _PLACEHOLDER.finditer(flat):
        parts.append(flat[pos : m.start()])
        size += m.start() - pos
        if m.group(1) is not None:
            cite = state.cites[int(m.group(1))]
            shown = "[" + ", ".join(cite.keys) + "]"
            found.append((size, size + len(shown), "cite", int(m.group(1))))
        else:
            shown = m.group(2).translate(_SUPER)
            found.append((size, size + len(shown), "note", int(m.group(2))))
        parts.append(shown)
        size += len(shown)
        pos = m.end()
    parts.append(flat[pos:])
    text = _PRIVATE.sub("", "".join(parts)).strip()
    if not text:
        return None
    start, end = state.draft.add_block(text, kind, region, level)  # type: ignore[arg-type]
    for s, e, what, index in found:
        if what == "note":
            state.draft.note_calls.append(NoteCall(start + s, start + e, str(index), region))
            continue
        cite = state.cites[index]
        targets = [RawTarget(k, key=k, locator=cite.locator) for k in cite.keys]
        if not targets:
            targets = [RawTarget(cite.raw, reason="The citation names no key.")]
        state.draft.citations.append(
            RawCitation(
                start + s, start + e, "key", targets, raw=cite.raw, region=region, note=note
            )
        )
    return start, end


# --- the reference list ------------------------------------------------------------------------


def _references(state: _State, l2t: Any, main: str) -> None:
    draft = state.draft

    def to_text(value: str) -> str:
        try:
            return " ".join(str(l2t.latex_to_text(value)).split())
        except RecursionError:
            return value

    bbl = _bbl_name(state.members, main)
    bib_files = [n for n in (_bib_member(state, b) for b in state.bibs) if n]
    for wanted in state.bibs:
        if _bib_member(state, wanted) is None:
            draft.problem(
                "missing_file", f"The bibliography {wanted} is not among the files given.", main
            )
    names = bib_files or (bib_names(state.members) if not state.bibs else [])
    bib = bib_entries(state.members, draft, names) if names else []
    by_key = {e.key: e for e in bib if e.key}
    if bbl is not None:
        try:
            printed = read_bbl(decode_text(state.members[bbl], what=bbl), to_text, bbl)
        except (CiteproofError, RecursionError) as exc:
            draft.problem("unreadable_bibliography", f"{bbl}: {exc}", bbl)
            printed = []
        if printed:
            draft.entries.extend(_completed(printed, by_key))
            return
    if state.inline_bibliography:
        draft.entries.extend(replace(e, origin="list") for e in state.inline_bibliography)
        return
    if state.nocite_all or state.nocite:
        bib = [
            replace(e, origin="nocite") if state.nocite_all or e.key in state.nocite else e
            for e in bib
        ]
    draft.entries.extend(bib)


def _completed(
    printed: list[ReferenceEntry], by_key: Mapping[str, ReferenceEntry]
) -> list[ReferenceEntry]:
    """``.bbl`` entries with the ``.bib``'s fields where the key is in both (the printed
    label and text stay the ``.bbl``'s)."""
    out = []
    for e in printed:
        bib = by_key.get(e.key or "")
        if bib is None:
            out.append(e)
            continue
        ref = replace(bib.reference, text=e.reference.text, label=e.label, where=e.where)
        out.append(replace(e, reference=ref))
    return out


def _bbl_name(members: Mapping[str, bytes], main: str) -> str | None:
    own = posixpath.splitext(main)[0] + ".bbl"
    if own in members:
        return own
    bbls = [n for n in members if n.lower().endswith(".bbl")]
    return bbls[0] if len(bbls) == 1 else None


def _bib_member(state: _State, wanted: str) -> str | None:
    """The member a ``\\bibliography`` name stands for: from the main folder, as written,
    or the only member of that base name."""
    clean = posixpath.normpath(wanted.replace("\\", "/")).lstrip("/")
    for candidate in (posixpath.join(state.root, clean), clean):
        if candidate in state.members:
            return candidate
    base = posixpath.basename(clean)
    matches = [n for n in state.members if posixpath.basename(n) == base]
    return matches[0] if len(matches) == 1 else None
