"""File type by content: the extension picks candidates, the bytes decide the parser."""

from __future__ import annotations

from pathlib import Path

from qagen.ingest.model import DocumentError

EXTENSIONS: dict[str, tuple[str, ...]] = {
    "pdf": (".pdf",),
    "txt": (".txt", ".text"),
    "md": (".md", ".markdown"),
    "html": (".html", ".htm", ".xhtml"),
}
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"II*\x00", "a TIFF image"),
    (b"MM\x00*", "a TIFF image"),
    (b"PK\x03\x04", "a ZIP archive (a .docx, .xlsx or .epub is one)"),
    (b"\xd0\xcf\x11\xe0", "an old Microsoft Office file (.doc/.xls)"),
    (b"\x1f\x8b", "a gzip archive"),
    (b"{\\rtf", "an RTF document"),
    (b"\x7fELF", "an executable"),
)
_HTML_STARTS = ("<!doctype html", "<html", "<head", "<body", "<?xml")


def format_of_extension(path: Path) -> str | None:
    """The format an extension claims, or None."""
    suffix = path.suffix.lower()
    for fmt, exts in EXTENSIONS.items():
        if suffix in exts:
            return fmt
    return None


def detect_format(path: Path) -> str:
    """``pdf``, ``html``, ``md`` or ``txt`` from the file's bytes; DocumentError if unusable."""
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if not head:
        raise DocumentError("empty", "the file is empty (0 bytes)")
    if b"%PDF-" in head[:1024]:
        return "pdf"
    claimed = format_of_extension(path)
    kind = describe(head)
    if claimed == "pdf":
        raise DocumentError("not-pdf", f"named .pdf but the content is {kind}, not a PDF")
    if kind != "text" and kind != "HTML":
        raise DocumentError("unsupported", f"the content is {kind}, not text, Markdown, HTML or PDF")
    if kind == "HTML" or claimed == "html":
        return "html"
    return "md" if claimed == "md" else "txt"


def describe(head: bytes) -> str:
    """A short description of what the first bytes of a file are."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "text"  # UTF-16 with a byte-order mark
    if b"\x00" in head:
        return "binary data"
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if start.startswith(tuple(s.encode() for s in _HTML_STARTS)) and (
        b"<html" in head.lower() or b"<body" in head.lower()
    ):
        return "HTML"
    return "text"
