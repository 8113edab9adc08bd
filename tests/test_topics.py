"""Topics through BERTopic with the fast PCA + k-means stand-in, the quality metrics, and the sweep."""

from __future__ import annotations

import json

import numpy as np
import pytest

from qagen.config import TopicsConfig
from qagen.embed import TfidfEmbedder
from qagen.records import Topic
from qagen.topics import (
    cluster_metrics,
    cluster_retention,
    document_agreement,
    effective_params,
    fit_topics,
    format_table,
    parse_grid,
    recommend,
    robustness,
    run_sweep,
    save_model,
    shuffled_agreement,
    sweep,
)
from tests.support.topics_data import THEMES, corpus

FAST = TopicsConfig(reducer="pca", clusterer="kmeans", n_clusters=4, n_components=5)


@pytest.fixture(scope="module")
def data():
    texts, docs, themes = corpus()
    return texts, TfidfEmbedder(dims=32).embed(texts), docs, themes


@pytest.fixture(scope="module")
def fitted(data):
    texts, emb, docs, _ = data
    return fit_topics(texts, emb, docs, FAST, seed=0)


# --- metrics ----------------------------------------------------------------------------


def test_document_agreement_matches_the_paper_formula_by_hand():
    labels = [0, 0, 1, 1, 1, -1, 2]
    docs = ["a", "a", "a", "b", "b", "b", "c"]
    # a: max(2, 1)/3; b: 2/2 (the outlier is left out); c: 1/1.
    assert document_agreement(labels, docs) == pytest.approx((2 / 3 + 1 + 1) / 3 * 100)
    assert document_agreement(labels, docs, include_outliers=True) == pytest.approx((2 / 3 + 2 / 3 + 1) / 3 * 100)
    assert np.isnan(document_agreement([-1, -1], ["a", "b"]))
    with pytest.raises(ValueError, match="same length"):
        document_agreement([0, 1], ["a"])


def test_shuffled_baseline_is_below_document_aligned_topics():
    docs = [d for d in "abcdefgh" for _ in range(10)]
    aligned = [ord(d) % 4 for d in docs]  # every document inside one topic
    assert document_agreement(aligned, docs) == 100.0
    assert shuffled_agreement(aligned, docs, seed=0) < 60.0
    assert shuffled_agreement(aligned, docs, seed=0) == shuffled_agreement(aligned, docs, seed=0)


def test_cluster_retention_matches_clusters_one_to_one():
    a = np.array([0, 0, 0, 1, 1, 1, 2, 2, -1])
    assert cluster_retention(a, np.array([5, 5, 5, 3, 3, 3, 9, 9, 9])) == 1.0  # renamed clusters
    merged = np.array([0, 0, 0, 0, 0, 0, 2, 2, -1])  # two clusters merged: one of them lost
    assert cluster_retention(a, merged) == pytest.approx(5 / 8)
    assert cluster_retention(a, np.array([-1] * 9)) == 0.0
    assert np.isnan(cluster_retention(np.array([-1, -1]), np.array([0, 0])))


def test_cluster_metrics_are_complete_and_json_ready():
    rng = np.random.default_rng(0)
    centers = np.array([[0, 0], [10, 0], [0, 10]])
    reduced = np.concatenate([c + rng.normal(size=(20, 2)) for c in centers])
    labels = np.repeat([0, 1, 2], 20)
    labels[:3] = -1
    docs = [f"d{i // 10}" for i in range(60)]
    m = cluster_metrics(reduced, labels, docs)
    json.dumps(m, allow_nan=False)
    assert (m["n_topics"], m["n_outliers"], m["size_min"], m["size_max"]) == (3, 3, 17, 20)
    assert m["outlier_pct"] == pytest.approx(5.0)
    assert m["silhouette"] > 0.7 and m["davies_bouldin"] < 0.5 and m["calinski_harabasz"] > 100
    assert m["dc"] == 100.0 and m["dc_lift"] == pytest.approx(m["dc"] - m["dc_shuffled"])
    one = cluster_metrics(reduced, np.zeros(60, dtype=int), docs)
    assert one["silhouette"] is None and one["n_topics"] == 1


