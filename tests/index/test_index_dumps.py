"""Dumps recognised from their content, whatever their names, and read in bounded memory:
gzip bombs, over-long lines, entity declarations and unknown files are refused or counted,
never indexed as nonsense."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest
from index_dumps import DUMPS, PUBLISHED, publish

from citeproof.errors import BadInputError
from citeproof.index import dumps, readers
from citeproof.index.readers import Task, TaskStats, read_task

KINDS = {
    "crossref-0.json": ("crossref", "items"),
    "openalex-part_000.jsonl": ("openalex", "jsonl"),
    "openalex-merged_ids.csv": ("openalex-merged", "csv"),
    "pubmed26n0001.xml": ("pubmed", "xml"),
    "pubmed26n0002.xml": ("pubmed", "xml"),
    "dblp.xml": ("dblp", "xml"),
    "arxiv-metadata-oai-snapshot.json": ("arxiv", "jsonl"),
    "datacite-dois.jsonl": ("datacite", "jsonl"),
    "retraction_watch.csv": ("retractionwatch", "csv"),
}


@pytest.mark.parametrize("name", sorted(KINDS))
@pytest.mark.parametrize("gzipped", [True, False])
def test_every_dump_is_recognised_by_content(name: str, gzipped: bool, tmp_path: Path) -> None:
    # A name that says nothing: the content decides.
    target = publish(name, tmp_path / "download.bin", gzipped)
    found = dumps.detect(target)
    assert (found.kind, found.layout, found.compressed) == (*KINDS[name], gzipped)


def test_a_crossref_tar_of_gzipped_files_is_read_member_by_member(tmp_path: Path) -> None:
    target = tmp_path / "April-2025-public-data-file-from-crossref.tar"
    with tarfile.open(target, "w") as tar:
        for i in range(3):
            body = gzip.compress((DUMPS / "crossref-0.json").read_bytes())
            info = tarfile.TarInfo(f"April 2025 Public Data File from Crossref/{i}.json.gz")
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    found = dumps.detect(target)
    assert (found.kind, found.layout, found.tar) == ("crossref", "items", True)
    stats = TaskStats()
    rows = [
        row
        for stripe in range(2)
        for _units, batch in read_task(
            Task(0, str(target), "crossref", "items", True, stripe, 2), stats
        )
        for row in batch
    ]
    assert len(rows) == 12 and stats.records == 12
    assert len({row[1] for row in rows}) == 12  # each item keeps its own position


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", "empty"),
        (b"<html><body>hi</body></html>", "root element <html>"),
        (b'{"hello": "world"}\n', "no known dump"),
        (b"a,b,c\n1,2,3\n", "not a metadata dump"),
        (b"[1, 2, 3]", "not a metadata dump"),
    ],
)
def test_what_is_no_dump_is_refused_in_one_sentence(
    content: bytes, words: str, tmp_path: Path
) -> None:
    target = tmp_path / "file"
    target.write_bytes(content)
    with pytest.raises(BadInputError, match=words):
        dumps.detect(target)


def test_a_gzip_bomb_is_refused_not_indexed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dumps, "INFLATION_GRACE", 1 << 20)
    line = json.dumps({"id": "https://openalex.org/W1", "title": "x"}).encode() + b"\n"
    bomb = tmp_path / "part_000.gz"
    bomb.write_bytes(gzip.compress(line + b" " * (64 << 20) + b"\n", 9))
    assert bomb.stat().st_size < 200_000
    with pytest.raises(BadInputError, match="gzip bomb"):
        for _ in read_task(Task(0, str(bomb), "openalex", "jsonl", False), TaskStats()):
            pass


def test_an_over_long_line_is_skipped_and_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(readers, "MAX_RECORD_BYTES", 1000)
    good = json.dumps({"id": "https://openalex.org/W1", "title": "A title"})
    long = json.dumps({"id": "https://openalex.org/W2", "title": "x" * 5000})
    target = tmp_path / "part_000"
    target.write_text("\n".join([good, long, good.replace("W1", "W3"), "not json", ""]))
    stats = TaskStats()
    rows = [
        r
        for _u, batch in read_task(Task(0, str(target), "openalex", "jsonl", False), stats)
        for r in batch
    ]
    assert [r[3] for r in rows] == ["openalex:W1", "openalex:W3"]
    assert stats.skipped == 2 and stats.units == 4


def test_an_xml_dump_declaring_entities_is_refused(tmp_path: Path) -> None:
    hostile = (
        b'<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'
        b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID>"
        b"<Article><ArticleTitle>&b;</ArticleTitle></Article></MedlineCitation>"
        b"</PubmedArticle></PubmedArticleSet>"
    )
    target = tmp_path / "pubmed26n9999.xml"
    target.write_bytes(hostile)
    with pytest.raises(BadInputError, match="declares entities"):
        for _ in read_task(Task(0, str(target), "pubmed", "xml", False), TaskStats()):
            pass


def test_dblp_entities_come_from_its_dtd_and_an_unknown_one_is_counted(tmp_path: Path) -> None:
    text = (DUMPS / "dblp.xml").read_text(encoding="latin-1").replace("Okafor", "Oka&zzfor;")
    target = tmp_path / "dblp.xml"
    target.write_text(text, encoding="latin-1")
    (tmp_path / "dblp.dtd").write_text(
        '<!ENTITY zzfor "&#246;">\n<!ENTITY big "<b>markup</b>">\n<!ENTITY % param "x">\n'
    )
    assert readers.dtd_entities(tmp_path / "dblp.dtd") == {"zzfor": 246}
    stats = TaskStats()
    rows = [
        r
        for _u, batch in read_task(Task(0, str(target), "dblp", "xml", False), stats)
        for r in batch
    ]
    assert "Okaö ;" in rows[1][6]  # the DTD beside the dump defines &zzfor;
    assert stats.records == 3 and stats.skipped == 0
    (tmp_path / "dblp.dtd").unlink()
    stats = TaskStats()
    rows = [
        r
        for _u, batch in read_task(Task(0, str(target), "dblp", "xml", False), stats)
        for r in batch
    ]
    assert "Oka\ufffd ;" in rows[1][6] and stats.skipped == 1


def test_a_truncated_gzip_file_is_one_sentence(tmp_path: Path) -> None:
    whole = gzip.compress((DUMPS / "openalex-part_000.jsonl").read_bytes())
    target = tmp_path / "part_000.gz"
    target.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(BadInputError, match="damaged gzip"):
        for _ in read_task(Task(0, str(target), "openalex", "jsonl", False), TaskStats()):
            pass


def test_a_task_hashes_its_file_and_counts_its_text(tmp_path: Path) -> None:
    import hashlib

    for name, target, gzipped in PUBLISHED:
        path = publish(name, tmp_path / target, gzipped)
        found = dumps.detect(path)
        stats = TaskStats()
        for _ in read_task(Task(0, str(path), found.kind, found.layout, False), stats):
            pass
        assert stats.sha256 == hashlib.sha256(path.read_bytes()).hexdigest(), name
        assert stats.text_bytes == len((DUMPS / name).read_bytes()), name


def test_stripes_of_a_json_lines_file_share_its_lines(tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": f"https://openalex.org/W{i}", "title": f"t {i}"}) for i in range(2000)
    ]
    target = tmp_path / "part_000.gz"
    target.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    seen: list[str] = []
    for stripe in range(3):
        task = Task(0, str(target), "openalex", "jsonl", False, stripe, 3)
        seen.extend(r[3] for _u, batch in read_task(task, TaskStats()) for r in batch)
    assert sorted(seen) == sorted(f"openalex:W{i}" for i in range(2000))
    resumed = Task(0, str(target), "openalex", "jsonl", False, 1, 3, skip=100)
    first = next(iter(read_task(resumed, TaskStats())))[1][0]
    assert first[1] == 512 + 100  # stripe 1 holds lines 512-1023: its 101st is line 612


def test_an_openalex_line_read_without_its_tail_gives_the_same_record() -> None:
    from citeproof.index import records

    works = [
        json.loads(line) for line in (DUMPS / "openalex-part_000.jsonl").read_text().splitlines()
    ]
    tricky = dict(works[0], title='A title quoting "referenced_works_count": 3 inside it')
    tricky["referenced_works_count"] = 2
    tricky["referenced_works"] = ["https://openalex.org/W1", "https://openalex.org/W2"]
    for work in [*works, tricky]:
        line = json.dumps(work).encode()
        head = readers._openalex_head(line, TaskStats())
        assert head is not None
        assert records.openalex_work(head) == records.openalex_work(work)


def test_real_openalex_works_read_without_their_tails_give_the_same_records() -> None:
    from index_dumps import CORPUS, NO_CORPUS

    from citeproof.index import records

    body = CORPUS / "litcheck-fixtures" / "openalex-cites-w2474002222.body"
    if not body.is_file():
        pytest.skip(NO_CORPUS)
    for work in json.loads(body.read_bytes())["results"]:
        assert "referenced_works" in work and "abstract_inverted_index" in work
        head = readers._openalex_head(json.dumps(work).encode(), TaskStats())
        assert head is not None and "abstract_inverted_index" not in head
        assert records.openalex_work(head) == records.openalex_work(work)
