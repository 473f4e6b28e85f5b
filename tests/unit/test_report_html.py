"""The HTML audit view: hostile text stays text, nothing loads, every part of the report shows.

The reports are built by hand following the audit contract (``citeproof.audit/1``), so these
tests pin the page to the contract rather than to one audit implementation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeproof.errors import CiteproofError
from citeproof.report import render_audit_html, write_audit_html
from citeproof.report.page import CSP
from citeproof.report.view import shown

HOSTILE = [
    "<script>alert(1)</script>",
    "</script><script>alert(2)</script>",
    '"><img src=x onerror=alert(3)>',
    "'><svg onload=alert(4)>",
    "javascript:alert(5)",
    "{{ 7*7 }}{% for x in range(3) %}boom{% endfor %}",
    "<!-- open comment",
    "\u202eevil\u202c and \u2066isolate\u2069 and zero\u200bwidth and nul\x00byte",
    "<style>body{display:none}</style>",
    '<a href="http://attacker.example/">x</a>',
    "]]><![CDATA[",
]
BAD = " ".join(HOSTILE)
SCRIPT_COUNT = 2  # the report's JSON data block and the page's own script


def _check(verdict: str = "EXACT", **extra: Any) -> dict[str, Any]:
    check: dict[str, Any] = {
        "schema": "citeproof.check/1",
        "verdict": verdict,
        "reason": None,
        "quote": "sleep onset latency fell",
        "matches": [],
        "flags": [],
        "source": {
            "input": "pmcid:PMC1",
            "kind": "jats",
            "identifier": "pmcid:PMC1",
            "title": "An example trial",
            "served_by": "pmc",
            "coverage": "full_text",
            "sha256": "ab" * 32,
            "url": "https://example.org/article",
        },
        "retraction": None,
    }
    check.update(extra)
    return check


def build(
    sentences: list[tuple[str, list[tuple[str, dict[str, Any]]], str]],
    *,
    verdict: str = "fail",
    spans: bool = True,
) -> tuple[dict[str, Any], str]:
    """A report and its answer: each sentence is (text before, [(raw, citation)], status);
    citation raws are appended to the sentence in order, each followed by a space."""
    answer = ""
    out = []
    for index, (lead, cits, status) in enumerate(sentences):
        if answer:
            answer += " "
        s_start = len(answer)
        answer += lead
        citations = []
        for raw, cit in cits:
            answer += " "
            c_start = len(answer)
            answer += raw
            entry = {"raw": raw, **cit}
            if spans:
                entry |= {"start": c_start, "end": len(answer)}
            citations.append(entry)
        answer += "."
        sentence: dict[str, Any] = {
            "index": index,
            "text": answer[s_start:],
            "status": status,
            "citations": citations,
        }
        if spans:
            sentence |= {"start": s_start, "end": len(answer)}
        out.append(sentence)
    report = {
        "schema": "citeproof.audit/1",
        "verdict": verdict,
        "sentences": out,
        "metrics": {
            "sentences": len(out),
            "claims": len(out),
            "cited_claims": 1,
            "citations": sum(len(s["citations"]) for s in out),
            "by_verdict": {"ok": 1, "misquote": 1},
            "quotes": 2,
            "quotes_ok": 1,
            "citation_validity": 0.5,
            "quote_accuracy": 0.5,
            "claim_coverage": 0.75,
            "fabricated": 1,
            "retracted_cited": 1,
        },
        "fail_on": ["forged", "malformed", "unresolvable", "misquote", "retracted"],
        "signature": {"algorithm": "ed25519", "key_id": "key-1234", "value": "c2ln"},
    }
    return report, answer


def cit(verdict: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "kind": "pmcid",
        "target": "pmcid:PMC1",
        "quote": "sleep onset latency fell",
        "verdict": verdict,
        "flags": [],
        "reason": None,
        "check": None,
    }
    base.update(extra)
    return base


def issued(passage: str) -> dict[str, Any]:
    """A handle's status with its passage as issued: where a report keeps the passage."""
    return {"as_issued_text": passage}