def test_robustness_of_stable_clusters_is_high(data):
    _, emb, _, themes = data
    labels = np.array([list(THEMES).index(t) for t in themes])
    r = robustness(emb, labels, FAST.model_copy(update={"robustness_noise": 0.1}), seed=0)
    assert r["robustness"] == 1.0 and r["robustness_ari"] == 1.0


# --- parameters -------------------------------------------------------------------------


def test_small_corpora_are_scaled_down():
    paper = TopicsConfig()
    assert effective_params(40, 384, paper)["min_cluster_size"] == 3
    assert effective_params(169, 384, paper)["min_cluster_size"] == 8
    assert effective_params(169, 384, paper.model_copy(update={"min_cluster_size": 2}))["min_cluster_size"] == 2
    assert effective_params(13_216, 384, paper)["min_cluster_size"] == 30
    assert effective_params(13_216, 384, paper.model_copy(update={"auto_scale": False}))["min_cluster_size"] == 30
    tiny = effective_params(10, 384, paper.model_copy(update={"auto_scale": False}))
    assert (tiny["n_neighbors"], tiny["n_components"], tiny["min_cluster_size"]) == (9, 8, 30)
    assert effective_params(100, 4, paper)["n_components"] == 4
    with pytest.raises(ValueError, match="at least 5 sections"):
        effective_params(4, 384, paper)


# --- fit_topics -------------------------------------------------------------------------


def test_fit_finds_the_planted_topics(data, fitted):
    themes = data[3]
    assert len(fitted.topics) == 4 and all(isinstance(t, Topic) for t in fitted.topics)
    assert [t.id for t in fitted.topics] == [0, 1, 2, 3]
    for topic in fitted.topics:
        members = {themes[i] for i in np.flatnonzero(fitted.labels == topic.id)}
        assert len(members) == 1  # each topic is one planted theme
        theme = members.pop()
        assert set(topic.keywords[:3]) <= set(THEMES[theme].split())
        assert topic.label == ", ".join(topic.keywords[:3])
        assert topic.n_documents == 3 and topic.size == 20
    assert fitted.metrics["dc"] == 100.0 > fitted.metrics["dc_shuffled"]


def test_result_shapes_and_centroids(fitted):
    assert fitted.labels.shape == (80,) and fitted.reduced.shape == (80, 5)
    for topic in fitted.topics:
        np.testing.assert_allclose(topic.centroid, fitted.reduced[fitted.labels == topic.id].mean(axis=0), rtol=1e-5)
    assert fitted.params["n_components"] == 5 and fitted.params["seed"] == 0
    json.dumps(fitted.metrics, allow_nan=False)
    json.dumps(fitted.params, allow_nan=False)
    assert {"robustness", "robustness_ari", "silhouette", "dc", "n_topics"} <= set(fitted.metrics)
    assert fitted.model is not None and fitted.model.embedding_model is None  # BERTopic never picked a model


def test_same_seed_same_topics(data, fitted):
    texts, emb, docs, _ = data
    again = fit_topics(texts, emb, docs, FAST, seed=0)
    np.testing.assert_array_equal(again.labels, fitted.labels)
    np.testing.assert_array_equal(again.reduced, fitted.reduced)
    assert again.topics == fitted.topics
    assert again.metrics == fitted.metrics  # no timings: topics.json is byte-identical across runs


def test_bad_inputs_are_named(data):
    texts, emb, docs, _ = data
    with pytest.raises(ValueError, match="one entry per section; got 80, 79 and 80"):
        fit_topics(texts, emb[:-1], docs, FAST)
    bad = emb.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fit_topics(texts, bad, docs, FAST)


