"""The audit page in a real browser: it opens from a file, its chips work by mouse and
keyboard, it logs no errors and asks the network for nothing.  The references page too
(``refs --html``): its leads first, every card readable, its evidence opening without script.

Driven with Playwright's Python package over the system's Chromium, launched by executable
path (no browser is ever downloaded).  Skipped, with the reason, where either is missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser import SCREENSHOTS, launched, needs_chromium, open_everything, watch
from citeproof.report import write_audit_html, write_references_html

pytestmark = needs_chromium

ANSWER = (
    "# Findings\n\n"
    'Melatonin shortened sleep onset: "sleep onset latency fell" [pmcid:PMC1/body.p3~ABCDEFGH]. '
    'The effect was "0.9 in all" [PMID 123]. '
    "An uncited claim <script>alert(1)</script>."
)


def _report() -> tuple[dict[str, Any], str]:
    s1 = ANSWER.index("Melatonin")
    s2 = ANSWER.index("The effect")
    s3 = ANSWER.index("An uncited")
    h = ANSWER.index("[pmcid")
    p = ANSWER.index("[PMID")
    source = {
        "input": "pmcid:PMC1",
        "kind": "jats",
        "identifier": "pmcid:PMC1",
        "title": "Example trial",
        "served_by": "pmc",
        "coverage": "full_text",
        "sha256": "cd" * 32,
        "url": "https://example.org/should-not-load",
    }
    exact = {
        "schema": "citeproof.check/1",
        "verdict": "EXACT",
        "quote": "sleep onset latency fell",
        "matches": [
            {
                "start": 14,
                "end": 38,
                "normalized_start": 14,
                "normalized_end": 38,
                "text": "sleep onset latency fell",
                "location": {"block": 2, "section": ["Results"], "region": "body"},
            }
        ],
        "source": source,
        "flags": [],
    }
    near = {
        "schema": "citeproof.check/1",
        "verdict": "NEAR",
        "quote": "0.9 in all",
        "near": {
            "similarity": 0.9,
            "start": 0,
            "end": 11,
            "text": "0.93 in all",
            "diff": [
                {"op": "replace", "quote": "0.9", "source": "0.93"},
                {"op": "equal", "quote": "in all", "source": "in all"},
            ],
            "flags": ["numbers_differ"],
        },
        "source": source | {"identifier": "pmid:123", "input": "pmid:123"},
        "flags": [],
    }
    report = {
        "schema": "citeproof.audit/1",
        "verdict": "fail",
        "sentences": [
            {
                "index": 0,
                "text": "# Findings",
                "status": "not_a_claim",
                "citations": [],
                "start": 0,
                "end": 10,
            },
            {
                "index": 1,
                "text": ANSWER[s1 : s2 - 1],
                "status": "cited_ok",
                "start": s1,
                "end": s2 - 1,
                "citations": [
                    {
                        "raw": ANSWER[h : ANSWER.index("]", h) + 1],
                        "kind": "handle",
                        "target": "pmcid:PMC1/body.p3~ABCDEFGH",
                        "quote": "sleep onset latency fell",
                        "verdict": "ok",
                        "flags": [],
                        "reason": None,
                        "check": exact,
                        "start": h,
                        "end": ANSWER.index("]", h) + 1,
                        # The passage as issued, where the contract keeps it.
                        "handle": {
                            "as_issued_text": "In the trial, sleep onset latency fell "
                            "by 12 minutes."
                        },
                    }
                ],
            },
            {
                "index": 2,
                "text": ANSWER[s2 : s3 - 1],
                "status": "cited_problem",
                "start": s2,
                "end": s3 - 1,
                "citations": [
                    {
                        "raw": "[PMID 123]",
                        "kind": "pmid",
                        "target": "pmid:123",
                        "quote": "0.9 in all",
                        "verdict": "misquote",
                        "flags": ["numbers_differ"],
                        "reason": "A number differs.",
                        "check": near,
                        "start": p,
                        "end": p + 10,
                    }
                ],
            },
            {
                "index": 3,
                "text": ANSWER[s3:],
                "status": "uncited",
                "citations": [],
                "start": s3,
                "end": len(ANSWER),
            },
        ],
        "metrics": {
            "sentences": 4,
            "claims": 3,
            "cited_claims": 2,
            "citations": 2,
            "citation_validity": 0.5,
        },
        "fail_on": ["misquote"],
        "signature": {"algorithm": "ed25519", "key_id": "demo-key", "value": "x"},
    }
    return report, ANSWER


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched() as chromium:
        yield chromium


def _is_open(page: Any, number: int) -> bool:
    return bool(page.evaluate(f"document.getElementById('cit-{number}').open"))


def test_page_in_chromium(browser: Any, tmp_path: Path) -> None:
    report, answer = _report()
    path = write_audit_html(report, answer, tmp_path / "audit.html")
    url = path.resolve().as_uri()
    page = browser.new_page()
    errors, requests = watch(page, url)
    page.goto(url)

    header = page.locator("#verdict")
    assert header.get_attribute("data-verdict") == "fail"
    assert "FAIL" in header.inner_text().upper()
    assert "1 misquote" in page.locator("#verdict-counts").inner_text()
    assert "demo-key" in page.locator("#key-id").inner_text()
    # The script ran: the CSP's hash is the script's (a refused script logs an error too).
    assert page.evaluate("document.documentElement.classList.contains('js')")
    assert page.locator("#show-all").is_visible()

    # Each citation's details are folded under its sentence until its chip is chosen.
    detail0 = page.locator("#d-0")
    assert not detail0.is_visible()
    chip0 = page.locator("#chip-0")
    chip0.click()
    assert detail0.is_visible() and _is_open(page, 0)
    mark = detail0.locator("mark.hit")
    assert mark.is_visible()
    assert mark.inner_text() == "sleep onset latency fell"
    # The panel opens right under the sentence, before the next one.
    sentence1 = page.locator("#s-1").bounding_box()
    sentence2 = page.locator("#s-2").bounding_box()
    panel = detail0.bounding_box()
    assert sentence1["y"] < panel["y"] < sentence2["y"]

    # Keyboard: Enter on the second chip opens it; Space closes it; Escape closes the first.
    page.locator("#chip-1").focus()
    page.keyboard.press("Enter")
    detail1 = page.locator("#d-1")
    assert detail1.is_visible()
    assert detail1.locator(".diff del").inner_text() == "0.93"
    assert detail1.locator(".diff ins").inner_text() == "0.9"
    page.keyboard.press("Space")
    assert not detail1.is_visible()
    chip0.focus()
    page.keyboard.press("Escape")
    assert not detail0.is_visible()
    assert page.evaluate("document.activeElement.id") == "chip-0"

    # "Open every citation", then again to close them all.
    page.locator("#show-all").click()
    assert detail0.is_visible() and detail1.is_visible()
    page.locator("#show-all").click()
    assert not detail0.is_visible() and not detail1.is_visible()

    # Hostile text in the answer stayed text and ran nothing.
    assert "<script>alert(1)</script>" in page.locator("#answer").inner_text()

    # Print shows every panel, by CSS alone.
    page.emulate_media(media="print")
    assert detail0.is_visible() and detail1.is_visible()
    assert not page.locator("#show-all").is_visible()
    assert not page.locator("#problems-only").is_visible()

    assert errors == []
    assert requests == [url]
    page.close()


def test_the_page_works_without_javascript(browser: Any, tmp_path: Path) -> None:
    report, answer = _report()
    path = write_audit_html(report, answer, tmp_path / "audit.html")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(path.resolve().as_uri())
    assert page.locator("html.js").count() == 0  # the page's script did not run
    assert not page.locator("#show-all").is_visible()  # a script-only control is hidden
    assert not page.locator("#d-1").is_visible()
    page.locator("#chip-1").focus()
    page.keyboard.press("Enter")  # <details> opens by itself
    assert page.locator("#d-1").is_visible()
    # The filter is a checkbox and CSS: the sentence that holds steps aside.
    assert page.locator("#s-1").is_visible()
    page.locator("#problems-only").check()
    assert not page.locator("#s-1").is_visible() and not page.locator("#chip-0").is_visible()
    assert page.locator("#s-2").is_visible() and page.locator("#chip-1").is_visible()
    assert page.locator("#s-3").is_visible()  # the uncited claim is a problem too
    page.locator("#problems-only").uncheck()
    assert page.locator("#s-1").is_visible()
    context.close()


def _demo(tmp_path: Path) -> Path:
    from concurrent.futures import ThreadPoolExecutor

    from citeproof.demo import run_demo

    # Playwright's sync API runs an event loop in this thread; the demo runs its own.
    with ThreadPoolExecutor(1) as pool:
        result = pool.submit(run_demo, tmp_path / "demo", say=lambda line: None).result()
    return result.page


@pytest.fixture(scope="module")
def demo_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _demo(tmp_path_factory.mktemp("demo"))


def test_the_demo_page_in_chromium(browser: Any, demo_page: Path) -> None:
    """The page `citeproof demo` writes: its banner, a chip, the highlighted passage, the
    retracted work's red chip, and nothing unrecorded."""
    url = demo_page.resolve().as_uri()
    page = browser.new_page()
    errors, requests = watch(page, url)
    page.goto(url)
    assert page.locator("#verdict").get_attribute("data-verdict") == "fail"
    assert (
        page.locator("#verdict-counts").inner_text().startswith("1 forged, 1 misquote, 1 retracted")
    )
    assert page.locator("#source-name").inner_text() == "answer.md"
    chip = page.locator("#chip-0")  # the handle citation with its exact quote
    chip.click()
    mark = page.locator("#d-0 mark.hit")
    assert mark.is_visible()
    assert "fell asleep 12 minutes faster" in mark.inner_text()
    retracted = page.locator("summary.chip .chip-badge")
    assert retracted.inner_text().upper().startswith("\u26a0 RETRACTED")
    color = retracted.evaluate("e => getComputedStyle(e).backgroundColor")
    assert color == "rgb(161, 22, 27)"  # the misquote's red
    assert "was not recorded" not in page.locator("body").inner_text()
    assert errors == []
    assert requests == [url]
    page.close()


