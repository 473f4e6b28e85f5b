"""An INVENTED scholarly world for ``citeproof refs``: its works, the services that know them,
and the recordings the reference tests replay.

Nothing here is real.  Eleven works (journal articles, two editions of one book, a dataset)
live under the invented DOI prefix ``10.5555/invented.world.N``, with PMIDs 999300NN, PMCIDs
PMC999300NN and OpenAlex ids W999300NN.  :func:`handler` answers, for an
``httpx2.MockTransport``, exactly the requests ``citeproof.refs.lookup`` makes, each in the
real format of the service asked (field names, nesting, types, the 404 bodies):

* doi.org's "Which RA?" ``doiRA/{doi}`` (``[{"DOI":…,"RA":…}]`` or ``"DOI does not exist"``);
* Crossref ``works/{doi}`` (``Resource not found.`` for a DOI it does not hold) and
  ``works?query.bibliographic=`` (every work sharing a word with the string, ranked by the
  words shared, with a Crossref-like relevance ``score``);
* DataCite ``dois/{doi}`` (JSON:API; 404 ``errors``) and ``dois?query=`` (every word must
  match, as its ``query_string`` default operator AND does);
* E-utilities ``esearch`` (``word[tiab] AND name[au]``, every term must match) and
  ``esummary`` (a form POST), JSON; the PMC ID converter;
* OpenAlex ``works?search=`` (works sharing most of the searched words).

Any searched title containing "outage" makes PubMed answer 503, so the "one database could
not be read" case exists.  A request the world has no answer for raises, so a recording run
can never quietly record a gap.

``python tests/refs_world.py`` rewrites ``tests/refs/recordings/`` (and the Retraction Watch
CSV beside it): it verifies every reference the tests use (:func:`stated_inputs`) through
``citeproof.refs.verification.verify_all`` on a client whose innermost transport is a
``RecordingTransport`` over this world, then labels every recording INVENTED.  The tests
replay those recordings through the real entry points (``tests/integration/test_refs.py``).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote

import httpx2

if TYPE_CHECKING:
    from citeproof.models.references import ReferenceResult
    from citeproof.net.ratelimit import RateLimiter
    from citeproof.refs.stated import StatedReference

HERE = Path(__file__).resolve().parent
REFS_DIR = HERE / "refs"
RECORDINGS = REFS_DIR / "recordings"
RW_CSV = REFS_DIR / "retraction-watch-world.csv"

#: When the invented answers were "given": every recording's date and Date header.
WORLD_DATE = datetime(2026, 4, 20, 9, 30, tzinfo=UTC)
HTTP_DATE = "Mon, 20 Apr 2026 09:30:00 GMT"
#: The recording run's contact address and NCBI key: sent on the wire, never written down.
CONTACT = "recorder@invented.example"
API_KEY = "invented0ncbi0key0000000000000000000"
PREFIX = "10.5555/invented.world."

# --------------------------------------------------------------------------------------------
# The works


@dataclass(frozen=True, slots=True)
class Person:
    family: str
    given: str

    @property
    def pubmed(self) -> str:
        """As PubMed prints a name: ``Halloway W``."""
        return f"{self.family} {self.given[0]}"

    @property
    def display(self) -> str:
        """As OpenAlex prints a name: ``Wren Halloway``."""
        return f"{self.given} {self.family}"


@dataclass(frozen=True, slots=True)
class Work:
    n: str
    title: str
    authors: tuple[Person, ...]
    year: int
    month: int
    day: int
    venue: str | None
    """The journal; None for a book or a dataset."""
    publisher: str
    kind: str
    """Crossref's type (``journal-article``, ``book``), or ``dataset`` for DataCite."""
    crossref: bool = True
    datacite: bool = False
    openalex: bool = True
    pmid: str | None = None
    pmcid: str | None = None
    volume: str = ""
    issue: str = ""
    page: str = ""
    abbreviation: str = ""
    isbn: str = ""
    pubmed_lists_doi: bool = True
    """False: PubMed's summary names no DOI (as for many older records)."""

    @property
    def doi(self) -> str:
        return PREFIX + self.n

    @property
    def openalex_id(self) -> str:
        return f"W9993{int(self.n):04d}"


HALLOWAY = Person("Halloway", "Wren")
OKONKWO = Person("Okonkwo-Reyes", "Tamsin")
SOIL = "Invented Journal of Soil Ecology"

