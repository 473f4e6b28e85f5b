"""Benchmark what ``citeproof refs`` reads: hostile inputs, and lists of many references.

Every input is INVENTED and written by this script to a temporary folder (nothing is kept):

* **hostile**: a 10 MB title, a 10 MB abstract, two ``@string`` bombs of about 500 bytes
  (macros that double 23 times, 67 MB of title, as the issue's 634-byte file; macros that
  quadruple, which reach gigabytes as its 884-byte file did), a million tiny entries
  (``@misc{kN}``, past the cap on a run's references), a JSONL file with a line that is not
  UTF-8, and one with a line nested 100,000 deep.  Each is ``citeproof refs FILE
  --offline`` in a fresh process; the target (issue 21) is at most 5 s of CPU and 300 MB
  with one line (or a result), which the table judges.
* **lists**: Zotero-style BibTeX entries (one in ten with a 3,000-character abstract;
  keywords, file paths; names in UTF-8 as Zotero writes them, one in ten in LaTeX, about a
  third of the people named nowhere else) and RIS records of the works in
  ``bench/refs_fixtures.py``; and, shown but not judged, the same BibTeX with every name in
  LaTeX (pylatexenc's cost: about 0.1 ms a name it has not seen). For 100,000 BibTeX
  entries and 50,000 RIS records, *reading* (the references parsed and counted, the point
  where the command says how many there are; ``read_jobs`` in a fresh process) is judged
  against the same 5 s and 300 MB. The whole offline run (``citeproof refs FILE --offline
  -o out.jsonl``: reading, every service asked of the empty pin cache, each reference
  ``unavailable``, its line written) is timed at several sizes: references a second, and
  peak memory per 10,000 references, which with ``-o`` should not grow with the count
  beyond what reading holds.

CPU is user + system time of the child process (``os.wait4``), memory its peak RSS.  The
machine's load average is printed with the results: this is a shared 2-core machine.

    python bench/bench_refs_inputs.py            # everything (about 5 minutes)
    python bench/bench_refs_inputs.py --quick    # small sizes; printed, never judged
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from refs_fixtures import Work, catalogue

CPU_TARGET = 5.0
RSS_TARGET_MB = 300.0
_LATEX = {
    "á": r"{\'a}",
    "é": r"{\'e}",
    "ó": r"{\'o}",
    "ú": r"{\'u}",
    "ö": r"{\"o}",
    "ü": r"{\"u}",
    "ç": r"{\c c}",
    "ñ": r"{\~n}",
}
_SYLLABLES = ("ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "bé", "dü", "gó", "ñu", "pá", "zö")


def load_avg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def latex(text: str) -> str:
    return "".join(_LATEX.get(c, c) for c in text)


def stranger(rng: random.Random) -> str:
    """An invented family name met once or twice in a list of 100,000."""
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4))).capitalize()


def abstract(rng: random.Random, chars: int = 3_000) -> str:
    words = ("invented", "plots", "yield", "we", "measured", "the", "soil", "of", "water", "and")
    out: list[str] = []
    while sum(len(w) + 1 for w in out) < chars:
        out.append(rng.choice(words) + ("," if rng.random() < 0.1 else ""))
    return " ".join(out) + "."


def bibtex_entry(w: Work, rng: random.Random, with_abstract: bool, in_latex: float) -> str:
    """Names as Zotero writes them (UTF-8), each in LaTeX with probability ``in_latex``."""
    people = [f"{family}, {given}" for given, family in w.authors]
    people += [f"{stranger(rng)}, {rng.choice('ABCDEFGH')}." for _ in range(rng.randint(0, 3))]
    people = [latex(p) if rng.random() < in_latex else p for p in people]
    return (
        f"@article{{inv{w.n},\n"
        f"  title = {{{{{w.title}}}}},\n"
        f"  author = {{{' and '.join(people)}}},\n"
        f"  journal = {{{w.venue}}},\n  year = {{{w.year}}},\n  volume = {{{w.volume}}},\n"
        f"  pages = {{{w.page}}},\n  doi = {{{w.doi}}},\n"
        + (f"  abstract = {{{abstract(rng)}}},\n" if with_abstract else "")
        + f"  keywords = {{invented, soil, plots, bench {w.n % 97}}},\n"
        f"  file = {{Full Text PDF:files/{w.n}/invented.pdf:application/pdf}},\n"
        f"  urldate = {{2026-12-0{1 + w.n % 9}}}\n}}\n\n"
    )


def ris_record(w: Work, rng: random.Random) -> str:
    lines = ["TY  - JOUR", f"TI  - {w.title}"]
    lines += [f"AU  - {family}, {given}" for given, family in w.authors]
    lines += [f"T2  - {w.venue}", f"PY  - {w.year}", f"DO  - {w.doi}", f"VL  - {w.volume}"]
    lines += [f"AB  - {abstract(rng, 1_000)}", "ER  - ", ""]
    return "\n".join(lines) + "\n"


def write_list(
    path: Path, count: int, kind: str, abstracts: int = 10, in_latex: float = 0.1
) -> Path:
    """``count`` entries; one in ``abstracts`` has a 3,000-character abstract, a name is in
    LaTeX with probability ``in_latex`` (BibTeX)."""
    rng = random.Random(21)
    works = catalogue(min(count, 5_000))
    with path.open("w", encoding="utf-8") as out:
        for n in range(count):
            w = works[n % len(works)]
            w = replace(w, n=n, doi=f"10.5555/invented.inputs.{n}")
            if kind == "bib":
                out.write(bibtex_entry(w, rng, n % abstracts == 0, in_latex))
            else:
                out.write(ris_record(w, rng))
    return path


def hostile(folder: Path) -> dict[str, Path]:
    """The issue's hostile inputs, INVENTED."""
    files: dict[str, Path] = {}
    ten = "invented words " * (10_000_000 // 15)
    files["10 MB title"] = folder / "title.bib"
    files["10 MB title"].write_text(f"@article{{t,\n  title = {{{ten}}},\n  year = 2020\n}}\n")
    files["10 MB abstract"] = folder / "abstract.bib"
    files["10 MB abstract"].write_text(
        f"@article{{a,\n  title = {{An invented title}},\n  abstract = {{{ten}}}\n}}\n"
    )
    doubling = ['@string{s0="invented"}'] + [
        f"@string{{s{n}=s{n - 1}#s{n - 1}}}" for n in range(1, 24)
    ]
    files["@string bomb (doubling)"] = folder / "bomb1.bib"
    files["@string bomb (doubling)"].write_text(
        "\n".join(doubling) + "\n@article{b, title = s23}\n"
    )
    fourfold = ['@string{q0="invented"}'] + [
        f"@string{{q{n}=q{n - 1}#q{n - 1}#q{n - 1}#q{n - 1}}}" for n in range(1, 20)
    ]
    files["@string bomb (fourfold)"] = folder / "bomb2.bib"
    files["@string bomb (fourfold)"].write_text(
        "\n".join(fourfold) + "\n@article{b, title = q19 # q19, journal = q19}\n"
    )
    files["1,000,000 tiny BibTeX entries"] = folder / "tiny.bib"
    files["1,000,000 tiny BibTeX entries"].write_text(
        "".join(f"@misc{{k{n}}}\n" for n in range(1_000_000))
    )
    files["JSONL, invalid UTF-8"] = folder / "bad.jsonl"
    files["JSONL, invalid UTF-8"].write_bytes(
        b'"Invented A. A title. 2020."\n"Invented B. Caf\xe9 \xff title. 2021."\n'
    )
    files["JSONL, 100,000 deep"] = folder / "deep.jsonl"
    files["JSONL, 100,000 deep"].write_bytes(b"[" * 100_000 + b"]" * 100_000 + b"\n")
    return files


@dataclass(frozen=True, slots=True)
class Run:
    cpu: float
    rss_mb: float
    wall: float
    code: int
    stderr: str
    killed: bool = False
    """Still running after ``--timeout`` seconds (the old code on a bomb), and killed."""


TIMEOUT = 120.0


def run(argv: Sequence[str], home: Path, timeout: float | None = None) -> Run:
    """``argv`` in a fresh process: its CPU, peak RSS, wall time, exit code and stderr;
    killed after ``timeout`` seconds (default ``--timeout``)."""
    timeout = TIMEOUT if timeout is None else timeout
    env = {**os.environ, "CITEPROOF_HOME": str(home), "PYTHONWARNINGS": "ignore"}
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, env=env)
        timer = threading.Timer(timeout, child.kill)
        timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        timer.cancel()
        wall = time.perf_counter() - start
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return Run(cpu, usage.ru_maxrss / 1024, wall, code, text, killed=wall >= timeout)


