"""A word glued to a number or to the next word, as PDF extraction and OCR leave them
("History43", "ThinkingAboutBribery"), is searched for as the words it joins too.

Answered by an INVENTED emulated world (``tests/scholarly_world.py``), whose search reads
"History43" as one word, as a real search engine's tokenizer does: the glued word matches
no record, so the venue and the volume went unmatched and other works ranked first.
"""

from __future__ import annotations

from citeproof.models.references import ReferenceResult
from citeproof.refs.listed import parse_reference_string
from citeproof.refs.lookup import bibliographic_string
from scholarly_world import Person, Work, World, verify_printed

CITED = Work(
    doi="10.5555/invented.history.530",
    title="An invented history of the fur trade",
    authors=(Person("Maes", "Frieda"),),
    year=2008,
    venue="Canadian Journal of History",
    volume="43",
    first_page="530",
    last_page="552",
)
BOOK = Work(
    doi="10.5555/invented.bribery.206",
    title="On gifts that are not gifts",
    authors=(Person("Prentice", "Robert A."),),
    year=2016,
    venue="Thinking About Bribery",
    first_page="206",
    last_page="230",
    kind="book-chapter",
)
# Other works of 2008 and 2016 with a page 530 or 206, in journals of other names: each
# shares as many of the glued entry's words as the cited work does.
OTHERS = [
    Work(
        doi=f"10.5555/invented.other.{n}",
        title=f"Invented other study number {n}",
        authors=(Person(f"Other{n}", "Ann"),),
        year=2008 if n % 2 else 2016,
        venue=f"Journal of {name}",
        volume=str(10 + n),
        first_page="530" if n % 2 else "206",
        last_page="540" if n % 2 else "210",
    )
    for n, name in enumerate(
        ["Tides", "Stones", "Moss", "Ferns", "Bees", "Kelp", "Owls", "Rust", "Ice", "Sand"]
    )
]


def _verify(text: str) -> ReferenceResult:
    return verify_printed(World([*OTHERS, CITED, BOOK]), text)


def test_a_venue_glued_to_its_volume_is_searched_as_both() -> None:
    text = "1 F. Ma es, CanadiaW Journal of History43, 530 (2008)."
    assert "History 43" in bibliographic_string(parse_reference_string(text))
    r = _verify(text)
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.identifier == f"doi:{CITED.doi}"


def test_words_glued_together_are_searched_as_words() -> None:
    text = "1 R.A. PreJtice, ThinkingAboutBribery206 (2016)."
    query = bibliographic_string(parse_reference_string(text))
    assert "ThinkingAboutBribery206 Thinking About Bribery 206" in query
    r = _verify(text)
    assert r.verdict == "verified", r.reason
    assert r.work is not None and r.work.identifier == f"doi:{BOOK.doi}"


def test_a_name_and_a_lettered_page_stay_whole() -> None:
    """A name such as "MacDonald" is one word in the records and "S79" a page: each is
    kept as printed, so the search still matches them (the split parts are added, never
    put in their place), and a page with one to three letters is not split at all."""
    query = bibliographic_string(
        parse_reference_string("1 A. MacDonald, Invented Quarterly 10, S79 (2006).")
    )
    assert "MacDonald, Mac Donald," in query
    assert "S79 " in query and "S 79" not in query
