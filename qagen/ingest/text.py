"""Plain text and Markdown → sections, with char offsets into the decoded file.

Markdown headings (ATX ``#`` and Setext underlines) come from markdown-it-py's block parser,
so headings inside code fences are not mistaken for sections. Plain text has no markup:
a short standalone line that is numbered ("2.1 Setup"), in capitals, or in Title Case,
followed by a paragraph, starts a section. Form feeds count pages.
"""

from __future__ import annotations

import bisect
import codecs
import os
import re
from pathlib import Path

from qagen.ingest.clean import collapse_spaces, join_lines, normalize_chars
from qagen.ingest.model import Block, DocumentError, ParsedDoc, RawSection
from qagen.ingest.sections import finalize

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*\n", re.DOTALL)
_NUMBERED = re.compile(r"^(?:(?:chapter|section|part|appendix)\s+\w+|\d+(?:\.\d+)*\.?|[A-Z]\.\d+(?:\.\d+)*)\s+\S", re.I)
_UNDERLINE = re.compile(r"^(=+|-+)\s*$")
_MAX_TXT_HEADING = 80


_BOMS = (  # UTF-32 first: its little-endian mark starts with UTF-16's
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xfe\xff", "utf-16-be"),
    (b"\xff\xfe", "utf-16-le"),
)


def decode_text(data: bytes, html: bool = False) -> tuple[str, str]:
    """Bytes → ``(text, how)``: the text with newlines unified, and the encoding and how it was found.

    A byte order mark decides (UTF-8, UTF-16 or UTF-32); then strict UTF-8; then, for HTML, the
    encoding the page declares; then charset-normalizer's detection (which also finds UTF-16
    without a mark); Latin-1 last, which decodes anything. ``how`` reads like ``utf-16-le (BOM)``
    or ``cp1252 (detected)``, with the count of bytes replaced when the bytes did not fit.
    """
    text, how = _decode(data, html)
    return text.replace("\r\n", "\n").replace("\r", "\n"), how


def _decode(data: bytes, html: bool) -> tuple[str, str]:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return _strict_or_replaced(data[len(bom) :], codec, "BOM")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    if html:
        from bs4.dammit import EncodingDetector

        declared = EncodingDetector.find_declared_encoding(data, is_html=True)
        if declared:
            try:
                return data.decode(declared), f"{declared} (declared)"
            except (UnicodeDecodeError, LookupError):
                pass
    detected = _detect(data)
    if detected:
        return _strict_or_replaced(data, detected, "detected")
    return data.decode("latin-1"), "latin-1 (fallback)"


def _detect(data: bytes) -> str | None:
    """charset-normalizer's best guess, but cp1252 among guesses that read the bytes as cleanly.

    Short Western text fits several single-byte code pages at once with no mess ("chaos") in
    any, and the detector's language coherence then picks among them on a few words (cp775 for
    "café", cp1250 that turns a Spanish "ñ" into "ń"). cp1252, the Windows default for Western
    European languages, is the likelier source of such a file. Text that only another code page
    reads cleanly (Polish in cp1250, Russian in cp1251, Greek in cp1253) keeps the detector's answer.
    """
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        return None
    best = matches[0]
    tied = [m for m in matches if m.chaos <= best.chaos + 0.01]
    if any("cp1252" in m.could_be_from_charset for m in tied):
        return "cp1252"
    return best.encoding


def _strict_or_replaced(data: bytes, codec: str, found: str) -> tuple[str, str]:
    codec = codecs.lookup(codec).name  # one spelling: utf_16_le and UTF-16LE are utf-16-le
    try:
        return data.decode(codec), f"{codec} ({found})"
    except UnicodeDecodeError:
        text = data.decode(codec, errors="replace")
        return text, f"{codec} ({found}; {text.count(chr(0xFFFD))} undecodable byte(s) replaced)"


def parse_text_file(path: Path, fmt: str, max_section_tokens: int) -> ParsedDoc:
    """Parse a ``.txt`` (fmt ``txt``) or Markdown (fmt ``md``) file."""
    text, encoding = decode_text(path.read_bytes())
    paragraphs = _paragraphs(text)
    if not paragraphs:
        raise DocumentError("no-text", "the file has no text")
    raw = _markdown_sections(text, paragraphs) if fmt == "md" else _text_sections(paragraphs)
    title = next((s.heading for s in raw if s.heading), None) or title_from_name(path)
    sections = finalize(raw, title, max_section_tokens)
    if not sections:
        raise DocumentError("no-text", "the file has no text")
    return ParsedDoc(fmt, text.count("\f") + 1, title, sections, encoding)


