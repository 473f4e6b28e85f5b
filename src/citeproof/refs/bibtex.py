"""BibTeX and BibLaTeX files, read with bibtexparser 2.

Fields: ``title``; ``author`` (as ``"Family, Given"``, particles with the family name; the
``and others`` of a truncated list dropped); ``year``, else the year of ``date``;
``journal``, ``journaltitle`` or ``booktitle`` as the venue; ``doi`` (any form the
identifier grammar accepts, ``https://doi.org/...`` included), ``pmid``, ``pmcid``, and an
``eprint`` whose ``eprinttype`` is ``pubmed`` or ``pmc``; an arXiv ``eprint`` and the
``url`` go to ``extra_ids``.  The citation key is the label, the entry type the kind, and
``where`` is ``line N`` of the entry's ``@``.

Why only those fields are read: a Zotero or Mendeley export carries abstracts, notes, file
paths and keywords that citeproof never uses, and decoding LaTeX costs some 20 seconds of
CPU per megabyte (pylatexenc).  So every other field is dropped as the entry is read, and
only the fields above go through macros, name splitting and decoding.

Why the steps come in this order: ``@string`` macros are expanded first, including inside
``#`` concatenations (``journal = lan # { Oncology}``), which bibtexparser's own resolver
leaves as written; keys are lower-cased (the last of ``Title`` and ``title`` wins, as
bibtexparser's ``NormalizeFieldKeys``), and name lists are split into people *before* LaTeX
is decoded, so a braced corporate author (``{World Health Organization}``) stays one name.
Decoding turns ``M{\\"u}ller`` into ``Müller`` and ``{{DNA}} repair`` into ``DNA repair``
in every field read and every name part, except the identifier and address fields
(``doi``, ``url``, ``eprint`` ...), where ``%`` and ``_`` are characters, not LaTeX.  A
value with nothing LaTeX would change is not handed to the decoder at all, and one whose
only LaTeX is balanced braces just loses them (``tests/unit/test_refs_hostile_inputs.py``
checks both shortcuts against the decoder).

Caps, so that no file can make reading hang or fill memory:

* :data:`~citeproof.refs.listed.MAX_FIELD` characters of a field are read, as written and
  after its macros are expanded; the rest is cut (an author list loses the name the cut
  falls in), as every reader cuts what a reference states.
* A ``@string`` macro may expand to :data:`MAX_MACRO` characters, all of a file's macros
  together to :data:`MAX_MACROS`, and a macro may be built from other macros at most
  :data:`MAX_MACRO_DEPTH` levels deep.  A file past any of these is refused whole with
  :class:`MacroExpansionError` (a ``ValueError`` whose message is the one line the command
  prints): a doubling ``@string`` chain of a few hundred bytes would otherwise expand to
  gigabytes, and no real bibliography comes near the caps.

Reading is streamed (:func:`iter_bibtex`): the text is cut where bibtexparser's splitter
itself starts a block whatever came before it (an ``@type{`` or ``@type(`` at the start of
a line), and the pieces are split a few hundred at a time, so the memory the splitter's
blocks take does not grow with the file.  ``@string`` pieces are read first, so an entry
may use a macro defined below it, as when the whole file was split at once.

Entries bibtexparser cannot read (a missing brace, a field without a value) are *reported,
not dropped*: each becomes a reference holding only ``text`` (the raw block as written, cut
at :data:`MAX_FIELD`) and ``where``.  A readable entry always has a label and a kind, so a
reference without either is one that failed to parse, and the caller can give it a verdict
of its own.  An entry whose key repeats an earlier key is read on its own and kept: it is
still a reference in the file.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from functools import cache, lru_cache
from typing import Any, Final

from bibtexparser.entrypoint import parse_string
from bibtexparser.middlewares import LatexDecodingMiddleware
from bibtexparser.middlewares.names import (
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import Block, DuplicateBlockKeyBlock, Entry, ParsingFailedBlock, String

from citeproof.refs.listed import MAX_FIELD, from_fields
from citeproof.refs.stated import StatedReference, year_in

__all__ = [
    "MAX_FIELD",
    "MAX_MACRO",
    "MAX_MACROS",
    "MAX_MACRO_DEPTH",
    "MacroExpansionError",
    "iter_bibtex",
    "read_bibtex",
]

# A failed block is reported as a reference; bibtexparser's own warning about it would reach
# stderr a second time, unformatted, through Python's last-resort handler.
logging.getLogger("bibtexparser").addHandler(logging.NullHandler())

#: Characters one ``@string`` macro may expand to.
MAX_MACRO: Final = 10_000
#: Characters all the ``@string`` macros of one file may take together (names and values).
MAX_MACROS: Final = 1_000_000
#: Levels of macros built from macros.
MAX_MACRO_DEPTH: Final = 32
#: Pieces (each starting at a block start) handed to the splitter at once.
_PIECES_PER_SPLIT: Final = 256

_VERBATIM = frozenset({"doi", "url", "eprint", "pmid", "pmcid"})
_VENUES = ("journal", "journaltitle", "booktitle")
_READ = frozenset(
    {"title", "author", "year", "date", "eprinttype", "archiveprefix", *_VENUES, *_VERBATIM}
)
# Where bibtexparser's splitter starts a block whatever it was reading (an ``@`` with only
# whitespace before it on its line: see ``Splitter._is_at_line_start``).
_BLOCK_START = re.compile(r"^[^\S\n]*@\w*[ \t]*[{(]", re.MULTILINE)
_STRING_PIECE = re.compile(r"^[^\S\n]*@string[ \t]*[{(]", re.MULTILINE | re.IGNORECASE)
# What a ``#`` concatenation is made of: an enclosure's delimiters, escapes and the ``#``.
_MACRO_MARK = re.compile(r'\\.|[{}"#]', re.DOTALL)
# Anything pylatexenc would change: macros, groups, math, comments, ties, alignment, the
# dash and quote ligatures.  A value without any of it decodes to itself.
_LATEX = re.compile(r"[\\{}$%~&#^_`]|--|''|[!?]`")
_LATEX_BUT_BRACES = re.compile(r"[\\$%~&#^_`]|--|''|[!?]`")
# The ``and`` between two names, as bibtexparser's splitter finds it outside braces.
_AND = re.compile(r"[ \t\r\n]+[aA][nN][dD][ \t\r\n]+")


class MacroExpansionError(ValueError):
    """A ``@string`` macro past the expansion caps; the message is the one line to print."""


def read_bibtex(text: str) -> list[StatedReference]:
    """Every entry of a BibTeX file in file order, failed ones included (module rules)."""
    return list(iter_bibtex(text))


def iter_bibtex(text: str) -> Iterator[StatedReference]:
    """The entries of a BibTeX file one by one, in file order (module rules)."""
    macros = _Macros()
    early: dict[int, list[Block]] = {}
    for start, end, line in _string_pieces(text):
        early[start] = _split(text[start:end])
        macros.define_all(early[start], line)
    run: list[tuple[int, int, int]] = []
    for piece in _pieces(text):
        if piece[0] in early:
            yield from _run(text, run, macros)
            run = []
            yield from _references(early.pop(piece[0]), piece[2], macros)
            continue
        run.append(piece)
        if len(run) == _PIECES_PER_SPLIT:
            yield from _run(text, run, macros)
            run = []
    yield from _run(text, run, macros)


def _run(text: str, run: list[tuple[int, int, int]], macros: _Macros) -> Iterator[StatedReference]:
    """The references of consecutive pieces, split at once."""
    if not run:
        return
    (start, _, line), end = run[0], run[-1][1]
    blocks = _split(text[start:end])
    macros.define_all(blocks, line)
    yield from _references(blocks, line, macros)


def _pieces(text: str) -> Iterator[tuple[int, int, int]]:
    """(start, end, lines before start) of each piece, one at a time: the text before the
    first block start, then one piece from each block start to the next."""
    start = line = 0
    for m in _BLOCK_START.finditer(text):
        if m.start() == 0:
            continue
        yield start, m.start(), line
        line += text.count("\n", start, m.start())
        start = m.start()
    yield start, len(text), line


def _string_pieces(text: str) -> Iterator[tuple[int, int, int]]:
    """The pieces that are ``@string`` blocks, as :func:`_pieces` gives them."""
    at = line = 0
    for m in _STRING_PIECE.finditer(text):
        after = _BLOCK_START.search(text, m.end())
        line += text.count("\n", at, m.start())
        at = m.start()
        yield m.start(), after.start() if after else len(text), line


def _split(piece: str) -> list[Block]:
    """The blocks of ``piece`` as bibtexparser's splitter reads them, nothing else done."""
    return parse_string(piece, parse_stack=[]).blocks


