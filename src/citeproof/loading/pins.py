"""From an identifier to a Document: the pinned bytes if there are any, else the chain.

:func:`citeproof.loading.load.load_source` hands every source that is not a file but names a
work (DOI, PMID, PMCID, NCT number, openFDA set id, PPR id, URL) to :func:`load_identifier`,
which puts the cache rules in one place:

* The cache key is ``Identifier.key``.  Unless ``refresh`` is asked for, a pinned entry is
  used as is and **no request is made**: a check repeated later (or ``--offline``) runs
  against exactly the bytes the first check read.
* Otherwise the best-available-text chain (:func:`citeproof.loading.chain.resolve`) runs and
  the bytes it fetched are pinned, with what the result reports about them (served by,
  coverage, version, md5, URL, retrieval time) kept in the pin.
* A source that serves nothing is an answer, not an error: :class:`FetchFailure` carries the
  verdict (``unavailable``: nothing may be concluded; ``not_checkable``: every source
  answered and none has text) and the reason, and the check's match step turns it into a
  result.
* Replayed responses (``replay_dir`` or ``CITEPROOF_REPLAY``) serve both the API client and
  the SSRF-guarded page fetchers, so a recorded chain is repeated without the network (see
  :mod:`citeproof.net.session`).  Under ``citeproof record`` every identifier is fetched
  again, as with ``refresh``: a pinned copy would leave nothing to record.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from citeproof.documents import parse
from citeproof.documents.model import Document, Origin
from citeproof.errors import BadInputError, FetchFailedError
from citeproof.loading.chain import resolve
from citeproof.loading.failure import FetchFailure
from citeproof.loading.memo import parsed, peek
from citeproof.net.session import mode_from, open_session
from citeproof.store.cache import Cache
from citeproof.store.paths import default_dirs

if TYPE_CHECKING:
    from citeproof.identifiers import Identifier
    from citeproof.loading.chain import Resolution
    from citeproof.net.session import Mode
    from citeproof.store.cache import Cache
    from citeproof.store.cache_records import Pin, PinResult

__all__ = [
    "FetchFailedError",
    "FetchFailure",
    "document_for_pin",
    "load_identifier",
    "open_cache",
    "open_cache_for",
    "pinned_bytes",
]

_COVERAGES: Final = frozenset({"full_text", "abstract", "page", "file", "text"})


def _utc_now() -> datetime:
    return datetime.now(UTC)


def open_cache() -> Cache:
    return Cache(default_dirs().cache_db)


def open_cache_for(*, offline: bool) -> Cache | None:
    """The default cache for a process that keeps one open across many loads (a server, an
    audit); None offline while there is none, because offline never creates a cache."""
    if offline and not _default_cache_exists():
        return None
    return open_cache()


def _default_cache_exists() -> bool:
    return default_dirs().cache_db.exists()


def _offline_miss(identifier: Identifier) -> FetchFailure:
    return FetchFailure(
        "unavailable",
        f"{identifier.key} is not in the cache and --offline forbids fetching it; "
        "run once without --offline (or import a cache export).",
        identifier.raw or identifier.key,
        identifier.key,
    )


def _degraded(pin: Pin) -> tuple[str, ...]:
    """The failed better sources a pin records (a fallback's), as ``"source: reason"``."""
    steps = pin.meta.get("degraded")
    if not isinstance(steps, list):
        return ()
    return tuple(f"{s.get('source')}: {s.get('reason')}" for s in steps if isinstance(s, dict))


def _origin(
    pin: Pin,
    shown: str,
    refreshed_from: str | None = None,
    degraded: tuple[str, ...] | None = None,
) -> Origin:
    coverage = pin.meta.get("coverage")
    md5_ok = pin.meta.get("md5_ok")
    return Origin(
        input=shown,
        coverage=coverage if coverage in _COVERAGES else "page",
        sha256=pin.sha256,
        identifier=pin.key,
        served_by=pin.served_by,
        version=pin.version,
        md5_ok=md5_ok if isinstance(md5_ok, bool) else None,
        url=pin.url,
        retrieved_at=pin.retrieved_at,
        refreshed_from=refreshed_from,
        degraded=_degraded(pin) if degraded is None else degraded,
    )


def document_for_pin(pin: Pin, data: bytes) -> Document:
    """A pinned document for a scan over the cache (``--find-source``).

    The parse memo is read but not filled: a scan over hundreds of documents would
    otherwise evict the few a process is actually checking against.
    """
    memo = peek(pin.sha256)
    document = memo if memo is not None else parse(data, name=None)
    return document.with_origin(_origin(pin, pin.key))


def _pin(cache: Cache, identifier: Identifier, resolution: Resolution, when: datetime) -> PinResult:
    fetched = resolution.fetched
    assert fetched is not None  # only a resolution that served text is pinned
    meta: dict[str, Any] = {"coverage": fetched.coverage, "md5_ok": fetched.md5_ok}
    if resolution.degraded:  # a fallback: retried on the next check (see pinned_bytes)
        meta["degraded"] = [
            {"source": s.source, "reason": s.reason or s.outcome_kind} for s in resolution.degraded
        ]
    if fetched.licence:
        meta["licence"] = fetched.licence
    if fetched.title:
        meta["title"] = fetched.title
    return cache.pin(
        identifier.key,
        fetched.data,
        retrieved_at=when.astimezone(UTC).isoformat(),
        version=fetched.version,
        url=fetched.url,
        served_by=fetched.served_by,
        media_type=fetched.media_type,
        meta=meta,
    )


def _resolve(identifier: Identifier, mode: Mode) -> Resolution:
    async def run() -> Resolution:
        async with open_session(mode) as session:
            return await resolve(identifier, session.client, web_options=session.web_options)

    return asyncio.run(run())


def _failure(identifier: Identifier, resolution: Resolution) -> FetchFailure:
    kind: Literal["unavailable", "not_checkable"] = (
        "unavailable" if resolution.verdict_hint == "unavailable" else "not_checkable"
    )
    reason = resolution.reason or "no source could serve text for this identifier"
    return FetchFailure(
        kind, reason, identifier.raw or identifier.key, identifier.key, dict(resolution.ids)
    )


def load_identifier(
    identifier: Identifier,
    *,
    offline: bool = False,
    refresh: bool = False,
    replay_dir: Path | None = None,
    cache: Cache | None = None,
    now: Callable[[], datetime] | None = None,
) -> Document | FetchFailure:
    """The Document for ``identifier`` (pinned bytes first), or why there is none.

    ``offline`` forbids any request (an unpinned identifier is then UNAVAILABLE);
    ``refresh`` fetches again even when pinned and re-pins; the Document's
    ``origin.refreshed_from`` then names the sha256 pinned before, so the result can say
    whether the bytes changed.  ``replay_dir`` (default:
    ``CITEPROOF_REPLAY``) answers every request from recorded responses.  ``cache``
    defaults to the one under :func:`citeproof.store.paths.default_dirs`.
    """
    found = pinned_bytes(
        identifier, offline=offline, refresh=refresh, replay_dir=replay_dir, cache=cache, now=now
    )
    if isinstance(found, FetchFailure):
        return found
    data, origin = found
    assert origin.sha256 is not None  # a pin always names its bytes

    return parsed(origin.sha256, data).with_origin(origin)


def pinned_bytes(
    identifier: Identifier,
    *,
    offline: bool = False,
    refresh: bool = False,
    replay_dir: Path | None = None,
    cache: Cache | None = None,
    now: Callable[[], datetime] | None = None,
) -> tuple[bytes, Origin] | FetchFailure:
    """The pinned bytes for ``identifier`` and where they came from, fetching if need be.

    The same rules as :func:`load_identifier`, without parsing: batch ships the bytes to
    worker processes (or cluster machines), which parse them there.  A pin that is a fallback
    (a better source failed when it was fetched) is not used as is: the chain runs again, and
    only when it fails again is the fallback returned, still marked ``degraded``.  Offline it
    is used, marked.
    """
    if offline and refresh:
        raise BadInputError("--offline and --refresh contradict each other; give one of them.")

    mode = mode_from(replay_dir)
    if mode.record is not None:
        if offline:
            raise BadInputError("--offline cannot be recorded: it makes no request.")
        refresh = True
    if cache is None and offline and not _default_cache_exists():
        return _offline_miss(identifier)  # no cache at all: do not create one just to look
    own_cache = cache is None
    store = open_cache() if cache is None else cache
    shown = identifier.raw or identifier.key
    try:
        earlier = None if refresh else store.lookup(identifier.key)
        if earlier is not None and (offline or not _degraded(earlier)):
            return store.get_blob(earlier.sha256), _origin(earlier, shown)
        if offline:
            return _offline_miss(identifier)
        resolution = _resolve(identifier, mode)
        if resolution.fetched is None:
            if earlier is not None:  # the fallback pinned before is still the best there is
                failed = tuple(
                    f"{s.source}: {s.reason or s.outcome_kind}" for s in resolution.failed
                )
                degraded = failed or _degraded(earlier)
                return store.get_blob(earlier.sha256), _origin(earlier, shown, None, degraded)
            return _failure(identifier, resolution)
        pinned = _pin(store, identifier, resolution, (now or _utc_now)())
        pin = store.lookup(identifier.key)
        assert pin is not None  # just pinned
        # Only a refresh of an earlier pin reports a change: a first fetch has nothing to
        # compare with.
        before = pinned.previous_sha256 if refresh else None
        return store.get_blob(pin.sha256), _origin(pin, shown, before)
    finally:
        if own_cache:
            store.close()