def test_keyboard_reaches_every_chip_and_summary(browser: Any, demo_page: Path) -> None:
    page = browser.new_page()
    page.goto(demo_page.resolve().as_uri())
    name_them = "(e, i) => { if (!e.id) { e.id = 'summary-' + i; } return e.id; }"
    wanted = set(page.evaluate(f"Array.from(document.querySelectorAll('summary'), {name_them})"))
    reached: list[str] = []
    for _ in range(200):
        page.keyboard.press("Tab")
        here = page.evaluate("document.activeElement.id || document.activeElement.tagName")
        if reached and here == reached[0]:
            break
        reached.append(here)
    chips = {f"chip-{n}" for n in range(page.locator("summary.chip").count())}
    assert chips and chips <= set(reached)
    assert wanted <= set(reached)
    assert "problems-only" in reached and "show-all" in reached
    # Chips come in reading order, and Enter then Space opens and closes each.
    order = [r for r in reached if r.startswith("chip-")]
    assert order == sorted(order, key=lambda r: int(r.split("-")[1]))
    for n in range(len(chips)):
        page.locator(f"#chip-{n}").focus()
        page.keyboard.press("Enter")
        assert _is_open(page, n) and page.locator(f"#d-{n}").is_visible()
        page.keyboard.press("Space")
        assert not _is_open(page, n)
    page.close()