def sample() -> tuple[dict[str, Any], str]:
    exact = _check(
        matches=[
            {
                "start": 14,
                "end": 38,
                "normalized_start": 14,
                "normalized_end": 38,
                "text": "sleep onset latency fell",
                "location": {"block": 3, "section": ["Results"], "region": "body", "page": None},
            }
        ]
    )
    near = _check(
        "NEAR",
        near={
            "similarity": 0.93,
            "start": 0,
            "end": 20,
            "text": "the effect was 0.93 in all",
            "diff": [
                {"op": "equal", "quote": "the effect was", "source": "the effect was"},
                {"op": "replace", "quote": "0.9", "source": "0.93"},
                {"op": "delete", "quote": "", "source": "in all"},
            ],
            "flags": ["numbers_differ"],
        },
        retraction={
            "schema": "citeproof.retraction/1",
            "identifier": "pmid:123",
            "resolved": {},
            "status": "RETRACTED",
            "reason": "The publisher retracted it.",
            "sources": [
                {
                    "source": "crossref",
                    "state": "answered",
                    "retracted": True,
                    "notices": [{"kind": "retraction", "source": "publisher", "doi": "10.1/ret"}],
                },
                {"source": "pubmed", "state": "failed", "reason": "timeout"},
            ],
        },
    )
    return build(
        [
            (
                'Sleep improved: "sleep onset latency fell"',
                [
                    (
                        "[pmcid:PMC1/body.results.p3~ABCDEFGH]",
                        cit(
                            "ok",
                            kind="handle",
                            target="pmcid:PMC1/body.results.p3~ABCDEFGH",
                            check=exact,
                            handle=issued("In the trial, sleep onset latency fell by 12 minutes."),
                        ),
                    )
                ],
                "cited_ok",
            ),
            (
                'The effect was "the effect was 0.9"',
                [
                    (
                        "[PMID 123]",
                        cit(
                            "misquote",
                            kind="pmid",
                            target="pmid:123",
                            flags=["numbers_differ", "retracted"],
                            reason="The quote's number differs from the source.",
                            check=near,
                        ),
                    )
                ],
                "cited_problem",
            ),
            ("Nobody cited this claim", [], "uncited"),
            ("Forged here", [("[pmid:1/abstract.1~ZZZZZZZZ]", cit("forged"))], "cited_problem"),
        ]
    )


def hostile() -> tuple[dict[str, Any], str]:
    check = _check(
        "NEAR",
        reason=BAD,
        quote=BAD,
        matches=[
            {
                "start": 0,
                "end": 5,
                "normalized_start": 0,
                "normalized_end": 5,
                "text": BAD,
                "location": {"block": 1, "section": [BAD], "region": BAD},
            }
        ],
        near={
            "similarity": 0.5,
            "start": 0,
            "end": 5,
            "text": BAD,
            "diff": [{"op": "replace", "quote": BAD, "source": BAD}],
            "flags": [BAD],
        },
        source={
            "input": BAD,
            "kind": BAD,
            "identifier": BAD,
            "title": BAD,
            "served_by": BAD,
            "coverage": "full_text",
            "sha256": BAD,
            "url": "javascript:alert(6)",
            "licence": "http://attacker.example/licence.png",
        },
        retraction={
            "status": "RETRACTED",
            "reason": BAD,
            "identifier": BAD,
            "resolved": {},
            "sources": [
                {
                    "source": BAD,
                    "state": "answered",
                    "retracted": True,
                    "notices": [{"kind": BAD, "source": BAD, "url": "javascript:alert(7)"}],
                }
            ],
        },
        found_elsewhere=[{"identifier": BAD, "title": BAD, "verdict": "EXACT", "text": BAD}],
    )
    citations = [
        (
            f"[{h}]",
            cit(
                BAD,
                kind=BAD,
                target=h,
                quote=BAD,
                flags=[BAD],
                reason=BAD,
                check=check,
                handle=issued(BAD),
            ),
        )
        for h in HOSTILE
    ]
    report, answer = build([(BAD, citations, BAD), (BAD, [], "uncited")], verdict=BAD)
    report["metrics"] = {"sentences": BAD, "by_verdict": {BAD: BAD}, "citation_validity": BAD}
    report["fail_on"] = [BAD]
    report["signature"] = {"algorithm": BAD, "key_id": BAD, "value": BAD}
    report["schema"] = BAD
    return report, answer


def parse(page: str) -> Any:
    return lxml.html.document_fromstring(page)


