"""Plain text and Markdown → sections, with char offsets into the decoded file.

Markdown headings (ATX ``#`` and Setext underlines) come from markdown-it-py's block parser,
so headings inside code fences are not mistaken for sections. Plain text has no markup:
a short standalone line that is numbered ("2.1 Setup"), in capitals, or in Title Case,
followed by a paragraph, starts a section. Form feeds count pages.
"""

from __future__ import annotations

import bisect
import re
from pathlib import Path

from qagen.ingest.clean import collapse_spaces, join_lines, normalize_chars
from qagen.ingest.model import Block, DocumentError, ParsedDoc, RawSection
from qagen.ingest.sections import finalize

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*\n", re.DOTALL)
_NUMBERED = re.compile(r"^(?:(?:chapter|section|part|appendix)\s+\w+|\d+(?:\.\d+)*\.?|[A-Z]\.\d+(?:\.\d+)*)\s+\S", re.I)
_UNDERLINE = re.compile(r"^(=+|-+)\s*$")
_MAX_TXT_HEADING = 80


def decode(data: bytes) -> str:
    """Bytes → text: BOM and UTF-8 first, then bs4's UnicodeDammit guesses; newlines unified."""
    from bs4 import UnicodeDammit

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = UnicodeDammit(data, ["utf-8", "cp1252", "latin-1"]).unicode_markup or data.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_text_file(path: Path, fmt: str, max_section_tokens: int) -> ParsedDoc:
    """Parse a ``.txt`` (fmt ``txt``) or Markdown (fmt ``md``) file."""
    text = decode(path.read_bytes())
    paragraphs = _paragraphs(text)
    if not paragraphs:
        raise DocumentError("no-text", "the file has no text")
    raw = _markdown_sections(text, paragraphs) if fmt == "md" else _text_sections(paragraphs)
    title = next((s.heading for s in raw if s.heading), None) or _title_from_name(path)
    sections = finalize(raw, title, max_section_tokens)
    if not sections:
        raise DocumentError("no-text", "the file has no text")
    return ParsedDoc(fmt, text.count("\f") + 1, title, sections)


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


def _title_from_name(path: Path) -> str:
    return path.stem.replace("_", " ").replace("-", " ").strip() or path.name
