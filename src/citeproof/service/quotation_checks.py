"""Check a manuscript's quotations against the works they cite, through the check pipeline.

Why apart from the run (:mod:`citeproof.service.manuscripts`): these are the rules of one
quotation, kept together so they read in one sitting.  A quotation is checked against each
entry its citations name: the editor's copy when one was matched to the entry
(:mod:`citeproof.service.editor_copies`), else the text of the work the entry resolves to,
loaded by the check pipeline (:class:`~citeproof.service.pipeline.Pipeline`, pinned bytes
first) and matched by it, so each check is ``citeproof check``'s.  Each work is loaded once
and a quotation repeated against one text is matched once.

What a check means for the manuscript (its *finding*) follows the audit's rules
(docs/audit.md, "Verdicts"): ``ok`` (EXACT; a short quote found verbatim); ``misquote``
(NOT_FOUND in a full text or a file; NEAR with a risk flag; a match that starts or ends
mid-word; an ellipsis hiding a negation); ``near_quote`` (NEAR without a risk flag; a short
quote not verbatim); ``unchecked`` (UNAVAILABLE, NOT_CHECKABLE, or NOT_FOUND in an abstract
or landing page while the full text could not be read); ``unattributed`` (no citation, or
one that names no entry).  Of several cited works the best finding decides, except that a
misquote against one is not concluded while another could not be read.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from citeproof.documents.model import Document
from citeproof.errors import CiteproofError, RecordingError, UnavailableError
from citeproof.loading.failure import FetchFailure
from citeproof.manuscript.structure import Manuscript, Quotation
from citeproof.match.normalize import normalize
from citeproof.models import CheckResult
from citeproof.models.manuscript import (
    CheckedAgainst,
    Finding,
    QuotationReport,
    QuotationTarget,
    QuotationVerdict,
)
from citeproof.models.references import ReferenceResult
from citeproof.service.editor_copies import Copies, WorkIds
from citeproof.service.inputs import validate_quote
from citeproof.service.pipeline import CheckOptions, Pipeline
from citeproof.store.cache import Cache

__all__ = ["MAX_QUOTATIONS", "QuotationChecker", "check_quotation", "one_line", "section_of"]

#: Quotations checked at most (a paper quotes tens; the rest are reported unchecked).
MAX_QUOTATIONS: Final = 1_000
_RISK_FLAGS: Final = frozenset(
    {"numbers_differ", "negation_differs", "case_only", "punctuation_only"}
)
_PARTIAL_COVERAGE: Final = frozenset({"abstract", "page"})


@dataclass(frozen=True, slots=True)
class _Judged:
    verdict: QuotationVerdict
    finding: Finding
    flags: tuple[str, ...]
    reason: str | None
    against: CheckedAgainst | None
    check: CheckResult | None


class QuotationChecker:
    """Each work loaded once and each quotation matched once per work, through one check
    pipeline on one cache connection for the whole manuscript."""

    def __init__(
        self,
        *,
        offline: bool,
        replay: str | os.PathLike[str] | None,
        works: dict[str, WorkIds],
        results: dict[str, ReferenceResult],
        copies: Copies,
        cache: Cache | None,
    ) -> None:
        options = CheckOptions(offline=offline, replay=os.fspath(replay) if replay else None)
        self.pipeline = Pipeline(options, cache=cache)
        self.works = works
        self.results = results
        self.copies = copies
        self._loaded: dict[str, Document | FetchFailure] = {}
        self._checks: dict[tuple[int, str], CheckResult] = {}

    def load(self, key: str) -> Document | FetchFailure:
        if key not in self._loaded:
            try:
                self._loaded[key] = self.pipeline.load(key)
            except (UnavailableError, RecordingError) as exc:
                self._loaded[key] = FetchFailure("unavailable", one_line(exc), key, key)
            except CiteproofError as exc:
                self._loaded[key] = FetchFailure("not_checkable", one_line(exc), key, key)
        return self._loaded[key]

    def check(self, quote: str, loaded: Document | FetchFailure) -> CheckResult:
        memo = (id(loaded), quote)
        if memo not in self._checks:
            self._checks[memo] = self.pipeline.match(quote, loaded)
        return self._checks[memo]

    def target(self, quote: str, entry_id: str) -> _Judged:
        """The quotation checked against one cited entry's text."""
        document = self.copies.documents.get(entry_id)
        if document is not None:
            against = CheckedAgainst(
                entry_id=entry_id,
                kind="file",
                file=self.copies.files[entry_id],
                matched_by=self.copies.matched_by[entry_id],
            )
            loaded: Document | FetchFailure = document
            what: str = f"your copy {self.copies.files[entry_id]}"
        else:
            work = self.works[entry_id]
            if not work.keys:
                why = _no_work(self.results.get(entry_id))
                return _Judged("NOT_CHECKABLE", "unchecked", (), why, None, None)
            key = work.keys[0]
            against = CheckedAgainst(
                entry_id=entry_id, kind="work", identifier=key, basis=work.basis
            )
            loaded = self.load(key)
            what = f"the text of {key}"
        try:
            validate_quote(quote)
        except CiteproofError as exc:
            return _Judged("NOT_CHECKABLE", "unchecked", (), one_line(exc), against, None)
        result = self.check(quote, loaded)
        finding, flags, reason = _judge(result, loaded, quote, what)
        return _Judged(result.verdict, finding, flags, reason, against, result)


def one_line(exc: BaseException) -> str:
    """An error's message on one line (a reason in a report)."""
    return " ".join(str(exc).split())


