"""Font-aware section detection on PDF lines (paper, Appendix A, made general).

The body size is the majority font size of the prose (weighted by characters; code listings
do not count when there is enough prose). A line starts a section when it is

- set larger than the body (``heading_size_ratio``), or
- at body size, after a wider gap (``gap_factor``) or at the top of a page/column, and
  bold, or numbered ("2.1 Options") in another style, or a short title-shaped line in
  another style (sans, italic, small caps).

Never headings: table rows, contents entries (page numbers after leaders or a wide gap),
captions ("Figure 3:"), bold labels that recur ("Example", "Arguments:"), and the author,
date and subtitle lines centred around the title. Consecutive heading lines in one style form
one heading, unless they are too long for one: then they are a paragraph set in a large font
and stay body text. Under an index's heading, its letter groups ("Symbols", "A", "B" set apart
in bold or larger than the entries) are headings too, and every part of that index is of kind
``index``. Body lines become blocks: paragraphs (joined across lines, pages and
columns), list items (with their hanging indent), code lines and table rows.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from dataclasses import dataclass

from qagen.config import ParseConfig
from qagen.ingest.clean import collapse_spaces, join_lines, normalize_chars
from qagen.ingest.fonts import font_style, is_mono
from qagen.ingest.kinds import heading_hint
from qagen.ingest.model import Block, Line, RawSection

_BULLET = re.compile(r"^(?:[•◦▪▫■□●○‣⁃∙·–—*+-]|\(?[0-9]{1,2}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)])\s")
_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)+\.?|\d+\.?|[A-Z]\.\d+(?:\.\d+)*)\s+[^\W\d_]")
_CAPTION = re.compile(r"^(?:figure|fig\.|table|listing|example|plate|chart|exhibit)\s+[\dA-Z][\w.-]*\s*[:.]", re.I)
_SENTENCE_END = re.compile(r"[.!?:;]$")
_MAX_HEADING_LINES = 3


@dataclass(frozen=True)
class Stats:
    """Document-wide typography: body font size and the usual distance between baselines."""

    body_size: float
    leading: float
    body_font: str = ""


def doc_stats(pages: list[list[Line]]) -> Stats:
    prose: Counter[float] = Counter()  # code listings often outweigh prose in manuals
    every: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            key = round(line.size * 2) / 2
            every[key] += line.n_chars
            if not line.mono and not is_mono(line.font):  # code with a few prose words is still code
                prose[key] += line.n_chars
    sizes = prose if prose.total() >= 0.2 * every.total() else every
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    pitches = [
        b.top - a.top
        for lines in pages
        for a, b in itertools.pairwise(lines)
        if a.column == b.column
        and abs(a.size - body) < 0.6
        and abs(b.size - body) < 0.6
        and 0.8 * body < b.top - a.top < 3 * body
    ]
    leading = statistics.median(pitches) if pitches else 1.2 * body
    fonts: Counter[str] = Counter()
    for lines in pages:
        for line in lines:
            if abs(line.size - body) < 0.6 and not line.mono and not is_mono(line.font):
                fonts[line.font] += line.n_chars
    body_font = fonts.most_common(1)[0][0] if fonts else ""
    return Stats(body_size=body, leading=leading, body_font=body_font)


def detect_sections(pages: list[list[Line]], config: ParseConfig) -> list[RawSection]:
    """Sections (heading + blocks) from the lines of every page, in reading order."""
    stats = doc_stats(pages)
    lines = [ln for page in pages for ln in page]
    flags = [_heading_candidate(ln, i, lines, stats, config) for i, ln in enumerate(lines)]
    for i in _repeated_labels(lines, flags, stats, config):
        flags[i] = False
    for i in _title_block_extras(lines, flags):
        flags[i] = False
    in_index = _index_letter_groups(lines, flags, stats, config)
    for i in in_index:
        flags[i] = True
    sections: list[RawSection] = [RawSection(heading="")]
    body: list[Line] = []
    i = 0
    while i < len(lines):
        if not flags[i]:
            body.append(lines[i])
            i += 1
            continue
        j = _heading_run_end(lines, flags, i)
        run = lines[i:j]
        if _is_heading_run(run, config):
            _add_blocks(sections[-1], body, stats)
            body = []
            heading = join_lines(_pieces(ln)[0] for ln in run)
            kind = "index" if i in in_index else None
            sections.append(RawSection(heading=heading, page_start=run[0].page, page_end=run[-1].page, kind=kind))
            notes = [" ".join(_pieces(ln)[1:]) for ln in run]  # e.g. right-aligned notes on a heading line
            sections[-1].blocks += [Block(text=n, page=run[0].page) for n in notes if n]
        else:
            body.extend(run)
        i = j
    _add_blocks(sections[-1], body, stats)
    return sections


def _repeated_labels(lines: list[Line], flags: list[bool], stats: Stats, config: ParseConfig) -> list[int]:
    """Bold body-size lines whose text recurs ("Example", "Arguments:") are labels, not headings."""
    small = [i for i, f in enumerate(flags) if f and lines[i].size < stats.body_size * config.heading_size_ratio]
    counts = Counter(lines[i].text.lower().rstrip(":. ") for i in small)
    return [i for i in small if counts[lines[i].text.lower().rstrip(":. ")] >= 3]


# An index's letter groups ("Symbols", "A", "B", ...): a letter alone never reads as a heading
# elsewhere (a label in a figure), but under an "Index" heading, set apart in bold or larger than
# the entries, it is one: PDF outlines list them.
_LETTER_GROUP = re.compile(
    r"^(?:[A-Z]|[ÄÖÜÅÆØÉÈ]|symbols|numbers|numerals|digits|symbole|zahlen|symboles|simboli|símbolos|symbolen)$",
    re.IGNORECASE,
)


def _index_letter_groups(lines: list[Line], flags: list[bool], stats: Stats, config: ParseConfig) -> set[int]:
    """Line indices of index headings and of their letter groups (made headings of kind index)."""
    out: set[int] = set()
    i = 0
    while i < len(lines):
        if not (flags[i] and heading_hint(lines[i].text) == "index"):
            i += 1
            continue
        head = lines[i]
        groups: list[int] = []
        j = i + 1
        while j < len(lines) and not (flags[j] and lines[j].size >= head.size - 0.3):
            line = lines[j]
            entry_size = lines[j + 1].size if j + 1 < len(lines) else line.size
            set_apart = line.bold or line.size > entry_size + 0.5
            if _LETTER_GROUP.match(line.text.strip()) and set_apart and _gap_before(lines[j - 1], line, stats, config):
                groups.append(j)
            j += 1
        if len(groups) >= 2:  # an option called "index" has none
            out.update([i, *groups])
        i = j
    return out


def _title_block_extras(lines: list[Line], flags: list[bool]) -> list[int]:
    """Centred large lines around the title at the start (author, date, subtitle): body text."""
    block: list[int] = []
    for i, line in enumerate(lines):
        if line.page != lines[0].page:
            break
        if not any(c.isalpha() for c in line.text):
            continue  # a rule, a dash or a footnote mark between title lines
        if not (_centred(line) or (flags[i] and not block)):
            break
        block.append(i)
    heads = [i for i in block if flags[i]]
    if len(heads) < 2:
        return []
    top = max(lines[i].size for i in heads)
    return [i for i in heads if lines[i].size < top - 0.3 and _centred(lines[i])]


def _centred(line: Line) -> bool:
    width = line.right - line.left
    middle = (line.left + line.right) / 2
    return line.x0 > line.left + 2 * line.size and abs((line.x0 + line.x1) / 2 - middle) < 0.06 * width


def _pieces(line: Line) -> list[str]:
    """A line's text split at wide gaps (cells of a table row, or a title and its side notes)."""
    if line.cells:
        return list(line.cells)
    if line.segments and sum(c.isalpha() for c in line.segments[0][1]) >= 2:
        return [collapse_spaces(normalize_chars(t, grave=True)) for _, t in line.segments]
    return [line.text]


