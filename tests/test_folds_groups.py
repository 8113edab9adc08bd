"""FoldBuilder(groups=...): every language (group) in both folds."""

from __future__ import annotations

import numpy as np
import pytest

from qagen.folds import FoldBuilder

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _two_languages(seed: int = 0):
    """Six topics, three per language, each language far from the other (as TF-IDF embeds them)."""
    rng = np.random.default_rng(seed)
    centers = np.vstack([rng.normal(scale=2, size=(3, 4)), 40 + rng.normal(scale=2, size=(3, 4))])
    topics = np.repeat(np.arange(6), 30)
    x = centers[topics] + rng.normal(scale=0.2, size=(180, 4))
    language = np.where(topics < 3, "it", "nl")
    units = np.arange(180) // 3
    return x, topics, units, language


def test_without_groups_the_folds_follow_the_languages():
    x, topics, units, language = _two_languages()
    fb = FoldBuilder(min_fold_ratio=0.3).fit(x, topics, units)
    per_fold = {f: set(language[fb.fold_ == f]) for f in (1, 2)}
    assert per_fold == {1: {"it"}, 2: {"nl"}} or per_fold == {1: {"nl"}, 2: {"it"}}


def test_with_groups_every_language_is_in_both_folds():
    x, topics, units, language = _two_languages()
    fb = FoldBuilder(min_fold_ratio=0.3).fit(x, topics, units, groups=language)
    for lang in ("it", "nl"):
        assert {int(f) for f in fb.fold_[(language == lang) & (fb.status_ == "kept")]} == {1, 2}, lang
    assert fb.metrics_["small_fold_ratio"] >= 0.3 and fb.chosen_["linkage"] == "per-group"
    # the folds stay topic-disjoint, and each group's own split is listed with its group
    assert all(fb.fold_[i] == fb.topic_folds_[int(t)] for i, t in enumerate(topics) if fb.status_[i] == "kept")
    assert {c.get("group") for c in fb.candidates_} >= {"it", "nl"}
    assert [c["status"] for c in fb.candidates_].count("chosen") == 1


def test_a_language_with_one_topic_goes_to_the_smaller_fold_with_a_note():
    x, topics, units, language = _two_languages()
    language = np.where(topics == 5, "pt", language)  # Portuguese: one topic
    fb = FoldBuilder(min_fold_ratio=0.0).fit(x, topics, units, groups=language)
    assert any(w.startswith("groups: pt: one topic; all its 30 sections in fold") for w in fb.warnings_)
    assert fb.whole_groups_ == {"pt": "one topic"}
    assert len({int(f) for f in fb.fold_[language == "pt"]}) == 1


def test_one_group_is_the_plain_method():
    x, topics, units, _ = _two_languages()
    plain = FoldBuilder().fit(x, topics, units)
    same = FoldBuilder().fit(x, topics, units, groups=np.array(["en"] * 180))
    assert plain.topic_folds_ == same.topic_folds_ and plain.candidates_ == same.candidates_


def test_a_language_with_few_sections_is_not_split():
    """Two topics of four sections each in Portuguese (one small document cut in two, as HDBSCAN
    does on a handful of sections): they stay together, so neither half answers the other's questions."""
    x, topics, units, language = _two_languages()
    rng = np.random.default_rng(1)
    x = np.vstack([x, 20 + rng.normal(scale=0.05, size=(4, 4)), 20.3 + rng.normal(scale=0.05, size=(4, 4))])
    topics = np.concatenate([topics, [6] * 4, [7] * 4])
    units = np.concatenate([units, [1000, 1000, 1001, 1001, 1002, 1002, 1003, 1003]])
    language = np.concatenate([language, ["pt"] * 8])
    fb = FoldBuilder(min_fold_ratio=0.3).fit(x, topics, units, groups=language)
    assert fb.topic_folds_[6] == fb.topic_folds_[7]
    assert fb.whole_groups_ == {"pt": "too few sections to split (8 < 10)"}
    assert any(w.startswith("groups: pt: too few sections to split (8 < 10); all its 8 sections") for w in fb.warnings_)
    for lang in ("it", "nl"):  # the large languages are still in both folds
        assert {int(f) for f in fb.fold_[(language == lang) & (fb.status_ == "kept")]} == {1, 2}, lang
