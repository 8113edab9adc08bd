"""Parts of the LLM layer without HTTP: parsing, pricing, pacing, registry, the in-process FakeLLM."""

from __future__ import annotations

import asyncio
import itertools
import subprocess
import sys
import time

import pytest
from pydantic import BaseModel

from qagen.config import Config, LLMConfig
from qagen.llm import (
    BadRequestLLMError,
    Completion,
    LLMEngine,
    LLMRequest,
    LLMSpecError,
    LLMStats,
    Message,
    TransientLLMError,
    Usage,
    get_llm,
    register_backend,
)
from qagen.llm.fake import FakeLLM
from qagen.llm.limits import Budget, BudgetExceeded, Pacer
from qagen.llm.openai_backend import OpenAIBackend
from qagen.llm.pricing import cost_of, estimate_prompt_tokens, price_for
from qagen.llm.registry import BACKENDS
from qagen.llm.structured import ReplyError, check_reply, extract_json, repair_request, with_schema_in_prompt
from tests.support.llm_server import fast_config


class QA(BaseModel):
    question: str
    answer: str


REQ = LLMRequest((Message("user", "hi"),), schema=QA.model_json_schema())


# ----------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1}',
        '  {"a": 1}\n',
        '```json\n{"a": 1}\n```',
        '```\n{"a": 1}\n```',
        'Here is the JSON: {"a": 1}',
    ],
)
def test_extract_json_accepts_plain_fenced_and_prefixed_json(text):
    assert extract_json(text) == {"a": 1}


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ('{"a": ', "invalid_json"),
        ('{"a": 1} and more', "invalid_json"),
        ("no", "invalid_json"),
    ],
)
def test_extract_json_rejects_what_is_not_one_json_value(text, kind):
    with pytest.raises(ReplyError) as info:
        extract_json(text)
    assert info.value.kind == kind


def test_check_reply_outcomes():
    assert check_reply(Completion('{"question": "q", "answer": "a"}'), REQ, QA).value == QA(question="q", answer="a")
    with pytest.raises(ReplyError, match="answer: Field required") as info:
        check_reply(Completion('{"question": "q"}'), REQ, QA)
    assert info.value.kind == "wrong_schema"
    with pytest.raises(ReplyError) as info:
        check_reply(Completion('{"question": "q", "ans', finish_reason="length"), REQ, QA)
    assert info.value.kind == "truncated"
    with pytest.raises(ReplyError) as info:
        check_reply(Completion("", refusal="no"), REQ, QA)
    assert info.value.kind == "refusal"
    with pytest.raises(ReplyError) as info:
        check_reply(Completion("text", finish_reason="content_filter"), REQ, None)
    assert info.value.kind == "refusal"


def test_repair_request_keeps_the_original_and_adds_reply_and_error():
    error = ReplyError("invalid_json", "invalid JSON: Expecting value at line 1 column 1")
    repaired = repair_request(REQ, "oops", error)
    assert repaired.messages[:1] == REQ.messages and repaired.messages[1] == Message("assistant", "oops")
    assert "invalid JSON: Expecting value" in repaired.messages[2].content
    assert (repaired.schema, repaired.seed, repaired.sample_index) == (REQ.schema, REQ.seed, REQ.sample_index)


def test_schema_in_prompt_goes_into_the_last_user_message():
    messages = (Message("system", "s"), Message("user", "u1"), Message("assistant", "a"), Message("user", "u2"))
    out = with_schema_in_prompt(messages, {"type": "object"})
    assert out[:3] == messages[:3] and out[3].content.startswith("u2\n\nReply with only a JSON object")
    assert out[3].content.endswith('{"type":"object"}')


# ----------------------------------------------------------------- pricing and estimates


def test_price_lookup_exact_prefix_provider_and_unknown():
    prices = {"gpt-4o": [2.5, 10.0], "gpt-4o-mini": [0.15, 0.6]}
    assert price_for("gpt-4o-mini", prices) == (0.15, 0.6)
    assert price_for("gpt-4o-mini-2024-07-18", prices) == (0.15, 0.6)
    assert price_for("openai/gpt-4o", prices) == (2.5, 10.0)
    assert price_for("llama3", prices) is None
    assert cost_of(Usage(1_000_000, 1_000_000), (0.15, 0.6)) == pytest.approx(0.75)
    with pytest.raises(ValueError, match=r"llm.prices.bad must be \[prompt, completion\]"):
        price_for("bad", {"bad": [1.0]})


def test_conservative_estimate_is_larger():
    request = LLMRequest((Message("user", "word " * 400),))
    assert estimate_prompt_tokens(request, conservative=True) > estimate_prompt_tokens(request) > 400


# ----------------------------------------------------------------- limits


def test_pacer_spaces_request_starts():
    async def go() -> list[float]:
        pacer = Pacer(requests_per_minute=1200)  # one every 50 ms
        stamps = []

        async def one() -> None:
            await pacer.acquire(10)
            stamps.append(time.monotonic())

        await asyncio.gather(*(one() for _ in range(6)))
        return stamps

    stamps = sorted(asyncio.run(go()))
    assert all(b - a >= 0.0499 for a, b in itertools.pairwise(stamps))


