"""A build killed mid-way (SIGKILL, no clean-up at all) resumes where it stopped: the same
command finishes it, and the index holds every record once."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("tantivy", reason="the index extra (tantivy) is not installed")

from citeproof.index.query import open_index

# Builds killed and stopped mid-way, then resumed: long fault runs, left to CI.
pytestmark = pytest.mark.slow

FILES = 4
LINES = 12_000


def _dumps(folder: Path) -> list[Path]:
    """Four OpenAlex snapshot parts of INVENTED works."""
    folder.mkdir()
    paths = []
    for part in range(FILES):
        lines = []
        for i in range(LINES):
            n = part * LINES + i
            lines.append(
                json.dumps(
                    {
                        "id": f"https://openalex.org/W{n + 1}",
                        "doi": f"https://doi.org/10.5555/invented.resume.{n}",
                        "title": f"INVENTED work number {n} on resumable builds",
                        "publication_year": 2000 + n % 25,
                        "authorships": [{"author": {"display_name": f"Author {n % 97}"}}],
                        "updated_date": "2026-01-01T00:00:00",
                    }
                )
            )
        path = folder / f"part_{part:03d}.gz"
        path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode(), 1))
        paths.append(path)
    return paths


def _command(directory: Path, files: list[Path]) -> list[str]:
    return [
        sys.executable,
        "-m",
        "citeproof",
        "index",
        "build",
        str(directory),
        *map(str, files),
        "--workers",
        "2",
        "--json",
    ]


def _committed(directory: Path) -> int:
    database = directory / "index.sqlite3"
    if not database.exists():
        return 0
    try:
        connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, timeout=1)
        try:
            row = connection.execute("SELECT COALESCE(SUM(units), 0) FROM progress").fetchone()
        finally:
            connection.close()
    except sqlite3.Error:
        return 0
    return int(row[0])


def _stop_after_checkpoints(
    directory: Path, files: list[Path], sig: int
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "CITEPROOF_INDEX_CHECKPOINT": "4000"}
    process = subprocess.Popen(
        _command(directory, files),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while _committed(directory) < 8000 and process.poll() is None:
        assert time.monotonic() < deadline, "the build committed nothing in a minute"
        time.sleep(0.05)
    assert process.poll() is None, "the build finished before it could be stopped"
    os.killpg(process.pid, sig)
    out, err = process.communicate(timeout=60)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_a_killed_build_resumes_and_holds_every_record_once(tmp_path: Path) -> None:
    files = _dumps(tmp_path / "dumps")
    directory = tmp_path / "idx"
    killed = _stop_after_checkpoints(directory, files, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    assert not (directory / "manifest.json").exists()
    done = _committed(directory)
    assert 8000 <= done < FILES * LINES
    finished = subprocess.run(
        _command(directory, files), capture_output=True, timeout=120, check=False
    )
    assert finished.returncode == 0, finished.stderr.decode()
    report = json.loads(finished.stdout)
    assert report["resumed"] is True
    assert report["records_read"] == FILES * LINES - done  # the rest, not all again
    index = open_index(directory)
    assert index.manifest.counts["records"] == FILES * LINES
    assert index._searcher.num_docs == FILES * LINES  # tantivy holds no record twice
    for n in (0, LINES - 1, 2 * LINES + 5, FILES * LINES - 1):
        (record,) = index.by_identifier("doi", f"10.5555/invented.resume.{n}")
        assert record.title == f"INVENTED work number {n} on resumable builds"


def test_ctrl_c_stops_a_build_in_one_line_and_it_resumes(tmp_path: Path) -> None:
    files = _dumps(tmp_path / "dumps")
    directory = tmp_path / "idx"
    stopped = _stop_after_checkpoints(directory, files, signal.SIGINT)
    assert stopped.returncode == 130
    lines = stopped.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeproof: interrupted: the build stopped")
    assert b"Traceback" not in stopped.stderr
    finished = subprocess.run(
        _command(directory, files), capture_output=True, timeout=120, check=False
    )
    assert finished.returncode == 0, finished.stderr.decode()
    assert open_index(directory).manifest.counts["records"] == FILES * LINES


def test_a_build_stopped_while_finishing_finishes_when_run_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from index_dumps import PUBLISHED, UPDATE, publish

    from citeproof.index import build as build_module
    from citeproof.index.build import build_index, update_index

    folder = tmp_path / "dumps"
    for name, target, gzipped in PUBLISHED:
        publish(name, folder / target, gzipped)
    directory = tmp_path / "idx"

    def killed(self: object) -> None:
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(build_module._Run, "_tantivy_cleanup", killed)
        with pytest.raises(KeyboardInterrupt):
            build_index(directory, [folder])
    assert not (directory / "manifest.json").exists()
    report = build_index(directory, [folder])
    assert report.resumed and report.records == 0  # nothing read again, only finished
    index = open_index(directory)
    assert index.manifest.counts["records"] == 20
    assert index._searcher.num_docs == 20  # the merged-away OpenAlex work left tantivy
    update = publish(UPDATE[0], tmp_path / UPDATE[1], UPDATE[2])
    with monkeypatch.context() as patch:
        patch.setattr(build_module._Run, "_tantivy_cleanup", killed)
        with pytest.raises(KeyboardInterrupt):
            update_index(directory, [update])
    assert index.by_identifier("pmid", "90000005") == []  # the tables are already updated
    update_index(directory, [update])
    assert open_index(directory)._searcher.num_docs == 20 - 2 + 3 - 1
