"""Issue handles for a source's passages, and resolve a handle back to its passage.

This is the I/O half of handles: it loads sources through :mod:`citeproof.loading` (so
identifiers are fetched once and pinned, as for a check), cuts and ranks passages
(:mod:`citeproof.handles.passages`), computes codes (:mod:`citeproof.handles.grammar`) with the
secret from :func:`citeproof.store.keys.handle_key`, and records every issued passage in the store
(:mod:`citeproof.store.issued`).

Decisions:

* **Only identifier sources get handles**, and only for the six handle schemes (PMID, PMCID,
  DOI, PPR, NCT, openFDA set id): a handle must name something anyone can fetch again.  A
  local file, standard input or a web page gets its passages with ``handle: null``.
* **The handle names the source as it was asked for** -- the cache key it was loaded and
  pinned under -- so resolving it reads the same pin (also ``--offline``).  A PMC version is
  in the handle (``.vN``) only when the source named one (``PMC123.2``); resolving such a
  handle loads exactly that version.
* :func:`resolve_handle` decides, in this order: ``malformed`` (it does not parse);
  ``forged`` (the code does not verify against the passage as issued, or nothing was issued
  under it here and the current passage at its path does not verify either);
  ``unavailable`` / ``unresolvable`` (the source could not be read now / every service
  answered and none had text); ``withdrawn`` (issued, but the path is gone from the current
  document); else ``ok``, with ``version_changed`` when the document's sha256 differs from
  the one the passage was issued from.  A handle issued elsewhere with the same
  ``CITEPROOF_HANDLE_KEY`` but not in this store is ``ok`` when it verifies against the
  current passage (whose text is then provably the text as issued).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from citeproof.documents.model import Document
from citeproof.errors import BadInputError, FetchFailedError, UnknownIdentifierError
from citeproof.handles.grammar import (
    SCHEMES,
    Handle,
    MalformedHandleError,
    Scheme,
    handle_for,
    parse_handle,
    passage_sha256,
    verify,
)
from citeproof.handles.passages import Passage, cut_passages, passage_at, rank_passages
from citeproof.identifiers import parse_identifier
from citeproof.loading.describe import source_info
from citeproof.loading.load import load_source
from citeproof.loading.pins import load_identifier
from citeproof.models.handle import HandleState, HandleStatus
from citeproof.models.passages import PassageItem, PassageList, PassageSource
from citeproof.store.issued import IssuedPassage, PassageStore, default_store_path
from citeproof.store.keys import handle_key
from citeproof.store.paths import default_dirs

__all__ = [
    "DEFAULT_LIMIT",
    "HandleStatus",
    "PassageItem",
    "PassageList",
    "PassageSource",
    "judge_handle",
    "passages_for",
    "resolve_handle",
]

DEFAULT_LIMIT = 20
MAX_LIMIT = 1000
#: The fields of the source record a passage list repeats.
_PASSAGE_SOURCE_FIELDS: Final = frozenset(PassageSource.model_fields)


def _key() -> bytes:
    return handle_key(default_dirs().keys)


def _source_info(document: Document) -> PassageSource:
    """The passage list's part of the one source record (:func:`source_info`)."""
    described = source_info(document).model_dump(include=set(_PASSAGE_SOURCE_FIELDS))
    return PassageSource.model_validate(described)


def _handle_target(document: Document) -> tuple[Scheme, str, int | None] | None:
    """(scheme, id, version) when the document was loaded under a handle scheme's key."""
    origin = document.origin
    if origin is None or not origin.identifier:
        return None
    try:
        ident = parse_identifier(origin.identifier)
    except UnknownIdentifierError:
        return None
    for scheme in SCHEMES:
        if ident.kind == scheme:
            return scheme, ident.value, ident.version
    return None


