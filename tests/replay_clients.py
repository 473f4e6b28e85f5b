"""Clients for source and search tests: the real ``make_client`` stack on an injected
transport, with a fake clock so retries and rate limits cost no time.

One copy for every test directory (``from replay_clients import ...``, as ``pmc_replay``):
the same client, corpus paths and skip reason were once written out in each test module.
Corpus helpers skip, with the reason, when ``../shared/corpus`` is not beside the repository.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import httpx2
import pytest

from citeproof.net.client import make_client
from citeproof.net.ratelimit import RateLimiter
from citeproof.net.recordings import Recording, load_tekmeria
from citeproof.net.replay import ReplayTransport

__all__ = [
    "CONTACT",
    "CORPUS",
    "LITCHECK",
    "MISSING",
    "TEKMERIA",
    "FakeTime",
    "built_recording",
    "fake_client",
    "litcheck_replay",
    "needs_corpus",
    "run",
    "run_with_contact",
    "tekmeria_replay",
]

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
LITCHECK = CORPUS / "litcheck-fixtures"
TEKMERIA = CORPUS / "tekmeria-fixtures"
CONTACT = "me@example.org"
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)

T = TypeVar("T")


class FakeTime:
    """Clock and sleep for the client: sleeping advances the clock instantly."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def fake_client(
    transport: httpx2.AsyncBaseTransport,
    *,
    contact: str = "",
    api_key: str = "",
    fake: FakeTime | None = None,
    **options: Any,
) -> httpx2.AsyncClient:
    """A ``make_client`` client on ``transport`` with fake time and a private rate limiter."""
    fake = fake or FakeTime()
    return make_client(
        transport=transport,
        contact=contact,
        api_key=api_key,
        clock=fake,
        sleep=fake.sleep,
        limiter=RateLimiter(clock=fake, sleep=fake.sleep),
        **options,
    )


def run(
    transport: httpx2.AsyncBaseTransport,
    call: Callable[[httpx2.AsyncClient], Coroutine[Any, Any, T]],
    *,
    contact: str = "",
    api_key: str = "",
) -> T:
    """``call`` on a :func:`fake_client` over ``transport``, run to completion."""

    async def go() -> T:
        async with fake_client(transport, contact=contact, api_key=api_key) as client:
            return await call(client)

    return asyncio.run(go())


def run_with_contact(
    transport: httpx2.AsyncBaseTransport,
    call: Callable[[httpx2.AsyncClient], Coroutine[Any, Any, T]],
) -> T:
    """:func:`run` with :data:`CONTACT` as the contact address, for tests that check it goes
    on the wire (and never into a record)."""
    return run(transport, call, contact=CONTACT)


def built_recording(
    name: str,
    url: str,
    body: bytes,
    *,
    status: int = 200,
    content_type: str,
    method: str = "GET",
) -> Recording:
    """A Recording built in the test (from a corpus body whose URL the MANIFEST gives, or a
    body the test writes), hashed so the replay transport accepts it."""
    return Recording(
        method=method,
        url=url,
        status=status,
        headers={"content-type": content_type},
        body=body,
        body_sha256=hashlib.sha256(body).hexdigest(),
        date=None,
        name=name,
    )


def litcheck_replay() -> ReplayTransport:
    """Every litcheck recording in the corpus (the one without a body is left out)."""
    if not LITCHECK.is_dir():
        pytest.skip(MISSING)
    return ReplayTransport.from_folder(LITCHECK, skip_incomplete=True)


def tekmeria_replay(*names: str) -> ReplayTransport:
    """The named tekmeria recordings, or the whole folder when no name is given."""
    if not TEKMERIA.is_dir():
        pytest.skip(MISSING)
    if not names:
        return ReplayTransport.from_folder(TEKMERIA)
    return ReplayTransport([load_tekmeria(TEKMERIA / f"{name}.json") for name in names])
