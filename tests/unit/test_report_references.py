"""The References section of the HTML audit view: one card per reference entry.

The reports are built from the models themselves (``AuditReport``, ``ReferenceResult``) with
invented data, one entry per reference verdict, so the page is pinned to the contract.
"""

from __future__ import annotations

from typing import Any

import lxml.html
import pytest

from citeproof.models.audit import VERDICTS, AnswerInfo, AuditReport, Metrics
from citeproof.models.references import (
    REFERENCE_VERDICTS,
    Comparison,
    IdentifierCheck,
    ReferenceResult,
    ServiceAnswer,
    StatedFields,
    WorkFound,
)
from citeproof.models.search import ResponseDigest
from citeproof.report import render_audit_html
from citeproof.report.citation_card import CITATION_VERDICTS
from citeproof.report.reference_card import REFERENCE_VERDICT_STYLES
from citeproof.report.view import build_view

THRESHOLD = "same title at >= 0.90, another work below 0.75"
HOSTILE = '<script>alert("ref")</script><img src=x onerror=alert(2)>'

#: verdict -> (badge text, CSS class) as the page must show them.
EXPECTED = {
    "verified": ("Verified", "v-ok"),
    "partial": ("Partial match", "v-near"),
    "ambiguous": ("Ambiguous", "v-near"),
    "unavailable": ("Unavailable", "v-gone"),
    "unchecked": ("Unchecked", "v-gone"),
    "not_found": ("Not found", "v-bad"),
    "mismatch": ("Wrong work", "v-bad"),
    "unresolvable": ("Unresolvable", "v-bad"),
}


def _work(n: int, **extra: Any) -> WorkFound:
    fields: dict[str, Any] = {
        "source": "crossref",
        "identifier": f"doi:10.5555/invented.{n}",
        "doi": f"10.5555/invented.{n}",
        "title": f"An invented study number {n}",
        "authors": ["Alvarez, M.", "Berg, T.", "Chen, L.", "Dube, K."],
        "year": 2020 + n % 5,
        "venue": "Journal of Invented Results",
        "type": "journal-article",
        "score": 0.97,
        "retraction": "NOT_RETRACTED_AS_OF",
    }
    fields.update(extra)
    return WorkFound(**fields)


def _cmp(field: str, agreement: str, score: float | None = 1.0) -> Comparison:
    return Comparison(
        field=field,  # type: ignore[arg-type]
        stated=f"stated {field}",
        record=f"recorded {field}",
        score=score,
        agreement=agreement,  # type: ignore[arg-type]
        threshold=THRESHOLD,
    )


def _asked() -> list[ServiceAnswer]:
    return [
        ServiceAnswer(
            service="crossref",
            purpose="identifier",
            query="doi:10.5555/invented.1",
            status="ok",
            responses=[
                ResponseDigest(
                    url="https://api.crossref.org/works/10.5555/invented.1",
                    status=200,
                    sha256="ab" * 32,
                )
            ],
        ),
        ServiceAnswer(
            service="openalex", purpose="search", query="invented study", status="offline"
        ),
    ]


