"""Importing qagen's embedding and topic packages loads no heavy library (checked in a fresh interpreter)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = [
    "torch",
    "bertopic",
    "umap",
    "hdbscan",
    "numba",
    "sentence_transformers",
    "transformers",
    "openai",
    "pdfplumber",
]


def test_import_qagen_embed_and_topics_is_light():
    probe = (
        "import sys\nimport qagen, qagen.embed, qagen.topics\n"
        "from qagen.embed import get_embedder, CachedEmbedder, TfidfEmbedder\n"
        "from qagen.topics import fit_topics, sweep, run_sweep\n"
        "get_embedder('auto')\n"  # resolving the default model must not load it
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
