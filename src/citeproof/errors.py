"""Every failure a user can cause or meet, as one exception tree, and the exit codes.

The CLI prints ``str(error)`` on stderr as one line and exits with ``error.exit_code``; the MCP
server returns the message as a tool error; the library raises these so a caller can tell bad
input from an unreadable source without parsing text.  Every class lives here, so any module
can raise any of them without importing another layer (structlog keeps its exceptions apart
for the same reason), and this docstring is the whole tree (a test keeps it true)::

    CiteproofError                      2  base: the message says what happened and what to do
    ├── BadInputError                   2  the caller gave something unusable
    │   ├── EmptyQuoteError             2  the quote is empty or only whitespace
    │   ├── QuoteTooLongError           2  the quote is over the length cap
    │   ├── SourceNotFoundError         2  a path that does not exist or cannot be read
    │   ├── SourceTooLargeError         2  a file over the size cap
    │   ├── UnsupportedFormatError      2  bytes that are no format citeproof reads
    │   ├── EncodingError               2  text that is not valid UTF-8 (or UTF-16 with BOM)
    │   ├── UnsafeXMLError              2  XML with entity declarations or other hostile parts
    │   ├── UnknownIdentifierError      2  text that is no accepted identifier form
    │   ├── MalformedHandleError        2  text that is not a citation handle
    │   ├── UnsafeURLError              2  a URL that is not a public http(s) resource
    │   ├── CanonicalJSONError          2  a value canonical JSON cannot hold
    │   ├── RetractionWatchFormatError  2  a file that is not a Retraction Watch CSV
    │   ├── ReferenceListError          2  a reference list that cannot be read
    │   └── SearchInputError            2  a search asked with something it cannot use
    │       ├── UnknownEngineError      2
    │       ├── SearchLimitError        2
    │       ├── SearchDateError         2
    │       └── SearchCursorError       2
    ├── DocumentError                   2  a document that parses but cannot be used
    ├── CacheError                      2  the cache cannot be used as asked
    │   ├── CacheCorruptError           2  a damaged database, or bytes that fail their hash
    │   ├── CacheMissError              2  a blob or pin that is not in the cache
    │   └── CacheImportError            2  an export file refused whole
    ├── LogError                        2  the evidence log cannot be used as asked
    │   ├── LogDamagedError             2  a torn or damaged tail; appending stops
    │   ├── LogTamperedError            2  entries changed or removed (against the signed head)
    │   └── LogLockedError              2  another process held the lock too long
    ├── CheckpointError                 1  a checkpoint malformed or not verifying
    ├── KeyFileError                    2  a key file or public key that cannot be used
    ├── PassageStoreError               2  the issued-passage store cannot be read
    ├── SnapshotError                   2  the Retraction Watch snapshot cannot be read
    ├── HtmlWriteError                  2  the audit page could not be written
    ├── RecordingError                  2  a recorded response missing, malformed or unsafe
    │   ├── BodyHashMismatchError       2  a recording whose body fails its sha256
    │   └── UnrecordedRequestError      2  a request no recording answers (--replay)
    ├── FetchFailedError              3|1  citeproof.load() of a work with no text: 3 when a
    │                                      source failed, 1 when none has text
    ├── EvidenceNotRecordedError        *  a check ran but its evidence line was not written;
    │                                      exits as the log's error did
    └── UnavailableError                3  nothing could be concluded: try again later
        ├── SearchOfflineError          3  --offline, and a search has no cached answer
        └── NetworkError                3  a source could not be read
            ├── UpstreamUnavailableError  3  5xx, 429 or network errors on every attempt
            │   ├── RetryAfterTooLongError  3  Retry-After longer than allowed
            │   └── DeadlineExceededError  3  the time allowed for one check ran out
            ├── BodyTooLargeError       3  an answer over the body cap (raw or decompressed)
            ├── PmcAnswerError          3  PMC answered with something unreadable
            ├── NotPinnedError          3  --offline, and the answer was never pinned
            └── FetchError              3  a public URL could not be read
                ├── TooManyRedirectsError  3
                ├── ResponseTooLargeError  3  (also a BodyTooLargeError)
                └── FetchTimeoutError      3  (also a DeadlineExceededError)

Warnings are conditions worth a word that do not stop anything; the CLI prints each one raised
by citeproof as one ``citeproof: warning: <message>`` line on stderr::

    CiteproofWarning (a UserWarning)       base of citeproof's own warnings
    └── KeyFileWarning                     a key file other users can read or change

Exit codes (:class:`ExitCode`): 0 success (check: EXACT; audit: pass or warn), 1 a negative
result (check: NEAR, NOT_FOUND, TOO_SHORT, NOT_CHECKABLE; audit: fail; a verification that
failed), 2 usage or bad input, 3 a source was unavailable (check: UNAVAILABLE; audit:
incomplete; retraction: unverifiable).  :func:`check_exit_code`, :func:`audit_exit_code`,
:func:`retraction_exit_code`, :func:`resolve_exit_code` and :func:`references_exit_code` map
verdicts to them, so every
command that prints a verdict exits the same way.

Network messages name the service and host, never the full URL: URLs carry the contact address
and the NCBI API key, and these messages end up in logs and reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import IntEnum
from typing import Final, Protocol

__all__ = [
    "BadInputError",
    "BodyHashMismatchError",
    "BodyTooLarge",
    "BodyTooLargeError",
    "CacheCorruptError",
    "CacheError",
    "CacheImportError",
    "CacheMissError",
    "CanonicalJSONError",
    "CheckpointError",
    "CiteproofError",
    "CiteproofWarning",
    "DeadlineExceeded",
    "DeadlineExceededError",
    "DocumentError",
    "EmptyQuoteError",
    "EncodingError",
    "EvidenceNotRecordedError",
    "ExitCode",
    "FetchError",
    "FetchFailedError",
    "FetchTimeoutError",
    "HtmlWriteError",
    "KeyFileError",
    "KeyFileWarning",
    "LogDamagedError",
    "LogError",
    "LogLockedError",
    "LogTamperedError",
    "MalformedHandleError",
    "NetworkError",
    "NotPinnedError",
    "PassageStoreError",
    "PmcAnswerError",
    "QuoteTooLongError",
    "RecordingError",
    "ReferenceListError",
    "ResponseTooLargeError",
    "RetractionWatchFormatError",
    "RetryAfterTooLong",
    "RetryAfterTooLongError",
    "SearchCursorError",
    "SearchDateError",
    "SearchInputError",
    "SearchLimitError",
    "SearchOfflineError",
    "SnapshotError",
    "SourceNotFoundError",
    "SourceTooLargeError",
    "TooManyRedirectsError",
    "UnavailableError",
    "UnknownEngineError",
    "UnknownIdentifierError",
    "UnrecordedRequestError",
    "UnsafeURLError",
    "UnsafeXMLError",
    "UnsupportedFormatError",
    "UpstreamUnavailable",
    "UpstreamUnavailableError",
    "audit_exit_code",
    "check_exit_code",
    "os_problem",
    "references_exit_code",
    "resolve_exit_code",
    "retraction_exit_code",
]


class ExitCode(IntEnum):
    """What a citeproof command's exit status means."""

    OK = 0
    NEGATIVE = 1
    USAGE = 2
    UNAVAILABLE = 3