def references() -> list[ReferenceResult]:
    """One entry per reference verdict, in the order they are decided."""
    stated = StatedFields
    return [
        ReferenceResult(
            index=1,
            verdict="unresolvable",
            reason="doi:10.5555/invented.404 does not exist: no registry knows it.",
            stated=stated(text="Ghost, A. (2021). Nothing. doi:10.5555/invented.404", label="1"),
            identifiers=[
                IdentifierCheck(
                    identifier="doi:10.5555/invented.404", exists=False, reason="unknown DOI"
                )
            ],
            asked=_asked(),
            log_seq=7,
        ),
        ReferenceResult(
            index=2,
            verdict="mismatch",
            reason="doi:10.5555/invented.2 is another work: its title, authors differ.",
            stated=stated(text="Ortiz, R. (2019). Sleep and salt. doi:10.5555/invented.2"),
            identifiers=[
                IdentifierCheck(
                    identifier="doi:10.5555/invented.2", exists=True, registered_with="Crossref"
                )
            ],
            work=_work(2),
            comparisons=[
                _cmp("title", "differs", 0.31),
                _cmp("authors", "differs", 0.0),
                _cmp("year", "agrees"),
            ],
            differs=["title", "authors"],
            suggested=_work(
                9,
                identifier="pmid:31415926",
                doi=None,
                pmid="31415926",
                title="Sleep and salt",
            ),
        ),
        ReferenceResult(
            index=3,
            verdict="unavailable",
            reason="The record of doi:10.5555/invented.3 could not be read (timeout).",
            stated=stated(text="Park, J. (2018). Unreadable. doi:10.5555/invented.3"),
        ),
        ReferenceResult(
            index=4,
            verdict="not_found",
            reason=f"No work matches the entry: {HOSTILE}",
            stated=stated(text=f"Fake, F. (2023). {HOSTILE}. Journal of Nowhere."),
        ),
        ReferenceResult(
            index=5,
            verdict="partial",
            reason="doi:10.5555/invented.5 has this title, but the year differs.",
            stated=stated(text="Alvarez, M. (2011). An invented study number 5."),
            work=_work(5),
            comparisons=[
                _cmp("title", "agrees", 0.98),
                _cmp("year", "differs", 0.0),
                _cmp("venue", "not_stated", None),
            ],
            differs=["year"],
        ),
        ReferenceResult(
            index=6,
            verdict="ambiguous",
            reason="2 works match the entry equally well.",
            stated=stated(text="Alvarez, M. (2021). An invented study."),
            candidates=[_work(61), _work(62, identifier="openalex:W123", doi=None)],
        ),
        ReferenceResult(
            index=7,
            verdict="verified",
            reason="The entry matches the record of doi:10.5555/invented.7.",
            stated=stated(text="Alvarez, M. et al. (2022). An invented study number 7.", label="7"),
            work=_work(7),
            comparisons=[_cmp("title", "agrees", 1.0), _cmp("authors", "agrees")],
        ),
        ReferenceResult(
            index=8,
            verdict="verified",
            reason="The entry matches the record of doi:10.5555/invented.8.",
            stated=stated(text="Alvarez, M. (2023). An invented study number 8."),
            work=_work(8, retraction="RETRACTED", retraction_reason="Retracted for invented data."),
            retracted=True,
        ),
        ReferenceResult(
            index=9,
            verdict="verified",
            reason="The entry matches the record of pmid:27182818.",
            stated=stated(text="Berg, T. (2024). An invented study number 9."),
            work=_work(
                9, identifier="pmid:27182818", doi=None, pmid="27182818", retraction="CONCERN"
            ),
            retracted=True,
        ),
        ReferenceResult(
            index=10,
            verdict="unchecked",
            reason="The entry cites a thesis, which crossref may not hold: no record matched, "
            "which says nothing against it.",
            stated=stated(text="Quill, P. (2015). Invented soils [PhD thesis]. Nowhere Univ."),
            work_kind="thesis",
        ),
    ]


def report(refs: list[ReferenceResult] | None = None) -> dict[str, Any]:
    refs = references() if refs is None else refs
    answer = "Salt shortens sleep [2]."
    built = AuditReport(
        verdict="fail",
        sentences=[],
        metrics=Metrics(
            sentences=0,
            claims=0,
            cited_claims=0,
            citations=0,
            by_verdict=dict.fromkeys(VERDICTS, 0),
            quotes=0,
            quotes_ok=0,
            citation_validity=None,
            quote_accuracy=None,
            claim_coverage=None,
            fabricated=0,
            retracted_cited=0,
            references=len(refs),
            references_verified=sum(1 for r in refs if r.verdict == "verified"),
        ),
        fail_on=["mismatch"],
        answer=AnswerInfo(text=answer, format="markdown", sha256="0" * 64),
        created_at="2026-01-02T03:04:05Z",
        generator="citeproof test",
        references=refs,
    )
    return built.model_dump(mode="json", by_alias=True)


def parse(page: str) -> Any:
    return lxml.html.document_fromstring(page)


def cards(doc: Any) -> list[Any]:
    return list(doc.cssselect("#references article.ref"))


def test_every_reference_verdict_has_a_badge() -> None:
    assert set(EXPECTED) == set(REFERENCE_VERDICTS) == set(REFERENCE_VERDICT_STYLES)
    doc = parse(render_audit_html(report()))
    section = doc.get_element_by_id("references")
    assert section.cssselect("h2")[0].text_content() == "References"
    found = {c.get("data-verdict"): c for c in cards(doc)}
    assert set(found) == set(REFERENCE_VERDICTS)
    for verdict, (text, css) in EXPECTED.items():
        (badge,) = found[verdict].cssselect(".badge.ref-verdict")
        assert css in badge.get("class").split(), verdict
        assert text in badge.text_content(), verdict
    # Unavailable is neutral, never styled like a failure.
    unavailable = found["unavailable"]
    assert "v-bad" not in unavailable.get("class")
    assert not unavailable.cssselect(".v-bad")


