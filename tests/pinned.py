"""Pin a text in the test's own cache, as a fetch would have (no network).

One copy for the test files that audit or check against cached sources
(``from pinned import pin_text``, as ``pmc_replay``); every test already runs with its own
``CITEPROOF_HOME``, so the cache written here is the test's alone.
"""

from __future__ import annotations

from citeproof.store.cache import Cache
from citeproof.store.paths import default_dirs

__all__ = ["pin_text"]


def pin_text(
    *keys: str,
    text: str,
    retrieved_at: str = "2026-01-02T03:04:05Z",
    served_by: str = "doi",
) -> None:
    """Pin ``text`` as the full text of each key in the default cache."""
    with Cache(default_dirs().cache_db) as cache:
        for key in keys:
            cache.pin(
                key,
                text.encode(),
                retrieved_at=retrieved_at,
                media_type="text/plain",
                served_by=served_by,
                meta={"coverage": "full_text"},
            )
