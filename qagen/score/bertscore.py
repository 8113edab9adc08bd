"""BERTScore-style F1 (Twente paper, Table 5) with a local sentence-transformers model.

Each word piece of the answer is matched to its most similar word piece of the reference by the
cosine of their contextual vectors, and the other way round (Zhang et al., 2020, greedy matching):
precision is the mean best match of the answer's pieces, recall that of the reference's, F1 their
harmonic mean. It differs from the ``bert-score`` package in three ways, stated so its numbers are
not compared with published ones: the model is the bundled MiniLM (last layer), pieces are not
weighted by idf, and scores are not rescaled against a baseline (unrelated texts score about 0.2-0.4
rather than 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def token_embedder(embedder: Any) -> Any | None:
    """``embedder``, or the embedder a cache wraps, when it gives token embeddings; None otherwise (TF-IDF, OpenAI)."""
    seen = 0
    while embedder is not None and seen < 4:
        if callable(getattr(embedder, "token_embeddings", None)):
            return embedder
        embedder = getattr(embedder, "embedder", None)  # a cache around the model
        seen += 1
    return None


def f1(candidate: np.ndarray, reference: np.ndarray) -> tuple[float, float, float] | None:
    """(precision, recall, F1) of two texts' normalised token vectors; None when either has no tokens."""
    if len(candidate) == 0 or len(reference) == 0:
        return None
    sims = candidate @ reference.T
    precision = float(sims.max(axis=1).mean())
    recall = float(sims.max(axis=0).mean())
    f = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return precision, recall, f


def bertscore(embedder: Any, candidates: Sequence[str], references: Sequence[str]) -> list[float | None]:
    """BERTScore-style F1 per (candidate, reference) pair with ``embedder``'s token embeddings."""
    texts = list(dict.fromkeys([*candidates, *references]))
    vectors = dict(zip(texts, embedder.token_embeddings(texts), strict=True))
    out: list[float | None] = []
    for c, r in zip(candidates, references, strict=True):
        got = f1(vectors[c], vectors[r])
        out.append(None if got is None else got[2])
    return out
