"""The citation fields reference managers embed in Word files, read into CSL-JSON items.

Why the fields matter: a field stores the exact work a citation names (the manager's own
record), so it links the citation to its reference without guessing from a printed "[3]".
The formats, as the managers write them (instruction text of a Word field, ``w:instrText``
or ``w:fldSimple/@w:instr``):

* **Zotero**: ``ADDIN ZOTERO_ITEM CSL_CITATION {json}``, where ``citationItems[].itemData``
  is CSL-JSON and ``citationItems[]`` also holds ``id``, ``uris``, ``locator``, ``label``;
  the JSON may be followed by more text (a random id), so it is read with
  ``json.JSONDecoder.raw_decode`` from its first brace.  Bibliography:
  ``ADDIN ZOTERO_BIBL {json} CSL_BIBLIOGRAPHY``.
* **Mendeley Desktop**: ``ADDIN CSL_CITATION {json}`` (older:
  ``ADDIN Mendeley Citation{uuid} CSL_CITATION {json}``), the same JSON shape with a
  ``mendeley`` object; bibliography ``ADDIN Mendeley Bibliography CSL_BIBLIOGRAPHY``.
  **Mendeley Cite** stores no field: a content control whose tag is
  ``MENDELEY_CITATION_v3_`` + base64 of the same JSON (:func:`read_mendeley_tag`);
  bibliography tag ``MENDELEY_BIBLIOGRAPHY``.
* **EndNote**: ``ADDIN EN.CITE <EndNote><Cite>…</Cite></EndNote>`` with the XML in the
  instruction, or ``ADDIN EN.CITE`` alone with the XML base64-encoded in the ``w:fldData`` of
  the field's begin mark (and repeated in a nested ``ADDIN EN.CITE.DATA`` field, which is
  ignored).  Each ``<Cite>`` has ``Author``, ``Year``, ``RecNum``, ``Pages``, ``DisplayText``
  and a ``<record>`` (``titles/title``, ``titles/secondary-title``, ``periodical/full-title``,
  ``contributors/authors/author``, ``dates/year``, ``electronic-resource-num`` (the DOI),
  ``accession-num``, ``volume``, ``number``, ``pages``, ``urls``, ``ref-type``), which is
  given here in the CSL-JSON shape.  Bibliography: ``ADDIN EN.REFLIST``.

Caps: a field's data is read up to :data:`MAX_FIELD_DATA` characters (a longer one is
reported and skipped), JSON nested too deep is refused by the decoder, EndNote XML goes
through the same safe XML parser as every article (no entities, no network).

Pure: no I/O.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from lxml import etree

from citeproof.documents.safe_xml import local_name, parse_xml_safely
from citeproof.errors import CiteproofError

__all__ = [
    "MAX_FIELD_DATA",
    "FieldData",
    "FieldItem",
    "bibliography_field",
    "read_field",
    "read_mendeley_tag",
]

#: Characters of one field's data (JSON or XML) read.
MAX_FIELD_DATA: Final = 2_000_000

Manager = Literal["zotero", "mendeley", "endnote"]
_ZOTERO = re.compile(r"\s*ADDIN\s+ZOTERO_ITEM\b", re.IGNORECASE)
_MENDELEY = re.compile(r"\s*ADDIN\s+(?:Mendeley\s+Citation\S*\s+)?CSL_CITATION\b", re.IGNORECASE)
_ENDNOTE = re.compile(r"\s*ADDIN\s+EN\.CITE(?!\.DATA)\b", re.IGNORECASE)
_ENDNOTE_DATA = re.compile(r"\s*ADDIN\s+EN\.CITE\.DATA\b", re.IGNORECASE)
_BIBLIOGRAPHY = re.compile(
    r"\s*ADDIN\s+(?:ZOTERO_BIBL\b|EN\.REFLIST\b|Mendeley\s+Bibliography\b|CSL_BIBLIOGRAPHY\b)",
    re.IGNORECASE,
)
_MENDELEY_TAG = "MENDELEY_CITATION_v3_"


@dataclass(frozen=True, slots=True)
class FieldItem:
    """One work a field cites."""

    key: str | None
    """The manager's id for it (CSL ``id``, the first of ``uris``, EndNote ``RecNum``)."""
    csl: Mapping[str, Any]
    locator: str | None = None


@dataclass(frozen=True, slots=True)
class FieldData:
    """What a citation field holds."""

    manager: Manager
    items: tuple[FieldItem, ...]
    error: str | None = None
    """Why the field's data could not be read (the field is still a citation)."""


def bibliography_field(instruction: str) -> bool:
    """Whether the instruction is a reference manager's bibliography field."""
    return _BIBLIOGRAPHY.match(instruction) is not None


def read_field(instruction: str, field_data: str | None = None) -> FieldData | None:
    """The citation a field instruction holds; None when it is no reference manager's
    citation field (a page number, a hyperlink, EndNote's nested data field)."""
    if _ZOTERO.match(instruction):
        return _csl_field("zotero", instruction)
    if _MENDELEY.match(instruction):
        return _csl_field("mendeley", instruction)
    if _ENDNOTE_DATA.match(instruction):
        return None
    if m := _ENDNOTE.match(instruction):
        rest = instruction[m.end() :].strip()
        if rest.startswith("<"):
            return _endnote(rest.encode("utf-8"))
        if field_data:
            try:
                raw = base64.b64decode(
                    "".join(field_data.split())[: 2 * MAX_FIELD_DATA], validate=False
                )
            except (binascii.Error, ValueError):
                return FieldData("endnote", (), "The field's data is not base64.")
            return _endnote(raw)
        return FieldData("endnote", (), "The EndNote field holds no citation data.")
    return None


