"""The JATS and HTML parsers on every real article and page in ../shared/corpus.

The expectations are computed from the XML itself (ids, paragraph texts, how many figures
and references there are), so a new corpus file is checked without writing new numbers.
"""

from __future__ import annotations

import re
import time
from functools import cache
from pathlib import Path

import pytest
from lxml import etree

from citeproof.documents.detect import parse_bytes
from citeproof.documents.model import REGIONS, Block, Document

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
JATS_FILES = [
    *sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("pmc-jats/*.nxml")),
    "europepmc/europepmc-fulltextxml-PMC12585062.xml",
]
WIKIPEDIA = ["html/wikipedia-Duck.html", "html/wikipedia-t-SNE.html"]

# A <p> whose text the parser legitimately renders differently from itertext(): it holds
# blocks of its own, formulas (one of alternatives; TeX without preamble), or line breaks.
_RENDERED_ELSEWHERE = (
    "list def-list disp-quote fig table-wrap boxed-text fn preformat code disp-formula "
    "inline-formula alternatives math tex-math break element-citation mixed-citation "
    "supplementary-material statement graphic"
).split()


@cache
def parsed(name: str) -> Document:
    return parse_bytes((CORPUS / name).read_bytes(), name=name)


@cache
def tree(name: str) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.fromstring((CORPUS / name).read_bytes(), parser)


def words(text: str) -> str:
    return " ".join(text.split())


def local(el: etree._Element) -> str:
    return el.tag.rpartition("}")[2] if isinstance(el.tag, str) else ""


def elements(root: etree._Element, name: str) -> list[etree._Element]:
    return [e for e in root.iter() if local(e) == name]


def block_text(doc: Document, block: Block) -> str:
    return doc.text[block.start : block.end]


def assert_well_formed(doc: Document) -> None:
    previous_end = 0
    for block in doc.blocks:
        assert previous_end <= block.start < block.end <= len(doc.text)
        assert block_text(doc, block).strip()
        assert block.region in REGIONS
        previous_end = block.end
    assert doc.text == "\n\n".join(block_text(doc, b) for b in doc.blocks)
    previous_end = 0
    for a, b in doc.markers:
        assert previous_end <= a < b <= len(doc.text)
        previous_end = b


@pytest.mark.parametrize("name", JATS_FILES)
def test_jats_article(corpus: Path, name: str) -> None:
    doc, root = parsed(name), tree(name)
    assert doc.format == "jats"
    assert_well_formed(doc)
    meta = elements(root, "article-meta")[0]
    ids = {
        a.get("pub-id-type"): "".join(a.itertext()).strip() for a in elements(meta, "article-id")
    }
    assert doc.meta.doi == next(
        "".join(a.itertext()).strip()
        for a in elements(meta, "article-id")
        if a.get("pub-id-type") == "doi"
    )
    assert doc.meta.pmcid == "PMC" + (ids.get("pmcid") or ids["pmc"]).removeprefix("PMC")
    assert doc.meta.pmid == ids["pmid"]
    assert doc.meta.title
    titles = [b for b in doc.blocks if b.region == "title"]
    assert titles and titles[0].kind == "title"
    assert block_text(doc, titles[0]) == doc.meta.title


@pytest.mark.parametrize("name", JATS_FILES)
def test_jats_sections_captions_and_references(corpus: Path, name: str) -> None:
    doc, root = parsed(name), tree(name)
    if any(local(child) == "sec" for child in elements(root, "body")[0]):
        assert any(b.kind == "heading" and b.region == "body" for b in doc.blocks)
    floats = [
        e
        for e in root.iter()
        if local(e) in ("fig", "table-wrap") and any(local(c) in ("label", "caption") for c in e)
    ]
    captions = [b for b in doc.blocks if b.region == "caption"]
    assert len(captions) >= len(floats)
    if floats:
        assert all(b.kind == "caption" for b in captions)
    refs = [b for b in doc.blocks if b.region == "references" and b.kind == "reference"]
    assert len(refs) == len(elements(root, "ref"))
    assert all(len(block_text(doc, b)) > 10 for b in refs)
    assert any(b.region == "abstract" for b in doc.blocks)
    if elements(root, "td"):
        assert any(b.region == "table" and b.kind == "cell" for b in doc.blocks)


