"""Topics: BERTopic over section embeddings, with the paper's cluster-quality metrics and a sweep.

>>> from qagen.topics import fit_topics
>>> result = fit_topics(texts, embeddings, doc_ids, config.topics, seed=0)  # doctest: +SKIP

Importing this package loads neither BERTopic nor UMAP, HDBSCAN or torch; they load on the first fit.
"""

from __future__ import annotations

from qagen.topics.components import effective_params, reduce_and_cluster
from qagen.topics.grid import SweepReport, parse_grid, run_sweep
from qagen.topics.metrics import (
    cluster_metrics,
    cluster_retention,
    document_agreement,
    robustness,
    shuffled_agreement,
)
from qagen.topics.model import TopicResult, fit_topics, save_model
from qagen.topics.sweep import format_table, recommend, sweep

__all__ = [
    "SweepReport",
    "TopicResult",
    "cluster_metrics",
    "cluster_retention",
    "document_agreement",
    "effective_params",
    "fit_topics",
    "format_table",
    "parse_grid",
    "recommend",
    "reduce_and_cluster",
    "robustness",
    "run_sweep",
    "save_model",
    "shuffled_agreement",
    "sweep",
]
