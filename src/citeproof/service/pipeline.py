"""The one API every interface calls: read a source, run the matcher, build the result.

The CLI, the library functions in ``citeproof`` (and later the MCP server and batch) all go
through here, so a rule about inputs (size caps, what "-" means, which errors are raised) or
about results (locations, flags, reasons) is written once.  The pure work lives elsewhere:
``documents`` turns bytes into a Document, ``match`` finds the quote, and ``results``
translates the matcher's plain result into ``models.CheckResult``; this module does the I/O
around them and holds the rules about inputs.

Local files, stdin and text given directly are read here; a source that is not an
existing file but names a work (DOI, PMID, PMCID, NCT, openFDA set id, PPR, URL) is fetched,
or read from its pin in the cache, by ``citeproof.loading.pins``.  ``--expect-sha256`` is
checked here, after loading, so it works for files and identifiers alike.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

from citeproof.documents.model import Document, Origin
from citeproof.errors import (
    BadInputError,
    EmptyQuoteError,
    EncodingError,
    QuoteTooLongError,
    SourceNotFoundError,
    SourceTooLargeError,
)
from citeproof.match.types import (
    DEFAULT_MAX_GAP,
    DEFAULT_NEAR_THRESHOLD,
    MatchOptions,
)
from citeproof.service.results import failure_result, not_checkable_result, result_from_match

if TYPE_CHECKING:
    from citeproof.loading.pins import FetchFailure
    from citeproof.models import CheckResult
    from citeproof.store.cache import Cache

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "MAX_QUOTE_CHARS",
    "PROFILES",
    "check",
    "check_document",
    "check_loaded",
    "check_text",
    "document_blocks",
    "find_source_for",
    "load",
    "load_source",
    "match_options",
    "max_file_bytes",
    "no_text_reason",
    "quote_too_long",
    "read_bytes",
    "validate_quote",
    "validate_sha256",
]

DEFAULT_MAX_FILE_BYTES: Final = 100 * 1024 * 1024
MAX_FILE_BYTES_ENV: Final = "CITEPROOF_MAX_FILE_BYTES"
MAX_QUOTE_CHARS: Final = 100_000
PROFILES: Final = ("t1", "t1+dehyphen")
STDIN: Final = "-"
TEXT_INPUT: Final = "<text>"

# --------------------------------------------------------------------------------------------
# Reading sources


def max_file_bytes(override: int | None = None) -> int:
    """The size cap in force: the argument, else ``CITEPROOF_MAX_FILE_BYTES``, else 100 MB."""
    if override is not None:
        cap = override
    else:
        raw = os.environ.get(MAX_FILE_BYTES_ENV, "").strip()
        if not raw:
            return DEFAULT_MAX_FILE_BYTES
        try:
            cap = int(raw)
        except ValueError:
            raise BadInputError(
                f"{MAX_FILE_BYTES_ENV}={raw!r} is not a whole number of bytes; "
                "set it to a positive integer or unset it."
            ) from None
    if cap <= 0:
        raise BadInputError(f"the file size cap must be a positive number of bytes, not {cap}.")
    return cap


def _too_large(what: str, cap: int) -> SourceTooLargeError:
    return SourceTooLargeError(
        f"{what} is larger than the {cap:,}-byte cap; "
        f"raise it with {MAX_FILE_BYTES_ENV} if the file is really this big."
    )


def _read_path(path: Path, shown: str, cap: int) -> bytes:
    """Read a regular file, checking its size before reading and never reading past cap+1."""
    try:
        with path.open("rb") as fh:
            if os.fstat(fh.fileno()).st_size > cap:
                raise _too_large(shown, cap)
            data = fh.read(cap + 1)  # also guards files that grow, FIFOs and /dev/* devices
    except IsADirectoryError:
        raise SourceNotFoundError(f"{shown} is a directory; give the path of a file.") from None
    except FileNotFoundError:
        raise _not_found(shown) from None
    except PermissionError:
        raise SourceNotFoundError(
            f"cannot read {shown}: permission denied; check the file's permissions."
        ) from None
    except OSError as exc:
        raise SourceNotFoundError(f"cannot read {shown}: {exc.strerror or exc}.") from None
    except ValueError:  # e.g. a NUL byte in the path
        raise SourceNotFoundError(f"{shown!r} is not a valid path.") from None
    if len(data) > cap:
        raise _too_large(shown, cap)
    return data


def _not_found(shown: str) -> SourceNotFoundError:
    return SourceNotFoundError(
        f"{shown} does not exist; give the path of a PDF, JATS XML, HTML or text file "
        '(or "-" to read stdin).'
    )


def _parse(data: bytes, name: str | None, origin: Origin) -> Document:
    """The Document for a file's or stdin's bytes; the same bytes are parsed once per process
    (see :mod:`citeproof.loading.memo`), and the result names these bytes and this origin."""
    from citeproof.loading.memo import parsed

    assert origin.sha256 is not None  # the caller hashed the bytes
    return parsed(origin.sha256, data, name).with_origin(origin)


def read_bytes(
    source: str | os.PathLike[str], *, max_bytes: int | None = None, stdin: IO[bytes] | None = None
) -> bytes:
    """The bytes of a file, or of standard input for ``"-"``, refusing more than the cap.

    A file's size is checked before reading, and at most cap+1 bytes are ever read, so a
    huge file, a device or a stream that never ends cannot exhaust memory.
    """
    cap = max_file_bytes(max_bytes)
    shown = os.fspath(source)
    if shown == STDIN:
        data = (stdin if stdin is not None else sys.stdin.buffer).read(cap + 1)
        if len(data) > cap:
            raise _too_large("standard input", cap)
        return data
    if not shown.strip():
        raise SourceNotFoundError("the source path is empty; give the path of a file.")
    return _read_path(Path(shown), shown, cap)


def load(
    source: str | os.PathLike[str] | Document | None = None,
    *,
    text: str | None = None,
    max_bytes: int | None = None,
    stdin: IO[bytes] | None = None,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
) -> Document:
    """Read a source into a Document; load once, then check any number of quotes against it.

    ``source`` is a path, ``"-"`` for standard input, or a Document (returned unchanged);
    ``text`` is source text given directly (exactly one of the two).  Files and stdin are
    capped at ``max_bytes`` (default: ``CITEPROOF_MAX_FILE_BYTES``, else 100 MB) and parsed
    by the format their bytes show, whatever the file is called.  A string that is not an
    existing file but an identifier (DOI, PMID, PMCID, NCT, openFDA set id, PPR, URL) is
    fetched, or read from the cache; when no text can be had, ``FetchFailedError`` is
    raised (``check`` reports that as a result instead).
    """
    if (source is None) == (text is None):
        raise TypeError("load() takes a source or text=..., exactly one of them")
    if text is not None:
        if not isinstance(text, str):
            raise TypeError(f"text must be str, not {type(text).__name__}")
        return _document_from_text(text)
    assert source is not None  # exactly one of source and text, checked above
    loaded = load_source(
        source,
        max_bytes=max_bytes,
        stdin=stdin,
        offline=offline,
        refresh=refresh,
        replay=replay,
    )
    if isinstance(loaded, Document):
        return loaded
    from citeproof.loading.pins import FetchFailedError

    raise FetchFailedError(loaded)


def load_source(
    source: str | os.PathLike[str] | Document,
    *,
    max_bytes: int | None = None,
    stdin: IO[bytes] | None = None,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
    cache: Cache | None = None,
) -> Document | FetchFailure:
    """Like ``load`` for a source, but an identifier that gave no text is a FetchFailure.

    A string that is an existing path (or ``"-"``) is read as a file; otherwise, when it
    looks like an identifier, it is parsed (a malformed one is bad input, listing the
    accepted forms) and fetched or read from the cache (``offline``, ``refresh``,
    ``replay``, ``cache``: see ``citeproof.loading.pins.load_identifier``).
    """
    if isinstance(source, Document):
        return source
    if not isinstance(source, str | os.PathLike):
        raise TypeError(f"source must be a path, '-' or a Document, not {type(source).__name__}")
    shown = os.fspath(source)
    if shown != STDIN and not _exists(shown):
        from citeproof.identifiers import looks_like_identifier, parse_identifier

        if looks_like_identifier(shown):
            from citeproof.loading.pins import load_identifier

            return load_identifier(
                parse_identifier(shown),
                offline=offline,
                refresh=refresh,
                replay_dir=Path(replay) if replay is not None else None,
                cache=cache,
            )
    data = read_bytes(shown, max_bytes=max_bytes, stdin=stdin)
    if shown == STDIN:
        origin = Origin(input=STDIN, coverage="file", served_by="stdin", sha256=_sha256(data))
        return _parse(data, None, origin)
    origin = Origin(input=shown, coverage="file", served_by="file", sha256=_sha256(data))
    return _parse(data, Path(shown).name, origin)


def _exists(shown: str) -> bool:
    try:
        return Path(shown).exists()
    except (OSError, ValueError):
        return False


def _document_from_text(text: str) -> Document:
    from citeproof.documents.plain import document_from_string

    document = document_from_string(text)
    digest = _sha256(text.encode("utf-8", "surrogatepass"))
    document.origin = Origin(input=TEXT_INPUT, coverage="text", served_by="text", sha256=digest)
    return document


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --------------------------------------------------------------------------------------------
# Checking


def quote_too_long() -> QuoteTooLongError:
    return QuoteTooLongError(
        f"the quote is over {MAX_QUOTE_CHARS:,} characters; check a shorter passage."
    )


def validate_quote(quote: str) -> None:
    """Refuse a quote that is not a string, is empty after normalisation, or is too long."""
    if not isinstance(quote, str):
        raise TypeError(f"quote must be str, not {type(quote).__name__}")
    if len(quote) > MAX_QUOTE_CHARS:
        raise quote_too_long()
    try:
        quote.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates, e.g. undecodable bytes in a command line
        raise EncodingError(
            "the quote is not valid Unicode text (it holds bytes that are not UTF-8); "
            "give it as UTF-8."
        ) from None
    if not quote.strip() or not _normalize(quote):
        raise EmptyQuoteError("the quote is empty; give the words to look for.")


def _normalize(text: str) -> str:
    from citeproof.match.normalize import normalize

    return normalize(text)


def match_options(
    near_threshold: float = DEFAULT_NEAR_THRESHOLD,
    max_gap: int = DEFAULT_MAX_GAP,
    profile: str = "t1",
) -> MatchOptions:
    """Validated matcher options; out-of-range values are bad input, wrong types are bugs."""
    if isinstance(near_threshold, bool) or not isinstance(near_threshold, int | float):
        raise TypeError("near_threshold must be a number")
    if not 0 < near_threshold <= 1:
        raise BadInputError(
            f"the near threshold must be above 0 and at most 1, not {near_threshold}."
        )
    if isinstance(max_gap, bool) or not isinstance(max_gap, int):
        raise TypeError("max_gap must be an int")
    if max_gap < 0:
        raise BadInputError(f"the maximum ellipsis gap must be 0 or more, not {max_gap}.")
    if profile not in PROFILES:
        raise BadInputError(
            f"unknown normalisation profile {profile!r}; use one of {', '.join(PROFILES)}."
        )
    return MatchOptions(near_threshold=float(near_threshold), max_gap=max_gap, profile=profile)


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
    the words elsewhere when the verdict is NOT_FOUND or NEAR (see :func:`find_source_for`);
    ``retraction`` adds the cited work's retraction status (DOI, PMID, PMCID sources);
    ``log`` appends the evidence line: ``True`` for the default log, or a path.
    """
    options = match_options(near_threshold, max_gap, profile)
    validate_quote(quote)
    expected = validate_sha256(expect_sha256)
    loaded = load_source(
        source, max_bytes=max_bytes, stdin=stdin, offline=offline, refresh=refresh, replay=replay
    )
    result = check_loaded(quote, loaded, options, expect_sha256=expected)
    if find_source:
        result = find_source_for(quote, result, options, offline=offline, replay=replay)
    if retraction:
        from citeproof.service.steps import add_retraction

        result = add_retraction(result, offline=offline, replay=replay)
    if log is not False:
        from citeproof.evidence.payloads import open_log
        from citeproof.service.steps import log_check

        result = log_check(result, options, open_log(None if log is True else log))
    return result


