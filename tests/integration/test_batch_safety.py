"""Nothing a user wrote is ever lost to a batch: ``citeproof batch``, ``audit --batch`` and
``refs -o`` refuse an output that is the input or already holds results, fail in one line on
a folder, an unreachable scheduler or a resume file they cannot read, say how far an
interrupted batch got, count its progress as lines finish, and fail an input of which nothing
could be checked (and an empty answer) instead of exiting 0.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import Result

from citeproof import batch
from citeproof.batch.output import done_ids
from citeproof.errors import BadInputError

if TYPE_CHECKING:
    from conftest import CliRun

REPO = Path(__file__).resolve().parents[2]
ARTICLE = str(REPO / "examples" / "example-article.nxml")
NOTES = str(REPO / "examples" / "example-notes.txt")
QUOTE = "fell asleep faster than those in the control group"
NEAR = "fell asleep much faster than those in the other group"


@pytest.fixture
def run(run_cli: CliRun) -> Callable[..., Result]:
    """The command as a user runs it; an exception is a failure of the test, shown as one."""
    return functools.partial(run_cli, catch_exceptions=True)


def crashed(result: Result) -> bool:
    """Whether the command raised (a traceback for a user), rather than exiting."""
    return result.exception is not None and not isinstance(result.exception, SystemExit)


def one_error_line(result: Result) -> str:
    """The command failed with exit 2 and one ``citeproof: error:`` line, no traceback."""
    assert not crashed(result), result.exception
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("citeproof: error: "), result.stderr
    return lines[0]


def checks(folder: Path) -> Path:
    path = folder / "checks.jsonl"
    path.write_text(
        "".join(json.dumps({"id": n, "quote": QUOTE, "source": ARTICLE}) + "\n" for n in range(2))
    )
    return path


def answers(folder: Path) -> Path:
    path = folder / "answers.jsonl"
    path.write_text(json.dumps({"id": "a", "answer": "An uncited claim about sleep."}) + "\n")
    return path


def references(folder: Path) -> Path:
    path = folder / "references.txt"
    path.write_text("1. Smith J. A study of sleep and walking. J Sleep Res. 2020.\n")
    return path


#: Each command that writes result lines to ``-o``: its words before ``-o``, and its input.
COMMANDS: dict[str, tuple[Callable[[Path], tuple[str | Path, ...]], Callable[[Path], Path]]] = {
    "batch": (lambda inp: ("batch", inp, "--quiet"), checks),
    "audit --batch": (lambda inp: ("audit", "--batch", inp, "--offline"), answers),
    "refs": (lambda inp: ("refs", inp, "--offline", "--no-log", "--quiet"), references),
}


# ------------------------------------------------------------------------ the output


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_output_that_is_the_input_is_refused_and_the_input_kept(
    run: Callable[..., Result], tmp_path: Path, name: str
) -> None:
    """``batch in.jsonl -o in.jsonl`` used to truncate the input and exit 0."""
    command, make = COMMANDS[name]
    inp = make(tmp_path)
    before = inp.read_bytes()
    line = one_error_line(run(*command(inp), "-o", inp))
    assert "is the input" in line
    assert inp.read_bytes() == before
    # By another name too (a link): the same file is the same file.
    link = tmp_path / "link.jsonl"
    link.symlink_to(inp)
    for flags in ((), ("--resume",), ("--overwrite",)):
        assert "is the input" in one_error_line(run(*command(inp), "-o", link, *flags))
    assert inp.read_bytes() == before


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_an_output_holding_results_needs_resume_or_overwrite(
    run: Callable[..., Result], tmp_path: Path, name: str
) -> None:
    """Rerunning without ``--resume`` used to erase the earlier results."""
    command, make = COMMANDS[name]
    inp = make(tmp_path)
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"")  # an empty file is no one's results
    first = run(*command(inp), "-o", out)
    assert first.exit_code != 2 and not crashed(first), first.output
    results = out.read_bytes()
    assert results
    line = one_error_line(run(*command(inp), "-o", out))
    assert "--resume" in line and "--overwrite" in line
    assert out.read_bytes() == results
    assert "give one" in one_error_line(run(*command(inp), "-o", out, "--resume", "--overwrite"))
    again = run(*command(inp), "-o", out, "--overwrite")
    assert again.exit_code == first.exit_code and not crashed(again), again.output
    assert len(out.read_bytes().splitlines()) == len(results.splitlines())


def test_an_output_folder_is_one_line(run: Callable[..., Result], tmp_path: Path) -> None:
    inp = checks(tmp_path)
    assert "is a folder" in one_error_line(run("batch", inp, "-o", tmp_path))
    assert "is a folder" in one_error_line(
        run("audit", "--batch", answers(tmp_path), "-o", tmp_path)
    )
    assert "cannot write" in one_error_line(run("batch", inp, "-o", tmp_path / "no" / "x.jsonl"))


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line_and_fast(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    """It used to wait distributed's 30 s, then print a traceback."""
    pytest.importorskip("distributed")
    with socket.socket() as free:  # a loopback port nothing listens on
        free.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{free.getsockname()[1]}"
    inp = checks(tmp_path)
    started = time.monotonic()
    result = run("batch", inp, "--executor", "dask", "--scheduler", address, "--quiet")
    assert time.monotonic() - started < 20
    line = one_error_line(result)
    assert f"cannot reach the Dask scheduler at {address}" in line
    bad = run("batch", inp, "--executor", "dask", "--scheduler", "nowhere", "--quiet")
    assert "is not a scheduler address" in one_error_line(bad)


