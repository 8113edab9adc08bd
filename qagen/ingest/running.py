"""Running headers and footers: found from repetition across pages, then removed.

Three signals, none needing a hand-set crop box:

- text repeated (digits ignored) in the top or bottom lines of a large share of pages
  (odd and even pages counted apart, for books that alternate headers);
- a "slot": a line at the same height, in the same font, at the top (or bottom) of a large
  share of pages and set apart from the body by a wider gap, whatever its text (chapter
  titles in headers change every few pages);
- a bare page number ("12", "- 12 -", "Page 3 of 10", "xii") as a page's first or last line.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from qagen.ingest.model import Line

_EDGE_LINES = 2  # lines examined at the top and at the bottom of each page
_PAGE_NUMBER = re.compile(
    r"^[\W_]*(?:page|seite|pagina|p\.)?\s*(?:\d{1,4}|[ivxlcdm]{1,7})(?:\s*(?:/|of|von|de|sur)\s*\d{1,4})?[\W_]*$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_NON_WORD = re.compile(r"[\W_]+")


def remove_running_lines(pages: list[list[Line]], min_share: float) -> list[list[Line]]:
    """Drop running headers/footers and page numbers from each page's lines."""
    n = len(pages)
    large = 1.08 * _typical_size(pages)
    repeated = _repeated_signatures(pages, min_share, large) if n >= 2 else set()
    slots = _slots(pages, min_share, large) if n >= 3 else set()
    out: list[list[Line]] = []
    for number, lines in enumerate(pages, start=1):
        drop = set()
        for i in _edge_indices(lines):
            line = lines[i]
            at_edge = i in (_top_index(lines), _bottom_index(lines))
            if (
                (at_edge and _PAGE_NUMBER.match(line.text))
                or (number % 2, _edge_signature(line, large)) in repeated
                or _slot_key(line, lines) in slots
            ):
                drop.add(i)
        out.append([ln for i, ln in enumerate(lines) if i not in drop])
    return out


def _edge_indices(lines: list[Line]) -> list[int]:
    order = sorted(range(len(lines)), key=lambda i: lines[i].top)
    if len(order) <= 2 * _EDGE_LINES:
        return order
    return order[:_EDGE_LINES] + order[-_EDGE_LINES:]


def _top_index(lines: list[Line]) -> int:
    return min(range(len(lines)), key=lambda i: lines[i].top) if lines else -1


def _bottom_index(lines: list[Line]) -> int:
    return max(range(len(lines)), key=lambda i: lines[i].bottom) if lines else -1


def _signature(text: str, exact: bool = False) -> str:
    """Text with case, spacing and punctuation ignored, and numbers too unless ``exact``."""
    return _NON_WORD.sub("", text.lower() if exact else _DIGITS.sub("#", text.lower()))


def _typical_size(pages: list[list[Line]]) -> float:
    sizes: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            sizes[round(line.size)] += line.n_chars
    return float(sizes.most_common(1)[0][0]) if sizes else 10.0


def _edge_signature(line: Line, large: float) -> str:
    # Numbered lines set large ("Chapter 3" opening each page) are headings unless identical.
    return _signature(line.text, exact=line.size >= large)


def _repeated_signatures(pages: list[list[Line]], min_share: float, large: float) -> set[tuple[int, str]]:
    """(page parity, signature) pairs of edge lines repeated on at least ``min_share`` of pages."""
    seen: dict[str, set[int]] = defaultdict(set)
    for number, lines in enumerate(pages, start=1):
        for i in _edge_indices(lines):
            sig = _edge_signature(lines[i], large)
            if len(sig) >= 2:
                seen[sig].add(number)
    n = len(pages)
    n_odd, n_even = (n + 1) // 2, n // 2
    out: set[tuple[int, str]] = set()
    for sig, numbers in seen.items():
        odd = sum(1 for p in numbers if p % 2)
        even = len(numbers) - odd
        if len(numbers) >= max(min(3, n), min_share * n):
            out |= {(0, sig), (1, sig)}
        if odd >= max(2, min_share * n_odd):
            out.add((1, sig))
        if even >= max(2, min_share * n_even):
            out.add((0, sig))
    return out


def _slot_key(line: Line, lines: list[Line]) -> tuple[str, int, float, str] | None:
    """Where and how a page's first or last line is set, when a wide gap parts it from the body."""
    ordered = sorted(lines, key=lambda ln: ln.top)
    if len(ordered) == 2:  # a page with only its header and footer (a blank or a picture): no gap to check
        edge = "top" if line is ordered[0] else "bottom"
        return (edge, round((line.top if edge == "top" else line.bottom) / 3), line.size, line.font)
    if len(ordered) < 3:
        return None
    if line is ordered[0]:
        gap, pitch = ordered[1].top - line.bottom, ordered[2].top - ordered[1].top
        edge = "top"
        y = line.top
    elif line is ordered[-1]:
        gap, pitch = line.top - ordered[-2].bottom, ordered[-2].top - ordered[-3].top
        edge = "bottom"
        y = line.bottom
    else:
        return None
    if gap < max(0.8 * line.size, abs(pitch)):  # headers sit a full line or more above the text
        return None
    return (edge, round(y / 3), line.size, line.font)


def _slots(pages: list[list[Line]], min_share: float, large: float) -> set[tuple[str, int, float, str]]:
    """Slot keys used on enough pages (of either parity), whose texts repeat.

    A page's own heading at the top of the text block is not a header: its text is unique.
    """
    counts: Counter[tuple[int, tuple[str, int, float, str]]] = Counter()
    texts: dict[tuple[str, int, float, str], list[str]] = defaultdict(list)
    for number, lines in enumerate(pages, start=1):
        ordered = sorted(lines, key=lambda ln: ln.top)
        for line in {id(ln): ln for ln in ordered[:1] + ordered[-1:]}.values():
            key = _slot_key(line, lines)
            if key is not None:
                counts[(number % 2, key)] += 1
                texts[key].append(_edge_signature(line, large))
    n = len(pages)
    need = {1: max(3, min_share * (n + 1) // 2), 0: max(3, min_share * (n // 2))}
    out: set[tuple[str, int, float, str]] = set()
    for (parity, key), c in counts.items():
        total = counts[(0, key)] + counts[(1, key)]
        repeats = len(set(texts[key])) <= 0.8 * len(texts[key])
        if repeats and (c >= need[parity] or total >= max(3, min_share * n)):
            out.add(key)
    return out
