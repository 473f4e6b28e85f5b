"""Real JATS articles of the shared corpus (``pmc-jats`` in its MANIFEST.tsv): every
``<ref>`` of the ``<ref-list>`` is an entry, and every ``<xref ref-type="bibr">`` becomes a
citation linked to exactly the refs its ``rid`` names.  The truth is read here from the
XML, apart from the reader."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from lxml import etree

from citeproof.manuscript import read_manuscript

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def _articles() -> list[Path]:
    manifest = CORPUS / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    with manifest.open(encoding="utf-8") as handle:
        rows = csv.DictReader(handle, delimiter="\t")
        return [CORPUS / row["path"] for row in rows if row["kind"] == "pmc-jats"]


ARTICLES = _articles()


def _local(el: etree._Element) -> str:
    return etree.QName(el).localname if isinstance(el.tag, str) else ""


@pytest.mark.parametrize("path", ARTICLES or [None], ids=lambda p: p.name if p else "none")
def test_every_ref_is_an_entry_and_every_xref_is_linked(path: Path | None) -> None:
    if path is None:
        pytest.skip("../shared/corpus not found: the JATS manuscript test needs the shared corpus")
    data = path.read_bytes()
    root = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    refs = [
        el
        for el in root.iter()
        if _local(el) == "ref" and any(_local(a) == "ref-list" for a in el.iterancestors())
    ]
    xrefs = [
        el
        for el in root.iter()
        if _local(el) == "xref"
        and el.get("ref-type") == "bibr"
        and not any(_local(a) == "ref" for a in el.iterancestors())
    ]
    m = read_manuscript(data)
    assert len(m.references) == len(refs)
    assert [e.id for e in m.references] == [r.get("id") for r in refs]
    assert len(m.citations) == len(xrefs)
    for citation, xref in zip(m.citations, xrefs, strict=True):
        named = set((xref.get("rid") or "").split())
        assert named <= set(citation.entry_ids), (citation.marker, named)
        assert citation.linked
    assert not [p for p in m.problems if p.code in ("unmatched_marker", "unplaced_xref")]
