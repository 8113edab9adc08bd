"""Fast deterministic stand-ins for the components a test is not about.

TF-IDF embeddings and PCA + k-means topics instead of MiniLM and UMAP + HDBSCAN (which load a
model or compile with numba), for whole builds of the bundled examples.
"""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "docs"
FAST_COMPONENTS = [
    "embed.backend=tfidf",
    "topics.reducer=pca",
    "topics.clusterer=kmeans",
    "topics.n_clusters=6",
]
# The examples up to their report in well under a minute
FAST = [*FAST_COMPONENTS, "folds.samples_total=60"]