def _heading_candidate(line: Line, i: int, lines: list[Line], stats: Stats, config: ParseConfig) -> bool:
    text = line.text
    following = lines[i + 1] if i + 1 < len(lines) else None
    numbered = bool(_NUMBERED.match(line.cells[0] if line.cells else text))
    if (line.cells and not numbered) or line.toc or len(text) > config.max_heading_chars or _CAPTION.match(text):
        return False
    if not _enough_letters(text) or (not numbered and _never_heading(text)):
        return False
    larger = line.size >= stats.body_size * config.heading_size_ratio
    if text.endswith(":") and not larger:
        return False  # a label ("Examples:", "Available options are:") opening what follows
    if larger:
        return True
    if line.size < 0.85 * stats.body_size or text.endswith((",", ";")):
        return False
    styled = line.font != stats.body_font and (line.bold or font_style(line.font) != font_style(stats.body_font))
    if not (numbered and styled and len(text) <= 100):  # "2.1 Options" in any other style, even monospaced
        if line.mono or line.size < stats.body_size - 0.6:
            return False
        if not (_bold_heading(line, config) or _styled_label(line, following, stats)):
            return False
    prev = lines[i - 1] if i > 0 else None
    if prev is None or _gap_before(prev, line, stats, config) or prev.bold:
        return True
    return prev.size >= stats.body_size * config.heading_size_ratio  # a subheading right under a heading


