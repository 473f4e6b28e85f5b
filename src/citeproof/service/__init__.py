"""The one API every interface calls: the check pipeline, and the doors to everything else.

``pipeline`` assembles a check (resolve -> load/pin -> match -> retraction -> find-source ->
log) from one :class:`~citeproof.service.pipeline.CheckOptions`; ``inputs`` holds the rules
for what a check is given; ``results`` turns the matcher's answer into the public result;
``reading`` serves a source's text and what an identifier resolves to; ``records`` is the
door to the evidence log, the cache, the Retraction Watch snapshot, searches, handles and
recordings.  The CLI and the MCP server import these modules and nothing below them.

May import every feature package (``loading``, ``retraction``, ``search``, ``handles``,
``evidence``) and everything under them; is imported by the interfaces and by the packages
built on the check (``audit``, ``batch``, ``demo``).

The names below are the service's library API (``citeproof.service.check`` ...), kept as they
were when the service was one module.
"""

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
    load,
    no_text_reason,
)
from citeproof.service.reading import document_blocks

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
