"""The manuscript page (``citeproof manuscript --html``) in a real browser: it opens from a
file, asks the network for nothing, logs no error, runs no script, opens its evidence
without one, filters its problems with CSS alone, and fits a phone.

Driven with Playwright's Python package over the system's Chromium, launched by executable
path (no browser is ever downloaded), as ``test_report_browser.py`` drives the audit and
references pages.  Skipped, with the reason, where either is missing.  With
``CITEPROOF_SCREENSHOTS`` naming a folder (docs/img), it writes the pictures
docs/manuscripts.md shows.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from browser import SCREENSHOTS, launched, needs_chromium, open_everything, watch
from citeproof.report import write_manuscript_html

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "manuscript"
pytestmark = needs_chromium


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launched() as chromium:
        yield chromium


def _example_report(home: Path) -> Any:
    """``citeproof manuscript examples/manuscript/paper.docx --replay tests/refs/recordings
    --sources examples/manuscript/sources``, as a report: an invented manuscript whose
    references are answered from invented recordings."""
    from citeproof.service.manuscripts import check_manuscript
    from citeproof.sources.retractionwatch import import_csv

    with pytest.MonkeyPatch.context() as env:  # a module fixture runs before the suite's home
        for name in [k for k in os.environ if k.startswith("CITEPROOF_")]:
            env.delenv(name)
        env.setenv("CITEPROOF_HOME", str(home))
        import_csv(REPO / "tests" / "refs" / "retraction-watch-world.csv")
        # Playwright's sync API runs an event loop in this thread; the check its own.
        with ThreadPoolExecutor(1) as pool:
            return pool.submit(
                check_manuscript,
                EXAMPLE / "paper.docx",
                sources=EXAMPLE / "sources",
                replay=REPO / "tests" / "refs" / "recordings",
            ).result()


@pytest.fixture(scope="module")
def example_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    report = _example_report(tmp_path_factory.mktemp("manuscript-home"))
    return write_manuscript_html(report, tmp_path_factory.mktemp("page") / "manuscript.html")


LONG = "x" * 150


def _long_page(tmp_path: Path) -> Path:
    """Every text the page shows as 150 characters without a break: identifiers, file names,
    markers, quoted words, an entry, a reason."""
    work = {"source": "crossref", "identifier": f"doi:10.5555/{LONG}", "title": LONG}
    result = {
        "index": 1,
        "verdict": "mismatch",
        "reason": LONG,
        "stated": {"text": LONG, "title": LONG, "doi": f"10.5555/{LONG}"},
        "identifiers": [{"identifier": f"doi:10.5555/{LONG}", "exists": True}],
        "work": work,
        "suggested": work,
        "comparisons": [
            {
                "field": "title",
                "stated": LONG,
                "record": LONG,
                "score": 0.1,
                "agreement": "differs",
                "threshold": LONG,
            }
        ],
        "asked": [
            {
                "service": "crossref",
                "purpose": "identifier",
                "query": LONG,
                "status": "ok",
                "responses": [
                    {"url": f"https://api.crossref.org/{LONG}", "status": 200, "sha256": "ab" * 32}
                ],
            }
        ],
    }
    check = {
        "verdict": "NEAR",
        "quote": LONG,
        "near": {
            "similarity": 0.9,
            "text": LONG + "y",
            "diff": [{"op": "replace", "quote": LONG, "source": LONG + "y"}],
        },
        "source": {
            "input": f"sources/{LONG}.pdf",
            "kind": "pdf",
            "sha256": "cd" * 32,
            "url": f"https://example.org/{LONG}",
        },
    }
    quotation = {
        "index": 0,
        "text": LONG,
        "section": [LONG],
        "region": "body",
        "citations": [0],
        "entry_ids": ["ref1"],
        "verdict": "NEAR",
        "finding": "misquote",
        "reason": LONG,
        "against": {"entry_id": "ref1", "kind": "file", "file": f"{LONG}.pdf"},
        "check": check,
    }
    data = {
        "schema": "citeproof.manuscript/1",
        "verdict": "fail",
        "manuscript": {
            "name": f"{LONG}.docx",
            "format": "docx",
            "sha256": "ef" * 32,
            "title": LONG,
            "members": [LONG],
        },
        "quotations": [
            quotation,
            dict(quotation, index=1, finding="unchecked"),
            dict(quotation, index=2, finding="ok"),
        ],
        "references": [
            {"id": "ref1", "label": LONG, "text": LONG, "cited_by": [0], "result": result}
        ],
        "citations": [
            {"index": 0, "marker": f"[{LONG}]", "section": [LONG], "entry_ids": ["ref1"]}
        ],
        "unlinked": [
            {
                "citation": 0,
                "marker": f"[{LONG}]",
                "target": LONG,
                "reason": LONG,
                "section": [LONG],
            }
        ],
        "uncited": ["ref1"],
        "retracted": [
            {
                "entry_id": "ref1",
                "identifier": f"doi:10.5555/{LONG}",
                "status": "RETRACTED",
                "reason": LONG,
                "cited_by": [0],
                "acknowledged": False,
            }
        ],
        "problems": [{"code": LONG, "message": LONG}],
        "sources": [{"file": f"{LONG}.pdf", "reason": LONG}],
        "notes": [LONG],
        "fail_on": [LONG],
        "signature": {"algorithm": "ed25519", "key_id": LONG, "value": LONG},
    }
    return write_manuscript_html(data, tmp_path / "long.html")


def _fits(page: Any, width: int) -> None:
    """Nothing reaches past the screen's edge, no card clips its own text or is unreadable."""
    widest = page.evaluate(
        """() => Math.max(0, ...Array.from(document.querySelectorAll('body *'), el => {
            const box = el.getBoundingClientRect();
            return box.width > 0 ? box.right : 0;
        }))"""
    )
    assert widest <= width, widest
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    unreadable = page.evaluate(
        """() => Array.from(document.querySelectorAll('article')).filter(card => {
            const box = card.getBoundingClientRect();
            return box.width > 0 && (box.width < 250 || box.left < 0
                || box.right > document.documentElement.clientWidth
                || card.scrollWidth > card.clientWidth + 1
                || parseFloat(getComputedStyle(card).fontSize) < 12);
        }).map(card => card.id)"""
    )
    assert unreadable == []


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_the_example_page_in_chromium(browser: Any, example_page: Path, width: int) -> None:
    url = example_page.resolve().as_uri()
    page = browser.new_page(viewport={"width": width, "height": 900})
    errors, requests = watch(page, url)
    page.goto(url)
    header = page.locator("#verdict")
    assert header.get_attribute("data-verdict") == "fail" and header.is_visible()
    assert page.locator("#verdict-counts").inner_text() == "1 near quote, 1 wrong work"
    # the problems first: the near quote, then the wrong work
    problems = page.locator("#problems")
    assert problems.locator("article.quote-card").first.get_attribute("data-finding") == (
        "near_quote"
    )
    assert problems.locator("article.ref").first.get_attribute("data-verdict") == "mismatch"
    diff = problems.locator("article.quote-card .diff").first
    assert diff.is_visible() and "doubled" in diff.inner_text() and "tripled" in diff.inner_text()
    _fits(page, width)

    # The evidence is folded; its summary opens it; printed, every fold is open.
    evidence = page.locator("#matched article.quote-card details.evidence")
    passage = evidence.locator("blockquote.passage")
    assert not passage.is_visible()
    page.emulate_media(media="print")
    assert passage.is_visible()
    page.emulate_media(media="screen")
    evidence.locator("summary").click()
    assert passage.is_visible() and passage.locator("mark.hit").is_visible()
    services = page.locator("#g-references-check details.asked > summary")
    services.focus()
    page.keyboard.press("Enter")
    assert page.locator("#g-references-check details.asked ul").first.is_visible()

    # Every fold open: still nothing past the edge.
    open_everything(page)
    _fits(page, width)

    # "Problems only" is a checkbox and CSS: what was not checked and what matched step aside.
    page.locator("#problems-only").check()
    assert page.locator("#problems").is_visible()
    assert not page.locator("#matched").is_visible()
    assert not page.locator("#unchecked").is_visible()
    page.locator("#problems-only").uncheck()
    assert page.locator("#matched").is_visible()

    assert page.evaluate("document.scripts.length") == 1  # the report's JSON, which never runs
    assert errors == []
    assert requests == [url]
    page.close()


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_long_text_fits_the_page(browser: Any, tmp_path: Path, width: int) -> None:
    path = _long_page(tmp_path)
    page = browser.new_page(viewport={"width": width, "height": 900})
    page.goto(path.resolve().as_uri())
    open_everything(page)
    assert page.locator("article").count() >= 4
    _fits(page, width)
    page.close()


def test_screenshots_of_the_example_page(browser: Any, example_page: Path, tmp_path: Path) -> None:
    """The example's page at 1280 px (the banner, the figures and the problems down to the
    wrong work's fields) and at 390 px (the banner down to the near quote's word diff).
    With CITEPROOF_SCREENSHOTS naming a folder (docs/img), the pictures
    docs/manuscripts.md shows."""
    out = Path(SCREENSHOTS or tmp_path)
    shots = (
        (1280, "manuscript-page-1280.png", "#g-references-check table.cmp"),
        (390, "manuscript-page-390.png", "#g-quotations-differ .diff"),
    )
    for width, name, bottom_of in shots:
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(example_page.resolve().as_uri())
        page.mouse.move(0, 0)
        bottom = page.locator(bottom_of).first.evaluate(
            "e => e.getBoundingClientRect().bottom + window.scrollY"
        )
        page.screenshot(
            path=str(out / name),
            clip={"x": 0, "y": 0, "width": width, "height": int(bottom) + 16},
            full_page=True,
        )
        assert (out / name).stat().st_size > 10_000
        page.close()
