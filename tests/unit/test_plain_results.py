"""``models.plain`` is ``models.check`` without pydantic: the same fields, the same JSON.

A one-shot ``citeproof check`` prints the pipeline's plain result (issue 16: start-up), and
every other door gets the pydantic model made from it, so the two must never drift.  The plain
classes are generated from the models (``python -m citeproof.models.mirror``): a model changed
without generating them again fails here, and so would a rule of the generator that made a
field, a default or the keys' order (``check --json`` would print other bytes) differ.
"""

from __future__ import annotations

import inspect
import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel
from rich.console import Console

from citeproof.cli.render import render_check
from citeproof.documents.model import Block, Document, Origin
from citeproof.evidence.payloads import check_payload
from citeproof.loading.failure import FetchFailure
from citeproof.models import base, check, mirror, plain
from citeproof.service.pipeline import CheckOptions, Pipeline, check_document
from citeproof.service.texts import load

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
ARTICLE = REPO / "examples" / "example-article.nxml"

PAIRS: list[tuple[type[plain.Plain], type[BaseModel]]] = [
    (plain.Resolved, base.Resolved),
    (plain.Location, check.Location),
    (plain.Match, check.Match),
    (plain.WordBoundaries, check.WordBoundaries),
    (plain.DiffOp, check.DiffOp),
    (plain.Near, check.Near),
    (plain.Fragment, check.Fragment),
    (plain.Refresh, check.Refresh),
    (plain.SourceInfo, check.SourceInfo),
    (plain.CheckResult, check.CheckResult),
]
#: Fields of the model that only the steps after the match fill in: absent from the plain
#: constructor, always null in a plain result.
AFTER_THE_MATCH = {"schema", "retraction", "found_elsewhere", "searched_elsewhere"}


def _keys(model: type[BaseModel]) -> list[str]:
    return [field.alias or name for name, field in model.model_fields.items()]


def test_the_plain_classes_are_generated_from_the_current_models() -> None:
    assert Path(plain.__file__).read_text(encoding="utf-8") == mirror.module_text()
    assert [name for _, name in mirror.MIRRORED] == [lean.__name__ for lean, _ in PAIRS]


