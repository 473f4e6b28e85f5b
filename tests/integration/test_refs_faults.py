"""A service that fails, throttles or answers nonsense never makes a reference look worse.

Every reference the reference tests use is verified against the invented world
(``tests/refs_world.py``) once with every service healthy, then once per service and kind of
fault, with that one service's every answer replaced: a failure (HTTP 500), throttling (HTTP
429 with a ``Retry-After`` past what citeproof waits), or a malformed body (HTTP 200, a JSON
document cut short).  What the faulty answer could not say is not said: a verdict either
stays what the healthy world gave (the faulty service was not needed) or becomes
``unavailable``; never ``not_found``, ``unresolvable``, ``mismatch``, ``partial`` or
``verified`` where the healthy world said otherwise.  And an absence (``not_found``,
``unresolvable``) that relied on the service's answer is ``unavailable`` once that answer is
bad.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import httpx2
import pytest

from citeproof.models.references import ReferenceResult
from refs_world import API_KEY, CONTACT, WORLD, _limiter, _no_sleep, stated_inputs

#: Each service by the host it is asked at, and its name in a result's ``asked``.
SERVICES = {
    "doi.org": "doi.org",
    "api.crossref.org": "crossref",
    "api.datacite.org": "datacite",
    "eutils.ncbi.nlm.nih.gov": "pubmed",
    "pmc.ncbi.nlm.nih.gov": "pubmed",
    "api.openalex.org": "openalex",
}
FAULTS: dict[str, Callable[[httpx2.Request], httpx2.Response]] = {
    "failed": lambda request: httpx2.Response(500, text="Internal Server Error"),
    "throttled": lambda request: httpx2.Response(
        429, headers={"Retry-After": "3600"}, text="Too Many Requests"
    ),
    "malformed": lambda request: httpx2.Response(
        200,
        headers={"Content-Type": "application/json"},
        text='{"status": "ok", "message": {"items": [{"DOI": "10.5555/inv',
    ),
}
#: Verdicts that state something about the work; a bad answer may never produce one anew.
STATEMENTS = {"not_found", "unresolvable", "mismatch", "partial", "verified"}
ABSENCES = {"not_found", "unresolvable"}


def _verify(
    handle: Callable[[httpx2.Request], httpx2.Response],
) -> list[ReferenceResult]:
    from citeproof.net.client import make_client
    from citeproof.refs.verification import verify_all

    async def run() -> list[ReferenceResult]:
        async with make_client(
            transport=httpx2.MockTransport(handle),
            contact=CONTACT,
            api_key=API_KEY,
            limiter=_limiter(),
            sleep=_no_sleep,
        ) as client:
            return await verify_all(client, stated_inputs(), retraction=None)

    return asyncio.run(run())


def _at(url: str) -> str:
    return httpx2.URL(url).host


@pytest.fixture(scope="module")
def healthy() -> list[ReferenceResult]:
    return _verify(WORLD.handle)


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("host", sorted(SERVICES))
def test_a_bad_answer_is_never_read_as_a_finding(
    healthy: list[ReferenceResult], host: str, fault: str
) -> None:
    def handle(request: httpx2.Request) -> httpx2.Response:
        if request.url.host == host:
            return FAULTS[fault](request)
        return WORLD.handle(request)

    faulty = _verify(handle)
    service = SERVICES[host]
    touched = 0
    for before, after in zip(healthy, faulty, strict=True):
        shown = (before.stated.title or before.stated.text)[:60]
        if after.verdict != before.verdict:
            assert after.verdict == "unavailable", (shown, before.verdict, after.verdict)
            assert after.verdict not in STATEMENTS
        relied = any(_at(r.url) == host for a in before.asked for r in a.responses)
        if relied and before.verdict in ABSENCES:
            assert after.verdict == "unavailable", (shown, before.verdict, after.verdict)
        if any(a.service == service and a.status == "failed" for a in after.asked):
            touched += 1
    # The fault reached the references: the test is not vacuous.
    assert touched > 0, f"no reference asked {host}"
