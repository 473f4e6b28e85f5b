"""``python -m citeproof.mcp``: the same as ``citeproof mcp``."""

from citeproof.cli.mcp import main

main()
