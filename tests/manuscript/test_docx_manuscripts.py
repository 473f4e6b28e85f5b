"""Word manuscripts (INVENTED, built by ``tests/manuscript/build.py``): the body, notes,
reference managers' fields in their real shapes, typed lists, and what is reported."""

from __future__ import annotations

import io
import zipfile

import pytest

from citeproof.errors import UnsupportedFormatError
from citeproof.manuscript import read_manuscript
from citeproof.manuscript.read_docx import MAX_FIELD_DEPTH
from manuscript.build import (
    Block,
    DocxBuilder,
    Field,
    Note,
    Sup,
    build_docx,
    h1,
    h2,
    p,
    quote,
)
from manuscript.works import ADEYEMI, APA, BRENNAN, HALLOWAY, VANCOUVER

NUMBERED = [f"[{n}] {text}" for n, text in enumerate(VANCOUVER, start=1)]
MANAGERS = ["zotero", "zotero-simple", "mendeley", "mendeley-v3", "endnote", "endnote-data"]


def _with_fields(manager: str) -> bytes:
    bibliography = {"zotero": "zotero", "endnote": "endnote", "mendeley": "mendeley"}
    return build_docx(
        [
            Block("title", ["Compost, water and bees in INVENTED gardens"]),
            h1("Introduction"),
            p(
                "Worms like warm compost ",
                Field([HALLOWAY], "[1]", manager),  # type: ignore[arg-type]
                ". Gardeners wrote that “harvested rain keeps the beds moist all summer” ",
                Field([BRENNAN, ADEYEMI], "[2, 3]", manager, ["12", None]),  # type: ignore[arg-type]
                ".",
            ),
            h2("Notes"),
            p("A note", Note(["See ", Field([ADEYEMI], "[3]", manager)]), " follows."),  # type: ignore[arg-type]
        ],
        NUMBERED,
        bibliography=bibliography[manager.split("-")[0]],  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("manager", MANAGERS)
def test_each_managers_fields_give_each_citation_its_exact_works(manager: str) -> None:
    m = read_manuscript(_with_fields(manager))
    assert m.format == "docx"
    assert m.title == "Compost, water and bees in INVENTED gardens"
    assert [e.label for e in m.references] == ["1", "2", "3"]
    body = [c for c in m.citations if c.region == "body"]
    assert [(c.kind, c.marker, c.entry_ids) for c in body] == [
        ("field", "[1]", ("ref1",)),
        ("field", "[2, 3]", ("ref2", "ref3")),
        ("footnote", "¹", ("ref3",)),
    ]
    # the field carries the manager's own record of each work, as CSL-JSON
    assert body[1].csl_items[0]["title"] == BRENNAN["title"]
    if manager.startswith(("zotero", "mendeley")):
        assert body[1].items[0].locator == "12"
    note = [c for c in m.citations if c.region == "footnotes"]
    assert [(c.kind, c.entry_ids) for c in note] == [("field", ("ref3",))]
    (quotation,) = m.quotations
    assert quotation.text == "harvested rain keeps the beds moist all summer"
    assert m.citations[quotation.citations[0]].marker == "[2, 3]"
    assert m.problems == ()
    assert [s.title for s in m.sections] == ["Introduction", "Notes", "References"]


def test_fields_without_a_printed_list_make_the_entries() -> None:
    data = build_docx(
        [p("Warm compost ", Field([HALLOWAY], "(Halloway and Okonkwo-Reyes, 2021)"), ".")]
    )
    m = read_manuscript(data)
    (entry,) = m.references
    assert entry.origin == "field" and entry.reference.doi == "10.5555/invented.world.1"
    assert m.citations[0].entry_ids == (entry.id,)
    assert m.problems == ()


def test_a_field_item_missing_from_the_printed_list_is_reported() -> None:
    data = build_docx([p("Rain ", Field([BRENNAN], "[1]"), ".")], NUMBERED[:1])
    m = read_manuscript(data)
    codes = sorted(pr.code for pr in m.problems)
    assert codes == ["cited_not_listed", "uncited_entry"]


def test_a_typed_manuscript_is_read_from_its_text() -> None:
    data = build_docx(
        [
            p("Compost heats [1]; rain helps [2–3] and bees [4]", Sup("1,2"), "."),
            quote("Pollinators visited the invented meadows on every sunny morning [3]."),
            p("Between the two quotations."),
            Block("indented", ["An indented quotation of the invented allotment survey [1]."]),
        ],
        NUMBERED,
    )
    m = read_manuscript(data)
    assert [(c.kind, c.marker, c.entry_ids) for c in m.citations] == [
        ("numeric", "[1]", ("ref1",)),
        ("numeric", "[2–3]", ("ref2", "ref3")),
        ("numeric", "[4]", ()),
        ("superscript", "1,2", ("ref1", "ref2")),
        ("numeric", "[3]", ("ref3",)),
        ("numeric", "[1]", ("ref1",)),
    ]
    unlinked = [pr for pr in m.problems if pr.code == "unlinked_citation"]
    assert len(unlinked) == 1 and "no entry 4" in unlinked[0].message
    blocks = [q for q in m.quotations if q.block]
    assert [m.citations[q.citations[0]].marker for q in blocks] == ["[3]", "[1]"]
    assert blocks[0].text == "Pollinators visited the invented meadows on every sunny morning"


def test_author_year_citations_link_by_name_year_and_letter() -> None:
    data = build_docx(
        [
            p(
                "Compost (Halloway & Okonkwo-Reyes, 2021a; Adeyemi and Novak, 2022) and worms "
                "(Halloway and Okonkwo-Reyes, 2021b). Sato et al. (2019) saw fungi; "
                "(Smith, 2020) is not listed; Winter (2018) is nobody's citation."
            )
        ],
        APA,
    )
    m = read_manuscript(data)
    linked = [(c.marker, c.entry_ids) for c in m.citations]
    assert linked == [
        ("(Halloway & Okonkwo-Reyes, 2021a; Adeyemi and Novak, 2022)", ("ref3", "ref1")),
        ("(Halloway and Okonkwo-Reyes, 2021b)", ("ref4",)),
        ("Sato et al. (2019)", ("ref5",)),
        ("(Smith, 2020)", ()),
    ]
    codes = sorted(pr.code for pr in m.problems)
    assert codes == ["uncited_entry", "unlinked_citation"]


def test_word_numbering_numbers_a_list_typed_without_numbers() -> None:
    builder = DocxBuilder()
    builder.add(p("Compost [2] and rain [1]."))
    builder.add(h1("References"))
    for text in VANCOUVER[:2]:
        builder.add(Block("numbered", [text]))
    m = read_manuscript(builder.save())
    assert [e.label for e in m.references] == ["1", "2"]
    assert [c.entry_ids for c in m.citations] == [("ref2",), ("ref1",)]


def test_deleted_text_is_not_read() -> None:
    builder = DocxBuilder()
    para = builder.doc.add_paragraph("Kept words ")
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    para._p.append(parse_xml(f"<w:del {w}><w:r><w:delText>removed [9]</w:delText></w:r></w:del>"))
    para._p.append(parse_xml(f"<w:ins {w}><w:r><w:t>inserted</w:t></w:r></w:ins>"))
    m = read_manuscript(builder.save())
    assert m.text == "Kept words inserted"
    assert m.citations == ()


def test_an_unreadable_field_is_a_citation_with_a_reason() -> None:
    builder = DocxBuilder()
    para = builder.doc.add_paragraph("See ")
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    for xml in (
        f'<w:r {w}><w:fldChar w:fldCharType="begin"/></w:r>',
        f"<w:r {w}><w:instrText> ADDIN ZOTERO_ITEM CSL_CITATION "
        '{"citationItems": [</w:instrText></w:r>',
        f'<w:r {w}><w:fldChar w:fldCharType="separate"/></w:r>',
        f"<w:r {w}><w:t>[1]</w:t></w:r>",
        f'<w:r {w}><w:fldChar w:fldCharType="end"/></w:r>',
    ):
        para._p.append(parse_xml(xml))
    m = read_manuscript(builder.save())
    (citation,) = m.citations
    assert citation.kind == "field" and not citation.linked
    assert "not valid JSON" in (citation.items[0].reason or "")
    assert {pr.code for pr in m.problems} >= {"unreadable_field", "unlinked_citation"}


def test_a_zip_bomb_is_refused_before_it_is_unpacked() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"<" + b"a" * 50_000_000)
        archive.writestr("[Content_Types].xml", b"<Types/>")
    with pytest.raises(UnsupportedFormatError, match="zip bomb"):
        read_manuscript(buffer.getvalue())


def test_fields_nested_past_the_cap_are_reported_not_followed() -> None:
    builder = DocxBuilder()
    para = builder.doc.add_paragraph("Deep ")
    from docx.oxml import parse_xml

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    for _ in range(MAX_FIELD_DEPTH + 20):
        para._p.append(parse_xml(f'<w:r {w}><w:fldChar w:fldCharType="begin"/></w:r>'))
    m = read_manuscript(builder.save())
    assert any(pr.code == "too_deep" for pr in m.problems)


def test_a_huge_field_is_skipped_with_a_reason() -> None:
    huge = dict(HALLOWAY, note="x" * 2_100_000)
    m = read_manuscript(build_docx([p("Big ", Field([huge], "[1]"), ".")]))
    (citation,) = m.citations
    assert "over 2,000,000 characters" in (citation.items[0].reason or "")
