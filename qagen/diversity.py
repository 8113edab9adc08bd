"""How varied a set of questions is: n-gram diversity, self-repetition, compression ratio, embedding homogenisation.

The measures follow the text-diversity literature that DataMorgana and Shaib et al. ("Standardizing
the Measurement of Text Diversity", 2024) use to compare generators:

- ``ngram_diversity``: over n = 1..4, the share of distinct n-grams among all n-grams, summed
  (0 to 4; higher is more varied).
- ``self_repetition``: the share of questions that repeat a 4-gram found in another question
  (0 to 1; lower is more varied). Templates show here: every "What should I do if ..." shares one.
- ``compression_ratio``: the questions' bytes over their gzip size (higher is more repetitive).
- ``homogenisation``: the mean cosine similarity between two different questions' embeddings
  (lower is more varied), computed exactly in O(n) from the normalised vectors' sum.

Words are lower-cased runs of letters and digits, so the measures work in any language.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _ngrams(tokens: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]


def ngram_diversity(texts: Sequence[str], max_n: int = 4) -> float:
    """Sum over n = 1..``max_n`` of distinct n-grams / all n-grams, across ``texts``."""
    tokenised = [words(t) for t in texts]
    total = 0.0
    for n in range(1, max_n + 1):
        grams = [g for tokens in tokenised for g in _ngrams(tokens, n)]
        if grams:
            total += len(set(grams)) / len(grams)
    return total


def self_repetition(texts: Sequence[str], n: int = 4) -> float:
    """The share of texts that hold an n-gram some other text holds too."""
    per_text = [set(_ngrams(words(t), n)) for t in texts]
    seen = Counter(g for grams in per_text for g in grams)
    if not per_text:
        return 0.0
    return sum(any(seen[g] > 1 for g in grams) for grams in per_text) / len(per_text)


def compression_ratio(texts: Sequence[str]) -> float:
    """Bytes of the texts (one per line) over their gzip size; 0.0 for no text."""
    raw = "\n".join(texts).encode("utf-8")
    if not raw:
        return 0.0
    return len(raw) / len(gzip.compress(raw, compresslevel=9, mtime=0))


def homogenisation(vectors: Any) -> float | None:
    """Mean cosine similarity over pairs of different rows; None for fewer than two rows."""
    import numpy as np

    v = np.asarray(vectors, dtype=np.float64)
    if v.ndim != 2 or len(v) < 2:
        return None
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    v = v / np.where(norms == 0, 1.0, norms)
    n = len(v)
    total = float(np.square(v.sum(axis=0)).sum())  # sum over all ordered pairs, self-pairs included
    self_pairs = float(np.square(v).sum())
    return (total - self_pairs) / (n * (n - 1))


def diversity(
    texts: Sequence[str], embed: Callable[[list[str]], Any] | None = None, digits: int = 4
) -> dict[str, float | int | None]:
    """Every measure of the module for ``texts`` (``homogenisation`` only with ``embed``)."""
    texts = [t for t in texts if t.strip()]
    vectors = embed(list(texts)) if embed is not None and len(texts) >= 2 else None
    return _measures(texts, vectors, digits)


def _measures(texts: Sequence[str], vectors: Any, digits: int = 4) -> dict[str, float | int | None]:
    homogeneous = homogenisation(vectors) if vectors is not None and len(texts) >= 2 else None
    return {
        "n": len(texts),
        "ngram_diversity": round(ngram_diversity(texts), digits),
        "self_repetition": round(self_repetition(texts), digits),
        "compression_ratio": round(compression_ratio(texts), digits),
        "homogenisation": None if homogeneous is None else round(homogeneous, digits),
    }


def diversity_by_type(items: Sequence[Any], embed: Callable[[list[str]], Any] | None = None) -> dict[str, Any]:
    """:func:`diversity` of the items' questions, overall and per item type (each question embedded once)."""
    import numpy as np

    kept = [it for it in items if it.question.strip()]
    vectors = np.asarray(embed([it.question for it in kept])) if embed is not None and len(kept) >= 2 else None

    def measure(rows: list[int]) -> dict[str, float | int | None]:
        return _measures([kept[i].question for i in rows], None if vectors is None else vectors[rows])

    report: dict[str, Any] = {"all": measure(list(range(len(kept))))}
    for kind in sorted({it.type for it in items}):
        report[kind] = measure([i for i, it in enumerate(kept) if it.type == kind])
    return report