WORKS: tuple[Work, ...] = (
    Work(
        "1",
        "Compost temperature and earthworm density in invented allotments",
        (HALLOWAY, OKONKWO),
        2021,
        3,
        4,
        SOIL,
        "Invented Press for Soil Science",
        "journal-article",
        pmid="99930001",
        volume="4",
        issue="2",
        page="e0101",
        abbreviation="Inv J Soil Ecol",
    ),
    Work(
        "2",
        "Rainwater harvesting for invented urban gardens",
        (Person("Brennan", "Aoife"), Person("Mwangi", "Peter")),
        2020,
        6,
        15,
        "Invented Journal of Urban Water",
        "Invented Press for Soil Science",
        "journal-article",
        pmid="99930002",
        volume="7",
        page="12-19",
        abbreviation="Inv J Urban Water",
    ),
    Work(
        "3",
        "Pollinator visits to invented rooftop meadows",
        (Person("Adeyemi", "Folake"), Person("Novak", "Lenka")),
        2022,
        1,
        20,
        "Invented Urban Ecology",
        "Invented Ecology Society",
        "journal-article",
        volume="9",
        issue="1",
        page="33-41",
    ),
    Work(
        "4",
        "Mycorrhizal networks under invented orchard cover crops",
        (Person("Sato", "Kenji"), Person("Lindqvist", "Maja")),
        2019,
        9,
        2,
        "Invented Journal of Orchard Science",
        "Invented Ecology Society",
        "journal-article",
        pmid="99930004",
        volume="11",
        page="201-210",
        abbreviation="Inv J Orchard Sci",
    ),
    Work(
        "5",
        "A field guide to invented hedgerow birds",
        (Person("Ashworth", "Clara"),),
        2018,
        4,
        1,
        None,
        "Invented Natural History Press",
        "book",
        isbn="9780999300051",
    ),
    Work(
        "6",
        "A field guide to invented hedgerow birds",
        (Person("Ashworth", "Clara"),),
        2018,
        4,
        1,
        None,
        "Invented Natural History Press",
        "book",
        isbn="9780999300068",
    ),
    Work(
        "7",
        "Biochar doubles invented tomato yields",
        (Person("Quill", "Dorian"), Person("Marsh", "Esme")),
        2022,
        5,
        9,
        SOIL,
        "Invented Press for Soil Science",
        "journal-article",
        pmid="99930007",
        volume="5",
        page="77-85",
        abbreviation="Inv J Soil Ecol",
    ),
    Work(
        "8",
        "Soil temperature readings from invented allotment plots",
        (HALLOWAY, OKONKWO),
        2023,
        5,
        2,
        None,
        "Zenodo",
        "dataset",
        crossref=False,
        datacite=True,
    ),
    Work(
        "9",
        "Nitrogen leaching from invented raised beds",
        (Person("Ortega", "Marisol"), Person("Byrne", "Siobhan")),
        2020,
        11,
        30,
        SOIL,
        "Invented Press for Soil Science",
        "journal-article",
        pmid="99930009",
        pmcid="PMC99930009",
        volume="3",
        page="45-52",
        abbreviation="Inv J Soil Ecol",
    ),
    Work(
        "10",
        "Ground beetle DNA barcodes from invented Alpine pastures",
        (Person("Müller", "Jürgen"), Person("Sørensen", "Åse")),
        2021,
        7,
        7,
        "Invented Alpine Entomology",
        "Invented Ecology Society",
        "journal-article",
        volume="2",
        page="5-14",
    ),
    Work(
        "11",
        "Slug pressure on invented lettuce trials",
        (Person("Okafor", "Chidi"), Person("Lindgren", "Pia")),
        1998,
        10,
        1,
        "Invented Horticultural Pest Review",
        "Invented Ecology Society",
        "journal-article",
        pmid="99930011",
        volume="14",
        page="210-218",
        abbreviation="Inv Hortic Pest Rev",
        pubmed_lists_doi=False,
    ),
)
BY_DOI = {w.doi: w for w in WORKS}
BY_PMID = {w.pmid: w for w in WORKS if w.pmid}
BY_PMCID = {w.pmcid: w for w in WORKS if w.pmcid}
#: The work the Retraction Watch CSV lists as retracted.
RETRACTED = BY_DOI[PREFIX + "7"]
#: A DOI no agency registered.
FABRICATED_DOI = PREFIX + "99"

# --------------------------------------------------------------------------------------------
# The references the tests verify (every one is recorded by main())

REFERENCES: dict[str, str] = {
    "verified": "Halloway W, Okonkwo-Reyes T. Compost temperature and earthworm density in "
    "invented allotments. Invented Journal of Soil Ecology. 2021;4(2):e0101. "
    "doi:10.5555/invented.world.1",
    "mismatch": "Brennan A, Mwangi P. Rainwater harvesting for invented urban gardens. Invented "
    "Journal of Urban Water. 2020;7:12-19. doi:10.5555/invented.world.1",
    "unresolvable": "Quill D, Marsh E. Moonlight pruning of invented apple trees. Invented "
    "Orchard Letters. 2023;2:1-4. doi:10.5555/invented.world.99",
    "found_by_search": "Adeyemi F, Novak L. Pollinator visits to invented rooftop meadows. "
    "Invented Urban Ecology. 2022;9(1):33-41.",
    "not_found": "Thorne B. Lunar phase planting calendars in invented vineyards. Invented "
    "Viticulture Review. 2017;3:8-15.",
    "outage": "Pike R. Grid outage resilience of invented community greenhouses. Invented "
    "Energy Horticulture. 2024;1:1-9.",
    "partial": "Fischer H. Mycorrhizal networks under invented orchard cover crops. Invented "
    "Journal of Orchard Science. 2019;11:201-210.",
    "ambiguous": "Ashworth C. A field guide to invented hedgerow birds. Invented Natural "
    "History Press; 2018.",
    "retracted": "Quill D, Marsh E. Biochar doubles invented tomato yields. Invented Journal of "
    "Soil Ecology. 2022;5:77-85. doi:10.5555/invented.world.7",
    "dataset_doi": "Halloway W, Okonkwo-Reyes T. Soil temperature readings from invented "
    "allotment plots. Zenodo. 2023. doi:10.5555/invented.world.8",
    "dataset_search": "Halloway W, Okonkwo-Reyes T. Soil temperature readings from invented "
    "allotment plots. Zenodo. 2023.",
    "pmcid": "Ortega M, Byrne S. Nitrogen leaching from invented raised beds. Invented Journal "
    "of Soil Ecology. 2020;3:45-52. PMCID: PMC99930009",
}

#: One work found by search in Crossref (by its DOI), PubMed (whose summary names no DOI)
#: and OpenAlex (which lists both the DOI and the PMID): one work, not two.
UNLINKED = (
    "Okafor C, Lindgren P. Slug pressure on invented lettuce trials. Invented Horticultural "
    "Pest Review. 1998;14:210-218."
)

