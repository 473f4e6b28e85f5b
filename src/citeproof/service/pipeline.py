"""The check, assembled once: resolve -> load/pin -> match -> retraction -> find-source -> log.

Every interface runs a check through :class:`Pipeline` and chooses its steps with one
:class:`CheckOptions`: ``citeproof check`` (retraction and the log on unless ``--no-...``),
the library's :func:`check` (both off unless asked), the MCP tools (retraction always, the log
as the server was started), ``recheck`` (the options the log line recorded, fetched again),
the audit (matching and find-source per quote; retraction once per work) and batch (loads in
the parent, matching on workers, the log in one append per group).  So a feature added here
appears everywhere, and the same options give the same result object from every door.

The steps, and what each needs:

* **resolve, load/pin** -- :mod:`citeproof.loading`: a file, standard input or an identifier,
  pinned bytes first.  An identifier that gives no text is an answer
  (:class:`~citeproof.loading.pins.FetchFailure`), which *match* turns into UNAVAILABLE or
  NOT_CHECKABLE.
* **match** -- pure: ``expect_sha256``, then the matcher (:mod:`citeproof.match`), then the
  public result (:mod:`citeproof.service.results`).  It is the only step a batch worker runs.
  The result is built as plain data (``models.plain``) and made the pydantic model only
  when a caller or a later step needs one, so a one-shot check of a local file, whose later
  steps do nothing, never imports pydantic (:meth:`Pipeline.run`, :class:`Checked`).
* **retraction** -- the cited work's status from every source (:mod:`citeproof.retraction`),
  for DOI, PMID and PMCID sources; asked also when the text was unavailable.
* **find-source** -- on NOT_FOUND or NEAR, where the words verifiably are
  (:mod:`citeproof.search.finder`), every candidate verified by this pipeline's match step.
* **log** -- the evidence line (:mod:`citeproof.evidence`); :meth:`Pipeline.log_payload` and
  :meth:`Pipeline.record` are its two halves, for callers that compute payloads on workers.
  A line that cannot be written does not undo the check: :meth:`Pipeline.run` returns the
  result with the log's error beside it (:attr:`Checked.log_error`), so every door shows the
  result, then reports the error, the same way.

:meth:`Pipeline.run` is the order; :meth:`Pipeline.after_match` is the part of it between
the match and the log, for a batch, whose match step runs on workers and whose log step
appends a whole group at once.

None of the steps after *match* changes the verdict: a quote found verbatim in a retracted
paper is still EXACT, and the result says the paper is retracted.

The steps that need the network or the log (retraction, find-source, the log's file), and
the pydantic result models, are imported when they are used, not with this module: a
one-shot check of a local file must not pay for the HTTP stack, the search engines, the
signing keys or pydantic (``bench/bench_startup.py``).
Every other import is at the top, and the acyclic contract in CI keeps a late import from
hiding a cycle.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

from citeproof.documents.model import Document
from citeproof.errors import CiteproofError, EvidenceNotRecordedError
from citeproof.evidence.payloads import CHECK_KIND, check_payload
from citeproof.loading.failure import FetchFailure
from citeproof.loading.load import SourceBytes, load_bytes, load_source
from citeproof.match.quote import find_quote
from citeproof.match.types import DEFAULT_MAX_GAP, DEFAULT_NEAR_THRESHOLD, MatchOptions
from citeproof.models import plain
from citeproof.service.inputs import match_options, validate_quote, validate_sha256
from citeproof.service.results import (
    failure_result,
    not_checkable_result,
    result_from_match,
)
from citeproof.service.texts import load, no_text_reason

if TYPE_CHECKING:
    from citeproof.evidence.log import EvidenceLog
    from citeproof.models import CheckResult
    from citeproof.store.cache import Cache

__all__ = [
    "FIND_SOURCE_VERDICTS",
    "CheckOptions",
    "Checked",
    "Pipeline",
    "check",
    "check_document",
    "check_loaded",
    "check_text",
    "find_source_for",
    "load",
    "no_text_reason",
]

#: The verdicts after which find-source looks elsewhere: the words are not (exactly) here.
FIND_SOURCE_VERDICTS: Final = frozenset({"NOT_FOUND", "NEAR"})


@dataclass(frozen=True, slots=True)
class CheckOptions:
    """Everything that decides how a check runs: the matcher's settings, how sources are
    read, and which steps after the match run.

    Plain values only, so it pickles to batch workers; validated when made (out-of-range
    values are bad input).  ``files`` False reads identifiers only (a server whose clients
    must not read its files); ``log_path`` None means ``CITEPROOF_LOG``, else the data
    directory's log.
    """

    near_threshold: float = DEFAULT_NEAR_THRESHOLD
    max_gap: int = DEFAULT_MAX_GAP
    profile: str = "t1"
    expect_sha256: str | None = None
    offline: bool = False
    refresh: bool = False
    replay: str | None = None
    files: bool = True
    max_bytes: int | None = None
    retraction: bool = False
    find_source: bool = False
    log: bool = False
    log_path: str | None = None

    def __post_init__(self) -> None:
        match_options(self.near_threshold, self.max_gap, self.profile)
        object.__setattr__(self, "expect_sha256", validate_sha256(self.expect_sha256))
        if self.replay is not None:
            object.__setattr__(self, "replay", os.fspath(self.replay))
        if self.log_path is not None:
            object.__setattr__(self, "log_path", os.fspath(self.log_path))

    @property
    def match(self) -> MatchOptions:
        """The matcher's part."""
        return MatchOptions(
            near_threshold=float(self.near_threshold), max_gap=self.max_gap, profile=self.profile
        )

    @property
    def replay_dir(self) -> Path | None:
        return Path(self.replay) if self.replay is not None else None

    def but(self, **changes: Any) -> CheckOptions:
        """These options with ``changes`` (validated again)."""
        return dataclasses.replace(self, **changes)


