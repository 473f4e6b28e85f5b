"""Helpers shared by the commands: output mode, JSON writing, exit codes, quote files, and
the rule for the files a command writes.

Imported only by a command that is running, so it may import anything; it still imports
the heavy modules inside functions, because ``check`` needs pydantic but ``text`` does not.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable
from typing import IO, TYPE_CHECKING, Any, TypeVar

import click

from citeproof.errors import (
    BadInputError,
    SourceNotFoundError,
    SourceTooLargeError,
)

if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")


def want_json(flag: bool) -> bool:
    """JSON when asked for, and whenever stdout is not a terminal (pipes, files, agents)."""
    if flag:
        return True
    stream = sys.stdout
    return stream is None or not stream.isatty()


def stdout_bytes() -> IO[bytes]:
    """The binary layer under ``sys.stdout`` (looked up per call: tests swap ``sys.stdout``)."""
    return sys.stdout.buffer


def stdin_bytes(what: str = "the source") -> IO[bytes]:
    """The binary stdin; a person at a terminal is told that citeproof is waiting for them."""
    if sys.stdin is None:
        raise BadInputError("there is no standard input to read; give a file instead of '-'.")
    if sys.stdin.isatty():
        print(
            f"citeproof: reading {what} from standard input; end it with Ctrl-D.", file=sys.stderr
        )
    return sys.stdin.buffer


def write_json(obj: Any, *, indent: int | None = 2) -> None:
    """Write one JSON value and a newline as UTF-8, whatever the locale says."""
    text = json.dumps(obj, ensure_ascii=False, indent=indent)
    out = stdout_bytes()
    out.write(text.encode("utf-8", "surrogatepass") + b"\n")
    out.flush()


def emit(as_json: bool, obj: Any, lines: Iterable[str]) -> None:
    """Print ``obj`` as JSON when JSON is wanted (:func:`want_json`), else the readable
    ``lines``: the two views every small command offers of one answer."""
    if want_json(as_json):
        write_json(obj)
    else:
        for line in lines:
            click.echo(line)


def show(result: M, as_json: bool, render: Callable[[M], None]) -> None:
    """Print a published result as its schema's JSON when JSON is wanted, else as ``render``
    draws it for a person: every command that answers with one model does this."""
    if want_json(as_json):
        write_json(result.model_dump(mode="json"))
    else:
        render(result)


def read_input(path: str, what: str, give: str, *, max_bytes: int | None = None) -> bytes:
    """The bytes of the file at ``path`` (``-``: stdin) that holds ``what`` ("the answer").

    ``service.read_bytes`` speaks of sources ("give the path of a PDF ..."); a command that
    reads something else names it instead: "the answer file X does not exist; ``give``".
    """
    from citeproof import service

    stdin = stdin_bytes(what) if path == "-" else None
    try:
        return service.read_bytes(path, max_bytes=max_bytes, stdin=stdin)
    except SourceNotFoundError:
        if path == "-" or os.path.lexists(path):
            raise
        raise SourceNotFoundError(f"{what} file {path} does not exist; {give}") from None


def read_quote_file(path: str) -> str:
    """The quote in ``path`` (``-`` for stdin), decoded as a source is (UTF-8, or UTF-16/32
    with a byte-order mark), one final line break dropped.

    The final line break is dropped because editors add one; any other whitespace is the
    quote's own and normalisation deals with it.
    """
    from citeproof import service

    limit = 4 * service.MAX_QUOTE_CHARS + 4  # UTF-8 takes at most 4 bytes a character, + BOM
    try:
        data = read_input(path, "the quote", "check the path.", max_bytes=limit)
    except SourceTooLargeError:
        raise service.quote_too_long() from None
    where = "standard input" if path == "-" else path
    quote = service.decode_text(data, what=f"quote in {where}")
    for ending in ("\r\n", "\n"):
        if quote.endswith(ending):
            return quote[: -len(ending)]
    return quote


def refuse_double_stdin(quote_file: str | None, source: str) -> None:
    if quote_file == "-" and source == "-":
        raise BadInputError(
            "standard input can hold the quote (--quote-file -) or the source (-), not both; "
            "put one of them in a file."
        )


def nothing_done(
    path: str, verb: str, shape: str, item: str, errors: int, first: dict[str, Any] | None
) -> str:
    """Why a batch none of whose lines could be done (``verb``: "check", "audit") failed:
    the input, not its lines.  ``shape`` is what one line holds, ``item`` what a line is;
    ``first`` the first error's record, or None when the input had no lines at all."""
    where = "standard input" if path == "-" else path
    if first is None:
        return f"{where} has no lines to {verb}; give a JSONL file of {shape}, one {item} a line."
    error = first.get("error") or {}
    return (
        f"no line of {where} could be {verb}ed: all {errors:,} are errors, the first (line "
        f"{first.get('line')}) {error.get('code')}: {error.get('message')}."
    )


def refuse_to_replace(
    path: str,
    *,
    inputs: Iterable[str] = (),
    overwrite: bool = False,
    ours: Callable[[str], bool] | None = None,
    what: str = "the output",
) -> None:
    """Refuse to write ``path`` where that would lose what a user wrote.

    The rule every command that writes a file follows (docs/cli.md, "Files citeproof
    writes"): never over one of its ``inputs`` (the same file by any name), even with
    ``--overwrite``; never over a folder; and over an existing file only when ``overwrite``
    asks, or when ``ours`` recognises the file as citeproof's own earlier output of the same
    kind (an audit page, a cache export), which re-running the command is expected to replace.
    """
    if path == "-":
        return
    if os.path.isdir(path):
        raise BadInputError(f"{what} {path} is a folder; give a file name.")
    for source in inputs:
        if source == "-":
            continue
        try:
            same = os.path.samefile(source, path)
        except OSError:  # one of them is not there (yet)
            same = False
        if same:
            raise BadInputError(
                f"{what} {path} is the input {source}: writing there would erase it; give "
                "another file name."
            )
    if overwrite or not os.path.lexists(path):
        return
    if os.path.isfile(path) and os.path.getsize(path) == 0:
        return  # an empty file holds nothing to lose (``touch page.html`` first)
    if ours is not None and os.path.isfile(path) and ours(path):
        return
    raise BadInputError(
        f"{what} {path} already exists and citeproof did not write it; give another file "
        "name, or add --overwrite to replace it."
    )