def test_cards_follow_the_list_and_show_the_entry() -> None:
    doc = parse(render_audit_html(report()))
    got = cards(doc)
    assert [c.cssselect(".num")[0].text_content() for c in got] == [
        f"Reference {i}" for i in range(1, 11)
    ]
    assert "Ghost, A. (2021)" in got[0].cssselect("blockquote.entry")[0].text_content()
    assert "does not exist" in got[0].cssselect(".ids")[0].text_content()
    # The services asked, in a <details> that opens without script; URLs stay text.
    (asked,) = got[0].cssselect("details.asked")
    text = asked.text_content()
    assert "Services asked (2)" in text and "evidence log line 7" in text
    assert "https://api.crossref.org/works/10.5555/invented.1" in text and "ab" * 32 in text
    assert not asked.cssselect("a")


def test_the_section_comes_after_the_citations() -> None:
    doc = parse(render_audit_html(report()))
    main = doc.cssselect("main")[0]
    ids = [child.get("id") for child in main]
    assert ids.index("glance") < ids.index("references")


def test_stated_vs_record_highlights_what_differs() -> None:
    doc = parse(render_audit_html(report()))
    mismatch = cards(doc)[1]
    rows = mismatch.cssselect("table.cmp tbody tr")
    assert [r.get("class") for r in rows] == ["cmp-differs", "cmp-differs", "cmp-agrees"]
    first = [cell.text_content() for cell in rows[0]]
    assert first[:4] == ["title", "stated title", "recorded title", "0.31"]
    assert "differs" in first[4] and THRESHOLD in first[4]
    partial = cards(doc)[4]
    cells = [c.text_content() for c in partial.cssselect("table.cmp tbody tr")[2]]
    assert cells[3] == "–" and "not stated" in cells[4]


def test_a_mismatch_shows_the_work_the_metadata_describes() -> None:
    doc = parse(render_audit_html(report()))
    mismatch = cards(doc)[1]
    text = mismatch.text_content()
    assert "The work the identifier names" in text
    assert "The stated metadata describes" in text
    works = mismatch.cssselect(".work")
    assert len(works) == 2
    named, suggested = works
    assert named.cssselect("a.ident")[0].get("href") == "https://doi.org/10.5555/invented.2"
    (link,) = suggested.cssselect("a.ident")
    assert link.text_content() == "pmid:31415926"
    assert link.get("href") == "https://pubmed.ncbi.nlm.nih.gov/31415926/"
    assert "noreferrer" in link.get("rel")
    assert "Sleep and salt" in suggested.text_content()


def test_the_matched_work_shows_its_first_authors() -> None:
    doc = parse(render_audit_html(report()))
    verified = cards(doc)[6]
    (work,) = verified.cssselect(".work")
    meta = work.cssselect(".work-meta")[0].text_content()
    assert "Alvarez, M.; Berg, T.; Chen, L. et al. (1 more)" in meta
    assert "2022" in meta and "Journal of Invented Results" in meta
    assert "match score 0.97" in work.text_content()
    assert not verified.cssselect(".alarm")  # NOT_RETRACTED_AS_OF: no badge


def test_candidates_of_an_ambiguous_entry() -> None:
    doc = parse(render_audit_html(report()))
    ambiguous = cards(doc)[5]
    items = ambiguous.cssselect("ol.candidates > li")
    assert len(items) == 2
    assert items[0].cssselect("a.ident")[0].get("href") == "https://doi.org/10.5555/invented.61"
    # An OpenAlex identifier is shown, as text: no link is made for it.
    assert not items[1].cssselect("a")
    assert items[1].cssselect("code.ident")[0].text_content() == "openalex:W123"


def test_a_retracted_work_is_flagged_like_a_failure() -> None:
    doc = parse(render_audit_html(report()))
    retracted, concern = cards(doc)[7], cards(doc)[8]
    (badge,) = retracted.cssselect("h3 .ref-retracted")
    assert "v-bad" in badge.get("class") and "Retracted" in badge.text_content()
    assert "v-bad" in retracted.get("class").split()  # the card's accent too
    notice = retracted.cssselect(".retraction")[0].text_content()
    assert "Retracted for invented data." in notice
    (badge,) = concern.cssselect("h3 .ref-retracted")
    # A concern is a warning (amber), not a failure: as the citations' chips show it.
    assert "Expression of concern" in badge.text_content() and "v-near" in badge.get("class")
    assert "v-near" in concern.get("class").split()
    assert "v-near" in concern.cssselect(".retraction")[0].get("class").split()
    # The verdict badge still says what the verdict is.
    assert "Verified" in retracted.cssselect(".ref-verdict")[0].text_content()
    assert not cards(doc)[6].cssselect(".ref-retracted")


