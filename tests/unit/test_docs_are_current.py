"""The docs say what the code does today, not what an earlier version did.

Each case is a sentence a page once held that stopped being true, and the fact that replaced
it: ``log_seq`` is set whenever a check is logged, the fallback chain can give
``UNAVAILABLE``, and ``--find-source`` is the search for where a quote really comes from.
"""

from __future__ import annotations

import itertools
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


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def _shown_commands(page: Path) -> list[str]:
    """Every command a page shows to be pasted: lines of ``sh`` blocks, and ``$ `` lines of
    ``console`` blocks (what follows the prompt)."""
    commands: list[str] = []
    language: str | None = None
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            language = None if language is not None else line[3:].strip() or "text"
            continue
        if language == "sh" and line.strip() and not line.lstrip().startswith("#"):
            commands.append(line)
        elif language == "console" and line.startswith("$ "):
            commands.append(line[2:])
    return commands


def test_every_command_a_page_shows_is_valid_shell() -> None:
    """``citeproof citing 10.1016/s0140-6736(97)11096-0`` was a syntax error when pasted."""
    import subprocess

    bad = []
    for page in _pages():
        for command in _shown_commands(page):
            run = subprocess.run(["bash", "-n", "-c", command], capture_output=True, check=False)
            if run.returncode:
                bad.append(f"{page.name}: {command}")
    assert not bad, bad


def test_no_heading_is_written_twice_in_a_row() -> None:
    for page in _pages():
        lines = [ln for ln in page.read_text(encoding="utf-8").splitlines() if ln.strip()]
        for first, second in itertools.pairwise(lines):
            assert not (first.startswith("#") and first == second), f"{page.name}: {first}"
