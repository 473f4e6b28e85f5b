"""The cores other processes leave idle do not count this process's children as others:
the fork server importing the workers' modules while the input is read is the run's own
work (``citeproof refs --index`` chose one worker on a quiet machine because of it)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from citeproof.batch import executors


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_living_childs_cpu_is_this_processs_own() -> None:
    started = executors._own_cpu()
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import time\nt = time.process_time()\n"
            "while time.process_time() - t < 0.6: pass\ntime.sleep(5)",
        ]
    )
    try:
        deadline = time.monotonic() + 20
        while executors._own_cpu() - started < 0.5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert executors._own_cpu() - started >= 0.5  # the child's busy loop, while it lives
    finally:
        child.kill()
        child.wait()
