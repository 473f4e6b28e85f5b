"""The references page (``citeproof refs --html``): one card per entry, the leads first.

The reports are built from the models (``ReferencesReport``, ``ReferenceResult``) with
invented data, one entry per verdict and then some, so the page is pinned to the contract;
the HTML is read back with lxml.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from test_report_references import EXPECTED, HOSTILE, _work
from test_report_references import _cmp as _audit_cmp
from test_report_references import references as audit_references

from citeproof.errors import HtmlWriteError
from citeproof.models.references import (
    REFERENCE_VERDICTS,
    Comparison,
    ReferenceCounts,
    ReferenceResult,
    ReferencesReport,
    ServiceAnswer,
    StatedFields,
)
from citeproof.models.search import ResponseDigest
from citeproof.report import render_audit_html, render_references_html, write_references_html
from citeproof.report.page import (
    GENERATOR_TAG,
    REFERENCES_CSP,
    REFERENCES_TAG,
    is_audit_page,
    is_references_page,
)
from citeproof.report.reference_card import REFERENCE_VERDICT_STYLES
from citeproof.report.references_view import build_references_view

WHEN = "2026-01-02T03:04:05+00:00"

#: The order the cards must come in: the list's index of each, top to bottom.
ORDER = [1, 2, 4, 5, 8, 9, 3, 10, 6, 7]


def _cmp(field: str, agreement: str, score: float | None = 1.0, **extra: Any) -> Comparison:
    return _audit_cmp(field, agreement, score).model_copy(update=extra)


def _asked(query: str = "doi:10.5555/invented.1") -> list[ServiceAnswer]:
    return [
        ServiceAnswer(
            service="crossref",
            purpose="identifier",
            query=query,
            status="ok",
            responses=[
                ResponseDigest(
                    url="https://api.crossref.org/works/10.5555/invented.1",
                    status=200,
                    sha256="ab" * 32,
                )
            ],
        ),
        ServiceAnswer(service="pubmed", purpose="search", query="invented[tiab]", status="empty"),
    ]


def references() -> list[ReferenceResult]:
    """The audit page's invented entries (one per verdict, a retracted work and one under an
    expression of concern, in the list's order 1..10), with what only this page shows."""
    more: dict[int, dict[str, Any]] = {
        2: {
            "comparisons": [
                _cmp("title", "differs", 0.31),
                _cmp("authors", "differs", 0.0),
                _cmp("year", "agrees"),
                _cmp("volume", "differs", 0.0, stated="7", record="4"),
                _cmp("pages", "not_recorded", None, stated="12", record=None),
            ],
            "differs": ["title", "authors", "volume"],
            "asked": _asked(),
        },
        4: {
            "closest": [_work(41, score=0.41), _work(42, score=0.38)],
            "asked": _asked("Fake F A study no database holds"),
        },
        5: {
            "decided_by": ["title"],
            "closest": [_work(5, score=0.78), _work(51, score=0.33)],
        },
        7: {
            "comparisons": [
                # The reader found no title apart from the entry's text: the record's was
                # looked for in the whole text.  This must never read "agrees".
                _cmp("title", "agrees", 1.0, stated=None),
                _cmp("authors", "agrees"),
                _cmp("year", "agrees"),
                _cmp("venue", "agrees"),
            ],
            "decided_by": ["authors", "year", "venue", "volume", "pages"],
            "notes": ["A preprint of this work is doi:10.5555/invented.pre7."],
        },
        10: {"notes": ["Checked: the year and the author's name are printed."]},
    }
    return [ref.model_copy(update=more.get(ref.index, {})) for ref in audit_references()]


def report(refs: list[ReferenceResult] | None = None, **extra: Any) -> dict[str, Any]:
    refs = references() if refs is None else refs
    fields: dict[str, Any] = {"source": "refs.bib", "format": "bibtex", **extra}
    built = ReferencesReport(references=refs, counts=ReferenceCounts(total=len(refs)), **fields)
    return built.model_dump(mode="json")


