"""The citable passages of a Document, each with a stable path, and BM25 ranking over them.

Why passages, not blocks: a handle must name something a reader can quote and a model can
cite, so headings, titles, front matter and reference lists are not passages, and a table row
(whose cells are separate blocks, because cells are what a reader quotes) is cited as one
passage: a row is the unit a table's statements come in.  Pure: a function of the Document
alone, so the same bytes always give the same passages with the same paths, which is what
lets a handle issued today resolve tomorrow.

Paths (every segment ``a-z0-9-``, segments joined by ``.``):

* abstract paragraphs: ``abstract.N`` (N counts abstract passages from 1, in text order);
* figure and table captions: ``caption.figN`` / ``caption.tN`` when the caption's label says
  "Figure N" / "Table N", else ``caption.N`` (N counts captions);
* table rows: ``table.tN.rM`` -- N is the number of the table's caption label just before
  it (else its ordinal among tables), M the row's ordinal in the table from 1 (the header row
  included, as readers count rows).  A table is a run of consecutive cell blocks; its rows come
  from the parser (``Block.row``; the JATS and HTML parsers record them).  Cells without a
  row number make the whole table one passage, ``table.tN``;
* everything else: ``REGION.SECTION.pN`` -- the region (``body``, ``back-matter``,
  ``footnote`` ...), the slug of the innermost section title (left out when there is none)
  and the passage's ordinal under that prefix, e.g. ``body.results.p4``.

A path that would repeat (two "Figure 1" labels, two sections with one title) gets ``-2``,
``-3`` ... on its last segment, so paths are unique within a document.

Ranking: BM25 (Okapi, via ``rank-bm25``) over a deliberately simple tokeniser -- casefold,
then every run of Unicode word characters (``\\w+``) is a token; no stemming, no stop words.
Without a query, passages come in document order.  With one, only passages sharing at least
one token with it are returned, best first; ties keep document order.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from citeproof.documents.model import Block, Document, Region

__all__ = [
    "Passage",
    "RankedPassage",
    "cut_passages",
    "passage_at",
    "rank_passages",
    "slug",
    "tokenize",
]

#: Regions that are not the work's own citable statements.
SKIPPED_REGIONS: Final[frozenset[str]] = frozenset({"title", "front-matter", "references"})
#: Block kinds that are structure or apparatus, not passages.
SKIPPED_KINDS: Final[frozenset[str]] = frozenset(
    {"heading", "title", "furniture", "reference", "authors", "affiliation", "keywords"}
)
SLUG_CHARS: Final = 40
_TOKEN_RE = re.compile(r"\w+")
_NON_ALNUM_RE = re.compile(r"[^a-z0-9]+")
_LABEL_RE = re.compile(
    r"\s*(?:(?P<fig>fig(?:ure)?s?\.?)|(?P<table>tables?\.?))\s*(?P<num>[a-z]?\d{1,4}[a-z]?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Passage:
    """One citable passage: ``text == document.text[start:end]``."""

    path: str
    text: str
    start: int
    end: int
    kind: str
    region: Region
    section: tuple[str, ...] = ()
    page: int | None = None


@dataclass(frozen=True, slots=True)
class RankedPassage:
    """A passage with its BM25 score (None when no query was given)."""

    passage: Passage
    score: float | None


def tokenize(text: str) -> list[str]:
    """Casefolded runs of word characters: the tokeniser BM25 ranks with."""
    return _TOKEN_RE.findall(text.casefold())


def slug(title: str) -> str:
    """A path segment for a section title: ASCII letters and digits, ``-`` between words,
    at most :data:`SLUG_CHARS` characters; empty when nothing is left."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    text = _NON_ALNUM_RE.sub("-", ascii_text.lower()).strip("-")
    return text[:SLUG_CHARS].strip("-")


def _label_id(text: str) -> tuple[str, str] | None:
    """("fig", "2") or ("table", "1") when a caption starts with such a label."""
    m = _LABEL_RE.match(text)
    if m is None:
        return None
    return ("fig" if m.group("fig") else "table"), m.group("num").lower()


