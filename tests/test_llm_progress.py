"""What an LLM run shows while it works: a bar on a terminal, plain lines elsewhere, nothing with -q."""

from __future__ import annotations

import io

from pydantic import BaseModel

from qagen.config import LLMConfig
from qagen.formatting import format_duration
from qagen.llm import LLMEngine, LLMRequest, Message
from qagen.llm.base import LLMStats
from qagen.llm.fake import FakeLLM
from qagen.llm.progress import LLMProgress


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_every_interval_and_at_the_end():
    stats, clock, out = LLMStats(), Clock(), io.StringIO()
    progress = LLMProgress(4, stats, 0.5, stream=out, every_s=30, clock=clock)
    clock.t += 10
    stats.cost_usd += 0.01
    progress.advance()
    assert out.getvalue() == ""  # not yet 30 s
    clock.t += 30
    stats.repairs += 1
    progress.add_calls(1)
    progress.advance()
    line = out.getvalue().strip()
    assert line == "llm: 2/5 calls (40%), $0.0100 of $0.5000, 1 repair, 0 retries, 0 failed, about 1 min 00 s left"
    stats.retries += 2
    stats.failures += 1
    progress.advance(3)
    progress.close()
    last = out.getvalue().strip().splitlines()[-1]
    assert last == "llm: 5/5 calls (100%), $0.0100 of $0.5000, 1 repair, 2 retries, 1 failed, 40 s"


def test_the_counts_are_this_runs_not_the_engines_lifetime():
    stats = LLMStats(cost_usd=1.0, retries=7, repairs=3, failures=2)
    progress = LLMProgress(2, stats, None, stream=io.StringIO(), clock=Clock())
    stats.cost_usd += 0.25
    assert progress.postfix() == "$0.2500, 0 repairs, 0 retries, 0 failed"
    assert "$" not in LLMProgress(2, stats, None, stream=io.StringIO(), priced=False).postfix()


def test_a_terminal_gets_a_bar_whose_total_grows_with_repairs():
    out = Terminal()
    stats = LLMStats()
    progress = LLMProgress(3, stats, None, stream=out, clock=Clock())
    progress.advance()
    progress.add_calls(2)
    stats.repairs += 2
    progress.advance(2)
    progress._bar.refresh()
    shown = out.getvalue()
    progress.close()
    assert "llm:" in shown and "3/5" in shown and "2 repairs" in shown


def test_quiet_writes_nothing():
    out = Terminal()
    progress = LLMProgress(3, LLMStats(), None, enabled=False, stream=out)
    progress.advance(3)
    progress.close()
    assert out.getvalue() == ""


def test_durations_read_naturally():
    assert [format_duration(s) for s in (4.4, 65, 3725)] == ["4 s", "1 min 05 s", "1 h 02 min"]


class Answer(BaseModel):
    answer: str


def test_an_engine_run_counts_repair_calls_in_its_total(capsys):
    replies = ["not json", '{"answer": "a"}', '{"answer": "b"}', '{"answer": "c"}']
    llm = FakeLLM(replies=replies)
    engine = LLMEngine(llm, LLMConfig(max_concurrency=1, repair_attempts=1), progress=True)
    requests = [LLMRequest((Message("user", f"q{i}"),)) for i in range(3)]
    results = engine.run(requests, Answer)
    assert all(r.ok for r in results) and engine.stats.repairs == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("llm: 4/4 calls (100%), 1 repair, 0 retries, 0 failed"), err


def test_no_reply_for_a_while_is_said_not_kept_silent():
    """A server that accepts the connection and never answers kept a run silent for timeout x attempts
    (issue 47): once no call has finished for ``every_s``, a line says so, with the wait that applies."""
    stats, clock, out = LLMStats(), Clock(), io.StringIO()
    progress = LLMProgress(3, stats, None, stream=out, every_s=30, clock=clock, priced=False)
    clock.t += 20
    progress.waiting(120, 3)
    assert out.getvalue() == ""  # not yet
    clock.t += 15
    progress.waiting(120, 3)
    line = out.getvalue().strip()
    assert line.startswith("llm: 0/3 calls (0%)") and "no reply for 35 s" in line
    assert "up to 2 min 00 s (llm.timeout_s), 3 attempts" in line
    progress.advance()
    clock.t += 10
    progress.waiting(120, 3)
    assert len(out.getvalue().strip().splitlines()) == 1  # a call finished 10 s ago: nothing to say


class SilentLLM(FakeLLM):
    """Answers only once the run has said it is waiting (a server that keeps the caller waiting), or after 10 s:
    deterministic whatever the machine's load."""

    def __init__(self) -> None:
        super().__init__(responder=lambda request: '{"answer": "a"}')

    async def complete(self, request: LLMRequest):
        import asyncio
        import sys

        for _ in range(200):
            if "no reply for" in sys.stderr.getvalue():
                break
            await asyncio.sleep(0.05)
        return await super().complete(request)


def test_an_engine_says_it_is_waiting_while_no_reply_comes(capsys):
    engine = LLMEngine(SilentLLM(), LLMConfig(max_concurrency=1), progress=True, progress_every_s=0.1)
    results = engine.run([LLMRequest((Message("user", "q"),))], Answer)
    assert results[0].ok
    err = capsys.readouterr().err
    assert "llm: 0/1 calls" in err and "no reply for" in err and "(llm.timeout_s)" in err, err