# Lines no heading reads like: code (a command with arguments, a bare command name, braces
# around something), a web or e-mail address, a formula ("X = X Xij", "a2<b2<c", "gray := ..."),
# a date line, no word of three letters (unless dated: a change-log entry "[2019/12/15 v1.5]"),
# Sphinx's "ONE" set above a chapter's title (the number alone is a label).
_CODE_LINE = re.compile(r"^\\[A-Za-z@]+(?:\s*$|.*[{}\[\]])|^[${]|\{[^{}]+\}|:=")
_ADDRESS = re.compile(r"^\(?(?:https?://|www\.|\S+@\S+\.\w+)\S*\)?\.?$", re.IGNORECASE)
_FORMULA = re.compile(r"[=<>]")
_LONG_WORD = re.compile(r"[^\W\d_]{3,}")
_DATED = re.compile(r"\d{4}[-/]\d{2}[-/]\d{2}")
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DATE_LINE = re.compile(
    rf"^(?:(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?(?:{_MONTHS})\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?\d{{4}}"
    r"|\d{4}[-/]\d{1,2}[-/]\d{1,2})\.?$",
    re.IGNORECASE,
)
_NUMBER_WORD = re.compile(
    r"^(?:chapter\s+)?(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?|"
    r"thirty)$",
    re.IGNORECASE,
)
# A run that stops inside a word ("instruc-") or after a word no title ends on ("... package
# for") is a paragraph set in a heading font.
_BROKEN_WORD = re.compile(r"[a-z]-$")
_OPEN_END = re.compile(
    r"\b(?:a|an|the|and|or|of|for|to|in|on|at|by|with|from|as|that|which|is|are|be|this|its|their|"
    r"der|die|das|und|oder|von|mit|het|een|en|van|voor|le|la|les|et|des|du|il|di|del|e|el|los|las|y|o|do|da)$",
    re.IGNORECASE,
)


def _never_heading(text: str) -> bool:
    if _NUMBER_WORD.match(text):
        return True
    if not _LONG_WORD.search(text) and not _DATED.search(text):  # "Se", "µ r", "A A": labels in a figure
        return True
    if _CODE_LINE.search(text) or _ADDRESS.match(text) or _DATE_LINE.match(text):
        return True
    return bool(_FORMULA.search(text)) and len(_LONG_WORD.findall(text)) < 2


def _bold_heading(line: Line, config: ParseConfig) -> bool:
    return config.bold_headings and line.bold and not _BULLET.match(line.text)


