"""``citeproof refs`` with no network, and what it says before and instead of working.

Without a network every question failed only after its retries: 18 references took 33
seconds to print the same connection error 18 times.  Now a run stops asking once three
references in a row found every service unreachable, says so in one line with what to do,
and exits 3; each reference not asked is ``unavailable`` (never ``not_found``) in the JSON,
and is left out of ``-o`` so that ``--resume`` asks it later.

No test touches the network: the session's client is a ``make_client`` client (fake clock,
so retries cost no time) over a transport that refuses to connect, or over the invented
world of ``tests/refs_world.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2
import pytest

import citeproof.service.references as references
from citeproof.errors import UpstreamUnavailableError
from citeproof.net.session import Session
from citeproof.refs.verification import NOT_ASKED, Reachability
from refs_world import RECORDINGS, REFERENCES, handler
from replay_clients import fake_client, run

if TYPE_CHECKING:
    from conftest import CliRun

# Eighteen references of the invented world, each named apart (the JSONL ids must differ).
NAMES = ("verified", "mismatch", "found_by_search", "not_found", "partial", "ambiguous")
EIGHTEEN = [(f"{name}-{n}", REFERENCES[name]) for n in range(3) for name in NAMES]


class Refusing(httpx2.AsyncBaseTransport):
    """No network at all: every connection fails; counts the attempts."""

    def __init__(self, refuse: Callable[[httpx2.Request], bool] = lambda _: True) -> None:
        self.refuse = refuse
        self.attempts = 0
        self.world = httpx2.MockTransport(handler)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if self.refuse(request):
            self.attempts += 1
            raise httpx2.ConnectError("[Errno -3] Temporary failure in name resolution")
        return await self.world.handle_async_request(request)


def _through(monkeypatch: pytest.MonkeyPatch, transport: httpx2.AsyncBaseTransport) -> None:
    """Every session the reference service opens talks to ``transport``."""

    @asynccontextmanager
    async def session(mode: object, **options: object) -> AsyncIterator[Session]:
        async with fake_client(transport) as client:
            yield Session(client=client)

    monkeypatch.setattr(references, "open_session", session)


def _jsonl(path: Path, items: list[tuple[str, str]] = EIGHTEEN) -> Path:
    lines = [json.dumps({"id": ident, "reference": text}) for ident, text in items]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# ------------------------------------------------------------------------------ no network


def test_without_a_network_refs_stops_asking_and_says_so_in_one_line(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refusing = Refusing()
    _through(monkeypatch, refusing)
    out = tmp_path / "out.jsonl"
    result = run_cli(
        "refs", _jsonl(tmp_path / "in.jsonl"), "-o", out, "--no-retraction", "--no-log"
    )
    assert result.exit_code == 3, result.output
    said = [line for line in result.stderr.splitlines() if "could be reached" in line]
    assert len(said) == 1, result.stderr
    assert "--offline" in said[0] and "--replay DIR" in said[0] and "--resume" in said[0]
    assert "Traceback" not in result.output
    written = [json.loads(line) for line in out.read_text().splitlines()]
    # The references asked before it gave up are written; the rest are left for --resume.
    assert 3 <= len(written) < len(EIGHTEEN)
    assert all(w["verdict"] == "unavailable" and w["asked"] for w in written)
    # Each reference asks up to 6 questions, each tried 3 times: 18 of them would be 324.
    assert refusing.attempts < 8 * 6 * 3


def test_the_references_not_asked_are_unavailable_in_the_json(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _through(monkeypatch, Refusing())
    result = run_cli("refs", _jsonl(tmp_path / "in.jsonl"), "--json", "--no-retraction", "--no-log")
    assert result.exit_code == 3
    report = json.loads(result.stdout)
    assert len(report["references"]) == len(EIGHTEEN)
    assert {r["verdict"] for r in report["references"]} == {"unavailable"}
    skipped = [r for r in report["references"] if not r["asked"]]
    assert skipped and all(r["reason"] == NOT_ASKED for r in skipped)
    assert report["counts"]["unavailable"] == len(EIGHTEEN)


def test_resume_asks_what_was_not_asked(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inp, out = _jsonl(tmp_path / "in.jsonl"), tmp_path / "out.jsonl"
    with monkeypatch.context() as offline:
        _through(offline, Refusing())
        assert (
            run_cli("refs", inp, "-o", out, "--no-retraction", "--no-log", "--quiet").exit_code == 3
        )
    first = len(out.read_text().splitlines())
    result = run_cli(
        "refs",
        inp,
        "-o",
        out,
        "--resume",
        "--replay",
        RECORDINGS,
        "--no-retraction",
        "--no-log",
        "--quiet",
    )
    assert result.exit_code == 1, result.output  # the world's mismatches and not_founds
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert sorted(ids) == sorted(ident for ident, _ in EIGHTEEN)
    assert len(ids) == len(EIGHTEEN) > first


def test_one_service_down_is_not_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """doi.org refusing connections is an outage of one service: every reference is still
    asked, and the others' answers still decide."""
    refusing = Refusing(lambda request: request.url.host == "doi.org")
    _through(monkeypatch, refusing)
    reach = Reachability()
    report = references.verify_stated(
        [references.stated_reference(text) for _, text in EIGHTEEN],
        retraction=False,
        reach=reach,
    )
    assert not reach.gave_up
    assert all(r.asked for r in report.references)
    assert "verified" in {r.verdict for r in report.references}


