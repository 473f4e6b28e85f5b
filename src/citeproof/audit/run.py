"""Audit a whole answer: read it, check every citation against its source, build the report.

This is the audit's I/O (every interface -- ``citeproof audit``, the MCP tool, the
conformance suite, audit batches -- calls :func:`audit_answer`); each quote is checked through
the check pipeline (:mod:`citeproof.service.pipeline`), so an audit's check of a quote is
exactly ``citeproof check``'s.  The rules that decide
verdicts live in :mod:`citeproof.audit.verdicts` (pure); this module gathers their inputs.

Why it is organised around sources rather than citations: an answer cites a handful of works
many times, so each distinct source is loaded, described and cut into passages once, a quote
repeated against the same source is matched once (:class:`citeproof.audit.works.CitedWorks`),
and the retraction status is asked once per work.  That, and sentence splitting that does not
redo work (:mod:`citeproof.audit.sentences`), keeps a 200-citation answer against cached
sources within the 0.2 s budget (``bench/bench_audit.py``).

Handles are resolved (``CitedWorks.resolve_handle``) with the same rules, in the same order, as
:func:`citeproof.handles.registry.resolve_handle` (malformed, forged, unavailable / unresolvable,
withdrawn, ok), but with those shared loads; a quote after a handle is checked against the
passage *as issued*.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal

from citeproof._version import distribution_version
from citeproof.audit.answer import CLAIM_KINDS, Citation, ItemError, ParsedAnswer, Quote
from citeproof.audit.mentions import stated_in_sentence
from citeproof.audit.metrics import compute_metrics
from citeproof.audit.parse import parse_answer
from citeproof.audit.signing import report_bytes, sign_report
from citeproof.audit.verdicts import (
    Outcome,
    acknowledges_retraction,
    from_check,
    from_entry_without_identifier,
    from_failure,
    from_handle,
    from_item_error,
    handle_flags,
    overall_verdict,
    parse_fail_on,
    sentence_status,
    sentences,
    worst,
)
from citeproof.audit.works import CitedWorks
from citeproof.documents.model import Document
from citeproof.errors import CiteproofError
from citeproof.evidence.log import default_log_path, open_log
from citeproof.match.types import MatchOptions
from citeproof.models import CheckResult, RetractionReport, SourceInfo
from citeproof.models.audit import (
    AnswerInfo,
    AuditReport,
    CitationReport,
    QuoteReport,
    SentenceReport,
)
from citeproof.models.handle import HandleStatus
from citeproof.models.references import ReferenceResult
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.lookup import LocalCatalogue
from citeproof.refs.stated import StatedReference
from citeproof.retraction.status import (
    RETRACTION_KINDS,
    retraction_report,
)
from citeproof.service.inputs import match_options
from citeproof.service.references import index_path, open_local_index, verify_stated
from citeproof.store.keys import LogKey, load_or_create_log_key
from citeproof.store.paths import default_dirs

__all__ = [
    "AUDIT_KIND",
    "audit_answer",
    "audit_log_path",
    "audit_parsed",
    "log_audit",
    "record_audit",
]

#: The evidence-log entry kind of an audit.
AUDIT_KIND = "audit"
_NOT_A_WORK = frozenset({"malformed", "forged", "unresolvable"})
#: DOI prefixes of preprint servers (bioRxiv and medRxiv share 10.1101).
_PREPRINT_DOI_PREFIXES = ("10.1101/", "10.21203/", "10.20944/", "10.31234/", "10.48550/")


@dataclass
class _Item:
    """One citation while it is being audited (the report models are frozen)."""

    citation: Citation
    outcome: Outcome
    resolved_to: str | None = None
    quotes: list[QuoteReport] = field(default_factory=list)
    check: CheckResult | None = None
    quote: str | None = None
    handle: HandleStatus | None = None
    source: SourceInfo | None = None
    retraction: RetractionReport | None = None


def _quote_report(q: Quote, got: CheckResult | Outcome, extra: tuple[str, ...]) -> QuoteReport:
    if isinstance(got, Outcome):
        outcome, check = got, None
    else:
        outcome, check = from_check(got), got
    flags = list(dict.fromkeys([*outcome.flags, *extra]))
    return QuoteReport(
        text=q.text,
        kind=q.kind,
        start=q.start,
        end=q.end,
        verdict=outcome.verdict,
        flags=flags,
        reason=outcome.reason,
        check=check,
    )


def _with_quotes(item: _Item, reports: list[QuoteReport]) -> None:
    """The citation's outcome is its worst quote's; flags from every quote are kept."""
    item.quotes = reports
    if not reports:
        return
    outcomes = [Outcome(r.verdict, tuple(r.flags), r.reason) for r in reports]
    chosen = worst(outcomes)
    pick = reports[outcomes.index(chosen)]
    flags = dict.fromkeys([*chosen.flags, *(f for r in reports for f in r.flags)])
    item.outcome = Outcome(chosen.verdict, tuple(flags), chosen.reason)
    item.quote, item.check = pick.text, pick.check
    # the deciding quote's check object is the citation's `check`; it is not repeated
    item.quotes = [r.model_copy(update={"check": None}) if r is pick else r for r in reports]


def _preprint(key: str | None) -> bool:
    if key is None:
        return False
    kind, _, value = key.partition(":")
    return kind == "ppr" or (kind == "doi" and value.startswith(_PREPRINT_DOI_PREFIXES))


@dataclass(frozen=True, slots=True)
class _Checked:
    """What the reference check said: per reference entry, and per plain citation whose
    sentence states an author and year."""

    entries: dict[int, ReferenceResult] = field(default_factory=dict)
    mentions: dict[int, ReferenceResult] = field(default_factory=dict)


def _check_references(
    parsed: ParsedAnswer,
    offline: bool,
    replay: str | os.PathLike[str] | None,
    local_index: str | None = None,
) -> _Checked:
    """Verify every reference entry, and every plain citation whose sentence names its
    authors and year, in one run (so every service is asked at its own pace, together)."""
    stated: list[StatedReference] = []
    keys: list[tuple[str, int]] = []
    for ref in parsed.references:
        if ref.raw.strip():
            label = str(ref.number) if ref.number is not None else None
            stated.append(
                parse_reference_string(ref.raw, label=label, where=f"entry {ref.index + 1}")
            )
            keys.append(("entry", ref.index))
    for c in parsed.citations:
        if c.identifier is None or c.kind == "numbered" or c.sentence < 0 or c.error is not None:
            continue
        sentence = parsed.sentences[c.sentence]
        mention = stated_in_sentence(sentence.raw, c.identifier, c.start - sentence.start)
        if mention is not None:
            stated.append(mention)
            keys.append(("mention", c.index))
    if not stated:
        return _Checked()
    report = verify_stated(
        stated, offline=offline, replay=replay, retraction=False, index=local_index
    )
    checked = _Checked()
    for (kind, index), result in zip(keys, report.references, strict=True):
        (checked.entries if kind == "entry" else checked.mentions)[index] = result
    return checked


def _from_reference(result: ReferenceResult) -> Outcome | str | None:
    """A reference check's say in a citation: an outcome that decides it, the identifier it
    resolved an entry without one to (a string), or None (the usual checks decide)."""
    if result.verdict == "mismatch":
        return Outcome(
            "mismatch",
            (),
            sentences("the entry and its identifier name different works", result.reason),
        )
    if result.verdict in ("verified", "partial") and result.work is not None:
        return result.work.identifier
    return None


def _mention_mismatch(result: ReferenceResult | None) -> Outcome | None:
    """A plain citation is a mismatch when the author or year its sentence states differs
    from the cited work's record."""
    if result is None or result.work is None:
        return None
    differs = [
        c for c in result.comparisons if c.field in ("authors", "year") and c.agreement == "differs"
    ]
    if not differs:
        return None
    shown = "; ".join(f"{c.field}: stated {c.stated}, record {c.record}" for c in differs)
    return Outcome(
        "mismatch", (), f"the sentence names a work that {result.work.identifier} is not ({shown})."
    )


