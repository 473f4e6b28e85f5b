"""The tool bodies: each validates its input, calls the service, and returns a model.

Thin on purpose: the rules (what a source may be, how a check runs, what a log line holds)
live in the service (:mod:`citeproof.service`: the check pipeline and the doors to the log,
the cache, the lookups) and the audit, so the server answers exactly what ``citeproof check
--json`` and its siblings print.  Three things are decided here:

* Errors.  A ``CiteproofError`` (bad input, an evidence log that cannot be written)
  becomes the SDK's ``ToolError``, whose text the agent reads and acts on; so does anything
  else a tool raises (:func:`failure_text`): what the operating system refused, in words,
  and an unexpected exception as its type and message (its traceback goes to the server's
  log).  The SDK would answer those with a bare "Error executing tool check_quote", which
  tells an agent neither what failed nor whether to retry.  A source that could not be read
  is a status in the result (an UNAVAILABLE verdict or page, passages with status
  UNAVAILABLE, a ``failed`` search record), never an error.
* Threads.  The methods are plain functions: the SDK runs a synchronous tool in a worker
  thread (``anyio.to_thread``), so fetching, matching and log appends never block the
  event loop, and the library's ``asyncio.run`` calls get a thread without a running loop.
* Imports.  Nothing of the service or the models is imported until a tool runs: the server
  answers ``tools/list`` from cached schemas (:mod:`citeproof.mcp.schemas`) and pays for a
  feature the first time it is used.

The arguments arrive checked (:mod:`citeproof.mcp.arguments`); :meth:`CiteproofTools.call`
is the one entry the server uses: it checks them, runs the tool and returns the result as
JSON data, whole or summarised (``detail``, :mod:`citeproof.mcp.summaries`).
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from citeproof.errors import BadInputError, CiteproofError, os_problem

if TYPE_CHECKING:
    from pydantic import BaseModel

    from citeproof.mcp.arguments import QuoteItem
    from citeproof.mcp.outputs import (
        CheckpointRecord,
        CheckQuotesItem,
        CheckQuotesResult,
        HandlesResult,
        PassagesResult,
        SupportRecord,
    )
    from citeproof.models import CheckResult, RetractionReport
    from citeproof.models.audit import AuditReport
    from citeproof.models.evidence import VerifyReport
    from citeproof.models.references import ReferencesReport
    from citeproof.models.search import SearchRecord
    from citeproof.models.source import ResolvedSource, SourceText
    from citeproof.service.logbook import EvidenceLog
    from citeproof.service.pipeline import Pipeline
    from citeproof.service.storage import Cache

__all__ = ["BATCH_WORKERS", "CiteproofTools", "ToolSettings", "failure_text", "tool_error"]

T = TypeVar("T")
logger = logging.getLogger(__name__)
#: Most characters of an unexpected exception's message an agent is shown.
_MAX_UNEXPECTED = 300

#: Checks of one ``check_quotes`` call that run at once (network-bound for identifiers).
BATCH_WORKERS = 4


@dataclass(frozen=True, slots=True)
class ToolSettings:
    """How the server's tools run; one per server, shared by every call.

    ``replay`` None means ``CITEPROOF_REPLAY`` (read by the library on every call);
    ``log`` False writes no evidence lines; ``log_path`` None means ``CITEPROOF_LOG``, else
    the data directory's log; ``allow_files`` False refuses local paths as sources, for a
    server whose clients must not read the server's files.
    """

    offline: bool = False
    replay: str | None = None
    log: bool = True
    log_path: str | None = None
    allow_files: bool = True


def tool_error(err: CiteproofError | str) -> Exception:
    """The SDK's ToolError carrying ``err``'s message on one line."""
    from mcp.server.mcpserver.exceptions import ToolError

    text = err if isinstance(err, str) else str(err)
    return ToolError(" ".join(text.split()) or type(err).__name__)


def failure_text(err: Exception) -> str:
    """What a failed call says to the agent, on one line: a ``CiteproofError``'s message,
    what the operating system refused (in words, with the path), or, for what no one
    expected, the exception's type and message (the traceback is logged on stderr)."""
    if isinstance(err, CiteproofError):
        text = str(err) or type(err).__name__
    elif isinstance(err, OSError):
        text = f"{os_problem(err)}."
    else:
        logger.error("a tool failed unexpectedly", exc_info=err)
        message = " ".join(str(err).split())
        if len(message) > _MAX_UNEXPECTED:
            message = message[: _MAX_UNEXPECTED - 3] + "..."
        text = f"unexpected {type(err).__name__}" + (f": {message}" if message else "")
        text += " (a fault in citeproof; the server's log has the details)."
    return " ".join(text.split())


