"""The last filter: the top-ranked ``filter.keep_per_section`` items per source section and type.

Generation over-produces (several long-form candidates per section); keeping a fixed
number per section preserves the topic-stratified sample's distribution (paper: one per
section). The source section is an item's first ``source.section_ids`` entry (the sampled
section; multi-section MCQs list the others after it). Rank: score descending (missing
scores last), then id; a question that spells out who asks instead of what they need ("As an
experienced GIMP user, ..."; :func:`carries_persona`) ranks below its section's other candidates.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, rank_key, reject
from qagen.records import Item, Rejection

if TYPE_CHECKING:
    from qagen.config import FilterConfig


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
MIN_PERSONA_WORD = 4


@functools.lru_cache(maxsize=64)
def _persona_words(persona: str) -> frozenset[str]:
    """The words of a persona that describe who asks: lower-case words of four letters or more (no names such
    as the product, few function words; stop-word lists would drop "using", "first" or "time")."""
    found = _WORD.findall(unicodedata.normalize("NFKC", persona))
    return frozenset(w.casefold() for w in found if w.islower() and len(w) >= MIN_PERSONA_WORD)


def carries_persona(question: str, persona: str | None) -> bool:
    """True when the question repeats at least two of its persona's own words, more than half of them ("As someone
    using GIMP for the first time, ..." for "person using GIMP for the first time"): the persona is there
    to set tone and expertise, not to be told."""
    if not persona:
        return False
    own = _persona_words(persona)
    said = {w.casefold() for w in _WORD.findall(unicodedata.normalize("NFKC", question))}
    hits = len(own & said)
    return hits >= 2 and 2 * hits > len(own)


def _ranked(item: Item) -> tuple[bool, bool, float, str]:
    """Best first: a question that tells its persona last among its section's, then :func:`rank_key`."""
    return (carries_persona(item.question, item.generator.persona), *rank_key(item))


def source_section(item: Item) -> str:
    """The section an item was generated from (its first source section id)."""
    return item.source.section_ids[0] if item.source.section_ids else ""


@dataclass(frozen=True)
class TopPerSection:
    """The ``top_per_section`` filter."""

    name: str = "top_per_section"

    def apply(self, items: list[Item], ctx: FilterContext, config: FilterConfig) -> tuple[list[Item], list[Rejection]]:
        seen: dict[tuple[str, str], int] = {}
        kept: list[Item] = []
        rejected: list[Rejection] = []
        for order, item in sorted(((_ranked(it), it) for it in items), key=lambda pair: pair[0]):
            key = (source_section(item), item.type, item.hops)  # a multi-hop question is no rival of a section's own
            rank = seen.get(key, 0) + 1
            seen[key] = rank
            if rank <= config.keep_per_section:
                kept.append(item)
            else:
                told = "; its question tells its persona" if order[0] else ""
                reason = f"over keep_per_section (rank {rank} in its section{told})"
                rejected.append(reject(item, self.name, reason, item.score))
        return kept, rejected


TOP_PER_SECTION = TopPerSection()