def render(data: Any = None, **options: Any) -> str:
    return render_references_html(report() if data is None else data, generated_at=WHEN, **options)


def parse(page: str) -> Any:
    return lxml.html.document_fromstring(page)


def cards(doc: Any) -> list[Any]:
    return list(doc.cssselect("article.ref"))


def by_index(doc: Any) -> dict[int, Any]:
    out = {}
    for card in cards(doc):
        number = card.cssselect(".num")[0].text_content()
        out[int(number.removeprefix("Reference "))] = card
    return out


def test_every_verdict_has_its_badge() -> None:
    assert set(EXPECTED) == set(REFERENCE_VERDICTS) == set(REFERENCE_VERDICT_STYLES)
    doc = parse(render())
    found: dict[str, list[Any]] = {}
    for card in cards(doc):
        found.setdefault(card.get("data-verdict"), []).append(card)
    assert set(found) == set(REFERENCE_VERDICTS)
    for verdict, (text, css) in EXPECTED.items():
        for card in found[verdict]:
            (badge,) = card.cssselect(".badge.ref-verdict")
            assert css in badge.get("class").split(), verdict
            assert text in badge.text_content(), verdict


def test_the_leads_come_first_then_what_was_not_checked_then_what_matched() -> None:
    doc = parse(render())
    assert list(by_index(doc)) == ORDER
    groups = doc.cssselect("section.ref-group")
    assert [g.get("id") for g in groups] == [
        "list-0-check",
        "list-0-unchecked",
        "list-0-matched",
    ]
    titles = [g.cssselect("h3")[0].text_content() for g in groups]
    assert titles == ["To check by hand (6)", "Not checked (2)", "Matched (2)"]
    # The retracted work and the one under concern are verified, and still leads: after the
    # flags, before the rest.
    check = [c.get("data-verdict") for c in groups[0].cssselect("article.ref")]
    assert check == ["unresolvable", "mismatch", "not_found", "partial", "verified", "verified"]
    for card in groups[0].cssselect("article.ref")[-2:]:
        assert card.cssselect(".ref-retracted")
    # Each card's number is still its place in the list, so the order loses nothing.
    assert by_index(doc)[8].get("id") == "list-0-ref-7"


def test_what_was_not_checked_is_neutral() -> None:
    doc = parse(render())
    (group,) = doc.cssselect("section.g-unchecked")
    for card in group.cssselect("article.ref"):
        assert "v-gone" in card.get("class").split()
        assert not card.cssselect(".v-bad, .v-near, .alarm")
        assert "problem" not in card.get("class").split()  # "problems only" hides it
    assert "problem" not in group.get("class").split()
    unchecked = by_index(doc)[10]
    assert unchecked.cssselect(".work-kind")[0].text_content() == "Kind of work: thesis"
    assert "says nothing against it" in unchecked.cssselect(".notes")[0].text_content() + (
        unchecked.cssselect(".reason")[0].text_content()
    )


def test_the_banner_counts_the_leads_first() -> None:
    doc = parse(render())
    header = doc.get_element_by_id("verdict")
    assert header.get("data-verdict") == "check"
    assert "o-fail" in header.get("class").split()
    assert header.cssselect(".verdict-label")[0].text_content() == "Check by hand"
    counts = doc.get_element_by_id("verdict-counts").text_content()
    assert counts == (
        "1 unresolvable, 1 wrong work, 1 not found, 1 partial match, 1 retracted, "
        "1 under an expression of concern, 1 unavailable, 1 unchecked, 1 ambiguous, 3 verified"
    )
    about = doc.get_element_by_id("verdict-about").text_content()
    assert "refs.bib" in about
    assert "6 of 10 references are leads to check by hand, not findings" in about
    figures = {
        c.cssselect(".card-name")[0].text_content(): c.cssselect(".card-value")[0].text_content()
        for c in doc.cssselect("#cards .card")
    }
    assert figures == {
        "References": "10",
        "To check by hand": "6",
        "Not checked": "2",
        "Verified": "3 of 10",
        "Retracted works": "2",
    }
    title = doc.cssselect("title")[0].text_content()
    assert title.startswith("citeproof refs: Check by hand, refs.bib: 1 unresolvable")


