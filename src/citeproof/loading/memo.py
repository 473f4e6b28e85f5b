"""Parsed documents by the sha256 of their bytes, shared by every way a source is read.

Parsing and preparing a document (the normalised text, its offset map, the search key) is
the expensive part of a check; reading and hashing the bytes is cheap.  A long-lived process
(the MCP server, a notebook, a batch worker) therefore reads and hashes a source every time,
so its answer always names the bytes actually read, but parses each distinct set of bytes
once.  Callers get the shared Document and attach their own origin with
``Document.with_origin``, which copies the Document and shares its prepared matcher state.

The memo is bounded by the size of what it holds, not by a count: a Document prepared for the
matcher takes 5 (ASCII) to 11 (any other character in it) bytes per character of text, so 32
papers of 100,000 characters are 35 MB but 32 web pages of 25 MB were 8 GB.  It keeps the most
recently used documents up to :data:`KEEP_CHARS` characters of text in all (a document larger
than that is parsed but not kept), about 90 MB at most (``bench/bench_memo.py`` measures it).
It is guarded by a lock for the worker threads of the MCP server; parsing happens
outside the lock, so two threads may parse the same new bytes once each, which is harmless.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

from citeproof.documents import parse
from citeproof.documents.model import Document

__all__ = ["KEEP_CHARS", "parsed", "peek", "recall"]

#: Characters of document text the memo keeps in all: some 130 papers of 60,000 characters.
KEEP_CHARS: Final = 8_000_000

_MEMO: OrderedDict[tuple[str, str | None], Document] = OrderedDict()
_LOCK = threading.Lock()
_chars = 0


def peek(sha256: str, name: str | None = None) -> Document | None:
    """The memoised Document for these bytes, without parsing or reordering."""
    with _LOCK:
        return _MEMO.get((sha256, name))


def recall(sha256: str, name: str | None = None) -> Document | None:
    """The memoised Document for these bytes, as recently used, or None: for a caller that
    was sent only the hash because it was sent the bytes before (a batch worker)."""
    key = (sha256, name)
    with _LOCK:
        document = _MEMO.get(key)
        if document is not None:
            _MEMO.move_to_end(key)
        return document


def parsed(sha256: str, data: bytes, name: str | None = None) -> Document:
    """The Document for ``data`` (whose sha256 the caller computed), parsed at most once.

    ``name`` is the file name hint the parser may use; it is part of the key because the
    same bytes could in principle be read differently under another name.
    """
    key = (sha256, name)
    document = recall(sha256, name)
    if document is not None:
        return document
    global _chars
    document = parse(data, name=name)
    size = len(document.text)
    if size > KEEP_CHARS:
        return document
    with _LOCK:
        if key not in _MEMO:
            _MEMO[key] = document
            _chars += size
        while _chars > KEEP_CHARS:
            _, evicted = _MEMO.popitem(last=False)
            _chars -= len(evicted.text)
    return document
