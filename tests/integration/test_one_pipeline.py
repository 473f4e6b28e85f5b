"""One pipeline: the same options give the same result object from every door.

A check is assembled only in ``citeproof.service.pipeline``; the library, ``citeproof check
--json``, the MCP tool ``check_quote``, a batch line (library and CLI) and an audit's citation
all run it.  If any door assembled its own steps again (a different retraction rule, a
missing find-source, another source record), its result would differ here.

The identifier is an invented PMC paper answered from recordings the demo writes (no
network, no corpus): one is retracted, so the retraction step has something to say.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from mcp import Client

import citeproof
from citeproof import batch
from citeproof.audit.run import audit_answer
from citeproof.demo import COFFEE, WALKING, write_recordings
from citeproof.errors import EvidenceNotRecordedError
from citeproof.mcp.server import build_server
from citeproof.service.pipeline import CheckOptions

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
ARTICLE = str(REPO / "examples" / "example-article.nxml")

QUOTES = {
    ARTICLE: [
        "fell asleep faster than those in the control group",  # EXACT
        "Mean sleep onset latency fell by 41 minutes",  # NEAR, numbers differ
        "the moon is made of a rather old and famous cheese",  # NOT_FOUND
        "Participants who walked ... fell asleep faster",  # an ellipsis
    ],
    WALKING: [
        "fell asleep 12 minutes faster than those in the control group",
        "fell asleep 20 minutes faster than those in the control group",
    ],
    COFFEE: ["was not associated with worse sleep quality"],
}
CASES = [(source, quote) for source, quotes in QUOTES.items() for quote in quotes]


@pytest.fixture
def recordings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "recordings"
    write_recordings(folder)
    monkeypatch.setenv("CITEPROOF_REPLAY", str(folder))
    return folder


def _library(quote: str, source: str, **options: Any) -> dict[str, Any]:
    return citeproof.check(quote, source, **options).model_dump(mode="json")


def _cli(run_cli: CliRun, *args: str) -> dict[str, Any]:
    result = run_cli("check", "--json", "--no-log", *args)
    assert result.exit_code in (0, 1), result.output
    value: dict[str, Any] = json.loads(result.stdout)
    return value


def _mcp(quote: str, source: str) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        async with Client(build_server(log=False)) as client:
            result = await client.call_tool(
                "check_quote", {"quote": quote, "source": source, "detail": "full"}
            )
        assert not result.is_error, result.content
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    return anyio.run(go)


def _batch_line(quote: str, source: str, options: CheckOptions | None = None) -> dict[str, Any]:
    (outcome,) = batch.run(
        [{"id": "x", "quote": quote, "source": source}], options=options, workers=1
    )
    record = outcome.record
    assert record.pop("id") == "x"
    return record


def _batch_cli(run_cli: CliRun, tmp_path: Path, quote: str, source: str) -> dict[str, Any]:
    line = json.dumps({"id": 7, "quote": quote, "source": source}) + "\n"
    result = run_cli("batch", "-", "--quiet", "--workers", "1", input=line)
    assert result.exit_code == 0, result.output
    record: dict[str, Any] = json.loads(result.stdout)
    assert record.pop("id") == 7
    return record


@pytest.mark.parametrize(("source", "quote"), CASES)
def test_every_door_gives_the_same_result(
    run_cli: CliRun, recordings: Path, tmp_path: Path, source: str, quote: str
) -> None:
    """Retraction on (as the CLI and the MCP server default to), no log."""
    expected = _library(quote, source, retraction=True)
    assert _cli(run_cli, quote, source) == expected
    assert _mcp(quote, source) == expected
    assert _batch_line(quote, source, CheckOptions(retraction=True)) == expected
    # `citeproof batch` asks no retraction status: it equals the library without it.
    assert _batch_cli(run_cli, tmp_path, quote, source) == _library(quote, source)


def test_the_steps_are_the_ones_the_options_choose(run_cli: CliRun, recordings: Path) -> None:
    """Retraction is asked for a cited work only when chosen, and a retracted work says so
    wherever it is checked."""
    quote = QUOTES[COFFEE][0]
    plain = _library(quote, COFFEE)
    chosen = _library(quote, COFFEE, retraction=True)
    assert plain["retraction"] is None
    assert chosen["retraction"]["status"] == "RETRACTED"
    assert {**chosen, "retraction": None} == plain
    assert _cli(run_cli, "--no-retraction", quote, COFFEE) == plain


def test_an_audit_checks_a_quote_as_a_check_does(recordings: Path) -> None:
    """The audit's citation carries the check object the pipeline made for that quote (the
    audit names a cited work by its canonical key)."""
    quote = QUOTES[WALKING][1]
    report = audit_answer(
        f'Walkers "{quote}" ({WALKING}).', offline=False, sign=False, retraction=False
    )
    (citation,) = report.citations()
    assert citation.check is not None
    assert citation.check.model_dump(mode="json") == _library(quote, f"pmcid:{WALKING}")


def test_the_log_step_is_the_same_line_from_the_library_and_the_cli(
    run_cli: CliRun, recordings: Path, tmp_path: Path
) -> None:
    """With the log on, the library and the CLI write the same payload and name its line."""
    from citeproof.service.logbook import open_log

    quote = QUOTES[ARTICLE][0]
    log = tmp_path / "evidence.jsonl"
    first = citeproof.check(quote, ARTICLE, log=log)
    result = run_cli("check", "--json", "--log", log, quote, ARTICLE)
    second = json.loads(result.stdout)
    assert (first.log_seq, second["log_seq"]) == (1, 2)
    one, two = open_log(log).entries()
    assert one.payload == two.payload


def test_a_batch_on_workers_runs_the_steps_after_the_match_as_a_check_does(
    recordings: Path, tmp_path: Path
) -> None:
    """Matched on two workers, then retraction (``Pipeline.after_match``) and the log in the
    batch's process: each line is the library's result, and its evidence line the library's."""
    from citeproof.service.logbook import open_log

    log = tmp_path / "batch.jsonl"
    options = CheckOptions(retraction=True, log=True, log_path=str(log))
    items = [{"id": n, "quote": q, "source": s} for n, (s, q) in enumerate(CASES)]
    outcomes = list(batch.run(items, options=options, workers=2, with_payload=True))
    alone = tmp_path / "alone.jsonl"
    for n, ((source, quote), outcome) in enumerate(zip(CASES, outcomes, strict=True)):
        record = outcome.record
        assert record.pop("id") == n
        expected = citeproof.check(quote, source, retraction=True, log=alone)
        assert record == {**expected.model_dump(mode="json"), "log_seq": n + 1}
    assert [e.payload for e in open_log(log).entries()] == [
        e.payload for e in open_log(alone).entries()
    ]
    assert [o.payload for o in outcomes] == [e.payload for e in open_log(log).entries()]


