"""Section embedders behind one protocol, a spec registry, and an on-disk cache.

>>> from qagen.embed import get_embedder, CachedEmbedder
>>> embedder = CachedEmbedder(get_embedder("tfidf"), "cache/embeddings.sqlite")  # doctest: +SKIP
>>> vectors = embedder.embed(["first section", "second section"])  # doctest: +SKIP

Importing this package loads neither torch nor sentence-transformers nor openai.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from qagen.embed.base import CorpusFittedEmbedder, Embedder, EmbedError, normalize_rows
from qagen.embed.registry import BACKENDS, get_embedder, register_embedder

if TYPE_CHECKING:
    from qagen.embed.cache import CachedEmbedder
    from qagen.embed.openai_embed import OpenAIEmbedder
    from qagen.embed.sentence import SentenceTransformerEmbedder
    from qagen.embed.tfidf import TfidfEmbedder

_LAZY = {
    "CachedEmbedder": "qagen.embed.cache",
    "TfidfEmbedder": "qagen.embed.tfidf",
    "SentenceTransformerEmbedder": "qagen.embed.sentence",
    "OpenAIEmbedder": "qagen.embed.openai_embed",
}

__all__ = [
    "BACKENDS",
    "CachedEmbedder",
    "CorpusFittedEmbedder",
    "EmbedError",
    "Embedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "TfidfEmbedder",
    "get_embedder",
    "normalize_rows",
    "register_embedder",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'qagen.embed' has no attribute {name!r}")
