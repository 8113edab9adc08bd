"""The filter protocol, the context filters read, and the loop that runs them in order.

A filter sees the candidates that survived the filters before it and returns the ones it
keeps plus a :class:`~qagen.records.Rejection` (filter name, reason, measured value) for
each one it drops. Most filters judge one item at a time (:class:`ItemFilter` wraps such a
check); near-duplicate removal and the per-section cap look at the whole set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from qagen.records import Item, Rejection, Section

if TYPE_CHECKING:
    import numpy as np

    from qagen.config import FilterConfig

ITEM_TYPES = ("long_form", "factoid", "mcq")


@dataclass(frozen=True)
class FilterContext:
    """What filters may read besides the candidates.

    Attributes:
        sections: Source sections by id (every candidate's ``source.section_ids`` should be here).
        embed: Texts -> L2-normalised float array of shape (n, dim); used for near-duplicate
            questions. May be None when the ``dedup`` filter is skipped.
        phone_region: Default region for phone numbers written without country code.
        entity_kinds: Entity kinds the factoid checks look for.
        titles: A title (or subject) per document id: a question naming a word of its
            document's title names its subject (``self_contained``); the title also counts
            as source text for the content words of answers and rationales (``grounding``).
        prompt_texts: The sentences of the prompt templates and few-shot examples
            (:func:`qagen.filters.prompt_copy.prompt_reference_texts`); an item repeating one
            that its source does not hold is rejected by ``copied_from_prompt``.
    """

    sections: Mapping[str, Section]
    embed: Callable[[list[str]], np.ndarray] | None = None
    phone_region: str = "US"
    entity_kinds: tuple[str, ...] = ("phone", "email", "url")
    titles: Mapping[str, str] = field(default_factory=dict)
    subject: str | None = None  # the product or organisation most documents share: naming it names the subject
    prompt_texts: tuple[str, ...] = ()
    _cache: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def cached(self, key: str, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per context (corpus statistics shared by all items), then its value."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def source_text(self, item: Item) -> str:
        """Heading and body of every source section of ``item`` that is known, joined."""
        parts = []
        for sid in item.source.section_ids:
            section = self.sections.get(sid)
            if section is not None:
                parts.append(f"{section.heading}\n{section.text}".strip())
        return "\n\n".join(parts)


@dataclass(frozen=True)
class Reject:
    """A check's verdict against one item: a short fixed reason and the measured value."""

    reason: str
    value: float | str | None = None


@runtime_checkable
class Filter(Protocol):
    """A named step over the surviving candidates."""

    name: str

    def apply(
        self, items: list[Item], ctx: FilterContext, config: FilterConfig
    ) -> tuple[list[Item], list[Rejection]]: ...


Check = Callable[[Item, FilterContext, "FilterConfig"], Reject | None]


@dataclass(frozen=True)
class ItemFilter:
    """A filter that judges each item alone with ``check`` (None means accept)."""

    name: str
    check: Check

    def apply(self, items: list[Item], ctx: FilterContext, config: FilterConfig) -> tuple[list[Item], list[Rejection]]:
        kept: list[Item] = []
        rejected: list[Rejection] = []
        for item in items:
            verdict = self.check(item, ctx, config)
            if verdict is None:
                kept.append(item)
            else:
                rejected.append(reject(item, self.name, verdict.reason, verdict.value))
        return kept, rejected


def reject(item: Item, filter_name: str, reason: str, value: float | str | None = None) -> Rejection:
    """The rejection record of ``item``: all its fields plus filter, reason and value."""
    fields = {f: getattr(item, f) for f in Item.__dataclass_fields__}
    if isinstance(value, float):
        value = round(value, 4)
    return Rejection(**fields, filter=filter_name, reason=reason, value=value)


def rank_key(item: Item) -> tuple[bool, float, str]:
    """Sort key for "best first": score descending (missing scores last), then id."""
    return (item.score is None, -(item.score or 0.0), item.id)


@dataclass
class FilterResult:
    """What :func:`run_filters` returns.

    Attributes:
        accepted: Items that passed every filter, in input order.
        rejected: One record per dropped candidate, in filter order, then input order.
        funnel: One row per filter and item type: ``{"filter", "type", "in", "out",
            "rejected", "reasons"}`` (``reasons`` counts rejections by reason, details in
            parentheses left out).
        stats: Set-level measures of the accepted items (MCQ answer-length and position balance).
    """

    accepted: list[Item]
    rejected: list[Rejection]
    funnel: list[dict[str, Any]]
    stats: dict[str, Any] = field(default_factory=dict)


def funnel_rows(name: str, before: list[Item], kept: list[Item], dropped: list[Rejection]) -> list[dict[str, Any]]:
    types = [t for t in ITEM_TYPES if any(it.type == t for it in before)]
    types += sorted({it.type for it in before} - set(types))
    rows = []
    for t in types:
        reasons = Counter(r.reason.split(" (")[0] for r in dropped if r.type == t)
        rows.append(
            {
                "filter": name,
                "type": t,
                "in": sum(it.type == t for it in before),
                "out": sum(it.type == t for it in kept),
                "rejected": sum(r.type == t for r in dropped),
                "reasons": dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            }
        )
    return rows


def format_funnel(funnel: list[dict[str, Any]]) -> str:
    """The funnel as a text table: one line per filter, ``in -> out`` per item type and in total."""
    if not funnel:
        return "  (no candidates)"
    filters = list(dict.fromkeys(r["filter"] for r in funnel))
    types = [t for t in ITEM_TYPES if any(r["type"] == t for r in funnel)]
    types += sorted({r["type"] for r in funnel} - set(types))
    cell: dict[tuple[str, str], dict[str, Any]] = {(r["filter"], r["type"]): r for r in funnel}
    width = max(10, *(len(f) for f in filters))
    head = f"  {'filter':<{width}}" + "".join(f"{t:>16}" for t in [*types, "total"]) + "  top reasons"
    lines = [head]
    for name in filters:
        rows = [cell.get((name, t)) for t in types]
        cols = [f"{r['in']:>7} -> {r['out']:<5}" if r else f"{'-':>16}" for r in rows]
        total_in = sum(r["in"] for r in rows if r)
        total_out = sum(r["out"] for r in rows if r)
        reasons: Counter[str] = Counter()
        for r in rows:
            if r:
                reasons.update(r.get("reasons", {}))
        top = ", ".join(f"{k} ({v})" for k, v in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
        lines.append(f"  {name:<{width}}" + "".join(cols) + f"{total_in:>7} -> {total_out:<5}" + f"  {top}")
    return "\n".join(lines)
