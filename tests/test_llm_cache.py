"""The request cache: keys, reuse only when valid, and resume after SIGKILL without repeated requests."""

from __future__ import annotations

import dataclasses
import json
import math
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from qagen.llm import LLMEngine, LLMRequest, LLMStats, Message
from qagen.llm.cache import RequestCache, request_key
from tests.support.llm_server import (
    FakeOpenAIServer,
    default_responder,
    fast_config,
    invalid_json,
    last_user_text,
    server_error,
)


class QA(BaseModel):
    question: str
    answer: str


class Other(BaseModel):
    title: str


def requests(n: int, **kw) -> list[LLMRequest]:
    return [LLMRequest((Message("system", "be brief"), Message("user", f"item {i}")), **kw) for i in range(n)]


@pytest.fixture
def server():
    with FakeOpenAIServer(latency=0.01) as srv:
        yield srv


def engine(server, cache: Path, **overrides) -> LLMEngine:
    return LLMEngine(f"openai:fake-model@{server.url}", fast_config(**overrides), cache_path=cache)


# ----------------------------------------------------------------- keys

BASE = LLMRequest((Message("user", "hi"),), schema={"type": "object"}, temperature=0.5, max_tokens=10, seed=1)


@pytest.mark.parametrize(
    "change",
    [
        {"messages": (Message("user", "hi!"),)},
        {"messages": (Message("system", "hi"),)},
        {"schema": {"type": "array"}},
        {"schema": None},
        {"temperature": 0.6},
        {"max_tokens": 11},
        {"seed": 2},
        {"sample_index": 1},
        {"schema_name": "other"},
    ],
)
def test_every_defining_field_changes_the_key(change):
    assert request_key("openai:m", "m", dataclasses.replace(BASE, **change)) != request_key("openai:m", "m", BASE)


def test_key_ignores_the_tag_and_names_backend_and_model():
    assert request_key("openai:m", "m", dataclasses.replace(BASE, tag="x")) == request_key("openai:m", "m", BASE)
    assert request_key("openai:m@http://a/v1", "m", BASE) != request_key("openai:m", "m", BASE)
    assert request_key("openai:m", "n", BASE) != request_key("openai:m", "m", BASE)
    assert len(request_key("openai:m", "m", BASE)) == 64


# ----------------------------------------------------------------- reuse


def test_rerun_pays_nothing_and_gives_the_same_values(server, tmp_path):
    cache = tmp_path / "llm.sqlite"
    first = engine(server, cache).run(requests(10), QA)
    rerun_engine = engine(server, cache, max_concurrency=2, max_retries=1)  # settings that define no request
    second = rerun_engine.run(requests(10), QA)
    assert server.count() == 10
    assert [r.value for r in second] == [r.value for r in first] and all(r.cached for r in second)
    assert all(r.attempts == 0 and r.usage == f.usage for r, f in zip(second, first, strict=True))
    stats = rerun_engine.stats
    assert (stats.cache_hits, stats.requests_sent, stats.prompt_tokens, stats.cost_usd) == (10, 0, 0, 0.0)
    assert rerun_engine.estimate(requests(10), QA)["to_send"] == 0


PRICES = {"fake-model": [2.0, 8.0]}  # USD per million prompt / completion tokens


def server_usage(bodies: list[dict]) -> tuple[int, int]:
    """The usage the fake server reports for these chat requests (its rule: ceil(chars / 4) tokens,
    4 more per message, the response_format counted as prompt; the reply is default_responder's)."""

    def tokens(text: str) -> int:
        return math.ceil(len(text) / 4)

    prompt = sum(tokens(m["content"]) + 4 for b in bodies for m in b["messages"])
    prompt += sum(tokens(json.dumps(b["response_format"])) for b in bodies)
    return prompt, sum(tokens(json.dumps(default_responder(b))) for b in bodies)


