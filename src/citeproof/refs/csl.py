"""CSL-JSON (Zotero, Pandoc, citation.js, Crossref's ``citeproc+json``), read by hand.

CSL-JSON is plain JSON with a published schema, so no library is needed, but real files
bend it: numbers where strings belong (``"PMID": 30123456``), ``container-title`` as a
list, ``issued`` as ``{"raw": "2019"}`` or ``{"literal": "Spring 2019"}`` instead of
``date-parts``, ``date-parts`` holding strings.  Each is read; anything else is left out
rather than guessed.

Fields: ``title``; ``author`` as ``"Family, Given"`` (a ``non-dropping-particle`` such as
"van der" goes with the family name) or the ``literal`` name; the year from ``issued``;
``container-title`` (else ``container-title-short``) as the venue; ``DOI``, ``PMID``,
``PMCID`` (any case of the key); ``URL`` as for every reader (a DOI, PubMed or PMC address
fills the identifier it names); ``id`` the label; ``type`` the kind; ``where`` is ``item N``.

What is not CSL-JSON is refused with a ValueError that says why: text that is not JSON,
JSON that is neither an object nor an array of objects, and an object with none of
``title``, ``author``, ``DOI``, ``PMID`` or ``PMCID`` (a search answer, a settings file).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from citeproof.refs.listed import from_fields
from citeproof.refs.stated import StatedReference, year_in

__all__ = ["csl_problem", "from_csl_item", "read_csl"]

_MARKS = frozenset({"title", "author", "doi", "pmid", "pmcid"})


def read_csl(data: str | list[Any] | dict[str, Any]) -> list[StatedReference]:
    """The references of a CSL-JSON array (or of one item); ValueError if it is not CSL."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"The file is not valid JSON ({exc.msg} at line {exc.lineno}, column "
                f"{exc.colno}), so it cannot be read as CSL-JSON."
            ) from None
        except RecursionError:
            raise ValueError("The JSON is nested too deeply to be CSL-JSON.") from None
    items = [data] if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError(
            f"The JSON is a {_kind(items)}; CSL-JSON is an array of reference objects."
        )
    out: list[StatedReference] = []
    single = isinstance(data, dict)
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise ValueError(
                f"Item {number} of the JSON array is a {_kind(item)}, not a CSL-JSON "
                "reference object."
            )
        problem = csl_problem(item)
        if problem is not None:
            what = "The JSON object" if single else f"Item {number}"
            raise ValueError(f"{what} {problem}, so the JSON is not a CSL-JSON bibliography.")
        out.append(replace(from_csl_item(item), where=f"item {number}"))
    return out


def csl_problem(item: Mapping[Any, Any]) -> str | None:
    """Why an object is no CSL-JSON reference (``has none of the CSL-JSON fields ...``), or
    None: an object with none of title, author, DOI, PMID or PMCID (``{}``, a search answer,
    a settings file) states nothing of a work, and read leniently it would be a reference
    that names nothing."""
    if _MARKS & {str(k).lower() for k in item}:
        return None
    keys = ", ".join(sorted(str(k) for k in item)[:8]) or "no keys"
    return f"has none of the CSL-JSON fields title, author, DOI, PMID or PMCID (it has {keys})"


def from_csl_item(item: Mapping[str, Any]) -> StatedReference:
    """One CSL-JSON item as a reference; lenient, for items the caller has vetted."""
    ids = {str(k).lower(): v for k, v in item.items() if str(k).lower() in ("doi", "pmid", "pmcid")}
    return from_fields(
        title=_text(item.get("title")) or None,
        authors=_people(item.get("author")),
        year=_year(item.get("issued")),
        venue=_text(item.get("container-title")) or _text(item.get("container-title-short")),
        doi=_text(ids.get("doi")) or None,
        pmid=_text(ids.get("pmid")) or None,
        pmcid=_text(ids.get("pmcid")) or None,
        label=_text(item.get("id")) or None,
        kind=_text(item.get("type")) or None,
        urls=[_text(item.get("URL"))],
    )


def _kind(value: object) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def _text(value: Any) -> str:
    """A string field, also when a file gives it as a number or a list of strings."""
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str | int) and str(v).strip()), None)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return ""
    return " ".join(str(value).split())


def _people(value: Any) -> Iterator[str]:
    if not isinstance(value, list):
        return
    for person in value:
        if isinstance(person, str):
            yield person
            continue
        if not isinstance(person, dict):
            continue
        family = " ".join(
            p
            for p in (_text(person.get("non-dropping-particle")), _text(person.get("family")))
            if p
        )
        given = _text(person.get("given"))
        if family:
            yield f"{family}, {given}" if given else family
        elif literal := _text(person.get("literal")) or given:
            yield literal


def _year(issued: Any) -> int | None:
    if isinstance(issued, dict):
        parts = issued.get("date-parts")
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            year = year_in(_text(parts[0][0]))
            if year is not None:
                return year
        return year_in(_text(issued.get("raw")) or _text(issued.get("literal")))
    return year_in(_text(issued))
