"""The docs say what the code does today, not what an earlier version did.

Each case is a sentence a page once held that stopped being true, and the fact that replaced
it: ``log_seq`` is set whenever a check is logged, the fallback chain can give
``UNAVAILABLE``, and ``--find-source`` is the search for where a quote really comes from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _page(name: str) -> str:
    return " ".join((REPO / name).read_text(encoding="utf-8").split())


@pytest.mark.parametrize(
    ("page", "stale", "current"),
    [
        ("README.md", "null in this version", "the evidence-log entry written for this check"),
        ("docs/verdicts.md", "never produces UNAVAILABLE", "## `UNAVAILABLE` (exit 3)"),
        ("docs/matching.md", "later versions add the search", "`--find-source`"),
    ],
)
def test_no_stale_sentence(page: str, stale: str, current: str) -> None:
    text = _page(page)
    assert stale not in text, f"{page} still says {stale!r}"
    assert current in text


def test_matching_points_to_the_search_that_exists() -> None:
    text = _page("docs/matching.md")
    section = text.split("## What the matcher does not do", 1)[1]
    assert "--find-source" in section and "verifies" in section
