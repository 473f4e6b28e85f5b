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

This module is also the one description of those formats for ``bench/refs_fixtures.py``,
whose thousands of INVENTED bench works are :class:`Work` records answered by a subclass
of :class:`World` (its searches find a code word instead of matching words): the recordings
and the bench cannot drift into two versions of a service's answer.  The shared part lives
here, not in bench/, because the recordings are what it is checked against (a change to a
builder shows as a changed recording), and the tests import this module by name; bench
scripts already reach shared code under tests/ the same way (``bench_refs_real.py``).

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
from typing import TYPE_CHECKING, Any, NamedTuple
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


class Person(NamedTuple):
    """A (given, family) pair, so a bench script unpacks it as the pair it prints names from."""

    given: str
    family: str

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
    """One INVENTED work, as every service that knows it records it."""

    n: int
    doi: str
    title: str
    authors: tuple[Person, ...]
    year: int
    month: int
    day: int
    venue: str | None
    """The journal (a bench dataset's repository); None for a book or the world's dataset."""
    publisher: str
    kind: str = "journal-article"
    """Crossref's type (``journal-article``, ``book``), or ``dataset``: registered with
    DataCite instead of Crossref."""
    pmid: str | None = None
    pmcid: str | None = None
    volume: str = ""
    issue: str = ""
    page: str = ""
    abbreviation: str = ""
    issn: str = "9999-3001"
    isbn: str = ""
    electronic: bool = False
    """A book's edition published online (its ISBN typed electronic, not print)."""
    pubmed_lists_doi: bool = True
    """False: PubMed's summary names no DOI (as for many older records)."""
    cites: tuple[tuple[str, str], ...] = ()
    """The reference list deposited with Crossref: (DOI, the reference as printed)."""
    updates: str | None = None
    """For a correction notice: the DOI of the work it corrects (Crossref's ``update-to``)."""

    @property
    def datacite(self) -> bool:
        return self.kind == "dataset"

    @property
    def openalex_id(self) -> str:
        return f"W9993{self.n:04d}"


def _invented(
    n: int,
    title: str,
    authors: tuple[Person, ...],
    published: tuple[int, int, int],
    venue: str | None,
    publisher: str,
    **more: Any,
) -> Work:
    """A work of the world: its DOI under :data:`PREFIX`."""
    return Work(n, f"{PREFIX}{n}", title, authors, *published, venue, publisher, **more)


HALLOWAY = Person("Wren", "Halloway")
OKONKWO = Person("Tamsin", "Okonkwo-Reyes")
ASHWORTH = Person("Clara", "Ashworth")
SOIL = "Invented Journal of Soil Ecology"
SOIL_PRESS = "Invented Press for Soil Science"
SOCIETY = "Invented Ecology Society"
BIRDS = "A field guide to invented hedgerow birds"

