"""The expected audit result of every planted citation, derived from what was planted.

Why an oracle of its own: a conformance suite that asked the audit (or the matcher) what the
answer should be would only test that the code agrees with itself.  This module imports
nothing from ``citeproof``; it knows only the planted facts (how the handle was damaged, what
was done to the quote, what became of the source) and the rules of the design document:

* citation verdicts, the first that applies: ``malformed``, ``forged``, ``unresolvable``,
  ``unavailable``, ``withdrawn``, ``misquote`` (NOT_FOUND; NEAR with a risk flag -- the
  design lists ``numbers_differ``, ``negation_differs``, ``case_only`` and
  ``punctuation_only`` as the risk flags; a match starting or ending mid-word; an ellipsis
  hiding a negation), ``near_quote`` (NEAR without a risk flag), ``ok``;
* flags add detail: the risk flags, ``partial_word``, ``ellipsis_hides_negation``,
  ``retracted``, ``concern``, ``version_changed``, ``preprint``, ``match_in_references``,
  ``found_elsewhere``;
* NEAR means a similarity of at least 0.90 after normalisation profile ``t1``; the planted
  edits are kept far from that line (>= 0.95 or <= 0.80, checked by the suite), so the
  oracle's own similarity measure need not be the matcher's;
* overall: ``fail`` on forged, malformed, unresolvable, a misquote or a retracted source;
  else ``incomplete`` when a source was unavailable; else ``warn`` for uncited claims,
  near quotes and concerns; else ``pass``.

``found_elsewhere`` is never expected: it reports where ``--find-source`` verified the words
in *other* documents, a search the audit makes only when asked.  A handle whose quote is the
words of another passage of the same document is therefore a plain misquote.

Where the design says nothing (the overall verdict of an answer whose worst finding is a
withdrawn passage; the sentence status of a near quote or an unavailable source), the oracle
answers ``None`` and the suite does not compare.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

Edit = Literal[
    "none",  # the quote is the source's words as they stand
    "fold",  # differs only in what profile t1 folds (quotes, dashes, spaces, NFKC ...)
    "marker",  # the source has an inline citation marker inside the quoted span
    "partial",  # an exact match that starts or ends inside a word (or a number)
    "ellipsis",  # fragments in order; the skipped text has no negation
    "ellipsis_negation",  # fragments in order; the skipped text holds a negation
    "number",  # one number, unit, sign or comparison changed
    "negation",  # a negating word dropped, added or swapped
    "case",  # only letter case differs
    "punctuation",  # only punctuation differs
    "word",  # one ordinary word changed (not a number, not a negation)
    "absent",  # words the source does not contain
]
Fault = Literal["malformed", "forged", "no_entry", "no_identifier"]
SourceState = Literal["pinned", "unpinned", "withdrawn", "changed"]
Standing = Literal["none", "retracted", "concern"]
CitationKind = Literal["handle", "pmid", "pmcid", "doi", "numbered"]
Verdict = Literal[
    "malformed",
    "forged",
    "unresolvable",
    "unavailable",
    "withdrawn",
    "misquote",
    "near_quote",
    "ok",
]
Overall = Literal["pass", "warn", "fail", "incomplete"]

#: Every flag the design names; flags outside this set are reported but not compared.
DESIGN_FLAGS: Final = frozenset(
    {
        "numbers_differ",
        "negation_differs",
        "case_only",
        "punctuation_only",
        "partial_word",
        "ellipsis_hides_negation",
        "retracted",
        "concern",
        "version_changed",
        "preprint",
        "match_in_references",
        "found_elsewhere",
    }
)
RISK_FLAG: Final[dict[Edit, str]] = {
    "number": "numbers_differ",
    "negation": "negation_differs",
    "case": "case_only",
    "punctuation": "punctuation_only",
}
NEAR_THRESHOLD: Final = 0.90
#: Planted edits must keep this far from the threshold, whatever similarity measure is used.
SAFE_NEAR: Final = 0.95
SAFE_FAR: Final = 0.80
FAILING: Final = frozenset({"malformed", "forged", "unresolvable", "misquote"})
PROBLEMS: Final = FAILING | {"withdrawn"}


@dataclass(frozen=True, slots=True)
class Plant:
    """What was planted for one citation: the whole input of the oracle."""

    kind: CitationKind
    quote: str | None = None
    span: str | None = None  # the source's own words the quote was made from
    edit: Edit = "none"
    fault: Fault | None = None
    source: SourceState = "pinned"
    standing: Standing = "none"
    in_references: bool = False


@dataclass(frozen=True, slots=True)
class Expected:
    verdict: Verdict
    flags: frozenset[str]

    def show(self) -> str:
        return f"{self.verdict} {sorted(self.flags)}"


_QUOTES = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛′‵`´", "'"),
        **dict.fromkeys("“”„‟″‶«»", '"'),
        **dict.fromkeys("‐‑‒–—―−⁃﹣－", "-"),
    }
)
_INVISIBLE = re.compile("[\u00ad\u200b\u200c\u200d\u2060\ufeff]")
_SPACE = re.compile(r"\s+")


def t1(text: str) -> str:
    """Profile t1 as the design states it (written here, not imported)."""
    out = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    out = _INVISIBLE.sub("", out)
    return _SPACE.sub(" ", out).strip()


def similarity(a: str, b: str) -> float:
    """A similarity in [0, 1] of two texts after t1 (difflib's ratio: independent of the
    matcher's measure, which is why planted edits keep a margin from the threshold)."""
    return difflib.SequenceMatcher(None, t1(a), t1(b), autojunk=False).ratio()


def quote_is_exact(plant: Plant) -> bool:
    """For exact-by-construction edits: the quote, folded, is in the span, folded."""
    assert plant.quote is not None and plant.span is not None
    return t1(plant.quote) in t1(plant.span)


_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\.\.\.|…)\s*\]|\.\.\.|…)\s*")
_NEGATIONS: Final = frozenset("not no never without cannot nor neither none".split())


