"""Re-run the checks the evidence log recorded, and say what changed since.

A citation that checked out in March can fail in November: the publisher corrected the
article (new bytes, the quote reworded or moved), or the work was retracted.  ``recheck``
reads the ``check`` lines of the log, fetches each source again (``--refresh`` semantics:
new bytes are pinned), re-runs the quote with the options it was checked with, and reports,
check by check, whether the bytes changed, whether the quote is still there and at the same
place, and whether a retraction or expression of concern appeared.

The same check recorded many times (a batch run nightly, say) is re-run once, for its
latest line.  Text given directly cannot be fetched again and is reported as such.

This module reads the log lines and compares; running the check again is the check
pipeline's (:func:`citeproof.service.logbook.recheck` runs :func:`rerun_plan`'s options
through it), so a re-run is exactly the check a user would run now.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from citeproof.errors import BadInputError
from citeproof.evidence.lines import LogEntry
from citeproof.models import CheckResult
from citeproof.models.recheck import RecheckItem, RecheckReport, Snapshot

__all__ = ["Rerun", "compare", "latest_checks", "report", "rerun_plan", "since_time"]

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
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def latest_checks(entries: Iterable[LogEntry], since: str | None) -> list[LogEntry]:
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


@dataclass(frozen=True, slots=True)
class Rerun:
    """How to run a recorded check again: its quote, what to load, and the options it ran
    with (``options``: the matcher's, as the line recorded them)."""

    quote: str
    target: str
    options: dict[str, Any]
    retraction: bool


def rerun_plan(payload: dict[str, Any]) -> Rerun | str:
    """How to re-run the check a log line recorded, or why it cannot be.

    An identifier is fetched again; a file is read again if it still exists; text given
    directly or on stdin cannot be.  The retraction status is asked when the line had one,
    or the source is an identifier.
    """
    source = payload.get("source") or {}
    shown = source.get("input")
    identifier = source.get("identifier")
    quote = payload.get("quote")
    if not isinstance(quote, str) or not isinstance(shown, str):
        return "the log line does not record a quote and a source"
    if shown == _TEXT_INPUT or shown == "-" or source.get("served_by") == "stdin":
        return "the source text was given directly (or on stdin) and cannot be read again"
    if identifier is None and not Path(shown).exists():
        return f"the file {shown} no longer exists"
    return Rerun(
        quote=quote,
        target=identifier if isinstance(identifier, str) else shown,
        options=dict(payload.get("options") or {}),
        retraction=payload.get("retraction") is not None or identifier is not None,
    )


def compare(entry: LogEntry, outcome: CheckResult | str) -> RecheckItem:
    """What changed between the check ``entry`` recorded and its re-run (or why there was
    none: ``outcome`` is then the reason)."""
    payload = entry.payload
    then = _snapshot_then(payload)
    base = RecheckItem(
        seq=entry.seq,
        quote=str(payload.get("quote")),
        source=str((payload.get("source") or {}).get("input")),
        state="not_rechecked",
        then=then,
    )
    if isinstance(outcome, str):
        return base.model_copy(update={"reason": outcome})
    now = _snapshot_now(outcome)
    unavailable = now.verdict == "UNAVAILABLE"
    return base.model_copy(
        update=dict(
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
        )
    )


def report(items: list[RecheckItem], since: str | None) -> RecheckReport:
    return RecheckReport(
        since=since,
        rechecked=sum(1 for i in items if i.state == "rechecked"),
        changed=sum(1 for i in items if i.changed),
        not_rechecked=sum(1 for i in items if i.state == "not_rechecked"),
        items=items,
    )
