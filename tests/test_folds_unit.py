"""folds.unit=auto: whole documents when they can be kept apart, pages when they cannot."""

from __future__ import annotations

import numpy as np
import pytest

from qagen.folds import FoldBuilder
from qagen.folds.sections import auto_unit

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _corpus(docs_per_topic_mix: bool, seed: int = 0):
    """Four well-separated topics, 160 sections on 80 pages; documents single-topic or all-topic."""
    rng = np.random.default_rng(seed)
    topics = np.repeat(np.arange(4), 40)
    x = np.repeat(rng.normal(scale=5, size=(4, 3)), 40, axis=0) + rng.normal(scale=0.2, size=(160, 3))
    pages = np.arange(160) // 2  # a page never mixes topics
    # four manuals, each covering every topic; or sixteen leaflets, one topic each
    docs = np.arange(160) % 4 if docs_per_topic_mix else np.arange(160) // 10
    return x, topics, pages, docs


def _fit_for(x, topics, pages, docs):
    def fit(unit: str) -> FoldBuilder:
        units = docs if unit == "document" else pages
        return FoldBuilder(unit=unit, min_fold_ratio=0.3).fit(x, topics, units, docs=docs)

    return fit


def test_many_single_topic_documents_are_kept_whole():
    builder, note = auto_unit(_fit_for(*_corpus(docs_per_topic_mix=False)))
    assert builder.unit == "document" and note.startswith("auto: whole documents keep 100%")
    assert builder.metrics_["documents_in_both_folds"] == 0
    assert builder.metrics_["document_kept_share_median"] == 1.0


def test_documents_covering_every_topic_fall_back_to_pages_and_say_why():
    builder, note = auto_unit(_fit_for(*_corpus(docs_per_topic_mix=True)))
    assert builder.unit == "page"
    assert note.startswith("auto: per page, as ") and "documents need 50%" in note
    # per page, each manual keeps its sections in both folds: the metric says so
    assert builder.metrics_["documents_in_both_folds"] == 4 and builder.metrics_["documents_nothing_kept"] == 0