class _Paths:
    """Hands out unique paths and per-prefix ordinals."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.counts: dict[str, int] = {}

    def next_ordinal(self, prefix: str) -> int:
        self.counts[prefix] = self.counts.get(prefix, 0) + 1
        return self.counts[prefix]

    def claim(self, path: str) -> str:
        candidate, n = path, 1
        while candidate in self.used:
            n += 1
            candidate = f"{path}-{n}"
        self.used.add(candidate)
        return candidate


def _is_passage(block: Block, text: str) -> bool:
    if block.region in SKIPPED_REGIONS or block.kind in SKIPPED_KINDS:
        return False
    return bool(text[block.start : block.end].strip())


def _runs(blocks: Sequence[Block], text: str) -> Iterable[tuple[Block | None, list[Block]]]:
    """Candidate blocks, with consecutive cells grouped; yields (previous block, group)."""
    previous: Block | None = None
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if block.kind == "cell":
            j = i
            while j < len(blocks) and blocks[j].kind == "cell":
                j += 1
            cells = [b for b in blocks[i:j] if text[b.start : b.end].strip()]
            if cells:
                yield previous, cells
            previous = blocks[j - 1]
            i = j
            continue
        if _is_passage(block, text):
            yield previous, [block]
        previous = block
        i += 1


def cut_passages(document: Document) -> list[Passage]:
    """The document's passages in text order, each with its unique, deterministic path."""
    text = document.text
    paths = _Paths()
    out: list[Passage] = []
    for previous, group in _runs(document.blocks, text):
        if group[0].kind != "cell":
            out.append(_passage(_block_path(group[0], text, paths), group[0].kind, group, text))
            continue
        table = _table_path(previous, text, paths)
        rows = _rows(group)
        if len(rows) == 1 and group[0].row is None:
            out.append(_passage(table, "table", group, text))
            continue
        for number, row in enumerate(rows, 1):
            out.append(_passage(paths.claim(f"{table}.r{number}"), "table-row", row, text))
    return out


def _passage(path: str, kind: str, group: Sequence[Block], text: str) -> Passage:
    first, last = group[0], group[-1]
    return Passage(
        path=path,
        text=text[first.start : last.end],
        start=first.start,
        end=last.end,
        kind=kind,
        region=first.region,
        section=first.section,
        page=first.page,
    )


def _rows(cells: Sequence[Block]) -> list[list[Block]]:
    """Consecutive cells with the same ``row`` (None counts as one row)."""
    rows: list[list[Block]] = []
    for cell in cells:
        if rows and rows[-1][-1].row == cell.row:
            rows[-1].append(cell)
        else:
            rows.append([cell])
    return rows


def _table_path(previous: Block | None, text: str, paths: _Paths) -> str:
    ordinal = paths.next_ordinal("table")
    if previous is not None and previous.kind == "caption":
        label = _label_id(text[previous.start : previous.end])
        if label is not None and label[0] == "table":
            return paths.claim(f"table.t{label[1]}")
    return paths.claim(f"table.t{ordinal}")


def _block_path(block: Block, text: str, paths: _Paths) -> str:
    if block.region == "abstract":
        return paths.claim(f"abstract.{paths.next_ordinal('abstract')}")
    if block.kind == "caption":
        ordinal = paths.next_ordinal("caption")
        label = _label_id(text[block.start : block.end])
        if label is not None:
            prefix = "fig" if label[0] == "fig" else "t"
            return paths.claim(f"caption.{prefix}{label[1]}")
        return paths.claim(f"caption.{ordinal}")
    section = slug(block.section[-1]) if block.section else ""
    prefix = f"{block.region}.{section}" if section else block.region
    return paths.claim(f"{prefix}.p{paths.next_ordinal(prefix)}")


def passage_at(passages: Iterable[Passage], path: str) -> Passage | None:
    """The passage with this path, or None (the path does not exist in this document)."""
    for passage in passages:
        if passage.path == path:
            return passage
    return None


def rank_passages(
    passages: Sequence[Passage], query: str | None = None, limit: int | None = None
) -> list[RankedPassage]:
    """Passages ranked by BM25 against ``query`` (document order without one), at most
    ``limit``.  With a query, passages sharing no token with it are left out."""
    if limit is not None and limit < 0:
        raise ValueError("limit must be 0 or more")
    query_tokens = tokenize(query) if query is not None and query.strip() else []
    if query is None or not query.strip():
        ranked = [RankedPassage(p, None) for p in passages]
        return ranked[:limit] if limit is not None else ranked
    corpus = [tokenize(p.text) for p in passages]
    if not query_tokens or not any(corpus):
        return []
    from rank_bm25 import BM25Okapi  # type: ignore[import-untyped]

    scores = [float(s) for s in BM25Okapi(corpus).get_scores(query_tokens)]
    wanted = set(query_tokens)
    order = sorted(
        (i for i, tokens in enumerate(corpus) if wanted.intersection(tokens)),
        key=lambda i: (-scores[i], i),
    )
    ranked = [RankedPassage(passages[i], scores[i]) for i in order]
    return ranked[:limit] if limit is not None else ranked
