"""The last filter: the top-ranked ``filter.keep_per_section`` items per source section and type.

Generation over-produces (several long-form candidates per section); keeping a fixed
number per section preserves the topic-stratified sample's distribution (paper: one per
section). The source section is an item's first ``source.section_ids`` entry (the sampled
section; multi-section MCQs list the others after it). Rank: score descending (missing
scores last), then id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, rank_key, reject
from qagen.records import Item, Rejection

if TYPE_CHECKING:
    from qagen.config import FilterConfig


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
        for item in sorted(items, key=rank_key):
            key = (source_section(item), item.type, item.hops)  # a multi-hop question is no rival of a section's own
            rank = seen.get(key, 0) + 1
            seen[key] = rank
            if rank <= config.keep_per_section:
                kept.append(item)
            else:
                reason = f"over keep_per_section (rank {rank} in its section)"
                rejected.append(reject(item, self.name, reason, item.score))
        return kept, rejected


TOP_PER_SECTION = TopPerSection()