def read_mendeley_tag(tag: str) -> FieldData | None:
    """A Mendeley Cite content control's tag as a citation; None for any other tag."""
    if not tag.startswith(_MENDELEY_TAG):
        return None
    payload = tag[len(_MENDELEY_TAG) :]
    if len(payload) > 2 * MAX_FIELD_DATA:
        return FieldData("mendeley", (), _too_long())
    try:
        decoded = base64.b64decode(payload + "=" * (-len(payload) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return FieldData("mendeley", (), "The citation's data is not base64 of UTF-8 JSON.")
    return _csl_json("mendeley", decoded)


def _too_long() -> str:
    return f"The field's data is over {MAX_FIELD_DATA:,} characters; it was not read."


def _csl_field(manager: Manager, instruction: str) -> FieldData:
    brace = instruction.find("{")
    if brace < 0:
        return FieldData(manager, (), "The field holds no citation data.")
    return _csl_json(manager, instruction[brace:])


def _csl_json(manager: Manager, data: str) -> FieldData:
    if len(data) > MAX_FIELD_DATA:
        return FieldData(manager, (), _too_long())
    try:
        value, _ = json.JSONDecoder().raw_decode(data)
    except (ValueError, RecursionError):
        return FieldData(manager, (), "The field's citation data is not valid JSON.")
    if not isinstance(value, dict) or not isinstance(value.get("citationItems"), list):
        return FieldData(manager, (), "The field's JSON has no citationItems.")
    items: list[FieldItem] = []
    for entry in value["citationItems"]:
        if not isinstance(entry, dict):
            continue
        data_item = entry.get("itemData")
        csl: dict[str, Any] = dict(data_item) if isinstance(data_item, dict) else {}
        uris = entry.get("uris") or entry.get("uri")
        uri = uris[0] if isinstance(uris, list) and uris and isinstance(uris[0], str) else None
        key = _text(entry.get("id")) or _text(csl.get("id")) or uri
        if key and "id" not in csl:
            csl["id"] = key
        locator = _text(entry.get("locator"))
        label = _text(entry.get("label"))
        if locator and label and label != "page":
            locator = f"{label} {locator}"
        items.append(FieldItem(key, csl, locator or None))
    error = None if items else "The field cites no item."
    return FieldData(manager, tuple(items), error)


def _text(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    return " ".join(str(value).split())


# --- EndNote ------------------------------------------------------------------------------


def _endnote(data: bytes) -> FieldData:
    if len(data) > MAX_FIELD_DATA:
        return FieldData("endnote", (), _too_long())
    try:
        root = parse_xml_safely(data)
    except CiteproofError as exc:
        return FieldData("endnote", (), f"The EndNote data is not readable XML: {exc}")
    if root is None:
        return FieldData("endnote", (), "The EndNote field holds no citation data.")
    items = [_cite(c) for c in root.iter() if local_name(c) == "Cite"]
    return FieldData("endnote", tuple(items), None if items else "The field cites no item.")


def _kid(el: etree._Element, *path: str) -> etree._Element | None:
    for name in path:
        found = next((c for c in el if local_name(c) == name), None)
        if found is None:
            return None
        el = found
    return el


def _all_text(el: etree._Element | None) -> str:
    return " ".join("".join(el.itertext()).split()) if el is not None else ""


def _cite(cite: etree._Element) -> FieldItem:
    record = _kid(cite, "record")
    rec_num = _all_text(_kid(cite, "RecNum")) or (
        _all_text(_kid(record, "rec-number")) if record is not None else ""
    )
    csl: dict[str, Any] = {}
    if record is not None:
        csl = _record(record)
    if not csl.get("author") and (author := _all_text(_kid(cite, "Author"))):
        csl["author"] = [{"family": author}]
    if "issued" not in csl and (year := _all_text(_kid(cite, "Year"))):
        csl["issued"] = {"raw": year}
    key = f"RN{rec_num}" if rec_num else None
    if key:
        csl.setdefault("id", key)
    return FieldItem(key, csl, _all_text(_kid(cite, "Pages")) or None)


def _record(record: etree._Element) -> dict[str, Any]:
    def get(*path: str) -> str:
        return _all_text(_kid(record, *path))

    csl: dict[str, Any] = {}
    if title := get("titles", "title"):
        csl["title"] = title
    venue = get("titles", "secondary-title") or get("periodical", "full-title")
    if venue:
        csl["container-title"] = venue
    authors = _kid(record, "contributors", "authors")
    people = []
    for author in authors if authors is not None else ():
        name = _all_text(author)
        if not name:
            continue
        family, _, given = name.partition(",")
        person = {"family": family.strip()}
        if given.strip():
            person["given"] = given.strip()
        people.append(person)
    if people:
        csl["author"] = people
    if year := get("dates", "year"):
        csl["issued"] = {"raw": year}
    if doi := get("electronic-resource-num"):
        csl["DOI"] = doi
    accession = get("accession-num")
    if accession.isdigit():
        csl["PMID"] = accession
    for field, csl_name in (("volume", "volume"), ("number", "issue"), ("pages", "page")):
        if value := get(field):
            csl[csl_name] = value
    if url := get("urls", "related-urls", "url"):
        csl["URL"] = url
    ref_type = _kid(record, "ref-type")
    if ref_type is not None and (type_name := ref_type.get("name")):
        csl["type"] = type_name
    return csl