def check_document(quote: str, document: Document, options: MatchOptions) -> CheckResult:
    """The match step: a quote against a loaded Document, as the public result.

    The quote is validated here too (cheap), so no caller can skip the rules; callers that
    read a source first should call ``validate_quote`` before reading, to fail fast.
    """
    return _model(_match_document(quote, document, options))


def check_loaded(
    quote: str,
    loaded: Document | FetchFailure,
    options: MatchOptions,
    *,
    expect_sha256: str | None = None,
) -> CheckResult:
    """The match step for what a load gave, applying ``expect_sha256``.

    A FetchFailure becomes UNAVAILABLE or NOT_CHECKABLE with its reason.  With an expected
    hash, ``source.fingerprint_ok`` says whether the bytes are the pinned ones; when they are
    not, nothing is matched and the verdict is NOT_CHECKABLE naming both hashes.
    """
    return _model(_match_loaded(quote, loaded, options, expect_sha256=expect_sha256))


def _model(result: plain.CheckResult) -> CheckResult:
    """The pydantic model of a plain result; pydantic is imported on the first one."""
    from citeproof.models.check import CheckResult  # start-up

    return CheckResult.from_plain(result)


def _match_document(quote: str, document: Document, options: MatchOptions) -> plain.CheckResult:
    """:func:`check_document` as plain data."""
    validate_quote(quote)
    # A document with no text is not searched; what that means is decide_verdict's to say.
    found = find_quote(document.prepared, quote, options) if document.has_text else None
    return result_from_match(quote, document, found, options)


def _match_loaded(
    quote: str,
    loaded: Document | FetchFailure,
    options: MatchOptions,
    *,
    expect_sha256: str | None = None,
) -> plain.CheckResult:
    """:func:`check_loaded` as plain data."""
    if not isinstance(loaded, Document):
        return failure_result(quote, loaded, options)
    expected = validate_sha256(expect_sha256)
    if expected is None:
        return _match_document(quote, loaded, options)
    actual = loaded.origin.sha256 if loaded.origin is not None else None
    if actual != expected:
        reason = (
            f"the source's bytes have sha256 {actual or 'unknown'}, not the expected "
            f"{expected}; nothing was checked against them."
        )
        result = not_checkable_result(quote, loaded, reason, options)
        ok = False
    else:
        result = _match_document(quote, loaded, options)
        ok = True
    result.source.fingerprint_ok = ok  # a result of its own, made just above
    return result


