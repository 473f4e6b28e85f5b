"""Reference lists built to hang or exhaust ``citeproof refs``, and the caps that stop them.

Every fixture here is INVENTED and generated in the test: a title or abstract of hundreds of
kilobytes, ``@string`` macros that double at each level (a few hundred bytes that expanded
to 67 MB), many macros that are each under the cap, a chain of macros built on macros, an
author list longer than the cap, JSONL lines that are not UTF-8 or nest 100,000 deep.  The
sizes are smaller than the issue's (10 MB, 100,000 entries) where the property is the same;
``bench/bench_refs_inputs.py`` times the full sizes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from bibtexparser.middlewares import LatexDecodingMiddleware
from hypothesis import given
from hypothesis import strategies as st

import citeproof.refs.bibtex as bibtex
import citeproof.refs.ris as ris
from citeproof.batch.jsonl import parse_stream
from citeproof.refs.bibtex import (
    MAX_FIELD,
    MAX_MACRO_DEPTH,
    MAX_MACROS,
    MacroExpansionError,
    iter_bibtex,
    read_bibtex,
)
from citeproof.refs.formats import read_references

if TYPE_CHECKING:
    from conftest import CliRun


def _entry(key: str, **fields: str) -> str:
    body = ",\n  ".join(f"{name} = {{{value}}}" for name, value in fields.items())
    return f"@article{{{key},\n  {body}\n}}\n"


def doubling(levels: int, seed: str = "invented") -> str:
    """An INVENTED macro bomb: each ``@string`` is the one before it twice."""
    lines = [f'@string{{s0 = "{seed}"}}']
    lines += [f"@string{{s{n} = s{n - 1} # s{n - 1}}}" for n in range(1, levels + 1)]
    return "\n".join(lines) + f"\n@article{{bomb, title = s{levels}, year = 2020}}\n"


# --- one field --------------------------------------------------------------------------------


def test_a_huge_title_is_cut_at_the_cap() -> None:
    (ref,) = read_bibtex(_entry("big", title="invented words " * 20_000, year="2020"))
    assert ref.title is not None and len(ref.title) <= MAX_FIELD
    assert ref.title.startswith("invented words invented") and ref.year == 2020


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("big.ris", f"TY  - JOUR\nTI  - {'invented words ' * 20_000}\nPY  - 2020\nER  - \n"),
        ("big.json", json.dumps([{"title": "invented words " * 20_000, "issued": 2020}])),
        ("big.txt", "Invented A. " + "invented words " * 20_000 + " 2020.\n"),
    ],
)
def test_every_format_cuts_what_a_reference_states(name: str, data: str) -> None:
    """The same cap in every reader: a title (or a string) of megabytes would be carried
    through scoring, the search queries and every output line."""
    _, (ref,) = read_references(data.encode("utf-8"), name)
    assert len(ref.text) <= MAX_FIELD
    assert ref.title is None or len(ref.title) <= MAX_FIELD


def test_a_field_citeproof_does_not_use_is_never_decoded(monkeypatch: pytest.MonkeyPatch) -> None:
    """An abstract, a note or a file path is dropped as the entry is read: decoding LaTeX
    costs some 20 s a megabyte, and nothing citeproof checks is in them."""
    from pylatexenc.latex2text import LatexNodes2Text  # type: ignore[import-untyped]

    decoded: list[str] = []
    real = LatexNodes2Text.latex_to_text

    def spy(self: Any, latex: str, **flags: Any) -> Any:
        decoded.append(latex)
        return real(self, latex, **flags)

    monkeypatch.setattr(LatexNodes2Text, "latex_to_text", spy)
    abstract = r"Invented \emph{abstract} with $x^2$ maths and 50\% of it -- " * 50
    (ref,) = read_bibtex(
        _entry("a", title=r"Caf\'e workers", abstract=abstract, note=r"\textbf{x}")
    )
    assert ref.title == "Café workers"
    assert decoded and not any("abstract" in d or "textbf" in d for d in decoded)


def test_a_cut_author_list_loses_only_the_name_the_cut_falls_in() -> None:
    names = " and ".join(f"Invented{n:04d}, Given" for n in range(2_000))
    (ref,) = read_bibtex(_entry("many", author=names, title="A title"))
    assert 0 < len(ref.authors) < 2_000
    assert ref.authors == tuple(f"Invented{n:04d}, Given" for n in range(len(ref.authors)))


# --- macros -----------------------------------------------------------------------------------


def test_a_doubling_macro_is_refused_in_one_line() -> None:
    """The 634-byte bomb doubled 23 times (67 MB); 12 levels is past the cap already."""
    with pytest.raises(MacroExpansionError) as refused:
        read_bibtex(doubling(12))
    message = str(refused.value)
    assert "@string macro 's11' (line 12)" in message and "10,000" in message
    assert "\n" not in message


def test_macros_each_under_the_cap_are_refused_together() -> None:
    """The 884-byte bomb: many macros of 8 KB each, which reached 1.5 GB in two seconds."""
    bomb = doubling(10).split("@article")[0]
    bomb += "".join(f"@string{{t{n} = s10}}\n" for n in range(MAX_MACROS // 8_000 + 1))
    with pytest.raises(MacroExpansionError, match="in all"):
        read_bibtex(bomb + _entry("k", title="A title"))


def test_macros_built_on_macros_are_refused_past_the_depth() -> None:
    chain = ['@string{a0 = "Invented"}']
    chain += [f"@string{{a{n} = a{n - 1}}}" for n in range(1, MAX_MACRO_DEPTH + 2)]
    with pytest.raises(MacroExpansionError, match="levels deep"):
        read_bibtex("\n".join(chain) + "\n" + _entry("k", title="A title"))
    (ref,) = read_bibtex("\n".join(chain[:3]) + '\n@article{k, journal = a2, title = "T x"}')
    assert ref.venue == "Invented"


def test_a_field_made_of_many_macros_is_cut_not_expanded(tmp_path: Path) -> None:
    text = doubling(10).split("@article")[0]
    text += "@article{k, title = " + " # ".join(["s10"] * 5_000) + "}\n"
    (ref,) = read_bibtex(text)
    assert ref.title is not None and len(ref.title) == MAX_FIELD


def test_refs_refuses_a_bomb_with_one_line_and_exit_2(run_cli: CliRun, tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.bib"
    bomb.write_text(doubling(23), encoding="utf-8")
    assert len(bomb.read_bytes()) < 700
    result = run_cli("refs", bomb, "--offline", "--no-log")
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"citeproof: error: {bomb}: the @string macro")
    with pytest.raises(ValueError, match="@string macro"):
        read_references(bomb.read_bytes(), "bomb.bib")


# --- the decoding shortcuts -------------------------------------------------------------------

_DECODER = LatexDecodingMiddleware()


def _flat(text: str) -> str:
    return " ".join(text.split())


@given(st.text(max_size=40))
def test_a_value_without_latex_decodes_to_itself(value: str) -> None:
    if bibtex._LATEX.search(value) is None:
        assert _flat(bibtex._decode(value)) == _flat(value)
        assert _flat(_DECODER._transform_python_value_string(value)[0]) == _flat(value)


@given(st.lists(st.one_of(st.text(max_size=12), st.sampled_from(["{", "}"])), max_size=10))
def test_balanced_braces_alone_decode_to_the_text_inside(parts: list[str]) -> None:
    value = "".join(parts)
    if bibtex._LATEX_BUT_BRACES.search(value) is None and bibtex._balanced(value):
        library = _flat(_DECODER._transform_python_value_string(value)[0])
        assert _flat(bibtex._decode(value)) == library


@pytest.mark.parametrize(
    "value", [r"M{\"u}ller", r"\'{e}cole -- ``quoted''", "50\\% of $x^2$", "{{DNA}} repair"]
)
def test_latex_is_decoded_as_bibtexparser_decodes_it(value: str) -> None:
    assert bibtex._decode(value) == _DECODER._transform_python_value_string(value)[0]


# --- a long list ------------------------------------------------------------------------------

_WORDS = st.sampled_from(
    [
        "DNA",
        "{DNA}",
        r"M{\"u}ller",
        "Doe, J.",
        "and",
        "others",
        "@",
        ",",
        "=",
        '"',
        "#",
        "s1",
        "\n@article{z,",
        "\n@string{s9 = {x}}",
        "\n  @misc(m, title={T})",
        "10.5555/inv",
    ]
)
_FIELDS = st.sampled_from(["title", "author", "journal", "year", "doi", "Title", "abstract"])


@st.composite
def bibtex_texts(draw: st.DrawFn) -> str:
    """INVENTED BibTeX, well-formed or not: entries, macros, comments, broken blocks."""
    parts = ['@string{s1 = "One"}\n'] if draw(st.booleans()) else []
    for n in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["article", "book", "comment", "string"]))
        if kind == "string":
            parts.append(f"@string{{m{n} = {{v{n}}}}}\n")
            continue
        fields = draw(st.lists(st.tuples(_FIELDS, st.lists(_WORDS, max_size=4)), max_size=4))
        body = ",\n  ".join(f"{k} = {{{' '.join(v)}}}" for k, v in fields)
        key = draw(st.sampled_from(["a", "b", ""]))
        parts.append(f"@{kind}{{{key},\n  {body}\n}}" + draw(st.sampled_from(["\n", " ", ""])))
    return "".join(parts)


@given(bibtex_texts())
def test_reading_in_pieces_is_reading_the_whole_at_once(text: str) -> None:
    """Cut where bibtexparser itself starts a block, a file reads the same in pieces of one
    as in one piece: entries, broken blocks, duplicates, macros and line numbers."""
    saved = bibtex._PIECES_PER_SPLIT
    try:
        bibtex._PIECES_PER_SPLIT = 10**9
        whole = _outcome(text)
        bibtex._PIECES_PER_SPLIT = 1
        assert _outcome(text) == whole
    finally:
        bibtex._PIECES_PER_SPLIT = saved


def _outcome(text: str) -> object:
    try:
        return read_bibtex(text)
    except MacroExpansionError as err:
        return str(err)


def test_a_long_list_is_read_as_it_is_consumed(monkeypatch: pytest.MonkeyPatch) -> None:
    split: list[int] = []
    real = bibtex._split

    def counting(piece: str) -> Any:
        blocks = real(piece)
        split.append(len(blocks))
        return blocks

    monkeypatch.setattr(bibtex, "_split", counting)
    text = "".join(_entry(f"k{n}", title=f"Invented title {n}") for n in range(2_000))
    entries = iter_bibtex(text)
    first = next(entries)
    assert (first.label, first.where) == ("k0", "line 1")
    assert sum(split) <= bibtex._PIECES_PER_SPLIT
    rest = list(entries)
    assert len(rest) == 1_999 and rest[-1].where == f"line {1_999 * 3 + 1}"


_RIS_LINES = st.sampled_from(
    [
        "TY  - JOUR",
        "TI  - An invented title",
        "AU  - Invented, A.",
        "PY  - 2019",
        "ER  - ",
        "",
        "  continued words",
        "DO  - 10.5555/invented.1",
        "XX  - unknown",
        "N1  - PMID: 31",
    ]
)


@given(st.lists(_RIS_LINES, max_size=40), st.sampled_from(["\n", "\r\n"]))
def test_ris_read_in_batches_is_ris_read_whole(lines: list[str], newline: str) -> None:
    text = newline.join(lines)
    saved = ris._RECORDS_PER_READ
    try:
        ris._RECORDS_PER_READ = 10**9
        whole = ris.read_ris(text)
        ris._RECORDS_PER_READ = 1
        assert ris.read_ris(text) == whole
    finally:
        ris._RECORDS_PER_READ = saved


# --- JSONL ------------------------------------------------------------------------------------


def _lines(path: Path, *lines: bytes) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.mark.parametrize(
    ("bad", "says"),
    [
        (b'"Invented A. A title \xff\xfe in Latin-1. 2019."', "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "deeper than 32 levels"),
        (b'{"title": "Invented", "title": "Twice"}', "appears twice"),
        (b'{"title": NaN}', "NaN is not JSON"),
    ],
)
def test_a_jsonl_line_refs_cannot_read_is_one_line_naming_it(
    run_cli: CliRun, tmp_path: Path, bad: bytes, says: str
) -> None:
    path = _lines(tmp_path / "refs.jsonl", b'"Invented B. A first reference. 2020."', bad)
    result = run_cli("refs", path, "--offline", "--no-log")
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(f"citeproof: error: {path}, line 2: ") and says in line


def test_a_batch_line_that_cannot_be_read_is_that_lines_error() -> None:
    """``citeproof batch`` already made each such line its error record; kept so."""
    import io

    raw = b"\n".join([b'{"quote": "a \xff", "source": "x"}', b"[" * 100_000 + b"]" * 100_000])
    errors = [e.record()["error"]["code"] for e in parse_stream(io.BytesIO(raw))]
    assert errors == ["not_utf8", "too_deep"]


_NAME_CHARS = st.sampled_from([*"abcdeXYZ éÑø'.-", " ", ",", " van ", " de la ", "  "])


@given(st.lists(_NAME_CHARS, max_size=24).map("".join))
def test_a_name_with_commas_and_no_latex_splits_as_bibtexparser_splits_it(name: str) -> None:
    found = bibtex._commas(name)
    if found is not None:
        assert found == bibtex._parts_of(name)


_NAME_LIST = st.sampled_from(
    ["Invented", "and", "AND", "And", "an", "d", " ", "  ", "\n", "\t", "\r", ",", "é", "andy"]
)


@given(st.lists(_NAME_LIST, max_size=14).map("".join))
def test_a_name_list_without_braces_splits_as_bibtexparser_splits_it(names: str) -> None:
    from bibtexparser.middlewares.names import split_multiple_persons_names

    assert bibtex._split_names(names) == split_multiple_persons_names(names)


@pytest.mark.parametrize("suffix", ["bib", "jsonl"])
def test_a_run_reads_at_most_its_cap_of_references(
    run_cli: CliRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    """A file of a million six-byte entries must not take gigabytes: past the cap the list
    is refused in one line, before anything is asked."""
    import citeproof.batch.bibliographies as bibliographies

    monkeypatch.setattr(bibliographies, "MAX_RUN", 5)
    path = tmp_path / f"many.{suffix}"
    if suffix == "bib":
        path.write_text("".join(f"@misc{{k{n}}}\n" for n in range(1_000)), encoding="utf-8")
    else:
        path.write_text("".join(f'"Invented {n}. A title. 2020."\n' for n in range(1_000)))
    result = run_cli("refs", path, "--offline", "--no-log")
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert f"{path} holds more than 5 references" in line and "split the list" in line