def check_exit_code(verdict: str) -> int:
    """0 for EXACT, 3 for UNAVAILABLE (nothing was concluded), 1 for every negative answer."""
    if verdict == "EXACT":
        return ExitCode.OK
    if verdict == "UNAVAILABLE":
        return ExitCode.UNAVAILABLE
    return ExitCode.NEGATIVE


#: What a command's verdict or status means for its exit status, by command (``check`` and
#: ``refs`` decide theirs from more than one word, below).
_EXIT_CODES: Final[Mapping[str, Mapping[str, ExitCode]]] = {
    "audit": {
        "pass": ExitCode.OK,
        "warn": ExitCode.OK,
        "fail": ExitCode.NEGATIVE,
        "incomplete": ExitCode.UNAVAILABLE,
    },
    "retraction": {
        "NOT_RETRACTED_AS_OF": ExitCode.OK,
        "RETRACTED": ExitCode.NEGATIVE,
        "CONCERN": ExitCode.NEGATIVE,
        "UNVERIFIABLE": ExitCode.UNAVAILABLE,
    },
    "resolve": {
        "RESOLVED": ExitCode.OK,
        "NOT_CHECKABLE": ExitCode.NEGATIVE,
        "UNAVAILABLE": ExitCode.UNAVAILABLE,
    },
}


