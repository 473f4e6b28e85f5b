"""Whole manuscripts: a Word file, a LaTeX source, a PDF, publisher XML, HTML or Markdown,
read into one model of body text, in-text citations, reference entries and quotations.

What ``citeproof audit`` checks for a manuscript (docs/manuscripts.md).
"""
