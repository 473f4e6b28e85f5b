"""The error tree: every class in ``citeproof.errors``, drawn in its docstring, codes pinned.

A new error class anywhere in the package, a class moved out of ``errors.py``, a changed
parent or exit code, or a docstring tree that no longer matches the classes fails here.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest

import citeproof
from citeproof import errors
from citeproof.errors import CiteproofError

#: name -> (parent in the tree, exit code).  The one place a change to the tree is agreed to.
PINNED: dict[str, tuple[str | None, int]] = {
    "CiteproofError": (None, 2),
    "BadInputError": ("CiteproofError", 2),
    "EmptyQuoteError": ("BadInputError", 2),
    "QuoteTooLongError": ("BadInputError", 2),
    "SourceNotFoundError": ("BadInputError", 2),
    "SourceTooLargeError": ("BadInputError", 2),
    "UnsupportedFormatError": ("BadInputError", 2),
    "EncodingError": ("BadInputError", 2),
    "UnsafeXMLError": ("BadInputError", 2),
    "UnknownIdentifierError": ("BadInputError", 2),
    "MalformedHandleError": ("BadInputError", 2),
    "UnsafeURLError": ("BadInputError", 2),
    "CanonicalJSONError": ("BadInputError", 2),
    "RetractionWatchFormatError": ("BadInputError", 2),
    "ReferenceListError": ("BadInputError", 2),
    "SearchInputError": ("BadInputError", 2),
    "UnknownEngineError": ("SearchInputError", 2),
    "SearchLimitError": ("SearchInputError", 2),
    "SearchDateError": ("SearchInputError", 2),
    "SearchCursorError": ("SearchInputError", 2),
    "DocumentError": ("CiteproofError", 2),
    "CacheError": ("CiteproofError", 2),
    "CacheCorruptError": ("CacheError", 2),
    "CacheMissError": ("CacheError", 2),
    "CacheImportError": ("CacheError", 2),
    "LogError": ("CiteproofError", 2),
    "LogDamagedError": ("LogError", 2),
    "LogTamperedError": ("LogError", 2),
    "LogLockedError": ("LogError", 2),
    "CheckpointError": ("CiteproofError", 1),
    "KeyFileError": ("CiteproofError", 2),
    "PassageStoreError": ("CiteproofError", 2),
    "SnapshotError": ("CiteproofError", 2),
    "HtmlWriteError": ("CiteproofError", 2),
    "RecordingError": ("CiteproofError", 2),
    "BodyHashMismatchError": ("RecordingError", 2),
    "UnrecordedRequestError": ("RecordingError", 2),
    "FetchFailedError": ("CiteproofError", 2),  # the instance says 3 or 1 (see below)
    "EvidenceNotRecordedError": ("CiteproofError", 2),  # the instance has its cause's
    "UnavailableError": ("CiteproofError", 3),
    "SearchOfflineError": ("UnavailableError", 3),
    "NetworkError": ("UnavailableError", 3),
    "UpstreamUnavailableError": ("NetworkError", 3),
    "RetryAfterTooLongError": ("UpstreamUnavailableError", 3),
    "DeadlineExceededError": ("UpstreamUnavailableError", 3),
    "BodyTooLargeError": ("NetworkError", 3),
    "PmcAnswerError": ("NetworkError", 3),
    "NotPinnedError": ("NetworkError", 3),
    "FetchError": ("NetworkError", 3),
    "TooManyRedirectsError": ("FetchError", 3),
    "ResponseTooLargeError": ("FetchError", 3),
    "FetchTimeoutError": ("FetchError", 3),
}


def _import_everything() -> None:
    for info in pkgutil.walk_packages(citeproof.__path__, "citeproof."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)


def _subclasses(cls: type) -> set[type]:
    found = set()
    for sub in cls.__subclasses__():
        found.add(sub)
        found |= _subclasses(sub)
    return found


def _tree_in_docstring() -> dict[str, tuple[str | None, str]]:
    """name -> (parent, code as drawn) from the box drawing in ``errors.__doc__``."""
    assert errors.__doc__ is not None
    drawn: dict[str, tuple[str | None, str]] = {}
    stack: list[tuple[int, str]] = []
    for line in errors.__doc__.splitlines():
        m = re.match(r"^ {4}([ │├└─]*)([A-Z]\w+)\s+(\d(?:\|\d)?|\*)(?:\s|$)", line)
        if not m:
            continue
        depth = len(m[1]) // 4
        while stack and stack[-1][0] >= depth:
            stack.pop()
        drawn[m[2]] = (stack[-1][1] if stack else None, m[3])
        stack.append((depth, m[2]))
    return drawn


def test_every_error_class_is_defined_in_errors_and_exported() -> None:
    _import_everything()
    classes = _subclasses(CiteproofError) | {CiteproofError}
    elsewhere = sorted(
        f"{c.__module__}.{c.__name__}" for c in classes if c.__module__ != "citeproof.errors"
    )
    assert elsewhere == []
    assert {c.__name__ for c in classes} <= set(errors.__all__)


def test_the_tree_and_exit_codes_are_pinned() -> None:
    _import_everything()
    actual = {}
    for cls in _subclasses(CiteproofError) | {CiteproofError}:
        parents = [b for b in cls.__bases__ if issubclass(b, CiteproofError)]
        actual[cls.__name__] = (parents[0].__name__ if parents else None, int(cls.exit_code))
    assert actual == PINNED


def test_the_docstring_draws_the_whole_tree() -> None:
    drawn = _tree_in_docstring()
    assert {name: parent for name, (parent, _) in drawn.items()} == {
        name: parent for name, (parent, _) in PINNED.items()
    }
    special = {"FetchFailedError": "3|1", "EvidenceNotRecordedError": "*"}
    for name, (_, code) in drawn.items():
        assert code == special.get(name, str(PINNED[name][1])), name


@pytest.mark.parametrize(("kind", "code"), [("unavailable", 3), ("not_checkable", 1)])
def test_fetch_failed_exits_as_the_verdict_it_stands_for(kind: str, code: int) -> None:
    from citeproof.loading.failure import FetchFailure

    err = errors.FetchFailedError(FetchFailure(kind, "why", "in", "key"))  # type: ignore[arg-type]
    assert err.exit_code == code
    assert str(err) == "why"


def test_verdicts_map_to_exit_codes() -> None:
    assert [
        errors.check_exit_code(v)
        for v in ("EXACT", "NEAR", "NOT_FOUND", "TOO_SHORT", "NOT_CHECKABLE", "UNAVAILABLE")
    ] == [0, 1, 1, 1, 1, 3]
    assert [errors.audit_exit_code(v) for v in ("pass", "warn", "fail", "incomplete")] == [
        0,
        0,
        1,
        3,
    ]
    assert [
        errors.retraction_exit_code(s)
        for s in ("NOT_RETRACTED_AS_OF", "RETRACTED", "CONCERN", "UNVERIFIABLE")
    ] == [0, 1, 1, 3]
    assert [errors.resolve_exit_code(s) for s in ("RESOLVED", "NOT_CHECKABLE", "UNAVAILABLE")] == [
        0,
        1,
        3,
    ]


def test_unavailable_errors_are_what_the_audit_reads_as_unavailable() -> None:
    """The audit decides "unavailable" by class, not by comparing exit codes."""
    for name, (_, code) in PINNED.items():
        cls = getattr(errors, name)
        assert issubclass(cls, errors.UnavailableError) == (code == 3), name


def test_every_exception_name_ends_in_error_and_the_old_names_still_catch() -> None:
    """One naming pattern (issue 25); the four network errors renamed keep their old names
    as the same classes, so code that catches ``UpstreamUnavailable`` goes on working."""
    _import_everything()
    names = {c.__name__ for c in _subclasses(CiteproofError)}
    assert sorted(n for n in names if not n.endswith("Error")) == []
    for old in ("UpstreamUnavailable", "RetryAfterTooLong", "DeadlineExceeded", "BodyTooLarge"):
        assert getattr(errors, old) is getattr(errors, old + "Error")
        assert old in errors.__all__
