"""The filters in their declared order, and :func:`run_filters`, which runs them over the candidates.

Kept apart from :mod:`qagen.filters.base` (what every filter is made of), which the filter modules
import: the order needs every filter module, so it cannot live where they all start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from qagen.filters.base import Filter, FilterContext, FilterResult, funnel_rows
from qagen.filters.code import CODE_ANSWER
from qagen.filters.dedup import DEDUP
from qagen.filters.factoid import FACTOID_ENTITY, LONG_FORM_FACTOID
from qagen.filters.grounding import GROUNDING
from qagen.filters.language import WRONG_LANGUAGE
from qagen.filters.mcq import MCQ_QUALITY, mcq_stats
from qagen.filters.multi_hop import MULTI_HOP
from qagen.filters.prompt_copy import COPIED_FROM_PROMPT
from qagen.filters.rank import TOP_PER_SECTION
from qagen.filters.self_contained import SELF_CONTAINED
from qagen.filters.validity import VALIDITY
from qagen.records import Item, Rejection

if TYPE_CHECKING:
    from qagen.config import FilterConfig

FILTERS: tuple[Filter, ...] = (
    VALIDITY,
    WRONG_LANGUAGE,
    SELF_CONTAINED,
    CODE_ANSWER,
    LONG_FORM_FACTOID,
    GROUNDING,
    COPIED_FROM_PROMPT,
    MULTI_HOP,
    FACTOID_ENTITY,
    MCQ_QUALITY,
    DEDUP,
    TOP_PER_SECTION,
)
FILTER_NAMES: tuple[str, ...] = tuple(f.name for f in FILTERS)


def run_filters(
    candidates: Sequence[Item],
    ctx: FilterContext,
    config: FilterConfig,
    filters: Sequence[Filter] | None = None,
) -> FilterResult:
    """Run the filters in their declared order over the candidates.

    Args:
        candidates: Generated items. A repeated id (same type, section and question) is
            rejected by ``validity`` after its first occurrence.
        ctx: Sections, the question embedder and entity settings.
        config: The ``[filter]`` config section; ``config.skip`` names filters not to run.
        filters: The filter sequence; defaults to :data:`FILTERS`.

    Returns:
        Accepted items (input order), rejections and the funnel.

    Raises:
        ValueError: When ``config.skip`` names an unknown filter.
    """
    filters = list(FILTERS if filters is None else filters)
    _check_inputs(config, filters)
    order: dict[str, int] = {}
    for i, item in enumerate(candidates):
        order.setdefault(item.id, i)
    current = list(candidates)
    rejected: list[Rejection] = []
    funnel: list[dict[str, Any]] = []
    for flt in filters:
        if flt.name in config.skip:
            continue
        kept, dropped = flt.apply(current, ctx, config)
        kept.sort(key=lambda it: order[it.id])
        dropped.sort(key=lambda it: order[it.id])
        funnel += funnel_rows(flt.name, current, kept, dropped)
        rejected += dropped
        current = kept
    return FilterResult(current, rejected, funnel, stats=mcq_stats(current))


def _check_inputs(config: FilterConfig, filters: Sequence[Filter]) -> None:
    names = {f.name for f in filters}
    unknown = [s for s in config.skip if s not in names]
    if unknown:
        raise ValueError(f"filter.skip must name filters among {sorted(names)}; got {unknown}")
