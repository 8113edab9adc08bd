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