def test_a_resumed_run_reports_what_its_cached_replies_cost(server, tmp_path):
    # what the whole dataset costs, with no cache at all: the server's usage, to the token
    reference = engine(server, None, prices=PRICES)
    reference.run(requests(10), QA)
    total = reference.stats
    assert (total.prompt_tokens, total.completion_tokens) == server_usage([r.body for r in server.chat_requests])
    assert total.completion_tokens > 0 and total.cached_prompt_tokens == 0
    server.reset_log()

    cache = tmp_path / "llm.sqlite"
    first = engine(server, cache, prices=PRICES, max_requests=4)  # stops after 4 paid requests, as a kill would
    first_results = first.run(requests(10), QA)
    paid = [r for r in first_results if r.ok]
    assert len(paid) == 4 and (first.stats.cached_prompt_tokens, first.stats.cached_cost_usd) == (0, 0.0)
    paid_tokens = server_usage([r.body for r in server.chat_requests])
    assert (first.stats.prompt_tokens, first.stats.completion_tokens) == paid_tokens

    resumed = engine(server, cache, prices=PRICES)
    results = resumed.run(requests(10), QA)
    s = resumed.stats
    assert all(r.ok for r in results) and s.cache_hits == 4 and s.requests_sent == 6
    # the replayed replies: exactly what the first run paid for them
    assert (s.cached_prompt_tokens, s.cached_completion_tokens) == paid_tokens
    assert s.cached_cost_usd == pytest.approx(first.stats.cost_usd)
    # paid now + replayed = the whole dataset, to the token
    assert s.prompt_tokens + s.cached_prompt_tokens == total.prompt_tokens
    assert s.completion_tokens + s.cached_completion_tokens == total.completion_tokens
    assert s.cost_usd + s.cached_cost_usd == pytest.approx(total.cost_usd)
    assert s.prompt_tokens == sum(r.usage.prompt_tokens for r in results if not r.cached)
    manifest = s.to_dict()
    assert manifest["cached_prompt_tokens"] == first.stats.prompt_tokens
    assert manifest["cached_cost_usd"] == round(first.stats.cost_usd, 6)

    # a third run replays everything: nothing paid, the whole dataset in the cached figures
    again = engine(server, cache, prices=PRICES)
    again.run(requests(10), QA)
    a = again.stats
    assert (a.prompt_tokens, a.completion_tokens, a.cost_usd) == (0, 0, 0.0)
    assert (a.cached_prompt_tokens, a.cached_completion_tokens) == (total.prompt_tokens, total.completion_tokens)
    assert a.cached_cost_usd == pytest.approx(total.cost_usd)


def test_cached_figures_add_up_across_runs():
    a = LLMStats(prompt_tokens=5, cached_prompt_tokens=7, cached_completion_tokens=3, cached_cost_usd=0.25)
    b = LLMStats(prompt_tokens=1, cached_prompt_tokens=2, cached_completion_tokens=4, cached_cost_usd=0.5)
    total = a + b
    assert (total.prompt_tokens, total.cached_prompt_tokens, total.cached_completion_tokens) == (6, 9, 7)
    assert total.cached_cost_usd == 0.75
    assert {"cached_prompt_tokens", "cached_completion_tokens", "cached_cost_usd"} <= set(total.to_dict())


def test_a_changed_request_misses_the_cache(server, tmp_path):
    cache = tmp_path / "llm.sqlite"
    engine(server, cache).run(requests(4), QA)
    engine(server, cache).run(requests(4, temperature=0.1), QA)
    assert server.count() == 8


def test_cached_reply_is_reused_only_when_it_validates(server, tmp_path):
    cache = tmp_path / "llm.sqlite"
    reqs = requests(3, schema=QA.model_json_schema())
    engine(server, cache).run(reqs, QA)
    # Same requests (same key), but the caller now expects another model: the cached text fails it.
    server.responder = lambda body: {"title": "T"}
    results = engine(server, cache).run(reqs, Other)
    assert server.count() == 6 and all(r.ok and not r.cached and r.value == Other(title="T") for r in results)


def test_an_invalid_reply_is_replayed_not_paid_again(server, tmp_path):
    cache = tmp_path / "llm.sqlite"
    server.script(invalid_json(), invalid_json())
    first = engine(server, cache, repair_attempts=1)
    [failed] = first.run(requests(1), QA)
    assert not failed.ok and "after 1 repair request" in failed.error and server.count() == 2
    eng = engine(server, cache, repair_attempts=1)
    [again] = eng.run(requests(1), QA)
    assert again.error == failed.error and again.cached and server.count() == 2  # nothing sent
    assert eng.stats.cache_hits == 1 and eng.stats.failures == 1 and eng.stats.requests_sent == 0
    # both calls of the failure were paid for in the first run: the replay reports them, not as paid now
    assert (eng.stats.prompt_tokens, eng.stats.completion_tokens) == (0, 0)
    cached = (eng.stats.cached_prompt_tokens, eng.stats.cached_completion_tokens)
    assert cached == (first.stats.prompt_tokens, first.stats.completion_tokens)
    assert again.usage == failed.usage and failed.usage.prompt_tokens == first.stats.prompt_tokens > 0
    # more repairs allowed now: the request is asked again (and this time answered)
    [more] = engine(server, cache, repair_attempts=2).run(requests(1), QA)
    assert more.ok and not more.cached and server.count() == 3
    with RequestCache(cache) as rows:
        assert len(rows) == 1  # the valid reply replaced the stored failure
    import sqlite3

    assert sqlite3.connect(cache).execute("SELECT failure FROM replies").fetchall() == [(None,)]


def test_failures_are_asked_again_when_not_cached(server, tmp_path):
    cache = tmp_path / "llm.sqlite"
    server.script(invalid_json())
    [failed] = engine(server, cache, repair_attempts=0, cache_failures=False).run(requests(1), QA)
    assert not failed.ok
    [again] = engine(server, cache, repair_attempts=0, cache_failures=False).run(requests(1), QA)
    assert again.ok and not again.cached and server.count() == 2
    with RequestCache(cache) as rows:
        assert len(rows) == 1


