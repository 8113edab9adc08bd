"""PDF words with fonts from PDFium (through pypdfium2), the default parse engine.

PDFium's text page already holds every character with its font, size and box and puts the
spaces and line breaks between them. A page's text is read in one call and cut into words at
those spaces; PDFium is then asked about a word's first and last character only (its box), and
about each text object once (font name, size, direction), never once per character. The words
have the same keys as pdfplumber's ``extract_words`` (``text``, ``x0``, ``x1``, ``top``,
``bottom``, ``size``, ``fontname``, ``upright``), so the layout and headings logic is shared,
plus ``reading_order``: PDFium gives a Hebrew or Arabic word's letters in reading order, where
pdfplumber gives them left to right.

pypdfium2 is imported inside the functions, so ``import qagen.ingest`` stays light.
"""

from __future__ import annotations

import ctypes
import functools
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from qagen.ingest.model import ENCRYPTED, DocumentError
from qagen.ingest.symbols import CANDIDATE, OMS_TABLE, is_symbol_font

Word = dict[str, Any]

# FPDF_GetLastError codes (fpdfview.h)
_ERR_PASSWORD = 4
_ERR_SECURITY = 5
_PAIR_TAIL = "\ufeff"  # stands at the index of a surrogate pair's second half (see char_text)
# PDFium joins a word hyphenated at a line end into one, with U+FFFE for the hyphen: it is
# cut there, so the layout sees "chapter-" on one line and "bib" on the next, as pdfplumber gives.
_WORD = re.compile(r"[^\s\x00-\x1f\ufffe\uffff]*\ufffe|[^\s\x00-\x1f\ufffe\uffff]+")


