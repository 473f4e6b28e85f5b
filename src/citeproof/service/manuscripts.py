"""Check a whole manuscript: every reference, every cited work's retraction status, every
quotation against the work it cites; one signed ``citeproof.manuscript/1`` report.

Every interface checks a manuscript through :func:`check_manuscript` (``citeproof
manuscript``, the benchmark).  The run, in order:

1. **read** the manuscript (:mod:`citeproof.service.manuscript_input`, the reader
   :mod:`citeproof.manuscript`): a Word, PDF, JATS, HTML or Markdown file, standard input,
   or a LaTeX source (a ``.tex`` with the folder beside it, a folder, or a
   ``.tar.gz``/``.zip`` archive);
2. **verify the references** (:func:`citeproof.service.references.verify_stated`, the
   verification ``citeproof refs`` runs), with each matched work's retraction status: at
   most :data:`MAX_REFERENCES`;
3. **match the editor's copies** (``--sources DIR``) to the entries
   (:mod:`citeproof.service.editor_copies`);
4. **check each quotation** (at most :data:`MAX_QUOTATIONS`) against each entry its
   citations name (:mod:`citeproof.service.quotation_checks`): the editor's copy when one
   matched, else the text of the work the entry resolves to (the work ``refs`` verified;
   for a mismatch, the work the stated metadata describes; else the entry's own
   identifier), loaded and matched by the check pipeline, so each check is ``citeproof
   check``'s;
5. **assemble** the report: each quotation's verdict and finding, each reference with the
   citations that cite it, citations that name no entry, entries no citation names, cited
   works retracted or under concern, the reader's problems, counts and the verdict;
6. **sign** it with the evidence log's key (:mod:`citeproof.service.signatures`, the
   audit's format), and **log** one ``manuscript`` line naming the manuscript's and the
   signed report's sha256 (:func:`log_manuscript`).

A quotation's finding and the overall verdict follow the audit's rules where they mean the
same (docs/manuscripts.md, "Checking a manuscript").  It never judges whether a cited work
supports what the manuscript says.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import IO, Any, Final

from citeproof._version import distribution_version
from citeproof.errors import BadInputError
from citeproof.evidence.log import open_log
from citeproof.identifiers import find_identifiers
from citeproof.loading.pins import open_cache_for
from citeproof.manuscript.structure import Manuscript, ReferenceEntry
from citeproof.models.audit import OverallVerdict
from citeproof.models.manuscript import (
    DEFAULT_FAIL_ON,
    FAIL_ON_CHOICES,
    FINDINGS,
    MANUSCRIPT_SCHEMA,
    QUOTATION_VERDICTS,
    ManuscriptCitation,
    ManuscriptCounts,
    ManuscriptInfo,
    ManuscriptReference,
    ManuscriptReport,
    QuotationReport,
    ReadingProblem,
    RetractedWork,
    UnlinkedCitation,
)
from citeproof.models.references import REFERENCE_VERDICTS, ReferenceResult
from citeproof.service.editor_copies import Copies, WorkIds, list_files, match_copies, work_ids
from citeproof.service.manuscript_input import (
    folder_is_manuscript,
    manuscript_kind,
    read_manuscript_input,
)
from citeproof.service.quotation_checks import (
    MAX_QUOTATIONS,
    QuotationChecker,
    check_quotation,
    section_of,
)
from citeproof.service.references import verify_stated
from citeproof.service.signatures import load_signed_json, log_key, report_bytes, sign_model
from citeproof.store.keys import LogKey

__all__ = [
    "MANUSCRIPT_KIND",
    "MAX_QUOTATIONS",
    "MAX_REFERENCES",
    "check_manuscript",
    "check_read",
    "folder_is_manuscript",
    "load_manuscript_report",
    "log_manuscript",
    "manuscript_kind",
    "parse_fail_on",
    "read_manuscript_input",
]

#: The evidence-log entry kind of a manuscript's check.
MANUSCRIPT_KIND: Final = "manuscript"
#: References verified at most (a paper lists tens to hundreds; the rest are unchecked).
MAX_REFERENCES: Final = 2_000

_RETRACT = re.compile(r"(?<![^\W\d_])retract", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n\s*\n")
#: Overall verdict from what was found (docs/manuscripts.md): names that leave a check
#: incomplete, and names that say nothing is wrong (``ambiguous`` accuses nothing).
_INCOMPLETE: Final = frozenset({"unavailable", "unchecked"})
_NO_WARNING: Final = frozenset({"ambiguous"})


# ---------------------------------------------------------------------------------- fail-on


def parse_fail_on(value: str | Iterable[str] | None) -> tuple[str, ...]:
    """The names that fail the manuscript (comma list or names); default
    :data:`DEFAULT_FAIL_ON`.  An unknown name is bad input naming the choices."""
    if value is None:
        return DEFAULT_FAIL_ON
    names = value.split(",") if isinstance(value, str) else list(value)
    out = tuple(dict.fromkeys(n.strip() for n in names if n.strip()))
    unknown = [n for n in out if n not in FAIL_ON_CHOICES]
    if unknown:
        raise BadInputError(
            f"--fail-on names {', '.join(repr(n) for n in unknown)}, which is not a finding; "
            f"choose from {', '.join(sorted(FAIL_ON_CHOICES))}."
        )
    return out


# ---------------------------------------------------------------------------------- the report


def _sentence(text: str, start: int, end: int) -> str:
    before = [m.end() for m in _SENTENCE_END.finditer(text, max(0, start - 2_000), start)]
    after = _SENTENCE_END.search(text, end, min(len(text), end + 2_000))
    return text[before[-1] if before else max(0, start - 2_000) : after.start() if after else end]


def _acknowledged(m: Manuscript, entry_text: str, cited_by: Sequence[int]) -> bool:
    """Whether a sentence citing the work, or its entry, says it is retracted (the
    identifiers themselves, which may hold the word, left out)."""
    for i in cited_by:
        c = m.citations[i]
        if _RETRACT.search(_sentence(m.text, c.start, c.end)):
            return True
    own = entry_text
    for ident in find_identifiers(entry_text):
        for token in (ident.raw, ident.value):
            if token:
                own = re.sub(re.escape(token), " ", own, flags=re.IGNORECASE)
    return _RETRACT.search(own) is not None


def _verdict(found: set[str], failing: Sequence[str]) -> OverallVerdict:
    if found & set(failing):
        return "fail"
    if found & _INCOMPLETE:
        return "incomplete"
    if found - _NO_WARNING:
        return "warn"
    return "pass"


def check_read(
    m: Manuscript,
    info: ManuscriptInfo,
    *,
    sources: str | os.PathLike[str] | None = None,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    retraction: bool = True,
    references: bool = True,
    fail_on: str | Iterable[str] | None = None,
    now: Callable[[], datetime] | None = None,
) -> ManuscriptReport:
    """The unsigned report for a manuscript already read (the run's steps 2 to 5)."""
    failing = parse_fail_on(fail_on)
    files = list_files(sources) if sources is not None else []
    entries = list(m.references)
    notes: list[str] = []
    results: dict[str, ReferenceResult] = {}
    if references and entries:
        todo = entries[:MAX_REFERENCES]
        verified = verify_stated(
            [e.reference for e in todo], offline=offline, replay=replay, retraction=retraction
        )
        results = {e.id: r for e, r in zip(todo, verified.references, strict=True)}
        if len(entries) > MAX_REFERENCES:
            notes.append(
                f"{len(entries) - MAX_REFERENCES:,} references past the first "
                f"{MAX_REFERENCES:,} were not verified."
            )
    works = {e.id: work_ids(e.reference, results.get(e.id), e.csl) for e in entries}
    cache = open_cache_for(offline=offline)
    try:
        copies = Copies()
        if files:
            copies = match_copies(files, works)
        checker = QuotationChecker(
            offline=offline,
            replay=replay,
            works=works,
            results=results,
            copies=copies,
            cache=cache,
        )
        quotations = [
            check_quotation(q, n, m, checker if n < MAX_QUOTATIONS else None)
            for n, q in enumerate(m.quotations)
        ]
    finally:
        if cache is not None:
            cache.close()
    if len(m.quotations) > MAX_QUOTATIONS:
        notes.append(
            f"{len(m.quotations) - MAX_QUOTATIONS:,} quotations past the first "
            f"{MAX_QUOTATIONS:,} were not checked."
        )
    return _assemble(m, info, results, works, copies, quotations, failing, notes, offline, now)


def _assemble(
    m: Manuscript,
    info: ManuscriptInfo,
    results: dict[str, ReferenceResult],
    works: dict[str, WorkIds],
    copies: Copies,
    quotations: list[QuotationReport],
    failing: Sequence[str],
    notes: list[str],
    offline: bool,
    now: Callable[[], datetime] | None,
) -> ManuscriptReport:
    citations, unlinked, cited_by = _citations(m)
    references = [
        _reference(e, results.get(e.id), works[e.id], copies, cited_by[e.id]) for e in m.references
    ]
    retracted = _retracted(m, results, cited_by)
    uncited = [e.id for e in m.references if not cited_by[e.id]]
    found = {f for r in references if (f := _reference_finding(r.result)) is not None}
    found |= {_RETRACTION_FINDING[r.status] for r in retracted if not r.acknowledged}
    if notes:
        found.add("unchecked")  # a cap was reached: what is past it was not checked
    found |= {q.finding for q in quotations if q.finding != "ok"}
    if unlinked:
        found.add("unlinked")
    if uncited:
        found.add("uncited")
    moment = (now or (lambda: datetime.now(UTC)))().astimezone(UTC)
    return ManuscriptReport(
        verdict=_verdict(found, failing),
        manuscript=info,
        counts=_counts(m, results, quotations, unlinked, uncited, retracted),
        quotations=quotations,
        references=references,
        unlinked=unlinked,
        uncited=uncited,
        retracted=retracted,
        citations=citations,
        problems=[
            ReadingProblem(code=p.code, message=p.message, where=p.where) for p in m.problems
        ],
        sources=copies.records,
        notes=notes,
        offline=offline,
        fail_on=list(failing),
        created_at=moment.isoformat().replace("+00:00", "Z"),
        generator=f"citeproof {distribution_version()}",
    )


#: The finding of a retracted work, or one under concern, that the manuscript does not say is.
_RETRACTION_FINDING: Final = {"RETRACTED": "retracted", "CONCERN": "concern"}


def _citations(
    m: Manuscript,
) -> tuple[list[ManuscriptCitation], list[UnlinkedCitation], dict[str, list[int]]]:
    """The citations as reported, the works they name that no entry is, and which
    citations cite each entry (every entry listed, the uncited with none)."""
    cited_by: dict[str, list[int]] = {e.id: [] for e in m.references}
    citations, unlinked = [], []
    for c in m.citations:
        for entry_id in c.entry_ids:
            cited_by.setdefault(entry_id, []).append(c.index)
        section = section_of(m, c.start)
        missing = [item for item in c.items if item.entry_id is None]
        unlinked += [
            UnlinkedCitation(
                citation=c.index,
                marker=c.marker,
                target=item.target,
                reason=item.reason,
                section=section,
            )
            for item in missing
        ]
        citations.append(
            ManuscriptCitation(
                index=c.index,
                marker=c.marker,
                kind=c.kind,
                start=c.start,
                end=c.end,
                section=section,
                region=c.region,
                where=c.where,
                entry_ids=list(c.entry_ids),
                unlinked=[item.target for item in missing],
            )
        )
    return citations, unlinked, cited_by


def _reference(
    e: ReferenceEntry,
    result: ReferenceResult | None,
    work: WorkIds,
    copies: Copies,
    cited_by: list[int],
) -> ManuscriptReference:
    """One entry of the list as reported: what it says, who cites it, what it was found to be."""
    return ManuscriptReference(
        id=e.id,
        label=e.label,
        key=e.key,
        origin=e.origin,
        where=e.where,
        text=e.reference.text,
        cited_by=cited_by,
        result=result,
        work=work.keys[0] if work.keys else None,
        source_file=copies.files.get(e.id),
    )


def _reference_finding(result: ReferenceResult | None) -> str | None:
    """What a reference's verification adds to the findings: its verdict, unless it was
    verified or not checked."""
    if result is None or result.verdict in ("verified", "unchecked"):
        return None
    return result.verdict


def _retracted(
    m: Manuscript, results: dict[str, ReferenceResult], cited_by: dict[str, list[int]]
) -> list[RetractedWork]:
    """The cited works retracted or under concern, each saying whether the manuscript
    acknowledges it (in a sentence that cites it, or in its entry)."""
    retracted = []
    for e in m.references:
        result = results.get(e.id)
        work = result.work if result is not None else None
        if result is None or work is None or not result.retracted:
            continue
        status = work.retraction
        if status not in ("RETRACTED", "CONCERN"):
            continue
        retracted.append(
            RetractedWork(
                entry_id=e.id,
                identifier=work.identifier,
                status=status,
                reason=work.retraction_reason,
                cited_by=cited_by[e.id],
                acknowledged=_acknowledged(m, e.reference.text, cited_by[e.id]),
            )
        )
    return retracted


def _counts(
    m: Manuscript,
    results: dict[str, ReferenceResult],
    quotations: list[QuotationReport],
    unlinked: list[UnlinkedCitation],
    uncited: list[str],
    retracted: list[RetractedWork],
) -> ManuscriptCounts:
    """The figures at the head of the report."""
    return ManuscriptCounts(
        references=len(m.references),
        references_verified=len(results),
        by_reference_verdict={
            v: sum(1 for r in results.values() if r.verdict == v) for v in REFERENCE_VERDICTS
        },
        citations=len(m.citations),
        unlinked=len(unlinked),
        uncited=len(uncited),
        quotations=len(quotations),
        quotations_checked=sum(1 for q in quotations if q.check is not None),
        by_quotation_verdict={
            v: sum(1 for q in quotations if q.verdict == v) for v in QUOTATION_VERDICTS
        },
        by_finding={f: sum(1 for q in quotations if q.finding == f) for f in FINDINGS},
        retracted=len({r.identifier for r in retracted}),
        problems=len(m.problems),
    )


def check_manuscript(
    source: str | os.PathLike[str],
    *,
    sources: str | os.PathLike[str] | None = None,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    retraction: bool = True,
    references: bool = True,
    fail_on: str | Iterable[str] | None = None,
    sign: bool = True,
    key: LogKey | None = None,
    log: bool | str | os.PathLike[str] = False,
    stdin: IO[bytes] | None = None,
    on_read: Callable[[Manuscript], None] | None = None,
    now: Callable[[], datetime] | None = None,
) -> ManuscriptReport:
    """Check the manuscript at ``source`` (a file, a LaTeX folder or archive, ``-``): the
    run of the module docstring; the ``citeproof.manuscript/1`` report.

    ``sources`` is a folder of the editor's copies of the cited works; ``retraction`` asks
    each verified work's retraction status (offline: the local Retraction Watch snapshot);
    ``references`` False verifies no reference (quotations are then checked against the
    entries' own identifiers and the copies); ``sign`` signs with ``key`` (default: the
    evidence log's key); ``log`` appends the ``manuscript`` line (``True``: the default log,
    or a path); ``on_read`` is told the manuscript once it is read, before any lookup.

    Raises:
        BadInputError (and the other reading errors): the manuscript cannot be read, holds
            nothing to check, the ``sources`` folder is not one, or ``fail_on`` names
            something unknown.
    """
    parse_fail_on(fail_on)
    if sources is not None:
        list_files(sources)  # a wrong folder is refused before any work
    m, info = read_manuscript_input(source, stdin=stdin)
    if not (m.references or m.citations or m.quotations):
        shown = "standard input" if os.fspath(source) == "-" else os.fspath(source)
        raise BadInputError(
            f"{shown} (read as {m.format}) holds no reference list, citation or quotation: "
            "there is nothing to check; give the manuscript itself."
        )
    if on_read is not None:
        on_read(m)
    report = check_read(
        m,
        info,
        sources=sources,
        offline=offline,
        replay=replay,
        retraction=retraction,
        references=references,
        fail_on=fail_on,
        now=now,
    )
    if sign:
        report = sign_model(report, key or log_key())
    if log is not False:
        log_manuscript(report, None if log is True else log)
    return report


def log_manuscript(report: ManuscriptReport, path: str | os.PathLike[str] | None = None) -> int:
    """Append the ``manuscript`` entry for ``report``; its sequence number.

    ``report_sha256`` is the sha256 of the report's canonical JSON as printed (signature
    included), so the log commits to exactly the report that was handed out.
    """
    data = report.model_dump(mode="json")
    payload = {
        "schema": MANUSCRIPT_SCHEMA,
        "manuscript_sha256": report.manuscript.sha256,
        "name": report.manuscript.name,
        "format": report.manuscript.format,
        "verdict": report.verdict,
        "counts": data["counts"],
        "fail_on": list(report.fail_on),
        "report_sha256": hashlib.sha256(report_bytes(data)).hexdigest(),
        "signed_by": report.signature.key_id if report.signature is not None else None,
    }
    return open_log(path).append(MANUSCRIPT_KIND, payload).seq


def load_manuscript_report(text: str | bytes) -> dict[str, Any]:
    """The ``citeproof.manuscript/1`` object in ``text`` (for ``citeproof manuscript
    verify``); bad input when it is not one."""
    return load_signed_json(
        text, MANUSCRIPT_SCHEMA, "a manuscript report", "citeproof manuscript --json"
    )
