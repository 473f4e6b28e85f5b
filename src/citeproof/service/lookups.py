"""The door to what citeproof looks up about works: retraction status, literature searches,
the works citing a work, and passages with their citation handles.

Thin over the feature packages, so the interfaces import the service only and every interface
answers with the same function.  ``search_literature`` and ``citing_papers`` are the library's
names for a search (the MCP tools' names); like ``citeproof.check`` they record the search in
the evidence log only when asked (``log=True`` or a path).
"""

from __future__ import annotations

import os
from pathlib import Path

from citeproof.handles.registry import DEFAULT_LIMIT as DEFAULT_PASSAGES
from citeproof.handles.registry import passages_for, resolve_handle
from citeproof.models.search import SearchRecord
from citeproof.retraction.status import retraction_report
from citeproof.search.params import DEFAULT_LIMIT, ENGINES
from citeproof.search.queries import citing_sync, search_sync
from citeproof.service.logbook import open_log, record_search

__all__ = [
    "DEFAULT_PASSAGES",
    "ENGINES",
    "citing_papers",
    "citing_sync",
    "passages_for",
    "resolve_handle",
    "retraction_report",
    "search_literature",
    "search_sync",
]


def _recorded(record: SearchRecord, log: bool | str | os.PathLike[str]) -> SearchRecord:
    if log is False:
        return record

    return record_search(record, open_log(None if log is True else log))


def search_literature(
    engine: str,
    query: str,
    *,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    since: str | None = None,
    until: str | None = None,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    log: bool | str | os.PathLike[str] = False,
) -> SearchRecord:
    """Search ``engine`` (one of :data:`ENGINES`) for ``query``; the ``citeproof.search/1``
    record of what it sent and read.  A failed search is a record with status ``failed``."""
    record = search_sync(
        engine,
        query,
        limit=limit,
        cursor=cursor,
        since=since,
        until=until,
        offline=offline,
        replay_dir=Path(replay) if replay is not None else None,
    )
    return _recorded(record, log)


def citing_papers(
    identifier: str,
    *,
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    log: bool | str | os.PathLike[str] = False,
) -> SearchRecord:
    """The works OpenAlex lists as citing ``identifier`` (DOI, PMID, PMCID or ``W...``)."""
    record = citing_sync(
        identifier,
        limit=limit,
        cursor=cursor,
        offline=offline,
        replay_dir=Path(replay) if replay is not None else None,
    )
    return _recorded(record, log)
