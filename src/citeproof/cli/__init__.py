"""The ``citeproof`` command line: a click group whose subcommands are imported on demand.

Why lazy: ``citeproof --help`` and ``citeproof --version`` should answer at once, and the
heavy dependencies (pydantic, lxml, rapidfuzz, pypdfium2, rich) are only needed by the
command that actually runs.  This module therefore imports click and the (dependency-free)
error tree, nothing else; each command module imports the rest inside its function body.
The pattern is click's documented LazyGroup.

Expected failures (``CiteproofError``) are caught here, once, for every command: the message
goes to stderr as ``citeproof: error: <message>`` and the process exits with the error's
code (2), never with a traceback.  Usage errors (a bad option value, an unknown option or
command, a missing argument) end the same way: click's own report is three or four lines
(``Usage:``, ``Try ...``, a blank line, ``Error: ...``), which a script reading stderr line by
line cannot use, so :class:`LazyGroup` turns every ``click.UsageError`` into one line that
says what was wrong and which ``--help`` to read (:func:`usage_line`).  The help named is
that of the command the user typed: a hidden default command (``audit``'s ``run``) sends
the user to its group's help.  citeproof's own warnings (``CiteproofWarning``: a key
file other users can read) go to stderr the same way, as one ``citeproof: warning: <message>``
line each.

``--strict-keys`` sets ``CITEPROOF_STRICT_KEYS=1`` for the command (and whatever it starts:
batch workers, the MCP server): the store reads that variable where it loads a key, and the
command line may not import the store (``docs/architecture.md``).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import warnings
from collections.abc import Iterator, Sequence
from typing import IO, Any, TextIO

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog
from citeproof.errors import CiteproofError, CiteproofWarning, os_problem

__all__ = [
    "INTERRUPTED",
    "LazyGroup",
    "UsageLineError",
    "cli",
    "main",
    "own_warnings",
    "report_error",
    "report_interrupted",
    "reporting",
    "usage_line",
]

STRICT_KEYS_ENV = "CITEPROOF_STRICT_KEYS"  # citeproof.store.keys.STRICT_KEYS_ENV

COMMANDS: dict[str, str] = {
    "audit": "citeproof.cli.audit:audit",
    "batch": "citeproof.cli.batch:batch",
    "check": "citeproof.cli.check:check",
    "demo": "citeproof.cli.demo:demo",
    "index": "citeproof.cli.index:index",
    "text": "citeproof.cli.text:text",
    "cache": "citeproof.cli.cache:cache",
    "log": "citeproof.cli.log:log",
    "manuscript": "citeproof.cli.manuscript:manuscript",
    "mcp": "citeproof.cli.mcp:mcp",
    "passages": "citeproof.cli.passages:passages",
    "recheck": "citeproof.cli.recheck:recheck",
    "refs": "citeproof.cli.refs:refs",
    "record": "citeproof.cli.record:record",
    "retraction": "citeproof.cli.retraction:retraction",
    "retractions": "citeproof.cli.retraction:retractions",
    "schema": "citeproof.cli.schema:schema",
    "search": "citeproof.cli.search:search",
    "citing": "citeproof.cli.search:citing",
    "resolve": "citeproof.cli.resolve:resolve",
}


class LazyGroup(click.Group):
    """A group that imports a subcommand's module only when that subcommand is needed."""

    def __init__(
        self, *args: Any, lazy_subcommands: dict[str, str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands = dict(lazy_subcommands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_subcommands:
            return self._load(cmd_name)
        return super().get_command(ctx, cmd_name)

    def _load(self, cmd_name: str) -> click.Command:
        module_name, attribute = self.lazy_subcommands[cmd_name].split(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{module_name}:{attribute} is not a click command")
        return command

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: Any,
    ) -> click.Context:
        # The group's own options (``citeproof --bogus``) are parsed here, before invoke.
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:
            raise UsageLineError.of(exc) from exc

    def invoke(self, ctx: click.Context) -> Any:
        with reporting(ctx):
            try:
                return super().invoke(ctx)
            except click.UsageError as exc:  # a subcommand's options, or no such command
                raise UsageLineError.of(exc) from exc
            except OSError as exc:
                # What the file system refused on a path no step turned into a
                # CiteproofError (a folder where a file goes, no permission): still one line.
                report_error(ctx, CiteproofError(f"{os_problem(exc)}."))
            except (KeyboardInterrupt, click.Abort):
                # click's own handler prints "Aborted!" and exits 1, the code of a negative
                # verdict: a script would read an interrupted check as NEAR or NOT_FOUND.
                report_interrupted(ctx)


class UsageLineError(click.UsageError):
    """A usage error shown as the one line ``citeproof: error: <what> <which --help>``.

    Still a ``click.UsageError`` (exit 2), so a caller running the group with
    ``standalone_mode=False`` can catch it as before; only :meth:`show` differs.
    """

    @classmethod
    def of(cls, exc: click.UsageError) -> click.UsageError:
        """``exc`` as one line; help requested with no arguments stays the help page."""
        if isinstance(exc, UsageLineError | click.exceptions.NoArgsIsHelpError):
            return exc
        return cls(usage_line(exc), exc.ctx)

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"citeproof: error: {self.message}", file=file, err=file is None)


#: click 8.4 and later raise this for a command that does not exist (earlier: a UsageError).
_NO_SUCH_COMMAND: type[click.UsageError] = getattr(
    click.exceptions, "NoSuchCommand", UsageLineError
)


def _did_you_mean(ctx: click.Context, name: str) -> str:
    """`` Did you mean 'check'?`` for a mistyped command (the lazy group's commands are not
    in ``Group.commands``, where click looks for suggestions)."""
    import difflib

    if not name or not isinstance(ctx.command, click.Group):
        return ""
    close = difflib.get_close_matches(name, ctx.command.list_commands(ctx), n=2, cutoff=0.75)
    if not close:
        return ""
    return " Did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


def _typed(ctx: click.Context) -> click.Context:
    """The context of the command the user typed: a hidden command (one a group runs when
    its first word is no subcommand, like ``audit``'s ``run``) stands for its group."""
    while ctx.command.hidden and ctx.parent is not None:
        ctx = ctx.parent
    return ctx


def _about_arguments(exc: click.UsageError) -> bool:
    """Whether the error is about the positional arguments, so the usage line helps."""
    if isinstance(exc, click.MissingParameter):
        return exc.param is not None and isinstance(exc.param, click.Argument)
    # A plain UsageError is what commands raise for their arguments (``check``'s "missing
    # SOURCE") and what click raises for extra ones ("Got unexpected extra argument").
    return type(exc) in (click.UsageError, click.BadArgumentUsage)


def usage_line(exc: click.UsageError) -> str:
    """What was wrong and what to read next, as one line (without ``citeproof: error:``).

    An error about the arguments repeats the command's usage (``citeproof check [OPTIONS]
    QUOTE SOURCE``); every error ends with the ``--help`` of the command the user typed.
    """
    what = " ".join(exc.format_message().split()) or "the command line could not be read."
    if what[-1] not in ".?!":
        what += "."
    if exc.ctx is None:
        return f"{what} Try 'citeproof --help'."
    typed = _typed(exc.ctx)
    helping = f"'{typed.command_path} --help'"
    if isinstance(exc, _NO_SUCH_COMMAND):
        if "Did you mean" not in what:
            what += _did_you_mean(exc.ctx, str(getattr(exc, "command_name", "")))
        return f"{what} {helping} lists the commands."
    if isinstance(exc, click.NoSuchOption):
        return f"{what} {helping} lists the options."
    if _about_arguments(exc):
        usage = " ".join(exc.ctx.get_usage().split())
        return f"{what} {usage}; see {helping}."
    return f"{what} See {helping}."


@contextlib.contextmanager
def own_warnings() -> Iterator[None]:
    """While the block runs, print each :class:`CiteproofWarning` as one
    ``citeproof: warning: <message>`` line on stderr; other warnings are shown as before."""
    with warnings.catch_warnings():
        previous = warnings.showwarning

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            if issubclass(category, CiteproofWarning):
                text = " ".join(str(message).split())
                click.echo(f"citeproof: warning: {text}", err=True)
            else:
                previous(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        yield


#: The exit code of a command stopped by Ctrl-C (128 + SIGINT, the shell's convention), for
#: every command, the MCP server included (docs/cli.md, "Exit codes").
INTERRUPTED = 130


def report_interrupted(ctx: click.Context, what: str = "") -> None:
    """A command stopped by Ctrl-C: one ``citeproof: interrupted`` line and exit 130.

    ``what`` says how far it got (a batch: how many lines were written); without it the line
    says only that the command was stopped, since a result not printed was never computed.
    """
    tail = f": {what}" if what else " (Ctrl-C); nothing more was done."
    click.echo(f"citeproof: interrupted{tail}", err=True)
    ctx.exit(INTERRUPTED)


@contextlib.contextmanager
def reporting(ctx: click.Context) -> Iterator[None]:
    """Run a command with its expected failures printed as one line and its exit code, and
    its warnings as one line each: every command under the main group, and a group run on
    its own (``log``)."""
    with own_warnings():
        try:
            yield
        except CiteproofError as exc:
            report_error(ctx, exc)


def report_error(ctx: click.Context, exc: CiteproofError) -> None:
    """Print an expected failure as one line on stderr and exit with its code."""
    # One line, whatever the message holds: scripts read stderr line by line.
    message = " ".join(str(exc).split()) or type(exc).__name__
    click.echo(f"citeproof: error: {message}", err=True)
    ctx.exit(exc.exit_code)


@click.group(
    "citeproof",  # also the program's name where no prog_name is given (click's CliRunner)
    cls=LazyGroup,
    lazy_subcommands=COMMANDS,
    context_settings=CONTEXT_SETTINGS,
    epilog=epilog(
        'citeproof check "fell asleep faster than those in the control group" paper.pdf',
        'citeproof check "the quoted words" PMC3166277',
        "citeproof resolve 10.1371/journal.pone.0340378",
        "citeproof audit answer.md --html audit.html",
        exit_codes="Exit codes: 0 success (check: EXACT), 1 a negative result, 2 usage or bad "
        "input, 3 a source was unavailable.",
    ),
)
@click.version_option(
    package_name="citeproof", prog_name="citeproof", message="%(prog)s %(version)s"
)
@click.option(
    "--strict-keys",
    is_flag=True,
    help="Refuse a key file other users can read or change, instead of warning (as "
    f"{STRICT_KEYS_ENV}=1 does).",
)
def cli(strict_keys: bool) -> None:
    """Check that a quoted passage really appears in the cited source.

    The source is a local document (JATS XML, HTML, PDF or plain text) or a work named by an
    identifier: a DOI, PMID, PMCID, NCT number, openFDA set id, Europe PMC preprint (PPR) id
    or URL, whose best available text is fetched once and pinned in the cache. citeproof
    finds the quote in that text, says where it is, or shows the closest passage and what
    differs. It never judges whether a passage supports a claim.
    """
    if strict_keys:
        os.environ[STRICT_KEYS_ENV] = "1"


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script and ``python -m citeproof`` entry point."""
    cli.main(args=list(argv) if argv is not None else None, prog_name="citeproof")