def _widest(page: Any) -> float:
    return float(
        page.evaluate(
            """() => Math.max(0, ...Array.from(document.querySelectorAll('body *'), el => {
                const box = el.getBoundingClientRect();
                return box.width > 0 ? box.right : 0;
            }))"""
        )
    )


@pytest.mark.parametrize("width", [320, 390, 768, 1280])
def test_nothing_overflows_the_viewport(
    browser: Any, demo_page: Path, tmp_path: Path, width: int
) -> None:
    """No horizontal scroll at any width, with every citation and fold open: the demo's page
    and one whose handles, identifiers and URLs run 150 characters without a break."""
    long_page = write_audit_html(_long_report(), ANSWER, tmp_path / "long.html")
    for path in (demo_page, long_page):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(path.resolve().as_uri())
        open_everything(page)
        assert page.locator("details.cit[open]").count() >= 2
        assert _widest(page) <= width, (path.name, _widest(page))
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.close()


def test_no_label_is_broken_inside_a_word(browser: Any, demo_page: Path) -> None:
    """At 390 px the table of every metric squeezed its labels to a few letters a line
    ("Senten-ces", "Citatio-n validity"): each word of a label must fit its cell whole."""
    page = browser.new_page(viewport={"width": 390, "height": 900})
    page.goto(demo_page.resolve().as_uri())
    open_everything(page)
    broken = page.evaluate(
        """() => {
            const probe = document.createElement('span');
            probe.style.whiteSpace = 'nowrap';
            document.body.appendChild(probe);
            const cells = document.querySelectorAll('#metrics th, dl.facts dt, .source dt');
            const out = Array.from(cells).filter(cell => {
                const style = getComputedStyle(cell);
                probe.style.font = style.font;
                const room = cell.clientWidth - parseFloat(style.paddingLeft)
                    - parseFloat(style.paddingRight);
                return cell.textContent.split(/\\s+/).some(word => {
                    probe.textContent = word;
                    return probe.getBoundingClientRect().width > room + 0.5;
                });
            }).map(cell => cell.textContent);
            probe.remove();
            return out;
        }"""
    )
    assert broken == []
    page.close()