@pytest.mark.parametrize(
    ("fail", "unreachable"),
    [
        (httpx2.ConnectError("no route to host"), True),
        (httpx2.ConnectTimeout("connect timed out"), True),
        (httpx2.ReadTimeout("read timed out"), False),
        (None, False),  # 503 on every attempt: the service is there, and down
    ],
)
def test_the_client_tells_no_connection_from_an_outage(
    fail: Exception | None, unreachable: bool
) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        if fail is not None:
            raise fail
        return httpx2.Response(503, request=request)

    async def call(client: httpx2.AsyncClient) -> Any:
        return await client.get("https://api.crossref.org/works/10.5555/x")

    with pytest.raises(UpstreamUnavailableError) as caught:
        run(httpx2.MockTransport(answer), call)
    assert caught.value.unreachable is unreachable


# ------------------------------------------------------------------------ what it says first


def test_the_count_comes_before_the_work(run_cli: CliRun, tmp_path: Path) -> None:
    result = run_cli(
        "refs",
        _jsonl(tmp_path / "in.jsonl", EIGHTEEN[:6]),
        "--replay",
        RECORDINGS,
        "--no-retraction",
        "--no-log",
        "--json",
    )
    assert result.stderr.splitlines()[0] == (
        f"citeproof: 6 references in {tmp_path / 'in.jsonl'}; checking..."
    )
    json.loads(result.stdout)  # the JSON is untouched


def test_a_folder_is_named_as_a_folder(run_cli: CliRun, tmp_path: Path) -> None:
    folder = tmp_path / "adir"
    folder.mkdir()
    result = run_cli("refs", folder)
    assert result.exit_code == 2
    assert result.stderr.strip().startswith(f"citeproof: error: {folder} is a folder;")
    assert "*.bib" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_missing_file_is_refused_before_anything_heavy_is_imported(tmp_path: Path) -> None:
    # The batch driver's refusals (batch.driver, batch.output) import the standard library only.
    code = (
        "import sys\n"
        "from citeproof.cli import cli\n"
        "try:\n"
        f"    cli.main(['refs', {str(tmp_path / 'nosuchfile.bib')!r}])\n"
        "except SystemExit as stop:\n"
        "    light = {'citeproof.batch', 'citeproof.batch.driver', 'citeproof.batch.output'}\n"
        "    print(stop.code, sorted(m for m in sys.modules if m not in light and m.startswith(\n"
        "        ('citeproof.refs', 'citeproof.batch', 'citeproof.service', 'pydantic',\n"
        "         'httpx2', 'bibtexparser'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.split(maxsplit=1) == ["2", "[]\n"], done.stdout + done.stderr
    assert "does not exist" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_the_table_does_not_repeat_why_for_each_reference_not_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from citeproof.cli.refs import _render

    _through(monkeypatch, Refusing())
    report = references.verify_stated(
        [references.stated_reference(text) for _, text in EIGHTEEN], retraction=False
    )
    _render(report)
    shown = capsys.readouterr().out
    assert shown.count("Not asked.") == sum(1 for r in report.references if not r.asked) > 0
    assert "stopped asking" not in shown


def test_a_long_list_says_it_is_being_read_before_the_count(
    run_cli: CliRun, tmp_path: Path
) -> None:
    big = tmp_path / "big.bib"
    abstract = "invented words " * 700_000
    big.write_text(f"@article{{k,\n  title = {{An invented title}},\n  abstract = {{{abstract}}}}}")
    result = run_cli("refs", big, "--offline", "--no-log", "--no-retraction", "--json")
    assert result.stderr.splitlines()[:2] == [
        f"citeproof: reading {big} (11 MB)...",
        f"citeproof: 1 reference in {big}; checking...",
    ]


def test_the_json_is_written_as_results_arrive_and_is_the_whole_report(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--json`` prints each result as it arrives (memory flat in the count, as with -o),
    and what it prints is byte for byte the report ``write_json`` prints whole."""
    from citeproof.cli import _common
    from citeproof.models.references import ReferencesReport

    kept: list[bytes] = []
    real = _common.write_json

    def whole(obj: Any, **kw: Any) -> None:
        kept.append(b"whole")
        real(obj, **kw)

    monkeypatch.setattr(_common, "write_json", whole)
    inp = _jsonl(tmp_path / "in.jsonl", EIGHTEEN[:6])
    result = run_cli("refs", inp, "--replay", RECORDINGS, "--no-retraction", "--no-log", "--json")
    assert result.exit_code == 1 and not kept  # streamed, not dumped at the end
    report = ReferencesReport.model_validate_json(result.stdout)
    assert len(report.references) == 6 and report.counts.total == 6
    assert report.source == str(inp) and report.format == "jsonl"
    again = json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2) + "\n"
    assert result.stdout == again


def test_the_json_of_nothing_asked_is_the_whole_report(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _through(monkeypatch, Refusing())
    result = run_cli("refs", _jsonl(tmp_path / "in.jsonl"), "--json", "--no-retraction", "--no-log")
    report = json.loads(result.stdout)
    assert result.stdout == json.dumps(report, ensure_ascii=False, indent=2) + "\n"
    assert [r["index"] for r in report["references"]] == list(range(1, len(EIGHTEEN) + 1))
