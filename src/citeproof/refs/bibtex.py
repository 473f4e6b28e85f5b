"""BibTeX and BibLaTeX files, read with bibtexparser 2.

Why these middlewares and in this order: ``@string`` macros are expanded first, including
inside ``#`` concatenations (``journal = lan # { Oncology}``), which bibtexparser's own
resolver leaves as written; then the enclosing braces go, keys are lower-cased, and name
lists are split into people *before* LaTeX is decoded, so a braced corporate author
(``{World Health Organization}``) stays one name.  Decoding then turns ``M{\\"u}ller`` into
``Müller`` and ``{{DNA}} repair`` into ``DNA repair`` in every field and every name part,
except the fields that are identifiers or addresses (``doi``, ``url``, ``eprint`` ...),
where ``%`` and ``_`` are characters, not LaTeX.

Fields: ``title``; ``author`` (as ``"Family, Given"``, particles with the family name; the
``and others`` of a truncated list dropped); ``year``, else the year of ``date``;
``journal``, ``journaltitle`` or ``booktitle`` as the venue; ``doi`` (any form the
identifier grammar accepts, ``https://doi.org/...`` included), ``pmid``, ``pmcid``, and an
``eprint`` whose ``eprinttype`` is ``pubmed`` or ``pmc``; an arXiv ``eprint`` and the
``url`` go to ``extra_ids``.  The citation key is the label, the entry type the kind, and
``where`` is ``line N`` of the entry's ``@``.

Entries bibtexparser cannot read (a missing brace, a field without a value) are *reported,
not dropped*: each becomes a reference holding only ``text`` (the raw block as written)
and ``where``.  A readable entry always has a label and a kind, so a reference without
either is one that failed to parse, and the caller can give it a verdict of its own.  An
entry whose key repeats an earlier key is read on its own and kept: it is still a
reference in the file.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from bibtexparser.entrypoint import parse_string
from bibtexparser.library import Library
from bibtexparser.middlewares import (
    LatexDecodingMiddleware,
    NormalizeFieldKeys,
    SeparateCoAuthors,
    SplitNameParts,
)
from bibtexparser.middlewares.enclosing import RemoveEnclosingMiddleware
from bibtexparser.middlewares.middleware import LibraryMiddleware, Middleware
from bibtexparser.middlewares.names import NameParts, parse_single_name_into_parts
from bibtexparser.model import Block, DuplicateBlockKeyBlock, Entry, ParsingFailedBlock

from citeproof.refs.listed import from_fields
from citeproof.refs.stated import StatedReference, year_in

__all__ = ["read_bibtex"]

# A failed block is reported as a reference; bibtexparser's own warning about it would reach
# stderr a second time, unformatted, through Python's last-resort handler.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

_VERBATIM = frozenset({"doi", "url", "eprint", "pmid", "pmcid", "isbn", "issn", "file"})
_VENUES = ("journal", "journaltitle", "booktitle")


def read_bibtex(text: str) -> list[StatedReference]:
    """Every entry of a BibTeX file in file order, failed ones included (module rules)."""
    library = parse_string(text, parse_stack=_stack())
    macros = "\n".join(s.raw or "" for s in library.strings)
    out: list[StatedReference] = []
    for block in library.blocks:
        if isinstance(block, Entry):
            out.append(_reference(block, _where(block)))
        elif isinstance(block, DuplicateBlockKeyBlock) and (alone := _alone(block, macros)):
            out.append(_reference(alone, _where(block)))
        elif isinstance(block, ParsingFailedBlock):
            out.append(StatedReference(text=(block.raw or "").strip(), where=_where(block)))
    return out


def _stack() -> list[Middleware]:
    return [
        _ResolveStrings(),
        RemoveEnclosingMiddleware(),
        NormalizeFieldKeys(),
        SeparateCoAuthors(),
        _SplitNames(),
        _Decode(),
    ]


def _where(block: Block) -> str | None:
    return f"line {block.start_line + 1}" if block.start_line is not None else None


def _alone(block: DuplicateBlockKeyBlock, macros: str) -> Entry | None:
    """A duplicate-key entry read by itself (with the file's macros), as the library
    leaves such a block unread."""
    library = parse_string(f"{macros}\n{block.raw or ''}", parse_stack=_stack())
    return library.entries[0] if library.entries else None


def _reference(entry: Entry, where: str | None) -> StatedReference:
    fields = {f.key: f.value for f in entry.fields}
    eprint = _text(fields.get("eprint"))
    eprint_type = _text(fields.get("eprinttype") or fields.get("archiveprefix")).lower()
    pmid = _text(fields.get("pmid")) or (eprint if eprint_type == "pubmed" else "")
    pmcid = _text(fields.get("pmcid")) or (eprint if eprint_type == "pmc" else "")
    extra = [f"arxiv:{eprint}"] if eprint and eprint_type == "arxiv" else []
    year = year_in(_text(fields.get("year"))) or year_in(_text(fields.get("date")))
    venue = next((v for v in (_text(fields.get(k)) for k in _VENUES) if v), None)
    return from_fields(
        title=_text(fields.get("title")) or None,
        authors=_people(fields.get("author")),
        year=year,
        venue=venue,
        doi=_text(fields.get("doi")) or None,
        pmid=pmid or None,
        pmcid=pmcid or None,
        label=entry.key,
        where=where,
        kind=entry.entry_type.lower(),
        extra_ids=extra,
        urls=[_text(fields.get("url"))],
    )


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if value is not None else ""


def _people(value: Any) -> Iterator[str]:
    if not isinstance(value, list):
        if value:
            yield _text(value)
        return
    for person in value:
        if not isinstance(person, NameParts):
            yield _text(person)
            continue
        family = " ".join((*person.von, *person.last))
        if not family or (family.lower() == "others" and not person.first):
            continue
        given = " ".join(person.first)
        yield ", ".join(p for p in (family, " ".join(person.jr), given) if p)


def _split_macros(value: str) -> Iterator[str]:
    """The parts of a ``#`` concatenation, each still enclosed as written."""
    depth, quoted, start = 0, False, 0
    for i, c in enumerate(value):
        if i and value[i - 1] == "\\":
            continue  # an escaped character
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c == '"' and depth == 0:
            quoted = not quoted
        elif c == "#" and depth == 0 and not quoted:
            yield value[start:i].strip()
            start = i + 1
    yield value[start:].strip()


def _expand(value: str, macros: dict[str, str]) -> str:
    """A raw field value with its macros replaced and its parts joined, unenclosed."""
    out: list[str] = []
    for part in _split_macros(value):
        if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
            out.append(part[1:-1])
        else:
            out.append(macros.get(part.lower(), part))
    return "".join(out)


class _ResolveStrings(LibraryMiddleware):
    """``@string`` macros, also inside ``#`` concatenations and inside other macros."""

    def __init__(self) -> None:
        super().__init__(allow_inplace_modification=True)

    @classmethod
    def metadata_key(cls) -> str:
        return "citeproof_resolve_strings"

    def transform(self, library: Library) -> Library:
        macros: dict[str, str] = {}
        for string in library.strings:
            macros[string.key.lower()] = _expand(string.value, macros)
        for entry in library.entries:
            for field in entry.fields:
                if isinstance(field.value, str):
                    field.value = "{" + _expand(field.value, macros) + "}"
        return library


class _SplitNames(SplitNameParts):
    """Names split leniently: one odd name must not turn the whole entry into an error."""

    def _transform_field_value(self, name: list[str]) -> list[NameParts]:
        return [parse_single_name_into_parts(n, strict=False) for n in name]


class _Decode(LatexDecodingMiddleware):
    """LaTeX decoded in text fields and in each part of each split name (the library's
    middleware decodes only a field holding one name), never in identifier fields; a
    value pylatexenc cannot decode is kept as written rather than failing the entry."""

    def transform_entry(self, entry: Entry, library: Library) -> Block:
        for field in entry.fields:
            if field.key in _VERBATIM:
                continue
            if isinstance(field.value, str):
                enclosing = field.enclosing
                field.value = self._transform_python_value_string(field.value)[0]
                field.enclosing = enclosing
            elif isinstance(field.value, list):
                for person in field.value:
                    if isinstance(person, NameParts):
                        self._decode_name(person)
        return entry

    def _decode_name(self, person: NameParts) -> None:
        errors: list[str] = []
        person.first = self._transform_all_strings(person.first, errors)
        person.von = self._transform_all_strings(person.von, errors)
        person.last = self._transform_all_strings(person.last, errors)
        person.jr = self._transform_all_strings(person.jr, errors)
