"""Reading a source for a person or an agent who is about to quote it.

A check says whether given words occur; before that, whoever writes needs the words
themselves, copied from exactly the text a check will read.  :func:`read_source` hands out
that text a page at a time (an agent's context is small; a paper is not), with the blocks
that say where each page lies (section, region, PDF page), and :func:`resolve_identifier`
says what an identifier stands for and which bytes were pinned for it
(``citeproof resolve``).  :func:`closest_wording` says what a source says instead of a quote
that is not in it, for a person reading a NOT_FOUND on a terminal.  They load through
:mod:`citeproof.loading`, as a check does, so what they show is what a later check of the
same source reads, byte for byte, from the same pin in the cache.

An identifier that gave no text is an answer here too (``UNAVAILABLE`` or
``NOT_CHECKABLE`` with the reason), never an exception: only bad input raises.  The MCP
server's ``read_source`` and ``resolve_identifier`` tools are thin wrappers of these, and
``citeproof text`` / ``citeproof resolve`` can render the same models.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Final

from citeproof.documents.model import Document
from citeproof.errors import BadInputError
from citeproof.identifiers import parse_identifier
from citeproof.loading.describe import source_info
from citeproof.loading.pins import load_identifier
from citeproof.match.types import MatchOptions
from citeproof.models import Near, Resolved
from citeproof.models.source import Availability, ResolvedSource, SourceText, TextBlock
from citeproof.service.pipeline import CheckOptions, Pipeline, check_document
from citeproof.store.cache import Cache

__all__ = [
    "CLOSEST_FLOOR",
    "DEFAULT_READ_LIMIT",
    "MAX_READ_LIMIT",
    "closest_wording",
    "pinned_text",
    "read_source",
    "resolve_identifier",
]

DEFAULT_READ_LIMIT: Final = 20_000
MAX_READ_LIMIT: Final = 200_000
#: The lowest similarity at which :func:`closest_wording` still shows a passage: below it the
#: passage shares too little with the quote to be "what the source says instead".
CLOSEST_FLOOR: Final = 0.5


def _check_window(start: int, limit: int) -> None:
    if isinstance(start, bool) or not isinstance(start, int) or start < 0:
        raise BadInputError(
            f"start must be a whole number of characters, 0 or more, not {start!r}."
        )
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_READ_LIMIT:
        raise BadInputError(
            f"limit must be between 1 and {MAX_READ_LIMIT:,} characters, not {limit!r}."
        )


def read_source(
    source: str | os.PathLike[str],
    *,
    start: int = 0,
    limit: int = DEFAULT_READ_LIMIT,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
    files: bool = True,
    cache: Cache | None = None,
) -> SourceText:
    """``limit`` characters of ``source``'s extracted text from ``start``, with their blocks.

    ``source`` is a file path or an identifier (fetched once and pinned, as ``check`` does).
    Offsets are code points into the text ``citeproof text SOURCE`` prints, the same text
    every check result's offsets index.  A ``start`` past the end is bad input;
    ``files=False`` refuses local paths; ``cache`` is a cache the caller keeps open.
    """
    _check_window(start, limit)
    options = CheckOptions(
        offline=offline,
        refresh=refresh,
        files=files,
        replay=os.fspath(replay) if replay is not None else None,
    )
    loaded = Pipeline(options, cache=cache).load(source)
    if not isinstance(loaded, Document):
        status: Availability = "UNAVAILABLE" if loaded.kind == "unavailable" else "NOT_CHECKABLE"
        return SourceText(
            status=status,
            reason=loaded.reason,
            start=start,
            end=start,
            total_chars=0,
            next_start=None,
            text="",
        )
    text = loaded.text
    total = len(text)
    if start > total:
        raise BadInputError(
            f"start {start:,} is past the end of the text ({total:,} characters); "
            "give a start below that."
        )
    end = min(total, start + limit)
    blocks = [
        TextBlock(
            index=index,
            start=block.start,
            end=block.end,
            kind=block.kind,
            section=list(block.section),
            region=block.region,
            page=block.page,
        )
        for index, block in enumerate(loaded.blocks)
        if block.start < end and block.end > start
    ]
    return SourceText(
        status="ok",
        source=source_info(loaded),
        start=start,
        end=end,
        total_chars=total,
        next_start=end if end < total else None,
        text=text[start:end],
        blocks=blocks,
    )


def resolve_identifier(
    identifier: str,
    *,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
    cache: Cache | None = None,
) -> ResolvedSource:
    """Resolve ``identifier`` to its best available text and pin the bytes, or say why not.

    A malformed identifier is bad input (``UnknownIdentifierError`` lists the accepted
    forms); a path is not an identifier here, even when the file exists.  A pinned
    identifier is answered from the cache without any request.
    """
    if not isinstance(identifier, str) or not identifier.strip():
        raise BadInputError("the identifier is empty; give a DOI, PMID, PMCID, NCT number or URL.")
    parsed = parse_identifier(identifier)
    loaded = load_identifier(
        parsed,
        offline=offline,
        refresh=refresh,
        replay_dir=Path(replay) if replay is not None else None,
        cache=cache,
    )
    shown = identifier.strip()
    if not isinstance(loaded, Document):
        ids = loaded.ids
        return ResolvedSource(
            status="UNAVAILABLE" if loaded.kind == "unavailable" else "NOT_CHECKABLE",
            reason=loaded.reason,
            input=shown,
            key=parsed.key,
            kind=parsed.kind,
            resolved=Resolved(doi=ids.get("doi"), pmid=ids.get("pmid"), pmcid=ids.get("pmcid")),
        )
    origin, meta = loaded.origin, loaded.meta
    return ResolvedSource(
        status="RESOLVED",
        input=shown,
        key=parsed.key,
        kind=parsed.kind,
        resolved=Resolved(doi=meta.doi, pmid=meta.pmid, pmcid=meta.pmcid),
        served_by=origin.served_by if origin else None,
        coverage=origin.coverage if origin else None,
        format=loaded.format,
        version=origin.version if origin else None,
        sha256=origin.sha256 if origin else None,
        md5_ok=origin.md5_ok if origin else None,
        licence=meta.licence,
        url=origin.url if origin else None,
        title=meta.title,
        retrieved_at=origin.retrieved_at if origin else None,
        total_chars=len(loaded.text),
    )


def pinned_text(identifier: str, *, cache: Cache | None = None) -> tuple[str, str | None]:
    """(the canonical key, the pinned text or None): from the cache only, never fetched.

    A malformed identifier is bad input, as everywhere.
    """
    parsed = parse_identifier(identifier)
    loaded = load_identifier(parsed, offline=True, cache=cache)
    return parsed.key, loaded.text if isinstance(loaded, Document) else None


def closest_wording(quote: str, document: Document, options: MatchOptions) -> Near | None:
    """The passage of ``document`` closest to ``quote``, a quote that was ``NOT_FOUND`` with
    ``options``: its text, where it is, its similarity and its word diff.

    The matcher reports a closest passage only from the NEAR threshold up; this asks it again
    with the threshold lowered to :data:`CLOSEST_FLOOR`, so a person reading the result sees
    what the source says instead of a misquote.  None when no passage comes that close, when
    the search ran out of its budget, or when the threshold is already at the floor.  The
    published result is not changed: a ``NOT_FOUND`` has no ``near``.
    """
    if options.near_threshold <= CLOSEST_FLOOR:
        return None
    looser = dataclasses.replace(options, near_threshold=CLOSEST_FLOOR)
    found = check_document(quote, document, looser)
    return found.near if found.verdict == "NEAR" else None
