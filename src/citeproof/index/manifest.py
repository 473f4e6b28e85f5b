"""What an index holds, as one JSON file whose hash names the index in evidence.

A verification answered from the local index cannot name request URLs (nothing was
requested); it names this manifest's hash instead.  The manifest lists every dump read (its
name, sha256, size, kind, and the newest record date in it), the counts, and when the index
was built and last updated, so the same files give an index with the same manifest and a
verification can be repeated on it.  The hash is the sha256 of the manifest's canonical JSON
(sorted keys, no spaces, UTF-8) without the ``hash`` field itself; paths on the building
machine are not in it, only file names.

``manifest.json`` is written last, by rename: an index without one is not finished (a
build or update was stopped), and :func:`~citeproof.index.query.open_index` refuses it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citeproof.errors import UnavailableError
from citeproof.index.dumps import KINDS

__all__ = [
    "MANIFEST_FORMAT",
    "MANIFEST_NAME",
    "Manifest",
    "build_manifest",
    "directory_size",
    "read_manifest",
    "write_manifest",
]

MANIFEST_NAME = "manifest.json"
MANIFEST_FORMAT = "citeproof.index/1"
_LABELS = {
    "crossref": "Crossref",
    "pubmed": "PubMed",
    "openalex": "OpenAlex",
    "datacite": "DataCite",
    "arxiv": "arXiv",
    "dblp": "DBLP",
    "retractionwatch": "Retraction Watch",
}
_PUBMED_FILE = re.compile(r"^pubmed(\d\d)n\d{4}")


def _canonical(data: Mapping[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


@dataclass(frozen=True, slots=True)
class Manifest:
    """A finished index's manifest."""

    data: Mapping[str, Any]
    hash: str

    @property
    def sources(self) -> dict[str, Any]:
        return dict(self.data.get("sources", {}))

    @property
    def files(self) -> list[dict[str, Any]]:
        return list(self.data.get("files", []))

    @property
    def counts(self) -> dict[str, int]:
        return dict(self.data.get("counts", {}))

    @property
    def built(self) -> str:
        return str(self.data.get("built", ""))

    def coverage_phrase(self) -> str:
        """What the index covers, for a ``not_found``'s wording: "PubMed baseline 2026 +
        Crossref 2025"."""
        sources = self.sources
        order = [k for k in KINDS if k in sources] + sorted(set(sources) - set(KINDS))
        parts = [str(sources[k]["label"]) for k in order if sources[k].get("label")]
        return " + ".join(parts) if parts else "no sources"


def _label(kind: str, files: list[dict[str, Any]]) -> str:
    """A source and its edition: the PubMed baseline's year from its file names, a
    Retraction Watch snapshot's day, else the year of the newest record read."""
    newest = max((f["date"] for f in files if f.get("date")), default=None)
    if kind == "pubmed":
        years = sorted(
            {m.group(1) for f in files if (m := _PUBMED_FILE.match(Path(str(f["name"])).name))}
        )
        if years:
            return f"PubMed baseline 20{years[0]}" + (
                f" (records to {newest})" if newest and len(files) > 1 else ""
            )
    if kind == "retractionwatch" and newest:
        return f"Retraction Watch {newest}"
    label = _LABELS.get(kind, kind)
    return f"{label} {newest[:4]}" if newest else label


