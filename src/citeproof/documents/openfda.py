"""openFDA drug label JSON (``/drug/label.json``) to Document.

Drug labels are cited for warnings and dosing, and the exact wording is what matters, so
every label section becomes a block the matcher can locate.  The answer is
``{"meta": ..., "results": [label, ...]}``; the first label is read (a Document is one work;
the service asks by ``set_id`` so there is one).

Decisions:

* A label section is a field holding a list of strings (``indications_and_usage``,
  ``boxed_warning``, ``warnings_and_cautions`` ...).  Each is one block, in the answer's own
  order, its strings joined by line breaks; section path is the field name humanised
  ("Boxed warning").  The sections already begin with their printed heading
  ("1 INDICATIONS AND USAGE ..."), which is kept as written.
* Left out of the text: identifiers and dates (``set_id``, ``id``, ``version``,
  ``effective_time``), the ``openfda`` dictionary (registry data, not label text),
  ``spl_product_data_elements`` (a run of product and ingredient names, not prose) and the
  ``*_table`` fields, which are HTML fragments duplicating tables whose rendering would
  invent cell separators; their prose sections remain.
* The title is the brand name (else the generic name) from ``openfda``, in
  ``DocumentMeta.title`` only: it is registry data, not words of the label, so it is not
  put into the text where a quote could match it.
"""

from __future__ import annotations

from typing import Any

from citeproof.documents._decode import json_document
from citeproof.documents._text import Context, DocBuilder, collapse
from citeproof.documents.model import Document, DocumentMeta, Region
from citeproof.errors import DocumentError, UnsupportedFormatError

__all__ = ["label_of", "parse_openfda"]

_NOT_TEXT = frozenset(
    {"set_id", "id", "version", "effective_time", "openfda", "spl_product_data_elements"}
)
_REGIONS: dict[str, Region] = {
    "references": "references",
    "package_label_principal_display_panel": "back-matter",
}
_UPPER = frozenset({"spl", "fda", "otc"})


def parse_openfda(data: bytes) -> Document:
    """Parse the first label of an openFDA drug label answer."""
    label = label_of(json_document(data, "label"))
    builder = DocBuilder(Context("paragraph", "body"))
    for field, value in label.items():
        if field in _NOT_TEXT or field.endswith("_table") or not isinstance(value, list):
            continue
        texts = [v for v in value if isinstance(v, str) and v.strip()]
        if not texts:
            continue
        region = _REGIONS.get(field, "body")
        old = builder.begin(Context("section", region, (humanise(field),), single=True))
        for text in texts:
            builder.add(text)
            builder.soft_break()
        builder.begin(old)
    text = builder.text()
    meta = DocumentMeta(title=_title(label))
    return Document(text=text, blocks=builder.blocks, format="openfda", meta=meta)


def label_of(answer: object) -> dict[str, Any]:
    """The first label of an openFDA answer; public so detection and the source agree."""
    results = answer.get("results") if isinstance(answer, dict) else None
    if isinstance(results, list) and results and isinstance(results[0], dict):
        return results[0]
    if isinstance(results, list):
        raise DocumentError(
            "The openFDA answer holds no drug label (the search matched nothing); check the "
            "set_id or the drug name."
        )
    raise UnsupportedFormatError(
        "The JSON is not an openFDA drug label answer (no results list); supply the answer "
        "of https://api.fda.gov/drug/label.json?search=set_id:..."
    )


def humanise(field: str) -> str:
    """``indications_and_usage`` -> "Indications and usage"; ``spl_medguide`` -> "SPL medguide"."""
    words = [w.upper() if w in _UPPER else w for w in field.split("_") if w]
    if not words:
        return field
    return " ".join([words[0][:1].upper() + words[0][1:], *words[1:]])


def _title(label: dict[str, Any]) -> str | None:
    registry = label.get("openfda")
    if not isinstance(registry, dict):
        return None
    for key in ("brand_name", "generic_name"):
        names = registry.get(key)
        if isinstance(names, list) and names and isinstance(names[0], str) and names[0].strip():
            return collapse(names[0])
    return None