def _where(block: Block, line: int) -> str | None:
    return f"line {line + block.start_line + 1}" if block.start_line is not None else None


def _references(blocks: Sequence[Block], line: int, macros: _Macros) -> Iterator[StatedReference]:
    for block in blocks:
        entry: Block | None = block
        if isinstance(block, DuplicateBlockKeyBlock):
            entry = block.ignore_error_block
        if isinstance(entry, Entry):
            yield _reference(entry, _where(block, line), macros)
        elif isinstance(entry, ParsingFailedBlock) or isinstance(block, ParsingFailedBlock):
            raw = (entry.raw if entry is not None else None) or block.raw or ""
            yield StatedReference(text=raw.strip()[:MAX_FIELD], where=_where(block, line))


def _reference(entry: Entry, where: str | None, macros: _Macros) -> StatedReference:
    fields: dict[str, str] = {}
    for field in entry.fields:
        key = field.key.lower()
        if key in _READ and isinstance(field.value, str):
            fields[key] = field.value  # the last of Title and title wins
    values = {key: macros.expand_field(raw) for key, raw in fields.items()}
    text = {
        k: _text(_decode(v) if k not in _VERBATIM else v)
        for k, (v, _) in values.items()
        if k != "author"
    }
    eprint = text.get("eprint", "")
    eprint_type = (text.get("eprinttype") or text.get("archiveprefix") or "").lower()
    pmid = text.get("pmid") or (eprint if eprint_type == "pubmed" else "")
    pmcid = text.get("pmcid") or (eprint if eprint_type == "pmc" else "")
    extra = [f"arxiv:{eprint}"] if eprint and eprint_type == "arxiv" else []
    year = year_in(text.get("year", "")) or year_in(text.get("date", ""))
    venue = next((v for v in (text.get(k) for k in _VENUES) if v), None)
    return from_fields(
        title=text.get("title") or None,
        authors=_people(*values.get("author", ("", False))),
        year=year,
        venue=venue,
        doi=text.get("doi") or None,
        pmid=pmid or None,
        pmcid=pmcid or None,
        label=entry.key,
        where=where,
        kind=entry.entry_type.lower(),
        extra_ids=extra,
        urls=[text.get("url", "")],
    )