@pytest.mark.parametrize(
    ("verdicts", "state", "label"),
    [
        (["verified", "unavailable", "ambiguous"], "incomplete", "Incomplete"),
        (["verified", "unchecked", "ambiguous"], "clear", "No problem found"),
        (["verified"], "clear", "No problem found"),
        ([], "empty", "No references"),
    ],
)
def test_the_banner_follows_the_exit_code(verdicts: list[str], state: str, label: str) -> None:
    refs = [
        ReferenceResult.model_validate(
            {"index": i, "verdict": v, "reason": "r", "stated": {"text": "t"}}
        )
        for i, v in enumerate(verdicts, 1)
    ]
    doc = parse(render(report(refs)))
    header = doc.get_element_by_id("verdict")
    assert header.get("data-verdict") == state
    assert header.cssselect(".verdict-label")[0].text_content() == label
    assert "o-fail" not in header.get("class")


def test_stated_and_record_side_by_side_for_every_comparison() -> None:
    doc = parse(render())
    mismatch = by_index(doc)[2]
    rows = mismatch.cssselect("table.cmp tbody tr")
    assert [r.cssselect("th")[0].text_content() for r in rows] == [
        "title",
        "authors",
        "year",
        "volume",
        "pages",
    ]
    cells = [[c.text_content() for c in r.cssselect("td")] for r in rows]
    assert cells[0][:3] == ["stated title", "recorded title", "0.31"]
    assert cells[3][:2] == ["7", "4"] and "differs" in cells[3][3]
    assert cells[4][:3] == ["12", "–", "–"] and "not recorded" in cells[4][3]
    assert [r.get("class") for r in rows] == [
        "cmp-differs",
        "cmp-differs",
        "cmp-agrees",
        "cmp-differs",
        "cmp-none",
    ]
    header = [th.text_content() for th in mismatch.cssselect("table.cmp thead th")]
    assert header == ["Field", "Stated", "Record", "Score", "Result"]


def test_a_field_the_entry_does_not_state_never_reads_agrees() -> None:
    doc = parse(render())
    verified = by_index(doc)[7]
    title = verified.cssselect("table.cmp tbody tr")[0]
    stated, _, _, result = (c.text_content() for c in title.cssselect("td"))
    assert stated == "none apart from the entry's text"
    assert "found in the entry's text" in result and "agrees" not in result


def test_how_the_work_was_identified_and_what_else_to_know() -> None:
    doc = parse(render())
    verified = by_index(doc)[7]
    assert (
        verified.cssselect(".decided-by")[0].text_content()
        == "Identified by: authors, year, venue, volume, pages"
    )
    assert "preprint" in verified.cssselect(".notes")[0].text_content()
    (link,) = verified.cssselect(".work a.ident")
    assert link.get("href") == "https://doi.org/10.5555/invented.7"
    pubmed = by_index(doc)[9].cssselect(".work a.ident")[0]
    assert pubmed.get("href") == "https://pubmed.ncbi.nlm.nih.gov/27182818/"


def test_a_flag_shows_the_closest_records_with_their_scores() -> None:
    doc = parse(render())
    not_found = by_index(doc)[4]
    items = not_found.cssselect("ol.closest > li")
    assert [i.cssselect(".ident")[0].text_content() for i in items] == [
        "doi:10.5555/invented.41",
        "doi:10.5555/invented.42",
    ]
    assert "match score 0.41" in items[0].text_content()
    # A partial's closest record is its work, shown once, as the work found.
    partial = by_index(doc)[5]
    assert [i.cssselect(".ident")[0].text_content() for i in partial.cssselect(".closest li")] == [
        "doi:10.5555/invented.51"
    ]
    assert not by_index(doc)[9].cssselect(".closest")


