"""`qagen build` with an LLM: the real openai client against a local OpenAI-compatible server.

The server answers like a careful model would: questions about the section it was shown,
answers copied from that section, the requested entity in factoid answers, MCQ options with
the correct one taken from the passages. Then: all three item types come out, the requested
Bloom x scenario mix is met, a killed build resumes without repeating paid requests, faults
and malformed replies lose nothing, a budget stop keeps valid artifacts.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from qagen import build
from tests.support.fast import FAST_COMPONENTS
from tests.support.grounded import grounded_responder
from tests.support.llm_server import FakeOpenAIServer, ServerProcess, invalid_json, rate_limit, reset, server_error

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "docs"
FAST = [
    *FAST_COMPONENTS,
    "folds.samples_total=24",
    "generate.long_form_per_section=2",
    "llm.backoff_base_s=0.01",
    "llm.backoff_max_s=0.05",
]


def _llm_overrides(url: str) -> list[str]:
    return [*FAST, f'llm.backend="openai:fake-model@{url}"']


@pytest.fixture(scope="module")
def llm_build(tmp_path_factory):
    with FakeOpenAIServer(grounded_responder) as server:
        out = tmp_path_factory.mktemp("llm") / "out"
        build(EXAMPLES, out, overrides=_llm_overrides(server.url))
        yield out, server.count(), server.url


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_llm_path_produces_all_types_with_provenance(llm_build):
    out, n_requests, _ = llm_build
    items = _jsonl(out / "items.jsonl")
    assert {it["type"] for it in items} == {"long_form", "factoid", "mcq"}
    for it in items:
        assert it["generator"]["backend"].startswith("openai:fake-model@")
        assert it["generator"]["prompt_hash"]
        assert it["source"]["section_ids"] and it["source"]["page_ids"]
    manifest = json.loads((out / "manifest.json").read_text())
    llm = manifest["stages"]["generate"]["llm"]
    judged = (manifest["stages"]["splits"].get("llm") or {}).get("requests_sent", 0)
    assert llm["requests_sent"] + judged == n_requests and llm["requests_sent"] > 0
    assert llm["prompt_tokens"] > 0 and llm["completion_tokens"] > 0


def test_requested_bloom_scenario_mix_is_met(llm_build):
    """Levels are requested as asked (a quarter each, kept in labels_asked when the item was relabelled); a label
    is what the item's evidence and the label judge show, never a pair that contradicts itself (the test server
    quotes one sentence, so S2 and S3 requests come back as S1, and B4 at S1 is lowered)."""
    out, _, _ = llm_build
    mcq = [c for c in _jsonl(out / "candidates.jsonl") if c["type"] == "mcq"]
    requested = Counter((c.get("labels_asked") or f"{c['bloom']}/{c['scenario']}").split("/")[0] for c in mcq)
    for bloom in ("B1", "B2", "B3", "B4"):
        assert abs(requested[bloom] - len(mcq) / 4) <= 1.5, requested
    assert all(c["scenario"] in ("S1", "S2", "S3") for c in mcq)
    assert not any((c["bloom"], c["scenario"]) in {("B1", "S2"), ("B1", "S3"), ("B4", "S1")} for c in mcq)
    assert any(c.get("labels_asked") for c in mcq)  # the checks changed some labels, and said what was asked


def test_rerun_pays_nothing(llm_build, tmp_path):
    out, _, _ = llm_build
    with FakeOpenAIServer(grounded_responder) as server:
        # a new server means a new URL, so a forced rerun of generation against the same
        # out folder would miss the cache by design; instead rerun with the original spec
        # and prove no stage reruns at all
        result = build(EXAMPLES, out, overrides=_llm_overrides(llm_build[2]))
        assert result.ran == [] and server.count() == 0


def test_faults_and_malformed_json_lose_nothing(tmp_path, llm_build):
    clean_out, _, _ = llm_build
    faults = [rate_limit(0.01), server_error(500), server_error(503), reset(), invalid_json()]
    with FakeOpenAIServer(
        grounded_responder, fault_rate=0.25, faults=faults, seed=3, max_consecutive_faults=2
    ) as server:
        out = tmp_path / "out"
        build(EXAMPLES, out, overrides=[*_llm_overrides(server.url), "llm.repair_attempts=2"])
        manifest = json.loads((out / "manifest.json").read_text())
        llm = manifest["stages"]["generate"]["llm"]
        assert llm["retries"] > 0 and llm["repairs"] >= 1
        assert manifest["stages"]["generate"]["counts"]["failed_requests"] == 0
    # same candidates as the fault-free run, apart from the backend id (it names the URL)
    strip = lambda rows: sorted((r["type"], r["question"], r["answer"]) for r in rows)  # noqa: E731
    assert strip(_jsonl(out / "candidates.jsonl")) == strip(_jsonl(clean_out / "candidates.jsonl"))


def test_budget_stop_keeps_valid_artifacts(tmp_path):
    with FakeOpenAIServer(grounded_responder) as server:
        out = tmp_path / "out"
        build(EXAMPLES, out, overrides=[*_llm_overrides(server.url), "llm.max_requests=5"])
        assert server.count() <= 5
    manifest = json.loads((out / "manifest.json").read_text())
    assert "max_requests" in manifest["stages"]["generate"]["llm"]["stopped_reason"]
    assert (out / "items.jsonl").is_file()
    failures = _jsonl(out / "generation_failures.jsonl")
    # the requests the budget left unsent are recorded; a reply repeating an earlier question is too
    assert any(f["filter"] == "generation" for f in failures)
    assert {f["filter"] for f in failures} <= {"generation", "exact_repeat"}, Counter(f["filter"] for f in failures)


def test_stopped_generation_is_incomplete_and_the_rerun_finishes_it(tmp_path):
    """A provider outage stops the run: the stage is recorded as incomplete (not ok), and the
    next build (same command, provider back) sends only what is missing."""
    out = tmp_path / "out"
    with FakeOpenAIServer(grounded_responder, fault_rate=1.0, faults=[server_error(503)], seed=1) as server:
        settings = [*_llm_overrides(server.url), "llm.max_retries=0", "llm.max_consecutive_failures=3"]
        first = build(EXAMPLES, out, overrides=settings, until="generate")
        entry = json.loads((out / "manifest.json").read_text())["stages"]["generate"]
        assert entry["status"] == "incomplete" and "stopped" in entry["incomplete_reason"]
        assert "generate" in first.incomplete and (out / "candidates.jsonl").is_file()
        server.fault_rate = 0.0  # the provider is back
        before = server.count()
        second = build(EXAMPLES, out, overrides=settings, until="generate")
        sent = server.count() - before
        third = build(EXAMPLES, out, overrides=settings, until="generate")
        assert server.count() == before + sent  # nothing left to send
    llm = json.loads((out / "manifest.json").read_text())["stages"]["generate"]["llm"]
    assert "generate" in second.ran and not second.incomplete
    assert sent == llm["requests"] == llm["succeeded"]  # the outage answered nothing: all sent once now
    assert "generate" in third.skipped and not third.incomplete


def test_requests_failed_after_retries_are_sent_again_and_only_they(tmp_path):
    out = tmp_path / "out"
    with FakeOpenAIServer(grounded_responder, fault_rate=0.3, faults=[server_error(500)], seed=3) as server:
        # generation requests only: the label judge's batches change when the MCQs they hold do
        settings = [*_llm_overrides(server.url), "llm.max_retries=0", "llm.max_consecutive_failures=1000",
                    "generate.label_judge=false"]  # fmt: skip
        partial = build(EXAMPLES, out, overrides=settings, until="generate")
        stats = json.loads((out / "manifest.json").read_text())["stages"]["generate"]["llm"]
        assert stats["failures"] > 0 and stats["errors"] == {"http_500": stats["failures"]}
        assert "failed and will be sent again" in partial.incomplete["generate"]
        server.fault_rate = 0.0
        before = server.count()
        done = build(EXAMPLES, out, overrides=settings, until="generate")
        assert server.count() - before == stats["failures"]  # the others come from the cache
    assert not done.incomplete
    after = json.loads((out / "manifest.json").read_text())["stages"]["generate"]
    assert after["status"] == "ok" and after["llm"]["cache_hits"] == stats["succeeded"]


def test_a_langchain_model_build_resumes_like_a_spec(tmp_path):
    """build(llm=<LangChain chat model>): a rerun with an equal model skips generation."""
    from langchain_openai import ChatOpenAI

    out = tmp_path / "out"
    with FakeOpenAIServer(grounded_responder) as server:

        def model(**kw) -> ChatOpenAI:
            return ChatOpenAI(model="fake-model", base_url=server.url, api_key="sk-test", max_retries=0, **kw)

        first = build(EXAMPLES, out, overrides=FAST, llm=model(), until="generate")
        sent = server.count()
        second = build(EXAMPLES, out, overrides=FAST, llm=model(), until="generate")
        assert server.count() == sent
        other = build(EXAMPLES, out, overrides=FAST, llm=model(top_p=0.5), until="generate")
    assert "generate" in first.ran and sent > 0
    assert "generate" in second.skipped
    assert "generate" in other.ran  # another model setting is another fingerprint


def test_cli_exit_code_3_when_generation_is_incomplete(tmp_path):
    with FakeOpenAIServer(grounded_responder, fault_rate=1.0, faults=[server_error(503)], seed=1) as server:
        args = [sys.executable, "-m", "qagen.cli", "build", str(EXAMPLES), "-o", str(tmp_path / "out"), "-q"]
        args += ["--until", "generate"]
        for item in [*_llm_overrides(server.url), "llm.max_retries=0", "llm.max_consecutive_failures=2"]:
            args += ["--set", item]
        done = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert done.returncode == 3, done.stderr[-2000:]
    assert "incomplete: generate: stopped" in done.stderr and "rerun the same command" in done.stderr


def _answered(srv: ServerProcess) -> int:
    return srv.stats()["statuses"].get("200", 0)


def test_killed_generation_resumes_without_repeating_requests(tmp_path):
    out = tmp_path / "out"
    # the server runs in its own process, so the build can be killed without taking the
    # server's request log with it
    with ServerProcess(latency=0.05, responder="grounded") as srv:
        args = [sys.executable, "-m", "qagen.cli", "build", str(EXAMPLES), "-o", str(out), "-q"]
        for item in _llm_overrides(srv.url):
            args += ["--set", item]
        args += ["--set", "llm.max_concurrency=2"]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 180
        while _answered(srv) < 10 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done_before = _answered(srv)
        assert done_before >= 10
        rerun = subprocess.run(args, capture_output=True, text=True)
        assert rerun.returncode == 0, rerun.stderr
        manifest = json.loads((out / "manifest.json").read_text())
        llm = manifest["stages"]["generate"]["llm"]
        assert llm["cache_hits"] > 0 and llm["succeeded"] + llm["cache_hits"] == llm["requests"]
        # no prompt reached the server twice, except the ones in flight when the kill came
        texts = srv.stats()["user_texts"]
        assert len(texts) - len(set(texts)) <= 2  # max_concurrency
