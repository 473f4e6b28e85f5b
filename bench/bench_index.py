"""The local index (issue 23): build rate on 2 cores, peak memory, size against the dumps,
identifier look-ups and bibliographic searches, serving memory, and tantivy against SQLite
FTS5 on the same records, all in one run.

    python bench/make_index_records.py DATA --records 10000000      # the dumps, once
    python bench/bench_index.py DATA WORK [--skip-build] [--skip-compare] [--json-out FILE]

``DATA`` holds ``openalex/`` (gzipped JSON Lines), ``crossref/`` (gzipped public-data-file
JSON) and ``queries.jsonl``; ``WORK`` receives the index (``WORK/index``), a JSON-Lines-only
index (``WORK/jsonl``) and the engine comparison's files.  Every number is printed with the
load average at the start and end of its step: the targets are rates and ratios measured
on this machine in this run, and another process on the machine shows in them.

Steps:

* **build**: ``citeproof index build`` as a subprocess on the whole of ``DATA`` with two
  workers, and on the OpenAlex JSON Lines alone (the rate the target names), sampling the
  resident memory of the build and its workers every half second; CPU seconds of all of
  them from ``getrusage``; the time the reading pass ends (``meta.state``) and the end.
* **size**: the index's bytes on disk against the uncompressed text of the dumps read.
* **serve**: a fresh process opens the index and asks every query of ``queries.jsonl`` (a
  whole reference string, then the same reference by fields) and a look-up of every
  identifier they name plus OpenAlex ids and absent DOIs, twice; latencies p50/p99 of the
  second pass, the first pass's p99, how often the cited work is first, and the process's
  resident memory (anonymous and file-backed) at the end.
* **compare**: the same records' search text into a bare tantivy index and into an SQLite
  FTS5 table (unicode61, diacritics folded, the same stopwords out); build time, size, and
  search latency for the same query terms.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
_TUPLE_FIELDS = frozenset({"authors", "other_titles", "venue_names", "issn", "types", "related"})


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo = int(k)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# --- build --------------------------------------------------------------------------------


def build(directory: Path, inputs: list[Path], label: str) -> dict[str, Any]:
    """One ``citeproof index build`` subprocess, sampled."""
    import psutil

    if directory.exists():
        shutil.rmtree(directory)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    load_start = _load()
    started = time.monotonic()
    command = [
        sys.executable,
        "-m",
        "citeproof",
        "index",
        "build",
        str(directory),
        *map(str, inputs),
        "--workers",
        "2",
        "--json",
    ]
    # Into files, not pipes: the report is the manifest, and a pipe nobody reads while the
    # build runs would stop it at its last write.
    out_file = directory.parent / f".{directory.name}.out"
    err_file = directory.parent / f".{directory.name}.err"
    with out_file.open("wb") as out_handle, err_file.open("wb") as err_handle:
        process = subprocess.Popen(command, stdout=out_handle, stderr=err_handle)
    parent = psutil.Process(process.pid)
    peak_total = peak_main = peak_worker = 0
    reading_done: float | None = None
    database = directory / "index.sqlite3"
    while process.poll() is None:
        try:
            procs = [parent, *parent.children(recursive=True)]
            sizes = {p.pid: p.memory_info().rss for p in procs}
        except psutil.Error:
            sizes = {}
        if sizes:
            peak_total = max(peak_total, sum(sizes.values()))
            peak_main = max(peak_main, sizes.get(process.pid, 0))
            workers = [v for k, v in sizes.items() if k != process.pid]
            peak_worker = max([peak_worker, *workers])
        if reading_done is None and database.exists():
            try:
                connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, timeout=0.2)
                row = connection.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()
                connection.close()
                if row and row[0] not in ("building", "updating"):
                    reading_done = time.monotonic() - started
            except sqlite3.Error:
                pass
        time.sleep(0.5)
    process.wait()
    elapsed = time.monotonic() - started
    out, err = out_file.read_bytes(), err_file.read_bytes()
    out_file.unlink()
    err_file.unlink()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode != 0:
        raise SystemExit(f"the build failed: {err.decode()[-2000:]}")
    report = json.loads(out)
    records = report["records_read"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    manifest = report["manifest"]
    reading = reading_done or elapsed
    return {
        "label": label,
        "records": records,
        "seconds": round(elapsed, 1),
        "reading_seconds": round(reading, 1),
        "finishing_seconds": round(elapsed - reading, 1),
        "records_per_second": round(records / elapsed),
        "reading_records_per_second": round(records / reading),
        "cpu_seconds": round(cpu, 1),
        "cores_used": round(cpu / elapsed, 2),
        "cpu_us_per_record": round(cpu / records * 1e6, 1),
        "peak_rss_total_mb": round(peak_total / 1e6),
        "peak_rss_main_mb": round(peak_main / 1e6),
        "peak_rss_worker_mb": round(peak_worker / 1e6),
        "index_bytes": manifest["size_bytes"],
        "text_bytes": manifest["counts"]["text_bytes"],
        "size_ratio": round(manifest["size_bytes"] / manifest["counts"]["text_bytes"], 3),
        "tantivy_bytes": _size(directory / "search"),
        "sqlite_bytes": (directory / "index.sqlite3").stat().st_size,
        "works": manifest["counts"]["works"],
        "live_records": manifest["counts"]["records"],
        "load_start": load_start,
        "load_end": _load(),
    }


# --- serve (runs in its own process) --------------------------------------------------------


def _rss() -> dict[str, int]:
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            found[key] = int(value.split()[0]) * 1024
    return found


def serve(index_dir: Path, queries_path: Path, seed: int) -> dict[str, Any]:
    from citeproof.service.indexing import open_index

    queries = [json.loads(line) for line in queries_path.read_text(encoding="utf-8").splitlines()]
    r = random.Random(seed)
    started = time.perf_counter()
    index = open_index(index_dir)
    opened_ms = (time.perf_counter() - started) * 1000
    lookups: list[tuple[str, str]] = []
    for q in queries:
        if q.get("doi"):
            lookups.append(("doi", q["doi"]))
        if q.get("pmid"):
            lookups.append(("pmid", q["pmid"]))
    summary = json.loads((queries_path.parent / "summary.json").read_text())
    works = int(summary["works"])
    lookups += [("openalex", f"W{1_000_000_000 + 4 * r.randrange(works)}") for _ in range(2000)]
    lookups += [("doi", f"10.9999/absent.{r.randrange(10**9)}") for _ in range(500)]
    r.shuffle(lookups)
    out: dict[str, Any] = {
        "opened_ms": round(opened_ms, 1),
        "queries": len(queries),
        "lookups": len(lookups),
        "load_start": _load(),
    }
    for attempt in ("first", "second"):
        hits: list[float] = []
        misses: list[float] = []
        for kind, value in lookups:
            t = time.perf_counter()
            records = index.by_identifier(kind, value)
            (hits if records else misses).append((time.perf_counter() - t) * 1000)
        every = hits + misses
        out[f"lookup_{attempt}"] = {
            "p50_ms": round(_pct(every, 0.5), 3),
            "p99_ms": round(_pct(every, 0.99), 3),
            "found_p50_ms": round(_pct(hits, 0.5), 3),
            "found_p99_ms": round(_pct(hits, 0.99), 3),
            "max_ms": round(max(every), 3),
            "found": len(hits),
            "absent": len(misses),
        }
        for mode in ("text", "fields"):
            times = []
            top1 = top5 = 0
            for q in queries:
                t = time.perf_counter()
                if mode == "text":
                    hits = index.search(q["text"], limit=5)
                else:
                    hits = index.search(
                        title=q["title"],
                        authors=q["authors"],
                        year=q["year"],
                        venue=q["venue"],
                        volume=q["volume"],
                        first_page=q["first_page"],
                        limit=5,
                    )
                times.append((time.perf_counter() - t) * 1000)
                keys = [_keys(record) for record, _score in hits]
                top1 += bool(keys) and q["expect"] in keys[0]
                top5 += any(q["expect"] in k for k in keys)
            out[f"search_{mode}_{attempt}"] = {
                "p50_ms": round(_pct(times, 0.5), 3),
                "p99_ms": round(_pct(times, 0.99), 3),
                "max_ms": round(max(times), 3),
                "cited_first": round(top1 / len(queries), 3),
                "cited_in_5": round(top5 / len(queries), 3),
            }
    out["rss"] = {k: round(v / 1e6) for k, v in _rss().items()}
    out["load_end"] = _load()
    return out


def _keys(record: Any) -> set[str]:
    keys = set()
    for kind in ("doi", "pmid", "openalex"):
        value = getattr(record, kind, None)
        if value:
            keys.add(f"{kind}:{value.lower() if kind == 'doi' else value}")
    return keys


# --- tantivy against SQLite FTS5 ------------------------------------------------------------


def compare(index_dir: Path, work: Path, queries_path: Path, asked: int) -> dict[str, Any]:
    import tantivy

    from citeproof.index import engine, records

    texts = work / "texts.tsv"
    started = time.monotonic()
    connection = sqlite3.connect(f"{(index_dir / 'index.sqlite3').as_uri()}?mode=ro", uri=True)
    count = 0
    with texts.open("w", encoding="utf-8") as handle:
        for rid, blob in connection.execute("SELECT rid, data FROM records WHERE live = 1"):
            ids, fields = records.decode_blob(blob)
            values = tuple(
                fields.get(f, () if f in _TUPLE_FIELDS else None) for f in records.FIELDS
            )
            bib = records.search_text(records.Parsed("", 0, ids, values))
            handle.write(f"{rid}\t{' '.join(bib.split())}\n")
            count += 1
    connection.close()
    out: dict[str, Any] = {"records": count, "export_seconds": round(time.monotonic() - started, 1)}
    stop = set(records.STOPWORDS)

    # tantivy, the text alone, as the index uses it
    tdir = work / "tantivy-only"
    shutil.rmtree(tdir, ignore_errors=True)
    tdir.mkdir(parents=True)
    load = _load()
    started = time.monotonic()
    index = engine.create_index(tdir)
    writer = index.writer(heap_size=256_000_000, num_threads=1)
    with texts.open(encoding="utf-8") as handle:
        for line in handle:
            rid, _, bib = line.rstrip("\n").partition("\t")
            doc = tantivy.Document()
            doc.add_unsigned("rid", int(rid))
            doc.add_text("bib", bib)
            writer.add_document(doc)
    writer.commit()
    writer.wait_merging_threads()
    out["tantivy"] = {
        "build_seconds": round(time.monotonic() - started, 1),
        "bytes": _size(tdir),
        "load_start": load,
        "load_end": _load(),
    }

    # SQLite FTS5, the same text without the same stopwords
    fdb = work / "fts5.sqlite3"
    fdb.unlink(missing_ok=True)
    load = _load()
    started = time.monotonic()
    fts = sqlite3.connect(fdb)
    fts.execute("PRAGMA journal_mode=OFF")
    fts.execute("PRAGMA synchronous=OFF")
    fts.execute(
        "CREATE VIRTUAL TABLE texts USING fts5(bib, content='', "
        "tokenize='unicode61 remove_diacritics 2')"
    )
    words = re.compile(r"\w+")

    def rows() -> Any:
        with texts.open(encoding="utf-8") as handle:
            for line in handle:
                rid, _, bib = line.rstrip("\n").partition("\t")
                kept = " ".join(w for w in words.findall(bib) if w.lower() not in stop)
                yield int(rid), kept

    fts.executemany("INSERT INTO texts (rowid, bib) VALUES (?, ?)", rows())
    fts.commit()
    fts.execute("INSERT INTO texts (texts) VALUES ('optimize')")
    fts.commit()
    out["fts5"] = {
        "build_seconds": round(time.monotonic() - started, 1),
        "bytes": fdb.stat().st_size,
        "load_start": load,
        "load_end": _load(),
    }

    # the same terms to both
    from citeproof.service.indexing import open_index

    local = open_index(index_dir)
    queries = [json.loads(line) for line in queries_path.read_text(encoding="utf-8").splitlines()]
    # FTS5 scores every record that holds any word asked: a few hundred queries measure it.
    term_lists = [local._terms(q["text"]) for q in queries[:asked]]
    out["queries"] = len(term_lists)
    bare = tantivy.Index.open(str(tdir))
    searcher, schema = bare.searcher(), bare.schema
    for name, ask in (
        ("tantivy", lambda terms: _tantivy_ask(tantivy, searcher, schema, terms)),
        ("fts5", lambda terms: _fts_ask(fts, terms)),
    ):
        for attempt in ("first", "second"):
            times = []
            for terms in term_lists:
                if not terms:
                    continue
                t = time.perf_counter()
                ask(terms)
                times.append((time.perf_counter() - t) * 1000)
            out[name][f"search_{attempt}"] = {
                "p50_ms": round(_pct(times, 0.5), 3),
                "p99_ms": round(_pct(times, 0.99), 3),
                "mean_ms": round(statistics.fmean(times), 3),
            }
    fts.close()
    texts.unlink()
    return out


def _tantivy_ask(tantivy: Any, searcher: Any, schema: Any, terms: list[str]) -> list[Any]:
    query = tantivy.Query.boolean_query(
        [
            (tantivy.Occur.Should, tantivy.Query.term_query(schema, "bib", t, index_option="freq"))
            for t in terms
        ]
    )
    hits = searcher.search(query, 30, count=False).hits
    return searcher.fast_field_values("rid", [a for _s, a in hits])


def _fts_ask(fts: sqlite3.Connection, terms: list[str]) -> list[Any]:
    match = " OR ".join('"' + t.replace('"', "") + '"' for t in terms)
    return fts.execute(
        "SELECT rowid FROM texts WHERE texts MATCH ? ORDER BY rank LIMIT 30", (match,)
    ).fetchall()


def pubmed_cost(work: Path, copies: int = 2000) -> dict[str, Any]:
    """CPU per record of reading PubMed XML: the corpus's real efetch records (abstracts,
    MeSH, reference lists), repeated into one gzipped baseline-like file."""
    from lxml import etree

    from citeproof.index.build import _task_messages
    from citeproof.index.readers import Task

    corpus = REPO.parent / "shared" / "corpus" / "eutils"
    articles = []
    for path in sorted(corpus.glob("tekmeria-eutils-efetch-pubmed-*.xml")):
        root = etree.fromstring(path.read_bytes(), etree.XMLParser(resolve_entities=False))
        articles += [etree.tostring(a) for a in root.iter("PubmedArticle")]
    if not articles:
        return {"skipped": f"no efetch files in {corpus}"}
    target = work / "pubmed-cost.xml.gz"
    with gzip.open(target, "wb") as handle:
        handle.write(b'<?xml version="1.0" encoding="utf-8"?>\n<PubmedArticleSet>\n')
        for i in range(copies):
            handle.write(articles[i % len(articles)] + b"\n")
        handle.write(b"</PubmedArticleSet>\n")
    task = Task(0, str(target), "pubmed", "xml", False)
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        records = sum(len(m[4]) for m in _task_messages(task) if m[0] == "batch")
        best = min(best, (time.process_time() - started) / records * 1e6)
    size = len(gzip.decompress(target.read_bytes()))
    target.unlink()
    return {
        "records": records,
        "distinct": len(articles),
        "worker_cpu_us_per_record": round(best, 1),
        "bytes_per_record": round(size / copies),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--skip-jsonl", action="store_true")
    parser.add_argument("--skip-compare", action="store_true")
    parser.add_argument("--compare-queries", type=int, default=300)
    parser.add_argument("--serve-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)
    args.work = args.work.resolve()
    args.data = args.data.resolve()
    index_dir = args.work / "index"
    queries = args.data / "queries.jsonl"
    if args.serve_only:
        print(json.dumps(serve(index_dir, queries, 23)))
        return 0
    args.work.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"cpus": os.cpu_count(), "load_start": _load()}
    results["pubmed_xml"] = pubmed_cost(args.work)
    print(json.dumps(results["pubmed_xml"]), flush=True)
    if not args.skip_jsonl:
        parts = sorted((args.data / "openalex").glob("part_*.gz"))[:2]
        results["build_jsonl"] = build(args.work / "jsonl", parts, "OpenAlex JSON Lines")
        shutil.rmtree(args.work / "jsonl")
        print(json.dumps(results["build_jsonl"]), flush=True)
    if not args.skip_build:
        inputs = [args.data / "openalex", args.data / "crossref"]
        results["build"] = build(index_dir, inputs, "OpenAlex + Crossref")
        print(json.dumps(results["build"]), flush=True)
    done = subprocess.run(
        [sys.executable, __file__, str(args.data), str(args.work), "--serve-only"],
        capture_output=True,
        check=True,
    )
    results["serve"] = json.loads(done.stdout)
    print(json.dumps(results["serve"]), flush=True)
    if not args.skip_compare:
        results["compare"] = compare(index_dir, args.work, queries, args.compare_queries)
        print(json.dumps(results["compare"]), flush=True)
    results["load_end"] = _load()
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
