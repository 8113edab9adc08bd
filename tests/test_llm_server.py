"""The fake OpenAI-compatible server itself, driven by the real openai client."""

from __future__ import annotations

import contextlib
import math

import openai
import pytest
from pydantic import BaseModel, Field

from tests.support.llm_server import (
    FakeOpenAIServer,
    ServerProcess,
    default_responder,
    example_from_schema,
    rate_limit,
    refusal,
    truncated,
)


class Option(BaseModel):
    text: str
    correct: bool


class MCQ(BaseModel):
    question: str = Field(min_length=10)
    options: list[Option] = Field(min_length=4)
    level: str = Field(pattern="^B[1-4]$", json_schema_extra={"enum": ["B1", "B2"]})
    score: int | None = Field(None, ge=1)


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


def client(server: FakeOpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="sk-test", max_retries=0)


def test_example_from_schema_validates_for_nested_pydantic_models():
    assert MCQ.model_validate(example_from_schema(MCQ.model_json_schema()))


def test_default_responder_reads_the_schema_from_response_format_or_prompt():
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert default_responder({"response_format": {"type": "json_schema", "json_schema": {"schema": schema}}}) == {
        "n": 1
    }
    prompt = 'Question\n\nReply with only a JSON object that conforms to this JSON schema:\n{"type":"object"}'
    assert default_responder({"messages": [{"role": "user", "content": prompt}]}) == {}
    assert default_responder({"messages": [{"role": "user", "content": "hello"}]}) == "echo: hello"


def test_chat_completion_with_usage_and_scripted_actions(server):
    c = client(server)
    server.script(truncated("{"), refusal("no"), "plain")
    first = c.chat.completions.create(model="m", messages=[{"role": "user", "content": "hello there"}])
    assert first.choices[0].finish_reason == "length" and first.choices[0].message.content == "{"
    assert first.usage.prompt_tokens > 0 and first.usage.completion_tokens == 1
    assert (
        c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}]).choices[0].message.refusal
        == "no"
    )
    assert c.chat.completions.create(model="m", messages=[]).choices[0].message.content == "plain"
    assert server.count() == 3 and server.user_texts() == ["hello there", "x", ""]


def test_errors_carry_status_and_retry_after(server):
    server.script(rate_limit(2))
    with pytest.raises(openai.RateLimitError) as info:
        client(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert info.value.response.headers["retry-after"] == "2"
    assert server.count(status=429) == 1


def test_api_key_is_checked():
    with FakeOpenAIServer(api_key="sk-right") as srv:
        with pytest.raises(openai.AuthenticationError):
            client(srv).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert srv.chat_requests[0].authorized is False


@pytest.mark.parametrize("options", [{}, {"encoding_format": "float"}], ids=["sdk-default-base64", "float"])
def test_embeddings_are_deterministic_unit_vectors(options):
    with FakeOpenAIServer(embedding_dim=16) as srv:
        c = client(srv)
        a = c.embeddings.create(model="e", input=["one", "two"], **options)
        b = c.embeddings.create(model="e", input="one", **options)
        assert srv.requests[0].body["encoding_format"] == options.get("encoding_format", "base64")
        assert len(a.data) == 2 and len(a.data[0].embedding) == 16
        assert a.data[0].embedding == pytest.approx(b.data[0].embedding, abs=1e-6)
        assert math.isclose(sum(v * v for v in a.data[1].embedding), 1.0, rel_tol=1e-5)
        assert a.usage.prompt_tokens > 0 and srv.count("/v1/embeddings") == 2


def test_models_endpoint(server):
    assert [m.id for m in client(server).models.list()] == ["fake-model"]


def test_fault_rate_is_seeded():
    def statuses(seed: int) -> list[int]:
        with FakeOpenAIServer(fault_rate=0.5, faults=[rate_limit(0)], seed=seed) as srv:
            c = client(srv)
            for _ in range(12):
                with contextlib.suppress(openai.RateLimitError):
                    c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
            return [r.status for r in srv.chat_requests]

    assert statuses(3) == statuses(3) and 429 in statuses(3) and 200 in statuses(3)


def test_server_process_serves_and_reports():
    with ServerProcess(latency=0.0) as srv:
        c = openai.OpenAI(base_url=srv.url, api_key="sk-test", max_retries=0)
        c.chat.completions.create(model="m", messages=[{"role": "user", "content": "ping"}])
        stats = srv.stats()
        assert stats["chat"] == 1 and stats["user_texts"] == ["ping"] and stats["statuses"] == {"200": 1}
        srv.reset_log()
        assert srv.stats()["chat"] == 0
