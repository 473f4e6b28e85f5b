"""``citeproof record DIR COMMAND``: live answers written in the format replay reads.

"Live" here is a stand-in: :func:`citeproof.net.record.live_transport` is replaced by a
transport serving prepared answers (and the SSRF guard's resolver by one answering a public
address), so the whole recording path runs — retries, contact parameters, the SSRF guard,
decoding — without any connection.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path
from typing import TYPE_CHECKING

import httpx2
import pytest

from citeproof.net import record as record_module
from citeproof.net import ssrf
from citeproof.net.recordings import load_folder
from citeproof.net.replay import ReplayTransport
from pmc_replay import QUOTE, jats, pmc_replay

if TYPE_CHECKING:
    from conftest import CliRun

CONTACT = "maintainer@example.org"
PAGE = b"<html><body><p>The quick brown fox jumps over the lazy dog, said the page.</p></body>"


@pytest.fixture(autouse=True)
def _contact_and_a_public_resolver(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the shared ``home``, with a contact address, every host resolving to a public
    address (the SSRF guard lets it through; the transport never leaves the process)."""
    monkeypatch.setenv("CITEPROOF_CONTACT", CONTACT)

    async def public(host: str, port: int) -> list[str]:
        return ["93.184.215.14"]

    monkeypatch.setattr(ssrf, "default_resolver", public)


def serve_from(folder: Path, monkeypatch: pytest.MonkeyPatch, seen: list[str]) -> None:
    """Make "live" answers come from ``folder``, noting each URL as the service saw it."""
    replay = ReplayTransport.from_folder(folder)

    class Live(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            seen.append(str(request.url))
            return await replay.handle_async_request(request)

    monkeypatch.setattr(record_module, "live_transport", lambda host: Live())


def test_record_a_check_then_replay_it(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    serve_from(pmc_replay(tmp_path / "live"), monkeypatch, seen)
    out = tmp_path / "fixtures"
    result = run_cli("record", out, "check", "--json", "--no-retraction", QUOTE, "PMC3166277")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verdict"] == "EXACT"
    assert "recorded 4 response(s)" in result.stderr
    assert any(CONTACT.replace("@", "%40") in url or CONTACT in url for url in seen)

    recordings = load_folder(out)
    assert len(recordings) == 4
    for path in out.iterdir():  # the contact address went to the service, never to disk
        assert CONTACT not in path.read_text(encoding="utf-8", errors="replace")
    xml = next(r for r in recordings if r.url.endswith(".xml"))
    assert hashlib.sha256(xml.body).hexdigest() == hashlib.sha256(jats()).hexdigest()

    # The recording alone answers the same check, with no "live" transport at all.
    monkeypatch.setattr(record_module, "live_transport", None)
    again = run_cli("check", "--json", QUOTE, "PMC3166277", "--replay", out, "--refresh")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["source"]["sha256"] == hashlib.sha256(jats()).hexdigest()


def test_recording_ignores_the_cache(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []
    live = pmc_replay(tmp_path / "live")
    assert run_cli("check", "--json", QUOTE, "PMC3166277", "--replay", live).exit_code == 0
    serve_from(live, monkeypatch, seen)
    result = run_cli(
        "record", tmp_path / "fixtures", "check", "--json", "--no-retraction", QUOTE, "PMC3166277"
    )
    assert result.exit_code == 0
    assert len(seen) == 4  # pinned, yet fetched again: a cached copy records nothing


def test_a_page_is_recorded_under_its_host_name(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[httpx2.Request] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        sent.append(request)
        body = gzip.compress(PAGE)
        headers = {"content-type": "text/html", "content-encoding": "gzip"}
        return httpx2.Response(200, headers=headers, content=body)

    monkeypatch.setattr(record_module, "live_transport", lambda host: httpx2.MockTransport(answer))
    out = tmp_path / "fixtures"
    url = "https://example.org/article?id=7"
    result = run_cli(
        "record", out, "check", "--json", "quick brown fox jumps over the lazy dog", url
    )
    assert result.exit_code == 0, result.output
    # The SSRF guard connected to the checked address; the record names the host.
    assert sent[0].url.host == "93.184.215.14"
    (recording,) = load_folder(out)
    assert recording.url == url
    assert recording.body == PAGE  # decoded, and the header saying gzip is gone
    assert "content-encoding" not in recording.headers

    monkeypatch.setattr(record_module, "live_transport", None)
    quote = "quick brown fox jumps over the lazy dog"
    again = run_cli("check", "--json", quote, url, "--replay", out, "--refresh")
    assert json.loads(again.stdout)["verdict"] == "EXACT"


def test_a_failed_answer_is_recorded_too(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unavailable(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(503, headers={"retry-after": "0"}, content=b"busy")

    monkeypatch.setattr(
        record_module, "live_transport", lambda host: httpx2.MockTransport(unavailable)
    )
    out = tmp_path / "fixtures"
    result = run_cli("record", out, "check", "--json", "words", "https://example.org/x")
    assert result.exit_code == 3
    assert json.loads(result.stdout)["verdict"] == "UNAVAILABLE"
    (recording,) = load_folder(out)  # three attempts, one request: one file
    assert recording.status == 503
    replayed = run_cli("check", "--json", "words", "https://example.org/x", "--replay", out)
    assert json.loads(replayed.stdout)["verdict"] == "UNAVAILABLE"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["cache", "ls"], "makes no request"),
        (["record", "x", "check"], "makes no request"),
        (["check", "q", "PMC1", "--offline"], "--offline"),
        (["check", "q", "PMC1", "--replay", "."], "replaying at once"),
    ],
)
def test_commands_that_cannot_be_recorded_are_refused(
    run_cli: CliRun, tmp_path: Path, args: list[str], message: str
) -> None:
    result = run_cli("record", tmp_path / "fixtures", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert not (tmp_path / "fixtures").exists()


def test_replay_in_the_environment_is_refused(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEPROOF_REPLAY", str(tmp_path))
    result = run_cli("record", tmp_path / "fixtures", "check", "q", "PMC1")
    assert result.exit_code == 2
    assert "CITEPROOF_REPLAY" in result.stderr


@pytest.mark.slow
def test_a_run_recorded_without_network_replays_as_unavailable(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recorded while nothing answered, a check replayed as exit 2 "was not recorded; fix
    the request the code builds"; docs/cli.md promised the same UNAVAILABLE."""

    class Unreachable(httpx2.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
            raise httpx2.ConnectError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(record_module, "live_transport", lambda host: Unreachable())
    out = tmp_path / "fixtures"
    live = run_cli(
        "record", out, "check", "--json", "--no-retraction", "--no-log", QUOTE, "PMC3166277"
    )
    assert live.exit_code == 3, live.output
    failures = load_folder(out)
    assert failures and all(r.error is not None and r.status == 0 for r in failures)
    assert {r.error[0] for r in failures if r.error} == {"ConnectError"}

    monkeypatch.setattr(record_module, "live_transport", None)  # the replay needs nothing live
    again = run_cli(
        "check", "--json", "--no-retraction", "--no-log", "--replay", out, QUOTE, "PMC3166277"
    )
    assert again.exit_code == 3, again.output
    result = json.loads(again.stdout)
    assert result["verdict"] == "UNAVAILABLE"
    assert "ConnectError" in result["reason"]
    assert "not recorded" not in again.output
