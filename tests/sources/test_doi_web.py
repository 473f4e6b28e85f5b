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

The same paths are tested again on INVENTED recordings, which every clone has:
``tests/sources/invented/doi-*`` (doi.org's "Handle Redirect" 302 answers and its "DOI Not
Found" 404 page) and ``web-*`` (the landing pages, PDFs and odd answers of an invented
publisher, ``*.invented-press.example``), litcheck pairs labelled ``INVENTED ... not a real
answer``.  They are replayed by ``ReplayTransport`` as the inner transport under the guard's
``SafeTransport`` (which keys on the ``Host`` header), so a request nobody recorded, or any
request to a refused address, would show up in ``transport.refused``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import httpx2
import pytest

from citeproof.documents import parse
from citeproof.errors import BadInputError
from citeproof.net.recordings import load_litcheck
from citeproof.net.replay import ReplayTransport
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


# ---------------------------------------------------------------------------- invented recordings

INVENTED = Path(__file__).resolve().parent / "invented"
PRESS = "https://journals.invented-press.example"
FILES = "https://files.invented-press.example"
INVENTED_ADDRESSES = {
    "doi.org": ["104.18.34.10"],
    "journals.invented-press.example": ["93.184.215.20"],
    "files.invented-press.example": ["93.184.215.21"],
    "intranet.invented-press.example": ["10.20.30.40"],
}


async def invented_resolver(host: str, port: int) -> list[str]:
    """Answer from INVENTED_ADDRESSES; an unknown host fails as DNS would (OSError)."""
    try:
        return INVENTED_ADDRESSES[host]
    except KeyError:
        raise OSError(f"no such host {host!r} (test resolver)") from None


def invented() -> ReplayTransport:
    """The invented doi.org and publisher recordings only (others share the folder)."""
    metas = [*sorted(INVENTED.glob("doi-*.meta.json")), *sorted(INVENTED.glob("web-*.meta.json"))]
    assert metas, f"no invented doi/web recordings in {INVENTED}"
    return ReplayTransport([load_litcheck(meta) for meta in metas])


def invented_doi(value: str, transport: ReplayTransport) -> SourceOutcome:
    return asyncio.run(fetch_doi_landing(value, resolver=invented_resolver, transport=transport))


def invented_page(url: str, transport: ReplayTransport) -> SourceOutcome:
    return asyncio.run(fetch_page(url, resolver=invented_resolver, transport=transport))


def body_of(name: str) -> bytes:
    return (INVENTED / f"{name}.body").read_bytes()


def test_invented_recordings_are_labelled() -> None:
    """A fixture that lost its label could be mistaken for a real answer."""
    metas = [*INVENTED.glob("doi-*.meta.json"), *INVENTED.glob("web-*.meta.json")]
    assert len(metas) >= 22
    for meta_path in metas:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        assert meta["provenance"].startswith("INVENTED for citeproof's tests"), meta_path
        assert meta["provenance"].endswith("not a real answer"), meta_path
        assert all(key == key.lower() for key in meta["headers"]), meta_path
        host = httpx2.URL(meta["url"]).host
        assert host in INVENTED_ADDRESSES, meta_path
        if host == "doi.org":
            assert meta_path.name.startswith("doi-10.5555-"), meta_path
        load_litcheck(meta_path)  # verifies body_sha256


def test_invented_doi_redirect_to_landing_page_gives_an_html_page_document() -> None:
    """doi.org's 302 is followed to the publisher; the landing page is a ``page`` document."""
    transport = invented()
    outcome = invented_doi("doi:10.5555/INVENTED.web.article", transport)
    assert transport.refused == []
    assert transport.used == {
        "doi-10.5555-invented.web.article.302": 1,
        "web-invented-press-article-landing": 1,
    }
    assert outcome.ok and outcome.fetched is not None
    fetched = outcome.fetched
    assert (fetched.served_by, fetched.coverage, fetched.media_type) == ("doi", "page", "text/html")
    assert fetched.url == f"{PRESS}/article/10.5555/invented.web.article"
    assert fetched.identifier == "doi:10.5555/invented.web.article"
    assert fetched.data == body_of("web-invented-press-article-landing")
    document = parse(fetched.data)
    assert document.format == "html"
    assert "eleven days longer than bare beds" in " ".join(document.text.split())


def test_invented_doi_org_404_is_missing() -> None:
    outcome = invented_doi("https://doi.org/10.5555/invented.web.nosuch", invented())
    assert outcome.kind == "missing" and outcome.fetched is None
    assert outcome.reason == (
        "doi.org does not know DOI 10.5555/invented.web.nosuch (it answered 404)."
    )


