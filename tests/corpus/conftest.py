"""The shared corpus of real articles and recorded responses, beside the repository.

The corpus is not vendored (it is large and has its own licences), so corpus tests skip
with a clear reason when ``../shared/corpus`` is not there instead of failing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"


@pytest.fixture(scope="session")
def corpus() -> Path:
    """Path of ``../shared/corpus``; skips the test when the corpus is absent."""
    if not CORPUS.is_dir():
        pytest.skip(MISSING)
    return CORPUS
