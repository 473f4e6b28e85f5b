"""LaTeX manuscripts (INVENTED sources): ``\\cite`` variants through the ``.bib`` or the
``.bbl``, ``\\input``/``\\include``, notes, quotations, and the caps."""

from __future__ import annotations

import time

import pytest

from citeproof.errors import DocumentError
from citeproof.manuscript import read_manuscript
from citeproof.manuscript.read_latex import MAX_BRACE_DEPTH, MAX_INCLUDE_DEPTH
from manuscript.works import BIB

MAIN = r"""\documentclass{article}
\usepackage{natbib}
\title{Compost, rain and bees in \emph{invented} gardens}
\date{\today}
\begin{document}
\maketitle
\section{Introduction}
Worms like warm compost \citep{halloway2021}. As \citet[p.~4]{brennan2020} wrote,
``rainwater harvesting keeps every invented bed moist'' \cite{brennan2020}.
\input{sections/methods}
\begin{quote}
Pollinators visited the invented rooftop meadows on every sunny morning \parencite{adeyemi2022}.
\end{quote}
A note\footnote{See \citet{halloway2021} for the compost data.} here, and a cited note%
\footcite{adeyemi2022}. Unknown key \cite{nobody1999}.
\nocite{ashworth2018}
\bibliographystyle{plainnat}
\bibliography{refs}
\end{document}
"""
METHODS = r"""\subsection{Methods}
We measured soil heat \cite{halloway2021,adeyemi2022} and rain \autocite[see][12]{brennan2020}.
"""


def _members(**extra: str) -> dict[str, bytes]:
    files = {"paper.tex": MAIN, "sections/methods.tex": METHODS, "refs.bib": BIB, **extra}
    return {name: text.encode() for name, text in files.items()}


def test_a_latex_folder_is_read_with_its_inputs_and_bibliography() -> None:
    m = read_manuscript(b"", members=_members())
    assert m.format == "latex"
    assert m.title == "Compost, rain and bees in invented gardens"
    assert m.members == ("paper.tex", "sections/methods.tex")
    assert [(s.title, s.level, s.path) for s in m.sections] == [
        ("Introduction", 1, ("Introduction",)),
        ("Methods", 2, ("Introduction", "Methods")),
    ]
    cites = [(c.kind, c.marker, c.entry_ids, c.region) for c in m.citations]
    assert cites == [
        ("key", "[halloway2021]", ("halloway2021",), "body"),
        ("key", "[brennan2020]", ("brennan2020",), "body"),
        ("key", "[brennan2020]", ("brennan2020",), "body"),
        ("key", "[halloway2021, adeyemi2022]", ("halloway2021", "adeyemi2022"), "body"),
        ("key", "[brennan2020]", ("brennan2020",), "body"),
        ("key", "[adeyemi2022]", ("adeyemi2022",), "body"),
        ("footnote", "¹", ("halloway2021",), "body"),
        ("footnote", "²", ("adeyemi2022",), "body"),
        ("key", "[nobody1999]", (), "body"),
        ("key", "[halloway2021]", ("halloway2021",), "footnotes"),
        ("key", "[adeyemi2022]", ("adeyemi2022",), "footnotes"),
    ]
    assert m.citations[1].raw == r"\citet[p.~4]{brennan2020}"
    assert m.citations[1].items[0].locator == "p. 4"
    assert m.citations[4].items[0].locator == "12"
    # the .bib is a library: only the cited entries (and \nocite's) are the paper's list
    assert sorted(e.id for e in m.references) == [
        "adeyemi2022",
        "ashworth2018",
        "brennan2020",
        "halloway2021",
    ]
    assert {e.origin for e in m.references} == {"bib", "nocite"}
    inline, block = m.quotations
    assert inline.text == "rainwater harvesting keeps every invented bed moist"
    assert m.citations[inline.citations[0]].raw == r"\cite{brennan2020}"
    assert block.block and block.text.startswith("Pollinators visited")
    assert m.citations[block.citations[0]].entry_ids == ("adeyemi2022",)
    assert [p.code for p in m.problems] == ["unlinked_citation"]
    assert "nobody1999" in m.problems[0].message


