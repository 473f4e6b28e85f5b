"""service.py: reading sources under caps, input validation, and building CheckResult.

The matcher is replaced by a stub where a test is about the translation from
``QuoteMatch`` to ``CheckResult`` (locations, flags, reasons), so these tests pin the
service's own rules and do not move when the matcher's scoring changes.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from citeproof import service
from citeproof.documents.model import Block, Document, DocumentMeta, Origin
from citeproof.errors import (
    BadInputError,
    EmptyQuoteError,
    QuoteTooLongError,
    SourceNotFoundError,
    SourceTooLargeError,
)
from citeproof.match.types import DiffStep, FragmentMatch, NearMatch, QuoteMatch, Span

# ---------------------------------------------------------------------------- reading


def test_cap_defaults_to_100_mb(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(service.MAX_FILE_BYTES_ENV, raising=False)
    assert service.max_file_bytes() == 100 * 1024 * 1024


def test_cap_from_env_and_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(service.MAX_FILE_BYTES_ENV, "1234")
    assert service.max_file_bytes() == 1234
    assert service.max_file_bytes(99) == 99  # the argument wins


@pytest.mark.parametrize("raw", ["lots", "-5", "0", "1.5"])
def test_bad_cap_in_env_is_bad_input(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv(service.MAX_FILE_BYTES_ENV, raw)
    with pytest.raises(BadInputError, match=service.MAX_FILE_BYTES_ENV + "|positive"):
        service.max_file_bytes()


def test_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"hello")
    assert service.read_bytes(path) == b"hello"
    assert service.read_bytes(str(path), max_bytes=5) == b"hello"


def test_file_over_cap_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 11)
    real_open = Path.open

    class NoRead(io.BufferedReader):
        def read(self, size: int | None = -1, /) -> bytes:
            raise AssertionError("read() called on a file already known to be too large")

    def guarded_open(self: Path, mode: str = "r", *args: object, **kwargs: object) -> NoRead:
        return NoRead(real_open(self, "rb", buffering=0))  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "open", guarded_open)
    with pytest.raises(SourceTooLargeError, match="10-byte cap"):
        service.read_bytes(path, max_bytes=10)


def test_stdin_over_cap_is_refused() -> None:
    with pytest.raises(SourceTooLargeError, match="standard input"):
        service.read_bytes("-", max_bytes=4, stdin=io.BytesIO(b"12345"))
    assert service.read_bytes("-", max_bytes=5, stdin=io.BytesIO(b"12345")) == b"12345"


def test_stdin_reads_at_most_cap_plus_one() -> None:
    stream = io.BytesIO(b"x" * 1000)
    with pytest.raises(SourceTooLargeError):
        service.read_bytes("-", max_bytes=10, stdin=stream)
    assert stream.tell() == 11


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="does not exist"):
        service.read_bytes(tmp_path / "nope.pdf")


def test_directory_is_not_a_file(tmp_path: Path) -> None:
    with pytest.raises(SourceNotFoundError, match="directory"):
        service.read_bytes(tmp_path)


def test_broken_symlink(tmp_path: Path) -> None:
    link = tmp_path / "link.xml"
    os.symlink(tmp_path / "gone.xml", link)
    with pytest.raises(SourceNotFoundError, match="does not exist"):
        service.read_bytes(link)


def test_nul_in_path() -> None:
    with pytest.raises(SourceNotFoundError):
        service.read_bytes("bad\0path")


@pytest.mark.parametrize(
    "identifier",
    [
        "10.1371/journal.pmed.1004764",
        "doi:10.1000/xyz",
        "PMC12585062",
        "PMID 41187138",
        "pmid:123",
        "https://example.org/paper",
        "NCT04363697",
    ],
)
def test_identifiers_go_to_the_cache_not_the_disk(
    identifier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citeproof.loading.pins import FetchFailedError

    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path))
    with pytest.raises(FetchFailedError, match="--offline forbids fetching") as info:
        service.load(identifier, offline=True)
    assert info.value.exit_code == 3


def test_a_bare_number_is_refused_with_the_accepted_forms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BadInputError, match="Accepted sources"):
        service.load("41187138", offline=True)


def test_an_existing_file_named_like_an_identifier_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("PMC123").write_bytes(b"x")
    assert service.read_bytes("PMC123") == b"x"


def test_load_returns_a_document_unchanged() -> None:
    doc = Document(text="abc", blocks=[], format="text")
    assert service.load(doc) is doc


@pytest.mark.parametrize("kwargs", [{}, {"source": "a", "text": "b"}])
def test_load_takes_exactly_one_source(kwargs: dict[str, str]) -> None:
    with pytest.raises(TypeError):
        service.load(**kwargs)  # type: ignore[arg-type]


def test_load_rejects_other_types() -> None:
    with pytest.raises(TypeError):
        service.load(b"bytes")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- validation


@pytest.mark.parametrize("quote", ["", "   ", "\n\t", "\u00a0\u2009", "\u200b"])
def test_empty_quote(quote: str) -> None:
    with pytest.raises(EmptyQuoteError):
        service.validate_quote(quote)


def test_quote_too_long() -> None:
    service.validate_quote("a" * service.MAX_QUOTE_CHARS)
    with pytest.raises(QuoteTooLongError, match="100,000"):
        service.validate_quote("a" * (service.MAX_QUOTE_CHARS + 1))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"near_threshold": 0}, BadInputError),
        ({"near_threshold": 1.01}, BadInputError),
        ({"near_threshold": -0.5}, BadInputError),
        ({"max_gap": -1}, BadInputError),
        ({"profile": "t2"}, BadInputError),
        ({"near_threshold": "high"}, TypeError),
        ({"max_gap": 1.5}, TypeError),
    ],
)
def test_bad_options(kwargs: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error):
        service.match_options(**kwargs)  # type: ignore[arg-type]


def test_good_options() -> None:
    options = service.match_options(near_threshold=1, max_gap=0, profile="t1+dehyphen")
    assert (options.near_threshold, options.max_gap, options.profile) == (1.0, 0, "t1+dehyphen")


def test_check_validates_quote_before_reading(tmp_path: Path) -> None:
    # An empty quote is reported even though the source does not exist either.
    with pytest.raises(EmptyQuoteError):
        service.check("", tmp_path / "missing.pdf")


# ---------------------------------------------------------------------------- results

TEXT = "Title here\n\nThe body says that walking helps sleep a lot.\n\nDoe J. Walking helps."
BLOCKS = [
    Block(0, 10, "title", (), "title"),
    Block(12, 48, "paragraph", ("Results", "Sleep"), "body", page=2),
    Block(50, 71, "reference", ("References",), "references"),
]


def _doc(text: str = TEXT, fmt: str = "jats") -> Document:
    return Document(
        text=text,
        blocks=list(BLOCKS) if text == TEXT else [],
        format=fmt,  # type: ignore[arg-type]
        meta=DocumentMeta(title="A title", doi="10.5555/x", licence="CC0"),
        origin=Origin(input="paper.nxml", coverage="file", sha256="ab" * 32, served_by="file"),
    )


def _stub(monkeypatch: pytest.MonkeyPatch, found: QuoteMatch) -> None:
    """The matcher answers ``found``, where the match step looks it up."""
    import citeproof.service.pipeline as pipeline_module

    monkeypatch.setattr(pipeline_module, "find_quote", lambda prep, quote, options: found)


def _span(start: int, end: int) -> Span:
    return Span(start, end, start, end)


def test_exact_result_has_locations_and_source(monkeypatch: pytest.MonkeyPatch) -> None:
    start = TEXT.index("walking helps sleep")
    found = QuoteMatch(
        "EXACT", None, "t1", spans=(_span(start, start + 19),), count=1, casefold_match=True
    )
    _stub(monkeypatch, found)
    result = service.check_document("walking helps sleep", _doc(), service.match_options())
    assert result.verdict == "EXACT" and result.ok
    (match,) = result.matches
    assert match.text == "walking helps sleep" == TEXT[match.start : match.end]
    assert match.location.block == 1
    assert match.location.section == ["Results", "Sleep"]
    assert match.location.region == "body" and match.location.page == 2
    assert result.count == 1 and not result.ambiguous
    assert result.word_boundaries is not None and not result.word_boundaries.starts_mid_word
    assert result.flags == []
    source = result.source
    assert (source.input, source.kind, source.coverage, source.served_by) == (
        "paper.nxml",
        "jats",
        "file",
        "file",
    )
    assert source.resolved.doi == "10.5555/x" and source.title == "A title"
    assert source.licence == "CC0" and source.sha256 == "ab" * 32
    assert result.model_dump(mode="json")["schema"] == "citeproof.check/1"


def test_match_in_references_is_flagged(monkeypatch: pytest.MonkeyPatch) -> None:
    start = TEXT.index("Walking helps.")
    found = QuoteMatch(
        "EXACT",
        None,
        "t1",
        spans=(_span(start, start + 13),),
        count=1,
        flags=("partial_word",),
        ends_mid_word=True,
    )
    _stub(monkeypatch, found)
    result = service.check_document("Walking helps", _doc(), service.match_options())
    assert result.flags == ["partial_word", "match_in_references"]
    assert result.word_boundaries is not None and result.word_boundaries.ends_mid_word


def test_ambiguous_when_more_than_one(monkeypatch: pytest.MonkeyPatch) -> None:
    found = QuoteMatch("EXACT", None, "t1", spans=(_span(0, 5), _span(12, 17)), count=2)
    _stub(monkeypatch, found)
    result = service.check_document("x" * 20, _doc(), service.match_options())
    assert result.count == 2 and result.ambiguous
    assert [m.location.region for m in result.matches] == ["title", "body"]


def test_near_carries_source_wording(monkeypatch: pytest.MonkeyPatch) -> None:
    start = TEXT.index("walking helps sleep a lot")
    near = NearMatch(
        0.93,
        _span(start, start + 25),
        (
            DiffStep("equal", "walking helps sleep", "walking helps sleep"),
            DiffStep("replace", "a little", "a lot"),
        ),
        ("numbers_differ",),
    )
    _stub(monkeypatch, QuoteMatch("NEAR", None, "t1", near=near))
    result = service.check_document("walking helps sleep a little", _doc(), service.match_options())
    assert result.verdict == "NEAR" and not result.ok
    assert result.near is not None
    assert result.near.text == "walking helps sleep a lot"
    assert result.near.location is not None and result.near.location.block == 1
    assert [d.op for d in result.near.diff] == ["equal", "replace"]
    assert result.near.flags == ["numbers_differ"]
    assert result.word_boundaries is None and result.matches == []


def test_fragments_are_translated(monkeypatch: pytest.MonkeyPatch) -> None:
    fragments = (
        FragmentMatch("The body says", "EXACT", _span(12, 25)),
        FragmentMatch(
            "helps sleep", "NOT_FOUND", None, gap_before=None, flags=("ellipsis_hides_negation",)
        ),
    )
    _stub(monkeypatch, QuoteMatch("NOT_FOUND", None, "t1", fragments=fragments))
    result = service.check_document(
        "The body says ... helps sleep", _doc(), service.match_options()
    )
    assert result.fragments is not None
    assert [(f.start, f.end) for f in result.fragments] == [(12, 25), (None, None)]
    assert result.fragments[1].flags == ["ellipsis_hides_negation"]


def test_reasons_are_filled_in(monkeypatch: pytest.MonkeyPatch) -> None:
    _stub(monkeypatch, QuoteMatch("TOO_SHORT", None, "t1"))
    result = service.check_document("short", _doc(), service.match_options())
    assert result.reason and "20 characters" in result.reason
    _stub(monkeypatch, QuoteMatch("NOT_FOUND", None, "t1"))
    result = service.check_document("x" * 30, _doc(), service.match_options())
    assert result.reason and "0.90" in result.reason
    _stub(monkeypatch, QuoteMatch("NOT_FOUND", "the matcher's own reason", "t1"))
    result = service.check_document("x" * 30, _doc(), service.match_options())
    assert result.reason == "the matcher's own reason"


def test_not_found_in_an_abstract_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    _stub(monkeypatch, QuoteMatch("NOT_FOUND", "no passage is close enough.", "t1"))
    doc = _doc()
    doc.origin = Origin(input="PMID 1", coverage="abstract")
    result = service.check_document("x" * 30, doc, service.match_options())
    assert result.reason == (
        "no passage is close enough. Only the abstract was checked; the full text was not."
    )


def test_profile_reported_is_the_one_that_matched(monkeypatch: pytest.MonkeyPatch) -> None:
    _stub(monkeypatch, QuoteMatch("EXACT", None, "t1+dehyphen", spans=(_span(0, 5),), count=1))
    result = service.check_document("x" * 20, _doc(), service.match_options())
    assert result.normalisation == "t1+dehyphen"


@pytest.mark.parametrize(("fmt", "words"), [("pdf", "no text layer"), ("html", "no text")])
def test_empty_document_is_not_checkable(fmt: str, words: str) -> None:
    result = service.check_document(
        "a quote that is long enough", _doc("", fmt), service.match_options()
    )
    assert result.verdict == "NOT_CHECKABLE"
    assert result.reason is not None and words in result.reason
    assert result.matches == [] and result.near is None
    assert result.source.kind == fmt


def test_document_without_origin_or_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    _stub(monkeypatch, QuoteMatch("EXACT", None, "t1", spans=(_span(0, 3),), count=1))
    doc = Document(text="abc def", blocks=[], format="text")
    result = service.check_document("x" * 20, doc, service.match_options())
    assert result.source.input == "<document>" and result.source.coverage == "text"
    assert result.matches[0].location.block is None


def test_document_blocks() -> None:
    rows = service.document_blocks(_doc())
    assert rows[1] == {
        "start": 12,
        "end": 48,
        "kind": "paragraph",
        "section": ["Results", "Sleep"],
        "region": "body",
        "page": 2,
    }
    assert len(rows) == 3
