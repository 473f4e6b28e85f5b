"""Live, replayed or recorded: how commands choose, and the recording transport's rules."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import httpx2
import pytest

from citeproof.errors import BadInputError, BodyTooLargeError
from citeproof.net.record import RecordingTransport, recording_name
from citeproof.net.recordings import load_folder
from citeproof.net.replay import original_url
from citeproof.net.session import Mode, mode_from

WHEN = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def test_the_option_wins_over_the_environment(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    mode = mode_from(tmp_path, {"CITEPROOF_REPLAY": str(other)})
    assert mode == Mode(replay=tmp_path)
    assert not mode.live
    assert mode_from(None, {"CITEPROOF_REPLAY": str(other)}) == Mode(replay=other)
    assert mode_from(None, {"CITEPROOF_REPLAY": "  "}) == Mode()
    assert mode_from(None, {}).live


def test_record_and_replay_together_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="Recording and replaying"):
        mode_from(tmp_path, {"CITEPROOF_RECORD": str(tmp_path / "rec")})
    assert mode_from(None, {"CITEPROOF_RECORD": str(tmp_path)}) == Mode(record=tmp_path)


def test_a_missing_replay_folder_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInputError, match="does not exist"):
        mode_from(tmp_path / "nope", {})


def test_recording_names_are_stable_and_ignore_parameter_order_and_contact() -> None:
    a = recording_name("GET", "https://api.example.org/works?b=2&a=1&mailto=x%40y.org")
    b = recording_name("GET", "https://API.example.org/works?a=1&b=2")
    assert a == b
    assert a.startswith("api-example-org-works-")
    assert recording_name("GET", "https://api.example.org/works?a=2") != a
    assert recording_name("POST", "https://api.example.org/works?a=1&b=2") != a


def test_original_url_uses_the_host_header_of_a_pinned_request() -> None:
    pinned = httpx2.Request("GET", "https://93.184.215.14/a/b?x=1", headers={"Host": "example.org"})
    assert original_url(pinned) == "https://example.org/a/b?x=1"
    plain = httpx2.Request("GET", "https://example.org:8443/a")
    assert original_url(plain) == "https://example.org:8443/a"


def _send(transport: RecordingTransport, url: str) -> httpx2.Response:
    async def go() -> httpx2.Response:
        response = await transport.handle_async_request(httpx2.Request("GET", url))
        await transport.aclose()
        return response

    return asyncio.run(go())


def test_the_contact_address_and_cookies_never_reach_the_folder(tmp_path: Path) -> None:
    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers={"set-cookie": "session=1", "content-type": "text/plain"}, content=b"ok"
        )

    transport = RecordingTransport(
        tmp_path,
        inner=lambda host: httpx2.MockTransport(answer),
        now=lambda: WHEN,
        contact="me@example.org",
        secrets=["SECRETKEY"],
    )
    response = _send(
        transport, "https://eutils.example.org/efetch?id=1&email=me%40example.org&api_key=SECRETKEY"
    )
    assert response.content == b"ok"
    (recording,) = load_folder(tmp_path)
    assert recording.url == "https://eutils.example.org/efetch?id=1"
    assert "set-cookie" not in recording.headers
    for path in tmp_path.iterdir():
        text = path.read_text()
        assert "me@example.org" not in text and "SECRETKEY" not in text


def test_an_over_cap_body_is_not_recorded(tmp_path: Path) -> None:
    transport = RecordingTransport(
        tmp_path,
        inner=lambda host: httpx2.MockTransport(lambda r: httpx2.Response(200, content=b"x" * 50)),
        now=lambda: WHEN,
        max_body=10,
    )
    with pytest.raises(BodyTooLargeError):
        _send(transport, "https://example.org/big")
    assert list(tmp_path.iterdir()) == []
