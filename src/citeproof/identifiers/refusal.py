"""What a refused identifier is told: the reason, then every form that would have worked.

Why here and not in :mod:`citeproof.errors`: the summary describes the kinds declared in
:mod:`citeproof.identifiers.specs`, so it changes when they do; the error tree below every
layer only carries the text.  Every refusal in this package is made by :func:`refuse`, so none
can forget the summary.
"""

from __future__ import annotations

from typing import Final

from citeproof.errors import UnknownIdentifierError

__all__ = ["ACCEPTED_FORMS", "refuse"]

#: The identifier forms every entry point accepts; every refusal ends with it.
#: One sentence, because every interface shows an error as one line: a table folded onto one
#: line ran its columns together ("PMID PMID 27355798").
ACCEPTED_FORMS: Final = (
    "Accepted sources: a DOI (10.1371/journal.pone.0340378, doi:10.1371/..., "
    "https://doi.org/10.1371/...); a PMCID (PMC12829825; PMC10496602.1 pins version 1); "
    "a PMID (pmid:27355798, PMID 27355798 or its PubMed URL); an NCT number (NCT04363697); "
    "an openFDA set id (7c4deb97-9966-4c8e-9ba6-bb260b71e130); a Europe PMC preprint "
    "(PPR1021553); an https:// or http:// URL; or the path of a file, - for standard input."
)


def refuse(text: str, reason: str) -> UnknownIdentifierError:
    """The error for ``text``: ``reason`` followed by :data:`ACCEPTED_FORMS`."""
    return UnknownIdentifierError(text, reason, ACCEPTED_FORMS)