def test_the_evidence_is_folded_in_details() -> None:
    doc = parse(render())
    mismatch = by_index(doc)[2]
    (asked,) = mismatch.cssselect("details.asked")
    assert asked.get("open") is None
    assert asked.cssselect("summary")[0].text_content().startswith("Services asked (2)")
    items = asked.cssselect(":scope > ul > li")
    first = items[0].text_content()
    assert "crossref" in first and "doi:10.5555/invented.1" in first and ": ok" in first
    assert "https://api.crossref.org/works/10.5555/invented.1" in first and "ab" * 32 in first
    assert "200" in first
    assert "invented[tiab]" in items[1].text_content() and "empty" in items[1].text_content()
    assert not asked.cssselect("a")  # URLs stay text


def test_a_flag_is_worded_as_a_lead_not_an_accusation() -> None:
    """The page's own words (every report text here is bland) never call a work fake."""
    refs = [
        ReferenceResult(
            index=i,
            verdict=v,
            reason="r",
            stated=StatedFields(text="t"),
            retracted=v == "verified",
        )
        for i, v in enumerate(REFERENCE_VERDICTS, 1)
    ]
    text = parse(render(report(refs))).text_content().lower()
    for word in ("fake", "fabricat", "forged", "bogus", "hallucinat", "invalid", "fraud"):
        assert word not in text, word
    assert "check by hand" in text and "not a finding" in text


def test_reading_problems_stand_above_the_lists_cards() -> None:
    reading = ["Number 4 is missing between 3 and 5.", f"Entries 6 and 7 were merged {HOSTILE}"]
    doc = parse(render(report(reading=reading)))
    (section,) = doc.cssselect("section.ref-list")
    children = [c for c in section if c.tag in ("div", "section")]
    assert "reading" in children[0].get("class").split()
    assert children[1].get("class").startswith("ref-group")
    lines = [li.text_content() for li in children[0].cssselect("li")]
    assert lines == reading
    about = doc.get_element_by_id("verdict-about").text_content()
    assert about.endswith("Reading the list found 2 problems with it, said above the entries.")


def test_several_files_are_several_lists() -> None:
    """One report from `refs a.bib b.ris` (each result names its file) and another given
    apart: three lists, each under its file, with its own reading problems and anchors."""
    first = [
        ref.model_copy(update={"source": "a.bib" if n < 2 else "b.ris"})
        for n, ref in enumerate(references()[:4])
    ]
    one = report(first, reading=["b.ris: number 2 is missing."], source=None)
    two = report(references()[4:], source="c.json")
    doc = parse(render([one, two], source_names=[None, "lists/c.json"]))
    lists = doc.cssselect("section.ref-list")
    names = [s.cssselect("h2")[0].text_content() for s in lists]
    assert names == ["a.bib", "b.ris", "lists/c.json"]
    assert not lists[0].cssselect(".reading")
    # The list's heading names the file; its reading problem does not say it again.
    assert lists[1].cssselect(".reading li")[0].text_content() == "Number 2 is missing."
    ids = [el.get("id") for el in doc.iter() if el.get("id")]
    assert len(ids) == len(set(ids))
    nav = [a.get("href") for a in doc.cssselect("nav.lists-nav a")]
    assert nav == ["#list-0", "#list-1", "#list-2"]
    assert "problem" not in lists[2].cssselect("section.g-matched")[0].get("class").split()
    assert doc.get_element_by_id("verdict").get("data-verdict") == "check"
    total = doc.cssselect("#cards .card .card-value")[0].text_content()
    assert total == "10"


