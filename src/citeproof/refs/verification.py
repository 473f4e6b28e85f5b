"""Verify references: look each one up, decide, and ask the retraction sources about the
work it names.

Order per reference: its identifiers' records first (cheap, and usually decisive); a search
only when there is no identifier, when the identifier names another work (to find the work
the entry does describe), or when the identifier's record could not be read.  Many
references run at once (:data:`CONCURRENCY` in flight), so requests to different services
overlap while the shared limiter keeps each service's pace.

Without a network every question fails only after its retries, so a list of 18 took half a
minute to say 18 times that nothing could be reached.  :class:`Reachability` watches for
that: once :data:`UNREACHABLE_IN_A_ROW` references in a row found every service unreachable
(no connection at all, not an error answer), the references still running are stopped and
the rest are not asked.  Each of them is ``unavailable`` (never ``not_found``) with the
reason :data:`NOT_ASKED`, and ``Reachability.not_asked`` names them, so a caller writing
results can leave them for ``--resume``.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import httpx2

from citeproof.models.references import (
    Comparison,
    IdentifierCheck,
    ReferenceCounts,
    ReferenceResult,
    StatedFields,
    WorkFound,
)
from citeproof.net import digests
from citeproof.refs.decide import Decision, SearchEvidence, decide
from citeproof.refs.lookup import Enough, Looked, Sources, check_identifiers, search_for
from citeproof.refs.scoring import Scored
from citeproof.refs.stated import StatedReference
from citeproof.retraction.status import retraction_status

__all__ = [
    "CONCURRENCY",
    "NOT_ASKED",
    "UNREACHABLE_IN_A_ROW",
    "Reachability",
    "Retraction",
    "count",
    "counts_of",
    "not_asked",
    "verify_all",
    "verify_reference",
    "was_asked",
]

CONCURRENCY = 8
#: References in a row that found every service unreachable before the run stops asking.
UNREACHABLE_IN_A_ROW = 3
NOT_ASKED = (
    "Not asked: no service could be reached (every request of the references before it "
    "failed to connect), so citeproof stopped asking; nothing was concluded."
)
_FLAGGED = frozenset({"RETRACTED", "CONCERN"})


@dataclass(frozen=True, slots=True)
class Retraction:
    """Ask the retraction sources (``None`` instead of this: do not ask)."""

    rw_db: Path | None
    today: date


@dataclass(slots=True)
class Reachability:
    """Whether the services can be reached at all, over one run (module docstring).

    One is shared by every call of a run (a long list is verified in slices), so the
    run stops once, not once per slice.
    """

    limit: int = UNREACHABLE_IN_A_ROW
    in_a_row: int = 0
    gave_up: bool = False

    def saw(self, looked: Looked) -> None:
        """One reference's questions have all been answered (or failed)."""
        if not looked.asked:
            return
        if looked.unreachable < len(looked.asked):
            self.in_a_row = 0
            return
        self.in_a_row += 1
        self.gave_up = self.gave_up or self.in_a_row >= self.limit


def not_asked(stated: StatedReference, index: int) -> ReferenceResult:
    """``unavailable``, with :data:`NOT_ASKED` as the reason and nothing asked."""
    return ReferenceResult(
        index=index, verdict="unavailable", reason=NOT_ASKED, stated=_stated(stated)
    )


def was_asked(result: ReferenceResult) -> bool:
    """False for a reference given :data:`NOT_ASKED` (a caller may leave it for later)."""
    return bool(result.asked) or result.reason != NOT_ASKED


def _stated(stated: StatedReference) -> StatedFields:
    return StatedFields(
        text=stated.text,
        title=stated.title,
        authors=list(stated.authors),
        year=stated.year,
        venue=stated.venue,
        doi=stated.doi,
        pmid=stated.pmid,
        pmcid=stated.pmcid,
        label=stated.label,
        where=stated.where,
    )


def _work(scored: Scored) -> WorkFound:
    r = scored.record
    return WorkFound(
        source=r.source,
        identifier=r.key,
        doi=r.doi,
        pmid=r.pmid,
        pmcid=r.pmcid,
        title=r.title,
        authors=list(r.authors),
        year=r.year,
        venue=r.venue,
        type=r.kind,
        score=scored.score,
    )


def _comparisons(scored: Scored | None) -> list[Comparison]:
    if scored is None:
        return []
    return [
        Comparison(
            field=f.field,  # type: ignore[arg-type]
            stated=f.stated,
            record=f.record,
            score=f.score,
            agreement=f.agreement,
            threshold=f.threshold,
        )
        for f in scored.fields
    ]


async def _with_retraction(
    client: httpx2.AsyncClient, work: WorkFound | None, ask: Retraction | None, where: Sources
) -> WorkFound | None:
    if work is None or ask is None:
        return work
    key = work.identifier
    if not key.startswith(("doi:", "pmid:", "pmcid:")):
        return work
    report = await retraction_status(
        key,
        client if where.network else None,
        rw_db=ask.rw_db,
        today=ask.today,
        index=where.index,
    )
    return work.model_copy(update={"retraction": report.status, "retraction_reason": report.reason})


def _needs_search(stated: StatedReference, decision: Decision) -> bool:
    """Search when the identifier named another work or could not be read, and the entry
    states something to search for (a sentence's "Smith et al. (2019)" alone is not)."""
    has_words = bool(stated.title or stated.text.strip())
    return has_words and decision.verdict in ("mismatch", "unavailable")


def _decides(stated: StatedReference) -> Enough:
    """The searches so far decide an entry without identifiers once a record validates (the
    answer is ``verified`` or ``ambiguous``): no later database could undo it."""

    def enough(searches: list[SearchEvidence]) -> bool:
        return decide(stated, [], searches).verdict in ("verified", "ambiguous")

    return enough


