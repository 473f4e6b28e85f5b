"""The door to what citeproof looks up about works: retraction status, literature searches,
the works citing a work, and passages with their citation handles.

Each is a thin re-export of its feature package, so the interfaces import the service only and
every interface answers with the same function.
"""

from __future__ import annotations

from citeproof.handles.registry import DEFAULT_LIMIT as DEFAULT_PASSAGES
from citeproof.handles.registry import passages_for, resolve_handle
from citeproof.retraction.status import retraction_report
from citeproof.search.queries import ENGINES, citing_sync, search_sync

__all__ = [
    "DEFAULT_PASSAGES",
    "ENGINES",
    "citing_sync",
    "passages_for",
    "resolve_handle",
    "retraction_report",
    "search_sync",
]
