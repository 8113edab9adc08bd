"""The build's preflight: one cheap call to the OpenAI-compatible endpoint before anything is parsed."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from qagen.cli import cli
from qagen.commands.build import build
from qagen.llm.base import AuthLLMError
from qagen.llm.preflight import EndpointLLMError, shown_url
from tests.support.llm_server import FakeOpenAIServer

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "docs"


def _dead_url() -> str:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_a_dead_endpoint_stops_the_build_before_parsing_with_its_url(tmp_path: Path) -> None:
    url = _dead_url()
    with pytest.raises(EndpointLLMError, match="cannot be reached") as caught:
        build(EXAMPLES, tmp_path / "out", llm=f"openai:some-model@{url}")
    assert url in str(caught.value) and "--no-preflight" in str(caught.value)
    assert not (tmp_path / "out" / "sections.jsonl").exists()  # nothing was parsed


def test_a_missing_key_is_said_once_before_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    res = CliRunner().invoke(cli, ["build", str(EXAMPLES), "-o", str(tmp_path / "out"), "--llm",
                                   "openai:gpt-4o-mini@https://llm.invalid/v1"])  # fmt: skip
    assert res.exit_code == 1, res.output
    assert res.output.count("no API key: set OPENAI_API_KEY") == 1, res.output
    assert "parse" not in res.output and not (tmp_path / "out" / "sections.jsonl").exists()


def test_a_url_without_its_api_path_and_a_refused_key_are_named(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with FakeOpenAIServer(api_key="sk-right") as server:
        bare = server.url.removesuffix("/v1")
        with pytest.raises(EndpointLLMError, match=r"HTTP 404 .*missing its API path, such as /v1"):
            build(EXAMPLES, tmp_path / "a", llm=f"openai:fake-model@{bare}")
        with pytest.raises(AuthLLMError, match=r"refused the key \(HTTP 401\)") as caught:
            build(EXAMPLES, tmp_path / "b", llm=f"openai:fake-model@{server.url}")
        assert "SECRET" not in str(caught.value) and "sk-wrong" not in str(caught.value)
        assert server.count() == 0  # no chat request was sent


def test_a_live_endpoint_passes_with_one_call_and_the_check_can_be_skipped(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-right")
    with FakeOpenAIServer(api_key="sk-right") as server:
        build(EXAMPLES, tmp_path / "ok", llm=f"openai:fake-model@{server.url}", until="parse")
        assert server.models_requests == 1
        assert (tmp_path / "ok" / "sections.jsonl").exists()
    res = CliRunner().invoke(cli, ["build", str(EXAMPLES), "-o", str(tmp_path / "skip"), "--until", "parse", "-q",
                                   "--no-preflight", "--llm", f"openai:some-model@{_dead_url()}"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert (tmp_path / "skip" / "sections.jsonl").exists()


def test_a_url_in_a_message_never_carries_its_password() -> None:
    assert shown_url("https://user:pw@llm.example.com/v1") == "https://llm.example.com/v1"
    assert shown_url(None) == "https://api.openai.com/v1"


def test_a_build_whose_every_request_failed_says_so_not_no_candidates(tmp_path: Path) -> None:
    """The endpoint answered the preflight (or there is none: a recording), then every generation request
    failed: the last line blames the requests, not the documents."""
    empty = tmp_path / "no_replies"  # a recording with no reply: every request fails for good
    empty.mkdir()
    fast = ["embed.backend=tfidf", "topics.reducer=pca", "topics.clusterer=kmeans", "topics.n_clusters=4",
            "folds.samples_total=6", "llm.max_consecutive_failures=1000"]  # fmt: skip
    args = ["build", str(EXAMPLES), "-o", str(tmp_path / "out"), "--llm", f"replay:{empty}", "-q"]
    res = CliRunner().invoke(cli, args + [a for kv in fast for a in ("--set", kv)])
    assert res.exit_code == 1, res.output
    last = res.output.strip().splitlines()[-1]
    assert last.startswith("error: no items: all ") and "LLM generation request(s) failed" in last, res.output
    assert "no recorded reply" in last and "made no candidates" not in res.output


def test_some_failed_requests_are_counted_of_all() -> None:
    from qagen.report.summary import no_items_reason

    generate = {
        "counts": {"candidates": 0, "failed_requests": 3},
        "llm": {"requests": 10, "errors": {"backend_error": 3}},
        "errors": [{"request": "a", "reason": "HTTP 500 from the server"}] * 3,
    }
    reason = no_items_reason({"stages": {"generate": generate}})
    assert reason.startswith("no items: 3 of 10 LLM generation request(s) failed (e.g. HTTP 500 from the server)")


def test_a_dead_embedding_endpoint_stops_the_build_before_parsing(tmp_path: Path) -> None:
    url = _dead_url()
    res = CliRunner().invoke(cli, ["build", str(EXAMPLES), "-o", str(tmp_path / "out"), "-q",
                                   "--set", f"embed.backend=openai:some-embedder@{url}"])  # fmt: skip
    assert res.exit_code == 1, res.output
    assert f"the embedding endpoint {url} cannot be reached" in res.output and "Traceback" not in res.output
    assert "embed.backend" in res.output and not (tmp_path / "out" / "sections.jsonl").exists()


def test_an_embedder_on_the_generators_server_is_checked_once(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-right")
    with FakeOpenAIServer(api_key="sk-right") as server:
        sets = [f"llm.backend=openai:fake-model@{server.url}", "embed.backend=openai:fake-embed"]
        build(EXAMPLES, tmp_path / "ok", overrides=sets, until="parse")
        assert server.models_requests == 1


def test_a_dead_judge_endpoint_stops_score_before_judging(tmp_path: Path) -> None:
    from tests.support.score_data import ANSWERS, make_out, write_answers

    out = make_out(tmp_path / "out")
    answers = write_answers(tmp_path / "a.jsonl", ANSWERS)
    url = _dead_url()
    res = CliRunner().invoke(cli, ["score", str(out), "--answers", str(answers), "--judge", f"openai:judge@{url}",
                                   "--set", "score.embedder=tfidf", "-q"])  # fmt: skip
    assert res.exit_code == 1, res.output
    line = res.output.strip().splitlines()[-1]
    assert f"the LLM judge's endpoint {url} cannot be reached" in line and "--judge" in line, res.output
    assert "llm.preflight=false" in line and not (out / "scores.json").exists()
