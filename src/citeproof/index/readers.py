"""One streaming reader per dump layout: a file (or a stripe of it) in, rows out.

Every reader streams: a JSON line at a time, a Crossref ``items`` array an item at a time
(``json.JSONDecoder.raw_decode`` over a sliding window), XML through lxml's ``iterparse``
with each record cleared once read, CSV a row at a time.  Memory is bounded by the largest
record (:data:`~citeproof.index.dumps.MAX_RECORD_BYTES`), whatever the file's size.

Work is split into **tasks**: a whole file, or for a large JSON Lines file one *stripe* of
it (every stripe-th block of :data:`STRIPE_LINES` lines), and for a tar every stripe-th
member.  Each stripe re-reads the decompressed stream but parses only its own lines, so two
processes share one big file with no coordination (inflating costs a few microseconds a
record; parsing the JSON costs ten times that).

A task's output is a sequence of **units** (a line, an item, an XML record, a CSV row), each
at a fixed position in its file; a resumed task skips the units already committed, without
parsing them.  Each unit becomes rows the writer inserts as they are:

* ``("r", position, version, rkey, ids, blob, bib, notices)`` a record;
* ``("d", position, rkey, alias)`` a deletion;
* ``("n", position, notice)`` a notice that belongs to no record (Retraction Watch).
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from citeproof.documents.safe_xml import scan_prolog
from citeproof.errors import BadInputError
from citeproof.index import records
from citeproof.index.dumps import MAX_RECORD_BYTES, CountingReader, open_stream, tar_members

__all__ = [
    "DBLP_ENTITIES",
    "STRIPE_LINES",
    "Row",
    "Task",
    "TaskStats",
    "read_task",
]

#: Lines a stripe of a JSON Lines file takes at a time.
STRIPE_LINES = 512
#: Units a tar member may hold (positions are ``member << 22 | unit``).
_MEMBER_UNITS = 1 << 22
_CSV_FIELD_BYTES = 1 << 20

Row = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Task:
    """A file, or one stripe of it, for one worker."""

    file_no: int
    path: str
    kind: str
    layout: str
    tar: bool
    stripe: int = 0
    stripes: int = 1
    skip: int = 0
    """Units of this stripe already committed: passed over without parsing."""

    @property
    def key(self) -> tuple[int, int]:
        return self.file_no, self.stripe

    @property
    def hashes(self) -> bool:
        """The first stripe reads the whole file anyway: it hashes it and counts its text."""
        return self.stripe == 0


@dataclass(slots=True)
class TaskStats:
    """What a task read, for the manifest."""

    units: int = 0
    records: int = 0
    deletions: int = 0
    notices: int = 0
    skipped: int = 0
    text_bytes: int = 0
    sha256: str | None = None
    newest: str | None = None
    reasons: list[str] = field(default_factory=list)

    def note(self, reason: str) -> None:
        self.skipped += 1
        if len(self.reasons) < 5:
            self.reasons.append(reason)


def read_task(
    task: Task, stats: TaskStats, *, batch_units: int = 1000, batch_bytes: int = 4 << 20
) -> Iterator[tuple[int, list[Row]]]:
    """(units, rows) of ``task`` in order, a batch at a time (at most ``batch_units`` units
    or about ``batch_bytes`` of rows); ``stats`` is filled as it goes (its sha256 and text
    size once the task is done)."""
    path = Path(task.path)
    stream, counting = open_stream(path, hash_it=task.hashes)
    with stream:
        skip = [task.skip]
        if task.tar:
            for member, name, body in tar_members(stream, path.name):
                if member % task.stripes != task.stripe:
                    continue
                if member >= 1 << 20:
                    raise BadInputError(f"{path} has more than a million members.")
                units = _units(task.layout, body, f"{path.name}:{name}", stats, where=path)
                yield from _batches(
                    task.kind,
                    _shift(units, member * _MEMBER_UNITS),
                    stats,
                    skip,
                    batch_units,
                    batch_bytes,
                )
        else:
            units = _units(task.layout, stream, path.name, stats, where=path, task=task)
            yield from _batches(task.kind, units, stats, skip, batch_units, batch_bytes)
        if task.hashes:
            counting.hash_rest()
            stats.sha256 = counting.hexdigest()


def _shift(units: Iterator[tuple[int, Any]], base: int) -> Iterator[tuple[int, Any]]:
    for position, unit in units:
        if position >= _MEMBER_UNITS:
            raise BadInputError("a tar member holds more than four million records.")
        yield base + position, unit


def _batches(
    kind: str,
    units: Iterator[tuple[int, Any]],
    stats: TaskStats,
    skip: list[int],
    batch_units: int,
    batch_bytes: int,
) -> Iterator[tuple[int, list[Row]]]:
    """Pass over the committed units (``skip[0]`` of them, counted down across a tar's
    members), then turn each unit into rows, in batches."""
    convert = _CONVERTERS[kind]
    parsed_type = records.Parsed
    rows: list[Row] = []
    count = size = 0
    for position, unit in units:
        if skip[0]:
            skip[0] -= 1
            continue
        count += 1
        try:
            items = convert(unit, stats)
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            stats.note(f"unit {position}: {type(exc).__name__}")
            items = []
        for item in items:
            if type(item) is parsed_type:
                row = _record_row(position, item, stats)
                size += len(row[5]) + len(row[6]) + 64
            else:
                row = _other_row(position, item, stats)
                size += 64
            rows.append(row)
        if count >= batch_units or size >= batch_bytes:
            stats.units += count
            yield count, rows
            rows, count, size = [], 0, 0
    if count or rows:
        stats.units += count
        yield count, rows


def _record_row(position: int, item: records.Parsed, stats: TaskStats) -> Row:
    stats.records += 1
    if item.date and (stats.newest is None or item.date > stats.newest):
        stats.newest = item.date
    bib = records.search_text(item)
    notices = tuple(_notice_row(n) for n in item.notices) if item.notices else ()
    stats.notices += len(notices)
    blob = records.encode_blob(item)
    return ("r", position, item.version, item.rkey, item.ids, blob, bib, notices)


def _other_row(position: int, item: Any, stats: TaskStats) -> Row:
    if isinstance(item, records.Deletion):
        stats.deletions += 1
        return ("d", position, item.rkey, item.alias)
    stats.notices += 1
    if item.date and (stats.newest is None or item.date > stats.newest):
        stats.newest = item.date
    return ("n", position, _notice_row(item))


def _notice_row(n: records.Notice) -> tuple[str | None, ...]:
    return (n.target, n.kind, n.notice, n.date, n.source, n.label, n.reason, n.record_id)


# --- units by layout ------------------------------------------------------------------------


def _units(
    layout: str,
    stream: IO[bytes],
    name: str,
    stats: TaskStats,
    *,
    where: Path,
    task: Task | None = None,
) -> Iterator[tuple[int, Any]]:
    if layout == "jsonl":
        stripe, stripes = (task.stripe, task.stripes) if task else (0, 1)
        return _json_lines(stream, name, stats, stripe, stripes, count=task is None or task.hashes)
    if layout == "items":
        return _json_items(stream, name, stats)
    if layout == "xml":
        return _xml_records(stream, name, stats, where.parent / "dblp.dtd")
    if layout == "csv":
        return _csv_rows(stream, name, stats)
    raise ValueError(f"unknown layout {layout!r}")


def _json_lines(
    stream: IO[bytes], name: str, stats: TaskStats, stripe: int, stripes: int, *, count: bool
) -> Iterator[tuple[int, Any]]:
    """(line number, decoded object or None) of this stripe's lines."""
    readline = stream.readline
    line_no = -1
    text = 0
    while True:
        line = readline(MAX_RECORD_BYTES + 1)
        if not line:
            break
        line_no += 1
        text += len(line)
        if len(line) > MAX_RECORD_BYTES and not line.endswith(b"\n"):
            while (rest := readline(MAX_RECORD_BYTES)) and not rest.endswith(b"\n"):
                text += len(rest)
            text += len(rest)
            if (line_no // STRIPE_LINES) % stripes == stripe:
                stats.note(f"line {line_no + 1}: longer than {MAX_RECORD_BYTES} bytes")
                yield line_no, None
            continue
        if (line_no // STRIPE_LINES) % stripes != stripe:
            continue
        if not line.strip():
            continue
        yield line_no, line
    if count:
        stats.text_bytes += text


_WS = re.compile(r"[ \t\r\n]*")
_CHUNK = 1 << 20


class _JsonWindow:
    """A sliding window of decoded text over a byte stream, for ``raw_decode``."""

    def __init__(self, stream: IO[bytes], name: str, stats: TaskStats) -> None:
        self._reader = io.TextIOWrapper(
            io.BufferedReader(CountingReader(stream, owns=False), _CHUNK),
            encoding="utf-8",
            errors="strict",
        )
        self.name = name
        self.text = ""
        self.pos = 0
        self.eof = False
        self._stats = stats

    def more(self) -> bool:
        if self.eof:
            return False
        try:
            chunk = self._reader.read(_CHUNK)
        except UnicodeDecodeError as exc:
            raise BadInputError(f"{self.name} is not UTF-8 JSON ({exc}).") from exc
        if not chunk:
            self.eof = True
            return False
        self._stats.text_bytes += len(chunk.encode("utf-8")) if not chunk.isascii() else len(chunk)
        if self.pos > _CHUNK:
            self.text = self.text[self.pos :]
            self.pos = 0
        self.text += chunk
        return True

    def skip_ws(self) -> str:
        """The next character after whitespace ("" at the end)."""
        while True:
            self.pos = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""

    def value(self, decoder: json.JSONDecoder) -> Any:
        while True:
            try:
                value, end = decoder.raw_decode(self.text, self.pos)
            except json.JSONDecodeError:
                if len(self.text) - self.pos > MAX_RECORD_BYTES:
                    raise BadInputError(
                        f"{self.name} holds a JSON value over {MAX_RECORD_BYTES} bytes."
                    ) from None
                if self.more():
                    continue
                raise BadInputError(f"{self.name} is truncated or not JSON.") from None
            self.pos = end
            return value

    def expect(self, chars: str) -> str:
        found = self.skip_ws()
        if not found or found not in chars:
            raise BadInputError(
                f"{self.name} is not a Crossref data file: expected {chars!r} at character "
                f"{self.pos}, found {found!r}."
            )
        self.pos += 1
        return found


def _json_items(stream: IO[bytes], name: str, stats: TaskStats) -> Iterator[tuple[int, Any]]:
    """(index, item) of the ``items`` array of ``{"items": [...]}``, an item at a time."""
    window = _JsonWindow(stream, name, stats)
    decoder = json.JSONDecoder()
    window.expect("{")
    position = 0
    while True:
        if window.skip_ws() == "}":
            return
        key = window.value(decoder)
        window.expect(":")
        if key != "items":
            window.value(decoder)
        else:
            window.expect("[")
            if window.skip_ws() == "]":
                window.pos += 1
            else:
                while True:
                    window.skip_ws()
                    yield position, window.value(decoder)
                    position += 1
                    if window.expect(",]") == "]":
                        break
        if window.expect(",}") == "}":
            return


#: The named entities of ``dblp.dtd`` (the ISO Latin-1 set, and ``reg``, ``micro``,
#: ``times``), each a single character: the only entities the DBLP reader accepts.
DBLP_ENTITIES: dict[str, int] = {
    "reg": 174,
    "micro": 181,
    "times": 215,
    "Agrave": 192,
    "Aacute": 193,
    "Acirc": 194,
    "Atilde": 195,
    "Auml": 196,
    "Aring": 197,
    "AElig": 198,
    "Ccedil": 199,
    "Egrave": 200,
    "Eacute": 201,
    "Ecirc": 202,
    "Euml": 203,
    "Igrave": 204,
    "Iacute": 205,
    "Icirc": 206,
    "Iuml": 207,
    "ETH": 208,
    "Ntilde": 209,
    "Ograve": 210,
    "Oacute": 211,
    "Ocirc": 212,
    "Otilde": 213,
    "Ouml": 214,
    "Oslash": 216,
    "Ugrave": 217,
    "Uacute": 218,
    "Ucirc": 219,
    "Uuml": 220,
    "Yacute": 221,
    "THORN": 222,
    "szlig": 223,
    "agrave": 224,
    "aacute": 225,
    "acirc": 226,
    "atilde": 227,
    "auml": 228,
    "aring": 229,
    "aelig": 230,
    "ccedil": 231,
    "egrave": 232,
    "eacute": 233,
    "ecirc": 234,
    "euml": 235,
    "igrave": 236,
    "iacute": 237,
    "icirc": 238,
    "iuml": 239,
    "eth": 240,
    "ntilde": 241,
    "ograve": 242,
    "oacute": 243,
    "ocirc": 244,
    "otilde": 245,
    "ouml": 246,
    "oslash": 248,
    "ugrave": 249,
    "uacute": 250,
    "ucirc": 251,
    "uuml": 252,
    "yacute": 253,
    "thorn": 254,
    "yuml": 255,
}
_DTD_ENTITY = re.compile(rb'<!ENTITY\s+([A-Za-z][A-Za-z0-9]*)\s+"&#(x[0-9A-Fa-f]+|[0-9]+);"\s*>')
_ENTITY_REF = re.compile(rb"&([A-Za-z][A-Za-z0-9]{0,31});")
_PREDEFINED = frozenset({b"amp", b"lt", b"gt", b"quot", b"apos"})
_DTD_BYTES = 1 << 20


def dtd_entities(dtd: Path) -> dict[str, int]:
    """The single-character entities a ``dblp.dtd`` declares (read at most 1 MiB of it).

    Only ``<!ENTITY name "&#N;">`` is taken: an entity that expands to markup, to more than
    one character, or to an external resource is not, so the DTD cannot grow the input.
    """
    with dtd.open("rb") as handle:
        data = handle.read(_DTD_BYTES)
    found: dict[str, int] = {}
    for name, number in _DTD_ENTITY.findall(data):
        code = int(number[1:], 16) if number.startswith(b"x") else int(number)
        if 0 < code < 0x110000:
            found[name.decode("ascii")] = code
    return found


class _EntityFilter(io.RawIOBase):
    """XML bytes with named character references rewritten as numeric ones.

    Why: DBLP's XML uses the character entities its DTD declares (``&auml;``), and loading
    a DTD is what lets XML read local files or grow without bound.  The parser therefore
    never loads one; this filter replaces each reference to a known single-character entity
    by the character's number (the same length or shorter, so the input cannot grow), and
    any other name by U+FFFD, counted.  An internal DTD subset declaring entities is
    refused outright.  It also measures the bytes between records, the XML record cap.
    """

    def __init__(self, stream: IO[bytes], name: str, entities: Mapping[str, int]) -> None:
        super().__init__()
        self._stream = stream
        self._name = name
        self._table = {k.encode("ascii"): f"&#{v};".encode("ascii") for k, v in entities.items()}
        self._carry = b""
        self._pending = b""
        self.consumed = 0
        self.read_bytes = 0
        self.unknown = 0
        self._first = True

    def readable(self) -> bool:
        return True

    def _replace(self, m: re.Match[bytes]) -> bytes:
        name = m.group(1)
        if name in _PREDEFINED:
            return m.group(0)
        found = self._table.get(name)
        if found is None:
            self.unknown += 1
            return b"&#65533;"
        return found

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        while not self._pending:
            chunk = self._stream.read(_CHUNK)
            self.read_bytes += len(chunk)
            data = self._carry + chunk
            if self._first and data:
                self._first = False
                subset = scan_prolog(data[:_CHUNK]).internal_subset
                if subset is not None and b"<!ENTITY" in subset.upper():
                    raise BadInputError(
                        f"{self._name} declares entities in its DOCTYPE; a dump never does, "
                        "and citeproof does not expand them."
                    )
            if not chunk:
                self._pending, self._carry = data, b""
                if not data:
                    return 0
                break
            cut = data.rfind(b"&", max(0, len(data) - 40))
            if cut >= 0 and b";" not in data[cut:]:
                data, self._carry = data[:cut], data[cut:]
            else:
                self._carry = b""
            self._pending = _ENTITY_REF.sub(self._replace, data) if b"&" in data else data
        n = min(len(view), len(self._pending))
        view[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        self.consumed += n
        return n


_PUBMED_TAGS = ("PubmedArticle", "PubmedBookArticle", "DeleteCitation")
_DBLP_TAGS = (*sorted(records.DBLP_RECORDS), "www", "data")


def _xml_records(
    stream: IO[bytes], name: str, stats: TaskStats, dtd: Path
) -> Iterator[tuple[int, Any]]:
    """(index, element) of each record element; the element is cleared once yielded.

    A DBLP dump's entities are those of :data:`DBLP_ENTITIES`, and of the ``dblp.dtd``
    beside the file when there is one (DBLP adds entities to its DTD now and then)."""
    from lxml import etree

    prolog = scan_prolog(stream.peek(1 << 16)[: 1 << 16]) if hasattr(stream, "peek") else None
    dblp = prolog is not None and prolog.root == "dblp"
    entities: Mapping[str, int] = {}
    if dblp:
        entities = dict(DBLP_ENTITIES)
        if dtd.is_file():
            entities.update(dtd_entities(dtd))
    source = _EntityFilter(stream, name, entities)
    counted = CountingReader(source, owns=False)
    events = etree.iterparse(
        io.BufferedReader(counted, _CHUNK),
        events=("end",),
        tag=_DBLP_TAGS if dblp else _PUBMED_TAGS,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    position = 0
    last = 0
    try:
        for _event, element in events:
            if counted.count - last > MAX_RECORD_BYTES + 2 * _CHUNK:
                raise BadInputError(f"{name} holds an XML record over {MAX_RECORD_BYTES} bytes.")
            last = counted.count
            yield position, element
            position += 1
            element.clear()
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    del parent[0]
    except etree.XMLSyntaxError as exc:
        raise BadInputError(
            f"{name} is not well-formed XML ({exc.msg}, line {exc.lineno}); download it again."
        ) from exc
    stats.text_bytes += source.read_bytes
    if source.unknown:
        stats.note(f"{source.unknown} unknown named entities read as U+FFFD")


def _csv_rows(stream: IO[bytes], name: str, stats: TaskStats) -> Iterator[tuple[int, Any]]:
    # The csv module's field limit is process-wide: raised for this file only, and put back
    # when it is read (the Retraction Watch import keeps the default, and relies on it).
    previous = csv.field_size_limit(_CSV_FIELD_BYTES)
    try:
        yield from _csv_rows_limited(stream, name, stats)
    finally:
        csv.field_size_limit(previous)


def _csv_rows_limited(stream: IO[bytes], name: str, stats: TaskStats) -> Iterator[tuple[int, Any]]:
    counted = CountingReader(stream, owns=False)
    text = io.TextIOWrapper(
        io.BufferedReader(counted, _CHUNK), encoding="utf-8-sig", errors="replace", newline=""
    )
    reader = csv.reader(text)
    header = [h.strip() for h in next(reader, [])]
    position = 0
    try:
        for fields in reader:
            if not fields or (len(fields) == 1 and not fields[0].strip()):
                continue
            yield position, dict(zip(header, fields, strict=False))
            position += 1
    except csv.Error as exc:
        raise BadInputError(
            f"{name} is not a readable CSV (line {reader.line_num}: {exc})."
        ) from exc
    stats.text_bytes += counted.count


# --- units to records -----------------------------------------------------------------------


def _json_object(unit: Any, stats: TaskStats) -> dict[str, Any] | None:
    if unit is None:
        return None
    if isinstance(unit, bytes):
        try:
            value = json.loads(unit)
        except (ValueError, UnicodeDecodeError):
            stats.note("a line that is not JSON")
            return None
    else:
        value = unit
    if not isinstance(value, dict):
        stats.note("a JSON value that is not an object")
        return None
    return value


#: Where an OpenAlex work's tail begins: reference lists, related works, the abstract's
#: inverted index and yearly counts, none of which a record holds.  The snapshot writes the
#: work's fields in the API's order, with these last; ``updated_date`` is read from the tail.
_OPENALEX_TAIL = b'"referenced_works_count":'
_UPDATED = re.compile(rb'"updated_date":\s*"([0-9]{4}-[0-9]{2}-[0-9]{2})')


def _openalex_head(unit: Any, stats: TaskStats) -> dict[str, Any] | None:
    """An OpenAlex line decoded without its tail (a third of the line, and of the time),
    or whole when it cannot be cut.

    A cut prefix that decodes is a cut between top-level members: inside a string or a
    nested value the prefix could not be valid JSON.  Anything else is decoded whole.
    """
    if isinstance(unit, bytes):
        cut = unit.find(_OPENALEX_TAIL)
        if cut > 0:
            try:
                value = json.loads(unit[:cut].rstrip().rstrip(b",") + b"}")
            except (ValueError, UnicodeDecodeError):
                value = None
            if isinstance(value, dict) and "id" in value:
                if "updated_date" not in value and (found := _UPDATED.search(unit, cut)):
                    value["updated_date"] = found.group(1).decode("ascii")
                return value
    return _json_object(unit, stats)


def _from_json(
    build: Callable[[Mapping[str, Any]], records.Parsed | None],
    decode: Callable[[Any, TaskStats], dict[str, Any] | None] | None = None,
) -> Callable[..., list[Any]]:
    read = decode or _json_object

    def convert(unit: Any, stats: TaskStats) -> list[Any]:
        value = read(unit, stats)
        if value is None:
            return []
        found = build(value)
        if found is None:
            stats.note("a record without its identifier")
            return []
        return [found]

    return convert


def _pubmed(unit: Any, stats: TaskStats) -> list[Any]:
    if unit.tag == "DeleteCitation":
        return list(records.pubmed_deletions(unit))
    found = records.pubmed_article(unit)
    if found is None:
        stats.note("a PubmedArticle without a PMID")
        return []
    return [found]


def _dblp(unit: Any, stats: TaskStats) -> list[Any]:
    if unit.tag not in records.DBLP_RECORDS:
        return []
    found = records.dblp_record(unit)
    if found is None:
        stats.note("a DBLP record without a key")
        return []
    return [found]


def _retraction_watch(unit: Any, stats: TaskStats) -> list[Any]:
    found = records.retraction_watch_row(unit)
    if not found:
        stats.note("a Retraction Watch row naming no original DOI or PMID")
    return list(found)


def _merged(unit: Any, stats: TaskStats) -> list[Any]:
    found = records.openalex_merge(unit)
    if found is None:
        stats.note("a merged_ids row without a work id")
        return []
    return [found]


_CONVERTERS: dict[str, Callable[[Any, TaskStats], list[Any]]] = {
    "crossref": _from_json(records.crossref_item),
    "openalex": _from_json(records.openalex_work, _openalex_head),
    "datacite": _from_json(records.datacite_resource),
    "arxiv": _from_json(records.arxiv_record),
    "pubmed": _pubmed,
    "dblp": _dblp,
    "retractionwatch": _retraction_watch,
    "openalex-merged": _merged,
}
