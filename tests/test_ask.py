"""``qagen ask``: the built-in baseline RAG answers a build's questions (offline, or an LLM from the retrieved
pages), scores them, and the "score your own chatbot" guide's code runs as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from qagen.cli import cli
from tests.support.llm_server import FakeOpenAIServer, last_user_text
from tests.support.score_data import make_out

ROOT = Path(__file__).resolve().parents[1]
FAST = ["--set", "score.embedder=tfidf"]


def _questions(out: Path) -> int:
    cross = json.loads((out / "crosseval.json").read_text())
    return sum(sum(1 for _ in open(out / it["questions"], encoding="utf-8")) for it in cross["iterations"])


def test_ask_answers_every_question_offline_scores_them_and_resumes(tmp_path: Path) -> None:
    out = make_out(tmp_path / "out")
    res = CliRunner().invoke(cli, ["ask", str(out), "-q", *FAST])
    assert res.exit_code == 0, res.output
    answers = out / "answers.ask.jsonl"
    rows = [json.loads(line) for line in answers.read_text().splitlines()]
    assert len(rows) == _questions(out) and all(r["retrieved_page_ids"] is not None for r in rows)
    assert "headline (" in res.output and "hallucination:" in res.output and (out / "scores.ask.json").is_file()
    assert f"--answers YOURS.jsonl --answers {answers}" in res.output
    again = CliRunner().invoke(cli, ["ask", str(out), "-q", "--no-score", *FAST])
    assert again.exit_code == 0 and f"0 new answers, {len(rows)} from an earlier run" in again.output


def test_ask_with_an_llm_answers_from_the_retrieved_pages(tmp_path: Path) -> None:
    out = make_out(tmp_path / "out")

    def respond(body: dict) -> str:
        context = last_user_text(body)
        return "Call the helpdesk on +31 20 794 3120." if "helpdesk" in context.lower() else "It is in the pages."

    with FakeOpenAIServer(respond) as server:
        spec = f"openai:fake-model@{server.url}"
        res = CliRunner().invoke(cli, ["ask", str(out), "--llm", spec, "-q", "--no-score", *FAST])
        assert res.exit_code == 0, res.output
        assert server.models_requests == 1 and server.count() > 0  # the preflight, then the answers
        asked = [last_user_text(r.body) for r in server.chat_requests]
    assert all("Question:" in text and "[1]" in text for text in asked)  # the question with its pages
    answers = out / "answers.ask-fake-model.jsonl"
    rows = [json.loads(line) for line in answers.read_text().splitlines()]
    assert len(rows) == _questions(out)
    assert any(r["answer"] == "Call the helpdesk on +31 20 794 3120." for r in rows)


def test_ask_with_a_dead_endpoint_is_one_line(tmp_path: Path) -> None:
    import socket

    out = make_out(tmp_path / "out")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    res = CliRunner().invoke(cli, ["ask", str(out), "--llm", f"openai:m@{url}", "-q"])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert f"the LLM endpoint {url} cannot be reached" in res.output and "without --llm" in res.output


def test_the_guides_code_runs_as_written(tmp_path: Path) -> None:
    """docs/score-your-chatbot.md's Python block, run as a script beside a build named ``out``."""
    guide = (ROOT / "docs" / "score-your-chatbot.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", guide, re.S).group(1)
    skip = ("#", "from", "import")
    body = [line for line in code.splitlines() if line.strip() and not line.lstrip().startswith(skip)]
    assert len(body) <= 16, "the guide promises about fifteen lines"
    make_out(tmp_path / "out")
    script = tmp_path / "guide.py"
    script.write_text(code, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, env=env,
                          timeout=600)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    rate = float(proc.stdout.strip().splitlines()[-1])
    assert 0.0 <= rate <= 1.0
    rows = (tmp_path / "out" / "answers.mine.jsonl").read_text().splitlines()
    assert len(rows) == _questions(tmp_path / "out") and (tmp_path / "out" / "scores.json").is_file()