#: Every entry verified: LaTeX accents (``M{\"u}ller``, ``S{\o}rensen``, ``{\AA}se``),
#: protective braces, a DOI URL, and an entry without any identifier.
BIB_VERIFIED = r"""% INVENTED references for citeproof's tests (tests/refs_world.py)
@article{mueller2021,
  author  = {M{\"u}ller, J{\"u}rgen and S{\o}rensen, {\AA}se},
  title   = {Ground beetle {DNA} barcodes from invented {Alpine} pastures},
  journal = {Invented Alpine Entomology},
  year    = {2021},
  volume  = {2},
  pages   = {5--14},
  doi     = {10.5555/invented.world.10}
}

@article{adeyemi2022,
  author  = {Adeyemi, Folake and Novak, Lenka},
  title   = {{Pollinator} visits to invented rooftop meadows},
  journal = {Invented Urban Ecology},
  year    = 2022
}

@article{halloway2021,
  author  = {Halloway, Wren and Okonkwo-Reyes, Tamsin},
  title   = "{C}ompost temperature and earthworm density in invented allotments",
  journal = {Invented Journal of Soil Ecology},
  year    = {2021},
  doi     = {https://doi.org/10.5555/INVENTED.WORLD.1}
}
"""

#: One verified entry and one with a DOI nobody registered: exit 1.
BIB_PROBLEM = r"""@article{mueller2021,
  author  = {M{\"u}ller, J{\"u}rgen and S{\o}rensen, {\AA}se},
  title   = {Ground beetle {DNA} barcodes from invented {Alpine} pastures},
  journal = {Invented Alpine Entomology},
  year    = {2021},
  doi     = {10.5555/invented.world.10}
}

@article{quill2023,
  author  = {Quill, Dorian and Marsh, Esme},
  title   = {Moonlight pruning of invented apple trees},
  journal = {Invented Orchard Letters},
  year    = {2023},
  doi     = {10.5555/invented.world.99}
}
"""

#: One verified entry and one PubMed cannot be asked about: exit 3.
BIB_OUTAGE = r"""@article{mueller2021,
  author  = {M{\"u}ller, J{\"u}rgen and S{\o}rensen, {\AA}se},
  title   = {Ground beetle {DNA} barcodes from invented {Alpine} pastures},
  journal = {Invented Alpine Entomology},
  year    = {2021},
  doi     = {10.5555/invented.world.10}
}

@article{pike2024,
  author  = {Pike, Rowan},
  title   = {Grid outage resilience of invented community greenhouses},
  journal = {Invented Energy Horticulture},
  year    = {2024}
}
"""

#: A CSL-JSON bibliography: an article by its PMID, a dataset without an identifier.
CSL_ITEMS: list[dict[str, Any]] = [
    {
        "id": "brennan2020",
        "type": "article-journal",
        "title": "Rainwater harvesting for invented urban gardens",
        "author": [{"family": "Brennan", "given": "Aoife"}, {"family": "Mwangi", "given": "Peter"}],
        "issued": {"date-parts": [[2020, 6, 15]]},
        "container-title": "Invented Journal of Urban Water",
        "PMID": "99930002",
    },
    {
        "id": "halloway2023",
        "type": "dataset",
        "title": "Soil temperature readings from invented allotment plots",
        "author": [{"family": "Halloway", "given": "Wren"}],
        "issued": {"date-parts": [[2023]]},
        "publisher": "Zenodo",
    },
]

#: A JSONL file of references: a string with an id, a CSL-JSON object, a bare string.
JSONL_LINES: list[Any] = [
    {"id": "j-compost", "reference": REFERENCES["verified"]},
    {**CSL_ITEMS[0], "id": "j-rain"},  # a CSL item's own "id" is the line's id
    REFERENCES["found_by_search"],
]


def jsonl_text() -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in JSONL_LINES)


def stated_inputs() -> list[StatedReference]:
    """Every reference the tests verify, read by the readers the entry points use."""
    from citeproof.refs.bibtex import read_bibtex
    from citeproof.refs.csl import from_csl_item
    from citeproof.refs.listed import parse_reference_string

    refs: list[StatedReference] = [
        parse_reference_string(text) for text in (*REFERENCES.values(), UNLINKED)
    ]
    for bib in (BIB_VERIFIED, BIB_PROBLEM, BIB_OUTAGE):
        refs.extend(read_bibtex(bib))
    refs.extend(from_csl_item(item) for item in CSL_ITEMS)
    for line in JSONL_LINES:
        if isinstance(line, str):
            refs.append(parse_reference_string(line))
        elif isinstance(line.get("reference"), str):
            refs.append(parse_reference_string(line["reference"]))
        else:
            refs.append(from_csl_item({k: v for k, v in line.items() if k != "id"}))
    return refs


# --------------------------------------------------------------------------------------------
# The Retraction Watch dataset (the columns of Crossref's retraction_watch.csv)