def _load(
    source: str | os.PathLike[str] | Document,
    *,
    offline: bool,
    refresh: bool,
    replay: str | os.PathLike[str] | None,
    files: bool,
) -> Document:
    loaded = load_source(source, offline=offline, refresh=refresh, replay=replay, files=files)
    if not isinstance(loaded, Document):
        raise FetchFailedError(loaded)
    return loaded


def passages_for(
    source: str | os.PathLike[str] | Document,
    *,
    query: str | None = None,
    limit: int = DEFAULT_LIMIT,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
    files: bool = True,
    now: Callable[[], datetime] | None = None,
) -> PassageList:
    """The passages of ``source`` (ranked by BM25 against ``query``), with handles.

    ``source`` is a path, an identifier or a Document (as for ``citeproof.load``).  Handles
    are issued, and recorded in the issued-passage store, only for identifier sources of
    the six handle schemes; other sources get ``handle: null``.  A source that gives no text
    raises ``FetchFailedError`` (exit 3 when unavailable, 1 when not checkable).
    ``files=False`` reads identifiers only (see :func:`citeproof.loading.load.load_source`).
    """
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError("limit must be an int")
    if not 1 <= limit <= MAX_LIMIT:
        raise BadInputError(f"the limit must be between 1 and {MAX_LIMIT}, not {limit}.")
    if query is not None and len(query) > 10_000:
        raise BadInputError("the query is over 10,000 characters; give a few words.")
    document = _load(source, offline=offline, refresh=refresh, replay=replay, files=files)
    passages = cut_passages(document)
    ranked = rank_passages(passages, query, limit)
    target = _handle_target(document)
    handles: list[Handle | None] = [None] * len(ranked)
    if target is not None and ranked:
        scheme, ident, version = target
        key = _key()
        try:
            handles = [
                handle_for(key, scheme, ident, r.passage.path, r.passage.text, version)
                for r in ranked
            ]
        except MalformedHandleError:  # e.g. a DOI with '~': cite it without a handle
            handles = [None] * len(ranked)
        issued = [
            (h, r.passage.text, r.passage.start, r.passage.end)
            for r, h in zip(ranked, handles, strict=True)
            if h is not None
        ]
        _record(document, issued, now)
    items = [
        PassageItem(
            handle=str(h) if h is not None else None,
            path=r.passage.path,
            kind=r.passage.kind,
            text=r.passage.text,
            section=list(r.passage.section),
            region=r.passage.region,
            page=r.passage.page,
            start=r.passage.start,
            end=r.passage.end,
            score=r.score,
        )
        for r, h in zip(ranked, handles, strict=True)
    ]
    return PassageList(
        source=_source_info(document),
        query=query,
        total=len(passages),
        passages=items,
    )


def _record(
    document: Document,
    issued: list[tuple[Handle, str, int, int]],
    now: Callable[[], datetime] | None,
) -> None:
    if not issued:
        return
    when = (now or (lambda: datetime.now(UTC)))().astimezone(UTC).isoformat()
    origin = document.origin
    rows = [
        IssuedPassage(
            handle=str(h),
            base=h.base,
            source_key=h.identifier.key,
            path=h.path,
            text=text,
            text_sha256=passage_sha256(text),
            document_sha256=origin.sha256 if origin is not None else None,
            start=start,
            end=end,
            issued_at=when,
        )
        for h, text, start, end in issued
    ]
    with PassageStore(default_store_path()) as store:
        store.record(rows)


def resolve_handle(
    handle_text: str,
    *,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
) -> HandleStatus:
    """What ``handle_text`` names now: malformed, forged, unavailable, unresolvable,
    withdrawn or ok (see the module docstring for the order and the meaning)."""
    store_path = default_store_path()

    def issued_for(handle: str) -> IssuedPassage | None:
        if not store_path.exists():
            return None
        with PassageStore(store_path) as store:
            return store.lookup(handle)

    return judge_handle(
        handle_text,
        key=_key,
        issued_for=issued_for,
        load=lambda handle: _load_handle_source(
            handle, offline=offline, refresh=refresh, replay=replay
        ),
    )


