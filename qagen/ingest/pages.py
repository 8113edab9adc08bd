"""Emulated pages: consecutive sections of one document grouped up to a target size.

A section is never split here: one larger than ``target_tokens`` is a page of its own.
(Sections over ``parse.max_section_tokens`` were already split at paragraph boundaries when
parsing, so no page is larger than that unless the target itself is.) A page's size counts
the separators between its sections (one token each with the offline counter) and the page
text as a whole decides its language, so a page of several sections is never over the target.
"""

from __future__ import annotations

from qagen.config import PagesConfig
from qagen.ingest.tokens import TokenTally, count_tokens, tally
from qagen.records import Page, Section

SEPARATOR = "\n\n"  # between the sections of a page
_SEPARATOR = tally(SEPARATOR)


def section_block(section: Section) -> str:
    """A section as it appears in a page: heading line, then its text."""
    return f"{section.heading}\n{section.text}" if section.heading else section.text


def build_pages(sections: list[Section], config: PagesConfig) -> list[Page]:
    """Group each document's sections, in order, into pages of about ``config.target_tokens``.

    Args:
        sections: Sections of one or more documents (any order; grouped by ``doc_id``,
            ordered by ``order`` inside a document).
        config: The ``[pages]`` config section.

    Returns:
        Pages in document order; ``Page.id`` is ``f"{doc_id}-p{index:04d}"``.
    """
    by_doc: dict[str, list[Section]] = {}
    for s in sections:
        by_doc.setdefault(s.doc_id, []).append(s)
    pages: list[Page] = []
    for doc_id, doc_sections in by_doc.items():
        groups: list[list[Section]] = []
        used = TokenTally()
        for s in sorted(doc_sections, key=lambda s: s.order):
            block = tally(section_block(s))
            joined = used + _SEPARATOR + block
            if not groups or joined.tokens > config.target_tokens:
                groups.append([])
                joined = block
            groups[-1].append(s)
            used = joined
        pages += [_page(doc_id, index, group) for index, group in enumerate(groups)]
    return pages


def _page(doc_id: str, index: int, group: list[Section]) -> Page:
    text = SEPARATOR.join(section_block(s) for s in group)
    numbers = [p for s in group for p in (s.page_start, s.page_end) if p > 0]
    return Page(
        id=f"{doc_id}-p{index:04d}",
        doc_id=doc_id,
        section_ids=tuple(s.id for s in group),
        text=text,
        n_tokens=count_tokens(text),
        order=index,
        page_start=min(numbers, default=0),
        page_end=max(numbers, default=0),
    )
