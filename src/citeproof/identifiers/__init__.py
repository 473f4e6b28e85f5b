"""Parse and canonicalise the identifiers a user may name a source by.  Pure: no I/O.

Why this package exists: every entry point (CLI, library, MCP, batch) accepts the same forms, and
the cache keys sources by :attr:`Identifier.key`, so two spellings of one source
(``doi:10.1371/X``, ``https://doi.org/10.1371/x``) must become one canonical value, and text
around an identifier (a sentence's full stop, a closing bracket, a URL's ``?utm_source=``) must
never become part of it.

Each kind is declared once, in :data:`~citeproof.identifiers.specs.KINDS`
(:mod:`citeproof.identifiers.specs`): the forms it is accepted in (with examples, and why
each rule is so), its record URLs, its canonical value and the page a person reads it on;
:data:`ACCEPTED_FORMS`, which error messages quote, sums them up in one line.  A new kind is
one declaration there and one loader in :data:`citeproof.loading.chain.LOADERS`.

Where a DOI or URL ends is decided in :mod:`~citeproof.identifiers._context`; a string on its
own is parsed by :mod:`~citeproof.identifiers.parsing`, running text read by
:mod:`~citeproof.identifiers.running_text`.
"""

from __future__ import annotations

from citeproof.errors import UnknownIdentifierError
from citeproof.identifiers.identifier import Identifier, IdentifierKind
from citeproof.identifiers.parsing import is_labelled, looks_like_identifier, parse_identifier
from citeproof.identifiers.refusal import ACCEPTED_FORMS
from citeproof.identifiers.running_text import (
    find_identifiers,
    find_malformed_identifiers,
    mend_line_breaks,
    spaced_readings,
)
from citeproof.identifiers.specs import KINDS, KindSpec, RecordUrl, kind_names, record_url

__all__ = [
    "ACCEPTED_FORMS",
    "KINDS",
    "Identifier",
    "IdentifierKind",
    "KindSpec",
    "RecordUrl",
    "UnknownIdentifierError",
    "find_identifiers",
    "find_malformed_identifiers",
    "is_labelled",
    "kind_names",
    "looks_like_identifier",
    "mend_line_breaks",
    "parse_identifier",
    "record_url",
    "spaced_readings",
]