def _entry_without_identifier(result: ReferenceResult | None) -> Outcome | str | None:
    """An entry with no identifier is searched: the work found, or why there is none."""
    if result is None:
        return None
    if result.verdict in ("verified", "partial") and result.work is not None:
        return result.work.identifier
    if result.verdict == "not_found":
        return Outcome(
            "unresolvable", (), sentences("the reference names no identifier", result.reason)
        )
    if result.verdict == "ambiguous":
        return Outcome(
            "unavailable",
            (),
            sentences(
                "the reference names no identifier",
                result.reason,
                "add one to say which of them it means",
            ),
        )
    if result.verdict == "unavailable":
        return Outcome("unavailable", (), result.reason)
    if result.verdict == "unchecked":  # citeproof could not check it: no accusation
        return Outcome(
            "unavailable", (), sentences("the reference names no identifier", result.reason)
        )
    return None


def _audit_citation(
    c: Citation, parsed: ParsedAnswer, sources: CitedWorks, checked: _Checked
) -> _Item:
    """One citation's verdict: what the parser found wrong, else what the reference check
    decided, else what its source says of its quotes.  Each step is one function below, in
    the order the contract decides verdicts (docs/audit.md), so a rule is read in one place."""
    quotes = [parsed.quotes[i] for i in c.quotes]
    entry = checked.entries.get(c.reference) if c.reference is not None else None
    error = _item_error(c, parsed, quotes)
    found: str | None = None
    if error is not None and error.code == "reference_without_identifier":
        searched = _searched_entry(c, parsed, entry)
        if isinstance(searched, Outcome):
            return _Item(c, searched)
        if searched is not None:
            error, found = None, searched
    if error is not None:
        return _Item(c, from_item_error(error))
    if c.kind == "handle":
        return _audit_handle(c, quotes, sources)
    decided = _reference_says(c, parsed, checked, entry, found)
    if decided is not None:
        return decided
    extra = ("reference_partial",) if entry is not None and entry.verdict == "partial" else ()
    return _audit_work(c, _cited_key(c, parsed, found), quotes, sources, extra)


