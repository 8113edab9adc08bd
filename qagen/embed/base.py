"""The embedder protocol: ``embed(texts) -> ndarray`` of shape (len(texts), dim), float32, L2-normalised."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from qagen.errors import QagenError

if TYPE_CHECKING:
    import numpy as np


class EmbedError(QagenError, RuntimeError):
    """An embedder could not be built or run; the message says what to do next."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors. ``id`` identifies model and settings; it keys the embedding cache."""

    id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@runtime_checkable
class CorpusFittedEmbedder(Embedder, Protocol):
    """An embedder whose vector space is learnt from a corpus (TF-IDF + SVD).

    ``fit(texts)`` learns the space and sets ``id`` to name that corpus, so cached vectors of
    one corpus are never served for another. ``embed`` on an unfitted embedder fits on the
    call's texts first; :class:`~qagen.embed.CachedEmbedder` does the same before it looks
    anything up.
    """

    fitted: bool

    def fit(self, texts: Sequence[str]) -> CorpusFittedEmbedder: ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm as float32 (all-zero rows stay zero)."""
    import numpy as np

    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D array; got shape {arr.shape}")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (arr / norms).astype(np.float32, copy=False)