def test_a_field_added_to_a_model_is_generated_into_its_plain_class(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read = mirror._source

    def with_a_new_field(name: str) -> Any:
        text, _ = read(name)
        if name == "check.py":
            text = text.replace(
                "    changed: bool\n",
                "    changed: bool\n    tries: list[int] = Field(default_factory=list)\n",
            )
        import ast

        return text, ast.parse(text)

    monkeypatch.setattr(mirror, "_source", with_a_new_field)
    generated = mirror.generated()
    refresh = generated[
        generated.index("class Refresh(Plain):") : generated.index("class SourceInfo")
    ]
    assert '"tries",' in refresh
    assert "tries: Sequence[int] = ()," in refresh
    assert "self.tries = list(tries)" in refresh


@pytest.mark.parametrize(("lean", "model"), PAIRS, ids=lambda c: c.__name__)
def test_the_same_fields_in_the_same_order(lean: type[plain.Plain], model: type[BaseModel]) -> None:
    assert [plain._ALIASES.get(name, name) for name in lean.__slots__] == _keys(model)


@pytest.mark.parametrize(("lean", "model"), PAIRS, ids=lambda c: c.__name__)
def test_the_same_required_fields(lean: type[plain.Plain], model: type[BaseModel]) -> None:
    params = inspect.signature(lean).parameters.values()
    required = {p.name for p in params if p.default is inspect.Parameter.empty}
    model_required = {
        name for name, field in model.model_fields.items() if field.is_required()
    } - AFTER_THE_MATCH
    assert required == model_required
    assert {p.name for p in params} == {
        n for n in model.model_fields if (model.model_fields[n].alias or n) not in AFTER_THE_MATCH
    }


def _smallest(lean: type[plain.Plain]) -> plain.Plain:
    """An instance with only the required fields given."""
    location = plain.Location(block=None, region=None)
    source = plain.SourceInfo(input="x", kind="text", coverage="text")
    given: dict[type[plain.Plain], dict[str, Any]] = {
        plain.Resolved: {},
        plain.Location: {"block": None, "region": None},
        plain.Match: dict(
            start=0, end=1, normalized_start=0, normalized_end=1, text="a", location=location
        ),
        plain.WordBoundaries: {"starts_mid_word": False, "ends_mid_word": True},
        plain.DiffOp: {"op": "equal", "quote": "a", "source": "a"},
        plain.Near: dict(similarity=0.5, start=0, end=1, text="a", diff=[], flags=[]),
        plain.Fragment: {"quote": "a", "verdict": "EXACT", "start": None, "end": None},
        plain.Refresh: {"previous_sha256": "0" * 64, "changed": False},
        plain.SourceInfo: {"input": "x", "kind": "text", "coverage": "text"},
        plain.CheckResult: {"verdict": "EXACT", "quote": "a", "source": source},
    }
    return lean(**given[lean])


@pytest.mark.parametrize(("lean", "model"), PAIRS, ids=lambda c: c.__name__)
def test_the_same_defaults(lean: type[plain.Plain], model: type[BaseModel]) -> None:
    value = _smallest(lean)
    given = {
        key: item
        for key, item in plain.to_json(value).items()
        if key in _keys(model) and model.model_fields[_name(model, key)].is_required()
    }
    # the model fills in its own defaults for what was not given
    assert model.model_validate(given).model_dump(mode="json") == plain.to_json(value)


def _name(model: type[BaseModel], key: str) -> str:
    return next(n for n, f in model.model_fields.items() if (f.alias or n) == key)


def _results() -> list[tuple[str, plain.CheckResult]]:
    """Plain results of every shape the match step makes."""
    article = load(str(ARTICLE))
    pipeline = Pipeline(CheckOptions())
    cases = [
        ("exact", "fell asleep faster than those in the control group", article),
        ("near", "Mean sleep onset latency fell by 41 minutes", article),
        ("not found", "the moon is made of a rather old and famous cheese", article),
        ("ellipsis", "Participants who walked ... fell asleep faster", article),
        ("too short", "the", article),
        ("no text", "some words to look for", load(text="   ")),
        (
            "given text twice",
            "the words that are quoted here",
            load(text="First the words that are quoted here, then the words that are quoted here."),
        ),
    ]
    found = [(name, pipeline.match_plain(quote, doc)) for name, quote, doc in cases]
    origin = Origin(
        input="pmcid:PMC1",
        coverage="abstract",
        sha256="1" * 64,
        identifier="pmcid:PMC1",
        served_by="europepmc",
        version="2",
        md5_ok=True,
        url="https://example.org/1",
        retrieved_at="2026-12-02T00:00:00Z",
        refreshed_from="2" * 64,
    )
    paged = Document(
        text="Some words of the front matter. The quoted words on page two of it.",
        blocks=[
            Block(0, 31, "paragraph", ("Intro",), "front-matter", 1),
            Block(32, 68, "paragraph", ("Intro", "More"), "body", 2),
        ],
        format="pdf",
        origin=origin,
    )
    missing = "a sentence that this abstract does not hold"
    found.append(("abstract, refreshed, paged", pipeline.match_plain(missing, paged)))
    found.append(("paged", pipeline.match_plain("The quoted words on page two of it", paged)))
    found.append(("front matter", pipeline.match_plain("Some words of the front matter", paged)))
    degraded = Document(
        text="Only a fallback abstract.",
        blocks=[],
        format="text",
        origin=Origin(input="doi:10.1/x", coverage="abstract", degraded=("pmc: 503",)),
    )
    found.append(("degraded", pipeline.match_plain("words that are not there", degraded)))
    pinned = Pipeline(CheckOptions(expect_sha256="3" * 64))
    quote = "fell asleep faster than those in the control group"
    found.append(("wrong sha256", pinned.match_plain(quote, article)))
    assert article.origin is not None and article.origin.sha256 is not None
    right = Pipeline(CheckOptions(expect_sha256=article.origin.sha256))
    found.append(("right sha256", right.match_plain(quote, article)))
    failure = FetchFailure(
        kind="unavailable",
        reason="the service answered 503",
        input="PMC1",
        identifier="pmcid:PMC1",
        ids={"pmcid": "PMC1", "doi": "10.1/x"},
    )
    found.append(("fetch failure", pipeline.match_plain("any quote at all", failure)))
    return found


RESULTS = _results()


@pytest.mark.parametrize(("name", "result"), RESULTS, ids=[n for n, _ in RESULTS])
def test_the_same_json_byte_for_byte(name: str, result: plain.CheckResult) -> None:
    model = check.CheckResult.from_plain(result)
    ours = json.dumps(plain.to_json(result), ensure_ascii=False, indent=2)
    theirs = json.dumps(model.model_dump(mode="json"), ensure_ascii=False, indent=2)
    assert ours == theirs
    assert model == check.CheckResult.model_validate_json(theirs)


@pytest.mark.parametrize(("name", "result"), RESULTS, ids=[n for n, _ in RESULTS])
def test_the_same_evidence_line(name: str, result: plain.CheckResult) -> None:
    """A local file's check is logged from its plain result: the line must not differ."""
    model = check.CheckResult.from_plain(result)
    options = CheckOptions().match
    payload = check_payload(result, options, claim="a claim", recheck_of=3)
    assert payload == check_payload(model, options, claim="a claim", recheck_of=3)
    assert payload["source"]["resolved"] == model.source.resolved.model_dump(mode="json")


def test_the_pipeline_gives_the_model_it_always_gave() -> None:
    """``check_document`` (every door but the one-shot CLI) is the plain result's model."""
    document = load(str(ARTICLE))
    quote = "Mean sleep onset latency fell by 41 minutes"
    result = check_document(quote, document, CheckOptions().match)
    assert isinstance(result, check.CheckResult)
    plain_result = Pipeline(CheckOptions()).match_plain(quote, document)
    assert result == check.CheckResult.from_plain(plain_result)
    assert result.ok is plain_result.ok is False


@pytest.mark.parametrize(("name", "result"), RESULTS, ids=[n for n, _ in RESULTS])
def test_the_same_terminal_report(name: str, result: plain.CheckResult) -> None:
    text = load(str(ARTICLE)).text

    def shown(value: check.CheckResult | plain.CheckResult) -> str:
        out = io.StringIO()
        render_check(value, text, Console(file=out, width=120, force_terminal=True))
        return out.getvalue()

    assert shown(result) == shown(check.CheckResult.from_plain(result))


def test_equality_and_repr_follow_the_fields() -> None:
    a = plain.Location(block=1, section=["Results"], region="body")
    assert a == plain.Location(block=1, section=("Results",), region="body")
    assert a != plain.Location(block=2, section=["Results"], region="body")
    assert repr(a) == "Location(block=1, section=['Results'], region='body', page=None)"


CLI_QUOTES = [
    "fell asleep faster than those in the control group",
    "Mean sleep onset latency fell by 41 minutes",
    "the moon is made of a rather old and famous cheese",
    "Participants who walked ... fell asleep faster",
]


@pytest.mark.parametrize("quote", CLI_QUOTES)
def test_check_json_is_the_librarys_byte_for_byte(
    run_cli: CliRun, quote: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``check --json`` prints the plain result; the library returns the model: one text."""
    import citeproof

    monkeypatch.setenv("CITEPROOF_HOME", str(tmp_path))
    log = tmp_path / "evidence.jsonl"
    for args, logged in ((["--no-log"], False), (["--log", str(log)], True)):
        shown = run_cli("check", "--json", *args, quote, ARTICLE)
        assert shown.exit_code in (0, 1), shown.output
        result = citeproof.check(quote, str(ARTICLE), log=log if logged else False)
        expected = result.model_dump(mode="json")
        if logged:  # the library's check was logged after the command's
            assert expected["log_seq"] == json.loads(shown.stdout)["log_seq"] + 1
            expected["log_seq"] -= 1
        text = json.dumps(expected, ensure_ascii=False, indent=2) + "\n"
        assert shown.stdout_bytes == text.encode("utf-8")