def _item_error(c: Citation, parsed: ParsedAnswer, quotes: list[Quote]) -> ItemError | None:
    """The first problem the parser found: the citation's own, its sentence's, a quote's."""
    sentence = parsed.sentences[c.sentence] if c.sentence >= 0 else None
    error = c.error or (sentence.error if sentence is not None else None)
    return error or next((q.error for q in quotes if q.error is not None), None)


def _searched_entry(
    c: Citation, parsed: ParsedAnswer, entry: ReferenceResult | None
) -> Outcome | str | None:
    """For an entry without an identifier: unavailable when it names nothing to look up,
    else what searching for it found (the work's identifier, or the verdict)."""
    assert c.reference is not None  # the parser names the entry it found no identifier in
    empty = from_entry_without_identifier(parsed.references[c.reference].raw)
    return empty if empty is not None else _entry_without_identifier(entry)


def _audit_handle(c: Citation, quotes: list[Quote], sources: CitedWorks) -> _Item:
    """A handle: resolved first (forged, withdrawn ... decide), then each quote checked
    against the passage as issued, not as the document reads now."""
    status = sources.resolve_handle(c.target)
    item = _Item(c, Outcome("ok"), resolved_to=status.source, handle=status)
    decided = from_handle(status)
    if decided is not None:
        item.outcome = decided
        return item
    loaded = sources.load(status.source or "")
    if isinstance(loaded, Document):
        item.source = sources.source_info(loaded)
    extra = handle_flags(status)
    item.outcome = Outcome("ok", extra)
    passage = sources.text_document(status.as_issued_text or "")
    reports = []
    for q in quotes:
        got = sources.check(q.text, passage)
        if not isinstance(got, Outcome):
            source = got.source.model_copy(update={"input": c.target, "identifier": status.source})
            got = got.model_copy(update={"source": source})
        reports.append(_quote_report(q, got, extra))
    _with_quotes(item, reports)
    return item


def _reference_says(
    c: Citation,
    parsed: ParsedAnswer,
    checked: _Checked,
    entry: ReferenceResult | None,
    found: str | None,
) -> _Item | None:
    """A mismatch the reference check found (the entry's identifier names another work, or
    the sentence names authors or a year the work lacks), which decides before any text is
    read; None when it decides nothing."""
    if c.kind == "numbered":
        assert c.reference is not None  # the parser sets an error otherwise
        said = _from_reference(entry) if entry is not None and found is None else None
        if isinstance(said, Outcome):
            return _Item(c, said, resolved_to=_first_key(parsed, c.reference))
        return None
    wrong = _mention_mismatch(checked.mentions.get(c.index))
    return None if wrong is None else _Item(c, wrong, resolved_to=_cited_key(c, parsed, found))