RW_HEADER = (
    "Record ID,Title,Subject,Institution,Journal,Publisher,Country,Author,URLS,ArticleType,"
    "RetractionDate,RetractionDOI,RetractionPubMedID,OriginalPaperDate,OriginalPaperDOI,"
    "OriginalPaperPubMedID,RetractionNature,Reason,Paywalled,Notes"
)
RW_ROWS = (
    '999301,"Biochar doubles invented tomato yields",(BLS) Biology - Plant,Invented Institute '
    "of Soil Science,Invented Journal of Soil Ecology,Invented Press for Soil Science,Nowhere,"
    "Dorian Quill;Esme Marsh,https://invented-press.example/notice/999301,Research Article;,"
    "2/14/2024 0:00,10.5555/invented.world.notice.7,0,5/9/2022 0:00,10.5555/INVENTED.WORLD.7,"
    "99930007,Retraction,+Concerns/Issues About Data;+Duplication of Image;,No,"
    "INVENTED EXAMPLE DATA - not a real record",
    '999302,"Nitrogen leaching from invented raised beds",(BLS) Biology - Plant,Invented '
    "Institute of Soil Science,Invented Journal of Soil Ecology,Invented Press for Soil Science,"
    "Nowhere,Marisol Ortega;Siobhan Byrne,,Research Article;,3/3/2021 0:00,"
    "10.5555/invented.world.notice.9,0,11/30/2020 0:00,10.5555/invented.world.9,99930009,"
    "Correction,+Error in Figure;,No,INVENTED EXAMPLE DATA - not a real record",
)


def rw_csv_text() -> str:
    return "\n".join((RW_HEADER, *RW_ROWS)) + "\n"


# --------------------------------------------------------------------------------------------
# Matching, as each service roughly does it

_STOP = frozenset("a an and the of in on for to with by from at as is are".split())


def words(text: str) -> list[str]:
    """Lower-case words without accents, punctuation, stop words or bare numbers."""
    bare = "".join(
        c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)
    ).replace("ø", "o")
    found = re.findall(r"[a-z0-9]+", bare.casefold())
    return [w for w in found if w not in _STOP and not w.isdigit() and len(w) > 1]


def _indexed(work: Work) -> set[str]:
    people = " ".join(f"{p.family} {p.given}" for p in work.authors)
    return set(words(f"{work.title} {people} {work.venue or ''} {work.publisher}"))


def crossref_ranked(query: str, rows: int) -> list[tuple[Work, float]]:
    """Crossref's bibliographic search: every work sharing a word, most shared first."""
    wanted = set(words(query))
    scored: list[tuple[Work, float]] = []
    for work in WORKS:
        if not work.crossref:
            continue
        shared = wanted & _indexed(work)
        if shared:
            score = 11.0 * len(shared) + 7.3 * len(shared) / max(1, len(set(words(work.title))))
            scored.append((work, round(score, 5)))
    scored.sort(key=lambda pair: (-pair[1], int(pair[0].n)))
    return scored[:rows]


def openalex_ranked(query: str, per_page: int) -> list[Work]:
    """OpenAlex's search: works whose title holds most of the searched words."""
    wanted = set(words(query))
    found: list[tuple[float, Work]] = []
    for work in WORKS:
        if not work.openalex or not wanted:
            continue
        share = len(wanted & set(words(work.title))) / len(wanted)
        if share >= 0.6:
            found.append((share, work))
    found.sort(key=lambda pair: (-pair[0], int(pair[1].n)))
    return [w for _, w in found[:per_page]]


def datacite_matches(query: str, rows: int) -> list[Work]:
    """DataCite's query_string, AND by default: every word matches the record."""
    wanted = set(words(query))
    return [w for w in WORKS if w.datacite and wanted and wanted <= _indexed(w)][:rows]


_TERM = re.compile(r"^(?P<word>[^\[\]]+)\[(?P<field>tiab|au)\]$")


def pubmed_matches(term: str) -> list[Work]:
    """esearch for ``word[tiab] AND … AND name[au]``: every term must match."""
    found: list[Work] = []
    parts = [p.strip() for p in term.split(" AND ")]
    for work in (w for w in WORKS if w.pmid):
        title = set(words(work.title))
        families = {" ".join(words(p.family)) for p in work.authors}
        ok = True
        for part in parts:
            m = _TERM.match(part)
            if m is None:
                raise AssertionError(f"the invented PubMed cannot read the term {part!r}")
            wanted = " ".join(words(m.group("word")))
            if m.group("field") == "tiab" and wanted not in title:
                ok = False
            if m.group("field") == "au" and wanted not in families:
                ok = False
        if ok:
            found.append(work)
    return found


# --------------------------------------------------------------------------------------------
# Answers in each service's format


def _stamp(year: int, month: int, day: int) -> dict[str, Any]:
    when = datetime(year, month, day, 10, 0, tzinfo=UTC)
    return {
        "date-parts": [[year, month, day]],
        "date-time": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timestamp": int(when.timestamp() * 1000),
    }


def _crossref_author(person: Person, first: bool) -> dict[str, Any]:
    return {
        "given": person.given,
        "family": person.family,
        "sequence": "first" if first else "additional",
        "affiliation": [],
    }


def crossref_message(work: Work) -> dict[str, Any]:
    """The full ``works/{doi}`` message."""
    issued = {"date-parts": [[work.year, work.month, work.day]]}
    message: dict[str, Any] = {
        "indexed": {**_stamp(2026, 4, 18), "version": "4.1.0"},
        "reference-count": 0,
        "publisher": work.publisher,
        "content-domain": {"domain": [], "crossmark-restriction": False},
        "short-container-title": [work.abbreviation] if work.abbreviation else [],
        "DOI": work.doi,
        "type": work.kind,
        "created": _stamp(work.year, work.month, work.day),
        "source": "Crossref",
        "is-referenced-by-count": 0,
        "title": [work.title],
        "prefix": "10.5555",
        "author": [_crossref_author(p, i == 0) for i, p in enumerate(work.authors)],
        "member": "99993",
        "container-title": [work.venue] if work.venue else [],
        "original-title": [],
        "language": "en",
        "deposited": _stamp(work.year, work.month, work.day),
        "score": 1,
        "resource": {"primary": {"URL": f"https://invented-press.example/{work.doi}"}},
        "subtitle": [],
        "short-title": [],
        "issued": issued,
        "references-count": 0,
        "URL": f"https://doi.org/{work.doi}",
        "relation": {},
        "subject": [],
        "published": issued,
    }
    if work.kind == "book":
        edition = "print" if work.n == "5" else "electronic"
        message["ISBN"] = [work.isbn]
        message["isbn-type"] = [{"type": edition, "value": work.isbn}]
        message["published-print" if edition == "print" else "published-online"] = issued
    else:
        message.update(
            {
                "volume": work.volume,
                "page": work.page,
                "published-online": issued,
                "ISSN": ["9999-3001"],
                "issn-type": [{"type": "electronic", "value": "9999-3001"}],
            }
        )
        if work.issue:
            message["issue"] = work.issue
            message["journal-issue"] = {"issue": work.issue, "published-online": issued}
    return message


