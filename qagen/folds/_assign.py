"""From a chosen split of the topics to per-section folds, validation/test splits and the sample."""

from __future__ import annotations

import numpy as np

SPLITS = ("validation", "test")


def section_folds(topic: np.ndarray, unit: np.ndarray, n_units: int, fold_of_topic: np.ndarray):
    """Fold per section (1/2, 0 for outliers) and the mask of units holding sections of both folds."""
    fold = np.zeros(topic.shape[0], dtype=np.int64)
    sec = topic >= 0
    fold[sec] = fold_of_topic[topic[sec]]
    counts = [np.bincount(unit[fold == f], minlength=n_units) for f in (1, 2)]
    return fold, (counts[0] > 0) & (counts[1] > 0)


def assign_outliers(
    topic: np.ndarray,
    unit: np.ndarray,
    n_units: int,
    fold: np.ndarray,
    status: np.ndarray,
    points: np.ndarray,
    centroids: np.ndarray,
    fold_of_topic: np.ndarray,
    eligible: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fold and status per section with the topic outliers placed where that keeps the folds disjoint.

    An outlier joins the fold of its unit's kept sections: that unit's pages are loaded with the fold
    anyway, outliers included. A unit of outliers only, one of which may be sampled (``eligible``),
    joins the fold of the topic whose centroid is nearest its sections' mean. A unit with a conflict
    stays out (its pages hold both folds). Returns (fold, status, mask of the outliers assigned).
    """
    outlier = status == "outlier"
    kept = status == "kept"
    unit_fold = np.zeros(n_units, dtype=np.int64)
    unit_fold[unit[kept]] = fold[kept]  # one fold per unit: a unit with both is a conflict
    blocked = np.zeros(n_units, dtype=bool)
    blocked[unit[status == "conflict"]] = True
    may_ask = np.zeros(n_units, dtype=bool)
    may_ask[unit[outlier & eligible]] = True
    for u in np.flatnonzero(may_ask & (unit_fold == 0) & ~blocked):  # units of outliers only
        mean = points[outlier & (unit == u)].mean(axis=0)
        nearest = int(np.argmin(((centroids - mean) ** 2).sum(axis=1)))
        unit_fold[u] = fold_of_topic[nearest]
    take = outlier & ~blocked[unit] & (unit_fold[unit] > 0)
    fold, status = fold.copy(), status.copy()
    fold[take] = unit_fold[unit[take]]
    status[take] = "kept"
    return fold, status, take


def split_units(sizes: np.ndarray, test_size: float, rng: np.random.Generator) -> np.ndarray:
    """True for the units that go to test: a random order, each unit taken if it brings the test
    share closer to ``test_size`` of the sections; at least one unit on each side when there are two."""
    n = sizes.shape[0]
    test = np.zeros(n, dtype=bool)
    if n < 2:
        return test
    target, total = test_size * sizes.sum(), 0
    order = rng.permutation(n)
    for i in order:
        if abs(total + sizes[i] - target) < abs(total - target):
            test[i], total = True, total + sizes[i]
    if not test.any():
        test[order[np.argmin(sizes[order])]] = True
    if test.all():
        test[order[-1]] = False
    return test


def largest_remainder(total: int, sizes: np.ndarray) -> np.ndarray:
    """Integers summing to ``min(total, sum(sizes))``, each within 1 of its proportional share.

    Leftover units go to the largest fractional parts; ties to the larger size, then the lower index.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    whole = int(sizes.sum())
    if whole == 0:
        return np.zeros_like(sizes)
    total = min(int(total), whole)
    out, rest = np.divmod(sizes * total, whole)  # exact integer shares
    order = np.lexsort((np.arange(sizes.size), -sizes, -rest))
    out[order[: total - int(out.sum())]] += 1
    return out


def shared(total: int, sizes: np.ndarray, test_share: float) -> np.ndarray:
    """(validation, test) counts: ``test_share`` of ``total`` from test, the rest from validation;
    what one part cannot hold goes to the other, never more than both hold."""
    sizes = np.asarray(sizes, dtype=np.int64)
    total = min(int(total), int(sizes.sum()))
    test = min(round(total * test_share), int(sizes[1]))
    validation = min(total - test, int(sizes[0]))
    test = min(total - validation, int(sizes[1]))
    return np.array([validation, test], dtype=np.int64)


def fold_quotas(kept: np.ndarray, samples_total: int | None, samples_per_fold: int | None) -> np.ndarray:
    """Sections to sample per fold: all, a total shared by fold size, or a fixed number per fold."""
    if samples_per_fold is not None:
        return np.minimum(kept, samples_per_fold)
    if samples_total is None:
        return kept.copy()
    return largest_remainder(samples_total, kept)


def stratified_sample(
    cell: np.ndarray, topic: np.ndarray, n: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Pick ``n`` of the sections ``cell`` (indices), covering every topic the budget allows.

    With ``n`` at least the number of topics in the cell, every topic gets one section and the rest
    is shared in proportion to the topics' remaining sizes (largest remainder), as the paper
    samples "covering all topics"; with fewer, the largest topics get one each. Returns the
    picked indices (sorted) and, for each topic present, its count.
    """
    strata, counts = np.unique(topic[cell], return_counts=True)
    n = min(int(n), int(counts.sum()))
    if n >= counts.size:
        quota = 1 + largest_remainder(n - counts.size, counts - 1)
    else:
        quota = np.zeros_like(counts)
        quota[np.lexsort((np.arange(counts.size), -counts))[:n]] = 1
    picked = [
        rng.choice(cell[topic[cell] == t], size=q, replace=False) for t, q in zip(strata, quota, strict=True) if q
    ]
    return (np.sort(np.concatenate(picked)) if picked else np.zeros(0, np.int64)), quota
