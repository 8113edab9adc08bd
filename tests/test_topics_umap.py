"""The real path: BERTopic with UMAP + HDBSCAN (numba compiles UMAP once per process: 10-45 s)."""

from __future__ import annotations

import numpy as np
import pytest

from qagen.config import TopicsConfig
from qagen.embed import TfidfEmbedder
from qagen.topics import fit_topics
from tests.support.topics_data import corpus

pytestmark = pytest.mark.slow


def test_umap_hdbscan_topics_are_deterministic_and_meaningful():
    texts, docs, themes = corpus()
    emb = TfidfEmbedder(dims=32).embed(texts)
    config = TopicsConfig(robustness_check=False)  # paper defaults, auto-scaled for 80 sections
    first = fit_topics(texts, emb, docs, config, seed=7)
    second = fit_topics(texts, emb, docs, config, seed=7)
    np.testing.assert_array_equal(first.labels, second.labels)
    np.testing.assert_array_equal(first.reduced, second.reduced)
    assert first.topics == second.topics
    assert first.params["min_cluster_size"] == 4 and first.params["n_components"] == 15
    assert len(first.topics) >= 2
    assert first.reduced.shape == (80, 15)
    # Every topic is drawn from one planted theme, and documents agree with topics far above chance.
    for topic in first.topics:
        assert len({themes[i] for i in np.flatnonzero(first.labels == topic.id)}) == 1
    assert first.metrics["dc"] > first.metrics["dc_shuffled"] + 30


def test_umap_compiles_once_and_reuses_the_compiled_code_from_disk(tmp_path, monkeypatch):
    import subprocess
    import sys

    from numba.core.caching import NullCache

    from qagen.topics.components import build_reducer, cache_jit

    build_reducer({"reducer": "umap", "n_components": 2, "n_neighbors": 5}, seed=1)
    import umap.umap_

    # UMAP marks few functions cache=True; after building a reducer its numba functions cache to disk
    assert not isinstance(umap.umap_.smooth_knn_dist._cache, NullCache)
    assert cache_jit("umap") == 0  # each module once
    # the same numbers from code loaded from a fresh cache folder as from code just compiled
    script = (
        "import numpy as np; from qagen.topics.components import build_reducer;"
        "x = np.random.default_rng(0).normal(size=(40, 8)).astype('float32');"
        "r = build_reducer({'reducer': 'umap', 'n_components': 2, 'n_neighbors': 5}, seed=1);"
        "print(repr(r.fit_transform(x).round(5).tolist()))"
    )
    env = {**__import__("os").environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    assert runs[0].stdout == runs[1].stdout and runs[0].stdout.startswith("[[")
    assert any(tmp_path.rglob("*umap_*.nbi"))  # UMAP's own functions were written to the cache