_SELECTED = (
    "DOI",
    "title",
    "author",
    "issued",
    "published-print",
    "published-online",
    "created",
    "container-title",
    "type",
    "update-to",
)


def crossref_item(work: Work, score: float) -> dict[str, Any]:
    """One item of a search, with only the ``select``-ed fields, and its score."""
    full = crossref_message(work)
    item = {k: full[k] for k in _SELECTED if k in full}
    item["score"] = score
    return item


def _crossref_json(payload: Any) -> bytes:
    # Crossref's serialiser escapes every "/" in strings.
    return (
        json.dumps(payload, ensure_ascii=False, separators=(",", ":")).replace("/", "\\/").encode()
    )


def _datacite_attributes(work: Work) -> dict[str, Any]:
    return {
        "doi": work.doi,
        "titles": [{"title": work.title, "lang": "en"}],
        "creators": [
            {
                "name": f"{p.family}, {p.given}",
                "nameType": "Personal",
                "givenName": p.given,
                "familyName": p.family,
                "affiliation": [],
                "nameIdentifiers": [],
            }
            for p in work.authors
        ],
        "publicationYear": work.year,
        "publisher": work.publisher,
        "container": {},
        "types": {
            "ris": "DATA",
            "bibtex": "misc",
            "citeproc": "dataset",
            "schemaOrg": "Dataset",
            "resourceType": "Sensor readings",
            "resourceTypeGeneral": "Dataset",
        },
    }


def datacite_record(work: Work) -> dict[str, Any]:
    attributes = {
        "prefix": "10.5555",
        "suffix": work.doi.split("/", 1)[1],
        "identifiers": [{"identifier": f"https://doi.org/{work.doi}", "identifierType": "DOI"}],
        "alternateIdentifiers": [],
        **_datacite_attributes(work),
        "subjects": [{"subject": "Soil temperature"}],
        "contributors": [],
        "dates": [{"date": f"{work.year}-{work.month:02d}-{work.day:02d}", "dateType": "Issued"}],
        "language": "en",
        "relatedIdentifiers": [],
        "sizes": [],
        "formats": [],
        "version": "1.0",
        "rightsList": [],
        "descriptions": [
            {
                "description": "INVENTED hourly soil temperature readings from invented plots.",
                "descriptionType": "Abstract",
            }
        ],
        "url": f"https://zenodo.invented.example/records/{work.n}",
        "metadataVersion": 1,
        "schemaVersion": "http://datacite.org/schema/kernel-4",
        "source": "api",
        "isActive": True,
        "state": "findable",
        "created": f"{work.year}-{work.month:02d}-{work.day:02d}T08:14:11.000Z",
        "registered": f"{work.year}-{work.month:02d}-{work.day:02d}T08:14:12.000Z",
        "published": str(work.year),
        "updated": "2024-01-09T16:40:03.000Z",
    }
    return {
        "data": {
            "id": work.doi,
            "type": "dois",
            "attributes": attributes,
            "relationships": {"client": {"data": {"id": "invented.zenodo", "type": "clients"}}},
        }
    }


def pubmed_summary(work: Work) -> dict[str, Any]:
    assert work.pmid is not None
    ids: list[dict[str, Any]] = [{"idtype": "pubmed", "idtypen": 1, "value": work.pmid}]
    if work.pubmed_lists_doi:
        ids.append({"idtype": "doi", "idtypen": 3, "value": work.doi})
    if work.pmcid:
        ids.append({"idtype": "pmc", "idtypen": 8, "value": work.pmcid})
        ids.append({"idtype": "pmcid", "idtypen": 5, "value": f"pmc-id: {work.pmcid};"})
    month = datetime(2000, work.month, 1).strftime("%b")
    return {
        "uid": work.pmid,
        "pubdate": f"{work.year} {month} {work.day}",
        "epubdate": "",
        "source": work.abbreviation,
        "authors": [
            {"name": p.pubmed, "authtype": "Author", "clusterid": ""} for p in work.authors
        ],
        "lastauthor": work.authors[-1].pubmed,
        "title": work.title + ".",
        "sorttitle": work.title.lower(),
        "volume": work.volume,
        "issue": work.issue,
        "pages": work.page,
        "lang": ["eng"],
        "nlmuniqueid": "999930001",
        "issn": "",
        "essn": "9999-3001",
        "pubtype": ["Journal Article"],
        "recordstatus": "PubMed - indexed for MEDLINE",
        "pubstatus": "4",
        "articleids": ids,
        "history": [{"pubstatus": "entrez", "date": f"{work.year}/{work.month:02d}/05 06:00"}],
        "references": [],
        "attributes": ["Has Abstract"],
        "pmcrefcount": 0,
        "fulljournalname": work.venue,
        "elocationid": f"doi: {work.doi}" if work.pubmed_lists_doi else "",
        "doctype": "citation",
        "booktitle": "",
        "medium": "",
        "edition": "",
        "sortpubdate": f"{work.year}/{work.month:02d}/{work.day:02d} 00:00",
        "sortfirstauthor": work.authors[0].pubmed,
        "vernaculartitle": "",
    }


