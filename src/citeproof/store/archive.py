"""The cache export file: a zip a colleague can import to check against the same bytes.

Why a zip of a manifest plus ``blobs/<sha256>`` rather than a copy of the SQLite file: it can
be inspected with ordinary tools, and reading a manifest and hashing members is safer than
opening an untrusted database.  Reading is all-or-nothing: every member is size-bounded and
hash-verified and the manifest fully validated before the cache writes anything
(:meth:`citeproof.store.cache.Cache.import_from`, which calls :func:`read_export`; this module
knows the file format and nothing of the database).
"""

from __future__ import annotations

import json
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from citeproof.redact import strip_secret_params
from citeproof.store.cache_records import (
    DEFAULT_MEDIA_TYPE,
    CacheError,
    CacheImportError,
    Pin,
    check_sha256,
    meta_to_json,
    normalize_timestamp,
    sha256_hex,
)

__all__ = ["EXPORT_FORMAT", "EXPORT_VERSION", "is_export", "read_export", "write_export"]

EXPORT_FORMAT = "citeproof-cache-export"
EXPORT_VERSION = 1
MAX_MANIFEST_BYTES = 64 * 1024 * 1024


def is_export(path: str | Path) -> bool:
    """Whether ``path`` is laid out as a cache export (a zip of ``manifest.json`` and
    ``blobs/...`` only), which ``cache export`` may replace without ``--overwrite``: it made
    the file, and exporting again is how a user refreshes it.  Reads the zip's directory
    only; whether the contents verify is ``cache import``'s business."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    except (OSError, zipfile.BadZipFile, ValueError):
        return False
    return "manifest.json" in names and all(
        n == "manifest.json" or n.startswith("blobs/") for n in names
    )


def write_export(fh: IO[bytes], pins: list[Pin], blob: Callable[[str], bytes]) -> None:
    """Write the zip for ``pins`` to ``fh``; ``blob(sha256)`` reads (and verifies) bytes."""
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", _manifest_json(pins))
        for digest in sorted({p.sha256 for p in pins}):
            zf.writestr(f"blobs/{digest}", blob(digest))


def _manifest_json(pins: list[Pin]) -> str:
    """The manifest of an export: format, blob list with sizes, and the pins."""
    blobs = {p.sha256: p for p in pins}
    manifest = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "blobs": [
            {"sha256": digest, "size": p.size, "media_type": p.media_type}
            for digest, p in sorted(blobs.items())
        ],
        "pins": [
            {
                "key": p.key,
                "sha256": p.sha256,
                "version": p.version,
                "retrieved_at": p.retrieved_at,
                "url": p.url,
                "served_by": p.served_by,
                "meta": p.meta,
            }
            for p in pins
        ],
    }
    return json.dumps(manifest, sort_keys=True, ensure_ascii=False, indent=1)


def _refuse(path: Path, why: str) -> CacheImportError:
    return CacheImportError(f"Refusing to import {path}: {why}. Nothing was imported.")


def _opt_str(value: object, what: str, path: Path) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise _refuse(path, f"{what} is not a string")


def read_export(path: Path) -> tuple[dict[str, tuple[str, bytes]], list[dict[str, Any]]]:
    """Read and fully verify an export file; return its blobs and cleaned pin rows."""
    try:
        zf = zipfile.ZipFile(path)
    except FileNotFoundError as exc:
        raise CacheError(f"No export file at {path}.") from exc
    except (zipfile.BadZipFile, OSError) as exc:
        raise _refuse(path, f"it is not a citeproof cache export ({exc})") from exc
    with zf:
        try:
            return _read_export_zip(path, zf)
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
            raise _refuse(path, f"the file is damaged ({exc})") from exc


def _read_member(zf: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """Read at most ``limit + 1`` bytes, so a lying header cannot make us inflate a bomb."""
    with zf.open(name) as fh:
        return fh.read(limit + 1)


_Blobs = dict[str, tuple[str, bytes]]


def _read_export_zip(path: Path, zf: zipfile.ZipFile) -> tuple[_Blobs, list[dict[str, Any]]]:
    """The file's blobs and pins, each part checked by its own reader, in this order: the
    members, the manifest, every blob (and no member besides), every pin."""
    names = [info.filename for info in zf.infolist()]
    if len(names) != len(set(names)):
        raise _refuse(path, "it contains duplicate members")
    blob_entries, pin_entries = _read_manifest(path, zf, names)
    blobs = _read_blobs(path, zf, names, blob_entries)
    seen_keys: set[str] = set()
    pins = [_read_pin(path, entry, blobs, seen_keys) for entry in pin_entries]
    return blobs, pins


def _read_manifest(
    path: Path, zf: zipfile.ZipFile, names: list[str]
) -> tuple[list[Any], list[Any]]:
    """The manifest's blob and pin lists, once it is a manifest of this format's version."""
    if "manifest.json" not in names:
        raise _refuse(path, "it has no manifest.json, so it is not a citeproof cache export")
    raw = _read_member(zf, "manifest.json", MAX_MANIFEST_BYTES)
    if len(raw) > MAX_MANIFEST_BYTES:
        raise _refuse(path, "its manifest is implausibly large")
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _refuse(path, f"its manifest is not valid JSON ({exc})") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != EXPORT_FORMAT:
        raise _refuse(path, "it is not a citeproof cache export")
    if manifest.get("version") != EXPORT_VERSION:
        raise _refuse(
            path,
            f"it is export format version {manifest.get('version')!r}; "
            f"this citeproof reads version {EXPORT_VERSION}",
        )
    blob_entries = manifest.get("blobs")
    pin_entries = manifest.get("pins")
    if not isinstance(blob_entries, list) or not isinstance(pin_entries, list):
        raise _refuse(path, "its manifest has no blob or pin list")
    return blob_entries, pin_entries


def _read_blobs(path: Path, zf: zipfile.ZipFile, names: list[str], entries: list[Any]) -> _Blobs:
    """Every blob the manifest lists, read and hashed; a member it does not list is refused."""
    blobs: _Blobs = {}
    for entry in entries:
        digest, media_type = _blob_entry(path, entry)
        member = f"blobs/{digest}"
        if member not in names:
            raise _refuse(path, f"blob {digest} is listed but missing")
        if digest in blobs:
            raise _refuse(path, f"blob {digest} is listed twice")
        size: int = entry["size"]
        data = _read_member(zf, member, size)
        if len(data) != size or sha256_hex(data) != digest:
            raise _refuse(path, f"blob {digest} does not match its sha256 (tampered or damaged)")
        blobs[digest] = (media_type, data)
    extra = sorted(set(names) - {"manifest.json"} - {f"blobs/{digest}" for digest in blobs})
    if extra:
        raise _refuse(path, f"it contains unexpected members ({', '.join(extra[:3])})")
    return blobs


def _blob_entry(path: Path, entry: Any) -> tuple[str, str]:
    """A blob entry's sha256 and media type, once its fields have their types."""
    if not isinstance(entry, dict):
        raise _refuse(path, "a blob entry is not an object")
    try:
        digest = check_sha256(entry.get("sha256"))
    except CacheError as exc:
        raise _refuse(path, f"a blob entry has a bad sha256 ({exc})") from exc
    size = entry.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size < 0:
        raise _refuse(path, f"blob {digest} has no valid size")
    media_type = entry.get("media_type", DEFAULT_MEDIA_TYPE)
    if not isinstance(media_type, str):
        raise _refuse(path, f"blob {digest} has a bad media type")
    return digest, media_type


