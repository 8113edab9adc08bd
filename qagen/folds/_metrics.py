"""The separation and coverage metrics of a fitted FoldBuilder (paper Table 2, and more)."""

from __future__ import annotations

from typing import Any

import numpy as np

from qagen.folds._assign import SPLITS
from qagen.folds._candidates import Candidate, Data


def _distinct(codes: np.ndarray) -> int:
    return int(np.unique(codes).size)


def _folds_per_group(group: np.ndarray, fold: np.ndarray, n_groups: int) -> float:
    """Mean number of folds among the non-outlier sections of each group that has any."""
    present = [np.bincount(group[fold == f], minlength=n_groups) > 0 for f in (1, 2)]
    n = present[0].astype(int) + present[1]
    return float(n[n > 0].mean())


def _cell(mask: np.ndarray, data: Data, sampled: np.ndarray) -> dict[str, int]:
    return {
        "sections": int(mask.sum()),
        "units": _distinct(data.unit[mask]),
        "topics": _distinct(data.topic[mask & (data.topic >= 0)]),
        "sampled": int((mask & sampled).sum()),
    }


def compute(
    data: Data,
    chosen: Candidate,
    fold: np.ndarray,
    status: np.ndarray,
    split: np.ndarray,
    sampled: np.ndarray,
    docs: tuple[np.ndarray, int] | None,
) -> dict[str, Any]:
    """All metrics as plain JSON-ready values (floats unrounded, None where undefined)."""
    n = fold.shape[0]
    kept = status == "kept"
    non_outlier = data.topic >= 0
    pair = data.dist[np.triu_indices(data.dist.shape[0], k=1)]
    min_topic = float(pair.min())
    sizes = [int((kept & (fold == f)).sum()) for f in (1, 2)]
    per_fold: dict[str, Any] = {}
    for f in (1, 2):
        in_fold = kept & (fold == f)
        per_fold[str(f)] = {
            **_cell(in_fold, data, sampled),
            "topics_assigned": int((chosen.fold_of_topic == f).sum()),
            **{s: _cell(in_fold & (split == s), data, sampled) for s in SPLITS},
        }
        per_fold[str(f)]["test_share"] = per_fold[str(f)]["test"]["sections"] / max(sizes[f - 1], 1)
    section_fold = np.where(non_outlier, chosen.fold_of_topic[np.maximum(data.topic, 0)], 0)
    out: dict[str, Any] = {
        "distance": chosen.distance,
        "linkage": chosen.linkage,
        "n_clusters": chosen.n_clusters,
        "score": chosen.score,
        "min_topic_distance": min_topic,
        "min_fold_distance": chosen.single,
        "avg_fold_distance": chosen.average,
        "fold_topic_distance_ratio": chosen.single / min_topic if min_topic > 0 else None,
        # smaller over larger: placing outliers may make fold 2 the larger one
        "small_fold_ratio": min(sizes) / max(sizes),
        "small_fold_share": min(sizes) / sum(sizes),
        "folds_per_unit": _folds_per_group(data.unit, section_fold, data.n_units),
        "valid_sections_pct": 100.0 * int((kept & non_outlier).sum()) / int(non_outlier.sum()),
        "kept_sections_pct": 100.0 * int(kept.sum()) / n,
        "n_sections": n,
        "n_outliers": int((~non_outlier).sum()),
        "n_conflict": int((status == "conflict").sum()),
        "n_kept": int(kept.sum()),
        "n_sampled": int(sampled.sum()),
        "n_topics": int(data.centroids.shape[0]),
        "n_units": data.n_units,
        "conflict_units": chosen.conflict_units,
        "outlier_pct": 100.0 * int((~non_outlier).sum()) / n,
        "folds": per_fold,
    }
    if docs is not None:
        out["folds_per_document"] = _folds_per_group(docs[0], section_fold, docs[1])
        codes, n_docs = docs
        kept_fold = np.where(kept, fold, 0)
        present = [np.bincount(codes[kept_fold == f], minlength=n_docs) > 0 for f in (1, 2)]
        total = np.bincount(codes[non_outlier], minlength=n_docs)
        share = np.bincount(codes[kept & non_outlier], minlength=n_docs)[total > 0] / total[total > 0]
        out["documents_in_both_folds"] = int((present[0] & present[1]).sum())
        out["document_kept_share_median"] = float(np.median(share)) if share.size else None
        out["documents_nothing_kept"] = int((share == 0).sum())
    return out