def openalex_result(work: Work) -> dict[str, Any]:
    """A ``works`` result with only the ``select``-ed fields."""
    wid = f"https://openalex.org/{work.openalex_id}"
    ids: dict[str, str] = {"openalex": wid, "doi": f"https://doi.org/{work.doi}"}
    if work.pmid:
        ids["pmid"] = f"https://pubmed.ncbi.nlm.nih.gov/{work.pmid}"
    if work.pmcid:
        ids["pmcid"] = f"https://www.ncbi.nlm.nih.gov/pmc/articles/{work.pmcid[3:]}"
    source: dict[str, Any] | None = None
    if work.venue or work.kind == "dataset":
        source = {
            "id": f"https://openalex.org/S9993{int(work.n):04d}",
            "display_name": work.venue or work.publisher,
            "issn_l": None if work.kind == "dataset" else "9999-3001",
            "issn": None if work.kind == "dataset" else ["9999-3001"],
            "is_oa": True,
            "is_in_doaj": False,
            "is_core": False,
            "host_organization": None,
            "host_organization_name": work.publisher,
            "type": "repository" if work.kind == "dataset" else "journal",
        }
    kind = {"journal-article": "article", "book": "book", "dataset": "dataset"}[work.kind]
    return {
        "id": wid,
        "doi": f"https://doi.org/{work.doi}",
        "title": work.title,
        "display_name": work.title,
        "publication_year": work.year,
        "ids": ids,
        "type": kind,
        "authorships": [
            {
                "author_position": "first" if i == 0 else "last",
                "author": {
                    "id": f"https://openalex.org/A9993{int(work.n):04d}{i}",
                    "display_name": p.display,
                    "orcid": None,
                },
                "institutions": [],
                "countries": [],
                "is_corresponding": i == 0,
                "raw_author_name": p.display,
                "raw_affiliation_strings": [],
                "affiliations": [],
            }
            for i, p in enumerate(work.authors)
        ],
        "primary_location": {
            "id": f"doi:{work.doi}",
            "is_oa": True,
            "landing_page_url": f"https://doi.org/{work.doi}",
            "pdf_url": None,
            "source": source,
            "license": None,
            "license_id": None,
            "version": "publishedVersion",
            "is_accepted": True,
            "is_published": True,
        },
    }


# --------------------------------------------------------------------------------------------
# The handler

_CROSSREF_HEADERS = {
    "access-control-allow-origin": "*",
    "access-control-expose-headers": "Link",
    "connection": "close",
    "date": HTTP_DATE,
    "server": "Jetty(9.4.40.v20210413)",
    "x-api-pool": "polite",
    "x-rate-limit-interval": "1s",
    "x-rate-limit-limit": "10",
}
_NCBI_HEADERS = {
    "access-control-allow-origin": "*",
    "cache-control": "private",
    "connection": "close",
    "content-type": "application/json; charset=UTF-8",
    "date": HTTP_DATE,
    "ncbi-phid": "9993INVENTED0000000000000000000.1.1.m_1",
    "server": "Finatra",
    "x-ratelimit-limit": "10",
    "x-ratelimit-remaining": "9",
}
_DATACITE_HEADERS = {
    "access-control-allow-origin": "*",
    "cache-control": "max-age=0, private, must-revalidate",
    "connection": "close",
    "content-type": "application/vnd.api+json; charset=utf-8",
    "date": HTTP_DATE,
    "server": "nginx/1.25.3",
}
_OPENALEX_HEADERS = {
    "access-control-allow-origin": "*",
    "connection": "close",
    "content-type": "application/json",
    "date": HTTP_DATE,
    "server": "cloudflare",
    "x-ratelimit-limit": "1000",
}
_DOI_HEADERS = {
    "access-control-allow-origin": "*",
    "connection": "close",
    "content-type": "application/json;charset=utf-8",
    "date": HTTP_DATE,
    "server": "cloudflare",
}


def _json(status: int, payload: Any, headers: dict[str, str]) -> httpx2.Response:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    return httpx2.Response(status, headers=headers, content=body)


def _doi_org(path: str) -> httpx2.Response:
    doi = unquote(path.removeprefix("/doiRA/"))
    work = BY_DOI.get(doi.lower())
    if work is None:
        return _json(200, [{"DOI": doi, "status": "DOI does not exist"}], _DOI_HEADERS)
    agency = "DataCite" if work.datacite else "Crossref"
    return _json(200, [{"DOI": doi, "RA": agency}], _DOI_HEADERS)


def _crossref(request: httpx2.Request) -> httpx2.Response:
    path = unquote(request.url.path)
    headers = {**_CROSSREF_HEADERS, "content-type": "application/json"}
    if path.startswith("/v1/works/"):
        work = BY_DOI.get(path.removeprefix("/v1/works/").lower())
        if work is None or not work.crossref:
            plain = {**_CROSSREF_HEADERS, "content-type": "text/plain"}
            return httpx2.Response(404, headers=plain, content=b"Resource not found.")
        payload = {
            "status": "ok",
            "message-type": "work",
            "message-version": "1.0.0",
            "message": crossref_message(work),
        }
        return httpx2.Response(200, headers=headers, content=_crossref_json(payload))
    query = request.url.params.get("query.bibliographic")
    if path == "/v1/works" and query is not None:
        rows = int(request.url.params.get("rows", "20"))
        ranked = crossref_ranked(query, rows)
        payload = {
            "status": "ok",
            "message-type": "work-list",
            "message-version": "1.0.0",
            "message": {
                "facets": {},
                "total-results": len(ranked),
                "items": [crossref_item(w, s) for w, s in ranked],
                "items-per-page": rows,
                "query": {"start-index": 0, "search-terms": None},
            },
        }
        return httpx2.Response(200, headers=headers, content=_crossref_json(payload))
    raise AssertionError(f"the invented Crossref has no answer for {request.url}")


