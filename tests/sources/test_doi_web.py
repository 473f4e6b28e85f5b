"""DOI landing pages and user-given web pages, fetched through the SSRF guard, offline.

No connection is ever opened: the resolver is injected (doi.org, www.science.org and
example.org map to public-looking addresses, so the guard's checks run as in production) and
the inner transport under ``SafeTransport`` is an ``httpx2.MockTransport`` that routes on the
``Host`` header, because ``SafeTransport`` rewrites the URL host to the checked address.

Bodies are corpus recordings where one exists: the doi.org 404 page
(``html/habanero-doi-org-10.1126-foo.404.html``), a real article page standing in for a
publisher landing page (``html/wikipedia-Duck.html``: any real-world HTML page does, since the
point is that the bytes served become an HTML Document), and a real PDF
(``pdf/N18-3011.pdf``). Corpus tests skip with a reason when ``../shared/corpus`` is absent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from citeproof.documents import parse
from citeproof.errors import BadInputError
from citeproof.net.ssrf import UnsafeURLError
from citeproof.sources.base import SourceOutcome
from citeproof.sources.doi import doi_url, fetch_doi_landing
from citeproof.sources.web import fetch_page

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
MISSING = "../shared/corpus not found: corpus tests need the shared corpus beside the repository"

#: Public-looking addresses (global unicast, outside documentation/benchmark ranges); nothing
#: connects to them, the MockTransport answers instead.
ADDRESSES = {
    "doi.org": ["104.18.34.10"],
    "www.science.org": ["104.18.35.11"],
    "example.org": ["93.184.215.14"],
    "internal.example.org": ["10.0.0.7"],
}

LANDING = "https://www.science.org/doi/10.1126/science.169.3946.635"
Handler = Callable[[httpx2.Request], httpx2.Response]


async def resolver(host: str, port: int) -> list[str]:
    """Answer from ADDRESSES; an unknown host fails as DNS would (OSError)."""
    try:
        return ADDRESSES[host]
    except KeyError:
        raise OSError(f"no such host {host!r} (test resolver)") from None


def corpus_bytes(relative: str) -> bytes:
    path = CORPUS / relative
    if not path.is_file():
        pytest.skip(MISSING)
    return path.read_bytes()


def serve(routes: dict[tuple[str, str], httpx2.Response]) -> tuple[httpx2.MockTransport, list[str]]:
    """A transport answering ``(Host, path)`` from ``routes``; records the hosts asked."""
    asked: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        host = request.headers["host"]
        asked.append(f"{host}{request.url.raw_path.decode()}")
        try:
            return routes[(host, request.url.raw_path.decode())]
        except KeyError:
            return httpx2.Response(500, text=f"unexpected request {host} {request.url}")

    return httpx2.MockTransport(handler), asked


def redirect(to: str, status: int = 302) -> httpx2.Response:
    return httpx2.Response(status, headers={"location": to, "content-type": "text/html"})


def doi(value: str, transport: httpx2.MockTransport) -> SourceOutcome:
    return asyncio.run(fetch_doi_landing(value, resolver=resolver, transport=transport))


def page(url: str, transport: httpx2.MockTransport) -> SourceOutcome:
    return asyncio.run(fetch_page(url, resolver=resolver, transport=transport))


# ---------------------------------------------------------------------------- DOI


def test_doi_redirect_to_landing_page_gives_an_html_page_document() -> None:
    html = corpus_bytes("html/wikipedia-Duck.html")
    transport, asked = serve(
        {
            ("doi.org", "/10.1126/science.169.3946.635"): redirect(LANDING),
            ("www.science.org", "/doi/10.1126/science.169.3946.635"): httpx2.Response(
                200, content=html, headers={"content-type": "text/html; charset=utf-8"}
            ),
        }
    )
    outcome = doi("doi:10.1126/science.169.3946.635", transport)
    assert outcome.ok and outcome.fetched is not None
    fetched = outcome.fetched
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == ("doi", "page", "text/html")
    assert fetched.url == LANDING
    assert fetched.identifier == "doi:10.1126/science.169.3946.635"
    assert fetched.data == html
    assert asked == ["doi.org/10.1126/science.169.3946.635", f"www.science.org{LANDING[23:]}"]
    document = parse(fetched.data)
    assert document.format == "html"
    assert "duck" in document.text.lower()


def test_doi_org_404_is_missing() -> None:
    body = corpus_bytes("html/habanero-doi-org-10.1126-foo.404.html")
    transport, _ = serve(
        {
            ("doi.org", "/10.1126/foo"): httpx2.Response(
                404, content=body, headers={"content-type": "text/html;charset=utf-8"}
            )
        }
    )
    outcome = doi("10.1126/foo", transport)
    assert outcome.kind == "missing"
    assert outcome.reason is not None and "doi.org does not know DOI 10.1126/foo" in outcome.reason


def test_publisher_404_is_missing_and_says_it_was_the_landing_page() -> None:
    transport, _ = serve(
        {
            ("doi.org", "/10.1126/science.169.3946.635"): redirect(LANDING),
            ("www.science.org", "/doi/10.1126/science.169.3946.635"): httpx2.Response(404),
        }
    )
    outcome = doi("10.1126/science.169.3946.635", transport)
    assert outcome.kind == "missing"
    assert outcome.reason is not None and "landing page" in outcome.reason
    assert LANDING in outcome.reason


def test_redirect_to_metadata_service_is_refused_as_unavailable() -> None:
    transport, asked = serve(
        {("doi.org", "/10.1126/evil"): redirect("http://169.254.169.254/latest/meta-data/")}
    )
    outcome = doi("10.1126/evil", transport)
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None
    assert "169.254.169.254" in outcome.reason and "link-local" in outcome.reason
    assert asked == ["doi.org/10.1126/evil"]  # nothing was ever sent to the target


def test_doi_landing_pdf_goes_to_the_pdf_reader() -> None:
    pdf = corpus_bytes("pdf/N18-3011.pdf")
    transport, _ = serve(
        {
            ("doi.org", "/10.18653/v1/n18-3011"): redirect("https://example.org/N18-3011.pdf"),
            ("example.org", "/N18-3011.pdf"): httpx2.Response(
                200, content=pdf, headers={"content-type": "application/pdf"}
            ),
        }
    )
    outcome = doi("10.18653/v1/N18-3011", transport)
    assert outcome.ok and outcome.fetched is not None
    assert outcome.fetched.media_type == "application/pdf"
    assert outcome.fetched.coverage == "full_text"
    assert outcome.fetched.data == pdf


def test_doi_org_503_is_unavailable_with_the_status() -> None:
    transport, _ = serve({("doi.org", "/10.1126/foo"): httpx2.Response(503)})
    outcome = doi("10.1126/foo", transport)
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "503" in outcome.reason


def test_doi_path_is_percent_encoded_but_keeps_the_slash() -> None:
    assert doi_url("10.1234/a b#c?d%e") == "https://doi.org/10.1234/a%20b%23c%3Fd%25e"
    assert doi_url("10.1002/(sici)1;2-k") == "https://doi.org/10.1002/(sici)1;2-k"


def test_not_a_doi_is_bad_input() -> None:
    transport, asked = serve({})
    with pytest.raises(BadInputError):
        doi("PMC123456", transport)
    assert asked == []


# ---------------------------------------------------------------------------- web


def test_user_given_unsafe_url_raises() -> None:
    transport, asked = serve({})
    for url in ("http://169.254.169.254/", "http://internal.example.org/", "file:///etc/passwd"):
        with pytest.raises(UnsafeURLError):
            page(url, transport)
    assert asked == []


def test_user_given_page_redirecting_inward_is_unavailable_not_bad_input() -> None:
    transport, _ = serve({("example.org", "/go"): redirect("http://internal.example.org/admin")})
    outcome = page("https://example.org/go", transport)
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "private" in outcome.reason


def test_web_page_is_fetched_without_secret_parameters_in_its_url() -> None:
    transport, _ = serve(
        {
            ("example.org", "/a?x=1&email=me%40example.org"): httpx2.Response(
                200,
                text="<html><body><p>Hello duck.</p></body></html>",
                headers={"content-type": "application/xhtml+xml"},
            )
        }
    )
    outcome = page("https://example.org/a?x=1&email=me%40example.org", transport)
    assert outcome.ok and outcome.fetched is not None
    assert outcome.fetched.served_by == "web" and outcome.fetched.coverage == "page"
    assert outcome.fetched.media_type == "text/html"
    assert outcome.fetched.url == "https://example.org/a?x=1"


@pytest.mark.parametrize(
    ("status", "kind"),
    [(404, "missing"), (410, "missing"), (403, "unavailable"), (503, "unavailable")],
)
def test_status_codes(status: int, kind: str) -> None:
    transport, _ = serve({("example.org", "/p"): httpx2.Response(status, text="no")})
    outcome = page("https://example.org/p", transport)
    assert outcome.kind == kind
    assert outcome.reason is not None and str(status) in outcome.reason


def test_pdf_sniffed_by_content_even_with_a_generic_type() -> None:
    pdf = corpus_bytes("pdf/N18-3011.pdf")
    transport, _ = serve(
        {
            ("example.org", "/f"): httpx2.Response(
                200, content=pdf, headers={"content-type": "application/octet-stream"}
            )
        }
    )
    outcome = page("https://example.org/f", transport)
    assert outcome.ok and outcome.fetched is not None
    assert outcome.fetched.media_type == "application/pdf"


def test_unreadable_content_is_unavailable() -> None:
    transport, _ = serve(
        {
            ("example.org", "/img"): httpx2.Response(
                200, content=b"\x89PNG\r\n\x1a\n....", headers={"content-type": "image/png"}
            ),
            ("example.org", "/fake.pdf"): httpx2.Response(
                200, text="<html>paywall</html>", headers={"content-type": "application/pdf"}
            ),
        }
    )
    png = page("https://example.org/img", transport)
    assert png.kind == "unavailable" and png.reason is not None and "image/png" in png.reason
    fake = page("https://example.org/fake.pdf", transport)
    assert fake.kind == "unavailable" and fake.reason is not None and "not a PDF" in fake.reason


def test_network_failures_are_unavailable() -> None:
    loop = {("example.org", "/loop"): redirect("https://example.org/loop")}
    transport, _ = serve(loop)
    looped = page("https://example.org/loop", transport)
    assert looped.kind == "unavailable" and looped.reason is not None
    assert "redirect" in looped.reason

    unknown = page("https://nowhere.invalid/", serve({})[0])
    assert unknown.kind == "unavailable" and unknown.reason is not None
    assert "could not be resolved" in unknown.reason

    big, _ = serve({("example.org", "/big"): httpx2.Response(200, text="<html>" + "x" * 2000)})
    outcome = asyncio.run(
        fetch_page("https://example.org/big", resolver=resolver, transport=big, max_bytes=1000)
    )
    assert outcome.kind == "unavailable" and outcome.reason is not None
    assert "cap" in outcome.reason
