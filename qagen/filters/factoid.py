"""Factoid checks (paper Appendix B): long-form items that are really factoids, and the
entity back-check of factoid items.

Entities are found and normalised by :mod:`qagen.entities` (the same code the
generator uses), so "020-794 3120" in an answer and "+31 20 794 3120" in a section match.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qagen.filters.base import FilterContext, ItemFilter, Reject
from qagen.records import Item

if TYPE_CHECKING:
    from qagen.config import FilterConfig


def check_long_form_factoid(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """A long-form answer of at most ``factoid_max_answer_words`` words holding an entity is a factoid."""
    if item.type != "long_form":
        return None
    n_words = len(item.answer.split())
    if n_words > config.factoid_max_answer_words:
        return None
    from qagen.entities import extract_entities

    found = extract_entities(item.answer, list(ctx.entity_kinds), ctx.phone_region)
    if found:
        return Reject("short answer with an entity: really a factoid", found[0].text)
    return None


def check_factoid_entity(item: Item, ctx: FilterContext, config: FilterConfig) -> Reject | None:
    """The factoid's normalised entity is found in both its answer and its source section."""
    if item.type != "factoid":
        return None
    from qagen.entities import ENTITY_KINDS, extract_entities, normalize_entity

    kind = item.entity_kind or ""
    if kind not in ENTITY_KINDS:
        return Reject("unknown entity kind", kind)
    target = normalize_entity(kind, item.entity or "", ctx.phone_region)
    if target is None:
        return Reject("entity cannot be normalised", item.entity)
    in_answer = {e.normalized for e in extract_entities(item.answer, [kind], ctx.phone_region)}
    if target not in in_answer:
        return Reject("entity not in the answer", target)
    in_source = {e.normalized for e in extract_entities(ctx.source_text(item), [kind], ctx.phone_region)}
    if target not in in_source:
        return Reject("entity not in the source section", target)
    return None


LONG_FORM_FACTOID = ItemFilter("long_form_factoid", check_long_form_factoid)
FACTOID_ENTITY = ItemFilter("factoid_entity", check_factoid_entity)
