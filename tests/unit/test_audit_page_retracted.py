"""The audit page says nothing it contradicts (issue 21), as the demo's page did for its
retracted paper:

* a Stated-vs-record row whose entry states no value said "–" beside "agrees 1.00";
* "References verified 1 of 1" was green although the one work is retracted;
* the retracted work's chip read "RETRACTED ✓ OK 1";
* the notice read "The work this entry names has been retracted. retracted according to ...".

The reports are built by hand after the demo's (``citeproof demo``), whose page
``tests/integration/test_audit_demo_page.py`` checks the same way.
"""

from __future__ import annotations

from typing import Any

import lxml.html
from test_report_html import build, cit

from citeproof.models.references import (
    Comparison,
    ReferenceResult,
    StatedFields,
    WorkFound,
)
from citeproof.report import render_audit_html

SOURCES = "pmc, crossref, pubmed, europepmc, retractionwatch"
TITLE = "Evening coffee and sleep quality: an invented cohort"


def parse(page: str) -> Any:
    return lxml.html.document_fromstring(page)


def text(element: Any) -> str:
    return " ".join(element.text_content().split())


def retraction(status: str = "RETRACTED") -> dict[str, Any]:
    word = "retracted" if status == "RETRACTED" else "an expression of concern"
    return {
        "schema": "citeproof.retraction/1",
        "identifier": "pmcid:PMC9900002",
        "resolved": {},
        "status": status,
        "reason": f"{word} according to {SOURCES}.",
        "sources": [{"source": "pmc", "state": "answered", "retracted": status == "RETRACTED"}],
    }


def compare(
    field: str, stated: str | None, record: str, score: float | None, agreement: Any
) -> Any:
    return Comparison(
        field=field,
        stated=stated,
        record=record,
        score=score,
        agreement=agreement,
        threshold="the rule",
    )


def entry(status: str | None = "RETRACTED", comparisons: list[Comparison] | None = None) -> Any:
    """The demo's reference 1: its entry states no title apart from its text."""
    word = "retracted" if status == "RETRACTED" else "an expression of concern"
    return ReferenceResult(
        index=1,
        verdict="verified",
        reason="The entry matches the record of doi:10.5555/invented.retracted.1.",
        stated=StatedFields(text="Evening coffee and sleep quality. PMCID: PMC9900002", label="1"),
        work=WorkFound(
            source="pubmed",
            identifier="doi:10.5555/invented.retracted.1",
            doi="10.5555/invented.retracted.1",
            title=TITLE,
            year=2024,
            retraction=status,
            retraction_reason=f"{word} according to {SOURCES}." if status else None,
        ),
        comparisons=comparisons
        or [
            compare("title", None, TITLE, 1.0, "agrees"),
            compare("year", None, "2024", None, "not_stated"),
        ],
        retracted=status is not None,
    ).model_dump(mode="json")


def report(status: str | None = "RETRACTED", verdict: str = "ok", **extra: Any) -> dict[str, Any]:
    flags = {"RETRACTED": ["retracted"], "CONCERN": ["concern"], None: []}[status]
    numbered = cit(
        verdict,
        kind="numbered",
        target="1",
        resolved_to="pmcid:PMC9900002",
        flags=[*flags, *extra.pop("flags", [])],
        retraction=retraction(status) if status else None,
        **extra,
    )
    built, _ = build([("Coffee is fine", [("[1]", numbered)], "cited_problem")])
    built["references"] = [entry(status)]
    built["metrics"] |= {"references": 1, "references_verified": 1}
    return built


def cards(doc: Any) -> dict[str, tuple[str, str, str]]:
    """Card name -> (value, note, CSS class)."""
    found = {}
    for card in doc.cssselect("#cards li.card"):
        note = card.cssselect(".card-note")
        found[text(card.cssselect(".card-name")[0])] = (
            text(card.cssselect(".card-value")[0]),
            text(note[0]) if note else "",
            next(c for c in card.get("class").split() if c.startswith("v-")),
        )
    return found


# --- Stated vs record ---------------------------------------------------------------------------


def test_a_value_the_entry_does_not_state_is_never_said_to_agree() -> None:
    doc = parse(render_audit_html(report()))
    title, year = doc.cssselect("#references table.cmp tbody tr")
    cells = [text(c) for c in title]
    assert cells[:4] == ["title", "none apart from the entry's text", TITLE, "1.00"]
    assert cells[4].startswith("\u2713 found in the entry's text")
    assert "agrees" not in text(title) and title.get("class") == "cmp-agrees"
    assert [text(c) for c in year][1] == "\u2013" and "not stated" in text(year)


