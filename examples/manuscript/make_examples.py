"""Rebuild the INVENTED example manuscript in its three forms, from one text.

Nothing here is a real paper: the manuscript, its authors and the works it cites are
invented.  The works and their reference strings are those of ``tests/refs_world.py`` (the
DOIs 10.5555/invented.world.N, also in ``examples/example-references.md``), so the
references can be verified offline against the recorded world::

    citeproof refs examples/manuscript/refs.bib --replay tests/refs/recordings --no-log

Written here:

* ``paper.docx``: Word, each citation a Zotero field (``ADDIN ZOTERO_ITEM CSL_CITATION``)
  carrying its works' CSL-JSON, the reference list a Zotero bibliography field;
* ``paper.tex`` and ``refs.bib``: LaTeX with ``\\cite`` and a BibTeX file;
* ``paper.pdf``: the same text set with pdfium's writer, numbered citations;
* ``sources/``: the invented texts of two cited works, for checking the quotations
  offline.  The manuscript quotes the first exactly and the second altered ("tripled"
  where the source says "doubled").

Run from the repository root: ``python examples/manuscript/make_examples.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from manuscript.build import (  # noqa: E402
    Block,
    DocxBuilder,
    Field,
    build_pdf_manuscript,
    h1,
)
from manuscript.works import ADEYEMI, BRENNAN, HALLOWAY, QUILL  # noqa: E402

TITLE = "Compost, rain and bees in invented allotments (an INVENTED example manuscript)"

# The cited works: (key, printed entry, CSL-JSON item).  Printed entries are the recorded
# world's reference strings; the second carries the wrong DOI on purpose (a mismatch).
WORKS: list[tuple[str, str, dict[str, Any]]] = [
    (
        "halloway2021",
        "Halloway W, Okonkwo-Reyes T. Compost temperature and earthworm density in invented "
        "allotments. Invented Journal of Soil Ecology. 2021;4(2):e0101. "
        "doi:10.5555/invented.world.1",
        HALLOWAY,
    ),
    (
        "brennan2020",
        "Brennan A, Mwangi P. Rainwater harvesting for invented urban gardens. Invented "
        "Journal of Urban Water. 2020;7:12-19. doi:10.5555/invented.world.1",
        BRENNAN,
    ),
    (
        "adeyemi2022",
        "Adeyemi F, Novak L. Pollinator visits to invented rooftop meadows. Invented Urban "
        "Ecology. 2022;9(1):33-41.",
        ADEYEMI,
    ),
    (
        "quill2022",
        "Quill D, Marsh E. Biochar doubles invented tomato yields. Invented Journal of Soil "
        "Ecology. 2022;5:77-85. doi:10.5555/invented.world.7",
        QUILL,
    ),
]

EXACT = "compost held above forty degrees for a week doubled the earthworms counted in spring"
ALTERED = "harvested rainwater tripled the days a bed could go without watering"
SOURCES = {
    "halloway2021.txt": (
        "INVENTED EXAMPLE SOURCE (not a real study): Halloway W, Okonkwo-Reyes T. Compost "
        "temperature and earthworm density in invented allotments. doi:10.5555/invented.world.1\n\n"
        "Across the twelve invented plots, compost held above forty degrees for a week doubled "
        "the earthworms counted in spring, while cooler heaps made no difference.\n"
    ),
    "brennan2020.txt": (
        "INVENTED EXAMPLE SOURCE (not a real study): Brennan A, Mwangi P. Rainwater harvesting "
        "for invented urban gardens. PMID 99930002\n\n"
        "In the invented gardens, harvested rainwater doubled the days a bed could go without "
        "watering, and the tanks paid for themselves within two summers.\n"
    ),
}

# The text: a paragraph is a list of strings and citations (indices into WORKS).
Piece = str | tuple[int, ...]
PARAGRAPHS: list[tuple[str, list[Piece]]] = [
    ("h1", ["Introduction"]),
    (
        "p",
        [
            "Allotment gardeners in the invented town of Fernmoor feed their soil with compost ",
            (0,),
            ", collect rain from their shed roofs ",
            (1,),
            ", and hope for bees ",
            (2,),
            ". This invented study asks whether the three together change what a plot yields.",
        ],
    ),
    ("h1", ["Methods"]),
    (
        "p",
        [
            "Twelve invented plots were followed for two seasons. Compost heat was logged daily, "
            "as in earlier invented work ",
            (0, 2),
            ", and every bed's watering was noted.",
        ],
    ),
    ("h1", ["Results"]),
    (
        "p",
        [
            "Warm compost again mattered: as the first survey put it, \u201c",
            EXACT,
            "\u201d ",
            (0,),
            ". Rain tanks helped too; their authors reported that \u201c",
            ALTERED,
            "\u201d ",
            (1,),
            ".",
        ],
    ),
    ("h1", ["Discussion"]),
    (
        "p",
        [
            "Biochar was tried on two plots only, following a report since retracted ",
            (3,),
            "; no change was seen.",
        ],
    ),
]


def numbered(cited: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(n + 1) for n in cited) + "]"


def make_docx() -> bytes:
    builder = DocxBuilder()
    builder.add(Block("title", [TITLE]))
    for kind, pieces in PARAGRAPHS:
        if kind == "h1":
            builder.add(h1(str(pieces[0])))
            continue
        parts: list[Any] = []
        for piece in pieces:
            if isinstance(piece, str):
                parts.append(piece)
            else:
                parts.append(Field([WORKS[n][2] for n in piece], numbered(piece)))
        builder.add(Block("p", parts))
    builder.add(h1("References"))
    builder.bibliography([f"[{n}] {w[1]}" for n, w in enumerate(WORKS, start=1)], "zotero")
    return builder.save()


def make_latex() -> tuple[str, str]:
    lines = [
        "% INVENTED example manuscript for citeproof (examples/manuscript/make_examples.py)",
        "\\documentclass{article}",
        "\\usepackage[numbers]{natbib}",
        f"\\title{{{TITLE}}}",
        "\\author{An Invented Author}",
        "\\begin{document}",
        "\\maketitle",
    ]
    for kind, pieces in PARAGRAPHS:
        if kind == "h1":
            lines += ["", f"\\section{{{pieces[0]}}}"]
            continue
        text = "".join(
            p if isinstance(p, str) else "\\cite{" + ",".join(WORKS[n][0] for n in p) + "}"
            for p in pieces
        )
        lines += ["", text.replace("\u201c", "``").replace("\u201d", "''")]
    lines += ["", "\\bibliographystyle{unsrtnat}", "\\bibliography{refs}", "\\end{document}", ""]
    bib = ["% INVENTED references (tests/refs_world.py): none is a real publication"]
    for key, printed, item in WORKS:
        authors = " and ".join(f"{a['family']}, {a['given']}" for a in item["author"])
        fields = [
            f"  author  = {{{authors}}}",
            f"  title   = {{{item['title']}}}",
            f"  journal = {{{item['container-title']}}}",
            f"  year    = {{{item['issued']['date-parts'][0][0]}}}",
        ]
        # The .bib states what the printed list states: the printed DOI (the second
        # work's wrong one too), else the item's identifiers.
        doi = printed.rsplit("doi:", 1)[1].rstrip(".") if "doi:" in printed else None
        if doi is not None:
            fields.append(f"  doi     = {{{doi}}}")
        elif "PMID" in item:
            fields.append(f"  pmid    = {{{item['PMID']}}}")
        bib.append(f"@article{{{key},\n" + ",\n".join(fields) + "\n}")
    return "\n".join(lines), "\n\n".join(bib) + "\n"


def make_pdf() -> bytes:
    blocks: list[Any] = [("title", TITLE)]
    for kind, pieces in PARAGRAPHS:
        if kind == "h1":
            blocks.append(("heading", str(pieces[0])))
            continue
        text = "".join(p if isinstance(p, str) else numbered(p) for p in pieces)
        blocks.append(("p", text))
    blocks.append(("heading", "References"))
    blocks += [("ref", f"[{n}] {w[1]}") for n, w in enumerate(WORKS, start=1)]
    return build_pdf_manuscript(blocks)


def main() -> None:
    (HERE / "paper.docx").write_bytes(make_docx())
    tex, bib = make_latex()
    (HERE / "paper.tex").write_text(tex, encoding="utf-8")
    (HERE / "refs.bib").write_text(bib, encoding="utf-8")
    (HERE / "paper.pdf").write_bytes(make_pdf())
    (HERE / "sources").mkdir(exist_ok=True)
    for name, text in SOURCES.items():
        (HERE / "sources" / name).write_text(text, encoding="utf-8")
    print(f"wrote {HERE.relative_to(ROOT)}: paper.docx, paper.tex, refs.bib, paper.pdf, sources/")


if __name__ == "__main__":
    main()
