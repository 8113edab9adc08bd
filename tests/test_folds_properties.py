"""Property tests of FoldBuilder's invariants across many seeds and shapes (hypothesis)."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from qagen.folds import FoldBuilder

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # informational notes, not invariants

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def corpora(draw):
    """Random sections: topic clusters, some outliers, units that mostly hold one topic."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_topics = draw(st.integers(2, 9))
    n = draw(st.integers(3 * n_topics, 180))
    dims = draw(st.integers(1, 5))
    outlier_share = draw(st.sampled_from([0.0, 0.1, 0.4]))
    mix = draw(st.sampled_from([0.0, 0.05, 0.3]))
    unit_size = draw(st.integers(1, 12))
    string_units = draw(st.booleans())
    rng = np.random.default_rng(seed)
    topics = np.concatenate([np.arange(n_topics), rng.integers(0, n_topics, n - n_topics)])
    topics = np.sort(topics)
    centers = rng.normal(scale=3.0, size=(n_topics, dims))
    x = centers[topics] + rng.normal(scale=0.3, size=(n, dims))
    outlier = rng.random(n) < outlier_share
    outlier[np.unique(topics, return_index=True)[1]] = False  # every topic keeps a section
    topics = np.where(outlier, -1, topics * 3 + 1)  # non-contiguous labels
    units = np.arange(n) // unit_size
    moved = rng.random(n) < mix
    units[moved] = rng.integers(0, units.max() + 1, int(moved.sum()))
    units = np.array([f"u{u}" for u in units]) if string_units else units
    docs = units // 3 if not string_units else None
    return x, topics, units, docs


@st.composite
def params(draw):
    sampling = draw(st.sampled_from(["total", "per_fold", "none"]))
    return {
        "distance": draw(st.sampled_from(["auto", ["euclidean"], ["cosine"]])),
        "linkage": draw(st.sampled_from(["auto", ["single"], ["average", "complete"], ["ward", "average"]])),
        "unit": draw(st.sampled_from(["page", "document"])),
        "test_size": draw(st.floats(0.05, 0.9)),
        "min_fold_ratio": draw(st.sampled_from([0.0, 0.0, 0.2, 0.5])),
        "samples_total": draw(st.integers(1, 120)) if sampling == "total" else None,
        "samples_per_fold": draw(st.integers(1, 60)) if sampling == "per_fold" else None,
        "sample_test_share": draw(st.sampled_from([None, None, 0.2, 0.5, 1.0])),
        "max_clusters": draw(st.integers(2, 6)),
        "seed": draw(st.integers(0, 1000)),
        "criterion": draw(st.sampled_from(["score", "separation"])),
    }


def _fit(data, p):
    x, topics, units, docs = data
    if p["distance"] == ["cosine"] and p["linkage"] == ["ward", "average"]:
        p = {**p, "linkage": ["average"]}
    fb = FoldBuilder(**p)
    try:
        fb.fit(x, topics, units, docs=docs)
    except ValueError as exc:
        # with two or more topics the only failure left: every split empties a fold (all units mixed)
        assert "no fold candidate meets min_fold_ratio" in str(exc)
        assert all(c["status"] == "skipped" or c["sections"][1] == 0 for c in fb.candidates_)
        event("every split empties a fold")
        return None
    if fb.metrics_["small_fold_ratio"] < p["min_fold_ratio"] and not fb.chosen_.get("reason"):
        # only placing outliers can take a split that met the floor below it
        event("placed outliers below min_fold_ratio, warned")
        assert fb.metrics_["n_outliers_assigned"] > 0
        assert any(w.startswith("placing outliers left the folds below min_fold_ratio=") for w in fb.warnings_)
    elif fb.metrics_["small_fold_ratio"] < p["min_fold_ratio"]:
        event("below min_fold_ratio, warned")
        assert any(w.startswith(f"no split meets min_fold_ratio={p['min_fold_ratio']:g}") for w in fb.warnings_)
        assert fb.chosen_["reason"].startswith("below min_fold_ratio")
    return fb


def _groups(keys, values):
    out = defaultdict(set)
    for k, v in zip(keys, values, strict=True):
        out[k].add(v)
    return out


def _assert_units_whole(fb: FoldBuilder, units: np.ndarray) -> None:
    """No unit's kept sections are in two folds or two splits."""
    kept = fb.status_ == "kept"
    assert all(len(v) == 1 for v in _groups(units[kept].tolist(), fb.fold_[kept].tolist()).values())
    assert all(len(v) == 1 for v in _groups(units[kept].tolist(), fb.split_[kept].tolist()).values())


