"""Parsed documents by the sha256 of their bytes, shared by every way a source is read.

Parsing and preparing a document (the normalised text, its offset map, the search key) is
the expensive part of a check; reading and hashing the bytes is cheap.  A long-lived process
(the MCP server, a notebook, a batch worker) therefore reads and hashes a source every time,
so its answer always names the bytes actually read, but parses each distinct set of bytes
once.  Callers get the shared Document and attach their own origin with
``Document.with_origin``, which copies the Document and shares its prepared matcher state.

The memo is small (recent documents only) and guarded by a lock for the worker threads of
the MCP server; parsing happens outside the lock, so two threads may parse the same new
bytes once each, which is harmless.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Final

from citeproof.documents import parse
from citeproof.documents.model import Document

__all__ = ["KEEP", "parsed", "peek"]

KEEP: Final = 32

_MEMO: OrderedDict[tuple[str, str | None], Document] = OrderedDict()
_LOCK = threading.Lock()


def peek(sha256: str, name: str | None = None) -> Document | None:
    """The memoised Document for these bytes, without parsing or reordering."""
    with _LOCK:
        return _MEMO.get((sha256, name))


def parsed(sha256: str, data: bytes, name: str | None = None) -> Document:
    """The Document for ``data`` (whose sha256 the caller computed), parsed at most once.

    ``name`` is the file name hint the parser may use; it is part of the key because the
    same bytes could in principle be read differently under another name.
    """
    key = (sha256, name)
    with _LOCK:
        document = _MEMO.get(key)
        if document is not None:
            _MEMO.move_to_end(key)
            return document
    document = parse(data, name=name)
    with _LOCK:
        _MEMO[key] = document
        while len(_MEMO) > KEEP:
            _MEMO.popitem(last=False)
    return document
