"""One canonical identifier, the value every interface, the cache and the log agree on.

Why a class of its own: the cache keys sources by :attr:`Identifier.key`, so two spellings of
one source (``doi:10.1371/X``, ``https://doi.org/10.1371/x``) must become one value that
compares, hashes and prints the same everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Identifier", "IdentifierKind"]

#: Every kind citeproof reads; each has one declaration in :mod:`citeproof.identifiers.specs`.
IdentifierKind = Literal["doi", "pmid", "pmcid", "nct", "setid", "ppr", "url"]


@dataclass(frozen=True, slots=True)
class Identifier:
    """One canonical identifier.

    Equality and hashing ignore :attr:`raw`, so two spellings of the same source compare equal
    and deduplicate in sets; :attr:`key` is the stable string the cache and logs use.
    """

    kind: IdentifierKind
    #: Canonical value: DOI lower-cased without prefix; "PMC123"; PMID digits; "NCT01234567";
    #: lower-case UUID; "PPR123"; URL as given minus trailing context punctuation.
    #: Build identifiers with :func:`~citeproof.identifiers.parse_identifier`; the constructor
    #: does not canonicalise.
    value: str
    #: What the user or the text actually said (stripped), kept for messages.
    raw: str = field(default="", compare=False)
    #: PMC article version pinned by ``PMC123.2``; only ever set for kind "pmcid".
    version: int | None = None

    @property
    def key(self) -> str:
        """``kind:value`` (plus ``.version`` for a pinned PMCID); parses back to an equal value."""
        suffix = f".{self.version}" if self.version is not None else ""
        return f"{self.kind}:{self.value}{suffix}"

    def __str__(self) -> str:
        return self.key
