"""``citeproof.index.records``: each dump's record read as WorkRecord fields, identifiers and
notices (INVENTED records in the real formats), and the agreement with the sources' own
parsers on the corpus's real Crossref and OpenAlex answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from index_dumps import CORPUS, DUMPS, NO_CORPUS
from lxml import etree

from citeproof.index import records
from citeproof.index.records import Parsed, normalise_id


def _fields(parsed: Parsed | None) -> dict[str, Any]:
    assert parsed is not None
    return dict(zip(records.FIELDS, parsed.values, strict=True))


def _crossref_items() -> list[dict[str, Any]]:
    return list(json.loads((DUMPS / "crossref-0.json").read_text(encoding="utf-8"))["items"])


def _json_lines(name: str) -> list[dict[str, Any]]:
    lines = (DUMPS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _xml_records(name: str, tags: tuple[str, ...]) -> list[Any]:
    root = etree.fromstring((DUMPS / name).read_bytes(), etree.XMLParser(resolve_entities=False))
    return [el for el in root if isinstance(el.tag, str) and el.tag in tags]


@pytest.mark.parametrize(
    ("kind", "raw", "expected"),
    [
        ("doi", "https://doi.org/10.5555/ABC", "10.5555/abc"),
        ("doi", "doi: 10.5555/x.Y", "10.5555/x.y"),
        ("doi", "not a doi", None),
        ("pmid", "PMID:00123", "123"),
        ("pmid", "12a", None),
        ("pmcid", "pmc123.2", "PMC123"),
        ("arxiv", "arXiv:1901.00001v3", "1901.00001"),
        ("arxiv", "https://arxiv.org/abs/hep-th/9901001v1", "hep-th/9901001"),
        ("arxiv", "1901", None),
        ("openalex", "https://openalex.org/w123", "W123"),
        ("dblp", "https://dblp.org/rec/journals/cacm/Knuth74.html", "journals/cacm/Knuth74"),
        ("dblp", "no-slash", None),
    ],
)
def test_identifiers_are_canonical(kind: str, raw: str, expected: str | None) -> None:
    assert normalise_id(kind, raw) == expected


def test_a_crossref_item_is_read_as_works_messages_are() -> None:
    first, retracted, notice, proceedings = (records.crossref_item(i) for i in _crossref_items())
    fields = _fields(first)
    assert first is not None and first.rkey == "crossref:10.5555/invented.idx.1"
    assert first.ids == ("doi:10.5555/invented.idx.1",)
    assert fields["authors"] == ("Müller, Anna", "Okafor, Chidi")
    assert fields["year"] == 2019 and fields["volume"] == "12" and fields["pages"] == "101-109"
    assert fields["venue_names"] == ("J Invent Soil Ecol",)
    assert fields["issn"] == ("1234-5678", "8765-4321")
    assert fields["other_titles"] == (
        "Compost temperature and earthworm density in INVENTED allotments: a two-year field survey",
    )
    assert fields["related"] == ("has-preprint:doi:10.48550/arxiv.1901.00001",)
    assert first.date == "2025-03-01"
    # updated-by: a notice about this record; it is not a notice itself
    assert _fields(retracted)["title"] == "Rainwater harvesting for INVENTED urban gardens"
    assert retracted is not None and not _fields(retracted)["is_notice"]
    assert [(n.target, n.kind, n.notice) for n in retracted.notices] == [
        ("doi:10.5555/invented.idx.2", "retraction", "doi:10.5555/invented.idx.2r")
    ]
    # update-to: this record is the notice
    assert notice is not None and _fields(notice)["is_notice"]
    assert notice.notices[0].target == "doi:10.5555/invented.idx.2"
    assert notice.notices[0].date == "2021-05-04"
    # issued [[null]]: the year comes from the online date
    assert _fields(proceedings)["year"] == 2019
    assert _fields(proceedings)["other_titles"] == ("Brave new world of INVENTED databases",)


def test_an_openalex_work_names_its_identifiers_and_other_versions() -> None:
    work, retracted, merged_away, article_number = (
        records.openalex_work(w) for w in _json_lines("openalex-part_000.jsonl")
    )
    assert work is not None
    assert work.ids == ("openalex:W1000000001", "doi:10.5555/invented.idx.1", "pmid:90000001")
    fields = _fields(work)
    assert fields["authors"] == ("Anna Müller", "Chidi Okafor")
    assert fields["pages"] == "101-109" and fields["issn"] == ("1234-5678", "8765-4321")
    assert fields["venue_names"] == ("arXiv (Cornell University)",)
    assert fields["related"] == ("has-version:arxiv:1901.00001",)  # a location, not identity
    assert work.date == "2026-02-03"
    assert retracted is not None and retracted.notices[0].kind == "retraction"
    assert _fields(retracted)["pmcid"] == "PMC9000002"
    assert _fields(merged_away)["authors"] == ("A. Müller",)  # raw_author_name, no author
    assert _fields(article_number)["pages"] == "e22"


def test_a_pubmed_article_reads_titles_venue_names_and_links() -> None:
    parsed = [
        records.pubmed_article(el) for el in _xml_records("pubmed26n0001.xml", ("PubmedArticle",))
    ]
    first, retracted, notice, translated, _deleted = parsed
    fields = _fields(first)
    assert first is not None and first.ids == (
        "pmid:90000001",
        "doi:10.5555/invented.idx.1",
        "pmcid:PMC9000001",
    )
    assert fields["authors"] == ("Müller A", "Okafor C")
    assert fields["venue"] == "Journal of invented soil ecology"
    assert fields["venue_names"] == ("J Invent Soil Ecol",)
    assert fields["pages"] == "101-9" and fields["issn"] == ("1234-5678",)
    assert first.date == "2025-12-10" and first.version == 1
    assert retracted is not None and _fields(retracted)["title"].startswith(
        "Rainwater harvesting for INVENTED"
    )
    assert [(n.target, n.kind, n.notice) for n in retracted.notices] == [
        ("pmid:90000002", "retraction", "pmid:90000003")
    ]
    assert notice is not None and _fields(notice)["is_notice"]
    assert notice.notices[0].target == "pmid:90000002"
    other = _fields(translated)
    assert other["year"] == 2023  # from MedlineDate
    assert other["authors"] == ("García L", "INVENTED Rooftop Consortium")
    assert other["other_titles"] == (
        "Visitas de polinizadores a prados INVENTADOS en azoteas.",
        "Pollinator visits to INVENTED rooftop meadows",
    )


def test_pubmed_updates_carry_versions_and_deletions() -> None:
    articles = _xml_records("pubmed26n0002.xml", ("PubmedArticle",))
    versions = [records.pubmed_article(el) for el in articles]
    assert [(p.rkey, p.version) for p in versions if p] == [
        ("pubmed:90000004", 1),
        ("pubmed:90000006", 2),
        ("pubmed:90000006", 1),
    ]
    (delete,) = _xml_records("pubmed26n0002.xml", ("DeleteCitation",))
    assert records.pubmed_deletions(delete) == [records.Deletion("pubmed:90000005")]


def test_a_dblp_record_reads_its_entities_and_electronic_editions() -> None:
    from citeproof.index.readers import DBLP_ENTITIES

    text = (DUMPS / "dblp.xml").read_text(encoding="latin-1")
    for name, code in DBLP_ENTITIES.items():
        text = text.replace(f"&{name};", f"&#{code};")
    root = etree.fromstring(text.encode("latin-1"))
    article, paper, corr, _home = (records.dblp_record(el) for el in root)
    fields = _fields(article)
    assert fields["title"] == "Schöne neue Welt der INVENTED Datenbanken"
    assert fields["authors"] == ("Jürgen Müller",)  # the homonym number dropped
    assert article is not None and article.ids == (
        "dblp:journals/invented/Mueller19",
        "doi:10.5555/invented.idx.4",
    )
    assert _fields(paper)["related"] == ("has-preprint:arxiv:2001.00002",)
    assert corr is not None and "arxiv:1901.00001" in corr.ids  # CoRR is the preprint itself


def test_an_arxiv_record_keeps_the_journal_doi_as_another_version() -> None:
    first, accented, old_style = (
        records.arxiv_record(e) for e in _json_lines("arxiv-metadata-oai-snapshot.json")
    )
    assert first is not None
    assert first.ids == ("arxiv:1901.00001", "doi:10.48550/arxiv.1901.00001")
    fields = _fields(first)
    assert fields["authors"] == ("Müller, Anna", "Okafor, Chidi")  # LaTeX accents read
    assert fields["related"] == ("is-preprint-of:doi:10.5555/invented.idx.1",)
    assert fields["venue_names"] == ("J. Invent. Soil Ecol. 12 (2019) 101-109",)
    assert fields["title"] == "Compost temperature and earthworm density in INVENTED allotments"
    assert fields["year"] == 2019
    assert _fields(accented)["title"] == "Café queues as INVENTED benchmark workloads"
    assert old_style is not None and old_style.rkey == "arxiv:hep-th/9901001"


def test_a_datacite_resource_reads_titles_creators_and_relations() -> None:
    dataset, preprint = (records.datacite_resource(r) for r in _json_lines("datacite-dois.jsonl"))
    fields = _fields(dataset)
    assert fields["title"] == "INVENTED soil moisture readings"
    assert fields["other_titles"] == ("INVENTED soil moisture readings: hourly, 2019-2021",)
    assert fields["authors"] == ("Tanaka, Mei",) and fields["venue"] == "INVENTED Data Repository"
    assert fields["related"] == ("is-version-of:doi:10.5555/invented.data",)
    assert preprint is not None and "arxiv:1901.00001" in preprint.ids


def test_retraction_watch_rows_are_notices_about_each_identifier() -> None:
    import csv

    with (DUMPS / "retraction_watch.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    retraction = records.retraction_watch_row(rows[0])
    assert [(n.target, n.kind, n.notice, n.date) for n in retraction] == [
        ("doi:10.5555/invented.idx.2", "retraction", "doi:10.5555/invented.idx.2r", "2021-05-04"),
        ("pmid:90000002", "retraction", "doi:10.5555/invented.idx.2r", "2021-05-04"),
    ]
    (concern,) = records.retraction_watch_row(rows[1])  # "unavailable" and "0" are no ids
    assert concern.kind == "expression_of_concern" and concern.notice is None


def test_a_record_keeps_at_most_the_authors_scoring_compares() -> None:
    item = {"DOI": "10.5555/x", "author": [{"family": f"F{i}"} for i in range(5000)]}
    assert len(_fields(records.crossref_item(item))["authors"]) == records.MAX_AUTHORS


def test_a_stored_record_round_trips() -> None:
    parsed = records.crossref_item(_crossref_items()[0])
    assert parsed is not None
    ids, fields = records.decode_blob(records.encode_blob(parsed))
    assert ids == parsed.ids
    assert fields["authors"] == ("Müller, Anna", "Okafor, Chidi") and "pmid" not in fields


# --- the real records of the corpus ---------------------------------------------------------


def _corpus_crossref() -> list[Path]:
    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    return sorted((CORPUS / "crossref").glob("habanero-crossref-works-10.*.json"))


def test_real_crossref_records_read_as_the_crossref_source_reads_them() -> None:
    from citeproof.sources.crossref import record_from_message

    paths = _corpus_crossref()
    assert paths
    for path in paths:
        message = json.loads(path.read_bytes())["message"]
        parsed = records.crossref_item(message)
        assert parsed is not None, path.name
        _ids, fields = records.decode_blob(records.encode_blob(parsed))
        ours = fields
        theirs = record_from_message(message).model_dump(exclude_defaults=True)
        for name, value in theirs.items():
            if name == "is_notice":
                continue
            assert ours.get(name) == value, (path.name, name)


def test_real_openalex_works_read_as_the_openalex_source_reads_them() -> None:
    from citeproof.sources.openalex import record_from_work

    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    body = CORPUS / "litcheck-fixtures" / "openalex-cites-w2474002222.body"
    works = json.loads(body.read_bytes())["results"]
    assert works
    for work in works:
        parsed = records.openalex_work(work)
        theirs = record_from_work(work)
        assert parsed is not None and theirs is not None
        _ids, ours = records.decode_blob(records.encode_blob(parsed))
        for name in (
            "doi",
            "pmid",
            "pmcid",
            "title",
            "authors",
            "year",
            "venue",
            "kind",
            "volume",
            "issue",
            "pages",
            "issn",
            "types",
        ):
            assert ours.get(name) == getattr(theirs, name) or (
                ours.get(name) is None and getattr(theirs, name) in ((), None)
            ), name


def test_real_pubmed_records_name_their_pmid_doi_and_authors() -> None:
    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    files = sorted((CORPUS / "eutils").glob("tekmeria-eutils-efetch-pubmed-*.xml"))
    assert files
    seen = 0
    for path in files:
        root = etree.fromstring(path.read_bytes(), etree.XMLParser(resolve_entities=False))
        for article in root.iter("PubmedArticle"):
            parsed = records.pubmed_article(article)
            assert parsed is not None, path.name
            fields = _fields(parsed)
            assert parsed.ids[0] == f"pmid:{article.findtext('MedlineCitation/PMID')}"
            assert fields["title"] and fields["year"]
            seen += 1
    assert seen >= 5
