"""The reducer and clusterer BERTopic runs, their effective parameters, and the two steps without BERTopic.

:func:`fit_topics` hands these components to BERTopic; the sweep and the robustness refit call
:func:`reduce_and_cluster` directly (no c-TF-IDF needed), so both paths reduce and cluster with
the same objects, parameters and seed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from qagen.config import TopicsConfig

MIN_SECTIONS = 5  # UMAP needs n_neighbors >= 2 < n; HDBSCAN needs room for 2 clusters of 2
SMALL_CORPUS_DIVISOR = 20  # auto_scale: min_cluster_size <= n / 20, so a small corpus can still form several topics
SMALL_CORPUS_FLOOR = 3  # ... but never below 3 sections (unless configured lower)


def effective_params(n: int, dim: int, config: TopicsConfig) -> dict[str, Any]:
    """The parameters actually used for ``n`` sections of ``dim`` dimensions.

    Limits that keep the algorithms valid always apply (n_neighbors < n, n_components < n - 1
    and <= dim, n_clusters <= n). With ``auto_scale``, ``min_cluster_size`` is also capped at
    ``n // 20`` (never below 3), so the paper's 30 becomes 8 for 170 sections and is unchanged
    from 600 sections up. (On the 169 sections of examples/docs, n // 8 = 21 gave only 2
    topics with either embedder; 8 gives 3–4 with few outliers.)
    """
    if n < MIN_SECTIONS:
        raise ValueError(f"topics need at least {MIN_SECTIONS} sections to cluster; got {n} (add documents)")
    mcs = config.min_cluster_size
    if config.auto_scale:
        mcs = min(mcs, max(SMALL_CORPUS_FLOOR, n // SMALL_CORPUS_DIVISOR))
    min_samples = config.min_samples
    if min_samples is not None:
        min_samples = min(min_samples, n - 1)
    return {
        "reducer": config.reducer,
        "clusterer": config.clusterer,
        # UMAP's spectral initialisation needs n_components < n - 1; PCA needs <= dim.
        "n_components": max(2, min(config.n_components, n - 2, dim)),
        "n_neighbors": max(2, min(config.n_neighbors, n - 1)),
        "min_cluster_size": mcs,
        "min_samples": min_samples,
        "n_clusters": min(config.n_clusters, n),
        "n_sections": n,
    }


def build_reducer(params: dict[str, Any], seed: int) -> Any:
    """UMAP (BERTopic's settings: cosine, min_dist 0) or PCA, seeded."""
    if params["reducer"] == "umap":
        from umap import UMAP

        cache_jit("umap", "pynndescent")
        return UMAP(
            n_components=params["n_components"],
            n_neighbors=params["n_neighbors"],
            min_dist=0.0,
            metric="cosine",
            random_state=seed,
            n_jobs=1,  # a random_state forces one thread anyway; saying so avoids UMAP's warning
        )
    from sklearn.decomposition import PCA

    return PCA(n_components=params["n_components"], random_state=seed)


_CACHED: set[str] = set()


def cache_jit(*packages: str) -> int:
    """Let numba cache the compiled functions of ``packages`` on disk; return how many it enabled.

    UMAP compiles about a hundred numba functions in every process and marks few of them
    ``cache=True``: on a small corpus that compilation is most of the topics stage (10 s of a
    0.2 s fit on the 169 sections of examples/docs). Caching them makes the compiled code
    outlive the process: the first build compiles and writes it (next to the package's code,
    or numba's user cache folder where that is read-only), later builds load it. Results are the
    same machine code, so the same numbers. Packages already loaded are scanned once; anything
    unexpected in numba's internals leaves caching off, never the build.
    """
    import sys

    enabled = 0
    try:
        from numba.core.caching import NullCache
        from numba.core.dispatcher import Dispatcher
    except ImportError:
        return 0
    for name, module in list(sys.modules.items()):
        if name in _CACHED or module is None or not name.startswith(tuple(p + "." for p in packages) + packages):
            continue
        _CACHED.add(name)
        for value in list(vars(module).values()):
            if isinstance(value, Dispatcher) and isinstance(getattr(value, "_cache", None), NullCache):
                try:
                    value.enable_caching()
                    enabled += 1
                except Exception:  # a function numba cannot cache (e.g. a closure): compiled as before
                    continue
    return enabled


def build_clusterer(params: dict[str, Any], seed: int) -> Any:
    """HDBSCAN (outliers are -1) or k-means (no outliers), seeded."""
    if params["clusterer"] == "hdbscan":
        from hdbscan import HDBSCAN

        return HDBSCAN(
            min_cluster_size=params["min_cluster_size"],
            min_samples=params["min_samples"],
            metric="euclidean",
            cluster_selection_method="eom",
            prediction_data=False,
        )
    from sklearn.cluster import KMeans

    return KMeans(n_clusters=params["n_clusters"], n_init=4, random_state=seed)


class GroupedClusterer:
    """A clusterer per group of rows (a language), labels joined: no topic mixes two groups.

    BERTopic calls ``fit`` on the reduced embeddings and reads ``labels_``. Each group is
    clustered with the parameters ``params_for(its size)``; a group smaller than ``min_rows``
    is pooled with the other small ones. Without this, a corpus in several languages embedded
    by a monolingual model clusters into one topic per language.
    """

    def __init__(self, groups: Any, params_for: Any, seed: int, min_rows: int = 2 * MIN_SECTIONS) -> None:
        self.groups = np.asarray(groups, dtype=object)
        self.params_for = params_for
        self.seed = seed
        self.min_rows = min_rows

    def pooled(self) -> np.ndarray:
        """The groups as clustered: small groups pooled into one ("other")."""
        values, counts = np.unique(self.groups.astype(str), return_counts=True)
        small = set(values[counts < self.min_rows].tolist())
        return np.array(["other" if str(g) in small else str(g) for g in self.groups], dtype=object)

    def fit(self, x: np.ndarray, y: Any = None) -> GroupedClusterer:
        x = np.asarray(x)
        groups = self.pooled()
        labels = np.full(x.shape[0], -1, dtype=np.int64)
        offset = 0
        for g in sorted(set(groups.tolist())):
            rows = np.flatnonzero(groups == g)
            if rows.size < MIN_SECTIONS:
                continue  # too few to cluster: outliers
            params = self.params_for(rows.size)
            model = build_clusterer(params, self.seed)
            model.fit(x[rows])
            sub = split_dominant(x[rows], sort_by_size(np.asarray(model.labels_)), params, self.seed)
            if not (sub >= 0).any():
                sub = np.zeros(rows.size, dtype=np.int64)  # a few sections in one language: one topic, not noise
            labels[rows] = np.where(sub >= 0, sub + offset, -1)
            offset += int(sub.max()) + 1 if (sub >= 0).any() else 0
        self.labels_ = labels
        return self

    def fit_predict(self, x: np.ndarray, y: Any = None) -> np.ndarray:
        return self.fit(x, y).labels_


# A language whose largest topic holds more than this share of its clustered sections has that topic
# clustered again on its own: HDBSCAN's excess of mass keeps a parent cluster over its children
# when they sit close together, and a language with one dominant topic cannot be split between the
# folds (on the multilingual corpus, 268 of 301 Italian sections fell in one topic).
DOMINANT_SHARE = 0.6


def split_dominant(x: np.ndarray, labels: np.ndarray, params: dict[str, Any], seed: int) -> np.ndarray:
    """``labels`` with a dominant HDBSCAN cluster replaced by the clusters found inside it.

    The part of it HDBSCAN leaves unclustered keeps the old topic (a remainder, not outliers);
    labels come back renumbered by size. Unchanged for k-means, when no cluster dominates, when
    the cluster is under four times ``min_cluster_size``, or when nothing splits it.
    """
    clustered = labels >= 0
    if params["clusterer"] != "hdbscan" or not clustered.any():
        return labels
    counts = np.bincount(labels[clustered])
    big = int(counts.argmax())
    if counts[big] <= DOMINANT_SHARE * clustered.sum() or counts[big] < 4 * params["min_cluster_size"]:
        return labels
    inner = np.flatnonzero(labels == big)
    model = build_clusterer(params, seed)
    model.fit(x[inner])
    parts = sort_by_size(np.asarray(model.labels_))
    if parts.max() < 1:
        return labels  # one cluster inside, or none: nothing to split
    out = labels.copy()
    next_label = int(labels.max()) + 1
    for part in range(1, int(parts.max()) + 1):  # part 0 (the largest) and the remainder keep the old label
        out[inner[parts == part]] = next_label
        next_label += 1
    return sort_by_size(out)


def reduce(embeddings: np.ndarray, params: dict[str, Any], seed: int) -> np.ndarray:
    """The reduced embeddings (sections x n_components)."""
    return np.asarray(build_reducer(params, seed).fit_transform(embeddings), dtype=np.float32)


def cluster(reduced: np.ndarray, params: dict[str, Any], seed: int) -> np.ndarray:
    """Cluster labels, renumbered by size like BERTopic does (0 = largest; -1 = outlier)."""
    model = build_clusterer(params, seed)
    model.fit(reduced)
    return sort_by_size(np.asarray(model.labels_))


def reduce_and_cluster(embeddings: np.ndarray, params: dict[str, Any], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(reduced embeddings, labels) for one parameter setting."""
    reduced = reduce(embeddings, params, seed)
    return reduced, cluster(reduced, params, seed)


def sort_by_size(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0, 1, ... by decreasing cluster size (ties: old label); -1 stays -1."""
    labels = np.asarray(labels, dtype=np.int64)
    ids, counts = np.unique(labels[labels >= 0], return_counts=True)
    order = sorted(zip(ids.tolist(), counts.tolist(), strict=True), key=lambda p: (-p[1], p[0]))
    mapping = {old: new for new, (old, _) in enumerate(order)}
    return np.array([mapping.get(int(x), -1) for x in labels], dtype=np.int64)


def add_noise(embeddings: np.ndarray, scale: float, seed: int) -> np.ndarray:
    """Embeddings plus Gaussian noise of ``scale`` x each dimension's standard deviation."""
    rng = np.random.default_rng(seed)
    std = embeddings.std(axis=0, keepdims=True)
    return (embeddings + rng.standard_normal(embeddings.shape) * (scale * std)).astype(np.float32)
