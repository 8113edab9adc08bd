"""The OpenAI-compatible embedder against a real local HTTP server (the official client, real sockets)."""

from __future__ import annotations

import socket

import numpy as np
import pytest
from llm_server import EMBEDDINGS, FakeOpenAIServer

from qagen.config import EmbedConfig, LLMConfig
from qagen.embed import CachedEmbedder, EmbedError, get_embedder

TEXTS = [f"section number {i} about topic {i % 3}" for i in range(7)]


def test_embeds_in_batches_in_input_order():
    with FakeOpenAIServer(embedding_dim=8) as server:
        e = get_embedder(f"openai:fake-embed@{server.url}", EmbedConfig(batch_size=3))
        vectors = e.embed(TEXTS)
        assert server.count(EMBEDDINGS) == 3  # 3 + 3 + 1 texts
        bodies = [r.body for r in server.requests]
        assert [t for b in bodies for t in b["input"]] == TEXTS
        assert all(b["encoding_format"] == "float" and b["model"] == "fake-embed" for b in bodies)
        single = e.embed([TEXTS[4]])
    assert vectors.shape == (7, 8) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(single[0], vectors[4], atol=1e-6)


def test_empty_text_is_sent_as_a_space():
    with FakeOpenAIServer() as server:
        get_embedder(f"openai:m@{server.url}").embed(["", "x"])
        assert server.requests[0].body["input"] == [" ", "x"]


def test_key_and_server_come_from_the_llm_config(monkeypatch):
    monkeypatch.setenv("QAGEN_TEST_EMBED_KEY", "sk-test-secret")
    with FakeOpenAIServer(api_key="sk-test-secret") as server:
        llm = LLMConfig(base_url=server.url, api_key_env="QAGEN_TEST_EMBED_KEY")
        e = get_embedder("openai:m", EmbedConfig(), llm)
        assert e.embed(TEXTS[:2]).shape == (2, 8)
        assert server.requests[0].authorized


def test_rejected_key_gives_a_clear_error_without_the_key(monkeypatch):
    monkeypatch.setenv("QAGEN_TEST_EMBED_KEY", "sk-wrong-secret")
    with FakeOpenAIServer(api_key="sk-right") as server:
        e = get_embedder(f"openai:m@{server.url}", EmbedConfig(api_key_env="QAGEN_TEST_EMBED_KEY", max_retries=0))
        with pytest.raises(EmbedError) as err:
            e.embed(TEXTS)
    message = str(err.value)
    assert "HTTP 401" in message and "QAGEN_TEST_EMBED_KEY" in message
    assert "secret" not in message.lower()


def test_unreachable_server_is_reported():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    e = get_embedder(f"openai:m@http://127.0.0.1:{port}/v1", EmbedConfig(max_retries=0, timeout_s=2))
    with pytest.raises(EmbedError, match=f"cannot reach the embedding endpoint http://127.0.0.1:{port}/v1"):
        e.embed(TEXTS)


def test_cached_rerun_sends_no_request(tmp_path):
    with FakeOpenAIServer() as server:
        spec = f"openai:m@{server.url}"
        first = CachedEmbedder(get_embedder(spec), tmp_path).embed(TEXTS)
        n = server.count(EMBEDDINGS)
        second = CachedEmbedder(get_embedder(spec), tmp_path).embed(TEXTS)
        assert server.count(EMBEDDINGS) == n
    np.testing.assert_array_equal(first, second)
