"""A LaTeX manuscript's folder or archive read into the reader's mapping, and every archive
that would unpack outside itself, into gigabytes, or into too many files refused."""

from __future__ import annotations

import gzip
import io
import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from citeproof.errors import BadInputError, SourceTooLargeError
from citeproof.loading import manuscript_files as mf
from citeproof.loading.manuscript_files import manuscript_files, read_archive
from citeproof.manuscript import read_manuscript

MAIN = (
    rb"\documentclass{article}\begin{document}Heat \cite{k}. \input{sec/a}\bibliography{r}"
    rb"\end{document}"
)
FILES = {
    "paper/main.tex": MAIN,
    "paper/sec/a.tex": b"Section text.",
    "paper/r.bib": b"@article{k, author={Halloway, Wren}, title={Invented compost}, year={2021}}",
    "paper/fig.png": b"\x89PNG not read",
}


def _tar(files: dict[str, bytes], mode: str = "w:gz") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as archive:  # type: ignore[call-overload]
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _read(data: bytes, name: str = "a") -> dict[str, bytes]:
    return read_archive(io.BytesIO(data), len(data), name=name)


def test_a_folder_a_tarball_and_a_zip_give_the_same_sources(tmp_path: Path) -> None:
    for name, data in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    (tmp_path / "a.tgz").write_bytes(_tar(FILES))
    (tmp_path / "a.zip").write_bytes(_zip(FILES))
    expected = sorted(n for n in FILES if not n.endswith(".png"))
    for path in (tmp_path / "a.tgz", tmp_path / "a.zip"):
        members = manuscript_files(path)
        assert sorted(members) == expected
        m = read_manuscript(b"", members=members)
        assert m.citations[0].entry_ids == ("k",) and "Section text." in m.text
    assert sorted(manuscript_files(tmp_path / "paper")) == [
        n.removeprefix("paper/") for n in expected
    ]


def test_arxivs_single_gzipped_tex_is_one_member() -> None:
    members = _read(gzip.compress(MAIN), name="2101.00001.gz")
    assert list(members) == ["main.tex"]


@pytest.mark.parametrize(
    "name", ["../evil.tex", "/etc/evil.tex", "a/../../evil.tex", "C:/evil.tex"]
)
def test_a_name_outside_the_archive_is_refused(name: str) -> None:
    with pytest.raises(BadInputError, match="outside"):
        _read(_tar({name: b"x"}))
    with pytest.raises(BadInputError, match="outside"):
        _read(_zip({name: b"x"}))


def test_links_in_an_archive_are_refused_and_in_a_folder_skipped(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo("main.tex")
        info.type = tarfile.SYMTYPE
        info.linkname = "/etc/passwd"
        archive.addfile(info)
    with pytest.raises(BadInputError, match="not a regular file"):
        _read(buffer.getvalue())
    (tmp_path / "real.tex").write_bytes(b"x")
    os.symlink("/etc/hostname", tmp_path / "link.tex")
    assert list(manuscript_files(tmp_path)) == ["real.tex"]


def test_a_compression_bomb_is_refused_before_it_is_unpacked() -> None:
    bomb = _tar({"main.tex": b"\0" * 60_000_000})
    assert len(bomb) < 200_000
    with pytest.raises(BadInputError, match="zip bomb"):
        _read(bomb)
    with pytest.raises(BadInputError, match="zip bomb"):
        _read(_zip({"main.tex": b"\0" * 60_000_000}))


def test_too_many_sources_or_too_many_bytes_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mf, "MAX_MEMBERS", 3)
    with pytest.raises(BadInputError, match="more than 3"):
        _read(_zip({f"s{n}.tex": b"x" for n in range(5)}))
    monkeypatch.setattr(mf, "MAX_MEMBER_BYTES", 10)
    with pytest.raises(SourceTooLargeError):
        _read(_zip({"main.tex": b"x" * 100}))


def test_something_that_is_no_archive_is_refused() -> None:
    with pytest.raises(BadInputError, match="not an archive"):
        _read(b"plain text, not an archive")
