"""Markdown, plain text, HTML, JATS and PDF manuscripts (all INVENTED): what each gives the
model, and the piped-text case of issue 24 (a paper's text read as an answer found no list)."""

from __future__ import annotations

import pytest

from citeproof.manuscript import read_manuscript
from manuscript.build import build_pdf_manuscript
from manuscript.works import APA, BIB, VANCOUVER

MARKDOWN = """# Compost, rain and bees in invented gardens

## Introduction

Worms like warm compost [1]. Rain helps [2, 3] and so do bees[^n1].
As the survey put it, “harvested rain keeps the beds moist all summer” [2].
Scare quotes around a “term” are not quotations.

> Pollinators visited the invented rooftop meadows on every sunny morning.
> — [3]

See [the survey](#ref2) and [4](#ref4).

[^n1]: Adeyemi F, Novak L. Pollinator visits to invented rooftop meadows. 2022.

## References

1. {}
2. {}
3. {}
""".format(*VANCOUVER)


def test_markdown_gives_headings_citations_notes_and_quotations() -> None:
    m = read_manuscript(MARKDOWN.encode(), name="paper.md")
    assert m.format == "markdown"
    assert m.title == "Compost, rain and bees in invented gardens"
    assert [e.label for e in m.references] == ["1", "2", "3"]
    assert [(c.kind, c.marker, c.entry_ids) for c in m.citations] == [
        ("numeric", "[1]", ("ref1",)),
        ("numeric", "[2, 3]", ("ref2", "ref3")),
        ("footnote", "[^n1]", ("ref3",)),
        ("numeric", "[2]", ("ref2",)),
        ("numeric", "[3]", ("ref3",)),
        ("key", "[the survey](#ref2)", ()),
        ("numeric", "[4](#ref4)", ()),
    ]
    inline, block = m.quotations
    assert inline.text == "harvested rain keeps the beds moist all summer"
    assert m.citations[inline.citations[0]].marker == "[2]"
    assert block.block and m.citations[block.citations[0]].marker == "[3]"
    assert sorted(p.code for p in m.problems) == ["unlinked_citation", "unlinked_citation"]
    # offsets point into the file as written
    assert all(m.text[c.start : c.end] == c.marker for c in m.citations)


def test_pandoc_citations_resolve_through_the_bib_given() -> None:
    text = "Heat [@halloway2021; see @brennan2020, p. 4]. As @adeyemi2022 saw, bees came.\n"
    m = read_manuscript(text.encode(), name="paper.md", members={"refs.bib": BIB.encode()})
    assert [(c.marker, c.entry_ids) for c in m.citations] == [
        ("[@halloway2021; see @brennan2020, p. 4]", ("halloway2021", "brennan2020")),
        ("@adeyemi2022", ("adeyemi2022",)),
    ]
    assert m.citations[0].items[1].locator == "p. 4"
    assert m.problems == ()


# The shape `citeproof text paper.pdf` prints: one line per printed line, a heading that is
# a line inside a "paragraph", entries numbered 1., continuation lines unmarked.
PIPED_PDF_TEXT = """Received: 11 November 2025 Accepted: 24 February 2026
The invented trial found warm compost helps [1], and rain [2]. Bees too [3,
2] in every garden.
References
1. Halloway W, Okonkwo-Reyes T. Compost temperature and earthworm density in
invented allotments. Invented Journal of Soil Ecology. 2021;4(2):e0101.
2. Brennan A, Mwangi P. Rainwater harvesting for invented urban gardens. Invented
Journal of Urban Water. 2020;7:12-19.
3. Adeyemi F, Novak L. Pollinator visits to invented rooftop meadows. Invented
Urban Ecology. 2022;9(1):33-41.
"""
# The shape `citeproof text article.nxml` prints: labels bare (`1 Name`), blank lines.
PIPED_JATS_TEXT = """The invented trial found warm compost helps [1], and rain [2]–[3].

References

1 {}

2 {}

3 {}

Competing Interests: The authors have declared that no competing interests exist.
""".format(*(v.rsplit(" doi:", 1)[0] for v in VANCOUVER))


@pytest.mark.parametrize("text", [PIPED_PDF_TEXT, PIPED_JATS_TEXT], ids=["pdf-text", "jats-text"])
def test_a_papers_piped_text_has_its_reference_list(text: str) -> None:
    m = read_manuscript(text.encode())
    assert [e.label for e in m.references] == ["1", "2", "3"]
    assert all(c.linked for c in m.citations)
    cited = {e for c in m.citations for e in c.entry_ids}
    assert cited == {"ref1", "ref2", "ref3"}
    assert all(p.code == "not_an_entry" for p in m.problems)