class Checked:
    """A check's result, the Document it was matched against (None when no text was had: a
    terminal rendering shows the text around each match), and the log's error, if any.

    The result is held as plain data when no step after the match had anything to do (a
    local file, no log): the command line prints it (:meth:`json`, or the terminal report)
    without importing pydantic, and :attr:`result` makes the model only when it is asked
    for, and keeps it.  ``log_error`` is set when the check ran but its evidence line could
    not be written: every door shows the result first and then reports that error (a
    command), or refuses the result with it (the library, a tool), each by one test of this
    field.  A hand-written class, not a dataclass, for the reason ``models.plain`` gives:
    defining a dataclass costs start-up.
    """

    __slots__ = ("document", "log_error", "outcome")

    def __init__(
        self,
        outcome: CheckResult | plain.CheckResult,
        document: Document | None,
        log_error: CiteproofError | None = None,
    ) -> None:
        self.outcome = outcome
        self.document = document
        self.log_error = log_error

    @property
    def result(self) -> CheckResult:
        """The public result model (made from the plain result on first use, then kept)."""
        if isinstance(self.outcome, plain.CheckResult):
            self.outcome = _model(self.outcome)
        return self.outcome

    def logged(self) -> CheckResult:
        """:attr:`result`, for a caller that wants a recorded result (the library, a tool):
        when the line was not written, raises :class:`~citeproof.errors.EvidenceNotRecordedError`,
        which holds the result and the text, so what the check found is not lost with it."""
        if self.log_error is not None:
            raise EvidenceNotRecordedError(self.log_error, self.result, self.text)
        return self.result

    def json(self) -> dict[str, Any]:
        """The result as ``citeproof.check/1`` JSON, whichever form it is held in."""
        if isinstance(self.outcome, plain.CheckResult):
            value: dict[str, Any] = plain.to_json(self.outcome)
            return value
        return self.outcome.model_dump(mode="json")

    @property
    def text(self) -> str:
        return self.document.text if self.document is not None else ""


