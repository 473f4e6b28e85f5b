"""The files of a LaTeX manuscript: a folder, or an archive (``.tar.gz``, ``.tgz``, ``.tar``,
``.zip``, or arXiv's single gzipped ``.tex``), read into the mapping of member name to bytes
that :func:`citeproof.manuscript.read_manuscript` takes.

Why here and not in the reader: the reader is pure (bytes in, no file access), so unpacking
and its dangers stay in the loading layer.  An archive comes from anyone, so before and while
anything is read:

* only the sources a manuscript needs are kept (:data:`SOURCE_SUFFIXES`: ``.tex``, ``.bib``,
  ``.bbl`` …); figures and PDFs are passed over unread;
* a name that is absolute, climbs out (``..``), or is a link, a device or any other
  non-regular file is refused (a folder's symbolic links are skipped, never followed);
* at most :data:`MAX_ENTRIES` entries are looked at and :data:`MAX_MEMBERS` sources kept;
  a source over :data:`MAX_MEMBER_BYTES` or all of them over :data:`MAX_TOTAL_BYTES` stop the
  reading, as do entries that declare more than :data:`MAX_DECLARED_BYTES` in all (a tar's
  headers are read before its data, so a bomb is refused before it is unpacked);
* a compressed archive that unpacks to more than :data:`MAX_RATIO` times its own size
  (past the first MiB) is a zip bomb, refused.  Every read is capped, so a member that lies
  about its size is stopped at the cap.

Refusals are :class:`~citeproof.errors.BadInputError` s (or
:class:`~citeproof.errors.SourceTooLargeError`) whose message is the one line to print.
"""

from __future__ import annotations

import gzip
import os
import posixpath
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Final

from citeproof.errors import BadInputError, SourceNotFoundError, SourceTooLargeError

__all__ = [
    "MAX_DECLARED_BYTES",
    "MAX_ENTRIES",
    "MAX_MEMBERS",
    "MAX_MEMBER_BYTES",
    "MAX_RATIO",
    "MAX_TOTAL_BYTES",
    "SOURCE_SUFFIXES",
    "manuscript_files",
    "read_archive",
    "read_folder",
]

SOURCE_SUFFIXES: Final = (".tex", ".ltx", ".latex", ".bib", ".bibtex", ".bbl", ".md", ".markdown")
MAX_ENTRIES: Final = 20_000
MAX_MEMBERS: Final = 2_000
MAX_MEMBER_BYTES: Final = 20 * 1024 * 1024
MAX_TOTAL_BYTES: Final = 64 * 1024 * 1024
MAX_DECLARED_BYTES: Final = 2 * 1024 * 1024 * 1024
MAX_RATIO: Final = 100
_FREE_BYTES: Final = 1024 * 1024
"""What any archive may unpack to before the ratio is judged (tiny archives compress well)."""


def manuscript_files(path: Path) -> dict[str, bytes]:
    """The sources of the manuscript at ``path``: a folder or an archive (module rules)."""
    if path.is_dir():
        return read_folder(path)
    if not path.is_file():
        raise SourceNotFoundError(
            f"{path} is neither a folder nor a file; give the folder or "
            "the archive of the manuscript's sources."
        )
    size = path.stat().st_size
    with path.open("rb") as handle:
        return read_archive(handle, size, name=path.name)


def read_folder(folder: Path) -> dict[str, bytes]:
    """The sources below ``folder``; symbolic links are skipped, never followed."""
    found: dict[str, bytes] = {}
    total = entries = 0
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not (Path(top) / d).is_symlink())
        for name in sorted(files):
            entries += 1
            if entries > MAX_ENTRIES:
                raise BadInputError(
                    f"The folder holds more than {MAX_ENTRIES:,} files; give the "
                    "manuscript's own folder."
                )
            full = Path(top) / name
            info = full.lstat()
            if not stat.S_ISREG(info.st_mode) or not name.lower().endswith(SOURCE_SUFFIXES):
                continue
            relative = full.relative_to(folder).as_posix()
            _check_size(relative, info.st_size, total)
            with full.open("rb") as handle:
                data = handle.read(MAX_MEMBER_BYTES + 1)
            total = _keep(found, relative, data, total)
    return found


def read_archive(handle: IO[bytes], size: int, *, name: str = "archive") -> dict[str, bytes]:
    """The sources in an archive read from ``handle`` (``size`` bytes long)."""
    head = handle.read(512)
    handle.seek(0)
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return _zip(handle, size, name)
    try:
        return _tar(handle, size, name)
    except tarfile.ReadError:
        handle.seek(0)
    if head.startswith(b"\x1f\x8b"):
        return _gzip_single(handle, size, name)
    raise BadInputError(
        f"{name} is not an archive citeproof reads (.tar.gz, .tgz, .tar, .zip "
        "or a gzipped .tex); give the folder of the sources."
    )


def _safe_name(raw: str, archive: str) -> str:
    name = raw.replace("\\", "/")
    clean = posixpath.normpath(name)
    if (
        name.startswith("/")
        or (len(name) > 1 and name[1] == ":")
        or clean == ".."
        or clean.startswith("../")
        or "\x00" in name
    ):
        raise BadInputError(
            f"{archive} holds a file named {raw!r}, outside the archive's own "
            "folder; citeproof does not unpack it."
        )
    return clean.removeprefix("./")


