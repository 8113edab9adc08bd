"""PDF words with fonts from PDFium (through pypdfium2), the default parse engine.

PDFium's text page already holds every character with its font, size and box and puts the
spaces and line breaks between them. A page's text is read in one call and cut into words at
those spaces; PDFium is then asked about a word's first and last character only (its box), and
about each text object once (font name, size, direction), never once per character. The words
have the same keys as pdfplumber's ``extract_words`` (``text``, ``x0``, ``x1``, ``top``,
``bottom``, ``size``, ``fontname``, ``upright``), so the layout and headings logic is shared.

pypdfium2 is imported inside the functions, so ``import qagen.ingest`` stays light.
"""

from __future__ import annotations

import ctypes
import math
import re
from pathlib import Path
from typing import Any

from qagen.ingest.model import DocumentError

Word = dict[str, Any]

# FPDF_GetLastError codes (fpdfview.h)
_ERR_PASSWORD = 4
_ERR_SECURITY = 5
# PDFium joins a word hyphenated at a line end into one, with U+FFFE for the hyphen: it is
# cut there, so the layout sees "chapter-" on one line and "bib" on the next, as pdfplumber gives.
_WORD = re.compile(r"[^\s\x00-\x1f\ufffe\uffff]*\ufffe|[^\s\x00-\x1f\ufffe\uffff]+")


class PdfiumReader:
    """One open PDF: its page count, each page's words and its metadata title."""

    def __init__(self, path: Path) -> None:
        import pypdfium2 as pdfium
        import pypdfium2.raw as raw

        self._raw = raw
        try:
            self._pdf = pdfium.PdfDocument(str(path))
        except pdfium.PdfiumError as exc:
            code = getattr(exc, "err_code", None)
            if code in (_ERR_PASSWORD, _ERR_SECURITY):
                raise DocumentError(
                    "encrypted", "the PDF is password-protected; decrypt it first (e.g. qpdf --decrypt)"
                ) from None
            raise DocumentError("corrupt", f"PDFium cannot open it ({exc})") from None
        self.n_pages = len(self._pdf)
        # reused buffers for the per-word and per-object calls
        self._box = raw.FS_RECTF()
        self._matrix = raw.FS_MATRIX()
        self._name = ctypes.create_string_buffer(256)
        self._flags = ctypes.c_int()

    def metadata_title(self) -> str | None:
        title = self._pdf.get_metadata_value("Title")
        return title or None

    def words(self, index: int) -> list[Word]:
        """The words of page ``index`` (0-based), in PDFium's reading order."""
        page = self._pdf[index]
        try:
            textpage = page.get_textpage()
            try:
                return self._page_words(textpage, page.get_height())
            finally:
                textpage.close()
        finally:
            page.close()

    def close(self) -> None:
        self._pdf.close()

    def _page_words(self, textpage: Any, height: float) -> list[Word]:
        raw = self._raw
        n = raw.FPDFText_CountChars(textpage)
        if n <= 0:
            return []
        text = textpage.get_text_range(0, n)
        if len(text) != n:  # the text left out some characters: read them one by one (0x02: a line-end hyphen)
            codes = (raw.FPDFText_GetUnicode(textpage, i) for i in range(n))
            text = "".join("\ufffe" if code == 2 else chr(code) for code in codes)
        fonts: dict[int, tuple[float, str, bool]] = {}
        words: list[Word] = []
        for match in _WORD.finditer(text):
            first, last = match.start(), match.end() - 1
            size, fontname, upright = self._font(textpage, first, fonts)
            x0, bottom = self._loose_box(textpage, first)[:2]
            x1 = self._loose_box(textpage, last)[2] if last != first else self._box.right
            words.append(
                {
                    "text": match.group().replace("\ufffe", "-"),
                    "x0": x0,
                    "x1": max(x1, x0),
                    # pdfminer's convention, which the layout was tuned on: a box one font size
                    # high standing on the font's descender line
                    "top": height - bottom - size,
                    "bottom": height - bottom,
                    "size": size,
                    "fontname": fontname,
                    "upright": upright,
                }
            )
        return words

    def _loose_box(self, textpage: Any, index: int) -> tuple[float, float, float]:
        box = self._box
        if not self._raw.FPDFText_GetLooseCharBox(textpage, index, box):
            box.left = box.right = box.bottom = 0.0
        return box.left, box.bottom, box.right

    def _font(self, textpage: Any, index: int, fonts: dict[int, tuple[float, str, bool]]) -> tuple[float, str, bool]:
        """Size (scaled by the text and page matrices), font name and direction of a character's text object."""
        raw = self._raw
        handle = raw.FPDFText_GetTextObject(textpage, index)
        key = ctypes.cast(handle, ctypes.c_void_p).value or 0
        known = fonts.get(key) if key else None
        if known is not None:
            return known
        m = self._matrix
        if raw.FPDFText_GetMatrix(textpage, index, m):
            scale = math.sqrt(abs(m.a * m.d - m.b * m.c)) or 1.0
            upright = abs(m.b) < 1e-6 and abs(m.c) < 1e-6  # pdfplumber's rule
        else:
            scale, upright = 1.0, True
        size = round(raw.FPDFText_GetFontSize(textpage, index) * scale, 4)
        got = raw.FPDFText_GetFontInfo(textpage, index, self._name, len(self._name), self._flags)
        fontname = self._name.value.decode("utf-8", "replace") if got else ""
        found = (size, fontname, upright)
        if key:
            fonts[key] = found
        return found