def test_model_can_be_saved_and_inspected(fitted, tmp_path):
    from bertopic import BERTopic

    folder = save_model(fitted, tmp_path / "model")
    loaded = BERTopic.load(str(folder))
    assert [w for w, _ in loaded.get_topic(0)][:3] == list(fitted.topics[0].keywords[:3])


# --- sweep ------------------------------------------------------------------------------


def test_sweep_rows_equal_single_fits(data, fitted):
    texts, emb, docs, _ = data
    rows = sweep(texts, emb, docs, {"n_components": [2, 5], "n_clusters": [3, 4]}, FAST, seed=0)
    assert [(r["n_components"], r["n_clusters"]) for r in rows] == [(2, 3), (2, 4), (5, 3), (5, 4)]
    same = rows[3]
    for key, value in fitted.metrics.items():
        assert same[key] == pytest.approx(value), key
    assert rows[0]["reduce_s"] == rows[1]["reduce_s"]  # one reduction shared by both cluster counts
    json.dumps(rows, allow_nan=False)


def test_sweep_rejects_unknown_keys(data):
    texts, emb, docs, _ = data
    with pytest.raises(ValueError, match="sweep grid keys must be among"):
        sweep(texts, emb, docs, {"learning_rate": [1]}, FAST)
    with pytest.raises(ValueError, match="min_cluster_size"):
        sweep(texts, emb, docs, {"min_cluster_size": [0]}, FAST)


def _row(n_components, **metrics):
    base = {
        "n_topics": 5,
        "outlier_pct": 10.0,
        "silhouette": 0.5,
        "calinski_harabasz": 100.0,
        "davies_bouldin": 1.0,
        "robustness": 0.8,
        "dc_lift": 10.0,
    }
    return {"n_components": n_components, "params": {"n_components": n_components}, **base, **metrics}


def test_recommend_takes_the_best_mean_rank_among_eligible_settings():
    rows = [
        _row(5),
        _row(10, silhouette=0.6, robustness=0.9, dc_lift=20.0),  # best on three metrics
        _row(
            15, silhouette=0.9, davies_bouldin=0.2, robustness=0.95, dc_lift=30, outlier_pct=80.0
        ),  # too many outliers
        _row(20, n_topics=1, silhouette=None),
    ]
    best, rule = recommend(rows)
    assert best is rows[1]
    assert "n_components=10" in rule and "2 of 4 settings" in rule and "Davies–Bouldin ↓" in rule
    best, rule = recommend([rows[2], rows[3]])
    assert best is rows[2] and "none had <= 50% outliers" in rule
    best, rule = recommend([rows[3]])
    assert "no setting produced 2 or more topics" in rule


def test_table_and_command_text(data):
    texts, emb, docs, _ = data
    report = run_sweep(
        texts,
        emb,
        docs,
        ["n_components=3,5", "min_cluster_size=10,60"],
        FAST.model_copy(update={"clusterer": "hdbscan"}),
        seed=0,
    )
    assert len(report.rows) == 4
    # swept values run as asked; 60 leaves no room for 2 topics in 80 sections, so it does not run
    assert "60 | not run" in report.text and "leaves no room for 2 topics in 80 sections" in report.text
    assert " ★" in report.text and "Recommended" in report.text and "--set topics." in report.text
    assert report.to_json()["rows"][report.to_json()["recommended"]] is report.best
    table = format_table(report.rows)
    assert table.count("\n") == 5 and "DC shuffled" in table


def test_parse_grid():
    assert parse_grid(["n_components=5,10,15", "topics.min_cluster_size=10,20,10"]) == {
        "n_components": [5, 10, 15],
        "min_cluster_size": [10, 20],
    }
    for bad in (["n_components"], ["alpha=1"], ["n_components=a,b"], ["n_components="], []):
        with pytest.raises(ValueError, match="--sweep"):
            parse_grid(bad)


