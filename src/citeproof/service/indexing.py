"""The door to the local index (``citeproof index``): build one from the metadata dumps,
update it with newer ones, say what it holds, and open it for a caller.

The command line may not import ``citeproof.index`` (docs/architecture.md, "the
interfaces"), so it comes here; everything is the index package's, re-exported.  Importing
this module does not import tantivy: the extra is needed only when an index is built or
opened (``EXTRA_MISSING`` is what every door says without it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from citeproof.index.build import BuildReport, Progress, build_index, update_index
from citeproof.index.engine import EXTRA_MISSING
from citeproof.index.manifest import Manifest, read_manifest
from citeproof.index.query import IndexNotice, LocalIndex, open_index

__all__ = [
    "EXTRA_MISSING",
    "BuildReport",
    "IndexNotice",
    "LocalIndex",
    "Manifest",
    "Progress",
    "build_index",
    "index_info",
    "open_index",
    "report_json",
    "update_index",
]


def index_info(directory: Path) -> Manifest:
    """The manifest of the finished index in ``directory`` (no tantivy needed to read it);
    ``UnavailableError`` when there is none."""
    return read_manifest(directory)


def report_json(report: BuildReport) -> dict[str, Any]:
    """What ``citeproof index build|update --json`` prints: the run, then the manifest."""
    return {
        "directory": str(report.directory),
        "mode": report.mode,
        "files_read": report.files,
        "records_read": report.records,
        "seconds": round(report.seconds, 1),
        "resumed": report.resumed,
        "workers": report.workers,
        "passed_over": list(report.passed_over),
        "manifest": {**report.manifest.data, "hash": report.manifest.hash},
    }