@SETTINGS
@given(corpora(), params())
def test_folds_are_topic_disjoint_and_units_never_straddle(data, p):
    fb = _fit(data, p)
    if fb is None:
        return
    _, topics, units, _ = data
    units = np.asarray(units)
    kept = fb.status_ == "kept"
    # every non-outlier topic is in exactly one fold, and its kept sections follow it
    assert set(fb.topic_folds_) == set(np.unique(topics[topics >= 0]).tolist())
    assert set(fb.topic_folds_.values()) == {1, 2}
    assert all(fb.fold_[i] == fb.topic_folds_[int(topics[i])] for i in np.flatnonzero(kept))
    assert ((fb.status_ == "outlier") == (topics == -1)).all()
    # conflicts are exactly the units holding non-outlier sections of both topic folds
    topic_fold = [fb.topic_folds_.get(int(t), 0) for t in topics]
    mixed = {u for u, fs in _groups(units.tolist(), topic_fold).items() if {1, 2} <= fs}
    assert mixed == set(fb.conflict_units_)
    removed = np.isin(units, list(mixed))
    assert not (kept & removed).any() and not fb.sampled_[removed].any()
    assert (fb.fold_[~kept] == -1).all() and all(s is None for s in fb.split_[~kept])
    # no unit in two folds or two splits
    _assert_units_whole(fb, units)
    assert set(fb.split_[kept]) <= {"validation", "test"}
    for f in (1, 2):
        n_units = len(set(units[kept & (fb.fold_ == f)].tolist()))
        if n_units >= 2:
            assert set(fb.split_[kept & (fb.fold_ == f)]) == {"validation", "test"}
    # fold 1 is the larger one; the balance floor holds
    sizes = [int((fb.fold_ == f).sum()) for f in (1, 2)]
    assert sizes[0] >= sizes[1] > 0
    assert fb.metrics_["small_fold_ratio"] >= p["min_fold_ratio"] or fb.chosen_.get("reason")
    arrays = (fb.fold_.tolist(), fb.split_.tolist(), fb.status_.tolist(), fb.sampled_.tolist())
    assert fb.assignments_ == [(None if f < 0 else f, s, st_, sm) for f, s, st_, sm in zip(*arrays, strict=True)]
    json.dumps({"m": fb.metrics_, "c": fb.candidates_, "ch": fb.chosen_}, allow_nan=False)


@SETTINGS
@given(corpora(), params())
def test_sample_is_stratified_inside_folds_and_splits(data, p):
    fb = _fit(data, p)
    if fb is None:
        return
    topics = data[1]
    kept = fb.status_ == "kept"
    assert not (fb.sampled_ & ~kept).any()
    sizes = np.array([int((fb.fold_ == f).sum()) for f in (1, 2)])
    per_fold = np.array([int((fb.sampled_ & (fb.fold_ == f)).sum()) for f in (1, 2)])
    if p["samples_total"] is not None:
        assert per_fold.sum() == min(p["samples_total"], sizes.sum())
        assert (np.abs(per_fold * sizes.sum() - per_fold.sum() * sizes) < sizes.sum()).all()
    elif p["samples_per_fold"] is not None:
        assert (per_fold == np.minimum(sizes, p["samples_per_fold"])).all()
    else:
        assert (fb.sampled_ == kept).all()
    for f in (1, 2):
        for s in ("validation", "test"):
            cell = kept & (fb.fold_ == f) & (fb.split_ == s)
            n_cell, n_picked = int(cell.sum()), int((cell & fb.sampled_).sum())
            present = np.unique(topics[cell])
            rest, pool = n_picked - present.size, n_cell - present.size
            for t in present:
                size_t = int((cell & (topics == t)).sum())
                got = int((cell & fb.sampled_ & (topics == t)).sum())
                if rest >= 0:  # every topic covered, the rest shared in proportion to what is left of each
                    assert got >= 1 and abs((got - 1) * pool - rest * (size_t - 1)) < max(pool, 1), (f, s, t)
                else:  # fewer picks than topics: one each for the largest
                    assert got <= 1, (f, s, t, got)


@settings(max_examples=40, deadline=None)
@given(corpora(), params())
def test_same_seed_same_result(data, p):
    first = _fit(data, p)
    if first is None:
        return
    again = _fit(data, dict(p))
    assert again.assignments_ == first.assignments_
    assert again.metrics_ == first.metrics_ and again.candidates_ == first.candidates_
    assert again.unit_splits_ == first.unit_splits_


