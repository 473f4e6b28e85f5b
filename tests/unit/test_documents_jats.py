"""JATS parsing: structure, markers, metadata, and refusing hostile XML."""

from __future__ import annotations

import codecs
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeproof.documents.jats import parse_jats
from citeproof.documents.model import REGIONS, Block, Document
from citeproof.errors import DocumentError, UnsafeXMLError, UnsupportedFormatError

PMC_DOCTYPE = (
    '<!DOCTYPE article PUBLIC "-//NLM//DTD JATS (Z39.96) Journal Archiving and Interchange '
    'DTD v1.0 20120330//EN" "JATS-archivearticle1.dtd">\n'
)

ARTICLE = """<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:mml="http://www.w3.org/1998/Math/MathML"
  article-type="research-article">
<front>
  <journal-meta><journal-title>Journal of Tests</journal-title></journal-meta>
  <article-meta>
    <article-id pub-id-type="pmid">12345</article-id>
    <article-id pub-id-type="pmc">777</article-id>
    <article-id pub-id-type="doi">10.1000/test.1</article-id>
    <title-group><article-title>A  study of <italic>things</italic><xref ref-type="fn"
      rid="fn0">*</xref></article-title></title-group>
    <contrib-group>
      <contrib contrib-type="author"><name><surname>Doe</surname><given-names>Jane</given-names>
      </name><xref ref-type="aff" rid="a1">1</xref></contrib>
      <contrib contrib-type="editor"><name><surname>Ed</surname><given-names>E</given-names>
      </name></contrib>
    </contrib-group>
    <aff id="a1"><label>1</label><institution>Test University</institution><country
      >Utopia</country></aff>
    <permissions>
      <copyright-statement>Copyright 2020 Doe</copyright-statement>
      <license xlink:href="https://creativecommons.org/licenses/by/4.0/">
        <license-p>Open access under CC BY.</license-p></license>
    </permissions>
    <abstract>
      <sec><title>Background</title><p>Why we did it.</p></sec>
      <sec><title>Results</title><p>What we found.</p></sec>
    </abstract>
    <kwd-group><title>Keywords</title><kwd>alpha</kwd><kwd>beta</kwd></kwd-group>
  </article-meta>
</front>
<body>
  <p>Opening paragraph   before any
     section.</p>
  <sec id="s1"><label>1</label><title>Introduction</title>
    <p>Ducks are <bold>birds</bold> [<xref ref-type="bibr" rid="r1">1</xref>,
       <xref ref-type="bibr" rid="r2">2</xref>] as shown in <xref ref-type="fig"
       rid="f1">Figure 1</xref>.</p>
    <sec><label>1.1</label><title>Background detail</title>
      <p>Nested <sup>text</sup> with a tail.</p>
      <list list-type="bullet">
        <list-item><p>First item.</p></list-item>
        <list-item><label>b)</label><p>Second item.</p></list-item>
      </list>
      <disp-quote><p>Quoted words.</p></disp-quote>
    </sec>
    <fig id="f1"><label>Figure 1</label><caption><title>A duck.</title>
      <p>It swims.</p></caption><graphic xlink:href="f1.jpg"/></fig>
    <table-wrap id="t1"><label>Table 1</label><caption><p>Counts.</p></caption>
      <table><thead><tr><th>Species</th><th>n</th></tr></thead>
        <tbody><tr><td>Mallard</td><td>12<xref ref-type="table-fn" rid="tf1">a</xref></td></tr>
        <tr><td></td><td> </td></tr></tbody></table>
      <table-wrap-foot><fn id="tf1"><label>a</label><p>Estimated.</p></fn></table-wrap-foot>
    </table-wrap>
    <p>Energy is <inline-formula><alternatives><mml:math><mml:mi>E</mml:mi><mml:mo>=</mml:mo>
      <mml:mi>m</mml:mi></mml:math><tex-math>\\documentclass{minimal}\\begin{document}$E=m$\\end{document}</tex-math>
      </alternatives></inline-formula> here.</p>
  </sec>
</body>
<back>
  <ack><p>Thanks to all.</p></ack>
  <fn-group><fn id="fn0"><p>Corresponding author.</p></fn></fn-group>
  <ref-list><title>References</title>
    <ref id="r1"><label>1</label><mixed-citation publication-type="journal"><person-group
      person-group-type="author"><name><surname>Smith</surname><given-names>J</given-names></name
      ></person-group>. <article-title>On ducks</article-title>. <source>Nature</source>.
      <year>2001</year>;<volume>1</volume>:<fpage>2</fpage>-<lpage>3</lpage>.</mixed-citation></ref>
    <ref id="r2"><element-citation publication-type="journal"><person-group
      person-group-type="author"><name><surname>Roe</surname><given-names>R</given-names></name>
      <name><surname>Poe</surname><given-names>P</given-names></name><etal/></person-group>
      <article-title>Why ducks quack?</article-title><source>Science</source><year>2010</year>
      <volume>5</volume><issue>2</issue><fpage>10</fpage><lpage>20</lpage>
      <pub-id pub-id-type="doi">10.1/x</pub-id></element-citation></ref>
  </ref-list>
</back>
</article>
"""


