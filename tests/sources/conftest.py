"""Fixtures shared by the source tests: replay transports over the corpus recordings.

The helpers behind them live in ``tests/replay_clients.py`` so that tests outside this
directory (``tests/unit``, ``tests/corpus``) use the same ones; fixtures here only give
them to source tests by name.  Both skip, with the reason, when the corpus is absent.
"""

from __future__ import annotations

import pytest

from citeproof.net.replay import ReplayTransport
from replay_clients import litcheck_replay, tekmeria_replay


@pytest.fixture
def litcheck() -> ReplayTransport:
    """Every litcheck-mcp recording in the corpus, fresh for each test."""
    return litcheck_replay()


@pytest.fixture
def tekmeria() -> ReplayTransport:
    """Every tekmeria recording in the corpus, fresh for each test."""
    return tekmeria_replay()
