"""The manuscript page (``citeproof manuscript --html``): problems first, then what was not
checked (neutrally), then what matched.

The report is invented, one of each thing a manuscript can hold (a misquote, a quotation
found, one that could not be checked, one without a citation; a verified entry, a wrong
work, a retracted work, an entry a database could not answer, one never cited; a citation
naming no entry), validated against the published model so the page is pinned to the
contract; the HTML is read back with lxml.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from citeproof.models.manuscript import ManuscriptReport
from citeproof.report import render_manuscript_html, write_manuscript_html
from citeproof.report.page import (
    GENERATOR_TAG,
    MANUSCRIPT_TAG,
    REFERENCES_CSP,
    is_audit_page,
    is_manuscript_page,
    is_references_page,
    render_audit_html,
    render_references_html,
)

WHEN = "2026-01-02T03:04:05Z"
HOSTILE = "<script>alert('x')</script><img src=x onerror=alert(1)>"


def _stated(text: str, **more: Any) -> dict[str, Any]:
    return {"text": text, **more}


def _work(n: int, title: str, **more: Any) -> dict[str, Any]:
    return {
        "source": "crossref",
        "identifier": f"doi:10.5555/invented.{n}",
        "doi": f"10.5555/invented.{n}",
        "title": title,
        "authors": ["Halloway, Wren"],
        "year": 2021,
        "venue": "Invented Journal",
        **more,
    }


def _result(index: int, verdict: str, reason: str, **more: Any) -> dict[str, Any]:
    text = more.pop("text", f"Entry {index}. Invented Journal. 2021.")
    return {
        "index": index,
        "verdict": verdict,
        "reason": reason,
        "stated": _stated(text, label=str(index), where=f"entry {index}"),
        **more,
    }


def _entry(n: int, result: dict[str, Any] | None, cited_by: list[int]) -> dict[str, Any]:
    text = result["stated"]["text"] if result else f"Entry {n}."
    return {
        "id": f"ref{n}",
        "label": str(n),
        "origin": "list",
        "where": f"entry {n}",
        "text": text,
        "cited_by": cited_by,
        "result": result,
    }


def _source(name: str) -> dict[str, Any]:
    return {
        "input": f"sources/{name}",
        "kind": "text",
        "served_by": "file",
        "coverage": "file",
        "sha256": "ab" * 32,
    }


def _check(verdict: str, quote: str, **more: Any) -> dict[str, Any]:
    return {"schema": "citeproof.check/1", "verdict": verdict, "quote": quote, **more}


MISQUOTE = "the treatment increased the yield of every plot"
FOUND = "compost held above forty degrees for a week"


def _citation(index: int, marker: str, section: str, entry_ids: list[str], **more: Any) -> Any:
    return {
        "index": index,
        "marker": marker,
        "kind": "numeric",
        "start": 10 * index,
        "end": 10 * index + len(marker),
        "section": [section],
        "region": "body",
        "entry_ids": entry_ids,
        **more,
    }


def report_data(**changes: Any) -> dict[str, Any]:
    """The invented report, as ``citeproof manuscript --json`` prints it."""
    references = [
        _entry(
            1,
            _result(1, "verified", "The entry matches the record.", work=_work(1, "Compost")),
            [0, 4],
        ),
        _entry(
            2,
            _result(
                2,
                "mismatch",
                "doi:10.5555/invented.1 is another work: its title differs. This is a lead to "
                "check by hand, not a finding.",
                work=_work(1, "Compost temperature and earthworms"),
                comparisons=[
                    {
                        "field": "title",
                        "stated": "Rainwater harvesting for gardens",
                        "record": "Compost temperature and earthworms",
                        "score": 0.31,
                        "agreement": "differs",
                        "threshold": "same title at >= 0.90",
                    }
                ],
                suggested=_work(2, "Rainwater harvesting for gardens"),
            ),
            [1],
        ),
        _entry(
            3,
            _result(
                3,
                "verified",
                "The entry matches the record.",
                work=_work(
                    3,
                    "Biochar doubles invented tomato yields",
                    retraction="RETRACTED",
                    retraction_reason="retracted according to crossref.",
                ),
                retracted=True,
            ),
            [2],
        ),
        _entry(
            4,
            _result(
                4,
                "unavailable",
                "crossref, pubmed, openalex could not be read; nothing was concluded.",
            ),
            [3],
        ),
        _entry(
            5, _result(5, "verified", "The entry matches the record.", work=_work(5, "Bees")), []
        ),
    ]
    misquote_check = _check(
        "NOT_FOUND",
        MISQUOTE,
        near={
            "similarity": 0.83,
            "start": 0,
            "end": 48,
            "text": "the treatment decreased the yield of every plot",
            "diff": [
                {"op": "equal", "quote": "the treatment", "source": "the treatment"},
                {"op": "replace", "quote": "increased", "source": "decreased"},
                {
                    "op": "equal",
                    "quote": "the yield of every plot",
                    "source": "the yield of every plot",
                },
            ],
            "flags": ["antonym"],
        },
        source=_source("halloway.pdf"),
    )
    found_check = _check(
        "EXACT",
        FOUND,
        matches=[
            {
                "start": 4,
                "end": 4 + len(FOUND),
                "normalized_start": 4,
                "normalized_end": 4 + len(FOUND),
                "text": FOUND,
                "location": {"block": 2, "section": ["Results"], "region": "body"},
            }
        ],
        count=1,
        source=_source("halloway.pdf"),
    )
    unavailable_check = _check(
        "UNAVAILABLE",
        "bees visited the meadow twice as often",
        reason="no text of doi:10.5555/invented.4 could be read: the services did not answer",
        source={"input": "doi:10.5555/invented.4", "kind": "none", "coverage": "none"},
    )
    copy = {"entry_id": "ref1", "kind": "file", "file": "halloway.pdf", "matched_by": "doi"}
    quotations = [
        {
            "index": 0,
            "text": MISQUOTE,
            "start": 100,
            "end": 148,
            "block": False,
            "section": ["Results"],
            "region": "body",
            "citations": [0],
            "entry_ids": ["ref1"],
            "verdict": "NOT_FOUND",
            "finding": "misquote",
            "reason": "your copy halloway.pdf says it otherwise: 'increased' where the source "
            "has 'decreased'.",
            "against": copy,
            "check": misquote_check,
        },
        {
            "index": 1,
            "text": FOUND,
            "start": 200,
            "end": 243,
            "block": False,
            "section": ["Results"],
            "region": "body",
            "citations": [4],
            "entry_ids": ["ref1"],
            "verdict": "EXACT",
            "finding": "ok",
            "against": copy,
            "check": found_check,
        },
        {
            "index": 2,
            "text": "bees visited the meadow twice as often",
            "start": 300,
            "end": 338,
            "block": False,
            "section": ["Discussion"],
            "region": "body",
            "citations": [3],
            "entry_ids": ["ref4"],
            "verdict": "UNAVAILABLE",
            "finding": "unchecked",
            "reason": "no text of doi:10.5555/invented.4 could be read: the services did not "
            "answer",
            "against": {
                "entry_id": "ref4",
                "kind": "work",
                "identifier": "doi:10.5555/invented.4",
                "basis": "stated",
            },
            "check": unavailable_check,
        },
        {
            "index": 3,
            "text": "worms are the farmer's best friend",
            "start": 400,
            "end": 434,
            "block": False,
            "section": ["Discussion"],
            "region": "body",
            "verdict": "NOT_CHECKABLE",
            "finding": "unattributed",
            "reason": "the quotation carries no citation",
        },
    ]
    data: dict[str, Any] = {
        "schema": "citeproof.manuscript/1",
        "verdict": "fail",
        "manuscript": {
            "name": "paper.docx",
            "format": "docx",
            "sha256": "cd" * 32,
            "title": "An invented manuscript",
            "characters": 5000,
        },
        "counts": {
            "references": 5,
            "references_verified": 5,
            "by_reference_verdict": {"verified": 3, "mismatch": 1, "unavailable": 1},
            "citations": 6,
            "unlinked": 1,
            "uncited": 1,
            "quotations": 4,
            "quotations_checked": 3,
            "by_quotation_verdict": {"NOT_FOUND": 1, "EXACT": 1, "UNAVAILABLE": 1},
            "by_finding": {"misquote": 1, "ok": 1, "unchecked": 1, "unattributed": 1},
            "retracted": 1,
            "problems": 1,
        },
        "quotations": quotations,
        "references": references,
        "unlinked": [
            {
                "citation": 5,
                "marker": "[9]",
                "target": "9",
                "reason": "no entry 9",
                "section": ["Methods"],
            }
        ],
        "uncited": ["ref5"],
        "retracted": [
            {
                "entry_id": "ref3",
                "identifier": "doi:10.5555/invented.3",
                "status": "RETRACTED",
                "reason": "retracted according to crossref.",
                "cited_by": [2],
                "acknowledged": False,
            }
        ],
        "citations": [
            _citation(0, "[1]", "Results", ["ref1"]),
            _citation(1, "[2]", "Introduction", ["ref2"]),
            _citation(2, "[3]", "Methods", ["ref3"]),
            _citation(3, "[4]", "Discussion", ["ref4"]),
            _citation(4, "[1]", "Results", ["ref1"]),
            _citation(5, "[9]", "Methods", [], unlinked=["9"]),
        ],
        "problems": [{"code": "not_an_entry", "message": "a running head inside the list"}],
        "sources": [
            {
                "file": "halloway.pdf",
                "sha256": "ab" * 32,
                "entry_ids": ["ref1"],
                "matched_by": "doi",
            },
            {"file": "notes.txt", "reason": "names no work of the reference list"},
        ],
        "fail_on": ["misquote", "unresolvable", "mismatch", "not_found", "partial", "retracted"],
        "created_at": WHEN,
        "generator": "citeproof 0.0.0",
    }
    data.update(changes)
    return data


def report() -> ManuscriptReport:
    return ManuscriptReport.model_validate(report_data())


def page(data: Any = None, **kw: Any) -> Any:
    html = render_manuscript_html(report() if data is None else data, **kw)
    return lxml.html.fromstring(html)


def _text(el: Any) -> str:
    return " ".join(" ".join(el.itertext()).split())


def test_the_invented_report_is_a_manuscript_report() -> None:
    assert report().verdict == "fail"


def test_problems_come_first_then_what_was_not_checked_then_what_matched() -> None:
    html = render_manuscript_html(report())
    order = [
        'id="problems"',
        'id="g-quotations-differ"',
        'id="g-references-check"',
        'id="g-retracted"',
        'id="g-unlinked"',
        'id="g-uncited"',
        'id="g-unattributed"',
        'id="unchecked"',
        'id="g-quotations-unchecked"',
        'id="g-references-unchecked"',
        'id="g-copies-unmatched"',
        'id="g-reading"',
        'id="matched"',
        'id="g-quotations-found"',
        'id="g-references-matched"',
        'id="g-copies-matched"',
    ]
    assert 'id="g-retracted-stated"' not in html
    places = [html.index(marker) for marker in order]
    assert places == sorted(places)
    doc = lxml.html.fromstring(html)
    checked = doc.get_element_by_id("g-references-check")
    assert [a.get("data-verdict") for a in checked.cssselect("article.ref")] == [
        "mismatch",
        "verified",  # verified, but the work is retracted: a lead all the same
    ]
    matched = doc.get_element_by_id("g-references-matched")
    assert [a.get("id") for a in matched.cssselect("article.ref")] == ["ref-0", "ref-4"]


def test_a_misquote_shows_both_words_and_why() -> None:
    doc = page()
    card = doc.get_element_by_id("q-0")
    assert card.getparent().get("id") == "g-quotations-differ"
    assert "v-bad" in card.get("class") and card.get("data-finding") == "misquote"
    assert "Misquote" in _text(card.cssselect(".q-finding")[0])
    assert [_text(d) for d in card.cssselect(".diff del")] == ["decreased"]
    assert [_text(i) for i in card.cssselect(".diff ins")] == ["increased"]
    # read or copied as text, the replaced word and its replacement stay two words
    assert card.cssselect(".diff")[0].text_content() == (
        "the treatment decreased increased the yield of every plot"
    )
    assert "antonym" in _text(card)
    assert "'increased' where the source has 'decreased'" in _text(card)
    assert "your copy halloway.pdf (matched by its DOI)" in _text(card)
    # what it cites links to that entry's card
    (link,) = card.cssselect("dd a")
    assert link.get("href") == "#ref-0" and _text(link) == "Reference 1"
    # the diff is shown; the passage and the source's record are folded under it
    (folded,) = card.cssselect("details.evidence")
    assert "decreased the yield" in _text(folded) and "sources/halloway.pdf" in _text(folded)
    assert not card.cssselect(".diff")[0].xpath("ancestor::details")


def test_a_retracted_work_cited_is_a_problem() -> None:
    doc = page()
    (item,) = doc.get_element_by_id("g-retracted").cssselect("li")
    assert "v-bad-item" in item.get("class")
    said = _text(item)
    assert "Retracted" in said and "doi:10.5555/invented.3" in said
    assert "The cited work has been retracted, according to crossref." in said
    assert "Cited as [3]" in said and "says so" not in said
    card = doc.get_element_by_id("ref-2")
    assert card.xpath("ancestor::section[@id='problems']")
    assert _text(card.cssselect(".ref-retracted")[0]) == "\u26a0 Retracted"
    assert "1 retracted work cited" in _text(doc.get_element_by_id("verdict-counts"))


def test_a_retraction_the_manuscript_states_is_listed_neutrally() -> None:
    data = report_data()
    data["retracted"][0]["acknowledged"] = True
    doc = page(data)
    assert "g-retracted" not in doc.get_element_by_id("problems").xpath(".//@id")
    (item,) = doc.get_element_by_id("g-retracted-stated").cssselect("li")
    assert item.xpath("ancestor::section[@id='matched']")
    assert "v-gone-item" in item.get("class") and "says so where it cites it" in _text(item)
    card = doc.get_element_by_id("ref-2")
    assert card.xpath("ancestor::section[@id='matched']")
    assert "The manuscript says the work is retracted where it cites it." in _text(card)
    assert "retracted" not in _text(doc.get_element_by_id("verdict-counts"))


def test_what_could_not_be_checked_accuses_nothing() -> None:
    doc = page()
    unchecked = doc.get_element_by_id("unchecked")
    quotation = doc.get_element_by_id("q-2")
    assert quotation.xpath("ancestor::section[@id='unchecked']")
    assert "v-gone" in quotation.get("class") and "problem" not in quotation.get("class")
    assert _text(quotation.cssselect(".q-finding")[0]) == "? Not checked"
    assert "Looked for in" in _text(quotation) and "Checked against" not in _text(quotation)
    reference = doc.get_element_by_id("ref-3")
    assert reference.xpath("ancestor::section[@id='unchecked']")
    assert reference.get("data-verdict") == "unavailable" and "v-gone" in reference.get("class")
    # nothing in the part is styled or worded as a failure
    assert not unchecked.cssselect(".v-bad, .v-near")
    words = _text(unchecked).lower()
    for accusation in ("misquote", "fabricat", "not found", "wrong work", "fail"):
        assert accusation not in words, accusation
    assert "says nothing against the manuscript" in words
    counts = _text(doc.get_element_by_id("verdict-counts"))
    assert "1 quotation not checked" in counts and "1 reference not checked" in counts


def test_the_lists_faults_are_listed() -> None:
    doc = page()
    (row,) = doc.get_element_by_id("g-unlinked").cssselect("tbody tr")
    assert [_text(cell) for cell in row] == ["[9]", "9", "Methods (body)", "no entry 9"]
    (uncited,) = doc.get_element_by_id("g-uncited").cssselect("li")
    assert uncited.cssselect("a")[0].get("href") == "#ref-4" and "Entry 5." in _text(uncited)
    (unattributed,) = doc.get_element_by_id("g-unattributed").cssselect("article")
    assert "worms are the farmer" in _text(unattributed)
    assert "No citation" in _text(unattributed) and "Cites nothing" in _text(unattributed)
    reading = _text(doc.get_element_by_id("g-reading"))
    assert "not_an_entry: a running head inside the list" in reading
    assert "notes.txt: names no work of the reference list" in _text(
        doc.get_element_by_id("g-copies-unmatched")
    )
    assert "halloway.pdf: Reference 1, matched by its DOI" in _text(
        doc.get_element_by_id("g-copies-matched")
    )


def test_each_card_says_who_cites_it() -> None:
    doc = page()
    first = _text(doc.get_element_by_id("ref-0"))
    assert "Cited 2 times in the manuscript: [1] in Results; [1] in Results." in first
    assert "Never cited in the manuscript." in _text(doc.get_element_by_id("ref-4"))


def test_the_banner_counts_the_problems_first() -> None:
    doc = page()
    banner = doc.get_element_by_id("verdict")
    assert banner.get("data-verdict") == "fail" and "o-fail" in banner.get("class")
    assert _text(doc.get_element_by_id("verdict-counts")) == (
        "1 misquote, 1 wrong work, 1 retracted work cited, 1 citation with no entry, "
        "1 entry never cited, 1 quotation without a citation, 1 quotation not checked, "
        "1 reference not checked"
    )
    about = doc.get_element_by_id("verdict-about").text_content()
    assert about.startswith("Manuscript paper.docx (Word), An invented manuscript: 5 references")
    cards = {
        _text(c.cssselect(".card-name")[0]): _text(c.cssselect(".card-value")[0])
        for c in doc.cssselect("#cards li")
    }
    assert cards == {
        "References verified": "3 of 5",
        "To check by hand": "2",
        "Quotations found as written": "1 of 4",
        "Quotations that differ": "1",
        "Citations and entries unmatched": "2",
        "Retracted works cited": "1",
        "Not checked": "2",
    }


def test_a_clean_report_says_so() -> None:
    data = report_data(verdict="pass", quotations=[], unlinked=[], uncited=[], retracted=[])
    data["references"] = [data["references"][0]]
    data["problems"], data["sources"], data["citations"] = [], [], data["citations"][:1]
    doc = page(data)
    assert _text(doc.get_element_by_id("verdict")).startswith("Pass")
    assert _text(doc.get_element_by_id("verdict-counts")) == (
        "1 reference, 0 quotations: nothing to look at"
    )
    assert "No problem found." in _text(doc.get_element_by_id("problems"))
    assert "Everything was checked." in _text(doc.get_element_by_id("unchecked"))


def test_hostile_text_is_never_markup() -> None:
    data = report_data()
    data["manuscript"]["title"] = HOSTILE
    data["manuscript"]["name"] = HOSTILE + ".docx"
    data["quotations"][0]["text"] = HOSTILE
    data["quotations"][0]["reason"] = HOSTILE
    data["quotations"][0]["check"]["near"]["diff"][1]["quote"] = HOSTILE
    data["references"][1]["text"] = HOSTILE
    data["references"][1]["result"]["stated"]["text"] = HOSTILE
    data["references"][1]["result"]["work"]["title"] = HOSTILE
    data["references"][1]["result"]["comparisons"][0]["stated"] = HOSTILE
    data["unlinked"][0]["marker"] = HOSTILE
    data["sources"][1]["file"] = HOSTILE
    data["problems"][0]["message"] = HOSTILE
    data["retracted"][0]["identifier"] = "javascript:alert(1)"
    html = render_manuscript_html(data)
    assert "<script>alert" not in html and "<img" not in html
    assert html.count("<script") == 1  # the report's JSON, which no browser runs
    doc = lxml.html.fromstring(html)
    assert not doc.cssselect("img") and not doc.xpath("//@onerror")
    assert HOSTILE in _text(doc.get_element_by_id("q-0"))
    assert HOSTILE in _text(doc.get_element_by_id("ref-1"))
    assert doc.get_element_by_id("source-name").text == HOSTILE + ".docx"
    hrefs = [a.get("href") for a in doc.cssselect("a")]
    assert all(h.startswith(("#", "https://doi.org/", "https://pubmed")) for h in hrefs), hrefs
    (data_script,) = doc.cssselect("script#report-data")
    assert json.loads(data_script.text) == data


def test_invisible_characters_are_shown() -> None:
    data = report_data()
    data["quotations"][0]["text"] = "the yield \u202eof every plot"
    assert "the yield [U+202E]of every plot" in _text(page(data).get_element_by_id("q-0"))


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"schema": "citeproof.manuscript/1", "quotations": "none", "references": [1, None, "x"]},
        {"quotations": [{"check": "EXACT", "against": 3, "targets": [None]}], "retracted": [7]},
        {"manuscript": [], "counts": None, "citations": [{"index": "0"}], "verdict": "odd"},
    ],
)
def test_any_report_renders(data: dict[str, Any]) -> None:
    doc = page(data)
    assert doc.get_element_by_id("verdict") is not None
    assert json.loads(doc.cssselect("script#report-data")[0].text) == data


def test_the_model_and_its_json_give_the_same_page() -> None:
    model = report()
    saved = json.loads(json.dumps(model.model_dump(mode="json")))
    assert render_manuscript_html(model) == render_manuscript_html(saved)


def test_several_cited_works_are_each_said() -> None:
    data = report_data()
    data["quotations"][1]["targets"] = [
        {"entry_id": "ref1", "verdict": "EXACT", "finding": "ok"},
        {"entry_id": "ref4", "verdict": "UNAVAILABLE", "finding": "unchecked", "reason": "no text"},
    ]
    card = _text(page(data).get_element_by_id("q-1"))
    assert "Reference 1: EXACT (found word for word)" in card
    assert "Reference 4: UNAVAILABLE (no text of the cited work could be read). no text" in card


def test_the_page_runs_no_script_and_names_its_kind(tmp_path: Path) -> None:
    html = render_manuscript_html(report(), generated_at=WHEN)
    doc = lxml.html.fromstring(html)
    csp = doc.cssselect('meta[http-equiv="Content-Security-Policy"]')[0].get("content")
    assert csp == REFERENCES_CSP and "script-src 'none'" in csp
    assert doc.get_element_by_id("generated-at").text == WHEN
    path = write_manuscript_html(report(), tmp_path / "page.html", source_name="paper.docx")
    head = path.read_bytes()[:4096]
    assert GENERATOR_TAG in head and MANUSCRIPT_TAG in head
    assert is_manuscript_page(path)
    assert not is_audit_page(path) and not is_references_page(path)
    other = tmp_path / "other.html"
    other.write_text(render_references_html({"schema": "citeproof.references/1"}))
    assert not is_manuscript_page(other) and is_references_page(other)
    other.write_text(render_audit_html({"schema": "citeproof.audit/1"}, ""))
    assert not is_manuscript_page(other) and is_audit_page(other)
    assert not list(tmp_path.glob(".*.tmp"))  # written whole, by a rename
