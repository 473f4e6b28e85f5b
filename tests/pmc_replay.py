"""Replay folders for the PMC chain of PMC3166277, shared by the CLI tests.

The PMC Cloud Service answers wrap the corpus JATS file of PMC3166277 in metadata built here
(with the file's real md5), since the corpus holds no recorded metadata for an article whose
JATS it also holds; the ID converter answer is built the same way.  Tests that use these
skip, with the reason, when the shared corpus is absent.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from citeproof.net.recordings import write_recording

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
JATS = CORPUS / "pmc-jats" / "PMC3166277.nxml"
MISSING = "../shared/corpus not found: these tests need the shared corpus beside the repository"
QUOTE = (
    "One trait that provides a good model to explore the molecular basis of stochastic "
    "variation is the timing of host lysis by bacteriophage (phage)."
)
BUCKET = "https://pmc-oa-opendata.s3.amazonaws.com"
IDCONV = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/"
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
XML = {"content-type": "application/xml"}
JSON = {"content-type": "application/json"}


def jats() -> bytes:
    if not JATS.is_file():
        pytest.skip(MISSING)
    return JATS.read_bytes()


def listing(prefix: str, keys: list[str]) -> bytes:
    contents = "".join(f"<Contents><Key>{k}</Key><Size>1</Size></Contents>" for k in keys)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        f"<Name>pmc-oa-opendata</Name><Prefix>{prefix}</Prefix><KeyCount>{len(keys)}</KeyCount>"
        f"<MaxKeys>1000</MaxKeys><IsTruncated>false</IsTruncated>{contents}</ListBucketResult>"
    ).encode()


def record(folder: Path, name: str, url: str, body: bytes, *, status: int = 200, **h: str) -> None:
    headers = dict(h) or dict(XML)
    write_recording(folder, name, url=url, status=status, headers=headers, body=body, date=WHEN)


def pmc_replay(folder: Path, data: bytes | None = None) -> Path:
    """The ID converter and PMC Cloud Service answers for PMC3166277 (open access).

    ``data`` replaces the corpus JATS bytes (with a matching md5), to play an upstream change.
    """
    data = jats() if data is None else data
    meta = {
        "pmcid": "PMC3166277",
        "version": 1,
        "pmid": 21909999,
        "doi": "10.1000/example.3166277",
        "title": "An open article",
        "is_pmc_openaccess": True,
        "is_manuscript": False,
        "is_retracted": False,
        "license_code": "CC BY",
        "xml_url": "s3://pmc-oa-opendata/PMC3166277.1/PMC3166277.1.xml"
        f"?md5={hashlib.md5(data).hexdigest()}",
    }
    idconv = {
        "status": "ok",
        "records": [
            {
                "pmcid": "PMC3166277",
                "pmid": 21909999,
                "doi": "10.1000/example.3166277",
                "requested-id": "PMC3166277",
            }
        ],
    }
    record(
        folder,
        "idconv",
        IDCONV + "?ids=PMC3166277&idtype=pmcid&format=json",
        json.dumps(idconv).encode(),
        **JSON,
    )
    record(
        folder,
        "listing",
        BUCKET + "/?list-type=2&prefix=PMC3166277.",
        listing("PMC3166277.", ["PMC3166277.1/PMC3166277.1.xml"]),
    )
    record(
        folder,
        "metadata",
        BUCKET + "/PMC3166277.1/PMC3166277.1.json",
        json.dumps(meta).encode(),
        **JSON,
    )
    record(folder, "jats", BUCKET + "/PMC3166277.1/PMC3166277.1.xml", data)
    return folder