def audit_exit_code(verdict: str) -> int:
    """0 pass or warn, 1 fail, 3 incomplete (a cited source was unavailable)."""
    return _EXIT_CODES["audit"][verdict]


def retraction_exit_code(status: str) -> int:
    """0 not retracted (as of a date), 1 retracted or under concern, 3 unverifiable."""
    return _EXIT_CODES["retraction"][status]


def resolve_exit_code(status: str) -> int:
    """0 resolved, 1 not checkable (every source answered and none serves text: a negative
    answer, as a check's NOT_CHECKABLE), 3 unavailable (a source could not be read)."""
    return _EXIT_CODES["resolve"][status]


def references_exit_code(counts: Mapping[str, int]) -> int:
    """0 every reference verified (or ambiguous between editions of a real work, or
    unchecked: a work the databases cannot show, which is no finding), 1 a problem found
    (mismatch, not_found, unresolvable, partial, a retracted work), 3 a database was
    unavailable and nothing failed."""
    problems = ("mismatch", "not_found", "unresolvable", "partial", "retracted")
    if any(counts.get(name, 0) for name in problems):
        return ExitCode.NEGATIVE
    if counts.get("unavailable", 0):
        return ExitCode.UNAVAILABLE
    return ExitCode.OK


def os_problem(exc: OSError) -> str:
    """What an operating-system error says, in words a person can act on (no sentence end).

    ``[Errno 20] Not a directory: '/x/y'`` means that a part of the path is a file; the
    person reading it needs the part, not the errno.  Every message about a path citeproof
    could not create, open or write is built from this, so they all read alike.
    """
    import errno

    where = exc.filename if exc.filename is not None else None
    shown = f"{where}" if where is not None else "the path"
    code = exc.errno
    if code == errno.ENOTDIR and where is not None:
        return f"a part of the path {shown} is a file, not a folder"
    if code == errno.EEXIST and where is not None:  # mkdir(exist_ok=True) over a file
        return f"{shown} is a file, not a folder"
    if code == errno.EISDIR:
        return f"{shown} is a folder, not a file"
    if code in (errno.EACCES, errno.EPERM):
        return f"permission denied on {shown}"
    if code == errno.EROFS:
        return f"{shown} is on a read-only file system"
    if code == errno.ENOSPC:
        return f"no space is left on the device of {shown}"
    if code == errno.ENOENT:
        return f"{shown} does not exist"
    reason = exc.strerror or type(exc).__name__
    return f"{reason} ({shown})" if where is not None else reason


class CiteproofError(Exception):
    """Base class; ``str(err)`` is a complete sentence saying what happened and what to do."""

    exit_code: int = ExitCode.USAGE


# ---------------------------------------------------------------------------------- bad input


class BadInputError(CiteproofError):
    """The caller supplied something citeproof cannot use as given."""


class EmptyQuoteError(BadInputError):
    """The quote is empty, or only whitespace and invisible characters."""


class QuoteTooLongError(BadInputError):
    """The quote is over the length cap."""


class SourceNotFoundError(BadInputError):
    """A path that does not exist or cannot be read."""


class SourceTooLargeError(BadInputError):
    """A file (or standard input) over the size cap."""


class UnsupportedFormatError(BadInputError):
    """Bytes that are no format citeproof reads (binary data, an unknown format)."""


class EncodingError(BadInputError):
    """Text that is not valid UTF-8 (or UTF-16 with a byte-order mark)."""


class UnsafeXMLError(BadInputError):
    """XML with entity declarations or other hostile constructs."""


class UnknownIdentifierError(BadInputError):
    """The text is not any accepted identifier form (or is ambiguous, like a bare number).

    The message is the reason, then ``accepted_forms``: the identifiers package passes its
    one-line summary of what would work (:data:`citeproof.identifiers.ACCEPTED_FORMS`), so the
    help text lives beside the declarations it sums up, not in the error tree.
    """

    def __init__(self, text: str, reason: str, accepted_forms: str = "") -> None:
        self.text = text
        self.reason = reason
        self.accepted_forms = accepted_forms
        super().__init__(f"{reason} {accepted_forms}" if accepted_forms else reason)


#: The handle shown to someone who wrote a malformed one.
HANDLE_EXAMPLE: Final = "pmcid:PMC3166277/body.results.p4~7G2KQ1XM"


