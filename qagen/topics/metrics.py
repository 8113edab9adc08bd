"""Cluster quality as in the paper: geometry, robustness to noise, and document–cluster agreement.

Geometric scores (silhouette, Calinski–Harabasz, Davies–Bouldin) are computed in the reduced
space on the clustered sections (outliers left out). Every value is JSON-ready: floats, ints,
or None where a score is undefined (fewer than two topics).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from qagen.config import TopicsConfig

SILHOUETTE_SAMPLE = 10_000  # silhouette is O(n^2); larger inputs are scored on a seeded sample
DC_PERMUTATIONS = 20


def document_agreement(
    labels: Sequence[int] | np.ndarray, doc_ids: Sequence[str], *, include_outliers: bool = False
) -> float:
    """Document–cluster agreement DC (paper eq. 1–2), in percent.

    For each document with N clustered sections, s_j of them in cluster j, its agreement is
    max_j(s_j / N); DC is the mean over documents x 100. Outlier sections (-1) are left out of
    both s_j and N unless ``include_outliers`` (then -1 counts as one more cluster); a document
    with no clustered section is skipped. NaN when no document is left.
    """
    labels = np.asarray(labels)
    if len(labels) != len(doc_ids):
        raise ValueError(f"labels and doc_ids must have the same length; got {len(labels)} and {len(doc_ids)}")
    per_doc: dict[str, Counter[int]] = defaultdict(Counter)
    for label, doc in zip(labels.tolist(), doc_ids, strict=True):
        if include_outliers or label != -1:
            per_doc[doc][label] += 1
    if not per_doc:
        return math.nan
    shares = [max(c.values()) / sum(c.values()) for c in per_doc.values()]
    return float(np.mean(shares) * 100.0)


def shuffled_agreement(
    labels: Sequence[int] | np.ndarray, doc_ids: Sequence[str], *, n_permutations: int = DC_PERMUTATIONS, seed: int = 0
) -> float:
    """DC expected by chance: the mean DC after permuting the labels among sections (same sizes)."""
    rng = np.random.default_rng(seed)
    labels = np.asarray(labels)
    values = [document_agreement(rng.permutation(labels), doc_ids) for _ in range(n_permutations)]
    values = [v for v in values if not math.isnan(v)]
    return float(np.mean(values)) if values else math.nan


def geometry(reduced: np.ndarray, labels: np.ndarray, *, seed: int = 0) -> dict[str, float | None]:
    """Silhouette (higher is better), Calinski–Harabasz (higher), Davies–Bouldin (lower) on clustered sections."""
    from sklearn.metrics import calinski_harabasz_score, davies_bouldin_score, silhouette_score

    mask = labels != -1
    x, y = reduced[mask], labels[mask]
    k = len(np.unique(y))
    if k < 2 or k >= len(y):
        return {"silhouette": None, "calinski_harabasz": None, "davies_bouldin": None}
    sample = SILHOUETTE_SAMPLE if len(y) > SILHOUETTE_SAMPLE else None
    return {
        "silhouette": float(silhouette_score(x, y, sample_size=sample, random_state=seed)),
        "calinski_harabasz": float(calinski_harabasz_score(x, y)),
        "davies_bouldin": float(davies_bouldin_score(x, y)),
    }


def cluster_metrics(
    reduced: np.ndarray, labels: np.ndarray, doc_ids: Sequence[str], *, seed: int = 0
) -> dict[str, Any]:
    """Every per-fit metric except robustness: geometry, DC with its shuffled baseline, counts and sizes.

    Keys: n_sections, n_documents, n_topics, n_outliers, outlier_pct, size_min, size_median,
    size_max, silhouette, calinski_harabasz, davies_bouldin, dc, dc_shuffled, dc_lift
    (dc - dc_shuffled, in percentage points).
    """
    labels = np.asarray(labels)
    reduced = np.asarray(reduced)
    if reduced.shape[0] != len(labels):
        raise ValueError(f"reduced and labels must have the same length; got {reduced.shape[0]} and {len(labels)}")
    sizes = sorted(Counter(x for x in labels.tolist() if x != -1).values())
    n_out = int((labels == -1).sum())
    dc = document_agreement(labels, doc_ids)
    dc_shuffled = shuffled_agreement(labels, doc_ids, seed=seed)
    return {
        "n_sections": len(labels),
        "n_documents": len(set(doc_ids)),
        "n_topics": len(sizes),
        "n_outliers": n_out,
        "outlier_pct": 100.0 * n_out / len(labels) if len(labels) else 0.0,
        "size_min": sizes[0] if sizes else 0,
        "size_median": float(np.median(sizes)) if sizes else 0.0,
        "size_max": sizes[-1] if sizes else 0,
        **geometry(reduced, labels, seed=seed),
        "dc": _finite(dc),
        "dc_shuffled": _finite(dc_shuffled),
        "dc_lift": _finite(dc - dc_shuffled),
    }


def cluster_retention(labels: np.ndarray, new_labels: np.ndarray) -> float:
    """Share of clustered sections that keep their cluster after a refit.

    Old and new clusters are matched one-to-one by maximum total overlap (Hungarian
    assignment); a section keeps its cluster when its new cluster is the one matched to its old
    cluster. Sections that were outliers are not counted; sections that become outliers lose.
    """
    from scipy.optimize import linear_sum_assignment

    labels, new_labels = np.asarray(labels), np.asarray(new_labels)
    mask = labels != -1
    if not mask.any():
        return math.nan
    old_ids = np.unique(labels[mask])
    new_ids = np.unique(new_labels[mask & (new_labels != -1)])
    if len(new_ids) == 0:
        return 0.0
    overlap = np.zeros((len(old_ids), len(new_ids)), dtype=np.int64)
    old_index = {v: i for i, v in enumerate(old_ids.tolist())}
    new_index = {v: i for i, v in enumerate(new_ids.tolist())}
    for a, b in zip(labels[mask].tolist(), new_labels[mask].tolist(), strict=True):
        if b != -1:
            overlap[old_index[a], new_index[b]] += 1
    rows, cols = linear_sum_assignment(overlap, maximize=True)
    return float(overlap[rows, cols].sum() / mask.sum())


def robustness(
    embeddings: np.ndarray, labels: np.ndarray, config: TopicsConfig, seed: int, *, params: dict[str, Any] | None = None
) -> dict[str, float | None]:
    """Refit on embeddings plus Gaussian noise (``config.robustness_noise`` x per-dimension std).

    Returns ``robustness`` (:func:`cluster_retention` of the refit, 0–1) and
    ``robustness_ari`` (adjusted Rand index between the two labellings, outliers included).
    The refit uses the same parameters and seed, so only the noise differs.
    """

    from qagen.topics.components import add_noise, effective_params, reduce_and_cluster

    embeddings = np.asarray(embeddings, dtype=np.float32)
    params = params or effective_params(embeddings.shape[0], embeddings.shape[1], config)
    noisy = add_noise(embeddings, config.robustness_noise, seed)
    _, new_labels = reduce_and_cluster(noisy, params, seed)
    return robustness_from_labels(labels, new_labels)


def robustness_from_labels(labels: np.ndarray, new_labels: np.ndarray) -> dict[str, float | None]:
    """The robustness metrics of a refit, given both labellings."""
    from sklearn.metrics import adjusted_rand_score

    return {
        "robustness": _finite(cluster_retention(labels, new_labels)),
        "robustness_ari": _finite(float(adjusted_rand_score(labels, new_labels))),
    }


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)
