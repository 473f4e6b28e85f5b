"""The local index's tests: the INVENTED dumps of ``dumps/``, gzipped as they are published,
and one index built from them for the query tests.

The dumps are kept uncompressed in the repository (readable, diffable) and gzipped here, as
the real ones are: Crossref's ``.json.gz``, OpenAlex's ``part_000.gz``, PubMed's
``pubmed26n0001.xml.gz``, ``dblp.xml.gz``, DataCite's ``.jsonl.gz``; the arXiv snapshot and
the Retraction Watch CSV are published uncompressed and stay so.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from index_dumps import PUBLISHED, UPDATE, publish


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of every invented dump as published (the baseline; not the update)."""
    root = tmp_path_factory.mktemp("published")
    for name, target, gzipped in PUBLISHED:
        publish(name, root / target, gzipped)
    return root


@pytest.fixture(scope="session")
def update_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    name, target, gzipped = UPDATE
    return publish(name, tmp_path_factory.mktemp("update") / target, gzipped)


@pytest.fixture(scope="session")
def built(published: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One index of every invented dump, shared by the tests that only read it."""
    pytest.importorskip("tantivy", reason="the index extra (tantivy) is not installed")
    from citeproof.index.build import build_index

    directory = tmp_path_factory.mktemp("built") / "idx"
    build_index(directory, [published])
    return directory


@pytest.fixture
def fresh_copy(built: Path, tmp_path: Path) -> Iterator[Path]:
    """A copy of the built index a test may change."""
    target = tmp_path / "idx"
    shutil.copytree(built, target)
    yield target
