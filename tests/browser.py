"""The browser the page tests drive: the system's Chromium through Playwright's Python package.

One harness for every page test (the audit and references pages, the manuscript page): the
executable found by path (``CITEPROOF_CHROMIUM``, else the distribution's package; no browser
is ever downloaded), the flags that keep it off the network, the skip mark with its reason
where either is missing, and the watcher that fails a page for any console error, page
error, dialog or request but its own.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str | None:
    for candidate in (
        os.environ.get("CITEPROOF_CHROMIUM"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = _chromium()
#: Where the screenshots the docs show are written (docs/img), when set; read at import,
#: before the suite's fixtures clear every CITEPROOF_* variable.
SCREENSHOTS = os.environ.get("CITEPROOF_SCREENSHOTS")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium executable (install the distribution's chromium package)"
)


@contextmanager
def launched() -> Iterator[Any]:
    """Chromium, started headless from its path, closed after."""
    sync_api = pytest.importorskip(
        "playwright.sync_api",
        reason="the playwright package is not installed (pip install playwright)",
    )
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def watch(page: Any, url: str) -> tuple[list[str], list[str]]:
    """Console errors and warnings (a CSP violation is one), page errors, dialogs and every
    request; any request but the page's own is refused."""
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.on("dialog", lambda d: errors.append(f"dialog: {d.message}"))

    def guard(route: Any) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            errors.append(f"blocked request: {route.request.url}")
            route.abort()

    page.route("**/*", guard)
    return errors, requests


def open_everything(page: Any) -> None:
    """Every fold of the page open, as a reader who opened them all sees it."""
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