def test_keywords_keep_accented_and_non_latin_words():
    rng = np.random.default_rng(1)
    vocab = [["crème", "brûlée", "café", "pâtisserie", "gâteau"], ["straße", "größe", "übung", "mädchen", "grüße"]]
    texts = [" ".join(rng.choice(vocab[i % 2], 8)) for i in range(20)]
    emb = TfidfEmbedder(dims=8).embed(texts)
    result = fit_topics(texts, emb, [f"d{i % 4}" for i in range(20)], FAST.model_copy(update={"n_clusters": 2}))
    keywords = {w for t in result.topics for w in t.keywords}
    assert {"brûlée", "straße"} <= keywords


def test_texts_without_words_are_refused(data):
    _, emb, docs, _ = data
    with pytest.raises(ValueError, match="has a word to describe topics"):
        fit_topics(["!!"] * 80, emb, docs, FAST)


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("de", "die Tasten der Maschine und das Wasser mit dem Filter"),
        ("fr", "les boutons de la machine et le filtre avec une tasse"),
        ("es", "los botones de la máquina y el filtro con una taza"),
        ("it", "i tasti della macchina e il filtro con una tazza"),
        ("pt", "os botões da máquina e o filtro com uma chávena"),
        ("nl", "de knoppen van het apparaat en het filter met een kopje"),
    ],
)
def test_topic_keywords_leave_out_the_documents_stop_words(language, sentence):
    rng = np.random.default_rng(2)
    words = sentence.split()
    other = ["router", "wifi", "network", "password", "cable", "modem"]
    texts = [" ".join(rng.choice(words if i % 2 else other, 12)) for i in range(24)]
    emb = TfidfEmbedder(dims=8).embed(texts)
    config = FAST.model_copy(update={"n_clusters": 2})
    stop = {"de": "die der das dem und mit", "fr": "les de la le et avec une", "es": "los de la el y con una"}
    stop |= {"it": "i della e il con una", "pt": "os da e o com uma", "nl": "de van het en met een"}
    keywords = {
        w
        for t in fit_topics(texts, emb, [f"d{i % 4}" for i in range(24)], config, languages=[language]).topics
        for w in t.keywords
    }
    assert keywords and not keywords & set(stop[language].split()), keywords
    english_only = fit_topics(
        texts, emb, [f"d{i % 4}" for i in range(24)], config.model_copy(update={"stop_words": "english"})
    )
    assert {w for t in english_only.topics for w in t.keywords} & set(stop[language].split())


def test_left_out_sections_take_their_documents_nearest_topic(data, fitted):
    # An index names every topic: fitted, it would pull topics together. Left out of the fit, each
    # takes the topic of the most similar fitted section of its own document; the topics are the
    # ones the content alone gives.
    texts, emb, docs, themes = data
    index = " ".join(w for words in THEMES.values() for w in words.split()[:3]) + " and the of with"
    extra_docs = ["cats-doc0", "space-doc2", "baking-doc1", "orphan-doc"]
    all_texts = [*texts, *[index] * len(extra_docs)]
    all_docs = [*docs, *extra_docs]
    all_emb = TfidfEmbedder(dims=32).embed(all_texts)
    fit = [True] * len(texts) + [False] * len(extra_docs)
    result = fit_topics(all_texts, all_emb, all_docs, FAST, seed=0, fit=fit)
    alone = fit_topics(texts, all_emb[: len(texts)], docs, FAST, seed=0)
    np.testing.assert_array_equal(result.labels[: len(texts)], alone.labels)
    assert result.topics == alone.topics and result.metrics["left_out_sections"] == 4
    theme_topic = {themes[i]: int(alone.labels[i]) for i in range(len(texts))}
    assert result.labels[len(texts) :].tolist() == [
        theme_topic["cats"],
        theme_topic["space"],
        theme_topic["baking"],
        -1,
    ]
    assert result.reduced.shape == (len(all_texts), 5) and np.isfinite(result.reduced).all()
    # fewer than 5 sections to fit: all are fitted
    few = fit_topics(texts, emb, docs, FAST, seed=0, fit=[i < 4 for i in range(len(texts))])
    np.testing.assert_array_equal(few.labels, fitted.labels)
