"""From raw sections to final ones: merge rules, hyphenation, oversized splits, offsets.

Merge rules (paper, Appendix A): a section without a heading joins the previous one; a
heading without body text joins the next section, whose heading becomes ``"A › B"``.
A section longer than ``max_tokens`` is split at block (paragraph) boundaries into parts
headed ``"Heading (2/3)"``, so every section fits one emulated page and one prompt.

Offsets: for plain text and Markdown, ``char_start``/``char_end`` index the decoded source
file. For PDF and HTML they index the document's extracted text, which is every section's
``heading + "\\n" + text`` joined by blank lines, in order.
"""

from __future__ import annotations

import re

from qagen.ingest.clean import resolve_hyphens
from qagen.ingest.model import Block, RawSection
from qagen.ingest.tokens import count_tokens

SEPARATOR = " › "
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def finalize(raw: list[RawSection], title: str | None, max_tokens: int) -> list[dict[str, object]]:
    """Merge, clean and split raw sections; return them as plain dicts in document order."""
    merged = merge_sections(raw, title)
    _resolve_all_hyphens(merged)
    parts = [part for section in merged for part in _split(section, max_tokens)]
    return _with_offsets(parts)


def merge_sections(raw: list[RawSection], title: str | None) -> list[RawSection]:
    """Apply the merge rules; drop nothing but empty sections."""
    out: list[RawSection] = []
    pending: RawSection | None = None  # heading-only sections waiting for a body
    for section in raw:
        if pending is not None:
            section.heading = _join_headings(pending.heading, section.heading)
            section.page_start = min(p for p in (pending.page_start, section.page_start) if p) or 0
            section.heading_start = pending.heading_start
            section.kind = section.kind or pending.kind
            pending = None
        if not section.blocks:
            if section.heading:
                pending = section
            continue
        if not section.heading and out:
            out[-1].blocks.extend(section.blocks)
            out[-1].page_end = max(out[-1].page_end, section.page_end)
            continue
        out.append(section)
    if pending is not None:
        if out:
            out[-1].blocks.append(Block(text=pending.heading, page=pending.page_start, start=pending.heading_start))
            out[-1].page_end = max(out[-1].page_end, pending.page_end)
        else:
            out.append(pending)
    if out and not out[0].heading:
        out[0].heading = title or ""
    return out


def _join_headings(a: str, b: str) -> str:
    return f"{a}{SEPARATOR}{b}" if a and b else a or b


def _resolve_all_hyphens(sections: list[RawSection]) -> None:
    texts = [s.heading for s in sections] + [b.text for s in sections for b in s.blocks]
    fixed = iter(resolve_hyphens(texts))
    for s in sections:
        s.heading = next(fixed)
    for s in sections:
        for b in s.blocks:
            b.text = next(fixed)


def render(blocks: list[Block]) -> str:
    """A section's text: one block (paragraph, list item, code line, table row) per line."""
    return "\n".join(b.text for b in blocks)


def _split(section: RawSection, max_tokens: int) -> list[RawSection]:
    """Split a section over ``max_tokens`` at block boundaries (long blocks at sentences)."""
    text = render(section.blocks)
    if len(text) <= max_tokens or count_tokens(text) <= max_tokens:  # never more tokens than characters
        return [section]
    blocks = [piece for b in section.blocks for piece in _split_block(b, max_tokens)]
    chunks: list[list[Block]] = [[]]
    used = 0
    for b in blocks:
        n = count_tokens(b.text) + 1
        if chunks[-1] and used + n > max_tokens:
            chunks.append([])
            used = 0
        chunks[-1].append(b)
        used += n
    total = len(chunks)
    return [
        RawSection(
            heading=f"{section.heading} ({k}/{total})" if section.heading else f"({k}/{total})",
            blocks=chunk,
            page_start=chunk[0].page if k > 1 else section.page_start,
            page_end=chunk[-1].page,
            heading_start=section.heading_start if k == 1 else None,
            kind=section.kind,
        )
        for k, chunk in enumerate(chunks, start=1)
    ]


def _split_block(block: Block, max_tokens: int) -> list[Block]:
    if len(block.text) <= max_tokens or count_tokens(block.text) <= max_tokens:
        return [block]
    pieces: list[str] = []
    for sentence in _SENTENCE.split(block.text):
        words = sentence.split(" ")
        while words:  # a sentence longer than max_tokens is cut between words
            take, n = 0, 0
            while take < len(words) and (n := n + count_tokens(words[take]) + 1) <= max_tokens:
                take += 1
            take = max(take, 1)
            pieces.append(" ".join(words[:take]))
            words = words[take:]
    return [Block(text=p, page=block.page, start=block.start, end=block.end) for p in pieces]


def _with_offsets(sections: list[RawSection]) -> list[dict[str, object]]:
    """Render sections with char offsets: into the source when every block has a source span."""
    source = all(b.start is not None for s in sections for b in s.blocks)
    out: list[dict[str, object]] = []
    cursor = 0
    for s in sections:
        text = render(s.blocks)
        start, end = cursor, cursor + len(s.heading) + 1 + len(text)
        cursor = end + 2
        if source and s.blocks:
            first = s.blocks[0].start or 0
            start = min(first, s.heading_start) if s.heading_start is not None else first
            end = max(b.end or 0 for b in s.blocks)
        row: dict[str, object] = {
            "heading": s.heading,
            "text": text,
            "page_start": s.page_start or (s.blocks[0].page if s.blocks else 0),
            "page_end": max(s.page_end, s.page_start),
            "char_start": start,
            "char_end": end,
        }
        if s.kind:
            row["kind"] = s.kind
        out.append(row)
    return out