def _guard(call: Callable[[], T]) -> T:
    try:
        return call()
    except CiteproofError as err:
        raise tool_error(err) from err


class CiteproofTools:
    """The server's tools, bound to one :class:`ToolSettings`."""

    def __init__(self, settings: ToolSettings | None = None) -> None:
        self.settings = settings or ToolSettings()
        self._held_lock = threading.Lock()
        self._log: EvidenceLog | None = None
        self._cache: Cache | None = None

    # ------------------------------------------------------------------ helpers

    def _open_log(self) -> EvidenceLog:
        """The server's one log object, so its key is loaded and its signed head checked
        once rather than on every append (each append still takes the file lock and reads
        the head again, so entries other processes wrote are seen)."""
        with self._held_lock:
            if self._log is None:
                from citeproof.service.logbook import open_log

                self._log = open_log(self.settings.log_path)
            return self._log

    def _held_cache(self) -> Cache | None:
        """The server's one cache connection (thread-safe), instead of an open per check;
        None offline while there is no cache yet (offline never creates one)."""
        with self._held_lock:
            if self._cache is None:
                from citeproof.service.storage import open_cache_for

                self._cache = open_cache_for(offline=self.settings.offline)
            return self._cache

    def _on_log(self, call: Callable[[], T]) -> T:
        """``call`` on the server's evidence log, with what the operating system refuses
        there said of the log (a log path under a file, a folder in its place)."""
        try:
            return _guard(call)
        except OSError as err:
            held = self._log
            where = f" {held.path}" if held is not None else ""
            raise tool_error(
                f"the server's evidence log{where} cannot be used: {os_problem(err)}. The "
                "server was started with it; restart it with another --log, or with --no-log."
            ) from err

    def close(self) -> None:
        """Close the held cache connection; the next call opens it again."""
        with self._held_lock:
            if self._cache is not None:
                self._cache.close()
                self._cache = None

    def _check_source(self, source: str) -> None:
        if source == "-":
            raise BadInputError(
                "'-' (standard input) cannot be a source over MCP; give an identifier or the "
                "path of a file."
            )
        if not source.strip():
            raise BadInputError(
                "the source is empty; give a DOI, PMID, PMCID, NCT number, URL or file path."
            )

    def _pipeline(self, *, find_source: bool = False) -> Pipeline:
        """The check pipeline as this server runs it: retraction always, the log as started,
        on the server's held cache and log."""
        from citeproof.service.pipeline import CheckOptions, Pipeline

        settings = self.settings
        options = CheckOptions(
            offline=settings.offline, replay=settings.replay, files=settings.allow_files,
            retraction=True, find_source=find_source, log=settings.log,
            log_path=settings.log_path,
        )  # fmt: skip
        log = self._open_log() if settings.log else None
        return Pipeline(options, cache=self._held_cache(), log=log)

    def _check(self, quote: str, source: str, claim: str | None, find_source: bool) -> CheckResult:
        from citeproof.errors import EvidenceNotRecordedError
        from citeproof.service.inputs import validate_quote

        validate_quote(quote)
        self._check_source(source)
        try:
            return self._pipeline(find_source=find_source).check(quote, source, claim=claim)
        except EvidenceNotRecordedError as err:
            verdict = getattr(err.result, "verdict", "?")
            raise BadInputError(
                f"the check ran (verdict {verdict}) but its evidence line could not be "
                f"written: {err.cause}"
            ) from err

    def _record_search(self, record: SearchRecord) -> SearchRecord:
        if not self.settings.log:
            return record
        from citeproof.service.logbook import record_search

        return record_search(record, self._open_log())

    def _replay_dir(self) -> Path | None:
        return Path(self.settings.replay) if self.settings.replay else None

    # ------------------------------------------------------------------ the server's entry

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Tool ``name`` on raw ``arguments``: its result as JSON data (summarised when the
        tool takes ``detail`` and it is ``summary``); a tool error for bad arguments."""
        from pydantic import ValidationError

        from citeproof.mcp.arguments import argument_error, validate

        try:
            checked = validate(name, arguments)
        except ValidationError as err:
            raise tool_error(argument_error(name, err)) from err
        given = {field: getattr(checked, field) for field in type(checked).model_fields}
        detail = given.pop("detail", None)
        try:
            result: BaseModel = getattr(self, name)(**given)
            data: dict[str, Any] = result.model_dump(mode="json", by_alias=True)
            if detail == "summary":
                from citeproof.mcp.summaries import summarise

                return summarise(name, data)
            return data
        except Exception as err:
            from mcp.server.mcpserver.exceptions import ToolError

            if isinstance(err, ToolError):
                raise
            raise tool_error(failure_text(err)) from err

    # ------------------------------------------------------------------ tools

    def check_quote(
        self, quote: str, source: str, claim: str | None = None, find_source: bool = False
    ) -> CheckResult:
        return _guard(lambda: self._check(quote, source, claim, find_source))

    def check_quotes(self, items: Sequence[QuoteItem]) -> CheckQuotesResult:
        from citeproof.mcp.arguments import MAX_BATCH
        from citeproof.mcp.outputs import CheckQuotesItem, CheckQuotesResult

        if len(items) > MAX_BATCH:
            raise tool_error(
                f"{len(items)} items is more than {MAX_BATCH} per call; split them into "
                f"batches of at most {MAX_BATCH}."
            )

        def one(index: int, item: QuoteItem) -> CheckQuotesItem:
            try:
                result = self._check(item.quote, item.source, item.claim, False)
            except Exception as err:  # one item's failure is its own, whatever it is
                return CheckQuotesItem(index=index, error=failure_text(err))
            return CheckQuotesItem(index=index, result=result)

        if len(items) <= 1:
            outcomes = [one(i, item) for i, item in enumerate(items)]
        else:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=min(BATCH_WORKERS, len(items))) as pool:
                outcomes = list(pool.map(one, range(len(items)), items))
        verdicts = Counter(o.result.verdict for o in outcomes if o.result is not None)
        return CheckQuotesResult(
            items=outcomes,
            by_verdict=dict(sorted(verdicts.items())),
            errors=sum(1 for o in outcomes if o.error is not None),
        )

    def read_source(self, source: str, start: int = 0, limit: int = 20_000) -> SourceText:
        from citeproof.service.reading import read_source

        def run() -> SourceText:
            self._check_source(source)
            return read_source(
                source,
                start=start,
                limit=limit,
                offline=self.settings.offline,
                replay=self.settings.replay,
                files=self.settings.allow_files,
                cache=self._held_cache(),
            )

        return _guard(run)

    def resolve_identifier(self, identifier: str) -> ResolvedSource:
        from citeproof.service.reading import resolve_identifier

        return _guard(
            lambda: resolve_identifier(
                identifier,
                offline=self.settings.offline,
                replay=self.settings.replay,
                cache=self._held_cache(),
            )
        )

    def retraction_status(self, identifier: str) -> RetractionReport:
        from citeproof.service.lookups import retraction_report

        def run() -> RetractionReport:
            if not identifier.strip():
                raise BadInputError("the identifier is empty; give a DOI, PMID or PMCID.")
            return retraction_report(
                identifier, offline=self.settings.offline, replay_dir=self._replay_dir()
            )

        return _guard(run)

    def _search(
        self, engine: str, query: str, params: dict[str, str], run: Callable[[], SearchRecord]
    ) -> SearchRecord:
        """``run()``'s record, logged; a search that could not be made (``--offline``, no
        recording of it under ``--replay``) is a ``failed`` record, not an error, and is not
        logged: nothing was asked of the engine."""
        from citeproof.errors import UnavailableError, UnrecordedRequestError
        from citeproof.models.search import SearchRecord

        try:
            record = run()
        except (UnavailableError, UnrecordedRequestError) as err:
            return SearchRecord(
                engine=engine,
                endpoint="",
                query=query,
                params=params,
                status="failed",
                reason=" ".join(str(err).split()),
                retrieved_at=datetime.now(UTC).isoformat(),
            )
        return self._record_search(record)

    def search_literature(
        self,
        engine: Literal["europepmc", "pubmed", "litsense", "openalex", "clinicaltrials", "openfda"],
        query: str,
        limit: int = 25,
        cursor: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> SearchRecord:
        from citeproof.service.lookups import search_sync

        def run() -> SearchRecord:
            return search_sync(
                engine,
                query,
                limit=limit,
                cursor=cursor,
                since=since,
                until=until,
                replay_dir=self._replay_dir(),
                offline=self.settings.offline,
            )

        def checked() -> SearchRecord:
            asked = {"limit": str(limit)} | {
                k: v for k, v in (("cursor", cursor), ("since", since), ("until", until)) if v
            }
            return self._search(engine, query, asked, run)

        return _guard(checked)

    def citing_papers(
        self, identifier: str, limit: int = 25, cursor: str | None = None
    ) -> SearchRecord:
        from citeproof.service.lookups import citing_sync

        def run() -> SearchRecord:
            return citing_sync(
                identifier,
                limit=limit,
                cursor=cursor,
                replay_dir=self._replay_dir(),
                offline=self.settings.offline,
            )

        def checked() -> SearchRecord:
            if not identifier.strip():
                raise BadInputError("the identifier is empty; give a DOI, PMID, PMCID or W id.")
            asked = {"limit": str(limit)} | ({"cursor": cursor} if cursor else {})
            return self._search("openalex", identifier.strip(), asked, run)

        return _guard(checked)

    def verify_log(self, checkpoint: str | None = None) -> VerifyReport:
        return self._on_log(lambda: self._open_log().verify(checkpoint))

    def log_checkpoint(self) -> CheckpointRecord:
        """Sign the log's present state, as ``citeproof log checkpoint`` does."""
        from citeproof.mcp.outputs import CheckpointRecord

        def run() -> CheckpointRecord:
            log = self._open_log()
            text = log.checkpoint()
            origin, size, root = text.split("\n", 3)[:3]
            return CheckpointRecord(
                checkpoint=text,
                origin=origin,
                size=int(size),
                root=root,
                key=log.key.verifier.verifier_key(),
            )

        return self._on_log(run)

    def record_support(
        self,
        seq: int,
        support: Literal["supports", "contradicts", "absent"],
        by: str,
        note: str | None = None,
    ) -> SupportRecord:
        from citeproof.mcp.outputs import SupportRecord

        def run() -> SupportRecord:
            if seq < 1:
                raise BadInputError(f"seq must be 1 or more, not {seq}.")
            entry = self._open_log().annotate(seq, support, by, note)
            target = entry.payload["target"]
            return SupportRecord(
                seq=entry.seq,
                hash=entry.hash,
                target_seq=target["seq"],
                target_kind=target["kind"],
                support=support,
                by=entry.payload["by"],
                note=entry.payload.get("note"),
                time=entry.time,
            )

        return self._on_log(run)

    def find_passages(
        self, source: str, query: str | None = None, limit: int = 20
    ) -> PassagesResult:
        from citeproof.errors import FetchFailedError
        from citeproof.mcp.outputs import PassagesResult
        from citeproof.models.passages import PassageSource
        from citeproof.service.lookups import passages_for

        def run() -> PassagesResult:
            self._check_source(source)
            if not 1 <= limit <= 200:
                raise BadInputError(f"limit must be between 1 and 200, not {limit}.")
            try:
                listed = passages_for(
                    source,
                    query=query,
                    limit=limit,
                    offline=self.settings.offline,
                    replay=self.settings.replay,
                    files=self.settings.allow_files,
                )
            except FetchFailedError as err:  # no text: a status, as read_source reports it
                unavailable = err.failure.kind == "unavailable"
                return PassagesResult(
                    status="UNAVAILABLE" if unavailable else "NOT_CHECKABLE",
                    reason=" ".join(str(err).split()),
                    source=PassageSource(input=source, coverage="none"),
                    query=query,
                    total=0,
                    passages=[],
                )
            return PassagesResult(**dict(listed))

        return _guard(run)

    def resolve_handles(self, handles: Sequence[str]) -> HandlesResult:
        """What each handle names now (ok, malformed, forged, unavailable, unresolvable,
        withdrawn), one answer per handle; a malformed handle is a status, not an error."""
        from citeproof.mcp.arguments import MAX_BATCH
        from citeproof.mcp.outputs import HandlesResult
        from citeproof.service.lookups import resolve_handle

        def run() -> HandlesResult:
            if len(handles) > MAX_BATCH:
                raise BadInputError(
                    f"{len(handles)} handles are more than {MAX_BATCH} in one call; split them."
                )
            statuses = [
                resolve_handle(h, offline=self.settings.offline, replay=self.settings.replay)
                for h in handles
            ]
            counted = Counter(s.status for s in statuses)
            return HandlesResult(handles=statuses, by_status=dict(sorted(counted.items())))

        return _guard(run)

    def audit_answer(self, answer: str, fail_on: Sequence[str] | None = None) -> AuditReport:
        from citeproof.audit.run import audit_answer, log_audit
        from citeproof.audit.verdicts import parse_fail_on

        def run() -> AuditReport:
            if not answer.strip():
                raise BadInputError("the answer is empty; give the text to audit.")
            report = audit_answer(
                answer,
                offline=self.settings.offline,
                replay=self.settings.replay,
                fail_on=parse_fail_on(list(fail_on)) if fail_on else None,
            )
            if self.settings.log:
                log_audit(report, self.settings.log_path)
            return report

        return _guard(run)

    def verify_references(self, references: Sequence[str | dict[str, Any]]) -> ReferencesReport:
        from citeproof.mcp.arguments import MAX_BATCH
        from citeproof.service.references import verify_references

        def run() -> ReferencesReport:
            if len(references) > MAX_BATCH:
                raise BadInputError(
                    f"{len(references)} references are more than {MAX_BATCH} in one "
                    f"call; split them into calls of at most {MAX_BATCH}."
                )
            return verify_references(
                list(references),
                offline=self.settings.offline,
                replay=self.settings.replay,
                log=(self.settings.log_path or True) if self.settings.log else False,
            )

        return _guard(run)

    # ------------------------------------------------------------------ resource

    def source_text(self, identifier: str) -> str:
        """The pinned text of an identifier, from the cache only (for the resource)."""
        from mcp.server.mcpserver.exceptions import ResourceError

        from citeproof.service.reading import pinned_text

        try:
            key, text = pinned_text(identifier, cache=self._held_cache())
        except Exception as err:
            raise ResourceError(failure_text(err)) from err
        if text is None:
            raise ResourceError(
                f"{key} is not in the local cache; call read_source or check_quote with it first."
            )
        return text
