"""Reading a JSONL batch strictly, one line at a time, so one bad line never stops the rest.

A batch file is written by scripts and models, and a batch of 100,000 checks must not fail
at line 73,412 because of a stray NaN, nor load a 2 GB file into memory to find out.  So the
input is read as a stream of lines, each parsed on its own, and every problem is that
line's error record:

* a line over 1 MiB (read in bounded pieces: the rest of an over-long line is skipped, never
  held in memory);
* text that is not UTF-8 or not JSON; ``NaN``/``Infinity`` (not JSON, though Python's parser
  accepts them); an object with a duplicate key (which of the two would be meant?); nesting
  deeper than 32 levels;
* a value that is not an object, a missing or empty ``quote`` or ``source``, fields of the
  wrong type, or unknown fields (``"qoute"`` is a typo, not a request to check nothing).

Pure: takes lines (bytes), returns items or errors.  Blank lines are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, Final, TypeVar

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "BatchItem",
    "InvalidLineError",
    "LineError",
    "decode_line",
    "parse_items",
    "parse_line",
    "parse_object_line",
    "parse_stream",
    "read_lines",
    "string_field",
]

MAX_LINE_BYTES: Final = 1024 * 1024
MAX_DEPTH: Final = 32
_FIELDS: Final = frozenset({"id", "quote", "source", "claim"})
_TOO_LONG: Final = f"the line is over {MAX_LINE_BYTES:,} bytes"


@dataclass(frozen=True, slots=True)
class BatchItem:
    """One check to run: ``line`` is 1-based; ``id`` is the input's, else the line number."""

    line: int
    id: str | int
    quote: str
    source: str
    claim: str | None = None


@dataclass(frozen=True, slots=True)
class LineError:
    """Why a line is not a check; ``id`` when the line had a usable one."""

    line: int
    code: str
    message: str
    id: str | int | None = None

    def record(self) -> dict[str, Any]:
        """The output line for this error."""
        return {
            "id": self.id if self.id is not None else self.line,
            "line": self.line,
            "error": {"code": self.code, "message": self.message},
        }


class InvalidLineError(ValueError):
    """Raised by an item builder (see :func:`parse_object_line`): that line's error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _no_constants(name: str) -> Any:
    raise InvalidLineError("not_json", f"{name} is not JSON; write null or a string instead")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen = dict(pairs)  # in C; the keys are looked at one by one only when one repeats
    if len(seen) != len(pairs):
        keys = [key for key, _ in pairs]
        key = next(k for n, k in enumerate(keys) if k in keys[:n])
        raise InvalidLineError("duplicate_key", f"the key {key!r} appears twice in one object")
    return seen


#: One decoder for every line (``json.loads`` with options makes a new one per call).
_DECODER: Final = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_no_constants)


def _listed(fields: frozenset[str]) -> str:
    return ", ".join(sorted(fields))


def _depth(value: Any) -> int:
    """Nesting depth, iteratively (a recursive walk could itself overflow)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, depth)
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return deepest


def _field(obj: dict[str, Any], name: str, *, required: bool) -> str | None:
    value = obj.get(name)
    if value is None:
        if required:
            raise InvalidLineError(
                "missing_field", f"the line has no {name!r}; give it as a string"
            )
        return None
    if not isinstance(value, str):
        raise InvalidLineError(
            "bad_field", f"{name!r} must be a string, not {type(value).__name__}"
        )
    if required and not value.strip():
        raise InvalidLineError("missing_field", f"{name!r} is empty")
    return value


def _item_id(obj: dict[str, Any], line: int) -> str | int:
    value = obj.get("id")
    if value is None:
        return line
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InvalidLineError("bad_field", "'id' must be a string or an integer")
    return value


def parse_line(raw: bytes, line: int) -> BatchItem | LineError | None:
    """One input line (without its newline) as an item, an error, or None when blank."""

    def build(obj: dict[str, Any], item_id: str | int) -> BatchItem:
        quote = _field(obj, "quote", required=True)
        source = _field(obj, "source", required=True)
        assert quote is not None and source is not None
        return BatchItem(line, item_id, quote, source, _field(obj, "claim", required=False))

    return parse_object_line(raw, line, _FIELDS, build)


T = TypeVar("T")


