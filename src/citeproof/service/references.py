"""The door to reference verification: read a reference list, verify every entry, record it.

Every interface verifies references through :func:`verify_references` (``citeproof refs``,
the MCP tool ``verify_references``, the audit, a batch, ``citeproof.verify_references``), so
each one pins the same answers, records the same evidence-log lines and decides the same
verdicts.

The client: live (or replayed / recorded, as every command chooses with ``--replay`` and
``citeproof record``) with the pinning hook on it; ``offline`` serves the pins only and
makes no request at all.  One ``reference`` line per entry goes to the evidence log when
``log`` is asked, naming every request and the sha256 of each answer.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from citeproof.errors import ReferenceListError
from citeproof.loading.files import read_bytes
from citeproof.loading.pins import open_cache_for
from citeproof.models.references import ReferenceResult, ReferencesReport
from citeproof.net.client import make_client
from citeproof.net.ratelimit import RateLimiter
from citeproof.net.session import mode_from, open_session
from citeproof.refs.csl import from_csl_item
from citeproof.refs.formats import Format, read_references
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.pinning import PinnedTransport, Pinner
from citeproof.refs.stated import StatedReference
from citeproof.refs.verification import Reachability, Retraction, count, verify_all
from citeproof.service.logbook import open_log
from citeproof.sources.retractionwatch import default_db_path
from citeproof.store.cache import Cache

__all__ = [
    "MAX_REFERENCES",
    "REFERENCE_KIND",
    "ReferenceInput",
    "read_reference_file",
    "stated_reference",
    "verify_references",
    "verify_stated",
]

#: The evidence-log kind of a reference verification.
REFERENCE_KIND = "reference"
#: Most references one call verifies (a manuscript has tens; a batch splits bigger lists).
MAX_REFERENCES = 10_000

ReferenceInput = str | Mapping[str, Any] | StatedReference
"""A reference string, a CSL-JSON item, or an already-read reference."""


class _Unlimited(RateLimiter):
    """Offline answers come from the local cache: no service is being asked."""

    def reserve(self, key: str, interval: float) -> float:
        return 0.0


class _Share(RateLimiter):
    """One of ``n`` processes verifying at once: each keeps ``1/n`` of every service's rate,
    so that together they keep the pace one process would."""

    def __init__(self, share: float) -> None:
        super().__init__()
        self.stretch = 1.0 / share

    def reserve(self, key: str, interval: float) -> float:
        return super().reserve(key, interval * self.stretch)


def stated_reference(item: ReferenceInput, index: int = 1) -> StatedReference:
    """One input as a :class:`StatedReference`; raises ``ReferenceListError`` if unusable."""
    if isinstance(item, StatedReference):
        return item
    if isinstance(item, str):
        if not item.strip():
            raise ReferenceListError(f"Reference {index} is empty; give its text.")
        return parse_reference_string(item.strip(), label=None, where=f"entry {index}")
    if isinstance(item, Mapping):
        try:
            return from_csl_item(dict(item))
        except ValueError as exc:
            raise ReferenceListError(f"Reference {index}: {exc}") from None
    raise ReferenceListError(
        f"Reference {index} is a {type(item).__name__}; give a string or a CSL-JSON object."
    )


def read_reference_file(
    path: str | os.PathLike[str], fmt: Format | None = None, *, limit: int | None = None
) -> tuple[Format, list[StatedReference]]:
    """The references of a file (BibTeX, RIS, CSL-JSON, JATS, PDF, an answer, a list);
    with ``limit``, at most one more than that (the caller refuses a longer list)."""
    try:  # the bytes handed over, not kept: the reader lets them go once decoded
        found_fmt, refs = read_references(read_bytes(path), os.fspath(path), fmt, limit=limit)
    except ValueError as exc:
        raise ReferenceListError(f"{os.fspath(path)}: {exc}") from None
    if not refs:
        raise ReferenceListError(
            f"{os.fspath(path)} holds no references (read as {found_fmt}); give a "
            "bibliography, a reference list or a document with a references section."
        )
    return found_fmt, refs


async def _run(
    refs: Sequence[StatedReference],
    *,
    offline: bool,
    replay: str | os.PathLike[str] | None,
    retraction: bool,
    cache: Cache | None,
    concurrency: int,
    on_result: Callable[[ReferenceResult], None] | None,
    start: int,
    today: date,
    rate_share: float,
    reach: Reachability | None,
) -> list[ReferenceResult]:
    ask = Retraction(rw_db=default_db_path(), today=today) if retraction else None
    async with AsyncExitStack() as stack:
        if offline:
            # No contact address: nothing is sent, and adding it to each URL costs time.
            client = await stack.enter_async_context(
                make_client(
                    transport=PinnedTransport(cache), limiter=_Unlimited(), attempts=1,
                    contact="", api_key="",
                )
            )  # fmt: skip
        else:
            mode = mode_from(os.fspath(replay) if replay is not None else None)
            limiter = None if rate_share >= 1.0 else _Share(rate_share)
            session = await stack.enter_async_context(open_session(mode, limiter=limiter))
            client = session.client
        pinner = Pinner(None if offline else cache)
        hooks = client.event_hooks
        client.event_hooks = {**hooks, "response": [*hooks.get("response", []), pinner.hook]}
        return await verify_all(
            client, refs, retraction=ask, start=start, concurrency=concurrency,
            on_result=on_result, reach=reach,
        )  # fmt: skip


def verify_stated(
    refs: Sequence[StatedReference],
    *,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    retraction: bool = True,
    log: bool | str | os.PathLike[str] = False,
    concurrency: int = 8,
    on_result: Callable[[ReferenceResult], None] | None = None,
    start: int = 1,
    today: date | None = None,
    source: str | None = None,
    fmt: str | None = None,
    rate_share: float = 1.0,
    reach: Reachability | None = None,
) -> ReferencesReport:
    """Verify already-read references; the ``citeproof.references/1`` report.

    ``rate_share`` is this process's part of every service's rate limit, when several
    processes verify at once (a Dask cluster): 0.5 for one of two.  ``reach`` is shared by
    the calls of one run that verifies a long list in parts, so that without a network the
    run stops asking once (:class:`~citeproof.refs.verification.Reachability`).
    """
    if len(refs) > MAX_REFERENCES:
        raise ReferenceListError(
            f"{len(refs)} references are more than {MAX_REFERENCES} in one call; split the list."
        )
    cache = open_cache_for(offline=offline)
    try:
        results = asyncio.run(
            _run(
                refs, offline=offline, replay=replay, retraction=retraction, cache=cache,
                concurrency=concurrency, on_result=on_result, start=start,
                today=today or datetime.now(UTC).date(), rate_share=rate_share, reach=reach,
            )
        )  # fmt: skip
    finally:
        if cache is not None:
            cache.close()
    if log is not False:
        evidence = open_log(None if log is True else log)
        entries = evidence.append_many((REFERENCE_KIND, r.log_payload()) for r in results)
        results = [
            r.model_copy(update={"log_seq": e.seq}) for r, e in zip(results, entries, strict=True)
        ]
    return ReferencesReport(
        source=source, format=fmt, references=results, counts=count(results), offline=offline
    )


def verify_references(
    references: Iterable[ReferenceInput] | str | os.PathLike[str],
    *,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    retraction: bool = True,
    log: bool | str | os.PathLike[str] = False,
    concurrency: int = 8,
    today: date | None = None,
) -> ReferencesReport:
    """Verify every reference: strings, CSL-JSON items, or the path of a reference list.

    Each gets one verdict (``unresolvable``, ``mismatch``, ``unavailable``, ``not_found``,
    ``partial``, ``ambiguous``, ``verified``) with the record compared, every field's score,
    the work the stated metadata describes when the identifier names another, and the
    retraction status of the matched work.  ``offline`` answers from pins only; ``log``
    records one evidence-log line per reference (``True``: the default log).
    """
    if isinstance(references, str | os.PathLike) and (
        not isinstance(references, str) or Path(references).is_file()
    ):
        fmt, refs = read_reference_file(references)
        source: str | None = os.fspath(references)
    elif isinstance(references, str):
        raise ReferenceListError(
            f"{references[:60]!r} is not a file; pass a list of references or a file's path."
        )
    else:
        refs = [stated_reference(item, i) for i, item in enumerate(references, 1)]
        fmt, source = None, None
    return verify_stated(
        refs, offline=offline, replay=replay, retraction=retraction, log=log,
        concurrency=concurrency, today=today, source=source, fmt=fmt,
    )  # fmt: skip
