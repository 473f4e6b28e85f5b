"""Where a batch's result lines go, and what ``--resume`` reads back from there.

Output lines are written whole (one ``write`` each, on a file opened for appending), so a batch
killed at any moment leaves whole lines, plus at worst one torn last line that ``--resume``
cuts off before going on.  The same sink and the same resume rule serve ``citeproof batch``
and ``citeproof audit --batch``.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO

from citeproof.errors import BadInputError

__all__ = ["ResultSink", "count_lines", "done_ids", "open_input"]


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
            except (ValueError, KeyError, TypeError):
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


class ResultSink:
    """Result lines, each written with one ``write`` (a file) or written and flushed
    (``stdout``, the binary standard output; looked up by the caller)."""

    def __init__(self, output: str, resume: bool, stdout: IO[bytes] | None = None) -> None:
        self._fd: int | None = None
        self._stdout = stdout
        if output != "-":
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND
            if not resume:
                flags |= os.O_TRUNC
            self._fd = os.open(output, flags, 0o644)

    def write(self, text: str) -> None:
        # A lone surrogate (from a "\\ud800" escape in the input) becomes that same escape,
        # so every line stays valid UTF-8 and valid JSON.
        line = (text + "\n").encode("utf-8", "backslashreplace")
        if self._fd is None:
            out = self._stdout if self._stdout is not None else sys.stdout.buffer
            out.write(line)
            out.flush()
            return
        view = memoryview(line)
        while view:  # a regular file takes the line whole; the loop only guards odd files
            view = view[os.write(self._fd, view) :]

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
