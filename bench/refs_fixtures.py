"""Invented works and the answers five services would give about them, for ``bench_refs.py``.

Everything here is INVENTED: DOIs under the test prefix ``10.5555/``, PMIDs ``999xxxxx``,
OpenAlex ids ``W9993xxxx``, made-up people, journals and titles, and hosts under
``.example``.

The works are ``tests/refs_world.py``'s :class:`~refs_world.Work` and every answer is built
by its builders and routed by its :class:`~refs_world.World`: the same code writes the
recordings the tests replay, which a change to a format would change, so the bench and the
tests describe one set of formats, not two that can drift apart.  It is imported from
tests/ (appended to ``sys.path``, after everything else, so nothing there shadows a module
the bench uses), as ``bench_refs_real.py`` imports ``tests/scholarly_world.py``.

What is the bench's own: many works made from a number, each with a code word in its title
(``HX0042``), so a search is answered for the work it asks about by finding that word in the
query (the search engines' own ranking is not what is measured); a correction notice beside
each work in Crossref's hits and a deposited reference list in each Crossref record, as real
answers have; and every body is built and encoded once, before any timing: the searches
only look bodies up, as a replay of recordings would.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import httpx2

_TESTS = str(Path(__file__).resolve().parents[1] / "tests")
if _TESTS not in sys.path:
    sys.path.append(_TESTS)

from refs_world import (  # noqa: E402
    Answer,
    Person,
    Work,
    World,
    crossref_list,
    datacite_list,
    esearch_answer,
    openalex_list,
)

__all__ = ["GROUPS", "KINDS", "MIX", "Answers", "Reference", "Work", "catalogue", "references"]

_SUBJECTS = (
    "Drought tolerance",
    "Root architecture",
    "Leaf nitrogen uptake",
    "Seed dormancy and germination",
    "Pollinator visits",
    "Soil microbial respiration",
    "Fruit set after pruning",
    "Frost damage to buds",
    "Water use efficiency",
    "Stomatal conductance",
    "Flowering time",
    "Mycorrhizal colonisation",
)
_SETTINGS = (
    "in raised beds",
    "under invented greenhouse conditions",
    "across twelve invented allotments",
    "after a simulated late frost",
    "in mulched and bare plots",
    "over three invented growing seasons",
    "on sandy and clay soils",
)
_PEOPLE = (
    Person("Wren", "Halloway"),
    Person("Tamsin", "Okonkwo-Reyes"),
    Person("Anneke", "de Vries"),
    Person("Ingrid", "Lindqvist"),
    Person("Paolo", "Marchetti"),
    Person("Adaeze", "Abiodun"),
    Person("Kenji", "Tanaka-Bell"),
    Person("Réka", "Szabó"),
    Person("Lúcia", "Ferreira"),
    Person("Siobhan", "O'Donnell"),
    Person("Marek", "Kowalczyk"),
    Person("Layla", "Haddad"),
    Person("Yuki", "Nakamura"),
    Person("Tomás", "Ibarra"),
)
_VENUES = (
    ("Invented Journal of Horticulture", "Invented J Hortic", "9999-0001"),
    ("Invented Plant Science Letters", "Invented Plant Sci Lett", "9999-0002"),
    ("Annals of Invented Agronomy", "Ann Invented Agron", "9999-0003"),
    ("Invented Soil Biology Reports", "Invented Soil Biol Rep", "9999-0004"),
)
_REPOSITORY = "Invented Data Repository"
_CODE = re.compile(r"\bhx(\d{4})\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Reference:
    """One reference string of the benchmark and the verdict it should get."""

    kind: str
    text: str
    expected: str


def _work(n: int) -> Work:
    """Work ``n``: one in five a DataCite dataset, two in three articles with a PMID."""
    venue, abbrev, issn = _VENUES[n % len(_VENUES)]
    dataset = n % 5 == 4
    title = f"{_SUBJECTS[n % len(_SUBJECTS)]} of invented strain HX{n:04d} "
    title += _SETTINGS[(n // len(_SUBJECTS)) % len(_SETTINGS)]
    people = (_PEOPLE[(n * 3 + k * 5) % len(_PEOPLE)] for k in range(1 + n % 4))
    return Work(
        n=n,
        doi=f"10.5555/invented.bench.{'data.' if dataset else ''}{n}",
        title=("Hourly readings: " if dataset else "") + title,
        authors=tuple(dict.fromkeys(people)),
        year=2005 + n % 19,
        month=1 + n % 12,
        day=1 + n % 28,
        venue=_REPOSITORY if dataset else venue,
        publisher=_REPOSITORY if dataset else "Invented Press for Horticulture",
        kind="dataset" if dataset else "journal-article",
        pmid=None if dataset or n % 3 == 0 else str(99_900_000 + n),
        volume=str(3 + n % 17),
        issue=str(1 + n % 6),
        page=f"e{1000 + n}",
        abbreviation=abbrev,
        issn=issn,
    )


def catalogue(size: int) -> dict[int, Work]:
    """``size`` invented works, numbered 0 to size - 1."""
    return {n: _work(n) for n in range(size)}


# --------------------------------------------------------------------------- the strings


def _apa(w: Work, doi: str | None) -> str:
    names = [f"{p.family}, {p.given[0]}." for p in w.authors]
    people = names[0] if len(names) == 1 else ", ".join(names[:-1]) + ", & " + names[-1]
    if w.datacite:
        text = f"{people} ({w.year}). {w.title} [Data set]. {w.venue}."
    else:
        text = f"{people} ({w.year}). {w.title}. {w.venue}, {w.volume}({w.issue}), {w.page}."
    return text + (f" https://doi.org/{doi}" if doi else "")


def _vancouver(w: Work, doi: str | None) -> str:
    names = ", ".join(p.pubmed for p in w.authors)
    text = f"{names}. {w.title}. {w.abbreviation}. {w.year};{w.volume}({w.issue}):{w.page}."
    return text + (f" doi:{doi}" if doi else "")


def _ieee(w: Work, doi: str | None) -> str:
    names = [f"{p.given[0]}. {p.family}" for p in w.authors]
    people = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    text = (
        f"{people}, “{w.title},” {w.venue}, vol. {w.volume}, no. {w.issue}, p. {w.page}, {w.year}"
    )
    return text + (f", doi: {doi}." if doi else ".")


_STYLES: tuple[Callable[[Work, str | None], str], ...] = (_apa, _vancouver, _ieee)

KINDS = (
    "doi matches",
    "pmid matches",
    "doi of another work",
    "found by search",
    "nothing found",
    "datacite doi",
)
_EXPECTED = {
    "doi matches": "verified",
    "pmid matches": "verified",
    "doi of another work": "mismatch",
    "found by search": "verified",
    "nothing found": "not_found",
    "datacite doi": "verified",
}
#: What identifier a kind's entry states: the groups the requests-per-reference targets are
#: judged on.
GROUPS = {
    "doi matches": "with a DOI",
    "doi of another work": "with a DOI",
    "datacite doi": "with a DOI",
    "pmid matches": "with a PMID",
    "found by search": "without an identifier",
    "nothing found": "without an identifier",
}
#: The order kinds come in, over and over: a bibliography's mix, pessimistic in fabrications.
#: Most entries of a real list cite a real work rightly (here 8 in 10: DOIs, PMIDs, entries
#: without an identifier, one dataset), and 2 in 10 are the fabrications citeproof is for (a
#: DOI of another work, a work no database holds), more than real lists hold.
MIX = (
    "doi matches",
    "found by search",
    "pmid matches",
    "doi of another work",
    "doi matches",
    "found by search",
    "datacite doi",
    "pmid matches",
    "nothing found",
    "doi matches",
)


def references(works: dict[int, Work], count: int, first: int = 0) -> list[Reference]:
    """``count`` references in the order of :data:`MIX`, each about a different work.

    ``first`` shifts which works are used, so a warm-up can use works the timed run does
    not.  "nothing found" names a work that is not in ``works`` (its code is past the end).
    """
    articles = [w for w in works.values() if not w.datacite]
    with_pmid = [w for w in articles if w.pmid]
    datasets = [w for w in works.values() if w.datacite]
    out: list[Reference] = []
    for i in range(first, first + count):
        kind = MIX[i % len(MIX)]
        style = _STYLES[(i // len(MIX)) % len(_STYLES)]
        a = articles[i % len(articles)]
        if kind == "doi matches":
            text = style(a, a.doi)
        elif kind == "pmid matches":
            p = with_pmid[i % len(with_pmid)]
            text = f"{_vancouver(p, None)} PMID: {p.pmid}."
        elif kind == "doi of another work":
            b = articles[(i + 7) % len(articles)]
            text = style(a, b.doi)
        elif kind == "found by search":
            text = style(a, None)
        elif kind == "nothing found":
            text = style(_work(len(works) + i), None)
        else:
            d = datasets[i % len(datasets)]
            text = _apa(d, d.doi)
        out.append(Reference(kind, text, _EXPECTED[kind]))
    return out


# --------------------------------------------------------------------------- the answers


def _notice(w: Work) -> Work:
    """A correction notice about ``w``, as a search finds it next to the work."""
    return replace(
        w,
        doi=f"{w.doi}.corr",
        title=f"Correction: {w.title}",
        authors=(),
        year=w.year + 1,
        month=2,
        updates=w.doi,
    )


def _code(text: str) -> int:
    match = _CODE.search(text)
    return int(match.group(1)) if match else -1


class Answers(World):
    """Every invented answer, encoded once, and served by :class:`refs_world.World`'s routing.

    ``calls`` counts the requests answered, ``unexpected`` keeps any request this class has
    no answer for (answered 404, so a miss shows in the verdicts as well as here).
    """

    def __init__(self, works: dict[int, Work], rows: int = 5) -> None:
        size = len(works)

        def cited(w: Work) -> Work:
            listed = (works[(w.n * 7 + k) % size] for k in range(20 + w.n % 15))
            return replace(w, cites=tuple((c.doi, _vancouver(c, None)) for c in listed))

        super().__init__(cited(w) for w in works.values())
        self.catalogue = works
        self.rows = rows
        self.unexpected: list[str] = []
        self._biblio: dict[int, Answer] = {-1: crossref_list([], rows)}
        self._openalex: dict[int, Answer] = {-1: openalex_list([], rows)}
        for n in range(2 * size + 64):  # codes past the end: works no service knows
            others = [works[(n * 11 + k * 5 + 1) % size] for k in range(rows)]
            others = [o for o in others if o.n != n][: rows - 1 if n in works else rows]
            if n in works:
                w = works[n]
                hits = [(w, 120.0), (_notice(w), 95.0)]
                hits += [(o, 60.0 - 4 * k) for k, o in enumerate(others[:3])]
                self._biblio[n] = crossref_list(hits, rows)
                self._openalex[n] = openalex_list([w, *others], rows)
            else:
                self._biblio[n] = crossref_list(
                    [(o, 48.0 - 3 * k) for k, o in enumerate(others)], rows
                )
                self._openalex[n] = openalex_list(others, rows)

    def crossref_search(self, query: str, rows: int) -> Answer:
        return self._biblio.get(_code(query), self._biblio[-1])

    def openalex_search(self, query: str, per_page: int) -> Answer:
        return self._openalex.get(_code(query), self._openalex[-1])

    def pubmed_search(self, term: str, retmax: int) -> Answer:
        w = self.catalogue.get(_code(term))
        return esearch_answer(term, [w.pmid] if w and w.pmid else [], retmax)

    def datacite_search(self, query: str, rows: int, url: str) -> Answer:
        w = self.catalogue.get(_code(query))
        return datacite_list([w] if w and w.datacite else [], rows, url)

    def gap(self, request: httpx2.Request) -> httpx2.Response:
        self.unexpected.append(f"{request.method} {request.url}")
        return httpx2.Response(404, headers={"content-type": "text/plain"}, content=b"not invented")