def test_screenshots_of_the_demo_page(browser: Any, demo_page: Path, tmp_path: Path) -> None:
    """The demo's page at 1280 and 390 px, its misquote open.  With CITEPROOF_SCREENSHOTS
    naming a folder (docs/img), the pictures docs/report.md shows are written there."""
    out = Path(SCREENSHOTS or tmp_path)
    for width, name in ((1280, "audit-demo-1280.png"), (390, "audit-demo-390.png")):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(demo_page.resolve().as_uri())
        misquote = page.locator("details.cit[data-verdict='misquote'] > summary")
        misquote.click()
        assert page.locator("details.cit[data-verdict='misquote'] .diff").is_visible()
        page.mouse.move(0, 0)
        height = page.evaluate("document.documentElement.scrollHeight")
        if width == 1280:
            page.screenshot(path=str(out / name), full_page=True)
        else:  # the banner, the cards and the answer down to the open misquote's diff
            bottom = page.locator("details.cit[data-verdict='misquote'] .diff").evaluate(
                "e => e.getBoundingClientRect().bottom + window.scrollY"
            )
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(
                path=str(out / name),
                clip={"x": 0, "y": 0, "width": width, "height": min(height, int(bottom) + 60)},
                full_page=True,
            )
        assert (out / name).stat().st_size > 10_000
        page.close()


def test_screenshots_of_the_retracted_paper(browser: Any, demo_page: Path, tmp_path: Path) -> None:
    """The demo's citation of its retracted paper, opened, and that paper's reference card,
    at 1280 px: the pictures docs/report.md shows of a retraction (with CITEPROOF_SCREENSHOTS,
    written there)."""
    out = Path(SCREENSHOTS or tmp_path)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(demo_page.resolve().as_uri())
    cited = page.locator("details.cit:has(.chip-badge)")
    cited.locator("> summary").click()
    assert cited.locator(".retraction").is_visible()
    page.mouse.move(0, 0)
    # From the first line of the citing sentence (the span before the chip, or the first
    # part of it that carries the sentence's id) to the end of the retraction notice.
    sentence = cited.evaluate(
        """e => { let s = e.previousElementSibling;
                  while (s && !(s.classList.contains('sent') && s.id)) {
                      s = s.previousElementSibling; }
                  return s.id; }"""
    )
    answer = page.locator("#answer").bounding_box()
    top = page.locator(f"#{sentence}").bounding_box()
    bottom = cited.locator(".retraction").bounding_box()
    assert answer and top and bottom
    page.screenshot(
        path=str(out / "audit-demo-retracted-1280.png"),
        full_page=True,
        clip={
            "x": answer["x"],
            "y": top["y"] - 2,
            "width": answer["width"],
            "height": bottom["y"] + bottom["height"] - top["y"] + 12,
        },
    )
    page.locator("#references article.ref").screenshot(
        path=str(out / "audit-demo-reference-1280.png")
    )
    for name in ("audit-demo-retracted-1280.png", "audit-demo-reference-1280.png"):
        assert (out / name).stat().st_size > 10_000
    page.close()


