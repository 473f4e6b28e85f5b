"""From what a user names as a source to a Document: a file, standard input or an identifier.

Every interface accepts the same sources, so the rule that tells them apart is written once
(:func:`_is_identifier`): ``"-"`` is standard input; a string that is an existing path is a
file; anything else that looks like an identifier (DOI, PMID, PMCID, NCT number, openFDA set
id, PPR id, URL), even a malformed one (``PMC``, ``PMCabc``, ``pmid:``, ``doi:not a doi``,
``https://doi.org/``), is parsed, and a malformed one is bad input that says so and lists the
accepted forms (never "the file does not exist"); a valid one is read from its pin in the
cache, or fetched through the best-available-text chain and pinned
(:mod:`citeproof.loading.pins`).
An identifier that gives no text is an answer, :class:`~citeproof.loading.pins.FetchFailure`,
not an exception.  ``files=False`` is the rule for a server whose clients must not read its
files: identifiers only, and the file system is never touched.

The pins (and with them the HTTP stack, about a tenth of a second to import) are imported only
when an identifier is loaded: checking a local file must start as fast as a script.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING

from citeproof.documents.model import Document, Origin
from citeproof.errors import BadInputError, UnknownIdentifierError
from citeproof.identifiers import is_labelled, kind_names, looks_like_identifier, parse_identifier
from citeproof.loading.failure import FetchFailure
from citeproof.loading.files import (
    STDIN,
    document_from_bytes,
    file_origin,
    read_bytes,
)

if TYPE_CHECKING:
    from citeproof.store.cache import Cache

__all__ = ["SourceBytes", "load_bytes", "load_source"]

_FILES_REFUSED = (
    "{shown!r} is not an identifier, and local files are not read here; give " + kind_names() + "."
)


def _exists(shown: str) -> bool:
    try:
        return Path(shown).exists()
    except (OSError, ValueError):
        return False


def _is_identifier(shown: str, files: bool) -> bool:
    """True to read ``shown`` as an identifier, False to read it as a file (or stdin).

    A labelled identifier (``doi:…``, ``pmcid:PMC1``, a URL) is always one, even when a file of
    that name exists; a bare one that is also an existing path is refused, naming both ways to
    write it, because either reading could be the wrong one.  A string that only looks like
    an identifier (``PMC123.pdf``, ``pmid:``) is a file when a file of that name exists, and
    otherwise refused as a malformed identifier: :class:`UnknownIdentifierError`, which says
    what is wrong with it and lists the accepted forms.
    """
    if not files:
        if not looks_like_identifier(shown):
            raise BadInputError(_FILES_REFUSED.format(shown=shown))
        return True  # parse_identifier refuses a malformed one, listing the accepted forms
    if shown == STDIN or not looks_like_identifier(shown):
        return False
    exists = _exists(shown)
    try:
        parse_identifier(shown)
    except UnknownIdentifierError as exc:
        if exists:
            return False  # a file whose name starts like an identifier
        if is_labelled(shown):
            raise
        # "PMCabc" could have been meant as a file name: say that there is none either.
        raise UnknownIdentifierError(
            shown,
            f"{exc.reason} There is no file of that name here either.",
            exc.accepted_forms,
        ) from None
    if is_labelled(shown) or not exists:
        return True
    raise BadInputError(_both_ways(shown))


def _both_ways(shown: str) -> str:
    try:
        labelled = parse_identifier(shown).key
    except UnknownIdentifierError:
        labelled = None
    as_path = shown if shown.startswith(("/", "./", "../")) else f"./{shown}"
    work = f"write {labelled} for the work" if labelled else "label the identifier (doi:, pmid:)"
    return (
        f"{shown!r} is both an existing file or folder here and an identifier; write {as_path} "
        f"for the file, or {work}."
    )


def load_source(
    source: str | os.PathLike[str] | Document,
    *,
    max_bytes: int | None = None,
    stdin: IO[bytes] | None = None,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
    cache: Cache | None = None,
    files: bool = True,
) -> Document | FetchFailure:
    """The Document for ``source``, or why an identifier gave none.

    ``offline``, ``refresh``, ``replay`` and ``cache`` apply to identifiers (see
    :func:`citeproof.loading.pins.load_identifier`); ``max_bytes`` and ``stdin`` to files and
    standard input.
    """
    if isinstance(source, Document):
        return source
    if not isinstance(source, str | os.PathLike):
        raise TypeError(f"source must be a path, '-' or a Document, not {type(source).__name__}")
    shown = os.fspath(source)
    if _is_identifier(shown, files):
        from citeproof.loading.pins import load_identifier  # start-up: see the docstring

        return load_identifier(
            parse_identifier(shown),
            offline=offline,
            refresh=refresh,
            replay_dir=Path(replay) if replay is not None else None,
            cache=cache,
        )
    data = read_bytes(shown, max_bytes=max_bytes, stdin=stdin)
    name = None if shown == STDIN else Path(shown).name
    return document_from_bytes(data, file_origin(shown, data), name)


@dataclass(frozen=True, slots=True)
class SourceBytes:
    """A source's bytes and where they came from, to be parsed elsewhere (a batch worker)."""

    data: bytes
    origin: Origin
    name: str | None = None


def load_bytes(
    source: str,
    *,
    max_bytes: int | None = None,
    offline: bool = False,
    refresh: bool = False,
    replay: str | os.PathLike[str] | None = None,
    cache: Cache | None = None,
    files: bool = True,
) -> SourceBytes | FetchFailure:
    """Like :func:`load_source`, without parsing: a batch ships the bytes to worker processes
    (or cluster machines), which parse them there.  Standard input is not a batch source."""
    if _is_identifier(source, files):
        from citeproof.loading.pins import pinned_bytes  # start-up: see the docstring

        found = pinned_bytes(
            parse_identifier(source),
            offline=offline,
            refresh=refresh,
            replay_dir=Path(replay) if replay is not None else None,
            cache=cache,
        )
        if isinstance(found, FetchFailure):
            return found
        data, origin = found
        return SourceBytes(data, origin)
    data = read_bytes(source, max_bytes=max_bytes)
    return SourceBytes(data, file_origin(source, data), Path(source).name)