class Pipeline:
    """One check's steps, run in order; the only place they are put together.

    ``cache`` is a cache connection the caller keeps open across many checks (a server, an
    audit); without one each load and each find-source opens the default cache for itself
    (and, offline, never creates one).  ``log`` is an evidence log the caller keeps (a
    server, so the key is loaded and the head checked once); without one the log step opens
    ``options.log_path``.  A Pipeline holds no other state: make one per set of options.
    """

    def __init__(
        self,
        options: CheckOptions | None = None,
        *,
        cache: Cache | None = None,
        log: EvidenceLog | None = None,
    ) -> None:
        self.options = options or CheckOptions()
        self._cache = cache
        self._log = log

    # ------------------------------------------------------------------ resolve, load/pin

    def load(
        self, source: str | os.PathLike[str] | Document, *, stdin: IO[bytes] | None = None
    ) -> Document | FetchFailure:
        """The source as a Document, or why an identifier gave no text."""
        o = self.options
        return load_source(
            source,
            max_bytes=o.max_bytes,
            stdin=stdin,
            offline=o.offline,
            refresh=o.refresh,
            replay=o.replay,
            cache=self._cache,
            files=o.files,
        )

    def load_bytes(self, source: str) -> SourceBytes | FetchFailure:
        """The source's bytes and origin, pinned like :meth:`load`, not parsed."""
        o = self.options
        return load_bytes(
            source,
            max_bytes=o.max_bytes,
            offline=o.offline,
            refresh=o.refresh,
            replay=o.replay,
            cache=self._cache,
            files=o.files,
        )

    # ------------------------------------------------------------------ match

    def match(self, quote: str, loaded: Document | FetchFailure) -> CheckResult:
        """The match step (pure): ``expect_sha256``, the matcher, the public result."""
        return _model(self.match_plain(quote, loaded))

    def match_plain(self, quote: str, loaded: Document | FetchFailure) -> plain.CheckResult:
        """:meth:`match` as plain data (``models.plain``), which needs no pydantic."""
        return _match_loaded(
            quote, loaded, self.options.match, expect_sha256=self.options.expect_sha256
        )

    # ------------------------------------------------------------------ after the match

    def after_match(
        self, quote: str, matched: CheckResult | plain.CheckResult
    ) -> CheckResult | plain.CheckResult:
        """Retraction, then find-source, as the options ask: the steps between the match and
        the log, in their one order.  ``matched`` stays plain data when neither has work (the
        model is made only for what only the model holds)."""
        if not self._needs_model(matched):
            return matched
        result = matched if not isinstance(matched, plain.CheckResult) else _model(matched)
        return self.find_source(quote, self.retraction(result))

    def log(
        self,
        result: CheckResult | plain.CheckResult,
        *,
        claim: str | None = None,
        recheck_of: int | None = None,
    ) -> tuple[CheckResult | plain.CheckResult, CiteproofError | None]:
        """The log step for one result, when the options ask: the result naming its line
        (``log_seq``), or the result as it was and the log's error, when the line could not
        be written (the check itself ran, and its result is still an answer)."""
        if not self.options.log:
            return result, None
        payload = self.log_payload(result, claim=claim, recheck_of=recheck_of)
        try:
            (seq,) = self.record([payload])
        except CiteproofError as err:
            return result, err
        if isinstance(result, plain.CheckResult):
            result.log_seq = seq  # a result of its own, made by this check's match step
            return result, None
        return result.model_copy(update={"log_seq": seq}), None

    def retraction(self, result: CheckResult) -> CheckResult:
        """``result`` with the cited work's retraction status, when asked and the source is a
        DOI, PMID or PMCID.  Asked also when the text was unavailable: whether a work is
        retracted does not depend on reading it.  Offline only the local Retraction Watch
        snapshot is consulted, so the status is at best UNVERIFIABLE unless it lists the work.
        """
        key = result.source.identifier
        if not self._asks_retraction(result) or key is None:
            return result
        from citeproof.retraction.status import RETRACTION_KINDS, retraction_report  # start-up

        if key.split(":", 1)[0] not in RETRACTION_KINDS:
            return result
        report = retraction_report(
            key, offline=self.options.offline, replay_dir=self.options.replay_dir
        )
        return result.model_copy(update={"retraction": report})

    def find_source(self, quote: str, result: CheckResult) -> CheckResult:
        """``result`` with ``found_elsewhere``, when asked and the verdict is NOT_FOUND or NEAR.

        First every cached document, then (unless offline) Europe PMC phrase search and
        LitSense sentence search; each candidate is verified by :func:`check_document`.
        """
        o = self.options
        if not self._asks_find_source(result):
            return result
        from citeproof.loading.pins import open_cache_for  # start-up
        from citeproof.net.session import mode_from  # start-up
        from citeproof.search.finder import find_elsewhere  # start-up

        mode = mode_from(o.replay_dir)

        def run(cache: Cache | None, offline: bool) -> CheckResult:
            return find_elsewhere(
                quote,
                result,
                o.match,
                mode=mode,
                offline=offline,
                cache=cache,
                check=check_document,
            )

        if self._cache is not None:
            return run(self._cache, o.offline)
        cache = open_cache_for(offline=o.offline)
        if cache is None:  # offline, and nothing was ever cached: look, but create nothing
            return run(None, True)
        with cache:
            return run(cache, o.offline)

    @property
    def asks_after_match(self) -> bool:
        """Whether any step between the match and the log may have work (a batch then runs
        :meth:`after_match` in its own process, where the network and the cache are)."""
        return self.options.retraction or self.options.find_source

    def _asks_retraction(self, result: CheckResult | plain.CheckResult) -> bool:
        """Whether the retraction step has work: it was asked for and the source is named
        by an identifier (which kinds of identifier is the step's own business)."""
        return self.options.retraction and result.source.identifier is not None

    def _asks_find_source(self, result: CheckResult | plain.CheckResult) -> bool:
        return self.options.find_source and result.verdict in FIND_SOURCE_VERDICTS

    def _needs_model(self, result: CheckResult | plain.CheckResult) -> bool:
        """Whether a step after the match adds to the result what only the model holds (a
        retraction report, find-source's findings); the log reads either form."""
        return self._asks_retraction(result) or self._asks_find_source(result)

    def log_payload(
        self,
        result: CheckResult | plain.CheckResult,
        *,
        claim: str | None = None,
        recheck_of: int | None = None,
    ) -> dict[str, Any]:
        """The evidence line's payload for ``result`` (pure: it may be made on a worker)."""
        return check_payload(result, self.options.match, recheck_of=recheck_of, claim=claim)

    def record(self, payloads: Sequence[dict[str, Any]]) -> list[int]:
        """Append ``check`` lines for ``payloads`` in one locked append; their numbers."""
        if not payloads:
            return []
        if self._log is None:
            from citeproof.evidence.log import open_log  # start-up

            self._log = open_log(self.options.log_path)
        entries = self._log.append_many([(CHECK_KIND, p) for p in payloads])
        return [entry.seq for entry in entries]

    # ------------------------------------------------------------------ the whole check

    def run(
        self,
        quote: str,
        source: str | os.PathLike[str] | Document,
        *,
        claim: str | None = None,
        stdin: IO[bytes] | None = None,
        recheck_of: int | None = None,
    ) -> Checked:
        """Every step for one quote, in order, and the Document the quote was matched against.

        Bad input raises before any source is read; a source that has no text gives
        NOT_CHECKABLE (or UNAVAILABLE when it could not be read), an answer rather than an
        error.  When the evidence line cannot be written the result is still returned, with
        the log's error beside it (:attr:`Checked.log_error`).  The result stays plain data
        (:class:`Checked`) unless a step needs the model.
        """
        validate_quote(quote)
        loaded = self.load(source, stdin=stdin)
        document = loaded if isinstance(loaded, Document) else None
        result = self.after_match(quote, self.match_plain(quote, loaded))
        result, log_error = self.log(result, claim=claim, recheck_of=recheck_of)
        return Checked(result, document, log_error)

    def check(
        self,
        quote: str,
        source: str | os.PathLike[str] | Document,
        *,
        claim: str | None = None,
        stdin: IO[bytes] | None = None,
        recheck_of: int | None = None,
    ) -> CheckResult:
        """:meth:`run`'s result; the log's error, raised, when its line was not written."""
        checked = self.run(quote, source, claim=claim, stdin=stdin, recheck_of=recheck_of)
        return checked.logged()