def test_sample_page_shows_the_report() -> None:
    report, answer = sample()
    page = render_audit_html(report, answer, generated_at="2026-01-02T03:04:05+00:00")
    doc = parse(page)
    assert doc.get_element_by_id("verdict").get("data-verdict") == "fail"
    assert "Fail" in doc.get_element_by_id("verdict").text_content()
    assert doc.get_element_by_id("key-id").text_content().startswith("key-1234")
    assert doc.get_element_by_id("generated-at").text_content() == "2026-01-02T03:04:05+00:00"
    metrics = doc.get_element_by_id("metrics").text_content()
    assert "Citation validity" in metrics and "50.0%" in metrics and "75.0%" in metrics
    # Sentences coloured by status, in answer order, with the answer's own text.
    sents = doc.find_class("sent")[4:]  # after the four legend entries
    assert [s.get("data-status") for s in sents] == [
        "cited_ok",
        "cited_problem",
        "uncited",
        "cited_problem",
    ]
    assert doc.get_element_by_id("answer").text_content().startswith(answer[:40])
    # One chip per citation, the summary of its details, labelled with verdict and target.
    chips = doc.cssselect("details.cit > summary.chip")
    assert [c.getparent().cssselect("article.detail")[0].get("id") for c in chips] == [
        "d-0",
        "d-1",
        "d-2",
    ]
    assert "OK" in chips[0].text_content() and "body.results.p3" in chips[0].text_content()
    assert "Misquote" in chips[1].text_content() and "pmid:123" in chips[1].text_content()
    assert "v-bad" in chips[2].get("class")
    # Exact: the passage as issued with the match highlighted in place.
    d0 = doc.get_element_by_id("d-0")
    (hit,) = d0.cssselect("mark.hit")
    assert hit.text == "sleep onset latency fell"
    assert d0.cssselect("blockquote.passage")[0].text_content().startswith("In the trial, sleep")
    assert "https://example.org/article" in d0.text_content()
    # Near: the closest passage with its word diff, flags and the retraction notice.
    d1 = doc.get_element_by_id("d-1")
    assert [e.text for e in d1.cssselect(".diff del")] == ["0.93", "in all"]
    assert [e.text for e in d1.cssselect(".diff ins")] == ["0.9"]
    # as text (read aloud, copied), a deleted word and the word inserted for it stay apart
    assert d1.cssselect(".diff")[0].text_content() == "the effect was 0.93 0.9 in all"
    assert "similarity 0.93" in d1.text_content()
    notice = d1.cssselect(".retraction")[0].text_content()
    assert "RETRACTED" in notice and "crossref: retracted" in notice and "10.1/ret" in notice
    assert "pubmed: failed" in notice
    assert "numbers_differ" in d1.text_content()
    # The uncited sentence says so in words, not by colour alone.
    assert "uncited claim" in sents[2].text_content()


def test_each_citation_opens_right_after_its_sentence() -> None:
    """No separate section at the bottom: a citation's <details> (its chip the summary)
    follows the sentence that holds the citation's text."""
    report, answer = sample()
    doc = parse(render_audit_html(report, answer))
    assert doc.get_element_by_id("details", None) is None
    raws = [c["raw"] for s in report["sentences"] for c in s["citations"]]
    panels = doc.cssselect("#answer details.cit")
    assert len(panels) == len(raws) == 3
    for panel, raw in zip(panels, raws, strict=True):
        before = panel.getprevious()
        while before is not None and before.tag == "details":
            before = before.getprevious()
        assert before is not None and "sent" in before.get("class").split()
        assert raw in [c.text_content() for c in before.cssselect(".cite-raw")]
        assert panel.tail is None or not panel.tail.strip() or panel.tail.startswith(" ")


@pytest.mark.parametrize("mode", ["spans", "no_spans", "no_answer"])
def test_pages_without_spans_still_place_every_citation(mode: str) -> None:
    report, answer = sample()
    if mode != "spans":
        report, answer = build(
            [
                (
                    s["text"][:-1].split(" [")[0],
                    [(c["raw"], c) for c in s["citations"]],
                    s["status"],
                )
                for s in report["sentences"]
            ],
            spans=False,
        )
    if mode == "no_answer":
        answer = "something else entirely"
    doc = parse(render_audit_html(report, answer))
    assert len(doc.cssselect("summary.chip")) == 3
    assert len(doc.cssselect("details.cit > article.detail")) == 3
    answer_el = doc.get_element_by_id("answer")
    assert answer_el.tag == ("ol" if mode == "no_answer" else "div")
    assert "Nobody cited this claim" in answer_el.text_content()


