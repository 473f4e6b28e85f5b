"""The page ``citeproof demo`` writes says nothing it contradicts about its retracted paper
(issue 21): no "agrees" beside an entry that states no title, no green "References verified"
over a retracted work, no "✓ OK" on the retracted work's chip, the retraction said once.

The demo answers every request from its own invented recordings: no network.
"""

from __future__ import annotations

from typing import Any

import lxml.html
import pytest

from citeproof.demo import run_demo

SOURCES = "pmc, crossref, pubmed, europepmc, retractionwatch"


def text(element: Any) -> str:
    return " ".join(element.text_content().split())


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Any:
    result = run_demo(tmp_path_factory.mktemp("demo") / "demo", say=lambda line: None)
    return lxml.html.document_fromstring(result.page.read_text(encoding="utf-8"))


def test_the_reference_card_of_the_retracted_paper(page: Any) -> None:
    (card,) = page.cssselect("#references article.ref")
    title = card.cssselect("table.cmp tbody tr")[0]
    cells = [text(c) for c in title]
    assert cells[0] == "title" and cells[1] == "none apart from the entry's text"
    assert cells[3] == "1.00" and cells[4].startswith("\u2713 found in the entry's text")
    assert "agrees" not in text(title)
    notice = card.cssselect(".retraction p")[0]
    assert text(notice) == f"The work this entry names has been retracted, according to {SOURCES}."


def test_references_verified_is_red_with_the_retraction_counted(page: Any) -> None:
    (card,) = [c for c in page.cssselect("#cards li.card") if "References verified" in text(c)]
    assert "v-bad" in card.get("class").split() and "v-ok" not in card.get("class").split()
    assert text(card) == "1 of 1 References verified 1 retracted"


def test_the_retracted_papers_chip_says_retracted_not_ok(page: Any) -> None:
    chips = [c for c in page.cssselect("summary.chip") if c.cssselect(".chip-badge")]
    assert [text(c) for c in chips] == ["\u26a0 Retracted pmcid:PMC9900002"]
    assert "v-bad" in chips[0].get("class").split()


def test_where_a_quote_was_found_names_each_place_once(page: Any) -> None:
    """Not "abstract, Abstract (and 1 more place(s))": the region and a section of the same
    name are one place, and one more place is one."""
    wheres = [text(p) for p in page.cssselect("article.detail p.location")]
    assert "Where: abstract (and 1 more place)" in wheres
    assert "Where: abstract, Results" in wheres
    assert not [w for w in wheres if "Abstract" in w or "place(s)" in w]
