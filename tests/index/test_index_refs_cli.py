"""``citeproof refs --index DIR`` (and ``CITEPROOF_INDEX``), and the ``--html`` page, from the
command line: one-line refusals, the index asked offline, the page written beside them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import CliRun

ENTRY = (
    "Müller K, Okafor C. Compost temperature and earthworm density in invented allotments. "
    "J Invent Soil Ecol. 2019;12:101-109. doi:10.5555/invented.idx.1\n"
)


def test_refs_offline_with_an_index_verifies_from_it(
    run_cli: CliRun, built: Path, tmp_path: Path
) -> None:
    listed = tmp_path / "refs.txt"
    listed.write_text(ENTRY, encoding="utf-8")
    run = run_cli("refs", listed, "--index", built, "--offline", "--no-log", "--json")
    assert run.exit_code == 0, run.output
    assert '"verdict": "verified"' in run.stdout and '"service": "index"' in run.stdout


def test_the_index_variable_names_it_too(
    run_cli: CliRun, built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_INDEX", str(built))
    listed = tmp_path / "refs.txt"
    listed.write_text(ENTRY, encoding="utf-8")
    run = run_cli("refs", listed, "--offline", "--no-log", "--json")
    assert run.exit_code == 0, run.output


def test_a_missing_index_is_one_line(run_cli: CliRun, tmp_path: Path) -> None:
    listed = tmp_path / "refs.txt"
    listed.write_text(ENTRY, encoding="utf-8")
    run = run_cli("refs", listed, "--index", tmp_path / "nope", "--no-log")
    assert run.exit_code == 2
    assert run.stderr.count("\n") == 1 and "no local index" in run.stderr


def test_the_html_page_is_written_and_never_over_an_input(
    run_cli: CliRun, built: Path, tmp_path: Path
) -> None:
    listed = tmp_path / "refs.txt"
    listed.write_text(ENTRY, encoding="utf-8")
    page = tmp_path / "refs.html"
    args = ["refs", str(listed), "--index", str(built), "--offline", "--no-log", "--json"]
    run = run_cli(*args, "--html", page)
    assert run.exit_code == 0, run.output
    assert page.is_file() and 'content="references"' in page.read_text(encoding="utf-8")
    again = run_cli(*args, "--html", listed)
    assert again.exit_code == 2 and "is the input" in again.stderr
    assert listed.read_text(encoding="utf-8") == ENTRY
