"""``citeproof text``: the exact text every offset in a check result indexes.

The text is written as UTF-8 bytes with nothing added (no trailing newline), so that
``citeproof text SOURCE > t.txt`` gives a file whose decoded contents ``t[start:end]``
reproduce every match.  Module level imports click only (see ``citeproof.cli``).
"""

from __future__ import annotations

import click

from citeproof.cli.options import CONTEXT_SETTINGS, epilog, source_options


@click.command(
    context_settings=CONTEXT_SETTINGS,
    short_help="Print the text extracted from a source, exactly as checked.",
    epilog=epilog("citeproof text paper.pdf > paper.txt", "citeproof text --blocks PMC3166277"),
)
@click.argument("source")
@click.option(
    "--blocks",
    is_flag=True,
    help="Print one JSON object per block instead: {start, end, kind, section, region, page}.",
)
@source_options
def text(source: str, blocks: bool, offline: bool, refresh: bool, replay: str | None) -> None:
    """Print the text citeproof extracts from SOURCE ('-' for stdin), byte for byte.

    SOURCE is a file or an identifier (fetched and pinned exactly as `citeproof check`
    does, so the text printed is the text a check of that identifier reads).

    Offsets in 'citeproof check' results are code points into exactly this text. No
    newline is added at the end. With --blocks, print the document's blocks instead, one
    JSON object a line, in text order.
    """
    from citeproof.cli import _common
    from citeproof.service import texts

    document = texts.load(
        source,
        stdin=_common.stdin_bytes() if source == "-" else None,
        offline=offline,
        refresh=refresh,
        replay=replay,
    )
    if blocks:
        for block in texts.document_blocks(document):
            _common.write_json(block, indent=None)
        return
    if not document.has_text:
        click.echo(f"citeproof: warning: {texts.no_text_reason(document)}", err=True)
    out = _common.stdout_bytes()
    out.write(document.text.encode("utf-8", "surrogatepass"))
    out.flush()
