"""The metadata dumps as they are downloaded: opening them, bounded, and telling them apart.

A dump is named by its content, never by its file name: a user renames files, a mirror
serves ``part_000`` without an extension, and a wrong guess would index nonsense.  The first
64 KiB after decompression say which dump a file is:

=====================  ====================================================================
kind                   what the first bytes hold
=====================  ====================================================================
``crossref``           ``{"items": [`` (the public data file: one JSON object per file), or
                       a JSON line with ``DOI`` and Crossref's ``member``/``prefix``/``indexed``
``openalex``           a JSON line whose ``id`` is ``https://openalex.org/W…``
``openalex-merged``    the snapshot's ``merged_ids`` CSV: ``merge_date,id,merge_into_id``
``pubmed``             XML whose root is ``PubmedArticleSet`` (baseline and update files)
``dblp``               XML whose root is ``dblp``
``arxiv``              a JSON line with ``id``, ``authors_parsed`` or ``versions``
``datacite``           a JSON line of a ``dois`` resource (JSON:API ``attributes``)
``retractionwatch``    a CSV whose header has ``Record ID`` and ``OriginalPaperDOI``
=====================  ====================================================================

Containers are gzip (any number of members) and tar (read member by member without
unpacking; Crossref ships its public data file as one tar of gzipped JSON files, DataCite as
a tar of JSON Lines).

Bounds, so that no file can make the build grow without limit: a line or a JSON item is at
most :data:`MAX_RECORD_BYTES` (a longer one is skipped and counted), a gzip stream may
inflate at most :data:`MAX_INFLATION` times its compressed size once past
:data:`INFLATION_GRACE` bytes (a gzip bomb is refused, not indexed), and XML is parsed by
lxml without network, DTD loading or entity expansion (:mod:`citeproof.index.readers`).
"""

from __future__ import annotations

import codecs
import csv
import gzip
import hashlib
import io
import json
import re
import tarfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal

from citeproof.documents.safe_xml import scan_prolog
from citeproof.errors import BadInputError

__all__ = [
    "INFLATION_GRACE",
    "KINDS",
    "MAX_INFLATION",
    "MAX_RECORD_BYTES",
    "CountingReader",
    "Detected",
    "DumpKind",
    "Layout",
    "detect",
    "detect_bytes",
    "open_stream",
    "tar_members",
]

DumpKind = Literal[
    "crossref",
    "openalex",
    "openalex-merged",
    "pubmed",
    "dblp",
    "arxiv",
    "datacite",
    "retractionwatch",
]
#: Every dump kind, in the order sources are listed (``index info``, the coverage phrase).
KINDS: tuple[DumpKind, ...] = (
    "crossref",
    "pubmed",
    "openalex",
    "openalex-merged",
    "datacite",
    "arxiv",
    "dblp",
    "retractionwatch",
)
Layout = Literal["jsonl", "items", "xml", "csv"]

#: The longest line or JSON item read; OpenAlex's largest works (thousands of authors) are
#: a few MB, so a record over this is damage, not data.
MAX_RECORD_BYTES = 32 * 1024 * 1024
#: How far a gzip stream may inflate, once past :data:`INFLATION_GRACE`: metadata JSON and
#: XML compress 5 to 15 times; a bomb compresses thousands of times.
MAX_INFLATION = 200
INFLATION_GRACE = 64 * 1024 * 1024
_PEEK = 64 * 1024
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class Detected:
    """What a file is: the dump kind, how its records are laid out, and its container."""

    kind: DumpKind
    layout: Layout
    compressed: bool
    tar: bool = False


