"""Write realistic metadata dumps for the local-index benchmark (issue 23): OpenAlex works
(gzipped JSON Lines) and Crossref public-data-file items (gzipped ``{"items": [...]}``).

    python bench/make_index_records.py OUT --records 10000000 [--workers 2] [--seed 23]

Everything written is INVENTED (no such works exist), but drawn from real material so that
the search engine meets real term statistics: titles are built from the words of the real
titles in ``../shared/corpus`` (PubMed, Crossref, OpenAlex, JATS reference lists), weighted by
their frequency there, with 15% of the words from the corpus's article text for the long
tail; authors from the 3,000-odd real surnames and given names in the same files; venues
from the real journal names.  Records are shaped as the real dumps are, at their real sizes
(about 5 KB a record uncompressed on average, with a long tail: authorships with
institutions, concepts, locations, reference lists, abstracts for some), because parsing cost
grows with size.

The duplicate and near-duplicate rates, and why:

* **Crossref and OpenAlex overlap**: 43% of works have a Crossref item, and 95% of those are
  also in OpenAlex (OpenAlex ingests Crossref; the rest stand for records newer than the
  snapshot).  57% of works are OpenAlex-only (repositories, PubMed-only, legacy MAG), about
  half of those without a DOI, as in the snapshot.
* **Duplicate records within OpenAlex**: 2% of works have a second OpenAlex work without a
  DOI (unmerged legacy duplicates), the title differing in case and punctuation.
* **Preprint twins**: 4% of works have a preprint (bioRxiv, medRxiv or arXiv DOI) with the
  same or nearly the same title a year earlier: a separate work linked by ``relation``.
* **Notices**: 1% of works have a correction notice ("Correction: <title>") and 0.05% a
  retraction notice (Retraction Watch's ~55,000 of ~100 million articles), as Crossref items
  with ``update-to``.
* **Generic titles**: 2% of works are paratext ("Editorial", "Book reviews", "Reply" …), the
  titles every search engine must rank without help from the title.
* **Identifiers**: 90% of Crossref-or-OpenAlex works with a DOI; 35% with a PMID; 10% a PMCID.

It also writes ``queries.jsonl``: for every 2,000th work, a reference as an author would
print it (Vancouver or APA, sometimes a word dropped, a typo, the year off by one) with the
identifier key of the work it cites, for the search benchmark.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import multiprocessing
import random
import re
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lxml import etree

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
ITEMS_PER_CROSSREF_FILE = 5000
LINES_PER_OPENALEX_PART = 500_000
QUERY_EVERY = 2000

GENERIC_TITLES = (
    "Editorial",
    "Introduction",
    "Book reviews",
    "Letter to the editor",
    "Reply",
    "Erratum",
    "Index",
    "Preface",
    "In this issue",
    "Announcements",
    "Commentary",
    "Acknowledgement to reviewers",
    "Contents",
    "News",
    "Obituary",
)
_WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ0-9'-]{1,30}")


# --- the vocabulary ---------------------------------------------------------------------------


class Vocabulary:
    """Words, names and venues read back from the real corpus files."""

    def __init__(self, corpus: Path) -> None:
        titles: list[str] = []
        names: set[tuple[str, str]] = set()
        venues: set[str] = set()
        text_words: collections.Counter[str] = collections.Counter()
        parser = etree.XMLParser(
            resolve_entities=False, no_network=True, load_dtd=False, recover=True, huge_tree=False
        )
        for path in sorted(corpus.rglob("*")):
            if not path.is_file() or path.stat().st_size > 8_000_000:
                continue
            if path.suffix in (".nxml", ".xml") or path.name.endswith(".body"):
                self._xml(path, parser, titles, names, venues, text_words)
            if path.suffix in (".json", ".body"):
                self._json(path, titles, names, venues)
        if len(titles) < 100 or len(names) < 100:
            raise SystemExit(f"{corpus} holds too few real titles or names to draw from")
        title_words: collections.Counter[str] = collections.Counter()
        for title in titles:
            title_words.update(w.lower() if not w.isupper() else w for w in _WORD.findall(title))
        self.head = list(title_words)
        self.head_weights = _cumulative(title_words[w] for w in self.head)
        tail = [w for w, _ in text_words.most_common(60_000) if w not in title_words]
        self.tail = tail
        self.tail_weights = _cumulative(1.0 / (i + 20) for i in range(len(tail)))
        self.surnames = sorted({s for s, _ in names})
        self.given = sorted({g for _, g in names if g and len(g) > 1 and not g.isupper()})
        self.initials = sorted({g for _, g in names if g and g.isupper() and len(g) <= 3})
        self.venues = sorted(v for v in venues if 3 < len(v) < 120)
        self.title_count = len(titles)

    @staticmethod
    def _xml(
        path: Path,
        parser: Any,
        titles: list[str],
        names: set[tuple[str, str]],
        venues: set[str],
        words: collections.Counter[str],
    ) -> None:
        try:
            root = etree.parse(str(path), parser).getroot()
        except (etree.XMLSyntaxError, OSError, ValueError):
            return
        if root is None:
            return
        for el in root.iter("name", "Author", "contrib"):
            surname = (
                el.findtext("surname") or el.findtext("LastName") or el.findtext("name/surname")
            )
            given = (
                el.findtext("given-names")
                or el.findtext("ForeName")
                or el.findtext("name/given-names")
            )
            if surname and surname.strip():
                names.add((" ".join(surname.split()), " ".join((given or "").split())))
        for el in root.iter("source", "Title", "journal-title"):
            if el.text and el.text.strip():
                venues.add(" ".join(el.text.split()).rstrip("."))
        for el in root.iter("article-title", "ArticleTitle"):
            text = " ".join("".join(el.itertext()).split())
            if text:
                titles.append(text)
        for el in root.iter("p", "AbstractText"):
            words.update(w.lower() for w in _WORD.findall("".join(el.itertext())))

    @staticmethod
    def _json(path: Path, titles: list[str], names: set[tuple[str, str]], venues: set[str]) -> None:
        try:
            data = json.loads(path.read_bytes())
        except (ValueError, UnicodeDecodeError, OSError):
            return
        stack = [data]
        while stack:
            value = stack.pop()
            if isinstance(value, dict):
                title = value.get("title")
                if isinstance(title, list) and title and isinstance(title[0], str):
                    titles.append(title[0])
                elif isinstance(title, str) and ("display_name" in value or "DOI" in value):
                    titles.append(title)
                if isinstance(value.get("family"), str):
                    names.add((value["family"], str(value.get("given") or "")))
                for key in ("container-title", "journal-title"):
                    found = value.get(key)
                    if isinstance(found, list) and found and isinstance(found[0], str):
                        venues.add(found[0])
                    elif isinstance(found, str):
                        venues.add(found)
                stack.extend(value.values())
            elif isinstance(value, list):
                stack.extend(value)


def _cumulative(weights: Iterator[float] | Any) -> list[float]:
    out: list[float] = []
    total = 0.0
    for w in weights:
        total += w
        out.append(total)
    return out


# --- one work -----------------------------------------------------------------------------


class Maker:
    """Works by number, the same for the same seed."""

    def __init__(self, vocab: Vocabulary, seed: int) -> None:
        self.v = vocab
        self.seed = seed

    def rng(self, n: int) -> random.Random:
        return random.Random(self.seed * 1_000_003 + n)

    def title(self, r: random.Random) -> str:
        if r.random() < 0.02:
            return r.choice(GENERIC_TITLES)
        length = max(3, min(30, int(r.gauss(11, 4))))
        head = r.choices(self.v.head, cum_weights=self.v.head_weights, k=length)
        words = [
            w if r.random() > 0.15 else r.choices(self.v.tail, cum_weights=self.v.tail_weights)[0]
            for w in head
        ]
        text = " ".join(words)
        if r.random() < 0.2:
            text += ": " + " ".join(
                r.choices(self.v.head, cum_weights=self.v.head_weights, k=r.randint(2, 6))
            )
        return text[0].upper() + text[1:]

    def authors(self, r: random.Random) -> list[tuple[str, str]]:
        count = min(int(r.expovariate(1 / 4.5)) + 1, 60)
        if r.random() < 0.003:
            count = r.randint(100, 300)  # the consortium papers
        out = []
        for _ in range(count):
            given = (
                r.choice(self.v.given)
                if r.random() < 0.7 or not self.v.initials
                else r.choice(self.v.initials)
            )
            out.append((r.choice(self.v.surnames), given))
        return out

    def work(self, n: int) -> dict[str, Any]:
        """The facts of work ``n``: which dumps hold it and what they say."""
        r = self.rng(n)
        year = max(1900, min(2025, int(2025 - r.expovariate(1 / 14))))
        venue_index = int(len(self.v.venues) * r.random() ** 2.5)  # a few big journals
        in_crossref = r.random() < 0.43
        has_doi = in_crossref or r.random() < 0.5
        prefix = r.choice(
            ("1016", "1007", "1002", "1371", "1038", "1109", "1093", "3390", "1080", "1177")
        )
        work = {
            "n": n,
            "title": self.title(r),
            "authors": self.authors(r),
            "year": year,
            "venue": self.v.venues[venue_index],
            "volume": str(r.randint(1, 400)),
            "issue": str(r.randint(1, 12)) if r.random() < 0.8 else None,
            "first": r.randint(1, 3000),
            "pages": r.randint(1, 30),
            "doi": f"10.{prefix}/inv.{n:09d}" if has_doi else None,
            "pmid": str(30_000_000 + n) if r.random() < 0.35 else None,
            "pmcid": f"PMC{20_000_000 + n}" if r.random() < 0.10 else None,
            "crossref": in_crossref,
            "openalex": (not in_crossref) or r.random() < 0.95,
            "duplicate": r.random() < 0.02,
            "preprint": r.random() < 0.04,
            "correction": r.random() < 0.01,
            "retraction": r.random() < 0.0005,
            "abstract": r.random() < 0.4,
            "refs": int(r.expovariate(1 / 18)) if r.random() < 0.6 else 0,
            "seed": r.random(),
        }
        return work


def _stable(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def _issn(venue: str) -> str:
    return f"{_stable(venue) % 9000 + 1000}-{_stable(venue + 'x') % 9000 + 1000}"


def _orcid(r: random.Random) -> str:
    digits = f"{r.randint(1, 9)}-{r.randint(1000, 9999)}-{r.randint(1000, 9999)}"
    return f"https://orcid.org/0000-000{digits}"


def _oa_authorship(r: random.Random, family: str, given: str, position: str) -> dict[str, Any]:
    return {
        "author_position": position,
        "author": {
            "id": f"https://openalex.org/A5{r.randint(0, 10**9):09d}",
            "display_name": f"{given} {family}".strip(),
            "orcid": _orcid(r) if r.random() < 0.3 else None,
        },
        "institutions": [
            {
                "id": f"https://openalex.org/I{r.randint(10**8, 10**9)}",
                "display_name": "INVENTED Institute of " + family,
                "ror": None,
                "country_code": r.choice(("US", "GB", "CN", "DE", "JP", "BR", "IN", "FR")),
                "type": "education",
                "lineage": [],
            }
        ]
        if r.random() < 0.7
        else [],
        "countries": [],
        "is_corresponding": position == "first",
        "raw_author_name": f"{given} {family}".strip(),
        "raw_affiliation_strings": [],
    }


def _abstract(r: random.Random, maker: Maker) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    words = r.choices(maker.v.head, cum_weights=maker.v.head_weights, k=r.randint(80, 250))
    for i, word in enumerate(words):
        index.setdefault(word, []).append(i)
    return index


def openalex_line(
    maker: Maker,
    w: dict[str, Any],
    *,
    wid: int,
    doi: str | None,
    title: str,
    year: int,
    venue: str,
    twin_of: str | None = None,
) -> str:
    r = random.Random(w["seed"] + wid)
    authors = w["authors"]
    authorships = [
        _oa_authorship(
            r, family, given, "first" if i == 0 else "middle" if i < len(authors) - 1 else "last"
        )
        for i, (family, given) in enumerate(authors[:100])
    ]
    ids: dict[str, Any] = {"openalex": f"https://openalex.org/W{wid}"}
    if doi:
        ids["doi"] = f"https://doi.org/{doi}"
    if w["pmid"] and twin_of is None:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{w['pmid']}"
    if w["pmcid"] and twin_of is None:
        ids["pmcid"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{w['pmcid'][3:]}"
    ids["mag"] = str(wid)
    source = {
        "id": f"https://openalex.org/S{_stable(venue) % 10**9}",
        "display_name": venue,
        "issn_l": _issn(venue),
        "issn": None,
        "is_oa": False,
        "is_in_doaj": False,
        "host_organization": None,
        "host_organization_name": "INVENTED Publisher",
        "type": "journal",
    }
    location = {
        "is_oa": r.random() < 0.4,
        "landing_page_url": f"https://doi.org/{doi}" if doi else None,
        "pdf_url": None,
        "source": source,
        "license": None,
        "version": "publishedVersion",
        "is_accepted": False,
        "is_published": True,
    }
    line: dict[str, Any] = {
        "id": f"https://openalex.org/W{wid}",
        "doi": f"https://doi.org/{doi}" if doi else None,
        "title": title,
        "display_name": title,
        "publication_year": year,
        "publication_date": f"{year}-{r.randint(1, 12):02d}-{r.randint(1, 28):02d}",
        "ids": ids,
        "language": "en",
        "primary_location": location,
        "type": "preprint" if twin_of else "article",
        "type_crossref": "posted-content" if twin_of else "journal-article",
        "indexed_in": ["crossref"] if w["crossref"] else [],
        "open_access": {
            "is_oa": location["is_oa"],
            "oa_status": "closed",
            "oa_url": None,
            "any_repository_has_fulltext": False,
        },
        "authorships": authorships,
        "countries_distinct_count": 1,
        "institutions_distinct_count": 1,
        "corresponding_author_ids": [],
        "corresponding_institution_ids": [],
        "apc_list": None,
        "apc_paid": None,
        "fwci": round(r.random() * 3, 3),
        "has_fulltext": False,
        "cited_by_count": int(r.expovariate(1 / 15)),
        "biblio": {
            "volume": w["volume"],
            "issue": w["issue"],
            "first_page": str(w["first"]),
            "last_page": str(w["first"] + w["pages"]),
        },
        "is_retracted": w["retraction"],
        "is_paratext": False,
        "primary_topic": None,
        "concepts": [
            {
                "id": f"https://openalex.org/C{r.randint(10**7, 10**9)}",
                "wikidata": None,
                "display_name": r.choice(maker.v.head).capitalize(),
                "level": r.randint(0, 3),
                "score": round(r.random(), 6),
            }
            for _ in range(r.randint(2, 6))
        ],
        "mesh": [],
        "locations_count": 1,
        "locations": [location],
        "best_oa_location": None,
        "sustainable_development_goals": [],
        "grants": [],
        "referenced_works_count": w["refs"],
        "referenced_works": [
            f"https://openalex.org/W{r.randint(10**9, 5 * 10**9)}" for _ in range(w["refs"])
        ],
        "related_works": [
            f"https://openalex.org/W{r.randint(10**9, 5 * 10**9)}" for _ in range(10)
        ],
        "abstract_inverted_index": _abstract(r, maker) if w["abstract"] else None,
        "counts_by_year": [
            {"year": y, "cited_by_count": r.randint(0, 9)} for y in range(max(year, 2012), 2026)
        ][:6],
        "updated_date": "2026-02-03T05:00:00.000000",
        "created_date": f"{max(year, 2016)}-01-01",
    }
    return json.dumps(line, ensure_ascii=False)


def crossref_item(
    w: dict[str, Any],
    *,
    doi: str,
    title: str,
    year: int,
    venue: str,
    kind: str = "journal-article",
    update_to: dict[str, Any] | None = None,
    relation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    r = random.Random(w["seed"] + 7)
    item: dict[str, Any] = {
        "indexed": {
            "date-parts": [[2025, 3, r.randint(1, 28)]],
            "date-time": "2025-03-01T00:00:00Z",
            "timestamp": 1740787200000,
        },
        "reference-count": w["refs"],
        "publisher": "INVENTED Publisher",
        "issue": w["issue"],
        "license": [],
        "content-domain": {"domain": [], "crossmark-restriction": False},
        "short-container-title": [],
        "published-print": {"date-parts": [[year, r.randint(1, 12)]]},
        "DOI": doi,
        "type": kind,
        "created": {
            "date-parts": [[year, 1, 1]],
            "date-time": f"{year}-01-01T00:00:00Z",
            "timestamp": 0,
        },
        "page": f"{w['first']}-{w['first'] + w['pages']}",
        "source": "Crossref",
        "is-referenced-by-count": int(r.expovariate(1 / 15)),
        "title": [title],
        "prefix": doi.split("/")[0],
        "volume": w["volume"],
        "author": [
            {
                "given": given,
                "family": family,
                "sequence": "first" if i == 0 else "additional",
                "affiliation": [],
            }
            for i, (family, given) in enumerate(w["authors"][:100])
        ],
        "member": str(r.randint(1, 40000)),
        "reference": [
            {
                "key": f"ref{i}",
                "doi-asserted-by": "crossref",
                "DOI": f"10.{r.randint(1000, 9999)}/inv.{r.randint(0, 10**9)}",
                "unstructured": "INVENTED reference " + str(i),
            }
            for i in range(w["refs"])
        ],
        "container-title": [venue],
        "language": "en",
        "deposited": {
            "date-parts": [[2024, 1, 1]],
            "date-time": "2024-01-01T00:00:00Z",
            "timestamp": 0,
        },
        "score": 1,
        "issued": {"date-parts": [[year, r.randint(1, 12)]]},
        "references-count": w["refs"],
        "URL": f"https://doi.org/{doi}",
        "ISSN": [_issn(venue)],
        "issn-type": [],
    }
    if update_to:
        item["update-to"] = [update_to]
    if relation:
        item["relation"] = relation
    return item


# --- writing ------------------------------------------------------------------------------


def _near(title: str, r: random.Random) -> str:
    """The same title as another database spells it: case, punctuation, a dropped word."""
    choice = r.random()
    if choice < 0.4:
        return title.lower()
    if choice < 0.7:
        return title.rstrip(".") + "."
    words = title.split()
    if len(words) > 4:
        del words[r.randrange(len(words))]
    return " ".join(words)


def write_range(
    out: Path, maker: Maker, start: int, stop: int, part: int
) -> tuple[int, int, list[str]]:
    """Works ``start..stop-1`` into one OpenAlex part and Crossref files; returns (OpenAlex
    lines, Crossref items, queries)."""
    (out / "openalex").mkdir(parents=True, exist_ok=True)
    (out / "crossref").mkdir(parents=True, exist_ok=True)
    oa_count = cr_count = 0
    queries: list[str] = []
    items: list[dict[str, Any]] = []
    cr_file = 0

    def flush_items() -> None:
        nonlocal items, cr_file
        if not items:
            return
        target = out / "crossref" / f"{part:03d}-{cr_file:05d}.json.gz"
        with gzip.open(target, "wt", encoding="utf-8", compresslevel=5) as handle:
            handle.write(json.dumps({"items": items}, ensure_ascii=False))
        items = []
        cr_file += 1

    with gzip.open(
        out / "openalex" / f"part_{part:03d}.gz", "wt", encoding="utf-8", compresslevel=5
    ) as oa:
        for n in range(start, stop):
            w = maker.work(n)
            r = random.Random(w["seed"])
            wid = 1_000_000_000 + n * 4
            if w["openalex"]:
                oa.write(
                    openalex_line(
                        maker,
                        w,
                        wid=wid,
                        doi=w["doi"],
                        title=w["title"],
                        year=w["year"],
                        venue=w["venue"],
                    )
                    + "\n"
                )
                oa_count += 1
                if w["duplicate"]:
                    oa.write(
                        openalex_line(
                            maker,
                            w,
                            wid=wid + 1,
                            doi=None,
                            title=_near(w["title"], r),
                            year=w["year"],
                            venue=w["venue"],
                        )
                        + "\n"
                    )
                    oa_count += 1
            if w["crossref"]:
                relation = None
                if w["preprint"]:
                    relation = {
                        "has-preprint": [
                            {
                                "id-type": "doi",
                                "id": f"10.1101/inv.{n:09d}",
                                "asserted-by": "subject",
                            }
                        ]
                    }
                items.append(
                    crossref_item(
                        w,
                        doi=w["doi"],
                        title=w["title"],
                        year=w["year"],
                        venue=w["venue"],
                        relation=relation,
                    )
                )
                cr_count += 1
                for flag, prefix, kind in (
                    ("correction", "Correction", "correction"),
                    ("retraction", "Retraction", "retraction"),
                ):
                    if w[flag]:
                        notice = f"{w['doi']}.{kind}"
                        update = {
                            "DOI": w["doi"],
                            "type": kind,
                            "source": "publisher",
                            "updated": {"date-parts": [[min(w["year"] + 1, 2025), 6, 1]]},
                        }
                        items.append(
                            crossref_item(
                                w,
                                doi=notice,
                                title=f"{prefix}: {w['title']}",
                                year=min(w["year"] + 1, 2025),
                                venue=w["venue"],
                                update_to=update,
                            )
                        )
                        cr_count += 1
                if len(items) >= ITEMS_PER_CROSSREF_FILE:
                    flush_items()
            if w["preprint"]:
                twin = _near(w["title"], r) if r.random() < 0.3 else w["title"]
                server = r.choice(("bioRxiv", "medRxiv", "arXiv (Cornell University)"))
                oa.write(
                    openalex_line(
                        maker,
                        w,
                        wid=wid + 2,
                        doi=f"10.1101/inv.{n:09d}",
                        title=twin,
                        year=max(w["year"] - 1, 1900),
                        venue=server,
                        twin_of=w["doi"],
                    )
                    + "\n"
                )
                oa_count += 1
            if n % QUERY_EVERY == 0 and (w["openalex"] or w["crossref"]):
                queries.append(json.dumps(_query(w, r, wid), ensure_ascii=False))
    flush_items()
    return oa_count, cr_count, queries


def _query(w: dict[str, Any], r: random.Random, wid: int) -> dict[str, Any]:
    """A reference to work ``w`` as an author prints it."""
    title_words = w["title"].split()
    if r.random() < 0.1 and len(title_words) > 4:
        del title_words[r.randrange(len(title_words))]
    if r.random() < 0.05:
        i = r.randrange(len(title_words))
        word = title_words[i]
        if len(word) > 4:
            title_words[i] = word[:2] + word[3] + word[2] + word[4:]
    title = " ".join(title_words)
    year = w["year"] + (r.choice((-1, 1)) if r.random() < 0.1 else 0)
    first, last = w["first"], w["first"] + w["pages"]
    people = w["authors"][:6]
    if r.random() < 0.5:
        names = ", ".join(f"{f} {''.join(p[0] for p in g.split() if p)}" for f, g in people[:3])
        more = ", et al" if len(w["authors"]) > 3 else ""
        where = f"{w['venue']}. {year};{w['volume']}:{first}-{last}."
        text = f"{names}{more}. {title}. {where}"
    else:
        names = ", ".join(
            f"{f}, {' '.join(p[0] + '.' for p in g.split() if p)}" for f, g in people[:6]
        )
        text = f"{names} ({year}). {title}. {w['venue']}, {w['volume']}, {first}-{last}."
    expect = f"doi:{w['doi'].lower()}" if w["doi"] else f"openalex:W{wid}"
    return {
        "text": text,
        "title": title,
        "authors": [f for f, _ in people[:3]],
        "year": year,
        "venue": w["venue"],
        "volume": w["volume"],
        "first_page": str(first),
        "expect": expect,
        "doi": w["doi"],
        "pmid": w["pmid"],
    }


def _job(args: tuple[str, int, int, int, int]) -> tuple[int, int, list[str]]:
    out, seed, start, stop, part = args
    maker = Maker(Vocabulary(CORPUS), seed)
    return write_range(Path(out), maker, start, stop, part)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--records", type=int, default=1_000_000, help="about this many records")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args(argv)
    if not CORPUS.is_dir():
        print(f"needs the real corpus in {CORPUS}", file=sys.stderr)
        return 2
    works = int(args.records / 1.46)  # records per work, measured on the rates above
    step = min(LINES_PER_OPENALEX_PART, max(1, works // max(args.workers, 1) + 1))
    jobs = [
        (str(args.out), args.seed, s, min(s + step, works), i)
        for i, s in enumerate(range(0, works, step))
    ]
    started = time.monotonic()
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        results = pool.map(_job, jobs, chunksize=1)
    oa = sum(r[0] for r in results)
    cr = sum(r[1] for r in results)
    with (args.out / "queries.jsonl").open("w", encoding="utf-8") as handle:
        for r in results:
            handle.writelines(q + "\n" for q in r[2])
    summary = {
        "works": works,
        "openalex_lines": oa,
        "crossref_items": cr,
        "records": oa + cr,
        "seconds": round(time.monotonic() - started, 1),
        "seed": args.seed,
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
