"""The one API every interface calls: the check pipeline, and the doors to everything else.

``pipeline`` assembles a check (resolve -> load/pin -> match -> retraction -> find-source ->
log) from one :class:`~citeproof.service.pipeline.CheckOptions`; ``inputs`` holds the rules
for what a check is given; ``results`` turns the matcher's answer into the public result;
``texts`` is the load step alone (``citeproof text``, ``citeproof.load``); ``reading`` serves a
page of a source's text and what an identifier resolves to; ``logbook`` (the evidence log,
recheck), ``lookups`` (retraction, searches, passages and handles) and ``storage`` (the cache,
the Retraction Watch snapshot, recordings) are the doors to the rest.  The CLI and the MCP
server import these modules and nothing below them.

May import every feature package (``loading``, ``retraction``, ``search``, ``handles``,
``evidence``) and everything under them; is imported by the interfaces and by the packages
built on the check (``audit``, ``batch``, ``demo``).

The names below are the service's library API (``citeproof.service.check`` ...), kept as they
were when the service was one module.  They are resolved on first use (PEP 562), so that a
command importing one door (``citeproof text`` imports ``texts``) does not import the others.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from citeproof.loading.files import (
        DEFAULT_MAX_FILE_BYTES,
        MAX_FILE_BYTES_ENV,
        STDIN,
        TEXT_INPUT,
        max_file_bytes,
        read_bytes,
    )
    from citeproof.loading.load import load_source
    from citeproof.service.inputs import (
        MAX_QUOTE_CHARS,
        PROFILES,
        decode_text,
        match_options,
        quote_too_long,
        validate_quote,
        validate_sha256,
    )
    from citeproof.service.pipeline import (
        FIND_SOURCE_VERDICTS,
        CheckOptions,
        Pipeline,
        check,
        check_document,
        check_loaded,
        check_text,
        find_source_for,
    )
    from citeproof.service.texts import document_blocks, load, no_text_reason

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "FIND_SOURCE_VERDICTS",
    "MAX_FILE_BYTES_ENV",
    "MAX_QUOTE_CHARS",
    "PROFILES",
    "STDIN",
    "TEXT_INPUT",
    "CheckOptions",
    "Pipeline",
    "check",
    "check_document",
    "check_loaded",
    "check_text",
    "decode_text",
    "document_blocks",
    "find_source_for",
    "load",
    "load_source",
    "match_options",
    "max_file_bytes",
    "no_text_reason",
    "quote_too_long",
    "read_bytes",
    "validate_quote",
    "validate_sha256",
]

_FILES = "citeproof.loading.files"
_INPUTS = "citeproof.service.inputs"
_PIPELINE = "citeproof.service.pipeline"
_TEXTS = "citeproof.service.texts"
_LAZY: dict[str, str] = {
    "DEFAULT_MAX_FILE_BYTES": _FILES,
    "MAX_FILE_BYTES_ENV": _FILES,
    "STDIN": _FILES,
    "TEXT_INPUT": _FILES,
    "max_file_bytes": _FILES,
    "read_bytes": _FILES,
    "load_source": "citeproof.loading.load",
    "MAX_QUOTE_CHARS": _INPUTS,
    "PROFILES": _INPUTS,
    "decode_text": _INPUTS,
    "match_options": _INPUTS,
    "quote_too_long": _INPUTS,
    "validate_quote": _INPUTS,
    "validate_sha256": _INPUTS,
    "FIND_SOURCE_VERDICTS": _PIPELINE,
    "CheckOptions": _PIPELINE,
    "Pipeline": _PIPELINE,
    "check": _PIPELINE,
    "check_document": _PIPELINE,
    "check_loaded": _PIPELINE,
    "check_text": _PIPELINE,
    "find_source_for": _PIPELINE,
    "document_blocks": _TEXTS,
    "load": _TEXTS,
    "no_text_reason": _TEXTS,
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'citeproof.service' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
