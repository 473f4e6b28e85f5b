"""Every failure a user can cause or meet, as one exception tree.

The CLI prints ``str(error)`` on stderr and exits with ``error.exit_code``; the library
raises these so callers can tell bad input from an unreadable source without parsing text.

    CiteproofError                  base; exit code 2 unless a subclass says otherwise
    ├── BadInputError               the caller gave something unusable (exit 2)
    │   ├── EmptyQuoteError         the quote is empty or only whitespace
    │   ├── QuoteTooLongError       the quote is over the length cap
    │   ├── SourceNotFoundError     a path that does not exist or cannot be read
    │   ├── SourceTooLargeError     a file over the size cap
    │   ├── UnsupportedFormatError  bytes that are no format citeproof reads (binary, unknown)
    │   ├── EncodingError           text that is not valid UTF-8 / UTF-16 with BOM
    │   └── UnsafeXMLError          XML with entity declarations or other hostile constructs
    └── DocumentError               a document that parses but cannot be used (exit 2)
"""

from __future__ import annotations


class CiteproofError(Exception):
    """Base class; ``str(err)`` is a complete sentence saying what happened and what to do."""

    exit_code: int = 2


class BadInputError(CiteproofError):
    """The caller supplied something citeproof cannot use as given."""


class EmptyQuoteError(BadInputError):
    pass


class QuoteTooLongError(BadInputError):
    pass


class SourceNotFoundError(BadInputError):
    pass


class SourceTooLargeError(BadInputError):
    pass


class UnsupportedFormatError(BadInputError):
    pass


class EncodingError(BadInputError):
    pass


class UnsafeXMLError(BadInputError):
    pass


class DocumentError(CiteproofError):
    """A document was read but has a problem that stops it being used."""
