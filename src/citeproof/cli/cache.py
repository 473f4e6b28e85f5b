"""``citeproof cache``: look at, prune, verify, export and import the source cache.

Why a command for it: the cache is what makes a check reproducible (the same bytes are
checked again), so a user must be able to see which bytes a source is pinned to, prove
they are intact, hand them to a colleague, and drop what is no longer wanted, without
opening SQLite by hand.

Module level imports click only: ``citeproof --help`` imports this module to list the
group's one-line help, and must stay fast.  The store and JSON helpers are imported inside
each command.

Output follows the rest of the CLI: JSON on stdout with ``--json`` and whenever stdout is
not a terminal, plain lines otherwise.  ``cache path`` is the exception: it always prints
the bare path, because its only use is ``$(citeproof cache path)`` in a shell.

Exit codes: 0 success; 1 a negative result (``verify`` found corrupt blobs, ``show`` found
the pin's bytes corrupt, ``import`` kept conflicting pins without ``--replace``); 2 usage or
bad input (missing key, bad timestamp, a refused export file, a corrupt cache database).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, json_option
from citeproof.errors import ExitCode

if TYPE_CHECKING:
    from citeproof.service.storage import Cache, Pin


def _open_cache() -> contextlib.AbstractContextManager[Cache]:
    from citeproof.service.storage import cache_session

    return cache_session()


def _pin_dict(pin: Pin) -> dict[str, Any]:
    """A pin as plain JSON: every stored field, so a script never needs SQLite."""
    return {
        "key": pin.key,
        "sha256": pin.sha256,
        "size": pin.size,
        "media_type": pin.media_type,
        "version": pin.version,
        "retrieved_at": pin.retrieved_at,
        "url": pin.url,
        "served_by": pin.served_by,
        "meta": pin.meta,
    }


@click.group(
    context_settings=CONTEXT_SETTINGS,
    short_help="Inspect, prune, verify, export and import the source cache.",
    epilog=epilog(
        "citeproof cache ls --prefix pmcid:",
        "citeproof cache export pins.zip && citeproof cache import pins.zip",
    ),
)
def cache() -> None:
    """Inspect and manage the source cache: pinned sources and the bytes they point to.

    The cache lives in citeproof's cache directory (under $CITEPROOF_HOME/cache when
    CITEPROOF_HOME is set); `citeproof cache path` prints where.
    """


@cache.command("path", epilog=epilog('sqlite3 "$(citeproof cache path)" .tables'))
def path_cmd() -> None:
    """Print the path of the cache database (nothing is created)."""
    from citeproof.service.storage import cache_path

    click.echo(str(cache_path()))


@cache.command("ls", epilog=epilog("citeproof cache ls", "citeproof cache ls --prefix doi: --json"))
@click.option("--prefix", metavar="P", help="Only keys that start with P (e.g. 'pmcid:').")
@json_option
def ls_cmd(prefix: str | None, as_json: bool) -> None:
    """List pins: key, sha256 (first 12), size, version, served_by, retrieved_at."""
    from citeproof.cli import _common

    with _open_cache() as c:
        pins = c.list_pins(prefix)
    lines = [
        "\t".join(
            [
                p.key,
                p.sha256[:12],
                str(p.size),
                p.version or "-",
                p.served_by or "-",
                p.retrieved_at,
            ]
        )
        for p in pins
    ]
    _common.emit(as_json, [_pin_dict(p) for p in pins], lines)


@cache.command("show", epilog=epilog("citeproof cache show pmcid:PMC3166277"))
@click.argument("key")
@json_option
def show_cmd(key: str, as_json: bool) -> None:
    """Show every field of KEY's pin and whether its bytes still match their sha256.

    Exits 1 when the bytes are corrupt, 2 when KEY is not pinned.
    """
    from citeproof.cli import _common
    from citeproof.errors import CacheCorruptError, CacheMissError

    with _open_cache() as c:
        pin = c.lookup(key)
        if pin is None:
            raise CacheMissError(
                f"{key} is not in the cache at {c.path}; `citeproof cache ls` lists the keys."
            )
        problem: str | None = None
        try:
            c.get_blob(pin.sha256)
        except CacheCorruptError as exc:
            problem = str(exc)
    obj = {**_pin_dict(pin), "verified": problem is None, "problem": problem}
    lines = [f"{name}: {'-' if value is None else value}" for name, value in obj.items()]
    _common.emit(as_json, obj, lines)
    if problem is not None:
        click.get_current_context().exit(ExitCode.NEGATIVE)


@cache.command(
    "prune",
    epilog=epilog(
        "citeproof cache prune",
        "citeproof cache prune --older-than 2026-01-01T00:00:00Z",
        "citeproof cache prune --key url:https://example.org/page",
    ),
)
@click.option(
    "--older-than",
    metavar="ISO8601",
    help="Drop pins retrieved before this time (with a time zone, e.g. 2026-01-31T00:00:00Z).",
)
@click.option("--key", "keys", multiple=True, metavar="KEY", help="Drop this pin (repeatable).")
@json_option
def prune_cmd(older_than: str | None, keys: tuple[str, ...], as_json: bool) -> None:
    """Drop the chosen pins, then every blob no pin refers to.

    With no option only unreferenced blobs go (bytes replaced by a refresh); pins are kept.
    """
    from citeproof.cli import _common

    with _open_cache() as c:
        result = c.prune(older_than=older_than, keys=keys)
    obj = {
        "pins_removed": result.pins_removed,
        "blobs_removed": result.blobs_removed,
        "bytes_freed": result.bytes_freed,
    }
    lines = [
        f"removed {result.pins_removed} pin(s) and {result.blobs_removed} blob(s), "
        f"freed {result.bytes_freed} bytes"
    ]
    _common.emit(as_json, obj, lines)


@cache.command("verify", epilog=epilog("citeproof cache verify"))
@json_option
def verify_cmd(as_json: bool) -> None:
    """Re-hash every stored blob; exit 1 and list them if any no longer match.

    The pins pointing at each corrupt blob are listed too: those are the sources to fetch
    again (with --refresh), which repairs the blob.
    """
    from citeproof.cli import _common

    with _open_cache() as c:
        bad = c.verify()
        pins = c.list_pins() if bad else []
    corrupt: list[dict[str, Any]] = [
        {"sha256": digest, "keys": [p.key for p in pins if p.sha256 == digest]} for digest in bad
    ]
    obj = {"ok": not bad, "corrupt": corrupt}
    if bad:
        lines = [f"{len(bad)} corrupt blob(s):"] + [
            f"{item['sha256']}\t{', '.join(item['keys']) or '(unpinned)'}" for item in corrupt
        ]
    else:
        lines = ["every blob matches its sha256"]
    _common.emit(as_json, obj, lines)
    if bad:
        click.get_current_context().exit(ExitCode.NEGATIVE)


@cache.command(
    "export",
    epilog=epilog(
        "citeproof cache export pins.zip", "citeproof cache export one.zip --key pmcid:PMC3166277"
    ),
)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--key", "keys", multiple=True, metavar="KEY", help="Export only this pin.")
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace FILE when it exists and is not an earlier export (an earlier export is "
    "replaced anyway).",
)
@json_option
def export_cmd(file: str, keys: tuple[str, ...], overwrite: bool, as_json: bool) -> None:
    """Write pins (all, or the --key ones) and their bytes to the zip FILE."""
    from citeproof.cli import _common
    from citeproof.errors import CacheError
    from citeproof.service.storage import is_export

    _common.refuse_to_replace(file, overwrite=overwrite, ours=is_export, what="the export file")
    with _open_cache() as c:
        try:
            count = c.export_to(file, keys=keys or None)
        except OSError as exc:
            raise CacheError(f"Cannot write the export file {file}: {exc.strerror}.") from exc
    _common.emit(as_json, {"file": file, "pins": count}, [f"exported {count} pin(s) to {file}"])


@cache.command(
    "import",
    epilog=epilog("citeproof cache import pins.zip", "citeproof cache import pins.zip --replace"),
)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--replace",
    is_flag=True,
    help="When a key is already pinned to different bytes, take the file's pin.",
)
@json_option
def import_cmd(file: str, replace: bool, as_json: bool) -> None:
    """Add the pins and bytes in the export FILE, after verifying all of it.

    A file that is not an intact citeproof export is refused whole (exit 2). A key already
    pinned here to different bytes is a conflict: kept as it is (exit 1, so a script
    notices that the cache does not match the file) unless --replace takes the file's pin.
    """
    from citeproof.cli import _common

    with _open_cache() as c:
        report = c.import_from(file, replace=replace)
    conflicts: list[dict[str, Any]] = [
        {
            "key": k.key,
            "existing_sha256": k.existing_sha256,
            "incoming_sha256": k.incoming_sha256,
            "replaced": k.replaced,
        }
        for k in report.conflicts
    ]
    obj = {
        "pins_added": report.pins_added,
        "pins_unchanged": report.pins_unchanged,
        "blobs_added": report.blobs_added,
        "conflicts": conflicts,
    }
    lines = [
        f"added {report.pins_added} pin(s), {report.pins_unchanged} unchanged, "
        f"{len(conflicts)} conflict(s)"
    ] + [
        f"conflict: {k['key']} {'replaced' if k['replaced'] else 'kept'} "
        f"(here {k['existing_sha256'][:12]}, file {k['incoming_sha256'][:12]})"
        for k in conflicts
    ]
    _common.emit(as_json, obj, lines)
    if conflicts and not replace:
        click.get_current_context().exit(ExitCode.NEGATIVE)