def assert_well_formed(doc: Document) -> None:
    previous_end = 0
    for block in doc.blocks:
        assert previous_end <= block.start < block.end <= len(doc.text)
        assert doc.text[block.start : block.end].strip()
        assert block.region in REGIONS
        previous_end = block.end
    for a, b in doc.markers:
        assert 0 <= a < b <= len(doc.text)


def texts(doc: Document, **where: object) -> list[str]:
    return [doc.text[b.start : b.end] for b in select(doc, **where)]


def select(doc: Document, **where: object) -> list[Block]:
    return [b for b in doc.blocks if all(getattr(b, k) == v for k, v in where.items())]


def find(doc: Document, fragment: str) -> Block:
    hits = [b for b in doc.blocks if fragment in doc.text[b.start : b.end]]
    assert hits, f"{fragment!r} not in any block"
    return hits[0]


@pytest.fixture(scope="module")
def doc() -> Document:
    return parse_jats(ARTICLE.encode())


def test_blocks_are_joined_by_blank_lines_and_well_formed(doc: Document) -> None:
    assert_well_formed(doc)
    assert doc.format == "jats"
    assert doc.text == "\n\n".join(doc.text[b.start : b.end] for b in doc.blocks)


def test_metadata(doc: Document) -> None:
    meta = doc.meta
    assert (meta.pmid, meta.pmcid, meta.doi) == ("12345", "PMC777", "10.1000/test.1")
    assert meta.title == "A study of things"
    assert meta.licence == "CC BY 4.0"


def test_title_block(doc: Document) -> None:
    assert texts(doc, region="title") == ["A study of things*"]
    assert select(doc, region="title")[0].kind == "title"


def test_front_matter(doc: Document) -> None:
    assert texts(doc, kind="authors") == ["Jane Doe"]
    assert texts(doc, kind="affiliation") == ["Test University Utopia"]
    assert texts(doc, kind="keywords") == ["Keywords: alpha; beta"]
    assert "Open access under CC BY." in texts(doc, kind="permissions")
    assert {b.region for b in doc.blocks if b.kind in ("authors", "affiliation")} == {
        "front-matter"
    }


def test_structured_abstract_sections(doc: Document) -> None:
    assert find(doc, "Why we did it.").section == ("Abstract", "Background")
    assert find(doc, "What we found.").region == "abstract"
    heading = find(doc, "Results")
    assert (heading.kind, heading.section) == ("heading", ("Abstract", "Results"))


def test_body_sections_headings_and_labels(doc: Document) -> None:
    opening = find(doc, "Opening paragraph")
    assert doc.text[opening.start : opening.end] == "Opening paragraph before any section."
    assert (opening.region, opening.section) == ("body", ())
    intro = find(doc, "1 Introduction")
    assert (intro.kind, intro.section) == ("heading", ("Introduction",))
    nested = find(doc, "Nested text with a tail.")
    assert nested.section == ("Introduction", "Background detail")
    assert texts(doc, kind="heading", region="body") == ["1 Introduction", "1.1 Background detail"]