class CountingReader(io.RawIOBase):
    """A raw file that counts (and optionally hashes) the bytes read through it.

    Why: the manifest records each file's sha256 and size, and hashing while the file is
    parsed costs one pass instead of two over hundreds of gigabytes.
    """

    def __init__(
        self, raw: IO[bytes] | io.RawIOBase, *, hash_it: bool = False, owns: bool = True
    ) -> None:
        super().__init__()
        self._raw = raw
        self._owns = owns
        self.count = 0
        self._hash = hashlib.sha256() if hash_it else None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        data = self._raw.read(len(view))
        n = len(data)
        view[:n] = data
        self.count += n
        if self._hash is not None:
            self._hash.update(data)
        return n

    def close(self) -> None:
        if self._owns:
            self._raw.close()
        super().close()

    def hexdigest(self) -> str | None:
        """The sha256 of everything read so far (the whole file once read to its end)."""
        return self._hash.hexdigest() if self._hash is not None else None

    def hash_rest(self) -> None:
        """Read what the parser left unread (a tar's padding, a stream stopped early), so
        the hash and the count cover the whole file."""
        while chunk := self._raw.read(1 << 20):
            self.count += len(chunk)
            if self._hash is not None:
                self._hash.update(chunk)


class _BoundedInflate(io.RawIOBase):
    """A gzip stream that refuses to inflate beyond :data:`MAX_INFLATION` times its input."""

    def __init__(self, source: CountingReader, name: str) -> None:
        super().__init__()
        self._source = source
        self._gzip = gzip.GzipFile(fileobj=io.BufferedReader(source, 1 << 20), mode="rb")
        self._name = name
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            n = self._gzip.readinto(buffer)
        except (OSError, EOFError, zlib.error) as exc:
            raise BadInputError(
                f"{self._name} is a damaged gzip file ({exc}); download it again."
            ) from exc
        self.count += n
        if self.count > INFLATION_GRACE and self.count > MAX_INFLATION * max(self._source.count, 1):
            raise BadInputError(
                f"{self._name} inflates more than {MAX_INFLATION} times its size (a gzip "
                "bomb, not a metadata dump); it was not indexed."
            )
        return n

    def close(self) -> None:
        self._gzip.close()
        self._source.close()
        super().close()


def open_stream(
    path: Path, *, hash_it: bool = False, buffer: int = 1 << 20
) -> tuple[io.BufferedReader, CountingReader]:
    """The decompressed bytes of ``path`` (gzip or plain), and the counter of its raw bytes.

    The counter's ``hexdigest()`` is the file's sha256 once the stream was read to its end.
    """
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise BadInputError(f"cannot read {path}: {exc.strerror or exc}; check the path.") from exc
    counting = CountingReader(raw, hash_it=hash_it)
    head = raw.read(2)
    raw.seek(0)
    if head == _GZIP_MAGIC:
        return io.BufferedReader(_BoundedInflate(counting, path.name), buffer), counting
    return io.BufferedReader(counting, buffer), counting


def tar_members(stream: IO[bytes], name: str) -> Iterator[tuple[int, str, IO[bytes]]]:
    """(index, name, decompressed bytes) of each regular member of a tar, in order.

    A member that is itself gzipped is inflated under the same bound as a file.
    """
    try:
        archive = tarfile.open(fileobj=stream, mode="r|*")  # noqa: SIM115 - closed below
    except tarfile.TarError as exc:
        raise BadInputError(f"{name} is not a readable tar file ({exc}).") from exc
    with archive:
        index = -1
        try:
            for member in archive:
                if not member.isfile() or member.name.rsplit("/", 1)[-1].startswith("."):
                    continue
                index += 1
                body = archive.extractfile(member)
                if body is None:
                    continue
                yield index, member.name, _member_stream(body, f"{name}:{member.name}")
        except tarfile.TarError as exc:
            raise BadInputError(f"{name} is a damaged tar file ({exc}).") from exc


def _member_stream(body: IO[bytes], name: str) -> IO[bytes]:
    head = body.read(2)
    rest = io.BufferedReader(_Prefixed(head, body), 1 << 20)
    if head == _GZIP_MAGIC:
        return io.BufferedReader(_BoundedInflate(CountingReader(rest), name), 1 << 20)
    return rest


class _Prefixed(io.RawIOBase):
    """A stream with some already-read bytes put back in front of it (tar members do not
    seek)."""

    def __init__(self, head: bytes, body: IO[bytes]) -> None:
        super().__init__()
        self._head = head
        self._body = body

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._body.read(len(view))
        view[: len(data)] = data
        return len(data)


# --- detection ------------------------------------------------------------------------------


