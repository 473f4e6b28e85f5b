"""The tool bodies: each validates its input, calls the service, and returns a model.

Thin on purpose: the rules (what a source may be, how a check runs, what a log line holds)
live in the service (:mod:`citeproof.service`: the check pipeline and the doors to the log,
the cache, the lookups) and the audit, so the server answers exactly what ``citeproof check
--json`` and its siblings print.  Two things
are decided here:

* Errors.  A ``CiteproofError`` the caller caused (bad input) becomes the SDK's
  ``ToolError``, whose text the agent reads and acts on; a source that could not be read is
  a verdict in the result (UNAVAILABLE, a failed search), never an error.
* Threads.  The methods are plain functions: the SDK runs a synchronous tool in a worker
  thread (``anyio.to_thread``), so fetching, matching and log appends never block the
  event loop, and the library's ``asyncio.run`` calls get a thread without a running loop.
"""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from pydantic import Field

from citeproof.errors import BadInputError, CiteproofError
from citeproof.mcp.outputs import (
    MAX_BATCH,
    CheckQuotesItem,
    CheckQuotesResult,
    QuoteItem,
    SupportRecord,
)

# The return annotations are what the SDK turns into output schemas, so these models are
# imported at run time (the SDK evaluates the annotations when the tools are registered).
from citeproof.models import CheckResult, RetractionReport
from citeproof.models.audit import AuditReport
from citeproof.models.evidence import VerifyReport
from citeproof.models.passages import PassageList
from citeproof.models.references import ReferencesReport
from citeproof.models.search import SearchRecord
from citeproof.models.source import ResolvedSource, SourceText

if TYPE_CHECKING:
    from citeproof.service.logbook import EvidenceLog
    from citeproof.service.pipeline import Pipeline
    from citeproof.service.storage import Cache

__all__ = ["BATCH_WORKERS", "CiteproofTools", "ToolSettings", "tool_error"]

T = TypeVar("T")

#: Checks of one ``check_quotes`` call that run at once (network-bound for identifiers).
BATCH_WORKERS = 4
#: Most references one ``verify_references`` call takes: an answer's bibliography.
MAX_REFERENCES = 100

EngineName = Literal["europepmc", "pubmed", "litsense", "openalex", "clinicaltrials", "openfda"]


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


def tool_error(err: CiteproofError) -> Exception:
    """The SDK's ToolError carrying ``err``'s message on one line."""
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(" ".join(str(err).split()) or type(err).__name__)


def _guard(call: Callable[[], T]) -> T:
    try:
        return call()
    except CiteproofError as err:
        raise tool_error(err) from err