def _datacite(request: httpx2.Request) -> httpx2.Response:
    path = unquote(request.url.path)
    if path.startswith("/dois/"):
        work = BY_DOI.get(path.removeprefix("/dois/").lower())
        if work is None or not work.datacite:
            gone = {
                "errors": [
                    {"status": "404", "title": "The resource you are looking for doesn't exist."}
                ]
            }
            return _json(404, gone, _DATACITE_HEADERS)
        return _json(200, datacite_record(work), _DATACITE_HEADERS)
    if path == "/dois" and "query" in request.url.params:
        rows = int(request.url.params.get("page[size]", "25"))
        found = datacite_matches(request.url.params["query"], rows)
        payload = {
            "data": [
                {
                    "id": w.doi,
                    "type": "dois",
                    "attributes": _datacite_attributes(w),
                    "relationships": {},
                }
                for w in found
            ],
            "meta": {"total": len(found), "totalPages": 1, "page": 1},
            "links": {"self": str(request.url)},
        }
        return _json(200, payload, _DATACITE_HEADERS)
    raise AssertionError(f"the invented DataCite has no answer for {request.url}")


_OUTAGE_PAGE = (
    b"<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n"
    b"<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n</body>\r\n</html>\r\n"
)


def _eutils(request: httpx2.Request) -> httpx2.Response:
    path = request.url.path
    if path.endswith("/esearch.fcgi"):
        term = request.url.params.get("term", "")
        if "outage" in term.lower():
            down = {
                "connection": "close",
                "content-type": "text/html",
                "date": HTTP_DATE,
                "server": "nginx",
            }
            return httpx2.Response(503, headers=down, content=_OUTAGE_PAGE)
        retmax = int(request.url.params.get("retmax", "20"))
        found = [w.pmid for w in pubmed_matches(term) if w.pmid]
        result: dict[str, Any] = {
            "count": str(len(found)),
            "retmax": str(min(retmax, len(found))),
            "retstart": "0",
            "idlist": found[:retmax],
            "translationset": [],
            "querytranslation": term.replace("[tiab]", "[Title/Abstract]").replace(
                "[au]", "[Author]"
            ),
        }
        if not found:
            result["warninglist"] = {
                "phrasesignored": [],
                "quotedphrasesnotfound": [],
                "outputmessages": ["No items found."],
            }
        return _json(
            200,
            {"header": {"type": "esearch", "version": "0.3"}, "esearchresult": result},
            _NCBI_HEADERS,
        )
    if path.endswith("/esummary.fcgi") and request.method == "POST":
        form = dict(parse_qsl(request.content.decode()))
        ids = [i for i in form.get("id", "").split(",") if i]
        summary: dict[str, Any] = {"uids": ids}
        for pmid in ids:
            work = BY_PMID.get(pmid)
            summary[pmid] = (
                pubmed_summary(work)
                if work
                else {"uid": pmid, "error": "cannot get document summary"}
            )
        return _json(
            200,
            {"header": {"type": "esummary", "version": "0.3"}, "result": summary},
            _NCBI_HEADERS,
        )
    raise AssertionError(f"the invented E-utilities have no answer for {request.url}")


def _idconv(request: httpx2.Request) -> httpx2.Response:
    params = request.url.params
    ids = [i for i in params.get("ids", "").split(",") if i]
    idtype = params.get("idtype", "")
    records: list[dict[str, Any]] = []
    for requested in ids:
        work = None
        if idtype == "pmcid":
            work = BY_PMCID.get(requested.upper())
        elif idtype == "pmid":
            work = BY_PMID.get(requested)
        elif idtype == "doi":
            work = BY_DOI.get(requested.lower())
        if work is not None and work.pmcid:
            records.append(
                {
                    "pmcid": work.pmcid,
                    "pmid": int(work.pmid or 0),
                    "doi": work.doi,
                    "requested-id": requested,
                }
            )
        else:
            records.append(
                {
                    "requested-id": requested,
                    "status": "error",
                    "errmsg": "Identifier not found in PMC",
                }
            )
    echo = f"ids={','.join(ids)}&idtype={idtype}&format=json"
    payload = {
        "status": "ok",
        "response-date": "2026-04-20 05:30:00",
        "request": {
            "format": "json",
            "idtype": idtype,
            "ids": ids,
            "echo": echo,
            "versions": "no",
            "showaiid": "no",
        },
        "records": records,
    }
    return _json(200, payload, {"content-type": "application/json", "date": HTTP_DATE})


def _openalex(request: httpx2.Request) -> httpx2.Response:
    params = request.url.params
    if request.url.path == "/works" and "search" in params:
        per_page = int(params.get("per_page", "25"))
        found = openalex_ranked(params["search"], per_page)
        payload = {
            "meta": {
                "count": len(found),
                "db_response_time_ms": 21,
                "page": 1,
                "per_page": per_page,
                "groups_count": None,
            },
            "results": [openalex_result(w) for w in found],
            "group_by": [],
        }
        return _json(200, payload, _OPENALEX_HEADERS)
    raise AssertionError(f"the invented OpenAlex has no answer for {request.url}")


