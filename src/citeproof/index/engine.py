"""The search engine: tantivy, embedded, and the one schema the index is built with.

Why tantivy: it is a real engine (BM25, block-max WAND top-k, immutable memory-mapped
segments) that any number of processes can open read-only, and it won against SQLite FTS5
on the same records (``bench/README.md``, "Issue 23").  It is the ``index`` extra
(``pip install "citeproof[index]"``), imported when an index is built or opened, so the core
stays light; without it every door says so in one line.

The schema, per stored record (not per merged work: each database's title and author list
is matched as that database wrote it, and a hit is mapped to its work afterwards):

* ``rid``: the record's row in the identifier tables (indexed, to delete it; stored, to read
  it from a hit: a stored document costs microseconds where a fast-field read opens every
  segment's column, 0.4 ms a search at 10 million records; fast, to delete a range);
* ``bib``: title, other titles, authors, venue and its other names, year, volume, issue and
  pages: what Crossref's ``query.bibliographic`` matches a whole reference string against,
  and what a search by fields asks too.  One field, because tantivy's block-max WAND prunes
  a union of plain term queries only: per-field boosts made a search by fields four times
  slower (bench/README.md, "Issue 23").

The text keeps term frequencies but no positions (no phrase queries are asked, and
positions would double the index).  Tokens are folded to ASCII lower case, so "Müller"
finds "Muller"; :data:`~citeproof.index.records.STOPWORDS` are not indexed.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from citeproof.errors import CiteproofError
from citeproof.index.records import STOPWORDS

__all__ = [
    "EXTRA_MISSING",
    "analyzers",
    "create_index",
    "open_engine",
    "require_tantivy",
]

#: What every door says when the extra is not installed.
EXTRA_MISSING = (
    'the local index needs the index extra, which is not installed: pip install "citeproof[index]"'
)
_LONGEST_TOKEN = 40


def require_tantivy() -> ModuleType:
    """The tantivy module, or a one-line error naming the extra to install."""
    try:
        import tantivy
    except ImportError as exc:
        raise CiteproofError(EXTRA_MISSING + ".") from exc
    return tantivy


def analyzers(tantivy: ModuleType) -> dict[str, Any]:
    """The text analysers by tokenizer name: ``bib`` (folded, stopwords out)."""
    bib = (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(_LONGEST_TOKEN))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.custom_stopword(list(STOPWORDS)))
        .build()
    )
    return {"bib": bib}


def _schema(tantivy: ModuleType) -> Any:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("rid", stored=True, indexed=True, fast=True)
    builder.add_text_field("bib", tokenizer_name="bib", index_option="freq")
    return builder.build()


def _register(tantivy: ModuleType, index: Any) -> Any:
    for name, analyzer in analyzers(tantivy).items():
        index.register_tokenizer(name, analyzer)
    return index


def create_index(path: Path) -> Any:
    """A new, empty tantivy index in ``path`` (which must exist)."""
    tantivy = require_tantivy()
    return _register(tantivy, tantivy.Index(_schema(tantivy), path=str(path), reuse=False))


def open_engine(path: Path) -> Any:
    """The tantivy index in ``path``, its analysers registered."""
    tantivy = require_tantivy()
    return _register(tantivy, tantivy.Index.open(str(path)))
