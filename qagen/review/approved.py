"""Which items the review approved, and the review status of a dataset.

Rule (``splits.approval_rule``), applied to an item's *current* verdicts, those whose
``item_hash`` matches the item as it is now (a verdict on an earlier version of a
regenerated item is stale and ignored):

- ``all`` (default): at least one verdict, and every verdict is ``correct``. With one
  reviewer per item this is the paper's rule (only items labelled correct were kept);
  on the overlap set it takes unanimity.
- ``majority``: more than half of the verdicts are ``correct`` (a 1-1 tie is not approved).

Items never reviewed are never approved.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any, Literal

from qagen.records import Item
from qagen.review.labels import APPROVED_LABEL, LABELS, ReviewError, Verdict, item_hash

Rule = Literal["all", "majority"]
RULES: tuple[str, ...] = ("all", "majority")


def check_rule(rule: str) -> None:
    if rule not in RULES:
        raise ReviewError(f"approval rule must be one of {', '.join(RULES)}; got {rule!r}")


def is_approved(labels: Sequence[str], rule: Rule = "all") -> bool:
    """Whether an item with these labels (one per reviewer) is approved under ``rule``."""
    check_rule(rule)
    if not labels:
        return False
    correct = sum(lab == APPROVED_LABEL for lab in labels)
    return correct == len(labels) if rule == "all" else 2 * correct > len(labels)


def current_verdicts(items: Sequence[Item], reviews: Sequence[Verdict]) -> dict[str, list[Verdict]]:
    """Item id -> its verdicts that match the item as it is now (empty hash: trusted)."""
    hashes = {it.id: item_hash(it) for it in items}
    out: dict[str, list[Verdict]] = defaultdict(list)
    for v in reviews:
        if v.item_id in hashes and v.item_hash in ("", hashes[v.item_id]):
            out[v.item_id].append(v)
    return dict(out)


def approved_items(items: Sequence[Item], reviews: Sequence[Verdict], rule: Rule = "all") -> list[Item]:
    """The items approved under ``rule``, in their input order.

    Args:
        items: Accepted items (``items.jsonl``).
        reviews: Verdicts (``reviews.jsonl``); stale ones and those of unknown items are ignored.
        rule: ``all`` or ``majority`` (see the module docstring).

    Returns:
        The approved items; never-reviewed items are left out.
    """
    check_rule(rule)
    by_item = current_verdicts(items, reviews)
    return [it for it in items if is_approved([v.label for v in by_item.get(it.id, [])], rule)]


def review_summary(items: Sequence[Item], reviews: Sequence[Verdict], rule: Rule = "all") -> dict[str, Any]:
    """Review status of a dataset: item status, label distribution and agreement.

    Returns:
        ``rule``, ``items``, ``reviewed``, ``approved``, ``not_approved``, ``not_reviewed``,
        ``disputed`` (verdicts disagree on correctness), ``approved_by_rule``, ``verdicts``,
        ``stale_verdicts``, ``reviewers``, ``labels`` (verdicts per label, the paper's
        Figure 6), ``labels_by_type``, ``labels_by_reviewer``, ``agreement`` and ``checks``
        (the natural / answerable / correct shares, see :func:`~qagen.review.checks.check_summary`).
    """
    from qagen.review.agreement import agreement
    from qagen.review.checks import check_summary

    check_rule(rule)
    by_item = current_verdicts(items, reviews)
    current = [v for vs in by_item.values() for v in vs]
    type_of = {it.id: it.type for it in items}
    rule_of = {it.id: it.generator.rule or it.generator.backend for it in items}
    labels_of = {k: [v.label for v in vs] for k, vs in by_item.items()}
    approved = {r: sum(is_approved(labs, r) for labs in labels_of.values()) for r in RULES}  # type: ignore[arg-type]
    by_type: dict[str, Counter[str]] = defaultdict(Counter)
    by_reviewer: dict[str, Counter[str]] = defaultdict(Counter)
    for v in current:
        by_type[type_of[v.item_id]][v.label] += 1
        by_reviewer[v.reviewer][v.label] += 1
    return {
        "rule": rule,
        "items": len(items),
        "reviewed": len(by_item),
        "approved": approved[rule],
        "not_approved": len(by_item) - approved[rule],
        "not_reviewed": len(items) - len(by_item),
        "disputed": sum(0 < labs.count(APPROVED_LABEL) < len(labs) for labs in labels_of.values()),
        "approved_by_rule": approved,
        "verdicts": len(current),
        "stale_verdicts": len(reviews) - len(current),
        "reviewers": sorted(by_reviewer),
        "labels": _label_counts(Counter(v.label for v in current)),
        "labels_by_type": {t: _label_counts(c) for t, c in sorted(by_type.items())},
        "labels_by_reviewer": {r: _label_counts(c) for r, c in sorted(by_reviewer.items())},
        "agreement": agreement(current),
        "checks": check_summary(current, type_of, rule_of),
    }


def _label_counts(counts: Counter[str]) -> dict[str, int]:
    return {lab: counts.get(lab, 0) for lab in LABELS}


def review_selection(
    items: Sequence[Item], reviews: Sequence[Verdict] | None, approved_only: bool, rule: Rule = "all"
) -> tuple[list[Item], dict[str, Any]]:
    """The items the splits stage lays out, and the review block of ``crosseval.json``.

    Args:
        items: Accepted items.
        reviews: Verdicts, or None when ``reviews.jsonl`` does not exist.
        approved_only: Keep only approved items (``splits.approved_only``).
        rule: ``splits.approval_rule``.

    Raises:
        ReviewError: With ``approved_only`` when no item has a verdict or none is approved
            (empty splits would be useless; the message says what to do).
    """
    summary = {"approved_only": approved_only, **review_summary(items, reviews or [], rule)}
    if not approved_only:
        return list(items), summary
    if not summary["reviewed"]:
        raise ReviewError(
            "splits.approved_only is set but no item has a verdict; run 'qagen review export OUT --to review.csv', "
            "label the items, then 'qagen review import OUT review*.csv' (or build without --approved-only)"
        )
    kept = approved_items(items, reviews or [], rule)
    if not kept:
        raise ReviewError(
            f"splits.approved_only is set but none of the {summary['reviewed']} reviewed items is approved "
            f"(rule {rule!r}); review more items or build without --approved-only"
        )
    return kept, summary