Quote = Annotated[
    str, Field(description="The exact words to check, as they would appear between quotes.")
]
Source = Annotated[
    str,
    Field(
        description="DOI (10.x/y, doi:, doi.org URL), PMID (PMID 123, pmid:123), PMCID "
        "(PMC123), NCT number, openFDA set id, Europe PMC preprint id (PPR...), http(s) URL, "
        "or the path of a local JATS XML, HTML, PDF or text file."
    ),
]
Identifier = Annotated[
    str, Field(description="A DOI, PMID, PMCID, NCT number, openFDA set id, PPR id or URL.")
]
Cursor = Annotated[
    str | None, Field(description="next_cursor from a previous call, to continue it.")
]


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

    # ------------------------------------------------------------------ tools

    def check_quote(
        self,
        quote: Quote,
        source: Source,
        claim: Annotated[
            str | None,
            Field(
                description="The sentence the quote is offered for; kept in the evidence log "
                "for a later support review. Never judged by citeproof."
            ),
        ] = None,
        find_source: Annotated[
            bool,
            Field(
                description="On NOT_FOUND or NEAR, also look for where the words really are "
                "(cache, Europe PMC, LitSense); slower."
            ),
        ] = False,
    ) -> CheckResult:
        return _guard(lambda: self._check(quote, source, claim, find_source))

    def check_quotes(
        self,
        items: Annotated[
            list[QuoteItem],
            Field(description=f"Up to {MAX_BATCH} {{quote, source, claim?}} objects."),
        ],
    ) -> CheckQuotesResult:
        if len(items) > MAX_BATCH:
            raise tool_error(
                BadInputError(
                    f"{len(items)} items is more than {MAX_BATCH} per call; split them into "
                    f"batches of at most {MAX_BATCH}."
                )
            )

        def one(index: int, item: QuoteItem) -> CheckQuotesItem:
            try:
                result = self._check(item.quote, item.source, item.claim, False)
            except CiteproofError as err:
                return CheckQuotesItem(index=index, error=" ".join(str(err).split()))
            return CheckQuotesItem(index=index, result=result)

        if len(items) <= 1:
            outcomes = [one(i, item) for i, item in enumerate(items)]
        else:
            with ThreadPoolExecutor(max_workers=min(BATCH_WORKERS, len(items))) as pool:
                outcomes = list(pool.map(one, range(len(items)), items))
        verdicts = Counter(o.result.verdict for o in outcomes if o.result is not None)
        return CheckQuotesResult(
            items=outcomes,
            by_verdict=dict(sorted(verdicts.items())),
            errors=sum(1 for o in outcomes if o.error is not None),
        )

    def read_source(
        self,
        source: Source,
        start: Annotated[
            int, Field(description="Offset (code points) of the first character to return.")
        ] = 0,
        limit: Annotated[int, Field(description="Most characters to return (1-200000).")] = 20_000,
    ) -> SourceText:
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

    def resolve_identifier(self, identifier: Identifier) -> ResolvedSource:
        from citeproof.service.reading import resolve_identifier

        return _guard(
            lambda: resolve_identifier(
                identifier,
                offline=self.settings.offline,
                replay=self.settings.replay,
                cache=self._held_cache(),
            )
        )

    def retraction_status(
        self,
        identifier: Annotated[str, Field(description="A DOI, PMID or PMCID.")],
    ) -> RetractionReport:
        from citeproof.service.lookups import retraction_report

        def run() -> RetractionReport:
            if not identifier.strip():
                raise BadInputError("the identifier is empty; give a DOI, PMID or PMCID.")
            return retraction_report(
                identifier, offline=self.settings.offline, replay_dir=self._replay_dir()
            )

        return _guard(run)

    def search_literature(
        self,
        engine: Annotated[EngineName, Field(description="Which database to search.")],
        query: Annotated[str, Field(description="The search words (the engine's syntax).")],
        limit: Annotated[
            int, Field(description="Most items to return (1 up to the engine's page limit).")
        ] = 25,
        cursor: Cursor = None,
        since: Annotated[
            str | None, Field(description="Published on or after: YYYY, YYYY-MM or YYYY-MM-DD.")
        ] = None,
        until: Annotated[
            str | None, Field(description="Published on or before (inclusive), same forms.")
        ] = None,
    ) -> SearchRecord:
        from citeproof.service.lookups import search_sync

        def run() -> SearchRecord:
            record = search_sync(
                engine,
                query,
                limit=limit,
                cursor=cursor,
                since=since,
                until=until,
                replay_dir=self._replay_dir(),
                offline=self.settings.offline,
            )
            return self._record_search(record)

        return _guard(run)

    def citing_papers(
        self,
        identifier: Annotated[
            str, Field(description="A DOI, PMID, PMCID or OpenAlex work id (W...).")
        ],
        limit: Annotated[int, Field(description="Most items to return (1-200).")] = 25,
        cursor: Cursor = None,
    ) -> SearchRecord:
        from citeproof.service.lookups import citing_sync

        def run() -> SearchRecord:
            if not identifier.strip():
                raise BadInputError("the identifier is empty; give a DOI, PMID, PMCID or W id.")
            record = citing_sync(
                identifier,
                limit=limit,
                cursor=cursor,
                replay_dir=self._replay_dir(),
                offline=self.settings.offline,
            )
            return self._record_search(record)

        return _guard(run)

    def verify_log(
        self,
        checkpoint: Annotated[
            str | None,
            Field(description="A signed checkpoint saved earlier (`citeproof log checkpoint`)."),
        ] = None,
    ) -> VerifyReport:
        return _guard(lambda: self._open_log().verify(checkpoint))

    def record_support(
        self,
        seq: Annotated[int, Field(description="The evidence-log line judged (a check's log_seq).")],
        support: Annotated[
            Literal["supports", "contradicts", "absent"],
            Field(description="The judge's verdict on the passage and the claim."),
        ],
        by: Annotated[str, Field(description="Who judged: a person, or a model name and version.")],
        note: Annotated[str | None, Field(description="Optional reasons, kept in the log.")] = None,
    ) -> SupportRecord:
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

        return _guard(run)

    def find_passages(
        self,
        source: Source,
        query: Annotated[
            str | None,
            Field(description="Words to rank the passages by (BM25); omit for document order."),
        ] = None,
        limit: Annotated[int, Field(description="Most passages to return (1-200).")] = 20,
    ) -> PassageList:
        from citeproof.service.lookups import passages_for

        def run() -> PassageList:
            self._check_source(source)
            if not 1 <= limit <= 200:
                raise BadInputError(f"limit must be between 1 and 200, not {limit}.")
            return passages_for(
                source,
                query=query,
                limit=limit,
                offline=self.settings.offline,
                replay=self.settings.replay,
                files=self.settings.allow_files,
            )

        return _guard(run)

    def audit_answer(
        self,
        answer: Annotated[
            str,
            Field(
                description="The whole answer: Markdown or plain text with its citations, "
                'or JSON claims ({"claims": [...]}).'
            ),
        ],
        fail_on: Annotated[
            list[str] | None,
            Field(
                description="Citation verdicts and flags that fail the audit (default: "
                "forged, malformed, unresolvable, misquote, retracted)."
            ),
        ] = None,
    ) -> AuditReport:
        from citeproof.audit.run import audit_answer, log_audit
        from citeproof.audit.verdicts import parse_fail_on

        def run() -> AuditReport:
            if not answer.strip():
                raise BadInputError("the answer is empty; give the text to audit.")
            report = audit_answer(
                answer,
                offline=self.settings.offline,
                replay=self.settings.replay,
                fail_on=parse_fail_on(",".join(fail_on)) if fail_on else None,
            )
            if self.settings.log:
                log_audit(report, self.settings.log_path)
            return report

        return _guard(run)

    def verify_references(
        self,
        references: Annotated[
            list[str | dict[str, Any]],
            Field(
                description='Up to 100 references: each a citation string ("Smith J, et '
                'al. Title. Journal. 2019. doi:10...") or a CSL-JSON object (title, author, '
                "issued, container-title, DOI, PMID).",
                min_length=1,
            ),
        ],
    ) -> ReferencesReport:
        from citeproof.service.references import verify_references

        def run() -> ReferencesReport:
            if len(references) > MAX_REFERENCES:
                raise BadInputError(
                    f"{len(references)} references are more than {MAX_REFERENCES} in one "
                    "call; split them into calls of at most 100."
                )
            return verify_references(
                references,
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
        except CiteproofError as err:
            raise ResourceError(" ".join(str(err).split())) from err
        if text is None:
            raise ResourceError(
                f"{key} is not in the local cache; call read_source or check_quote with it first."
            )
        return text


def replay_from_env() -> str | None:
    """``CITEPROOF_REPLAY`` as the server starts (None when unset or empty)."""
    value = os.environ.get("CITEPROOF_REPLAY", "").strip()
    return value or None