def skipped_spans(plant: Plant) -> list[str] | None:
    """The source text an ellipsis quote skips (None if its fragments are not in order)."""
    assert plant.quote is not None and plant.span is not None
    source = t1(plant.span)
    skipped: list[str] = []
    at = 0
    for k, fragment in enumerate(t1(part) for part in _ELLIPSIS.split(plant.quote)):
        found = source.find(fragment, at)
        if found < 0:
            return None
        if k:
            skipped.append(source[at:found])
        at = found + len(fragment)
    return skipped


def hides_negation(skipped: Iterable[str]) -> bool:
    return any(w in _NEGATIONS for s in skipped for w in re.findall(r"[a-z]+", s.lower()))


def _quote_outcome(plant: Plant) -> tuple[Verdict, set[str]]:
    if plant.quote is None or plant.edit in ("none", "fold", "marker", "ellipsis"):
        return "ok", set()
    if plant.edit == "partial":
        return "misquote", {"partial_word"}
    if plant.edit == "ellipsis_negation":
        return "misquote", {"ellipsis_hides_negation"}
    if plant.edit == "absent" or plant.span is None:
        return "misquote", set()
    near = similarity(plant.quote, plant.span) >= NEAR_THRESHOLD
    if plant.edit == "word":
        return ("near_quote", set()) if near else ("misquote", set())
    return "misquote", ({RISK_FLAG[plant.edit]} if near else set())


def expect(plant: Plant) -> Expected:
    """The citation verdict and flags the design prescribes for ``plant``."""
    if plant.fault == "malformed":
        return Expected("malformed", frozenset())
    if plant.fault == "forged":
        return Expected("forged", frozenset())
    if plant.fault == "no_entry":
        return Expected("unresolvable", frozenset())
    if plant.fault == "no_identifier":
        # An entry without an identifier is searched for in the scholarly record
        # (docs/references.md); the suite audits offline, where no search can be made, so
        # nothing is concluded about it: unavailable, never unresolvable.
        return Expected("unavailable", frozenset())
    if plant.source == "unpinned":
        return Expected("unavailable", frozenset())
    if plant.source == "withdrawn":
        return Expected("withdrawn", frozenset({"version_changed"}))
    verdict, flags = _quote_outcome(plant)
    if plant.standing != "none":
        flags.add(plant.standing)
    if plant.source == "changed":
        flags.add("version_changed")
    if plant.in_references:
        flags.add("match_in_references")
    return Expected(verdict, frozenset(flags))


def overall(expected: Iterable[Expected], uncited_claims: int = 0) -> Overall | None:
    """The audit's overall verdict for an answer with these citations (None: undecided)."""
    items = list(expected)
    verdicts = {e.verdict for e in items}
    flags = set().union(*(e.flags for e in items)) if items else set()
    if verdicts & FAILING or "retracted" in flags:
        return "fail"
    if "unavailable" in verdicts:
        return "incomplete"
    if "withdrawn" in verdicts:
        return None
    if uncited_claims or "near_quote" in verdicts or "concern" in flags:
        return "warn"
    return "pass"


def sentence_status(expected: Iterable[Expected]) -> str | None:
    """cited_ok / cited_problem for a claim with these citations (None: undecided)."""
    items = list(expected)
    if not items:
        return "uncited"
    if any(e.verdict in PROBLEMS for e in items):
        return "cited_problem"
    if all(e.verdict == "ok" and not e.flags & {"retracted", "concern"} for e in items):
        return "cited_ok"
    return None
