"""The engine with the openai backend against a real local HTTP server: faults, repair, auth, budget."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from pydantic import BaseModel, Field, model_validator

from qagen.llm import AuthLLMError, LLMEngine, LLMRequest, Message, get_llm
from qagen.llm.base import Completion, LLMError, public_id
from qagen.llm.cache import RequestCache
from qagen.llm.openai_backend import OpenAIBackend
from qagen.llm.structured import grammar_schema
from tests.support.llm_server import (
    FakeOpenAIServer,
    fast_config,
    invalid_json,
    ok,
    rate_limit,
    refusal,
    reset,
    server_error,
    slow,
    status,
    truncated,
    unauthorized,
    wrong_schema,
)

PROMPT_MARK = "PROMPT-MARKER-7f3a"


class QA(BaseModel):
    question: str = Field(min_length=3)
    answer: str


class Scored(BaseModel):
    question: str
    score: int


def requests(n: int, **kw) -> list[LLMRequest]:
    return [LLMRequest((Message("user", f"{PROMPT_MARK} item {i}"),), **kw) for i in range(n)]


def qa_responder(body: dict) -> dict:
    return {"question": "What is the number?", "answer": "0800-123"}


@pytest.fixture
def server():
    with FakeOpenAIServer(qa_responder) as srv:
        yield srv


def engine(server: FakeOpenAIServer, **overrides) -> LLMEngine:
    return LLMEngine(f"openai:fake-model@{server.url}", fast_config(**overrides), cache_path=None)


def assert_clean(text: str | None) -> None:
    """No provider body, no key, no prompt in a message."""
    assert text is not None
    assert "SECRET" not in text and PROMPT_MARK not in text and "sk-" not in text
    assert "\n" not in text


# ----------------------------------------------------------------- structured output


def test_valid_replies_are_validated_models_in_order(server):
    results = engine(server, max_concurrency=4).run(requests(12), QA)
    assert [r.request.messages[0].content for r in results] == [f"{PROMPT_MARK} item {i}" for i in range(12)]
    assert all(r.ok and isinstance(r.value, QA) and r.attempts == 1 for r in results)
    assert results[0].data == qa_responder({})
    assert results[0].usage.prompt_tokens > 0 and results[0].usage.completion_tokens > 0
    body = server.chat_requests[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["question", "answer"]


@pytest.mark.parametrize("bad", [invalid_json(), wrong_schema(), truncated()], ids=["invalid", "schema", "truncated"])
def test_invalid_reply_is_repaired(server, bad):
    server.script(bad)
    eng = engine(server)
    [result] = eng.run(requests(1), QA)
    assert result.ok and result.value == QA(**qa_responder({})) and result.attempts == 2
    assert eng.stats.repairs == 1 and server.count() == 2
    repair_messages = server.chat_requests[1].body["messages"]
    assert repair_messages[0]["content"] == f"{PROMPT_MARK} item 0"
    assert repair_messages[1]["role"] == "assistant"  # the model sees its own invalid output ...
    assert "could not be used" in repair_messages[2]["content"]  # ... and the error


@pytest.mark.parametrize(
    ("bad", "kind", "phrase"),
    [
        (invalid_json(), "invalid_json", "invalid JSON"),
        (wrong_schema(), "wrong_schema", "question: Field required"),
        (truncated(), "truncated", "truncated at max_tokens"),
    ],
)
def test_invalid_reply_after_repairs_is_recorded_never_coerced(server, bad, kind, phrase):
    server.script(bad, bad, bad)
    eng = engine(server, repair_attempts=2)
    [result] = eng.run(requests(1), QA)
    assert result.value is None and result.data is None
    assert phrase in result.error and "after 2 repair requests" in result.error
    assert result.text is not None and result.attempts == 3
    assert eng.stats.failures == 1 and eng.stats.errors == {kind: 1} and server.count() == 3
    assert_clean(result.error)


def test_lax_values_are_not_coerced_into_shape(server):
    server.script(*[json.dumps({"question": "What?", "score": "very high"})] * 2)
    [result] = engine(server).run(requests(1), Scored)
    assert result.value is None and "score" in result.error


def test_refusal_is_recorded_without_repair(server):
    server.script(refusal())
    eng = engine(server, repair_attempts=3)
    [result] = eng.run(requests(1), QA)
    assert result.error == "the model refused to answer" and result.value is None and result.text.startswith("I")
    assert server.count() == 1 and eng.stats.repairs == 0 and eng.stats.errors == {"refusal": 1}


def test_schema_without_model_is_checked_with_jsonschema(server):
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    server.script('{"n": "seven"}', '{"n": 7}')
    [result] = engine(server).run(requests(1, schema=schema))
    assert result.ok and result.value is None and result.data == {"n": 7} and result.attempts == 2


def test_plain_text_requests_return_text(server):
    server.responder = lambda body: "plain words"
    [result] = engine(server).run(requests(1))
    assert result.ok and result.text == "plain words" and result.value is None
    assert "response_format" not in server.chat_requests[0].body


def test_per_request_models(server):
    results = engine(server).run(requests(2), [QA, None])
    assert isinstance(results[0].value, QA) and results[1].value is None and results[1].ok
    with pytest.raises(ValueError, match="one per request"):
        engine(server).run(requests(2), [QA])


# ----------------------------------------------------------------- structured output modes


def test_server_without_json_schema_falls_back_once_to_json_object():
    with FakeOpenAIServer(json_schema=False) as srv:  # llama.cpp server behaviour
        eng = engine(srv, max_concurrency=8)
        results = eng.run(requests(10), QA)
        assert all(r.ok for r in results)
        assert eng.stats.structured_mode == "json_object"
        assert srv.count(status=500) == 1  # detected on the first request, remembered
        later = srv.chat_requests[-1].body
        # the schema as llama.cpp's grammar compiler can take it (a long maxLength crashes it)
        assert later["response_format"] == {"type": "json_object", "schema": grammar_schema(QA.model_json_schema())}
        assert "JSON schema" in later["messages"][-1]["content"]


def test_server_without_response_format_gets_schema_in_prompt():
    with FakeOpenAIServer(json_schema=False, json_object=False) as srv:
        eng = engine(srv)
        results = eng.run(requests(3), QA)
        assert all(r.ok for r in results) and eng.stats.structured_mode == "prompt"
        assert "response_format" not in srv.chat_requests[-1].body and eng.stats.retries == 0


# ----------------------------------------------------------------- transient failures


@pytest.mark.parametrize(
    "fault",
    [rate_limit(0.05), server_error(500), server_error(503), status(408), reset()],
    ids=["429", "500", "503", "408", "reset"],
)
def test_transient_failures_are_retried(server, fault):
    server.script(fault)
    eng = engine(server)
    [result] = eng.run(requests(1), QA)
    assert result.ok and result.attempts == 2 and server.count() == 2 and eng.stats.retries == 1


def test_retry_after_is_honoured(server):
    server.script(rate_limit(retry_after=0.6))
    [result] = engine(server).run(requests(1), QA)
    first, second = server.chat_requests
    assert result.ok and second.t_start - first.t_end >= 0.55  # backoff alone would be ~0.02 s


def test_a_reply_slower_than_the_timeout_is_retried(server):
    server.script(slow(1.5))
    eng = engine(server, timeout_s=0.4)
    [result] = eng.run(requests(1), QA)
    assert result.ok and result.attempts == 2 and eng.stats.retries == 1


def test_retries_are_bounded_and_recorded(server):
    server.script(*[server_error(500)] * 3)
    eng = engine(server, max_retries=2)
    [result] = eng.run(requests(1), QA)
    assert result.error == "HTTP 500 server error; gave up after 3 attempts"
    assert server.count() == 3 and eng.stats.errors == {"http_500": 1}


def test_bad_request_fails_fast_without_retry(server):
    server.script(status(400))
    eng = engine(server)
    results = eng.run(requests(2), QA)
    assert results[0].error == "HTTP 400 bad request: the server rejected the request"
    assert results[1].ok and server.count() == 2 and eng.stats.retries == 0


def test_too_long_retry_after_fails_instead_of_waiting(server):
    server.script(rate_limit(retry_after=3600))
    [result] = engine(server, max_retry_after_s=10).run(requests(1), QA)
    assert "more than llm.max_retry_after_s" in result.error and server.count() == 1


def test_no_secret_prompt_or_body_in_logs(server, caplog):
    server.script(rate_limit(0.01), server_error(500), reset(), invalid_json(), status(400))
    with caplog.at_level(logging.DEBUG, logger="qagen"):
        results = engine(server, max_concurrency=1).run(requests(3), QA)
    for result in results:
        if result.error:
            assert_clean(result.error)
    for record in caplog.records:
        if record.name.startswith("qagen"):
            assert_clean(record.getMessage())


# ----------------------------------------------------------------- authentication


def test_401_fails_fast_with_one_request_and_a_clear_message(monkeypatch):
    monkeypatch.setenv("QAGEN_TEST_KEY", "sk-wrong-key-123")
    with FakeOpenAIServer(api_key="sk-right-key") as srv:
        eng = LLMEngine(
            f"openai:fake-model@{srv.url}", fast_config(api_key_env="QAGEN_TEST_KEY", max_concurrency=8), None
        )
        with pytest.raises(AuthLLMError) as info:
            eng.run(requests(20), QA)
        message = str(info.value)
        assert message.startswith("authentication failed (HTTP 401): set QAGEN_TEST_KEY")
        assert "sk-wrong" not in message
        assert_clean(message)
        assert srv.count() == 1 and eng.stats.retries == 0 and eng.stats.stopped_reason == message


def test_missing_key_for_a_remote_server_fails_before_any_request(monkeypatch):
    monkeypatch.delenv("QAGEN_NO_SUCH_KEY", raising=False)
    llm = OpenAIBackend("gpt-4o-mini", api_key_env="QAGEN_NO_SUCH_KEY")
    with pytest.raises(AuthLLMError, match="no API key: set QAGEN_NO_SUCH_KEY"):
        LLMEngine(llm, fast_config()).run(requests(1), QA)


# ----------------------------------------------------------------- stops and budgets


def test_consecutive_failures_stop_the_run_cleanly(server):
    server.script(*[server_error(500)] * 50)
    eng = engine(server, max_retries=0, max_consecutive_failures=3, max_concurrency=1)
    results = eng.run(requests(10), QA)
    assert [r.ok for r in results].count(False) == 10 and server.count() == 3
    assert sum(r.error.startswith("not run: stopped (3 consecutive failures") for r in results) == 7
    assert eng.stats.stopped_reason.startswith("3 consecutive failures (last: HTTP 500")
    assert eng.stats.not_run == 7 and eng.stats.failures == 3 and eng.stats.requests == 10


def test_max_requests_budget_stops_before_it_is_exceeded(server):
    eng = engine(server, max_requests=5, max_concurrency=4)
    results = eng.run(requests(12), QA)
    done = [r for r in results if r.ok]
    assert len(done) == 5 and all(isinstance(r.value, QA) for r in done) and server.count() == 5
    assert all(r.error.startswith("not run: stopped (budget: llm.max_requests=5") for r in results if not r.ok)
    assert eng.stats.stopped_reason == "budget: llm.max_requests=5 reached" and eng.stats.not_run == 7
    s = eng.stats
    assert s.requests == s.cache_hits + s.succeeded + s.failures + s.not_run == 12


def test_cost_budget_stops_before_it_is_exceeded(server):
    prices = {"fake-model": [1000.0, 1000.0]}  # 0.001 USD per token
    eng = engine(server, prices=prices, max_cost_usd=0.5, max_tokens=40, max_concurrency=4)
    reqs = requests(30, max_tokens=40)
    estimate = eng.estimate(reqs, QA)
    results = eng.run(reqs, QA)
    ok = [r for r in results if r.ok]
    assert 0 < len(ok) < 30 and all(isinstance(r.value, QA) for r in ok)
    assert eng.stats.cost_usd <= 0.5 and "max_cost_usd=0.5" in eng.stats.stopped_reason
    assert server.count() == len(ok) and eng.stats.cost_known
    assert estimate["cost_usd_max"] > 0.5 and estimate["to_send"] == 30
    assert eng.stats.to_dict()["stopped_reason"] == eng.stats.stopped_reason


def test_cost_budget_needs_a_price():
    with pytest.raises(ValueError, match=r'llm\.max_cost_usd needs a price for model .* add llm\.prices\."nope"'):
        LLMEngine("openai:nope@http://127.0.0.1:9/v1", fast_config(max_cost_usd=1.0))


def test_usage_and_cost_are_counted_from_the_api(server):
    eng = engine(server, prices={"fake-model": [2.0, 4.0]})
    results = eng.run(requests(4), QA)
    prompt = sum(r.usage.prompt_tokens for r in results)
    completion = sum(r.usage.completion_tokens for r in results)
    assert (eng.stats.prompt_tokens, eng.stats.completion_tokens) == (prompt, completion)
    assert eng.stats.cost_usd == pytest.approx((prompt * 2 + completion * 4) / 1e6)
    estimate = eng.estimate(requests(4), QA)
    assert prompt / 2 <= estimate["prompt_tokens"] <= prompt * 2
    assert estimate["completion_tokens_max"] == 4 * 1024


def test_missing_usage_is_estimated(server):
    server.usage = False
    eng = engine(server)
    [result] = eng.run(requests(1), QA)
    assert result.ok and result.usage.prompt_tokens > 0 and eng.stats.completion_tokens > 0


def test_engine_accepts_specs_and_objects(server):
    llm = get_llm(f"openai:fake-model@{server.url}")
    assert LLMEngine(llm, fast_config()).run(requests(1), QA)[0].ok


# ----------------------------------------------------------------- no failure dropped, nothing leaked


class KeyedQA(BaseModel):
    """A response model whose validator has a bug: a reply without 'question' raises KeyError."""

    question: str
    answer: str

    @model_validator(mode="before")
    @classmethod
    def _lookup(cls, data: Any) -> Any:
        return {"question": data["question"], "answer": data.get("answer")}


def test_a_validator_that_crashes_is_a_recorded_failure_not_the_end_of_the_run(server):
    server.script(wrong_schema())  # {"unexpected": true}: the validator's data["question"] raises KeyError
    eng = engine(server, max_concurrency=1)
    results = eng.run(requests(3), KeyedQA)
    assert results[0].value is None and results[0].error == "checking the reply raised KeyError"
    assert results[0].text == '{"unexpected": true}' and results[0].attempts == 1  # no repair: not the reply's fault
    assert all(r.ok for r in results[1:]) and eng.stats.errors == {"check_error": 1} and server.count() == 3


def test_a_reply_nested_too_deep_for_json_does_not_end_the_run(server):
    server.script("[" * 5000)  # json.loads raises RecursionError, not JSONDecodeError
    results = engine(server, max_concurrency=1).run(requests(3), QA)
    assert all(r.ok for r in results[1:])
    first = results[0]  # recorded (or repaired, should the parser learn to call it invalid JSON)
    assert first.ok or first.error.startswith(("checking the reply raised RecursionError", "invalid JSON"))


class _OddBackend:
    """A backend that breaks the protocol: raises a bare LLMError, then returns no Completion."""

    id = model = "odd"

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, request: LLMRequest) -> Any:
        self.calls += 1
        if self.calls == 1:
            raise LLMError("odd backend: not available")
        return None if self.calls == 2 else Completion('{"question": "What?", "answer": "A."}')


def test_backend_errors_outside_the_protocol_are_recorded_and_the_run_goes_on():
    eng = LLMEngine(_OddBackend(), fast_config(max_concurrency=1))
    results = eng.run(requests(3), QA)
    assert [r.error for r in results] == [
        "odd backend: not available",
        "backend error: complete() returned NoneType",
        None,
    ]
    assert eng.stats.errors == {"backend_error": 2} and eng.stats.stopped_reason is None


def test_an_auth_failure_mid_run_lets_paid_calls_in_flight_finish_and_be_cached(tmp_path):
    cache = tmp_path / "llm.sqlite"
    with FakeOpenAIServer(qa_responder) as srv:
        # the probe passes; of the three calls that follow it, two are slow and one gets 401
        srv.script(ok(), slow(0.3), slow(0.3), unauthorized())
        eng = LLMEngine(f"openai:fake-model@{srv.url}", fast_config(max_concurrency=3), cache_path=cache)
        with pytest.raises(AuthLLMError, match=r"^authentication failed \(HTTP 401\)"):
            eng.run(requests(10), QA)
        assert srv.count() == 4  # nothing started after the 401
    with RequestCache(cache) as rows:
        assert len(rows) == 3  # the probe and both slow replies: paid for, so kept
    s = eng.stats
    assert (s.succeeded, s.failures, s.not_run, s.errors) == (3, 1, 6, {"auth": 1})
    assert s.requests == s.cache_hits + s.succeeded + s.failures + s.not_run == 10


def test_credentials_in_a_base_url_stay_out_of_the_stats_and_logs(caplog):
    spec = "openai:fake-model@https://user:sk-in-url-secret@llm.example.com/v1?api-key=sk-query-secret"
    with caplog.at_level(logging.INFO, logger="qagen"):
        eng = LLMEngine(spec, fast_config())
        eng.run([], QA)
    assert eng.stats.backend == "openai:fake-model@https://llm.example.com/v1"
    assert "secret" not in json.dumps(eng.stats.to_dict())
    assert all("secret" not in r.getMessage() for r in caplog.records)
    assert public_id("openai:m@http://127.0.0.1:8000/v1") == "openai:m@http://127.0.0.1:8000/v1"
    assert public_id("langchain:ChatOpenAI:m:0123abcd") == "langchain:ChatOpenAI:m:0123abcd"


def test_an_oversized_invalid_reply_is_cut_before_it_is_quoted_back():
    from qagen.config import LLMConfig
    from qagen.llm.fake import FakeLLM
    from qagen.llm.structured import repair_quote_limit

    padded = "x" * 5_000_000  # a reply padded to megabytes, not JSON
    fake = FakeLLM(replies=[padded, padded, json.dumps({"question": "What?", "answer": "This."})])
    eng = LLMEngine(fake, LLMConfig(repair_attempts=2))
    [result] = eng.run([LLMRequest((Message("user", "ask"),), max_tokens=256)], QA)
    assert result.ok and eng.stats.repairs == 2 and eng.stats.repairs_cut == 2
    limit = repair_quote_limit(fake.calls[0])
    for repair in fake.calls[1:]:
        quoted = repair.messages[1].content
        assert len(quoted) < limit + 100 and quoted.endswith("more characters of this reply cut]")
    assert eng.stats.to_dict()["repairs_cut"] == 2
