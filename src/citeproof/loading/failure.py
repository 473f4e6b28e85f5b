"""Why a named work gave no text: an answer, not an error.

Kept apart from the fetching (:mod:`citeproof.loading.pins`) so that the code that only
reports a failure (a check's result, a batch line) does not import the HTTP stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["FetchFailure"]


@dataclass(frozen=True, slots=True)
class FetchFailure:
    """No text could be had for an identifier; ``kind`` is the verdict it leads to."""

    kind: Literal["unavailable", "not_checkable"]
    reason: str
    input: str
    identifier: str
    ids: dict[str, str] = field(default_factory=dict)