def test_the_compiled_bbl_is_the_printed_list() -> None:
    bbl = r"""\begin{thebibliography}{3}
\bibitem[Halloway and Okonkwo-Reyes(2021)]{halloway2021}
W.~Halloway and T.~Okonkwo-Reyes. \newblock Compost temperature and earthworm density in
invented allotments. \newblock \emph{Invented Journal of Soil Ecology}, 4:\penalty0 e0101, 2021.
\bibitem{brennan2020} Brennan A, Mwangi P. Rainwater harvesting for invented urban gardens.
Invented Journal of Urban Water. 2020;7:12-19.
\bibitem{adeyemi2022} Adeyemi F, Novak L. Pollinator visits. Invented Urban Ecology. 2022.
\end{thebibliography}
"""
    m = read_manuscript(b"", members=_members(**{"paper.bbl": bbl}))
    assert [(e.id, e.label, e.origin) for e in m.references] == [
        ("halloway2021", "Halloway and Okonkwo-Reyes(2021)", "bbl"),
        ("brennan2020", "2", "bbl"),
        ("adeyemi2022", "3", "bbl"),
    ]
    # completed from the .bib where the key is in both
    assert m.references[0].reference.doi == "10.5555/invented.world.1"
    assert "Compost temperature" in m.references[0].reference.text


def test_a_biblatex_bbl_is_read() -> None:
    bbl = r"""\refsection{0}
  \datalist[entry]{nty/global//global/global}
    \entry{halloway2021}{article}{}
      \name{author}{2}{}{%
        {{hash=1}{%
           family={Halloway},
           familyi={H\bibinitperiod},
           given={Wren},
           giveni={W\bibinitperiod}}}%
        {{hash=2}{%
           family={Okonkwo-Reyes},
           given={Tamsin}}}%
      }
      \field{title}{Compost temperature and earthworm density in invented allotments}
      \field{journaltitle}{Invented Journal of Soil Ecology}
      \field{year}{2021}
      \verb{doi}
      \verb 10.5555/invented.world.1
      \endverb
    \endentry
  \enddatalist
\endrefsection
"""
    main = "\\documentclass{article}\\begin{document}Heat \\parencite{halloway2021}.\\end{document}"
    m = read_manuscript(b"", members={"main.tex": main.encode(), "main.bbl": bbl.encode()})
    (entry,) = m.references
    assert entry.reference.authors == ("Halloway, Wren", "Okonkwo-Reyes, Tamsin")
    assert entry.reference.doi == "10.5555/invented.world.1" and entry.reference.year == 2021
    assert m.citations[0].entry_ids == ("halloway2021",)


def test_a_thebibliography_in_the_source_is_the_list() -> None:
    source = r"""\documentclass{article}\begin{document}
Heat \cite{a}; rain \cite{b}.
\begin{thebibliography}{9}
\bibitem{a} Halloway W. Compost temperature in invented allotments. Invented J. 2021.
\bibitem{b} Brennan A. Rainwater in invented gardens. Invented J. 2020.
\bibitem{c} Never cited W. Nothing. Invented J. 2001.
\end{thebibliography}
\end{document}"""
    m = read_manuscript(source.encode(), name="paper.tex")
    assert [e.id for e in m.references] == ["a", "b", "c"]
    assert [pr.code for pr in m.problems] == ["uncited_entry"]


def test_missing_inputs_and_loops_are_reported_and_reading_goes_on() -> None:
    main = r"""\documentclass{article}\begin{document}
Start. \input{loop} \input{missing} End.
\end{document}"""
    members = {"main.tex": main.encode(), "loop.tex": rb"Loop text \input{loop}"}
    m = read_manuscript(b"", members=members)
    assert "Start. Loop text End." in " ".join(m.text.split())
    assert sorted(p.code for p in m.problems) == ["include_loop", "missing_file"]


def test_includes_deeper_than_the_cap_are_not_read() -> None:
    members = {
        f"f{n}.tex": f"level {n} \\input{{f{n + 1}}}".encode() for n in range(MAX_INCLUDE_DEPTH + 5)
    }
    members["main.tex"] = rb"\documentclass{article}\begin{document}\input{f0}\end{document}"
    m = read_manuscript(b"", members=members)
    assert any(p.code == "include_depth" for p in m.problems)
    assert f"level {MAX_INCLUDE_DEPTH + 2}" not in m.text


def test_a_source_nested_too_deep_is_refused_quickly() -> None:
    deep = "{" * 100_000 + "x" + "}" * 100_000
    start = time.perf_counter()
    with pytest.raises(DocumentError, match=str(MAX_BRACE_DEPTH)):
        read_manuscript(deep.encode(), name="deep.tex")
    assert time.perf_counter() - start < 5


def test_maketitle_and_today_print_nothing() -> None:
    source = (
        r"\documentclass{article}\title{T}\begin{document}\maketitle Text \today.\end{document}"
    )
    m = read_manuscript(source.encode(), name="t.tex")
    assert m.text == "Text ."


def test_private_use_characters_in_the_source_cannot_forge_a_citation() -> None:
    source = "\\documentclass{article}\\begin{document}Text \ue0000\ue001 here.\\end{document}"
    m = read_manuscript(source.encode(), name="t.tex")
    assert m.citations == () and m.text == "Text 0 here."
