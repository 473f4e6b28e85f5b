"""The audit page an editor reads in ten seconds: the banner's counts and the file's name,
metric cards, the answer's Markdown rendered with the chips in place, each citation's details
under its sentence, a "problems only" filter, the table of at most twelve citations, a
retraction as plain as a misquote, and a script-src that names the page's own script.

Reports are built by hand following the audit contract (see ``test_report_html``).
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_report_html import build, cit, sample

from citeproof.report import render_audit_html, write_audit_html
from citeproof.report.markdown import layout
from citeproof.report.page import CSP
from citeproof.report.view import GLANCE_ROWS, build_view


def parse(page: str) -> Any:
    return lxml.html.document_fromstring(page)


def retraction(status: str) -> dict[str, Any]:
    return {
        "schema": "citeproof.retraction/1",
        "identifier": "pmid:9",
        "resolved": {},
        "status": status,
        "reason": f"{status.lower()} according to pmc.",
        "sources": [{"source": "pmc", "state": "answered", "retracted": status == "RETRACTED"}],
    }


def one(verdict: str = "ok", **extra: Any) -> dict[str, Any]:
    """A report with one cited sentence."""
    report, _ = build([("Coffee is fine", [("[PMID 9]", cit(verdict, **extra))], "cited_ok")])
    return report


def chip(report: dict[str, Any]) -> Any:
    (found,) = parse(render_audit_html(report)).cssselect("summary.chip")
    return found


# --- 1. a retraction is as plain as a misquote ------------------------------------------------


def test_a_retracted_work_gets_a_red_badge_on_its_chip_and_card() -> None:
    report = one("ok", flags=["retracted"], retraction=retraction("RETRACTED"))
    doc = parse(render_audit_html(report))
    (summary,) = doc.cssselect("summary.chip")
    assert "v-bad" in summary.get("class").split()  # not the green of an OK chip
    (badge,) = summary.cssselect(".chip-badge")
    assert "v-bad" in badge.get("class").split() and "Retracted" in badge.text_content()
    assert "OK" not in summary.text_content()  # no "OK" beside "Retracted"
    (card,) = doc.cssselect("article.detail")
    assert "v-bad" in card.get("class").split()
    (card_badge,) = card.cssselect("h3 .cit-retracted")
    assert "v-bad" in card_badge.get("class").split() and "Retracted" in card_badge.text_content()
    assert "v-bad" in card.cssselect(".retraction")[0].get("class").split()


def test_an_expression_of_concern_is_amber() -> None:
    summary = chip(one("ok", flags=["concern"], retraction=retraction("CONCERN")))
    assert "v-near" in summary.get("class").split()
    (badge,) = summary.cssselect(".chip-badge")
    assert "v-near" in badge.get("class").split()
    assert "Expression of concern" in badge.text_content()


def test_an_unverifiable_status_is_neutral_never_like_a_retraction() -> None:
    report = one("ok", retraction=retraction("UNVERIFIABLE"))
    report["metrics"] = {}
    doc = parse(render_audit_html(report))
    (summary,) = doc.cssselect("summary.chip")
    assert "v-ok" in summary.get("class").split() and not summary.cssselect(".chip-badge")
    (notice,) = doc.cssselect(".retraction")
    assert notice.get("class").split() == ["retraction", "v-gone"]
    assert "Retraction status unknown" in notice.text_content()
    assert not doc.cssselect("article.detail .alarm, article.detail.v-bad")
    assert "retracted" not in doc.get_element_by_id("verdict-counts").text_content()


def test_a_retraction_the_answer_acknowledges_is_labelled_neutrally() -> None:
    summary = chip(one("ok", flags=["retraction_acknowledged"], retraction=retraction("RETRACTED")))
    (badge,) = summary.cssselect(".chip-badge")
    assert "v-gone" in badge.get("class").split() and "the answer says so" in badge.text_content()
    assert "v-ok" in summary.get("class").split()


# --- 2. the banner counts and names the file --------------------------------------------------


def test_the_banner_counts_the_problems() -> None:
    report, answer = sample()
    doc = parse(render_audit_html(report, answer))
    counts = doc.get_element_by_id("verdict-counts").text_content()
    assert counts == "1 forged, 1 misquote, 1 retracted, 1 uncited claim"
    assert "At least one citation is forged" not in doc.get_element_by_id("verdict").text_content()
    assert counts in doc.cssselect("title")[0].text_content()


def test_the_banner_counts_many_and_says_when_all_holds() -> None:
    sentences = [
        (f"Claim {i}", [(f"[PMID {i}]", cit(v))], "cited_problem")
        for i, v in enumerate(["mismatch", "mismatch", "near_quote", "unavailable"])
    ]
    report, answer = build(sentences)
    report["metrics"] = {}
    view = build_view(report, answer, "now")
    assert view["verdict_counts"] == "2 wrong works, 1 near quote, 1 unavailable"
    fine, answer = build([("Claim", [("[PMID 1]", cit("ok")), ("[PMID 2]", cit("ok"))], "x")])
    fine["metrics"] = {}
    assert build_view(fine, answer, "now")["verdict_counts"] == "2 citations, every one holds"


def test_the_page_names_the_audited_file_when_told(tmp_path: Path) -> None:
    report, answer = sample()
    doc = parse(render_audit_html(report, answer, source_name="answer.md"))
    assert doc.get_element_by_id("source-name").text_content() == "answer.md"
    assert "answer.md" in doc.cssselect("title")[0].text_content()
    assert (
        "Audit of answer.md: 4 sentences" in doc.get_element_by_id("verdict-about").text_content()
    )
    page = write_audit_html(report, answer, tmp_path / "a.html", source_name="<b>x</b>.md")
    written = parse(page.read_text(encoding="utf-8"))
    assert written.get_element_by_id("source-name").text_content() == "<b>x</b>.md"
    unnamed = parse(render_audit_html(report, answer))
    assert unnamed.get_element_by_id("source-name", None) is None


# --- 3. the answer's Markdown, rendered safely, chips still placed by their spans -------------

MARKDOWN = (
    "# Sleep and *coffee*\n"
    "\n"
    "Some **bold** claim with `code` [PMID 1]. Another claim\n"
    "over two lines [doi:10.1000/a_b*c*].\n"
    "\n"
    "- first item [PMID 2]\n"
    "- second item\n"
    "\n"
    "> A quoted claim [PMID 3] with\n"
    "> [a link](https://example.org/x) and [bad](javascript:alert(1)) ![i](https://x.example/i.png)"
    " <b>raw</b> &#x202e;.\n"
    "\n"
    "```\n"
    "code [PMID 4] block\n"
    "```\n"
)


def markdown_report(answer: str = MARKDOWN) -> dict[str, Any]:
    """Sentences and citations placed by their spans into ``answer``, as the audit does."""
    spots = [
        ("Sleep and *coffee*", []),
        ("Some **bold** claim with `code` [PMID 1].", ["[PMID 1]"]),
        ("Another claim\nover two lines [doi:10.1000/a_b*c*].", ["[doi:10.1000/a_b*c*]"]),
        ("first item [PMID 2]", ["[PMID 2]"]),
        ("A quoted claim [PMID 3] with", ["[PMID 3]"]),
        ("code [PMID 4] block", ["[PMID 4]"]),
    ]
    sentences = []
    newline = "\r\n" if "\r\n" in answer else "\n"
    for index, (text, raws) in enumerate(spots):
        text = text.replace("\n", newline)
        start = answer.index(text)
        cits = []
        for raw in raws:
            at = answer.index(raw, start)
            cits.append(cit("misquote" if raw == "[PMID 2]" else "ok", target=raw) | {"raw": raw})
            cits[-1] |= {"start": at, "end": at + len(raw)}
        status = "cited_problem" if "[PMID 2]" in raws else "cited_ok" if raws else "not_a_claim"
        sentences.append(
            {
                "index": index,
                "text": text,
                "status": status,
                "start": start,
                "end": start + len(text),
                "citations": cits,
            }
        )
    return {
        "schema": "citeproof.audit/1",
        "verdict": "fail",
        "sentences": sentences,
        "metrics": {},
        "fail_on": [],
        "signature": None,
        "answer": {"text": answer, "format": "markdown", "sha256": "0" * 64},
    }


def test_markdown_is_rendered_with_the_chips_in_place() -> None:
    doc = parse(render_audit_html(markdown_report()))
    area = doc.get_element_by_id("answer")
    assert "md" in area.get("class").split()
    (heading,) = area.cssselect(".md-h1")
    assert heading.cssselect("em")[0].text_content() == "coffee"
    assert "#" not in heading.text_content()
    assert area.cssselect("strong")[0].text_content() == "bold"
    assert area.cssselect("code")[0].text_content() == "code"
    assert [li.cssselect(".sent, .gap")[0].text_content() for li in area.cssselect("ul > li")] == [
        "first item [PMID 2]",
        "second item",
    ]
    quote = area.cssselect("blockquote")[0]
    assert ">" not in quote.cssselect(".sent")[0].text_content()  # the marker is not text
    # Citations exactly as written, never read as Markdown; each chip after its sentence.
    raws = [c.text_content() for c in area.cssselect(".cite-raw")]
    assert raws == ["[PMID 1]", "[doi:10.1000/a_b*c*]", "[PMID 2]", "[PMID 3]", "[PMID 4]"]
    for panel in area.cssselect("details.cit"):
        sentence = panel.getprevious()
        while sentence.tag == "details":
            sentence = sentence.getprevious()
        target = panel.cssselect(".chip-target")[0].text_content()
        assert target in sentence.text_content()
    # The sentence over two lines is one span, its line break a plain one.
    two = doc.get_element_by_id("s-2")
    assert two.text_content() == "Another claim\nover two lines [doi:10.1000/a_b*c*]."
    # A code block is shown as written, its citation placed in it.
    assert "code [PMID 4] block" in area.cssselect(".md-code")[0].text_content()


def test_markdown_is_rendered_safely() -> None:
    page = render_audit_html(markdown_report())
    doc = parse(page)
    area = doc.get_element_by_id("answer")
    assert not doc.cssselect("a, img, b, script:not([type]) + script")
    link = area.cssselect(".md-link")[0]
    assert link.text_content() == "a link"
    assert link.getnext().text_content() == "<https://example.org/x>"  # the address, as text
    text = area.text_content()
    assert "[bad](javascript:alert(1))" in text  # not a link: shown as written
    assert "<b>raw</b>" in text and "[U+202E]" in text and "\u202e" not in page
    for el in doc.iter():
        for name, value in el.attrib.items():
            assert name not in ("href", "src"), (el.tag, name, value)


def test_line_ends_and_controls_keep_every_citation_in_place() -> None:
    answer = MARKDOWN.replace("\n", "\r\n").replace("<b>raw</b>", "<b>raw</b> `co\x00de` \u200b")
    doc = parse(render_audit_html(markdown_report(answer)))
    area = doc.get_element_by_id("answer")
    assert "md" in area.get("class").split()  # still laid out as Markdown
    raws = [c.text_content() for c in area.cssselect(".cite-raw")]
    assert raws == ["[PMID 1]", "[doi:10.1000/a_b*c*]", "[PMID 2]", "[PMID 3]", "[PMID 4]"]
    assert "co[U+0000]de" in [c.text_content() for c in area.cssselect("code")]
    assert "[U+200B]" in area.text_content()
    assert doc.get_element_by_id("s-2").text_content().split() == (
        "Another claim over two lines [doi:10.1000/a_b*c*].".split()
    )


def test_an_answer_that_cannot_be_laid_out_is_shown_as_written() -> None:
    answer = "A claim [PMID 1].\n\n***\n"
    at = answer.index("***")
    blocks, rendered = layout(answer, [(0, 17), (at, at + 3)], [(8, 16), (at, at + 3)], needed=[1])
    assert not rendered and [b.kind for b in blocks] == ["raw"]  # a citation inside a rule
    blocks, rendered = layout(answer, [(0, 17)], [(8, 16)], needed=[0])
    assert rendered and [b.kind for b in blocks] == ["p", "hr"]
    claims = markdown_report()
    claims["answer"]["format"] = "json"  # a rendering of JSON claims: not Markdown
    area = parse(render_audit_html(claims)).get_element_by_id("answer")
    assert "plain" in area.get("class").split() and "# Sleep and *coffee*" in area.text_content()


@given(
    st.lists(
        st.tuples(
            # A letter first: a line that starts "2." is an ordered list in Markdown.
            st.from_regex(r"[a-h][a-h .,;:!?'\"()0-9]{0,30}", fullmatch=True),
            st.lists(st.sampled_from(["[PMID 1]", "[1]", "(doi:10.5555/x_y)"]), max_size=2),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([" ", "\n", "\n\n"]),
)
def test_plain_prose_reads_the_same_rendered(parts: list[tuple[str, list[str]]], sep: str) -> None:
    """Text without Markdown reads word for word as written, chips and details aside."""
    report, answer = build(
        [(lead, [(r, cit("ok")) for r in raws], "cited_ok") for lead, raws in parts]
    )
    if sep != " ":
        answer = answer.replace(". ", "." + sep)
    area = parse(render_audit_html(report, answer)).get_element_by_id("answer")
    for extra in area.cssselect("details, span.tag"):
        extra.drop_tree()
    for block in area.cssselect(".blk"):  # blocks are apart on screen, not in text_content
        block.tail = " " + (block.tail or "")
    assert area.text_content().split() == answer.split()


# --- 4. and 5. details under the sentence, the filter, the cards, the table -------------------


def test_problems_only_works_without_script() -> None:
    report, answer = sample()
    doc = parse(render_audit_html(report, answer))
    (box,) = doc.cssselect("input#problems-only")
    assert box.get("type") == "checkbox" and box.getparent().tag == "label"
    assert not doc.cssselect("form") and not box.get("form")
    css = doc.cssselect("style")[0].text
    assert "body:has(#problems-only:checked) .answer .blk:not(.has-problem)" in css
    panels = doc.cssselect("details.cit")
    assert ["problem" in p.get("class").split() for p in panels] == [False, True, True]
    blocks = doc.cssselect("#answer .blk")
    assert blocks and all("has-problem" in b.get("class").split() for b in blocks)


def test_metric_cards_sit_above_the_answer() -> None:
    report, answer = sample()
    doc = parse(render_audit_html(report, answer))
    cards = {
        c.cssselect(".card-name")[0].text_content(): (
            c.cssselect(".card-value")[0].text_content(),
            c.get("class").split()[1],
        )
        for c in doc.cssselect("#cards .card")
    }
    assert cards["Citations"] == ("3", "v-bad")
    assert cards["Citation validity"] == ("50.0%", "v-near")
    assert cards["Fabricated"] == ("1", "v-bad") and cards["Retracted works cited"][1] == "v-bad"
    header = doc.cssselect("header.summary")[0]
    assert header.cssselect("#cards") and not doc.cssselect("main #cards")


def test_the_table_lists_at_most_twelve_citations_problems_first() -> None:
    verdicts = ["ok"] * 15 + ["forged", "near_quote", "misquote"] + ["ok"] * 2
    report, answer = build(
        [(f"Claim {i}", [(f"[PMID {i}]", cit(v))], "x") for i, v in enumerate(verdicts)]
    )
    doc = parse(render_audit_html(report, answer))
    rows = doc.cssselect("#glance tbody tr")
    assert len(rows) == GLANCE_ROWS == 12
    assert [r.get("data-verdict") for r in rows[:3]] == ["forged", "misquote", "near_quote"]
    assert [r.get("class") for r in rows[:4]] == ["problem", "problem", "problem", "fine"]
    assert rows[0].cssselect("td")[0].text_content() == "16"  # the citation's own number
    assert "Claim 15" in rows[0].text_content()
    assert "And 8 more citations" in doc.get_element_by_id("glance").text_content()


# --- 8. the script is allowed by its hash, nothing else is ------------------------------------


def test_script_src_is_the_hash_of_the_page_script() -> None:
    report, answer = sample()
    doc = parse(render_audit_html(report, answer))
    (meta,) = doc.cssselect('meta[http-equiv="Content-Security-Policy"]')
    policy = {
        name: value
        for name, _, value in (p.strip().partition(" ") for p in meta.get("content").split(";"))
    }
    assert "unsafe-inline" not in policy["script-src"]
    (script,) = [s for s in doc.cssselect("script") if s.get("type") != "application/json"]
    digest = base64.b64encode(hashlib.sha256(script.text.encode()).digest()).decode()
    assert policy["script-src"] == f"'sha256-{digest}'"
    assert policy["base-uri"] == "'none'" and policy["form-action"] == "'none'"
    assert policy["default-src"] == "'none'"
    assert re.fullmatch(r"'sha256-[A-Za-z0-9+/]{43}='", policy["script-src"])
    assert meta.get("content") == CSP


@pytest.mark.parametrize("junk", [None, "", "x" * 5000])
def test_odd_source_names_render(junk: str | None) -> None:
    report, answer = sample()
    assert "<!DOCTYPE html>" in render_audit_html(report, answer, source_name=junk)
