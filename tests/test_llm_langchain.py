"""The LangChain backend: LangChain's real ChatOpenAI pointed at the local fake server."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from qagen.llm import AuthLLMError, LLMEngine, LLMRequest, Message, get_llm
from qagen.llm.langchain_backend import LangChainBackend
from tests.support.llm_server import (
    FakeOpenAIServer,
    fast_config,
    invalid_json,
    rate_limit,
    refusal,
    reset,
    server_error,
    slow,
    status,
    truncated,
    wrong_schema,
)

langchain_openai = pytest.importorskip("langchain_openai")


class QA(BaseModel):
    question: str
    answer: str


def requests(n: int) -> list[LLMRequest]:
    return [LLMRequest((Message("system", "be brief"), Message("user", f"item {i}"))) for i in range(n)]


def chat(server: FakeOpenAIServer, key: str = "sk-test", **kw) -> object:
    return langchain_openai.ChatOpenAI(model="fake-model", base_url=server.url, api_key=key, max_retries=0, **kw)


@pytest.fixture
def server():
    with FakeOpenAIServer() as srv:
        yield srv


def test_get_llm_wraps_a_chat_model(server):
    llm = get_llm(chat(server))
    assert isinstance(llm, LangChainBackend) and llm.model == "fake-model"
    assert llm.id.startswith("langchain:ChatOpenAI:fake-model:") and llm.structured_mode == "json_schema"
    assert get_llm(chat(server, temperature=0.1)).id != llm.id  # settings are part of the identity


def test_structured_replies_usage_and_order(server):
    eng = LLMEngine(chat(server), fast_config(max_concurrency=4))
    results = eng.run(requests(8), QA)
    assert all(isinstance(r.value, QA) for r in results)
    assert [r.request.messages[1].content for r in results] == [f"item {i}" for i in range(8)]
    assert eng.stats.prompt_tokens == sum(r.usage.prompt_tokens for r in results) > 0
    body = server.chat_requests[0].body
    assert body["messages"][0] == {"role": "system", "content": "be brief"}
    assert body["response_format"]["type"] == "json_schema" and body["temperature"] == 0.7


@pytest.mark.parametrize("bad", [invalid_json(), wrong_schema(), truncated()], ids=["invalid", "schema", "truncated"])
def test_invalid_replies_are_repaired(server, bad):
    server.script(bad)
    eng = LLMEngine(chat(server), fast_config())
    [result] = eng.run(requests(1), QA)
    assert result.ok and result.attempts == 2 and eng.stats.repairs == 1
    assert isinstance(result.value, QA) and server.count() == 2
    repair = server.chat_requests[1].body["messages"]
    assert repair[-2]["role"] == "assistant" and "could not be used" in repair[-1]["content"]


@pytest.mark.parametrize(
    ("bad", "kind", "phrase"),
    [
        (invalid_json(), "invalid_json", "invalid JSON"),
        (wrong_schema(), "wrong_schema", "reply does not match the schema: question: Field required"),
        (truncated(), "truncated", "truncated at max_tokens"),
    ],
    ids=["invalid", "schema", "truncated"],
)
def test_invalid_replies_are_recorded_after_repairs_never_coerced(server, bad, kind, phrase):
    server.script(bad, bad)
    eng = LLMEngine(chat(server), fast_config(repair_attempts=1))
    [result] = eng.run(requests(1), QA)
    assert result.value is None and result.data is None and result.text
    assert phrase in result.error and "after 1 repair request" in result.error
    assert eng.stats.errors == {kind: 1} and eng.stats.failures == 1 and server.count() == 2


def test_refusal_is_recorded(server):
    server.script(refusal())
    [result] = LLMEngine(chat(server), fast_config()).run(requests(1), QA)
    assert result.error == "the model refused to answer" and server.count() == 1


@pytest.mark.parametrize(
    "fault",
    [rate_limit(0.05), server_error(500), server_error(503), status(408), reset()],
    ids=["429", "500", "503", "408", "reset"],
)
def test_transient_failures_are_retried(server, fault):
    server.script(fault)
    eng = LLMEngine(chat(server), fast_config())
    [result] = eng.run(requests(1), QA)
    assert result.ok and result.attempts == 2 and eng.stats.retries == 1 and server.count() == 2


def test_a_reply_slower_than_the_timeout_is_retried(server):
    server.script(slow(1.5))
    eng = LLMEngine(chat(server), fast_config(timeout_s=0.4))
    [result] = eng.run(requests(1), QA)
    assert result.ok and isinstance(result.value, QA) and result.attempts == 2
    assert eng.stats.retries == 1 and eng.stats.errors == {} and server.count() == 2


def test_transient_failures_out_of_retries_are_recorded(server):
    server.script(status(408), slow(1.5))
    eng = LLMEngine(chat(server), fast_config(timeout_s=0.4, max_retries=1))
    [result] = eng.run(requests(1), QA)
    assert result.value is None and result.error == "timed out after 0.4 s; gave up after 2 attempts"
    assert eng.stats.errors == {"timeout": 1} and server.count() == 2


def test_401_fails_fast():
    with FakeOpenAIServer(api_key="sk-right") as srv:
        eng = LLMEngine(chat(srv, key="sk-wrong-key"), fast_config(max_concurrency=4))
        with pytest.raises(AuthLLMError, match=r"^authentication failed \(HTTP 401\)") as info:
            eng.run(requests(10), QA)
        assert "sk-wrong" not in str(info.value) and "SECRET" not in str(info.value)
        assert srv.count() == 1


def test_server_without_json_schema_falls_back():
    with FakeOpenAIServer(json_schema=False) as srv:
        eng = LLMEngine(chat(srv), fast_config())
        results = eng.run(requests(4), QA)
        assert all(r.ok for r in results) and eng.stats.structured_mode == "json_object"
        assert srv.count(status=500) == 1


def test_non_openai_models_get_the_schema_in_the_prompt():
    fake_chat = pytest.importorskip("langchain_core.language_models.fake_chat_models")
    model = fake_chat.FakeListChatModel(responses=['{"question": "Q?", "answer": "A."}'])
    eng = LLMEngine(model, fast_config())
    [result] = eng.run(requests(1), QA)
    assert eng.llm.structured_mode == "prompt" and result.value == QA(question="Q?", answer="A.")