def test_hostile_input_stays_text() -> None:
    report, answer = hostile()
    # A fixed time: the page shows when it was made, and "now" could contain the "49" below.
    page = render_audit_html(report, answer, generated_at="2026-01-02T03:04:05Z")
    doc = parse(page)
    scripts = doc.cssselect("script")
    assert len(scripts) == SCRIPT_COUNT
    assert scripts[0].get("type") == "application/json"
    assert json.loads(scripts[0].text) == report
    assert not doc.cssselect("img, svg, iframe, object, embed, a, style:not(head style), link")
    for el in doc.iter():
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on"), (el.tag, name)
            assert name not in ("src", "href", "srcdoc", "action", "formaction"), (el.tag, name)
            assert "javascript:" not in value.lower(), (el.tag, name, value)
    # The hostile text is there, as text, with invisible controls made visible.
    text = doc.text_content()
    assert "<script>alert(1)</script>" in text
    assert '"><img src=x onerror=alert(3)>' in text
    assert "{{ 7*7 }}" in text and "49" not in text
    assert "[U+202E]evil[U+202C]" in text and "zero[U+200B]width" in text
    assert "nul[U+0000]byte" in text
    for ch in "\u202e\u202c\u2066\u2069\u200b\x00":
        assert ch not in page
    assert "<script>alert" not in page and "<img" not in page and "<!-- open" not in page
    # The page's own structure survived: one chip and one panel per citation.
    assert len(doc.cssselect("summary.chip")) == len(HOSTILE)
    assert len(doc.cssselect("article.detail")) == len(HOSTILE)
    assert doc.get_element_by_id("verdict").get("data-verdict") == "unknown"


def test_no_external_loads_and_a_strict_csp() -> None:
    for report, answer in (sample(), hostile()):
        doc = parse(render_audit_html(report, answer))
        (meta,) = doc.cssselect('meta[http-equiv="Content-Security-Policy"]')
        assert meta.get("content") == CSP
        assert "default-src 'none'" in CSP
        assert "base-uri 'none'" in CSP and "form-action 'none'" in CSP
        for el in doc.iter():
            for name in ("src", "href", "srcset", "poster", "data", "background"):
                assert el.get(name) is None, (el.tag, name)
        for style in doc.cssselect("style"):
            assert "url(" not in style.text and "@import" not in style.text
        for script in doc.cssselect("script"):
            assert script.get("src") is None
            body = script.text or ""
            if script.get("type") != "application/json":
                assert "fetch(" not in body and "XMLHttpRequest" not in body
                assert "http:" not in body and "https:" not in body


def test_minimal_report() -> None:
    report = {
        "schema": "citeproof.audit/1",
        "verdict": "pass",
        "sentences": [],
        "metrics": {},
        "fail_on": [],
        "signature": None,
    }
    doc = parse(render_audit_html(report, ""))
    assert "Pass" in doc.get_element_by_id("verdict").text_content()
    assert doc.get_element_by_id("key-id").text_content() == "unsigned"
    assert "no citations" in doc.get_element_by_id("glance").text_content()
    # Even an empty mapping renders.
    assert (
        "Unknown"
        in parse(render_audit_html({}, "text")).get_element_by_id("verdict").text_content()
    )


def test_a_large_report_renders_every_chip() -> None:
    """100 sentences and 200 citations (bench/bench_audit.py times the rendering)."""
    report, _ = sample()
    one = report["sentences"][0]
    sentences = [
        (
            f'Claim {i} says "sleep onset latency fell"',
            [
                (c["raw"], {k: v for k, v in c.items() if k not in ("start", "end", "raw")})
                for c in [one["citations"][0], report["sentences"][1]["citations"][0]]
            ],
            "cited_ok",
        )
        for i in range(100)
    ]
    big, big_answer = build(sentences)
    assert sum(len(s["citations"]) for s in big["sentences"]) == 200
    page = render_audit_html(big, big_answer)
    assert len(parse(page).cssselect("summary.chip")) == 200