def test_budget_reserves_worst_case_and_settles():
    budget = Budget(max_requests=None, max_cost_usd=1.0)
    budget.reserve(0.6)
    with pytest.raises(BudgetExceeded, match=r"max_cost_usd=1\.0"):
        budget.reserve(0.6)
    budget.settle(0.6, 0.1)
    budget.reserve(0.6)
    counted = Budget(max_requests=1, max_cost_usd=None)
    counted.reserve(0.0)
    with pytest.raises(BudgetExceeded, match="max_requests=1 reached"):
        counted.reserve(0.0)


# ----------------------------------------------------------------- registry


def test_openai_specs():
    llm = get_llm("openai:gpt-4o-mini")
    assert isinstance(llm, OpenAIBackend) and llm.id == "openai:gpt-4o-mini" and llm.base_url is None
    local = get_llm("openai:qwen2.5:7b@http://127.0.0.1:8000/v1/")
    assert (local.model, local.base_url) == ("qwen2.5:7b", "http://127.0.0.1:8000/v1")
    assert local.id == "openai:qwen2.5:7b@http://127.0.0.1:8000/v1"
    configured = get_llm("openai:m", Config(llm=LLMConfig(base_url="http://h:1/v1", structured_output="prompt")))
    assert configured.base_url == "http://h:1/v1" and configured.structured_mode == "prompt"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("extractive", "'extractive' is not an LLM"),
        ("llamacpp:model.gguf", "model file not found: model.gguf"),  # the install hint: test_llm_local.py
        ("openai:", "needs a model"),
        ("langchain:x", "pass a LangChain chat model"),
        ("gemini:pro", "unknown LLM backend 'gemini:pro'; valid: openai:<model>"),
    ],
)
def test_specs_that_are_not_usable_llms_explain_themselves(spec, message):
    with pytest.raises(LLMSpecError, match=message):
        get_llm(spec)


def test_objects_pass_through_and_others_are_refused():
    fake = FakeLLM(lambda r: "x")
    assert get_llm(fake) is fake
    with pytest.raises(TypeError, match="llm must be a spec string"):
        get_llm(42)


def test_register_backend():
    register_backend("fakeecho", lambda rest, config: FakeLLM(lambda r: rest, model=rest))
    try:
        assert get_llm("fakeecho:abc").model == "abc"
    finally:
        BACKENDS.pop("fakeecho")
    with pytest.raises(ValueError, match="backend name"):
        register_backend("Bad Name", lambda rest, config: FakeLLM())


def test_import_qagen_llm_stays_light():
    code = "import sys, qagen.llm; print(sorted(m for m in ('openai', 'langchain_core', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# ----------------------------------------------------------------- engine with the in-process fake


def test_engine_with_fake_llm_retries_and_classifies():
    llm = FakeLLM(
        lambda r: '{"question": "q", "answer": "a"}',
        replies=[
            TransientLLMError("HTTP 503 service unavailable"),
            '{"question": "q", "answer": "a"}',
            BadRequestLLMError("HTTP 400 bad request"),
        ],
    )
    eng = LLMEngine(llm, fast_config(max_concurrency=1))
    results = eng.run([LLMRequest((Message("user", f"{i}"),)) for i in range(2)], QA)
    assert results[0].ok and results[0].attempts == 2
    assert results[1].error == "HTTP 400 bad request" and len(llm.calls) == 3 and eng.stats.retries == 1


def test_unknown_backend_exceptions_become_one_line_failures():
    llm = FakeLLM(replies=[RuntimeError("secret stack detail")], model="m")
    [result] = LLMEngine(llm, fast_config()).run([REQ], QA)
    assert result.error == "backend error: RuntimeError"


def test_stats_add_and_to_dict():
    a = LLMStats(backend="b", requests=2, cost_usd=0.5, errors={"x": 1})
    b = LLMStats(requests=3, cost_usd=0.25, errors={"x": 2, "y": 1}, stopped_reason="why")
    total = a + b
    assert (total.requests, total.cost_usd, total.errors, total.stopped_reason) == (5, 0.75, {"x": 3, "y": 1}, "why")
    assert set(total.to_dict()) >= {
        "requests_sent", "cache_hits", "retries", "repairs", "failures", "prompt_tokens", "completion_tokens",
        "cost_usd", "stopped_reason", "elapsed_s",
    }  # fmt: skip


def test_progress_bar_and_repeated_runs_accumulate_stats(capsys):
    llm = FakeLLM(lambda r: '{"question": "q", "answer": "a"}')
    eng = LLMEngine(llm, fast_config(), progress=True)
    eng.run([REQ], QA)
    eng.run([REQ, REQ], QA)
    assert (eng.stats.requests, eng.stats.succeeded, eng.stats.requests_sent) == (3, 3, 3)
    assert "llm" in capsys.readouterr().err