# ---------------------------------------------------------------------------------- library


def check(
    quote: str,
    source: str | os.PathLike[str] | Document,
    *,
    near_threshold: float = DEFAULT_NEAR_THRESHOLD,
    max_gap: int = DEFAULT_MAX_GAP,
    profile: str = "t1",
    max_bytes: int | None = None,
    stdin: IO[bytes] | None = None,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
    expect_sha256: str | None = None,
    find_source: bool = False,
    retraction: bool = False,
    log: bool | str | os.PathLike[str] = False,
) -> CheckResult:
    """Check one quote against a Document, a path, ``"-"`` (stdin) or an identifier.

    Bad input raises a ``CiteproofError`` subclass before any file is read; a source that has
    no text gives the verdict NOT_CHECKABLE (or UNAVAILABLE when it could not be read)
    rather than an error, since that is an answer.  ``expect_sha256`` pins the bytes: a
    mismatch is NOT_CHECKABLE with both hashes in the reason.  ``find_source`` looks for
    the words elsewhere when the verdict is NOT_FOUND or NEAR; ``retraction`` adds the cited
    work's retraction status (DOI, PMID, PMCID sources); ``log`` appends the evidence line:
    ``True`` for the default log, or a path.  A log that cannot be written raises its error.
    """
    options = CheckOptions(
        near_threshold=near_threshold,
        max_gap=max_gap,
        profile=profile,
        expect_sha256=expect_sha256,
        offline=offline,
        refresh=refresh,
        replay=os.fspath(replay) if replay is not None else None,
        max_bytes=max_bytes,
        retraction=retraction,
        find_source=find_source,
        log=log is not False,
        log_path=None if isinstance(log, bool) else os.fspath(log),
    )
    return Pipeline(options).check(quote, source, stdin=stdin)


def check_text(
    quote: str,
    text: str,
    *,
    near_threshold: float = DEFAULT_NEAR_THRESHOLD,
    max_gap: int = DEFAULT_MAX_GAP,
    profile: str = "t1",
) -> CheckResult:
    """Check one quote against source text given directly (``source.coverage`` is "text")."""
    options = match_options(near_threshold, max_gap, profile)
    validate_quote(quote)
    return check_document(quote, load(text=text), options)


def find_source_for(
    quote: str,
    result: CheckResult,
    options: MatchOptions,
    *,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    cache: Cache | None = None,
) -> CheckResult:
    """The find-source step alone, for a result already made (see
    :meth:`Pipeline.find_source`)."""
    settings = CheckOptions(
        near_threshold=options.near_threshold,
        max_gap=options.max_gap,
        profile=options.profile,
        offline=offline,
        replay=os.fspath(replay) if replay is not None else None,
        find_source=True,
    )
    return Pipeline(settings, cache=cache).find_source(quote, result)
