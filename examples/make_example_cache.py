"""Rebuild ``example-cache.zip``: a cache export holding one invented example document.

The document is written here and is not from any real paper; its key is an example.org URL
so it cannot be mistaken for a real work.  The docs use the export to show ``--find-source``
offline: ``citeproof cache import examples/example-cache.zip``.
Run: ``python examples/make_example_cache.py`` from the repository root.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from citeproof.store.cache import Cache

KEY = "url:https://example.org/invented-cohort-study"
TEXT = """\
INVENTED EXAMPLE DOCUMENT (not a real study)

Walking and stroke in an invented cohort

In the cohort, daily walking reduced the risk of stroke by a third over ten years of \
follow-up, while cycling showed no measurable effect on the same outcome.
"""


def main() -> None:
    out = Path(__file__).with_name("example-cache.zip")
    with tempfile.TemporaryDirectory() as tmp, Cache(Path(tmp) / "cache.sqlite3") as cache:
        cache.pin(
            KEY,
            TEXT.encode("utf-8"),
            retrieved_at="2026-01-01T00:00:00Z",
            url="https://example.org/invented-cohort-study",
            served_by="web",
            media_type="text/plain",
            meta={"coverage": "page", "title": "Walking and stroke in an invented cohort"},
        )
        cache.export_to(out)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