class MalformedHandleError(BadInputError):
    """The text is not a handle; the message says which part is wrong and shows a good one."""

    def __init__(self, text: str, problem: str) -> None:
        self.text = text
        self.problem = problem
        shown = text if len(text) <= 80 else text[:77] + "..."
        super().__init__(
            f"{shown!r} is not a citation handle: {problem}. A handle looks like "
            f"{HANDLE_EXAMPLE} (scheme:id[.vN]/path~code)."
        )


class UnsafeURLError(BadInputError):
    """A URL (or a redirect target) citeproof refuses to fetch because it is not a public
    http(s) resource; the message names the URL and the reason."""


class CanonicalJSONError(BadInputError):
    """A value cannot be written as canonical JSON (wrong type, NaN, bad string)."""


class RetractionWatchFormatError(BadInputError):
    """The file given to ``retractions import`` is not a Retraction Watch CSV."""


class ReferenceListError(BadInputError):
    """A bibliography or reference list that cannot be read (bad BibTeX, JSON that is not
    CSL-JSON, a file with no references)."""


class SearchInputError(BadInputError):
    """A search was asked with something it cannot use; nothing was sent."""


class UnknownEngineError(SearchInputError):
    """No search engine of that name."""


class SearchLimitError(SearchInputError):
    """A limit outside what the engine can return."""


class SearchDateError(SearchInputError):
    """A ``--since``/``--until`` that is not a date (or an engine without date filters)."""


class SearchCursorError(SearchInputError):
    """A cursor the engine did not hand out (or an engine that does not page by cursor)."""


# ---------------------------------------------------------------------------------- state


class DocumentError(CiteproofError):
    """A document was read but has a problem that stops it being used."""


class CacheError(CiteproofError):
    """The cache cannot be used as asked (wrong schema version, missing entry, bad input)."""


class CacheCorruptError(CacheError):
    """Stored bytes no longer match their hash, or the cache file is not a usable database.

    Raised instead of returning damaged bytes: a quote checked against corrupted text would
    give a confident wrong answer.  Fetching the source again (``--refresh``) repairs it.
    """


class CacheMissError(CacheError):
    """A blob or pin that was asked for is not in the cache."""


class CacheImportError(CacheError):
    """An export file was refused: malformed, truncated or tampered with.  Nothing was
    imported."""


class LogError(CiteproofError):
    """The evidence log cannot be used as asked."""


class LogDamagedError(LogError):
    """The log's tail is torn, damaged or not covered by the signed head; appending stops."""


class LogTamperedError(LogError):
    """The log or its head contradicts the signed head: entries were changed or removed."""


class LogLockedError(LogError):
    """Another process held the log's lock for too long."""


class CheckpointError(CiteproofError):
    """A checkpoint is malformed or its signature does not verify (a negative answer: exit 1)."""

    exit_code = ExitCode.NEGATIVE


class KeyFileError(CiteproofError):
    """A key file or a public key string cannot be used."""


class CiteproofWarning(UserWarning):
    """Base of the warnings citeproof raises: the CLI prints them as one line each."""


class KeyFileWarning(CiteproofWarning):
    """A key file other users can read or change is used (``--strict-keys`` refuses it)."""


class PassageStoreError(CiteproofError):
    """The issued-passage store cannot be opened or read."""


class SnapshotError(CiteproofError):
    """The imported snapshot exists but cannot be read (damaged, or from another version)."""


class HtmlWriteError(CiteproofError):
    """The page could not be written where asked."""


class RecordingError(CiteproofError):
    """A recorded response is missing, malformed, unsafe to write, or was not recorded."""


class BodyHashMismatchError(RecordingError):
    """A recorded body's sha256 differs from its record: the bytes are not what was recorded."""


class UnrecordedRequestError(RecordingError):
    """A request reached the replay transport that no recording answers."""

    def __init__(self, key: object, nearest: list[str]) -> None:
        self.key = key
        self.nearest = nearest
        hint = (
            "; nearest recorded: " + " | ".join(nearest)
            if nearest
            else "; no recording is close to it"
        )
        super().__init__(
            f"Request {key} was not recorded{hint}. Record it, or fix the request the code builds."
        )


