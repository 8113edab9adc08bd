"""A corpus of bad input files, written at test time (no binary fixtures in the repository).

``write_bad_corpus(folder)`` writes every file and returns one :class:`BadFile` per file:
its name, the parse outcome qagen must report (a ``ParseProblem.reason``, or ``"ok"`` for
a file that is odd but readable) and a short description for the fault report. PDFs with
text are drawn with reportlab; the huge one is written by hand (one shared content stream,
thousands of page objects) so it costs a few hundred kilobytes and milliseconds.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

HUGE_PAGES = 2500  # over parse.max_pages (2000 by default)
LONG_HEADING_CHARS = 10_000
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
)
# Right-to-left scripts, combining marks, invisible characters, emoji, a bidi override.
ARABIC = "مواعيد الزيارة في المستشفى من الساعة العاشرة صباحاً حتى الثامنة مساءً"
HEBREW = "שעות הביקור בבית החולים הן מעשר בבוקר עד שמונה בערב"
PERSIAN = "می\u200cخواهم برای ملاقات وقت بگیرم"  # the zero-width non-joiner is part of the spelling
COMBINING = "Cafe\u0301 cre\u0300me bru\u0302le\u0301e, Z\u0335a\u0336l\u0337g\u0338o\u0334 text, n\u0303o"
INVISIBLE = "zero\u200bwidth\u200cjoiner\u200dword\u2060joiner\ufeffbom and\u00adsoft hyphen"
EMOJI = "Call us 📞 or write ✉️ — family 👨‍👩‍👧‍👦, flags 🇳🇱🇮🇱, skin tone 👋🏽"
BIDI = "Room \u202eBA-21\u202c is \u2067مفتوح\u2069 until 8pm."


@dataclass(frozen=True)
class BadFile:
    """One file of the corpus and the outcome the parse stage must report for it."""

    name: str
    expect: str  # a ParseProblem reason, or "ok" when the file must parse
    what: str


def _canvas_pdf(path: Path, pages: list[tuple[str, list[str]]], **canvas_args: object) -> Path:
    """A PDF with a bold heading and body lines per page (reportlab)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4, **canvas_args)
    for heading, lines in pages:
        c.setFont("Helvetica-Bold", 16)
        c.drawString(72, 770, heading)
        c.setFont("Helvetica", 11)
        for k, line in enumerate(lines):
            c.drawString(72, 740 - 14 * k, line)
        c.showPage()
    c.save()
    return path


def _service_pages(topic: str) -> list[tuple[str, list[str]]]:
    return [
        (
            f"{topic}: {part}",
            [f"{part} rule {k + 1}: ask the {topic.lower()} desk about {part.lower()} ({k})." for k in range(12)],
        )
        for part in ("Opening hours", "Contact", "Fees")
    ]


def encrypted_pdf(path: Path, user_password: str = "secret", owner_password: str = "owner") -> Path:
    """A password-protected PDF; with an empty user password it opens but is still encrypted."""
    from reportlab.lib import pdfencrypt

    enc = pdfencrypt.StandardEncryption(user_password, owner_password, canPrint=0, canCopy=0)
    return _canvas_pdf(path, _service_pages("Billing"), encrypt=enc)


def image_only_pdf(path: Path) -> Path:
    """What a scan is to a text extractor: a page that is one picture (of text)."""
    from PIL import Image, ImageDraw
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    image = Image.new("L", (600, 800), 255)
    draw = ImageDraw.Draw(image)
    for k in range(30):
        draw.text((40, 40 + 24 * k), f"Scanned line {k + 1}: visiting hours are 10:00-20:00.", fill=0)
    c = canvas.Canvas(str(path), pagesize=A4)
    for _ in range(2):
        c.drawImage(ImageReader(image), 36, 36, width=520, height=760)
        c.showPage()
    c.save()
    return path


_STANDARD = (b"Helvetica", b"Times-Roman", b"Courier")


def _font_dict(name: bytes) -> bytes:
    if name in _STANDARD:
        return b"<< /Type /Font /Subtype /Type1 /BaseFont /" + name + b" >>"
    widths = b" ".join([b"500"] * 128)
    return (
        b"<< /Type /Font /Subtype /Type1 /BaseFont /" + name + b" /FirstChar 0 /LastChar 127 /Widths [" + widths + b"]"
        b" /FontDescriptor << /Type /FontDescriptor /FontName /" + name + b" /Flags 4 /FontBBox [0 -250 1000 750]"
        b" /ItalicAngle 0 /Ascent 750 /Descent -250 /CapHeight 700 /StemV 80 >> >>"
    )


def raw_pdf(contents: list[bytes], fonts: tuple[bytes, ...] = (b"Helvetica",)) -> bytes:
    """A PDF with one page per content stream (identical streams are stored once), with a correct xref.

    ``fonts`` are the base font names of /F1, /F2, ...: Type 1, not embedded, with no encoding
    and no Unicode map, so text extraction gives the codes as they are (a name that is no
    standard font gets a descriptor and widths of 500 units).
    """
    streams = list(dict.fromkeys(contents))
    first_stream = 3 + len(fonts)
    first_page = first_stream + len(streams)
    kids = b" ".join(b"%d 0 R" % (first_page + i) for i in range(len(contents)))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % len(contents),
        *(_font_dict(name) for name in fonts),
    ]
    font_refs = b" ".join(b"/F%d %d 0 R" % (i + 1, 3 + i) for i in range(len(fonts)))
    for content in streams:
        data = zlib.compress(content, 9)
        objects.append(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream")
    for content in contents:
        stream = first_stream + streams.index(content)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R" % stream
            + b" /Resources << /Font << "
            + font_refs
            + b" >> >> >>"
        )
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def huge_pdf(path: Path, n_pages: int = HUGE_PAGES) -> Path:
    """``n_pages`` near-blank pages: only a page number at the foot of each, as in a scan."""
    path.write_bytes(raw_pdf([b"BT /F1 9 Tf 300 30 Td (%d) Tj ET" % (n + 1) for n in range(n_pages)]))
    return path


