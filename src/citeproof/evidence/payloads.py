"""What an evidence-log line says about a check: enough to re-run it and to see what changed.

The log is for auditors and for ``citeproof recheck``, so a line keeps what identifies the
check (the quote, the source as given, the bytes by sha256 and where they came from, the
options) and what it found (verdict, reason, where the quote matched or came closest,
flags, where else the words were found, the retraction status), but not the passages
themselves: those are in the pinned bytes the sha256 names, and copying them into every
line would make the log grow with the documents rather than with the checks.

:func:`check_payload` is pure, so a batch worker can make the payload where the result is
and the parent append it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from citeproof.match.types import MatchOptions

if TYPE_CHECKING:  # only named: the check pipeline imports this module, and not pydantic
    from citeproof.models import CheckResult, plain

__all__ = [
    "CHECK_KIND",
    "MAX_LOGGED_MATCHES",
    "SEARCH_KIND",
    "check_payload",
]

SEARCH_KIND: Final = "search"

CHECK_KIND: Final = "check"
#: Occurrences kept per line; ``count`` still says how many there were.
MAX_LOGGED_MATCHES: Final = 20


def check_payload(
    result: CheckResult | plain.CheckResult,
    options: MatchOptions | None = None,
    *,
    recheck_of: int | None = None,
    claim: str | None = None,
) -> dict[str, Any]:
    """The payload of the ``check`` line for ``result``, the model or the pipeline's plain
    result (``models.plain``, what a one-shot check of a local file logs without pydantic):
    both give the same line.

    ``claim`` is the sentence the quote was offered for, when the caller gives one: kept so a
    reviewer can later annotate whether the passage supports it (``log annotate``); citeproof
    itself never judges that.
    """
    source = result.source
    payload: dict[str, Any] = {
        "schema": result.schema_,
        "quote": result.quote,
        "verdict": result.verdict,
        "reason": result.reason,
        "normalisation": result.normalisation,
        "count": result.count,
        "matches": [
            {"start": m.start, "end": m.end, "block": m.location.block, "region": m.location.region}
            for m in result.matches[:MAX_LOGGED_MATCHES]
        ],
        "flags": list(result.flags),
        "source": {
            "input": source.input,
            "identifier": source.identifier,
            "resolved": {
                "doi": source.resolved.doi,
                "pmid": source.resolved.pmid,
                "pmcid": source.resolved.pmcid,
            },
            "served_by": source.served_by,
            "version": source.version,
            "coverage": source.coverage,
            "sha256": source.sha256,
            "md5_ok": source.md5_ok,
            "url": source.url,
            "retrieved_at": source.retrieved_at,
            "fingerprint_ok": source.fingerprint_ok,
        },
    }
    if source.degraded is not None:  # only then, so the lines of other checks are unchanged
        payload["source"]["degraded"] = source.degraded
    if result.near is not None:
        near = result.near
        payload["near"] = {
            "similarity": near.similarity,
            "start": near.start,
            "end": near.end,
            "flags": list(near.flags),
        }
    if options is not None:
        payload["options"] = {
            "profile": options.profile,
            "near_threshold": options.near_threshold,
            "max_gap": options.max_gap,
        }
    if result.retraction is not None:
        payload["retraction"] = {
            "status": result.retraction.status,
            "as_of": result.retraction.as_of.isoformat() if result.retraction.as_of else None,
            "by": [s.source for s in result.retraction.sources if s.retracted or s.concern],
        }
    if result.found_elsewhere is not None:
        payload["found_elsewhere"] = [
            {"identifier": f.identifier, "verdict": f.verdict, "sha256": f.sha256}
            for f in result.found_elsewhere
        ]
    if recheck_of is not None:
        payload["recheck_of"] = recheck_of
    if claim is not None:
        payload["claim"] = claim
    return payload
