"""``citeproof log``: verify, sign, prove, repair, annotate and read the evidence log.

Why a command for it: the log is only worth keeping if someone can check it.  A user hands
a checkpoint (``log checkpoint``) and the public key (``log key``) to whoever reads their
report; later ``log verify --checkpoint`` proves the log still begins with the entries the
checkpoint signed, and ``log prove SEQ`` produces a bundle that ``log verify-proof`` checks
without the log at all.

Module level imports click only (``citeproof --help`` imports this module); the log is
reached through :mod:`citeproof.service.logbook`, imported inside each command.  Output
follows the rest of the CLI: JSON with ``--json`` and whenever stdout is not a terminal, plain
lines otherwise; ``checkpoint`` and ``key`` always
print the bare text, because their use is ``> file`` or ``$(...)``.

Exit codes: 0 everything holds; 1 ``verify`` / ``verify-proof`` found something that does
not hold; 2 usage or bad input, or a damaged log that must be repaired first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, json_option
from citeproof.errors import ExitCode

if TYPE_CHECKING:
    from citeproof.service.logbook import EvidenceLog, LogEntry


class _LogGroup(click.Group):
    """Prints expected failures and warnings as one line each, also when the group is run
    on its own."""

    def invoke(self, ctx: click.Context) -> Any:
        from citeproof.cli import reporting

        with reporting(ctx):
            return super().invoke(ctx)


def _log(ctx: click.Context, *, reading: bool = True) -> EvidenceLog:
    """The log the command works on; a reading command refuses a named log that is not there
    (``--log typo.jsonl``) instead of reading it as empty."""
    from citeproof.service.logbook import existing_log, open_log

    chosen = ctx.find_root().params.get("log_path") or (ctx.obj or {}).get("log_path")
    return existing_log(chosen or None) if reading else open_log(chosen or None)


def _entry_line(entry: LogEntry) -> str:
    from citeproof.service.logbook import canonical_text

    payload = canonical_text(entry.payload, checked=True)
    if len(payload) > 100:
        payload = payload[:99] + "…"
    return f"{entry.seq}\t{entry.time}\t{entry.kind}\t{entry.hash[7:19]}\t{payload}"


@click.group(
    context_settings=CONTEXT_SETTINGS,
    cls=_LogGroup,
    short_help="Verify, sign, prove and read the evidence log.",
    epilog=epilog(
        "citeproof log verify",
        "citeproof log checkpoint > checkpoint.txt && citeproof log key > log.pub",
    ),
)
@click.option(
    "--log",
    "log_path",
    metavar="PATH",
    type=click.Path(dir_okay=False),
    help="The log file (default: $CITEPROOF_LOG, else evidence.jsonl in the data directory).",
)
@click.pass_context
def log(ctx: click.Context, log_path: str | None) -> None:
    """The evidence log: every check and search, hash-chained and signed.

    `log verify` checks it, `log checkpoint` prints a signed checkpoint to keep, `log prove
    SEQ` prints a proof that one entry is in it, `log key` prints the public key that
    checks both.
    """
    ctx.ensure_object(dict)
    ctx.obj["log_path"] = log_path


@log.command("path", epilog=epilog("citeproof log path", "citeproof log --log project.jsonl path"))
@click.pass_context
def path_cmd(ctx: click.Context) -> None:
    """Print the path of the log file (nothing is created)."""
    click.echo(str(_log(ctx, reading=False).path))


@log.command(
    "verify",
    epilog=epilog(
        "citeproof log verify",
        "citeproof log --log copy.jsonl verify --checkpoint checkpoint.txt --json",
        exit_codes="Exit codes: 0 everything holds; 1 something does not hold; 2 usage, or no "
        "log at a path given with --log or CITEPROOF_LOG.",
    ),
)
@click.option(
    "--checkpoint",
    "checkpoint_file",
    metavar="FILE",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Also prove the log extends this checkpoint ('-' reads stdin).",
)
@json_option
@click.pass_context
def verify_cmd(ctx: click.Context, checkpoint_file: str | None, as_json: bool) -> None:
    """Check every entry, the hash chain, the signed head and (optionally) a checkpoint.

    The first bad entry is named with the expected and the actual hash. A log named with
    --log (or CITEPROOF_LOG) that is not there is an error, never an empty log.
    """
    from citeproof.cli import _common

    evidence = _log(ctx)
    checkpoint = _read_text(checkpoint_file, "checkpoint") if checkpoint_file else None
    report = evidence.verify(checkpoint)
    if report.ok:
        lines = [f"ok: {report.entries} entries, all signed; root {report.root}"]
        if report.checkpoint_size is not None:
            lines.append(f"the log extends the checkpoint of {report.checkpoint_size} entries")
        lines += report.notes
    else:
        lines = [f"FAILED: {report.path}"]
        for p in report.problems:
            lines.append(f"- {p.message}")
            if p.expected is not None or p.actual is not None:
                lines.append(f"  expected {p.expected}")
                lines.append(f"  actual   {p.actual}")
    _common.emit(as_json, report.to_json(), lines)
    if not report.ok:
        ctx.exit(ExitCode.NEGATIVE)


def _read_text(path: str, what: str) -> str:
    import sys

    from citeproof.errors import LogError

    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read(2 << 20)
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(f"cannot read the {what} file {path} ({exc}).") from exc


@log.command("checkpoint", epilog=epilog("citeproof log checkpoint > checkpoint.txt"))
@click.pass_context
def checkpoint_cmd(ctx: click.Context) -> None:
    """Print the log's signed checkpoint (keep it: it proves the log's present state)."""
    click.echo(_log(ctx).checkpoint(), nl=False)


@log.command("key", epilog=epilog("citeproof log key > log.pub"))
@click.pass_context
def key_cmd(ctx: click.Context) -> None:
    """Print the log's public key (NAME+HASH+KEY), as `verify-proof --key` takes it."""
    click.echo(_log(ctx, reading=False).key.verifier.verifier_key())


