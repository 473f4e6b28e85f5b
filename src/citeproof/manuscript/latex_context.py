"""What pylatexenc must know of LaTeX to read a manuscript: the argument shapes of the
citation commands it does not define (natbib's and biblatex's), and of ``\\bibitem``.

Why: pylatexenc's walker reads a macro's arguments only when its context says how many it
takes; ``\\parencite[p.~3]{key}`` would otherwise leave ``[p.~3]`` and ``{key}`` as text.
The default context already knows ``\\cite``, ``\\citep``, ``\\citet``, ``\\footnote``,
``\\input``, ``\\include`` and the sectioning commands.  User macros stay unknown, and are
never expanded: a ``\\newcommand`` cannot make a small file grow.
"""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from pylatexenc.latexwalker import get_default_latex_context_db  # type: ignore[import-untyped]
from pylatexenc.macrospec import MacroSpec, std_macro  # type: ignore[import-untyped]

__all__ = ["CITE_MACROS", "FOOTCITE_MACROS", "walker_context"]

#: Citation commands, all read as ``\\name*[pre][post]{keys}``.
CITE_MACROS: Final = frozenset(
    "cite cites citep citet citealp citealt citeauthor citeyear citeyearpar citenum "
    "Cite Citep Citet Citealp Citealt Citeauthor parencite Parencite textcite Textcite "
    "autocite Autocite smartcite Smartcite supercite nocite fullcite footfullcite "
    "citetitle citeurl".split()
)
#: Citation commands that put the citation in a footnote.
FOOTCITE_MACROS: Final = frozenset({"footcite", "footcitetext", "Footcite", "smartcite*"})


@cache
def walker_context() -> Any:
    """pylatexenc's default parsing context, with the citation commands' arguments."""
    db = get_default_latex_context_db()
    specs: list[MacroSpec] = [std_macro(name, "*[[{") for name in sorted(CITE_MACROS)]
    specs += [std_macro(name, "*[[{") for name in sorted(FOOTCITE_MACROS) if "*" not in name]
    specs += [
        std_macro("bibitem", "[{"),
        std_macro("subfile", "{"),
        std_macro("addbibresource", "[{"),
        std_macro("bibliography", "{"),
        std_macro("bibliographystyle", "{"),
        std_macro("printbibliography", "["),
        std_macro("newblock", ""),
        std_macro("href", "{{"),
        std_macro("caption", "*[{"),
    ]
    db.add_context_category("citeproof", macros=specs, prepend=True)
    return db
