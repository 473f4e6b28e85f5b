"""Persistent state between runs: where it lives on disk, and the content-addressed cache."""
