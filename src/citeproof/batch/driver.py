"""What every batch command does around its work, written once: the requests it refuses, the
input it reads, the output it writes and resumes, and how it ends.

``citeproof batch``, ``citeproof audit --batch`` and ``citeproof refs -o`` differ in their
work (checks, audits, reference lists) and share the rest, which used to be written in each
command: ``--resume`` needs a file to read, ``--scheduler`` needs Dask, the input must be a
file or ``-``; the output is a :class:`~citeproof.batch.output.ResultSink` (it refuses to
write over an input, a folder or results it was not told to resume or replace); Ctrl-C ends
the run with one line saying how far it got (a command exits 130); and an input of which no
line could be done is a failure of the input, not a run that went well (a command exits 2,
naming the first error).  The commands parse their options, hand their work to a
:class:`LineBatch` (or, for reference lists, call :func:`refuse_request` and hold a sink)
and render the :class:`Ending` it returns.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import IO, Any

from citeproof.batch.output import ResultSink, count_lines, open_input
from citeproof.errors import BadInputError

__all__ = ["Ending", "LineBatch", "Lines", "Work", "refuse_request"]

#: The output lines as the work gives them: each line's JSON text, and its verdict (None:
#: an error record, which the line's input earned).
Lines = Generator[tuple[str, str | None], None, None]


def refuse_request(
    *,
    resume: bool,
    to_file: bool,
    executor: str = "local",
    scheduler: str | None = None,
    input_path: str | None = None,
) -> None:
    """Refuse, before any work, what a batch cannot do: ``--resume`` without an output file
    to read, ``--scheduler`` without Dask, an input that is neither a file nor ``-``."""
    if resume and not to_file:
        raise BadInputError("--resume needs --output FILE: it reads what that file holds.")
    if scheduler is not None and executor != "dask":
        raise BadInputError("--scheduler is for --executor dask.")
    if input_path is not None and input_path != "-" and not Path(input_path).is_file():
        raise BadInputError(f"there is no input file {input_path}; give a JSONL file or '-'.")


@dataclass(frozen=True, slots=True)
class Work:
    """What a line of the input is to the messages: ``verb`` ("check"), the ``item`` a line
    holds ("answer"), its ``shape`` ("{id?, answer, format?}"), and the key under which
    error records are counted."""

    verb: str
    item: str
    shape: str
    error_key: str


@dataclass(slots=True)
class Ending:
    """How a run ended: the verdicts counted (error records under the work's key), the ids
    skipped as already done, the seconds it took, and, when Ctrl-C stopped it, the line that
    says how far it got.  ``nothing_done`` says that no line of the input could be done
    (every one an error record, or none at all, and ``--resume`` found no earlier results):
    a failure of the input, not a run that went well; ``first_error`` is then the first
    error record, or None for an input without lines."""

    counts: Counter[str] = field(default_factory=Counter)
    skipped: int = 0
    seconds: float = 0.0
    interrupted: str | None = None
    nothing_done: bool = False
    first_error: dict[str, Any] | None = None


class LineBatch:
    """One JSONL batch's input and output: opened and checked when made (the output first:
    see :class:`~citeproof.batch.output.ResultSink`), then :meth:`drive` writes each line the
    work yields and says how the run ended.  ``done`` holds the ids ``--resume`` skips."""

    def __init__(
        self,
        input_path: str,
        output: str,
        work: Work,
        *,
        resume: bool,
        overwrite: bool,
        stdout: IO[bytes] | None = None,
    ) -> None:
        self.input_path = input_path
        self.work = work
        self.sink = ResultSink(
            output, resume, stdout=stdout, overwrite=overwrite, inputs=(input_path,)
        )
        self.done = self.sink.done
        self.input = open_input(input_path)

    @cached_property
    def total(self) -> int | None:
        """The input's non-blank lines (None for standard input, which is read once)."""
        return count_lines(self.input_path)

    def drive(
        self,
        lines: Lines,
        on_line: Callable[[str, str | None, Counter[str]], None] | None = None,
    ) -> Ending:
        """Write every line the work yields, counting verdicts (``on_line`` sees each, with
        the counts so far), and say how the run ended.  ``lines`` is a generator, closed at
        Ctrl-C, which stops the work's workers at once."""
        ending = Ending(skipped=len(self.done))
        started = time.monotonic()
        first_error: str | None = None
        key = self.work.error_key
        try:
            with closing(lines) as written:
                for text, verdict in written:
                    self.sink.write(text)
                    ending.counts[verdict or key] += 1
                    if verdict is None and first_error is None:
                        first_error = text
                    if on_line is not None:
                        on_line(text, verdict, ending.counts)
        except KeyboardInterrupt:
            ending.interrupted = self.sink.stopped(self.total)
            return ending
        finally:
            if self.input_path != "-":
                self.input.close()
            self.sink.close()
        ending.seconds = time.monotonic() - started
        if not self.done and ending.counts[key] == sum(ending.counts.values()):
            ending.nothing_done = True
            ending.first_error = json.loads(first_error) if first_error is not None else None
        return ending
