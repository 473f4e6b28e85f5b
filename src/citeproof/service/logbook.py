"""The door to the evidence log: open it, record a search in it, and re-run what it recorded.

The interfaces reach the log only through here (``citeproof log ...``, ``citeproof search``,
``citeproof recheck``, the MCP tools), so every one of them chooses the log file by the same
rule (``--log``, else ``CITEPROOF_LOG``, else the data directory) and records the same lines.

A command that reads the log opens it with :func:`existing_log`: the data directory's log is
simply empty until the first check, but a log the user named that is not there is a mistake
(``--log typo.jsonl``), and reading it as an empty log would answer "ok: 0 entries".
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from citeproof.errors import LogError
from citeproof.evidence.canonical import canonical_text
from citeproof.evidence.lines import LogEntry
from citeproof.evidence.log import SUPPORT_VALUES, EvidenceLog, open_log, verify_proof
from citeproof.evidence.payloads import SEARCH_KIND
from citeproof.evidence.recheck import compare, latest_checks, report, rerun_plan, since_time
from citeproof.models.recheck import RecheckItem, RecheckReport
from citeproof.models.search import SearchRecord
from citeproof.service.pipeline import CheckOptions, Pipeline
from citeproof.store.paths import resolve_dirs

__all__ = [
    "SUPPORT_VALUES",
    "EvidenceLog",
    "LogEntry",
    "RecheckReport",
    "canonical_text",
    "existing_log",
    "open_log",
    "recheck",
    "recheck_report",
    "record_search",
    "since_time",
    "verify_proof",
]


def existing_log(path: str | os.PathLike[str] | None = None) -> EvidenceLog:
    """The log to read, chosen as :func:`open_log` chooses it; a log named by ``path`` or
    ``CITEPROOF_LOG`` that is not on disk raises :class:`LogError` (exit 2)."""
    log = open_log(path)
    if not log.exists and log.path != resolve_dirs(os.environ).log:
        raise LogError(
            f"there is no evidence log at {log.path}; check the path given with --log or "
            "CITEPROOF_LOG (`citeproof log path` prints the log in use)."
        )
    return log


def record_search(record: SearchRecord, log: EvidenceLog) -> SearchRecord:
    """Append the ``search`` line for ``record``; ``record`` with ``log_seq`` set to it."""
    entry = log.append(SEARCH_KIND, record.log_payload())
    return record.model_copy(update={"log_seq": entry.seq})


def recheck(
    log: EvidenceLog,
    *,
    since: str | None = None,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    record: bool = True,
) -> Iterator[RecheckItem]:
    """Re-run each distinct recorded check through the pipeline; one item per check as it
    finishes.

    Each runs with the matcher options its line recorded, fetched again (``refresh``) unless
    ``offline``, with the retraction status asked again; ``record`` appends each re-run to
    ``log`` as a ``check`` line with ``recheck_of``.
    """
    for entry in latest_checks(log.entries(), since):
        plan = rerun_plan(entry.payload)
        if isinstance(plan, str):
            yield compare(entry, plan)
            continue
        options = CheckOptions(
            **plan.options,
            offline=offline,
            refresh=not offline,
            replay=os.fspath(replay) if replay is not None else None,
            retraction=plan.retraction,
            log=record,
        )
        result = Pipeline(options, log=log).check(plan.quote, plan.target, recheck_of=entry.seq)
        yield compare(entry, result)


def recheck_report(items: list[RecheckItem], since: str | None) -> RecheckReport:
    """The ``citeproof.recheck/1`` report of the items :func:`recheck` yielded."""
    return report(items, since)