def _cited_key(c: Citation, parsed: ParsedAnswer, found: str | None) -> str:
    """The identifier a citation is checked against: a number's entry's (or the work its
    search found), else the citation's own."""
    if c.kind == "numbered":
        assert c.reference is not None  # the parser sets an error otherwise
        return found or parsed.references[c.reference].identifiers[0].key
    assert c.identifier is not None  # only handles, numbers and unknown have none
    return c.identifier.key


def _audit_work(
    c: Citation, key: str, quotes: list[Quote], sources: CitedWorks, extra: tuple[str, ...]
) -> _Item:
    """A work named by an identifier: read (or why not), then each quote checked in it."""
    item = _Item(c, Outcome("ok", extra), resolved_to=key)
    loaded = sources.load(key)
    if isinstance(loaded, Outcome):
        item.outcome = loaded
        return item
    if not isinstance(loaded, Document):
        item.outcome = from_failure(loaded.kind, loaded.reason, loaded.ids, has_quote=bool(quotes))
        return item
    item.source = sources.source_info(loaded)
    _with_quotes(item, [_quote_report(q, sources.check(q.text, loaded), extra) for q in quotes])
    return item


def _with_statuses(entries: list[ReferenceResult], items: list[_Item]) -> list[ReferenceResult]:
    """Each entry's work with the retraction status the audit asked for it (once per work,
    for the citations), so the References section says what the citations say."""
    known = {i.resolved_to: i.retraction for i in items if i.retraction is not None}
    out = []
    for entry in entries:
        report = None
        if entry.work is not None:
            w = entry.work
            keys = [
                w.identifier,
                *(
                    f"{k}:{v}"
                    for k, v in (("doi", w.doi), ("pmid", w.pmid), ("pmcid", w.pmcid))
                    if v
                ),
            ]
            report = next((known[k] for k in keys if k in known), None)
        if entry.work is None or report is None:
            out.append(entry)
            continue
        work = entry.work.model_copy(
            update={"retraction": report.status, "retraction_reason": report.reason}
        )
        flagged = entry.verdict in ("verified", "partial") and report.status in (
            "RETRACTED",
            "CONCERN",
        )
        out.append(entry.model_copy(update={"work": work, "retracted": flagged}))
    return out


def _first_key(parsed: ParsedAnswer, reference: int) -> str | None:
    ids = parsed.references[reference].identifiers
    return ids[0].key if ids else None


def _add_retractions(
    items: list[_Item],
    parsed: ParsedAnswer,
    offline: bool,
    replay: str | os.PathLike[str] | None,
    index: str | None = None,
) -> None:
    """Ask once per distinct work (DOI, PMID, PMCID) and flag every citation of it; with a
    local index, the index is one more source (its notices, with the dumps' date), as it is
    for ``citeproof refs``: offline it is the only one besides Retraction Watch's file."""
    reports: dict[str, RetractionReport | None] = {}
    asker = _RetractionAsker(offline, replay, index)
    try:
        for item in items:
            key = item.resolved_to
            if key is None or item.outcome.verdict in _NOT_A_WORK:
                continue
            if key.split(":", 1)[0] not in RETRACTION_KINDS:
                continue
            if key not in reports:
                try:
                    reports[key] = asker.ask(key)
                except CiteproofError:
                    reports[key] = None
            report = reports[key]
            if report is None:
                continue
            item.retraction = report
            _flag_retraction(item, report, parsed)
    finally:
        asker.close()


def _flag_retraction(item: _Item, report: RetractionReport, parsed: ParsedAnswer) -> None:
    flag = {"RETRACTED": "retracted", "CONCERN": "concern"}.get(report.status)
    if flag is None:
        return
    flags = [*item.outcome.flags, flag]
    if flag == "retracted" and acknowledges_retraction(*_own_words(item.citation, parsed)):
        flags.append("retraction_acknowledged")
    item.outcome = Outcome(item.outcome.verdict, tuple(dict.fromkeys(flags)), item.outcome.reason)


