"""The INVENTED dumps of ``dumps/``, written as they are published (gzipped where the real
ones are), for the local index's tests."""

from __future__ import annotations

import gzip
from pathlib import Path

DUMPS = Path(__file__).resolve().parent / "dumps"
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
NO_CORPUS = "../shared/corpus not found: the index's corpus tests need the shared corpus"

#: (file in dumps/, name as published, gzipped?)
PUBLISHED = (
    ("crossref-0.json", "crossref/0.json.gz", True),
    ("openalex-part_000.jsonl", "openalex/updated_date=2026-02-03/part_000.gz", True),
    ("openalex-merged_ids.csv", "openalex/merged_ids/works/2026-01-30.csv.gz", True),
    ("pubmed26n0001.xml", "pubmed/pubmed26n0001.xml.gz", True),
    ("dblp.xml", "dblp/dblp.xml.gz", True),
    ("arxiv-metadata-oai-snapshot.json", "arxiv/arxiv-metadata-oai-snapshot.json", False),
    ("datacite-dois.jsonl", "datacite/2025-12/updated_2025-12.jsonl.gz", True),
    ("retraction_watch.csv", "retractionwatch/retraction_watch.csv", False),
)
UPDATE = ("pubmed26n0002.xml", "pubmed-updates/pubmed26n0002.xml.gz", True)


def publish(name: str, target: Path, gzipped: bool) -> Path:
    """Write ``dumps/name`` to ``target`` as it is published (gzipped or not)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    data = (DUMPS / name).read_bytes()
    if gzipped:
        target.write_bytes(gzip.compress(data, mtime=0))
    else:
        target.write_bytes(data)
    return target
