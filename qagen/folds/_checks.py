"""Validation of FoldBuilder parameters and fit inputs, with scikit-learn style messages."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np

DISTANCES = ("euclidean", "cosine")
LINKAGES = ("single", "complete", "average", "ward")
UNITS = ("page", "document")
CRITERIA = ("separation", "score")
MAX_CLUSTERS_CAP = 10


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def choices(name: str, value: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """``"auto"`` → all allowed values; a name or a list of names → a tuple, checked."""
    if isinstance(value, str):
        value = list(allowed) if value == "auto" else [value]
    if not isinstance(value, Sequence) or len(value) == 0:
        raise ValueError(f"{name} must be 'auto', one of {list(allowed)} or a non-empty list of them; got {value!r}")
    out: list[str] = []
    for v in value:
        if v not in allowed:
            raise ValueError(f"{name} must be 'auto' or a list of {list(allowed)}; got {v!r} in {list(value)!r}")
        if v not in out:
            out.append(v)
    return tuple(out)


def check_params(p: dict[str, Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Check every FoldBuilder parameter; return the resolved (distances, linkages)."""
    if not _is_int(p["n_folds"]) or p["n_folds"] != 2:
        raise ValueError(f"n_folds must be 2 (two-fold cross-evaluation is the only layout); got {p['n_folds']!r}")
    distances = choices("distance", p["distance"], DISTANCES)
    linkages = choices("linkage", p["linkage"], LINKAGES)
    if not any(d == "euclidean" or k != "ward" for d in distances for k in linkages):
        raise ValueError(
            f"distance={list(distances)} with linkage={list(linkages)} gives no candidate: "
            "ward needs the euclidean distance; add 'euclidean' or another linkage"
        )
    if p["unit"] not in UNITS:
        raise ValueError(f"unit must be one of {list(UNITS)}; got {p['unit']!r}")
    if not _is_real(p["test_size"]) or not 0 < p["test_size"] < 1:
        raise ValueError(f"test_size must be in (0, 1); got {p['test_size']!r}")
    if not _is_real(p["min_fold_ratio"]) or not 0 <= p["min_fold_ratio"] <= 1:
        raise ValueError(f"min_fold_ratio must be in [0, 1] (small fold / large fold); got {p['min_fold_ratio']!r}")
    if p["criterion"] not in CRITERIA:
        raise ValueError(f"criterion must be one of {list(CRITERIA)}; got {p['criterion']!r}")
    for name in ("samples_total", "samples_per_fold"):
        v = p[name]
        if v is not None and (not _is_int(v) or v < 1):
            raise ValueError(f"{name} must be a positive integer or None; got {v!r}")
    if p["samples_total"] is not None and p["samples_per_fold"] is not None:
        raise ValueError(
            f"give samples_total or samples_per_fold, not both; got samples_total={p['samples_total']!r} "
            f"and samples_per_fold={p['samples_per_fold']!r}"
        )
    share = p.get("sample_test_share")
    if share is not None and (not _is_real(share) or not 0 <= share <= 1):
        raise ValueError(f"sample_test_share must be in [0, 1] or None; got {share!r}")
    mc = p["max_clusters"]
    if not _is_int(mc) or not 2 <= mc <= MAX_CLUSTERS_CAP:
        raise ValueError(f"max_clusters must be an integer in [2, {MAX_CLUSTERS_CAP}]; got {mc!r}")
    if p.get("few_topics", "raise") not in ("raise", "documents"):
        raise ValueError(f"few_topics must be 'raise' or 'documents'; got {p['few_topics']!r}")
    if p.get("outliers", "drop") not in ("drop", "assign"):
        raise ValueError(f"outliers must be 'drop' or 'assign'; got {p['outliers']!r}")
    if p.get("on_imbalance", "warn") not in ("warn", "raise"):
        raise ValueError(f"on_imbalance must be 'warn' or 'raise'; got {p['on_imbalance']!r}")
    seed = p["seed"]
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise ValueError(f"seed must be a non-negative integer or None; got {seed!r}")
    return distances, linkages


def check_embeddings(embeddings: Any) -> np.ndarray:
    """A finite 2-D float array with at least 2 rows."""
    try:
        x = np.asarray(embeddings, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"embeddings must be a 2-D array of numbers; got {type(embeddings).__name__}") from exc
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 1:
        raise ValueError(f"embeddings must be a 2-D array (n_sections, n_dims) with n_sections >= 2; got {x.shape}")
    bad = ~np.isfinite(x).all(axis=1)
    if bad.any():
        rows = np.flatnonzero(bad)
        raise ValueError(
            f"embeddings contains NaN or infinite values in {rows.size} row(s), first at row {int(rows[0])}; "
            "drop or re-embed those sections"
        )
    return x


def check_topics(topics: Any, n: int) -> np.ndarray:
    """Integer topic labels, -1 for outliers, one per section."""
    t = np.asarray(topics)
    if t.ndim != 1 or t.shape[0] != n:
        raise ValueError(f"topics must be 1-D with one label per section ({n}); got shape {t.shape}")
    if t.dtype.kind == "f":
        if not np.isfinite(t).all() or not np.all(t == np.round(t)):
            raise ValueError("topics must be integer labels (-1 for outliers); got non-integer values")
    elif t.dtype.kind not in "iub":
        raise ValueError(f"topics must be integer labels (-1 for outliers); got dtype {t.dtype}")
    t = t.astype(np.int64)
    if (t < -1).any():
        raise ValueError(f"topics must be >= -1 (-1 marks outliers); got {int(t.min())}")
    real = np.unique(t[t >= 0])
    if real.size < 2:
        raise ValueError(
            f"FoldBuilder needs at least 2 non-outlier topics (label -1 marks outliers); got {real.size}: "
            f"{real.tolist()}; lower the topic model's min_cluster_size, add documents, or split whole documents "
            "instead (few_topics='documents'; in a build: folds.few_topics = \"documents\")"
        )
    return t


def encode_groups(name: str, values: Any, n: int) -> tuple[np.ndarray, list[Any]]:
    """Group ids → (codes 0..G-1 per section, the distinct ids in code order), ids sorted when possible."""
    v = np.asarray(values, dtype=object) if not isinstance(values, np.ndarray) else values
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(f"{name} must be 1-D with one id per section ({n}); got shape {v.shape}")
    if v.dtype == object and any(x is None for x in v):
        raise ValueError(f"{name} must not contain None; give every section a {name[:-1]} id")
    try:
        uniques, codes = np.unique(v, return_inverse=True)
        return codes.astype(np.int64).reshape(-1), uniques.tolist()
    except TypeError:  # mixed, unorderable ids: code by first appearance
        index: dict[Any, int] = {}
        codes = np.fromiter((index.setdefault(x, len(index)) for x in v.tolist()), dtype=np.int64, count=n)
        return codes, list(index)
