"""What is text around an identifier rather than part of it, and the DOI and URL forms that
only context can end.  Pure: no I/O.

Why apart from the kinds: a DOI or a URL has no fixed length, so where it ends is decided by
what follows it (a sentence's full stop, a closing bracket, a query); the whole-string parser,
the running-text finder and the kinds' canonical forms must all decide it the same way.

* A DOI is cut at the first ``?`` or ``#`` (a query or fragment that followed it), then trailing
  sentence punctuation, quotes and *unbalanced* closing brackets are trimmed; balanced brackets
  inside (``10.1016/s0140-6736(97)11096-0``) stay.  DOIs that genuinely end in ``.``/``:``/``;`` or
  contain ``?``/``#`` are vanishingly rare; pass such a DOI as a doi.org URL with the character
  percent-encoded (decoding happens after the cut, so ``%3F`` survives).
* URLs with ``user:password@`` are refused here, early; the network layer refuses them again.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from citeproof.identifiers.refusal import refuse

__all__ = [
    "ASCII_LOWER",
    "DOI_PREFIX",
    "DOI_PREFIX_RE",
    "UUID",
    "canonical_doi",
    "cut_query",
    "positive_int",
    "trim_trailing",
    "unwrap",
    "url_problem",
    "validate_url",
]

# Registrant code: 4-9 digits (Crossref's own pattern) or an ISBN-A prefix (10.978.x / 10.979.x),
# optionally with sub-prefixes (10.1000.10/...).
DOI_PREFIX = r"10\.(?:\d{4,9}|97[89]\.\d+)(?:\.\d+)*/"
DOI_PREFIX_RE = re.compile(DOI_PREFIX, re.ASCII)

#: A UUID as openFDA and DailyMed write an SPL set id (match it case-insensitively).
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

# Quotes and sentence punctuation never end a DOI or URL; opening brackets at the end are junk.
_TRAILING_JUNK = frozenset(".,;:!?'\"`“”‘’«»…")
_OPENERS = frozenset("([{<")
_CLOSER_TO_OPENER = {")": "(", "]": "[", "}": "{", ">": "<"}
_OPENER_TO_CLOSER = {opener: closer for closer, opener in _CLOSER_TO_OPENER.items()}
_LEADING_JUNK = frozenset("([{<\"'`“‘«")

_QUERY_RE = re.compile(r"[?#]")
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_CONTROL_RE = re.compile(r"[\x00-\x20\x7f]")


def trim_trailing(text: str) -> str:
    """Drop trailing punctuation, quotes and closing brackets that have no opener inside.

    Why count rather than always strip: ``10.1016/s0140-6736(97)11096-0`` ends in a digit but
    ``10.1002/abc(1)`` ends in a bracket that belongs to it; only an unmatched one is context.
    """
    # Counts are taken once and updated as characters go, so a hostile run of ")))..." costs
    # linear time, not quadratic.
    balance = {
        closer: text.count(closer) - text.count(opener)
        for closer, opener in _CLOSER_TO_OPENER.items()
    }
    end = len(text)
    while end:
        last = text[end - 1]
        if last in _TRAILING_JUNK or last in _OPENERS:
            if last in _OPENER_TO_CLOSER:
                balance[_OPENER_TO_CLOSER[last]] += 1
            end -= 1
            continue
        if last in balance and balance[last] > 0:
            balance[last] -= 1
            end -= 1
            continue
        break
    return text[:end]


def unwrap(text: str) -> str:
    """Strip whitespace and leading brackets/quotes (``<https://...>``, ``(doi:...)``).

    No identifier starts with one, so they are always context; the matching closers, if any,
    go with the trailing trim, which keeps brackets balanced *inside* the identifier.
    """
    text = text.strip()
    while text and text[0] in _LEADING_JUNK:
        text = text[1:].lstrip()
    return text


def cut_query(text: str) -> str:
    """Cut at the first ``?`` or ``#``: a URL query or fragment is never part of a DOI."""
    return _QUERY_RE.split(text, maxsplit=1)[0]


def canonical_doi(body: str, *, from_url: bool) -> str | None:
    """Canonical DOI from the text after any ``doi:``/URL prefix, or None if it is not one.

    Order matters: cut the query, trim context, *then* percent-decode (URLs only), so an
    encoded ``%29`` or ``%3F`` that really is part of the DOI survives.  Bare DOIs are not
    decoded: a literal ``%`` in a DOI is legal, and decoding would break idempotence.  The
    value is ASCII-lower-cased, because DOIs are case-insensitive for ASCII letters only (DOI
    Handbook 2.4); other letters are left alone.
    """
    body = trim_trailing(cut_query(body))
    if from_url:
        body = unquote(body)
    prefix = DOI_PREFIX_RE.match(body)
    if prefix is None or _CONTROL_RE.search(body) or '"' in body:
        return None
    if prefix.end() >= len(body):
        return None  # "10.1234/" with no suffix
    return body.translate(ASCII_LOWER)


def positive_int(digits: str) -> str | None:
    """Digits without leading zeros, or None for zero (no PMID/PMCID is 0)."""
    stripped = digits.lstrip("0")
    return stripped or None


def url_problem(url: str, raw: str) -> str | None:
    """Why ``url`` can never be fetched (no host, whitespace or control characters,
    credentials), as the message that refuses ``raw``; None when it can be."""
    if _CONTROL_RE.search(url) or any(ch.isspace() for ch in url):
        return f"{raw!r} is not a valid URL (it contains spaces)."
    try:
        parts = urlsplit(url)
        _ = parts.port  # raises ValueError for a malformed port
    except ValueError as exc:
        return f"{raw!r} is not a valid URL ({exc})."
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return f"{raw!r} is not a valid http(s) URL (no host)."
    if parts.username is not None or parts.password is not None:
        return f"{raw!r} contains a user name or password; remove them from the URL."
    return None


def validate_url(url: str, raw: str) -> None:
    """Refuse what can never be fetched (:func:`url_problem`) as bad input."""
    problem = url_problem(url, raw)
    if problem is not None:
        raise refuse(raw, problem)
