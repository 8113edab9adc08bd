"""PDF → sections: words with fonts, layout, running lines, headings.

Two engines read the words, behind one small reader interface (page count, words of a page,
metadata title): PDFium through pypdfium2 (``parse.engine=pdfium``, the default, about ten
times faster) and pdfplumber (``parse.engine=pdfplumber``, pure Python, the older path kept
for comparison). Everything after the words (layout, running lines, headings, sections) is
shared. Both libraries are imported inside the functions, so ``import qagen.ingest`` stays light.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from qagen.config import ParseConfig
from qagen.ingest.clean import collapse_spaces, normalize_chars
from qagen.ingest.layout import page_lines
from qagen.ingest.model import ENCRYPTED, DocumentError, Line, ParsedDoc
from qagen.ingest.running import remove_running_lines
from qagen.ingest.sections import finalize
from qagen.ingest.structure import detect_sections
from qagen.ingest.symbols import OMS_TABLE, is_symbol_font

WORD_OPTIONS: dict[str, Any] = {
    # pdfplumber's default (3 pt) glues words of tightly justified lines together.
    "x_tolerance_ratio": 0.15,
    "extra_attrs": ["fontname", "size"],
}
ENGINES = ("pdfium", "pdfplumber")
_CID = re.compile(r"\(cid:(\d{2,3})\)")
_BAD_TITLE = re.compile(
    r"^(untitled|\(?anonymous\)?$|microsoft word|document\d*$)|\.(dvi|tex|docx?|pdf|indd|qxd)$", re.IGNORECASE
)


def parse_pdf(
    path: Path,
    config: ParseConfig,
    on_page_error: Callable[[int, str], None] | None = None,
    on_page_count: Callable[[int], None] | None = None,
) -> ParsedDoc:
    """Parse one PDF into sections; raise DocumentError when it cannot be used.

    ``on_page_error(page, error)`` hears of pages that could not be read (they are skipped);
    ``on_page_count(n)`` hears the page count as soon as the PDF is open.
    """
    _check_complete(path)
    pdf = open_reader(path, config.engine)
    try:
        n_pages = pdf.n_pages
        if n_pages == 0:
            raise DocumentError("corrupt", "the PDF has no pages")
        if on_page_count is not None:
            on_page_count(n_pages)
        if n_pages > config.max_pages:
            raise DocumentError(
                "too-many-pages", f"{n_pages} pages is over parse.max_pages={config.max_pages}; raise it to include"
            )
        pages = _read_pages(pdf, config.engine, on_page_error)
        meta_title = _clean_title(pdf.metadata_title())
    finally:
        pdf.close()
    if not any(pages):
        raise DocumentError(
            "no-text",
            f"no extractable text in {n_pages} page(s): an image-only (scanned) PDF; run OCR first (e.g. ocrmypdf)",
        )
    pages = remove_running_lines(pages, config.running_min_share)
    raw = detect_sections(pages, config)
    title = meta_title or _first_heading(raw)
    sections = finalize(raw, title, config.max_section_tokens)
    if not sections:
        raise DocumentError("no-text", "no body text: only page numbers and running headers were found")
    return ParsedDoc("pdf", n_pages, title, sections)


def _check_complete(path: Path) -> None:
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        size = fh.tell()
        fh.seek(max(0, size - 4096))
        tail = fh.read()
    if b"%%EOF" not in tail:
        raise DocumentError(
            "truncated", "no %%EOF marker at the end: the file is truncated or incomplete; download or export it again"
        )


class PdfReader(Protocol):
    """What the section logic needs of a PDF engine."""

    n_pages: int

    def words(self, index: int) -> list[dict[str, Any]]:
        """Words of page ``index`` (0-based) as pdfplumber's ``extract_words`` gives them."""
        ...

    def metadata_title(self) -> str | None: ...

    def close(self) -> None: ...


