"""HTML parsing: visible text only, blocks, sections, regions, markers, decoding."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeproof.documents.html import parse_html
from citeproof.documents.model import REGIONS, Block, Document
from citeproof.errors import DocumentError, EncodingError


def assert_well_formed(doc: Document) -> None:
    previous_end = 0
    for block in doc.blocks:
        assert previous_end <= block.start < block.end <= len(doc.text)
        assert doc.text[block.start : block.end].strip()
        assert block.region in REGIONS
        previous_end = block.end
    for a, b in doc.markers:
        assert 0 <= a < b <= len(doc.text)


def parse(html: str) -> Document:
    doc = parse_html(html.encode())
    assert_well_formed(doc)
    return doc


def texts(doc: Document, **where: object) -> list[str]:
    return [doc.text[b.start : b.end] for b in select(doc, **where)]


def select(doc: Document, **where: object) -> list[Block]:
    return [b for b in doc.blocks if all(getattr(b, k) == v for k, v in where.items())]


def find(doc: Document, fragment: str) -> Block:
    hits = [b for b in doc.blocks if fragment in doc.text[b.start : b.end]]
    assert hits, f"{fragment!r} not in any block"
    return hits[0]


def markers(doc: Document) -> list[str]:
    return [doc.text[a:b] for a, b in doc.markers]


def test_hidden_and_non_text_content_is_dropped() -> None:
    doc = parse(
        """<!doctype html><html><head><title>Page  title</title>
        <style>p { color: red }</style><script>var secret = 1;</script></head>
        <body><p>Visible one.</p>
        <script>document.write("SCRIPT")</script><noscript>NOSCRIPT</noscript>
        <template><p>TEMPLATE</p></template>
        <p hidden>HIDDEN-ATTR</p><div aria-hidden="true">ARIA</div>
        <p style="color: red; display : none">DISPLAY-NONE</p>
        <span style="visibility:hidden">VISIBILITY</span>
        <p>Visible <span style="display:none">INLINE-HIDDEN</span>two.</p>
        </body></html>"""
    )
    assert doc.text == "Visible one.\n\nVisible two."
    assert doc.meta.title == "Page title"


def test_whitespace_collapses_like_a_browser_but_nbsp_and_pre_are_kept() -> None:
    doc = parse(
        "<p>  Many \n\t spaces&nbsp;&nbsp;here <b>bold</b>text </p>"
        "<pre>  code\n    indented</pre><p>line<br>break</p>"
    )
    assert texts(doc) == [
        "Many spaces\u00a0\u00a0here boldtext",
        "code\n    indented",
        "line\nbreak",
    ]
    assert [b.kind for b in doc.blocks] == ["paragraph", "preformatted", "paragraph"]


def test_block_elements_split_text_and_tails_stay_with_their_parent() -> None:
    doc = parse("<div>Intro <p>para</p> tail<ul><li>one</li><li>two <p>more</p></li></ul></div>")
    assert texts(doc) == ["Intro", "para", "tail", "one", "two\nmore"]
    assert [b.kind for b in doc.blocks] == [
        "paragraph",
        "paragraph",
        "paragraph",
        "list-item",
        "list-item",
    ]


def test_headings_give_section_paths_and_the_first_h1_is_the_title() -> None:
    doc = parse(
        "<h1>Page</h1><p>Lead.</p><h2>Methods</h2><p>M.</p><h3>Sub</h3><p>S.</p>"
        "<h2>Results</h2><p>R.</p><h1>Second top</h1><p>T.</p>"
    )
    title = find(doc, "Page")
    assert (title.kind, title.region, title.section) == ("title", "title", ())
    assert find(doc, "Lead.").section == ()
    assert find(doc, "M.").section == ("Methods",)
    assert find(doc, "S.").section == ("Methods", "Sub")
    assert find(doc, "R.").section == ("Results",)
    assert find(doc, "T.").section == ("Second top",)
    sub = find(doc, "Sub")
    assert (sub.kind, sub.section) == ("heading", ("Methods", "Sub"))


def test_reference_sections_and_navigation_regions() -> None:
    doc = parse(
        """<header><p>Site header</p></header><nav><ul><li>Home</li></ul></nav>
        <article><h2>Body</h2><p>Claim.</p>
        <figure><img src="x.png"><figcaption>A figure.</figcaption></figure>
        <table><tr><th>k</th><td>v</td></tr></table>
        <h2>References</h2><ol><li>Smith 2001.</li></ol><p>Note text.</p>
        <h2>See also</h2><ul><li>Other page</li></ul></article>
        <aside>Sidebar</aside><footer>Footer</footer>"""
    )
    region = {doc.text[b.start : b.end]: b.region for b in doc.blocks}
    assert region["Site header"] == region["Home"] == region["Sidebar"] == "other"
    assert region["Footer"] == region["Other page"] == "other"
    assert region["Claim."] == "body"
    assert region["A figure."] == "caption"
    assert region["k"] == region["v"] == "table"
    assert region["Smith 2001."] == region["Note text."] == "references"
    assert find(doc, "Smith 2001.").kind == "reference"
    assert find(doc, "v").kind == "cell"


def test_cells_carry_their_row() -> None:
    doc = parse(
        "<table><thead><tr><th>Group</th><th>n</th></tr></thead>"
        "<tbody><tr><td>A</td><td>1</td></tr><tr><td>B</td><td>2</td></tr></tbody></table>"
        "<p>After.</p>"
    )
    rows = {doc.text[b.start : b.end]: b.row for b in doc.blocks}
    assert rows["Group"] == rows["n"] is not None
    assert rows["A"] == rows["1"] != rows["Group"]
    assert rows["B"] == rows["2"] not in (rows["A"], rows["Group"])
    assert rows["After."] is None


def test_content_outside_main_is_other() -> None:
    doc = parse("<div>Menu</div><main><h1>Title</h1><p>Text.</p></main><div>Legal</div>")
    assert [(t, b.region) for t, b in zip(texts(doc), doc.blocks, strict=True)] == [
        ("Menu", "other"),
        ("Title", "title"),
        ("Text.", "body"),
        ("Legal", "other"),
    ]


def test_reference_list_class_marks_references_without_a_heading() -> None:
    doc = parse('<p>Text.</p><ol class="references"><li>Ref one.</li></ol>')
    ref = find(doc, "Ref one.")
    assert (ref.region, ref.kind) == ("references", "reference")


def test_wikipedia_style_citation_markers() -> None:
    doc = parse(
        '<p>Ducks swim.<sup id="cite_ref-1" class="reference"><a href="#cite_note-1">[1]</a>'
        '</sup><sup class="reference"><a href="#cite_note-2">[2]</a></sup> More.</p>'
    )
    assert doc.text == "Ducks swim.[1][2] More."
    assert markers(doc) == ["[1][2]"]


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ("<p>Shown before<sup>12</sup> here.</p>", ["12"]),
        ("<p>Shown before.<sup>3,4</sup></p>", ["3,4"]),
        ("<p>Shown before<sup>5\u20137</sup></p>", ["5\u20137"]),
        ("<p>An area of 10 m<sup>2</sup> here.</p>", []),
        ("<p>Ten to the 10<sup>5</sup> power.</p>", []),
        ("<p><sup>1</sup> at the start</p>", []),
        ("<p>x <sup>1</sup> after a space</p>", []),
        ("<p>Not a marker<sup>th</sup></p>", []),
        ('<p>See <a href="#ref-12">12</a> and <a href="/wiki/X">X</a>.</p>', ["12"]),
        ('<p>See <a href="#B7">Smith 2001</a>.</p>', ["Smith 2001"]),
        ('<p>Link <a href="#section-2">section</a>.</p>', []),
    ],
)
def test_superscript_and_link_markers(html: str, expected: list[str]) -> None:
    assert markers(parse(html)) == expected


def test_wikipedia_edit_links_are_dropped_from_headings() -> None:
    doc = parse(
        '<h2><span class="mw-headline">History</span><span class="mw-editsection">'
        '<span class="mw-editsection-bracket">[</span><a href="/edit">edit</a>]</span></h2>'
        "<p>Old.</p>"
    )
    assert texts(doc) == ["History", "Old."]
    assert find(doc, "Old.").section == ("History",)


def test_meta_charset_is_honoured() -> None:
    html = '<html><head><meta charset="iso-8859-1"></head><body><p>Caf\u00e9 \u2013 ok</p></body>'
    assert parse_html(html.encode("cp1252")).text == "Caf\u00e9 \u2013 ok"


def test_http_equiv_charset_is_honoured() -> None:
    html = (
        '<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">'
        "<p>\u041f\u0440\u0438\u0432\u0435\u0442</p>"
    )
    assert parse_html(html.encode("cp1251")).text == "\u041f\u0440\u0438\u0432\u0435\u0442"


@pytest.mark.parametrize(
    "data",
    [
        codecs.BOM_UTF8 + "<p>Caf\u00e9</p>".encode(),
        codecs.BOM_UTF16_LE + "<p>Caf\u00e9</p>".encode("utf-16-le"),
        codecs.BOM_UTF16_BE + '<meta charset="iso-8859-1"><p>Caf\u00e9</p>'.encode("utf-16-be"),
    ],
    ids=["utf-8", "utf-16-le", "bom-beats-meta"],
)
def test_byte_order_mark_wins(data: bytes) -> None:
    assert parse_html(data).text == "Caf\u00e9"


def test_undeclared_non_utf8_is_refused() -> None:
    with pytest.raises(EncodingError, match="offset 6"):
        parse_html("<p>Caf\u00e9</p>".encode("latin-1"))


@pytest.mark.parametrize(
    "data", [b"", b"   ", b"<!-- only a comment -->", b"<html><body></body></html>"]
)
def test_empty_pages_give_empty_documents(data: bytes) -> None:
    doc = parse_html(data)
    assert (doc.text, doc.blocks, doc.format) == ("", [], "html")


def test_deep_but_parseable_nesting_does_not_exhaust_the_stack() -> None:
    doc = parse("<div>" * 250 + "deep" + "</div>" * 250)
    assert doc.text == "deep"


def test_nesting_beyond_the_parser_limit_is_an_error_not_an_empty_page() -> None:
    with pytest.raises(DocumentError, match="256"):
        parse_html(("<div>" * 5000 + "deep" + "</div>" * 5000).encode())


def test_licence_from_link_rel() -> None:
    doc = parse(
        '<html><head><link rel="license" href="//creativecommons.org/licenses/by-sa/3.0/">'
        "</head><body><p>Text.</p></body></html>"
    )
    assert doc.meta.licence == "CC BY-SA 3.0"


_WORD = st.text(alphabet=st.sampled_from(list("ab1 \n\t\u00a0[],")), min_size=0, max_size=8)


def _html_tree() -> st.SearchStrategy[str]:
    def wrap(children: st.SearchStrategy[list[str]]) -> st.SearchStrategy[str]:
        tags = st.sampled_from(
            ["p", "div", "span", "b", "h2", "h3", "li", "td", "pre", "sup", "blockquote", "nav"]
        )
        return st.builds(
            lambda tag, kids: f"<{tag}>{''.join(kids)}</{tag}>", tags, children
        ) | st.builds(lambda kids: f'<a href="#cite-1">{"".join(kids)}</a>', children)

    leaves = _WORD.map(lambda w: w.replace("<", "")) | st.sampled_from(
        ["<br>", "<script>SECRET</script>", '<p hidden="">SECRET</p>', "<style>SECRET</style>"]
    )
    return st.recursive(leaves, lambda inner: wrap(st.lists(inner, max_size=4)), max_leaves=25)


@settings(deadline=None)
@given(st.lists(_html_tree(), max_size=5))
def test_any_page_gives_well_formed_blocks_without_hidden_text(parts: list[str]) -> None:
    page = "<body>" + "".join(parts) + "</body>"
    doc = parse_html(page.encode())
    assert_well_formed(doc)
    assert "SECRET" not in doc.text
    for block in doc.blocks:
        text = doc.text[block.start : block.end]
        assert text == text.strip(" \t\n\r\f")
        if "<pre>" not in page:  # everything inside <pre> keeps its whitespace, as in a browser
            assert "  " not in text and "\t" not in text
    for a, b in doc.markers:
        assert doc.block_at(a) == doc.block_at(b - 1), "a marker never spans two blocks"