#: The verdicts after which ``find_source`` looks elsewhere: the words are not (exactly) here.
FIND_SOURCE_VERDICTS: Final = frozenset({"NOT_FOUND", "NEAR"})


def find_source_for(
    quote: str,
    result: CheckResult,
    options: MatchOptions,
    *,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    cache: Cache | None = None,
) -> CheckResult:
    """``result`` with ``found_elsewhere``: where the quote's words verifiably are.

    Runs only for NOT_FOUND and NEAR (any other verdict is returned unchanged): first every
    cached document, then (unless ``offline``) Europe PMC phrase search and LitSense
    sentence search, each candidate fetched and verified by the matcher.  See
    :mod:`citeproof.search.finder`.  ``cache`` is a cache the caller keeps open (an audit, a
    server); without it the default cache is opened for this call.
    """
    if result.verdict not in FIND_SOURCE_VERDICTS:
        return result
    from citeproof.loading.pins import open_cache_for
    from citeproof.net.session import mode_from
    from citeproof.search.finder import find_elsewhere

    mode = mode_from(replay)
    if cache is not None:
        return find_elsewhere(quote, result, options, mode=mode, offline=offline, cache=cache)
    cache = open_cache_for(offline=offline)
    if cache is None:  # offline, and nothing was ever cached: look, but create nothing
        return find_elsewhere(quote, result, options, mode=mode, offline=True, cache=None)
    with cache:
        return find_elsewhere(quote, result, options, mode=mode, offline=offline, cache=cache)


