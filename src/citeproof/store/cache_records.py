"""What the source cache hands out and refuses with: its records, errors and value checks.

Kept apart from :mod:`citeproof.store.cache` (the SQLite store itself) so the export format
(:mod:`citeproof.store.archive`) and callers can use the records without the store, and
each module stays small.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from citeproof.errors import (
    CacheCorruptError,
    CacheError,
    CacheImportError,
    CacheMissError,
)
from citeproof.redact import strip_secret_params

__all__ = [
    "DEFAULT_MEDIA_TYPE",
    "CacheCorruptError",
    "CacheError",
    "CacheImportError",
    "CacheMissError",
    "ImportReport",
    "Pin",
    "PinConflict",
    "PinResult",
    "PruneResult",
    "check_sha256",
    "meta_to_json",
    "normalize_timestamp",
    "parse_utc",
    "scrub_meta",
    "sha256_hex",
]

_SHA256_RE = re.compile(r"[0-9a-f]{64}")


# --------------------------------------------------------------------------- errors


# --------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Pin:
    """Which bytes a source key resolved to, and where and when they came from."""

    key: str
    sha256: str
    size: int
    media_type: str
    version: str | None
    retrieved_at: str
    url: str | None
    served_by: str | None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PinResult:
    """What :meth:`Cache.pin` did.

    ``changed`` is true only when the key was pinned before *and* to different bytes, which
    is what ``--refresh`` reports; a first pin has ``previous_sha256 = None`` and
    ``changed = False``.
    """

    sha256: str
    changed: bool
    previous_sha256: str | None

    @property
    def is_new(self) -> bool:
        """True when the key had no pin before."""
        return self.previous_sha256 is None


@dataclass(frozen=True, slots=True)
class PruneResult:
    """What :meth:`Cache.prune` removed."""

    pins_removed: int
    blobs_removed: int
    bytes_freed: int


@dataclass(frozen=True, slots=True)
class PinConflict:
    """An imported pin whose key is already pinned here to different bytes."""

    key: str
    existing_sha256: str
    incoming_sha256: str
    replaced: bool


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What :meth:`Cache.import_from` did; conflicts are listed, never resolved silently."""

    blobs_added: int
    pins_added: int
    pins_unchanged: int
    conflicts: tuple[PinConflict, ...]


# --------------------------------------------------------------------------- helpers


def sha256_hex(data: bytes) -> str:
    """The lowercase hex sha256 of ``data``: the blob's identity."""
    return hashlib.sha256(data).hexdigest()


def scrub_meta(value: Any) -> Any:
    """Strip secrets from every URL-looking string inside a JSON value."""
    if isinstance(value, str):
        if value.startswith(("http://", "https://")):
            return strip_secret_params(value)
        return value
    if isinstance(value, Mapping):
        return {str(k): scrub_meta(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_meta(v) for v in value]
    return value


def normalize_timestamp(value: str) -> str:
    """Parse an ISO 8601 timestamp with a time zone and return it in UTC with a ``Z``.

    A time zone is required: a naive time is ambiguous, and pins are compared by age.
    """
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise CacheError(
            f"retrieved_at {value!r} is not an ISO 8601 timestamp; "
            "pass e.g. '2026-01-31T12:00:00Z'."
        ) from exc
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        raise CacheError(
            f"retrieved_at {value!r} has no time zone; pass a UTC time such as "
            "'2026-01-31T12:00:00Z'."
        )
    return parsed.astimezone(UTC).isoformat().replace("+00:00", "Z")


def parse_utc(value: str) -> datetime:
    """A stored (normalised) timestamp as an aware UTC datetime, for age comparisons."""
    return datetime.fromisoformat(value).astimezone(UTC)


def check_sha256(value: object) -> str:
    """``value`` if it is a lowercase hex sha256 (a blob key); else :class:`CacheError`."""
    if not isinstance(value, str) or not _SHA256_RE.fullmatch(value):
        raise CacheError(f"{value!r} is not a lowercase hex sha256.")
    return value


#: The media type of bytes whose type nobody said.
DEFAULT_MEDIA_TYPE = "application/octet-stream"


def meta_to_json(meta: Mapping[str, Any] | None) -> str:
    """A pin's metadata as the JSON the cache stores (secrets scrubbed, keys sorted)."""
    try:
        return json.dumps(
            scrub_meta(dict(meta or {})),
            sort_keys=True,
            ensure_ascii=False,
            allow_nan=False,
            separators=(",", ":"),
        )
    except (TypeError, ValueError) as exc:
        raise CacheError(f"Pin metadata must be plain JSON: {exc}.") from exc