def test_a_log_that_cannot_be_written_leaves_the_result_beside_its_error(tmp_path: Path) -> None:
    """The check ran: ``run`` returns its result with the log's error, and the doors that
    cannot show a result the log did not record raise that error, holding the result."""
    from citeproof.service.pipeline import Pipeline

    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    options = CheckOptions(log=True, log_path=str(blocker / "evidence.jsonl"))
    quote = QUOTES[ARTICLE][0]
    checked = Pipeline(options).run(quote, ARTICLE)
    assert checked.log_error is not None
    assert checked.outcome.verdict == "EXACT" and checked.outcome.log_seq is None
    assert checked.json() == _library(quote, ARTICLE)
    with pytest.raises(EvidenceNotRecordedError, match="evidence"):
        Pipeline(options).check(quote, ARTICLE)
    with pytest.raises(EvidenceNotRecordedError) as raised:
        citeproof.check(quote, ARTICLE, log=blocker / "evidence.jsonl")
    # The library's caller keeps what the check found: the result and the text ride the error,
    # whose message and exit code are the log's own.
    assert str(raised.value) == str(checked.log_error)
    assert type(raised.value.cause) is type(checked.log_error)
    assert raised.value.exit_code == checked.log_error.exit_code
    assert raised.value.result.model_dump(mode="json") == checked.json()
    assert quote in raised.value.text
