"""ClinicalTrials.gov API v2 study JSON to Document.

A trial registration is quoted like a paper ("the primary outcome was ..."), so its prose
fields become blocks the matcher can search and locate.  Input is the answer of
``studies/{NCT}`` (one study object) or a ``studies?...`` page (``{"studies": [...]}``,
whose first study is read, as a Document is one work).

Decisions:

* Every string field of ``protocolSection`` and ``resultsSection`` that is prose becomes
  one block, in the API's own order; ``derivedSection`` (MeSH terms computed by the
  registry, not written by the sponsor) is left out.  Enumerations (``COMPLETED``,
  ``PHASE4``), dates, booleans and numbers are not prose and are left out of the text.
* The section path is ``(module, field)`` with the API's own names, list indices dropped:
  ``("descriptionModule", "briefSummary")``, ``("outcomesModule",
  "primaryOutcomes.measure")``.  API names are stable, documented identifiers; a display
  layer can humanise them.
* ``briefTitle`` and ``officialTitle`` are region ``title``; the NCT number, sponsor,
  organisation, contacts and locations are ``front-matter`` (kind ``identifier`` for
  ``nctId``, so a caller can read the NCT number from the blocks: ``DocumentMeta`` has no
  field for it); ``referencesModule`` citations are ``references``; the rest is ``body``.
* Line breaks inside a field (eligibility criteria are lists) are kept as single line breaks
  within the block; other whitespace collapses.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from citeproof.documents._decode import json_document
from citeproof.documents._text import Context, DocBuilder, collapse
from citeproof.documents.model import Document, DocumentMeta, Region
from citeproof.errors import DocumentError, UnsupportedFormatError

__all__ = ["parse_ctgov", "study_of"]

_SECTIONS = ("protocolSection", "resultsSection")
_MAX_DEPTH = 64
_ENUM = re.compile(r"[A-Z][A-Z0-9_]*")
_DATE = re.compile(r"\d{4}(?:-\d{2}(?:-\d{2})?)?")
_FRONT_MODULES = frozenset({"sponsorCollaboratorsModule", "contactsLocationsModule"})
_TITLES = frozenset({"briefTitle", "officialTitle"})
# Fields that hold codes or contact details rather than text anyone quotes.
_SKIP_FIELDS = frozenset(
    {"class", "type", "phone", "phoneExt", "email", "zip", "geoPoint", "status", "pmid", "url"}
)


def parse_ctgov(data: bytes) -> Document:
    """Parse one ClinicalTrials.gov v2 study (or the first study of a page)."""
    study = study_of(json_document(data, "study"))
    builder = DocBuilder(Context("paragraph", "body"))
    ident = study.get("protocolSection", {}).get("identificationModule", {})
    title = ident.get("briefTitle") if isinstance(ident, dict) else None
    for section in _SECTIONS:
        modules = study.get(section)
        if not isinstance(modules, dict):
            continue
        for module, content in modules.items():
            for field, value in _strings(content, ()):
                _add(builder, module, field, value)
    text = builder.text()
    meta = DocumentMeta(title=collapse(title) if isinstance(title, str) and title else None)
    return Document(text=text, blocks=builder.blocks, format="ctgov", meta=meta)


def study_of(answer: object) -> dict[str, Any]:
    """The study in a v2 answer: the object itself, or the first of ``studies``.

    Public so that the ClinicalTrials.gov source and format detection agree on the shape.
    """
    if isinstance(answer, dict) and isinstance(answer.get("protocolSection"), dict):
        return answer
    if isinstance(answer, dict) and isinstance(answer.get("studies"), list):
        studies = answer["studies"]
        if not studies:
            raise DocumentError(
                "The ClinicalTrials.gov answer holds no study (the search matched nothing); "
                "check the NCT number or the search terms."
            )
        first = studies[0]
        if isinstance(first, dict) and isinstance(first.get("protocolSection"), dict):
            return first
    raise UnsupportedFormatError(
        "The JSON is not a ClinicalTrials.gov API v2 study (no protocolSection); supply the "
        "answer of https://clinicaltrials.gov/api/v2/studies/NCT........"
    )


def _strings(value: object, path: tuple[str, ...], depth: int = 0) -> Iterator[tuple[str, str]]:
    """(dotted field path, string) for every string leaf, in document order.

    Real studies nest a few levels; the depth cap keeps hostile JSON from exhausting the stack.
    """
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in _SKIP_FIELDS:
                yield from _strings(item, (*path, key), depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, path, depth + 1)
    elif isinstance(value, str) and path:
        yield ".".join(path), value


def _is_prose(field: str, value: str) -> bool:
    text = value.strip()
    if not text or field.endswith(("Date", ".date")):
        return False
    if field == "nctId":
        return True
    return _ENUM.fullmatch(text) is None and _DATE.fullmatch(text) is None


def _add(builder: DocBuilder, module: str, field: str, value: str) -> None:
    if not _is_prose(field, value):
        return
    kind, region = _kind_region(module, field)
    old = builder.begin(Context(kind, region, (module, field), single=True))
    for line in value.splitlines():
        builder.add(line)
        builder.soft_break()
    builder.begin(old)


def _kind_region(module: str, field: str) -> tuple[str, Region]:
    if field in _TITLES:
        return "title", "title"
    if field == "nctId":
        return "identifier", "front-matter"
    if module == "identificationModule" or module in _FRONT_MODULES:
        return "field", "front-matter"
    if module == "referencesModule":
        return "reference", "references"
    return "paragraph", "body"
