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
    run_filters,
)
from qagen.filters.code import CODE_ANSWER
from qagen.filters.dedup import DEDUP, greedy_dedup
from qagen.filters.factoid import FACTOID_ENTITY, LONG_FORM_FACTOID
from qagen.filters.grounding import GROUNDING, rouge_recall
from qagen.filters.language import WRONG_LANGUAGE
from qagen.filters.mcq import MCQ_QUALITY, mcq_stats
from qagen.filters.prompt_copy import COPIED_FROM_PROMPT, prompt_reference_texts
from qagen.filters.rank import TOP_PER_SECTION
from qagen.filters.self_contained import SELF_CONTAINED
from qagen.filters.validity import VALIDITY

FILTERS: tuple[Filter, ...] = (
    VALIDITY,
    WRONG_LANGUAGE,
    SELF_CONTAINED,
    CODE_ANSWER,
    LONG_FORM_FACTOID,
    GROUNDING,
    COPIED_FROM_PROMPT,
    FACTOID_ENTITY,
    MCQ_QUALITY,
    DEDUP,
    TOP_PER_SECTION,
)
FILTER_NAMES: tuple[str, ...] = tuple(f.name for f in FILTERS)

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