def _text(value: str) -> str:
    return " ".join(value.split())


@cache
def _latex() -> tuple[Any, Any]:
    """bibtexparser's decoder (pylatexenc, configured by ``LatexDecodingMiddleware``) and
    one parsing context for every value: without it pylatexenc builds its default context
    anew for each value, which is most of the cost of decoding a short one."""
    from pylatexenc.latexwalker import get_default_latex_context_db  # type: ignore[import-untyped]

    return LatexDecodingMiddleware()._decoder, get_default_latex_context_db()


def _decode(value: str) -> str:
    """LaTeX decoded; a value pylatexenc cannot decode is kept as written rather than
    failing the entry (the middleware's own rule)."""
    if not _LATEX.search(value):
        return value
    if not _LATEX_BUT_BRACES.search(value) and _balanced(value):
        return value.replace("{", "").replace("}", "")
    return _remembered(value) if len(value) <= 200 else _pylatexenc(value)


@lru_cache(maxsize=16_384)
def _remembered(value: str) -> str:
    """A short value decoded once: a bibliography names the same people and journals again
    and again, and pylatexenc takes a tenth of a millisecond even for ``M{\\"u}ller``."""
    return _pylatexenc(value)


def _pylatexenc(value: str) -> str:
    decoder, context = _latex()
    try:
        return str(decoder.latex_to_text(value, latex_context=context))
    except Exception:  # the middleware's rule: keep the value as written
        return value


def _balanced(value: str) -> bool:
    depth = 0
    for m in re.finditer(r"[{}]", value):
        depth += 1 if m.group() == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def _people(value: str, cut: bool) -> Iterator[str]:
    """Each author as ``Family, Jr, Given``, split before decoding (module rules); a cut
    list loses its last name, which the cut may fall in."""
    names = _split_names(value)
    if cut:
        names = names[:-1]
    for name in names:
        family, jr, given = _commas(name) or _parts_of(name)
        if not family or (family.lower() == "others" and not given):
            continue
        yield ", ".join(p for p in (family, jr, given) if p)


def _split_names(value: str) -> list[str]:
    """bibtexparser's split at each ``and``; without braces or escapes (where its
    character-by-character walk is needed) the ``and`` between blanks is all it looks for
    (checked against it in tests/unit/test_refs_hostile_inputs.py)."""
    if "{" in value or "}" in value or "\\" in value:
        return split_multiple_persons_names(value)
    value = value.strip(" \r\n\t")
    return _AND.split(value) if value else []


