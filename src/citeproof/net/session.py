"""How a command talks to the outside world: live, replayed from a folder, or recorded into one.

Every command that reaches a service (check, retraction, search, ...) opens its clients here,
so ``--replay DIR`` / ``CITEPROOF_REPLAY`` and ``citeproof record`` (``CITEPROOF_RECORD``) work
the same for all of them and for both kinds of client:

* the API client (:func:`~citeproof.net.client.make_client`: rate limits, retries, contact);
* the SSRF-guarded page fetcher (DOI landing pages, URLs), whose options go to
  :mod:`citeproof.sources.web` / :mod:`citeproof.sources.doi` as ``web_options``.

Under replay no request leaves the process, and host names are "resolved" to a fixed public
address so the SSRF guard's checks still run without DNS. Under recording the live answers
are written to the folder as they arrive (see :mod:`citeproof.net.record`).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import httpx2

from citeproof.errors import BadInputError
from citeproof.net import ssrf
from citeproof.net.client import api_keys, make_client
from citeproof.net.record import RecordingTransport
from citeproof.net.replay import ReplayTransport

__all__ = ["RECORD_ENV", "REPLAY_ENV", "Mode", "Session", "mode_from", "open_session"]

REPLAY_ENV: Final = "CITEPROOF_REPLAY"
RECORD_ENV: Final = "CITEPROOF_RECORD"

#: Under replay the SSRF guard still resolves host names before the (replayed) request; this
#: answer, a public address, keeps replay free of DNS.  Nothing ever connects to it.
_REPLAY_ADDRESS: Final = ["93.184.215.14"]


async def _replay_resolver(host: str, port: int) -> list[str]:
    return list(_REPLAY_ADDRESS)


@dataclass(frozen=True, slots=True)
class Mode:
    """Where answers come from: ``replay`` and ``record`` are folders, or None (live)."""

    replay: Path | None = None
    record: Path | None = None

    @property
    def live(self) -> bool:
        """True when requests go to the network (recording is live too)."""
        return self.replay is None


def mode_from(
    replay_dir: str | os.PathLike[str] | None, env: Mapping[str, str] | None = None
) -> Mode:
    """The mode for a command: its ``--replay`` option, else the environment."""
    env = os.environ if env is None else env
    if replay_dir is None:
        replay_env = env.get(REPLAY_ENV, "").strip()
        replay_dir = replay_env or None
    record_env = env.get(RECORD_ENV, "").strip()
    record = Path(record_env) if record_env else None
    replay = Path(replay_dir) if replay_dir is not None else None
    if replay is not None and record is not None:
        raise BadInputError(
            "Recording and replaying at once is not possible: drop --replay (or "
            f"{REPLAY_ENV}) when running under `citeproof record`."
        )
    if replay is not None and not replay.is_dir():
        raise BadInputError(
            f"The replay folder {replay} does not exist; give a folder of recorded responses."
        )
    return Mode(replay=replay, record=record)


@dataclass(slots=True)
class Session:
    """The API client and the page-fetcher options of one command run."""

    client: httpx2.AsyncClient
    web_options: dict[str, Any] = field(default_factory=dict)
    mode: Mode = field(default_factory=Mode)


def _utc_now() -> datetime:
    return datetime.now(UTC)


@asynccontextmanager
async def open_session(
    mode: Mode, *, now: Callable[[], datetime] = _utc_now, **client_options: Any
) -> AsyncIterator[Session]:
    """Open the clients for ``mode``; ``client_options`` go to ``make_client`` (tests)."""
    web_options: dict[str, Any] = {}
    transport: httpx2.AsyncBaseTransport | None = None
    if mode.replay is not None:
        replay = ReplayTransport.from_folder(mode.replay, skip_incomplete=True)
        transport = replay
        web_options = {"transport": replay, "resolver": _replay_resolver}
        # A recorded failure fails again at once: backing off from a recording waits for
        # nothing (a recorded Retry-After is still honoured, as are the rate limits).
        client_options.setdefault("base_backoff", 0.0)
    elif mode.record is not None:
        contact = os.environ.get("CITEPROOF_CONTACT", "").strip() or None
        secrets = api_keys()
        transport = RecordingTransport(mode.record, now=now, contact=contact, secrets=secrets)

        web_options = {
            "transport": RecordingTransport(mode.record, now=now, contact=contact, secrets=secrets),
            "resolver": ssrf.default_resolver,  # looked up now, so tests can replace it
        }
    async with make_client(transport=transport, **client_options) as client:
        yield Session(client=client, web_options=web_options, mode=mode)
