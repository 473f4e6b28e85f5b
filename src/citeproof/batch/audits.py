"""Auditing many answers: ``citeproof audit --batch answers.jsonl -o reports.jsonl``.

Teams evaluating a model audit its answers by the thousand, so this follows ``citeproof
batch``: the input is read line by line with the same strict rules (a bad line is that
line's error record, the batch goes on), each output line is one signed report with the
input's id, output lines are written whole so ``--resume`` can skip what is done, and the
answers are audited on worker processes (an audit is mostly matching, i.e. CPU).

An input line is ``{"id": ..., "answer": "...", "format": "auto|markdown|json"}`` (``id`` and
``format`` optional).
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

from citeproof.audit.run import audit_answer
from citeproof.batch.executors import Runner
from citeproof.batch.jsonl import InvalidLineError, LineError, parse_object_line, string_field
from citeproof.errors import CiteproofError

__all__ = ["AnswerItem", "audit_lines", "parse_answer_line"]

_FIELDS: Final = frozenset({"id", "answer", "format"})
_FORMATS: Final = ("auto", "markdown", "json")
#: Answers in flight at once: enough to keep the workers busy, few enough to bound memory.
_WINDOW: Final = 64


@dataclass(frozen=True, slots=True)
class AnswerItem:
    line: int
    id: str | int
    answer: str
    format: str = "auto"


def parse_answer_line(raw: bytes, line: int) -> AnswerItem | LineError | None:
    """One input line as an answer to audit, an error, or None when blank."""

    def build(obj: dict[str, Any], item_id: str | int) -> AnswerItem:
        answer = string_field(obj, "answer", required=True)
        fmt = string_field(obj, "format", required=False) or "auto"
        if fmt not in _FORMATS:
            raise InvalidLineError(
                "bad_field", f"'format' must be one of {', '.join(_FORMATS)}, not {fmt!r}"
            )
        assert answer is not None
        return AnswerItem(line, item_id, answer, fmt)

    return parse_object_line(raw, line, _FIELDS, build)


@dataclass(frozen=True, slots=True)
class _Options:
    offline: bool
    replay: str | None
    retraction: bool
    fail_on: tuple[str, ...] | None


def _audit_one(item: AnswerItem, options: _Options) -> tuple[str, str | None]:
    """(the output line, the verdict) for one answer; runs on a worker process."""
    try:
        report = audit_answer(
            item.answer,
            input_format=item.format,  # type: ignore[arg-type]  # checked when parsed
            offline=options.offline,
            replay=options.replay,
            retraction=options.retraction,
            fail_on=list(options.fail_on) if options.fail_on is not None else None,
        )
    except CiteproofError as err:
        record = LineError(item.line, "bad_answer", str(err), item.id).record()
        return json.dumps(record, ensure_ascii=False, separators=(",", ":")), None
    data = {"id": item.id, **report.model_dump(mode="json")}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")), report.verdict


def audit_lines(
    lines: Iterable[bytes],
    *,
    workers: int = 1,
    offline: bool = False,
    replay: str | os.PathLike[str] | None = None,
    retraction: bool = True,
    fail_on: Iterable[str] | None = None,
    skip: set[str] | frozenset[str] = frozenset(),
) -> Generator[tuple[str, str | None], None, None]:
    """(output line, verdict or None for an error) per input line, in input order.

    ``workers`` worker processes run the audits (1: this process); ``skip`` holds the ids (as
    ``json.dumps`` of the id) already done.
    """
    options = _Options(
        offline,
        os.fspath(replay) if replay is not None else None,
        retraction,
        tuple(fail_on) if fail_on is not None else None,
    )
    runner = Runner("local", workers)
    finished = False
    try:
        yield from _audit_all(lines, runner, options, skip)
        finished = True
    finally:
        runner.close(abandon=not finished)  # given up midway (Ctrl-C): stop the workers now


def _audit_all(
    lines: Iterable[bytes], runner: Runner, options: _Options, skip: set[str] | frozenset[str]
) -> Iterator[tuple[str, str | None]]:
    pending: list[Any] = []
    for number, raw in enumerate(lines, 1):
        parsed = parse_answer_line(raw, number)
        if parsed is None:
            continue
        key = json.dumps(parsed.id if parsed.id is not None else parsed.line)
        if key in skip:
            continue
        if isinstance(parsed, LineError):
            text = json.dumps(parsed.record(), ensure_ascii=False, separators=(",", ":"))
            pending.append(text)
        else:
            pending.append(runner.submit(_audit_one, parsed, options))
        while len(pending) > _WINDOW:
            yield _result(pending.pop(0))
    for entry in pending:
        yield _result(entry)


def _result(entry: Any) -> tuple[str, str | None]:
    if isinstance(entry, str):
        return entry, None
    done: tuple[str, str | None] = entry.result()
    return done