def test_inline_elements_and_tails_stay_in_their_paragraph(doc: Document) -> None:
    para = find(doc, "Ducks are birds")
    assert doc.text[para.start : para.end] == "Ducks are birds [1, 2] as shown in Figure 1."


def test_bibliographic_xrefs_are_markers_figure_xrefs_are_not(doc: Document) -> None:
    marked = [doc.text[a:b] for a, b in doc.markers]
    assert "[1, 2]" in marked
    assert "a" in marked  # the table footnote reference
    assert not any("Figure" in m for m in marked)


def test_lists_quotes_and_formulas(doc: Document) -> None:
    assert texts(doc, kind="list-item") == ["First item.", "b) Second item."]
    quote = find(doc, "Quoted words.")
    assert (quote.kind, quote.region) == ("quote", "body")
    assert "Energy is E=m here." in texts(doc)


def test_captions_cells_and_table_footnotes(doc: Document) -> None:
    assert texts(doc, region="caption") == ["Figure 1 A duck.\nIt swims.", "Table 1 Counts."]
    assert texts(doc, region="table", kind="cell") == ["Species", "n", "Mallard", "12a"]
    assert find(doc, "Estimated.").region == "footnote"
    assert find(doc, "Figure 1 A duck.").section == ("Introduction",)


def test_cells_carry_their_row(doc: Document) -> None:
    cells = select(doc, region="table", kind="cell")
    rows = [b.row for b in cells]
    assert rows[0] is not None and rows[0] == rows[1]  # Species, n: the header row
    assert rows[2] == rows[3] != rows[0]  # Mallard, 12a: the next row
    assert all(b.row is None for b in doc.blocks if b.kind != "cell")


def test_oasis_table_rows_are_recorded() -> None:
    data = b"""<article><body><sec><title>R</title><table-wrap><label>Table 2</label>
      <oasis:table xmlns:oasis="http://www.niso.org/standards/z39-96/ns/oasis-exchange/table">
      <oasis:tgroup cols="2"><oasis:tbody>
      <oasis:row><oasis:entry>a</oasis:entry><oasis:entry>b</oasis:entry></oasis:row>
      <oasis:row><oasis:entry>c</oasis:entry><oasis:entry>d</oasis:entry></oasis:row>
      </oasis:tbody></oasis:tgroup></oasis:table></table-wrap></sec></body></article>"""
    doc = parse_jats(data)
    cells = {doc.text[b.start : b.end]: b.row for b in doc.blocks if b.kind == "cell"}
    assert set(cells) == {"a", "b", "c", "d"}
    assert cells["a"] == cells["b"] != cells["c"] == cells["d"]


def test_back_matter_footnotes_and_references(doc: Document) -> None:
    ack = find(doc, "Thanks to all.")
    assert (ack.region, ack.section) == ("back-matter", ("Acknowledgements",))
    assert find(doc, "Corresponding author.").region == "footnote"
    assert texts(doc, region="references", kind="heading") == ["References"]
    refs = texts(doc, region="references", kind="reference")
    assert refs == [
        "1 Smith J. On ducks. Nature. 2001;1:2-3.",
        "Roe R, Poe P, et al. Why ducks quack? Science. 2010;5(2):10\u201320. doi: 10.1/x.",
    ]
    assert {b.section for b in select(doc, region="references")} == {("References",)}


def test_pmc_doctype_is_accepted_and_not_loaded() -> None:
    doc = parse_jats((PMC_DOCTYPE + "<article><body><p>Hi.</p></body></article>").encode())
    assert doc.text == "Hi."


def test_pmc_articleset_reads_the_first_article() -> None:
    data = b"<pmc-articleset><article><body><p>One.</p></body></article><article><body><p>Two."
    data += b"</p></body></article></pmc-articleset>"
    assert parse_jats(data).text == "One."