@log.command("prove", epilog=epilog("citeproof log prove 12 > proof.json"))
@click.argument("seq", type=click.IntRange(min=1))
@click.pass_context
def prove_cmd(ctx: click.Context, seq: int) -> None:
    """Print a proof (JSON) that entry SEQ is in the signed log."""
    from citeproof.cli import _common

    _common.write_json(_log(ctx).prove(seq).to_json())


@log.command("verify-proof", epilog=epilog("citeproof log verify-proof proof.json --key log.pub"))
@click.argument("bundle", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--key",
    "public_key",
    required=True,
    metavar="PUBKEY",
    help="The log's public key, or a file holding it (from `citeproof log key`).",
)
@json_option
@click.pass_context
def verify_proof_cmd(ctx: click.Context, bundle: str, public_key: str, as_json: bool) -> None:
    """Check a proof from `log prove` without the log.  Exits 0 when it holds, 1 otherwise."""
    from citeproof.cli import _common
    from citeproof.service.logbook import verify_proof

    report = verify_proof(_read_text(bundle, "proof bundle"), public_key)
    line = ("ok: " if report.ok else "FAILED: ") + report.reason
    _common.emit(as_json, report.to_json(), [line])
    if not report.ok:
        ctx.exit(ExitCode.NEGATIVE)


@log.command(
    "repair", epilog=epilog("citeproof log repair", "citeproof log repair --set-aside-unsigned")
)
@click.option(
    "--set-aside-unsigned",
    is_flag=True,
    help="Move entries the signed head does not cover aside too, instead of signing them.",
)
@json_option
@click.pass_context
def repair_cmd(ctx: click.Context, set_aside_unsigned: bool, as_json: bool) -> None:
    """Move a damaged tail aside (into LOG.damaged-TIME) and record a repair entry.

    Whole valid entries that the signed head does not cover (an interrupted append) are
    signed, unless --set-aside-unsigned.  Valid signed entries are never touched.
    """
    from citeproof.cli import _common

    report = _log(ctx).repair(set_aside_unsigned=set_aside_unsigned)
    _common.emit(as_json, report.to_json(), [report.message])


@log.command(
    "annotate",
    epilog=epilog(
        'citeproof log annotate 12 --support supports --by "Dr A. Reviewer" --note "Table 2"'
    ),
)
@click.argument("seq", type=click.IntRange(min=1))
@click.option(
    "--support",
    required=True,
    type=click.Choice(["supports", "contradicts", "absent"]),
    help="Whether the evidence supports the claim, contradicts it, or is absent.",
)
@click.option("--by", required=True, metavar="NAME", help="Who judges (a person or a judge).")
@click.option("--note", metavar="TEXT", help="A free-text note.")
@json_option
@click.pass_context
def annotate_cmd(
    ctx: click.Context, seq: int, support: str, by: str, note: str | None, as_json: bool
) -> None:
    """Record a verdict on entry SEQ (appends an `annotation` entry)."""
    from citeproof.cli import _common

    entry = _log(ctx).annotate(seq, support, by, note)
    _common.emit(as_json, entry.to_json(), [_entry_line(entry)])


@log.command("show", epilog=epilog("citeproof log show --last 5", "citeproof log show 12 --json"))
@click.argument("seq", type=click.IntRange(min=1), required=False)
@click.option("--kind", metavar="K", help="Only entries of this kind (check, search, ...).")
@click.option("--last", type=click.IntRange(min=1), metavar="N", help="Only the last N.")
@json_option
@click.pass_context
def show_cmd(
    ctx: click.Context, seq: int | None, kind: str | None, last: int | None, as_json: bool
) -> None:
    """Show entry SEQ, or list entries (seq, time, kind, hash, payload)."""
    from collections import deque

    from citeproof.cli import _common

    evidence = _log(ctx)
    if seq is not None:
        entry = evidence.get(seq)
        _common.emit(as_json, entry.to_json(), [_entry_line(entry)])
        return
    found = (e for e in evidence.entries() if kind is None or e.kind == kind)
    entries = list(deque(found, maxlen=last)) if last else list(found)
    _common.emit(as_json, [e.to_json() for e in entries], [_entry_line(e) for e in entries])


@log.command(
    "export",
    epilog=epilog(
        "citeproof log export -o copy.jsonl",
        "citeproof log --log copy.jsonl verify --checkpoint checkpoint.txt",
    ),
)
@click.option(
    "-o",
    "--output",
    metavar="FILE",
    type=click.Path(dir_okay=False, writable=True),
    help="Write here instead of stdout.",
)
@click.pass_context
def export_cmd(ctx: click.Context, output: str | None) -> None:
    """Write the valid entries as JSONL, byte for byte (verify the copy with a checkpoint).

    `citeproof log --log COPY verify --checkpoint CP` checks an exported copy.
    """
    import sys

    from citeproof.errors import LogError

    evidence = _log(ctx)
    try:
        out = open(output, "wb") if output else sys.stdout.buffer  # noqa: SIM115
    except OSError as exc:
        raise LogError(f"cannot write {output} ({exc.strerror}).") from exc
    try:
        for entry in evidence.entries():
            out.write(entry.line.encode("utf-8") + b"\n")
    finally:
        if output:
            out.close()
        else:
            out.flush()
