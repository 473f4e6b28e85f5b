"""The ``citeproof.passages/1`` list: the citable passages of one source, with their handles."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from citeproof.documents.model import Region
from citeproof.models.base import Model, Published

__all__ = ["PassageItem", "PassageList", "PassageSource"]


class PassageSource(Model):
    """The document the passages were cut from."""

    input: str
    identifier: str | None = Field(
        default=None, description="The cache key the source was loaded under; null for files."
    )
    coverage: str
    served_by: str | None = None
    version: str | None = None
    sha256: str | None = None
    retrieved_at: str | None = None
    title: str | None = None


class PassageItem(Model):
    """One passage; ``text == citeproof text SOURCE`` sliced at ``[start:end]``."""

    handle: str | None = Field(
        description="The citation handle, or null when the source is not an identifier "
        "(a local file, standard input, a web page)."
    )
    path: str
    kind: str = Field(
        description="paragraph, caption, table-row (one row of a table, its cells separated "
        "by blank lines), table (a table whose rows are not known), list-item, quote ..."
    )
    text: str
    section: list[str]
    region: Region
    page: int | None = None
    start: int
    end: int
    score: float | None = Field(
        default=None, description="BM25 score against the query; null without a query."
    )


class PassageList(Published):
    """The passages of one source (schema ``citeproof.passages/1``)."""

    schema_: Literal["citeproof.passages/1"] = Field(default="citeproof.passages/1", alias="schema")
    source: PassageSource
    query: str | None = None
    total: int = Field(description="How many passages the document has (before the limit).")
    passages: list[PassageItem]
