"""TF-IDF + truncated SVD (LSA): no model weights, any language that separates words, fast.

The vector space is learnt from a corpus. ``fit(texts)`` learns it and sets ``id`` to
``tfidf:<dims>:<seed>:<corpus hash>``, where the corpus hash covers the sorted, de-duplicated
SHA-256 of the fitted texts: the same set of texts gives the same space and id whatever
their order. ``embed(texts)`` projects texts into the fitted space; on an unfitted embedder
it first fits on the call's texts (so ``TfidfEmbedder().embed(sections)`` is deterministic
for a given set of sections). Cache keys are therefore (corpus, text): cached vectors are
reused only for the same corpus.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from qagen.embed.base import EmbedError, normalize_rows

# Words of two or more letters/digits in any script (the scikit-learn default, Unicode-aware).
TOKEN_PATTERN = r"(?u)\b\w\w+\b"


def corpus_key(texts: Sequence[str]) -> str:
    """Order-independent hash of a set of texts (16 hex digits)."""
    digests = sorted({hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts})
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()[:16]


class TfidfEmbedder:
    """TF-IDF (unigrams + bigrams, sublinear tf) reduced with randomized SVD to ``dims`` dimensions.

    Args:
        dims: Output dimensions; fewer when the corpus has fewer distinct texts or terms.
        seed: Random state of the randomized SVD.
        max_features: Vocabulary cap (most frequent terms).
    """

    def __init__(self, dims: int = 256, seed: int = 0, max_features: int = 100_000) -> None:
        if dims < 2:
            raise ValueError(f"embed.tfidf_dims must be >= 2; got {dims}")
        self.dims = dims
        self.seed = seed
        self.max_features = max_features
        self.fitted = False
        self.id = f"tfidf:{dims}:{seed}:unfitted"
        self._vectorizer: Any = None
        self._svd: Any = None

    def fit(self, texts: Sequence[str]) -> TfidfEmbedder:
        """Learn the vocabulary, IDF weights and SVD basis from ``texts``."""
        from sklearn.decomposition import TruncatedSVD
        from sklearn.feature_extraction.text import TfidfVectorizer

        # Sorted unique texts: the fitted space depends on the set of texts, not their order.
        unique = sorted(set(texts))
        vectorizer = TfidfVectorizer(
            token_pattern=TOKEN_PATTERN,
            ngram_range=(1, 2),
            sublinear_tf=True,
            max_features=self.max_features,
            dtype=np.float32,
        )
        try:
            matrix = vectorizer.fit_transform(unique)
        except ValueError:
            raise EmbedError(
                f"tfidf embedder found no words in {len(unique)} text(s); it needs text with words of 2+ characters"
            ) from None
        n_terms = matrix.shape[1]
        k = min(self.dims, n_terms - 1, len(unique))
        self._svd = None
        if k >= 2:
            self._svd = TruncatedSVD(n_components=k, algorithm="randomized", n_iter=7, random_state=self.seed)
            self._svd.fit(matrix)
        self._vectorizer = vectorizer
        self.fitted = True
        self.id = f"tfidf:{self.dims}:{self.seed}:{corpus_key(unique)}"
        return self

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts`` in the fitted space (fits on ``texts`` first when unfitted)."""
        texts = list(texts)
        if not self.fitted:
            if not texts:
                return np.zeros((0, self.dims), dtype=np.float32)
            self.fit(texts)
        matrix = self._vectorizer.transform(texts)
        dense = self._svd.transform(matrix) if self._svd is not None else matrix.toarray()
        return normalize_rows(dense)

    @property
    def dim(self) -> int:
        """Output dimensions of the fitted space (``dims`` before fitting)."""
        if not self.fitted:
            return self.dims
        return self._svd.n_components if self._svd is not None else len(self._vectorizer.vocabulary_)
