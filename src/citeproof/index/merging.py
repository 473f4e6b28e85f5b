"""Records that share an identifier are one work: union-find over the identifier table.

The rule: two records are the same work when they name the same DOI, PMID, PMCID, arXiv id,
OpenAlex id or DBLP key, directly or through a chain of records (a PubMed record names a DOI
and a PMCID; the OpenAlex work names the PMCID).  A work's id is the smallest ``rid`` of its
records, so it is stable while its first record lives.

One guard: an identifier that more than :data:`MAX_SHARED` records name is not used to merge.
Real data has such values (a placeholder DOI typed into thousands of records, a journal's
DOI given as every article's), and merging through one would make thousands of works one.
The records still list it, and a look-up by it still finds each of them.

A build merges everything at the end, streaming ``ids`` in key order, with the union-find
parents in a memory-mapped file of 4 bytes a record beside the index (the only structure
that grows with the input; the kernel pages it, the heap does not hold it).  An update
merges locally: the components that its new and removed records touch are gathered through
the tables and merged again, so a record that left a work can also split it.
"""

from __future__ import annotations

import mmap
import os
import sqlite3
from array import array
from collections.abc import Iterable
from pathlib import Path

from citeproof.index.records import decode_blob

__all__ = ["MAX_SHARED", "merge_all", "merge_around", "scratch_path"]

#: Records one identifier may join; above this it is bad data, not one work.
MAX_SHARED = 32
_INIT_CHUNK = 1 << 20


class _Parents:
    """Union-find parents of rids ``0..size-1`` in a file-backed map of uint32."""

    def __init__(self, path: Path, size: int) -> None:
        self._path = path
        with path.open("wb") as handle:
            for start in range(0, size, _INIT_CHUNK):
                handle.write(array("I", range(start, min(size, start + _INIT_CHUNK))).tobytes())
            if size == 0:
                handle.write(b"\0\0\0\0")
        self._file = path.open("r+b")
        self._map = mmap.mmap(self._file.fileno(), 0)
        self.parent = memoryview(self._map).cast("I")

    def find(self, rid: int) -> int:
        parent = self.parent
        while parent[rid] != rid:
            parent[rid] = parent[parent[rid]]
            rid = parent[rid]
        return rid

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            if ra < rb:
                self.parent[rb] = ra
            else:
                self.parent[ra] = rb

    def close(self) -> None:
        self.parent.release()
        self._map.close()
        self._file.close()
        self._path.unlink(missing_ok=True)


def merge_all(connection: sqlite3.Connection, scratch: Path) -> int:
    """Set every live record's ``work``; returns how many records joined another's work.

    Runs inside the caller's transaction.
    """
    top = connection.execute("SELECT COALESCE(MAX(rid), -1) FROM records").fetchone()[0]
    parents = _Parents(scratch, top + 1)
    try:
        group: list[int] = []
        previous: str | None = None
        rows = connection.execute(
            "SELECT i.value, i.rid FROM ids i WHERE i.value IN "
            "(SELECT value FROM ids GROUP BY value HAVING COUNT(*) BETWEEN 2 AND ?) "
            "ORDER BY i.value",
            (MAX_SHARED,),
        )
        for value, rid in rows:
            if value != previous:
                _join(parents, group)
                group = []
                previous = value
            group.append(rid)
        _join(parents, group)
        connection.execute("UPDATE records SET work = rid WHERE work != rid")
        moved = 0

        def changes() -> Iterable[tuple[int, int]]:
            nonlocal moved
            for rid in range(top + 1):
                if (root := parents.find(rid)) != rid:
                    moved += 1
                    yield root, rid

        connection.executemany("UPDATE records SET work = ? WHERE rid = ?", changes())
        return moved
    finally:
        parents.close()


def _join(parents: _Parents, group: list[int]) -> None:
    first = group[0] if group else 0
    for rid in group[1:]:
        parents.union(first, rid)


def merge_around(connection: sqlite3.Connection, seeds: Iterable[int]) -> None:
    """Merge again the works of ``seeds`` and of every record they share an identifier with
    (their old works included, so a work whose link went can split).  Runs inside the
    caller's transaction."""
    todo = set(seeds)
    if not todo:
        return
    component: set[int] = set()
    for chunk in _chunks(sorted(todo)):
        marks = ",".join("?" * len(chunk))
        for (rid,) in connection.execute(
            f"SELECT rid FROM records WHERE live != 0 AND work IN "
            f"(SELECT work FROM records WHERE rid IN ({marks}))",
            chunk,
        ):
            todo.add(rid)
    edges: list[tuple[int, int]] = []
    while todo:
        rid = todo.pop()
        if rid in component:
            continue
        component.add(rid)
        row = connection.execute(
            "SELECT data FROM records WHERE rid = ? AND live != 0", (rid,)
        ).fetchone()
        if row is None:
            continue
        ids, _fields = decode_blob(row[0])
        for value in ids:
            sharing = [
                r
                for (r,) in connection.execute(
                    "SELECT i.rid FROM ids i JOIN records r ON r.rid = i.rid "
                    "WHERE i.value = ? AND r.live != 0 LIMIT ?",
                    (value, MAX_SHARED + 1),
                )
            ]
            if 2 <= len(sharing) <= MAX_SHARED:
                edges.extend((rid, other) for other in sharing if other != rid)
                todo.update(r for r in sharing if r not in component)
    parent = {rid: rid for rid in component}

    def find(rid: int) -> int:
        while parent[rid] != rid:
            parent[rid] = parent[parent[rid]]
            rid = parent[rid]
        return rid

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    connection.executemany(
        "UPDATE records SET work = ? WHERE rid = ? AND work != ?",
        [(find(rid), rid, find(rid)) for rid in component],
    )


def _chunks(values: list[int], size: int = 500) -> Iterable[list[int]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def scratch_path(directory: Path) -> Path:
    """Where :func:`merge_all` keeps its parents while it runs."""
    return directory / f".merge-{os.getpid()}.tmp"