def test_resume_refuses_a_line_nested_too_deep(run: Callable[..., Result], tmp_path: Path) -> None:
    """A line nested 1,000 deep used to raise RecursionError out of ``--resume``."""
    inp = checks(tmp_path)
    out = tmp_path / "out.jsonl"
    deep = '{"id": ' + "[" * 1000 + "]" * 1000 + "}\n"
    for text in ('{"id": "a", "verdict": "EXACT"}\n' + deep, "[" * 100_000 + "\n"):
        out.write_text(text)
        with pytest.raises(BadInputError, match="is not a result line"):
            done_ids(out)
        line = one_error_line(run("batch", inp, "-o", out, "--resume", "--quiet"))
        assert "is not a result line" in line
        assert out.read_text() == text


# ------------------------------------------------------------------------ Ctrl-C


@pytest.mark.slow
def test_ctrl_c_says_how_far_the_batch_got_and_resume_goes_on(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    """Ctrl-C used to print ``Aborted!`` (and every worker's traceback) and exit 1."""
    rows = [
        {"id": n, "quote": QUOTE if n % 2 else NEAR, "source": ARTICLE if n % 3 else NOTES}
        for n in range(14_000)
    ]
    inp = tmp_path / "in.jsonl"
    inp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "citeproof", "batch", str(inp), "-o", str(out)]
    process = subprocess.Popen(
        [*command, "--workers", "2", "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.stat().st_size == 0):
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C does: the parent and its workers
    _, stderr = process.communicate(timeout=120)
    text = stderr.decode()
    written = out.read_bytes().count(b"\n")
    assert process.returncode == 130, text
    assert 0 < written < len(rows), "the batch should have been cut short"
    assert text.splitlines() == [
        f"citeproof: interrupted: {written:,} of {len(rows):,} lines written to {out}; run the "
        "same command with --resume to go on from there."
    ]
    resumed = run("batch", inp, "-o", out, "--resume", "--quiet")
    assert resumed.exit_code == 0, resumed.output
    whole = tmp_path / "whole.jsonl"
    assert run("batch", inp, "-o", whole, "--quiet").exit_code == 0
    assert out.read_bytes() == whole.read_bytes()


# ------------------------------------------------------------------------ progress


def test_lines_are_counted_as_they_finish_not_as_a_chunk_is_written() -> None:
    """In input order a chunk's results come out together; the bar moved in steps of 2,000."""
    items = [{"id": n, "quote": QUOTE, "source": ARTICLE if n % 2 else NOTES} for n in range(1_000)]
    events: list[tuple[str, int]] = []
    for _ in batch.run(
        items, workers=1, chunk_lines=500, on_done=lambda n: events.append(("done", n))
    ):
        events.append(("out", 1))
    first_out = events.index(("out", 1))
    before = [n for kind, n in events[:first_out] if kind == "done"]
    assert len(before) >= 2 and sum(before) == 500  # each source's group, as it finished
    assert sum(n for kind, n in events if kind == "done") == len(items)


def test_the_time_left_comes_from_the_measured_rate() -> None:
    """2,000 results at a time once showed 0:00:01 left with 15,000 lines to go at 619/s:
    rich keeps its last 1,000 updates, all from one burst."""
    from rich.console import Console

    from citeproof.cli.batch import progress_bar

    clock = [0.0]
    out = StringIO()
    console = Console(file=out, force_terminal=True, width=160, get_time=lambda: clock[0])
    counts: Counter[str] = Counter()
    with progress_bar(total=25_000, skipped=0, console=console) as advance:
        for _ in range(5):  # 2,000 results at once, every 3.2 s
            clock[0] += 3.2
            for _ in range(2_000):
                counts["EXACT"] += 1
                advance(counts)
        clock[0] = 20.0  # 10,000 done in 20 s: 500 a second, 15,000 to go
    last = [line for line in out.getvalue().splitlines() if "/25000" in line][-1]
    assert "10000/25000" in last and "500/s" in last and "0:00:30" in last, last


# ------------------------------------------------------------------------ nothing checked


def test_a_batch_of_which_no_line_could_be_checked_fails(
    run: Callable[..., Result], tmp_path: Path
) -> None:
    """``citeproof batch README.md`` wrote an error record per line and exited 0."""
    readme = REPO / "README.md"
    out = tmp_path / "out.jsonl"
    line = one_error_line(run("batch", readme, "-o", out, "--quiet"))
    assert f"no line of {readme} could be checked" in line and "not_json" in line
    assert out.read_text().count("\n") == sum(1 for x in readme.open("rb") if x.strip())
    missing = json.dumps({"quote": QUOTE, "source": str(tmp_path / "gone.txt")}) + "\n"
    assert "bad_source" in one_error_line(run("batch", "-", input=missing.encode()))
    assert "no lines to check" in one_error_line(run("batch", "-", input=b"\n"))
    line = one_error_line(run("audit", "--batch", readme, "-o", tmp_path / "a.jsonl"))
    assert "could be audited" in line
    # One line that is a check is enough; and a resumed batch with nothing left is done.
    inp = checks(tmp_path)
    assert run("batch", inp, "-o", tmp_path / "r.jsonl", "--quiet").exit_code == 0
    assert run("batch", inp, "-o", tmp_path / "r.jsonl", "--resume", "--quiet").exit_code == 0


@pytest.mark.parametrize("text", [b"", b"  \n\t\n", b"\xef\xbb\xbf\n"])
def test_an_empty_answer_is_bad_input_not_a_pass(
    run: Callable[..., Result], tmp_path: Path, text: bytes
) -> None:
    path = tmp_path / "answer.md"
    path.write_bytes(text)
    assert "is empty" in one_error_line(run("audit", path, "--offline", "--no-log"))
    assert "is empty" in one_error_line(run("audit", "-", "--no-log", input=text))


# ------------------------------------------------------------------------ help


@pytest.mark.parametrize(
    "command", [("batch",), ("audit",), ("audit", "verify"), ("demo",), ("refs",)]
)
def test_the_help_shows_examples(run: Callable[..., Result], command: tuple[str, ...]) -> None:
    shown = run(*command, "--help").output
    assert "\n  Examples:\n    citeproof " + command[0] in shown
