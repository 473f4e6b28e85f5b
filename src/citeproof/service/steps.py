"""What a check does after the matcher: the cited work's retraction status, the evidence line.

Both are optional and both need more than the match (the network, the log file), so they are
separate steps that every interface applies the same way: the CLI turns them on by default
(``--no-retraction``, ``--no-log``), the library asks for them explicitly
(``citeproof.check(..., retraction=True, log=True)``), and the MCP server and batch (later
issues) call these functions.  Neither changes the verdict: a quote found verbatim in a
retracted paper is still EXACT, and the report says the paper is retracted.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

from citeproof.models import CheckResult

if TYPE_CHECKING:
    from citeproof.evidence.log import EvidenceLog
    from citeproof.match.types import MatchOptions

__all__ = ["RETRACTION_KINDS", "add_retraction", "log_check"]

#: Identifier kinds whose retraction status citeproof can ask about.
RETRACTION_KINDS: Final = frozenset({"doi", "pmid", "pmcid"})


def add_retraction(
    result: CheckResult,
    *,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
) -> CheckResult:
    """``result`` with ``retraction`` set, when its source is a DOI, PMID or PMCID.

    Asked for the work the check resolved (``source.identifier``), also when its text was
    UNAVAILABLE: whether a work is retracted does not depend on reading it.  Offline, only
    the local Retraction Watch snapshot is consulted, so the status is at best UNVERIFIABLE
    unless that snapshot lists the work.
    """
    key = result.source.identifier
    if key is None or key.split(":", 1)[0] not in RETRACTION_KINDS:
        return result
    from pathlib import Path

    from citeproof.retraction.status import retraction_report

    report = retraction_report(
        key, offline=offline, replay_dir=Path(replay) if replay is not None else None
    )
    return result.model_copy(update={"retraction": report})


def log_check(
    result: CheckResult,
    options: MatchOptions | None,
    log: EvidenceLog,
    *,
    recheck_of: int | None = None,
    claim: str | None = None,
) -> CheckResult:
    """Append the check's evidence line; ``result`` with ``log_seq`` set to it."""
    from citeproof.evidence.payloads import CHECK_KIND, check_payload

    payload = check_payload(result, options, recheck_of=recheck_of, claim=claim)
    entry = log.append(CHECK_KIND, payload)
    return result.model_copy(update={"log_seq": entry.seq})
