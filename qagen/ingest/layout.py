"""PDF page layout: words with fonts → lines in reading order, columns included.

A page is cut into horizontal bands at lines that cross a vertical gutter; inside a band
the left column is read before the right one (recursively, so three columns work too).
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
import unicodedata
from typing import Any

from qagen.ingest.clean import collapse_spaces, normalize_chars
from qagen.ingest.fonts import font_name, is_bold, is_mono
from qagen.ingest.model import Line

Word = dict[str, Any]

_PAGE_REF = re.compile(r"^(?:[.\s]*\.\s*)?(?:\d{1,4}|[ivxlc]{1,6})$", re.IGNORECASE)
_LEADERS = re.compile(r"(?:\.\s*){3,}(?:\d{1,4}|[ivxlc]{1,6})$", re.IGNORECASE)
_MARKER = re.compile(r"^(?:[•◦▪▫■□●○‣⁃∙·–—*+-]|\(?\d{1,2}[.)]|\(?[a-z][.)]|\(?[ivx]{1,4}[.)])$")
_CID_ONLY = re.compile(r"^(?:\(cid:\d+\))+$")
_CELL_GAP = 1.0  # in font sizes: a wider gap between words may separate table cells
_JOIN_GAP = 0.12  # in font sizes: a narrower gap joins two words (a font change inside a word)
_X0 = operator.itemgetter("x0")
_MIN_SPACED = 4  # one-letter words in a row that may be letter-spaced text
# Scripts written from right to left (Unicode bidi classes R and AL): Hebrew, Arabic, Syriac,
# Thaana, NKo, Samaritan, Mandaic, their presentation forms, and the historic ones beyond the BMP.
_RTL = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")


def page_lines(words: list[Word], page: int) -> list[Line]:
    """The lines of one page in reading order."""
    words = [w for w in words if w.get("upright", True) and w["text"].strip()]
    if not words:
        return []
    lines: list[Line] = []
    for column, group in enumerate(_reading_groups(words, depth=0)):
        rows = _without_margin_labels(cluster_rows(group))
        left = min(w["x0"] for row in rows for w in row)
        right = max(w["x1"] for row in rows for w in row)
        for row in rows:
            line = _make_line(row, page)
            if line is not None:
                line.left, line.right, line.column = left, right, column
                lines.append(line)
    mark_table_rows(lines)
    return lines


_MARGIN_WORDS = 3  # at most this many words in a margin label


def _without_margin_labels(rows: list[list[Word]]) -> list[list[Word]]:
    """The rows with TeX macro names set in the left margin inside a body sentence taken out.

    ltxdoc and l3doc set the macro a paragraph documents in the margin (``\\bnftm`` beside "an
    empty string. A literal terminal string is specified by the \\bnftm command"), on the
    baseline of a body line; read into that line it splits its sentence ("a descriptive phrase
    and \\bnftm an empty string"). A label is at most three words, the first a macro name, that
    end left of the column's usual left edge (the most common line start, at least three lines)
    by at least a font size, with the body line starting at that edge or indented from it. It is
    taken out when the body line goes on with a sentence (it starts in lowercase) or when the
    lines around name it anyway; a term opening its description stays. Other text in the
    margin (section and line numbers, table columns, code) is not touched.
    """
    starts: dict[int, int] = {}
    for row in rows:
        x = round(min(w["x0"] for w in row))
        starts[x] = starts.get(x, 0) + 1
    edge, count = max(starts.items(), key=lambda kv: (kv[1], -kv[0]))
    if count < 3 or min(starts) >= edge - 1:
        return rows
    out = list(rows)
    for index, row in enumerate(rows):
        ordered = sorted(row, key=_X0)
        cut = next((i for i, w in enumerate(ordered) if w["x0"] >= edge - 1), None)
        if not cut or cut > _MARGIN_WORDS:
            continue
        label, body = ordered[:cut], ordered[cut:]
        text = " ".join(w["text"] for w in label)
        if not text.startswith("\\") or body[0]["x0"] - label[-1]["x1"] < body[0]["size"]:
            continue
        around = " ".join(w["text"] for near in rows[max(0, index - 2) : index + 3] for w in near if w not in label)
        if body[0]["text"][:1].islower() or text in around:
            out[index] = body
    return out


def cluster_rows(words: list[Word]) -> list[list[Word]]:
    """Group words into rows by vertical overlap, top to bottom."""
    rows: list[list[Word]] = []
    spans: list[list[float]] = []  # [top, bottom] of each row
    for w in sorted(words, key=lambda w: (w["top"], w["x0"])):
        mid = (w["top"] + w["bottom"]) / 2
        for i in range(len(rows) - 1, max(len(rows) - 3, -1), -1):
            span = spans[i]
            if span[0] <= mid <= span[1]:
                rows[i].append(w)
                if w["top"] < span[0]:
                    span[0] = w["top"]
                if w["bottom"] > span[1]:
                    span[1] = w["bottom"]
                break
        else:
            rows.append([w])
            spans.append([w["top"], w["bottom"]])
    return rows


def _reading_groups(words: list[Word], depth: int) -> list[list[Word]]:
    """Words split into column/band groups in reading order."""
    gutter = _find_gutter(words) if depth < 2 else None
    if gutter is None:
        return [words]
    groups: list[list[Word]] = []
    band: list[Word] = []
    spanning: list[Word] = []
    for row in cluster_rows(words):
        if any(w["x0"] < gutter < w["x1"] for w in row):
            if band:
                groups += _split_band(band, gutter, depth)
                band = []
            spanning.extend(row)
        else:
            if spanning:
                groups.append(spanning)
                spanning = []
            band.extend(row)
    if spanning:
        groups.append(spanning)
    if band:
        groups += _split_band(band, gutter, depth)
    return groups


def _split_band(band: list[Word], gutter: float, depth: int) -> list[list[Word]]:
    left = [w for w in band if w["x1"] <= gutter]
    right = [w for w in band if w["x0"] >= gutter]
    out: list[list[Word]] = []
    for side in (left, right):
        if side:
            out += _reading_groups(side, depth + 1)
    return out


def _find_gutter(words: list[Word]) -> float | None:
    """The x of a vertical gap crossed by few rows with text on both sides, or None."""
    x_min = min(w["x0"] for w in words)
    x_max = max(w["x1"] for w in words)
    span = x_max - x_min
    if span < 100 or len(words) < 40:
        return None
    size = sorted(w["size"] for w in words)[len(words) // 2]
    lo, hi = int(x_min + 0.3 * span), int(x_min + 0.7 * span)
    steps = [0] * (hi - lo + 2)  # words starting and ending at each x; their running sum is the cover
    for w in words:
        a, b = max(lo, int(w["x0"]) + 1), min(hi, int(w["x1"]) - 1)
        if a <= b:
            steps[a - lo] += 1
            steps[b - lo + 1] -= 1
    cover = list(itertools.accumulate(steps[:-1]))
    best = _widest_low_run(cover, limit=max(2, len(words) // 50))
    if best is None:
        return None
    start, end = best
    if end - start + 1 < 0.8 * size:
        return None
    gutter = lo + (start + end) / 2
    left_rows = {round(w["top"]) for w in words if w["x1"] <= gutter}
    right_rows = {round(w["top"]) for w in words if w["x0"] >= gutter}
    crossing_rows = {round(w["top"]) for w in words if w["x0"] < gutter < w["x1"]}
    n_rows = len(left_rows | right_rows | crossing_rows)
    if min(len(left_rows), len(right_rows)) < 0.3 * n_rows or len(crossing_rows) > 0.3 * n_rows:
        return None
    if len(right_rows) < 8 or len(left_rows) < 8:
        return None
    return gutter if _left_side_is_text(words, gutter) else None


def _left_side_is_text(words: list[Word], gutter: float) -> bool:
    """True when left-column rows mostly run up to the gutter (text), not ragged cells (a table)."""
    ends: dict[int, float] = {}
    for w in words:
        if w["x1"] <= gutter:
            key = round(w["top"])
            ends[key] = max(ends.get(key, 0.0), w["x1"])
    edge = max(ends.values())
    width = edge - min(w["x0"] for w in words)
    slack = sorted(edge - x for x in ends.values())
    return slack[len(slack) // 2] < 0.2 * width


def _widest_low_run(cover: list[int], limit: int) -> tuple[int, int] | None:
    best: tuple[int, int] | None = None
    start = None
    for i, c in enumerate([*cover, limit + 1]):
        if c <= limit and start is None:
            start = i
        elif c > limit and start is not None:
            if best is None or i - 1 - start > best[1] - best[0]:
                best = (start, i - 1)
            start = None
    return best


def _make_line(row: list[Word], page: int) -> Line | None:
    row = _join_letter_spaced(sorted(row, key=_X0))
    sizes: dict[float, int] = {}
    fonts: dict[str, int] = {}
    n_bold = n_mono = n_letters = 0
    for w in row:
        k = sum(map(str.isalnum, w["text"])) or 1
        font, bold, mono = _font_kind(w.get("fontname", ""))
        size = round(w["size"], 1)
        sizes[size] = sizes.get(size, 0) + k
        fonts[font] = fonts.get(font, 0) + k
        if bold:
            n_bold += k
        if mono:
            n_mono += k
        n_letters += k
    if _CID_ONLY.match(row[0]["text"]):  # an unmapped glyph opening a line is a list bullet
        row = [{**row[0], "text": "•"}, *row[1:]]
    rtl = _right_to_left(row)
    if rtl:
        row = [w if w.get("reading_order") or not _is_rtl(w["text"]) else {**w, "text": w["text"][::-1]} for w in row]
    segments = _segments(row)
    if rtl:  # read from the right: the segments, and the words inside each, in reverse
        segments = [(x, _rtl_reading(t)) for x, t in reversed(segments)]
    texts = [t for _, t in segments]
    toc = (len(texts) >= 2 and bool(_PAGE_REF.match(texts[-1]))) or bool(_LEADERS.search(texts[-1]))
    text = collapse_spaces(normalize_chars(" ".join(texts), grave=True))
    if not text:
        return None
    font = max(fonts, key=fonts.__getitem__)  # the first of the most common, as Counter.most_common
    return Line(
        page=page,
        text=text,
        x0=row[0]["x0"],
        x1=max(w["x1"] for w in row),
        top=min(w["top"] for w in row),
        bottom=max(w["bottom"] for w in row),
        size=max(sizes, key=sizes.__getitem__),
        font=font,
        bold=n_bold >= 0.8 * n_letters,
        mono=n_mono >= 0.9 * n_letters,  # code; prose with inline code is not
        n_chars=n_letters,
        segments=tuple(segments) if len(segments) >= 2 and not toc else (),
        toc=toc,
    )


def _is_rtl(text: str) -> bool:
    return _RTL.search(text) is not None


def _right_to_left(row: list[Word]) -> bool:
    """True when a line reads from the right: it ends (on the right) in a Hebrew or Arabic word,
    and a third of its words or more are in those scripts. ``row`` is in left-to-right order."""
    if _RTL.search("".join(w["text"] for w in row)) is None:  # one look for the common case
        return False
    rtl = [_is_rtl(w["text"]) for w in row]
    strong = [flag for w, flag in zip(row, rtl, strict=True) if flag or _is_ltr(w["text"])]
    return bool(strong) and strong[-1] and 3 * sum(rtl) >= len(row)


def _rtl_reading(text: str) -> str:
    """Words laid out left to right in a right-to-left line, in reading order.

    The line is read from the right, word by word, except that a run of words in a
    left-to-right script ("New York") keeps its own order; numbers are read in line with the
    right-to-left words around them, as the Unicode bidi algorithm places them.
    """
    runs: list[list[str]] = []
    for word in text.split(" "):
        latin = _is_ltr(word)
        if latin and runs and _is_ltr(runs[-1][-1]):
            runs[-1].append(word)
        else:
            runs.append([word])
    return " ".join(" ".join(run) for run in reversed(runs))


def _is_ltr(text: str) -> bool:
    return not _is_rtl(text) and any(unicodedata.bidirectional(ch) == "L" for ch in text)


def _join_letter_spaced(row: list[Word]) -> list[Word]:
    """Letter-spaced text ("I n t r o d u c t i o n") joined into words.

    A run of at least four one-letter words is letter-spacing when its gaps are narrower than
    a font size; inside it, a gap well above the run's usual one parts two words.
    """
    if sum(len(w["text"]) == 1 for w in row) < _MIN_SPACED:
        return row
    out: list[Word] = []
    i = 0
    while i < len(row):
        j = i
        while j < len(row) and len(row[j]["text"]) == 1 and row[j]["text"].isalnum():
            j += 1
        if j - i < _MIN_SPACED:
            out.append(row[i])
            i += 1
            continue
        gaps = [row[k + 1]["x0"] - row[k]["x1"] for k in range(i, j - 1)]
        usual = sorted(gaps)[len(gaps) // 2]
        if usual > 0.8 * max(row[i]["size"], 1.0):
            out.extend(row[i:j])
        else:
            word = [row[i]]
            for k in range(i + 1, j):
                if row[k]["x0"] - row[k - 1]["x1"] > 1.5 * usual + 0.1 * row[k]["size"]:
                    out.append(_merged(word))
                    word = []
                word.append(row[k])
            out.append(_merged(word))
        i = j
    return out


def _merged(words: list[Word]) -> Word:
    if len(words) == 1:
        return words[0]
    return {**words[0], "text": "".join(w["text"] for w in words), "x1": words[-1]["x1"]}


@functools.lru_cache(maxsize=4096)
def _font_kind(raw: str) -> tuple[str, bool, bool]:
    """A raw font name's (name without subset prefix, bold, monospaced): asked once per font, not per word."""
    font = font_name(raw)
    return font, is_bold(font), is_mono(font)


def _segments(row: list[Word]) -> list[tuple[float, str]]:
    """The row's text split at wide gaps: (x where it starts, text); one for ordinary lines."""
    segments: list[tuple[float, str]] = []
    start, current = row[0]["x0"], ""
    prev: Word | None = None
    for w in row:
        if prev is None:
            current = w["text"]
        else:
            gap = w["x0"] - prev["x1"]
            size = max(prev["size"], w["size"], 1.0)
            if gap > _CELL_GAP * size:
                segments.append((start, current))
                start, current = w["x0"], w["text"]
            elif gap < _JOIN_GAP * size:
                current += w["text"]
            else:
                current += " " + w["text"]
        prev = w if prev is None or w["x1"] > prev["x1"] else prev
    segments.append((start, current))
    if len(segments) >= 2 and _MARKER.match(segments[0][1]):  # a list bullet, not a table cell
        segments[:2] = [(segments[0][0], f"{segments[0][1]} {segments[1][1]}")]
    return segments


def mark_table_rows(lines: list[Line]) -> None:
    """Lines whose wide gaps line up with a neighbour's are table rows: their cells are kept."""
    for a, b in itertools.pairwise(lines):
        if a.segments and b.segments and a.column == b.column and _aligned(a.segments, b.segments):
            for line in (a, b):
                line.cells = tuple(collapse_spaces(normalize_chars(t, grave=True)) for _, t in line.segments)
                line.text = " | ".join(c for c in line.cells if c)


def _aligned(a: tuple[tuple[float, str], ...], b: tuple[tuple[float, str], ...]) -> bool:
    return any(abs(xa - xb) < 3 for xa, _ in a[1:] for xb, _ in b[1:])