SourceFailure = tuple[Literal["unavailable", "unresolvable"], str]


def judge_handle(
    handle_text: str,
    *,
    key: Callable[[], bytes],
    issued_for: Callable[[str], IssuedPassage | None],
    load: Callable[[Handle], Document | SourceFailure],
    passages: Callable[[Document], list[Passage]] = cut_passages,
) -> HandleStatus:
    """The decision of :func:`resolve_handle`, with the store, the loading and the passage
    cutting given by the caller: an audit resolves many handles against the same few
    documents and shares those (``citeproof.audit.run``); the rules live here only."""
    try:
        handle = parse_handle(handle_text)
    except MalformedHandleError as exc:
        return HandleStatus(handle=handle_text, status="malformed", reason=exc.problem)
    secret = key()
    common: dict[str, Any] = {
        "handle": handle_text,
        "canonical": str(handle),
        "source": handle.identifier.key,
        "path": handle.path,
    }

    def status(state: HandleState, reason: str | None = None, **fields: Any) -> HandleStatus:
        return HandleStatus.model_validate({**common, "status": state, "reason": reason, **fields})

    issued = issued_for(str(handle))
    if issued is not None and not verify(secret, handle, issued.text_sha256):
        return status(
            "forged",
            "the check code does not verify against the passage as issued (the handle "
            "secret changed, or the store was altered).",
        )
    loaded = load(handle)
    if not isinstance(loaded, Document):
        kind, reason = loaded
        if issued is None:
            reason = f"not issued here, and its source could not be read to verify it: {reason}"
        return status(kind, reason, **_issued_fields(issued))
    current = passage_at(passages(loaded), handle.path)
    doc_sha = loaded.origin.sha256 if loaded.origin is not None else None
    if issued is None:
        if current is None or not verify(secret, handle, passage_sha256(current.text)):
            return status(
                "forged",
                "no passage was issued under this handle, and its check code does not verify "
                "against the passage at its path.",
                current_document_sha256=doc_sha,
            )
        return status(
            "ok",
            "not issued here; the code verifies against the current passage.",
            as_issued_text=current.text,
            as_issued_sha256=passage_sha256(current.text),
            current_text=current.text,
            current_document_sha256=doc_sha,
            start=current.start,
            end=current.end,
            text_changed=False,
        )
    changed = issued.document_sha256 != doc_sha if issued.document_sha256 and doc_sha else None
    if current is None:
        return status(
            "withdrawn",
            f"the passage {handle.path} no longer exists in the current document.",
            current_document_sha256=doc_sha,
            version_changed=changed,
            **_issued_fields(issued),
        )
    return status(
        "ok",
        current_text=current.text,
        current_document_sha256=doc_sha,
        start=current.start,
        end=current.end,
        version_changed=changed,
        text_changed=current.text != issued.text,
        **_issued_fields(issued),
    )


def _issued_fields(issued: IssuedPassage | None) -> dict[str, Any]:
    if issued is None:
        return {}
    return {
        "as_issued_text": issued.text,
        "as_issued_sha256": issued.text_sha256,
        "issued_at": issued.issued_at,
        "issued_document_sha256": issued.document_sha256,
    }


def _load_handle_source(
    handle: Handle, *, offline: bool, refresh: bool, replay: str | os.PathLike[str] | None
) -> Document | tuple[Literal["unavailable", "unresolvable"], str]:
    """The current document the handle names (its pinned PMC version, if any), or why not."""
    loaded = load_identifier(
        handle.identifier,
        offline=offline,
        refresh=refresh,
        replay_dir=Path(replay) if replay is not None else None,
    )
    if isinstance(loaded, Document):
        return loaded
    return ("unavailable" if loaded.kind == "unavailable" else "unresolvable"), loaded.reason