class _RetractionAsker:
    """The audit's retraction questions, one a work, through ``retraction_report``: with a
    local index, the index (opened once for the audit) is one more source."""

    def __init__(
        self, offline: bool, replay: str | os.PathLike[str] | None, index: str | None
    ) -> None:
        self.offline = offline
        self.replay = Path(replay) if replay is not None else None
        self.index: LocalCatalogue | None = None
        if index is not None:
            try:
                self.index = open_local_index(index)
            except CiteproofError:  # the reference check has said so; ask the rest
                self.index = None
        self.today: date = datetime.now(UTC).date()

    def ask(self, key: str) -> RetractionReport:
        return retraction_report(
            key, offline=self.offline, replay_dir=self.replay, today=self.today, index=self.index
        )

    def close(self) -> None:
        close = getattr(self.index, "close", None)
        if close is not None:
            close()


def _own_words(c: Citation, parsed: ParsedAnswer) -> tuple[str | None, str | None]:
    """The citing sentence and its reference entry without the citations and identifiers
    themselves (a DOI may contain the word 'retracted' without the writer saying so)."""
    sentence: str | None = None
    if c.sentence >= 0:
        s = parsed.sentences[c.sentence]
        chars = list(s.raw)
        for i in s.citations:
            other = parsed.citations[i]
            chars[other.start - s.start : other.end - s.start] = " " * (other.end - other.start)
        sentence = "".join(chars)
    entry: str | None = None
    if c.reference is not None:
        ref = parsed.references[c.reference]
        entry = ref.raw
        for ident in ref.identifiers:
            for token in (ident.raw, ident.value):
                if token:
                    entry = re.sub(re.escape(token), " ", entry, flags=re.IGNORECASE)
    return sentence, entry


def _citation_report(item: _Item) -> CitationReport:
    c, o = item.citation, item.outcome
    flags = list(o.flags)
    if _preprint(item.resolved_to) and "preprint" not in flags:
        flags.append("preprint")
    return CitationReport(
        index=c.index,
        raw=c.raw,
        kind=c.kind,
        form=c.form,
        target=c.target,
        start=c.start,
        end=c.end,
        sentence=c.sentence,
        number=c.number,
        reference=c.reference,
        resolved_to=item.resolved_to,
        quote=item.quote,
        verdict=o.verdict,
        flags=flags,
        reason=o.reason,
        check=item.check,
        quotes=item.quotes,
        handle=item.handle,
        source=item.source,
        retraction=item.retraction,
    )


def audit_parsed(
    parsed: ParsedAnswer,
    *,
    answer_sha256: str,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    retraction: bool = True,
    fail_on: str | list[str] | tuple[str, ...] | None = None,
    find_source: bool = False,
    options: MatchOptions | None = None,
    now: Callable[[], datetime] | None = None,
    references: bool = True,
    index: str | os.PathLike[str] | None = None,
) -> AuditReport:
    """The unsigned report for an answer already parsed (see :func:`audit_answer`)."""
    failing = parse_fail_on(fail_on)
    local = index_path(index)
    checked = _check_references(parsed, offline, replay, local) if references else _Checked()
    sources = CitedWorks(
        offline=offline,
        replay=replay,
        options=options or match_options(),
        find_source=find_source,
    )
    try:
        items = [_audit_citation(c, parsed, sources, checked) for c in parsed.citations]
    finally:
        sources.close()
    if retraction:
        _add_retractions(items, parsed, offline, replay, local)
    reports = [_citation_report(item) for item in items]
    sentences = []
    for s in parsed.sentences:
        cits = [reports[i] for i in s.citations]
        outcomes = [Outcome(r.verdict, tuple(r.flags)) for r in cits]
        sentences.append(
            SentenceReport(
                index=s.index,
                text=s.raw,
                status=sentence_status(s.is_claim, outcomes),
                kind=s.kind,
                start=s.start,
                end=s.end,
                citations=cits,
                error=s.error.message if s.error is not None else None,
            )
        )
    uncited = sum(1 for s in sentences if s.status == "uncited")
    outcomes = [Outcome(r.verdict, tuple(r.flags)) for r in reports]
    moment = (now or (lambda: datetime.now(UTC)))().astimezone(UTC)
    entries = _with_statuses([checked.entries[i] for i in sorted(checked.entries)], items)
    return AuditReport(
        verdict=overall_verdict(outcomes, uncited, failing),
        sentences=sentences,
        metrics=compute_metrics(sentences, CLAIM_KINDS, entries),
        references=entries,
        fail_on=list(failing),
        answer=AnswerInfo(text=parsed.text, format=parsed.input_format, sha256=answer_sha256),
        created_at=moment.isoformat().replace("+00:00", "Z"),
        generator=f"citeproof {distribution_version()}",
    )


