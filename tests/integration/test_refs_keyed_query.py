"""An entry that prints its venue and numbers after many authors is searched a second time
by its first author, venue and numbers when the whole string's search decides nothing.

Answered by an INVENTED emulated world (``tests/scholarly_world.py``), which ranks by BM25
as Crossref's ``query.bibliographic`` does: ten common surnames weigh more than a venue and
three numbers, and a record that lists no authors (Crossref holds such records) ranks
below the same authors' other works, past the first rows.
"""

from __future__ import annotations

from citeproof.models.references import ReferenceResult
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.lookup import keyed_query
from scholarly_world import Person, Work, World, verify_printed

SURNAMES = ["Chen", "Fang", "Wang", "Lan", "Liao", "Liu", "Zhang", "Zhou", "Zhu", "Li"]
PEOPLE = tuple(Person(s, "Invented") for s in SURNAMES)

CITED = Work(
    doi="10.5555/invented.nutrients.1113",
    title="Invented dietary fibre and the invented liver",
    year=2018,
    venue="Invented Nutrients",
    volume="10",
    first_page="1113",
)
# The same ten authors' other works of the same year, in other venues.
THEIRS = [
    Work(
        doi=f"10.5555/invented.theirs.{n}",
        title=f"Invented cohort study number {n}",
        authors=PEOPLE,
        year=2018,
        venue=f"Invented Journal of Topic {n}",
        volume=str(n + 1),
        first_page=str(100 + n),
    )
    for n in range(8)
]
# Works of others, so that the ten surnames are rare words, as they are in Crossref.
OTHERS = [
    Work(
        doi=f"10.5555/invented.other.{n}",
        title=f"Invented field note {n}",
        authors=(Person(f"Okoro{n}", "Ada"),),
        year=1950 + n % 40,
        venue=f"Invented Gazette {n}",
        volume=str(200 + n),
        first_page=str(500 + n),
    )
    for n in range(200)
]
ACS = (
    "(1) Chen, I.; Fang, I.; Wang, I.; Lan, I.; Liao, I.; Liu, I.; Zhang, I.; Zhou, I.; "
    "Zhu, I.; Li, I. Invented Nutrients 2018, 10, 1113."
)


def _verify(text: str) -> ReferenceResult:
    return verify_printed(World([*OTHERS, *THEIRS, CITED]), text)


def test_many_authors_do_not_hide_the_work_their_venue_and_numbers_name() -> None:
    """The old code asked the whole string alone: the authors' own works filled the rows,
    and the entry was `not_found`, a false accusation."""
    r = _verify(ACS)
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.identifier == f"doi:{CITED.doi}"
    asked = [a.query for a in r.asked if a.service == "crossref" and a.purpose == "search"]
    assert asked[-1] == "Chen Invented Nutrients 2018, 10, 1113."


def test_the_second_query_is_evidence_when_it_finds_nothing_either() -> None:
    """A work no database holds: both queries are listed with what they answered, so a
    person can repeat them."""
    text = ACS.replace("Invented Nutrients 2018, 10, 1113", "Invented Absent Letters 2018, 7, 77")
    r = _verify(text)
    assert r.verdict == "not_found", r.reason
    asked = [a.query for a in r.asked if a.service == "crossref" and a.purpose == "search"]
    assert len(asked) == 2 and asked[1] == "Chen Invented Absent Letters 2018, 7, 77."


def test_a_second_query_only_for_numbers_after_three_authors_or_more() -> None:
    aip = "1 A. Okoro, B. Lund, and C. Vance, Invented Review 12, 34 (2001)."
    assert keyed_query(parse_reference_string(aip)) == "Okoro Invented Review 12, 34 (2001)."
    elsevier = "[3] A. Okoro, B. Lund, C. Vance, Invented Review 12 (2001) 34."
    assert keyed_query(parse_reference_string(elsevier)) == "Okoro Invented Review 12 (2001) 34."
    # a letter OCR glued before a name's initials leaves the list a list of names
    noisy = "1 A. Okoro,mB. Lund, and C. Vance, Invented Review 12, 34 (2001)."
    assert keyed_query(parse_reference_string(noisy)) == "Okoro Invented Review 12, 34 (2001)."
    # noise between names (a stray letter first, a letter for an initial, a space before
    # an initial's stop) does not end the list
    garbled = "v A. Okoro, w.-B. Lund, C .-D. Vance, and E. Moss, Invented Review 12, 34 (2001)."
    assert keyed_query(parse_reference_string(garbled)) == "Okoro Invented Review 12, 34 (2001)."
    # the venue's initials are not a name: no separator stands before them
    acs = "(1) Okoro, A.; Lund, B.; Vance, C. Invented Rev. 2001, 12, 34."
    assert keyed_query(parse_reference_string(acs)) == "Okoro Invented Rev. 2001, 12, 34."
    # two authors: the whole string is not crowded by names
    assert keyed_query(parse_reference_string("1 A. Okoro and B. Lund, Rev 12, 34 (2001).")) is None
    # no numbers that name a work: nothing to key on
    assert keyed_query(parse_reference_string(ACS.replace(" 2018, 10, 1113", ""))) is None