def handler(request: httpx2.Request) -> httpx2.Response:
    """The invented world's answer to one request (for ``httpx2.MockTransport``)."""
    host = request.url.host
    if host == "doi.org" and request.url.path.startswith("/doiRA/"):
        return _doi_org(request.url.path)
    if host == "api.crossref.org":
        return _crossref(request)
    if host == "api.datacite.org":
        return _datacite(request)
    if host == "eutils.ncbi.nlm.nih.gov":
        return _eutils(request)
    if host == "pmc.ncbi.nlm.nih.gov" and request.url.path.startswith("/tools/idconv/"):
        return _idconv(request)
    if host == "api.openalex.org":
        return _openalex(request)
    raise AssertionError(f"the invented world has no answer for {request.method} {request.url}")


# --------------------------------------------------------------------------------------------
# Recording

_SERVICES = {
    "doi.org": "doi.org's Which RA? service (doi.org/doiRA)",
    "api.crossref.org": "the Crossref REST API (api.crossref.org/v1)",
    "api.datacite.org": "the DataCite REST API (api.datacite.org, JSON:API)",
    "eutils.ncbi.nlm.nih.gov": "NCBI E-utilities (eutils.ncbi.nlm.nih.gov, retmode=json)",
    "pmc.ncbi.nlm.nih.gov": "the PMC ID converter API",
    "api.openalex.org": "the OpenAlex API (api.openalex.org)",
}


def provenance(host: str) -> str:
    return (
        f"INVENTED for citeproof's tests by tests/refs_world.py, in the real format of "
        f"{_SERVICES[host]}; not a real answer"
    )


README = """# Recordings of the invented reference world

Every file here is INVENTED: the answers of an invented scholarly world
(`tests/refs_world.py`) to the requests `citeproof refs` makes, written in the real formats
of doi.org's "Which RA?" service, Crossref, DataCite, NCBI E-utilities, the PMC ID converter
and OpenAlex, with invented DOIs (`10.5555/invented.world.N`), PMIDs (`999300NN`), PMCIDs
and OpenAlex ids.  None is a real answer and none was copied from one; each
`NAME.meta.json` says so in its `provenance`.

They are litcheck pairs (`NAME.body` beside `NAME.meta.json`, see
`citeproof/net/recordings.py`), written by citeproof's own `RecordingTransport`, so the
URLs and forms carry no contact address or API key, and named by it (host, path, digest of
the request).  `tests/integration/test_refs.py` replays them through `citeproof refs
--replay`, `citeproof.verify_references(..., replay=...)` and the MCP tool, and checks that
they are exactly what the world answers today.

To regenerate them after changing the world, the references in it, or what
`citeproof.refs.lookup` asks:

    python tests/refs_world.py

(any Python with citeproof installed).  It deletes the recordings here, verifies every
reference the tests use against the world through a recording client, writes the
recordings anew, labels each INVENTED, and rewrites `../retraction-watch-world.csv`.
"""


def _limiter() -> RateLimiter:
    from citeproof.net.ratelimit import RateLimiter

    class Unlimited(RateLimiter):
        """The world answers at once: no service's pace to keep."""

        def reserve(self, key: str, interval: float) -> float:
            return 0.0

    return Unlimited()


async def _no_sleep(seconds: float) -> None:
    return None


def clear(folder: Path) -> None:
    """Delete the recordings in ``folder`` (the README stays)."""
    for path in folder.glob("*"):
        if path.name.endswith((".body", ".meta.json")):
            path.unlink()


def record(
    folder: Path = RECORDINGS, refs: Sequence[StatedReference] | None = None
) -> list[ReferenceResult]:
    """Verify ``refs`` (default: :func:`stated_inputs`) against the world, recording every
    answer into ``folder``; returns the results."""
    from citeproof.net.client import make_client
    from citeproof.net.record import RecordingTransport
    from citeproof.refs.verification import verify_all

    folder.mkdir(parents=True, exist_ok=True)
    clear(folder)
    transport = RecordingTransport(
        folder,
        now=lambda: WORLD_DATE,
        contact=CONTACT,
        secrets=[API_KEY],
        inner=lambda host: httpx2.MockTransport(handler),
    )
    wanted = list(refs) if refs is not None else stated_inputs()

    async def run() -> list[ReferenceResult]:
        async with make_client(
            transport=transport,
            contact=CONTACT,
            api_key=API_KEY,
            limiter=_limiter(),
            sleep=_no_sleep,
        ) as client:
            return await verify_all(client, wanted, retraction=None)

    results = asyncio.run(run())
    label(folder)
    return results


def label(folder: Path) -> None:
    """Mark every recording in ``folder`` INVENTED (its ``provenance``); bodies unchanged."""
    for meta_path in sorted(folder.glob("*.meta.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["provenance"] = provenance(httpx2.URL(meta["url"]).host)
        text = json.dumps(meta, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        meta_path.write_text(text, encoding="utf-8")


def write_all(folder: Path = RECORDINGS) -> list[ReferenceResult]:
    """Everything ``main`` writes: the recordings, their README, the Retraction Watch CSV."""
    results = record(folder)
    (folder / "README.md").write_text(README, encoding="utf-8")
    RW_CSV.write_text(rw_csv_text(), encoding="utf-8")
    return results


def summary(results: Iterable[ReferenceResult]) -> str:
    return "\n".join(f"{r.verdict:>12}  {(r.stated.title or r.stated.text)[:70]}" for r in results)


def main() -> int:
    sys.path.insert(0, str(HERE.parent / "src"))
    results = write_all()
    count = len(list(RECORDINGS.glob("*.meta.json")))
    print(summary(results))
    print(f"{count} recordings written to {RECORDINGS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
