"""HTML → sections with BeautifulSoup: ``h1``–``h6`` start sections; page chrome is dropped."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qagen.ingest.clean import collapse_spaces, normalize_chars
from qagen.ingest.model import Block, DocumentError, ParsedDoc, RawSection
from qagen.ingest.sections import finalize
from qagen.ingest.text import decode_text, title_from_name

_SKIP = {"script", "style", "noscript", "template", "nav", "aside", "form", "svg", "button", "head"}
_CHROME = {"header", "footer"}  # skipped when they frame the page, kept inside an article
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_BLOCKS = {
    "p", "div", "section", "article", "main", "blockquote", "dl", "dt", "dd", "figure", "figcaption",
    "address", "details", "summary", "body", "html", "center", "fieldset", "hr", "caption",
}  # fmt: skip


def parse_html_file(path: Path, max_section_tokens: int) -> ParsedDoc:
    """Parse an HTML file into sections (offsets index the extracted text)."""
    from bs4 import BeautifulSoup

    text, encoding = decode_text(path.read_bytes(), html=True)
    soup = BeautifulSoup(text, "html.parser")
    title_tag = soup.find("title")
    walker = _Walker()
    walker.walk(soup.body or soup)
    walker.flush()
    sections = walker.sections
    title = collapse_spaces(normalize_chars(title_tag.get_text())) if title_tag else ""
    title = title or next((s.heading for s in sections if s.heading), None) or title_from_name(path)
    final = finalize(sections, title, max_section_tokens)
    if not final:
        raise DocumentError("no-text", "the HTML page has no visible text")
    return ParsedDoc("html", 1, title, final, encoding)


def _skipped(tag: Any, parent: Any) -> bool:
    """Scripts, navigation, hidden parts, and headers/footers that frame the whole page."""
    if tag.name in _SKIP or tag.get("hidden") is not None:
        return True
    return tag.name in _CHROME and parent.name in ("body", "html", "[document]")


class _Walker:
    """Walks the tree in document order, collecting inline text into blocks."""

    def __init__(self) -> None:
        self.sections = [RawSection(heading="", page_start=1, page_end=1)]
        self.buffer: list[str] = []

    def flush(self) -> None:
        self.add(" ".join(self.buffer))
        self.buffer = []

    def add(self, text: str) -> None:
        text = collapse_spaces(normalize_chars(text))
        if text:
            self.sections[-1].blocks.append(Block(text=text, page=1))

    def walk(self, node: Any) -> None:
        from bs4 import Comment, NavigableString, Tag

        for child in node.children:
            if isinstance(child, Comment) or not isinstance(child, (NavigableString, Tag)):
                continue
            if isinstance(child, NavigableString):
                self.buffer.append(str(child))
            elif _skipped(child, node):
                continue
            elif child.name in _HEADINGS:
                self.flush()
                heading = collapse_spaces(normalize_chars(child.get_text(" ")))
                self.sections.append(RawSection(heading=heading, page_start=1, page_end=1))
            else:
                self._tag(child)

    def _tag(self, tag: Any) -> None:
        if tag.name == "br":
            self.buffer.append(" ")
        elif tag.name == "table":
            self.flush()
            for row in tag.find_all("tr"):
                cells = [collapse_spaces(c.get_text(" ")) for c in row.find_all(["td", "th"])]
                self.add(" | ".join(c for c in cells if c))
        elif tag.name in ("ul", "ol"):
            self.flush()
            for item in tag.find_all("li", recursive=False):
                self.add("- " + item.get_text(" "))
        elif tag.name == "pre":
            self.flush()
            text = normalize_chars(tag.get_text()).strip("\n")
            if text.strip():
                self.sections[-1].blocks.append(Block(text=text, page=1))
        elif tag.name in _BLOCKS or tag.name == "li":
            self.flush()
            self.walk(tag)
            self.flush()
        else:
            self.walk(tag)