def test_a_reading_problem_goes_with_the_file_it_names() -> None:
    names = ["a.bib", "c.ris", "data.bib", "d.ris", "e.ris"]  # data.bib: an unavailable entry
    refs = [
        ref.model_copy(update={"source": name})
        for ref, name in zip(references(), names, strict=False)
    ]
    reading = ["data.bib: number 3 is used twice.", "Two of these lists share an entry."]
    doc = parse(render(report(refs, reading=reading, source=None)))
    lists = {s.cssselect("h2")[0].text_content(): s for s in doc.cssselect("section.ref-list")}
    assert list(lists) == names
    assert lists["data.bib"].cssselect(".reading li")[0].text_content() == "Number 3 is used twice."
    assert not lists["a.bib"].cssselect(".reading")
    # A problem that names no one list stands above them all.
    assert "share an entry" in doc.get_element_by_id("reading").text_content()
    # "Problems only" keeps a list whose reading found a problem, though none of its entries
    # is flagged.
    assert "has-problem" in lists["data.bib"].get("class").split()
    assert not lists["data.bib"].cssselect(".ref.problem")
    about = doc.get_element_by_id("verdict-about").text_content()
    assert about.startswith("References of a.bib, c.ris, data.bib and 2 more files: ")


def test_a_report_that_kept_its_counts_only() -> None:
    counts = ReferenceCounts(total=3, verified=2, not_found=1)
    data = ReferencesReport(source="big.bib", counts=counts).model_dump(mode="json")
    data.pop("references")
    doc = parse(render(data))
    assert doc.get_element_by_id("verdict-counts").text_content() == "1 not found, 2 verified"
    assert doc.get_element_by_id("verdict").get("data-verdict") == "check"
    assert not cards(doc)
    assert "counts only" in doc.cssselect("section.ref-list")[0].text_content()


def test_hostile_text_stays_text() -> None:
    ref = ReferenceResult(
        index=1,
        verdict="not_found",
        reason=f"No record matches {HOSTILE}",
        stated=StatedFields(text=f"Evil, E. {HOSTILE}", label=HOSTILE),
        comparisons=[_cmp("title", "differs", 0.1, stated=HOSTILE, record=HOSTILE)],
        closest=[_work(1, title=HOSTILE, authors=[HOSTILE], venue=HOSTILE)],
        decided_by=[HOSTILE],
        notes=[HOSTILE],
        work_kind=HOSTILE,
        asked=_asked(HOSTILE),
    )
    data = report([ref], reading=[HOSTILE], source=HOSTILE)
    page = render(data, source_names=[HOSTILE + "\u202e"])
    doc = parse(page)
    assert not doc.cssselect("img")
    scripts = doc.cssselect("script")
    assert [s.get("type") for s in scripts] == ["application/json"]
    assert '<script>alert("ref")' not in page
    assert "<img src=x" not in page
    (card,) = cards(doc)
    for selector in (
        "blockquote.entry",
        ".reason",
        ".ref-label",
        "table.cmp td",
        ".closest .work-title",
        ".decided-by",
        ".notes li",
        ".work-kind",
        "details.asked code",
    ):
        assert HOSTILE in card.cssselect(selector)[0].text_content(), selector
    assert HOSTILE in doc.cssselect(".reading li")[0].text_content()
    # The bidi override in the file's name is shown, not obeyed.
    assert "[U+202E]" in doc.cssselect("section.ref-list h2")[0].text_content()
    assert json_in_page(page)[0]["references"][0]["reason"].endswith(HOSTILE)


def json_in_page(page: str) -> Any:
    (data,) = parse(page).cssselect("script#report-data")
    return json.loads(data.text_content())


def test_links_only_to_doi_org_and_pubmed() -> None:
    evil = [
        _work(1, identifier="doi:javascript:alert(1)", doi="javascript:alert(1)"),
        _work(3, identifier="pmid:12 34", doi=None, pmid="12 34"),
        _work(5, identifier="https://attacker.example/", doi=None, pmid=None),
    ]
    ref = ReferenceResult(
        index=1, verdict="not_found", reason="r", stated=StatedFields(text="t"), closest=evil
    )
    doc = parse(render(report([ref, *references()])))
    for a in doc.cssselect("a"):
        href = a.get("href")
        assert href.startswith(("https://doi.org/", "https://pubmed.ncbi.nlm.nih.gov/", "#"))
    for el in doc.iter():
        for value in el.attrib.values():
            assert "javascript:" not in value.lower()


