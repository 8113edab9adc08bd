"""Near-duplicate questions: cosine similarity of question embeddings above a threshold.

Items are visited best-ranked first; an item is dropped when its question is more similar
than ``filter.dedup_threshold`` to a question already kept, so the higher-ranked item of
every near-duplicate pair survives and no pair above the threshold remains. The
similarity matrix is never built whole: blocks of ``filter.dedup_block_size`` questions
are compared with the kept questions 8,192 at a time, so memory beyond the input vectors
stays bounded (about ``block_size x 8192`` floats) for 100,000 candidates and more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from qagen.filters.base import FilterContext, rank_key, reject
from qagen.records import Item, Rejection

if TYPE_CHECKING:
    from qagen.config import FilterConfig

_CHUNK = 8192


@dataclass(frozen=True)
class DedupResult:
    """Per row: kept or not, the row it duplicates (-1 when kept) and that similarity."""

    keep: np.ndarray
    duplicate_of: np.ndarray
    similarity: np.ndarray


def greedy_dedup(
    vectors: np.ndarray, threshold: float, block_size: int = 1024, chunk_size: int = _CHUNK
) -> DedupResult:
    """Greedy near-duplicate removal over rows given best first.

    Args:
        vectors: (n, dim) embeddings in rank order (row 0 is the best item). Rows are
            L2-normalised here again, so cosine similarity is a dot product.
        threshold: A row whose similarity to an earlier kept row is strictly greater is dropped.
        block_size: Rows compared at once.
        chunk_size: Kept rows each block is compared with at once; memory beyond the
            input is about ``block_size x chunk_size`` floats.

    Returns:
        A :class:`DedupResult` with arrays of length n.
    """
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1]; got {threshold}")
    if block_size < 1 or chunk_size < 1:
        raise ValueError(f"block_size and chunk_size must be >= 1; got {block_size}, {chunk_size}")
    x = np.asarray(vectors, dtype=np.float32)
    if x.ndim != 2:
        raise ValueError(f"vectors must be a 2-d array (n, dim); got shape {x.shape}")
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))  # no (n, dim) temporary, unlike np.linalg.norm
    if not np.allclose(norms[norms > 0], 1.0, atol=1e-4):  # copy only when not normalised already
        x = x / np.where(norms > 0, norms, 1.0)[:, None]
    n = len(x)
    keep = np.zeros(n, dtype=bool)
    dup = np.full(n, -1, dtype=np.int64)
    sim = np.zeros(n, dtype=np.float32)
    kept_rows: list[np.ndarray] = []
    for start in range(0, n, block_size):
        block = x[start : start + block_size]
        kept = np.concatenate(kept_rows) if kept_rows else np.zeros(0, np.int64)
        best, best_row = _best_kept_match(block, x, kept, chunk_size)
        alive = best <= threshold
        dup[start : start + len(block)] = np.where(alive, -1, best_row)
        sim[start : start + len(block)] = np.where(alive, 0.0, best)
        _dedup_within(block, alive, threshold, start, dup, sim)
        keep[start : start + len(block)] = alive
        kept_rows.append(np.flatnonzero(alive) + start)
    return DedupResult(keep, dup, sim)


def _best_kept_match(block: np.ndarray, x: np.ndarray, kept: np.ndarray, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Best similarity of each block row to a kept row, comparing ``chunk`` kept rows at a time."""
    best = np.full(len(block), -np.inf, dtype=np.float32)
    best_row = np.full(len(block), -1, dtype=np.int64)
    for c in range(0, len(kept), chunk):
        rows = kept[c : c + chunk]
        sims = block @ x[rows].T
        arg = sims.argmax(axis=1)
        val = sims[np.arange(len(block)), arg]
        better = val > best
        best[better] = val[better]
        best_row[better] = rows[arg[better]]
    return best, best_row


def _dedup_within(
    block: np.ndarray, alive: np.ndarray, threshold: float, start: int, dup: np.ndarray, sim: np.ndarray
) -> None:
    """Greedy pass inside one block: each surviving row drops the later rows too similar to it."""
    sims = block @ block.T
    # only rows with a later too-similar row can drop anything: loop over those alone
    close = np.triu(sims > threshold, k=1)
    for j in np.flatnonzero(close.any(axis=1)):
        if not alive[j]:
            continue
        hit = np.flatnonzero(alive[j + 1 :] & close[j, j + 1 :]) + j + 1
        if hit.size:
            alive[hit] = False
            dup[start + hit] = start + j
            sim[start + hit] = sims[j, hit]


@dataclass(frozen=True)
class DedupFilter:
    """The ``dedup`` filter: greedy removal per item type (or over all types, ``dedup_scope = "all"``)."""

    name: str = "dedup"

    def apply(self, items: list[Item], ctx: FilterContext, config: FilterConfig) -> tuple[list[Item], list[Rejection]]:
        if not items:
            return [], []
        if ctx.embed is None:
            raise ValueError("FilterContext.embed is required by the 'dedup' filter; pass one or add it to filter.skip")
        ranked = sorted(items, key=rank_key)
        vectors = np.asarray(ctx.embed([it.question for it in ranked]), dtype=np.float32)
        if vectors.shape[0] != len(ranked):
            raise ValueError(f"embed returned {vectors.shape[0]} vectors for {len(ranked)} questions")
        groups: dict[str, list[int]] = {}
        for i, it in enumerate(ranked):
            groups.setdefault("all" if config.dedup_scope == "all" else it.type, []).append(i)
        kept: list[Item] = []
        rejected: list[Rejection] = []
        for rows in groups.values():
            res = greedy_dedup(vectors[rows], config.dedup_threshold, config.dedup_block_size)
            for k, i in enumerate(rows):
                if res.keep[k]:
                    kept.append(ranked[i])
                else:
                    other = ranked[rows[res.duplicate_of[k]]]
                    reason = f"near-duplicate question (of higher-ranked {other.id})"
                    rejected.append(reject(ranked[i], self.name, reason, float(res.similarity[k])))
        return kept, rejected


DEDUP = DedupFilter()
