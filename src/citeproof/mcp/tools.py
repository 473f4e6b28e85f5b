"""The tools, each declared once: what it is called, says, takes and returns, and its body.

Every tool is a method of :class:`CiteproofTools` under :func:`~citeproof.mcp.toolspec.tool`:
the decorator gives its title, the description an agent reads, what it touches (the hints)
and the shape of its output (:mod:`citeproof.mcp.shapes`); the method's parameters are its
arguments, their descriptions and limits in their annotations (shared types in
:mod:`citeproof.mcp.arguments`); its return annotation is the model it answers with
(:mod:`citeproof.mcp.outputs`).  :data:`TOOLS` lists them in the order they are declared,
which is the order the server lists them, and the server, the schemas and the summaries are
derived from it.  A new tool is a new method here, and ``python -m citeproof.mcp.schemas``.

An agent chooses and uses a tool from its description alone, so each one is front-loaded
(what it does, in the first sentence), says when to use it rather than its siblings, what
each verdict means, what it does *not* check, and its side effects (network use, bytes
pinned in the cache, lines written to the evidence log).  Every tool but the log tools may
reach the network (``open_world``); the checking and search tools append to the evidence
log, so none is ``read_only`` but ``verify_log``, ``read_source``, ``resolve_identifier``,
``retraction_status`` and ``resolve_handles`` (which write nothing but the cache).

The bodies are thin on purpose: the rules (what a source may be, how a check runs, what a
log line holds) live in the service (:mod:`citeproof.service`: the check pipeline and the
doors to the log, the cache, the lookups) and the audit, so the server answers exactly what
``citeproof check --json`` and its siblings print.  Three things are decided here:

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
* Imports.  Nothing of the service or the models is imported until a tool runs, and the
  annotations are not read until then: the server answers ``tools/list`` from cached schemas
  (:mod:`citeproof.mcp.schemas`) and pays for a feature the first time it is used.

:meth:`CiteproofTools.call` is the one entry the server uses: it checks the arguments
against the tool's model, runs the tool and returns the result as JSON data, whole or
summarised (``detail``, :mod:`citeproof.mcp.summaries`).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Final, Literal, TypeVar

from citeproof.errors import BadInputError, CiteproofError, os_problem
from citeproof.mcp import shapes
from citeproof.mcp.shapes import ALL
from citeproof.mcp.toolspec import ToolSpec, declared, tool

if TYPE_CHECKING:
    from pydantic import BaseModel, Field

    from citeproof.mcp.arguments import (
        DEFAULT_FAIL_ON,
        MAX_BATCH,
        MAX_CITING,
        MAX_PASSAGES,
        MAX_READ_LIMIT,
        MAX_SEARCH_LIMIT,
        Claim,
        Cursor,
        Engine,
        FailOn,
        Identifier,
        Quote,
        QuoteItem,
        References,
        Source,
    )
    from citeproof.mcp.outputs import (
        AuditReport,
        CheckpointRecord,
        CheckQuotesItem,
        CheckQuotesResult,
        CheckResult,
        HandlesResult,
        PassagesResult,
        ReferencesReport,
        ResolvedSource,
        RetractionReport,
        SearchRecord,
        SourceText,
        SupportRecord,
        VerifyReport,
    )
    from citeproof.service.logbook import EvidenceLog
    from citeproof.service.pipeline import Pipeline
    from citeproof.service.storage import Cache

__all__ = [
    "BATCH_WORKERS",
    "TOOLS",
    "TOOL_NAMES",
    "CiteproofTools",
    "ToolSettings",
    "failure_text",
    "tool_error",
]

T = TypeVar("T")
#: Most characters of an unexpected exception's message an agent is shown.
_MAX_UNEXPECTED = 300

#: Checks of one ``check_quotes`` call that run at once (network-bound for identifiers).
BATCH_WORKERS = 4

#: What each verdict of a check means, in the descriptions of the tools that check quotes.
_VERDICTS: Final = (
    "Verdicts: EXACT = verbatim (quotes, dashes, spaces normalised): quote it. NEAR = not "
    "verbatim; near.text is the source's wording, near.diff what differs: quote near.text "
    "instead, and NEVER present a NEAR with a risk flag (numbers_differ, negation_differs) "
    "as a quote. NOT_FOUND = nothing close in the text checked (source.coverage: full text "
    "or abstract). TOO_SHORT = under 20 characters. NOT_CHECKABLE = no text exists (reason "
    "says why). UNAVAILABLE = the source could not be read: nothing concluded; say so, never "
    "as NOT_FOUND. Heed flags (partial_word, ellipsis_hides_negation, match_in_references) "
    "and retraction.status (RETRACTED, CONCERN)."
)
#: Said once per tool that takes ``detail``.
_DETAIL: Final = ' detail="full": the whole published object (every retraction source, hashes).'


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
        import logging  # only for what no one expected: `citeproof --help` names the tools

        logging.getLogger(__name__).error("a tool failed unexpectedly", exc_info=err)
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
            offline=settings.offline,
            replay=settings.replay,
            files=settings.allow_files,
            retraction=True,
            find_source=find_source,
            log=settings.log,
            log_path=settings.log_path,
        )
        log = self._open_log() if settings.log else None
        return Pipeline(options, cache=self._held_cache(), log=log)

    def _check(self, quote: str, source: str, claim: str | None, find_source: bool) -> CheckResult:
        from citeproof.service.inputs import validate_quote

        validate_quote(quote)
        self._check_source(source)
        checked = self._pipeline(find_source=find_source).run(quote, source, claim=claim)
        if checked.log_error is not None:
            raise BadInputError(
                f"the check ran (verdict {checked.outcome.verdict}) but its evidence line "
                f"could not be written: {checked.log_error}"
            ) from checked.log_error
        return checked.result

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

        spec = TOOLS[name]
        model = spec.arguments()
        try:
            checked = validate(model, arguments)
        except ValidationError as err:
            raise tool_error(argument_error(name, model, err)) from err
        given = {field: getattr(checked, field) for field in model.model_fields}
        detail = given.pop("detail", None)
        try:
            # looked up on the instance, so a subclass's override (or a stand-in) runs
            result: BaseModel = getattr(self, name)(**given)
            data: dict[str, Any] = result.model_dump(mode="json", by_alias=True)
            if detail == "summary":
                from citeproof.mcp.summaries import summarise

                return summarise(spec.shape, data)
            return data
        except Exception as err:
            from mcp.server.mcpserver.exceptions import ToolError

            if isinstance(err, ToolError):
                raise
            raise tool_error(failure_text(err)) from err

    # ------------------------------------------------------------------ tools

    @tool(
        title="Check a quotation",
        description=(
            "Check that QUOTE occurs word for word in SOURCE and say where (section, region, "
            "page), or give the closest passage and what differs. Call it before presenting any "
            "text as a direct quotation (many: check_quotes). "
            + _VERDICTS
            + " Whether the passage supports your claim is never judged. Side effects: fetches "
            "and pins an identifier's best legal full text (or abstract) the first time; asks "
            "the retraction status; writes one evidence log line (with CLAIM), log_seq. "
            "find_source also looks for where the words really are (cache, Europe PMC, "
            "LitSense); slower." + _DETAIL + " Bad input is a tool error saying what to change."
        ),
        shape=shapes.CHECK,
        detail=True,
    )
    def check_quote(
        self,
        quote: Quote,
        source: Source,
        claim: Claim = None,
        find_source: Annotated[
            bool,
            Field(
                description="On NOT_FOUND or NEAR, also look where the words really are; slower."
            ),
        ] = False,
    ) -> CheckResult:
        return _guard(lambda: self._check(quote, source, claim, find_source))

    @tool(
        title="Check many quotations",
        description=(
            "Check up to 100 quotes in one call, each against its own source: check_quote's "
            "check, one result per item in order. A bad item (empty quote, malformed "
            "identifier, missing file) gets its own error; the others still run. Use it for "
            "every quotation of a finished answer. Side effects as check_quote, per item." + _DETAIL
        ),
        shape={
            "items": {"index": ALL, "result": shapes.CHECK, "error": ALL},
            "by_verdict": ALL,
            "errors": ALL,
        },
        detail=True,
    )
    def check_quotes(
        self,
        items: Annotated[
            list[QuoteItem],
            Field(
                description=f"1 to {MAX_BATCH} {{quote, source, claim?}} objects.",
                min_length=1,
                max_length=MAX_BATCH,
            ),
        ],
    ) -> CheckQuotesResult:
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

    @tool(
        title="Read a source's text",
        description=(
            "Return LIMIT characters of SOURCE's extracted text from START, with the blocks "
            "(section, region, page) they overlap: the text check_quote searches, same offsets. "
            "Copy words to quote from here, then check them; page on with next_start. No text: "
            "status UNAVAILABLE (not read; nothing concluded) or NOT_CHECKABLE (none exists), "
            "not an error. Side effects: fetches and pins an identifier the first time."
        ),
        read_only=True,
        shape={
            "status": ALL,
            "reason": ALL,
            "source": shapes.SOURCE,
            "start": ALL,
            "end": ALL,
            "total_chars": ALL,
            "next_start": ALL,
            "text": ALL,
            "blocks": {
                "start": ALL,
                "end": ALL,
                "kind": ALL,
                "section": ALL,
                "region": ALL,
                "page": ALL,
            },
        },
    )
    def read_source(
        self,
        source: Source,
        start: Annotated[
            int, Field(description="Offset (code points) of the first character to return.", ge=0)
        ] = 0,
        limit: Annotated[
            int, Field(description="Most characters to return.", ge=1, le=MAX_READ_LIMIT)
        ] = 20_000,
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

    @tool(
        title="Resolve an identifier",
        description=(
            "Resolve an identifier to its best legally readable text: canonical key, "
            "DOI/PMID/PMCID, who served it, coverage (full text or abstract), version, sha256, "
            "title. Use it to learn whether a citation is real and checkable. status RESOLVED, "
            "UNAVAILABLE (not read; nothing concluded) or NOT_CHECKABLE (no source serves "
            "text). Side effects: network and pinning on first use."
        ),
        read_only=True,
        shape={
            "status": ALL,
            "reason": ALL,
            "key": ALL,
            "kind": ALL,
            "resolved": ALL,
            "served_by": ALL,
            "coverage": ALL,
            "version": ALL,
            "sha256": ALL,
            "title": ALL,
        },
    )
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

    @tool(
        title="Retraction status",
        description=(
            "Whether a work (DOI, PMID, PMCID) is retracted or under an expression of concern, "
            "asking PMC, Crossref, PubMed, Europe PMC and the Retraction Watch snapshot: "
            "RETRACTED, CONCERN, NOT_RETRACTED_AS_OF (none reports one as of that date) or "
            "UNVERIFIABLE (too few sources read; say so). check_quote includes it; use this for "
            "works cited without a quote. Side effects: network; nothing logged."
        ),
        read_only=True,
        shape={
            "schema": ALL,
            "identifier": ALL,
            "status": ALL,
            "as_of": ALL,
            "reason": ALL,
            "sources": {"source": ALL, "state": ALL, "reason": ALL, "notices": shapes.NOTICE},
        },
    )
    def retraction_status(
        self, identifier: Annotated[str, Field(description="A DOI, PMID or PMCID.")]
    ) -> RetractionReport:
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

    @tool(
        title="Search the literature",
        description=(
            "Search europepmc, pubmed, openalex, litsense (PubMed sentences), clinicaltrials or "
            "openfda (drug labels) and record it: hits (ids usable as sources), hit count, "
            "next_cursor. status ok or empty is an answer; failed means the engine could not be "
            "read (or the server is offline), not that nothing exists. A hit is not a verified "
            "quote. Side effects: network; one evidence log line (log_seq)."
        ),
        shape=shapes.SEARCH,
    )
    def search_literature(
        self,
        engine: Annotated[Engine, Field(description="Which database to search.")],
        query: Annotated[str, Field(description="The search words (the engine's syntax).")],
        limit: Annotated[
            int,
            Field(
                description="Most items: up to 100 for litsense, 200 openalex, 10000 pubmed, "
                "1000 the others.",
                ge=1,
                le=MAX_SEARCH_LIMIT,
            ),
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

    @tool(
        title="Works citing a work",
        description=(
            "List the works citing a work (DOI, PMID, PMCID or OpenAlex W id), according to "
            "OpenAlex (maybe incomplete), with next_cursor: trace follow-ups, or whether a "
            "retracted work is still cited. failed means OpenAlex could not be read. Side "
            "effects: network; one evidence log line."
        ),
        shape=shapes.SEARCH,
    )
    def citing_papers(
        self,
        identifier: Annotated[
            str, Field(description="A DOI, PMID, PMCID or OpenAlex work id (W...).")
        ],
        limit: Annotated[int, Field(description="Most items to return.", ge=1, le=MAX_CITING)] = 25,
        cursor: Cursor = None,
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

    @tool(
        title="Verify the evidence log",
        description=(
            "Verify the evidence log: the hash chain, the signed head and, given a CHECKPOINT "
            "from log_checkpoint, that the log still holds exactly what it held then (no "
            "rewrite, no truncation). ok is true only when nothing is wrong; problems name the "
            "first bad line. Read only: no network."
        ),
        read_only=True,
        open_world=False,
        shape={
            "ok": ALL,
            "entries": ALL,
            "head": ALL,
            "checkpoint_size": ALL,
            "problems": {"code": ALL, "message": ALL, "seq": ALL},
        },
    )
    def verify_log(
        self,
        checkpoint: Annotated[
            str | None,
            Field(description="A signed checkpoint saved earlier (log_checkpoint)."),
        ] = None,
    ) -> VerifyReport:
        return self._on_log(lambda: self._open_log().verify(checkpoint))

    @tool(
        title="Record a support verdict",
        description=(
            "Record in the evidence log a person's or named judge's verdict on whether the "
            "passage of check line SEQ supports its claim (supports, contradicts, absent). "
            "citeproof never judges support; this records who said what. BY names the person or "
            "the model and version; never call it unless that judge gave the verdict. Side "
            "effect: one log line."
        ),
        open_world=False,
    )
    def record_support(
        self,
        seq: Annotated[
            int, Field(description="The evidence-log line judged (a check's log_seq).", ge=1)
        ],
        support: Annotated[
            Literal["supports", "contradicts", "absent"],
            Field(description="The judge's verdict on the passage and the claim."),
        ],
        by: Annotated[str, Field(description="Who judged: a person, or a model name and version.")],
        note: Annotated[str | None, Field(description="Optional reasons, kept in the log.")] = None,
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

    @tool(
        title="Passages with citation handles",
        description=(
            "List SOURCE's passages (paragraphs, captions, table rows), ranked by BM25 against "
            "QUERY, each with a citation handle (scheme:id/path~code) whose code only this "
            'server makes: cite as [handle] or [handle "exact words"], and audit_answer proves '
            "it was issued here and still says the same. Files get no handles; no text is "
            "status UNAVAILABLE or NOT_CHECKABLE. Side effects: fetches and pins like "
            "check_quote; records the issued passages."
        ),
        shape={
            "status": ALL,
            "reason": ALL,
            "total": ALL,
            "source": {"identifier": ALL, "coverage": ALL, "version": ALL},
            "passages": {
                "handle": ALL,
                "kind": ALL,
                "text": ALL,
                "section": ALL,
                "region": ALL,
                "page": ALL,
                "start": ALL,
                "end": ALL,
                "score": ALL,
            },
        },
    )
    def find_passages(
        self,
        source: Source,
        query: Annotated[
            str | None,
            Field(description="Words to rank the passages by (BM25); omit for document order."),
        ] = None,
        limit: Annotated[
            int, Field(description="Most passages to return.", ge=1, le=MAX_PASSAGES)
        ] = 20,
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

    @tool(
        title="Audit a whole answer",
        description=(
            "Audit a whole answer before presenting it: each citation (handles, [PMID 123], "
            "[PMC123], (doi:10...), URLs, numbered with a reference list) gets a verdict: "
            "malformed, forged, unresolvable, mismatch (another work), unavailable (not read; "
            "nothing concluded), withdrawn, misquote (NOT_FOUND, a risky NEAR, a mid-word "
            "match, an ellipsis hiding a negation), near_quote (quote the source's wording) or "
            "ok, with flags (retracted, concern ...); each sentence cited_ok, cited_problem, "
            "uncited or not_a_claim; overall fail, incomplete, warn or pass. Fix every misquote "
            "(quote the source's own words), forged or malformed citation; unavailable is no "
            "finding: retry it. Support is not checked. Side effects: fetches and pins cited "
            "works, asks retraction status, signs the report, one evidence log line." + _DETAIL
        ),
        shape=shapes.AUDIT,
        detail=True,
    )
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
            list[FailOn] | None,
            Field(
                description="Citation verdicts and flags that fail the audit (default: "
                f"{', '.join(DEFAULT_FAIL_ON)})."
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
                fail_on=parse_fail_on(list(fail_on)) if fail_on else None,
            )
            if self.settings.log:
                log_audit(report, self.settings.log_path)
            return report

        return _guard(run)

    @tool(
        title="Verify a bibliography",
        description=(
            "Verify a bibliography: each reference (a citation string or CSL-JSON) is looked up "
            "in Crossref, PubMed, OpenAlex and DataCite: verified; ambiguous (several real "
            "works fit: keep it; candidates); partial (authors, year or venue differ); mismatch "
            "(its identifier names another work: differs, suggested); unresolvable (its "
            "identifier does not exist); not_found (no database holds it); unavailable (a "
            "database could not be read: nothing concluded; retry later, never drop it); with "
            "the work's retraction status. A flag is a lead, not a finding: check each flagged "
            "reference by hand before changing or dropping it. Side effects: pins every record "
            "read; one evidence log line each." + _DETAIL
        ),
        shape={"schema": ALL, "references": shapes.REFERENCE, "counts": ALL},
        detail=True,
    )
    def verify_references(self, references: References) -> ReferencesReport:
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

    @tool(
        title="Resolve citation handles",
        description=(
            "Resolve citation handles (from find_passages): each is ok (the passage as issued "
            "and now; version_changed, text_changed), malformed, forged (its code fails), "
            "unavailable (not read; nothing concluded), unresolvable or withdrawn (the passage "
            "is gone). audit_answer does this for an answer's handles. Side effects: fetches "
            "and pins a handle's source the first time."
        ),
        read_only=True,
        shape={
            "handles": {
                "handle": ALL,
                "status": ALL,
                "reason": ALL,
                "source": ALL,
                "current_text": ALL,
                "version_changed": ALL,
                "text_changed": ALL,
            },
            "by_status": ALL,
        },
    )
    def resolve_handles(
        self,
        handles: Annotated[
            list[str],
            Field(
                description=f"1 to {MAX_BATCH} citation handles (scheme:id/path~code), as "
                "find_passages issued them.",
                min_length=1,
                max_length=MAX_BATCH,
            ),
        ],
    ) -> HandlesResult:
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

    @tool(
        title="Sign a log checkpoint",
        description=(
            "Sign a checkpoint of the evidence log (its size and Merkle root, signed with the "
            "log's key), as `citeproof log checkpoint` does. Keep it or give it to the user: "
            "verify_log with it later proves the log still holds exactly those entries. Side "
            "effect: signs the log's head if it has none; no network."
        ),
        open_world=False,
    )
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


#: Every tool, in the order declared above: the order the server lists them in.
TOOLS: Final[dict[str, ToolSpec]] = declared(CiteproofTools)
TOOL_NAMES: Final = tuple(TOOLS)