def png_bytes() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 30, 30)).save(buf, format="PNG")
    return buf.getvalue()


def zip_bytes() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("word/document.xml", "<w:document>Not a PDF at all</w:document>")
    return buf.getvalue()


def unicode_markdown() -> str:
    return (
        f"# {ARABIC[:24]}\n\n{ARABIC}. {ARABIC}.\n\n"
        f"## {HEBREW[:20]}\n\n{HEBREW}. {HEBREW}. {PERSIAN}.\n\n"
        f"## Mixed scripts {EMOJI[:9]}\n\n{COMBINING}.\n\n{INVISIBLE}.\n\n{EMOJI}.\n\n{BIDI}\n"
    )


def unicode_pdf(path: Path) -> Path | None:
    """The same weird text drawn in a TrueType font with Arabic and Hebrew glyphs; None without one."""
    font = next((Path(p) for p in FONT_CANDIDATES if Path(p).is_file()), None)
    if font is None:
        return None
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen import canvas

    pdfmetrics.registerFont(TTFont("FaultSans", str(font)))
    c = canvas.Canvas(str(path), pagesize=A4)

    def visual(text: str) -> str:
        # A right-to-left line is laid out as it is seen, its first letter on the right, as
        # every RTL-aware writer does; reportlab has no bidi, so such a line is drawn reversed.
        return text[::-1] if text.startswith((ARABIC[:24], HEBREW[:20])) else text

    for heading, body in ((ARABIC[:24], ARABIC), (HEBREW[:20], HEBREW), ("Mixed scripts", COMBINING)):
        c.setFont("FaultSans", 16)
        c.drawString(72, 770, visual(heading))
        c.setFont("FaultSans", 10)
        for k, line in enumerate((body, body, INVISIBLE, EMOJI, BIDI, COMBINING)):
            c.drawString(72, 740 - 14 * k, visual(line))
        c.showPage()
    c.save()
    return path


def long_heading_markdown(chars: int = LONG_HEADING_CHARS) -> str:
    words = ("Visiting hours and parking rules for the east wing of the hospital " * (chars // 60 + 1))[:chars]
    return f"# {words}\n\nVisitors may park in garage B from 07:00 to 22:00. Tickets are validated at the desk.\n"


def long_heading_pdf(path: Path, chars: int = LONG_HEADING_CHARS) -> Path:
    """A bold 16 pt 'heading' of ``chars`` characters drawn as one line (it runs off the page)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 770, long_heading_markdown(chars).splitlines()[0][2:])
    c.setFont("Helvetica", 11)
    for k in range(10):
        c.drawString(72, 740 - 14 * k, f"Parking rule {k + 1}: garage B is open from 07:00 to 22:00 ({k}).")
    c.showPage()
    c.save()
    return path


def write_bad_corpus(folder: Path, huge_pages: int = HUGE_PAGES) -> list[BadFile]:
    """Write every bad file into ``folder``; return what the parse stage must say of each."""
    folder.mkdir(parents=True, exist_ok=True)
    files: list[BadFile] = []

    def add(name: str, expect: str, what: str) -> None:
        files.append(BadFile(name, expect, what))

    encrypted_pdf(folder / "encrypted.pdf")
    add("encrypted.pdf", "encrypted", "PDF with a user password")
    encrypted_pdf(folder / "owner-locked.pdf", user_password="")
    add("owner-locked.pdf", "ok", "encrypted PDF with an empty user password (copy/print locked)")
    whole = _canvas_pdf(folder / ".whole.pdf", _service_pages("Radiology")).read_bytes()
    (folder / ".whole.pdf").unlink()
    (folder / "truncated.pdf").write_bytes(whole[: len(whole) * 6 // 10])
    add("truncated.pdf", "truncated", "PDF cut at 60% of its bytes")
    (folder / "zero-bytes.pdf").write_bytes(b"")
    add("zero-bytes.pdf", "empty", "zero-byte .pdf")
    (folder / "zero-bytes.md").write_bytes(b"")
    add("zero-bytes.md", "empty", "zero-byte .md")
    image_only_pdf(folder / "scanned.pdf")
    add("scanned.pdf", "no-text", "image-only PDF (a scan, no text layer)")
    huge_pdf(folder / "huge.pdf", huge_pages)
    add("huge.pdf", "too-many-pages", f"{huge_pages} near-blank pages")
    (folder / "image.pdf").write_bytes(png_bytes())
    add("image.pdf", "not-pdf", "PNG image renamed .pdf")
    (folder / "archive.pdf").write_bytes(zip_bytes())
    add("archive.pdf", "not-pdf", "ZIP archive renamed .pdf")
    (folder / "unicode-rtl.md").write_text(unicode_markdown(), encoding="utf-8")
    add("unicode-rtl.md", "ok", "Arabic, Hebrew, combining marks, zero-width chars, emoji, bidi overrides")
    if unicode_pdf(folder / "unicode-rtl.pdf") is not None:
        add("unicode-rtl.pdf", "ok", "the same weird text in a PDF (DejaVu Sans)")
    (folder / "long-heading.md").write_text(long_heading_markdown(), encoding="utf-8")
    add("long-heading.md", "ok", f"Markdown heading of {LONG_HEADING_CHARS:,} characters")
    long_heading_pdf(folder / "long-heading.pdf")
    add("long-heading.pdf", "ok", f"PDF heading line of {LONG_HEADING_CHARS:,} characters")
    return files