def _references_report() -> dict[str, Any]:
    """The page's report with a reference list whose identifiers and URLs never break."""
    from citeproof.models.references import (
        Comparison,
        ReferenceResult,
        ReferenceVerdict,
        ServiceAnswer,
        StatedFields,
        WorkFound,
    )
    from citeproof.models.search import ResponseDigest

    verdicts: tuple[ReferenceVerdict, ...] = ("verified", "mismatch", "ambiguous", "unavailable")
    long_doi = "10.5555/invented." + "x" * 120
    long_url = "https://api.crossref.org/works/" + "%2F".join(["invented-segment"] * 12)
    work = WorkFound(
        source="crossref",
        identifier=f"doi:{long_doi}",
        doi=long_doi,
        title="An invented title with a very long unbroken word " + "y" * 90,
        authors=["Alvarez, M.", "Berg, T.", "Chen, L.", "Dube, K."],
        year=2021,
        venue="Journal of Invented Results",
        retraction="RETRACTED",
    )
    refs = [
        ReferenceResult(
            index=i + 1,
            verdict=verdict,
            reason=f"Invented reason naming doi:{long_doi}.",
            stated=StatedFields(text=f"Alvarez M. Invented. {long_url}", label=str(i + 1)),
            work=work,
            comparisons=[
                Comparison(
                    field="title",
                    stated="z" * 80,
                    record="w" * 80,
                    score=0.2,
                    agreement="differs",
                    threshold="same title at >= 0.90, another work below 0.75",
                )
            ],
            suggested=work if verdict == "mismatch" else None,
            candidates=[work, work] if verdict == "ambiguous" else [],
            retracted=True,
            asked=[
                ServiceAnswer(
                    service="crossref",
                    purpose="identifier",
                    query=long_doi,
                    status="ok",
                    responses=[ResponseDigest(url=long_url, status=200, sha256="ab" * 32)],
                )
            ],
        )
        for i, verdict in enumerate(verdicts)
    ]
    report, _ = _report()
    report["references"] = [r.model_dump(mode="json") for r in refs]
    return report


def _long_report() -> dict[str, Any]:
    """The references report with a 150-character handle and source URL on a citation."""
    report = _references_report()
    long_handle = "pmcid:PMC1/body." + "segment" * 20 + "~ABCDEFGH"
    cit = report["sentences"][1]["citations"][0]
    cit["target"] = long_handle
    cit["check"] = cit["check"] | {
        "source": cit["check"]["source"] | {"url": "https://example.org/" + "p" * 150}
    }
    return report


def test_the_references_fit_a_phone(browser: Any, tmp_path: Path) -> None:
    """At 390 and 1280 px nothing in the References section reaches past the screen's edge, even
    with every <details> opened and identifiers and URLs of 150 characters without a break."""
    path = write_audit_html(_references_report(), ANSWER, tmp_path / "audit.html")
    url = path.resolve().as_uri()
    for width in (390, 1280):
        page = browser.new_page(viewport={"width": width, "height": 844})
        requests: list[str] = []
        page.on("request", lambda r, seen=requests: seen.append(r.url))
        page.goto(url)
        section = page.locator("#references")
        assert section.is_visible()
        assert page.locator("#references article.ref").count() == 4
        for summary in page.locator("#references details.asked > summary").all():
            summary.click()
        assert page.locator("#references details[open]").count() == 4
        widest = page.evaluate(
            """() => Math.max(...Array.from(
                document.querySelectorAll('#references, #references *'),
                el => el.getBoundingClientRect().right))"""
        )
        assert widest <= width, widest
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert requests == [url]
        page.close()


# ------------------------------------------------------------------ the references page


def _example_references(home: Path) -> Any:
    """``citeproof refs examples/example-references.md --replay tests/refs/recordings
    --no-retraction``, as a report: invented entries, answered from invented recordings."""
    from concurrent.futures import ThreadPoolExecutor

    from citeproof.service.references import verify_references

    root = Path(__file__).resolve().parents[2]
    with pytest.MonkeyPatch.context() as env:  # a module fixture runs before the suite's home
        for name in [k for k in os.environ if k.startswith("CITEPROOF_")]:
            env.delenv(name)
        env.setenv("CITEPROOF_HOME", str(home))
        # Playwright's sync API runs an event loop in this thread; the verification its own.
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(
                verify_references,
                root / "examples" / "example-references.md",
                replay=root / "tests" / "refs" / "recordings",
                retraction=False,
            ).result()


@pytest.fixture(scope="module")
def refs_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    report = _example_references(tmp_path_factory.mktemp("refs-home"))
    return write_references_html(
        report,
        tmp_path_factory.mktemp("refs") / "refs.html",
        source_names=["examples/example-references.md"],
    )


def _long_references_page(tmp_path: Path) -> Path:
    """The references of ``_references_report``: identifiers, URLs and titles of 150
    characters without a break, every one retracted, in a references report."""
    refs = _references_report()["references"]
    data = {"schema": "citeproof.references/1", "source": "x" * 150 + ".bib", "references": refs}
    data["reading"] = ["Number " + "9" * 150 + " is missing."]
    return write_references_html(data, tmp_path / "long-refs.html")


