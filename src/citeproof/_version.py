"""The installed distribution's version, read once (a plain source checkout has none)."""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version

__all__ = ["distribution_version"]


@cache
def distribution_version() -> str:
    try:
        return version("citeproof")
    except PackageNotFoundError:  # pragma: no cover - only when run from an uninstalled tree
        return "0+unknown"