def test_author_year_text_with_an_unnumbered_list() -> None:
    text = (
        "Heat (Halloway & Okonkwo-Reyes, 2021a) and worms (Halloway and Okonkwo-Reyes, "
        "2021b); bees (Adeyemi and Novak, 2022); fungi Sato et al. (2019).\n\n## References\n\n"
        + "\n\n".join(APA)
        + "\n"
    )
    m = read_manuscript(text.encode(), name="p.md")
    assert [c.entry_ids for c in m.citations] == [("ref3",), ("ref4",), ("ref1",), ("ref5",)]
    assert [p.code for p in m.problems] == ["uncited_entry"]


HTML = """<!doctype html><html><head><title>Invented</title></head><body><main>
<h1>Compost in invented gardens</h1>
<p>Worms like warm compost<sup><a href="#ref1">1</a></sup>. Rain helps
(<a href="#ref2">Brennan and Mwangi, 2020</a>).</p>
<blockquote><p>Pollinators visited the invented meadows on every sunny morning [3].</p></blockquote>
<h2>References</h2>
<ol class="references">
<li id="ref1">{}</li><li id="ref2">{}</li><li id="ref3">{}</li>
</ol></main></body></html>""".format(*VANCOUVER)


def test_html_links_and_raised_numbers_name_their_entries() -> None:
    m = read_manuscript(HTML.encode(), name="paper.html")
    assert m.format == "html"
    assert len(m.references) == 3
    assert [(c.kind, c.marker, c.entry_ids) for c in m.citations] == [
        ("superscript", "1", ("ref1",)),
        ("key", "(Brennan and Mwangi, 2020)", ("ref2",)),
        ("numeric", "[3]", ("ref3",)),
    ]
    (quotation,) = m.quotations
    assert quotation.block and m.citations[quotation.citations[0]].marker == "[3]"


JATS = """<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta><title-group>
<article-title>Compost in invented gardens</article-title></title-group></article-meta></front>
<body><sec><title>Introduction</title>
<p>Heat [<xref ref-type="bibr" rid="B1">1</xref>–<xref ref-type="bibr" rid="B3">3</xref>] and
rain (<xref ref-type="bibr" rid="B2">Brennan and Mwangi, 2020</xref>).</p>
<disp-quote><p>Pollinators visited the invented meadows on every sunny morning.</p></disp-quote>
</sec></body><back><ref-list>
<ref id="B1"><label>1</label><mixed-citation>{}</mixed-citation></ref>
<ref id="B2"><label>2</label><mixed-citation>{}</mixed-citation></ref>
<ref id="B3"><label>3</label><mixed-citation>{}</mixed-citation></ref>
</ref-list></back></article>""".format(*VANCOUVER)


def test_jats_xrefs_name_their_refs_and_a_range_names_those_between() -> None:
    m = read_manuscript(JATS.encode())
    assert m.format == "jats"
    assert [e.id for e in m.references] == ["B1", "B2", "B3"]
    assert [(c.marker, c.entry_ids) for c in m.citations] == [
        ("1", ("B1", "B2")),
        ("3", ("B3",)),
        ("Brennan and Mwangi, 2020", ("B2",)),
    ]
    assert [q.block for q in m.quotations] == [True]
    assert m.problems == ()


def test_a_pdf_manuscript_is_read_through_the_pdf_document() -> None:
    blocks = [
        ("title", "Compost in invented gardens"),
        ("heading", "Introduction"),
        (
            "p",
            "Worms like warm compost [1]. The survey said “harvested rain keeps the beds "
            "moist all summer” [2]. Bees [3] too.",
        ),
        ("heading", "References"),
        *(("ref", f"[{n}] {text}") for n, text in enumerate(VANCOUVER, start=1)),
    ]
    m = read_manuscript(build_pdf_manuscript(blocks))  # type: ignore[arg-type]
    assert m.format == "pdf"
    assert [e.label for e in m.references] == ["1", "2", "3"]
    assert [(c.marker, c.entry_ids) for c in m.citations] == [
        ("[1]", ("ref1",)),
        ("[2]", ("ref2",)),
        ("[3]", ("ref3",)),
    ]
    (quotation,) = m.quotations
    assert " ".join(quotation.text.split()) == "harvested rain keeps the beds moist all summer"
    assert m.citations[quotation.citations[0]].marker == "[2]"


def test_raised_numbers_in_a_pdf_are_superscript_citations() -> None:
    import pdfgen

    lines = pdfgen.run(["Worms like warm compost.", pdfgen.Sup("1"), " Rain helps."], y=700)
    lines += pdfgen.column(["References", f"1. {VANCOUVER[0]}"], top=600, gap_before=[0])
    m = read_manuscript(pdfgen.build_pdf([lines]))
    assert [(c.kind, c.entry_ids) for c in m.citations] == [("superscript", ("ref1",))]
