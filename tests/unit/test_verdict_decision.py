"""The final verdict of a check is decided in one function, ``service.results.decide_verdict``.

The table below is docs/verdicts.md's rules row by row, with the exact reason each gives: a row
changed in the code (a NOT_FOUND on a fallback no longer UNAVAILABLE, a TOO_SHORT without its
reason) fails here.  The second half checks that every kind of check reaches that function,
so no door decides a verdict of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from citeproof.documents.model import Block, Document, Origin
from citeproof.loading.failure import FetchFailure
from citeproof.match.types import MatchOptions, MatchVerdict, QuoteMatch
from citeproof.models import CheckResult
from citeproof.models.plain import Verdict
from citeproof.service import results
from citeproof.service.pipeline import check_document, check_loaded
from citeproof.service.results import Unchecked, decide_verdict

OPTIONS = MatchOptions()
FAILED = ("pmc: the listing answered 503",)
BEST_FILE = Origin(input="a.txt", coverage="file")
BEST_FULL = Origin(input="pmcid:PMC1", coverage="full_text")
BEST_ABSTRACT = Origin(input="pmid:1", coverage="abstract")
FALLBACK_ABSTRACT = Origin(input="pmcid:PMC1", coverage="abstract", degraded=FAILED)
FALLBACK_PAGE = Origin(input="pmcid:PMC1", coverage="page", degraded=FAILED)

TOO_SHORT_REASON = (
    "the quote is under 20 characters after normalisation, too short to check reliably; "
    "quote more of the passage."
)
NOTHING_CLOSE = "no passage has similarity of at least 0.90."
ABSTRACT_ONLY = "Only the abstract was checked; the full text was not."
BUDGET = "the search for a close passage stopped at its work budget."


def _found(verdict: MatchVerdict, reason: str | None = None) -> QuoteMatch:
    return QuoteMatch(verdict=verdict, reason=reason, profile="t1")


def _fallback(what: str, read: str) -> str:
    return (
        f"{what} {read} that could be read, but a better source failed "
        "(pmc: the listing answered 503); nothing is concluded: check again later."
    )


ROWS: list[tuple[str, QuoteMatch | Unchecked, Origin | None, Verdict, str | None]] = [
    ("exact", _found("EXACT"), BEST_FULL, "EXACT", None),
    ("exact on a fallback", _found("EXACT"), FALLBACK_ABSTRACT, "EXACT", None),
    ("near", _found("NEAR"), BEST_FILE, "NEAR", None),
    ("near on a fallback", _found("NEAR"), FALLBACK_PAGE, "NEAR", None),
    ("too short", _found("TOO_SHORT"), BEST_FILE, "TOO_SHORT", TOO_SHORT_REASON),
    ("too short on a fallback", _found("TOO_SHORT"), FALLBACK_PAGE, "TOO_SHORT", TOO_SHORT_REASON),
    ("not found", _found("NOT_FOUND"), BEST_FULL, "NOT_FOUND", NOTHING_CLOSE),
    ("not found, hand-built", _found("NOT_FOUND"), None, "NOT_FOUND", NOTHING_CLOSE),
    (
        "not found in the abstract",
        _found("NOT_FOUND"),
        BEST_ABSTRACT,
        "NOT_FOUND",
        f"{NOTHING_CLOSE} {ABSTRACT_ONLY}",
    ),
    (
        "not found, the matcher's reason",
        _found("NOT_FOUND", BUDGET),
        BEST_FILE,
        "NOT_FOUND",
        BUDGET,
    ),
    (
        "not found on a fallback: the downgrade",
        _found("NOT_FOUND"),
        FALLBACK_ABSTRACT,
        "UNAVAILABLE",
        _fallback("the quote is not in", "the abstract"),
    ),
    (
        "no text",
        Unchecked("no_text", "the document has no text."),
        BEST_FILE,
        "NOT_CHECKABLE",
        "the document has no text.",
    ),
    (
        "no text on a fallback",
        Unchecked("no_text", "the document has no text."),
        FALLBACK_PAGE,
        "UNAVAILABLE",
        _fallback("there is no text in", "the landing page"),
    ),
    (
        "a source failed, nothing read",
        Unchecked("unavailable", "pmc answered 503."),
        None,
        "UNAVAILABLE",
        "pmc answered 503.",
    ),
    (
        "nothing to read",
        Unchecked("not_checkable", "no open-access text."),
        None,
        "NOT_CHECKABLE",
        "no open-access text.",
    ),
    (
        "nothing to check on a fallback",
        Unchecked("not_checkable", "not the expected bytes."),
        FALLBACK_ABSTRACT,
        "NOT_CHECKABLE",
        "not the expected bytes.",
    ),
]


@pytest.mark.parametrize(
    ("answer", "origin", "verdict", "reason"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_the_decision_table(
    answer: QuoteMatch | Unchecked, origin: Origin | None, verdict: Verdict, reason: str | None
) -> None:
    assert decide_verdict(answer, origin, OPTIONS) == (verdict, reason)


def test_the_table_names_every_verdict() -> None:
    from citeproof.models.plain import VERDICTS

    assert {row[3] for row in ROWS} == set(VERDICTS)


def test_the_threshold_is_in_the_reason() -> None:
    verdict, reason = decide_verdict(
        _found("NOT_FOUND"), BEST_FILE, MatchOptions(near_threshold=0.75)
    )
    assert (verdict, reason) == ("NOT_FOUND", "no passage has similarity of at least 0.75.")


# --- every check goes through it ------------------------------------------------------------

QUOTE = "walking each morning shortened sleep onset in older adults"


def _document(text: str, origin: Origin) -> Document:
    blocks = [Block(start=0, end=len(text), kind="paragraph")] if text else []
    return Document(text=text, blocks=blocks, format="text", origin=origin)


def _paths() -> dict[str, CheckResult]:
    """One check of each kind, as the pipeline runs it."""
    text = f"In the trial, {QUOTE}."
    failure = FetchFailure(
        kind="unavailable", reason="pmc answered 503.", input="PMC1", identifier="pmcid:PMC1"
    )
    return {
        "matched": check_document(QUOTE, _document(text, BEST_FILE), OPTIONS),
        "not found on a fallback": check_document(
            "a sentence the text does not hold anywhere",
            _document(text, FALLBACK_ABSTRACT),
            OPTIONS,
        ),
        "no text": check_document(QUOTE, _document("", BEST_FILE), OPTIONS),
        "no text on a fallback": check_document(QUOTE, _document("", FALLBACK_PAGE), OPTIONS),
        "nothing read": check_loaded(QUOTE, failure, OPTIONS),
        "other bytes": check_loaded(
            QUOTE, _document(text, BEST_FILE), OPTIONS, expect_sha256="0" * 64
        ),
    }


def test_every_kind_of_check_reaches_the_one_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def decide(
        answer: QuoteMatch | Unchecked, origin: Origin | None, options: MatchOptions
    ) -> tuple[Verdict, str | None]:
        asked.append(answer.kind if isinstance(answer, Unchecked) else answer.verdict)
        return "NEAR", "decided in one place"

    monkeypatch.setattr(results, "decide_verdict", decide)
    checked = _paths()
    assert {name: (r.verdict, r.reason) for name, r in checked.items()} == {
        name: ("NEAR", "decided in one place") for name in checked
    }
    assert len(asked) == len(checked)  # once per check
    assert asked[:2] == ["EXACT", "NOT_FOUND"]  # the matcher's answer, as it gave it


def test_the_paths_give_the_tables_verdicts() -> None:
    verdicts = {name: r.verdict for name, r in _paths().items()}
    assert verdicts == {
        "matched": "EXACT",
        "not found on a fallback": "UNAVAILABLE",
        "no text": "NOT_CHECKABLE",
        "no text on a fallback": "UNAVAILABLE",
        "nothing read": "UNAVAILABLE",
        "other bytes": "NOT_CHECKABLE",
    }


def test_the_docs_name_the_function() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "verdicts.md").read_text()
    assert "citeproof.service.results.decide_verdict" in page
