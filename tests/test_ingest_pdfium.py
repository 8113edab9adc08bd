"""The PDFium reader on hand-written PDFs: sizes through matrices, direction, hyphens, words like pdfplumber's."""

from __future__ import annotations

from pathlib import Path

import pytest

from qagen.ingest.pdf import open_reader
from tests.support.bad_files import raw_pdf

pytest.importorskip("pypdfium2")


def write(tmp_path: Path, *pages: bytes) -> Path:
    path = tmp_path / "doc.pdf"
    path.write_bytes(raw_pdf(list(pages)))
    return path


def by_text(words: list[dict]) -> dict[str, dict]:
    return {w["text"]: w for w in words}


def test_size_is_the_font_size_scaled_by_the_text_and_page_matrices(tmp_path: Path):
    # "1 Tf" scaled by the text matrix (how many generators set type), a plain 10 pt line, and
    # 6 pt under a page transform that doubles it.
    page = (
        b"BT /F1 1 Tf 24 0 0 24 72 700 Tm (Heading) Tj ET\n"
        b"BT /F1 10 Tf 1 0 0 1 72 650 Tm (body) Tj ET\n"
        b"q 2 0 0 2 0 0 cm BT /F1 6 Tf 36 300 Td (doubled) Tj ET Q\n"
    )
    for engine in ("pdfium", "pdfplumber"):
        words = by_text(open_reader(write(tmp_path, page), engine).words(0))
        sizes = {t: round(words[t]["size"], 1) for t in ("Heading", "body", "doubled")}
        assert sizes == {"Heading": 24.0, "body": 10.0, "doubled": 12.0}, engine


def test_boxes_follow_pdfplumbers_convention(tmp_path: Path):
    page = b"BT /F1 10 Tf 72 700 Td (Opening hours of the pharmacy) Tj ET\n"
    ours = open_reader(write(tmp_path, page), "pdfium").words(0)
    theirs = open_reader(write(tmp_path, page), "pdfplumber").words(0)
    assert [w["text"] for w in ours] == [w["text"] for w in theirs]
    for a, b in zip(ours, theirs, strict=True):
        for key in ("x0", "x1", "top", "bottom"):
            assert a[key] == pytest.approx(b[key], abs=0.6), (a["text"], key)
        assert a["fontname"].endswith("Helvetica") and a["upright"]


def test_rotated_text_is_not_upright(tmp_path: Path):
    page = b"BT /F1 10 Tf 0 1 -1 0 300 100 Tm (sideways) Tj ET\nBT /F1 10 Tf 72 700 Td (level) Tj ET\n"
    words = by_text(open_reader(write(tmp_path, page), "pdfium").words(0))
    assert words["level"]["upright"] and not words["sideways"]["upright"]


def test_a_word_hyphenated_at_a_line_end_stays_two_words_on_two_lines(tmp_path: Path):
    # PDFium joins "medi-" + "cations" into one word with a marker for the hyphen; the reader
    # cuts it back, so the layout joins the lines as it does for pdfplumber.
    page = b"BT /F1 10 Tf 72 700 Td (about prescription medi-) Tj 0 -12 Td (cations and more) Tj ET\n"
    words = open_reader(write(tmp_path, page), "pdfium").words(0)
    texts = [w["text"] for w in words]
    assert "medi-" in texts and "cations" in texts
    first, second = by_text(words)["medi-"], by_text(words)["cations"]
    assert second["top"] > first["bottom"] - 1  # on the next line
    assert second["x0"] < first["x0"]


def test_pages_without_text_give_no_words(tmp_path: Path):
    reader = open_reader(write(tmp_path, b"0 0 m 100 100 l S\n", b"BT /F1 10 Tf 72 700 Td (text) Tj ET\n"))
    assert reader.n_pages == 2
    assert reader.words(0) == []
    assert [w["text"] for w in reader.words(1)] == ["text"]
    reader.close()


def test_an_unknown_engine_is_refused(tmp_path: Path):
    with pytest.raises(ValueError, match="unknown PDF engine 'mupdf'"):
        open_reader(write(tmp_path, b""), "mupdf")


def test_characters_outside_the_bmp_keep_one_text_index_per_character():
    # PDFium lists 𝑥 (U+1D465, as in LuaLaTeX math) as two UTF-16 halves; a lone half cannot be
    # stored in any file (the parse cache failed on one) and becomes U+FFFD.
    from qagen.ingest.pdfium import _WORD, char_text

    codes = [ord("a"), 0xD835, 0xDC65, ord("b"), 32, 0xD800, ord("c"), 2, ord("d")]
    text = char_text(codes)
    assert len(text) == len(codes)
    words = [m.group() for m in _WORD.finditer(text)]
    assert [w.replace("\ufeff", "") for w in words] == ["a\U0001d465b", "\ufffdc\ufffe", "d"]
    assert all(not 0xD800 <= ord(ch) < 0xE000 for ch in text)
    text.encode("utf-8")  # storable


@pytest.mark.parametrize("engine", ["pdfium", "pdfplumber"])
def test_a_right_to_left_line_is_read_from_the_right(tmp_path: Path, engine: str):
    from tests.support.bad_files import FONT_CANDIDATES, HEBREW

    font = next((Path(p) for p in FONT_CANDIDATES if Path(p).is_file()), None)
    if font is None:
        pytest.skip("no font with Hebrew glyphs installed")
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    from qagen.ingest.layout import page_lines

    pdfmetrics.registerFont(TTFont("HebrewSans", str(font)))
    path = tmp_path / "rtl.pdf"
    c = canvas.Canvas(str(path))
    c.setFont("HebrewSans", 12)
    c.drawString(72, 700, HEBREW[::-1])  # laid out as seen: the first letter on the right
    # "<visiting hours> New York 2024 <in the house>" as a bidi-aware writer lays it out: read
    # from the right, the Latin run keeping its own order
    words = HEBREW.split()
    c.drawString(72, 680, f"{words[2][::-1]} 2024 New York {words[1][::-1]} {words[0][::-1]}")
    c.save()
    lines = [line.text for line in page_lines(open_reader(path, engine).words(0), 1)]
    assert lines == [HEBREW, f"{words[0]} {words[1]} New York 2024 {words[2]}"]


def test_a_parse_the_cache_cannot_store_is_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    # A lone UTF-16 half in a section (what PDFium's text held before char_text) cannot be
    # written as UTF-8: the build goes on, the parse is simply not cached.
    from qagen.config import ParseConfig
    from qagen.ingest.cache import ParseCache
    from qagen.ingest.model import ParsedDoc

    cache = ParseCache(tmp_path, ParseConfig())
    doc = ParsedDoc("pdf", 1, "Title", [{"heading": "Math", "text": "LaTeX2\ud835 symbols"}])
    with caplog.at_level("WARNING", logger="qagen.ingest.cache"):
        cache.put("ab" * 32, doc)
    assert "parse cache not written (UnicodeEncodeError)" in caplog.text
    assert cache.get("ab" * 32) is None
