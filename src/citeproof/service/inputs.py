"""The rules for what a check is given: the quote, the matcher's options, an expected hash.

Checked before any source is read, so bad input fails fast and the same way from every
interface; a value out of range is bad input (exit 2), a value of the wrong type is a bug in
the caller (``TypeError``).
"""

from __future__ import annotations

import re
from typing import Final

from citeproof.documents import decode_text
from citeproof.errors import BadInputError, EmptyQuoteError, EncodingError, QuoteTooLongError
from citeproof.match.normalize import normalize
from citeproof.match.types import DEFAULT_MAX_GAP, DEFAULT_NEAR_THRESHOLD, MatchOptions

__all__ = [
    "MAX_QUOTE_CHARS",
    "PROFILES",
    "decode_text",
    "match_options",
    "quote_too_long",
    "validate_quote",
    "validate_sha256",
]

MAX_QUOTE_CHARS: Final = 100_000
PROFILES: Final = ("t1", "t1+dehyphen")

_SHA256_HEX = re.compile(r"[0-9a-f]{64}")


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
    if not quote.strip() or not normalize(quote):
        raise EmptyQuoteError("the quote is empty; give the words to look for.")


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
