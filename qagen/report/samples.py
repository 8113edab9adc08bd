"""A deterministic, stratified sample of accepted and rejected items, each with its source passage."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from qagen.records import Item, Rejection, Section
from qagen.report.summary import ITEM_TYPES, TYPE_NAMES

LETTERS = "ABCDEFGHIJ"


def round_robin(records: Sequence[Any], key: Callable[[Any], str], n: int, order: Sequence[str] = ()) -> list[Any]:
    """Up to ``n`` records, taking one from each group in turn (groups in ``order``, then by name).

    Records within a group are taken in id order (ids are content hashes, so this is an even,
    reproducible spread), so every group appears before any group shows its second record.
    """
    groups: dict[str, list[Any]] = defaultdict(list)
    for rec in sorted(records, key=lambda r: r.id):
        groups[key(rec)].append(rec)
    names = [g for g in order if g in groups] + sorted(g for g in groups if g not in order)
    picked: list[Any] = []
    depth = 0
    while len(picked) < n and any(depth < len(groups[g]) for g in names):
        picked += [groups[g][depth] for g in names if depth < len(groups[g])][: n - len(picked)]
        depth += 1
    return picked


def sample_items(
    items: Sequence[Item], rejected: Sequence[Rejection], max_shown: int
) -> tuple[list[Item], list[Rejection]]:
    """About half accepted (spread over item types), half rejected (spread over filters)."""
    n_rej = min(len(rejected), max_shown // 2)
    n_acc = min(len(items), max_shown - n_rej)
    n_rej = min(len(rejected), max_shown - n_acc)
    accepted = round_robin(items, lambda it: it.type, n_acc, ITEM_TYPES)
    dropped = round_robin(rejected, lambda r: f"{r.filter}/{r.type}", n_rej)
    return accepted, dropped


def _passage(item: Item, sections: dict[str, Section], chars: int) -> dict[str, Any]:
    found = [sections[sid] for sid in item.source.section_ids if sid in sections]
    if not found:
        return {"heading": "", "text": "", "truncated": False, "missing": True}
    text = "\n\n".join(s.text for s in found)
    return {
        "heading": " / ".join(s.heading for s in found if s.heading),
        "text": text[:chars].rstrip() + ("…" if len(text) > chars else ""),
        "truncated": len(text) > chars,
        "missing": False,
    }


def _pages(pages: Sequence[int]) -> str:
    if not pages:
        return ""
    lo, hi = min(pages), max(pages)
    return f"p. {lo}" if lo == hi else f"pp. {lo}–{hi}"


def item_card(
    item: Item, sections: dict[str, Section], topic_names: dict[int, str], passage_chars: int
) -> dict[str, Any]:
    """Everything the page shows for one item (plain strings; escaped by the template)."""
    options = []
    for i, text in enumerate(item.options or ()):
        options.append(
            {"letter": LETTERS[i] if i < len(LETTERS) else str(i + 1), "text": text, "correct": i == item.answer_index}
        )
    rejection = isinstance(item, Rejection)
    return {
        "id": item.id,
        "status": "rejected" if rejection else "accepted",
        "type": item.type,
        "type_name": TYPE_NAMES.get(item.type, item.type),
        "question": item.question,
        "answer": item.answer,
        "options": options,
        "bloom": item.bloom,
        "scenario": item.scenario,
        "formulation": item.formulation,
        "variant_of": item.variant_of,
        "entity": item.entity,
        "entity_kind": item.entity_kind,
        "rationale": item.rationale,
        "score": item.score,
        "fold": item.fold,
        "split": item.split,
        "doc_path": item.source.doc_path or item.source.doc_id,
        "pages": _pages(item.source.pdf_pages),
        "topic": item.source.topic_id,
        "topic_name": topic_names.get(item.source.topic_id, ""),
        "persona": item.generator.persona,
        "generator": " ".join(x for x in (item.generator.backend, item.generator.model) if x),
        "filter": item.filter if rejection else None,
        "reason": item.reason if rejection else None,
        "value": item.value if rejection else None,
        "passage": _passage(item, sections, passage_chars),
    }


def item_cards(
    items: Sequence[Item],
    rejected: Sequence[Rejection],
    sections: Sequence[Section],
    topics: dict[str, Any] | None,
    max_shown: int,
    passage_chars: int,
) -> dict[str, Any]:
    """The sampled items as cards, and the values the page's filter controls offer."""
    accepted, dropped = sample_items(items, rejected, max_shown)
    by_id = {s.id: s for s in sections}
    names = {int(t["id"]): str(t.get("label", "")) for t in (topics or {}).get("topics") or []}
    cards = [item_card(it, by_id, names, passage_chars) for it in (*accepted, *dropped)]
    return {
        "cards": cards,
        "shown_accepted": len(accepted),
        "shown_rejected": len(dropped),
        "total_accepted": len(items),
        "total_rejected": len(rejected),
        "filters": sorted({c["filter"] for c in cards if c["filter"]}),
        "types": [(t, TYPE_NAMES[t]) for t in ITEM_TYPES if any(c["type"] == t for c in cards)],
    }
