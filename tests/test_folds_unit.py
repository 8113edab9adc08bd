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


def test_the_folds_settings_reach_the_builder():
    """fit_section_folds hands every [folds] setting to FoldBuilder (criterion, ratio, clusters, imbalance)."""
    from qagen.config import FoldsConfig
    from qagen.folds.sections import fit_section_folds
    from qagen.records import Page, Section

    x, topics, _, docs = _corpus(docs_per_topic_mix=False)
    sections = [Section(f"s{i}", f"d{docs[i]}", f"d{docs[i]}.pdf", "H", "text", 1, 1, i) for i in range(160)]
    page_recs = [Page(f"p{p}", f"d{docs[2 * p]}", (f"s{2 * p}", f"s{2 * p + 1}"), "t", 10) for p in range(80)]
    config = FoldsConfig(
        unit="page", criterion="score", min_fold_ratio=0.2, max_clusters=4, on_imbalance="error", test_size=0.3
    )
    builder, note = fit_section_folds(sections, page_recs, topics, x, config, seed=3, eligible=[True] * 160)
    params = builder.get_params()
    assert note == "" and params["unit"] == "page" and params["criterion"] == "score"
    assert (params["min_fold_ratio"], params["max_clusters"], params["on_imbalance"]) == (0.2, 4, "raise")
    assert (params["test_size"], params["seed"], params["samples_total"]) == (0.3, 3, 200)
    assert FoldsConfig().criterion == "separation"


def test_three_documents_that_mix_every_topic_fall_back_to_whole_documents(tmp_path):
    """Every page and document of a small corpus holds both halves of every topic split: the build does not
    stop; the folds are whole documents, warned (issue 47: a folder of three distinct documents)."""
    import json
    import shutil
    from pathlib import Path

    from qagen import build
    from tests.support.fast import FAST_COMPONENTS

    examples = Path(__file__).resolve().parents[1] / "examples" / "docs"
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("remote_work_policy.md", "linkhaven_faq.txt", "it_helpdesk.pdf"):
        shutil.copyfile(examples / name, docs / name)
    logged: list[str] = []
    build(docs, tmp_path / "out", overrides=[*FAST_COMPONENTS, "topics.n_clusters=4"], until="folds",
          log=logged.append)  # fmt: skip
    folds = json.loads((tmp_path / "out" / "folds.json").read_text())
    assert folds["unit_choice"] == "fallback: no topic split keeps both folds"
    assert folds["metrics"]["unit"] == "document" and folds["metrics"]["pseudo_topics"] == "documents"
    assert sorted(set(folds["unit_folds"].values())) == [1, 2]
    assert any("no split of the topics keeps sections in both folds" in w and "not topic-disjoint" in w
               for w in logged)  # fmt: skip