def refs(path: Path, out: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "citeproof",
        "refs",
        str(path),
        "--offline",
        "--no-log",
        "--no-retraction",
        "--quiet",
        "-o",
        str(out),
        "--overwrite",
    ]


def reading(path: Path) -> list[str]:
    code = (
        "import sys\nfrom citeproof.batch.bibliographies import read_jobs\n"
        f"jobs, _ = read_jobs([{str(path)!r}])\nprint(len(jobs), file=sys.stderr)\n"
    )
    return [sys.executable, "-c", code]


def judged(r: Run, *, one_line: bool) -> str:
    if r.killed:
        return f"MISSED (killed after {TIMEOUT:.0f} s)"
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    ok = r.cpu <= CPU_TARGET and r.rss_mb <= RSS_TARGET_MB and "Traceback" not in r.stderr
    ok = ok and (len(lines) == 1 if one_line else True)
    return "ok" if ok else "MISSED"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, never judged")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="kill a run after this")
    parser.add_argument("--no-runs", action="store_true", help="skip the offline runs")
    args = parser.parse_args(argv)
    globals()["TIMEOUT"] = args.timeout
    sizes = (1_000, 2_000) if args.quick else (10_000, 40_000, 100_000)
    big_bib, big_ris = (5_000, 5_000) if args.quick else (100_000, 50_000)
    missed = 0
    print(f"load average at start: {load_avg()}")
    with tempfile.TemporaryDirectory() as tmp:
        folder, home = Path(tmp), Path(tmp) / "home"
        out = folder / "out.jsonl"
        print(f"\n{'hostile input':<28} {'exit':>4} {'CPU s':>6} {'peak MB':>8}  verdict  line")
        for name, path in hostile(folder).items():
            r = run(refs(path, out), home)
            verdict = judged(r, one_line=r.code == 2)
            missed += verdict != "ok"
            line = (r.stderr.strip().splitlines() or [""])[-1][:90]
            print(f"{name:<28} {r.code:>4} {r.cpu:>6.2f} {r.rss_mb:>8.0f}  {verdict:<7}  {line}")
        print(f"\n{'reading a list':<28} {'refs':>7} {'CPU s':>6} {'peak MB':>8}  verdict")
        lists = (
            ("BibTeX", "bib", big_bib, 0.1, True),
            ("BibTeX, all names LaTeX", "bib", big_bib, 1.0, False),
            ("RIS", "ris", big_ris, 0.0, True),
        )
        for name, kind, count, in_latex, judge in lists:
            path = write_list(folder / f"list{count}.{kind}", count, kind, in_latex=in_latex)
            r = run(reading(path), home)
            verdict = judged(r, one_line=False) if judge else "(shown)"
            missed += verdict not in ("ok", "(shown)")
            label = f"{name} ({path.stat().st_size / 1e6:.0f} MB)"
            print(f"{label:<28} {r.stderr.strip():>7} {r.cpu:>6.2f} {r.rss_mb:>8.0f}  {verdict}")
            path.unlink()
        print(
            f"\n{'offline run, -o':<28} {'refs':>7} {'CPU s':>6} {'refs/s':>7} "
            f"{'peak MB':>8} {'MB/10k':>7}"
        )
        for kind in () if args.no_runs else ("bib", "ris"):
            for count in sizes if kind == "bib" else sizes[:2]:
                path = write_list(folder / f"run{count}.{kind}", count, kind)
                r = run(refs(path, out), home, timeout=1_800)
                done = sum(1 for _ in out.open(encoding="utf-8"))
                label = "BibTeX" if kind == "bib" else "RIS"
                print(
                    f"{label:<28} {done:>7} {r.cpu:>6.1f} {done / r.cpu:>7.0f} "
                    f"{r.rss_mb:>8.0f} {r.rss_mb / (count / 10_000):>7.0f}"
                    + (f"  exit {r.code}" if r.code != 3 else "")
                )
                path.unlink()
        if not args.no_runs:  # the report on stdout, written as results arrive
            count = sizes[1]
            path = write_list(folder / f"json{count}.ris", count, "ris")
            argv = [*refs(path, out)[:-3], "--json"]
            r = run(argv, home, timeout=1_800)
            print(
                f"{'RIS, --json to stdout':<28} {count:>7} {r.cpu:>6.1f} {count / r.cpu:>7.0f} "
                f"{r.rss_mb:>8.0f} {r.rss_mb / (count / 10_000):>7.0f}"
            )
    print(f"\nload average at end: {load_avg()}")
    if args.quick:
        return 0
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
