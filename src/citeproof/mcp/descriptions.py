"""What the server tells an agent besides the tools: its instructions, the resource, the prompt.

Kept apart from the code so the wording can be read and reviewed as prose.  Each tool's own
description is in its declaration (:mod:`citeproof.mcp.tools`); :data:`TOOL_NAMES` is
derived from those declarations and named here too, where ``citeproof mcp --help`` reads it.
"""

from __future__ import annotations

from typing import Final

from citeproof.mcp.tools import TOOL_NAMES

__all__ = [
    "INSTRUCTIONS",
    "PROMPT_DESCRIPTION",
    "PROMPT_TEXT",
    "RESOURCE_TEMPLATE",
    "SOURCE_RESOURCE",
    "TOOL_NAMES",
]

#: The resource template, in RFC 6570 syntax: ``{+identifier}`` is a reserved expansion, so
#: an identifier may hold ``/`` (a DOI) and still be one variable.
RESOURCE_TEMPLATE: Final = "citeproof://source/{+identifier}"

INSTRUCTIONS: Final = (
    "citeproof checks that a quoted passage really appears in the cited source (a DOI, PMID, "
    "PMCID, NCT number, openFDA set id, Europe PMC preprint id, URL or local file) and says "
    "where, in which version, and whether the work is retracted. Call check_quote before "
    "presenting any text as a direct quotation; use read_source to copy the source's exact "
    "words. citeproof never judges whether a passage supports a claim."
)

SOURCE_RESOURCE: Final = (
    "The extracted text of a source that was already checked or read (pinned in the local "
    "cache), by identifier, e.g. citeproof://source/pmcid:PMC123 or citeproof://source/"
    "10.1000/xyz. Reads only the cache: an identifier never fetched gives an error; call "
    "read_source or check_quote first."
)

PROMPT_DESCRIPTION: Final = (
    "How to cite with verified quotations using citeproof's tools: check before quoting, "
    "quote the source's own wording, report what could not be checked."
)

PROMPT_TEXT: Final = """\
When you write with citations, use citeproof's tools this way.

1. Before you present any text as a direct quotation (inside quotation marks, attributed \
to a source), call check_quote (or check_quotes for several) with the exact words and the \
source identifier. Pass the sentence the quote supports as claim.
2. Present a quotation only when the verdict is EXACT. Give the location it reports when \
useful.
3. When the verdict is NEAR, quote near.text — the source's own wording — not your \
version, and check it again. Never present a NEAR that carries a risk flag \
(numbers_differ, negation_differs) as a quote: the source says something different.
4. When the verdict is NOT_FOUND, do not quote. Read the source with read_source and copy \
the exact words, or paraphrase without quotation marks. If coverage is "abstract", say that \
only the abstract was checked.
5. When the verdict is UNAVAILABLE or NOT_CHECKABLE, say plainly that the quotation could \
not be verified and why (the reason field). Never report it as checked.
6. If retraction.status is RETRACTED or CONCERN, say so next to the citation.
7. citeproof checks that words occur in a source; it never checks that the source supports \
your claim. Never say that support was verified. If a person or a named judge assessed \
support, record it with record_support, naming who judged.
8. Record searches with search_literature so the search itself is on the evidence log.
"""
