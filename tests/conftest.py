"""Shared test settings and fixtures.

* Hypothesis: one profile sets every property test's example count (no test sets its own).
  ``default`` keeps the README's run quick; ``ci`` (``--hypothesis-profile=ci``, what
  ``.ci/run`` uses) searches more; ``thorough`` searches much more, by hand.
  ``HYPOTHESIS_PROFILE=NAME`` chooses one too.
* No test reaches the network (the socket guard below).
* Every test runs in its own ``CITEPROOF_HOME`` (``_private_home``); a test that looks into
  its home asks for ``home``, and one that runs the command line asks for ``run_cli``.
* ``--require-corpus`` turns a skip for want of ``../shared`` into a failure (CI).
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

if TYPE_CHECKING:
    import click
    from click.testing import Result

_HYPOTHESIS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}
settings.register_profile("default", max_examples=100, **_HYPOTHESIS)
settings.register_profile("ci", max_examples=500, **_HYPOTHESIS)
settings.register_profile("thorough", max_examples=3000, **_HYPOTHESIS)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# No test may open a network connection except to loopback: sources are tested through
# recorded responses and mock transports, the SSRF guard through an injected resolver.
# This net catches a test that would otherwise reach the network by accident.
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _refuse_remote(address: object) -> None:
    if not isinstance(address, tuple) or not address:
        return  # AF_UNIX and the like
    host = str(address[0])
    try:
        loopback = ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise OSError(f"tests may not connect to {host}: only loopback is allowed")


def _guarded_connect(self: socket.socket, address: object) -> None:
    _refuse_remote(address)
    _real_connect(self, address)  # type: ignore[arg-type]


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    _refuse_remote(address)
    return _real_connect_ex(self, address)  # type: ignore[arg-type]


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test gets its own CITEPROOF_HOME, and no CITEPROOF_* setting of the machine.

    Commands write to the cache, the evidence log and the key directory by default; without
    this a test would write into the user's own directories (and read what earlier runs left
    there).  A test that needs a particular home sets its own, which wins.
    """
    home = tmp_path_factory.mktemp("home")
    saved = {k: v for k, v in os.environ.items() if k.startswith("CITEPROOF_")}
    for name in saved:
        del os.environ[name]
    os.environ["CITEPROOF_HOME"] = str(home)
    try:
        yield home
    finally:
        for name in [k for k in os.environ if k.startswith("CITEPROOF_")]:
            del os.environ[name]
        os.environ.update(saved)


@pytest.fixture
def home(_private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An isolated citeproof home, ``tmp_path / "home"``, not yet created.

    ``CITEPROOF_HOME`` points at it (the cache, the evidence log and the keys live under it)
    and no other ``CITEPROOF_*`` setting is set (``_private_home`` removed them).  A test
    that needs something more (a filled cache, a contact address) adds it in its module.
    """
    root = tmp_path / "home"
    monkeypatch.setenv("CITEPROOF_HOME", str(root))
    return root


class CliRun:
    """Runs a citeproof command in-process, as a user types it: ``run_cli("check", ...)``.

    Arguments are turned into strings (paths may be given as they are).  An exception the
    command raises propagates, so a traceback fails the test as the bug it is; a test about
    crashes passes ``catch_exceptions=True`` and reads ``result.exception``.  ``command``
    runs one command group alone (``citeproof.cli.log.log``) instead of ``citeproof``; the
    rest goes to ``click.testing.CliRunner.invoke`` (``input``, ``env``, ``terminal_width``).
    """

    def __call__(
        self,
        *args: str | Path,
        input: str | bytes | None = None,
        env: dict[str, str] | None = None,
        catch_exceptions: bool = False,
        command: click.Command | None = None,
        **invoke: Any,
    ) -> Result:
        from click.testing import CliRunner

        from citeproof.cli import cli

        return CliRunner().invoke(
            command or cli,
            [str(a) for a in args],
            input=input,
            env=env,
            catch_exceptions=catch_exceptions,
            **invoke,
        )

    def json(self, *args: str | Path, **options: Any) -> tuple[int, Any]:
        """The exit code and the JSON the command printed on stdout."""
        import json

        result = self(*args, **options)
        return result.exit_code, json.loads(result.stdout)


@pytest.fixture(scope="session")
def run_cli() -> CliRun:
    """citeproof's command line, run in-process (:class:`CliRun`; it holds no state)."""
    return CliRun()


# --require-corpus: CI runs with ../shared beside the repository, where a test that skips for
# want of the corpus (or a corpus test that skips for any reason) means the corpus layer
# silently stopped testing something. This switch makes such a skip a failure.
_CORPUS_DIR = Path(__file__).resolve().parent / "corpus"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--require-corpus",
        action="store_true",
        help="fail (not skip) any test that needs ../shared or lives in tests/corpus and skips",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or not item.config.getoption("--require-corpus"):
        return
    reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else ""
    in_corpus_tests = Path(str(item.fspath)).resolve().is_relative_to(_CORPUS_DIR)
    if in_corpus_tests or "../shared" in reason:
        report.outcome = "failed"
        report.longrepr = f"skipped, but --require-corpus is set: {reason}"