def test_write_audit_html(tmp_path: Path) -> None:
    report, answer = sample()
    out = write_audit_html(report, answer, tmp_path / "audit.html")
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    with pytest.raises(CiteproofError, match="Could not write the audit page"):
        write_audit_html(report, answer, tmp_path / "missing" / "audit.html")


def test_print_styles_show_every_detail() -> None:
    report, answer = sample()
    doc = parse(render_audit_html(report, answer))
    css = doc.cssselect("style")[0].text
    media = css[css.index("@media print") :]
    assert "details.cit:not([open])::details-content { display: block;" in media
    assert "#show-all" in media and ".toolbar" in media


def test_template_ships_as_package_data() -> None:
    import citeproof.report as pkg

    folder = Path(pkg.__file__).parent / "templates"
    assert {"audit.html.j2", "audit.css", "audit.js"} <= {p.name for p in folder.iterdir()}


@given(
    st.lists(
        st.tuples(
            st.text(max_size=40) | st.sampled_from(HOSTILE),
            st.sampled_from(["cited_ok", "cited_problem", "uncited", "not_a_claim", "<b>"]),
            st.lists(st.sampled_from([*HOSTILE, "[PMID 1]", "[1]"]), max_size=3),
        ),
        max_size=6,
    )
)
def test_any_answer_renders_every_citation_as_text(
    parts: list[tuple[str, str, list[str]]],
) -> None:
    report, answer = build(
        [
            (lead, [(raw, cit("ok", target=raw)) for raw in raws], status)
            for lead, status, raws in parts
        ]
    )
    page = render_audit_html(report, answer)
    doc = parse(page)
    n = sum(len(raws) for _, _, raws in parts)
    assert len(doc.cssselect("summary.chip")) == n
    assert len(doc.cssselect("script")) == SCRIPT_COUNT
    assert not doc.cssselect("img, svg, a, iframe")
    # Every citation is shown exactly as written, in order, whatever Markdown is around it.
    area = doc.get_element_by_id("answer")
    shown_raws = [c.text_content() for c in area.cssselect(".cite-raw")]
    assert shown_raws == [shown(raw).replace("\r", "\n") for _, _, raws in parts for raw in raws]
    if not area.cssselect(".md-p, .md-h1, .md-h2, li, blockquote, .md-code"):
        # Shown as written (no Markdown, or it could not be laid out): the whole answer.
        for extra in area.cssselect("details, span.tag"):
            extra.drop_tree()
        assert area.text_content() == shown(answer).replace("\r", "\n")


def test_a_real_audit_renders(tmp_path: Path) -> None:
    """The page built from the audit's own report (not a hand-made dict)."""
    run = pytest.importorskip("citeproof.audit.run", reason="the audit is not built yet")
    from citeproof.handles.registry import passages_for
    from pmc_replay import QUOTE, pmc_replay

    replay = pmc_replay(tmp_path / "replay")
    listing = passages_for("PMC3166277", replay=replay, limit=5)
    handle = next(p.handle for p in listing.passages if p.handle)
    answer = (
        f'Exact: "{QUOTE}" [PMC3166277].\n\n'
        f'Near: "{QUOTE.replace("explore", "explor")}" [PMC3166277].\n\n'
        f"A handle [{handle}] and a forged one [{handle[:-2]}ZZ].\n\n"
        "An uncited claim <img src=x onerror=alert(1)>.\n"
    )
    report = run.audit_answer(answer, offline=True, retraction=False, sign=False)
    data = report.model_dump(mode="json")
    doc = parse(render_audit_html(data))  # the answer comes from the report itself
    cits = [c for s in data["sentences"] for c in s["citations"]]
    chips = doc.cssselect("summary.chip")
    assert len(chips) == len(cits) == 4
    assert [c.get("class").split()[1] for c in chips] == ["v-ok", "v-near", "v-ok", "v-bad"]
    assert doc.get_element_by_id("d-0").cssselect("mark.hit")[0].text_content() == QUOTE
    assert doc.get_element_by_id("d-1").cssselect(".diff del, .diff ins")
    assert "pmcid:PMC3166277" in doc.get_element_by_id("d-0").text_content()
    assert not doc.cssselect("img")
    assert "onerror=alert(1)" in doc.get_element_by_id("answer").text_content()