@pytest.mark.parametrize("seed", range(3))
def test_other_seed_changes_only_split_and_sample(seed):
    rng = np.random.default_rng(seed)
    topics = np.repeat(np.arange(6), 40)
    x = np.repeat(rng.normal(scale=4, size=(6, 3)), 40, axis=0) + rng.normal(scale=0.2, size=(240, 3))
    units = np.arange(240) // 4
    a = FoldBuilder(samples_total=30, seed=1).fit(x, topics, units)
    b = FoldBuilder(samples_total=30, seed=2).fit(x, topics, units)
    assert a.topic_folds_ == b.topic_folds_ and a.candidates_ == b.candidates_
    assert (a.fold_ == b.fold_).all()
    assert a.unit_splits_ != b.unit_splits_ or (a.sampled_ != b.sampled_).any()


@st.composite
def clean_layouts(draw):
    """Up to 8 topics in random places, every unit holding one topic (no conflicts), random sizes."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_topics = draw(st.integers(2, 8))
    sizes = draw(st.lists(st.integers(1, 30), min_size=n_topics, max_size=n_topics))
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=draw(st.sampled_from([0.5, 3.0])), size=(n_topics, 3))
    topics = np.repeat(np.arange(n_topics), sizes)
    x = centers[topics] + rng.normal(scale=0.05, size=(topics.size, 3))
    return x, topics, np.arange(topics.size)  # one section per unit


@settings(max_examples=150, deadline=None)
@given(clean_layouts(), st.sampled_from([0.0, 0.1, 0.3, 0.6, 0.9]))
def test_separation_finds_the_widest_balanced_split(layout, min_ratio):
    """Against every bipartition of the topics: with no unit mixing two topics, criterion=separation
    keeps the folds exactly as far apart as the best split meeting the ratio allows."""
    from itertools import product

    from scipy.spatial.distance import cdist

    x, topics, units = layout
    fb = FoldBuilder(min_fold_ratio=min_ratio, criterion="separation").fit(x, topics, units)
    n = int(topics.max()) + 1
    centroids = np.array([x[topics == t].mean(axis=0) for t in range(n)])
    sizes = np.bincount(topics)
    best = None
    for bits in product([False, True], repeat=n - 1):
        side = np.array([True, *bits])
        if side.all():
            continue
        small, large = sorted([sizes[side].sum(), sizes[~side].sum()])
        if small / large >= min_ratio:
            gap = cdist(centroids[side], centroids[~side]).min()
            best = gap if best is None else max(best, gap)
    if best is None:  # no split meets the ratio: the most balanced one is kept, with a warning
        assert fb.chosen_["reason"].startswith("below min_fold_ratio")
        event("no split meets the ratio")
        return
    assert fb.metrics_["min_fold_distance"] == pytest.approx(best, rel=1e-9)
    assert fb.metrics_["small_fold_ratio"] >= min_ratio


@SETTINGS
@given(corpora(), params())
def test_assigned_outliers_join_their_units_fold_and_change_nothing_else(data, p):
    dropped = _fit(data, p)
    if dropped is None:
        return
    _, topics, units, _ = data
    fb = _fit(data, {**p, "outliers": "assign"})  # the same search, so it fits where the drop did
    units = np.asarray(units)
    assert fb.topic_folds_ == dropped.topic_folds_ and fb.conflict_units_ == dropped.conflict_units_
    topical = topics >= 0
    assert (fb.status_[topical] == dropped.status_[topical]).all()
    assert (fb.fold_[topical] == dropped.fold_[topical]).all()
    kept = fb.status_ == "kept"
    assigned = kept & ~topical
    assert fb.metrics_["n_outliers_assigned"] == int(assigned.sum())
    # a unit is still in one fold and one split, and a unit with a conflict keeps its outliers out
    _assert_units_whole(fb, units)
    assert not np.isin(units[assigned], fb.conflict_units_).any()
    # every outlier of a unit with kept sections joins that unit's fold
    unit_fold = dict(
        zip(units[dropped.status_ == "kept"].tolist(), dropped.fold_[dropped.status_ == "kept"].tolist(), strict=True)
    )
    for i in np.flatnonzero(~topical):
        if units[i].item() in unit_fold:
            assert fb.status_[i] == "kept" and fb.fold_[i] == unit_fold[units[i].item()]
    # with every section eligible, only outliers in conflict units stay out
    assert set(np.flatnonzero(fb.status_ == "outlier")) == set(
        np.flatnonzero(~topical & np.isin(units, fb.conflict_units_))
    )