_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


def validate_sha256(value: str | None) -> str | None:
    """The expected sha256 in lower case, or bad input if it is not 64 hex digits."""
    if value is None:
        return None
    cleaned = value.strip().lower()
    if not _SHA256_HEX.fullmatch(cleaned):
        raise BadInputError(
            f"--expect-sha256 {value!r} is not a sha256: give 64 hexadecimal digits."
        )
    return cleaned


def check_loaded(
    quote: str,
    loaded: Document | FetchFailure,
    options: MatchOptions,
    *,
    expect_sha256: str | None = None,
) -> CheckResult:
    """Check a quote against what ``load_source`` gave, applying ``expect_sha256``.

    A FetchFailure becomes UNAVAILABLE or NOT_CHECKABLE with its reason.  With an expected
    hash, ``source.fingerprint_ok`` says whether the bytes are the pinned ones; when they are
    not, nothing is matched and the verdict is NOT_CHECKABLE naming both hashes.
    """
    if not isinstance(loaded, Document):
        return failure_result(quote, loaded, options)
    expected = validate_sha256(expect_sha256)
    if expected is None:
        return check_document(quote, loaded, options)
    actual = loaded.origin.sha256 if loaded.origin is not None else None
    if actual != expected:
        reason = (
            f"the source's bytes have sha256 {actual or 'unknown'}, not the expected "
            f"{expected}; nothing was checked against them."
        )
        result = not_checkable_result(quote, loaded, reason, options)
        ok = False
    else:
        result = check_document(quote, loaded, options)
        ok = True
    source = result.source.model_copy(update={"fingerprint_ok": ok})
    return result.model_copy(update={"source": source})


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


def check_document(quote: str, document: Document, options: MatchOptions) -> CheckResult:
    """Match a quote against a loaded Document and build the public result.

    The quote is validated here too (cheap), so no caller can skip the rules; callers that
    read a source first should call ``validate_quote`` before reading, to fail fast.
    """
    validate_quote(quote)
    if not document.text.strip():
        return not_checkable_result(quote, document, no_text_reason(document), options)
    from citeproof.match.quote import find_quote

    return result_from_match(
        quote, document, find_quote(document.prepared, quote, options), options
    )


def no_text_reason(document: Document) -> str:
    """Why a Document with no text cannot be checked (a scanned PDF is the common case)."""
    if document.format == "pdf":
        return (
            "the PDF has no text layer (it is probably a scan); run OCR on it and check "
            "the recognised text."
        )
    return "the document has no text."


# --------------------------------------------------------------------------------------------
# `citeproof text`


def document_blocks(document: Document) -> list[dict[str, Any]]:
    """The blocks as plain dicts, in text order: what ``citeproof text --blocks`` prints."""
    return [
        {
            "start": b.start,
            "end": b.end,
            "kind": b.kind,
            "section": list(b.section),
            "region": b.region,
            "page": b.page,
        }
        for b in document.blocks
    ]
