"""Where a batch's result lines go, and what ``--resume`` reads back from there.

Output lines are written whole (one ``write`` each, on a file opened for appending), so a batch
killed at any moment leaves whole lines, plus at worst one torn last line that ``--resume``
cuts off before going on.  The same sink and the same rules serve ``citeproof batch``,
``citeproof audit --batch`` and ``citeproof refs -o``.

Nothing a user wrote is lost to an output file: :class:`ResultSink` refuses, before it opens
anything, an output that is one of the inputs (the same file by any name), a folder, and a
file that already holds lines unless ``--resume`` (go on from what it holds) or
``--overwrite`` (replace it) says what to do with them.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from citeproof.errors import BadInputError

__all__ = ["ResultSink", "check_output", "count_lines", "done_ids", "open_input", "whole_lines"]


def done_ids(path: Path) -> set[str]:
    """Ids already in ``path`` (as ``json.dumps`` of the id); a torn last line is cut off."""
    if not path.exists():
        return set()
    done: set[str] = set()
    good_end = 0
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            if not raw.endswith(b"\n"):
                break  # a torn last line: dropped below
            try:
                record = json.loads(raw)
                done.add(json.dumps(record["id"]))
            except (ValueError, KeyError, TypeError, RecursionError):
                # RecursionError: a line nested too deep for the parser is no result line.
                raise BadInputError(
                    f"line {number} of {path} is not a result line, so --resume cannot tell "
                    "what was done; fix or move the file."
                ) from None
            good_end += len(raw)
    if good_end < path.stat().st_size:
        os.truncate(path, good_end)
    return done


def open_input(path: str) -> IO[bytes]:
    """The input file, or the binary standard input for ``"-"``."""
    if path == "-":
        return sys.stdin.buffer
    return Path(path).open("rb")


def count_lines(path: str) -> int | None:
    """How many non-blank lines the input has (None for standard input, which is read once)."""
    if path == "-":
        return None
    with open(path, "rb") as fh:
        return sum(1 for line in fh if line.strip())


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet), or cannot be looked at
        return False


def check_output(
    output: str, inputs: Iterable[str] = (), *, resume: bool = False, overwrite: bool = False
) -> None:
    """Refuse an output that would lose what a user wrote (see the module docstring).

    Raises:
        BadInputError: ``output`` is a folder or one of ``inputs``; or it already holds
            lines and neither ``resume`` nor ``overwrite`` is given; or both are given.
    """
    if output == "-":
        return
    if resume and overwrite:
        raise BadInputError(
            "--resume keeps what the output holds and --overwrite replaces it; give one."
        )
    if os.path.isdir(output):
        raise BadInputError(
            f"the output {output} is a folder; give a file for -o, such as "
            f"{os.path.join(output, 'results.jsonl')}."
        )
    for source in inputs:
        if source != "-" and _same_file(source, output):
            raise BadInputError(
                f"the output {output} is the input {source}: writing results there would "
                "erase it; give another -o FILE."
            )
    if resume or overwrite:
        return
    try:
        info = os.stat(output)
    except OSError:
        return  # not there yet (or unreadable: opening it will say so)
    if stat.S_ISREG(info.st_mode) and info.st_size > 0:
        raise BadInputError(
            f"the output {output} already holds results; add --resume to go on from them, "
            "or --overwrite to replace them."
        )


def whole_lines(path: str) -> int:
    """How many whole lines the file holds (the file, not a count kept beside the writes:
    Ctrl-C lands between a write and the next statement as often as not)."""
    lines = 0
    try:
        with open(path, "rb") as fh:
            while piece := fh.read(1 << 20):
                lines += piece.count(b"\n")
    except OSError:
        pass
    return lines


class ResultSink:
    """Result lines, each written with one ``write`` (a file) or written and flushed
    (``stdout``, the binary standard output; looked up by the caller).

    Opening a file checks it first (:func:`check_output` with ``inputs``, ``resume`` and
    ``overwrite``); with ``resume``, :attr:`done` holds the ids it already has (see
    :func:`done_ids`).  :attr:`written` counts the lines this sink wrote; :meth:`stopped`
    says how far an interrupted run got.
    """

    def __init__(
        self,
        output: str,
        resume: bool,
        stdout: IO[bytes] | None = None,
        *,
        overwrite: bool = False,
        inputs: Iterable[str] = (),
    ) -> None:
        self.output = output
        self.done: set[str] = set()
        self.written = 0
        self._fd: int | None = None
        self._stdout = stdout
        if output == "-":
            return
        check_output(output, inputs, resume=resume, overwrite=overwrite)
        if resume:
            self.done = done_ids(Path(output))
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
        if not resume:
            flags |= os.O_TRUNC
        try:
            self._fd = os.open(output, flags, 0o644)
        except OSError as err:
            raise BadInputError(
                f"cannot write the output {output}: {err.strerror or err}; give another -o FILE."
            ) from None

    def write(self, text: str) -> None:
        # A lone surrogate (from a "\\ud800" escape in the input) becomes that same escape,
        # so every line stays valid UTF-8 and valid JSON.
        line = (text + "\n").encode("utf-8", "backslashreplace")
        if self._fd is None:
            out = self._stdout if self._stdout is not None else sys.stdout.buffer
            out.write(line)
            out.flush()
        else:
            view = memoryview(line)
            while view:  # a regular file takes the line whole; the loop only guards odd files
                view = view[os.write(self._fd, view) :]
        self.written += 1

    def stopped(self, total: int | None) -> str:
        """What an interrupted run says: how far it got, and how to go on.

        ``total`` is how many lines the input has (None when unknown: standard input).
        """
        of = f" of {total:,}" if total is not None else ""
        if self.output == "-":
            return (
                f"interrupted: {self.written:,}{of} lines written to standard output; write to "
                "a file (-o FILE) to be able to go on later with --resume."
            )
        return (
            f"interrupted: {whole_lines(self.output):,}{of} lines written to {self.output}; "
            "run the same command with --resume to go on from there."
        )

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