def test_invented_doi_landing_pdf_goes_to_the_pdf_reader() -> None:
    transport = invented()
    outcome = invented_doi("10.5555/invented.web.pdf", transport)
    assert transport.refused == []
    assert outcome.ok and outcome.fetched is not None
    assert (outcome.fetched.media_type, outcome.fetched.coverage) == (
        "application/pdf",
        "full_text",
    )
    assert outcome.fetched.url == f"{FILES}/pdf/10.5555/invented.web.pdf"
    assert outcome.fetched.data == body_of("web-invented-press-pdf")
    assert "Straw mulch kept the invented beds moist" in parse(outcome.fetched.data).text


def test_invented_pdf_sniffed_by_content_even_with_a_generic_type() -> None:
    """Servers often say application/octet-stream; the ``%PDF-`` bytes decide."""
    outcome = invented_page(f"{FILES}/download?id=9990013", invented())
    assert outcome.ok and outcome.fetched is not None
    assert (outcome.fetched.served_by, outcome.fetched.media_type) == ("web", "application/pdf")
    assert outcome.fetched.coverage == "full_text"


def test_invented_redirect_chain_over_http_to_https() -> None:
    """doi.org -> http publisher URL -> 301 to https: every hop is followed and checked."""
    transport = invented()
    outcome = invented_doi("10.5555/invented.web.hops", transport)
    assert transport.refused == []
    assert sorted(transport.used) == [
        "doi-10.5555-invented.web.hops.302",
        "web-invented-press-hops-http.301",
        "web-invented-press-hops-landing",
    ]
    assert outcome.ok and outcome.fetched is not None
    assert outcome.fetched.url == f"{PRESS}/article/10.5555/invented.web.hops"
    assert "Marigolds" in parse(outcome.fetched.data).text


def test_invented_publisher_404_is_missing_and_names_the_landing_page() -> None:
    outcome = invented_doi("10.5555/invented.web.gone", invented())
    assert outcome.kind == "missing"
    assert outcome.reason is not None
    assert outcome.reason.startswith("The landing page of DOI 10.5555/invented.web.gone")
    assert f"{PRESS}/article/10.5555/invented.web.gone" in outcome.reason
    assert "404" in outcome.reason


def test_invented_publisher_bot_wall_is_unavailable() -> None:
    """A 403 challenge page says nothing about the article: unavailable, never fetched."""
    outcome = invented_doi("10.5555/invented.web.wall", invented())
    assert outcome.kind == "unavailable" and outcome.fetched is None
    assert outcome.reason is not None
    assert "HTTP 403" in outcome.reason and "landing page of DOI" in outcome.reason


def test_invented_doi_redirect_into_an_intranet_is_refused_before_sending() -> None:
    """The deposited URL resolves to a private address: unavailable, and nothing was sent."""
    transport = invented()
    outcome = invented_doi("10.5555/invented.web.inward", transport)
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None
    assert "intranet.invented-press.example" in outcome.reason and "private" in outcome.reason
    assert transport.used == {"doi-10.5555-invented.web.inward.302": 1}
    assert transport.refused == []  # the intranet host was never asked


def test_invented_redirect_without_location_is_unavailable() -> None:
    outcome = invented_page(f"{PRESS}/broken-redirect", invented())
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "HTTP 302" in outcome.reason


@pytest.mark.parametrize(
    ("path", "media_type", "reason"),
    [
        ("/notes.txt", "text/plain", None),
        ("/untyped/page", "text/html", None),
        ("/untyped/readme", "text/plain", None),
        ("/empty", None, "answered with an empty body"),
        ("/untyped/figure", None, "PNG image"),
        ("/untyped/article.xml", None, "served no Content-Type and the body is jats"),
        ("/api/article/9990013", None, "served application/json, which is neither"),
    ],
)
def test_invented_content_kinds(path: str, media_type: str | None, reason: str | None) -> None:
    """What the bytes are decides: typed text, sniffed untyped pages, and refusals that say
    why (empty, binary, XML that is not a page, JSON)."""
    transport = invented()
    outcome = invented_page(PRESS + path, transport)
    assert transport.refused == []
    if media_type is not None:
        assert outcome.ok and outcome.fetched is not None
        assert (outcome.fetched.media_type, outcome.fetched.coverage) == (media_type, "page")
        assert outcome.fetched.url == PRESS + path
    else:
        assert outcome.kind == "unavailable" and outcome.fetched is None
        assert outcome.reason is not None and reason is not None
        assert reason in outcome.reason, outcome.reason
        if path.startswith("/untyped/"):
            assert "served no Content-Type" in outcome.reason


def test_a_first_hop_that_does_not_resolve_in_time_is_unavailable() -> None:
    """A stalled DNS answer for the user's own URL is a timeout (unavailable), not bad input."""

    async def stalled(host: str, port: int) -> list[str]:
        await asyncio.sleep(5)
        return ["93.184.215.20"]

    transport = invented()
    outcome = asyncio.run(
        fetch_page(f"{PRESS}/notes.txt", resolver=stalled, transport=transport, timeout=0.01)
    )
    assert outcome.kind == "unavailable"
    assert outcome.reason is not None and "did not resolve within 0.01 seconds" in outcome.reason
    assert transport.used == {} and transport.refused == []
