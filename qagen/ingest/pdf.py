"""PDF → sections with pdfplumber: words with fonts, layout, running lines, headings.

pdfplumber is imported inside the functions, so ``import qagen.ingest`` stays light.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qagen.config import ParseConfig
from qagen.ingest.clean import collapse_spaces, normalize_chars
from qagen.ingest.layout import page_lines
from qagen.ingest.model import DocumentError, Line, ParsedDoc
from qagen.ingest.running import remove_running_lines
from qagen.ingest.sections import finalize
from qagen.ingest.structure import detect_sections

WORD_OPTIONS: dict[str, Any] = {
    # pdfplumber's default (3 pt) glues words of tightly justified lines together.
    "x_tolerance_ratio": 0.15,
    "extra_attrs": ["fontname", "size"],
}
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
    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    pdf = _open(path)
    try:
        n_pages = len(pdf.pages)
        if n_pages == 0:
            raise DocumentError("corrupt", "the PDF has no pages")
        if on_page_count is not None:
            on_page_count(n_pages)
        if n_pages > config.max_pages:
            raise DocumentError(
                "too-many-pages", f"{n_pages} pages is over parse.max_pages={config.max_pages}; raise it to include"
            )
        pages = _read_pages(pdf, on_page_error)
        meta_title = _metadata_title(pdf)
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


def _open(path: Path) -> Any:
    import pdfplumber
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

    try:
        return pdfplumber.open(path)
    except Exception as exc:
        inner = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
        if isinstance(inner, (PDFPasswordIncorrect, PDFEncryptionError)):
            raise DocumentError(
                "encrypted", "the PDF is password-protected; decrypt it first (e.g. qpdf --decrypt)"
            ) from None
        raise DocumentError("corrupt", f"pdfplumber cannot open it ({type(inner).__name__})") from None


def _read_pages(pdf: Any, on_page_error: Callable[[int, str], None] | None) -> list[list[Line]]:
    pages: list[list[Line]] = []
    failed = 0
    for number, page in enumerate(pdf.pages, start=1):
        try:
            words = page.extract_words(**WORD_OPTIONS)
            pages.append(page_lines(words, number))
        except Exception as exc:  # one bad page must not sink the document
            failed += 1
            pages.append([])
            if on_page_error is not None:
                on_page_error(number, type(exc).__name__)
        finally:
            page.close()
    if failed == len(pages):
        raise DocumentError("parser-error", f"pdfplumber failed on every page ({failed})")
    return pages


def _metadata_title(pdf: Any) -> str | None:
    raw = (pdf.metadata or {}).get("Title")
    if not isinstance(raw, str):
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
