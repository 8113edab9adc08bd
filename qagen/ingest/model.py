"""Intermediate values passed between the ingest modules (not written anywhere)."""

from __future__ import annotations

from dataclasses import dataclass, field

from qagen.records import Document, ParseProblem, Section


@dataclass(slots=True)
class Line:
    """One visual line of a PDF page, with its dominant font."""

    page: int
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    font: str
    bold: bool
    mono: bool
    n_chars: int
    left: float = 0.0  # left edge of the column or band the line sits in
    right: float = 0.0  # right edge of that column or band
    cells: tuple[str, ...] = ()  # set when the line is a table row
    segments: tuple[tuple[float, str], ...] = ()  # (x, text) pieces parted by wide gaps
    toc: bool = False  # ends in a page number after dot leaders or a wide gap (a contents entry)
    column: int = 0  # reading-order index of the column/band on its page


@dataclass(slots=True)
class Block:
    """A paragraph, list item, code line or table row inside a section."""

    text: str
    page: int
    start: int | None = None  # span in the source file (plain text and Markdown only)
    end: int | None = None


@dataclass(slots=True)
class RawSection:
    """A heading and its blocks, before merging and rendering."""

    heading: str
    blocks: list[Block] = field(default_factory=list)
    page_start: int = 0
    page_end: int = 0
    heading_start: int | None = None  # where the heading starts in the source file, if known
    kind: str | None = None  # set when the layout knows it (an index and its letter groups)


@dataclass(slots=True)
class ParsedDoc:
    """What a parser returns for one document: its format, page count, title and sections."""

    format: str
    n_pages: int
    title: str | None
    sections: list[dict[str, object]]  # heading, text, page_start, page_end, char_start, char_end
    encoding: str | None = None  # text and HTML: the encoding and how it was found ("utf-16-le (BOM)")


ENCRYPTED = "the PDF is password-protected; decrypt it first (e.g. qpdf --decrypt)"  # either engine's message


class DocumentError(Exception):
    """A document that cannot be used; ``reason`` is a short code, ``detail`` a sentence."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class ParseResult:
    """Every input document (ok or failed), the sections of the ok ones, and the problems.

    ``reused`` holds the relative paths of the documents served from the parse cache.
    """

    documents: list[Document]
    sections: list[Section]
    problems: list[ParseProblem]
    reused: tuple[str, ...] = ()