def build_manifest(
    connection: sqlite3.Connection, directory: Path, *, built: str, engine: str
) -> dict[str, Any]:
    """The manifest of the index in ``directory`` as its tables now stand."""
    files = []
    for row in connection.execute(
        "SELECT name, kind, sha256, size, mtime_ns, newest, records, deletions, notices, "
        "skipped, text_bytes, run FROM files ORDER BY file_no"
    ):
        (name, kind, sha256, size, mtime_ns, newest, n_rec, n_del, n_not, skipped, text, run) = row
        files.append(
            {
                "name": name,
                "kind": kind,
                "sha256": sha256,
                "size": size,
                "modified": datetime.fromtimestamp(mtime_ns / 1e9, UTC).date().isoformat(),
                "date": newest,
                "records": n_rec,
                "deletions": n_del,
                "notices": n_not,
                "skipped": skipped,
                "text_bytes": text,
                "run": run,
            }
        )
    sources: dict[str, Any] = {}
    for kind in KINDS:
        mine = [f for f in files if f["kind"] == kind]
        if not mine:
            continue
        name = "openalex" if kind == "openalex-merged" else kind
        entry = sources.setdefault(name, {"files": 0, "records": 0, "notices": 0})
        entry["files"] += len(mine)
        entry["records"] += sum(f["records"] for f in mine)
        entry["notices"] += sum(f["notices"] for f in mine)
        dates = [f["date"] for f in mine if f["date"]]
        if dates:
            entry["newest"] = max([*dates, entry.get("newest", "")])
        if kind != "openalex-merged":
            entry["label"] = _label(kind, mine)
    live, dead = connection.execute(
        "SELECT COALESCE(SUM(live = 1), 0), COALESCE(SUM(live = 0), 0) FROM records"
    ).fetchone()
    works = connection.execute(
        "SELECT COUNT(*) FROM records WHERE live = 1 AND work = rid"
    ).fetchone()[0]
    counts = {
        "records": live,
        "works": works,
        "replaced_or_deleted": dead,
        "notices": connection.execute("SELECT COUNT(*) FROM notices").fetchone()[0],
        "text_bytes": sum(f["text_bytes"] for f in files),
    }
    runs = [r[0] for r in connection.execute("SELECT value FROM meta WHERE key = 'run_times'")]
    return {
        "format": MANIFEST_FORMAT,
        "engine": engine,
        "built": built,
        "runs": json.loads(runs[0]) if runs else [],
        "sources": sources,
        "files": files,
        "counts": counts,
        "size_bytes": directory_size(directory),
    }


def directory_size(directory: Path) -> int:
    """Bytes of every file under ``directory`` but the manifest and the lock."""
    total = 0
    for root, _dirs, names in os.walk(directory):
        for name in names:
            if name in (MANIFEST_NAME, ".lock"):
                continue
            with contextlib.suppress(OSError):
                total += (Path(root) / name).stat().st_size
    return total


def write_manifest(directory: Path, data: Mapping[str, Any]) -> Manifest:
    """Write ``manifest.json`` whole (temp file + rename) and return it with its hash."""
    body = {k: v for k, v in data.items() if k != "hash"}
    digest = hashlib.sha256(_canonical(body)).hexdigest()
    text = json.dumps({**body, "hash": digest}, indent=1, sort_keys=True, ensure_ascii=False)
    fd, tmp = tempfile.mkstemp(prefix=".manifest-", dir=directory)
    try:
        # mkstemp makes the file private; the index is for every reader the folder allows.
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, directory / MANIFEST_NAME)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return Manifest(body, digest)


def read_manifest(directory: Path) -> Manifest:
    """The finished index's manifest; ``UnavailableError`` when there is none or it does not
    hold together (a stopped build, a damaged copy)."""
    path = directory / MANIFEST_NAME
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UnavailableError(
            f"{directory} holds no finished local index (no {MANIFEST_NAME}); build it with "
            "'citeproof index build', or run the stopped build again to finish it."
        ) from None
    except (OSError, ValueError) as exc:
        raise UnavailableError(f"the local index manifest {path} cannot be read ({exc}).") from exc
    if not isinstance(raw, dict) or raw.get("format") != MANIFEST_FORMAT:
        raise UnavailableError(
            f"{path} is not a citeproof index manifest of format {MANIFEST_FORMAT}; build the "
            "index again with this version of citeproof."
        )
    stated = raw.pop("hash", None)
    digest = hashlib.sha256(_canonical(raw)).hexdigest()
    if stated != digest:
        raise UnavailableError(
            f"{path} does not match its own hash (edited or damaged); build the index again."
        )
    return Manifest(raw, digest)