def detect(path: Path) -> Detected:
    """What dump ``path`` is, from its first bytes; raises ``BadInputError`` for anything
    that is no dump citeproof reads."""
    if not path.is_file():
        raise BadInputError(f"{path} does not exist or is not a file; check the path.")
    stream, _ = open_stream(path, buffer=_PEEK)
    with stream:
        try:
            head = stream.peek(_PEEK)[:_PEEK]
        except BadInputError:
            raise
        except OSError as exc:
            raise BadInputError(f"cannot read {path}: {exc}; download it again.") from exc
        if _is_tar(head):
            for _index, member, body in tar_members(stream, path.name):
                inner = detect_bytes(body.read(_PEEK), f"{path.name}:{member}")
                return Detected(inner.kind, inner.layout, inner.compressed, tar=True)
            raise BadInputError(f"{path} is a tar file with no dump in it.")
        found = detect_bytes(head, str(path))
    with path.open("rb") as raw:
        compressed = raw.read(2) == _GZIP_MAGIC
    return Detected(found.kind, found.layout, compressed)


def _is_tar(head: bytes) -> bool:
    return len(head) > 262 and head[257:262] == b"ustar"


_JSON_KEY = re.compile(rb'\s*\{\s*"([^"\\]{1,40})"\s*:')


def detect_bytes(head: bytes, name: str) -> Detected:
    """The dump kind of a file whose first (decompressed) bytes are ``head``."""
    if head.startswith(codecs.BOM_UTF8):
        head = head[3:]
    stripped = head.lstrip()
    if not stripped:
        raise BadInputError(f"{name} is empty; a metadata dump was expected.")
    if stripped[:1] == b"<":
        root = scan_prolog(stripped).root
        if root == "PubmedArticleSet":
            return Detected("pubmed", "xml", False)
        if root == "dblp":
            return Detected("dblp", "xml", False)
        raise BadInputError(
            f"{name} is XML with the root element <{root or '?'}>, not a PubMed "
            "(PubmedArticleSet) or DBLP (dblp) dump."
        )
    if stripped[:1] == b"{":
        first = _JSON_KEY.match(stripped)
        if first is not None and first.group(1) == b"items":
            return Detected("crossref", "items", False)
        kind = _json_line_kind(stripped.split(b"\n", 1)[0], name)
        return Detected(kind, "jsonl", False)
    return Detected(_csv_kind(head, name), "csv", False)


def _json_line_kind(line: bytes, name: str) -> DumpKind:
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        value = None
    if not isinstance(value, dict):
        raise BadInputError(
            f"{name} starts with JSON that is not one object a line (or its first line is "
            f"longer than {_PEEK // 1024} KiB); a JSON Lines metadata dump was expected."
        )
    ident = value.get("id")
    if isinstance(ident, str) and ident.startswith("https://openalex.org/W"):
        return "openalex"
    if isinstance(value.get("attributes"), dict) or (
        value.get("type") == "dois" and isinstance(ident, str)
    ):
        return "datacite"
    if "authors_parsed" in value or ("versions" in value and "update_date" in value):
        return "arxiv"
    if isinstance(value.get("DOI"), str) and any(
        k in value for k in ("member", "prefix", "indexed", "deposited", "type")
    ):
        return "crossref"
    raise BadInputError(
        f"{name} holds JSON lines of no known dump (OpenAlex works, arXiv, DataCite or "
        "Crossref records were expected)."
    )


def _csv_kind(head: bytes, name: str) -> DumpKind:
    text = head.decode("utf-8", errors="replace")
    line = text.split("\n", 1)[0].strip("\r")
    try:
        header = [h.strip() for h in next(csv.reader([line]))]
    except (csv.Error, StopIteration):
        header = []
    if "Record ID" in header and "OriginalPaperDOI" in header:
        return "retractionwatch"
    if header[:3] == ["merge_date", "id", "merge_into_id"]:
        return "openalex-merged"
    raise BadInputError(
        f"{name} is not a metadata dump citeproof reads (Crossref, OpenAlex, PubMed, DBLP, "
        "arXiv, DataCite or Retraction Watch, gzipped or not); see docs/index.md."
    )
