"""The OpenAI-compatible embedder against a real local HTTP server (the official client, real sockets)."""

from __future__ import annotations

import socket

import numpy as np
import pytest

from qagen.config import EmbedConfig, LLMConfig
from qagen.embed import CachedEmbedder, EmbedError, get_embedder
from tests.support.llm_server import EMBEDDINGS, FakeOpenAIServer

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


# --- one client configuration for the LLM and the embedder ---------------------------------


def test_server_comes_from_the_url_in_the_llm_spec(monkeypatch):
    monkeypatch.delenv("QAGEN_TEST_NO_KEY", raising=False)
    with FakeOpenAIServer() as server:
        llm = LLMConfig(backend=f"openai:m@{server.url}", api_key_env="QAGEN_TEST_NO_KEY")
        e = get_embedder("openai:e", EmbedConfig(), llm)  # no URL, no key: a local server needs none
        assert e.embed(TEXTS[:3]).shape == (3, 8)
        assert server.count(EMBEDDINGS) == 1 and server.requests[0].body["model"] == "e"
        assert e.base_url == server.url and e.api_key_env == "QAGEN_TEST_NO_KEY"


def test_embed_settings_win_over_the_llm_ones():
    def resolved(spec, embed=None, llm=None):
        e = get_embedder(spec, embed or EmbedConfig(), llm)
        return e.base_url, e.api_key_env, e.timeout_s, e.max_retries

    llm = LLMConfig(backend="openai:m@http://127.0.0.1:9/v1", base_url="http://127.0.0.2:9/v1", timeout_s=5)
    # the URL in llm.backend wins over llm.base_url, as it does for the LLM
    assert resolved("openai:e", llm=llm) == ("http://127.0.0.1:9/v1", "OPENAI_API_KEY", 5, llm.max_retries)
    assert resolved("openai:e", llm=LLMConfig(base_url="http://127.0.0.2:9/v1"))[0] == "http://127.0.0.2:9/v1"
    own = EmbedConfig(base_url="http://127.0.0.3:9/v1", api_key_env="EMBED_KEY", timeout_s=7, max_retries=1)
    assert resolved("openai:e", own, llm) == ("http://127.0.0.3:9/v1", "EMBED_KEY", 7, 1)
    assert resolved("openai:e@http://127.0.0.4:9/v1", own, llm)[0] == "http://127.0.0.4:9/v1"
    defaults = LLMConfig()  # no [llm] section: the LLM's defaults
    assert resolved("openai:e@http://h/v1")[2:] == (defaults.timeout_s, defaults.max_retries)


def test_timeout_and_retries_come_from_the_llm_config():
    with FakeOpenAIServer(latency=5.0) as server:  # every reply far slower than the timeout
        llm = LLMConfig(backend=f"openai:m@{server.url}", timeout_s=0.5, max_retries=1)
        e = get_embedder("openai:e", EmbedConfig(), llm)
        with pytest.raises(EmbedError, match="cannot reach the embedding endpoint"):
            e.embed(TEXTS[:2])
        assert server.count(EMBEDDINGS) == 2  # the first try and llm.max_retries = 1 retry


def test_build_embeds_on_the_llm_server(tmp_path, monkeypatch):
    from qagen import build

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(3):
        (docs / f"d{i}.md").write_text(f"# Doc {i}\n\n## Part A\n\nAlpha text {i}.\n\n## Part B\n\nBeta text {i}.\n")
    with FakeOpenAIServer() as server:
        overrides = ["embed.backend=openai:fake-embed", f"llm.backend=openai:fake-model@{server.url}"]
        build(docs, tmp_path / "out", overrides=overrides, until="embed")
        assert server.count(EMBEDDINGS) >= 1 and server.count() == 0  # embeddings only, no chat
    assert np.load(tmp_path / "out" / "embeddings.npy").shape[1] == 8
