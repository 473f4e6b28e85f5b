"""Reference entries from the ``.bib`` files given with a manuscript (LaTeX, Pandoc Markdown).

Why a bibliography is pruned and a printed list is not: a ``.bib`` is a library, often far
larger than the paper; BibTeX prints only the entries the text cites (and ``\\nocite``
names), so only those are the manuscript's references.  The entries are read by
:func:`citeproof.refs.bibtex.read_bibtex`; their id and key are the citation key; an entry
whose key repeats an earlier one is left out (BibTeX uses the first); a file that cannot be
read is a problem, not a failure.

Pure: no I/O (the caller gives the files' bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from citeproof.documents import decode_text
from citeproof.errors import CiteproofError
from citeproof.manuscript.draft import Draft
from citeproof.manuscript.structure import ReferenceEntry
from citeproof.refs.bibtex import read_bibtex

__all__ = ["MAX_BIB_BYTES", "bib_entries", "bib_names"]

#: Bytes of ``.bib`` read per manuscript, all files together.
MAX_BIB_BYTES: Final = 20 * 1024 * 1024


def bib_names(members: Mapping[str, bytes]) -> list[str]:
    """The members that are BibTeX files, in name order."""
    return sorted(n for n in members if n.lower().endswith((".bib", ".bibtex")))


def bib_entries(
    members: Mapping[str, bytes], draft: Draft, names: list[str] | None = None
) -> list[ReferenceEntry]:
    """Every entry of the named ``.bib`` members (all of them by default), first key wins."""
    out: list[ReferenceEntry] = []
    seen: set[str] = set()
    total = 0
    for name in bib_names(members) if names is None else names:
        data = members.get(name)
        if data is None:
            draft.problem(
                "missing_file", f"The bibliography {name} is not among the files given.", name
            )
            continue
        total += len(data)
        if total > MAX_BIB_BYTES:
            draft.problem(
                "too_large",
                f"The bibliographies pass {MAX_BIB_BYTES:,} bytes; "
                f"{name} and those after it were not read.",
                name,
            )
            break
        try:
            refs = read_bibtex(decode_text(data, what=name))
        except (ValueError, CiteproofError) as exc:
            draft.problem("unreadable_bibliography", f"{name}: {exc}", name)
            continue
        for ref in refs:
            key = ref.label
            where = f"{ref.where} of {name}" if ref.where else name
            if key is None:
                draft.problem(
                    "unreadable_entry",
                    f"An entry of {name} could not be read: {ref.text[:120]}",
                    where,
                )
                continue
            if key in seen:
                continue
            seen.add(key)
            out.append(
                ReferenceEntry(
                    id=key,
                    reference=replace(ref, where=where),
                    key=key,
                    origin="bib",
                    where=where,
                )
            )
    return out