def _check_size(name: str, declared: int, total: int) -> None:
    if declared > MAX_MEMBER_BYTES:
        raise SourceTooLargeError(
            f"{name} is {declared:,} bytes; citeproof reads source files of "
            f"at most {MAX_MEMBER_BYTES:,}."
        )
    if total + declared > MAX_TOTAL_BYTES:
        raise SourceTooLargeError(
            f"The sources pass {MAX_TOTAL_BYTES:,} bytes in all; citeproof reads no more."
        )


def _keep(found: dict[str, bytes], name: str, data: bytes, total: int) -> int:
    if len(data) > MAX_MEMBER_BYTES:
        raise SourceTooLargeError(
            f"{name} is over {MAX_MEMBER_BYTES:,} bytes; citeproof reads "
            "source files of at most that."
        )
    total += len(data)
    if total > MAX_TOTAL_BYTES:
        raise SourceTooLargeError(
            f"The sources pass {MAX_TOTAL_BYTES:,} bytes in all; citeproof reads no more."
        )
    if len(found) >= MAX_MEMBERS:
        raise BadInputError(
            f"The archive holds more than {MAX_MEMBERS:,} source files; give "
            "the manuscript's own sources."
        )
    found[name] = data
    return total


def _ratio(name: str, unpacked: int, size: int) -> None:
    if unpacked > _FREE_BYTES and unpacked > MAX_RATIO * max(size, 1):
        raise BadInputError(
            f"{name} unpacks to more than {MAX_RATIO} times its size, as only a "
            "zip bomb does; citeproof does not unpack it."
        )


def _zip(handle: IO[bytes], size: int, name: str) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(handle)
    except zipfile.BadZipFile as exc:
        raise BadInputError(f"{name} is not a readable ZIP archive ({exc}).") from None
    infos = archive.infolist()
    if len(infos) > MAX_ENTRIES:
        raise BadInputError(
            f"{name} holds more than {MAX_ENTRIES:,} files; citeproof reads smaller archives."
        )
    if sum(i.file_size for i in infos) > MAX_DECLARED_BYTES:
        raise SourceTooLargeError(
            f"{name} unpacks to more than {MAX_DECLARED_BYTES:,} bytes; "
            "citeproof does not unpack it."
        )
    found: dict[str, bytes] = {}
    total = 0
    for info in infos:
        member = _safe_name(info.filename, name)
        mode = info.external_attr >> 16
        if info.is_dir() or not member.lower().endswith(SOURCE_SUFFIXES):
            continue
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            raise BadInputError(
                f"{name} holds {member!r}, which is not a regular file (a link); "
                "citeproof does not unpack it."
            )
        if info.file_size > 1_000_000 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise BadInputError(
                f"{name}: {member} is compressed more than {MAX_RATIO} to one, as "
                "only a zip bomb is; citeproof does not unpack it."
            )
        _check_size(member, info.file_size, total)
        with archive.open(info) as stream:
            data = stream.read(MAX_MEMBER_BYTES + 1)
        total = _keep(found, member, data, total)
        _ratio(name, total, size)
    return found


def _tar(handle: IO[bytes], size: int, name: str) -> dict[str, bytes]:
    found: dict[str, bytes] = {}
    total = declared = entries = 0
    with tarfile.open(fileobj=handle, mode="r:*") as archive:
        for info in _members(archive, name):
            entries += 1
            if entries > MAX_ENTRIES:
                raise BadInputError(
                    f"{name} holds more than {MAX_ENTRIES:,} files; citeproof "
                    "reads smaller archives."
                )
            declared += max(info.size, 0)
            if declared > MAX_DECLARED_BYTES:
                raise SourceTooLargeError(
                    f"{name} unpacks to more than {MAX_DECLARED_BYTES:,} "
                    "bytes; citeproof does not unpack it."
                )
            _ratio(name, declared, size)
            member = _safe_name(info.name, name)
            if info.isdir() or not member.lower().endswith(SOURCE_SUFFIXES):
                continue
            if not info.isreg():
                raise BadInputError(
                    f"{name} holds {member!r}, which is not a regular file (a "
                    "link or a device); citeproof does not unpack it."
                )
            _check_size(member, info.size, total)
            stream = archive.extractfile(info)
            data = stream.read(MAX_MEMBER_BYTES + 1) if stream is not None else b""
            total = _keep(found, member, data, total)
    return found


def _members(archive: tarfile.TarFile, name: str) -> Iterator[tarfile.TarInfo]:
    """The entries of a tar one by one: headers are read as they come, so a bomb's sizes
    are seen before its data is unpacked."""
    while True:
        try:
            info = archive.next()
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise BadInputError(f"{name} is a damaged archive ({exc}).") from None
        if info is None:
            return
        yield info


def _gzip_single(handle: IO[bytes], size: int, name: str) -> dict[str, bytes]:
    """arXiv serves a paper of one file as that file gzipped."""
    try:
        with gzip.GzipFile(fileobj=handle) as stream:
            data = stream.read(MAX_MEMBER_BYTES + 1)
    except (OSError, EOFError) as exc:
        raise BadInputError(f"{name} is not readable gzip data ({exc}).") from None
    _ratio(name, len(data), size)
    member = posixpath.basename(name).removesuffix(".gz") or "main.tex"
    if not member.lower().endswith(SOURCE_SUFFIXES):
        member = "main.tex"
    found: dict[str, bytes] = {}
    _keep(found, member, data, 0)
    return found