def parse_object_line(
    raw: bytes,
    line: int,
    fields: frozenset[str],
    build: Callable[[dict[str, Any], str | int], T],
) -> T | LineError | None:
    """The strict rules for any JSONL batch: ``build(obj, id)`` makes the item.

    ``fields`` are the keys a line may have (``id`` among them); ``build`` raises
    :class:`InvalidLineError` (or lets :func:`string_field` raise it) for a field it cannot use.
    """
    if len(raw) > MAX_LINE_BYTES:
        return LineError(line, "line_too_long", _TOO_LONG)
    if not raw.strip():
        return None
    item_id: str | int | None = None
    try:
        obj = decode_line(raw)
        if not isinstance(obj, dict):
            raise InvalidLineError(
                "not_an_object", f"each line must be a JSON object ({_listed(fields)})"
            )
        item_id = _item_id(obj, line)
        if not fields.issuperset(obj):
            unknown = sorted(set(obj) - fields)
            raise InvalidLineError(
                "unknown_field",
                f"unknown field(s) {', '.join(map(repr, unknown))}; a line has {_listed(fields)}",
            )
        return build(obj, item_id)
    except InvalidLineError as err:
        return LineError(line, err.code, str(err), item_id)


def decode_line(raw: bytes) -> Any:
    """The JSON value of one line by the strict rules (module docstring), or
    :class:`InvalidLineError` saying what is wrong with it: every JSONL input (a batch, the
    references ``citeproof refs`` reads) is refused for the same reasons in the same words."""
    if len(raw) > MAX_LINE_BYTES:
        raise InvalidLineError("line_too_long", _TOO_LONG)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidLineError("not_utf8", "the line is not UTF-8 text") from None
    try:
        if text.startswith("\ufeff"):  # what json.loads says of a BOM
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        obj = _DECODER.decode(text)
    except RecursionError:
        raise InvalidLineError(
            "too_deep", f"the line nests deeper than {MAX_DEPTH} levels"
        ) from None
    except json.JSONDecodeError as err:
        raise InvalidLineError(
            "not_json", f"the line is not JSON ({err.msg} at {err.pos})"
        ) from None
    # Each level of nesting opens with a bracket, so a line with few of them (every line of a
    # usual batch) cannot nest too deep, and is not walked to find out.
    if raw.count(b"{") + raw.count(b"[") > MAX_DEPTH and _depth(obj) > MAX_DEPTH:
        raise InvalidLineError("too_deep", f"the line nests deeper than {MAX_DEPTH} levels")
    return obj


def string_field(obj: dict[str, Any], name: str, *, required: bool) -> str | None:
    """A string field of a line, or that line's error (missing, empty, not a string)."""
    return _field(obj, name, required=required)


def read_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """Lines of ``stream`` without newlines; an over-long line is cut short and marked.

    A line over the cap is yielded as its first ``MAX_LINE_BYTES + 1`` bytes (enough for
    :func:`parse_line` to refuse it) and the rest is read and dropped in bounded pieces.
    """
    while True:
        piece = stream.readline(MAX_LINE_BYTES + 1)
        if not piece:
            return
        if piece.endswith(b"\n"):
            yield piece[:-1].rstrip(b"\r")
            continue
        if len(piece) <= MAX_LINE_BYTES:
            yield piece  # the last line, without a newline
            return
        while True:  # skip the rest of the over-long line
            more = stream.readline(MAX_LINE_BYTES)
            if not more or more.endswith(b"\n"):
                break
        yield piece


def parse_stream(stream: IO[bytes]) -> Iterator[BatchItem | LineError]:
    """Every non-blank line of ``stream``, parsed."""
    for number, raw in enumerate(read_lines(stream), 1):
        parsed = parse_line(raw, number)
        if parsed is not None:
            yield parsed


def parse_items(items: Iterable[dict[str, Any]]) -> Iterator[BatchItem | LineError]:
    """Items given in Python (``citeproof.batch.run``), checked by the same rules."""
    for number, obj in enumerate(items, 1):
        try:
            encoded = json.dumps(obj, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as err:
            yield LineError(number, "not_json", f"the item cannot be written as JSON ({err})")
            continue
        parsed = parse_line(encoded, number)
        if parsed is not None:
            yield parsed