def _read_pin(path: Path, entry: Any, blobs: _Blobs, seen_keys: set[str]) -> dict[str, Any]:
    """One pin as the cache stores it: a key not seen before, bytes the file holds, the
    timestamp normalised, secrets stripped from its URL."""
    if not isinstance(entry, dict):
        raise _refuse(path, "a pin entry is not an object")
    key = entry.get("key")
    if not isinstance(key, str) or not key:
        raise _refuse(path, "a pin has no key")
    if key in seen_keys:
        raise _refuse(path, f"pin {key} appears twice")
    seen_keys.add(key)
    pin_digest = entry.get("sha256")
    if not isinstance(pin_digest, str) or pin_digest not in blobs:
        raise _refuse(path, f"pin {key} refers to bytes the file does not contain")
    retrieved_at = entry.get("retrieved_at")
    if not isinstance(retrieved_at, str):
        raise _refuse(path, f"pin {key} has no retrieved_at")
    try:
        when = normalize_timestamp(retrieved_at)
    except CacheError as exc:
        raise _refuse(path, f"pin {key}: {exc}") from exc
    url = _opt_str(entry.get("url"), f"pin {key} url", path)
    meta = entry.get("meta", {})
    if not isinstance(meta, dict):
        raise _refuse(path, f"pin {key} meta is not an object")
    try:
        meta_json = meta_to_json(meta)
    except CacheError as exc:
        raise _refuse(path, f"pin {key}: {exc}") from exc
    return {
        "key": key,
        "sha256": pin_digest,
        "version": _opt_str(entry.get("version"), f"pin {key} version", path),
        "retrieved_at": when,
        "url": strip_secret_params(url) if url is not None else None,
        "served_by": _opt_str(entry.get("served_by"), f"pin {key} served_by", path),
        "meta": meta_json,
    }