def test_a_strict_policy_and_no_script() -> None:
    page = render()
    doc = parse(page)
    (csp,) = doc.cssselect('meta[http-equiv="Content-Security-Policy"]')
    assert csp.get("content") == REFERENCES_CSP
    assert "script-src 'none'" in REFERENCES_CSP and "default-src 'none'" in REFERENCES_CSP
    assert [s.get("type") for s in doc.cssselect("script")] == ["application/json"]
    for el in doc.iter():  # no inline handler, though the entries hold "onerror=" as text
        assert not [name for name in el.attrib if name.lower().startswith("on")]
    assert not doc.cssselect("link, img, iframe, object, embed, form, base")
    # The filter is a checkbox and CSS.
    assert doc.get_element_by_id("problems-only").get("type") == "checkbox"


def test_the_page_says_whose_it_is_and_what_kind() -> None:
    page = render().encode()
    head = page[:4096]
    assert GENERATOR_TAG in head and REFERENCES_TAG in head


def test_each_command_recognises_its_own_page(tmp_path: Path) -> None:
    refs_page = write_references_html(report(), tmp_path / "refs.html", generated_at=WHEN)
    audit_page = tmp_path / "audit.html"
    audit_page.write_text(render_audit_html({"schema": "citeproof.audit/1"}), encoding="utf-8")
    mine = tmp_path / "mine.html"
    mine.write_text("<html><head><title>mine</title></head></html>", encoding="utf-8")
    assert is_references_page(refs_page) and not is_audit_page(refs_page)
    assert is_audit_page(audit_page) and not is_references_page(audit_page)
    assert not is_references_page(mine) and not is_references_page(tmp_path / "absent.html")


def test_the_model_and_its_json_make_the_same_page() -> None:
    model = ReferencesReport(source="refs.bib", format="bibtex", references=references())
    assert render(model) == render(model.model_dump(mode="json"))
    assert render([model]) == render(model)


def test_the_page_is_written_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "refs.html"
    target.write_text("the earlier page", encoding="utf-8")
    written = write_references_html(report(), target, generated_at=WHEN)
    assert written == target
    assert target.read_text(encoding="utf-8") == render()
    assert sorted(os.listdir(tmp_path)) == ["refs.html"]  # no temporary file left
    with pytest.raises(HtmlWriteError, match="references page"):
        write_references_html(report(), tmp_path / "missing" / "refs.html")
    assert sorted(os.listdir(tmp_path)) == ["refs.html"]


def test_the_audit_pages_cards_are_unchanged() -> None:
    """The cards are one template and one builder; what only the references page shows
    (how the work was identified, notes, the closest records) stays off the audit page."""
    refs = [r.model_dump(mode="json") for r in references()]
    audit = {"schema": "citeproof.audit/1", "verdict": "pass", "references": refs}
    doc = parse(render_audit_html(audit))
    assert len(doc.cssselect("#references article.ref")) == 10
    assert not doc.cssselect(".decided-by, .notes, .closest, .work-kind")
    assert doc.cssselect("#references article.ref > h3")


@pytest.mark.parametrize(
    "junk",
    [None, "x", 3, [None, "x", {"verdict": "<b>"}], [{"verdict": "verified", "index": "one"}]],
)
def test_odd_report_data_still_renders(junk: Any) -> None:
    data = report([]) | {"references": junk, "reading": junk, "counts": junk}
    doc = parse(render(data))
    assert doc.get_element_by_id("verdict") is not None
    view = build_references_view([data], generated_at=WHEN)
    assert isinstance(view["lists"], list)
    if isinstance(junk, list) and len(junk) == 3:
        assert len(cards(doc)) == 3
        odd = [c for c in cards(doc) if c.get("data-verdict") == "<b>"]
        assert odd and "v-bad" not in odd[0].get("class")