def test_pmcid_already_prefixed_is_kept() -> None:
    data = b'<article><front><article-meta><article-id pub-id-type="pmcid">PMC42</article-id>'
    data += b"</article-meta></front></article>"
    assert parse_jats(data).meta.pmcid == "PMC42"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<article><body><p>&lol9;</p></body></article>"""


@pytest.mark.parametrize(
    "data",
    [
        BILLION_LAUGHS,
        b'<?xml version="1.0"?><!DOCTYPE article [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b"<article><body><p>&x;</p></body></article>",
        b'<!DOCTYPE article [<!ENTITY % p SYSTEM "http://example.invalid/x.dtd"> %p;]><article/>',
        b"<!DOCTYPE article SYSTEM 'a]b' [<!-- ] --><!entity y 'z'>]><article/>",
        codecs.BOM_UTF16_LE
        + '<!DOCTYPE article [<!ENTITY x "y">]><article>&x;</article>'.encode("utf-16-le"),
    ],
    ids=["billion-laughs", "external-entity", "parameter-entity", "tricky-subset", "utf-16"],
)
def test_entity_declarations_are_refused_quickly(data: bytes) -> None:
    started = time.perf_counter()
    with pytest.raises(UnsafeXMLError, match="does not expand entities"):
        parse_jats(data)
    assert time.perf_counter() - started < 1.0


def test_internal_subset_without_entities_is_fine() -> None:
    doc = parse_jats(
        b'<!DOCTYPE article [<!ATTLIST p id CDATA "">]><article><body><p>ok</p></body></article>'
    )
    assert doc.text == "ok"


@pytest.mark.parametrize("doctype", [PMC_DOCTYPE, ""], ids=["pmc-doctype", "no-doctype"])
def test_html_named_entities_are_mapped(doctype: str) -> None:
    data = f"{doctype}<article><body><p>a&nbsp;b&mdash;c &amp; d &lt;</p></body></article>"
    assert parse_jats(data.encode()).text == "a\u00a0b\u2014c & d <"


@pytest.mark.parametrize("doctype", [PMC_DOCTYPE, ""], ids=["pmc-doctype", "no-doctype"])
def test_unknown_entities_fail_clearly(doctype: str) -> None:
    data = f"{doctype}<article><body><p>a &notanentity; b</p></body></article>"
    with pytest.raises(DocumentError, match="&notanentity;"):
        parse_jats(data.encode())


def test_malformed_xml_names_the_line() -> None:
    with pytest.raises(DocumentError, match="line 3"):
        parse_jats(b"<article>\n<body><p>x</p>\n</article>")


def test_other_roots_are_not_jats() -> None:
    with pytest.raises(UnsupportedFormatError, match="PubmedArticleSet"):
        parse_jats(b"<PubmedArticleSet><PubmedArticle/></PubmedArticleSet>")


@pytest.mark.parametrize("data", [b"", b"  \n", b"<article/>", b"<article><body/></article>"])
def test_empty_articles_give_empty_documents(data: bytes) -> None:
    doc = parse_jats(data)
    assert (doc.text, doc.blocks, doc.markers) == ("", [], ())


def test_utf16_with_bom_and_encoding_declaration() -> None:
    xml = '<?xml version="1.0" encoding="UTF-16"?><article><body><p>Caf\u00e9</p></body></article>'
    assert parse_jats(codecs.BOM_UTF16_LE + xml.encode("utf-16-le")).text == "Caf\u00e9"


def test_latin1_declared_encoding_is_honoured() -> None:
    xml = '<?xml version="1.0" encoding="ISO-8859-1"?>'
    xml += "<article><body><p>Caf\u00e9</p></body></article>"
    assert parse_jats(xml.encode("latin-1")).text == "Caf\u00e9"


def test_deep_nesting_does_not_exhaust_the_stack() -> None:
    depth = 250
    data = b"<article><body>" + b"<sec>" * depth + b"<p>deep</p>" + b"</sec>" * depth
    data += b"</body></article>"
    assert parse_jats(data).text.strip() == "deep"


def test_sub_articles_are_back_matter_under_their_title() -> None:
    data = b"""<article><body><p>Main.</p></body>
      <sub-article article-type="reply"><front-stub><title-group>
      <article-title>Author response</article-title></title-group></front-stub>
      <body><p>We agree.</p></body></sub-article></article>"""
    doc = parse_jats(data)
    reply = find(doc, "We agree.")
    assert (reply.region, reply.section) == ("back-matter", ("Author response",))


def test_floats_group_captions_and_mixed_citation_fields_do_not_run_together() -> None:
    data = b"""<article><back><ref-list><ref><mixed-citation><person-group><name>
      <surname>Lee</surname><given-names>K</given-names></name></person-group><year>1999</year>
      <article-title>Title</article-title><source>J</source></mixed-citation></ref></ref-list>
      </back><floats-group><fig><label>Fig 2</label><caption><p>Floating.</p></caption></fig>
      </floats-group></article>"""
    doc = parse_jats(data)
    assert texts(doc, kind="reference") == ["Lee K. Title. J. 1999."]
    assert texts(doc, region="caption") == ["Fig 2 Floating."]


def test_licence_from_text_and_public_domain() -> None:
    text = b"""<article><front><article-meta><permissions><license><license-p>Distributed under
      the Creative Commons Attribution Non-Commercial License 3.0.</license-p></license>
      </permissions></article-meta></front></article>"""
    assert parse_jats(text).meta.licence == "CC BY-NC 3.0"
    cc0 = b"""<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
      <permissions><license xlink:href="https://creativecommons.org/publicdomain/zero/1.0/">
      <license-p>Public domain.</license-p></license></permissions></article-meta></front>
      </article>"""
    assert parse_jats(cc0).meta.licence == "CC0 1.0"


_WORDS = st.lists(st.sampled_from(["alpha", "beta", "1", "[2]", "\u00a0", "x-y"]), max_size=5)


def _inline() -> st.SearchStrategy[str]:
    text = _WORDS.map(" ".join)
    wrapped = st.sampled_from(
        ["<italic>{}</italic>", "<bold>{}</bold>", '<xref ref-type="bibr">{}</xref>', "{}<break/>"]
    )
    return st.recursive(
        text,
        lambda inner: st.builds(
            lambda w, parts: w.format(" ".join(parts)), wrapped, st.lists(inner, max_size=3)
        ),
        max_leaves=8,
    )


def _block() -> st.SearchStrategy[str]:
    para = _inline().map(lambda t: f"<p>{t}</p>")
    return st.recursive(
        para,
        lambda inner: st.one_of(
            st.builds(
                lambda t, kids: f"<sec><title>{t}</title>{''.join(kids)}</sec>",
                _WORDS.map(" ".join),
                st.lists(inner, max_size=3),
            ),
            st.builds(
                lambda kids: f"<list>{''.join(f'<list-item>{k}</list-item>' for k in kids)}</list>",
                st.lists(inner, max_size=3),
            ),
            st.builds(
                lambda t, kids: f"<p>{t}{''.join(kids)}</p>", _inline(), st.lists(inner, max_size=2)
            ),
            st.builds(
                lambda t: f"<fig><label>F</label><caption><p>{t}</p></caption></fig>", _inline()
            ),
        ),
        max_leaves=12,
    )


@settings(deadline=None)
@given(st.lists(_block(), max_size=4))
def test_any_article_gives_well_formed_blocks(blocks: list[str]) -> None:
    doc = parse_jats(f"<article><body>{''.join(blocks)}</body></article>".encode())
    assert_well_formed(doc)
    assert doc.text == "\n\n".join(doc.text[b.start : b.end] for b in doc.blocks)
    for block in doc.blocks:
        text = doc.text[block.start : block.end]
        assert text == text.strip(" \t\n\r") and "  " not in text
        assert all(title for title in block.section)
    for a, b in doc.markers:
        assert doc.block_at(a) == doc.block_at(b - 1)
