"""Parse and canonicalise the identifiers a user may name a source by.  Pure: no I/O.

Why this package exists: every entry point (CLI, library, MCP, batch) accepts the same forms, and
the cache keys sources by :attr:`Identifier.key`, so two spellings of one source
(``doi:10.1371/X``, ``https://doi.org/10.1371/x``) must become one canonical value, and text
around an identifier (a sentence's full stop, a closing bracket, a URL's ``?utm_source=``) must
never become part of it.

Each kind is declared once, in :data:`~citeproof.identifiers.specs.KINDS`
(:mod:`citeproof.identifiers.specs`): its labels, forms, record URLs, canonical value and
the page a person reads it on.  A new kind is one declaration there and one loader in
:data:`citeproof.loading.chain.LOADERS`.

Accepted forms (see :data:`ACCEPTED_FORMS`, which error messages quote):

* DOI -- bare ``10.1371/journal.pone.0340378``, ``doi:10.1371/...`` / ``DOI: 10.1371/...``, or a
  ``doi.org`` / ``dx.doi.org`` URL (http or https, percent-decoded; ``doi.org/...`` without a
  scheme works too).  The value is ASCII-lower-cased, because DOIs are case-insensitive for ASCII
  letters only (DOI Handbook 2.4); other letters are left alone.
* PMCID -- ``PMC12829825``, ``pmcid:PMC12829825``; ``PMC10496602.1`` pins version 1.
* PMID -- ``PMID 27355798``, ``PMID: 27355798``, ``pmid:27355798`` or a PubMed URL.  A bare
  number is refused: it could be a PMID, a PMCID without its prefix or a page number, and
  guessing would silently check the wrong paper.
* NCT number -- ``NCT04363697`` (any case) or a ClinicalTrials.gov study URL.
* openFDA set id -- a UUID, optionally ``setid:``-prefixed, or a DailyMed ``drugInfo.cfm?setid=``
  URL (DailyMed and openFDA share the SPL set id).
* Europe PMC preprint -- ``PPR1021553``, or any europepmc.org article/abstract URL (``MED``,
  ``PMC`` and ``PPR`` sources map to PMID, PMCID and PPR).
* Any other http(s) URL -- kind ``url``, value as given (validated, not rewritten) except that
  trailing sentence punctuation and unbalanced closing brackets are dropped, as for DOIs.
  ``url:https://...`` forces kind ``url`` even for a doi.org address (fetch that page, not the DOI);
  it is also what :attr:`Identifier.key` produces for URLs, so keys round-trip.

Where a DOI or URL ends is decided in :mod:`~citeproof.identifiers._context`; a string on its
own is parsed by :mod:`~citeproof.identifiers.parsing`, running text read by
:mod:`~citeproof.identifiers.running_text`.
"""

from __future__ import annotations

from citeproof.errors import ACCEPTED_FORMS, UnknownIdentifierError
from citeproof.identifiers.identifier import Identifier, IdentifierKind
from citeproof.identifiers.parsing import is_labelled, looks_like_identifier, parse_identifier
from citeproof.identifiers.running_text import (
    find_identifiers,
    find_malformed_identifiers,
    mend_line_breaks,
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
]
