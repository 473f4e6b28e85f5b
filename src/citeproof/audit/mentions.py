"""What a citing sentence itself says about the work it cites: "Smith et al. (2019) found …
[PMID 123]" names an author and a year the PMID's record must have.

Why only authors and years: a sentence's quoted words are the quote under check, not a title,
and anything looser (a capitalised word next to a year) would accuse correct citations.  The
forms read, each with a four-digit year:

* ``Smith et al. (2019)``, ``Smith et al., 2019``, ``(Smith et al., 2019)``
* ``Smith and Jones (2019)``, ``Smith & Jones, 2019``
* ``Smith (2019)`` — a single capitalised name right before a parenthesised year

The first such mention before the citation counts; its authors and year go into a
:class:`~citeproof.refs.stated.StatedReference` with the citation's identifier, and the
comparison is the references' own (``citeproof.refs``).  Pure: no I/O.
"""

from __future__ import annotations

import re

from citeproof.identifiers import Identifier
from citeproof.refs.stated import StatedReference

__all__ = ["stated_in_sentence"]

_NAME = r"[A-Z][\w'’\-]+(?:\s+(?:van|von|de|der|den|da|di|le|la)\s+[A-Z][\w'’\-]+)?"
_MENTION = re.compile(
    rf"(?P<first>{_NAME})"
    rf"(?:\s+et\s+al\.?|\s+(?:and|&)\s+(?P<second>{_NAME}))?"
    r"\s*(?:\(\s*(?P<py>(?:19|20)\d{2})[a-z]?\s*\)|,\s*(?P<cy>(?:19|20)\d{2})[a-z]?\b)"
)
_ET_AL = re.compile(r"et\s+al", re.IGNORECASE)
#: Words that start a sentence or name a thing, never an author, before a year.
_NOT_NAMES = frozenset(
    "In On At By From Since Until During After Before The A An This These Those Table Figure "
    "Fig Study Trial Report Guideline Guidelines January February March April May June July "
    "August September October November December Spring Summer Autumn Winter".split()
)


def stated_in_sentence(
    sentence: str, identifier: Identifier, before: int | None = None
) -> StatedReference | None:
    """The author/year mention in ``sentence`` (up to offset ``before``), for ``identifier``;
    None when the sentence names no author with a year, or the identifier is not a DOI, PMID
    or PMCID."""
    if identifier.kind not in ("doi", "pmid", "pmcid"):
        return None
    text = sentence if before is None else sentence[:before]
    for found in _MENTION.finditer(text):
        first = found.group("first")
        if first in _NOT_NAMES:
            continue
        second = found.group("second")
        plain = second is None and not _ET_AL.search(found.group(0))
        if plain and found.group("py") is None:
            continue  # "Smith, 2019" without "et al." is too loose; "Smith (2019)" is not
        year = int(found.group("py") or found.group("cy"))
        authors = (first,) if second is None else (first, second)
        return StatedReference(
            text="",
            authors=authors,
            year=year,
            **{identifier.kind: identifier.value},  # type: ignore[arg-type]
        )
    return None
