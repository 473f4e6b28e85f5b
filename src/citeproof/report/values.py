"""What every card of the pages says through: the leaves of a report, made safe to show.

A report read by :func:`citeproof.report.lenient.read` has the models' shape but the data's
leaves, so a page never trusts a leaf's declared type: it reads a text through
:func:`shown` or :func:`text`, a count through :func:`integer`, a figure through
:func:`score` or :func:`percent`.  Each takes any value and gives what the page can print.

Invisible characters that change how text reads (bidi overrides, zero-width marks, control
characters) are shown as visible ``[U+XXXX]`` tokens (:func:`shown`): an audit view must not
let a quote look different from what it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

__all__ = [
    "WORK_RETRACTION",
    "Piece",
    "counted",
    "integer",
    "number",
    "offsets",
    "percent",
    "score",
    "shown",
    "status_sentence",
    "text",
    "worst",
]

# Controls that change how text reads without being seen: C0/C1 controls (but tab and line
# breaks), bidi embeddings, overrides and isolates, zero-width characters, and the BOM.
_INVISIBLE: Final = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]"
)

#: A retraction report's reason opens with what its status says ("retracted according to
#: pmc, crossref."); the page says the status once, in a sentence about the work:
#: status -> (the reason's opening, what the sentence says of the work instead).
_STATUS_SAID: Final[dict[str, tuple[str, str]]] = {
    "RETRACTED": ("retracted according to ", "has been retracted"),
    "CONCERN": ("an expression of concern according to ", "is under an expression of concern"),
}

#: A work's retraction status -> (label, CSS class); statuses not listed get no badge.
#: A retraction is a failure (red), a concern a warning (amber); a status that could not be
#: established is neutral, never styled like a retraction.
WORK_RETRACTION: Final[dict[str, tuple[str, str]]] = {
    "RETRACTED": ("Retracted", "v-bad"),
    "CONCERN": ("Expression of concern", "v-near"),
    "UNVERIFIABLE": ("Retraction status unknown", "v-gone"),
}

#: The CSS classes of a verdict, worst first.
_WORST_FIRST: Final = ("v-bad", "v-near", "v-gone", "v-unk", "v-ok")


def shown(value: object) -> str:
    """``value`` as a string, every invisible control replaced by a visible ``[U+XXXX]``."""
    s = "" if value is None else str(value)
    return _INVISIBLE.sub(lambda m: f"[U+{ord(m.group()):04X}]", s)


def text(value: object) -> str:
    """``value`` as a string, ``""`` for none (not yet made safe to show: see :func:`shown`)."""
    return "" if value is None else str(value)


def integer(value: object) -> int | None:
    """``value`` when it is an integer (not a boolean), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def number(value: object) -> int | float | None:
    """``value`` when it is a number (not a boolean), else None."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def offsets(start: object, end: object) -> tuple[int, int] | None:
    """(start, end) when both are sane offsets into a text, else None."""
    if isinstance(start, bool) or not isinstance(start, int) or not isinstance(end, int):
        return None
    return (start, end) if 0 <= start <= end else None


def score(value: object) -> str:
    """A score to two places, or ``""`` when ``value`` is no number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return ""
    return f"{value:.2f}"


def percent(value: object) -> str:
    """A rate as a percentage (a figure over 1 as it is), or a dash when it is no number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "\u2014"
    return f"{value * 100:.1f}%" if value <= 1 else f"{value:.1f}"


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of text; ``mark`` says how it is highlighted (``""``: plainly)."""

    text: str
    mark: str = ""


def counted(tally: Mapping[str, int], words: Iterable[tuple[str, str, str]]) -> str:
    """The counts a banner gives in words ("1 misquote, 2 entries never cited"), in the
    order of ``words`` (key, one, many); a count of none is left out."""
    return ", ".join(
        f"{n} {one if n == 1 else many}" for key, one, many in words if (n := tally.get(key, 0)) > 0
    )


def worst(*classes: str) -> str:
    """The worst of verdict CSS classes: a card's colour is the worst of what it shows."""
    return min((c for c in classes if c in _WORST_FIRST), key=_WORST_FIRST.index, default="v-unk")


def status_sentence(status: str, reason: str, subject: str) -> str:
    """What ``status`` says of ``subject``, with the sources ``reason`` names, said once:
    "The cited work has been retracted, according to pmc, crossref." rather than a heading
    "Retracted" over "retracted according to pmc, crossref.".  A reason in other words
    follows the sentence; a status with no sentence of its own keeps its reason as it is."""
    opening, said = _STATUS_SAID.get(status, ("", ""))
    if not said:
        return reason
    if reason.lower().startswith(opening):
        sources = reason[len(opening) :].strip()
        return f"{subject} {said}, according to {sources}" + ("" if sources.endswith(".") else ".")
    return f"{subject} {said}." + (f" {reason}" if reason else "")
