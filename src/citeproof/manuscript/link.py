"""Link each work a citation names to its reference entry, or say why it cannot be.

Rules, by what the citation gives (:class:`~citeproof.manuscript.draft.RawTarget`):

* **Known entry** (a JATS ``rid``): that entry, if the list has it.
* **Key** (``\\cite{smith2019}``, an anchor, a reference manager's item id): the entry with
  that key or id, exactly, else ignoring case.
* **Number**: the entry printed with that number.  A list printed without numbers (an HTML
  ``<ol>``, a bare list) is numbered by position, 1 first, unless the manuscript cites it by
  author and year.
* **Author-year** (``Smith et al., 2019a``): entries whose first author's surname is the name
  written (folded: case, accents and punctuation do not count; an entry whose authors could
  not be read is compared by the start of its text), then those of that year.  A letter
  suffix picks the entry printed with it (``2019a``); when no entry prints a suffix, ``a`` is
  the first of that name and year in list order, ``b`` the second.  A second name
  (``Smith and Lee``) must be the second author; ``et al.`` prefers entries with three
  authors or more, a single name entries with one.  Still more than one: the citation is
  *ambiguous* and stays unlinked, naming the candidates (a wrong link would hide a
  fabrication).
* **A reference manager's item** (CSL-JSON): the entry with the number the field prints,
  when the entry names one of the item's authors (the manager numbers the field and
  the list together, while an item's own DOI may be wrong: a real article's list gave two
  works one DOI), else the entry with its DOI, else its key, else its first author and year
  (and title, when several).  An
  item no printed entry matches becomes an entry of its own (origin ``field``): the field
  is the manuscript's own record of the work.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from citeproof.manuscript.draft import RawCitation, RawTarget
from citeproof.manuscript.structure import CitedItem, ReferenceEntry
from citeproof.refs.csl import from_csl_item
from citeproof.refs.stated import StatedReference, fold, surname, years_in

__all__ = ["Linker", "csl_identity"]

_KEYED = frozenset({"bib", "bbl", "jats", "nocite", "field", "note"})
"""Origins whose entry id is the key the manuscript cites it by."""
_LABEL_NUMBER = re.compile(r"\[?\(?(\d{1,5})[.)\]]?")
_YEAR_SUFFIX = re.compile(r"(?<!\d)((?:1[5-9]|20)\d\d)([a-z])(?![a-z])")


@dataclass(frozen=True, slots=True)
class _Who:
    """What author-year linking compares of one entry."""

    first: str
    second: str
    authors: int
    year: str
    suffixes: frozenset[str]
    text: str


def csl_identity(item: Mapping[str, Any]) -> str:
    """One string per work for a CSL item: its DOI, else its id, else its title and year."""
    for key in ("DOI", "doi"):
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return "doi:" + value.strip().lower()
    value = item.get("id")
    if isinstance(value, str | int) and str(value).strip():
        return "id:" + str(value).strip()
    title = item.get("title")
    return "title:" + fold(title if isinstance(title, str) else "")


class Linker:
    """Links targets against one manuscript's entries (module rules)."""

    def __init__(self, entries: Sequence[ReferenceEntry], *, by_position: bool = True) -> None:
        self.entries: list[ReferenceEntry] = list(entries)
        self.by_position = by_position
        self.printed = len(self.entries)
        self._index()
        self._field_entries: dict[str, str] = {}

    def _index(self) -> None:
        self.by_id = {e.id: e for e in self.entries}
        self.by_key: dict[str, str] = {}
        self.by_key_folded: dict[str, str] = {}
        self.by_label: dict[int, str] = {}
        self.by_doi: dict[str, list[str]] = {}
        for e in self.entries:
            # an id made up for a printed entry (ref3) is no key anyone cites by
            for key in (e.key, e.id if e.origin in _KEYED else None):
                if key:
                    self.by_key.setdefault(key, e.id)
                    self.by_key_folded.setdefault(key.lower(), e.id)
            if e.label and (m := _LABEL_NUMBER.fullmatch(e.label.strip())):
                self.by_label.setdefault(int(m.group(1)), e.id)
            if e.reference.doi:
                self.by_doi.setdefault(e.reference.doi.lower(), []).append(e.id)
        self.numbered = bool(self.by_label)
        self.who = {e.id: _who(e) for e in self.entries}

    # --- one target -------------------------------------------------------------------

    def link(self, citation: RawCitation) -> tuple[CitedItem, ...]:
        """Each target of the citation as a cited item, linked or with a reason."""
        return tuple(self._item(t) for t in citation.targets)

    def _item(self, t: RawTarget) -> CitedItem:
        entry_id, reason = self._resolve(t)
        return CitedItem(t.target, entry_id, None if entry_id else reason, t.locator, t.csl)

    def _resolve(self, t: RawTarget) -> tuple[str | None, str | None]:
        if t.reason is not None and t.entry_id is None:
            return None, t.reason
        if t.entry_id is not None:
            if t.entry_id in self.by_id:
                return t.entry_id, None
            return None, f"It points to {t.entry_id!r}, which is no entry of the reference list."
        if t.csl is not None:
            return self._field(t)
        if t.key is not None:
            return self._key(t.key)
        if t.number is not None:
            return self._number(t.number)
        if t.names:
            return self._author_year(t)
        return None, "The citation names nothing citeproof can look up."

    def _key(self, key: str) -> tuple[str | None, str | None]:
        found = self.by_key.get(key) or self.by_key_folded.get(key.lower())
        if found:
            return found, None
        return None, f"No reference entry has the key {key!r}."

    def _number(self, number: int) -> tuple[str | None, str | None]:
        if self.numbered:
            found = self.by_label.get(number)
            if found:
                return found, None
            return None, f"The reference list has no entry {number}."
        if self.by_position and 1 <= number <= self.printed:
            return self.entries[number - 1].id, None
        if not self.by_position and self.printed:
            return None, (
                f"[{number}] cites by number, but the reference list is not numbered (its "
                "entries are cited by author and year)."
            )
        if not self.printed:
            return None, f"[{number}] is a numbered citation, but no reference list was found."
        return None, f"The reference list has {self.printed} entries, so none is number {number}."

    def _author_year(self, t: RawTarget) -> tuple[str | None, str | None]:
        found, reason = self._author_year_names(t)
        if found is None and len(t.names) > 2:
            # "(Long Short-Term Memory, Hochreiter and Schmidhuber, 1997)": a phrase first
            again, _ = self._author_year_names(replace(t, names=t.names[1:]))
            if again is not None:
                return again, None
        return found, reason

    def _author_year_names(self, t: RawTarget) -> tuple[str | None, str | None]:
        """The one entry that the names, year and letter of ``t`` pick out, or why none is:
        each step narrows the entries of the one before (module rules)."""
        who = " and ".join(t.names) + (" et al." if t.etal else "")
        by_name = [
            e for e in self.entries[: self.printed] if _name_matches(t.names[0], self.who[e.id])
        ]
        if not by_name:
            return None, f"No reference entry has a first author named {who!r}."
        year = (t.year or "").lower()
        by_year = self._of_year(by_name, year)
        if not by_year:
            years = sorted({self.who[e.id].year or "no year" for e in by_name})
            return None, (
                f"No reference entry by {who} is from {t.year}; the entries by that name are "
                f"from {', '.join(years)}."
            )
        chosen = self._by_second_name(by_year, t.names)
        suffix = year[4:5] if year[:4].isdigit() else ""
        if suffix:
            chosen = self._by_letter(chosen, suffix)
            if not chosen:
                return None, f"No reference entry by {who} is marked {t.year}."
        if len(chosen) > 1:
            chosen = self._by_author_count(chosen, t) or chosen
        if len(chosen) > 1:
            ids = ", ".join(e.label or e.id for e in chosen[:5])
            return None, (
                f"{t.target} is ambiguous: {len(chosen)} reference entries match it ({ids}); "
                "a letter after the year (2019a, 2019b) tells them apart."
            )
        return chosen[0].id, None

    def _of_year(self, entries: list[ReferenceEntry], year: str) -> list[ReferenceEntry]:
        """The entries of the year a citation writes: a year (its letter aside), ``n.d.``
        (an entry with no year or printing n.d.), or words (``in press``: printed so)."""
        if year.startswith("n"):  # n.d.
            return [e for e in entries if not self.who[e.id].year or "n.d" in self.who[e.id].text]
        if not year[:4].isdigit():  # in press, forthcoming
            return [e for e in entries if year.split()[0] in self.who[e.id].text]
        return [e for e in entries if self.who[e.id].year == year[:4]]

    def _by_second_name(
        self, entries: list[ReferenceEntry], names: tuple[str, ...]
    ) -> list[ReferenceEntry]:
        """For ``Smith and Lee``: the entries whose second author is Lee, else those with no
        second author read, else all of them."""
        if len(names) != 2:
            return entries
        second = [e for e in entries if self.who[e.id].second == names[1]]
        return second or [e for e in entries if not self.who[e.id].second] or entries

    def _by_letter(self, entries: list[ReferenceEntry], suffix: str) -> list[ReferenceEntry]:
        """The entries a year's letter (``2019a``) picks: those printed with it; when none
        prints a letter, the entry at the letter's place in list order (a first, b second)."""
        printed = [e for e in entries if suffix in self.who[e.id].suffixes]
        if printed:
            return printed
        if any(self.who[e.id].suffixes for e in entries):
            return []
        position = ord(suffix) - ord("a")
        return [entries[position]] if position < len(entries) else []

    def _by_author_count(self, entries: list[ReferenceEntry], t: RawTarget) -> list[ReferenceEntry]:
        """The entries whose number of authors the citation's form fits: ``et al.`` three or
        more (else two or more), one name one author, two names two, more names as many."""
        if t.etal:
            three = [e for e in entries if self.who[e.id].authors >= 3]
            return three or [e for e in entries if self.who[e.id].authors >= 2]
        if len(t.names) == 1:
            return [e for e in entries if self.who[e.id].authors <= 1]
        if len(t.names) == 2:
            return [e for e in entries if self.who[e.id].authors == 2]
        return [e for e in entries if self.who[e.id].authors >= len(t.names)]

    def _field(self, t: RawTarget) -> tuple[str | None, str | None]:
        """A reference manager's item against the printed entries (module rules): the first
        rule that names an entry, else an entry made from the item."""
        item = t.csl or {}
        stated = from_csl_item(item)
        for rule in (
            self._field_by_number,
            self._field_by_doi,
            self._field_by_key,
            self._field_by_author,
            self._field_by_position,
        ):
            found = rule(t, stated)
            if found is not None:
                return found, None
        return self._field_entry(item, t), None

    def _field_by_number(self, t: RawTarget, stated: StatedReference) -> str | None:
        """The entry printed with the number the field prints, if it names an author of the
        item (:meth:`_agrees`)."""
        if t.number is None or not self.numbered:
            return None
        found = self.by_label.get(t.number)
        return found if found and self._agrees(stated, found) else None

    def _field_by_doi(self, t: RawTarget, stated: StatedReference) -> str | None:
        """The first entry with the item's DOI."""
        same = self.by_doi.get(stated.doi.lower()) if stated.doi else None
        return same[0] if same else None

    def _field_by_key(self, t: RawTarget, stated: StatedReference) -> str | None:
        """The entry with the item's key."""
        return (self.by_key.get(t.key) or None) if t.key else None

    def _field_by_author(self, t: RawTarget, stated: StatedReference) -> str | None:
        """The one printed entry by the item's first author in its year (and with its title,
        when several are)."""
        surnames = stated.surnames
        year = str(stated.year) if stated.year else ""
        if not surnames or not self.printed:
            return None
        matches = [
            e
            for e in self.entries[: self.printed]
            if _name_matches(surnames[0], self.who[e.id])
            and (not year or self.who[e.id].year == year)
        ]
        if len(matches) > 1 and stated.title:
            title = fold(stated.title)
            matches = [e for e in matches if title[:40] in fold(e.reference.text)] or matches
        return matches[0].id if len(matches) == 1 else None

    def _field_by_position(self, t: RawTarget, stated: StatedReference) -> str | None:
        """In a list printed without numbers, the entry at the field's number."""
        if t.number is not None and not self.numbered and 1 <= t.number <= self.printed:
            return self.entries[t.number - 1].id
        return None

    def _agrees(self, stated: StatedReference, entry_id: str) -> bool:
        """Whether a field's item can be the printed entry of its number: one of the item's
        authors is named at the start of the entry (a DOI or a year may be wrong in either,
        and an organisation is printed in many ways; a name the reader sees is not)."""
        if not stated.authors:
            return True
        head = self.who[entry_id].text[:160]
        words = [fold(a).split() for a in stated.authors[:6]]
        names = {surname(a) for a in stated.authors[:6]} | {" ".join(w[:2]) for w in words if w}
        return any(n and (head.startswith(n) or f" {n} " in f" {head} ") for n in names)

    def _field_entry(self, item: Mapping[str, Any], t: RawTarget) -> str:
        """The entry made from a field's item (one per work, however often it is cited)."""
        identity = csl_identity(item)
        if identity in self._field_entries:
            return self._field_entries[identity]
        n = len(self.entries) - self.printed + 1
        entry_id = f"field{n}"
        while entry_id in self.by_id:
            n += 1
            entry_id = f"field{n}"
        stated = from_csl_item(item)
        entry = ReferenceEntry(
            id=entry_id,
            reference=stated,
            key=t.key or stated.label,
            origin="field",
            where=t.target,
            csl=item,
        )
        self.entries.append(entry)
        self.by_id[entry_id] = entry
        self.who[entry_id] = _who(entry)
        self._field_entries[identity] = entry_id
        return entry_id

    @property
    def created(self) -> list[ReferenceEntry]:
        """The entries made from fields' items, in the order they were first cited."""
        return self.entries[self.printed :]


def _who(entry: ReferenceEntry) -> _Who:
    ref = entry.reference
    names = ref.surnames
    text = fold(ref.text)
    first = names[0] if names else ""
    if not first:
        head = re.split(r"[.,(:;]", ref.text, maxsplit=1)[0]
        first = surname(head) if len(head.split()) <= 3 else fold(head)
    year = str(ref.year) if ref.year else ""
    if not year and (found := years_in(ref.text)):
        year = str(found[0])
    suffixes = frozenset(
        m.group(2) for m in _YEAR_SUFFIX.finditer(ref.text) if not year or m.group(1) == year
    )
    return _Who(first, names[1] if len(names) > 1 else "", len(names), year, suffixes, text)


def _name_matches(name: str, who: _Who) -> bool:
    """Whether a cited (folded) name is the entry's first author."""
    if not name:
        return False
    if who.first and (
        who.first == name or who.first.endswith(" " + name) or name.endswith(" " + who.first)
    ):
        return True
    return who.text.startswith(name + " ") or who.text == name