def test_transient_failures_are_never_cached(server, tmp_path):
    cache = tmp_path / "llm.sqlite"
    server.script(*[server_error(500)] * 3)
    [failed] = engine(server, cache, max_retries=2).run(requests(1), QA)
    assert not failed.ok
    [again] = engine(server, cache, max_retries=2).run(requests(1), QA)
    assert again.ok and not again.cached and server.count() == 4


def test_a_cache_from_before_failures_were_stored_is_upgraded(server, tmp_path):
    import sqlite3

    cache = tmp_path / "llm.sqlite"
    old = sqlite3.connect(cache)
    old.execute(
        "CREATE TABLE replies (key TEXT PRIMARY KEY, backend TEXT NOT NULL, model TEXT NOT NULL, text TEXT NOT NULL,"
        " prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, attempts INTEGER NOT NULL,"
        " created REAL NOT NULL)"
    )
    old.commit()
    old.close()
    assert all(r.ok for r in engine(server, cache).run(requests(2), QA))
    again = engine(server, cache).run(requests(2), QA)
    assert all(r.cached for r in again) and server.count() == 2


def test_a_budget_stop_then_a_rerun_sends_only_the_rest(server, tmp_path):
    cache = tmp_path / "llm.sqlite"
    stopped = engine(server, cache, max_requests=4).run(requests(10), QA)
    assert sum(r.ok for r in stopped) == 4
    resumed = engine(server, cache).run(requests(10), QA)
    assert all(r.ok for r in resumed) and sum(r.cached for r in resumed) == 4 and server.count() == 10


def test_an_unreadable_cache_file_says_what_to_do(server, tmp_path):
    cache = tmp_path / "llm.sqlite"
    cache.write_bytes(b"this is not a database" * 100)
    with pytest.raises(ValueError, match=r"cannot be used .*; delete it to start a new cache"):
        engine(server, cache).run(requests(1), QA)


# ----------------------------------------------------------------- SIGKILL and resume

WORKER = textwrap.dedent(
    """
    import sys
    from pydantic import BaseModel
    from qagen.config import LLMConfig
    from qagen.llm import LLMEngine, LLMRequest, Message

    class QA(BaseModel):
        question: str
        answer: str

    url, cache, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    reqs = [LLMRequest((Message("system", "be brief"), Message("user", f"item {i}"))) for i in range(n)]
    engine = LLMEngine(f"openai:fake-model@{url}", LLMConfig(max_concurrency=4), cache_path=cache)
    results = engine.run(reqs, QA)
    s = engine.stats
    print(sum(r.ok for r in results), s.cache_hits, s.requests_sent, s.prompt_tokens, s.completion_tokens,
          s.cached_prompt_tokens, s.cached_completion_tokens, flush=True)
    """
)


def _spawn(url: str, cache: Path, n: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WORKER, url, str(cache), str(n)], stdout=subprocess.PIPE, text=True)


def _texts(items: set[int]) -> set[str]:
    return {f"item {i}" for i in items}


def _cached_items(cache: Path, url: str, n: int) -> set[int]:
    """Which items the killed run completed: their keys are in the cache (schema filled from QA)."""
    schema = QA.model_json_schema()
    keys = {
        request_key(f"openai:fake-model@{url}", "fake-model", dataclasses.replace(r, schema=schema)): i
        for i, r in enumerate(requests(n))
    }
    with RequestCache(cache) as rows:
        assert len(rows) == len(rows.get_many(keys))  # nothing else was written
        return {keys[k] for k in rows.get_many(keys)}


def test_sigkill_midway_then_rerun_repeats_no_completed_request(tmp_path):
    n = 48
    cache = tmp_path / "llm.sqlite"
    with FakeOpenAIServer(latency=0.05) as srv:
        proc = _spawn(srv.url, cache, n)
        deadline = time.monotonic() + 60
        while srv.count() < n // 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL, "the worker finished before it could be killed"
        first_run = srv.user_texts()
        done = _cached_items(cache, srv.url, n)
        assert 0 < len(done) < n
        paid_for_done = server_usage([r.body for r in srv.chat_requests if last_user_text(r.body) in _texts(done)])

        srv.reset_log()
        rerun = _spawn(srv.url, cache, n)
        out, _ = rerun.communicate(timeout=60)
        resent = srv.user_texts()
        paid_now = server_usage([r.body for r in srv.chat_requests])

    ok, hits, sent, prompt, completion, cached_prompt, cached_completion = map(int, out.split())
    assert ok == n and hits == len(done) and sent == n - len(done)
    # the manifest's figures: the rerun's calls as paid, the killed run's completed replies as cached
    assert (prompt, completion) == paid_now and (cached_prompt, cached_completion) == paid_for_done
    assert sorted(resent) == sorted(f"item {i}" for i in range(n) if i not in done)  # the server saw only the rest
    assert {f"item {i}" for i in done} <= set(first_run)