def test_reference_text_is_escaped() -> None:
    page = render_audit_html(report())
    doc = parse(page)
    card = cards(doc)[3]
    assert HOSTILE in card.cssselect("blockquote.entry")[0].text_content()
    assert HOSTILE in card.cssselect(".reason")[0].text_content()
    assert not doc.cssselect("img")
    assert len(doc.cssselect("script")) == 2  # the report's JSON and the page's own script
    assert '<script>alert("ref")' not in page
    assert "&lt;script&gt;alert(&#34;ref&#34;)&lt;/script&gt;" in page


def test_links_only_to_doi_org_and_pubmed() -> None:
    evil = [
        _work(1, identifier="doi:javascript:alert(1)", doi="javascript:alert(1)"),
        _work(
            2, identifier='doi:10.5555/a"><script>x</script>', doi='10.5555/a"><script>x</script>'
        ),
        _work(3, identifier="pmid:12 34", doi=None, pmid="12 34"),
        _work(4, identifier="pmid:javascript:1", doi=None, pmid="javascript:1"),
        _work(5, identifier="https://attacker.example/", doi=None, pmid=None),
    ]
    refs = [
        ReferenceResult(
            index=1,
            verdict="ambiguous",
            reason="r",
            stated=StatedFields(text="t"),
            candidates=evil,
        )
    ]
    doc = parse(render_audit_html(report(refs)))
    hrefs = [a.get("href") for a in doc.cssselect("a")]
    assert hrefs == ["https://doi.org/10.5555/a%22%3E%3Cscript%3Ex%3C/script%3E"]
    for el in doc.iter():
        for value in el.attrib.values():
            assert "javascript:" not in value.lower()
    assert "doi:javascript:alert(1)" in doc.text_content()
    assert "https://attacker.example/" in doc.text_content()


def test_metrics_count_references_verified() -> None:
    doc = parse(render_audit_html(report()))
    metrics = doc.get_element_by_id("metrics").text_content()
    assert "References verified" in metrics and "3 of 10" in metrics
    assert "Wrong work: 1" in metrics and "retracted or under concern: 2" in metrics


def test_a_report_without_references_has_no_section() -> None:
    for data in (report([]), {k: v for k, v in report([]).items() if k != "references"}):
        doc = parse(render_audit_html(data))
        assert not doc.cssselect("#references, article.ref")
        assert "References" not in doc.get_element_by_id("metrics").text_content()
        assert not doc.cssselect("a")


def test_mismatch_citation_chip() -> None:
    assert CITATION_VERDICTS["mismatch"] == ("Wrong work", "\u2717", "v-bad")
    assert set(VERDICTS) <= set(CITATION_VERDICTS)
    answer = "Salt shortens sleep [2]."
    data = report()
    data["sentences"] = [
        {
            "index": 0,
            "text": answer,
            "status": "cited_problem",
            "kind": "claim",
            "start": 0,
            "end": len(answer),
            "citations": [
                {
                    "index": 0,
                    "raw": "[2]",
                    "kind": "numbered",
                    "form": "bracket",
                    "target": "2",
                    "start": 20,
                    "end": 23,
                    "sentence": 0,
                    "number": 2,
                    "verdict": "mismatch",
                    "reason": "doi:10.5555/invented.2 names another work.",
                }
            ],
        }
    ]
    doc = parse(render_audit_html(data))
    (chip,) = doc.cssselect("summary.chip")
    assert "v-bad" in chip.get("class").split() and "Wrong work" in chip.text_content()
    (panel,) = doc.cssselect("article.detail")
    assert "Wrong work" in panel.cssselect(".badge")[0].text_content()


@pytest.mark.parametrize("junk", [None, "x", 3, [None, "x", {"verdict": "<b>"}]])
def test_odd_reference_data_still_renders(junk: Any) -> None:
    data = report([]) | {"references": junk}
    page = render_audit_html(data)
    if isinstance(junk, list):
        doc = parse(page)
        assert len(cards(doc)) == 3
        assert "<b>" in cards(doc)[2].cssselect(".ref-verdict")[0].text_content()
    view = build_view(data, "", "now")
    assert isinstance(view["references"], list)