def _paragraphs(text: str) -> list[tuple[int, int, list[str], int, int]]:
    """(start, end, lines, first page, last page) of each run of non-blank lines; end is exclusive."""
    out: list[tuple[int, int, list[str], int, int]] = []
    pos, page = 0, 1
    start, lines, first_page, last_page, last_end = -1, [], 1, 1, 0
    for raw_line in text.split("\n"):
        end = pos + len(raw_line)
        page += raw_line.count("\f")
        line = raw_line.replace("\f", "")
        if line.strip():
            if start < 0:
                start, lines, first_page = pos, [], page
            lines.append(line)
            last_end, last_page = end, page
        elif start >= 0:
            out.append((start, last_end, lines, first_page, last_page))
            start = -1
        pos = end + 1
    if start >= 0:
        out.append((start, last_end, lines, first_page, last_page))
    return out


def _block(start: int, end: int, lines: list[str], page: int, keep_lines: bool) -> Block:
    cleaned = [normalize_chars(ln).rstrip() for ln in lines]
    text = "\n".join(cleaned).strip("\n") if keep_lines else join_lines(collapse_spaces(ln) for ln in cleaned)
    return Block(text=text, page=page, start=start, end=end)


def _markdown_sections(text: str, paragraphs: list[tuple[int, int, list[str], int, int]]) -> list[RawSection]:
    from markdown_it import MarkdownIt

    front = _FRONT_MATTER.match(text)
    skip_to = front.end() if front else 0
    line_starts = [0]
    for line in text.split("\n"):
        line_starts.append(line_starts[-1] + len(line) + 1)
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    headings: dict[int, tuple[int, str]] = {}  # start offset → (end offset, heading text)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map:
            start, end = line_starts[tok.map[0]], line_starts[tok.map[1]] - 1
            if start >= skip_to:
                headings[start] = (end, collapse_spaces(normalize_chars(tokens[i + 1].content)))
    sections = [RawSection(heading="")]
    starts = sorted(headings)
    for start, end, _lines, page, last_page in paragraphs:
        if end <= skip_to:
            continue
        cursor = max(start, skip_to)
        for offset in starts[bisect.bisect_left(starts, cursor) : bisect.bisect_right(starts, end)]:
            h_end, heading = headings[offset]
            _add_lines(sections[-1], text, cursor, offset, page)
            sections.append(RawSection(heading=heading, page_start=page, page_end=page, heading_start=offset))
            cursor = h_end + 1
        _add_lines(sections[-1], text, cursor, end, page, last_page)
    return sections


def _add_lines(section: RawSection, text: str, start: int, end: int, page: int, last_page: int = 0) -> None:
    chunk = text[start:end] if end > start else ""
    if chunk.strip():
        lead = len(chunk) - len(chunk.lstrip("\n"))
        section.blocks.append(_block(start + lead, end, chunk.strip("\n").split("\n"), page, keep_lines=True))
        section.page_start = section.page_start or page
        section.page_end = max(section.page_end, page, last_page)


def _text_sections(paragraphs: list[tuple[int, int, list[str], int, int]]) -> list[RawSection]:
    sections = [RawSection(heading="")]
    for i, (start, end, lines, page, last_page) in enumerate(paragraphs):
        has_next = i + 1 < len(paragraphs)
        heading = _text_heading(lines) if has_next else None
        if heading:
            sections.append(RawSection(heading=heading, page_start=page, page_end=page, heading_start=start))
            continue
        sections[-1].blocks.append(_block(start, end, lines, page, keep_lines=_looks_preformatted(lines)))
        sections[-1].page_start = sections[-1].page_start or page
        sections[-1].page_end = max(sections[-1].page_end, last_page)
    return sections


def _text_heading(lines: list[str]) -> str | None:
    """The heading a one-line paragraph (optionally underlined) stands for, or None."""
    if len(lines) == 2 and _UNDERLINE.match(lines[1].strip()):
        return collapse_spaces(normalize_chars(lines[0]))
    if len(lines) != 1:
        return None
    line = collapse_spaces(normalize_chars(lines[0]))
    if not 2 <= len(line) <= _MAX_TXT_HEADING or line[-1] in ".,;:!?" or sum(c.isalpha() for c in line) < 2:
        return None
    words = [w for w in line.split() if w[:1].isalpha()]
    upper = sum(c.isupper() for c in line) >= 0.6 * sum(c.isalpha() for c in line)
    titled = bool(words) and sum(w[0].isupper() for w in words if len(w) > 3) >= 0.6 * sum(len(w) > 3 for w in words)
    if _NUMBERED.match(line) or upper or (titled and len(line.split()) <= 10):
        return line
    return None


def _looks_preformatted(lines: list[str]) -> bool:
    """Lists, tables and indented code keep their line breaks."""
    marked = sum(1 for ln in lines if re.match(r"^\s*(?:[-*•+]|\d+[.)]|\|)\s", ln) or ln.startswith(("    ", "\t")))
    return marked >= max(1, len(lines) // 2)


def title_from_name(path: Path) -> str:
    """A title made of a file's name, for a document that states none (bytes that are not UTF-8 become U+FFFD)."""
    stem = os.fsencode(path.stem).decode("utf-8", "replace")
    return stem.replace("_", " ").replace("-", " ").strip() or os.fsencode(path.name).decode("utf-8", "replace")
