"""Plain result types of the pure matcher (no pydantic: the hot path stays cheap).

``citeproof.service.results`` turns these into the public ``models.CheckResult`` by adding
locations.
All offsets are Python code points, end-exclusive.  ``start``/``end`` index the original
text, ``norm_start``/``norm_end`` the t1-normalised text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

MatchVerdict = Literal["EXACT", "NEAR", "NOT_FOUND", "TOO_SHORT"]
DiffOpName = Literal["equal", "replace", "insert", "delete"]

DEFAULT_NEAR_THRESHOLD = 0.90
DEFAULT_MAX_GAP = 3000
MIN_QUOTE_CHARS = 20
MAX_LISTED_MATCHES = 100


@dataclass(frozen=True, slots=True)
class MatchOptions:
    near_threshold: float = DEFAULT_NEAR_THRESHOLD
    max_gap: int = DEFAULT_MAX_GAP
    profile: str = "t1"
    max_listed: int = MAX_LISTED_MATCHES


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    norm_start: int
    norm_end: int


@dataclass(frozen=True, slots=True)
class DiffStep:
    op: DiffOpName
    quote: str
    source: str


@dataclass(frozen=True, slots=True)
class NearMatch:
    similarity: float
    span: Span
    diff: tuple[DiffStep, ...]
    flags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class FragmentMatch:
    quote: str
    verdict: MatchVerdict
    span: Span | None
    similarity: float | None = None
    gap_before: int | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class QuoteMatch:
    verdict: MatchVerdict
    reason: str | None
    profile: str
    spans: tuple[Span, ...] = ()
    """Occurrences, in text order, at most ``MatchOptions.max_listed`` of them."""
    count: int = 0
    casefold_match: bool = False
    starts_mid_word: bool = False
    ends_mid_word: bool = False
    near: NearMatch | None = None
    fragments: tuple[FragmentMatch, ...] | None = None
    flags: tuple[str, ...] = field(default=())
