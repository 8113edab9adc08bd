"""Filtering candidates (paper 4.6 and Appendix B): over-generate, then keep the good ones.

Filters run in the order of :data:`FILTERS`; each sees what the previous ones kept and
records a :class:`~qagen.records.Rejection` (filter, reason, measured value) for every item
it drops. :func:`run_filters` returns the accepted items, the rejections and the funnel
(in/out per filter and item type); :func:`format_funnel` prints it.

Usage::

    ctx = FilterContext(sections={s.id: s for s in sections}, embed=embedder.embed,
                        phone_region="NL", entity_kinds=("phone", "email", "url"),
                        titles=document_titles(sections, documents),
                        prompt_texts=prompt_reference_texts(prompts_dir, few_shot_file))
    result = run_filters(candidates, ctx, config.filter)
"""

from __future__ import annotations

from qagen.filters.base import (
    Filter,
    FilterContext,
    FilterResult,
    ItemFilter,
    Reject,
    format_funnel,
    rank_key,
)
from qagen.filters.dedup import greedy_dedup
from qagen.filters.grounding import rouge_recall
from qagen.filters.mcq import mcq_stats
from qagen.filters.order import FILTER_NAMES, FILTERS, run_filters
from qagen.filters.prompt_copy import prompt_reference_texts

__all__ = [
    "FILTERS",
    "FILTER_NAMES",
    "Filter",
    "FilterContext",
    "FilterResult",
    "ItemFilter",
    "Reject",
    "format_funnel",
    "greedy_dedup",
    "mcq_stats",
    "prompt_reference_texts",
    "rank_key",
    "rouge_recall",
    "run_filters",
]