def _no_work(result: ReferenceResult | None) -> str:
    give = "give your copy of it with --sources."
    if result is None:
        return f"the entry names no DOI, PMID or PMCID to fetch the work's text by; {give}"
    if result.verdict in ("not_found", "unresolvable"):
        return (
            f"the reference is {result.verdict.replace('_', ' ')}: there is no work to check "
            f"the quotation against; if the work exists, {give}"
        )
    if result.verdict == "mismatch":
        return (
            "the entry's identifier names another work, and no work matching what it states "
            f"was found; {give}"
        )
    return f"the cited work could not be identified (the reference is {result.verdict}); {give}"


def _near_words(result: CheckResult) -> str:
    """What differs, in words: ``'tripled' where the source has 'doubled'``."""
    if result.near is None:
        return ""
    parts = []
    for op in result.near.diff:
        if op.op == "replace":
            parts.append(f"'{op.quote}' where the source has '{op.source}'")
        elif op.op == "insert":
            parts.append(f"'{op.source}' left out")
        elif op.op == "delete":
            parts.append(f"'{op.quote}' added")
    return "; ".join(parts[:4])


def _judge(
    result: CheckResult, loaded: Document | FetchFailure, quote: str, what: str
) -> tuple[Finding, tuple[str, ...], str | None]:
    """A check's meaning for the manuscript (the audit's rules, docs/manuscripts.md)."""
    flags = list(result.flags)
    for fragment in result.fragments or ():
        flags += [f for f in fragment.flags if f not in flags]
    verdict = result.verdict
    if verdict == "EXACT":
        bounds = result.word_boundaries
        if bounds is not None and (bounds.starts_mid_word or bounds.ends_mid_word):
            flags.append("partial_word")
            return "misquote", _flags(flags), f"the words match only part of a word in {what}."
        if "ellipsis_hides_negation" in flags:
            return "misquote", _flags(flags), "the ellipsis skips a negation in the source."
        return "ok", _flags(flags), None
    if verdict == "NEAR" and result.near is not None:
        near_flags = [f for f in result.near.flags if f not in flags]
        flags = [*near_flags, *flags]
        shown = f"{what} says it otherwise (similarity {result.near.similarity:.2f}): "
        differs = _near_words(result) or "the wording differs"
        if _RISK_FLAGS & set(flags) or "ellipsis_hides_negation" in flags:
            risky = ", ".join(sorted(_RISK_FLAGS & set(flags))) or "ellipsis_hides_negation"
            return "misquote", _flags(flags), f"{shown}{differs} ({risky})."
        return "near_quote", _flags(flags), f"{shown}{differs}."
    if verdict == "NOT_FOUND":
        if result.source.coverage in _PARTIAL_COVERAGE:
            flags.append("not_full_text")
            why = (
                f"the words are not in the {result.source.coverage} of {what} that could be "
                "read, and its full text could not be: nothing is concluded."
            )
            return "unchecked", _flags(flags), why
        return "misquote", _flags(flags), f"the words are not in {what}."
    if verdict == "TOO_SHORT":
        flags.append("short_quote")
        there = isinstance(loaded, Document) and normalize(quote) in loaded.prepared.norm.text
        if there:
            return "ok", _flags(flags), None
        return "near_quote", _flags(flags), f"the short quotation is not verbatim in {what}."
    return "unchecked", _flags(flags), result.reason


def _flags(flags: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(flags))


_RANK: Final = {"ok": 0, "near_quote": 1, "unchecked": 2, "misquote": 3, "unattributed": 4}


def section_of(m: Manuscript, position: int) -> list[str]:
    """The titles of the sections ``position`` stands in, outermost first."""
    inside = [s for s in m.sections if s.start <= position < s.end]
    return list(max(inside, key=lambda s: s.start).path) if inside else []


def check_quotation(
    q: Quotation, index: int, m: Manuscript, checker: QuotationChecker | None
) -> QuotationReport:
    """The report of quotation ``index``; with no ``checker``, unchecked (past the cap)."""
    entry_ids = list(dict.fromkeys(e for i in q.citations for e in m.citations[i].entry_ids))
    report = QuotationReport(
        index=index,
        text=q.text,
        start=q.start,
        end=q.end,
        block=q.block,
        section=section_of(m, q.start),
        region=q.region,
        citations=list(q.citations),
        entry_ids=entry_ids,
        verdict="NOT_CHECKABLE",
        finding="unchecked",
    )
    if checker is None:
        reason = f"over the cap of {MAX_QUOTATIONS:,} quotations checked per manuscript."
        return report.model_copy(update={"reason": reason})
    if not q.citations or not entry_ids:
        reason = (
            "the quotation carries no citation: say which work it is from."
            if not q.citations
            else "its citation names no entry of the reference list."
        )
        return report.model_copy(update={"finding": "unattributed", "reason": reason})
    judged = [checker.target(q.text, e) for e in entry_ids]
    best = min(judged, key=lambda j: _RANK[j.finding])
    if best.finding == "misquote" and any(j.finding == "unchecked" for j in judged):
        best = next(j for j in judged if j.finding == "unchecked")  # the words may be there
    targets = []
    if len(judged) > 1:
        targets = [
            QuotationTarget(
                entry_id=e, verdict=j.verdict, finding=j.finding, reason=j.reason, against=j.against
            )
            for e, j in zip(entry_ids, judged, strict=True)
        ]
    return report.model_copy(
        update={
            "verdict": best.verdict,
            "finding": best.finding,
            "flags": list(best.flags),
            "reason": best.reason,
            "against": best.against,
            "check": best.check,
            "targets": targets,
        }
    )
