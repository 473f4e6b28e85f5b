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

from citeproof.errors import ReferenceListError, UnknownIdentifierError
from citeproof.identifiers import parse_identifier
from citeproof.loading.files import read_bytes
from citeproof.loading.pins import open_cache_for
from citeproof.models.references import ReferenceResult, ReferencesReport
from citeproof.net.client import make_client
from citeproof.net.ratelimit import RateLimiter
from citeproof.net.session import mode_from, open_session
from citeproof.refs.csl import csl_problem, from_csl_item
from citeproof.refs.formats import Format, ReadReferences, read_reference_list
from citeproof.refs.kinds import isbns_in
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.lookup import LocalCatalogue, Sources
from citeproof.refs.pinning import PinnedTransport, Pinner
from citeproof.refs.stated import StatedReference
from citeproof.refs.verification import Reachability, Retraction, count, verify_all
from citeproof.service.logbook import open_log
from citeproof.sources.retractionwatch import default_db_path
from citeproof.store.cache import Cache

__all__ = [
    "INDEX_ENV",
    "MAX_REFERENCES",
    "REFERENCE_KIND",
    "ReferenceInput",
    "Verifier",
    "check_something_to_look_up",
    "index_path",
    "open_local_index",
    "read_list_file",
    "read_reference_file",
    "reading_lines",
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
        problem = csl_problem(item)
        if problem is not None:
            raise ReferenceListError(f"Reference {index} is an object that {problem}.")
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
    read = read_list_file(path, fmt, limit=limit)
    return read.format, read.references


def read_list_file(
    path: str | os.PathLike[str], fmt: Format | None = None, *, limit: int | None = None
) -> ReadReferences:
    """:func:`read_reference_file`, with what reading found wrong with the list.

    A file none of whose entries names anything to look up is refused
    (:func:`check_something_to_look_up`): it is the wrong file, or a list of citation keys.
    """
    name = os.fspath(path)
    try:  # the bytes handed over, not kept: the reader lets them go once decoded
        read = read_reference_list(read_bytes(path), name, fmt, limit=limit)
    except ValueError as exc:
        raise ReferenceListError(f"{name}: {exc}") from None
    if not read.references:
        raise ReferenceListError(
            f"{name} holds no references (read as {read.format}); give a "
            "bibliography, a reference list or a document with a references section."
        )
    if limit is None or len(read.references) <= limit:  # past it the caller refuses the list
        check_something_to_look_up(read.references, name)
    return read


def reading_lines(name: str, problems: Iterable[str]) -> list[str]:
    """What reading ``name`` found wrong, one line each, naming the file (a run may read
    several)."""
    return [f"{name}: {problem}" for problem in problems]


#: Entries quoted when a list names nothing to look up.
_SHOWN = 2


def check_something_to_look_up(refs: Sequence[StatedReference], what: str) -> None:
    """Refuse a list in which no entry names anything to look up (bad input, one line).

    Why: each such entry would be ``unchecked``, and a run that checks nothing would end in
    exit 0, as if the list had been verified.  An entry names something when it has an
    identifier, a title or words to search for (``StatedReference.is_empty``), or a URL, an
    ISBN or another identifier a person can look up.  An empty list is not refused here.
    """
    if not refs or any(_names_something(r) for r in refs):
        return
    shown = "; ".join(_only(r, n) for n, r in enumerate(refs[:_SHOWN], 1))
    more = f" (and {len(refs) - _SHOWN:,} more like them)" if len(refs) > _SHOWN else ""
    raise ReferenceListError(
        f"no entry of {what} names anything to look up: {shown}{more}; give each reference's "
        "DOI, PMID or PMCID, or its authors, title and year."
    )


def _names_something(ref: StatedReference) -> bool:
    others = [key for key in ref.extra_ids if key not in ref.malformed_ids]
    return not ref.is_empty or bool(others) or bool(isbns_in(ref.text))


def _only(ref: StatedReference, n: int) -> str:
    where = ref.where or f"entry {n}"
    text = " ".join(ref.text.split())
    said = f"{where} is only {text[:60]!r}" if text else f"{where} is empty"
    why = [_malformed(raw) for raw in ref.malformed_ids]
    return said + (f" ({'; '.join(why)})" if why else "")


def _malformed(raw: str) -> str:
    try:
        parse_identifier(raw)
    except UnknownIdentifierError as err:
        return err.reason.rstrip(".")
    return f"{raw!r} is not an identifier citeproof looks up"


async def _run(
    refs: Sequence[StatedReference],
    *,
    offline: bool,
    replay: str | os.PathLike[str] | None,
    ask: Retraction | None,
    cache: Cache | None,
    concurrency: int,
    on_result: Callable[[ReferenceResult], None] | None,
    start: int,
    rate_share: float,
    reach: Reachability | None,
    index: LocalCatalogue | None = None,
) -> list[ReferenceResult]:
    sources = Sources(index=index, network=not offline) if index is not None else None
    async with AsyncExitStack() as stack:
        if offline:
            # No contact address: nothing is sent, and adding it to each URL costs time.
            client = await stack.enter_async_context(
                make_client(
                    transport=PinnedTransport(cache),
                    limiter=_Unlimited(),
                    attempts=1,
                    contact="",
                    api_key="",
                )
            )
        else:
            mode = mode_from(os.fspath(replay) if replay is not None else None)
            limiter = None if rate_share >= 1.0 else _Share(rate_share)
            session = await stack.enter_async_context(open_session(mode, limiter=limiter))
            client = session.client
        pinner = Pinner(None if offline else cache)
        hooks = client.event_hooks
        client.event_hooks = {**hooks, "response": [*hooks.get("response", []), pinner.hook]}
        return await verify_all(
            client,
            refs,
            retraction=ask,
            start=start,
            concurrency=concurrency,
            on_result=on_result,
            reach=reach,
            sources=sources,
        )


def _check_size(refs: Sequence[StatedReference]) -> None:
    if len(refs) > MAX_REFERENCES:
        raise ReferenceListError(
            f"{len(refs)} references are more than {MAX_REFERENCES} in one call; split the list."
        )


class Verifier:
    """References verified in parts by one process over a whole run, with the pin cache and
    the local index opened once for all of them.

    Why: a run of 10,000 references asks the same cache and index throughout; opening them
    for each part (a slice, a worker's chunk) costs milliseconds each time and, on worker
    processes, once per chunk on every worker.  ``today`` is the run's date, so a run that
    crosses midnight dates every retraction status alike.  Close it when the run ends.
    """

    def __init__(
        self,
        *,
        offline: bool = False,
        replay: str | os.PathLike[str] | None = None,
        retraction: bool = True,
        index: str | os.PathLike[str] | None = None,
        rate_share: float = 1.0,
        today: date | None = None,
    ) -> None:
        self.offline = offline
        self.replay = replay
        self.rate_share = rate_share
        day = today or datetime.now(UTC).date()
        self._ask = Retraction(rw_db=default_db_path(), today=day) if retraction else None
        self._index: LocalCatalogue | None = None
        self._cache = open_cache_for(offline=offline)
        try:
            self._index = open_local_index(index) if index is not None else None
        except BaseException:
            self.close()
            raise

    def verify(
        self,
        refs: Sequence[StatedReference],
        *,
        start: int = 1,
        concurrency: int = 8,
        on_result: Callable[[ReferenceResult], None] | None = None,
        reach: Reachability | None = None,
    ) -> list[ReferenceResult]:
        """Every reference's result, in order, numbered from ``start``."""
        _check_size(refs)
        return asyncio.run(
            _run(
                refs,
                offline=self.offline,
                replay=self.replay,
                ask=self._ask,
                cache=self._cache,
                concurrency=concurrency,
                on_result=on_result,
                start=start,
                rate_share=self.rate_share,
                reach=reach,
                index=self._index,
            )
        )

    def close(self) -> None:
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        close = getattr(self._index, "close", None)
        if close is not None:
            close()


#: The variable that names a local index when no ``--index`` does.
INDEX_ENV = "CITEPROOF_INDEX"


def index_path(given: str | os.PathLike[str] | None) -> str | None:
    """The local index to use: the one given, else ``CITEPROOF_INDEX``, else none."""
    if given is not None:
        return os.fspath(given)
    return os.environ.get(INDEX_ENV, "").strip() or None


def open_local_index(path: str | os.PathLike[str]) -> LocalCatalogue:
    """The index at ``path``, opened read-only (a one-line error when it is not an index or
    the ``index`` extra is not installed)."""
    from citeproof.index.query import open_index  # start-up: tantivy only when asked

    return open_index(os.fspath(path))


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
    reading: Sequence[str] = (),
    index: str | os.PathLike[str] | None = None,
) -> ReferencesReport:
    """Verify already-read references; the ``citeproof.references/1`` report.

    ``reading`` is what reading the list found wrong with it (the report's ``reading``).

    ``rate_share`` is this process's part of every service's rate limit, when several
    processes verify at once (a Dask cluster): 0.5 for one of two.  ``reach`` is shared by
    the calls of one run that verifies a long list in parts, so that without a network the
    run stops asking once (:class:`~citeproof.refs.verification.Reachability`).
    """
    _check_size(refs)  # before the cache and the index are opened
    verifier = Verifier(
        offline=offline,
        replay=replay,
        retraction=retraction,
        index=index_path(index),
        rate_share=rate_share,
        today=today,
    )
    try:
        results = verifier.verify(
            refs, start=start, concurrency=concurrency, on_result=on_result, reach=reach
        )
    finally:
        verifier.close()
    if log is not False:
        evidence = open_log(None if log is True else log)
        entries = evidence.append_many((REFERENCE_KIND, r.log_payload()) for r in results)
        results = [
            r.model_copy(update={"log_seq": e.seq}) for r, e in zip(results, entries, strict=True)
        ]
    return ReferencesReport(
        source=source,
        format=fmt,
        references=results,
        counts=count(results),
        offline=offline,
        reading=list(reading),
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
    index: str | os.PathLike[str] | None = None,
) -> ReferencesReport:
    """Verify every reference: strings, CSL-JSON items, or the path of a reference list.

    Each gets one verdict (``unresolvable``, ``mismatch``, ``unavailable``, ``unchecked``,
    ``not_found``, ``partial``, ``ambiguous``, ``verified``) with the record compared, every
    field's score, the work the stated metadata describes when the identifier names another,
    and the retraction status of the matched work.  ``offline`` answers from pins only; ``log``
    records one evidence-log line per reference (``True``: the default log).  A list none
    of whose entries names anything to look up is refused (``ReferenceListError``); an
    entry that names nothing among others that do is ``unchecked``.  ``index`` (else
    ``CITEPROOF_INDEX``) is a local index asked before the web services, and instead of
    them with ``offline`` (docs/index.md).
    """
    reading: list[str] = []
    if isinstance(references, str | os.PathLike) and (
        not isinstance(references, str) or Path(references).is_file()
    ):
        name = os.fspath(references)
        read = read_list_file(name)
        source: str | None = name
        fmt: str | None = read.format
        refs = read.references
        reading = reading_lines(name, read.problems)
    elif isinstance(references, str):
        raise ReferenceListError(
            f"{references[:60]!r} is not a file; pass a list of references or a file's path."
        )
    else:
        refs = [stated_reference(item, i) for i, item in enumerate(references, 1)]
        check_something_to_look_up(refs, "the list")
        fmt, source = None, None
    return verify_stated(
        refs,
        offline=offline,
        replay=replay,
        retraction=retraction,
        log=log,
        concurrency=concurrency,
        today=today,
        source=source,
        fmt=fmt,
        reading=reading,
        index=index,
    )