def _has_encrypt_dictionary(path: Path, window: int = 1 << 16) -> bool:
    """Whether the PDF's start or end (where trailers and cross-reference streams sit) names /Encrypt."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(window)
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - window))
            tail = fh.read(window)
    except OSError:
        return True  # cannot tell: keep PDFium's word
    return b"/Encrypt" in head or b"/Encrypt" in tail


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
            # PDFium's error code is global and may be left over from an earlier file of this worker: a
            # password error counts only when the file has an encryption dictionary
            if code in (_ERR_PASSWORD, _ERR_SECURITY) and _has_encrypt_dictionary(path):
                raise DocumentError("encrypted", ENCRYPTED) from None
            if code in (None, 0, _ERR_PASSWORD, _ERR_SECURITY):
                raise DocumentError(
                    "corrupt", "PDFium cannot open it (no usable page tree: the PDF may have no pages)"
                ) from None
            raise DocumentError("corrupt", f"PDFium cannot open it ({exc})") from None
        self.n_pages = len(self._pdf)
        self._text_object, self._loose_box = _fast_calls(raw)
        # buffers reused by every call
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
        if len(text) != n:  # the text left out some characters: read them one by one
            text = char_text([raw.FPDFText_GetUnicode(textpage, i) for i in range(n)])
        handle = ctypes.cast(textpage.raw, ctypes.c_void_p).value
        loose_box = self._loose_box
        box, box_at = self._box, ctypes.addressof(self._box)
        fonts: dict[int, tuple[float, str, bool]] = {}
        text = self._math_symbols(textpage, handle, text, fonts)
        words: list[Word] = []
        for match in _WORD.finditer(text):
            first, last = match.start(), match.end() - 1
            if text[last] == _PAIR_TAIL:  # the box is the pair's first half's
                last -= 1
            size, fontname, upright = self._object_font(textpage, handle, first, fonts)
            # both ends' boxes: a right-to-left word (PDFium gives Hebrew and Arabic in reading
            # order) starts on the right; a box PDFium cannot give is the other end's
            if loose_box(handle, first, box_at):
                x0, x1, bottom = box.left, box.right, box.bottom
                if last != first and loose_box(handle, last, box_at):
                    x0, x1 = min(x0, box.left), max(x1, box.right)
            elif last != first and loose_box(handle, last, box_at):
                x0, x1, bottom = box.left, box.right, box.bottom
            else:
                x0 = x1 = bottom = 0.0
            word = match.group()
            if word[-1] == "\ufffe":
                word = word.replace("\ufffe", "-")
            if _PAIR_TAIL in word:
                word = word.replace(_PAIR_TAIL, "")
            words.append(
                {
                    "text": word,
                    "x0": x0,
                    "x1": x1,
                    # pdfminer's convention, which the layout was tuned on: a box one font size
                    # high standing on the font's descender line
                    "top": height - bottom - size,
                    "bottom": height - bottom,
                    "size": size,
                    "fontname": fontname,
                    "upright": upright,
                    "reading_order": True,  # characters as read, right-to-left words included
                }
            )
        return words

    def _math_symbols(self, textpage: Any, handle: int, text: str, fonts: dict[int, tuple[float, str, bool]]) -> str:
        """``text`` with the letters set in a TeX math symbol font made the brackets they show.

        Only characters where a bracket may stand are looked up (see ``symbols.CANDIDATE``),
        each by its text object's font, which ``fonts`` caches for the words after.
        """
        chars: list[str] | None = None
        for match in CANDIDATE.finditer(text):
            index = match.start()
            if is_symbol_font(self._object_font(textpage, handle, index, fonts)[1]):
                if chars is None:
                    chars = list(text)
                chars[index] = text[index].translate(OMS_TABLE)
        return text if chars is None else "".join(chars)

    def _object_font(
        self, textpage: Any, handle: int, index: int, fonts: dict[int, tuple[float, str, bool]]
    ) -> tuple[float, str, bool]:
        """The font of character ``index``, asked once per text object (``fonts`` caches it)."""
        key = self._text_object(handle, index) or 0
        font = fonts.get(key) if key else None
        if font is None:
            font = self._font(textpage, index)
            if key:
                fonts[key] = font
        return font

    def _font(self, textpage: Any, index: int) -> tuple[float, str, bool]:
        """Size (scaled by the text and page matrices), font name and direction of a character."""
        raw = self._raw
        m = self._matrix
        if raw.FPDFText_GetMatrix(textpage, index, m):
            scale = math.sqrt(abs(m.a * m.d - m.b * m.c)) or 1.0
            upright = abs(m.b) < 1e-6 and abs(m.c) < 1e-6  # pdfplumber's rule
        else:
            scale, upright = 1.0, True
        size = round(raw.FPDFText_GetFontSize(textpage, index) * scale, 4)
        got = raw.FPDFText_GetFontInfo(textpage, index, self._name, len(self._name), self._flags)
        fontname = self._name.value.decode("utf-8", "replace") if got else ""
        return size, fontname, upright


def char_text(codes: list[int]) -> str:
    """The text of a page's characters, one per code, so that text index = character index.

    0x02 is PDFium's line-end hyphen (made U+FFFE, as the page text has it); a character
    outside the BMP comes as a UTF-16 surrogate pair over two indices: the first holds the
    character, the second a zero-width mark the words drop (a lone surrogate, which no file
    can store, becomes U+FFFD).
    """
    out: list[str] = []
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == 2:
            out.append("\ufffe")
        elif 0xD800 <= code < 0xDC00 and i + 1 < len(codes) and 0xDC00 <= codes[i + 1] < 0xE000:
            out.append(chr(0x10000 + ((code - 0xD800) << 10) + (codes[i + 1] - 0xDC00)) + _PAIR_TAIL)
            i += 1
        elif 0xD800 <= code < 0xE000:
            out.append("\ufffd")
        else:
            out.append(chr(code))
        i += 1
    return "".join(out)


@functools.cache
def _fast_calls(raw: Any) -> tuple[Callable[[int, int], int | None], Callable[[int, int, int], int]]:
    """The two calls made per word, with plain integer arguments and results.

    pypdfium2's bindings wrap pointers in ctypes types, which costs more than the call itself
    when it is made for every word; these are the same C functions, typed with ``c_void_p``.
    """
    text_object = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)(
        ctypes.cast(raw.FPDFText_GetTextObject, ctypes.c_void_p).value
    )
    loose_box = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)(
        ctypes.cast(raw.FPDFText_GetLooseCharBox, ctypes.c_void_p).value
    )
    return text_object, loose_box