def _styled_label(line: Line, following: Line | None, stats: Stats) -> bool:
    """A short line in another (non-mono) font style than the body's, shaped like a title."""
    text = line.text
    if font_style(line.font) == font_style(stats.body_font) or len(text) > 80:
        return False
    if _SENTENCE_END.search(text) or text.endswith(","):
        return False
    short = line.x1 - line.x0 < 0.75 * (line.right - line.left)
    plain_after = following is not None and following.font == stats.body_font and following.text[:1].isupper()
    if not (text[0].isupper() or text[0].isdigit() or text[0] == "\\"):
        # "doc upgraded to version 3", "multicol: Fix \newcolumn": a name may open a title, when
        # the line is short and plain body text starts after it
        return short and plain_after and text[0].isalpha() and len(text.split()) >= 3
    # A full-width styled line is a title only when plain body text starts right after it.
    return short or plain_after


def _enough_letters(text: str) -> bool:
    """Two letters, or one in a dated entry ("2019/12/15 v1.5")."""
    letters = sum(map(str.isalpha, text))
    return letters >= 2 or (letters == 1 and sum(c.isdigit() for c in text) >= 4)


def _gap_before(prev: Line, line: Line, stats: Stats, config: ParseConfig) -> bool:
    """True when ``line`` opens a page or column, or follows a wider-than-usual gap."""
    if prev.page != line.page or prev.column != line.column:
        return True
    return line.top - prev.top > stats.leading * config.gap_factor


def _heading_run_end(lines: list[Line], flags: list[bool], i: int) -> int:
    """End (exclusive) of the run of heading lines in the same style starting at ``i``."""
    first = lines[i]
    j = i + 1
    while j < len(lines) and flags[j]:
        line, prev = lines[j], lines[j - 1]
        same_style = abs(line.size - first.size) < 0.3 and line.bold == first.bold
        close = line.page == prev.page and 0 <= line.top - prev.bottom < 1.2 * line.size
        if not (same_style and close) or _NUMBERED.match(line.text):
            break
        j += 1
    return j


def _is_heading_run(run: list[Line], config: ParseConfig) -> bool:
    """A run of large/bold lines is a heading unless it is a whole paragraph."""
    text = " ".join(ln.text for ln in run)
    if len(run) > _MAX_HEADING_LINES or len(text) > config.max_heading_chars:
        return False
    if _BROKEN_WORD.search(text) or (" " in text and _OPEN_END.search(text)):
        return False
    if _NUMBERED.match(text):
        return True
    return not (len(run) >= 2 and text.endswith(".") and len(text.split()) >= 12)


def _add_blocks(section: RawSection, lines: list[Line], stats: Stats) -> None:
    """Group body lines into blocks and append them to ``section``."""
    if not lines:
        return
    if not section.page_start:
        section.page_start = lines[0].page
    section.page_end = max(section.page_end, lines[-1].page)
    current: list[Line] = []
    for line in lines:
        if current and _starts_block(current[0], current[-1], line, stats):
            section.blocks.append(_block(current))
            current = []
        current.append(line)
    section.blocks.append(_block(current))


def _starts_block(first: Line, prev: Line, line: Line, stats: Stats) -> bool:
    """True when ``line`` opens a new paragraph, list item, code line or table row."""
    if line.cells or prev.cells or line.mono or prev.mono or _BULLET.match(line.text):
        return True
    if prev.page != line.page or prev.column != line.column:
        return bool(_SENTENCE_END.search(prev.text)) and not line.text[:1].islower()
    if line.top - prev.top > 1.3 * stats.leading or line.top < prev.top:
        return True
    size = stats.body_size
    if _BULLET.match(first.text) and line.x0 > first.x0 + 0.3 * size:
        return False  # the hanging indent of a list item's next line
    indented = line.x0 > line.left + 0.8 * size and line.x0 > prev.x0 + 0.8 * size
    prev_short = prev.x1 < prev.right - 3 * size and bool(_SENTENCE_END.search(prev.text))
    return indented or prev_short


def _block(lines: list[Line]) -> Block:
    return Block(text=join_lines(ln.text for ln in lines), page=lines[0].page)