@pytest.mark.parametrize("name", JATS_FILES)
def test_every_body_paragraph_occurs_in_the_text_under_its_section(corpus: Path, name: str) -> None:
    doc, root = parsed(name), tree(name)
    text = words(doc.text)
    blocks = [(words(block_text(doc, b)), b) for b in doc.blocks]
    checked = 0
    for p in elements(elements(root, "body")[0], "p"):
        if any(local(d) in _RENDERED_ELSEWHERE for d in p.iter()):
            continue
        expected = words("".join(p.itertext()))
        if not expected:
            continue
        assert expected in text, expected[:200]
        checked += 1
        ancestors = [local(a) for a in p.iterancestors()]
        if not any(a == "sec" for a in ancestors):
            continue
        want = "body"
        if "caption" in ancestors:
            want = "caption"
        elif "fn" in ancestors or "table-wrap-foot" in ancestors:
            want = "footnote"
        elif "td" in ancestors or "th" in ancestors:
            want = "table"
        holders = [b for t, b in blocks if expected in t and b.region == want]
        assert any(b.section for b in holders), (want, expected[:100])
    assert checked > 10


@pytest.mark.parametrize("name", JATS_FILES)
def test_bibliographic_xrefs_are_markers(corpus: Path, name: str) -> None:
    doc, root = parsed(name), tree(name)
    bibr = [x for x in elements(root, "xref") if x.get("ref-type") == "bibr"]
    if bibr:
        assert doc.markers
        marked = [doc.text[a:b] for a, b in doc.markers]
        assert all(m.strip() for m in marked)
        assert not any(re.fullmatch(r"(Fig|Figure|Table)\.? ?\d+", m) for m in marked)


@pytest.mark.parametrize("name", WIKIPEDIA)
def test_wikipedia_page(corpus: Path, name: str) -> None:
    doc = parsed(name)
    assert doc.format == "html"
    assert_well_formed(doc)
    for hidden in ("RLCONF", "document.documentElement", "mw-parser-output", "[edit]"):
        assert hidden not in doc.text
    assert doc.meta.title and doc.meta.title.endswith("Wikipedia")
    title = [b for b in doc.blocks if b.region == "title"]
    assert len(title) == 1 and doc.meta.title.startswith(block_text(doc, title[0]))
    refs = [b for b in doc.blocks if b.region == "references" and b.kind == "reference"]
    assert len(refs) >= 10
    marked = [doc.text[a:b] for a, b in doc.markers]
    body_markers = [
        doc.text[a:b] for a, b in doc.markers if doc.blocks[doc.block_at(a) or 0].region == "body"
    ]
    assert len(body_markers) >= 5
    assert all(re.fullmatch(r"(\[[^\]]+\])+", m) for m in body_markers), marked


def section_of(doc: Document, fragment: str) -> tuple[str, ...]:
    block = next(b for b in doc.blocks if fragment in block_text(doc, b))
    assert block.region == "body"
    return block.section


def test_wikipedia_duck_sections(corpus: Path) -> None:
    doc = parsed("html/wikipedia-Duck.html")
    assert section_of(doc, "Ducks have a cosmopolitan distribution") == (
        "Distribution and habitat",
    )
    assert section_of(doc, "Dabbling ducks feed on the surface") == ("Behaviour", "Feeding")
    assert section_of(doc, "Duck is the common name for numerous species") == ()


def test_wikipedia_tsne_sections_and_hidden_text(corpus: Path) -> None:
    doc = parsed("html/wikipedia-t-SNE.html")
    assert section_of(doc, "The minimization of the Kullback") == ("Details",)
    assert "Technique for dimensionality reduction" not in doc.text  # display:none
    assert "Laurens van der Maaten" in doc.text


@pytest.mark.parametrize("name", JATS_FILES)
def test_jats_parsing_is_fast(corpus: Path, name: str) -> None:
    """The budget is well under 100 ms of CPU for a 100-300 KB article; allow slow runners 3x."""
    data = (corpus / name).read_bytes()
    best = min(_cpu_seconds(data) for _ in range(3))
    assert best < 0.3, f"{name}: {best * 1000:.0f} ms"


def _cpu_seconds(data: bytes) -> float:
    started = time.process_time()
    parse_bytes(data)
    return time.process_time() - started