def _unreadable_cards(page: Any) -> list[str]:
    """The cards that are hidden, reach past the screen's edge, or clip their own text."""
    return list(
        page.evaluate(
            """() => Array.from(document.querySelectorAll('article.ref')).filter(card => {
                const box = card.getBoundingClientRect();
                return box.width < 250 || box.height < 40 || box.left < 0
                    || box.right > document.documentElement.clientWidth
                    || card.scrollWidth > card.clientWidth + 1
                    || parseFloat(getComputedStyle(card).fontSize) < 12;
            }).map(card => card.id)"""
        )
    )


@pytest.mark.parametrize("width", [390, 1280])
def test_the_references_page_in_chromium(browser: Any, refs_page: Path, width: int) -> None:
    """The page `refs --html` writes for the example list: the leads first, every card
    readable, the evidence opening under its card without script, nothing past the edge."""
    url = refs_page.resolve().as_uri()
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors, requests = watch(page, url)
    page.goto(url)
    header = page.locator("#verdict")
    assert header.get_attribute("data-verdict") == "check"
    assert header.is_visible() and "CHECK BY HAND" in header.inner_text().upper()
    assert page.locator("#verdict-counts").inner_text().startswith("1 wrong work, 1 not found")
    verdicts = page.eval_on_selector_all("article.ref", "els => els.map(e => e.dataset.verdict)")
    assert verdicts == ["mismatch", "not_found", "partial", "ambiguous", "verified", "verified"]
    assert _unreadable_cards(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    # The evidence is folded; its summary opens it (there is no script on this page).
    asked = page.locator("article.ref").first.locator("details.asked")
    evidence = asked.locator("ul").first
    assert not evidence.is_visible()
    page.emulate_media(media="print")  # printed, every fold is open, by CSS alone
    assert evidence.is_visible()
    page.emulate_media(media="screen")
    assert not evidence.is_visible()
    asked.locator("summary").click()
    assert evidence.is_visible()
    assert "sha256" in evidence.inner_text()
    summary = page.locator("article.ref").nth(1).locator("details.asked > summary")
    summary.focus()
    page.keyboard.press("Enter")
    assert page.locator("article.ref").nth(1).locator("details.asked ul").first.is_visible()

    # Every fold open: still nothing past the edge, every card still readable.
    open_everything(page)
    assert page.locator("details.asked[open]").count() == 6
    assert _widest(page) <= width, _widest(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert _unreadable_cards(page) == []

    # "Problems only" is a checkbox and CSS: what matched steps aside, the leads stay.
    page.locator("#problems-only").check()
    assert page.locator("article.ref[data-verdict='mismatch']").is_visible()
    assert not page.locator("article.ref[data-verdict='verified']").first.is_visible()
    assert not page.locator("section.g-matched").is_visible()
    page.locator("#problems-only").uncheck()
    assert page.locator("article.ref[data-verdict='verified']").first.is_visible()

    assert page.evaluate("document.scripts.length") == 1  # the report's JSON, which never runs
    assert errors == []
    assert requests == [url]
    page.close()


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_long_identifiers_fit_the_references_page(browser: Any, tmp_path: Path, width: int) -> None:
    path = _long_references_page(tmp_path)
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(path.resolve().as_uri())
    open_everything(page)
    assert page.locator("article.ref").count() == 4
    assert _widest(page) <= width, _widest(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert _unreadable_cards(page) == []
    page.close()


def test_screenshots_of_the_references_page(browser: Any, refs_page: Path, tmp_path: Path) -> None:
    """The example list's page at 1280 px (the banner and every lead to check, the wrong
    work's evidence open) and 390 px (the banner down to the wrong work's fields).  With
    CITEPROOF_SCREENSHOTS naming a folder (docs/img), the pictures docs/report.md shows."""
    out = Path(SCREENSHOTS or tmp_path)
    for width, name in ((1280, "refs-page-1280.png"), (390, "refs-page-390.png")):
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(refs_page.resolve().as_uri())
        first = page.locator("article.ref").first
        if width == 1280:
            first.locator("details.asked > summary").click()
            bottom_of = page.locator("section.g-check")
        else:
            bottom_of = first.locator("table.cmp")
        page.mouse.move(0, 0)
        bottom = bottom_of.evaluate("e => e.getBoundingClientRect().bottom + window.scrollY")
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(
            path=str(out / name),
            clip={"x": 0, "y": 0, "width": width, "height": int(bottom) + 16},
            full_page=True,
        )
        assert (out / name).stat().st_size > 10_000
        page.close()
