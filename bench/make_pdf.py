"""Build the 50-page PDF that ``bench_match.py`` times ``citeproof check`` on.

Why build it instead of shipping one: the benchmark must not copy anything from the shared
corpus into the repository, and no corpus PDF is 50 pages long.  So the file is made on the
fly, in a temporary directory, by importing the pages of the corpus's real article PDFs
(``<shared>/corpus/pdf/*.pdf``, in name order) again and again until there are enough.
Real pages keep what makes PDF text extraction cost what it costs: fonts, ligatures,
two-column layout, hyphenated line ends.

``pick_quote`` then chooses a quote that is really on a page of the built file, by reading
that page back with pypdfium2: one line of plain words, so the quote does not depend on how
a parser joins lines or undoes hyphenation.  It prefers a page that is not repeated (the
corpus pages are reused to reach 50), so the quote occurs once.

Run on its own to keep a copy for manual testing::

    python bench/make_pdf.py /tmp/bench-50.pdf [--shared DIR] [--pages N]
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium

DEFAULT_PAGES = 50
# One line of prose: starts with a letter, only letters, spaces and light punctuation.
_PLAIN_LINE = re.compile(r"[A-Za-z][A-Za-z ,;:()'-]+[A-Za-z,;]")


@dataclass(frozen=True, slots=True)
class BuiltPdf:
    """The file built and where its pages came from (``sources[i]`` is page ``i``)."""

    path: Path
    sources: tuple[tuple[str, int], ...]
    """For each page: (corpus file name, page index in that file)."""

    def is_unique(self, page: int) -> bool:
        """True when page ``page`` appears only once in the built file."""
        return self.sources.count(self.sources[page]) == 1


def corpus_pdfs(shared: Path) -> list[Path]:
    """The corpus's PDFs in a fixed order, so every run builds the same file."""
    files = sorted((shared / "corpus" / "pdf").glob("*.pdf"))
    if not files:
        raise FileNotFoundError(f"no PDF files in {shared / 'corpus' / 'pdf'}")
    return files


def build_pdf(dest: Path, shared: Path, pages: int = DEFAULT_PAGES) -> BuiltPdf:
    """Write a ``pages``-page PDF to ``dest`` made of the corpus PDFs' pages, cycled."""
    sources: list[tuple[str, int]] = []
    out = pdfium.PdfDocument.new()
    try:
        while len(sources) < pages:
            for src_path in corpus_pdfs(shared):
                src = pdfium.PdfDocument(src_path)
                try:
                    take = min(len(src), pages - len(sources))
                    out.import_pages(src, pages=list(range(take)))
                    sources.extend((src_path.name, i) for i in range(take))
                finally:
                    src.close()
                if len(sources) >= pages:
                    break
        out.save(dest)
    finally:
        out.close()
    return BuiltPdf(dest, tuple(sources))


def page_text(pdf: Path, page: int) -> str:
    """The text of one page as pdfium extracts it (lines end with CRLF)."""
    doc = pdfium.PdfDocument(pdf)
    try:
        textpage = doc[page].get_textpage()
        return str(textpage.get_text_range())
    finally:
        doc.close()


def pick_quote(built: BuiltPdf, min_chars: int = 60, max_chars: int = 90) -> tuple[int, str]:
    """A quote of ``min_chars``..``max_chars`` characters from one line of one page.

    Pages are tried from the last unique page backwards (a late page, so nothing about
    the check can stop early); the first line of plain words long enough wins, cut at a
    word boundary.
    """
    order = [p for p in reversed(range(len(built.sources))) if built.is_unique(p)]
    order += [p for p in reversed(range(len(built.sources))) if not built.is_unique(p)]
    for page in order:
        for line in page_text(built.path, page).splitlines():
            line = " ".join(line.split())
            if len(line) < min_chars or not _PLAIN_LINE.fullmatch(line):
                continue
            quote = line[:max_chars].rsplit(" ", 1)[0] if len(line) > max_chars else line
            if len(quote) >= min_chars:
                return page, quote
    raise ValueError(f"no line of {min_chars}+ plain characters in {built.path}")


def main(argv: list[str] | None = None) -> int:
    repo_root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description="Build the benchmark's 50-page PDF.")
    parser.add_argument("out", type=Path, help="where to write the PDF")
    parser.add_argument(
        "--shared",
        type=Path,
        default=repo_root.parent / "shared",
        help="the shared data directory (default: ../shared next to the repo)",
    )
    parser.add_argument("--pages", type=int, default=DEFAULT_PAGES)
    args = parser.parse_args(argv)
    built = build_pdf(args.out, args.shared, args.pages)
    page, quote = pick_quote(built)
    print(f"wrote {built.path} ({len(built.sources)} pages)")
    print(f"a quote from page {page + 1}: {quote!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