class _NoText(Protocol):
    """What :class:`FetchFailedError` needs of a fetch failure (``citeproof.loading``'s)."""

    @property
    def kind(self) -> str: ...

    @property
    def reason(self) -> str: ...


class FetchFailedError(CiteproofError):
    """Raised by ``citeproof.load`` (which must return a Document) when no text was had.

    ``check`` never raises it: it reports the failure as an UNAVAILABLE (exit 3) or
    NOT_CHECKABLE (exit 1) result instead, and this error exits the same way.
    """

    def __init__(self, failure: _NoText) -> None:
        self.failure = failure
        self.exit_code = (
            ExitCode.UNAVAILABLE if failure.kind == "unavailable" else ExitCode.NEGATIVE
        )
        super().__init__(failure.reason)


class EvidenceNotRecordedError(CiteproofError):
    """A check ran, but its evidence line could not be written.

    ``result`` is what the check found (a command still shows it) and ``text`` the text it was
    matched against, when known; ``cause`` is the log's own error, whose message and exit code
    this error has.
    """

    def __init__(self, cause: CiteproofError, result: object, text: str = "") -> None:
        self.cause = cause
        self.result = result
        self.text = text
        self.exit_code = cause.exit_code
        super().__init__(str(cause))


# ---------------------------------------------------------------------------------- unavailable


class UnavailableError(CiteproofError):
    """Nothing could be concluded, because something citeproof needed could not be read.

    Reported as ``UNAVAILABLE`` (never ``NOT_FOUND``); exit 3, so scripts can tell "try again
    later" from bad input.
    """

    exit_code = ExitCode.UNAVAILABLE


class SearchOfflineError(UnavailableError):
    """``--offline`` forbids the network, and a search has no cached answer."""


class NetworkError(UnavailableError):
    """A source could not be read; ``reason`` is the sentence reported as UNAVAILABLE."""

    def __init__(self, reason: str, *, service: str = "", host: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.service = service
        self.host = host


class UpstreamUnavailableError(NetworkError):
    """The service answered 429/5xx or could not be reached on every attempt;
    ``unreachable`` when no attempt could even connect (no network, no name resolution)."""

    def __init__(
        self, reason: str, *, service: str = "", host: str = "", unreachable: bool = False
    ) -> None:
        super().__init__(reason, service=service, host=host)
        self.unreachable = unreachable


class RetryAfterTooLongError(UpstreamUnavailableError):
    """``Retry-After`` asked for a longer wait than ``max_wait``; we stop instead of sleeping."""

    def __init__(
        self,
        reason: str,
        *,
        service: str = "",
        host: str = "",
        wait: float = 0.0,
        limit: float = 0.0,
    ) -> None:
        super().__init__(reason, service=service, host=host)
        self.wait = wait
        self.limit = limit


class DeadlineExceededError(UpstreamUnavailableError):
    """The total deadline for the current check passed before an answer arrived."""


class BodyTooLargeError(NetworkError):
    """The answer's body (after decompression) is over the cap; reading stopped at the cap."""

    def __init__(self, reason: str, *, service: str = "", host: str = "", limit: int = 0) -> None:
        super().__init__(reason, service=service, host=host)
        self.limit = limit


class PmcAnswerError(NetworkError):
    """PMC answered, but not with something citeproof can read (bad XML/JSON, odd status).

    Nothing may be concluded from an answer that could not be understood, so it ends as
    UNAVAILABLE like every :class:`NetworkError`.
    """


class NotPinnedError(NetworkError):
    """``--offline``: the answer a lookup needs was never pinned, so it was not asked."""


class FetchError(NetworkError):
    """A public URL could not be read (DNS failure, connection error...); nothing was concluded
    about its content."""


class TooManyRedirectsError(FetchError):
    """The server redirected more times than allowed."""


class ResponseTooLargeError(FetchError, BodyTooLargeError):
    """The response body was larger than the byte cap."""


class FetchTimeoutError(FetchError, DeadlineExceededError):
    """The whole fetch (DNS, redirects, body) did not finish within the deadline."""


# The names four network errors had before every error's name ended in ``Error``: the same
# classes, so code that catches them by the old name goes on working.
UpstreamUnavailable = UpstreamUnavailableError
RetryAfterTooLong = RetryAfterTooLongError
DeadlineExceeded = DeadlineExceededError
BodyTooLarge = BodyTooLargeError
