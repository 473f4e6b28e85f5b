"""Re-run the checks the evidence log recorded, and say what changed since.

A citation that checked out in March can fail in November: the publisher corrected the
article (new bytes, the quote reworded or moved), or the work was retracted.  ``recheck``
reads the ``check`` lines of the log, fetches each source again (``--refresh`` semantics:
new bytes are pinned), re-runs the quote with the options it was checked with, and reports,
check by check, whether the bytes changed, whether the quote is still there and at the same
place, and whether a retraction or expression of concern appeared.

The same check recorded many times (a batch run nightly, say) is re-run once, for its
latest line.  Text given directly cannot be fetched again and is reported as such.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from citeproof.errors import BadInputError
from citeproof.models.recheck import RecheckItem, RecheckReport, Snapshot

if TYPE_CHECKING:
    from citeproof.evidence.log import EvidenceLog, LogEntry
    from citeproof.models import CheckResult

__all__ = ["recheck", "report", "since_time"]

_TEXT_INPUT: Final = "<text>"
_ALARMING: Final = frozenset({"RETRACTED", "CONCERN"})


def since_time(value: str) -> str:
    """``--since`` as the log's UTC timestamp text, so it compares with ``entry.time``."""
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise BadInputError(
            f"--since {value!r} is not a date; give YYYY-MM-DD or an ISO 8601 time."
        ) from None
    if moment.tzinfo is not None:
        from datetime import UTC

        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _latest_checks(entries: Iterable[LogEntry], since: str | None) -> list[LogEntry]:
    """The latest line of each distinct check (quote, source, options) since ``since``."""
    latest: dict[str, LogEntry] = {}
    for entry in entries:
        if entry.kind != "check" or (since is not None and entry.time < since):
            continue
        payload = entry.payload
        source = payload.get("source") or {}
        where = source.get("identifier") or source.get("input")
        key = repr((payload.get("quote"), where, payload.get("options")))
        latest.pop(key, None)  # re-insert so the order is that of the latest lines
        latest[key] = entry
    return list(latest.values())


def _snapshot_then(payload: dict[str, Any]) -> Snapshot:
    matches = payload.get("matches") or []
    near = payload.get("near") or {}
    first = matches[0] if matches else near
    retraction = payload.get("retraction") or {}
    return Snapshot(
        verdict=str(payload.get("verdict")),
        sha256=(payload.get("source") or {}).get("sha256"),
        start=first.get("start"),
        end=first.get("end"),
        retraction=retraction.get("status"),
    )


def _snapshot_now(result: CheckResult) -> Snapshot:
    start = end = None
    if result.matches:
        start, end = result.matches[0].start, result.matches[0].end
    elif result.near is not None:
        start, end = result.near.start, result.near.end
    return Snapshot(
        verdict=result.verdict,
        sha256=result.source.sha256,
        start=start,
        end=end,
        retraction=result.retraction.status if result.retraction is not None else None,
    )


def _rerun(
    payload: dict[str, Any], *, offline: bool, replay: str | os.PathLike[str] | None
) -> CheckResult | str:
    """The check re-run against fresh bytes, or why it cannot be."""
    from citeproof import service
    from citeproof.service.steps import add_retraction

    source = payload.get("source") or {}
    shown = source.get("input")
    identifier = source.get("identifier")
    quote = payload.get("quote")
    if not isinstance(quote, str) or not isinstance(shown, str):
        return "the log line does not record a quote and a source"
    if shown == _TEXT_INPUT or shown == "-" or source.get("served_by") == "stdin":
        return "the source text was given directly (or on stdin) and cannot be read again"
    target = identifier if isinstance(identifier, str) else shown
    if identifier is None and not Path(shown).exists():
        return f"the file {shown} no longer exists"
    options = service.match_options(**(payload.get("options") or {}))
    loaded = service.load_source(
        target, offline=offline, refresh=not offline, replay=replay
    )
    result = service.check_loaded(quote, loaded, options)
    if payload.get("retraction") is not None or identifier is not None:
        result = add_retraction(result, offline=offline, replay=replay)
    return result


def recheck(
    log: EvidenceLog,
    *,
    since: str | None = None,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    record: bool = True,
) -> Iterator[RecheckItem]:
    """Re-run each distinct recorded check; yields one item per check as it finishes.

    ``record`` appends each re-run to ``log`` as a ``check`` line with ``recheck_of``.
    """
    from citeproof.service import match_options
    from citeproof.service.steps import log_check

    for entry in _latest_checks(log.entries(), since):
        payload = entry.payload
        then = _snapshot_then(payload)
        base = RecheckItem(
            seq=entry.seq,
            quote=str(payload.get("quote")),
            source=str((payload.get("source") or {}).get("input")),
            state="not_rechecked",
            then=then,
        )
        outcome = _rerun(payload, offline=offline, replay=replay)
        if isinstance(outcome, str):
            yield base.model_copy(update={"reason": outcome})
            continue
        if record:
            options = match_options(**(payload.get("options") or {}))
            outcome = log_check(outcome, options, log, recheck_of=entry.seq)
        now = _snapshot_now(outcome)
        unavailable = now.verdict == "UNAVAILABLE"
        yield base.model_copy(update=dict(
            state="not_rechecked" if unavailable else "rechecked",
            reason=outcome.reason if unavailable else None,
            now=now,
            bytes_changed=None if unavailable else now.sha256 != then.sha256,
            verdict_changed=not unavailable and now.verdict != then.verdict,
            moved=not unavailable
            and now.verdict == then.verdict
            and (now.start, now.end) != (then.start, then.end),
            newly_retracted=now.retraction in _ALARMING and then.retraction not in _ALARMING,
            log_seq=outcome.log_seq,
        ))


def report(items: list[RecheckItem], since: str | None) -> RecheckReport:
    return RecheckReport(
        since=since,
        rechecked=sum(1 for i in items if i.state == "rechecked"),
        changed=sum(1 for i in items if i.changed),
        not_rechecked=sum(1 for i in items if i.state == "not_rechecked"),
        items=items,
    )
