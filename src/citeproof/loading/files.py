"""Local files, standard input and text given directly: read under a size cap, then parsed.

A file's format is decided by its bytes, not its name (:mod:`citeproof.documents.detect`), and
every read is capped before it happens: a file's size is checked before reading and at most
cap+1 bytes are ever read, so a huge file, a device or a stream that never ends cannot exhaust
memory.  The cap is ``CITEPROOF_MAX_FILE_BYTES`` (100 MB unless set).  The bytes are hashed on
every read, so an answer always names the bytes actually read, and parsed once per process
(:mod:`citeproof.loading.memo`).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import IO, Final

from citeproof.documents.model import Document, Origin
from citeproof.documents.plain import document_from_string
from citeproof.errors import BadInputError, SourceNotFoundError, SourceTooLargeError
from citeproof.loading.memo import parsed

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "MAX_FILE_BYTES_ENV",
    "STDIN",
    "TEXT_INPUT",
    "document_from_bytes",
    "document_from_text",
    "file_origin",
    "max_file_bytes",
    "read_bytes",
    "sha256_hex",
]

DEFAULT_MAX_FILE_BYTES: Final = 100 * 1024 * 1024
MAX_FILE_BYTES_ENV: Final = "CITEPROOF_MAX_FILE_BYTES"
#: The source name that means standard input.
STDIN: Final = "-"
#: The ``source.input`` of text given directly.
TEXT_INPUT: Final = "<text>"


def max_file_bytes(override: int | None = None) -> int:
    """The size cap in force: the argument, else ``CITEPROOF_MAX_FILE_BYTES``, else 100 MB."""
    if override is not None:
        cap = override
    else:
        raw = os.environ.get(MAX_FILE_BYTES_ENV, "").strip()
        if not raw:
            return DEFAULT_MAX_FILE_BYTES
        try:
            cap = int(raw)
        except ValueError:
            raise BadInputError(
                f"{MAX_FILE_BYTES_ENV}={raw!r} is not a whole number of bytes; "
                "set it to a positive integer or unset it."
            ) from None
    if cap <= 0:
        raise BadInputError(f"the file size cap must be a positive number of bytes, not {cap}.")
    return cap


def _too_large(what: str, cap: int) -> SourceTooLargeError:
    return SourceTooLargeError(
        f"{what} is larger than the {cap:,}-byte cap; "
        f"raise it with {MAX_FILE_BYTES_ENV} if the file is really this big."
    )


def _not_found(shown: str) -> SourceNotFoundError:
    return SourceNotFoundError(
        f"{shown} does not exist; give the path of a PDF, JATS XML, HTML or text file "
        '(or "-" to read stdin).'
    )


def _read_path(path: Path, shown: str, cap: int) -> bytes:
    """Read a regular file, checking its size before reading and never reading past cap+1."""
    try:
        with path.open("rb") as fh:
            if os.fstat(fh.fileno()).st_size > cap:
                raise _too_large(shown, cap)
            data = fh.read(cap + 1)  # also guards files that grow, FIFOs and /dev/* devices
    except IsADirectoryError:
        raise SourceNotFoundError(f"{shown} is a directory; give the path of a file.") from None
    except FileNotFoundError:
        raise _not_found(shown) from None
    except PermissionError:
        raise SourceNotFoundError(
            f"cannot read {shown}: permission denied; check the file's permissions."
        ) from None
    except OSError as exc:
        raise SourceNotFoundError(f"cannot read {shown}: {exc.strerror or exc}.") from None
    except ValueError:  # e.g. a NUL byte in the path
        raise SourceNotFoundError(f"{shown!r} is not a valid path.") from None
    if len(data) > cap:
        raise _too_large(shown, cap)
    return data


def read_bytes(
    source: str | os.PathLike[str], *, max_bytes: int | None = None, stdin: IO[bytes] | None = None
) -> bytes:
    """The bytes of a file, or of standard input for ``"-"``, refusing more than the cap."""
    cap = max_file_bytes(max_bytes)
    shown = os.fspath(source)
    if shown == STDIN:
        data = (stdin if stdin is not None else sys.stdin.buffer).read(cap + 1)
        if len(data) > cap:
            raise _too_large("standard input", cap)
        return data
    if not shown.strip():
        raise SourceNotFoundError("the source path is empty; give the path of a file.")
    return _read_path(Path(shown), shown, cap)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_origin(shown: str, data: bytes) -> Origin:
    """Where bytes read from a file (or stdin, for ``"-"``) came from."""
    served_by = "stdin" if shown == STDIN else "file"
    return Origin(input=shown, coverage="file", served_by=served_by, sha256=sha256_hex(data))


def document_from_bytes(data: bytes, origin: Origin, name: str | None = None) -> Document:
    """The Document for a file's or stdin's bytes, named by ``origin`` (which holds their
    sha256); the same bytes are parsed once per process."""
    assert origin.sha256 is not None  # file_origin hashed the bytes
    return parsed(origin.sha256, data, name).with_origin(origin)


def document_from_text(text: str) -> Document:
    """Source text given directly, as a Document whose ``source.coverage`` is ``text``."""
    document = document_from_string(text)
    digest = sha256_hex(text.encode("utf-8", "surrogatepass"))
    document.origin = Origin(input=TEXT_INPUT, coverage="text", served_by="text", sha256=digest)
    return document
