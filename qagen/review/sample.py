"""Which items go to review, and to whom: a stratified sample and a balanced reviewer plan.

The sample keeps each stratum's share (largest-remainder allocation, random within a
stratum), or, with ``allocation="equal"``, takes the same number from every stratum (all of a
stratum smaller than its share, the rest spread over the larger ones): per-type measures then rest
on as many items each ("20 per type"), and the overall shares are no longer the build's.

The overlap set, labelled by several reviewers for the agreement statistics, cycles through
every combination of ``overlap_raters`` reviewers, so each pair (or triple) of reviewers shares
about as many items and every reviewer gets the same load; the other items go one by one to
the least-loaded reviewer.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

from qagen.records import Item
from qagen.review.labels import ReviewError

Per = Literal["topic", "type"]
Allocation = Literal["proportional", "equal"]


@dataclass(frozen=True)
class ReviewPlan:
    """Items per reviewer (in ``items.jsonl`` order) and the ids of the overlap set."""

    assignments: dict[str, list[Item]]
    overlap_ids: frozenset[str]
    sampled: int

    @property
    def total_rows(self) -> int:
        return sum(map(len, self.assignments.values()))


def stratum_key(per: Per | None) -> Callable[[Item], Hashable]:
    if per is None:
        return lambda _it: 0
    if per == "topic":
        return lambda it: it.source.topic_id
    if per == "type":
        return lambda it: it.type
    raise ReviewError(f"per must be 'topic', 'type' or None; got {per!r}")


def stratified_sample(
    items: Sequence[Item],
    n: int,
    key: Callable[[Item], Hashable],
    seed: int,
    allocation: Allocation = "proportional",
) -> list[Item]:
    """``n`` items keeping each stratum's share (or, ``equal``, as many from each); in input order.

    Raises:
        ReviewError: When ``n`` is not in [0, len(items)].
    """
    import numpy as np

    if not 0 <= n <= len(items):
        raise ReviewError(f"sample must be between 0 and the {len(items)} items available; got {n}")
    strata: dict[Hashable, list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        strata[key(item)].append(i)
    keys = sorted(strata, key=str)
    alloc = _equal(strata, keys, n) if allocation == "equal" else _proportional(strata, keys, n, len(items))
    rng = np.random.default_rng(seed)
    chosen: list[int] = []
    for k in keys:
        chosen += rng.permutation(strata[k])[: alloc[k]].tolist()
    return [items[i] for i in sorted(chosen)]


def _proportional(strata: dict[Hashable, list[int]], keys: list[Hashable], n: int, total: int) -> dict[Hashable, int]:
    quotas = {k: n * len(strata[k]) / total for k in keys} if total else {}
    alloc = {k: int(q) for k, q in quotas.items()}
    # Largest remainder first; ties go to the bigger stratum, then to the key's order.
    order = sorted(keys, key=lambda k: (-(quotas[k] - alloc[k]), -len(strata[k]), str(k)))
    for k in order[: n - sum(alloc.values())]:
        alloc[k] += 1
    return alloc


def _equal(strata: dict[Hashable, list[int]], keys: list[Hashable], n: int) -> dict[Hashable, int]:
    """The same count from every stratum: smallest first, each taking its share of what is left (all of
    itself when smaller), then the rounding remainder to the largest strata with room."""
    alloc: dict[Hashable, int] = {}
    left = n
    by_size = sorted(keys, key=lambda k: (len(strata[k]), str(k)))
    for i, k in enumerate(by_size):
        alloc[k] = min(len(strata[k]), left // (len(by_size) - i))
        left -= alloc[k]
    for k in sorted(keys, key=lambda k: (-len(strata[k]), str(k))):
        extra = min(left, len(strata[k]) - alloc[k])
        alloc[k] += extra
        left -= extra
    return alloc


def plan_review(
    items: Sequence[Item],
    reviewers: Sequence[str],
    *,
    sample: int | None = None,
    per: Per | None = None,
    overlap: int = 0,
    overlap_raters: int = 2,
    seed: int = 0,
    allocation: Allocation = "proportional",
) -> ReviewPlan:
    """Sample items and assign them to reviewers.

    Args:
        items: Candidates for review, in ``items.jsonl`` order.
        reviewers: Distinct reviewer names (at least one).
        sample: How many items to review; None for all.
        per: Stratify the sample (and the overlap set) by ``topic`` or item ``type``.
        overlap: How many of the sampled items several reviewers label.
        overlap_raters: Reviewers per overlap item (2 to ``len(reviewers)``).
        seed: Random seed of the sample and of the overlap set.
        allocation: ``proportional`` (each stratum's share) or ``equal`` (as many from each stratum).

    Returns:
        A :class:`ReviewPlan`.

    Raises:
        ReviewError: For an impossible request (with the constraint and the value).
    """
    _check_plan(items, reviewers, sample, overlap, overlap_raters)
    key = stratum_key(per)
    chosen = list(items) if sample is None else stratified_sample(items, sample, key, seed, allocation)
    if overlap > len(chosen):
        raise ReviewError(f"overlap must be at most the {len(chosen)} sampled items; got {overlap}")
    shared = stratified_sample(chosen, overlap, key, seed + 1, allocation) if overlap else []
    overlap_ids = frozenset(it.id for it in shared)
    assigned: dict[str, set[str]] = {r: set() for r in reviewers}
    for item, group in zip(shared, itertools.cycle(itertools.combinations(reviewers, overlap_raters)), strict=False):
        for r in group:
            assigned[r].add(item.id)
    for item in chosen:
        if item.id not in overlap_ids:
            least = min(reviewers, key=lambda r: len(assigned[r]))
            assigned[least].add(item.id)
    by_reviewer = {r: [it for it in chosen if it.id in assigned[r]] for r in reviewers}
    return ReviewPlan(by_reviewer, overlap_ids, len(chosen))


def _check_plan(
    items: Sequence[Item], reviewers: Sequence[str], sample: int | None, overlap: int, overlap_raters: int
) -> None:
    if not reviewers:
        raise ReviewError("reviewers must name at least one reviewer; got none")
    if len(set(reviewers)) != len(reviewers):
        raise ReviewError(f"reviewers must be distinct; got {list(reviewers)}")
    if not items:
        raise ReviewError("there are no items to review; run 'qagen build' first (or drop --unreviewed)")
    if sample is not None and not 1 <= sample <= len(items):
        raise ReviewError(f"sample must be between 1 and the {len(items)} items available; got {sample}")
    if overlap < 0:
        raise ReviewError(f"overlap must be >= 0; got {overlap}")
    if overlap and len(reviewers) < 2:
        raise ReviewError(f"overlap needs at least 2 reviewers (--reviewers a,b); got {len(reviewers)}")
    if overlap and not 2 <= overlap_raters <= len(reviewers):
        raise ReviewError(f"overlap_raters must be between 2 and the {len(reviewers)} reviewers; got {overlap_raters}")
