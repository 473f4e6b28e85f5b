"""Verify references: look each one up, decide, and ask the retraction sources about the
work it names.

Order per reference: its identifiers' records first (cheap, and usually decisive); a search
only when there is no identifier, when the identifier names another work (to find the work
the entry does describe), or when the identifier's record could not be read.  Many
references run at once (:data:`CONCURRENCY` in flight), so requests to different services
overlap while the shared limiter keeps each service's pace.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
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
from citeproof.refs.decide import Decision, decide
from citeproof.refs.lookup import Looked, check_identifiers, search_for
from citeproof.refs.scoring import Scored
from citeproof.refs.stated import StatedReference
from citeproof.retraction.status import retraction_status

__all__ = ["CONCURRENCY", "Retraction", "count", "verify_all", "verify_reference"]

CONCURRENCY = 8
_FLAGGED = frozenset({"RETRACTED", "CONCERN"})


@dataclass(frozen=True, slots=True)
class Retraction:
    """Ask the retraction sources (``None`` instead of this: do not ask)."""

    rw_db: Path | None
    today: date


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
    client: httpx2.AsyncClient, work: WorkFound | None, ask: Retraction | None
) -> WorkFound | None:
    if work is None or ask is None:
        return work
    key = work.identifier
    if not key.startswith(("doi:", "pmid:", "pmcid:")):
        return work
    report = await retraction_status(key, client, rw_db=ask.rw_db, today=ask.today)
    return work.model_copy(update={"retraction": report.status, "retraction_reason": report.reason})


def _needs_search(stated: StatedReference, decision: Decision) -> bool:
    """Search when the identifier named another work or could not be read, and the entry
    states something to search for (a sentence's "Smith et al. (2019)" alone is not)."""
    has_words = bool(stated.title or stated.text.strip())
    return has_words and decision.verdict in ("mismatch", "unavailable")


async def verify_reference(
    client: httpx2.AsyncClient,
    stated: StatedReference,
    index: int,
    *,
    retraction: Retraction | None,
) -> ReferenceResult:
    """One reference's result (see :mod:`citeproof.refs.decide` for the verdicts)."""
    looked = Looked()
    if stated.identifiers:
        await check_identifiers(client, stated, looked)
        if _needs_search(stated, decide(stated, looked.ids, [])) and not stated.is_empty:
            await search_for(client, stated, looked)
    elif not stated.is_empty:
        await search_for(client, stated, looked)
    decision = decide(stated, looked.ids, looked.searches)
    work = _work(decision.work) if decision.work is not None else None
    suggested = _work(decision.suggested) if decision.suggested is not None else None
    if decision.verdict in ("verified", "partial"):
        work = await _with_retraction(client, work, retraction)
    suggested = await _with_retraction(client, suggested, retraction)
    flagged = (
        work is not None
        and decision.verdict in ("verified", "partial")
        and (work.retraction in _FLAGGED)
    )
    reason = decision.reason
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
) -> list[ReferenceResult]:
    """Every reference's result, in the given order; ``on_result`` as each one finishes."""
    digests.install(client)  # each answer's sha256, for the reference's log line
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(i: int, stated: StatedReference) -> ReferenceResult:
        async with gate:
            result = await verify_reference(client, stated, start + i, retraction=retraction)
        if on_result is not None:
            on_result(result)
        return result

    return list(await asyncio.gather(*(one(i, s) for i, s in enumerate(references))))


def count(results: Sequence[ReferenceResult]) -> ReferenceCounts:
    """How many results got each verdict, and how many name a retracted work."""
    tally = {v: 0 for v in ReferenceCounts.model_fields if v not in ("total", "retracted")}
    for r in results:
        tally[r.verdict] += 1
    return ReferenceCounts(
        total=len(results), retracted=sum(1 for r in results if r.retracted), **tally
    )
