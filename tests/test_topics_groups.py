"""topics.by_language: each language clustered on its own (GroupedClusterer)."""

from __future__ import annotations

import numpy as np

from qagen.topics.components import GroupedClusterer


def _params(n: int) -> dict:
    return {"clusterer": "hdbscan", "min_cluster_size": 5, "min_samples": None, "n_clusters": 2}


def test_no_topic_mixes_two_groups_and_each_group_gets_its_own_topics():
    rng = np.random.default_rng(0)
    # two languages whose sections sit in the same places of the space: one clusterer would mix them
    centers = np.array([[0.0, 0.0], [10.0, 0.0]])
    x = np.vstack([centers[i % 2] + rng.normal(scale=0.3, size=2) for i in range(80)])
    groups = np.array(["it"] * 40 + ["nl"] * 40)
    labels = GroupedClusterer(groups, _params, seed=0).fit(x).labels_
    for t in set(labels.tolist()) - {-1}:
        assert len(set(groups[labels == t].tolist())) == 1, t
    assert len(set(labels[groups == "it"].tolist()) - {-1}) == 2
    assert len(set(labels[groups == "nl"].tolist()) - {-1}) == 2


def test_a_small_language_is_one_topic_and_a_tiny_one_is_pooled():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(70, 2))
    x[:50] = np.repeat([[0.0, 0.0], [9.0, 9.0]], 25, axis=0) + rng.normal(scale=0.2, size=(50, 2))
    groups = np.array(["it"] * 50 + ["pt"] * 16 + ["en"] * 4)
    clusterer = GroupedClusterer(groups, lambda n: {**_params(n), "min_cluster_size": 12}, seed=0)
    assert set(clusterer.pooled()[66:].tolist()) == {"other"}  # 4 sections: pooled with the other small ones
    labels = clusterer.fit(x).labels_
    pt = set(labels[50:66].tolist())
    assert len(pt) == 1 and pt != {-1}  # scattered, too few for a cluster: one topic, not noise


def test_a_dominant_topic_of_a_language_is_clustered_again_on_its_own():
    """HDBSCAN keeps three close sub-topics as one when a far cluster is fitted with them: the language
    then has one topic holding 90 % of it and cannot be split between the folds."""
    from hdbscan import HDBSCAN

    from qagen.topics.components import split_dominant

    rng = np.random.default_rng(0)
    close = [rng.normal(c, 0.3, (60, 5)) for c in ([0, 0, 0, 0, 0], [2, 0, 0, 0, 0], [0, 2, 0, 0, 0])]
    x = np.vstack([*close, rng.normal([40, 40, 0, 0, 0], 0.3, (20, 5))])
    params = {**_params(200), "min_cluster_size": 15}
    once = HDBSCAN(min_cluster_size=15).fit(x).labels_
    assert sorted(np.bincount(once[once >= 0]).tolist()) == [20, 180]  # what one fit gives
    labels = split_dominant(x, once, params, seed=0)
    sizes = sorted(np.bincount(labels[labels >= 0]).tolist(), reverse=True)
    assert len(sizes) >= 4 and sizes[0] < 0.6 * sum(sizes)  # the 180 split up, the 20 kept
    assert (labels[once == -1] == -1).all() and (labels[once >= 0] >= 0).all()  # no section lost to outliers
    blob = labels[180:]
    assert len(set(blob.tolist())) == 1  # the far cluster untouched
    grouped = GroupedClusterer(np.array(["it"] * 200), lambda n: params, seed=0)  # one group alone: same path
    assert grouped.pooled().tolist() == ["it"] * 200
    kmeans = {**params, "clusterer": "kmeans"}
    assert (split_dominant(x, once, kmeans, seed=0) == once).all()  # k-means: left as fitted