def test_a_stated_value_that_agrees_still_says_so() -> None:
    stated = compare("title", TITLE, TITLE, 1.0, "agrees")
    differs = compare("venue", None, "J", 0.2, "differs")
    built = report()
    built["references"] = [entry(comparisons=[stated, differs])]
    rows = parse(render_audit_html(built)).cssselect("#references table.cmp tbody tr")
    assert [text(c) for c in rows[0]][1] == TITLE and "\u2713 agrees" in text(rows[0])
    assert "not found in the entry's text" in text(rows[1])
    assert "differs" not in text(rows[1]) and rows[1].get("class") == "cmp-differs"


# --- the References verified card ----------------------------------------------------------------


def test_references_verified_is_not_green_when_the_work_is_retracted() -> None:
    assert cards(parse(render_audit_html(report())))["References verified"] == (
        "1 of 1",
        "1 retracted",
        "v-bad",
    )
    assert cards(parse(render_audit_html(report("CONCERN"))))["References verified"] == (
        "1 of 1",
        "1 under an expression of concern",
        "v-near",
    )
    assert cards(parse(render_audit_html(report(None))))["References verified"] == (
        "1 of 1",
        "",
        "v-ok",
    )


# --- the chip -------------------------------------------------------------------------------------


def test_a_retracted_works_chip_never_says_ok() -> None:
    doc = parse(render_audit_html(report()))
    (chip,) = doc.cssselect("summary.chip")
    assert text(chip) == "\u26a0 Retracted pmcid:PMC9900002"  # was "⚠ RETRACTED ✓ OK 1"
    assert "v-bad" in chip.get("class").split()
    (heading,) = doc.cssselect("article.detail h3")
    assert text(heading) == "\u26a0 Retracted #1 [1]"
    facts = {text(d[0]): text(d[1]) for d in doc.cssselect("article.detail dl.facts > div")}
    assert facts["Target"] == "1" and facts["Resolved to"] == "pmcid:PMC9900002"
    (row,) = doc.cssselect("#glance tbody tr")
    assert text(row.cssselect("td")[1]) == "\u26a0 Retracted"
    concern = parse(render_audit_html(report("CONCERN"))).cssselect("summary.chip")[0]
    assert text(concern) == "\u26a0 Expression of concern pmcid:PMC9900002"


def test_a_failing_verdict_is_shown_beside_the_retraction() -> None:
    (chip,) = parse(render_audit_html(report(verdict="misquote"))).cssselect("summary.chip")
    assert text(chip) == "\u26a0 Retracted \u2717 Misquote pmcid:PMC9900002"


def test_a_retraction_the_answer_acknowledges_keeps_its_ok() -> None:
    built = report(flags=["retraction_acknowledged"])
    (chip,) = parse(render_audit_html(built)).cssselect("summary.chip")
    assert text(chip) == "\u26a0 Retracted (the answer says so) \u2713 OK pmcid:PMC9900002"


# --- the retraction said once ---------------------------------------------------------------------


def test_the_retraction_is_said_once_in_a_sentence() -> None:
    doc = parse(render_audit_html(report()))
    notice = doc.cssselect("#references .retraction p")[0]
    assert text(notice) == (
        f"The work this entry names has been retracted, according to {SOURCES}."
    )
    cited = doc.cssselect("article.detail .retraction p")[0]
    assert text(cited) == f"The cited work has been retracted, according to {SOURCES}."
    why = doc.cssselect("#glance tbody tr td")[4]
    assert text(why) == f"the cited work has been retracted, according to {SOURCES}."
    concern = parse(render_audit_html(report("CONCERN"))).cssselect("#references .retraction p")
    assert text(concern[0]) == (
        f"The work this entry names is under an expression of concern, according to {SOURCES}."
    )


def test_a_retraction_reason_in_other_words_follows_the_sentence() -> None:
    built = report()
    built["references"][0]["work"]["retraction_reason"] = "Retracted for invented data."
    notice = parse(render_audit_html(built)).cssselect("#references .retraction p")[0]
    assert text(notice) == (
        "The work this entry names has been retracted. Retracted for invented data."
    )