WORKS: tuple[Work, ...] = (
    _invented(
        1,
        "Compost temperature and earthworm density in invented allotments",
        (HALLOWAY, OKONKWO),
        (2021, 3, 4),
        SOIL,
        SOIL_PRESS,
        pmid="99930001",
        volume="4",
        issue="2",
        page="e0101",
        abbreviation="Inv J Soil Ecol",
    ),
    _invented(
        2,
        "Rainwater harvesting for invented urban gardens",
        (Person("Aoife", "Brennan"), Person("Peter", "Mwangi")),
        (2020, 6, 15),
        "Invented Journal of Urban Water",
        SOIL_PRESS,
        pmid="99930002",
        volume="7",
        page="12-19",
        abbreviation="Inv J Urban Water",
    ),
    _invented(
        3,
        "Pollinator visits to invented rooftop meadows",
        (Person("Folake", "Adeyemi"), Person("Lenka", "Novak")),
        (2022, 1, 20),
        "Invented Urban Ecology",
        SOCIETY,
        volume="9",
        issue="1",
        page="33-41",
    ),
    _invented(
        4,
        "Mycorrhizal networks under invented orchard cover crops",
        (Person("Kenji", "Sato"), Person("Maja", "Lindqvist")),
        (2019, 9, 2),
        "Invented Journal of Orchard Science",
        SOCIETY,
        pmid="99930004",
        volume="11",
        page="201-210",
        abbreviation="Inv J Orchard Sci",
    ),
    _invented(
        5,
        BIRDS,
        (ASHWORTH,),
        (2018, 4, 1),
        None,
        "Invented Natural History Press",
        kind="book",
        isbn="9780999300051",
    ),
    _invented(
        6,
        BIRDS,
        (ASHWORTH,),
        (2018, 4, 1),
        None,
        "Invented Natural History Press",
        kind="book",
        isbn="9780999300068",
        electronic=True,
    ),
    _invented(
        7,
        "Biochar doubles invented tomato yields",
        (Person("Dorian", "Quill"), Person("Esme", "Marsh")),
        (2022, 5, 9),
        SOIL,
        SOIL_PRESS,
        pmid="99930007",
        volume="5",
        page="77-85",
        abbreviation="Inv J Soil Ecol",
    ),
    _invented(
        8,
        "Soil temperature readings from invented allotment plots",
        (HALLOWAY, OKONKWO),
        (2023, 5, 2),
        None,
        "Zenodo",
        kind="dataset",
    ),
    _invented(
        9,
        "Nitrogen leaching from invented raised beds",
        (Person("Marisol", "Ortega"), Person("Siobhan", "Byrne")),
        (2020, 11, 30),
        SOIL,
        SOIL_PRESS,
        pmid="99930009",
        pmcid="PMC99930009",
        volume="3",
        page="45-52",
        abbreviation="Inv J Soil Ecol",
    ),
    _invented(
        10,
        "Ground beetle DNA barcodes from invented Alpine pastures",
        (Person("Jürgen", "Müller"), Person("Åse", "Sørensen")),
        (2021, 7, 7),
        "Invented Alpine Entomology",
        SOCIETY,
        volume="2",
        page="5-14",
    ),
    _invented(
        11,
        "Slug pressure on invented lettuce trials",
        (Person("Chidi", "Okafor"), Person("Pia", "Lindgren")),
        (1998, 10, 1),
        "Invented Horticultural Pest Review",
        SOCIETY,
        pmid="99930011",
        volume="14",
        page="210-218",
        abbreviation="Inv Hortic Pest Rev",
        pubmed_lists_doi=False,
    ),
)

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
        "reference-count": len(work.cites),
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
        "references-count": len(work.cites),
        "URL": f"https://doi.org/{work.doi}",
        "relation": {},
        "subject": [],
        "published": issued,
    }
    if work.kind == "book":
        edition = "electronic" if work.electronic else "print"
        message["ISBN"] = [work.isbn]
        message["isbn-type"] = [{"type": edition, "value": work.isbn}]
        message["published-print" if edition == "print" else "published-online"] = issued
    else:
        message.update(
            {
                "volume": work.volume,
                "page": work.page,
                "published-online": issued,
                "ISSN": [work.issn],
                "issn-type": [{"type": "electronic", "value": work.issn}],
            }
        )
        if work.issue:
            message["issue"] = work.issue
            message["journal-issue"] = {"issue": work.issue, "published-online": issued}
    if work.cites:
        message["reference"] = [
            {"key": f"ref{k}", "doi-asserted-by": "publisher", "DOI": doi, "unstructured": text}
            for k, (doi, text) in enumerate(work.cites, 1)
        ]
    if work.updates:
        message["update-to"] = [
            {
                "updated": _stamp(work.year, work.month, work.day),
                "DOI": work.updates,
                "type": "correction",
                "source": "publisher",
                "label": "Correction",
            }
        ]
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
        "essn": work.issn,
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
            "id": f"https://openalex.org/S9993{work.n:04d}",
            "display_name": work.venue or work.publisher,
            "issn_l": None if work.kind == "dataset" else work.issn,
            "issn": None if work.kind == "dataset" else [work.issn],
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
                    "id": f"https://openalex.org/A9993{work.n:04d}{i}",
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
_OUTAGE_PAGE = (
    b"<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n"
    b"<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n</body>\r\n</html>\r\n"
)


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer, encoded: built once, served as a fresh response to each request asking."""

    status: int
    headers: dict[str, str]
    body: bytes

    def response(self) -> httpx2.Response:
        return httpx2.Response(self.status, headers=self.headers, content=self.body)


def _dumps(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _json(status: int, payload: Any, headers: dict[str, str]) -> Answer:
    return Answer(status, headers, _dumps(payload))


def _crossref(payload: Any) -> Answer:
    # Crossref's serialiser escapes every "/" in strings.
    body = _dumps(payload).replace(b"/", b"\\/")
    return Answer(200, {**_CROSSREF_HEADERS, "content-type": "application/json"}, body)


def crossref_record(work: Work) -> Answer:
    """``works/{doi}``."""
    return _crossref(
        {
            "status": "ok",
            "message-type": "work",
            "message-version": "1.0.0",
            "message": crossref_message(work),
        }
    )


def crossref_list(ranked: Sequence[tuple[Work, float]], rows: int) -> Answer:
    """``works?query.bibliographic=``: the hits, each with its score."""
    message = {
        "facets": {},
        "total-results": len(ranked),
        "items": [crossref_item(w, s) for w, s in ranked],
        "items-per-page": rows,
        "query": {"start-index": 0, "search-terms": None},
    }
    return _crossref(
        {
            "status": "ok",
            "message-type": "work-list",
            "message-version": "1.0.0",
            "message": message,
        }
    )


CROSSREF_NOT_FOUND = Answer(
    404, {**_CROSSREF_HEADERS, "content-type": "text/plain"}, b"Resource not found."
)
DATACITE_NOT_FOUND = _json(
    404,
    {"errors": [{"status": "404", "title": "The resource you are looking for doesn't exist."}]},
    _DATACITE_HEADERS,
)


def datacite_list(found: Sequence[Work], rows: int, url: str) -> Answer:
    """``dois?query=``."""
    data = [
        {"id": w.doi, "type": "dois", "attributes": _datacite_attributes(w), "relationships": {}}
        for w in found
    ]
    meta = {"total": len(found), "totalPages": 1, "page": 1}
    return _json(200, {"data": data, "meta": meta, "links": {"self": url}}, _DATACITE_HEADERS)


def esearch_answer(term: str, pmids: Sequence[str], retmax: int) -> Answer:
    """``esearch.fcgi`` (JSON): the PMIDs found for ``term``."""
    result: dict[str, Any] = {
        "count": str(len(pmids)),
        "retmax": str(min(retmax, len(pmids))),
        "retstart": "0",
        "idlist": list(pmids[:retmax]),
        "translationset": [],
        "querytranslation": term.replace("[tiab]", "[Title/Abstract]").replace("[au]", "[Author]"),
    }
    if not pmids:
        result["warninglist"] = {
            "phrasesignored": [],
            "quotedphrasesnotfound": [],
            "outputmessages": ["No items found."],
        }
    payload = {"header": {"type": "esearch", "version": "0.3"}, "esearchresult": result}
    return _json(200, payload, _NCBI_HEADERS)


def openalex_list(found: Sequence[Work], per_page: int) -> Answer:
    """``works?search=``."""
    meta = {
        "count": len(found),
        "db_response_time_ms": 21,
        "page": 1,
        "per_page": per_page,
        "groups_count": None,
    }
    results = [openalex_result(w) for w in found]
    return _json(200, {"meta": meta, "results": results, "group_by": []}, _OPENALEX_HEADERS)


# --------------------------------------------------------------------------------------------
# The services: which answer each request gets

_STOP = frozenset("a an and the of in on for to with by from at as is are".split())
_TERM = re.compile(r"^(?P<word>[^\[\]]+)\[(?P<field>tiab|au)\]$")


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


class World:
    """The services that know ``works``, answering as an ``httpx2.MockTransport`` handler.

    Every answer about one identifier is encoded once, here; the searches match words as each
    service roughly does.  ``bench/refs_fixtures.py`` overrides the four searches (and
    :meth:`gap`) and keeps the routing and every format.  ``calls`` counts the requests.
    """

    def __init__(self, works: Iterable[Work]) -> None:
        self.works = tuple(works)
        self.calls = 0
        self.by_doi = {w.doi.lower(): w for w in self.works}
        self.by_pmid = {w.pmid: w for w in self.works if w.pmid}
        self.by_pmcid = {w.pmcid: w for w in self.works if w.pmcid}
        self._crossref = {d: crossref_record(w) for d, w in self.by_doi.items() if not w.datacite}
        self._datacite = {
            d: _json(200, datacite_record(w), _DATACITE_HEADERS)
            for d, w in self.by_doi.items()
            if w.datacite
        }
        self._summaries = {p: _dumps(pubmed_summary(w)) for p, w in self.by_pmid.items()}

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        """The answer to ``request``."""
        self.calls += 1
        host, path, params = request.url.host, unquote(request.url.path), request.url.params
        answer: Answer | None = None
        if host == "doi.org" and path.startswith("/doiRA/"):
            doi = path.removeprefix("/doiRA/")
            work = self.by_doi.get(doi.lower())
            agency = None if work is None else "DataCite" if work.datacite else "Crossref"
            said = {"RA": agency} if agency else {"status": "DOI does not exist"}
            answer = _json(200, [{"DOI": doi, **said}], _DOI_HEADERS)
        elif host == "api.crossref.org" and path.startswith("/v1/works/"):
            doi = path.removeprefix("/v1/works/").lower()
            answer = self._crossref.get(doi, CROSSREF_NOT_FOUND)
        elif host == "api.crossref.org" and path == "/v1/works" and "query.bibliographic" in params:
            rows = int(params.get("rows", "20"))
            answer = self.crossref_search(params["query.bibliographic"], rows)
        elif host == "api.datacite.org" and path.startswith("/dois/"):
            answer = self._datacite.get(path.removeprefix("/dois/").lower(), DATACITE_NOT_FOUND)
        elif host == "api.datacite.org" and path == "/dois" and "query" in params:
            rows = int(params.get("page[size]", "25"))
            answer = self.datacite_search(params["query"], rows, str(request.url))
        elif host == "eutils.ncbi.nlm.nih.gov" and path.endswith("/esearch.fcgi"):
            answer = self.pubmed_search(params.get("term", ""), int(params.get("retmax", "20")))
        elif host == "eutils.ncbi.nlm.nih.gov" and path.endswith("/esummary.fcgi"):
            if request.method == "POST":
                form = dict(parse_qsl(request.content.decode()))
                answer = self.esummary([i for i in form.get("id", "").split(",") if i])
        elif host == "pmc.ncbi.nlm.nih.gov" and path.startswith("/tools/idconv/"):
            answer = self.idconv(params.get("ids", ""), params.get("idtype", ""))
        elif host == "api.openalex.org" and path == "/works" and "search" in params:
            per_page = int(params.get("per_page", "25"))
            answer = self.openalex_search(params["search"], per_page)
        return self.gap(request) if answer is None else answer.response()

    def gap(self, request: httpx2.Request) -> httpx2.Response:
        """A request the world has no answer for: never a silence."""
        raise AssertionError(f"the invented world has no answer for {request.method} {request.url}")

    def esummary(self, ids: list[str]) -> Answer:
        """``esummary.fcgi`` (JSON), joined from summaries encoded once, as ``json.dumps``
        would write the whole."""
        missing = {"error": "cannot get document summary"}
        body = b'{"header":{"type":"esummary","version":"0.3"},"result":{"uids":' + _dumps(ids)
        for pmid in ids:
            summary = self._summaries.get(pmid) or _dumps({"uid": pmid, **missing})
            body += b"," + _dumps(pmid) + b":" + summary
        return Answer(200, _NCBI_HEADERS, body + b"}}")

    def idconv(self, requested: str, idtype: str) -> Answer:
        """The PMC ID converter (JSON)."""
        ids = [i for i in requested.split(",") if i]
        records: list[dict[str, Any]] = []
        for one in ids:
            work = {
                "pmcid": self.by_pmcid.get(one.upper()),
                "pmid": self.by_pmid.get(one),
                "doi": self.by_doi.get(one.lower()),
            }.get(idtype)
            if work is not None and work.pmcid:
                found = {"pmcid": work.pmcid, "pmid": int(work.pmid or 0), "doi": work.doi}
                records.append({**found, "requested-id": one})
            else:
                error = {"status": "error", "errmsg": "Identifier not found in PMC"}
                records.append({"requested-id": one, **error})
        echo = f"ids={','.join(ids)}&idtype={idtype}&format=json"
        request = {"format": "json", "idtype": idtype, "ids": ids, "echo": echo}
        payload = {
            "status": "ok",
            "response-date": "2026-04-20 05:30:00",
            "request": {**request, "versions": "no", "showaiid": "no"},
            "records": records,
        }
        return _json(200, payload, {"content-type": "application/json", "date": HTTP_DATE})

    def crossref_search(self, query: str, rows: int) -> Answer:
        """Crossref's bibliographic search: every work sharing a word, most shared first."""
        wanted = set(words(query))
        scored: list[tuple[Work, float]] = []
        for work in self.works:
            shared = wanted & _indexed(work)
            if shared and not work.datacite:
                score = 11.0 * len(shared) + 7.3 * len(shared) / max(1, len(set(words(work.title))))
                scored.append((work, round(score, 5)))
        scored.sort(key=lambda pair: (-pair[1], pair[0].n))
        return crossref_list(scored[:rows], rows)

    def openalex_search(self, query: str, per_page: int) -> Answer:
        """OpenAlex's search: works whose title holds most of the searched words."""
        wanted = set(words(query))
        found: list[tuple[float, Work]] = []
        for work in self.works:
            share = len(wanted & set(words(work.title))) / len(wanted) if wanted else 0.0
            if share >= 0.6:
                found.append((share, work))
        found.sort(key=lambda pair: (-pair[0], pair[1].n))
        return openalex_list([w for _, w in found[:per_page]], per_page)

    def datacite_search(self, query: str, rows: int, url: str) -> Answer:
        """DataCite's query_string, AND by default: every word matches the record."""
        wanted = set(words(query))
        found = [w for w in self.works if w.datacite and wanted and wanted <= _indexed(w)]
        return datacite_list(found[:rows], rows, url)

    def pubmed_search(self, term: str, retmax: int) -> Answer:
        """esearch for ``word[tiab] AND … AND name[au]``: every term must match; a term
        naming an outage finds PubMed down."""
        if "outage" in term.lower():
            down = {"connection": "close", "content-type": "text/html", "date": HTTP_DATE}
            return Answer(503, {**down, "server": "nginx"}, _OUTAGE_PAGE)
        found: list[str] = []
        parts = [p.strip() for p in term.split(" AND ")]
        for pmid, work in self.by_pmid.items():
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
                found.append(pmid)
        return esearch_answer(term, found, retmax)


WORLD = World(WORKS)


def handler(request: httpx2.Request) -> httpx2.Response:
    """The invented world's answer to one request (for ``httpx2.MockTransport``)."""
    return WORLD.handle(request)


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
