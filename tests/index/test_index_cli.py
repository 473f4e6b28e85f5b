"""``citeproof index build|update|info``: output, exit codes, one-line errors, and the one
line that names the extra when tantivy is not installed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import CliRun

needs_tantivy = pytest.mark.skipif(
    __import__("importlib").util.find_spec("tantivy") is None,
    reason="the index extra (tantivy) is not installed",
)


def _run(run_cli: CliRun, *args: str) -> tuple[int, str, str]:
    result = run_cli(*args, prog_name="citeproof")
    return result.exit_code, result.stdout, result.stderr


@needs_tantivy
def test_build_update_and_info(
    run_cli: CliRun,
    published: Path,
    update_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # JSON only when asked: the runner's stdout is no terminal, so pretend it is one.
    monkeypatch.setattr("citeproof.cli._common.want_json", lambda flag: flag)
    directory = str(tmp_path / "idx")
    code, out, err = _run(run_cli, "index", "build", directory, str(published), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["files_read"] == 8 and report["manifest"]["counts"]["records"] == 20
    code, out, _ = _run(run_cli, "index", "update", directory, str(update_file))
    assert code == 0
    assert out.startswith("Update of ") and "manifest sha256 " in out
    assert "Holds Crossref 2025 + PubMed baseline 2026" in out
    code, out, _ = _run(run_cli, "index", "info", directory, "--json")
    info = json.loads(out)
    assert code == 0 and len(info["hash"]) == 64 and info["counts"]["replaced_or_deleted"] == 4
    assert [f["name"] for f in info["files"]][-1] == "pubmed26n0002.xml.gz"
    code, out, _ = _run(run_cli, "index", "info", directory)
    assert code == 0 and "pubmed: 2 files" in out


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["index", "build", "{tmp}/idx", "{tmp}/notes.txt"], 2, "is not a metadata dump"),
        (["index", "build", "{tmp}/idx", "{tmp}/missing.gz"], 2, "does not exist"),
        (["index", "build", "{tmp}/full", "{published}"], 2, "is not empty"),
        (["index", "update", "{tmp}/idx", "{published}"], 2, "no local index to update"),
        (["index", "info", "{tmp}/full"], 3, "holds no finished local index"),
        (["index", "info", "{tmp}/nowhere"], 2, "does not exist"),
        (["index", "build", "{tmp}/idx"], 2, "Missing argument 'FILES...'"),
    ],
)
def test_bad_input_is_one_line(
    args: list[str], code: int, words: str, published: Path, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("not a dump")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "thesis.tex").write_text("mine")
    argv = [a.format(tmp=tmp_path, published=published) for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "citeproof", *argv], capture_output=True, timeout=60, check=False
    )
    stderr = done.stderr.decode()
    assert done.returncode == code, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("citeproof: error: "), stderr
    assert words in stderr


_WITHOUT_TANTIVY = (
    "import sys; sys.modules['tantivy'] = None; from citeproof.cli import main; main(sys.argv[1:])"
)


def test_without_the_extra_build_says_what_to_install_and_info_still_reads(
    built: Path, published: Path, tmp_path: Path
) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _WITHOUT_TANTIVY,
            "index",
            "build",
            str(tmp_path / "idx"),
            str(published),
        ],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "citeproof: error: the local index needs the index extra, which is not installed: "
        'pip install "citeproof[index]".\n'
    )
    info = subprocess.run(
        [sys.executable, "-c", _WITHOUT_TANTIVY, "index", "info", str(built), "--json"],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert info.returncode == 0 and json.loads(info.stdout)["counts"]["records"] == 20
    probe = (
        "import sys; sys.modules['tantivy'] = None\n"
        "from citeproof.service.indexing import open_index\n"
        "try:\n    open_index(sys.argv[1])\n"
        "except Exception as e:\n    print(type(e).__name__, e)"
    )
    opened = subprocess.run(
        [sys.executable, "-c", probe, str(built)],
        capture_output=True,
        timeout=60,
        check=False,
        text=True,
    )
    assert opened.stdout.startswith("CiteproofError the local index needs the index extra")