def _parts_of(name: str) -> tuple[str, str, str]:
    """(family with its particles, jr, given), each part decoded, as bibtexparser splits
    the name."""
    person = parse_single_name_into_parts(name, strict=False)
    family = _text(" ".join(_decode(p) for p in (*person.von, *person.last)))
    given = _text(" ".join(_decode(p) for p in person.first))
    jr = _text(" ".join(_decode(p) for p in person.jr))
    return family, jr, given


def _commas(name: str) -> tuple[str, str, str] | None:
    """The same for a name written ``Family, Given`` or ``Family, Jr, Given`` without any
    LaTeX, the way exports write nearly every name: the family name and its particles are
    everything before the first comma, so nothing needs splitting into words (checked
    against bibtexparser in tests/unit/test_refs_hostile_inputs.py)."""
    parts = name.split(",")
    if not 2 <= len(parts) <= 3 or _LATEX.search(name) or not all(p.strip() for p in parts):
        return None
    jr = parts[1] if len(parts) == 3 else ""
    return _text(parts[0]), _text(jr), _text(parts[-1])


def _parts(value: str) -> Iterator[str]:
    """The parts of a ``#`` concatenation, each still enclosed as written."""
    if "#" not in value:
        yield value.strip()
        return
    depth, quoted, start = 0, False, 0
    for m in _MACRO_MARK.finditer(value):
        c = m.group()
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif c == '"' and depth == 0:
            quoted = not quoted
        elif c == "#" and depth == 0 and not quoted:
            yield value[start : m.start()].strip()
            start = m.end()
    yield value[start:].strip()


class _Macros:
    """The file's ``@string`` macros, expanded as they are defined, under the caps."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[str, int]] = {}
        self.total = 0

    def define_all(self, blocks: Sequence[Block], line: int) -> None:
        """Every macro of ``blocks``; a later definition of a name replaces the earlier."""
        for block in blocks:
            if isinstance(block, DuplicateBlockKeyBlock):
                block = block.ignore_error_block or block
            if isinstance(block, String):
                self._define(block, line)

    def _define(self, string: String, line: int) -> None:
        value, depth, cut = self._expand(string.value, MAX_MACRO)
        where = f"the @string macro {string.key!r} ({_where(string, line)})"
        if cut:
            raise MacroExpansionError(
                f"{where} expands to more than {MAX_MACRO:,} characters; citeproof expands "
                f"a macro to at most {MAX_MACRO:,} (all of a file's to {MAX_MACROS:,}), as no "
                "real bibliography needs more: shorten the macro or give the list without it."
            )
        if depth + 1 > MAX_MACRO_DEPTH:
            raise MacroExpansionError(
                f"{where} is built from macros more than {MAX_MACRO_DEPTH} levels deep; "
                "citeproof expands no deeper: define it with fewer levels."
            )
        self.total += len(string.key) + len(value)  # names too: a million empty macros
        if self.total > MAX_MACROS:
            raise MacroExpansionError(
                f"the @string macros up to {where} take more than {MAX_MACROS:,} characters "
                "in all (names and values); citeproof reads at most that many per file: "
                "remove the macros the entries do not use."
            )
        self.values[string.key.lower()] = (value, depth + 1)

    def expand_field(self, raw: str) -> tuple[str, bool]:
        """A field's raw value with its macros replaced and unenclosed, and whether it was
        cut at the cap."""
        if len(raw) <= MAX_FIELD and "#" not in raw and raw[:1] == "{" and raw[-1:] == "}":
            return raw[1:-1], False  # the usual field: one braced value
        value, _, cut = self._expand(raw, MAX_FIELD)
        return value, cut

    def _expand(self, raw: str, limit: int) -> tuple[str, int, bool]:
        """(expansion, deepest macro used, whether it was cut at ``limit``).

        At most ``2 * limit`` characters of ``raw`` are looked at: what they expand to is
        already over the cap unless the rest is all delimiters and empty macros."""
        cut = len(raw) > 2 * limit
        out: list[str] = []
        size = depth = 0
        for part in _parts(raw[: 2 * limit]):
            if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
                piece = part[1:-1]
            elif cut and part[:1] in ("{", '"'):
                piece = part[1:]  # an enclosure the cut went through
            else:
                piece, used = self.values.get(part.lower(), (part, 0))
                depth = max(depth, used)
            if size + len(piece) > limit:
                out.append(piece[: limit - size])
                return "".join(out), depth, True
            out.append(piece)
            size += len(piece)
        return "".join(out), depth, cut
