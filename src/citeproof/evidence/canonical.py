"""Canonical JSON: the one byte string a JSON value is hashed and logged as.

Why: an evidence-log entry's hash is the SHA-256 of its line, and anyone re-checking the log
must be able to rebuild exactly those bytes from the parsed object.  So a value has ONE
serialisation: keys sorted, separators ``,`` and ``:`` with no spaces, non-ASCII characters
written as UTF-8 (not ``\\u`` escapes), and the whole encoded as UTF-8.

Decisions:

* **Only JSON's own types** are accepted: ``None``, ``bool``, ``int``, ``float``, ``str``,
  lists/tuples and dicts with string keys.  Anything else (a ``datetime``, a ``Path``, a
  ``set``, an ``int`` dict key that ``json`` would silently turn into a string) raises
  :class:`CanonicalJSONError`, so the caller converts it deliberately.
* **NaN and infinities are refused**: they are not JSON, and another reader would choke.
* **Finite floats are allowed**.  Python writes the shortest representation that reads back
  to the same float, so ``canonical(json.loads(canonical(x)))`` is stable; other languages
  may print some floats differently, so callers that need cross-language re-hashing should
  prefer integers or strings for numbers that matter (the log itself uses none).
* **Lone surrogates are refused** (they cannot be encoded as UTF-8).
"""

from __future__ import annotations

import json
import math
from typing import Any

from citeproof.errors import CanonicalJSONError

__all__ = ["CanonicalJSONError", "canonical_bytes", "canonical_text"]

MAX_DEPTH = 64
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def _check(value: Any, where: str, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise CanonicalJSONError(f"{where} is nested more than {MAX_DEPTH} levels deep.")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CanonicalJSONError(
                f"{where} is {value!r}, which JSON cannot represent; use null or a string."
            )
        return
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            _check(item, f"{where}[{i}]", depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise CanonicalJSONError(
                    f"{where} has the key {key!r} ({type(key).__name__}); JSON keys are "
                    "strings, so convert it first."
                )
            _check(item, f"{where}[{key!r}]", depth + 1)
        return
    raise CanonicalJSONError(
        f"{where} is a {type(value).__name__}, which is not a JSON type; convert it to a "
        "string, number, list or object first."
    )


def canonical_text(value: Any, *, checked: bool = False) -> str:
    """The canonical JSON text of ``value`` (``checked=True`` skips the type walk)."""
    if not checked:
        _check(value, "the value", 0)
    return _ENCODER.encode(value)


def canonical_bytes(value: Any, *, checked: bool = False) -> bytes:
    """The canonical JSON of ``value`` as UTF-8 bytes."""
    text = canonical_text(value, checked=checked)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise CanonicalJSONError(
            "the value holds a lone surrogate character, which UTF-8 cannot encode; "
            "decode the text properly first."
        ) from exc