def audit_answer(
    text: str,
    *,
    input_format: Literal["auto", "markdown", "json"] = "auto",
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    retraction: bool = True,
    fail_on: str | list[str] | tuple[str, ...] | None = None,
    sign: bool = True,
    log: bool | str | os.PathLike[str] = False,
    find_source: bool = False,
    key: LogKey | None = None,
    now: Callable[[], datetime] | None = None,
    references: bool = True,
    index: str | os.PathLike[str] | None = None,
) -> AuditReport:
    """Audit ``text`` (Markdown, plain text or JSON claims) citation by citation.

    ``fail_on`` is a comma list or names of verdicts and flags (default: forged, malformed,
    unresolvable, misquote, retracted); ``retraction`` asks every cited DOI/PMID/PMCID's
    retraction status once per work (offline: the local Retraction Watch snapshot only);
    ``references`` verifies each reference-list entry against the scholarly record (a
    numbered citation whose entry names another work than its identifier is ``mismatch``;
    an entry without an identifier is searched for); ``sign`` signs with ``key`` (default:
    the evidence log's key); ``log`` appends one
    ``audit`` entry (``True``: the default log, or a path) naming the answer's and the
    signed report's sha256.  ``index`` (else ``CITEPROOF_INDEX``) is a local index, asked
    before the web services for the reference checks and as one more source of each work's
    retraction status (docs/index.md).  One bad citation never raises: it gets its verdict.

    Raises:
        BadInputError: the answer is over the size cap or not the documented JSON shape, or
            ``fail_on`` names something unknown.
    """
    failing = parse_fail_on(fail_on)
    parsed = parse_answer(text, input_format=input_format)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    report = audit_parsed(
        parsed,
        answer_sha256=digest,
        offline=offline,
        replay=replay,
        retraction=retraction,
        fail_on=failing,
        find_source=find_source,
        now=now,
        references=references,
        index=index,
    )
    if sign:
        if key is None:
            key = load_or_create_log_key(default_dirs().keys)
        report = sign_report(report, key)
    if log is not False:
        log_audit(report, None if log is True else log)
    return report


def audit_log_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The evidence log an audit appends to (``path``, else ``CITEPROOF_LOG``, else the data
    directory's), so that a file the command writes can be kept off it."""
    return Path(path) if path is not None else default_log_path()


def record_audit(
    report: AuditReport, path: str | os.PathLike[str] | None = None
) -> tuple[int | None, CiteproofError | None]:
    """The log step as a command runs it (the check pipeline's way,
    :meth:`~citeproof.service.pipeline.Pipeline.log`): the entry's number, or the log's error
    when the entry could not be written, since the report is still an answer to show first."""
    try:
        return log_audit(report, path), None
    except CiteproofError as err:
        return None, err


def log_audit(report: AuditReport, path: str | os.PathLike[str] | None = None) -> int:
    """Append the ``audit`` entry for ``report``; its sequence number.

    ``report_sha256`` is the sha256 of the report's canonical JSON as printed (signature
    included), so the log commits to exactly the report that was handed out.
    """
    data = report.model_dump(mode="json")
    payload = {
        "schema": report.schema_,
        "answer_sha256": report.answer.sha256,
        "verdict": report.verdict,
        "metrics": data["metrics"],
        "fail_on": list(report.fail_on),
        "report_sha256": hashlib.sha256(report_bytes(data)).hexdigest(),
        "signed_by": report.signature.key_id if report.signature is not None else None,
    }
    return open_log(path).append(AUDIT_KIND, payload).seq