def _suggests(stated: StatedReference, looked: Looked) -> Enough:
    """For an identifier that names another work (or could not be read): enough once a
    search found the work the stated metadata describes."""

    def enough(searches: list[SearchEvidence]) -> bool:
        decision = decide(stated, looked.ids, searches)
        return decision.suggested is not None or decision.verdict == "verified"

    return enough


async def verify_reference(
    client: httpx2.AsyncClient,
    stated: StatedReference,
    index: int,
    *,
    retraction: Retraction | None,
    reach: Reachability | None = None,
    sources: Sources | None = None,
) -> ReferenceResult:
    """One reference's result (see :mod:`citeproof.refs.decide` for the verdicts);
    ``sources`` adds a local index, asked first, or keeps the web out (``--offline``)."""
    where = sources if sources is not None else Sources()
    looked = Looked()
    if stated.identifiers:
        await check_identifiers(client, stated, looked, where)
        if _needs_search(stated, decide(stated, looked.ids, [])) and not stated.is_empty:
            await search_for(client, stated, looked, _suggests(stated, looked), where)
    elif not stated.is_empty:
        await search_for(client, stated, looked, _decides(stated), where)
    if reach is not None:
        reach.saw(looked)
    decision = decide(stated, looked.ids, looked.searches)
    work = _work(decision.work) if decision.work is not None else None
    suggested = _work(decision.suggested) if decision.suggested is not None else None
    if decision.verdict in ("verified", "partial"):
        work = await _with_retraction(client, work, retraction, where)
    suggested = await _with_retraction(client, suggested, retraction, where)
    flagged = (
        work is not None
        and decision.verdict in ("verified", "partial")
        and (work.retraction in _FLAGGED)
    )
    reason = decision.reason
    if where.index is not None and decision.verdict == "not_found":
        # The index is a database that answered, and says what it holds: not being in it
        # is "not in these dumps", never "does not exist".
        reason += (
            f" The local index holds {where.index.coverage_phrase()}: a work newer than its "
            "dumps, or from a source it does not hold, is not in it."
        )
    if flagged and work is not None:
        what = "retracted" if work.retraction == "RETRACTED" else "under an expression of concern"
        reason += f" The work is {what}."
    return ReferenceResult(
        index=index,
        verdict=decision.verdict,  # type: ignore[arg-type]
        reason=reason,
        stated=_stated(stated),
        identifiers=[
            IdentifierCheck(
                identifier=i.key,
                exists=i.exists,
                registered_with=i.registered_with,
                reason=i.reason,
            )
            for i in looked.ids
        ],
        work=work,
        comparisons=_comparisons(decision.work or decision.suggested),
        differs=list(decision.differs),  # type: ignore[arg-type]
        suggested=suggested,
        candidates=[_work(c) for c in decision.candidates],
        closest=[_work(c) for c in decision.closest],
        decided_by=list(decision.work.decided_by if decision.work is not None else ()),
        notes=list(decision.notes),
        work_kind=decision.work_kind,
        retracted=flagged,
        asked=looked.asked,
    )


async def verify_all(
    client: httpx2.AsyncClient,
    references: Sequence[StatedReference],
    *,
    retraction: Retraction | None,
    start: int = 1,
    concurrency: int = CONCURRENCY,
    on_result: Callable[[ReferenceResult], None] | None = None,
    reach: Reachability | None = None,
    sources: Sources | None = None,
) -> list[ReferenceResult]:
    """Every reference's result, in the given order; ``on_result`` as each one finishes.

    When ``reach`` gives up (module docstring), the references still being asked are
    stopped and none is asked after them: each gets :data:`NOT_ASKED`.
    """
    digests.install(client)  # each answer's sha256, for the reference's log line
    gate = asyncio.Semaphore(max(1, concurrency))
    reach = reach if reach is not None else Reachability()
    running: set[asyncio.Task[ReferenceResult]] = set()

    async def ask(stated: StatedReference, index: int) -> ReferenceResult:
        result = await verify_reference(
            client, stated, index, retraction=retraction, reach=reach, sources=sources
        )
        if reach.gave_up:
            for task in running:
                if task is not asyncio.current_task():
                    task.cancel()
        return result

    async def one(i: int, stated: StatedReference) -> ReferenceResult:
        index = start + i
        async with gate:
            if reach.gave_up:
                result = not_asked(stated, index)
            else:
                task = asyncio.ensure_future(ask(stated, index))
                running.add(task)
                try:
                    result = await asyncio.shield(task)
                except asyncio.CancelledError:
                    if not task.cancelled() or not reach.gave_up:
                        raise  # cancelled from outside (Ctrl-C): not ours to swallow
                    result = not_asked(stated, index)
                finally:
                    running.discard(task)
        if on_result is not None:
            on_result(result)
        return result

    return list(await asyncio.gather(*(one(i, s) for i, s in enumerate(references))))


def count(results: Sequence[ReferenceResult]) -> ReferenceCounts:
    """How many results got each verdict, and how many name a retracted work."""
    tally: Counter[str] = Counter()
    for r in results:
        tally[r.verdict] += 1
        tally["retracted"] += r.retracted
    return counts_of(tally)


def counts_of(tally: Mapping[str, int]) -> ReferenceCounts:
    """The counts of a tally of verdicts (and ``retracted``) kept as results went by."""
    verdicts = [v for v in ReferenceCounts.model_fields if v not in ("total", "retracted")]
    return ReferenceCounts(
        total=sum(tally.get(v, 0) for v in verdicts),
        retracted=tally.get("retracted", 0),
        **{v: tally.get(v, 0) for v in verdicts},
    )