def open_reader(path: Path, engine: str = "pdfium") -> PdfReader:
    """Open ``path`` with ``engine`` (``pdfium`` or ``pdfplumber``); DocumentError when it cannot be read."""
    if engine == "pdfium":
        from qagen.ingest.pdfium import PdfiumReader

        return PdfiumReader(path)
    if engine == "pdfplumber":
        return PlumberReader(path)
    raise ValueError(f"unknown PDF engine {engine!r}; use one of {', '.join(ENGINES)}")


class PlumberReader:
    """The pdfplumber engine: pdfminer's layout analysis, in pure Python."""

    def __init__(self, path: Path) -> None:
        import pdfplumber
        from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

        logging.getLogger("pdfminer").setLevel(logging.ERROR)
        try:
            self._pdf = pdfplumber.open(path)
        except Exception as exc:
            inner = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
            if isinstance(inner, (PDFPasswordIncorrect, PDFEncryptionError)):
                raise DocumentError("encrypted", ENCRYPTED) from None
            raise DocumentError("corrupt", f"pdfplumber cannot open it ({type(inner).__name__})") from None
        self.n_pages = len(self._pdf.pages)

    def words(self, index: int) -> list[dict[str, Any]]:
        page = self._pdf.pages[index]
        try:
            words = page.extract_words(**WORD_OPTIONS)
        finally:
            page.close()
        # a word of a TeX math symbol font is symbols (the font's letters are its brackets);
        # pdfplumber parts words where the font changes, so the word is the symbol run
        for word in words:
            if is_symbol_font(word.get("fontname", "")):
                text = _CID.sub(lambda m: chr(int(m.group(1))), word["text"])  # "(cid:104)": code 104, "h"
                word["text"] = text.translate(OMS_TABLE)
        return list(words)

    def metadata_title(self) -> str | None:
        raw = (self._pdf.metadata or {}).get("Title")
        return raw if isinstance(raw, str) else None

    def close(self) -> None:
        self._pdf.close()


def _read_pages(pdf: PdfReader, engine: str, on_page_error: Callable[[int, str], None] | None) -> list[list[Line]]:
    pages: list[list[Line]] = []
    failed = 0
    for number in range(1, pdf.n_pages + 1):
        try:
            pages.append(page_lines(pdf.words(number - 1), number))
        except Exception as exc:  # one bad page must not sink the document
            failed += 1
            pages.append([])
            if on_page_error is not None:
                on_page_error(number, type(exc).__name__)
    if failed == len(pages):
        raise DocumentError("parser-error", f"{engine} failed on every page ({failed})")
    return pages


def _clean_title(raw: str | None) -> str | None:
    if not raw:
        return None
    title = collapse_spaces(normalize_chars(raw, grave=True))
    if not 3 <= len(title) <= 200 or sum(c.isalpha() for c in title) < 3 or _BAD_TITLE.search(title):
        return None
    return title


# What a title names: "The euclideangeometry package", "User manual", "Patient leaflet".
_DOCUMENT_WORDS = re.compile(
    r"\b(?:package|class|bundle|library|manual|guide|handbook|documentation|reference|tutorial|leaflet|brochure|"
    r"policy|instructions|introduction to|overview of|handleiding|gebruiksaanwijzing|folder|anleitung|handbuch|"
    r"paket|manuel|guide|paquete|manuale|pacchetto|guida|pacote)\b",
    re.IGNORECASE,
)


def _first_heading(raw: list[Any]) -> str | None:
    """The first heading; on the first page, the first one that names a document if the first does not.

    LaTeX title pages often set the author's name large before the title ("Claudio Beccari",
    then "The euclideangeometry package").
    """
    headings = [(str(s.heading), s.page_start) for s in raw if s.heading]
    if not headings:
        return None
    first, page = headings[0]
    if not _DOCUMENT_WORDS.search(first):
        for heading, at in headings[1:6]:
            if at != page:
                break
            if _DOCUMENT_WORDS.search(heading):
                return heading
    return first
